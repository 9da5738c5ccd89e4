"""What the rest of tracker asks of a rule system, and the values it asks with.

A rule system is a ``RuleSystem``: its name and title, the features the table can use with it
(``Feature``: Mettle, Threat, fright checks, ...), its sheets' score range, how its tracks move,
and, from its own package, how it decides a roll or a contest, reads a stored one back, renders
its results and plays its demo evening. The built-in systems and any installed plugin are found
through the ``tracker.systems`` entry-point group (``tracker.systems.registry``).

A system sees the campaign only through the small protocols below (``CharacterView``,
``CampaignView``): it never imports the projections that build them, so the systems stay pure.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Protocol


class Feature(enum.StrEnum):
    """What a table can do with a system beyond rolling; commands check these, never a name.

    Each is named for the rulebook's concept; a command that needs one refuses a campaign whose
    system lacks it, naming the systems that have it.
    """

    STRESS = "stress"
    METTLE = "mettle"
    THREAT = "threat"
    STORY_TAGS = "story tags"
    BREAKING_POINT = "breaking point"
    CONTESTS = "contests"
    PANIC_CHECKS = "panic checks"
    DEFAULTS = "skill defaults"
    CHARACTER_POINTS = "character points"
    SENSE_ROLLS = "sense rolls"
    FRIGHT_CHECKS = "fright checks"
    INFLUENCE = "influence rolls"
    EXTRA_EFFORT = "extra effort"
    PROJECTS = "major projects"


class CharacterView(Protocol):
    """What a system reads of a character (the campaign projection's ``Character``)."""

    character_id: str
    name: str
    stats: Mapping[str, int]
    skills: Mapping[str, int]
    trained: Sequence[str]
    character_class: str | None
    defaults: Mapping[str, Sequence[str]]
    traits: Sequence[str]
    traits_gained: Sequence[Mapping[str, Any]]
    conditions: Mapping[str, Any]
    stress: int
    mettle: int
    points: int
    story_tags: Sequence[str]
    pending_bonus: int
    pending_steps: int
    pending_suppressed: Sequence[str]
    pending_ids: Sequence[str]
    tasks: Mapping[str, Mapping[str, Any]]

    def stat(self, key: str) -> int | None: ...

    def skill(self, key: str) -> int | None: ...

    def stat_name(self, key: str) -> str | None: ...

    def skill_name(self, key: str) -> str | None: ...

    def is_trained(self, key: str) -> bool: ...

    def has_trait(self, trait: str) -> bool: ...


class CampaignView(Protocol):
    """What a system reads of the campaign (the campaign projection's ``CampaignState``)."""

    system: str
    tie_rule: str
    cinematic: bool
    stress_limit: int
    threat: int

    @property
    def threat_floor(self) -> str: ...


class RuleSystem:
    """A rule system as tracker uses it. Subclass it, set the class attributes, override what
    the rulebook changes; the defaults are those of a system with no tracks of its own."""

    name: ClassVar[str]
    """The name campaigns store and commands take (``--system NAME``): lower case, one word."""
    title: ClassVar[str]
    """The name as people write it (GURPS)."""
    order: ClassVar[int] = 100
    """Where the system is listed among the others (built-in ones first)."""
    features: ClassVar[frozenset[Feature]] = frozenset()
    score_range: ClassVar[tuple[int, int]] = (0, 99)
    """What a stat or skill on a sheet can sensibly be; anything outside is a typo."""
    track_max: ClassVar[Mapping[str, int]] = {}
    """The top of each currency track the system keeps (Mettle and Threat stop at 6)."""
    outcome_tones: ClassVar[Mapping[str, str]] = {}
    """How each outcome reads at the table: "good", "mixed" (a success at a cost) or "bad"."""
    detail_column: ClassVar[str] = ""
    """The heading of the roll history's column for the detail a roll of this system has
    beyond its outcome (GURPS: the margin, Glintlock: the position); empty for none."""

    def __repr__(self) -> str:
        return f"<rule system {self.name}>"

    # A system is one object shared by every state that names it, never copied with one.
    def __copy__(self) -> RuleSystem:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> RuleSystem:
        return self

    def has(self, feature: Feature) -> bool:
        """Whether a table can use ``feature`` with this system."""
        return feature in self.features

    def tone(self, outcome: str) -> str:
        """How ``outcome`` reads: "good", "mixed" or "bad" (an outcome not listed is bad)."""
        return self.outcome_tones.get(outcome, "bad")

    # -- sheets --------------------------------------------------------------------------------

    def derived_stats(self, stats: Mapping[str, int]) -> dict[str, int]:
        """Stats a sheet that lists only some of them starts with (GURPS: HP from ST)."""
        return {}

    def check_default(self, expression: str) -> None:
        """Refuse a skill default the system cannot read (``Feature.DEFAULTS`` only)."""

    def movement(self, character: CharacterView) -> dict[str, int] | None:
        """What the character's movement allows (sprint, jumps), where the rules say."""
        return None

    def missing_trait_hint(self, character: CharacterView, trait: str) -> str | None:
        """A sentence for a trait the sheet lacks, when the rules can say what was meant."""
        return None

    # -- tracks --------------------------------------------------------------------------------

    def stress_limit(self, setting: int) -> int:
        """The top of the stress track, given the campaign's stress-limit setting."""
        return setting

    def stress_words(self, stress: int, limit: int) -> list[str]:
        """What a stress level means at the table, in a few words each."""
        return []

    def track_floor(self, track: str, top: int | None) -> int:
        """How low HP or FP can go below zero (GURPS: to death and unconsciousness)."""
        return 0

    def session_resets(self, threat_carries_over: bool) -> frozenset[str]:
        """The tracks a session start sets back to 0 ("mettle", "threat")."""
        return frozenset()

    def spending_floor(self, threat: int) -> str:
        """What the Threat level owes: "none", "owed" or "immediate" (``Feature.THREAT``)."""
        return "none"

    def breaking_point(self, stress: int) -> bool:
        """Whether stress has reached the breaking point (``Feature.BREAKING_POINT``)."""
        return False

    def next_roll(self, action: str) -> tuple[int, int]:
        """What a Mettle spend on ``action`` adds to the next roll: a bonus on the kept die and
        steps of better position (``Feature.METTLE``)."""
        return 0, 0
