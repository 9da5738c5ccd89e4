"""Command handlers: load the state, ask the rule system, decide the events, append them.

``Tracker`` (``tracker.app.tracker``) is imported on first use, so a module of this package that
does not open a database (sheets, say) does not load the database layer with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tracker.app.tracker import Tracker

__all__ = ["Tracker"]


def __getattr__(name: str) -> Any:
    if name == "Tracker":
        from tracker.app.tracker import Tracker

        return Tracker
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
