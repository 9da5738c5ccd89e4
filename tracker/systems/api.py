"""Every name a rule system written as a package of its own may use, in one place.

An outside system imports these, from here or from the module each is defined in (the same
object either way), and nothing else of tracker: ``tracker/systems/REFERENCE.md`` documents
each of them, made from their docstrings (``tracker.systems.reference``), and a test fails when
a name here has no docstring, a member of one has none, or a name is missing from the
reference. The example system in ``tracker.systems.example`` imports from here alone.

Nothing in tracker imports this module: it is for a system's author, and for the tests that
hold the reference to it.
"""

from __future__ import annotations

from tracker.errors import BadInput, DiceError, NotFound, Refused, TrackerError
from tracker.events.catalog import EventPayload, event_type
from tracker.events.effects import (
    ConditionApplied,
    Effect,
    ObligationOpened,
    StatChanged,
    TrackChange,
    effect_shape,
    effects_text,
)
from tracker.events.envelope import StoredEvent
from tracker.events.play import ContestRolled, ContestSide, RollMade
from tracker.systems.acts import Acted, Entry, SystemCommand, Table, done_by
from tracker.systems.base import (
    CONTEST_OPTIONS,
    ROLL_OPTIONS,
    SECRET,
    SEED,
    CampaignFold,
    CampaignView,
    CharacterFold,
    CharacterView,
    ContestDecision,
    ContestRequest,
    DemoEvening,
    Feature,
    Folding,
    Handler,
    ObligationKind,
    ObligationView,
    OddsCommand,
    OddsOption,
    OddsReport,
    Part,
    Precondition,
    RollDecision,
    Rolled,
    RollFacts,
    RollKind,
    RollLines,
    RollRequest,
    RuleSystem,
    Side,
    Style,
    Terminal,
    TrackChart,
    condition_named,
    contest_roll_doc,
    contest_side,
    effects_differ,
    later,
    placed,
    side_verdict,
)
from tracker.systems.capabilities import (
    Capability,
    Conditions,
    Contests,
    Currencies,
    Movement,
    Obligations,
    OddsTables,
    OwnCommands,
    OwnSettings,
    OwnWords,
    Provenance,
    RollKinds,
    SheetImport,
    SheetRules,
    SkillDefaults,
    Stress,
    Thresholds,
    able,
    capabilities,
    trait_value,
)
from tracker.systems.commands import (
    NO_TABLE,
    Argument,
    Command,
    Kind,
    Option,
    Setting,
    option_values,
)
from tracker.systems.dice import DiceSource
from tracker.systems.odds import Odds, distribution, faces

# In the reference's order: the system, its capabilities, its rolls, its state, its commands,
# its events, the helpers and the errors.
__all__ = [  # noqa: RUF022 (the reference's order, not the alphabet's)
    # the system
    "RuleSystem",
    "Feature",
    "later",
    "DemoEvening",
    "OddsCommand",
    "OddsOption",
    "OddsReport",
    "Odds",
    "distribution",
    "faces",
    # what a system may have beyond its core
    "Capability",
    "Contests",
    "Stress",
    "Currencies",
    "Thresholds",
    "Obligations",
    "Conditions",
    "SheetRules",
    "SkillDefaults",
    "SheetImport",
    "Movement",
    "RollKinds",
    "Provenance",
    "OddsTables",
    "OwnCommands",
    "OwnSettings",
    "OwnWords",
    "able",
    "capabilities",
    # what a system reads of the campaign
    "CharacterView",
    "CampaignView",
    "ObligationView",
    # rolls and contests
    "RollRequest",
    "RollDecision",
    "RollKind",
    "ROLL_OPTIONS",
    "ContestRequest",
    "ContestDecision",
    "Side",
    "CONTEST_OPTIONS",
    "SEED",
    "SECRET",
    "DiceSource",
    "RollFacts",
    "Rolled",
    "RollLines",
    "Style",
    "Terminal",
    # state, folds and obligations
    "Folding",
    "Part",
    "CampaignFold",
    "CharacterFold",
    "Handler",
    "Precondition",
    "TrackChart",
    "ObligationKind",
    "placed",
    # commands, options and settings
    "SystemCommand",
    "Table",
    "Acted",
    "Entry",
    "done_by",
    "Command",
    "Argument",
    "Option",
    "Kind",
    "option_values",
    "Setting",
    "NO_TABLE",
    # events and effects
    "StoredEvent",
    "EventPayload",
    "event_type",
    "RollMade",
    "ContestRolled",
    "ContestSide",
    "Effect",
    "TrackChange",
    "ConditionApplied",
    "ObligationOpened",
    "StatChanged",
    "effect_shape",
    "effects_text",
    # helpers
    "trait_value",
    "condition_named",
    "effects_differ",
    "contest_side",
    "contest_roll_doc",
    "side_verdict",
    # errors
    "TrackerError",
    "Refused",
    "NotFound",
    "BadInput",
    "DiceError",
]
