"""The core's commands as data (``tracker.systems.commands``), for every front door, and what
each the console runs too does (``BINDINGS``): its declaration and its call in one place.

The command line makes its click commands from these (``tracker.cli.play``,
``tracker.cli.history``, ``tracker.cli.campaign``) and runs each one's call with the values
click parsed; the web console makes its forms from them, and ``tracker.app.actions`` runs the
same call with a form's values as the declaration reads them (``taken``). A rule system's own
commands are declared with the system (``OwnCommands.commands``) and its roll options with its
rules (``RuleSystem.roll_options``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, cast

from tracker.systems.base import CONTEST_OPTIONS, ROLL_OPTIONS, Feature
from tracker.systems.commands import Argument, Command, Option

if TYPE_CHECKING:
    from tracker.app.deciding import Logged
    from tracker.app.tracker import Tracker
    from tracker.events import StoredEvent
    from tracker.projections.campaign import CampaignState
    from tracker.store.eventstore import CampaignRow

ROLL = Command(
    ("roll",),
    "Roll a character's skill or stat and log it.",
    arguments=(
        Argument("character", complete="characters", example="Wren"),
        Argument("trait", complete="traits", example="Grit"),
    ),
    options=ROLL_OPTIONS,
    short_help="Roll a character's skill or stat and log it.",
)
"""A roll: the options of every installed system's rolls stand before --secret."""


CAUSE = Option("--cause", "What caused it.")


def change(what: str) -> Argument:
    """The +N or -N a track moves by, named for the track ("stress change")."""
    return Argument("change", kind="change", metavar="+N|-N", label=f"{what} change")


STRESS = Command(
    ("stress",),
    """Add or clear stress (in a system with a stress track).

    \b
    Example:
      tracker stress Tomas +2 --cause "saw the drowned scribe"
    """,
    arguments=(Argument("character", complete="characters"), change("stress")),
    options=(CAUSE,),
)


CONDITION_SET = Command(
    ("condition", "set"),
    """Put a condition on a character.

    \b
    Example:
      tracker condition set Vora "broken arm" --duration 2 --unit sessions
    """,
    arguments=(Argument("character", complete="characters"), Argument("name")),
    options=(
        Option("--duration", "How long it lasts.", "int"),
        Option(
            "--unit",
            "What --duration counts.",
            "choice",
            choices=("seconds", "minutes", "hours", "days", "scenes", "sessions"),
            label="duration counted in",
        ),
        Option("--note", "What caused it."),
    ),
)


CONDITION_CLEAR = Command(
    ("condition", "clear"),
    """End a condition.

    \b
    Example:
      tracker condition clear Vora "broken arm" --note "the splint came off"
    """,
    arguments=(
        Argument("character", complete="characters"),
        Argument("name", complete="conditions"),
    ),
    options=(Option("--note", "What ended it."),),
)


NOTE = Command(
    ("note",),
    """Log a line of narrative; replays show it in place.

    \b
    Example:
      tracker note "The lamps gutter as the archive door gives way."
    """,
    arguments=(Argument("text"),),
)


DISMISS = Command(
    ("obligations", "dismiss"),
    "Waive an obligation, with a reason.",
    arguments=(Argument("obligation", metavar="ID"),),
    options=(Option("--reason", "Why it is waived, for the record."),),
)


CONTEST = Command(
    ("contest",),
    """A contest: A acts, B defends. Either side may be an opponent given as NAME SCORE.

    \b
    Examples:
      tracker contest Kade Hacking "Corp netrunner" 14 --dice-a 14 --dice-b 5
      tracker contest Vora Broadsword Duellist 12 --mode quick
      tracker contest Wizard 18 Aldric Will --mode resistance --supernatural
      tracker contest Juno Piloting Ace 13 --mode dynamic
    """,
    arguments=(
        Argument("a", complete="characters", example="Kade", label="A, who acts"),
        Argument("trait_a", complete="traits:a", example="Hacking", label="A's trait or score"),
        Argument("b", complete="characters", example='"Corp netrunner"', label="B, who defends"),
        Argument("trait_b", complete="traits:b", example="14", label="B's trait or score"),
    ),
    options=CONTEST_OPTIONS,
)
"""A contest: the options of every installed system's contests stand before --seed."""


def track_command(track: str) -> Command:
    """``tracker hp`` or ``tracker fp``: a track of the sheet's, lost or regained."""
    example = {
        "hp": 'tracker hp Vora -4 --cause "a goblin\'s spear"',
        "fp": "tracker fp Aldric -2",
    }
    return Command(
        (track,),
        f"Lose or regain {track.upper()} (tracked when the sheet has it).\n\n"
        f"\b\nExample:\n  {example[track]}",
        arguments=(Argument("character", complete="characters"), change(track.upper())),
        options=(CAUSE,),
    )


# Undo, redo and reveal; sessions and the current campaign. The command line makes its
# commands from these (``tracker.cli.history``, ``tracker.cli.campaign``) as the console does
# its buttons and forms.

UNDO = Command(
    ("undo",),
    """Take back an event (default: the last one in the running session). Nothing is deleted.

    \b
    Examples:
      tracker undo                 the last event of the running session
      tracker undo 118             event 118 (its number in `tracker log`), or its id
      tracker undo --session 4     a whole bad night
    """,
    arguments=(Argument("event", required=False, metavar="[EVENT]"),),
    options=(
        Option(
            "--session",
            "The session's number; every event of it is undone.",
            "int",
            metavar="N",
            label="a whole session",
        ),
        Option(
            "--cascade",
            "Later events that depended on the one undone.",
            "bool",
            label="also undo what depended on it",
        ),
        Option("--reason", "Why, for the record."),
    ),
    short_help="Take back an event; nothing is deleted.",
)

REDO = Command(
    ("redo",),
    """Put back what the last undo took back, while nothing but undos and redos has been logged
    since it, as an editor's redo; after anything else, only with --anyway.

    \b
    Examples:
      tracker redo --reason "it stood after all"
      tracker redo --anyway        after a roll logged since the undo
    """,
    options=(
        Option("--reason", "Why, for the record."),
        Option(
            "--anyway",
            "Though events were logged since the undo (each is checked against it).",
            "bool",
            label="put back anyway",
        ),
    ),
    short_help="Put back what the last undo took back.",
)

REVEAL = Command(
    ("reveal",),
    """Show the players a secret roll: their view holds it whole from now on.

    A secret event's hash is a commitment (it covers a random salt): players who kept it from
    `tracker log --player-view --json` can check that the roll revealed is the roll logged.

    \b
    Examples:
      tracker reveal 118           event 118 (its number in `tracker log`)
      tracker reveal --session 4   every secret roll of session 4
    """,
    arguments=(Argument("event", required=False, metavar="[EVENT]"),),
    options=(
        Option(
            "--session",
            "The session's number; every secret event of it is revealed.",
            "int",
            metavar="N",
            label="a whole session",
        ),
    ),
)

SESSION_START = Command(
    ("session", "start"),
    """Start a session; every event until `session end` belongs to it.

    \b
    Example:
      tracker session start --title "Below the archive"
    """,
    options=(Option("--title", "A title for the session, shown in replays."),),
)

SESSION_END = Command(
    ("session", "end"),
    """End the running session.

    \b
    Example:
      tracker session end
    """,
)

CAMPAIGN_USE = Command(
    ("campaign", "use"),
    """Make NAME the current campaign.

    \b
    Example:
      tracker campaign use "Neon Drift"
    """,
    arguments=(Argument("name", complete="campaigns"),),
)


# -- what each command does ------------------------------------------------------------------


class Done(Protocol):
    """What a core command did, as every front door reads it: the document it shows
    (``--json``, the console's answer) and the events it logged, oldest first."""

    @property
    def doc(self) -> dict[str, Any]: ...

    @property
    def events(self) -> Sequence[StoredEvent]: ...


class Chosen(NamedTuple):
    """What ``campaign use`` did: its document and the campaign it made current; it logs
    nothing, and reads no campaign's state."""

    doc: dict[str, Any]
    row: CampaignRow
    events: tuple[StoredEvent, ...] = ()


class Action(NamedTuple):
    """A core command the console runs too: its declaration, and its call on the tracker with
    the values the declaration takes (by argument and option name), which the command line and
    a form alike make, so that each value is read in one place and each command's document is
    one. ``needs``: the feature (``Feature``) a system must have for a page to offer it, else
    None."""

    declared: Command
    run: Callable[[Tracker, dict[str, Any]], Done]
    needs: str | None = None


def _roll(t: Tracker, v: dict[str, Any]) -> Logged:
    from tracker.systems import registry

    character, trait = v.pop("character"), v.pop("trait")
    return t.rolls.roll(character, registry.roll_request(trait, **v))


def _contest(t: Tracker, v: dict[str, Any]) -> Logged:
    from tracker.systems import registry

    sides = [v.pop(k) for k in ("a", "trait_a", "b", "trait_b")]
    return t.rolls.contest(*sides, registry.contest_request(**v))


def _track(track: str) -> Callable[[Tracker, dict[str, Any]], Logged]:
    def run(t: Tracker, v: dict[str, Any]) -> Logged:
        return t.tracks.track(v["character"], track, v["change"], cause=v["cause"])

    return run


def _session_start(t: Tracker, v: dict[str, Any]) -> Logged:
    """A session started: what the start lapsed (Mettle bought for a roll that never came) and
    what it opened (a spending floor owed again at once, on Threat carried over at 4 or more)."""
    from tracker.app.deciding import Logged

    state, info, lapsed = t.campaigns.session_start(v["title"])
    opened = [o for o in state.obligations.values() if o.opened_version == state.version]
    doc = {
        "campaign": state.name,
        **info.to_dict(),
        "lapsed_spends": list(lapsed),
        "obligations_opened": [o.to_dict() for o in opened],
    }
    return Logged(state, _last(t, state), doc, opened=opened)


def _session_end(t: Tracker, v: dict[str, Any]) -> Logged:
    """A session ended: the receipt of the log's head for the players, what lapsed with it and
    what is still owed."""
    from tracker.app.deciding import Logged
    from tracker.events.receipt import receipt

    state, info, lapsed = t.campaigns.session_end()
    owed = sorted(state.obligations.values(), key=lambda o: o.opened_version)
    doc = {
        "campaign": state.name,
        **info.to_dict(),
        "receipt": str(receipt(state.campaign_id, state.version, state.head_hash)),
        "obligations_discharged": [o.to_dict() for o in lapsed],
        "obligations": [o.to_dict() for o in owed],
    }
    return Logged(state, _last(t, state), doc, discharged=list(lapsed))


def _last(t: Tracker, state: CampaignState) -> list[StoredEvent]:
    """The event that made ``state``: a session's start or end is one event."""
    return list(t.store.read(state.campaign_id, after_version=state.version - 1))


def _campaign_use(t: Tracker, v: dict[str, Any]) -> Chosen:
    row = t.campaigns.campaign_use(v["name"])
    return Chosen({"campaign_id": row.campaign_id, "name": row.name, "system": row.system}, row)


BINDINGS: dict[tuple[str, ...], Action] = {
    action.declared.path: action
    for action in (
        Action(ROLL, _roll),
        Action(CONTEST, _contest, Feature.CONTESTS),
        Action(
            STRESS,
            lambda t, v: t.tracks.stress(v["character"], v["change"], cause=v["cause"]),
            Feature.STRESS,
        ),
        Action(track_command("hp"), _track("hp")),
        Action(track_command("fp"), _track("fp")),
        Action(
            CONDITION_SET,
            lambda t, v: t.tracks.condition_set(
                v["character"], v["name"], duration=v["duration"], unit=v["unit"], note=v["note"]
            ),
        ),
        Action(
            CONDITION_CLEAR,
            lambda t, v: t.tracks.condition_clear(v["character"], v["name"], note=v["note"]),
        ),
        Action(NOTE, lambda t, v: t.tracks.note(v["text"])),
        Action(
            DISMISS,
            lambda t, v: t.tracks.obligation_dismiss(v["obligation"], reason=v["reason"]),
        ),
        Action(
            UNDO,
            lambda t, v: t.history.undo(
                v["event"], session=v["session"], cascade=v["cascade"], reason=v["reason"]
            ),
        ),
        Action(
            REDO,
            lambda t, v: t.history.redo(reason=v["reason"], anyway=bool(v.get("anyway"))),
        ),
        Action(REVEAL, lambda t, v: t.history.reveal(v["event"], session=v["session"])),
        Action(SESSION_START, _session_start),
        Action(SESSION_END, _session_end),
        Action(CAMPAIGN_USE, _campaign_use),
    )
}
"""The core's commands the console runs too, by path, in the order a page offers them: one
binding each, which the command line's handler and the console's form both call. A command
that ``needs`` a feature is offered only in a campaign whose system has it (a Glintlock table
has no contests); run anyway, it is refused as the command line refuses it."""


def done(tracker: Tracker, path: tuple[str, ...], values: dict[str, Any]) -> Done:
    """Run the core command at ``path`` with ``values`` as its declaration takes them."""
    return BINDINGS[path].run(tracker, dict(values))


def run(tracker: Tracker, path: tuple[str, ...], values: dict[str, Any]) -> Logged:
    """Log the core command at ``path`` (one that logs: not ``campaign use``) with ``values``
    as its declaration takes them: what it logged, with the state after it."""
    return cast("Logged", done(tracker, path, values))
