"""GURPS as tracker plays it: what the rest of tracker asks of the system."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from tracker.systems.acts import SystemCommand
from tracker.systems.base import (
    CharacterView,
    DemoEvening,
    Folding,
    ObligationKind,
    OddsCommand,
    RollRequest,
    RuleSystem,
    later,
)
from tracker.systems.capabilities import (
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
    SheetImport,
    SheetRules,
    SkillDefaults,
    Thresholds,
)
from tracker.systems.commands import Option, Setting, option_values
from tracker.systems.gurps import options

# What the system does is imported when a campaign of it is played (``later``).
PLAY = "tracker.systems.gurps.play"
WORDS = "tracker.systems.gurps.words"

# Basic Set: a sheet without these starts them at the attribute they derive from.
DERIVED_STATS = (("HP", "ST"), ("FP", "HT"), ("Will", "IQ"), ("Per", "IQ"))


class Gurps(
    RuleSystem,
    Contests,
    Currencies,
    Thresholds,
    Obligations,
    Conditions,
    SheetRules,
    SkillDefaults,
    SheetImport,
    Movement,
    Provenance,
    OddsTables,
    OwnCommands,
    OwnSettings,
    OwnWords,
):
    """GURPS: 3d6 roll-under success rolls, contests and fright checks (GURPS)."""

    name: ClassVar[str] = "gurps"
    title: ClassVar[str] = "GURPS"
    roll_options: ClassVar[tuple[Option, ...]] = options.ROLL
    contest_options: ClassVar[tuple[Option, ...]] = options.CONTEST
    settings: ClassVar[tuple[Setting, ...]] = options.SETTINGS
    spend_kinds: ClassVar[tuple[str, ...]] = ("buy-up",)
    derived: ClassVar[tuple[tuple[str, str], ...]] = DERIVED_STATS
    folding: ClassVar[Folding] = later("tracker.systems.gurps.folding:FOLDING")
    event_words = later(f"{WORDS}:EVENT_WORDS")
    # Declared apart and read only by what lists or runs a system's commands: a roll reads none.
    commands: ClassVar[tuple[SystemCommand, ...]] = later("tracker.systems.gurps.declared:COMMANDS")
    obligations: ClassVar[Mapping[str, ObligationKind]] = later(
        "tracker.systems.gurps.folding:OBLIGATIONS"
    )
    detail_column: ClassVar[str] = "Margin"
    outcome_tones: ClassVar[Mapping[str, str]] = {
        "critical_success": "good",
        "success": "good",
        "failure": "bad",
        "critical_failure": "bad",
    }
    critical_outcomes: ClassVar[frozenset[str]] = frozenset(
        {"critical_success", "critical_failure"}
    )
    dice_name: ClassVar[str] = "3d6"
    dice_join: ClassVar[str] = "+"
    roll_help: ClassVar[str] = (
        "GURPS sense rolls (Vision, Hearing, Taste, Smell) are against Per and secret unless "
        "--public; Lockpicking, Climbing and Swimming default to IQ-5, DX-5 and HT-4 unless the "
        "sheet lists a default of its own, and a failed Swimming roll costs 1 FP."
    )
    roll_examples: ClassVar[tuple[str, ...]] = (
        "tracker roll Mira Lockpicking --mod -2:darkness --dice 3,4,1",
        "tracker roll Mira Vision --mod darkness:3 --danger",
        "tracker roll Aldric Hearing --mod hearing:normal-conversation@4",
        "tracker roll Vora HT --feat running",
    )
    roll_columns: ClassVar[tuple[str, ...]] = ("margin",)
    score_range: ClassVar[tuple[int, int]] = (0, 40)
    sheet_stats: ClassVar[frozenset[str]] = frozenset({"st", "dx", "iq", "ht"})

    def check_default(self, expression: str) -> None:
        from tracker.systems.gurps.rules.defaults import parse_default

        parse_default(expression)

    def check_default_for(self, skill: str, expression: str, character: str | None = None) -> None:
        from tracker.systems.gurps.rules.defaults import check_default_for

        check_default_for(skill, expression, character)

    def rolls_beyond_sheet(
        self, character: CharacterView
    ) -> list[tuple[str, list[tuple[str, int]]]]:
        """The four sense rolls, at Per with the Acute Senses bonus, and the skills she may roll
        at default, her sheet's defaults and the rulebook's (GURPS, 'Sense Rolls', 'Default
        Rolls')."""
        from tracker.systems.gurps.play import rolls_beyond_sheet

        return rolls_beyond_sheet(character)

    def foreign_sheet(self, data: Mapping[str, Any], source: str) -> Mapping[str, Any] | None:
        """A GCS character file (data versions 2 to 5) or a GURPS Game Aid actor export."""
        from tracker.systems.gurps import gcs

        return gcs.read(data, source) if gcs.recognise(data) else None

    def movement(self, character: CharacterView, running_yards: int = 0) -> dict[str, int] | None:
        """What Basic Move (``Move`` or ``Basic Move`` on the sheet) gives: the sprint and paced
        running (half the sprint), water Move, and the jumps, standing or after
        ``running_yards`` of run-up (GURPS, 'Running & Sprinting', 'Swimming', 'Jumping')."""
        move = character.stat("Basic Move")
        if move is None:
            move = character.stat("Move")
        if move is None:
            return None
        from tracker.systems.gurps.rules.feats import (
            broad_jump_feet,
            high_jump_inches,
            paced_move,
            sprint_move,
            water_move,
        )

        jumping = character.skill("Jumping")
        sprint = sprint_move(move)
        out = {
            "basic_move": move,
            "sprint_move": sprint,
            "paced_move": paced_move(sprint),
            "water_move": water_move(move),
            "high_jump_inches": high_jump_inches(move, jumping_skill=jumping),
            "broad_jump_feet": broad_jump_feet(move, jumping_skill=jumping),
        }
        if running_yards:
            out["running_yards"] = running_yards
            out["running_high_jump_inches"] = high_jump_inches(
                move, running_yards, jumping_skill=jumping
            )
            out["running_broad_jump_feet"] = broad_jump_feet(
                move, running_yards, jumping_skill=jumping
            )
        return out

    def track_floor(self, track: str, top: int | None) -> int:
        # HP may fall to -5 x HP (death), FP to -FP (unconsciousness).
        if top is None:
            return 0
        return -5 * top if track == "hp" else -top

    def track_notes(self, track: str, asked: int, after: int, top: int) -> list[str]:
        """HP past -HP, and HP or FP at the lowest tracker keeps, said when reached.

        GURPS names no HP or FP thresholds: HP appears only as a loss ('Extra Effort':
        "Critical failure causes HP loss equal to the FP cost of the attempt"; 'Fright Check
        Results': "Faint; roll vs. HT — failure means 1 HP of injury as you collapse") and FP
        the same way ('Swimming': "Failure means you inhale water and lose 1 FP"). So no
        rulebook state is named here: the line says only where the value stands against the
        limits tracker keeps (HP down to -5×HP, FP down to -FP, ``track_floor``), that a
        change past them was cut there, and that what the value means is the GM's to rule.
        """
        name = track.upper()
        floor = self.track_floor(track, top)
        ruling = f"the GURPS rulebook gives no {name} thresholds, so what it means is the GM's call"
        if after <= floor and asked < floor:
            limit = "-5×HP" if track == "hp" else "-FP"
            return [
                f"{name} {after} is {limit}, as low as tracker keeps {name}: the change asked "
                f"for would have taken it to {asked}; {ruling}."
            ]
        if after == floor:
            limit = "-5×HP" if track == "hp" else "-FP"
            return [f"{name} {after} is {limit}, as low as tracker keeps {name}; {ruling}."]
        if track == "hp" and after <= -top:
            where = f"past -HP ({-top})" if after < -top else "at -HP"
            return [f"HP {after} is {where}; {ruling}."]
        return []

    decide_roll = later(PLAY, method=True)
    conditions_ruled = later(PLAY, method=True)
    redecide = later(PLAY)
    rolled_from = later(PLAY)
    priced = later(PLAY)
    at_stake = later(PLAY)
    roll_facts = later(PLAY)
    roll_remarks = later(WORDS)
    contest_said = later(WORDS)
    rolled = later(PLAY)
    chance = later(PLAY)
    decide_contest = later(PLAY, method=True)
    render_roll = later(WORDS)

    def odds_command(self) -> OddsCommand:
        from tracker.systems.gurps.words import ODDS

        return ODDS

    def demo(self) -> DemoEvening:
        from importlib import resources

        fixtures = resources.files("tracker.fixtures")
        return DemoEvening(
            campaign="Iron and Ink",
            title="The locked archive",
            sheets=tuple(
                fixtures / "sheets" / f"gurps-{name}.toml" for name in ("mira", "aldric", "vora")
            ),
            script=fixtures / "sessions" / "gurps.txt",
            tries=("tracker odds gurps --skill 12",),
            examples=(RollRequest("Lockpicking", options=option_values(options.ROLL)),),
        )
