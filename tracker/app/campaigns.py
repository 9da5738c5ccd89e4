"""Campaigns, sessions and characters: making and choosing them, and looking at where they stand.

A campaign is made with its rule system and the table settings its rulebook leaves to the GM;
a session frames an evening of play; a character joins with its sheet. ``status`` and
``obligations`` read the campaign as it stands, ``player_state`` as the players know it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import msgspec

from tracker.app.deciding import Decision, Logged, new_event
from tracker.app.loading import SESSION_SNAPSHOT
from tracker.app.names import check_name
from tracker.app.sheets import (
    Sheet,
    check_scores,
    parse_pairs,
    read_data,
    read_sheet,
    sheet_for,
)
from tracker.app.table import CURRENT, Table
from tracker.errors import BadInput, Refused, TrackerError
from tracker.events import (
    CampaignCreated,
    CharacterAdded,
    CharacterDefaultSet,
    SessionEnded,
    SessionStarted,
    StoredEvent,
)
from tracker.events.catalog import (
    CREATED,
    CampaignSettingsChanged,
    CharacterRetired,
    CharacterUpdated,
)
from tracker.projections.campaign import (
    SESSION_TYPES,
    CampaignState,
    Character,
    Obligation,
    SessionInfo,
    lapsing,
    session_list,
)
from tracker.store.eventstore import CampaignRow
from tracker.systems import registry
from tracker.systems.base import Feature, RuleSystem
from tracker.systems.capabilities import OwnSettings, SheetRules, SkillDefaults, able
from tracker.systems.commands import NO_TABLE, Setting


class SheetChange(msgspec.Struct, frozen=True):
    """What the GM gave `character update`: scores as ``KEY=N``, what is gained and dropped,
    a newer sheet file, and ``npc``: the character handed to the GM (True), to a player
    (False), or left with whoever plays them (None)."""

    stats: Sequence[str] = ()
    skills: Sequence[str] = ()
    drop_skills: Sequence[str] = ()
    trained: Sequence[str] = ()
    traits: Sequence[str] = ()
    drop_traits: Sequence[str] = ()
    character_class: str | None = None
    sheet_path: str | None = None
    reset_tracks: bool = False
    note: str | None = None
    npc: bool | None = None


class Campaigns:
    """Campaigns, sessions and characters at one table."""

    def __init__(self, table: Table) -> None:
        self.table = table

    # -- campaigns -------------------------------------------------------------------------------

    def campaign_new(
        self, name: str, system: str, settings: Mapping[str, Any] | None = None
    ) -> CampaignRow:
        """Make a campaign playing ``system`` with the table settings given (by the name each
        is stored under, as ``campaign new`` takes them: ``registry.campaign_settings``), the
        rulebook's and tracker's defaults for the rest, and select it."""
        name = name.strip()
        if not name:
            raise BadInput("A campaign needs a name; give one in quotes.")
        name = check_name(name, "A campaign's name")
        known = registry.names()
        if system not in known:
            raise BadInput(
                f"The system must be one of {', '.join(known)}, not {system!r}; give one of "
                "those with --system."
            )
        rules = registry.get(system)
        checked = checked_settings(rules, _given_at_creation(settings or {}))
        # What the system's rulings give a new campaign, written out so the log says it.
        for setting in able(rules, OwnSettings).settings:
            if setting.created is not msgspec.UNSET and setting.name not in checked:
                checked[setting.name] = setting.created
        # A creation stores the settings it has fields for, at the table's default when not
        # given; a change logged with it, the others given.
        stored = {key: checked.pop(key, default) for key, default in CREATED.items()}
        campaign_id = str(uuid.uuid4())
        events = [new_event(CampaignCreated(name=name, system=system, **stored))]
        if checked:
            events.append(new_event(CampaignSettingsChanged(settings=_declared(rules, checked))))
        store = self.table.store
        store.create_campaign(campaign_id, name, system, events)
        store.set_setting(CURRENT, campaign_id)
        return CampaignRow(campaign_id, name, system, "")

    def campaign_set(self, note: str | None = None, **given: Any) -> Logged:
        """Change the campaign's table settings, as an event; ``given`` holds those the GM
        typed (a table as the path of its file, or "rulebook" for the rulebook's own)."""

        def decide(state: CampaignState) -> Decision:
            wanted = checked_settings(state.rules, given)
            changed = {k: v for k, v in wanted.items() if state.setting(k) != _comparable(v)}
            if not changed:
                raise Refused(
                    f'"{state.name}" has those settings already; nothing was logged. '
                    "`tracker campaign set` alone shows them."
                )
            payload = CampaignSettingsChanged(settings=_declared(state.rules, changed), note=note)
            doc = {
                "campaign": state.name,
                "before": {k: state.setting(k) for k in changed},
                "after": {k: _comparable(v) for k, v in changed.items()},
                "note": note,
            }
            return Decision([new_event(payload, state=state)], doc)

        return self.table.play(decide)

    def settings(self) -> tuple[CampaignState, dict[str, Any]]:
        """The campaign's settings its rule system reads, as they stand."""
        state = self.table.state()
        return state, {
            s.name: state.setting(s.name) for s in able(state.rules, OwnSettings).settings
        }

    def campaign_list(self) -> list[tuple[CampaignRow, bool, int]]:
        """Every campaign, whether it is the current one, and its number of events."""
        store = self.table.store
        current = store.get_setting(CURRENT)
        return [
            (row, row.campaign_id == current, store.count(row.campaign_id))
            for row in store.campaigns()
        ]

    def campaign_use(self, name: str) -> CampaignRow:
        """Make the campaign ``name`` the current one, here too: a shell started on another
        campaign (``--campaign``) plays this one from now on."""
        row = self.table.campaign(name)
        self.table.store.set_setting(CURRENT, row.campaign_id)
        self.table.chosen = None
        return row

    # -- sessions --------------------------------------------------------------------------------

    def session_start(
        self, title: str | None = None
    ) -> tuple[CampaignState, SessionInfo, tuple[str, ...]]:
        """Begin the next session (refused while one is running). Returns the state, the
        session, and what the start lapses: what Mettle bought for a next roll that never
        came (Steel Yourself, an Advantage Die, a suppressed condition)."""

        before: list[CampaignState] = []

        def decide(state: CampaignState) -> Decision:
            if state.current_session is not None:
                raise Refused(
                    f"Session {state.current_session} is still running; end it with "
                    "`tracker session end` first."
                )
            number = state.next_session_number
            # The state the session starts from: folding the start resets tracks, and a replay
            # shows what it reset, so the snapshot is taken before it.
            before[:] = [state.copy()]
            return Decision(
                [new_event(SessionStarted(number=number, title=title), session_id=number)]
            )

        state, _, _ = self.table.decide_and_append(decide)
        # Undo, redo, a refold within the session and its replay start from here.
        self.table.loader.save(before[0], SESSION_SNAPSHOT)
        return state, state.session, _lapsing(before[0])

    def session_end(self) -> tuple[CampaignState, SessionInfo, tuple[Obligation, ...]]:
        """End the running session; what lapses with it (``lapsing``: the spending floor) is
        closed, and what the players' state owed of it is recorded as lapsed (the event is
        public). Returns the state, the session, and everything that lapsed in the GM's state
        (what secret rolls opened or kept open too); what is still owed stays open."""

        def decide(state: CampaignState) -> Decision:
            if state.current_session is None:
                raise Refused("No session is running; start one with `tracker session start`.")
            number = state.current_session
            # Ending a session with something still owed is allowed; the event records it lapsed.
            # The event is public, so it records what the players' own state owes, in its words:
            # the GM's would tell them what a secret roll gave (an obligation it opened, or the
            # Threat it added in the words of one a public event opened, or that one's being
            # still open at all).
            players = self.table.player_state(until_version=state.version)
            lapsed = tuple(o.what for o in lapsing(players) if not o.secret)
            return Decision(
                [new_event(SessionEnded(number=number, lapsed=lapsed), session_id=number)]
            )

        state, stored, _ = self.table.decide_and_append(decide)
        ended = stored[-1].event_id
        lapsed = tuple(o for o in state.discharged if o.discharged_by == ended)
        return state, state.session, lapsed

    def session_list(self) -> list[SessionInfo]:
        """Every session in force, oldest first, with the number of events each logged."""
        row = self.table.campaign()
        state = self.table.state(row)
        store = self.table.store
        sessions = session_list(
            store.read(row.campaign_id, types=SESSION_TYPES, sparse=True),
            state.revoked,
            store.session_counts(row.campaign_id),
        )
        undone = store.session_counts_among(row.campaign_id, state.revoked)
        for s in sessions:
            s.undone_count = undone.get(s.number, 0)
        return sessions

    def session_info(self, number: int) -> SessionInfo | None:
        """Session ``number`` if it was held (and its start is in force)."""
        state = self.table.state()
        if state.session is not None and state.session.number == number:
            return state.session
        return next((s for s in self.session_list() if s.number == number), None)

    # -- characters ------------------------------------------------------------------------------

    def character_add(
        self,
        name: str | None,
        *,
        stats: Sequence[str] = (),
        skills: Sequence[str] = (),
        trained: Sequence[str] = (),
        character_class: str | None = None,
        sheet_path: str | None = None,
        npc: bool | None = None,
    ) -> Character:
        """Add a character from options and a sheet file; options add to the sheet. ``npc``:
        the GM plays it (None: as the sheet says, else a player does)."""
        sheet = read_sheet(sheet_path) if sheet_path else Sheet()
        name = (name or sheet.name or "").strip()
        if not name:
            raise BadInput("A character needs a name; give it as NAME or in the sheet.")
        name = check_name(name, "A character's name")
        sheet.stats.update(parse_pairs(stats, "--stat"))
        sheet.skills.update(parse_pairs(skills, "--skill"))
        sheet.trained.extend(t for t in trained if t not in sheet.trained)
        character_id = str(uuid.uuid4())

        def decide(state: CampaignState) -> Decision:
            # Found in any case, or by a name that reads the same (``CampaignState.character``).
            existing = state.character(name)
            if existing is not None:
                raise Refused(f'{existing.name} is already in "{state.name}"; pick another name.')
            _check_sheet_system(state, sheet, "add")
            check_scores(state.rules, sheet.stats, "Stat")
            check_scores(state.rules, sheet.skills, "Skill")
            for skill, exprs in sheet.defaults.items():
                for expr in exprs:
                    _check_default(state, skill, expr, name)
            added = CharacterAdded(
                character_id=character_id,
                name=name,
                stats=sheet.stats,
                skills=sheet.skills,
                trained=tuple(sheet.trained),
                character_class=character_class or sheet.character_class,
                defaults=sheet.defaults,
                traits=tuple(sheet.traits),
                sheet=sheet.source,
                npc=True if (sheet.npc if npc is None else npc) else msgspec.UNSET,
            )
            return Decision([new_event(added, state=state)])

        state, _, _ = self.table.decide_and_append(decide)
        return state.characters[character_id]

    def character_update(self, name: str, change: SheetChange) -> Logged:
        """Change a character's sheet as an event: options, or a newer sheet file whose
        differences from the sheet as it stands are logged (options given too win)."""
        sheet = read_sheet(change.sheet_path) if change.sheet_path else None
        scores = parse_pairs(change.stats, "--stat"), parse_pairs(change.skills, "--skill")

        def decide(state: CampaignState) -> Decision:
            ch = self.table.character(name, state, retired_ok=True)
            diff = _sheet_diff(state, ch, sheet)
            _add_given(diff, ch, change, *scores)
            check_scores(state.rules, diff["stats"], "Stat")
            check_scores(state.rules, diff["skills"], "Skill")
            given_class = change.character_class or (sheet.character_class if sheet else None)
            cls = _anew(given_class, ch.character_class)
            given_npc = change.npc if change.npc is not None else (sheet.npc if sheet else None)
            played_by = _anew(given_npc, ch.npc)
            if (
                not any(diff.values())
                and cls is None
                and played_by is None
                and not change.reset_tracks
            ):
                raise Refused(
                    f"{ch.name}'s sheet already reads so; nothing was logged. Give what changed "
                    "(--stat, --skill, --trait, --drop-skill, ...) or a newer --sheet."
                )
            updated = CharacterUpdated(
                character_id=ch.character_id,
                stats=diff["stats"],
                skills=diff["skills"],
                dropped_skills=tuple(diff["dropped_skills"]),
                trained=tuple(diff["trained"]),
                traits=tuple(diff["traits"]),
                dropped_traits=tuple(diff["dropped_traits"]),
                character_class=cls,
                sheet=sheet.source if sheet else None,
                reset_tracks=change.reset_tracks,
                note=change.note,
                npc=msgspec.UNSET if played_by is None else played_by,
            )
            doc = {"character": ch.name, "before": ch.to_dict(), **msgspec.to_builtins(updated)}
            return Decision([new_event(updated, state=state)], doc)

        return self.table.play(decide)

    def character_retire(self, name: str, *, note: str | None = None) -> Logged:
        """Retire a character from play: kept on every record, refused at the table."""

        def decide(state: CampaignState) -> Decision:
            ch = self.table.character(name, state, retired_ok=True)
            if ch.retired_version is not None:
                raise Refused(
                    f"{ch.name} retired at event {ch.retired_version} already; "
                    f"`tracker undo {ch.retired_version}` brings them back."
                )
            retired = CharacterRetired(character_id=ch.character_id, note=note)
            return Decision([new_event(retired, state=state)], {"character": ch.name})

        return self.table.play(decide)

    def character_default(self, name: str, skill: str, expression: str) -> Character:
        """Let a character's ``skill`` default to ``expression`` (``Feature.DEFAULTS``)."""

        def decide(state: CampaignState) -> Decision:
            character = self.table.character(name, state, retired_ok=True)
            _check_default(state, skill, expression, character.name)
            default = CharacterDefaultSet(
                character_id=character.character_id,
                skill=skill.strip(),
                expression=expression.strip(),
            )
            return Decision([new_event(default, state=state)])

        state, stored, _ = self.table.decide_and_append(decide)
        return state.characters[stored[0].character_id]

    # -- where things stand ----------------------------------------------------------------------

    def status(self, name: str | None = None) -> tuple[CampaignState, Character | None]:
        """The campaign as it stands, and the named character."""
        state = self.table.state()
        return state, (self.table.character(name, state, retired_ok=True) if name else None)

    def receipt_head(self) -> tuple[CampaignState, int, str]:
        """The campaign as it stands, and the event a receipt for the players names (its version
        and hash): the log's head, or when that is an older secret event without a salt, the
        newest event before it whose hash the players may see (``hash_shown``)."""
        from tracker.projections.player import hash_shown

        state = self.table.state()
        row = self.table.campaign()
        revealed = self.table.revealed(row)
        for version in range(state.version, 0, -1):
            at = self.table.store.read(
                row.campaign_id, after_version=version - 1, until_version=version
            )
            event = next(at, None)
            if event is not None and hash_shown(event, revealed):
                return state, event.version, event.hash
        # The first event is the campaign's creation, which is public.
        return state, state.version, state.head_hash or ""

    def player_state(self) -> CampaignState:
        """The campaign as the players know it (``Table.player_state``)."""
        return self.table.player_state()

    def obligations(self) -> tuple[CampaignState, list[Obligation]]:
        """What the rules say is owed now, oldest first."""
        state = self.table.state()
        return state, sorted(state.obligations.values(), key=lambda o: o.opened_version)

    def log(self, session: int | None = None) -> Iterator[StoredEvent]:
        """The campaign's events (of one session), oldest first."""
        row = self.table.campaign()
        return self.table.store.read(row.campaign_id, session_id=session)

    def character_names(self) -> dict[str, str]:
        """Every character the campaign has added, by id: a log of one session names those
        added before it. Read from the log alone, so it needs no rules."""
        row = self.table.campaign()
        added = self.table.store.read(row.campaign_id, types=[CharacterAdded.TYPE], sparse=True)
        return {
            e.data.character_id: e.data.name for e in added if isinstance(e.data, CharacterAdded)
        }


def _lapsing(state: CampaignState) -> tuple[str, ...]:
    """What a session's start lets lapse that was bought for play to come
    (``Folding.lapses_at_start``)."""
    return state.rules.folding.lapses_at_start(state)


def _check_default(
    state: CampaignState, skill: str, expression: str, character: str | None = None
) -> None:
    registry.require(state.rules, Feature.DEFAULTS, "Defaults", "are")
    if not skill.strip():
        raise BadInput("Name the skill the default is for, like Lockpicking.")
    able(state.rules, SkillDefaults).check_default_for(skill, expression, character)


def _check_sheet_system(state: CampaignState, sheet: Sheet, verb: str) -> None:
    """Refuse a sheet made for another rule system than the campaign's, naming it."""
    made_for = sheet_for(sheet, registry.systems()) if sheet.source else None
    if made_for is not None and made_for.name != state.system:
        raise Refused(
            f'{sheet.source} is a {made_for.title} sheet and "{state.name}" plays '
            f"{state.rules.title}; {verb} it in a {made_for.title} campaign "
            f"(`tracker --campaign NAME character {verb} ... --sheet ...`)."
        )
    # A sheet file for a system whose every sheet has certain stats (GURPS: ST, DX, IQ, HT)
    # and that lacks them all is another system's sheet that does not say which.
    held = {key.casefold() for key in sheet.stats} - {"hp", "fp"}
    wanted = able(state.rules, SheetRules).sheet_stats
    known = wanted | {name.casefold() for name, _ in able(state.rules, SheetRules).derived}
    if sheet.source and verb == "add" and wanted and held and not known & held:
        names = ", ".join(sorted(k.upper() for k in wanted))
        raise Refused(
            f"{sheet.source} has none of {names}, which a {state.rules.title} sheet has, nor "
            f"any stat of theirs; it is not a {state.rules.title} sheet. Add those stats to it, "
            "or add it to a campaign of its own system."
        )


def _sheet_diff(state: CampaignState, ch: Character, sheet: Sheet | None) -> dict[str, Any]:
    """What a newer sheet file changes of ``ch``'s sheet (nothing without one); a sheet of
    another system, or of another character, is refused."""
    if sheet is None:
        return {
            "stats": {},
            "skills": {},
            "dropped_skills": [],
            "trained": [],
            "traits": [],
            "dropped_traits": [],
        }
    _check_sheet_system(state, sheet, "update")
    if sheet.name and sheet.name.strip().casefold() != ch.name.casefold():
        raise Refused(
            f'{sheet.source} is the sheet of "{sheet.name}", not {ch.name}; give '
            f"{ch.name}'s own sheet, or add {sheet.name} with `tracker character add`."
        )
    return _sheet_changes(ch, sheet, state.rules)


def _add_given(
    diff: dict[str, Any],
    ch: Character,
    change: SheetChange,
    stats: dict[str, int],
    skills: dict[str, int],
) -> None:
    """Add to ``diff`` what the options change of ``ch``'s sheet (``stats`` and ``skills``
    read from them), over what a sheet file changes; a skill or trait to drop that the
    character lacks is refused."""
    diff["stats"].update(_changed(ch.stats, stats))
    diff["skills"].update(_changed(ch.skills, skills))
    for key in change.drop_skills:
        if ch.skill_name(key) is None:
            raise Refused(f"{ch.name} has no skill {key} to drop; check the spelling.")
        diff["dropped_skills"].append(ch.skill_name(key))
    diff["trained"] += [t for t in change.trained if not ch.is_trained(t)]
    diff["traits"] += [t for t in change.traits if not _has(ch.traits, t)]
    for t in change.drop_traits:
        if not _has(ch.traits, t):
            raise Refused(f"{ch.name} has no trait {t} to drop; check the spelling.")
        diff["dropped_traits"].append(t)


def _anew(given: Any, now: Any) -> Any:
    """``given``, or None when it is what the sheet says already: an update logs changes."""
    return None if given == now else given


def _has(names: Sequence[str], wanted: str) -> bool:
    return any(n.casefold() == wanted.casefold() for n in names)


def _changed(have: dict[str, int], given: dict[str, int]) -> dict[str, int]:
    """The scores of ``given`` that differ from ``have`` (names matched in any case)."""
    lowered = {k.casefold(): v for k, v in have.items()}
    return {k: v for k, v in given.items() if lowered.get(k.casefold()) != v}


def _sheet_changes(ch: Character, sheet: Sheet, rules: RuleSystem) -> dict[str, Any]:
    """What a newer sheet changes of the character's sheet as it stands: scores it gives anew,
    skills and traits it no longer lists, training it adds. A stat the sheet leaves out stays
    (a derived one moves with its source); one it names is as it names it, so a derived stat
    the sheet names is kept at its number even when its source moves."""
    listed = {k.casefold() for k in sheet.skills}
    stats = _changed(ch.stats, sheet.stats)
    moved = {k.casefold() for k in stats}
    named = {k.casefold(): (k, v) for k, v in sheet.stats.items()}
    for name, source in able(rules, SheetRules).derived:
        if source.casefold() in moved and name.casefold() in named:
            key, value = named[name.casefold()]
            stats.setdefault(key, value)
    return {
        "stats": stats,
        "skills": _changed(ch.skills, sheet.skills),
        "dropped_skills": [k for k in ch.skills if k.casefold() not in listed],
        "trained": [t for t in sheet.trained if not ch.is_trained(t)],
        "traits": [t for t in sheet.traits if not _has(ch.traits, t)],
        "dropped_traits": [t for t in ch.traits if not _has(sheet.traits, t)],
    }


def _given_at_creation(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Of the settings ``campaign new`` passed on, those the GM gave: a value its option has
    when left out (a flag not given, a choice at its default) is not one."""
    options = {s.name: s.new for s in registry.campaign_settings() if s.new is not None}
    return {
        name: value
        for name, value in settings.items()
        if name not in options or value != options[name].empty()
    }


def checked_settings(rules: RuleSystem, given: Mapping[str, Any]) -> dict[str, Any]:
    """The settings the GM gave, checked for the campaign's rule system: one the system does
    not read, or a value it cannot use, is refused with a sentence. A table given as a file
    path is read; a word of ``NO_TABLE`` (None) goes back to having none of its own."""
    out: dict[str, Any] = {}
    for name, value in given.items():
        if value is None:
            continue
        setting = _usable(rules, name, value)
        if setting.table:
            value = None if value in NO_TABLE else read_data(value, "table")
        out[name] = able(rules, OwnSettings).check_setting(name, value)
    return out


def _declared(rules: RuleSystem, settings: Mapping[str, Any]) -> dict[str, Any]:
    """``settings`` in the order ``rules`` declares them, the order a change logs them in."""
    return {
        s.name: settings[s.name] for s in able(rules, OwnSettings).settings if s.name in settings
    }


def _usable(rules: RuleSystem, name: str, value: Any) -> Setting:
    """The declaration of the setting ``name`` of ``rules``; refused when the rule system does
    not read it, or its option does not take ``value``."""
    setting = able(rules, OwnSettings).setting(name)
    if setting is None:
        readers = [s for s in registry.campaign_settings() if s.name == name]
        flag = readers[0].option.flag if readers else "--" + name.replace("_", "-")
        titles = [
            s.title for s in registry.systems() if able(s, OwnSettings).setting(name) is not None
        ]
        raise BadInput(
            f"{flag} is a {' and '.join(titles) or 'no'} setting and "
            f"{rules.title} does not use it; leave it out here."
        )
    problem = setting.problem(value)
    if problem is not None:
        raise BadInput(problem)
    return setting


def logged_settings_problem(
    rules: RuleSystem, settings: dict[str, Any], *, created: bool
) -> str | None:
    """Why settings as a log stores them (a creation's when ``created``, else a change's) are
    not ones `campaign new` or `campaign set` would have logged for ``rules``; None when they
    are. A creation stores the table's defaults whatever the system reads (``CREATED``)."""
    try:
        for name, value in settings.items():
            if created and CREATED.get(name, object()) == value:
                continue
            _usable(rules, name, value)
            able(rules, OwnSettings).check_setting(
                name, list(value) if type(value) is tuple else value
            )
    except TrackerError as exc:
        return str(exc).split("; ")[0]
    return None


def _comparable(value: Any) -> Any:
    # A table is stored as a tuple of rows and folded as a list.
    return list(value) if isinstance(value, tuple) else value
