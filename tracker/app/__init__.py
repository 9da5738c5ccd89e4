"""Command handlers: load the state, ask the rules, decide the events, append them."""

from tracker.app.tracker import Tracker

__all__ = ["Tracker"]
