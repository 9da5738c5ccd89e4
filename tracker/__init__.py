"""tracker: an event-sourced session tracker for tabletop role-playing campaigns."""

__version__ = "0.1.0"
