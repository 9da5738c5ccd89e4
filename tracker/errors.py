"""Domain errors: each carries one sentence a GM can act on and the exit code it maps to.

The scripting contract fixes the codes: 1 when the rules or the campaign's state refuse a
command (nothing is appended), 2 for bad usage (a malformed argument, impossible dice).
"""


class TrackerError(Exception):
    """Base of every error tracker reports to its user instead of a traceback."""

    exit_code = 1
    """What the command exits with when this refuses it: 1 for a refusal, 2 for bad usage
    (``BadInput``)."""


class Refused(TrackerError):
    """The rules or the current state forbid the command; nothing was appended."""


class NotFound(Refused):
    """A campaign, session, character or event the command names does not exist."""


class BadInput(TrackerError):
    """An argument cannot be understood or is impossible (a 21 on a d20, a malformed --stat)."""

    exit_code = 2


class DiceError(BadInput, ValueError):
    """Physical dice that do not fit the roll: wrong count, or a face the die does not have."""


class ConcurrencyError(Refused):
    """Another writer appended to the campaign first; re-read the state and try again."""


class StorageError(TrackerError):
    """The database cannot be opened or written (not a database, newer schema, read-only)."""
