"""Running a rule system's own commands (``tracker.systems.acts``) at the table.

A system's command decides from the campaign's state like every command that logs, through
``Table.play``: decided on the freshest state under the write lock, refused with one sentence
and nothing appended. A campaign whose system has no such command is refused, naming the
systems that have one.
"""

from __future__ import annotations

from typing import Any

import msgspec

from tracker.app.deciding import Decision, Logged, new_event
from tracker.app.table import Table
from tracker.errors import BadInput
from tracker.projections.campaign import CampaignState, Character
from tracker.systems import registry


class Acting:
    """The rule systems' own commands at one table."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def run(self, path: tuple[str, ...], **given: Any) -> Logged:
        """Run the campaign's system's command at ``path`` with ``given`` arguments and options
        by name (as its request type names them)."""
        known = registry.commands_at(path, given)
        at_table = known[0].at_table if known else None

        def decide(state: CampaignState) -> Decision:
            command = registry.command(state.rules, path, given)
            try:
                request = msgspec.convert(given, command.request)
            except msgspec.ValidationError as exc:
                raise BadInput(f"`tracker {' '.join(path)}` cannot take that: {exc}.") from None
            acted = command.decide(_AtTable(self.table), state, request)
            events = [
                new_event(e.payload, state=state, visibility=e.visibility) for e in acted.events
            ]
            return Decision(events, acted.doc)

        return self.table.play(decide, at_table=at_table)


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
        players = self._table.player_state(until_version=state.version)
        ch = players.characters.get(character_id)
        return ch is not None and condition in ch.conditions
