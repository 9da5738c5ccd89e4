"""What the GM's console and the players' phones read and do: the state each page shows and
the actions each sends, answered here for the routes ``gm`` and ``phone`` make.

Every action goes through ``tracker.app.actions`` (the command line's handlers, decided under
the store's write lock); a refusal comes back as its one sentence with 4xx and nothing logged.
Every POST passes ``guard.Guard.check`` first: the client's rate, the key (the GM's cookie, or
a phone's), JSON from no other origin, the page's token and a nonce never seen before.

A phone acts for the one character its key is for: a roll of that character's, with options
its system lets a player give (``Option.gm_only`` are the GM's), or the roll the GM asked of
it, as the GM filled it in. What a phone is told of a roll is what the players' stream holds
of it: of a blind (secret) roll, only that the GM has it.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import io
import json
import re
import secrets
from collections.abc import Awaitable, Callable, Mapping
from fractions import Fraction
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from tracker.app.actions import declaration, declarations, perform
from tracker.app.invitations import players_door
from tracker.app.rolls import Foreseen, Rolls
from tracker.errors import BadInput, NotFound, TrackerError
from tracker.events.catalog import CharacterAdded
from tracker.store.eventstore import Claim
from tracker.systems import registry
from tracker.systems.capabilities import (
    Currencies,
    Obligations,
    OwnCommands,
    OwnWords,
    RollKinds,
    SheetRules,
    able,
)
from tracker.systems.commands import Command, Option, taken
from tracker.web.guard import (
    GM,
    GM_ONLY,
    HEADERS,
    INVITED_PHONE,
    PHONE_COOKIE,
    PHONE_GONE,
    PLAYERS,
    Asked,
    Guard,
    Refusal,
    gm_identity,
    let_in,
    phone_identity,
    refused,
)
from tracker.words import form_words, table_words

SCOPE: contextvars.ContextVar[str | None] = contextvars.ContextVar("scope", default=None)
"""The campaign the GM's key acting now was made for (None: every campaign's), set for the
request being answered (``Console._guarded``): each request is its own task, with its own."""
ELSEWHERE = (
    "This console serves {name} alone; turn the table to another campaign from the console "
    "at /gm, opened by a key of every campaign's."
)

PLAYERS_DOOR = "players"
"""The players' page, as the console's routes name it (``/gm/qr/players``) beside the
characters' ids."""


class Following(Protocol):
    """What the console asks of the feeds' hub (``feed.Hub``): its feed, read under its lock,
    and turning every page to the campaign the console made current."""

    feed: Any

    async def follow(self) -> None: ...


ROLL = ("roll",)
CAMPAIGN_USE = ("campaign", "use")

SENT_ALREADY = "This request was sent already; nothing more was logged."


def _form(command: Command, *, player: bool = False) -> dict[str, Any]:
    """A declaration as the pages draw a form of it; ``player``: without the GM's options."""
    options = [o for o in command.options if not (player and o.gm_only)]
    first = command.help.strip().splitlines()[0] if command.help.strip() else ""
    return {
        "path": list(command.path),
        "title": " ".join(command.path),
        "help": first,
        "arguments": [
            {
                "name": a.name,
                "label": a.shown,
                "kind": a.kind,
                "choices": list(a.choices) if a.choices else None,
                "required": a.required and a.nargs != -1,
                "multiple": a.nargs == -1,
                "complete": a.complete,
                "help": a.help or a.metavar or a.name,
                "metavar": a.metavar,
                "parts": list(a.parts),
                "limits": list(a.limits) if a.limits else None,
            }
            for a in command.arguments
        ],
        "options": [_option(o) for o in options],
    }


def _option(o: Option) -> dict[str, Any]:
    return {
        "name": o.name,
        "flag": o.flag,
        "label": o.shown,
        "kind": o.kind,
        "choices": list(o.choices) if o.choices else None,
        "multiple": o.multiple,
        "required": o.required,
        "complete": o.complete,
        "help": o.help,
        "metavar": o.metavar,
        "placeholder": _placeholder(o),
        "picks": [list(pick) for pick in o.picks],
        "limits": list(o.limits) if o.limits else None,
        "default": o.default if isinstance(o.default, (int, str)) else None,
    }


def _placeholder(o: Option) -> str:
    """What an empty box of ``o`` shows: its declared example's value ("e.g. hard" for
    ``--dl hard``), which reads as the table says it, else its metavar."""
    if o.example and o.example.startswith(o.flag + " "):
        return "e.g. " + o.example.removeprefix(o.flag + " ").strip('"')
    return o.metavar or ""


def asked_words(
    rules: Any, trait: str, form: Command, options: Mapping[str, Any], seen: Foreseen | None
) -> str:
    """A roll the GM asks of a phone as the phone and the console say it: the trait, and all
    it implies as the players know the table (``Rolls.foresee``): the score it is rolled at,
    its modifiers, its position and dice, its chance ("Grit at 3 · +1 gear · −1 condition ·
    desperate: two d20, keep the lower · 35% to succeed"); what else the GM filled in, in the
    options' words."""
    words = [trait]
    if seen is not None:
        words = [seen.trait if seen.effective is None else f"{seen.trait} at {seen.effective}"]
        for part in seen.modifiers.split(";"):
            # An unnamed modifier is stored as "modifier": the number alone says it.
            part = part.strip().removesuffix(" modifier")
            if part:
                words.append(part.replace("-", "\u2212", 1))
        if seen.lead:
            words.append(able(rules, OwnWords).lead_said.get(seen.lead, seen.lead))
    said = " ".join(words).casefold()
    named = {o.name: o for o in form.options}
    for name, value in options.items():
        option = named.get(name)
        # A difficulty, modifiers and tags are what the facts' modifiers say, in the system's words.
        if seen is not None and option and (option.multiple or option.kind == "difficulty"):
            continue
        shown = option.shown if option else name.replace("_", " ")
        values = value if isinstance(value, list) else [value]
        for one in values:
            text = shown if one is True else f"{shown} {one}"
            # What the facts say already (a tag, a modifier) is not said twice.
            if str(one).casefold() not in said and text.casefold() not in said:
                words.append(text)
    if seen is not None:
        words.append(f"{_percent(seen.chance)} to succeed")
    return " \u00b7 ".join(words)


def _percent(chance: Fraction) -> str:
    """A chance as the table says it: whole percents, never a certain 0 or 100 that is not."""
    value = float(chance) * 100
    if 0 < value < 1:
        return "under 1%"
    if 99 < value < 100:
        return "over 99%"
    return f"{value:.0f}%"


def players_words(sentence: str) -> str:
    """A refusal as a player's phone says it: in the table's words (``table_words``: "the GM
    must spend hard or dire before any player roll", not "log it with `tracker threat spend
    hard`, or pass --override"), one sentence."""
    said = table_words(
        sentence, otherwise="The GM has something to settle before this roll; ask the GM"
    )
    return said[:1].upper() + said[1:].rstrip(".") + "."


def _this_session(events: list[Any], session: int | None) -> list[Any]:
    """What the console offers to put back: nothing of an earlier session once another runs (a
    redo would log that session's roll into this one)."""
    if session is not None and any(e.session_id != session for e in events):
        return []
    return events


def _console_words(note: str) -> str:
    """A note of the command line's as the console says it: the button, not the command."""
    return re.sub(r"\(`tracker reveal (\d+)[^`]*`\)", r"(Reveal #\1, under the secrets)", note)


def _owed(ob: Any, ch: Any, rules: Any) -> dict[str, Any]:
    """An obligation as the console offers it: beside it every command that discharges its
    kind (each declared whose ``SystemCommand.discharges`` names it), started with the
    character named, and first what the kind says goes on with it (the next round
    of a regular contest, a hard spend of the floor)."""
    start = {"character": ch.name} if ch else {}
    actions: list[tuple[tuple[str, ...], dict[str, Any]]] = [
        (c.declared.path, start)
        for c in able(rules, OwnCommands).commands
        if c.declared is not None and ob.kind in c.discharges
    ]
    kind = able(rules, Obligations).obligations.get(ob.kind)
    first = kind.goes_on(ob.data) if kind is not None and kind.goes_on is not None else None
    if first is not None:
        actions = [first, *(a for a in actions if a[0] != first[0])]
    return {
        "id": ob.id,
        "what": ob.what,
        "severity": ob.severity,
        "character": ch.name if ch else None,
        "actions": [{"action": list(path), "values": values} for path, values in actions],
    }


class Console:
    """What the console's and the phones' routes answer, over one live campaign."""

    def __init__(
        self,
        hub: Following,
        guard: Guard,
        base: str | None,
        shown: dict[str, str] | None = None,
        *,
        prefix: str = "",
    ) -> None:
        self.hub = hub
        self.feed = hub.feed
        self.guard = guard
        self.phones = guard.phones
        self.base = base
        # Where its pages are: "" for the plain addresses, which follow the current
        # campaign; "/c/TOKEN" for one campaign's own, which stay on it.
        self.prefix = prefix
        # The keys this server made (as it started, or since at the GM's press), by door
        # (``Invited.door``), shared by every campaign's console: the only links a console
        # can show, the database keeping none.
        self.shown: dict[str, str] = shown if shown is not None else {}
        # The requests being answered now, by holder and nonce, each with what its copies
        # wait on.
        self.answering: dict[tuple[str, str], asyncio.Event] = {}
        # The players' state last folded, by campaign and head (``_players_state``); read and
        # written under the feed's lock, as every call of ``phone_state`` is.
        self._players: tuple[tuple[str, int], Any] | None = None

    def served(self) -> str:
        """The campaign these pages serve now."""
        return self.feed.live.campaign_id

    @property
    def pinned_to(self) -> str | None:
        """The campaign of a campaign's own address; None at the plain one."""
        return self.feed.live.campaign_id if self.prefix else None

    # -- what the console shows ------------------------------------------------------------------

    def link(self, request: Request, door: str) -> str | None:
        """The link into ``door`` (a character's phone by its id, or ``PLAYERS_DOOR``, the
        players' page of the campaign served) this server made; None when it made none."""
        if door == PLAYERS_DOOR:
            door, path = players_door(self.feed.live.campaign_id), "/"
        else:
            path = "/phone"
        key = self.shown.get(door)
        if key is None:
            return None
        base = self.base or f"{request.url.scheme}://{request.headers['host']}"
        return f"{base}{self.prefix}{path}?key={key}"

    def gm_state(self, request: Request, scope: str | None = None) -> dict[str, Any]:
        """Everything the console's forms need, as the campaign stands now; ``scope`` the
        campaign the console's key is for (None: every campaign's)."""
        whole = scope is None and not self.prefix
        live = self.feed.live
        table = live.table
        state = live.state()
        rules = state.rules
        characters = self._cards(request, state)
        obligations = [
            _owed(ob, state.characters.get(ob.character_id or ""), rules)
            for ob in sorted(state.obligations.values(), key=lambda o: o.opened_version)
        ]
        return {
            "campaign": state.name,
            "system": state.system,
            "system_title": rules.title,
            "session": state.current_session,
            "characters": characters,
            "forms": [_form(c) for c in declarations(rules)],
            "undo": self._lines(table.history.next_undo(state), state),
            "redo": self._lines(
                _this_session(table.history.next_redo(state), state.current_session), state
            ),
            "secrets": self._secrets(state),
            "obligations": obligations,
            # Turning the table to another campaign is the plain console's, opened by a key
            # of every campaign's: one campaign's console stays on it.
            "campaigns": [row.name for row in table.store.campaigns()] if whole else [],
            "elsewhere": self._elsewhere(request) if whole else [],
            "address": self.prefix + "/",
            # On a public server the TV too opens by a link, which the console shows.
            "players_link": self.link(request, PLAYERS_DOOR) if self.guard.public else None,
            "public": self.guard.public,
            "lists": {
                "spend_kinds": list(able(rules, Currencies).spend_kinds),
                "difficulties": list(able(rules, RollKinds).difficulties),
            },
        }

    def _lines(self, events: list[Any], state: Any) -> list[str]:
        """Events as the console names them: "#12 Wren rolls Grit ...", secrets unsealed."""
        from tracker.app.live import Page

        page = Page([], set(state.revoked), state.version)
        return [f"#{e.version} {self.feed.item(e, page, GM)['text']}" for e in events]

    def _secrets(self, state: Any) -> list[dict[str, Any]]:
        """The secret events not yet revealed nor undone, each as the console lists it with
        Reveal: its line, its session when an earlier one's (a secret left sealed last week is
        still the GM's to reveal), and whether it waits on an older secret it counted."""
        live = self.feed.live
        shown = live.table.revealed(live.row)
        secret = [
            e
            for e in live.table.store.read(live.campaign_id, secret=True)
            if e.event_id not in shown and e.event_id not in state.revoked
        ]
        return [
            {
                "event": e.event_id,
                "text": t
                if e.session_id == state.current_session
                else f"{t} (session {e.session_id})",
                # Shown only after an older secret it counted: Alt+V passes it by.
                "waits": live.table.history.must_wait(state, e, shown),
            }
            for e, t in zip(secret, self._lines(secret, state), strict=True)
        ]

    def _cards(self, request: Request, state: Any) -> list[dict[str, Any]]:
        """Each character in play as the console's card shows it, with its phone's link and
        the roll asked of it."""
        characters = []
        asked = self.phones.requests(state.characters)
        for cid, ch in state.characters.items():
            if ch.retired_version is not None:
                continue
            waiting = asked.get(cid)
            characters.append(
                {
                    "id": cid,
                    "name": ch.name,
                    "npc": ch.npc,
                    "traits": able(state.rules, SheetRules).rollable(ch),
                    "conditions": sorted(ch.conditions),
                    "phone": None if ch.npc else self.link(request, cid),
                    "asked": (waiting.said + (", blind" if waiting.secret else ""))
                    if waiting
                    else None,
                }
            )
        return characters

    def _elsewhere(self, request: Request) -> list[dict[str, Any]]:
        """The phone links of every other campaign's players, by campaign: a phone opened on
        one says the table is elsewhere, and follows the table when it turns to it."""
        live = self.feed.live
        out = []
        for row in live.table.store.campaigns():
            if row.campaign_id == live.campaign_id:
                continue
            state = live.table.state(row)
            ids = [
                cid
                for cid, ch in state.characters.items()
                if not ch.npc and ch.retired_version is None
            ]
            characters = [
                {"id": cid, "name": state.characters[cid].name, "phone": self.link(request, cid)}
                for cid in ids
            ]
            if characters:
                out.append({"campaign": row.name, "characters": characters})
        return out

    def phone_state(self, character_id: str) -> dict[str, Any]:
        """What a phone shows of its character (as the players know it: nothing a secret
        roll changed) and the form it rolls with."""
        from tracker.app.live import readings_shown

        state = self._players_state()
        ch = state.characters.get(character_id)
        if ch is None:
            raise NotFound("This phone's character is not in the campaign served.")
        return {
            "campaign": state.name,
            "system_title": state.rules.title,
            "character": {
                **ch.tracks(state.rules),
                "readings": readings_shown(state, ch),
                "stats": dict(ch.stats),
                "skills": dict(ch.skills),
            },
            "traits": able(state.rules, SheetRules).rollable(ch),
            # The trait picker's groups, each trait with its level, as her sheet has them, then
            # what the rules let her roll beyond it (GURPS: senses, skills at default).
            "trait_groups": [
                *(
                    {"group": group, "traits": [[k, v] for k, v in held.items() if k in shown]}
                    for group, held in (("Stats", ch.stats), ("Skills", ch.skills))
                    if (shown := set(able(state.rules, SheetRules).rollable(ch))) & set(held)
                ),
                *(
                    {"group": group, "traits": [list(roll) for roll in rolls]}
                    for group, rolls in able(state.rules, SheetRules).rolls_beyond_sheet(ch)
                ),
            ],
            "form": _form(declaration(state.rules, ROLL), player=True),
            "asked": json.loads(self.phones.waiting(character_id)),
        }

    def _players_state(self) -> Any:
        """The campaign as the players know it, folded once per head however many phones
        ask: after each roll every phone of the table asks for it at once. The players'
        state is the log's alone (a reveal or an undo is an event), so its head names it."""
        live = self.feed.live
        at = (live.campaign_id, live.head())
        if self._players is not None and self._players[0] == at:
            return self._players[1]
        state = live.table.player_state(live.row)
        if state.version == at[1]:
            self._players = (at, state)
        return state

    def away(self, character_id: str) -> dict[str, Any]:
        """What a phone says while its character is not in the campaign the table is playing:
        whose phone it is, which campaign is at the table, and that it comes back by itself."""
        live = self.feed.live
        playing = live.row.name
        for row in live.table.store.campaigns():
            added = live.table.store.read(row.campaign_id, types=[CharacterAdded.TYPE], sparse=True)
            for e in added:
                if isinstance(e.data, CharacterAdded) and e.data.character_id == character_id:
                    name = e.data.name
                    return {
                        "character": name,
                        "campaign": playing,
                        "said": f"The table is playing {playing}, which {name} is not in. "
                        f"This page comes back by itself when the table returns to {row.name}.",
                    }
        return {
            "character": "this character",
            "campaign": playing,
            "said": f"The table is playing {playing}, which this phone's character is not in. "
            "This page comes back by itself when the table returns to hers.",
        }

    # -- acting ---------------------------------------------------------------------------------

    async def act(self, request: Request) -> Response:
        """The GM's action: ``{"path": [...], "values": {...}}``."""

        async def run(body: dict[str, Any]) -> dict[str, Any]:
            path = body.get("path")
            values = body.get("values") or {}
            if (
                not isinstance(path, list)
                or not path
                or not all(isinstance(w, str) for w in path)
                or not isinstance(values, dict)
            ):
                raise BadInput("Name the command and its values, as the console's forms do.")
            if path[0] == "campaign" and self._restricted():
                raise Refusal(403, ELSEWHERE.format(name=self.feed.live.row.name))
            try:
                done = await self.feed.call(perform, self.feed.live.table, tuple(path), values)
            except TrackerError as exc:
                # The GM reads the refusal beside the form: its boxes, not the command's flags.
                shown = await self.feed.call(self._shown, tuple(path))
                exc.args = (form_words(str(exc), shown),)
                raise
            if tuple(path) == CAMPAIGN_USE:
                await self.feed.call(self._chose, done.doc["campaign_id"])
                await self.hub.follow()
                return {"text": [f'Now playing "{done.doc["name"]}".'], "doc": done.doc}
            lines = await self.feed.call(self.feed.said, done.events, GM)
            notes = done.doc.get("notes", []) if isinstance(done.doc, dict) else []
            return {
                "text": [f"#{line['version']} {line['text']}" for line in lines],
                "lines": lines,
                # Why the rules kept a roll secret, and the like: what the command line says
                # under the roll, in the console's words.
                "notes": [_console_words(n) for n in notes if isinstance(n, str)],
                "doc": done.doc,
            }

        return await self._guarded(request, None, run)

    def _restricted(self) -> bool:
        """Whether the console acting now keeps to its one campaign: a campaign's own, or one
        opened by a key made for one campaign."""
        return bool(self.prefix) or SCOPE.get() is not None

    def _shown(self, path: tuple[str, ...]) -> dict[str, str]:
        """Each option of the form at ``path`` by its flag, with the label its box shows; none
        for a path the campaign's system has no form of."""
        try:
            declared = declaration(self.feed.live.state().rules, path)
        except TrackerError:
            return {}
        return {option.flag: option.shown for option in declared.options}

    def _chose(self, campaign_id: str) -> None:
        """The console made ``campaign_id`` current: it acts on that campaign from now on,
        whatever another process makes current later, as it did on the one it was served."""
        self.feed.live.table.chosen = campaign_id

    async def ask(self, request: Request) -> Response:
        """The GM asks a character's phone for a roll, filled in:
        ``{"character", "trait", "values", "secret"}``."""

        async def run(body: dict[str, Any]) -> dict[str, Any]:
            name, trait = body.get("character"), body.get("trait")
            values = body.get("values") or {}
            if not isinstance(name, str) or not isinstance(trait, str) or not trait.strip():
                raise BadInput("Name the character and the trait to ask for.")
            if not isinstance(values, dict) or {"character", "trait", "secret"} & set(values):
                raise BadInput("Give the roll's options apart from its character and trait.")
            secret = body.get("secret") is True

            def made() -> Asked:
                live = self.feed.live
                state = live.state()
                ch = live.table.character(name, state)
                form = declaration(state.rules, ROLL)
                options = {k: v for k, v in values.items() if v not in (None, "", [], False)}
                given = taken(form, {"character": ch.name, "trait": trait, **options})
                given.pop("character")
                roll = registry.roll_request(given.pop("trait"), **given)
                seen = Rolls(live.table).foresee(ch.name, roll)
                said = f"{ch.name}: " + asked_words(state.rules, trait, form, options, seen)
                return Asked(
                    secrets.token_urlsafe(9), ch.character_id, trait, options, secret, said
                )

            asked = await self.feed.call(made)
            await self.phones.ask(asked)
            blind = ", blind: you see the result" if asked.secret else ""
            return {"text": [f"Asked {asked.said}{blind}."]}

        return await self._guarded(request, None, run)

    async def revoke(self, request: Request) -> Response:
        """End a character's phone links at once and make a new one: ``{"character": id}``."""
        return await self._guarded(request, None, lambda body: self._new_link(body, True))

    async def invite(self, request: Request) -> Response:
        """A new link for a character's phone, the others kept: ``{"character": id}``."""
        return await self._guarded(request, None, lambda body: self._new_link(body, False))

    async def _new_link(self, body: dict[str, Any], revoking: bool) -> dict[str, Any]:
        if body.get("players") is True:
            return await self._new_players_link(revoking)
        cid = body.get("character")
        live = self.feed.live
        state = await self.feed.call(live.state)
        row = live.row
        if not isinstance(cid, str):
            raise NotFound("No such character to make a phone link for.")
        if cid not in state.characters:
            if self._restricted():
                raise NotFound("No such character in this campaign to make a phone link for.")
            # A player of another campaign's, whose link the console lists too.
            found = await self.feed.call(self._campaign_of, cid)
            if found is None:
                raise NotFound("No such character to make a phone link for.")
            row, state = found
        ch = state.characters[cid]
        if ch.npc or ch.retired_version is not None:
            raise BadInput(f"{ch.name} is not a player's character in play; no phone to link.")
        invitations = live.table.invitations
        if revoking:
            await self.feed.call(invitations.revoke_phone, cid)
            await self.guard.doors.sweep()
        made = await self.feed.call(invitations.phone_for, cid, row.campaign_id)
        self.shown[cid] = made.key
        if revoking:
            return {"text": [f"{ch.name}'s old links no longer work; give the new one."]}
        return {"text": [f"A new link for {ch.name}'s phone; the ones given before still work."]}

    async def _new_players_link(self, revoking: bool) -> dict[str, Any]:
        """A new link into the players' page of the campaign served, the old ones revoked
        with ``revoking``: a public server's alone, the page being the room's at home."""
        if not self.guard.public:
            raise BadInput("The players' page needs no link on this server; open / on the TV.")
        live = self.feed.live
        invitations = live.table.invitations
        if revoking:
            await self.feed.call(invitations.revoke_players, live.campaign_id)
            await self.guard.doors.sweep()
        made = await self.feed.call(invitations.players_for, live.campaign_id)
        self.shown[players_door(live.campaign_id)] = made.key
        if revoking:
            return {"text": ["The players' old links no longer work; open the new one on the TV."]}
        return {"text": ["A new link for the players' page; the ones given before still work."]}

    def _campaign_of(self, character_id: str) -> tuple[Any, Any] | None:
        """The campaign row and state a character is of, among every campaign's."""
        table = self.feed.live.table
        for row in table.store.campaigns():
            state = table.state(row)
            if character_id in state.characters:
                return row, state
        return None

    def invitations(
        self, yours: str | None = None, scope: str | None = None
    ) -> list[dict[str, Any]]:
        """The live invitations, as the console lists them to revoke; ``yours`` the id of the
        one the console asking was opened by, ``scope`` the campaign its key is for (None:
        every campaign's, and so every invitation)."""
        return [
            {
                "id": doc["invitation_id"],
                "who": doc["who"],
                "made": doc["made_at"],
                "expires": doc["expires_at"],
                "yours": doc["invitation_id"] == yours,
                "kind": doc["kind"],
                "campaign_id": doc["campaign_id"],
                "character_id": doc["character_id"],
            }
            for doc in self.feed.live.table.invitations.listed()
            if scope is None or doc["campaign_id"] == scope
        ]

    async def uninvite(self, request: Request) -> Response:
        """Revoke one invitation, by its id: ``{"invitation": id}``."""

        async def run(body: dict[str, Any]) -> dict[str, Any]:
            ident = body.get("invitation")
            table = self.feed.live.table
            if not isinstance(ident, str) or not re.fullmatch(r"[0-9a-f]{8}", ident):
                raise BadInput("Name the invitation to revoke, as the list shows it.")
            listed = await self.feed.call(self.invitations, None, SCOPE.get())
            live = {doc["id"]: doc for doc in listed}
            if ident not in live:
                raise NotFound("That invitation is revoked or expired already.")
            await self.feed.call(table.store.invitations.revoke, [ident])
            doc = live[ident]
            door = (
                players_door(doc["campaign_id"] or "")
                if doc["kind"] == "players"
                else doc["character_id"] or ""
            )
            shown = self.shown.get(door)
            if shown is not None:
                # The link shown on the card goes only if it is the one revoked.
                opened = await self.feed.call(table.store.invitations.opened_by, shown)
                if opened is not None and opened.invitation_id == ident:
                    self.shown.pop(door, None)
            await self.guard.doors.sweep()
            who = live[ident]["who"]
            return {"text": [f"Revoked the invitation of {who}; its link opens nothing now."]}

        return await self._guarded(request, None, run)

    async def phone_roll(self, request: Request) -> Response:
        """A phone rolls for its character: ``{"trait", "values", "request"}``; ``values``
        holds the options a player may give (the dice among them)."""
        held = await self.guard.phone(request, self.pinned_to)
        if held is None:
            return refused(403, PHONE_GONE)
        key, cid = held

        async def run(body: dict[str, Any]) -> dict[str, Any]:
            values = body.get("values") or {}
            if not isinstance(values, dict):
                raise BadInput("Give the roll's options as the phone's form does.")
            if "character" in values or "character" in body:
                raise Refusal(403, "A phone rolls for its own character only.")
            asked_id = body.get("request")
            if asked_id is not None:
                asked = await self.feed.call(self.phones.request, cid)
                if asked is None or asked.id != str(asked_id):
                    raise Refusal(409, "The GM's request was answered or withdrawn already.")
                trait, options, secret = asked.trait, dict(asked.options), asked.secret
                dice = values.get("dice")
                if set(values) - {"dice"}:
                    raise Refusal(403, "A roll the GM asked for is rolled as the GM filled it in.")
                if dice:
                    options["dice"] = dice
            else:
                trait, options, secret = body.get("trait"), dict(values), False
                form = await self.feed.call(lambda: declaration(self.feed.live.state().rules, ROLL))
                theirs = {o.name for o in form.options if o.gm_only}
                if theirs & set(options):
                    raise Refusal(403, "That option is the GM's to give; roll without it.")
            if not isinstance(trait, str) or not trait.strip():
                raise BadInput("Name the trait to roll.")

            def roll() -> list[Any]:
                live = self.feed.live
                ch = live.state().characters.get(cid)
                if ch is None:
                    raise NotFound("This phone's character is not in the campaign served.")
                given = {"character": ch.name, "trait": trait, "secret": secret, **options}
                return perform(live.table, ROLL, given).events

            events = await self.feed.call(roll)
            if asked_id is not None:
                await self.phones.answered(cid, str(asked_id))
            if any(e.visibility == "gm" for e in events):
                # Nothing of a blind roll, however it went: the players' stream has it sealed.
                return {"text": ["Rolled. The GM has it."], "blind": True}
            lines = await self.feed.call(self.feed.said, events, PLAYERS)
            return {"text": [line["text"] for line in lines], "lines": lines, "blind": False}

        return await self._guarded(request, phone_identity(key), run)

    async def _guarded(
        self,
        request: Request,
        identity: str | None,
        run: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]],
    ) -> Response:
        """Run a POST as ``identity`` (a phone's), or as the GM's key its cookie holds (None)."""
        # A phone is a player's: its refusals are in the table's words, not the command line's.
        words = str if identity is None else players_words
        if identity is None:
            held = await self.guard.gm(request, self.served())
            if held is None:
                return refused(403, GM_ONLY)
            identity = gm_identity(held[0])
            SCOPE.set(held[1].campaign_id)
        try:
            body, claim = await self.guard.check(request, identity)
        except Refusal as exc:
            return refused(exc.status, words(str(exc)), reload=exc.reload)
        # Copies of one request sent at once (a retry racing the first try) are answered one
        # after the other: the first runs, the rest read its answer.
        key = (claim.holder, claim.nonce)
        while key in self.answering:
            await self.answering[key].wait()
        self.answering[key] = asyncio.Event()
        try:
            return await self._answered(claim, body, run, words)
        finally:
            self.answering.pop(key).set()

    async def _answered(
        self,
        claim: Claim,
        body: dict[str, Any],
        run: Callable[..., Awaitable[dict[str, Any]]],
        words: Callable[[str], str],
    ) -> Response:
        """The answer to a request whose nonce is held by this one alone: the first answer
        again if it was sent before, else what running it answers, remembered."""
        store = self.feed.live.table.store
        replayed = await self._replayed(claim)
        if replayed is not None:
            return replayed
        status = 200
        with store.claiming(claim):  # remembered with what it logs, in one transaction
            try:
                doc = {"ok": True, **await run(body)}
            except Refusal as exc:
                status, doc = exc.status, {"error": words(str(exc))}
            except NotFound as exc:
                status, doc = 404, {"error": words(str(exc))}
            except TrackerError as exc:
                status = 400 if isinstance(exc, BadInput) else 409
                doc = {"error": words(str(exc))}
        if status != 200:
            # Refused because a copy sent to another server of this database logged first?
            replayed = await self._replayed(claim)
            if replayed is not None:
                return replayed
        # A refused request is remembered too: sent again later it is not run on a table that
        # has changed meanwhile. Should the database fail here, a request that logged is
        # remembered already (with its events), and one that did not can do no harm.
        with contextlib.suppress(*store.errors):
            await self.feed.call(store.remember, claim, json.dumps(doc, ensure_ascii=False))
        return JSONResponse(doc, status_code=status, headers=HEADERS)

    async def _replayed(self, claim: Claim) -> Response | None:
        """409 with the first answer when the request was sent before; None when it was not."""
        store = self.feed.live.table.store
        seen, first = await self.feed.call(store.answered, claim.holder, claim.nonce)
        if not seen:
            return None
        doc = {"error": SENT_ALREADY, "first": json.loads(first) if first else None}
        return JSONResponse(doc, status_code=409, headers=HEADERS)

    # -- the phone's own pages ------------------------------------------------------------------

    async def phone_entry(self, request: Request) -> Response | None:
        """A phone's link: the key into a cookie and out of the address; None when the
        request has no key in its address."""
        key = request.query_params.get("key")
        if key is None:
            return None
        if await self.guard.opens(key, INVITED_PHONE, self.pinned_to) is None:
            return refused(403, "This link is not live; ask the GM for a new one.")
        return let_in(request, self.prefix + "/phone", PHONE_COOKIE, key)

    def qr(self, request: Request, door: str) -> Response:
        """A character's phone link, or the players' (``PLAYERS_DOOR``), as a QR code (SVG),
        made here."""
        link = self.link(request, door)
        if link is None:
            return Response("No link of this server's for that page.", 404)
        try:
            import segno
        except ImportError:
            return Response("QR codes need segno: pip install 'tracker[serve]'.", 404)
        # A file of its own (the namespace an <img> needs to draw it), with the quiet zone of four
        # modules the standard asks for: a phone's camera finds the code on any background.
        svg = io.BytesIO()
        segno.make(link, error="m").save(
            svg, kind="svg", xmldecl=False, border=4, scale=6, dark="#000", light="#fff"
        )
        return Response(svg.getvalue(), media_type="image/svg+xml", headers=HEADERS)
