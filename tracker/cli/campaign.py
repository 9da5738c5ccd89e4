"""``tracker campaign``, ``tracker session`` and ``tracker character``."""

from __future__ import annotations

from typing import Any

import click

from tracker.app.declared import CAMPAIGN_USE, SESSION_END, SESSION_START, done, run
from tracker.cli import complete
from tracker.cli.declared import make_command, with_options
from tracker.cli.options import NumberArgs, emit_json, open_tracker
from tracker.cli.render import (
    TRACK_WORDS,
    bold,
    dim,
    duration,
    local_time,
    plural,
    update_words,
    warn,
)
from tracker.errors import BadInput
from tracker.systems.capabilities import Currencies, Movement, OwnSettings, able
from tracker.systems.commands import Argument, Command, Option


@click.group("campaign")
def campaign() -> None:
    """Create, list and choose campaigns."""


def _campaign_new(name: str, system: str, as_json: bool, **settings: Any) -> None:
    """Create a campaign and make it the current one, with the table settings its rulebook
    leaves to the GM (`tracker campaign set` changes them later).

    \b
    Examples:
      tracker campaign new "Ashes of Veyra" --system glintlock
      tracker campaign new "The Salt Road" --system gurps --cinematic --tech-level 3
    """
    tracker = open_tracker()
    row = tracker.campaigns.campaign_new(name, system, settings)
    if as_json:
        emit_json(
            {
                "campaign_id": row.campaign_id,
                "name": row.name,
                "system": row.system,
                "db": tracker.location,
            }
        )
        return
    click.echo(
        f'Campaign "{row.name}" ({row.system}) created and selected. Log: {tracker.location}'
    )


CAMPAIGN_NEW = Command(
    ("campaign", "new"),
    _campaign_new.__doc__ or "",
    arguments=(Argument("name", example='"Ashes of Veyra"'),),
    options=(
        Option(
            "--system",
            "The rule system the campaign plays.",
            "system",
            required=True,
            example="--system glintlock",
        ),
    ),
)
"""A new campaign: the options of the settings every installed system reads follow --system."""


def _campaign_set(note: str | None, as_json: bool, **given: Any) -> None:
    """Change the campaign's table settings, as an event (only what is given changes); with
    no setting given, show them.

    \b
    Examples:
      tracker campaign set
      tracker campaign set --stress-limit 8 --note "a gentler Gloom"
      tracker campaign set --tech-level 8
      tracker campaign set --fright-table fixtures/tables/fright-gentle.toml
    """
    from tracker.cli.play import show_logged

    tracker = open_tracker()
    if all(v is None for v in given.values()):
        state, settings = tracker.campaigns.settings()
        if as_json:
            emit_json({"campaign": state.name, "settings": settings})
            return
        click.echo(f"{bold(state.name)} ({state.rules.title})")
        for name, value in settings.items():
            setting = able(state.rules, OwnSettings).setting(name)
            click.echo(f"  {setting.words}: {setting.text(value)}")
        return
    logged = tracker.campaigns.campaign_set(note=note, **given)
    d = logged.doc
    rules = logged.state.rules
    changes = ", ".join(
        f"{s.words} {s.text(d['before'][k])} → {s.text(v)}"
        for k, v in d["after"].items()
        if (s := able(rules, OwnSettings).setting(k)) is not None
    )
    show_logged(logged, as_json, [f'"{d["campaign"]}": {changes}.'])


CAMPAIGN_SET = Command(
    ("campaign", "set"),
    _campaign_set.__doc__ or "",
    options=(Option("--note", "Why the table changed it.", example='--note "a gentler Gloom"'),),
    short_help="Change or show the campaign's table settings.",
)
"""A change of settings: the options of the settings every installed system reads come before
--note."""


def _with_settings(declared: Command, at_creation: bool, before: str | None) -> Command:
    """``declared`` with the option of each campaign setting an installed system reads that
    ``campaign new`` (``at_creation``) or ``campaign set`` takes, put before ``before``."""
    from tracker.systems import registry

    settings = registry.campaign_settings()
    options = [s.new if at_creation else s.option for s in settings]
    return with_options(declared, [o for o in options if o is not None], before)


def _setting_readers() -> dict[str, set[str]]:
    """The systems that read each campaign setting, by its name."""
    from tracker.systems import registry

    found: dict[str, set[str]] = {}
    for setting in registry.settings():
        found.setdefault(setting.name, set()).add(setting.system or "")
    return found


campaign.add_command(
    make_command(CAMPAIGN_NEW, _campaign_new, later=lambda c: _with_settings(c, True, before=None))
)
campaign.add_command(
    make_command(
        CAMPAIGN_SET,
        _campaign_set,
        cls=complete.SystemOptions,
        reads=_setting_readers,
        later=lambda c: _with_settings(c, False, before="--note"),
    )
)


CAMPAIGN_LIST = Command(
    ("campaign", "list"),
    """List the campaigns in the database; * marks the current one.

    \b
    Example:
      tracker campaign list --json
    """,
)


def _campaign_list(as_json: bool) -> None:
    rows = open_tracker().campaigns.campaign_list()
    if as_json:
        emit_json(
            {
                "campaigns": [
                    {
                        "campaign_id": r.campaign_id,
                        "name": r.name,
                        "system": r.system,
                        "current": current,
                        "events": count,
                    }
                    for r, current, count in rows
                ]
            }
        )
        return
    if not rows:
        click.echo("No campaigns yet; create one with `tracker campaign new NAME --system ...`.")
    for row, current, count in rows:
        mark = "*" if current else " "
        click.echo(f"{mark} {row.name}  ({row.system}, {plural(count, 'event')})")


campaign.add_command(make_command(CAMPAIGN_LIST, _campaign_list))


def _campaign_use(as_json: bool, **values: Any) -> None:
    doc = done(open_tracker(), CAMPAIGN_USE.path, values).doc
    if as_json:
        emit_json(doc)
        return
    click.echo(f'Now playing "{doc["name"]}" ({doc["system"]}).')


campaign.add_command(make_command(CAMPAIGN_USE, _campaign_use))


@click.group("session")
def session() -> None:
    """Start, end and list sessions of play."""


def _session_start(as_json: bool, **values: Any) -> None:
    from tracker.cli.play import show_logged

    logged = run(open_tracker(), SESSION_START.path, values)
    state, info = logged.state, logged.state.session
    name = f' "{info.title}"' if info.title else ""
    line = f"Session {info.number}{name} started {local_time(info.started_at, 'HH:mm')}."
    reset = sorted(able(state.rules, Currencies).session_resets(state))
    if reset:
        line += f" {' and '.join(TRACK_WORDS[t] for t in reset)} reset to 0."
    lapsed = [warn(f"Lapsed: {what}") for what in logged.doc["lapsed_spends"]]
    # What it opened (a spending floor owed again at once) follows, as after any command.
    show_logged(logged, as_json, [line, *lapsed])


session.add_command(make_command(SESSION_START, _session_start))


def _session_end(as_json: bool, **values: Any) -> None:
    logged = run(open_tracker(), SESSION_END.path, values)
    if as_json:
        emit_json(logged.doc)
        return
    info, kept = logged.state.session, logged.doc["receipt"]
    owed = sorted(logged.state.obligations.values(), key=lambda o: o.opened_version)
    took = duration(info.started_at, info.ended_at or info.started_at)
    click.echo(
        f"Session {info.number} ended {local_time(info.ended_at, 'HH:mm')} "
        f"({took}, {plural(info.event_count, 'event')})."
    )
    if not logged.discharged and not owed:
        click.echo("Open obligations: none.")
    # What lapsed is closed; what is still owed waits for the next session (or a dismissal).
    for ob in logged.discharged:
        click.echo(warn(f"Lapsed: {ob.what}"))
    for ob in owed:
        click.echo(warn(f"Still owed: {ob.what}"))
    click.echo(
        f"Receipt for the players: {kept}\n"
        f"  (`tracker verify --against {kept}` later says whether the log still holds tonight.)"
    )


session.add_command(make_command(SESSION_END, _session_end))


SESSION_LIST = Command(
    ("session", "list"),
    """List the campaign's sessions.

    \b
    Example:
      tracker session list --json
    """,
)


def _session_list(as_json: bool) -> None:
    sessions = open_tracker().campaigns.session_list()
    if as_json:
        emit_json({"sessions": [s.to_dict() for s in sessions]})
        return
    if not sessions:
        click.echo("No sessions yet; start one with `tracker session start`.")
    for s in sessions:
        status = "running" if s.ended_at is None else duration(s.started_at, s.ended_at)
        title = f' "{s.title}"' if s.title else ""
        undone = f", {s.undone_count} undone" if s.undone_count else ""
        click.echo(
            f"{s.number:>3}{title}  {local_time(s.started_at)}  {status}  "
            f"{dim(plural(s.event_count, 'event') + undone)}"
        )


session.add_command(make_command(SESSION_LIST, _session_list))


@click.group("character")
def character() -> None:
    """Add characters and show their sheets."""


CHARACTER_ADD = Command(
    ("character", "add"),
    """Add a character to the current campaign: a player's, or with --npc (or `npc = true`
    in the sheet) one the GM plays.

    \b
    Examples:
      tracker character add Wren --stat Grit=3 --stat Wits=2 --trained Climb --class Seer
      tracker character add --sheet fixtures/sheets/gurps-mira.toml
      tracker character add Vesna --npc --stat Will=11 --skill "Sex Appeal=15"
    """,
    arguments=(Argument("name", required=False),),
    options=(
        Option("--stat", "A stat or attribute.", dest="stats", multiple=True, metavar="KEY=N"),
        Option("--skill", "A skill and its level.", dest="skills", multiple=True, metavar="KEY=N"),
        Option("--trained", "Glintlock: a trained skill.", multiple=True, metavar="SKILL"),
        Option("--class", "Glintlock: the class.", dest="character_class", metavar="CLASS"),
        Option("--sheet", "A sheet file (TOML or JSON); options given here add to it.", "file"),
        Option(
            "--npc",
            "The GM plays the character (--npc) or a player does (--pc, the default).",
            "bool",
            off="--pc",
        ),
    ),
)


def _character_add(
    name: str | None,
    stats: tuple[str, ...],
    skills: tuple[str, ...],
    trained: tuple[str, ...],
    character_class: str | None,
    sheet: str | None,
    npc: bool | None,
    as_json: bool,
) -> None:
    added = open_tracker().campaigns.character_add(
        name,
        stats=stats,
        skills=skills,
        trained=trained,
        character_class=character_class,
        sheet_path=sheet,
        npc=npc,
    )
    if as_json:
        emit_json(added.to_dict())
        return
    click.echo(f"Added {bold(added.name)}: {_sheet_line(added)}")


character.add_command(make_command(CHARACTER_ADD, _character_add))


CHARACTER_UPDATE = Command(
    ("character", "update"),
    """Change a character's sheet as an event; rolls from here on use the new sheet, and
    every view of earlier play shows the sheet as it was then. HP and FP keep what play left
    of them (at most the new maximum) unless --reset-tracks.

    \b
    Examples:
      tracker character update Vora --skill Broadsword=17 --note "12 points spent"
      tracker character update Mira --trait "Combat Reflexes" --drop-trait Clueless
      tracker character update Mira --sheet fixtures/sheets/gurps-mira.toml
      tracker character update Harbourmaster --npc     the GM plays him from here on
    """,
    arguments=(Argument("name", complete="characters"),),
    options=(
        Option("--stat", "A stat's new score.", dest="stats", multiple=True, metavar="KEY=N"),
        Option("--skill", "A skill's new level.", dest="skills", multiple=True, metavar="KEY=N"),
        Option("--drop-skill", "Drop a skill.", dest="drop_skills", multiple=True, metavar="SKILL"),
        Option("--trained", "Glintlock: newly trained.", multiple=True, metavar="SKILL"),
        Option("--trait", "A trait gained.", dest="traits", multiple=True, metavar="TRAIT"),
        Option("--drop-trait", "A trait lost.", dest="drop_traits", multiple=True, metavar="TRAIT"),
        Option("--class", "Glintlock: a new class.", dest="character_class", metavar="CLASS"),
        Option(
            "--sheet",
            "A newer sheet file: what differs from the sheet as it stands is logged.",
            "file",
        ),
        Option("--reset-tracks", "Set HP and FP to their (new) maximum.", "bool"),
        Option(
            "--npc",
            "The GM plays the character (--npc) or a player does (--pc).",
            "bool",
            off="--pc",
        ),
        Option("--note", "Why the sheet changed (points spent, a boon)."),
    ),
    short_help="Change a character's sheet, as an event.",
)


def _character_update(name: str, as_json: bool, **options: Any) -> None:
    from tracker.app.campaigns import SheetChange
    from tracker.cli.play import show_logged

    tracker = open_tracker()
    change = SheetChange(sheet_path=options.pop("sheet"), **options)
    logged = tracker.campaigns.character_update(name, change)
    d = logged.doc
    after = logged.state.characters[d["character_id"]]
    show_logged(logged, as_json, [f"Updated {bold(d['character'])}: {update_words(d, after)}."])


character.add_command(make_command(CHARACTER_UPDATE, _character_update))


CHARACTER_RETIRE = Command(
    ("character", "retire"),
    """Retire a character from play: kept on every record and in every export, refused for
    rolls and spends from here on. `tracker undo EVENT` brings them back.

    \b
    Example:
      tracker character retire Vora --note "fell at the drowned gate"
    """,
    arguments=(Argument("name", complete="characters"),),
    options=(Option("--note", "Why (died, left the party)."),),
    short_help="Retire a character from play, as an event.",
)


def _character_retire(name: str, note: str | None, as_json: bool) -> None:
    from tracker.cli.play import show_logged

    logged = open_tracker().campaigns.character_retire(name, note=note)
    version = logged.event.version
    show_logged(
        logged,
        as_json,
        [
            f"{logged.doc['character']} retired (event {version}); `tracker undo {version}` "
            "brings them back."
        ],
    )


character.add_command(make_command(CHARACTER_RETIRE, _character_retire))


AS_OF = Option("--as-of", "The sheet as it stood at an event or time.", metavar="EVENT|TIME")


def _state_as_of(tracker: Any, as_of: str | None) -> tuple[Any, str | None]:
    """The state now or as of an event or time, and the line that says which (None: now)."""
    if not as_of:
        return tracker.state(), None
    state, at = tracker.history.as_of(as_of)
    return state, dim(f"As of event {at.version} ({local_time(at.recorded_at)}):")


CHARACTER_LIST = Command(
    ("character", "list"),
    """List the current campaign's characters and their sheets, as rolls use them.

    \b
    Examples:
      tracker character list
      tracker character list --as-of 40     the sheets as they stood after event 40
    """,
    options=(AS_OF,),
    short_help="List the campaign's characters and their sheets.",
)


def _character_list(as_of: str | None, as_json: bool) -> None:
    tracker = open_tracker()
    state, header = _state_as_of(tracker, as_of)
    found = list(state.characters.values())
    if header and not as_json:
        click.echo(header)
    if as_json:
        emit_json({"characters": [_character_doc(c, state.rules) for c in found]})
        return
    if not found:
        click.echo(f'No characters in "{state.name}" yet; add one with `tracker character add`.')
    for c in found:
        retired = dim(f"  (retired at event {c.retired_version})") if c.retired_version else ""
        click.echo(f"{bold(c.name)}  {_sheet_line(c)}{retired}")


character.add_command(make_command(CHARACTER_LIST, _character_list))


def _character_doc(c: Any, rules: Any) -> dict[str, Any]:
    return {**c.to_dict(), **c.lasting(rules), "retired_at": c.retired_version}


CHARACTER_SHOW = Command(
    ("character", "show"),
    """Show a character's sheet (GURPS: and what its Basic Move gives).

    \b
    Examples:
      tracker character show Mira
      tracker character show Mira --as-of 40     the sheet as it stood after event 40
      tracker character show Vora --run-up 4     her jumps after a 4-yard running start
    """,
    arguments=(Argument("name", complete="characters"),),
    options=(
        AS_OF,
        Option(
            "--run-up",
            "GURPS: the jumps after a running start of YARDS.",
            "int",
            default=0,
            metavar="YARDS",
            limits=(0, 100),
        ),
    ),
)


def _character_show(name: str, as_of: str | None, run_up: int, as_json: bool) -> None:
    tracker = open_tracker()
    state, header = _state_as_of(tracker, as_of)
    found = tracker.character(name, state, retired_ok=True)
    if header and not as_json:
        click.echo(header)
    movement = able(state.rules, Movement).movement(found, run_up)
    if run_up and movement is None:
        raise BadInput(
            f"A run-up needs a Basic Move, and {found.name}'s sheet has none; add it with "
            f"`tracker character update {found.name} --stat Move=N`."
        )
    if as_json:
        emit_json({**_character_doc(found, state.rules), "movement": movement})
        return
    click.echo(f"{bold(found.name)}  {_sheet_line(found)}")
    if found.retired_version is not None:
        click.echo(dim(f"  Retired from play at event {found.retired_version}."))
    for skill, exprs in found.defaults.items():
        click.echo(f"  {skill} defaults to {', '.join(exprs)}")
    # What play has left on the sheet: rolls already use it, so the sheet must say it.
    for line in state.rules.folding.sheet_lines(found):
        click.echo(line)
    if movement:
        click.echo(
            f"  Basic Move {movement['basic_move']}: sprinting {movement['sprint_move']} after a "
            f"second, paced running {movement['paced_move']}, water Move "
            f"{movement['water_move']}, standing high jump {movement['high_jump_inches']} in, "
            f"broad jump {movement['broad_jump_feet']} ft"
        )
        if run_up:
            click.echo(
                f"  After a {run_up}-yard run-up: high jump "
                f"{movement['running_high_jump_inches']} in, broad jump "
                f"{movement['running_broad_jump_feet']} ft"
            )


character.add_command(make_command(CHARACTER_SHOW, _character_show))


CHARACTER_DEFAULT = Command(
    ("character", "default"),
    """GURPS: let SKILL default to EXPR for a character (e.g. Lockpicking IQ-5).

    \b
    Example:
      tracker character default Aldric Lockpicking IQ-5
    """,
    arguments=(
        Argument("name", complete="characters"),
        Argument("skill", complete="traits:name"),
        Argument("expression", metavar="EXPR"),
    ),
    short_help="GURPS: let SKILL default to EXPR for a character.",
)


def _character_default(name: str, skill: str, expression: str, as_json: bool) -> None:
    found = open_tracker().campaigns.character_default(name, skill, expression)
    if as_json:
        emit_json(found.to_dict())
        return
    click.echo(f"{found.name}: {skill} defaults to {expression}.")


character.add_command(make_command(CHARACTER_DEFAULT, _character_default, cls=NumberArgs))


def _stat_text(c, name: str, on_sheet: int) -> str:
    """A score as rolls use it, and the sheet's number beside it when play has changed it."""
    now = c.stat(name)
    if now == on_sheet:
        return f"{name} {on_sheet}"
    return f"{name} {now} ({on_sheet} on the sheet, {now - on_sheet:+d} lasting)"


def _sheet_line(c) -> str:
    parts = ["NPC"] if c.npc else []
    if c.character_class:
        parts.append(c.character_class)
    if c.stats:
        parts.append(" ".join(_stat_text(c, k, v) for k, v in c.stats.items()))
    if c.skills:
        parts.append(" ".join(f"{k} {v}" for k, v in c.skills.items()))
    if c.trained:
        parts.append("trained: " + ", ".join(c.trained))
    if c.traits:
        parts.append("traits: " + ", ".join(c.traits))
    return " · ".join(parts) or "no scores yet"


COMMANDS = [campaign, session, character]
