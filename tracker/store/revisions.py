"""The schema revisions this tracker knows, oldest first.

A database stamped with anything else was written by a newer tracker and is refused. Kept apart
from ``tracker.store.schema`` so that opening a database at head imports no SQLAlchemy.
"""

KNOWN_REVISIONS: tuple[str, ...] = ("0001", "0002", "0003", "0004", "0005", "0006", "0007")
HEAD_REVISION = KNOWN_REVISIONS[-1]
