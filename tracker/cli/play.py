"""Commands of play: roll, spend, gain, threat, stress, conditions, HP/FP, points, notes, status
and obligations. Each parses, calls one handler, and prints what happened at a glance."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import click
import msgspec

from tracker.app.declared import (
    CONDITION_CLEAR,
    CONDITION_SET,
    CONTEST,
    DISMISS,
    NOTE,
    ROLL,
    STRESS,
    run,
    track_command,
)
from tracker.cli.declared import BySystem, make_command, readers, with_systems
from tracker.cli.options import NumberArgs, emit_json, open_tracker, output_options
from tracker.cli.render import (
    BAD,
    GOOD,
    MIXED,
    TRACK_WORDS,
    TerminalStyle,
    bold,
    by_margin,
    condition_began,
    condition_ended,
    dice_words,
    dim,
    lasting,
    local_time,
    printable,
    track_word,
    warn,
)
from tracker.systems import registry
from tracker.systems.base import RuleSystem
from tracker.systems.capabilities import Obligations, OwnWords, Stress, able
from tracker.systems.commands import Argument, Command, Option


def outcome_word(outcome: str, rules: RuleSystem) -> str:
    """An outcome's words in the colour of how it reads in the campaign's system."""
    return TerminalStyle(rules).outcome(outcome)


def signed(n: int) -> str:
    return f"{n:+d}"


def show_logged(logged, as_json: bool, lines: list[str]) -> None:
    """Print a logged command: its lines, then the obligations it opened and discharged."""
    if as_json:
        emit_json(logged.doc)
        return
    for line in lines:
        click.echo(line)
    for ob in [*logged.opened, *logged.raised]:
        click.echo(warn(ob.what))
    for line in done_lines(logged.discharged, logged.state.rules):
        click.echo(line)


def done_lines(
    discharged: Iterable[Any], rules: RuleSystem, otherwise: Callable[[str], str] = str
) -> list[str]:
    """The lines saying obligations were discharged, in the words their system has for each
    kind (``Obligations.obligations``), else their kind worded by ``otherwise``; none for one met
    as the lines before say already. Alike ones are said once with their count: a panic that
    answers three catastrophes' checks is done three times over, not three lines."""
    counted: dict[str, int] = {}
    for ob in discharged:
        said = able(rules, Obligations).obligations.get(ob.kind)
        if said is not None and said.done is None:
            continue
        line = f"  done: {said.done if said is not None else otherwise(ob.kind)} ({ob.how})"
        counted[line] = counted.get(line, 0) + 1
    return [dim(f"{line}{'' if n == 1 else f', {n} times'}.") for line, n in counted.items()]


def act(path: tuple[str, ...], as_json: bool, **given: Any) -> None:
    """Run the campaign's system's own command at ``path`` with ``given`` arguments and options,
    and print it as that system words it (``SystemCommand.render``)."""
    logged = open_tracker().acting.run(path, **given)
    rules = logged.state.rules
    render = None if as_json else registry.command(rules, path, given).render
    show_logged(logged, as_json, render(logged.doc, CommandTerminal(rules)) if render else [])


class CommandTerminal(TerminalStyle):
    """The terminal as a system's command words its document (``tracker.systems.base.Terminal``):
    a roll, a contest's side and effects worded as the core's own commands word them."""

    def roll_lines(self, doc: dict[str, Any]) -> list[str]:
        return render_roll(doc, self.rules)

    def contest_line(self, side: dict[str, Any]) -> str:
        return _contest_side(side, self.rules)

    def effect_words(self, effects: list[dict[str, Any]], who: str) -> list[str]:
        return effect_words(effects, who, self.rules)


# -- roll -----------------------------------------------------------------------------------------


def _roll_declared(declared: Command, system: str | None = None) -> Command:
    """``tracker roll`` as every installed system (or ``system`` alone) words its help and
    examples, with every system's options."""
    from tracker.systems import registry

    systems = [s for s in registry.systems() if system in (None, s.name)]
    examples = "\n".join(f"  {line}" for s in systems for line in able(s, OwnWords).roll_examples)
    said = [h for s in systems if (h := able(s, OwnWords).roll_help)]
    shown = [f"\b\nExamples:\n{examples}"] if examples else []
    worded = "\n\n".join([declared.help, *said, *shown])
    whole = msgspec.structs.replace(declared, help=worded)
    return with_systems(whole, "roll_options", before="--secret")


def _roll(as_json: bool, **values: Any) -> None:
    logged = run(open_tracker(), ROLL.path, values)
    show_logged(logged, as_json, render_roll(logged.doc, logged.state.rules))


roll = make_command(
    ROLL,
    _roll,
    cls=BySystem,
    reads=lambda: readers("roll_options"),
    later=_roll_declared,
    helped=lambda system: _roll_help(system),
)


def _roll_help(system: str) -> str | None:
    """``tracker roll``'s help in a campaign of ``system``: its paragraphs and examples alone,
    so that none shows an option it would refuse; None when it is not installed."""
    from tracker.systems import registry

    if system not in registry.names():
        return None
    return _roll_declared(ROLL, system).help


def render_roll(doc: dict[str, Any], rules: RuleSystem) -> list[str]:
    """A logged roll as its system words it, then its effects, notes and what followed it."""
    shown = rules.render_roll(doc, TerminalStyle(rules))
    secret = dim(" (secret)") if doc.get("secret") else ""
    effects = effect_words(doc.get("effects", []), doc["character"], rules)
    lines = [shown.head + secret, shown.dice + ("   " + "  ".join(effects) if effects else "")]
    lines += [dim(f"  {n}") for n in doc.get("notes", [])]
    return [*lines, *shown.after]


def effect_words(effects: list[dict[str, Any]], who: str, rules: RuleSystem) -> list[str]:
    """Each effect of a document in words: the system's own (``OwnWords.effect_said``), else
    tracker's."""
    words = []
    for e in effects:
        track = e.get("track")
        said = able(rules, OwnWords).effect_said(e, who)
        if said is not None:
            words.append(said)
        elif track and e.get("untracked"):
            name = TRACK_WORDS[track]
            cause = f" of {e['cause']}" if e.get("cause") else ""
            words.append(f"{-e['delta']} {name}{cause}, not applied: {who}'s sheet has no {name}")
        elif track and "after" in e:
            # A currency of the system's own (``Folding.currencies``): where it went, and what
            # went past its top.
            lost = f", {e['lost']} lost past the top" if e.get("lost") else ""
            words.append(f"{signed(e['delta'])} {track_word(track)} ({e['after']}{lost})")
        elif track:
            cause = f" ({e['cause']})" if e.get("cause") else ""
            words.append(f"{signed(e['delta'])} {track_word(track)}{cause}")
        elif "condition" in e:
            words.append(condition_began(e["condition"], e.get("duration"), e.get("unit")))
        elif "stat_change" in e:
            words.append(f"{e['stat_change']} {signed(e['delta'])} for good")
    return words


# -- currencies -----------------------------------------------------------------------------------


def _stress(as_json: bool, **values: Any) -> None:
    logged = run(open_tracker(), STRESS.path, values)
    d = logged.doc
    said = able(logged.state.rules, Stress).stress_said
    words = f" ({'; '.join(said.get(w, w) for w in d['effects'])})" if d["effects"] else ""
    show_logged(logged, as_json, [f"{d['character']} stress {d['before']} → {d['after']}{words}."])


stress = make_command(STRESS, _stress, cls=NumberArgs)


def _track_command(track: str) -> click.Command:
    def command(as_json: bool, **values: Any) -> None:
        logged = run(open_tracker(), (track,), values)
        d = logged.doc
        line = f"{d['character']} {track.upper()} {d['before']} → {d['after']} of {d['max']}."
        show_logged(logged, as_json, [line, *(warn(n) for n in d.get("notes", []))])

    return make_command(track_command(track), command, cls=NumberArgs)


hp = _track_command("hp")
fp = _track_command("fp")


@click.group("condition")
def condition() -> None:
    """Set and clear conditions (stunned, panicked, a wound...)."""


def _condition_set(as_json: bool, **values: Any) -> None:
    logged = run(open_tracker(), CONDITION_SET.path, values)
    d = logged.doc
    # "Vora: broken arm", not "Vora is broken arm": a condition may be a state or a thing.
    held = f"{d['character']}: {d['condition']}{lasting(d['duration'], d['unit'])}."
    show_logged(logged, as_json, [held])


def _condition_clear(as_json: bool, **values: Any) -> None:
    logged = run(open_tracker(), CONDITION_CLEAR.path, values)
    d = logged.doc
    show_logged(logged, as_json, [condition_ended(d["character"], d["condition"]) + "."])


condition.add_command(make_command(CONDITION_SET, _condition_set))
condition.add_command(make_command(CONDITION_CLEAR, _condition_clear))


def _note(as_json: bool, **values: Any) -> None:
    logged = run(open_tracker(), NOTE.path, values)
    show_logged(logged, as_json, [dim(f"Noted (event {logged.doc['version']}).")])


note = make_command(NOTE, _note)


# -- obligations ----------------------------------------------------------------------------------


@click.group("obligations", invoke_without_command=True)
@click.option("--all", "show_all", is_flag=True, help="Also the recently discharged ones.")
@output_options
@click.pass_context
def obligations(ctx: click.Context, show_all: bool, as_json: bool) -> None:
    """List what the rules say the GM owes next, each with the event that opened it."""
    if ctx.invoked_subcommand is not None:
        return
    state, owed = open_tracker().campaigns.obligations()
    done = list(state.discharged) if show_all else []
    if as_json:
        doc = {"obligations": [o.to_dict() for o in owed]}
        if show_all:
            doc["discharged"] = [o.to_dict() for o in done]
        emit_json(doc)
        return
    for ob in done:
        click.echo(
            dim(
                f"    [{ob.id}] {ob.what} (event {ob.opened_version} → "
                f"{ob.discharged_version}: {ob.how})"
            )
        )
    if not owed:
        click.echo("Nothing is owed.")
    for ob in owed:
        mark = click.style("NOW", fg=BAD, bold=True) if ob.severity == "immediate" else "   "
        click.echo(f"{mark} [{ob.id}] {ob.what} {dim(f'(since event {ob.opened_version})')}")


def _dismiss_declared(declared: Command) -> Command:
    from tracker.systems import registry

    waived = next(
        (
            said.waived
            for system in registry.systems()
            for said in able(system, Obligations).obligations.values()
            if said.waived
        ),
        None,
    )
    what, reason = waived or ("one the rules leave to the GM", "not called for")
    worded = (
        f"Waive an obligation ({what}), with a reason.\n\n\b\nExample:\n"
        f'  tracker obligations dismiss 19 --reason "{reason}"'
    )
    return msgspec.structs.replace(declared, help=worded)


def _dismiss(as_json: bool, **values: Any) -> None:
    logged = run(open_tracker(), DISMISS.path, values)
    show_logged(logged, as_json, [f"Dismissed [{values['obligation']}]."])


obligations.add_command(make_command(DISMISS, _dismiss, cls=NumberArgs, later=_dismiss_declared))


STATUS = Command(
    ("status",),
    """The campaign at a glance, or one character's tracks.

    \b
    Examples:
      tracker status
      tracker status Wren --json
      tracker status --as-of 118            as it stood after event 118
      tracker status --as-of "2026-11-29 21:30"
      tracker status --receipt               a receipt players keep against a cut log
    """,
    arguments=(Argument("character", required=False, complete="characters"),),
    options=(
        Option("--as-of", "The GM's state as it stood at an event or time.", metavar="EVENT|TIME"),
        Option(
            "--player-view", "As the players know it now, without --as-of: no secret rolls.", "bool"
        ),
        Option("--receipt", "Print a receipt of the log's head for the players.", "bool"),
    ),
)


def _status(
    character: str | None, as_of: str | None, player_view: bool, receipt: bool, as_json: bool
) -> None:
    tracker = open_tracker()
    if as_of and player_view:
        raise click.UsageError("give --as-of or --player-view, not both")
    if receipt:
        from tracker.events.receipt import receipt as receipt_of

        state, version, head = tracker.campaigns.receipt_head()
        kept = receipt_of(state.campaign_id, version, head)
        if as_json:
            emit_json({"campaign": state.name, "version": version, "receipt": str(kept)})
        else:
            click.echo(str(kept))
        return
    if player_view:
        state = tracker.campaigns.player_state()
        ch = tracker.character(character, state, retired_ok=True) if character else None
    elif as_of:
        state, at = tracker.history.as_of(as_of)
        ch = tracker.character(character, state, retired_ok=True) if character else None
        if not as_json:
            click.echo(dim(f"As of event {at.version} ({local_time(at.recorded_at)}):"))
    else:
        state, ch = tracker.campaigns.status(character)
    if ch is not None:
        doc = ch.tracks(state.rules)
        if as_json:
            emit_json(doc)
            return
        click.echo(character_line(doc, state.rules))
        for line in lasting_lines(doc, state.rules):
            click.echo(line)
        return
    if as_json:
        emit_json(state.summary())
        return
    session = f"session {state.current_session}" if state.current_session else "no session running"
    head = f"{bold(printable(state.name))} ({state.system}) · {session} · {state.version:,} events"
    click.echo(head + state.rules.folding.headline(state))
    for ch in state.characters.values():
        click.echo("  " + character_line(ch.tracks(state.rules), state.rules))
    for ob in sorted(state.obligations.values(), key=lambda o: o.opened_version):
        click.echo(warn(ob.what))


status = make_command(STATUS, _status)


def character_line(t: dict[str, Any], rules: RuleSystem) -> str:
    """A character's tracks in one line: those every system keeps, and the system's own where
    it puts them (``Folding.status_parts``)."""
    conditions = ", ".join(
        c["name"] + (f" (±{c['modifier']})" if c.get("modifier") else "") for c in t["conditions"]
    )
    retired = t.get("retired_at")
    parts: dict[str, str | None] = {
        "name": bold(printable(t["name"])),
        "stress": f"stress {t['stress']}" if "stress" in t else None,
        "hp": f"HP {t['hp']}/{t['hp_max']}" if "hp" in t else None,
        "fp": f"FP {t['fp']}/{t['fp_max']}" if "fp" in t else None,
        "conditions": conditions or None,
        "retired": dim(f"retired at event {retired}") if retired is not None else None,
    }
    parts = rules.folding.status_parts(t, parts, TerminalStyle(rules))
    return " · ".join(part for part in parts.values() if part)


def lasting_lines(t: dict[str, Any], rules: RuleSystem) -> list[str]:
    """What play has left on a character for good, one line each, as ``character show`` says
    it: the one-line summary has no room for them, and ``--json`` has them all."""
    return [printable(line) for line in rules.folding.status_lines(t)]


# -- contests, fright checks, panic, projects -----------------------------------------------------


class _ContestCommand(NumberArgs, BySystem):
    """A contest: an opponent's score may be typed negative, and its help and Tab offer the
    options the campaign's system reads."""


def _contest(as_json: bool, **values: Any) -> None:
    b, trait_a, trait_b = values["b"], values["trait_a"], values["trait_b"]
    logged = run(open_tracker(), CONTEST.path, values)
    d = logged.doc
    other = d["b"]["character"] if d["b"] else b
    head = f"{bold(d['a']['character'])} · {trait_a} vs {bold(other)} · {trait_b} · {d['mode']}"
    if d.get("secret"):
        head += dim(" (secret)")
    rules = logged.state.rules
    sides = [_contest_side(d["a"], rules)]
    sides.append(_contest_side(d["b"], rules) if d["b"] else f"{b}: did not need to roll")
    if d["winner"] is None:
        verdict = click.style("stalemate", fg=MIXED, bold=True)
    else:
        verdict = click.style(f"{d['winner']} wins", fg=GOOD, bold=True)
    if d.get("margin_of_victory"):
        verdict += f" by {d['margin_of_victory']}"
    if d["mode"] == "regular":
        verdict = f"round {d['round']}: " + (verdict if d["decided"] else "no change, roll again")
    remarks = able(rules, OwnWords).roll_remarks(logged.event.data)
    if remarks:
        verdict += dim(f" ({'; '.join(remarks)})")
    notes = [dim(f"  {n}") for n in d.get("notes", [])]
    show_logged(logged, as_json, [head, "  " + "   ".join(sides), "  → " + verdict, *notes])


contest = make_command(
    CONTEST,
    _contest,
    cls=_ContestCommand,
    reads=lambda: readers("contest_options"),
    later=lambda c: with_systems(c, "contest_options", before="--seed"),
)


def _contest_side(side, rules: RuleSystem) -> str:
    dice = dice_words(side["dice"], side["kept"], rules)
    verdict = by_margin(outcome_word(side["outcome"], rules), side["success"], side.get("margin"))
    named = able(rules, OwnWords).dice_name
    return f"{side['character']} ({side['effective']}): {named} {dice} → {verdict}"


COMMANDS = [
    contest,
    roll,
    stress,
    hp,
    fp,
    condition,
    note,
    obligations,
    status,
]
