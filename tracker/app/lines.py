"""The log's one line for an event, in the GM's words: what `tracker log`, `tracker replay`,
the undo's list and the table's web pages all say of it, and the word helpers it is made from."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from tracker.errors import TrackerError
from tracker.events import catalog as c
from tracker.events import play as p
from tracker.events.catalog import Unreadable
from tracker.projections.player import Sealed
from tracker.systems import registry
from tracker.systems.capabilities import Contests, OwnWords, able
from tracker.words import outcome_words, plural

if TYPE_CHECKING:
    from tracker.systems.base import RollFacts, RuleSystem


def printable(text: str) -> str:
    """``text`` from the log as a terminal may show it: a control character (an escape
    sequence in an imported name, a line break) spelled as its escape instead of acted on."""
    from tracker.app.names import UNFIT

    return UNFIT.sub(lambda m: m[0].encode("unicode_escape").decode("ascii"), text)


def dice_words(dice: Sequence[int], kept: int | None, rules: RuleSystem) -> str:
    """Dice as the table reads them: ``3+4+5 = 12`` when they are added, ``15, 3 (kept 3)`` when one
    is kept, ``20`` alone."""
    shown = able(rules, OwnWords).dice_join.join(map(str, dice))
    if len(dice) > 1 and kept is not None:
        shown += f" = {kept}" if able(rules, OwnWords).dice_join == "+" else f" (kept {kept})"
    return shown


def facts_words(facts: RollFacts, rules: RuleSystem) -> str:
    """One rolled set of dice in a line of the log: ``at 16: 3+4+5 = 12 → success by 4``."""
    score = f" at {facts.effective}" if facts.effective is not None else ""
    verdict = facts.verdict or outcome_words(facts.outcome)
    return f"{score}: {dice_words(facts.dice, facts.kept, rules)} → {verdict}"


def is_state(name: str) -> bool:
    """Whether a condition's name is a state (stunned, shaken), which reads after "is", rather
    than a thing (broken arm, catatonia): a one-word participle is the shape a state's name
    takes."""
    return " " not in name and name.endswith(("ed", "en"))


def condition_ended(who: str, name: str) -> str:
    """A condition's end said of the character: "Mira is no longer stunned", "Vora: broken arm
    has ended"."""
    if is_state(name):
        return f"{who} is no longer {name}"
    return f"{who}: {name} has ended"


def update_words(d: dict[str, Any], after: Any = None) -> str:
    """What a sheet update changed: old beside new when the sheet before and after are known
    (a stat that moved with another shows too), else what the event records."""
    before = d.get("before")
    words = []
    if before is not None and after is not None:
        for was, now in ((before["stats"], after.stats), (before["skills"], after.skills)):
            for key, value in now.items():
                if key not in was:
                    words.append(f"{key} {value} (new)")
                elif was[key] != value:
                    words.append(f"{key} {was[key]} → {value}")
        words += [f"{k} dropped" for k in before["skills"] if k not in after.skills]
    else:
        words += [f"{k} {v}" for k, v in {**d["stats"], **d["skills"]}.items()]
        words += [f"{k} dropped" for k in d["dropped_skills"]]
    words += [f"trained in {t}" for t in d["trained"]]
    words += [f"+ {t}" for t in d["traits"]]
    words += [f"- {t}" for t in d["dropped_traits"]]
    if d.get("character_class"):
        words.append(f"class {d['character_class']}")
    if d.get("npc") is not None:
        words.append("played by the GM" if d["npc"] else "played by a player")
    if after is not None:
        # HP and FP in play where the update moved their maximum or reset them.
        for track, top in (("hp", after.hp_max), ("fp", after.fp_max)):
            now = getattr(after, track)
            moved = before is not None and before["stats"].get(track.upper()) != top
            if now is not None and (d["reset_tracks"] or moved):
                words.append(f"{track.upper()} in play {now}/{top}")
    elif d.get("reset_tracks"):
        words.append("HP and FP reset to their maximum")
    text = ", ".join(words)
    if d.get("sheet"):
        text += f" (from {d['sheet']})"
    if d.get("note"):
        text += f": {d['note']}"
    return text


def sealed_line(who: str | None) -> str:
    """A secret event the players have not been shown, as their views say it. It may be a roll
    or what a secret roll led to (a trait a secret Fright Check cost, a condition it set ended):
    sealed, they read alike, so none is called a roll."""
    return f"a secret event for {who or 'the GM'}"


def summarize(event, names: dict[str, str], bought: Mapping[str, str] | None = None) -> str:
    """One line saying what an event recorded, in the GM's words, safe to print; a roll that
    points bought up later (``bought``: the outcome it ended with, by the roll's id, as
    ``Table.amended`` gives them for the view) says so. An event whose payload fits its type
    but not its system's words (a roll with no outcome, edited in by hand) is said to be
    unreadable, never a traceback."""
    try:
        line = _summary(event, names)
        ended = bought.get(event.event_id) if bought else None
        if ended is not None and isinstance(event.data, p.RollMade):
            line += f" · bought up to {outcome_words(ended)}"
        return printable(line)
    except (KeyError, TypeError, AttributeError, IndexError, ValueError) as exc:
        return f"an event tracker cannot read ({event.type}: {exc!r}); `tracker verify` names it"


def _summary(event, names: dict[str, str]) -> str:
    who = names.get(event.character_id or "", "")
    match event.data:
        case c.CampaignCreated(name=name, system=system):
            return f'campaign "{name}" created ({system})'
        case c.CampaignSettingsChanged() as e:
            return _settings_line(e)
        case c.SessionStarted(number=number, title=title):
            named = f' "{title}"' if title else ""
            return f"session {number}{named} started"
        case c.SessionEnded(number=number, lapsed=lapsed):
            lapsed_text = f" ({plural(len(lapsed), 'obligation')} lapsed)" if lapsed else ""
            return f"session {number} ended{lapsed_text}"
        case c.CharacterAdded(name=name, npc=npc):
            return f"{'NPC' if npc is True else 'character'} {name} added"
        case c.CharacterUpdated() as e:
            return f"{who}'s sheet updated: {update_words(msgspec.to_builtins(e))}"
        case c.CharacterRetired(note=note):
            return f"{who} retired from play" + (f": {note}" if note else "")
        case c.CharacterDefaultSet(skill=skill, expression=expression):
            return f"{who}: {skill} defaults to {expression}"
        case p.RollMade() as e:
            return _roll_line(e, who)
        case p.ContestRolled() as e:
            return _contest_line(e)
        case p.StressChanged(delta=delta, cause=cause):
            return f"{who} stress {delta:+d}" + (f" ({cause})" if cause else "")
        case p.TrackChanged(track=track, delta=delta):
            return f"{who} {track.upper()} {delta:+d}"
        case p.ConditionSet(name=name):
            return f"{who}: {name}"
        case p.ConditionCleared(name=name):
            return condition_ended(who, name)
        case p.ObligationDismissed(obligation=obligation):
            return f"obligation {obligation} dismissed"
        case p.NoteAdded(text=text):
            return f"note: {text}"
        case p.EventsRevoked(event_ids=ids, reason=reason):
            undone = f"undo: {plural(len(ids), 'event')} taken back"
            return undone + (f" ({reason})" if reason else "")
        case p.EventsRestored(event_ids=ids):
            return f"redo: {plural(len(ids), 'event')} put back"
        case p.EventsRevealed(event_ids=ids):
            return f"revealed to the players: {plural(len(ids), 'secret event')}"
        case Sealed():
            return sealed_line(who)
        case Unreadable(reason=reason):
            return f"an event tracker cannot read ({event.type}: {reason})"
    said = registry.words_for(type(event.data))
    return event.type if said is None else said(event.data, who)


def _settings_line(e: c.CampaignSettingsChanged) -> str:
    changed = ", ".join(
        f"{name.replace('_', ' ')} {_setting(value)}" for name, value in e.changed().items()
    )
    return f"settings: {changed}" + (f" ({e.note})" if e.note else "")


def _roll_line(e: p.RollMade, who: str) -> str:
    """A roll and what followed it at once, as its system words them."""
    rules = _rules_of(e.system)
    line = f"{who} rolls " + "; then ".join(_roll_words(roll, rules) for roll in e.with_followups())
    return _remarked(line, rules, e)


def _contest_line(e: p.ContestRolled) -> str:
    """A contest: who won it and by how much (as its system words it, ``contest_said``), then
    the facts its system records of it."""
    a, b = e.a.name, e.b_named
    won = {"a": a, "b": b}.get(e.winner or "")
    verdict = f"{won} wins" if won else ("no change" if not e.decided else "stalemate")
    if e.result.get("margin_of_victory"):
        verdict += f" by {e.result['margin_of_victory']}"
    rules = _rules_of(e.system)
    line = able(rules, Contests).contest_said(e, verdict) if rules is not None else None
    if line is None:
        round_ = f", round {e.round}" if e.round else ""
        line = f"{e.mode} contest {a} vs {b}{round_}: {verdict}"
    if rules is not None:
        line += "".join(f" · {f.name}{facts_words(f, rules)}" for f in rules.roll_facts(e))
    return _remarked(line, rules, e)


def _setting(value) -> str:
    if isinstance(value, dict):
        return f"the campaign's own ({value['dice']}, {plural(len(value['rows']), 'row')})"
    if isinstance(value, tuple | list):
        return f"the campaign's own ({plural(len(value), 'row')})"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "the rulebook's" if value is None else str(value)


def _rules_of(system: str) -> RuleSystem | None:
    """The rule system a stored roll names, or None where it is not installed here: the log
    then says the roll plainly, as the log of any system can."""
    try:
        return registry.get(system)
    except TrackerError:
        return None


def _roll_words(roll: p.RollMade, rules: RuleSystem | None) -> str:
    kind = "" if roll.kind == "check" else f" ({roll.kind.replace('-', ' ')})"
    if rules is None:
        done = outcome_words(roll.result["outcome"])
        return f"{roll.trait}{kind}: {dice_text(roll.dice)} → {done}"
    return f"{roll.trait}{kind}{facts_words(rules.roll_facts(roll)[0], rules)}"


def _remarked(line: str, rules: RuleSystem | None, data) -> str:
    remarks = able(rules, OwnWords).roll_remarks(data) if rules is not None else []
    return line + "".join(f" · {r}" for r in remarks)


def dice_text(dice) -> str:
    return ",".join(str(d) for d in dice)
