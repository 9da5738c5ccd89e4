"""GURPS's major projects (``tracker project``): a team's daily rolls add man-hours until the
project is done (GURPS, 'Major projects')."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from tracker.errors import BadInput, NotFound, Refused
from tracker.events import play as ev
from tracker.events.envelope import new_event_id
from tracker.systems.acts import Acted, Entry, Table
from tracker.systems.base import CampaignView, Terminal
from tracker.systems.dice import DiceSource, source_for
from tracker.systems.gurps import play
from tracker.systems.gurps.declared import ProjectRoll, ProjectStart, ProjectStatus
from tracker.systems.gurps.events import ProjectStarted
from tracker.systems.gurps.folding import Project
from tracker.systems.gurps.rules.projects import project_day, supervisor_modifier
from tracker.words import plural

# The skills a supervisor directs a project's team with (GURPS, 'Major projects').
SUPERVISING = ("leadership", "administration")


def project_start(table: Table, state: Any, request: ProjectStart) -> Acted:
    name, hours = request.name, request.hours
    if hours < 1:
        raise BadInput(f"A project needs 1 or more man-hours, not {hours}; give --hours 1 or more.")
    if _project(state, name, missing_ok=True):
        raise Refused(f'A project named "{name}" already exists; pick another name.')
    payload = ProjectStarted(
        project_id=str(uuid.uuid4()), name=name.strip(), skill=request.skill, man_hours=hours
    )
    return Acted(
        (Entry(payload),), {"project": name.strip(), "skill": request.skill, "man_hours": hours}
    )


def day_asked(request: ProjectRoll) -> None:
    """A day's team and dice that cannot go together, whatever the project."""
    workers, dice = request.workers, request.dice
    if request.supervisor_skill.casefold() not in SUPERVISING:
        raise BadInput(
            f"A supervisor rolls Leadership or Administration, not {request.supervisor_skill}; "
            "give --supervisor-skill leadership or administration."
        )
    if not workers:
        raise BadInput("A project day needs a worker; name one or more after the project.")
    if dice and len(dice) != len(workers):
        raise BadInput(
            f"--dice was given {_times(len(dice))} for "
            f"{plural(len(workers), 'worker')}; give it once per worker, in the order the "
            "workers are named."
        )
    supervisor_modifier(request.supervisor_bonus)


def project_roll(table: Table, state: Any, request: ProjectRoll) -> Acted:
    """One day of a project's team: each worker's skill roll and the man-hours it adds.

    A supervisor directs the day instead of working (GURPS, 'Major projects': "A supervisor
    using Leadership or Administration instead of working personally can give the team +1 to
    +2 on success"): one Leadership or Administration roll for the whole team, logged first as
    a roll of its own; its success gives every worker +1 (or +2, the GM's choice) that day.
    Every event of the day carries the same day id in its inputs, so the project counts days,
    not rolls.

    ``mods`` apply to every worker's roll; ``dice`` are the workers' physical 3d6, one set per
    worker in the order named; ``destroyed_dice`` the 2d of each critical failure, in the order
    the workers are named.
    """
    bonus = supervisor_modifier(request.supervisor_bonus)
    found = _project(state, request.name)
    team = _team(table, state, request.workers)
    day = str(uuid.uuid4())
    shared = source_for(None, request.seed)
    entries: list[Entry] = []
    extra = list(request.mods)
    supervised: dict[str, Any] | None = None
    if request.supervisor is not None:
        led, supervised, skill = _supervision(table, state, request, found, team, day, shared)
        entries.append(led)
        if skill is not None:
            extra.append(f"{bonus.value}:supervisor {supervised['character']} ({skill})")
    done = found.done
    crits = 0
    rolled = []
    for i, ch in enumerate(team):
        worked = play.decide_roll(
            None,
            state.rules.roll_request(
                found.skill,
                mods=tuple(extra),
                source=source_for(request.dice[i], None) if request.dice else shared,
            ),
            ch,
            state,
        )
        destroying = shared
        if worked.result["outcome"] == "critical_failure" and request.destroyed_dice:
            destroying = _destroying(ch, request.destroyed_dice, crits)
            crits += 1
        entry, worker = _worker_day(state, request, found, day, shared, ch, worked, destroying)
        entries.append(entry)
        # As the project's fold adds it up: no day takes the work below none.
        done = max(done + worker["man_hours"] - worker["destroyed"], 0)
        rolled.append(worker)
    doc = {
        "event_id": entries[-1].event_id,
        "system": state.system,
        "kind": "project-day",
        "project": found.name,
        "day": day,
        "days": found.days + 1,
        "supervisor": supervised,
        "workers": rolled,
        "man_hours": sum(w["man_hours"] for w in rolled),
        "destroyed": sum(w["destroyed"] for w in rolled),
        "done": done,
        "needed": found.man_hours,
        "effects": [],
    }
    return Acted(tuple(entries), doc)


def _team(table: Table, state: Any, workers: Sequence[str]) -> list[Any]:
    """The day's workers, each named once: a worker rolls once a day."""
    team = [table.character(name, state) for name in workers]
    seen: set[str] = set()
    for ch in team:
        if ch.character_id in seen:
            raise BadInput(
                f"{ch.name} is named twice; a worker rolls once a day, so name each worker once."
            )
        seen.add(ch.character_id)
    return team


def _supervision(
    table: Table,
    state: Any,
    request: ProjectRoll,
    found: Any,
    team: list[Any],
    day: str,
    shared: DiceSource,
) -> tuple[Entry, dict[str, Any], str | None]:
    """The supervisor's roll for the day, logged before the workers', its document, and the
    skill it succeeded with (None: it failed, and gives the team nothing)."""
    boss = table.character(request.supervisor or "", state)
    if any(ch.character_id == boss.character_id for ch in team):
        raise BadInput(
            f"{boss.name} cannot supervise and work the same day, since a supervisor "
            "directs instead of working; leave them out of the workers, or name another "
            "character with --supervisor."
        )
    led = play.decide_roll(
        None,
        state.rules.roll_request(
            request.supervisor_skill,
            source=source_for(request.supervisor_dice, None, "--supervisor-dice")
            if request.supervisor_dice
            else shared,
        ),
        boss,
        state,
    )
    event_id = new_event_id()
    payload = ev.RollMade(
        character_id=boss.character_id,
        system=state.system,
        trait=led.trait,
        kind="supervision",
        inputs={**led.inputs, "project_id": found.project_id, "day": day},
        dice_source="physical" if request.supervisor_dice else shared.kind,
        dice=led.dice,
        result=led.result,
    )
    entry = Entry(payload, "gm" if led.secret else "public", event_id)
    doc = {"event_id": event_id, "character": boss.name, "secret": led.secret, **led.doc}
    return entry, doc, led.trait if led.result["success"] else None


def _destroying(ch: Any, destroyed_dice: Sequence[str], crits: int) -> DiceSource:
    """The 2d the GM rolled for the hours ``ch``'s critical failure destroys: the next of
    ``--destroyed-dice``, given once per critical failure in the workers' order."""
    if crits >= len(destroyed_dice):
        raise BadInput(
            f"{ch.name}'s critical failure destroys 2d hours of work, but "
            f"--destroyed-dice was given {_times(len(destroyed_dice))}; give it once "
            "per critical failure, in the order the workers are named."
        )
    return source_for(destroyed_dice[crits], None, "--destroyed-dice")


def _worker_day(
    state: Any,
    request: ProjectRoll,
    found: Any,
    day: str,
    shared: DiceSource,
    ch: Any,
    worked: Any,
    destroying: DiceSource,
) -> tuple[Entry, dict[str, Any]]:
    """A worker's roll of the day as logged, with the man-hours it adds or destroys, and as
    the day's document lists it."""
    worker_day = project_day(worked.result["outcome"], dice=destroying)
    result = {
        **worked.result,
        "man_hours": worker_day.man_hours,
        "destroyed": worker_day.destroyed_hours,
        "destroyed_dice": list(worker_day.dice),
    }
    payload = ev.RollMade(
        character_id=ch.character_id,
        system=state.system,
        trait=worked.trait,
        kind="project",
        inputs={**worked.inputs, "project_id": found.project_id, "day": day},
        dice_source="physical" if request.dice else shared.kind,
        dice=tuple(result["dice"]),
        result=result,
        task=None,
    )
    # Secret as the rules make a roll of the same skill and modifiers: a sense, or a margin a
    # secret influence left.
    event_id = new_event_id()
    doc = {
        **worked.doc,
        "event_id": event_id,
        "character": ch.name,
        "kind": "project",
        "man_hours": worker_day.man_hours,
        "destroyed": worker_day.destroyed_hours,
        "secret": worked.secret,
        "effects": [],
    }
    return Entry(payload, "gm" if worked.secret else "public", event_id), doc


def project_status(table: Table, state: Any, request: ProjectStatus) -> Acted:
    """Every project's progress; it logs nothing."""
    return Acted((), {"projects": [p.to_dict() for p in state.own.projects.values()]})


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


def _project(state: CampaignView, name: str, missing_ok: bool = False) -> Project | None:
    for project in state.own.projects.values():
        if project.name.casefold() == name.strip().casefold() or project.project_id == name:
            return project
    if missing_ok:
        return None
    have = ", ".join(p.name for p in state.own.projects.values()) or "none"
    raise NotFound(
        f'No project named "{name}" (projects: {have}); start one with '
        "`tracker project start NAME --skill SKILL --hours N`."
    )


def start_lines(d: Mapping[str, Any], style: Terminal) -> list[str]:
    return [f'Project "{d["project"]}" started: {d["man_hours"]} man-hours of {d["skill"]}.']


def day_lines(d: Mapping[str, Any], style: Terminal) -> list[str]:
    lines = []
    if d["supervisor"]:
        lines += style.roll_lines(d["supervisor"])
    for worker in d["workers"]:
        lines += style.roll_lines(worker)
        lost = f", {worker['destroyed']} hours destroyed" if worker["destroyed"] else ""
        lines.append(f"  +{worker['man_hours']} man-hours{lost}")
    lost = f", {d['destroyed']} hours destroyed" if d["destroyed"] else ""
    lines.append(
        f"Day {d['days']} of {d['project']}: +{d['man_hours']} man-hours{lost}: "
        f"{d['done']}/{d['needed']}"
    )
    return lines


def status_lines(d: Mapping[str, Any], style: Terminal) -> list[str]:
    if not d["projects"]:
        return ["No projects yet; start one with `tracker project start`."]
    lines = []
    for p in d["projects"]:
        mark = style.tone("done", "good") if p["complete"] else f"{p['remaining']} to go"
        lines.append(
            f"{style.bold(p['name'])} ({p['skill']}): {p['done']}/{p['man_hours']} man-hours, "
            f"{plural(p['days'], 'day')}, {mark}"
        )
    return lines
