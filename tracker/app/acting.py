"""Running a rule system's own commands (``tracker.systems.acts``) at the table.

A system's command decides from the campaign's state like every command that logs, through
``Table.play``: decided on the freshest state under the write lock, refused with one sentence
and nothing appended; a listing decides on the state as it stands. A campaign whose system has
no such command is refused, naming the systems that have one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import msgspec

from tracker.app import rolls
from tracker.app.deciding import Decision, Logged, new_event
from tracker.app.table import Table
from tracker.errors import BadInput
from tracker.events import NewEvent
from tracker.events.effects import Effect
from tracker.projections.campaign import CampaignState, Character
from tracker.systems import registry
from tracker.systems.acts import Acted, Entry, SystemCommand
from tracker.systems.base import RollRequest, Side
from tracker.systems.dice import DiceSource


class Acting:
    """The rule systems' own commands at one table."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def run(self, path: tuple[str, ...], **given: Any) -> Logged:
        """Run the campaign's system's command at ``path`` with ``given`` arguments and options
        by name (as its request type names them)."""
        known = registry.commands_at(path, given)
        for command in known:
            if command.check is not None:
                command.check(_request(command, path, given))
        if known and not known[0].logs:
            state = self.table.state()
            return Logged(state, [], self._decided(state, path, given).doc)
        at_table = known[0].at_table if known else None

        def decide(state: CampaignState) -> Decision:
            acted = self._decided(state, path, given)
            events = [_new(entry, state) for entry in acted.events]
            return Decision(events, acted.doc)

        return self.table.play(decide, at_table=at_table)

    def _decided(self, state: CampaignState, path: tuple[str, ...], given: dict[str, Any]) -> Acted:
        command = registry.command(state.rules, path, given)
        return command.decide(_AtTable(self.table), state, _request(command, path, given))


def _request(command: SystemCommand, path: tuple[str, ...], given: dict[str, Any]) -> Any:
    """What was given, as the command's request type takes it."""
    try:
        return msgspec.convert(given, command.request)
    except msgspec.ValidationError as exc:
        raise BadInput(f"`tracker {' '.join(path)}` cannot take that: {exc}.") from None


def _new(entry: Entry, state: CampaignState) -> NewEvent:
    """An event a command decided (``Entry``), under the id its document names if it names one."""
    event = new_event(entry.payload, state=state, visibility=entry.visibility)
    if entry.event_id is None:
        return event
    return dataclasses.replace(event, event_id=entry.event_id)


class _AtTable:
    """What a system's command may ask of the table (``tracker.systems.acts.Table``)."""

    def __init__(self, table: Table) -> None:
        self._table = table

    def character(self, name: str, state: CampaignState, *, retired_ok: bool = False) -> Character:
        return self._table.character(name, state, retired_ok=retired_ok)

    def version_of(self, event_id: str) -> int:
        campaign_id = self._table.campaign().campaign_id
        return self._table.store.find_event(campaign_id, event_id).version

    def players_see(self, state: CampaignState, character_id: str, condition: str) -> bool:
        return self._table.players_see(state, character_id, condition)

    def side(self, state: CampaignState, name: str, trait: str) -> Side:
        return rolls.side(self._table, state, name, trait)

    def effects_shown(
        self, state: CampaignState, character: Character, effects: Sequence[Effect]
    ) -> list[dict[str, Any]]:
        return rolls.describe_effects(state, character, effects)

    def dice_recorded(self, source: DiceSource) -> tuple[str, str | None]:
        return rolls.dice_kind(source)

    def now(self) -> str:
        return self._table.now()

    def roll(self, state: CampaignState, name: str, request: RollRequest) -> Acted:
        decision = rolls.Rolls(self._table).decided(state, name, request)
        entries = (Entry(e.data, e.visibility, e.event_id) for e in decision.events)
        return Acted(tuple(entries), decision.doc)
