"""The GM's invitations: the links that let a browser into the console or a character's phone,
made, listed and revoked by the GM (``tracker invite``, the console, and ``tracker serve`` at
start), over ``tracker.store.invitations``, which keeps them hashed apart from the log.

A link is shown once, when it is made: the database keeps no key, only its hash. A phone or a
console opened by it keeps the key in a cookie, so the link lasts as long as the invitation:
across restarts, on any server of the same database, until it expires or is revoked.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import msgspec

from tracker.errors import BadInput, NotFound
from tracker.store.eventstore import now_utc
from tracker.store.invitations import GM, PHONE, PLAYERS, Invitation

if TYPE_CHECKING:
    from tracker.app.table import Table

PATHS = {GM: "/gm", PHONE: "/phone", PLAYERS: "/"}
"""The page each kind of invitation opens, its key after ``?key=``."""
BASE = "web.base"
"""The settings key of the address the last ``tracker serve`` gave its links (or
``--public-url``), which ``tracker invite new`` makes its links with."""
SPAN = re.compile(r"(\d{1,4})\s*([hdw])")
SPANS = {"h": 3600, "d": 86_400, "w": 7 * 86_400}


class Invited(msgspec.Struct, frozen=True):
    """An invitation made now, with its key: the only time the key is known."""

    invitation: Invitation
    key: str
    who: str

    @property
    def door(self) -> str | None:
        """What the console shows its link beside: a character's card (its id), a campaign's
        players' page (``players_door``); None for the GM's console, whose link is never shown
        on a page."""
        if self.invitation.kind == PHONE:
            return self.invitation.character_id
        if self.invitation.kind == PLAYERS:
            return players_door(self.invitation.campaign_id or "")
        return None

    def link(self, base: str) -> str:
        """The link that opens its door, on the server at ``base`` (``https://dice.example.org``)."""
        return f"{base}{PATHS[self.invitation.kind]}?key={self.key}"


def players_door(campaign_id: str) -> str:
    """The door of a campaign's players' page, as ``Invited.door`` names it."""
    return f"players:{campaign_id}"


def expiry(text: str | None, now: str | None = None) -> str | None:
    """When an invitation given ``--expires`` stops opening anything: a span ("12h", "30d",
    "2w") from now, or a local date or time ("2027-01-31", the end of that day); None for
    never. One sentence for anything else, or for a time already past."""
    if text is None:
        return None
    import pendulum

    now = now or now_utc()
    start = pendulum.parse(now)
    given = text.strip().lower()
    span = SPAN.fullmatch(given)
    try:
        if span:
            moment = start.add(seconds=int(span[1]) * SPANS[span[2]])
        else:
            moment = pendulum.parse(given, tz=pendulum.local_timezone())
            if len(given) == 10:  # a date alone: it lasts that whole day
                moment = moment.end_of("day")
    except (ValueError, OverflowError, pendulum.parsing.exceptions.ParserError):
        raise BadInput(
            f"--expires takes a span like 12h, 30d or 2w, or a date like 2027-01-31, not "
            f"{text[:40]!r}."
        ) from None
    stamp = moment.in_timezone("UTC").format("YYYY-MM-DDTHH:mm:ss.SSSSSSZ")
    if stamp <= now:
        raise BadInput(f"--expires {text[:40]} is past already; give a time to come.")
    return stamp


def campaigns_served_first(table: Table) -> list[Any]:
    """Every campaign of the database, the one chosen (the one served) first."""
    served = table.campaign().campaign_id
    return sorted(table.store.campaigns(), key=lambda row: row.campaign_id != served)


class Invitations:
    """The invitations of the table's database, in the GM's words."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.store = table.store.invitations

    def who(self, invitation: Invitation, names: dict[str, tuple[str, str]] | None = None) -> str:
        """Whom it lets in, as a list says it: "the GM", "Wren's phone (Ashfall)"."""
        if invitation.kind == GM:
            campaign = self._campaign_names().get(invitation.campaign_id or "")
            return f"the GM ({campaign or 'every campaign'})"
        if invitation.kind == PHONE:
            name, campaign = (names or self._names()).get(
                invitation.character_id or "", ("a character no longer in play", "")
            )
            return f"{name}'s phone" + (f" ({campaign})" if campaign else "")
        campaign = self._campaign_names().get(invitation.campaign_id or "")
        return "the players' page" + (f" ({campaign})" if campaign else "")

    def _campaign_names(self) -> dict[str, str]:
        return {row.campaign_id: row.name for row in self.table.store.campaigns()}

    def _names(self) -> dict[str, tuple[str, str]]:
        """Every character's name and campaign's, by character id."""
        out = {}
        for row in self.table.store.campaigns():
            for cid, ch in self.table.state(row).characters.items():
                out[cid] = (ch.name, row.name)
        return out

    def listed(self, *, everything: bool = False) -> list[dict[str, Any]]:
        """The live invitations (with ``everything``, the revoked and expired too), each with
        whom it lets in and whether it is live."""
        now = now_utc()
        names = self._names()
        return [
            {**inv.to_dict(), "who": self.who(inv, names), "live": inv.live(now)}
            for inv in self.store.listed()
            if everything or inv.live(now)
        ]

    def invite(
        self,
        *,
        character: str | None = None,
        players: bool = False,
        every: bool = False,
        expires_at: str | None = None,
    ) -> Invited:
        """A new invitation: into a character's phone (by name, in the campaign chosen), with
        ``players`` into the campaign's players' page (the TV's, when the server is public),
        else into the GM's console of the campaign chosen (with ``every``, of every campaign:
        the one that turns the table from one to another)."""
        if players:
            row = self.table.campaign()
            made, key = self.store.make(PLAYERS, campaign_id=row.campaign_id, expires_at=expires_at)
            return Invited(made, key, f"the players' page ({row.name})")
        if character is None:
            row = None if every else self.table.campaign()
            made, key = self.store.make(
                GM, campaign_id=row.campaign_id if row else None, expires_at=expires_at
            )
            return Invited(made, key, f"the GM ({row.name if row else 'every campaign'})")
        state = self.table.state()
        ch = self.table.character(character, state)
        if ch.npc:
            raise BadInput(f"{ch.name} is the GM's to play; a phone is for a player's character.")
        made, key = self.store.make(
            PHONE,
            campaign_id=self.table.campaign().campaign_id,
            character_id=ch.character_id,
            expires_at=expires_at,
        )
        return Invited(made, key, f"{ch.name}'s phone")

    def revoke(self, what: str) -> list[Invitation]:
        """Revoke an invitation by its id, every live one of a character's phone by the
        character's name (in the campaign chosen), every live one of the GM's (of any
        campaign) by "gm", or
        every live one of the chosen campaign's players' page by "players"."""
        now = now_utc()
        live = [inv for inv in self.store.listed() if inv.live(now)]
        wanted = what.strip().casefold()
        ids = [inv.invitation_id for inv in live if inv.invitation_id == wanted]
        if not ids and wanted == GM:
            ids = [inv.invitation_id for inv in live if inv.kind == GM]
        if not ids and wanted == PLAYERS:
            campaign_id = self.table.campaign().campaign_id
            ids = [
                inv.invitation_id
                for inv in live
                if inv.kind == PLAYERS and inv.campaign_id == campaign_id
            ]
            if not ids:
                raise NotFound("The players' page has no live invitation to revoke.")
        if not ids:
            try:
                ch = self.table.character(what, retired_ok=True)
            except NotFound:
                raise NotFound(
                    f'No live invitation is "{what[:40]}": give an id `tracker invite list` '
                    "shows, a character's name, gm or players."
                ) from None
            ids = [i.invitation_id for i in live if i.character_id == ch.character_id]
            if not ids:
                raise NotFound(f"{ch.name}'s phone has no live invitation to revoke.")
        return self.store.revoke(ids)

    def revoke_phone(self, character_id: str) -> list[Invitation]:
        """Revoke every live invitation of a character's phone (the console's Revoke)."""
        now = now_utc()
        return self.store.revoke(
            inv.invitation_id
            for inv in self.store.listed()
            if inv.live(now) and inv.kind == PHONE and inv.character_id == character_id
        )

    def phone_for(self, character_id: str, campaign_id: str) -> Invited:
        """A new invitation into a character's phone, by id (the console's New link)."""
        made, key = self.store.make(PHONE, campaign_id=campaign_id, character_id=character_id)
        return Invited(made, key, "")

    def players_for(self, campaign_id: str) -> Invited:
        """A new invitation into a campaign's players' page, by id (the console's New link)."""
        made, key = self.store.make(PLAYERS, campaign_id=campaign_id)
        return Invited(made, key, "")

    def revoke_players(self, campaign_id: str) -> list[Invitation]:
        """Revoke every live invitation of a campaign's players' page (the console's Revoke)."""
        now = now_utc()
        return self.store.revoke(
            inv.invitation_id
            for inv in self.store.listed()
            if inv.live(now) and inv.kind == PLAYERS and inv.campaign_id == campaign_id
        )

    def at_start(self, *, public: bool = False) -> tuple[list[Invited], list[dict[str, Any]]]:
        """What ``tracker serve`` hands out as it starts: an invitation for the GM's console
        and for each player's character in play, of every campaign, where none is live (when
        the server is ``public``, for the served campaign's players' page too); and the live
        ones made before (their links were shown when they were made)."""
        now = now_utc()
        live = [inv for inv in self.store.listed() if inv.live(now)]
        names = self._names()
        made: list[Invited] = []
        if not any(inv.kind == GM and inv.campaign_id is None for inv in live):
            made.append(self.invite(every=True))
        served = self.table.campaign().campaign_id
        if public and not any(inv.kind == PLAYERS and inv.campaign_id == served for inv in live):
            made.append(self.invite(players=True))
        invited = {inv.character_id for inv in live if inv.kind == PHONE}
        for row in self._campaigns_served_first():
            for cid, ch in self.table.state(row).characters.items():
                if ch.npc or ch.retired_version is not None or cid in invited:
                    continue
                new, key = self.store.make(PHONE, campaign_id=row.campaign_id, character_id=cid)
                made.append(Invited(new, key, f"{ch.name}'s phone"))
        kept = [{**inv.to_dict(), "who": self.who(inv, names)} for inv in live]
        return made, kept

    def _campaigns_served_first(self) -> list[Any]:
        return campaigns_served_first(self.table)

    def remember_base(self, base: str) -> None:
        """Keep the address links are made with, for ``tracker invite new`` to use."""
        if self.table.store.get_setting(BASE) != base:
            self.table.store.set_setting(BASE, base)

    def base(self) -> str | None:
        """The address the last ``tracker serve`` made its links with; None before any."""
        return self.table.store.get_setting(BASE)
