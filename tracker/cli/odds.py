"""``tracker odds``: exact probabilities of every outcome, for people and for scripts.

There is one subcommand per installed rule system, built from what the system says its odds
take (``OddsTables.odds_command``): a system installed as a plugin gets its own at once.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import click

from tracker.cli.declared import make_command
from tracker.cli.options import emit_json
from tracker.cli.render import TONE_COLOURS, bold
from tracker.systems import registry
from tracker.systems.base import OddsCommand, OddsReport, RuleSystem
from tracker.systems.capabilities import OddsTables, able
from tracker.systems.commands import Command, Option
from tracker.words import outcome_words

# A contest's sides, however the system names its outcomes.
CONTEST_TONES = {"a": "good", "b": "bad", "stalemate": "mixed"}
BAR = 30


class OddsGroup(click.Group):
    """``tracker odds``, whose subcommands are the installed systems, made when first listed."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(
            s.name for s in registry.systems() if able(s, OddsTables).odds_command() is not None
        )

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        try:
            system = registry.get(cmd_name)
        except registry.UnknownSystem:
            return None
        spec = able(system, OddsTables).odds_command()
        return None if spec is None else _command(system, spec)


@click.group("odds", cls=OddsGroup)
def odds() -> None:
    """Exact chances of every outcome, computed from every way the dice can fall."""


_JSON = Option("--json", "Print one JSON document.", "bool", dest="as_json")


def _command(system: RuleSystem, spec: OddsCommand) -> click.Command:
    def run(as_json: bool, **options: Any) -> None:
        report = spec.compute(**options)
        if as_json:
            emit_json(report.document)
            return
        _show(system, report)

    declared = Command(("odds", system.name), spec.help, options=(*spec.options, _JSON))
    return make_command(declared, run, output=False)


def _show(system: RuleSystem, report: OddsReport) -> None:
    result = report.odds
    click.echo(bold(report.title))
    # Every chance over one denominator, so "13/54" and "1/18" need no arithmetic to compare.
    over = math.lcm(*(Fraction(p).denominator for p in result.outcomes.values()))
    ways = [_ways(p, over) for p in result.outcomes.values()]
    if result.success is not None:
        ways.append(_ways(result.success, over))
    width = max(len(w) for w in ways)
    for name, p in result.outcomes.items():
        label = report.labels.get(name, outcome_words(name))
        tone = report.tones.get(name) or CONTEST_TONES.get(name) or system.tone(name)
        bar = "█" * round(float(p) * BAR)
        click.echo(
            f"  {click.style(f'{label:<16}', fg=TONE_COLOURS[tone])} {float(p):>7.2%}  "
            f"{_ways(p, over):>{width}}  {bar}"
        )
    if result.success is not None:
        click.echo(
            f"  {'success in all':<16} {float(result.success):>7.2%}  "
            f"{_ways(result.success, over):>{width}}"
        )
    wide = max((len(name) for name in result.extras), default=0)
    for name, p in result.extras.items():
        shown = f"{float(p):.3f}" if name.startswith("expected") else f"{float(p):.2%}"
        click.echo(f"  {name.replace('_', ' '):<{max(16, wide)}} {shown:>7}")
    for note in report.notes:
        click.echo(click.style(f"  ! {note}", fg=TONE_COLOURS["mixed"]))
    for line in report.lines:
        click.echo(line)


def _ways(p: Fraction, over: int) -> str:
    """``p`` as a count of ``over`` equally likely ways: ``39/54``."""
    return f"{Fraction(p) * over}/{over}"


COMMANDS = [odds]
