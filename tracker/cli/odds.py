"""``tracker odds``: exact probabilities of every outcome, for people and for scripts."""

from __future__ import annotations

from fractions import Fraction

import click

from tracker.cli.options import emit_json
from tracker.cli.render import BAD, GOOD, MIXED, bold

COLOURS = {
    "perfect": GOOD,
    "special": GOOD,
    "success": GOOD,
    "complication": MIXED,
    "undershoot": BAD,
    "overshoot": BAD,
    "catastrophe": BAD,
    "critical_success": GOOD,
    "failure": BAD,
    "critical_failure": BAD,
    "strong_hit": GOOD,
    "weak_hit": MIXED,
    "miss": BAD,
    "a": GOOD,
    "b": BAD,
    "stalemate": MIXED,
}
BAR = 30


@click.group("odds")
def odds() -> None:
    """Exact chances of every outcome, computed from every way the dice can fall."""


def _json_option(fn):
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")(fn)


def _show(result, title: str, labels: dict[str, str] | None = None) -> None:
    click.echo(bold(title))
    labels = labels or {}
    for name, p in result.outcomes.items():
        label = labels.get(name, name.replace("_", " "))
        bar = "█" * round(float(p) * BAR)
        click.echo(
            f"  {click.style(f'{label:<16}', fg=COLOURS.get(name))} {float(p):>7.2%}  "
            f"{_fraction(p):>9}  {bar}"
        )
    if result.success is not None:
        click.echo(f"  {'success in all':<16} {float(result.success):>7.2%}")
    for name, p in result.extras.items():
        shown = f"{float(p):.3f}" if name.startswith("expected") else f"{float(p):.2%}"
        click.echo(f"  {name.replace('_', ' '):<16} {shown:>7}")


def _fraction(p: Fraction) -> str:
    return "0" if p == 0 else "1" if p == 1 else f"{p.numerator}/{p.denominator}"


@odds.command("gloom")
@click.option("--rank", type=int, required=True, help="Skill or attribute rank.")
@click.option("--dl", type=int, default=0, show_default=True, help="Difficulty level (floor).")
@click.option("--advantage", is_flag=True, help="Roll 2d20, keep the best (automatic at 21+).")
@click.option("--disadvantage", is_flag=True, help="Roll 2d20, keep the worst.")
@click.option("--vs", "vs", type=int, metavar="RANK", help="Contested: the defender's rank.")
@click.option("--vs-dl", type=int, default=0, help="Contested: the defender's DL.")
@click.option("--vs-advantage", is_flag=True, help="Contested: the defender has advantage.")
@click.option("--vs-disadvantage", is_flag=True, help="Contested: the defender has disadvantage.")
@click.option("--dynamic", is_flag=True, help="Contested: the defender's die sets the floor.")
@click.option("--tie-rule", type=click.Choice(["stat", "defender"]), default="stat")
@_json_option
def odds_gloom(
    rank,
    dl,
    advantage,
    disadvantage,
    vs,
    vs_dl,
    vs_advantage,
    vs_disadvantage,
    dynamic,
    tie_rule,
    as_json,
) -> None:
    """Gloom: each outcome of a check, or who wins a contested roll.

    \b
    Examples:
      tracker odds gloom --rank 14 --dl 5
      tracker odds gloom --rank 16 --vs 14
      tracker odds gloom --rank 18 --vs 14 --dynamic
      tracker odds gloom --rank 14 --vs 16 --vs-advantage
    """
    from tracker.systems.gloom import odds as exact
    from tracker.systems.gloom import rules as gloom

    if vs is None:
        result = exact.check(rank, dl, advantage=advantage, disadvantage=disadvantage)
        title = f"Gloom · rank {rank} · DL {dl} · {_gloom_dice(result.details['mode'])}"
        window = gloom.window(rank, dl)
        if as_json:
            emit_json({**result.to_dict(), "window": window.to_dict()})
            return
        _show(result, title)
        for note in window.notes:
            click.echo(click.style(f"  ! {note}", fg=MIXED))
        return
    modes = {
        "a_advantage": advantage,
        "a_disadvantage": disadvantage,
        "b_advantage": vs_advantage,
        "b_disadvantage": vs_disadvantage,
    }
    if dynamic:
        result = exact.dynamic(rank, vs, base_dl=dl, defender_dl=vs_dl, **modes)
        title = f"Gloom dynamic floor · attacker {rank} vs defender {vs}"
    else:
        result = exact.contest(rank, vs, a_dl=dl, b_dl=vs_dl, tie_rule=tie_rule, **modes)
        title = f"Gloom contested roll · {rank} vs {vs} · ties: {tie_rule}"
    if as_json:
        emit_json(result.to_dict())
        return
    _show(result, title, {"a": "attacker wins", "b": "defender wins"})


def _gloom_dice(mode: str) -> str:
    return {"normal": "one d20", "advantage": "2d20 keep best", "disadvantage": "2d20 keep worst"}[
        mode
    ]


@odds.command("gurps")
@click.option("--skill", type=int, required=True, help="Effective skill (or Will for --fright).")
@click.option("--mod", "mods", type=int, multiple=True, metavar="N", help="A modifier to add.")
@click.option("--vs", "vs", type=int, metavar="N", help="Contest: the other side's skill.")
@click.option(
    "--contest",
    type=click.Choice(["quick", "resistance", "regular"]),
    default="quick",
    show_default=True,
)
@click.option("--supernatural", is_flag=True, help="Resistance: apply the Rule of 16.")
@click.option("--fright", is_flag=True, help="A Fright Check: --skill is Will (Rule of 14).")
@_json_option
def odds_gurps(skill, mods, vs, contest, supernatural, fright, as_json) -> None:
    """GURPS: each outcome of a 3d6 success roll, a contest, or a Fright Check.

    \b
    Examples:
      tracker odds gurps --skill 12
      tracker odds gurps --skill 14 --vs 12
      tracker odds gurps --skill 18 --vs 12 --contest resistance --supernatural
      tracker odds gurps --skill 15 --fright --mod -2
    """
    from tracker.systems.gurps import odds as exact

    effective = skill + sum(mods)
    if fright:
        result = exact.fright(skill, sum(mods))
        d = result.details
        title = f"GURPS Fright Check · Will {d['modified_will']} → {d['effective']} (Rule of 14)"
    elif vs is None:
        result = exact.success_roll(effective)
        title = f"GURPS success roll · effective skill {effective}"
    elif contest == "quick":
        result = exact.quick_contest(effective, vs)
        title = f"GURPS Quick Contest · {effective} vs {vs}"
    elif contest == "resistance":
        result = exact.resistance(effective, vs, supernatural=supernatural)
        title = f"GURPS Resistance Roll · {result.details['effective']} vs {vs}"
    else:
        result = exact.regular_contest(effective, vs)
        d = result.details
        title = f"GURPS Regular Contest · {d['a_normalised']} vs {d['b_normalised']}"
    if as_json:
        emit_json(result.to_dict())
        return
    _show(result, title, {"a": "active side wins", "b": "other side wins"})
    if fright:
        click.echo("  fright table rows on a failure (share of all checks):")
        for row, p in result.details["rows"].items():
            click.echo(f"    {row:>3}: {p:7.2%}")


@odds.command("glintlock")
@click.option("--stat", type=int, required=True, help="The stat rolled.")
@click.option("--trained", is_flag=True, help="Trained: the stat counts +1.")
@click.option("--tags", type=int, default=1, show_default=True, help="Net tags (sets position).")
@click.option("--bonus", type=int, default=0, help="Added to the kept die (steel yourself: 2).")
@_json_option
def odds_glintlock(stat, trained, tags, bonus, as_json) -> None:
    """Glintlock: each outcome at the position the net tags give.

    \b
    Example:
      tracker odds glintlock --stat 3 --trained --tags 2
    """
    from tracker.systems.glintlock import odds as exact

    result = exact.check(stat, trained=trained, tags=tags, bonus=bonus)
    if as_json:
        emit_json(result.to_dict())
        return
    d = result.details
    title = (
        f"Glintlock · stat {stat}{' trained' if trained else ''} · {d['position']} "
        f"(net tags {tags:+d}) · Weak DC {d['weak_dc']} · Strong DC {d['strong_dc']}"
    )
    _show(result, title)


COMMANDS = [odds]
