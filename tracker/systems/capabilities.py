"""What a rule system may have beyond its core: each capability a class a system declares it
has by subclassing it beside ``RuleSystem``.

``RuleSystem`` is the core every system implements: its name and title, its sheets' range, the
options of a roll, how it decides a roll and reads one back, its odds, how its outcomes read,
what it keeps of a campaign and its demo evening. Everything else is a capability:

    class Gurps(RuleSystem, Contests, Thresholds, SkillDefaults, SheetImport, Movement): ...

A capability holds its hooks with the defaults of a system that has nothing of its kind
(``Currencies.spend_kinds``: none), so a system overrides only what its rules change. tracker
asks a capability of a system through ``able`` (the system itself when it declares it, else the
capability's defaults), never by the system's name; a command that needs one of the three
with a ``Feature`` (contests, stress, skill defaults) refuses a campaign whose system lacks it,
naming the systems that have it. ``tracker.testing.SystemContract`` checks each capability a
system declares.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from tracker.errors import NotFound
from tracker.systems.base import (
    TRACKS,
    CampaignView,
    CharacterView,
    ContestDecision,
    ContestRequest,
    Feature,
    ObligationKind,
    OddsCommand,
    RollKind,
    RollRequest,
    RuleSystem,
    Side,
    request_of,
)
from tracker.systems.commands import Option, Setting

if TYPE_CHECKING:
    from tracker.events.catalog import EventPayload

C = TypeVar("C", bound="Capability")


class Capability:
    """A capability a rule system declares by subclassing it (``Contests``, ``Currencies``...).

    Its hooks' defaults are what tracker does with a system that lacks it."""

    feature: ClassVar[str] = ""
    """The ``Feature`` a command that needs the capability checks (``RuleSystem.has``), for
    the three a command refuses a campaign without; empty for the others."""


@cache
def _absent(capability: type[C]) -> C:
    return type(f"No{capability.__name__}", (capability,), {})()


def able(system: RuleSystem, capability: type[C]) -> C:
    """``system`` as ``capability`` when it declares it, else the capability's defaults: what
    tracker does with a system that has nothing of that kind."""
    return system if isinstance(system, capability) else _absent(capability)  # type: ignore[return-value]


def capabilities(system: RuleSystem | type[RuleSystem]) -> list[type[Capability]]:
    """The capabilities ``system`` declares, in the order of its class's bases."""
    cls = system if isinstance(system, type) else type(system)
    return [c for c in cls.__mro__ if c is not Capability and Capability in c.__bases__]


def trait_value(system: RuleSystem, character: CharacterView, trait: str) -> tuple[int, str]:
    """A character's skill or stat called ``trait`` (any case): its value and its name as the
    sheet spells it; one sentence when the sheet has neither."""
    value, name = character.skill(trait), character.skill_name(trait)
    if value is None:
        value, name = character.stat(trait), character.stat_name(trait)
    if value is None or name is None:
        sheet = able(system, SheetRules)
        hint = sheet.missing_trait_hint(character, trait)
        if hint:
            raise NotFound(hint)
        known = sheet.rollable(character)
        who = f'"{character.name}"' if " " in character.name else character.name
        pair = f"'{trait}=N'" if " " in trait else f"{trait}=N"
        # A sheet of stats alone (Glintlock's) gains a stat; one with skills, most likely a skill.
        option = "--stat" if character.stats and not character.skills else "--skill"
        also = " (or --stat for a stat)" if option == "--skill" else ""
        raise NotFound(
            f"{character.name} has no {trait} (traits: {', '.join(known) or 'none yet'}); add it "
            f"with `tracker character update {who} {option} {pair}`{also}, or check the spelling."
        )
    return value, name


class Contests(Capability):
    """Contested rolls: ``tracker contest``, one side's trait against the other's, or against a
    score the GM names."""

    feature: ClassVar[str] = Feature.CONTESTS

    contest_options: ClassVar[tuple[Option, ...]] = ()
    """Likewise for ``tracker contest`` beyond ``CONTEST_OPTIONS``."""

    def contest_request(self, **values: Any) -> ContestRequest:
        """A contest's request, as ``roll_request`` makes a roll's."""
        return request_of(ContestRequest, self.contest_options, values)

    def decide_contest(
        self, request: ContestRequest, a: Side, b: Side, campaign: CampaignView
    ) -> ContestDecision:
        """A contest of ``a`` (the active side) against ``b``, under the rules, in the campaign
        as it stands. Refuses (``Refused``, ``BadInput``) what the rules or the state forbid."""
        raise NotImplementedError

    def contest_said(self, event: EventPayload, verdict: str) -> str | None:
        """A stored contest's line in the log, before its dice, where the system words it
        itself (GURPS: an influence roll, whom it swayed); ``verdict`` says who won and by how
        much. None: "quick contest A vs B: verdict"."""
        return None


class Stress(Capability):
    """A stress track, with its limit and its words: ``tracker stress``."""

    feature: ClassVar[str] = Feature.STRESS

    def stress_limit(self, setting: int) -> int:
        """The top of the stress track, given the campaign's stress-limit setting."""
        return setting

    def stress_words(self, stress: int, limit: int) -> list[str]:
        """What a stress level means at the table, in a few words each."""
        return []

    stress_said: ClassVar[Mapping[str, str]] = {}
    """How ``tracker stress`` says each of ``stress_words`` whose word alone says too little
    ("strained": "strained: Mettle costs double")."""


class Currencies(Capability):
    """Currencies and tracks of the system's own that rolls and commands spend and gain (Mettle,
    Threat, character points), and which a session start sets back."""

    spend_kinds: ClassVar[tuple[str, ...]] = ()
    """What ``tracker spend NAME KIND`` takes in this system (Mettle spends, a buy-up)."""

    track_max: ClassVar[Mapping[str, int]] = {}
    """The top of each currency track the system keeps (Mettle and Threat stop at 6)."""

    def session_resets(self, campaign: CampaignView) -> frozenset[str]:
        """The tracks a session start sets back to 0 in ``campaign`` ("mettle", "threat")."""
        return frozenset()

    def priced(self, event: EventPayload) -> str | None:
        """Whether a stored spend or gain of this system's currencies (not a roll) has a price
        its command could have logged in some state of the campaign: None when it has, else a
        sentence saying why not. What it could afford where it stands is ``problem_with``'s
        to ask; this is what no state makes true (a cost no action has)."""
        return None


class Thresholds(Capability):
    """How far HP and FP may fall below zero, and what the GM hears as they cross the rulebook's
    thresholds."""

    def track_floor(self, track: str, top: int | None) -> int:
        """How low HP or FP can go below zero (GURPS: to death and unconsciousness)."""
        return 0

    def track_notes(self, track: str, asked: int, after: int, top: int) -> list[str]:
        """What the GM should hear when HP or FP reaches ``after`` of ``top`` (``asked`` is
        where the change asked for would have put it, before the track's floor): the rulebook's
        threshold reached, or how far tracker lets the track fall. Default: nothing."""
        return []


class Obligations(Capability):
    """Obligations the system's rules open (a panic check owed, an injury roll): what tracker
    calls each kind and how each is met."""

    obligations: ClassVar[Mapping[str, ObligationKind]] = {}
    """How tracker speaks of each kind of obligation the system's rules open, by its kind
    (Gloom: "panic-check"); a kind not named here is called by its name."""


class Conditions(Capability):
    """Conditions whose effect on a roll the system's rules settle, and which a roll may take or
    leave."""

    def conditions_ruled(self, character: CharacterView, request: RollRequest) -> Sequence[str]:
        """The conditions of ``character`` whose effect on the roll ``request`` asks for this
        system's rules settle (and ``decide_roll`` says in the roll's own words): Gloom's
        panicked gives disadvantage, each Glintlock condition is a -1 tag. Any other condition
        the character has is named on the roll's line by ``tracker.app.rolls``, which applies
        nothing for it. Default: none."""
        return ()

    def at_stake(self, event: EventPayload) -> Sequence[tuple[str, str]]:
        """The conditions (character id, name) a stored roll of this system changes or leaves
        as they were as its dice fall. Rolled in secret, it leaves each one secret either way:
        whether a roll that takes the condition is sealed must not tell how the dice fell."""
        return ()


class SheetRules(Capability):
    """What the system's rules say of a sheet beyond its stats and skills: the stats every sheet
    has, stats derived from others, which traits are rolled and what else may be."""

    sheet_stats: ClassVar[frozenset[str]] = frozenset()
    """Stats every sheet of the system has (GURPS: ST, DX, IQ, HT): a sheet made for it is
    told apart from one for the campaign's own system, and the GM told which it is."""

    derived: ClassVar[tuple[tuple[str, str], ...]] = ()
    """(stat, source): a stat based on another (GURPS: Will on IQ), which a sheet may leave
    out and which moves with its source when the sheet changes."""

    def derived_stats(self, stats: Mapping[str, int]) -> dict[str, int]:
        """Stats a sheet that lists only some of them starts with (GURPS: HP from ST): each
        of ``derived`` the sheet leaves out, at its source's value."""
        have = {key.casefold(): value for key, value in stats.items()}
        return {
            name: have[source.casefold()]
            for name, source in self.derived
            if name.casefold() not in have and source.casefold() in have
        }

    def rollable(self, character: CharacterView) -> list[str]:
        """The traits of ``character``'s sheet a roll may name, stats then skills as the sheet
        spells them: what Tab, the console's trait list, a phone's picker and the refusal of a
        trait the sheet lacks offer (beyond the sheet: ``rolls_beyond_sheet``). Default: every
        stat and skill but HP and FP, which are tracks; a system leaves out what its rules keep
        on a sheet and never roll (a rank, an edge)."""
        return [k for k in (*character.stats, *character.skills) if k.casefold() not in TRACKS]

    def rolls_beyond_sheet(
        self, character: CharacterView
    ) -> list[tuple[str, list[tuple[str, int]]]]:
        """What the rules let the character roll that her sheet does not list, grouped as a
        phone's trait picker shows it beside her stats and skills: each group's name and its
        rolls, each at the level the rules roll it at before the roll's own modifiers (GURPS:
        "Senses", Vision at Per with Acute Vision; "Defaults", Lockpicking at IQ-5). Default:
        nothing beyond the sheet."""
        return []

    def missing_trait_hint(self, character: CharacterView, trait: str) -> str | None:
        """A sentence for a trait the sheet lacks, when the rules can say what was meant."""
        return None


class SkillDefaults(Capability):
    """Skill defaults a character may be given: ``tracker character default``."""

    feature: ClassVar[str] = Feature.DEFAULTS

    def check_default(self, expression: str) -> None:
        """Refuse a skill default the system cannot read (``Feature.DEFAULTS`` only)."""

    def check_default_for(self, skill: str, expression: str, character: str | None = None) -> None:
        """Refuse a default for ``skill`` the system's rules do not allow (``character``, the
        one it would be for, names them in the refusal), or cannot read (``Feature.DEFAULTS``
        only). By default, only the expression is checked."""
        self.check_default(expression)


class SheetImport(Capability):
    """Characters read from another program's files (GURPS: GCS)."""

    def foreign_sheet(self, data: Mapping[str, Any], source: str) -> Mapping[str, Any] | None:
        """A character kept in another program's format that this system reads (GURPS: a GCS
        file), as a sheet file's mapping; None when ``data`` (a parsed file) is no such file."""
        return None


class Movement(Capability):
    """What a character's movement allows: sprints and jumps."""

    def movement(self, character: CharacterView, running_yards: int = 0) -> dict[str, int] | None:
        """What the character's movement allows (sprint, jumps), where the rules say."""
        return None


class RollKinds(Capability):
    """Kinds of roll beyond a check (Gloom: a panic roll), and difficulties a roll may be given by
    name."""

    roll_kinds: ClassVar[Mapping[str, RollKind]] = {}
    """The kinds of roll the system has beyond a check, by the ``RollRequest.kind`` that asks
    for one (Gloom: "panic")."""

    difficulties: ClassVar[tuple[str, ...]] = ()
    """Difficulties a roll's ``dl`` may be given by name (Gloom: routine, hard...)."""


class Provenance(Capability):
    """Holding a stored roll to the sheet and state it was rolled from, so that a rewritten skill
    is found by ``tracker verify``."""

    def rolled_from(
        self,
        event: EventPayload,
        characters: Mapping[str, CharacterView],
        campaign: CampaignView,
        *,
        tracks: bool = True,
    ) -> str | None:
        """Whether a stored roll, contest or check holds what the sheet and the state it was
        rolled from gave: its base (a skill, a stat, a default, a rank) and what the rules add
        from the character's state without the GM typing it. ``characters`` (by id) and
        ``campaign`` are the campaign as it stood where the event was logged. None when they
        agree, else a sentence saying what differs. A side that is no character (an opponent
        given by name and score) has no sheet to hold it to, and what the GM typed is the GM's.

        ``tracks`` False: only the sheets are known as they stood (an undo or a redo since has
        changed which events about the character count), not its tracks, conditions and what
        it has spent, nor the campaign's settings; hold the roll to the sheet alone.

        ``redecide`` holds a roll to its own inputs; this holds the inputs to the log, so a
        forger who rewrites a skill of 12 as 15 and rehashes the chain is found."""
        return None


class OddsTables(Capability):
    """``tracker odds NAME``: the system's table of chances."""

    def odds_command(self) -> OddsCommand | None:
        """What ``tracker odds NAME`` takes and shows for this system (None: no such command)."""
        return None


class OwnCommands(Capability):
    """Commands of the system's own (Mettle, Threat, buy-ups), and how the log says the events
    they log."""

    commands: ClassVar[tuple[Any, ...]] = ()
    """The commands the system adds to tracker, each a ``tracker.systems.acts.SystemCommand``
    (typed loosely here: that module builds on this one, which must not import it back)."""

    event_words: ClassVar[Mapping[type, Callable[[Any, str], str]]] = {}
    """How ``tracker log`` and ``replay`` say each event the system owns in a line, given the
    event and the name of the character it is about ("" for none)."""


class OwnSettings(Capability):
    """Campaign settings the system reads."""

    settings: ClassVar[tuple[Setting, ...]] = ()
    """The campaign settings the system reads, each logged under its name by a
    ``CampaignSettingsChanged`` (a name of the system's own as well as one of tracker's), with
    the options of ``campaign new`` and ``campaign set`` that give them: a setting the
    campaign's system does not read is refused rather than logged for nothing."""

    def setting(self, name: str) -> Setting | None:
        """The declaration of the campaign setting ``name``, if the system reads it."""
        return next((s for s in self.settings if s.name == name), None)

    def check_setting(self, name: str, value: object) -> Any:
        """A campaign setting's value as the system will read it, checked by its declaration's
        ``check`` (one sentence when it cannot be used); ``value`` is what the GM gave, a table
        as read from its file."""
        declared = self.setting(name)
        if value is None or declared is None or declared.check is None:
            return value
        return declared.check(value)


class OwnWords(Capability):
    """How the system speaks of its rolls where tracker's words are not enough: its dice, its
    critical outcomes, the detail of a roll, its remarks, its effects."""

    dice_name: ClassVar[str] = "d20"
    """How the dice of one roll are named at the table ("d20", "3d6")."""

    dice_join: ClassVar[str] = ", "
    """How a roll's dice are written together: "4, 12" for dice read one by one, "4+3+1" for
    dice that are added."""

    critical_outcomes: ClassVar[frozenset[str]] = frozenset()
    """The outcomes past a plain success or failure (a critical success, a catastrophe), which
    the table's screens set apart."""

    roll_help: ClassVar[str] = ""
    """What ``tracker roll --help`` says of the system's rolls beyond what every roll does, as
    one paragraph (GURPS: sense rolls); empty for nothing."""

    roll_examples: ClassVar[tuple[str, ...]] = ()
    """Command lines ``tracker roll --help`` shows as examples of the system's rolls."""

    detail_column: ClassVar[str] = ""
    """The heading of the roll history's column for the detail a roll of this system has
    beyond its outcome (GURPS: the margin, Glintlock: the position); empty for none."""

    lead_said: ClassVar[Mapping[str, str]] = {}
    """How a roll's lead (``RollFacts.lead``: Glintlock's position) reads before the roll, with
    the dice it means ("desperate: two d20, keep the lower"); a lead not named here reads as
    itself."""
    roll_columns: ClassVar[tuple[str, ...]] = ()
    """The roll history's columns of the system's own, after the outcome (GURPS: "margin",
    Glintlock: "position"), each filled from ``RollFacts.columns``: the CSV and JSON exports
    carry every installed system's, in the systems' order, empty in a roll of another system."""

    def roll_remarks(self, event: EventPayload) -> list[str]:
        """What a stored roll or contest's one line says beyond its dice and outcome: the rule
        that set the result apart from what the dice read (a natural 20's maximum damage,
        normalised contest scores, the Rule of 16, which rule settled a contest). ``log``,
        ``replay`` and the contest's own text all say these."""
        return []

    def effect_said(self, effect: Mapping[str, Any], who: str) -> str | None:
        """An effect of a roll's document (as ``Table.effects_shown`` gives it) in words, where
        the system words it itself (a currency of its own, a story tag spent), about the
        character ``who``; None: in tracker's words."""
        return None

    contest_refusal: ClassVar[str] = ""
    """What a table is told when it asks for a contest of a system without ``Contests``; empty:
    "TITLE has no contested rolls; roll each side alone."."""
