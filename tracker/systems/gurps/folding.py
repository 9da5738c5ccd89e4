"""What GURPS keeps of a campaign and its characters, folded from the log: character points
and the last roll they may buy up, repeated attempts at named tasks, major projects, Fright
Check exposures, and the regular contests still running."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from tracker.events import StoredEvent
from tracker.events import play as p
from tracker.systems.base import (
    CampaignFold,
    CharacterFold,
    Folding,
    ObligationKind,
    ObligationView,
    Part,
    Style,
    placed,
)
from tracker.systems.gurps.events import (
    FrightChecked,
    PointsAwarded,
    ProjectStarted,
    RollBoughtUp,
    TraitAssigned,
)
from tracker.words import plural

# Fright Checks kept to count the exposures to one threat within a day (the newest are enough).
RECENT_EXPOSURES = 50
RUNNING = "regular-contest"


@dataclass(slots=True)
class GurpsCharacter(Part):
    points: int = 0
    # Attempts at each named task (``--task``): attempts, failures, and the retry mode.
    tasks: dict[str, dict[str, Any]] = field(default_factory=dict)
    # The last roll, the one a buy-up improves.
    last_roll_id: str | None = None
    last_roll_outcome: str | None = None
    last_roll_secret: bool = False


@dataclass(slots=True)
class Project:
    project_id: str
    name: str
    skill: str
    man_hours: int
    done: int = 0
    destroyed: int = 0
    days: int = 0
    # The day id of the last worker's roll folded: a day's rolls are logged together, so a
    # roll of another day (or of an older release, which has none) starts a day.
    last_day: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "project_id": self.project_id,
            "name": self.name,
            "skill": self.skill,
            "man_hours": self.man_hours,
            "done": self.done,
            "destroyed": self.destroyed,
            "days": self.days,
            "remaining": max(self.man_hours - self.done, 0),
            "complete": self.done >= self.man_hours,
        }


@dataclass(slots=True)
class GurpsCampaign(Part):
    projects: dict[str, Project] = field(default_factory=dict)
    # Fright Checks against a named threat: {character_id, threat, at}.
    exposures: deque = field(default_factory=lambda: deque(maxlen=RECENT_EXPOSURES))

    def to_snapshot(self) -> dict[str, Any]:
        return {
            "projects": [
                {**pr.to_dict(), "last_day": pr.last_day} for pr in self.projects.values()
            ],
            "exposures": [dict(x) for x in self.exposures],
        }

    @classmethod
    def from_snapshot(cls, doc: Any) -> GurpsCampaign:
        part = cls()
        for pr in doc["projects"]:
            part.projects[pr["project_id"]] = Project(
                pr["project_id"],
                pr["name"],
                pr["skill"],
                pr["man_hours"],
                pr["done"],
                pr["destroyed"],
                pr["days"],
                pr["last_day"],
            )
        part.exposures.extend(dict(x) for x in doc["exposures"])
        return part


def _fright_checked(state: CampaignFold, e: FrightChecked, raw: StoredEvent) -> None:
    state.apply_effects(e.effects, raw, e.character_id)
    if e.threat:
        state.own.exposures.append(
            {"character_id": e.character_id, "threat": e.threat, "at": raw.recorded_at}
        )


def _points_awarded(state: CampaignFold, e: PointsAwarded, _: StoredEvent) -> None:
    state.characters[e.character_id].own.points += e.points


def _bought_up(state: CampaignFold, e: RollBoughtUp, _: StoredEvent) -> None:
    own = state.characters[e.character_id].own
    own.points -= e.cost
    if own.last_roll_id == e.roll_event_id:
        own.last_roll_outcome = e.to_outcome


def _trait_assigned(state: CampaignFold, e: TraitAssigned, raw: StoredEvent) -> None:
    ch = state.characters[e.character_id]
    ch.traits_gained.append({"kind": e.kind, "name": e.name, "points": e.points})
    ob = state.obligations.get(e.obligation or "")
    if ob is not None:
        state.discharge(ob, raw, f"{e.kind} assigned: {e.name}")


def _project_started(state: CampaignFold, e: ProjectStarted, _: StoredEvent) -> None:
    state.own.projects[e.project_id] = Project(e.project_id, e.name, e.skill, e.man_hours)


def _pre_buy_up(state: CampaignFold, e: RollBoughtUp) -> str | None:
    ch = state.characters[e.character_id]
    own = ch.own
    if not state.setting("cinematic"):
        return "buy-ups are for cinematic campaigns, and this one would not be"
    if own.last_roll_id != e.roll_event_id:
        return "the roll it bought up would not be the last roll"
    if own.last_roll_outcome != e.from_outcome:
        stood = own.last_roll_outcome
        return f"it buys up from {e.from_outcome}, where that roll would stand at {stood}"
    if own.points < e.cost:
        return f"{ch.name} would have {plural(own.points, 'character point')} for {e.cost}"
    return None


def _pre_trait(state: CampaignFold, e: TraitAssigned) -> str | None:
    return None if e.obligation in state.obligations else "the obligation would not be open"


def _contest_side(side: p.ContestSide) -> dict[str, Any]:
    """Who a running contest is between, and with what, so the next round can be rolled."""
    trait = side.trait or str(side.inputs.get("base", ""))
    return {"name": side.name, "trait": trait}


def next_round(data: Mapping[str, Any]) -> tuple[tuple[str, ...], dict[str, Any]] | None:
    """A running contest's next round: ``contest`` between the same sides, which finds the
    contest under way (``ObligationKind.goes_on``)."""
    a, b = data.get("a"), data.get("b")
    if not a or not b:
        return None
    values = {"a": a["name"], "trait_a": a["trait"], "b": b["name"], "trait_b": b["trait"]}
    return ("contest",), {**values, "mode": "regular"}


def _over(side: p.ContestSide) -> str:
    """A side of a running contest as its obligation names it: who, over what."""
    return f"{side.name} ({_contest_side(side)['trait']})"


def _same_sides(data: Mapping[str, Any], begun: tuple[dict[str, Any], dict[str, Any]]) -> bool:
    """Whether a running contest's obligation is between the same sides over the same traits."""

    def key(side: Mapping[str, Any] | None) -> tuple[Any, str]:
        side = side or {}
        return side.get("name"), str(side.get("trait", "")).casefold()

    return (key(data.get("a")), key(data.get("b"))) == (key(begun[0]), key(begun[1]))


def _running(state: CampaignFold, contest_id: str) -> list[ObligationView]:
    return [o for o in state.open_obligations(RUNNING) if o.data.get("contest_id") == contest_id]


def _worth(gained: dict[str, Any]) -> str:
    points = gained.get("points")
    return f", {plural(points, 'point')}" if points is not None else ""


class GurpsFolding(Folding):
    campaign_part: ClassVar[type[Part]] = GurpsCampaign
    character_part: ClassVar[type[Part]] = GurpsCharacter
    handlers: ClassVar[dict[type, Any]] = {
        FrightChecked: _fright_checked,
        PointsAwarded: _points_awarded,
        RollBoughtUp: _bought_up,
        TraitAssigned: _trait_assigned,
        ProjectStarted: _project_started,
    }
    preconditions: ClassVar[dict[type, Any]] = {
        RollBoughtUp: _pre_buy_up,
        TraitAssigned: _pre_trait,
    }

    def rolled(
        self, state: CampaignFold, ch: CharacterFold, e: p.RollMade, raw: StoredEvent
    ) -> None:
        own = ch.own
        if e.task:
            task = own.tasks.setdefault(e.task, {"attempts": 0, "failures": 0, "mode": None})
            task["attempts"] += 1
            task["failures"] += 0 if e.result.get("success") else 1
            task["mode"] = e.inputs.get("retry_mode") or task["mode"]
        if e.kind == "project":
            project = state.own.projects.get(e.inputs.get("project_id", ""))
            if project is not None:
                day = e.inputs.get("day")
                if day is None or day != project.last_day:
                    project.days += 1
                project.last_day = day
                project.done = max(project.done + e.result["man_hours"] - e.result["destroyed"], 0)
                project.destroyed += e.result["destroyed"]
        # The GM's secret Danger Sense roll is not the roll a player would buy up.
        if e.kind != "danger-sense":
            own.last_roll_id = raw.event_id
            own.last_roll_outcome = e.result.get("outcome")
            own.last_roll_secret = raw.visibility == "gm"

    def contested(self, state: CampaignFold, e: p.ContestRolled, raw: StoredEvent) -> None:
        """A regular contest's round: the first opens the contest's obligation (unless it is
        decided at once), a later one counts, the deciding one discharges it.

        Ruling (tracker/systems/gurps/RULINGS.md, Regular contests): a first round between the
        same sides over the same traits as a contest still running (``contest --new``) sets that
        one aside, so only one such contest goes on.
        """
        if e.mode != "regular" or not e.contest_id:
            return
        if (e.round or 1) == 1 and e.b is not None:
            begun = (_contest_side(e.a), _contest_side(e.b))
            for ob in state.open_obligations(RUNNING):
                if ob.data.get("contest_id") != e.contest_id and _same_sides(ob.data, begun):
                    state.discharge(ob, raw, "set aside for a new contest between the same sides")
        running = _running(state, e.contest_id)
        if e.decided:
            for ob in running:
                state.discharge(ob, raw, f"decided in round {e.round}")
        elif running:
            running[0].data["rounds"] = e.round
        else:
            state.open(
                raw,
                RUNNING,
                f"Regular contest {_over(e.a)} vs {_over(e.b) if e.b else e.b_named} is still "
                "running: roll the next round.",
                contest_id=e.contest_id,
                a=_contest_side(e.a),
                b=_contest_side(e.b) if e.b else None,
                rounds=e.round,
            )

    def contest_problem(self, state: CampaignFold, e: p.ContestRolled) -> str | None:
        resumed = e.mode == "regular" and e.contest_id and (e.round or 1) > 1
        if resumed and not _running(state, e.contest_id):
            return f"round {e.round} would go on with a contest never begun"
        return None

    def character_doc(self, ch: CharacterFold, doc: dict[str, Any]) -> dict[str, Any]:
        doc = placed(doc, "conditions", {"points": ch.own.points})
        doc["traits_gained"] = list(ch.traits_gained)
        doc["stat_changes"] = dict(ch.stat_changes)
        return doc

    def sheet_lines(self, ch: CharacterFold) -> list[str]:
        # What a fright check left (a quirk, a phobia) is on the sheet as rolls read it.
        return [
            f"  Gained in play: {gained['name']} ({gained['kind']}{_worth(gained)})"
            for gained in ch.traits_gained
        ]

    def campaign_doc(self, state: CampaignFold, doc: dict[str, Any]) -> dict[str, Any]:
        if state.own.projects:
            doc["projects"] = [pr.to_dict() for pr in state.own.projects.values()]
        return doc

    def status_parts(
        self, doc: Mapping[str, Any], parts: dict[str, str | None], style: Style
    ) -> dict[str, str | None]:
        points = doc.get("points")
        return placed(parts, "conditions", {"points": f"{points} CP" if points else None})

    def status_lines(self, doc: Mapping[str, Any]) -> list[str]:
        """The traits a Fright Check left (with their worth) and the stats it moved for good."""
        lines = []
        for gained in doc.get("traits_gained", ()):
            points = gained.get("points")
            worth = f", {plural(points, 'point')}" if points is not None else ""
            lines.append(f"  Gained in play: {gained['name']} ({gained['kind']}{worth})")
        lines += [
            f"  {stat} {delta:+d} for good"
            for stat, delta in (doc.get("stat_changes") or {}).items()
            if delta
        ]
        return lines

    def readings(
        self, state: CampaignFold, ch: CharacterFold | None, doc: dict[str, Any]
    ) -> dict[str, Any]:
        return doc if ch is None else placed(doc, "conditions", {"CP": ch.own.points})

    def named(self, state: CampaignFold, kind: str) -> list[str]:
        return [pr.name for pr in state.own.projects.values()] if kind == "projects" else []


FOLDING = GurpsFolding()

OBLIGATIONS = {
    "assign-trait": ObligationKind("the trait owed"),
    RUNNING: ObligationKind("the regular contest", goes_on=next_round),
}
"""How tracker speaks of each kind of obligation GURPS's rules open (``Obligations``)."""
