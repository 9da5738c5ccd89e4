"""Synthetic campaigns: realistic play of any length, deterministic by seed, for the tests and the
benchmark (``tests/perf``).

A generated campaign is played through the same command handlers a GM uses, so every event in it
is one the rules allowed: rolls with seeded dice, spends, stress, frights, contests, notes and
sessions. Commands are decided against an in-memory state and the events are appended in large
batches, which makes a campaign of a hundred thousand events a matter of seconds.
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
from collections.abc import Callable

import pendulum

from tracker.app.acting import Acting
from tracker.app.campaigns import Campaigns
from tracker.app.history import History
from tracker.app.rolls import Rolls
from tracker.app.table import Table
from tracker.app.tracker import Tracker
from tracker.app.tracks import Tracks
from tracker.errors import TrackerError
from tracker.events import NewEvent, SessionStarted, StoredEvent
from tracker.projections.campaign import CampaignState, apply
from tracker.store.eventstore import CampaignRow
from tracker.systems.registry import contest_request, roll_request

FLUSH_EVERY = 5_000
# How often play is taken back: one undo (or redo) every so many events.
EVENTS_BETWEEN_UNDOS = (20, 300)

SHEETS = {
    "gloom": [
        ("Kade", {"Body": 11, "Reflex": 14, "Mind": 15}, {"Hacking": 16, "Interface": 18}),
        ("Juno", {"Body": 12, "Reflex": 16, "Mind": 12}, {"Piloting": 21, "Hacking": 14}),
        ("Rook", {"Body": 15, "Reflex": 12, "Mind": 10}, {"Athletics": 15, "Brawl": 13}),
    ],
    "gurps": [
        (
            "Mira",
            {"ST": 10, "DX": 13, "IQ": 12, "HT": 11, "Will": 12, "Per": 12},
            {"Lockpicking": 12, "Climbing": 15, "Stealth": 13, "Engineer": 12},
        ),
        (
            "Aldric",
            {"ST": 11, "DX": 11, "IQ": 14, "HT": 10, "Will": 14, "Per": 14},
            {"Diplomacy": 15, "Broadsword": 12, "Engineer": 13},
        ),
        (
            "Vora",
            {"ST": 12, "DX": 14, "IQ": 10, "HT": 12, "Will": 11, "Per": 10},
            {"Broadsword": 16, "Climbing": 13},
        ),
    ],
    "glintlock": [
        ("Wren", {"Grit": 3, "Wits": 2, "Grace": 2, "Lore": 4, "HP": 12}, {}),
        ("Tomas", {"Grit": 2, "Wits": 4, "Grace": 3, "Lore": 1, "HP": 10}, {}),
        ("Ilse", {"Grit": 4, "Wits": 1, "Grace": 3, "Lore": 2, "HP": 14}, {}),
    ],
}
NOTES = (
    "The archive floods; the party flees upstairs.",
    "A stranger watches from the bridge.",
    'Rain on the tin roof. "We wait," says the captain.',
    "The lamp gutters <and> goes out.",
)


class _Batch(Table):
    """A table whose commands decide against an in-memory state and buffer their events, with
    the handler groups a GM plays through."""

    def __init__(self, tracker: Tracker, row: CampaignRow, start: pendulum.DateTime) -> None:
        # Shares the open database; nothing here opens or migrates another one.
        self.url, self.location = tracker.url, tracker.location
        self.backend, self.store = tracker.backend, tracker.store
        self.loader, self.appender = tracker.loader, tracker.appender
        self.backup, self.created = None, False
        self.chosen = row.name
        self.campaigns = Campaigns(self)
        self.rolls = Rolls(self)
        self.tracks = Tracks(self)
        self.acting = Acting(self)
        self.history = History(self, self.campaigns)
        self._row = row
        self._state = tracker.state(row)
        self._base_version = self._state.version
        self._pending: list[NewEvent] = []
        self._pending_flush = False
        self._clock = start

    def campaign(self, name: str | None = None) -> CampaignRow:
        return self._row

    def now(self) -> str:
        # The play's own clock: a Fright Check's 24 hours are counted back from it.
        return self._clock.format(_TIME_FORMAT)

    def state(self, campaign: CampaignRow | None = None) -> CampaignState:
        return self._state

    def decide_and_append(self, decide):
        state = self._state
        decision = decide(state)
        stored = []
        for new in decision.events:
            # Play moves on: a few seconds to a few minutes between events.
            self._clock = self._clock.add(seconds=20 + len(self._pending) % 97)
            new = dataclasses.replace(new, recorded_at=self._clock.format(_TIME_FORMAT))
            self._pending.append(new)
            event = StoredEvent(
                0,
                new.event_id,
                self._row.campaign_id,
                state.version + 1,
                new.session_id,
                new.character_id,
                new.type,
                new.schema_version,
                new.data,
                new.recorded_at,
                new.visibility,
                "",
                "",
                "",
            )
            apply(state, event)
            stored.append(event)
            # A session's start is stored at once, so its snapshot names a real head (undo
            # starts there).
            self._pending_flush = self._pending_flush or new.type == SessionStarted.TYPE
        if len(self._pending) >= FLUSH_EVERY or self._pending_flush:
            self._pending_flush = False
            self.flush()
        return state, stored, decision

    def flush(self) -> None:
        if self._pending:
            stored = self.store.append(self._row.campaign_id, self._pending, self._base_version)
            self._base_version += len(self._pending)
            self._pending = []
            # The in-memory state chained nothing; from here on it names the real head.
            self._state.head_hash = stored[-1].hash

    def taking_back(self, command: Callable[[], object]) -> object:
        """Undo and redo read the stored log and change which events count: the batch is
        stored first, and the state is folded again afterwards, as ``Table.state`` would."""
        self.flush()
        self._pending_flush = True
        logged = command()
        self._state = self.refold(self._state.revoked, self._state.version)
        return logged

    @property
    def count(self) -> int:
        return self._state.version


_TIME_FORMAT = "YYYY-MM-DDTHH:mm:ss.SSSSSSZ"


def generate(
    tracker: Tracker,
    name: str,
    system: str,
    *,
    events: int,
    seed: int | str = 0,
    cinematic: bool = False,
) -> CampaignRow:
    """Create campaign ``name`` and play it until its log holds at least ``events`` events."""
    rng = random.Random(f"{seed}")
    settings = {"cinematic": True} if cinematic or system == "gurps" else {}
    if system == "glintlock":
        # Threat reset each session, as these logs have always been played (a new campaign's
        # default keeps it), so a seed plays the same evenings.
        settings["threat_carries_over"] = False
    row = tracker.campaigns.campaign_new(name, system, settings)
    for char, stats, skills in SHEETS[system]:
        tracker.campaigns.character_add(
            char,
            stats=[f"{k}={v}" for k, v in stats.items()],
            skills=[f"{k}={v}" for k, v in skills.items()],
            trained=["Climb"] if char == "Wren" else (),
            character_class="Seer" if char == "Wren" else None,
        )
    if system == "gurps":
        tracker.campaigns.character_default("Vora", "Lockpicking", "IQ-5")
    # Play starts after the sheets were logged (at the clock's time): a log's times never go
    # back, and verify names one that does.
    added = tracker.store.head(row.campaign_id).recorded_at
    start = max(pendulum.datetime(2026, 1, 5, 19, 0, tz="UTC"), pendulum.parse(added))
    batch = _Batch(tracker, row, start)
    step = 0
    next_slip = rng.randint(*EVENTS_BETWEEN_UNDOS)
    undone_in = None
    while batch.count < events:
        step += 1
        state = batch.state()
        if state.current_session is None:
            # The session's snapshot is the state before its start: that state names the real
            # head only once what is buffered is stored.
            batch.flush()
            batch.campaigns.session_start(f"Session {state.next_session_number}")
            continue
        if batch.count >= next_slip:
            # A slip at the table taken back; now and then put back again in the same session.
            next_slip += rng.randint(*EVENTS_BETWEEN_UNDOS)
            if undone_in == state.current_session and rng.random() < 0.5:
                action = lambda: batch.taking_back(  # noqa: E731
                    lambda: batch.history.redo(reason="it stood after all", anyway=True)
                )
            else:
                action = lambda: batch.taking_back(  # noqa: E731
                    lambda: batch.history.undo(
                        cascade=rng.random() < 0.5, reason="misread the dice"
                    )
                )
                undone_in = state.current_session
        else:
            action = _PLAYERS[system](batch, state, rng, f"{seed}:{step}")
        # A move the state forbids (Mettle too low, a one-chance task): a GM picks another.
        with contextlib.suppress(TrackerError):
            action()
        if rng.random() < 1 / 80:
            batch.campaigns.session_end()
    batch.flush()
    return row


Move = Callable[[], object]


def _names(state: CampaignState) -> list[str]:
    return [c.name for c in state.characters.values()]


def _common(batch: _Batch, state: CampaignState, rng: random.Random) -> Move | None:
    """Moves every system shares: notes and conditions."""
    roll = rng.random()
    who = rng.choice(_names(state))
    if roll < 0.03:
        return lambda: batch.tracks.note(rng.choice(NOTES))
    if roll < 0.05:
        return lambda: batch.tracks.condition_set(who, rng.choice(["wounded", "exhausted"]))
    if roll < 0.07:
        ch = state.character(who)
        if ch.conditions:
            return lambda: batch.tracks.condition_clear(who, next(iter(ch.conditions)))
    return None


def _glintlock(batch: _Batch, state: CampaignState, rng: random.Random, seed: str) -> Move:
    from tracker.systems.glintlock.rules import METTLE_COSTS

    common = _common(batch, state, rng)
    if common:
        return common
    who = rng.choice(_names(state))
    ch = state.character(who)
    if state.open_obligations("threat-floor") and rng.random() < 0.35:
        tier = rng.choice(["hard", "dire"])
        return lambda: batch.acting.run(("threat", "spend"), tier=tier, note="the roof gives way")
    if state.open_obligations("breaking-point"):
        ob = state.open_obligations("breaking-point")[0]
        name = state.characters[ob.character_id].name
        return lambda: batch.acting.run(
            ("breaking-point",), character=name, result="freezes", consequence="fear of deep water"
        )
    pick = rng.random()
    if pick < 0.55:
        tags = [f"{rng.choice([1, 1, -1])}:{rng.choice(['gear', 'power', 'scene'])}"]
        tags = [t for t in tags if not t.startswith("-1:gear") and not t.startswith("-1:power")]
        story = [ch.own.story_tags[0]] if ch.own.story_tags and rng.random() < 0.5 else []
        stat = rng.choice(["Grit", "Wits", "Grace", "Lore"])
        return lambda: batch.rolls.roll(
            who,
            roll_request(
                stat, tags=tags, story=story, seed=seed, spell=who == "Wren" and stat == "Lore"
            ),
        )
    if pick < 0.68:
        action = rng.choice(sorted(METTLE_COSTS))
        cost = 2 if action == "class-feature" else None
        condition = next(iter(ch.conditions), None) if action == "suppress-condition" else None
        return lambda: batch.acting.run(
            ("spend",), character=who, action=action, cost=cost, condition=condition
        )
    if pick < 0.74:
        return lambda: batch.acting.run(
            ("gain",), character=who, action=rng.choice(["deep-cut", "invoke-weakness"])
        )
    if pick < 0.84:
        return lambda: batch.tracks.stress(who, rng.choice([1, 1, 2, -1]), cause="the dark")
    if pick < 0.9:
        return lambda: batch.acting.run(
            ("threat", "add"), amount=1, reason="exploration turn in danger"
        )
    if pick < 0.95:
        return lambda: batch.acting.run(
            ("tag", "add"), character=who, name=rng.choice(["the old map", "a favour owed"])
        )
    if pick < 0.97:
        return lambda: batch.acting.run(("threat", "spend"), tier="free", note="the wind rises")
    return lambda: batch.acting.run(("threat", "spend"), tier="soft", note="trouble is announced")


def _gloom(batch: _Batch, state: CampaignState, rng: random.Random, seed: str) -> Move:
    common = _common(batch, state, rng)
    if common:
        return common
    who = rng.choice(_names(state))
    ch = state.character(who)
    trait = rng.choice(sorted(ch.skills))
    panics = state.open_obligations("panic-check")
    if panics:
        ob = panics[0]
        name = state.characters[ob.character_id].name
        if rng.random() < 0.7:
            return lambda: batch.rolls.roll_of_kind("panic", name, "Mind", seed=seed)
        return lambda: batch.tracks.obligation_dismiss(ob.id, reason="the GM waives it")
    pick = rng.random()
    if pick < 0.6:
        dl = rng.choice([0, 5, 5, 10, 15])
        return lambda: batch.rolls.roll(who, roll_request(trait, dl=dl, seed=seed))
    if pick < 0.72:
        mode = rng.choice(["quick", "dynamic"])
        return lambda: batch.rolls.contest(
            who,
            trait,
            "Corp ICE",
            str(rng.randint(8, 18)),
            contest_request(mode=mode, seed=seed),
        )
    if pick < 0.84:
        return lambda: batch.tracks.stress(who, rng.choice([1, 1, -1]), cause="the Gloom")
    if "panicked" in ch.conditions:
        return lambda: batch.tracks.condition_clear(who, "panicked")
    return lambda: batch.rolls.roll(who, roll_request(trait, secret=True, seed=seed))


def _gurps(batch: _Batch, state: CampaignState, rng: random.Random, seed: str) -> Move:
    common = _common(batch, state, rng)
    if common:
        return common
    who = rng.choice(_names(state))
    ch = state.character(who)
    owed = state.open_obligations("assign-trait")
    if owed and rng.random() < 0.8:
        name = state.characters[owed[0].character_id].name
        return lambda: batch.acting.run(
            ("trait", "assign"), character=name, name="Quirk: hums when afraid"
        )
    running = state.open_obligations("regular-contest")
    if running:
        ob = running[0]
        a, b = ob.data["a"], ob.data["b"]
        return lambda: batch.rolls.contest(
            a["name"],
            a["trait"],
            b["name"],
            b["trait"],
            contest_request(mode="regular", seed=seed),
        )
    pick = rng.random()
    if pick < 0.45:
        skill = rng.choice([*sorted(ch.skills), "Lockpicking"])
        mods = rng.choice([(), ("-2:darkness",), ("hard",), ("+1:good tools",)])
        task = "vault door" if skill == "Lockpicking" and rng.random() < 0.3 else None
        return lambda: batch.rolls.roll(
            who,
            roll_request(
                skill,
                mods=mods,
                task=task,
                retry="retry-at-penalty" if task else None,
                seed=seed,
            ),
        )
    if pick < 0.55:
        mode = rng.choice(["quick", "resistance", "regular"])
        return lambda: batch.rolls.contest(
            who,
            "Broadsword" if who != "Mira" else "DX",
            "Duellist",
            str(rng.randint(9, 15)),
            contest_request(mode=mode, seed=seed),
        )
    if pick < 0.63:
        return lambda: batch.acting.run(
            ("fright",),
            character=who,
            mods=rng.choice([(), ("alone",), ("in-combat",)]),
            threat=rng.choice(["the ghoul", "the drowned scribe"]),
            seed=seed,
        )
    if pick < 0.7:
        return lambda: batch.tracks.track(who, rng.choice(["hp", "fp"]), rng.choice([-1, -2, 1]))
    if pick < 0.76:
        return lambda: batch.acting.run(("points", "award"), character=who, amount=1)
    if pick < 0.82:
        return lambda: batch.acting.run(("spend",), character=who, action="buy-up")
    if not state.own.projects:
        return lambda: batch.acting.run(
            ("project", "start"), name="Bridge", skill="Engineer", hours=400
        )
    return lambda: batch.acting.run(
        ("project", "roll"), name="Bridge", workers=(rng.choice(["Mira", "Aldric"]),), seed=seed
    )


_PLAYERS = {"glintlock": _glintlock, "gloom": _gloom, "gurps": _gurps}
