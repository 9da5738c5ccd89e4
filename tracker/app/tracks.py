"""Tracks every system may keep: stress, HP and FP, conditions, notes, and the obligations the
GM resolves by hand. A system's own currencies (Mettle, Threat, character points) are its own
commands (``tracker.systems.acts``, run by ``tracker.app.acting``).

Stress is refused in a campaign whose system lacks it (``Feature.STRESS``), with the systems
that have it named; the rules behind a track (how far stress goes, how low HP falls) are
asked of the campaign's system.
"""

from __future__ import annotations

from tracker.app.deciding import Decision, Logged, new_event
from tracker.app.table import Table
from tracker.errors import BadInput, NotFound, Refused
from tracker.events import play as ev
from tracker.projections.campaign import CampaignState, Obligation
from tracker.systems import registry
from tracker.systems.base import Feature, condition_named
from tracker.systems.capabilities import Obligations, Stress, Thresholds, able


class Tracks:
    """Stress, HP and FP, conditions, notes and obligations dismissed at one table."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def stress(self, name: str, delta: int, *, cause: str | None = None) -> Logged:
        def decide(state: CampaignState) -> Decision:
            registry.require(state.rules, Feature.STRESS, "Stress")
            if delta == 0:
                raise BadInput("Give the stress change as +N or -N, not 0.")
            ch = self.table.character(name, state)
            limit = able(state.rules, Stress).stress_limit(state.stress_limit)
            after = min(max(ch.stress + delta, 0), limit)
            payload = ev.StressChanged(character_id=ch.character_id, delta=delta, cause=cause)
            doc = {
                "character": ch.name,
                "before": ch.stress,
                "delta": delta,
                "after": after,
                "limit": limit,
                "cause": cause,
                "effects": able(state.rules, Stress).stress_words(after, limit),
            }
            return Decision([new_event(payload, state=state)], doc)

        return self.table.play(decide)

    def track(self, name: str, track: str, delta: int, *, cause: str | None = None) -> Logged:
        def decide(state: CampaignState) -> Decision:
            ch = self.table.character(name, state)
            current = getattr(ch, track)
            if current is None:
                raise Refused(
                    f"{ch.name}'s sheet has no {track.upper()}; add it to the sheet "
                    f"(--stat {track.upper()}=N) to track it."
                )
            if delta == 0:
                raise BadInput(f"Give the {track.upper()} change as +N or -N, not 0.")
            payload = ev.TrackChanged(
                character_id=ch.character_id, track=track, delta=delta, cause=cause
            )
            top = ch.hp_max if track == "hp" else ch.fp_max
            bottom = able(state.rules, Thresholds).track_floor(track, top)
            after = min(max(current + delta, bottom), top)
            doc = {
                "character": ch.name,
                "track": track,
                "before": current,
                "delta": delta,
                "after": after,
                "max": top,
                "cause": cause,
                "notes": able(state.rules, Thresholds).track_notes(
                    track, current + delta, after, top
                ),
            }
            return Decision([new_event(payload, state=state)], doc)

        return self.table.play(decide)

    def condition_set(
        self,
        name: str,
        condition: str,
        *,
        duration: int | None = None,
        unit: str | None = None,
        note: str | None = None,
    ) -> Logged:
        def decide(state: CampaignState) -> Decision:
            ch = self.table.character(name, state)
            label = condition.strip()
            if not label:
                raise BadInput("Name the condition, like stunned or panicked.")
            if duration is not None and duration < 1:
                raise BadInput(
                    f"A condition's duration is 1 or more, not {duration}; give --duration 1 or "
                    "more, or leave it out."
                )
            payload = ev.ConditionSet(
                character_id=ch.character_id, name=label, duration=duration, unit=unit, note=note
            )
            doc = {"character": ch.name, "condition": label, "duration": duration, "unit": unit}
            return Decision([new_event(payload, state=state)], doc)

        return self.table.play(decide)

    def condition_clear(self, name: str, condition: str, *, note: str | None = None) -> Logged:
        def decide(state: CampaignState) -> Decision:
            ch = self.table.character(name, state)
            label = condition_named(ch, condition)
            payload = ev.ConditionCleared(character_id=ch.character_id, name=label, note=note)
            # A condition the players never knew of (only a secret roll set it) ends in secret;
            # one they know of ends for all to see, even if a secret roll set it again since.
            hidden = ch.conditions[label].secret and not self.table.players_see(
                state, ch.character_id, label
            )
            event = new_event(payload, state=state, visibility="gm" if hidden else "public")
            return Decision([event], {"character": ch.name, "condition": label, "secret": hidden})

        return self.table.play(decide)

    def note(self, text: str) -> Logged:
        def decide(state: CampaignState) -> Decision:
            if not text.strip():
                raise BadInput(
                    "A note needs some text; give it in quotes, like `tracker note "
                    '"the bridge is out"`.'
                )
            payload = ev.NoteAdded(text=text.strip())
            return Decision([new_event(payload, state=state)], {"text": text.strip()})

        return self.table.play(decide)

    # -- obligations -------------------------------------------------------------------------

    def obligation_dismiss(self, obligation: str, *, reason: str | None = None) -> Logged:
        def decide(state: CampaignState) -> Decision:
            ob = _obligation(state, obligation)
            said = able(state.rules, Obligations).obligations.get(ob.kind)
            if said is not None and said.kept is not None:
                raise Refused(said.kept)
            payload = ev.ObligationDismissed(obligation=ob.id, reason=reason)
            # What a secret roll opened is dismissed in secret: the players never saw it owed.
            event = new_event(payload, state=state, visibility="gm" if ob.secret else "public")
            return Decision([event], {"obligation": ob.to_dict(), "secret": ob.secret})

        return self.table.play(decide)


def _obligation(state: CampaignState, ident: str) -> Obligation:
    ob = state.obligations.get(ident)
    if ob is None:
        ids = ", ".join(state.obligations) or "none"
        raise NotFound(f"No open obligation {ident} (open: {ids}); see `tracker obligations`.")
    return ob
