"""A rule system's own commands: what each takes, how it decides the events it logs, and what
it may ask of the table it runs at.

A system lists its commands (``OwnCommands.commands``): ``tracker threat add`` is Glintlock's,
``tracker points award`` GURPS's. Each is a ``SystemCommand``: its path on the command line,
the typed request it takes (a ``msgspec.Struct`` of its arguments and options, by name),
``decide``, which reads the campaign's state and returns what to log (``Acted``) or refuses
with one sentence, and its declaration (a ``tracker.systems.commands.Command``), from which
the command line, ``tracker shell`` and Tab completion offer it. The app runs it the way it
runs every command that logs: decided on the freshest state under the write lock, nothing
appended on a refusal. A listing (``logs=False``: ``tracker project status``) decides the same
way on the state as it stands and logs nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from typing import Any, NamedTuple, Protocol

import msgspec

from tracker.events.catalog import EventPayload
from tracker.events.effects import Effect
from tracker.systems.base import RollRequest, Side, Terminal
from tracker.systems.commands import Command
from tracker.systems.dice import DiceSource


class Entry(NamedTuple):
    """One event a command logs, and who may see it ("public", or "gm" for a secret)."""

    payload: EventPayload
    """The event: an ``EventPayload`` of tracker's or of the system's own."""
    visibility: str = "public"
    """Either "public", or "gm" for one the players see only once revealed."""
    event_id: str | None = None
    """The id it is logged under, when the command's document names it
    (``tracker.events.envelope.new_event_id``); None: a new one."""


class Acted(NamedTuple):
    """What a system's command decided: the events to log and the document it shows
    (``--json`` prints it; ``render`` words it)."""

    events: tuple[Entry, ...]
    """The events to log, in order, all or none (nothing for a listing)."""
    doc: dict[str, Any]
    """The document ``--json`` prints and ``SystemCommand.render`` words."""


class Table(Protocol):
    """What a system's command may ask of the table beyond the campaign's state."""

    def character(self, name: str, state: Any, *, retired_ok: bool = False) -> Any:
        """A character by name; one sentence when there is none or it has retired."""
        ...

    def version_of(self, event_id: str) -> int:
        """Where an event of the campaign stands in its log."""
        ...

    def players_see(self, state: Any, character_id: str, condition: str) -> bool:
        """Whether the players' own view, at ``state``'s version, shows the condition."""
        ...

    def side(self, state: Any, name: str, trait: str) -> Side:
        """A contest side: a character and its trait, or an opponent given as a name and a
        score; one sentence when it is neither."""
        ...

    def effects_shown(
        self, state: Any, character: Any, effects: Sequence[Effect]
    ) -> list[dict[str, Any]]:
        """Each effect as a roll's document shows it: a currency track with the values it moves
        from and to, a track the sheet lacks marked as not applied."""
        ...

    def dice_recorded(self, source: DiceSource) -> tuple[str, str | None]:
        """Where a roll's dice come from as its event records them ("system", "seeded",
        "physical"), and the seed if any."""
        ...

    def now(self) -> str:
        """The time at the table (ISO 8601, UTC), which a window of play is counted back from."""
        ...

    def roll(self, state: Any, name: str, request: RollRequest) -> Acted:
        """A roll of the character ``name`` decided as ``tracker roll`` decides it, in
        ``state`` (of the kind ``request.kind`` asks for: Gloom's panic check): its events and
        document as an ``Acted``, logged when the command returns them (alone, or its entries
        among the command's own). ``request.options`` holds the options of its kind when that
        ``RollKind`` declares them (the command's own: ``option_values(kind.options, ...)``),
        else the campaign's system's ``roll_options`` (``RuleSystem.roll_request`` makes one)."""
        ...


class SystemCommand(msgspec.Struct, frozen=True):
    """One command a rule system adds to tracker."""

    path: tuple[str, ...]
    """Its words on the command line: ("threat", "add")."""
    request: type
    """The ``msgspec.Struct`` it takes: its arguments and options by name."""
    decide: Callable[[Table, Any, Any], Acted]
    """(table, state, request) -> what to log; raises ``Refused``/``BadInput`` to refuse."""
    what: str
    """What it does, for the refusal in a campaign whose system has no such command
    ("Threat": "Threat is a Glintlock rule and this campaign plays gurps; ...")."""
    verb: str = "is"
    """How that refusal goes on after ``what`` ("Story tags are a Glintlock rule")."""
    chosen_by: tuple[str, tuple[str, ...]] | None = None
    """Where systems' commands share a path and do different things (``tracker spend``: a
    Mettle action in one, a buy-up in another), the argument that tells them apart and the
    values of it that choose this command; None: every value no command at the path names.
    A campaign whose system has no command of the kind chosen is refused with that kind's
    ``what``."""
    at_table: str | None = None
    """Play that only happens in a running session ("adding Threat"); None: bookkeeping."""
    render: Callable[[Mapping[str, Any], Terminal], list[str]] | None = None
    """Its document as the terminal shows it (``tracker.systems.base.Terminal``)."""
    logs: bool = True
    """False: a listing, which decides on the state as it stands and logs nothing."""
    check: Callable[[Any], None] | None = None
    """(request) -> None: refuses with ``BadInput`` what the request alone makes impossible
    (dice given for more workers than named), before any campaign is read."""
    taken: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    """The request's fields from the values ``declared``'s command line gave, when they are not
    the same (``tracker breaking-point``'s one or two texts); raises ``BadInput`` for words it
    cannot read, which the command line reports as it does a wrong word. None: the same."""
    discharges: tuple[str, ...] = ()
    """The kinds of obligation it is the way to discharge ("threat-floor"): a front door
    offers it beside each open one, filled in with the character it is about."""
    declared: Command | None = None
    """What it takes on the command line, with its help and examples: tracker's command line
    offers it as ``tracker WORD ...`` (unless tracker has a command of that word already),
    made from this, with ``--json`` printing its document. Its arguments and options are named
    as ``request``'s fields; None: no command line of its own."""


def done_by(where: str) -> Callable[..., Any]:
    """The function ``where`` names ("module:name"), imported the first time it is called.

    A system declares its commands where declaring them is cheap (their words, requests and
    help, which every command line, ``tracker shell`` and Tab completion read for every
    installed system) and names what they do (``decide``, ``render``, ``check``, ``taken``)
    this way, so that only a command that runs imports the rules behind it."""
    module, _, name = where.partition(":")
    found: list[Callable[..., Any]] = []

    def call(*args: Any, **kwargs: Any) -> Any:
        if not found:
            found.append(getattr(import_module(module), name))
        return found[0](*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call
