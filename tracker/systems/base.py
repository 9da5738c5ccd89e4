"""What the rest of tracker asks of a rule system, and the values it asks with.

A rule system is a ``RuleSystem``: its name and title, the features the table can use with it
(``Feature``: stress, panic checks, ...), its own commands (``tracker.systems.acts``: Mettle,
Threat, buy-ups, ...), its sheets' score range, how its tracks move, and, from its own package,
how it decides a roll or a contest, reads a stored one back, renders its results and plays its
demo evening. The built-in systems and any installed plugin are found through the
``tracker.systems`` entry-point group (``tracker.systems.registry``).

A system sees the campaign only through the small protocols below (``CharacterView``,
``CampaignView``): it never imports the projections that build them, so the systems stay pure.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from typing import TYPE_CHECKING, Any, ClassVar, Final, NamedTuple, Protocol

import msgspec

from tracker.errors import BadInput, Refused
from tracker.events.effects import Effect
from tracker.events.play import ContestRolled, ContestSide
from tracker.systems.commands import Option, odds_option, option_values
from tracker.systems.dice import DiceSource, source_for

if TYPE_CHECKING:
    from collections.abc import Hashable
    from fractions import Fraction
    from importlib.resources.abc import Traversable

    from tracker.events import StoredEvent
    from tracker.events.catalog import EventPayload
    from tracker.events.play import RollMade


TRACKS = frozenset({"hp", "fp"})
"""Hit Points and Fatigue Points: tracks any system's sheet may carry, never rolled against."""


class Feature:
    """What a table can do with a system beyond rolling, which a command refuses a campaign
    without, naming the systems that have it: the ``feature`` of three capabilities
    (``tracker.systems.capabilities``), as ``RuleSystem.features`` holds it. Commands check
    these, never a system's name; every other capability is asked of a system through
    ``able``, which gives its defaults where the system has none.

    They are plain strings: the fold asks about them at every track's move, and a string hashes
    in C where an enum member would not.
    """

    STRESS: Final = "stress"
    """A stress track, with its limit and its words (``Stress``): ``tracker stress``."""
    CONTESTS: Final = "contests"
    """Contested rolls (``Contests``): ``tracker contest``."""
    DEFAULTS: Final = "skill defaults"
    """Skill defaults a character may be given (``SkillDefaults``): ``tracker character
    default``."""


class CharacterView(Protocol):
    """What a system reads of a character (the campaign projection's ``Character``)."""

    character_id: str
    """The character's id, which events about it name."""
    name: str
    """The character's name as the sheet spells it."""

    @property
    def stats(self) -> Mapping[str, int]:
        """The sheet's stats by name, as the sheet gives them: ``stat`` and ``current_stats`` add
        the lasting changes play has made."""
        ...

    @property
    def skills(self) -> Mapping[str, int]:
        """The sheet's skills by name, at their levels."""
        ...

    @property
    def trained(self) -> Sequence[str]:
        """What the sheet marks the character trained in (Glintlock: Climb)."""
        ...

    character_class: str | None
    """The class the sheet gives, if the system has classes; else None."""

    @property
    def defaults(self) -> Mapping[str, Sequence[str]]:
        """The skill defaults the GM set for the character, by skill (``Feature.DEFAULTS``)."""
        ...

    @property
    def traits(self) -> Sequence[str]:
        """The sheet's traits by name (advantages, quirks, talents): ``has_trait`` also finds those
        play has added."""
        ...

    @property
    def traits_gained(self) -> Sequence[Mapping[str, Any]]:
        """The traits play has added, each as the event that added it recorded it."""
        ...

    @property
    def conditions(self) -> Mapping[str, Any]:
        """The conditions the character has now, by name, each as it was set (its duration, note and
        modifier)."""
        ...

    stress: int
    """Where the character's stress stands (0 in a system without ``Feature.STRESS``)."""
    own: Any
    """What the campaign's system keeps of the character (``Folding.character_part``)."""

    def stat(self, key: str) -> int | None:
        """The stat ``key`` (any case) with the lasting changes play has made to it; None when the
        sheet has no such stat."""
        ...

    def skill(self, key: str) -> int | None:
        """The skill ``key`` (any case) at its level; None when the sheet has no such skill."""
        ...

    def current_stats(self) -> dict[str, int]:
        """Every stat of the sheet as ``stat`` gives it, by the sheet's names."""
        ...

    def stat_name(self, key: str) -> str | None:
        """The stat ``key`` as the sheet spells it ("dx": "DX"); None when it has none."""
        ...

    def skill_name(self, key: str) -> str | None:
        """The skill ``key`` as the sheet spells it; None when it has none."""
        ...

    def is_trained(self, key: str) -> bool:
        """Whether the sheet marks the character trained in ``key`` (any case)."""
        ...

    def has_trait(self, trait: str) -> bool:
        """Whether the character has the trait (any case), from the sheet or gained in play."""
        ...


class ObligationView(Protocol):
    """What a system reads of one of the GM's obligations (the campaign projection's
    ``Obligation``): one the rules opened and the table still owes, or one since met."""

    id: str
    """The obligation's id, which the event that meets it names."""
    kind: str
    """Its kind, as the rules that opened it name it ("panic-check", ``Obligations``)."""
    what: str
    """What is owed, in a few words, as the table reads it."""
    opened_by: str
    """The id of the event that opened it."""
    character_id: str | None
    """The character it is about; None for one about the campaign."""
    severity: str
    """How pressing it is: "owed", or "immediate" when play waits for it (Glintlock's floor at
    Threat 6)."""

    data: dict[str, Any]
    """What the rules that opened it keep with it (the keywords ``CampaignFold.open`` was given
    beyond its own), which a fold may update as play goes on (a contest's round)."""

    secret: bool
    """Opened by a secret event: the players' view never holds it, nor may a public event
    name it."""


class CampaignView(Protocol):
    """What a system reads of the campaign (the campaign projection's ``CampaignState``)."""

    system: str
    """The name of the campaign's rule system (``RuleSystem.name``)."""

    @property
    def stress_limit(self) -> int:
        """The stress that brings the track's top in a system with stress, as the campaign set it
        (``Stress.stress_limit``)."""
        ...

    own: Any
    """What the system keeps of the campaign (``Folding.campaign_part``)."""

    def setting(self, name: str) -> Any:
        """The campaign setting ``name`` (one of ``OwnSettings.settings``) as it stands."""
        ...

    def open_obligations(
        self, kind: str | None = None, character_id: str | None = None
    ) -> Sequence[ObligationView]:
        """The GM's obligations open now, of ``kind`` and about ``character_id`` if given."""
        ...

    def unrevealed(
        self, character_id: str | None, *, since: str | None = None, after: int = 0
    ) -> Sequence[int]:
        """The secret events the players have not been shown whose envelope names
        ``character_id`` (None: no character), by version: all a system may ask of them when a
        public roll would count one."""
        ...


class RollRequest(msgspec.Struct, frozen=True):
    """A roll as the GM asked for it at the table: the trait, the dice, and ``options``, the
    values of the options the campaign's system declares (``RuleSystem.roll_options``) as one
    struct of them (``request.options.mods``)."""

    trait: str
    """The stat or skill rolled, as the GM typed it (``trait_value`` finds it on the sheet)."""
    kind: str = "check"
    """What kind of roll: "check", or one of ``RollKinds.roll_kinds`` (Gloom's "panic")."""
    dice: str | None = None
    """Physical dice typed at the table (``--dice 3,5``), as given; None: the server rolls."""
    seed: str | None = None
    """A seed for reproducible dice (``--seed``), the GM's only; None: none."""
    secret: bool = False
    """Only the GM sees the roll until it is revealed (``--secret``)."""
    options: Any = None
    """The values of the system's ``roll_options``, as one struct of them (``option_values``):
    ``request.options.push``."""
    source: DiceSource | None = None
    """Dice a command shares between this roll and what follows it (a project's day)."""

    def new_dice(self) -> DiceSource:
        """The roll's dice: physical ones given with --dice, seeded, or the system's CSPRNG.
        A fresh source each time: a decision made again after a collision reads them again."""
        return self.source if self.source is not None else source_for(self.dice, self.seed)


SEED: Final = Option(
    "--seed",
    "Any text; the same seed rolls the same dice.",
    metavar="S",
    label="seed of the server's dice",
)
"""Seeded dice, for any command that rolls (the GM's alone on a roll: ``ROLL_OPTIONS``). A
system's command that rolls through ``Table.roll`` offers it, ``SECRET`` and the table's dice
by declaring them among its options (``ROLL_OPTIONS`` holds all three), and passes what was
given on as the ``RollRequest``'s ``seed``, ``secret`` and ``dice``."""
SECRET: Final = Option(
    "--secret",
    "Only the GM sees it until it is revealed.",
    "bool",
    label="secret from the players",
)
"""A secret action, for any command that may log one (the GM's alone on a roll)."""

ROLL_OPTIONS: Final = (
    msgspec.structs.replace(SECRET, gm_only=True),
    Option(
        "--dice",
        "Physical dice rolled at the table, as shown.",
        metavar="N,N...",
        label="the table's dice",
    ),
    msgspec.structs.replace(SEED, gm_only=True),
)
"""The options of a roll every system reads (``RollRequest``'s own fields)."""


class RollKind(NamedTuple):
    """A kind of roll a system has beyond a check (``RollKinds.roll_kinds``)."""

    what: str
    """What it is called in a refusal: "The panic check"."""
    answers: str | None = None
    """The kind of obligation a roll of it answers (Gloom's panic check answers the
    "panic-check" a catastrophe opened): tracker names in the roll's inputs (``answers``) the
    events that opened those owed, so that undoing one takes the answer with it. Meeting them is
    the system's fold's to do (``Folding.rolled``: ``state.discharge(ob, raw, how)``)."""
    one: bool = False
    """A roll of it answers one obligation, the oldest it may name, not every one owed (Gloom:
    a panic check per catastrophe)."""
    options: tuple[Option, ...] | None = None
    """The options a roll of it reads, which the command that rolls it declares as its own
    (``request.options`` is then one struct of these: ``option_values(options, ...)``), so
    that neither ``tracker roll`` nor its form offers them. None: it reads the system's
    ``roll_options``, as a check does (Gloom's panic check)."""


class ObligationKind(NamedTuple):
    """How tracker speaks of a kind of obligation the system's rules open
    (``Obligations.obligations``)."""

    done: str | None
    """What the line saying one was met calls it ("the panic check"); None when the command
    that met it says so itself (a hard spend that pays the spending floor)."""
    kept: str | None = None
    """Why the GM may not dismiss one: the refusal's whole sentence, with its full stop, saying
    how the rules have it met ("The spending floor is discharged by a hard or dire spend, not
    dismissed; ..."); None: the GM may waive it."""
    waived: tuple[str, str] | None = None
    """One the GM may well waive, and a reason given for it ("a panic check the GM does not
    call", "no panic here"): ``tracker obligations dismiss --help``'s example."""
    goes_on: Callable[[Mapping[str, Any]], tuple[tuple[str, ...], dict[str, Any]] | None] | None = (
        None
    )
    """(the obligation's data) -> the command that goes on with one and its values: a core
    command no ``SystemCommand.discharges`` can name (a regular contest's next round is
    ``contest`` between the same sides), or the values the discharging command starts from
    (the spending floor's ``threat spend`` at hard); None, or it gives None: the discharging
    command with the character named."""


class RollDecision(msgspec.Struct, frozen=True):
    """A roll decided by its system: what the event records, and the document the command
    shows. ``followups`` are rolls the rules call for at once (Danger Sense's secret roll); the
    command's document shows each one's result under its kind (``danger_sense``)."""

    trait: str
    """The trait rolled, as the sheet spells it (``trait_value``'s second value)."""
    inputs: dict[str, Any]
    """What the roll was decided from, as the event stores it: the base score and each modifier by
    name. ``redecide`` and ``rolled_from`` read them back."""
    result: dict[str, Any]
    """What the dice decided, as the event stores it; by convention ``dice``, ``kept``, ``outcome``
    (one of ``RuleSystem.outcome_tones``) and ``success`` (a bool)."""
    dice: tuple[int, ...]
    """The dice as they fell, in the order rolled (what ``DiceSource.roll`` gave)."""
    doc: dict[str, Any]
    """The document ``tracker roll --json`` prints and ``render_roll`` words: ``trait``,
    ``effective``, the result's keys and ``notes``; the command adds ``character``, ``system`` and
    ``effects``."""
    effects: tuple[Effect, ...] = ()
    """What the roll does to the campaign (``TrackChange``, ``ConditionApplied``,
    ``ObligationOpened``, ``StatChanged`` or a system's own), applied as the event is folded."""
    consumed: tuple[str, ...] = ()
    """The ids of earlier events whose one-shot effect this roll used up (a spend that gave +2 on
    the next roll)."""
    kind: str | None = None
    """The kind stored, when it is not the request's (None: the request's)."""
    secret: bool = False
    """The rules keep this roll secret whatever the GM asked (a sense roll that must not tell)."""
    dice_source: str | None = None
    """Where the dice came from as stored, when the system says so itself; None: the request's
    source's ``kind``."""
    followups: tuple[RollDecision, ...] = ()
    """Rolls the rules call for at once after this one, each decided as this one is."""
    task: str | None = None
    """The named task whose attempts the roll counts (GURPS retries)."""


class Side(msgspec.Struct, frozen=True):
    """One side of a contest: a character and the trait it rolls, or an opponent given by name
    and score (``character`` None)."""

    name: str
    """The side's name: the character's, or the opponent's as the GM gave it."""
    character: CharacterView | None
    """The character rolling, or None for an opponent given by name and score."""
    trait: str | None
    """The trait the side rolls (None for an opponent's bare score)."""
    score: int | None = None
    """An opponent's score, as the GM gave it (None for a character)."""

    @property
    def character_id(self) -> str | None:
        """The side's character's id; None for an opponent."""
        return None if self.character is None else self.character.character_id


class ContestRequest(msgspec.Struct, frozen=True):
    """A contest as the GM asked for it; ``options`` as a roll's (``RuleSystem.
    contest_options``). ``running`` is the contest id and the next round of a contest between
    these sides still under way (a GURPS regular contest), if there is one."""

    mode: str | None = None
    """The kind of contest asked for (``--mode``: "quick" unless the system says otherwise); None:
    the system's first."""
    dice_a: str | None = None
    """Side A's physical dice (``--dice-a``), as given."""
    dice_b: str | None = None
    """Side B's physical dice (``--dice-b``), as given."""
    seed: str | None = None
    """A seed for both sides' dice (``--seed``)."""
    secret: bool = False
    """Only the GM sees the contest until it is revealed (``--secret``)."""
    options: Any = None
    """The values of the system's ``contest_options``, as one struct of them."""
    running: tuple[str, int] | None = None
    """The contest id and next round of a contest between these sides still under way, or None."""

    def sources(self) -> tuple[DiceSource, DiceSource]:
        """Each side's dice: its own physical dice, else one shared source for both."""
        shared = source_for(None, self.seed)
        a = source_for(self.dice_a, None, "--dice-a") if self.dice_a else shared
        b = source_for(self.dice_b, None, "--dice-b") if self.dice_b else shared
        return a, b


CONTEST_OPTIONS: Final = (
    Option(
        "--mode",
        "quick (default); gurps: resistance, regular; gloom: dynamic (the dynamic floor).",
        "choice",
        choices=("quick", "resistance", "regular", "dynamic"),
        label="kind of contest",
    ),
    Option("--dice-a", "A's physical dice.", metavar="N,N...", label="the table's dice for A"),
    Option("--dice-b", "B's physical dice.", metavar="N,N...", label="the table's dice for B"),
    SEED,
    SECRET,
)
"""The options of a contest every system reads (``ContestRequest``'s own fields)."""


class ContestDecision(msgspec.Struct, frozen=True):
    """A contest decided by its system: what the event records, and the document shown."""

    mode: str
    """The kind of contest decided, as the event stores it."""
    a: ContestSide
    """Side A as the event records it (``contest_side``)."""
    b: ContestSide | None
    """Side B as the event records it, or None when the defender did not roll."""
    winner: str | None
    """The side that won, "a" or "b"; None for a stalemate (or a round that decided nothing)."""
    result: dict[str, Any]
    """What the contest came to, as the event stores it (margins, the rule that settled it)."""
    doc: dict[str, Any]
    """The document ``tracker contest --json`` prints."""
    effects: tuple[Effect, ...] = ()
    """What the contest does to the campaign, as a roll's ``effects``."""
    contest_id: str | None = None
    """The id shared by every round of one contest that runs over rounds; None for one of a single
    roll."""
    round: int | None = None
    """The round this is, of a contest that runs over rounds."""
    decided: bool = True
    """False: the round settled nothing and the contest goes on."""
    secret: bool = False
    """The rules keep the contest secret by themselves (a sense contested: GURPS)."""


class RollFacts(NamedTuple):
    """One rolled set of dice as the roll history shows it: a roll, a fright check, or one side
    of a contest. ``name`` is given for a contest side (a character or an opponent, who has no
    ``character_id``); a character's own roll is named by its id. ``chance_key`` looks up the
    exact chance of success the rules gave that very roll (``RuleSystem.chance``)."""

    character_id: str | None
    """The character who rolled (None for an opponent's side of a contest)."""
    name: str | None
    """The side's name in a contest (a character or an opponent); None for a character's own
    roll."""
    kind: str
    """The roll's kind (``RollMade.kind``; a contest side's mode)."""
    trait: str
    """The trait rolled."""
    base: int | None
    """The score before modifiers, or None."""
    modifiers: str
    """The modifiers in a few words ("push +1 die"); "" for none."""
    effective: int | None
    """The score the dice were read against, or None."""
    dice: tuple[int, ...]
    """The dice as they fell."""
    faces: int
    """How many faces each die has (6, 20)."""
    kept: int | None
    """The die or total that decided it, or None (a pool counts every die)."""
    outcome: str
    """The outcome's name (one of ``RuleSystem.outcome_tones``)."""
    success: bool
    """Whether it counts as a success in the luck against exact odds."""
    effects: str
    """Its effects in a few words (``effects_text``)."""
    chance_key: Any
    """What ``RuleSystem.chance`` takes to give the exact chance of success this very roll had: any
    hashable value the system chooses (a score, a tuple)."""
    columns: Mapping[str, Any] = {}
    """Its values in the roll history's columns of the system's own (``OwnWords.roll_columns``:
    GURPS's margin, Glintlock's position), by name; a column left out is empty."""
    verdict: str = ""
    """The outcome as a line of the log says it, where the system says more than the outcome's
    name ("success by 3"); empty: the outcome's words."""
    detail: str = ""
    """What the recap's detail column (``OwnWords.detail_column``) shows of it ("+3", "risky");
    empty for nothing."""
    lead: str = ""
    """What a line says of it before its dice, where the rules set how it is rolled (Glintlock's
    position, "risky"); ``OwnWords.lead_said`` words it in full. Empty for nothing."""


class Style(Protocol):
    """How the terminal marks words; a system's renderers take one so they never import it."""

    def bold(self, text: str) -> str:
        """``text`` in bold (plain where the terminal shows no marks, and in ``--json``)."""
        ...

    def dim(self, text: str) -> str:
        """``text`` dimmed, for what reads after the main words."""
        ...

    def outcome(self, name: str) -> str:
        """An outcome's words, marked by how it reads (its tone)."""
        ...


class Terminal(Style, Protocol):
    """What a system's command words its document with (``SystemCommand.render``): the marks
    of ``Style``, and the lines every command that rolls shows alike."""

    def tone(self, text: str, tone: str, *, bold: bool = False) -> str:
        """Words marked by how they read: "good", "mixed" or "bad"."""
        ...

    def roll_lines(self, doc: Mapping[str, Any]) -> list[str]:
        """A logged roll's document as ``tracker roll`` shows it, with its effects and notes."""
        ...

    def contest_line(self, side: Mapping[str, Any]) -> str:
        """One side of a contest's document: who, at what, the dice and the outcome."""
        ...

    def effect_words(self, effects: Sequence[Mapping[str, Any]], who: str) -> list[str]:
        """Each effect of a document (``effects_shown``) in words, about the character ``who``."""
        ...


class RollLines(msgspec.Struct, frozen=True):
    """A roll as the terminal shows it: the head (who, what, against what), the dice and the
    outcome, and any lines the system adds after the notes."""

    head: str
    """The first line: who rolled what, against what."""
    dice: str
    """The line of the dice and the outcome (``Style.outcome`` marks it)."""
    after: tuple[str, ...] = ()
    """Lines the system adds after the roll's notes."""


# ``tracker odds NAME``'s options are declared as every command's are; this spells them as the
# systems first did, a number unless said otherwise.
OddsOption = odds_option
"""An option of ``tracker odds NAME`` (``OddsCommand.options``): ``OddsOption(flag, help, kind=int,
*, is_flag=False, choices=None, **settings)`` gives an ``Option`` that takes a number unless it says
otherwise; ``settings`` are ``Option``'s fields (``required=True``, ``default``, ``metavar``)."""


class OddsReport(msgspec.Struct, frozen=True):
    """Exact odds as ``tracker odds`` shows them: the title, the odds, labels for outcome names,
    warnings (``notes``) and plain ``lines`` after the table, and the ``--json`` document."""

    odds: Any
    """The ``Odds`` computed."""
    title: str
    """The table's title ("D6 · score 4")."""
    document: dict[str, Any]
    """What ``tracker odds --json`` prints; ``Odds.to_dict`` gives it."""
    labels: Mapping[str, str] = {}
    """How an outcome name reads in the table, where not as itself."""
    notes: tuple[str, ...] = ()
    """Warnings printed after the table."""
    lines: tuple[str, ...] = ()
    """Plain lines printed after the table."""
    tones: Mapping[str, str] = {}
    """How an outcome the system's own tones do not name reads ("good", "mixed", "bad")."""


class OddsCommand(msgspec.Struct, frozen=True):
    """What ``tracker odds NAME`` takes, its help (examples included), and how it computes."""

    help: str
    """``tracker odds NAME --help``: what it computes, with examples (each a line ``tracker odds
    NAME ...``, which the contract suite runs)."""
    options: tuple[Option, ...]
    """Its options (``OddsOption``); their values reach ``compute`` by name."""
    compute: Callable[..., OddsReport]
    """(option values by name) -> ``OddsReport``; raises ``BadInput`` for values the rules cannot
    roll."""


class DemoEvening(msgspec.Struct, frozen=True):
    """A campaign ``tracker demo`` makes for the system: its sheets (files a character is added
    from), the session it starts, a script of commands played in it (one a line), and commands
    to suggest (``tries``). The featured evening is the one the demo leaves selected."""

    campaign: str
    """The demo campaign's name."""
    title: str
    """The title of the session it starts."""
    sheets: tuple[Traversable, ...]
    """The sheet files its characters are added from (``importlib.resources.files(__name__) /
    "NAME.toml"``), the first one's character the one ``examples`` roll."""
    script: Traversable
    """A text file of commands, one a line without the word tracker (``#`` starts a comment), played
    in the session."""
    featured: bool = False
    """True: the demo leaves this campaign selected (one of tracker's own is)."""
    tries: tuple[str, ...] = ()
    """Commands the demo suggests trying next, each a whole command line as the GM types it
    ("tracker roll Wren Grit --tag 1:gear"), unlike the script's lines."""
    examples: tuple[RollRequest, ...] = ()
    """Rolls of the evening's first character that between them reach every outcome the system
    has: the system's contract suite (``tracker.testing.SystemContract``) rolls them with every
    fall of the dice."""


class Part:
    """What a rule system keeps of a campaign or of a character beyond what every system
    shares (Glintlock: the Threat, each character's Mettle). A system's part is a dataclass
    deriving from this; the campaign projection holds one as ``own`` and stores it with its
    snapshot as plain JSON (``to_snapshot``/``from_snapshot``, which by default take every
    field by name: a part of lists, dicts and numbers needs nothing more)."""

    __slots__ = ()

    def to_snapshot(self) -> dict[str, Any]:
        """The part as a snapshot stores it: plain JSON values by field name, copied, so that
        the state folding on does not change what was stored."""
        # Copied whole through the part's own ``__deepcopy__`` when it has one: a part that
        # grows with a long campaign (Glintlock's consequences) knows how to copy itself fast,
        # where a deep copy field by field walks every item of it.
        part = copy.deepcopy(self)
        return {f.name: getattr(part, f.name) for f in dataclasses.fields(part)}  # type: ignore[arg-type]

    @classmethod
    def from_snapshot(cls, doc: Mapping[str, Any]) -> Part:
        """The part ``to_snapshot`` stored, read back from a snapshot: each field by name."""
        return copy.deepcopy(cls(**doc))


class CharacterFold(CharacterView, Protocol):
    """A character as a system's fold sees it (the campaign projection's ``Character``): what
    ``CharacterView`` reads, and the lasting changes play has made to the sheet."""

    traits_gained: list[dict[str, Any]]
    """The traits play has added, each as the event that added it recorded it; a fold adds
    those its system's events give (GURPS: a trait assigned for points)."""

    @property
    def stat_changes(self) -> Mapping[str, int]:
        """The lasting changes play has made to the sheet's stats, by the sheet's names (``stat``
        adds them to the sheet's values)."""
        ...


class CampaignFold(CampaignView, Protocol):
    """What a system's fold handlers may do to the campaign state (the campaign projection's
    ``CampaignState``): read it as ``CampaignView`` does, and its characters and obligations,
    and open and discharge the GM's obligations."""

    @property
    def characters(self) -> Mapping[str, CharacterFold]:
        """The campaign's characters by id; each ``ch.own`` is the system's ``character_part``."""
        ...

    @property
    def obligations(self) -> Mapping[str, ObligationView]:
        """The obligations open now, by id (``open_obligations`` picks them by kind and
        character)."""
        ...

    own: Any
    """The system's ``campaign_part``."""
    rules: RuleSystem
    """The campaign's ``RuleSystem``."""

    def open(self, raw: StoredEvent, kind: str, what: str, **data: Any) -> ObligationView:
        """Open an obligation (``character_id``, ``severity`` and ``suffix`` by keyword; any
        other keyword is its data)."""
        ...

    def discharge(self, ob: ObligationView, raw: StoredEvent, how: str) -> None:
        """Close the open obligation ``ob`` (one of ``open_obligations``) as met by the event
        ``raw``, ``how`` saying how ("2 Momentum spent")."""
        ...

    def open_obligations(
        self, kind: str | None = None, character_id: str | None = None
    ) -> Sequence[ObligationView]:
        """The obligations open now, of ``kind`` and about ``character_id`` if given."""
        ...

    def set_stress(self, ch: CharacterFold, delta: int, raw: StoredEvent) -> None:
        """Move ``ch``'s stress by ``delta`` as every system's fold does, within its limit."""
        ...

    def apply_effects(
        self, effects: Sequence[Effect], raw: StoredEvent, default_id: str | None
    ) -> None:
        """Apply ``effects`` as a roll's are applied, each to the character it names or else to
        ``default_id``'s."""
        ...


# A system's fold handler of one event type: the state, the typed event, the stored event.
Handler = Callable[[CampaignFold, Any, "StoredEvent"], None]
"""A ``Folding.handlers`` value: (state, the typed event, the stored event) -> None; it changes
``state`` (a ``CampaignFold``) in place."""
# Why an event of one type could not have been logged in a state (None: it could).
Precondition = Callable[[CampaignFold, Any], "str | None"]
"""A ``Folding.preconditions`` value: (state, the typed event) -> why the event could not have been
logged in that state, or None when it could."""


class TrackChart(NamedTuple):
    """Tracks of the system's own that the roll history's report draws on one chart
    (``Folding.charts``): each character's ``each`` and the campaign's ``shared``, as
    ``Folding.chart`` names them in its points."""

    title: str
    """The chart's title."""
    each: str
    """The track of each character drawn, as ``Folding.chart`` names it."""
    shared: str | None = None
    """The campaign's track drawn with them, or None."""
    top: int | None = None
    """The top of the chart's scale (both tracks stop there); None: as high as they go."""


class Folding:
    """How a rule system folds the log: the events it owns, and its part in those every
    system shares. The campaign projection calls each hook where the rules may add to what
    every system does; the defaults add nothing (a system of rolls and stress alone).

    ``state`` is the campaign state (``CampaignFold``), ``raw`` the stored event being folded
    (``StoredEvent``), ``ch`` a character of the state (``CharacterFold``) with ``ch.own`` its
    ``character_part``."""

    campaign_part: ClassVar[type[Part] | None] = None
    """The system's state of a campaign, as ``state.own``."""
    character_part: ClassVar[type[Part] | None] = None
    """The system's state of each character, as ``ch.own``."""
    handlers: ClassVar[Mapping[type, Handler]] = {}
    """How each event type the system owns changes the state."""
    charts: ClassVar[tuple[TrackChart, ...]] = ()
    """The tracks of ``chart``'s points the report draws together; a campaign's track none
    of them names has a chart of its own."""
    preconditions: ClassVar[Mapping[type, Precondition]] = {}
    """Why an event of a type the system owns could not stand where an undo would leave it."""
    version: ClassVar[int] = 1
    """The version of what this fold makes of the log, a whole number from 1: bump it when the
    same events fold to another state (a handler or a hook changed, a part's fields changed).
    A campaign's snapshots are stored under it (``projection_version``), so those of another
    version are folded anew from the log rather than read, or reported by ``tracker verify``
    as a state the log does not fold to."""

    def new_campaign(self) -> Part | None:
        """The system's part of a new campaign: a ``campaign_part`` made with no arguments
        (its fields' defaults), or None without one. Called as the campaign is created."""
        return None if self.campaign_part is None else self.campaign_part()

    def new_character(self) -> Part | None:
        """The system's part of a character just added: a ``character_part`` made with no
        arguments, or None without one."""
        return None if self.character_part is None else self.character_part()

    def rolled(
        self, state: CampaignFold, ch: CharacterFold, event: RollMade, raw: StoredEvent
    ) -> None:
        """A roll of ``ch`` was folded (its effects applied)."""

    def roll_problem(self, state: CampaignFold, ch: CharacterFold, event: RollMade) -> str | None:
        """Why a roll could not have been made where it stands (what it used is not there)."""
        return None

    def contested(self, state: CampaignFold, event: ContestRolled, raw: StoredEvent) -> None:
        """A contest was folded (its effects applied)."""

    def contest_problem(self, state: CampaignFold, event: ContestRolled) -> str | None:
        """Why a contest could not have been rolled where it stands."""
        return None

    def track_moved(
        self,
        state: CampaignFold,
        ch: CharacterFold | None,
        track: str,
        delta: int,
        raw: StoredEvent,
    ) -> None:
        """An effect moved a track every system does not keep (Mettle, Threat); ``ch`` is the
        character it names, if any."""

    def effect(
        self, state: CampaignFold, ch: CharacterFold | None, effect: Effect, raw: StoredEvent
    ) -> None:
        """An effect of a shape every system does not apply (a story tag spent)."""

    def stress_moved(self, state: CampaignFold, ch: CharacterFold, raw: StoredEvent) -> None:
        """``ch``'s stress moved (the breaking point may now be owed)."""

    def session_started(self, state: CampaignFold, raw: StoredEvent) -> None:
        """A session began: the tracks it resets, what it owes again."""

    def lapsing(self, state: CampaignFold) -> list[ObligationView]:
        """The obligations a session's end closes as lapsed."""
        return []

    def character_doc(self, ch: CharacterFold, doc: dict[str, Any]) -> dict[str, Any]:
        """``tracker status CHARACTER --json``'s document with what the system keeps of ``ch``:
        ``doc`` holds what every system keeps; the system puts its own where it reads best."""
        return doc

    def lasting(self, ch: CharacterFold) -> dict[str, Any]:
        """What play has left on ``ch`` in the system's part (breaking-point consequences)."""
        return {}

    def campaign_doc(self, state: CampaignFold, doc: dict[str, Any]) -> dict[str, Any]:
        """``tracker status --json``'s document with what the system keeps of the campaign."""
        return doc

    def readings(
        self, state: CampaignFold, ch: CharacterFold | None, doc: dict[str, Any]
    ) -> dict[str, Any]:
        """The tracks the table sees of ``ch`` (of the campaign when ``ch`` is None), by the
        name the table calls them: ``doc`` holds those every system keeps; the system adds its
        own ("Mettle", "Threat", "CP") and returns it. This is the hook whose values every
        screen shows of a system's state: the players' page, the console's cards and a
        phone show each character's, and the campaign's above them; a replay's "what
        changed" compares them before and after. Called whenever one of those is drawn, on
        the state as it stands; it only reads. Default: ``doc`` as it is."""
        return doc

    def chart(
        self, state: CampaignFold, ch: CharacterFold | None, point: dict[str, Any]
    ) -> dict[str, Any]:
        """One point of the roll history's track chart (``export --json``): ``point`` holds
        the tracks every system keeps of ``ch`` (of the campaign when ``ch`` is None, and
        then nothing: a campaign with no track of its own is charted by none)."""
        return point

    def currencies(self, state: CampaignFold, ch: CharacterFold) -> dict[str, tuple[int, int]]:
        """The currency tracks an effect on ``ch``'s roll can move, by the effect's track
        name: where each stands and its top (a gain past the top is lost, and said)."""
        return {}

    def headline(self, state: CampaignFold) -> str:
        """What ``tracker status``'s first line adds about the campaign (" · Threat 4")."""
        return ""

    def sheet_lines(self, ch: CharacterFold) -> list[str]:
        """What ``tracker character show`` adds of what play left on the character."""
        return []

    def status_parts(
        self, doc: Mapping[str, Any], parts: dict[str, str | None], style: Style
    ) -> dict[str, str | None]:
        """``tracker status``'s line of a character: ``parts`` holds what every system shows
        of it, by name ("name", "stress", "hp", "fp", "conditions", "retired"; None where the
        character has none) in their order, and the system puts what it keeps of ``doc`` (its
        ``character_doc``) where it reads best (``placed``)."""
        return parts

    def status_lines(self, doc: Mapping[str, Any]) -> list[str]:
        """What ``tracker status CHARACTER`` says under that line of what the system keeps of
        ``doc``, one line each: what play has left on the character for good."""
        return []

    def named(self, state: CampaignFold, kind: str) -> list[str]:
        """The names of what the system keeps of ``kind`` (GURPS: "projects"), for Tab to offer
        where a command takes one; none of a kind it does not keep."""
        return []

    def lapses_at_start(self, state: CampaignFold) -> tuple[str, ...]:
        """What a session's start lets lapse, said as it starts (what Mettle bought last
        session and no roll used)."""
        return ()


def placed(doc: dict[str, Any], before: str, items: Mapping[str, Any]) -> dict[str, Any]:
    """``doc`` with ``items`` put right before its key ``before`` (at the end without it): a
    system's fields keep the place they have always had in a document every system shares."""
    if before not in doc:
        return {**doc, **items}
    out: dict[str, Any] = {}
    for key, value in doc.items():
        if key == before:
            out.update(items)
        out[key] = value
    return out


# One rolled set of dice in brief (``RuleSystem.rolled``), what the luck against exact odds
# counts: (character_id, name, faces, dice, success, chance_key). A plain tuple, not a named
# one: a rebuild makes one for every roll in the log.
Rolled = tuple[str | None, str | None, int, tuple[int, ...], bool, Any]
"""What ``RuleSystem.rolled`` gives for each set of dice a stored event rolled: (character_id,
name, faces, dice, success, chance_key), as ``RollFacts`` holds them."""


class Later:
    """A rule system's class attribute kept in a module of the system's own and imported the
    first time it is read (``later``)."""

    def __init__(self, where: str, method: bool) -> None:
        self.where = where
        self.method = method
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type) -> Any:
        module, _, attribute = self.where.partition(":")
        value = getattr(import_module(module), attribute or self.name)
        if callable(value) and not self.method:
            value = staticmethod(value)
        # Put in the descriptor's place, so the module is asked once.
        for cls in owner.__mro__:
            if vars(cls).get(self.name) is self:
                setattr(cls, self.name, value)
        return getattr(owner if instance is None else instance, self.name)


def later(where: str, *, method: bool = False) -> Any:
    """A class attribute of a ``RuleSystem`` read from ``where`` ("module:name"; the name
    defaults to the attribute's own) the first time it is asked for.

    What a system declares (its name, title, options, settings, command lines) is read by every
    command line, for every installed system; what it does (its rules, folds, words, tables) is
    read only in a campaign that plays it. A system whose doing is costly to import keeps it in
    modules named this way, so that a one-shot command loads the doing of its campaign's system
    alone. A function is taken as a static one unless ``method`` says it takes the system as its
    first argument."""
    return Later(where, method)


class RuleSystem:
    """A rule system as tracker uses it: the core every system implements. Subclass it with the
    capabilities the rulebook has (``tracker.systems.capabilities``: contests, stress,
    currencies, obligations, sheet import...), set the class attributes and override the hooks.

    The core is twelve members: ``name``, ``title``, ``score_range`` (the sheet),
    ``roll_options``, ``decide_roll``, ``redecide``, ``roll_facts`` (a roll decided and read
    back), ``chance`` (its odds), ``outcome_tones`` and ``render_roll`` (its words), ``folding``
    (what it keeps) and ``demo``. The rest here is tracker's and never overridden, but for
    ``rolled``, which a system may answer faster than ``roll_facts`` does."""

    name: ClassVar[str]
    """The name campaigns store and commands take (``--system NAME``): lower case, one word."""
    title: ClassVar[str]
    """The name as people write it (GURPS)."""
    score_range: ClassVar[tuple[int, int]] = (0, 99)
    """What a stat or skill on a sheet can sensibly be; anything outside is a typo."""
    roll_options: ClassVar[tuple[Option, ...]] = ()
    """The options of ``tracker roll`` the system reads beyond ``ROLL_OPTIONS``, each help
    worded without the system's title ("a modifier.": the command says "GURPS: a modifier.").
    Their values reach the system as ``RollRequest.options``; an option the GM gives that the
    campaign's system does not declare is refused rather than logged as if it applied."""
    outcome_tones: ClassVar[Mapping[str, str]] = {}
    """How each outcome reads at the table: "good", "mixed" (a success at a cost) or "bad"."""
    folding: ClassVar[Folding] = Folding()
    """How the system folds the events it owns, and what it keeps of a campaign and of each
    character beyond what every system shares (``Folding``). Default: nothing of its own."""

    features: ClassVar[frozenset[str]] = frozenset()
    """The ``Feature`` of each capability the system declares that has one, made from its
    bases: what ``has`` answers, and what a refusal names the systems that have."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.features = frozenset(
            feature for base in cls.__mro__ if (feature := vars(base).get("feature"))
        )

    def __repr__(self) -> str:
        return f"<rule system {self.name}>"

    def load(self) -> None:
        """Import everything the system does that it declared ``later``: what registers its
        event types and effects with the catalog among it."""
        for cls in type(self).__mro__:
            for name, value in list(vars(cls).items()):
                if isinstance(value, Later):
                    getattr(self, name)

    # A system is one object shared by every state that names it, never copied with one.
    def __copy__(self) -> RuleSystem:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> RuleSystem:
        return self

    def roll_request(self, trait: str, **values: Any) -> RollRequest:
        """A roll of ``trait``: ``values`` names ``RollRequest``'s own fields and the system's
        roll options."""
        return request_of(RollRequest, self.roll_options, {"trait": trait, **values})

    def has(self, feature: str) -> bool:
        """Whether a table can use ``feature`` with this system."""
        return feature in self.features

    def tone(self, outcome: str) -> str:
        """How ``outcome`` reads: "good", "mixed" or "bad" (an outcome not listed is bad)."""
        return self.outcome_tones.get(outcome, "bad")

    # -- rolls -----------------------------------------------------------------------------------

    def decide_roll(
        self, request: RollRequest, character: CharacterView, campaign: CampaignView
    ) -> RollDecision:
        """Roll ``request`` for ``character`` under the rules, in the campaign as it stands.

        Refuses (``Refused``, ``BadInput``) what the rules or the state forbid."""
        raise NotImplementedError

    def redecide(self, event: EventPayload) -> str | None:
        """Decide a stored roll, contest or check again from its recorded inputs and dice:
        None when the rules still give what is stored, else a sentence saying what differs."""
        return None

    def roll_facts(self, event: EventPayload) -> list[RollFacts]:
        """The dice rolled in a stored event of this system, as the roll history shows them
        (none for an event that rolled nothing)."""
        return []

    def rolled(self, event: EventPayload) -> list[Rolled]:
        """``roll_facts`` in brief: who rolled what, and whether it succeeded against which
        chance. A rebuild reads this of every roll in the log, so a system may answer it
        without building the words ``roll_facts`` has."""
        return [
            (f.character_id, f.name, f.faces, f.dice, f.success, f.chance_key)
            for f in self.roll_facts(event)
        ]

    def chance(self, key: Hashable) -> Fraction:
        """The exact chance of success of the roll ``key`` describes (``RollFacts``)."""
        raise NotImplementedError

    # -- words -----------------------------------------------------------------------------------

    def render_roll(self, doc: Mapping[str, Any], style: Style) -> RollLines:
        """A decided roll's document (``RollDecision.doc`` with what the command added) as the
        terminal shows it."""
        raise NotImplementedError

    def demo(self) -> DemoEvening | None:
        """The campaign ``tracker demo`` makes for this system (None: none)."""
        return None


def request_of(kind: type[Any], options: tuple[Option, ...], values: dict[str, Any]) -> Any:
    """A ``RollRequest`` or ``ContestRequest`` (``kind``) of ``values``: its own fields, and
    the rest as the struct of ``options``."""
    values = dict(values)
    own = {k: values.pop(k) for k in list(values) if k in kind.__struct_fields__}
    return kind(**own, options=option_values(options, **values))


def condition_named(character: CharacterView, condition: str | None) -> str:
    """A condition of the character's by name (any case), as the character has it spelled;
    one sentence when none is given or the character has no such condition."""
    if not condition:
        raise BadInput("Name the condition with --condition NAME.")
    for name in character.conditions:
        if name.casefold() == condition.casefold():
            return name
    have = ", ".join(character.conditions) or "none"
    raise Refused(
        f"{character.name} has no condition {condition!r} (conditions: {have}); check the "
        f"spelling, or see `tracker status {character.name}`."
    )


def contest_side(side: Side, inputs: dict[str, Any], result: dict[str, Any]) -> ContestSide:
    """A side as the contest event records it."""
    return ContestSide(side.name, side.character_id, side.trait, inputs, result)


def side_verdict(event: ContestRolled, side: ContestSide) -> str:
    """How the contest went for ``side``, as the roll history's effects column says it."""
    if event.winner is None:
        return "stalemate"
    return "won" if event.winner == ("a" if side is event.a else "b") else "lost"


def contest_roll_doc(side: Side, result: Mapping[str, Any], effective: int) -> dict[str, Any]:
    """One side of a contest as the scripting contract's roll document."""
    return {
        "character": side.name,
        "trait": side.trait or "score",
        "effective": result.get("effective", effective),
        "dice": result["dice"],
        "kept": result.get("kept", result.get("total")),
        "outcome": result["outcome"],
        "success": result["success"],
        "margin": result.get("margin"),
    }


def effects_differ(
    stored: Sequence[Effect], expected: Sequence[Effect], *, optional: Sequence[Effect] = ()
) -> str | None:
    """None when a stored roll requested exactly the effects its re-decided result gives, and
    any of ``optional`` (effects that rest on a choice the roll does not record, such as a
    catastrophe's panic check waived with ``--no-panic``); else what differs.

    ``tracker verify`` asks this of every roll: a forged effect (+5 Mettle on a weak hit) is
    found even where the roll's outcome was left alone."""
    # Mostly they are the very same, in the same order: then their encodings are the same bytes.
    # (Not ``==``, which takes -1.0 for -1 and True for 1 in an effect's free-form data.)
    if len(stored) == len(expected) and all(
        type(a) is type(b) and _encode(a) == _encode(b)
        for a, b in zip(stored, expected, strict=True)
    ):
        return None
    from collections import Counter

    def keys(effects: Sequence[Effect]) -> Counter[str]:
        return Counter(canonical(e.to_json()) for e in effects)

    left = keys(stored)
    left.subtract(keys(expected))
    missing = any(n < 0 for n in left.values())
    extra = +left - keys(optional)
    if not missing and not extra:
        return None
    return f"its effects are stored as {_words(stored)} but the rules give {_words(expected)}"


_encode = msgspec.json.encode


def canonical(value: Any) -> str:
    import json

    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _words(effects: Sequence[Effect]) -> str:
    return ", ".join(e.words() for e in effects) or "none"
