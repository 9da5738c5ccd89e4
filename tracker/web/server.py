"""The table's live view: a web app that follows the campaign as it is logged.

Two views, each a page and a feed of Server-Sent Events:

- ``/`` and ``/events``: the players' view, made from the players' stream alone
  (``Live.since(..., player_view=True)``), so a secret roll reaches it sealed, whatever the
  request asks.
- ``/gm`` and ``/gm/events``: everything, for whoever holds the key printed at start-up (a new
  one each start). ``/gm?key=KEY`` sets a cookie and drops the key from the address; a request
  without the cookie is refused before anything is read.
- ``/gm`` is the GM's console, which acts through ``/gm/act``, ``/gm/ask`` and ``/gm/revoke``;
  ``/phone`` a character's phone (``/phone/roll``). Those routes are ``tracker.web.console``'s,
  guarded as ``tracker.web.guard`` says.

Every request is answered only when its Host header names this server (``Hosts``): a page
on another site that points a name of its own at this machine (DNS rebinding) is refused with
421 before anything is read, on every route.

Each feed message that is an event carries the event's version as its SSE id, so a page that
reconnects sends ``Last-Event-ID`` and is sent what it missed. After each batch comes a
``board`` message (tracks, Threat, what is owed, the session's luck), which has no id.

One task watches the head (one indexed lookup every ``EVERY`` seconds) and, when it moves,
reads what is new once per view and hands it to every page of that view. When the current
campaign is another (``Live.follow``), every page is sent a ``reset`` and the new campaign's
session. Database work runs in one worker thread at a time.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import re
import threading
from collections.abc import AsyncIterator, Callable
from importlib import resources
from typing import Any

import click
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from tracker.app.history import Change
from tracker.app.lines import sealed_line, summarize
from tracker.app.live import Live, Page
from tracker.errors import NotFound, TrackerError
from tracker.events import StoredEvent
from tracker.events import play as p
from tracker.events.effects import TrackChange
from tracker.projections.player import Sealed, player_stream
from tracker.projections.rolls import amending_types
from tracker.web.console import Console
from tracker.web.guard import (
    GM,
    GM_COOKIE,
    GM_ONLY,
    HEADERS,
    PLAYERS,
    Bucket,
    Guard,
    Phones,
    answer,
    refused,
)
from tracker.words import outcome_words, table_words

EVERY = 0.1

Message = tuple[int | None, str, str]
# Sent first when the view moved to another campaign: the page drops what it shows.
RESET: Message = (None, "reset", "{}")

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
# A host name as --allow-host takes it: letters, digits, hyphens (underscores, as some local
# networks name machines) between dots.
NAME = re.compile(r"[a-z0-9_-]+(\.[a-z0-9_-]+)*")
MISDIRECTED = "This server answers only its own addresses; open the one tracker serve printed.\n"


def host_of(value: str) -> str | Address | None:
    """The name (lower case, without a final dot) or the address a Host header gives, its port
    left off; None when it gives neither."""
    text = value.strip().lower()
    if text.startswith("["):
        inside, closed, port = text[1:].partition("]")
        if not closed or not _is_port(port):
            return None
        try:
            return ipaddress.IPv6Address(inside)
        except ValueError:
            return None
    name, colon, port = text.partition(":")
    if not _is_port(colon + port):
        return None
    name = name.removesuffix(".")
    try:
        return ipaddress.IPv4Address(name)
    except ValueError:
        return name if NAME.fullmatch(name) else None


def _is_port(text: str) -> bool:
    """Whether ``text`` may follow the host in a Host header: nothing, or a colon and digits."""
    return not text or (text[0] == ":" and text[1:].isascii() and text[1:].isdigit())


class Hosts:
    """Which Host headers the live view answers: ``localhost``, a loopback address, the address
    it listens on (any address when it listens on all of them, 0.0.0.0 or ::), and the names
    given. DNS rebinding needs a name the attacker's page was loaded under, so a name is
    answered only when it is one of these; an address in Host is where the browser connected,
    which a page elsewhere cannot point at this machine."""

    def __init__(self, listening: str, names: tuple[str, ...] = ()) -> None:
        self.names = {"localhost"}
        self.addresses: set[Address] = set()
        self.any_address = False
        for given in (listening, *names):
            try:
                found: str | Address | None = ipaddress.ip_address(given)  # :: or ::1 bare
            except ValueError:
                found = host_of(given)
            if found is None:
                raise ValueError(given)
            if isinstance(found, str):
                self.names.add(found)
            elif found.is_unspecified:
                self.any_address = True
            else:
                self.addresses.add(found)

    def answers(self, header: str) -> bool:
        found = host_of(header)
        if found is None:
            return False
        if isinstance(found, str):
            return found in self.names
        return self.any_address or found.is_loopback or found in self.addresses


class ServedHostsOnly:
    """Refuses, with 421 Misdirected Request, a request whose Host is not one ``hosts``
    answers (or that gives none, or two): before any route reads the log or sets a cookie."""

    def __init__(self, app: ASGIApp, hosts: Hosts) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = [value for name, value in scope["headers"] if name == b"host"]
            if len(given) != 1 or not self.hosts.answers(given[0].decode("latin-1")):
                refused = PlainTextResponse(MISDIRECTED, status_code=421, headers=HEADERS)
                await refused(scope, receive, send)
                return
        await self.app(scope, receive, send)


class Feed:
    """What the pages are sent, read from the log through one lock."""

    def __init__(self, live: Live) -> None:
        self.live = live
        self.lock = threading.Lock()
        self.names: dict[str, str] = {}
        self.boards: dict[tuple[str, str, int], str] = {}

    async def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        def locked() -> Any:
            with self.lock:
                return fn(*args, **kwargs)

        return await asyncio.to_thread(locked)

    def messages(self, view: str, after: int) -> tuple[int, list[Message]]:
        """The events after ``after`` in ``view`` and the board after them, and the head read.
        The board is made once per view and head, however many pages ask (a table of phones
        reconnecting at once after the Wi-Fi drops)."""
        players = view == PLAYERS
        page = self.live.since(after, player_view=players)
        # Read once a batch: which rolls points bought up, as this view may know it.
        bought = self.live.table.amended(self.live.row, player_view=players) if page.events else {}
        moved = self.live.changes(page, after, player_view=players)
        out: list[Message] = []
        for e in page.events:
            doc = self.item(e, page, view, bought)
            if moved.get(e.event_id):
                doc["changes"] = [_change_words(c) for c in moved[e.event_id]]
            out.append((e.version, "item", json.dumps(doc, ensure_ascii=False)))
        key = (view, self.live.campaign_id, page.head)
        board = self.boards.get(key)
        if board is None:
            board = json.dumps(self.live.board(player_view=players), ensure_ascii=False)
            self.boards = {k: v for k, v in self.boards.items() if k[0] != view}
            self.boards[key] = board
        out.append((None, "board", board))
        return page.head, out

    def item(
        self, event: StoredEvent, page: Page, view: str, bought: dict[str, str] | None = None
    ) -> dict[str, Any]:
        """One event as a page shows it: a roll as it ended (``bought``: the outcome points
        bought it up to, by its id). A buy-up, or an undo or redo of one, carries the roll it
        changes as it reads now (``amends``), for a page that showed it before to show it
        again."""
        bought = bought or {}
        if event.type == "CharacterAdded" or event.character_id not in self.names:
            self.names = self.live.table.campaigns.character_names()
        doc = _heading(event, page)
        if doc["sealed"]:
            who = self.names.get(event.character_id or "", "the GM")
            doc["text"] = sealed_line(who)
            return doc
        doc["text"] = summarize(event, self.names, bought)
        self._how_it_reads(doc, event, bought)
        self._what_it_names(doc, event, page, view, bought)
        if view == PLAYERS:
            # The same line the GM's command line prints, less what tells the GM what to type.
            doc["text"] = table_words(doc["text"])
            if "why" in doc:
                doc["why"] = [table_words(w) for w in doc["why"]]
        amends = [self.item(roll, page, view, bought) for roll in self._bought_rolls(event, view)]
        # A revealed buy-up changes its roll on the page too.
        amends += [a for shown in doc.get("reveals", ()) for a in shown.pop("amends", ())]
        if amends:
            doc["amends"] = amends
        return doc

    def _how_it_reads(
        self, doc: dict[str, Any], event: StoredEvent, bought: dict[str, str]
    ) -> None:
        """Into ``doc``, how its line reads: what a roll did not apply, why its number is what
        it is, its tone, and a roll's outcome in words and whether it was critical."""
        data = event.data
        if isinstance(data, p.RollMade):
            unapplied = self._not_applied(data)
            if unapplied:
                doc["not_applied"] = unapplied
        why = _why(self.live.state().rules, data)
        if why:
            doc["why"] = why
        # A roll points bought up is coloured as it ended, not as its dice fell.
        ended = bought.get(event.event_id) if isinstance(data, p.RollMade) else None
        rules = self.live.state().rules
        doc["tone"] = rules.tone(ended) if isinstance(ended, str) else self.live.tone(data)
        outcome = ended if isinstance(ended, str) else _outcome(rules, data)
        if outcome is not None:
            # The TV's last roll: its outcome in words, and whether it is past a plain one.
            doc["outcome"] = outcome_words(outcome)
            doc["critical"] = outcome in rules.critical_outcomes

    def _what_it_names(
        self, doc: dict[str, Any], event: StoredEvent, page: Page, view: str, bought: dict[str, str]
    ) -> None:
        """Into ``doc``, the events an undo took back, a redo put back (named in its line too)
        or a reveal showed (each as the view now reads it)."""
        data = event.data
        store, cid = self.live.table.store, self.live.campaign_id
        if isinstance(data, p.EventsRevoked):
            doc["undoes"] = list(data.event_ids)
            doc["text"] += self._naming(data.event_ids, view)
        elif isinstance(data, p.EventsRestored):
            doc["restores"] = list(data.event_ids)
            doc["text"] += self._naming(data.event_ids, view)
        elif isinstance(data, p.EventsRevealed):
            doc["reveals"] = [
                self.item(store.find_event(cid, ident), page, view, bought)
                for ident in data.event_ids
            ]

    def said(self, events: list[StoredEvent], view: str) -> list[dict[str, Any]]:
        """What an action logged, as the page that acted shows it beside its form: each event's
        line, its tone, whether it is secret; for the GM also what it moved and what it did
        not apply, as the feed says them."""
        if not events:
            return []
        state = self.live.state()
        page = Page(events, set(state.revoked), state.version)
        moved = (
            {}
            if view == PLAYERS
            else self.live.changes(page, events[0].version - 1, player_view=False)
        )
        lines = []
        for event in events:
            item = self.item(event, page, view)
            line: dict[str, Any] = {
                "version": event.version,
                "text": item["text"],
                "tone": item["tone"],
                "critical": bool(item.get("critical")),
                "secret": item["secret"],
                # A reveal names what it showed: which secret went, by its line.
                "why": item.get("why")
                or [f"#{shown['version']} {shown['text']}" for shown in item.get("reveals", ())],
            }
            if view != PLAYERS:
                line["changes"] = [
                    *(_change_words(c) for c in moved.get(event.event_id, ())),
                    *item.get("not_applied", ()),
                ]
            lines.append(line)
        return lines

    def _not_applied(self, data: p.RollMade) -> list[str]:
        """What a roll took from a track its character's sheet lacks (a caster's backlash on a
        sheet with no HP), which the fold applies nothing of: "12 HP of backlash, not
        applied", as the roll's command said it."""
        state = self.live.state()
        out = []
        for roll in data.with_followups():
            for effect in roll.effects:
                if not isinstance(effect, TrackChange) or effect.track not in ("hp", "fp"):
                    continue
                ch = state.characters.get(effect.character_id or roll.character_id)
                if ch is not None and getattr(ch, effect.track) is None:
                    cause = f" of {effect.cause}" if effect.cause else ""
                    out.append(f"{-effect.delta} {effect.track.upper()}{cause}, not applied")
        return out

    def _naming(self, ids: tuple[str, ...] | list[str], view: str, shown: int = 3) -> str:
        """What an undo or a redo took back or put back, as the view may read it (a secret
        roll the players were not shown stays "a secret event for ..."): the first few lines."""
        store, cid = self.live.table.store, self.live.campaign_id
        revealed = self.live.table.revealed(self.live.row) if view == PLAYERS else set()
        lines = []
        for ident in list(ids)[:shown]:
            try:
                event = store.find_event(cid, ident)
            except NotFound:  # an undo names only events of its log; an import may not
                continue
            if view == PLAYERS:
                event = next(player_stream([event], revealed), None)
                if event is None:
                    continue
            if isinstance(event.data, Sealed):
                who = self.names.get(event.character_id or "", "the GM")
                lines.append(f"#{event.version} {sealed_line(who)}")
            else:
                lines.append(f"#{event.version} {summarize(event, self.names)}")
        if not lines:
            return ""
        more = len(ids) - shown
        return " — " + "; ".join(lines) + (f"; and {more} more" if more > 0 else "")

    def _bought_rolls(self, event: StoredEvent, view: str) -> list[StoredEvent]:
        """The rolls whose outcome ``event`` changed: the roll a buy-up bought up, or those of
        the buy-ups an undo or a redo took back or put back. In the players' view only what
        they were shown, buy-up and roll alike: whether a secret event was a buy-up is not
        theirs to learn from the page."""
        data = event.data
        store, cid = self.live.table.store, self.live.campaign_id
        if isinstance(data, p.RollAmended):
            named = [event]
        elif isinstance(data, (p.EventsRevoked, p.EventsRestored)):
            # Through the type index: an undo of a whole session names many events, few of
            # them buy-ups.
            ids = set(data.event_ids)
            buys = store.read(cid, types=amending_types(), sparse=True)
            named = [b for b in buys if b.event_id in ids]
        else:
            return []
        revealed = self.live.table.revealed(self.live.row) if view == PLAYERS else set()

        def shown(e: StoredEvent) -> bool:
            return view != PLAYERS or e.visibility != "gm" or e.event_id in revealed

        rolls = []
        for buy in named:
            if isinstance(buy.data, p.RollAmended) and shown(buy):
                roll = store.find_event(cid, buy.data.roll_event_id)
                if shown(roll):
                    rolls.append(roll)
        return rolls


def _heading(event: StoredEvent, page: Page) -> dict[str, Any]:
    """What every line of a feed carries, sealed or not: which event it is, when and in which
    session it was logged, whether it is sealed, secret or undone; its tone is read later."""
    return {
        "id": event.event_id,
        "version": event.version,
        "time": event.recorded_at,
        "session": event.session_id,
        "type": event.type,
        "sealed": isinstance(event.data, Sealed),
        "secret": event.visibility == "gm",
        "undone": event.event_id in page.undone,
        "tone": None,
    }


def _outcome(rules: Any, data: Any) -> str | None:
    """The outcome of the one roll an event made (a roll, a panic or fright check), as its
    system names it; None for an event that rolled nothing, and for a contest."""
    if not getattr(data, "rolls", False) or isinstance(data, p.ContestRolled):
        return None
    try:
        facts = rules.roll_facts(data)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return None
    if len(facts) != 1 or not facts[0].outcome:
        return None
    return str(facts[0].outcome)


DICE_FROM = {"physical": "the table's dice", "system": "the server's dice", "seeded": "seeded dice"}


def _why(rules: Any, data: Any) -> list[str]:
    """Why a line's number is what it is, as a feed says it under the line: a roll's
    modifiers as its system words them ("−2 rude", a Glintlock roll's tags), whose dice they
    were (the table's or the server's); an HP, FP or stress line's cause."""
    if isinstance(data, (p.TrackChanged, p.StressChanged)):
        return [data.cause] if data.cause else []
    if not isinstance(data, p.RollMade):
        return []
    why = []
    try:
        facts = rules.roll_facts(data)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        facts = []
    if len(facts) == 1:
        for part in (facts[0].modifiers or "").split("; "):
            number, _, label = part.strip().partition(" ")
            if not re.fullmatch(r"[+-]\d+", number):
                continue
            said = number.replace("-", "\u2212")
            # An unnamed modifier is stored as "modifier": say the number alone.
            why.append(said if label in ("", "modifier") else f"{said} {label}")
        # Why two dice and which was kept: a desperate roll keeps the lower.
        position = rules.position_said.get(facts[0].position or "")
        if position:
            why.append(position)
    source = DICE_FROM.get(data.dice_source)
    if source:
        why.append(source)
    return why


def _change_words(change: Change) -> str:
    """A track an event moved, as a feed line says it: "Wren Mettle +1", "Threat 3 → 5"."""
    who = f"{change.who} " if change.who else ""
    before, after = change.before, change.after
    if change.track == "obligations":  # the replay's count of what is owed, in the table's word
        return f"owed {after - before:+d}"
    if isinstance(before, int) and isinstance(after, int) and not isinstance(after, bool):
        return f"{who}{change.track} {after - before:+d}"
    return f"{who}{change.track}: {'—' if before is None else before} → {after}"


class Hub:
    """Watches the head and hands each view's new messages to every page of that view."""

    def __init__(self, feed: Feed, every: float = EVERY) -> None:
        self.feed = feed
        self.every = every
        self.pages: dict[str, set[asyncio.Queue[list[Message] | None]]] = {
            PLAYERS: set(),
            GM: set(),
        }
        self.head = 0

    async def run(self) -> None:
        live = self.feed.live
        self.head = await self.feed.call(live.head)
        watcher = await self.feed.call(live.watcher)
        failing = False
        try:
            while True:
                try:
                    await self._step(watcher)
                    failing = False
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    # A locked or unreachable database, a dropped PostgreSQL connection: say it
                    # once, wait, and try again, with a new listener where one was lost.
                    if not failing:
                        click.echo(
                            f"tracker serve: cannot read the log ({exc}); retrying.", err=True
                        )
                    failing = True
                    await asyncio.sleep(1.0)
                    if watcher.listening:
                        watcher.close()
                        watcher = await self.feed.call(live.watcher)
        finally:
            watcher.close()

    async def _step(self, watcher: Any) -> None:
        """Wait for the log to move (or a moment), and hand each view what is new; when the
        current campaign is another, every page starts afresh on it."""
        if watcher.listening:
            # PostgreSQL: woken by an append's notification, or once a second to see whether
            # the current campaign changed (choosing one appends nothing, so notifies nothing).
            woken = await asyncio.to_thread(watcher.wait, 1.0)
        else:
            await asyncio.sleep(self.every)
            woken = watcher.changed()
            if not woken:
                return
        if await self.feed.call(self.feed.live.follow):
            await self._switch()
            return
        if not woken:
            return
        head = await self.feed.call(self.feed.live.head)
        if head == self.head:
            return
        before = self.head
        for view, queues in self.pages.items():
            if not queues:
                continue
            _, batch = await self.feed.call(self.feed.messages, view, before)
            for queue in list(queues):
                queue.put_nowait(batch)
        self.head = head

    async def _switch(self) -> None:
        """Every page told to start afresh, and sent the new campaign's session shown."""
        live = self.feed.live
        self.head = await self.feed.call(live.head)
        start = await self.feed.call(live.session_start)
        for view, queues in self.pages.items():
            if not queues:
                continue
            _, batch = await self.feed.call(self.feed.messages, view, start)
            for queue in list(queues):
                queue.put_nowait([RESET, *batch])

    @property
    def token(self) -> str:
        """What a feed's ids start with (``Live.token``)."""
        return self.feed.live.token

    async def follow(self) -> None:
        """The console made another campaign current: every page turns to it now, not at the
        watcher's next look."""
        if await self.feed.call(self.feed.live.follow):
            self.feed.names = {}
            await self._switch()

    def join(self, view: str) -> asyncio.Queue[list[Message] | None]:
        queue: asyncio.Queue[list[Message] | None] = asyncio.Queue()
        self.pages[view].add(queue)
        return queue

    def close(self) -> None:
        """Ask every feed to end its response (the server is stopping)."""
        for queues in self.pages.values():
            for queue in queues:
                queue.put_nowait(None)

    def leave(self, view: str, queue: asyncio.Queue[list[Message] | None]) -> None:
        self.pages[view].discard(queue)


def make_app(
    live: Live,
    key: str,
    *,
    every: float = EVERY,
    hosts: Hosts | None = None,
    phones: Phones | None = None,
    base: str | None = None,
    rates: Rates | None = None,
) -> Starlette:
    """The live view's web app for ``live``'s campaign; ``key`` opens the GM's console;
    ``hosts`` are the Host headers it answers (by default those of a server on 127.0.0.1);
    ``phones`` the characters' phone keys; ``base`` the address phones open it by (by
    default the one the console was opened by); ``rates`` the clients' token buckets."""
    hub = Hub(Feed(live), every)
    # The console acts on the campaign served, whatever another process makes current.
    live.table.chosen = live.campaign_id
    phones = phones or Phones()
    guard = Guard(key, phones)
    console = Console(hub, guard, base)

    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        watcher = asyncio.create_task(hub.run())
        try:
            yield
        finally:
            watcher.cancel()

    app = Starlette(
        routes=[
            *_players_routes(hub),
            *_gm_routes(hub, guard, console),
            *_phone_routes(hub, guard, console),
        ],
        middleware=[
            Middleware(ServedHostsOnly, hosts=hosts or Hosts("127.0.0.1")),
            Middleware(Throttled, rates=rates or RATES),
            Middleware(BodyLimit),
        ],
        lifespan=_lifespan(lifespan),
        # Starlette answers with this and re-raises, so the server logs the traceback once.
        exception_handlers={Exception: _failed},
    )
    app.state.hub = hub
    app.state.phones = phones
    return app


def _players_routes(hub: Hub) -> list[Route]:
    """What anyone who reaches the server is served: the players' page, its feed, the pages'
    files."""

    async def players_page(request: Request) -> Response:
        return HTMLResponse(_page(PLAYERS), headers=HEADERS)

    async def players_events(request: Request) -> Response:
        return _stream(request, hub, PLAYERS)

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ASSETS:
            return Response("Not found.", 404)
        body = (resources.files("tracker.web") / "static" / name).read_bytes()
        return Response(body, media_type=ASSETS[name], headers=HEADERS)

    return [
        Route("/", players_page),
        Route("/events", players_events),
        Route("/static/{name}", asset),
    ]


def _gm_routes(hub: Hub, guard: Guard, console: Console) -> list[Route]:
    """The GM's console: its page, its feed and state, and the actions; each refused before
    anything is read without the GM's cookie."""

    async def gm_page(request: Request) -> Response:
        return _gm_page(request, guard)

    async def gm_events(request: Request) -> Response:
        if not guard.is_gm(request):
            return Response("The GM's view needs the key `tracker serve` printed.", 403)
        return _stream(request, hub, GM)

    async def gm_state(request: Request) -> Response:
        if not guard.is_gm(request):
            return refused(403, GM_ONLY)
        return answer(await hub.feed.call(console.gm_state, request))

    async def gm_qr(request: Request) -> Response:
        if not guard.is_gm(request):
            return refused(403, GM_ONLY)
        return console.qr(request, request.path_params["character"])

    return [
        Route("/gm", gm_page),
        Route("/gm/events", gm_events),
        Route("/gm/state", gm_state),
        Route("/gm/act", console.act, methods=["POST"]),
        Route("/gm/ask", console.ask, methods=["POST"]),
        Route("/gm/revoke", console.revoke, methods=["POST"]),
        Route("/gm/qr/{character}", gm_qr),
    ]


def _phone_routes(hub: Hub, guard: Guard, console: Console) -> list[Route]:
    """A player's phone: its link, its page, state and feed, and its roll; each for the one
    character its key is for."""

    async def phone_page(request: Request) -> Response:
        entry = console.phone_entry(request)
        if entry is not None:
            return entry
        held = guard.phone(request)
        if held is None:
            return HTMLResponse(_static_page("phone.html", "refused", ""), 403, headers=HEADERS)
        page = _static_page("phone.html", "phone", guard.token("phone:" + held[0]))
        return HTMLResponse(page, headers=HEADERS)

    async def phone_state(request: Request) -> Response:
        held = guard.phone(request)
        if held is None:
            return refused(403, "This phone's link is not live; ask the GM for a new one.")
        try:
            return answer(await hub.feed.call(console.phone_state, held[1]))
        except TrackerError as exc:
            return refused(404, str(exc))

    async def phone_events(request: Request) -> Response:
        held = guard.phone(request)
        if held is None:
            return Response("This phone's link is not live; ask the GM for a new one.", 403)
        return _stream(request, hub, PLAYERS, phone=(console, held[1]))

    return [
        Route("/phone", phone_page),
        Route("/phone/state", phone_state),
        Route("/phone/events", phone_events),
        Route("/phone/roll", console.phone_roll, methods=["POST"]),
    ]


FAILED = "The server failed on this request; what failed is in its terminal.\n"


async def _failed(request: Request, exc: Exception) -> Response:
    """What a request hears of an error no route foresaw: one sentence, never a traceback."""
    return PlainTextResponse(FAILED, status_code=500, headers=HEADERS)


def _gm_page(request: Request, guard: Guard) -> Response:
    """The GM's console for a browser that holds the key; one that gives it in the address is
    sent back without it, holding it in a cookie."""
    given = request.query_params.get("key")
    if given is not None:
        if not hmac.compare_digest(given.encode(), guard.key.encode()):
            return _refused()
        # The key goes into a cookie and out of the address bar and the history.
        response = RedirectResponse("/gm", status_code=303, headers=HEADERS)
        response.set_cookie(GM_COOKIE, guard.key, httponly=True, samesite="strict", path="/gm")
        return response
    if not guard.is_gm(request):
        return _refused()
    return HTMLResponse(_static_page("console.html", GM, guard.token(GM)), headers=HEADERS)


def _refused() -> Response:
    return HTMLResponse(_static_page("console.html", "refused", ""), 403, headers=HEADERS)


def _stream(
    request: Request, hub: Hub, view: str, phone: tuple[Console, str] | None = None
) -> Response:
    """A view's feed for one page, from the last event it saw (``Last-Event-ID``); a
    ``phone`` (the console and its character's id) is also sent its character after each
    board, and the GM's requests of it."""
    # An id is the campaign's token and the event's version: a page that comes back from
    # another campaign or database (or with an id past the head) starts afresh.
    given = request.headers.get("last-event-id") or ""
    prefix, _, number = given.rpartition("-")
    token = hub.token
    digits = number.isascii() and number.isdigit()  # "²" is a digit to isdigit, not to int
    seen = int(number) if prefix == token and digits and len(number) < 16 else -1
    queue = hub.join(view)
    events = _events(hub, view, queue, given, seen)
    if phone is not None:
        events = _phone_events(hub, queue, events, *phone)
    return EventSourceResponse(events, ping=15, headers=HEADERS)


async def _phone_events(
    hub: Hub,
    queue: asyncio.Queue[list[Message] | None],
    events: AsyncIterator[ServerSentEvent],
    console: Console,
    character_id: str,
) -> AsyncIterator[ServerSentEvent]:
    """The players' feed, and after each board the phone's character as the players know
    it (``me``); the GM's request waiting, at once and whenever it changes."""
    console.phones.join(character_id, queue)
    try:
        first = True
        async for message in events:
            yield message
            if message.event == "board":
                try:
                    me = await hub.feed.call(console.phone_state, character_id)
                except TrackerError:
                    # The table turned to a campaign she is not in: the phone says so and
                    # stays, to come back by itself when the table turns back.
                    away = await hub.feed.call(console.away, character_id)
                    yield ServerSentEvent(data=json.dumps(away, ensure_ascii=False), event="away")
                    continue
                yield ServerSentEvent(data=json.dumps(me, ensure_ascii=False), event="me")
                if first:
                    first = False
                    yield ServerSentEvent(
                        data=console.phones.waiting(character_id), event="request"
                    )
    finally:
        console.phones.leave(character_id, queue)


async def _events(
    hub: Hub,
    view: str,
    queue: asyncio.Queue[list[Message] | None],
    given: str,
    seen: int,
) -> AsyncIterator[ServerSentEvent]:
    """What a page missed since event ``seen`` (its ``given`` id), then what is logged, until
    the page leaves or the server stops."""
    feed = hub.feed
    try:
        # Joined first, then caught up: what is logged meanwhile comes through the
        # queue, and anything sent already is skipped by its id. A new page starts at
        # the running session.
        if (given and seen < 0) or seen > await feed.call(feed.live.head):
            seen = -1
            yield ServerSentEvent(data="{}", event="reset")
        if seen < 0:
            seen = await feed.call(feed.live.session_start)
        seen, batch = await feed.call(feed.messages, view, seen)
        while True:
            token = feed.live.token
            for ident, kind, data in batch:
                yield ServerSentEvent(
                    data=data, event=kind, id=None if ident is None else f"{token}-{ident}"
                )
            fresh = await queue.get()
            if fresh is None:
                return
            if fresh and fresh[0] == RESET:  # another campaign: its versions start over
                seen = -1
            batch = [m for m in fresh if m[0] is None or m[0] > seen]
            seen = max([seen, *(m[0] for m in batch if m[0] is not None)])
    finally:
        hub.leave(view, queue)


ASSETS = {
    "live.js": "text/javascript",
    "live.css": "text/css",
    "feed.js": "text/javascript",
    "console.js": "text/javascript",
    "phone.js": "text/javascript",
    "table.css": "text/css",
}


def _page(view: str) -> str:
    html = (resources.files("tracker.web") / "static" / "live.html").read_text(encoding="utf-8")
    return html.replace("{{view}}", view)


def _static_page(name: str, view: str, token: str) -> str:
    """A page of ``static/`` for ``view``, with the token its actions send back."""
    html = (resources.files("tracker.web") / "static" / name).read_text(encoding="utf-8")
    return html.replace("{{view}}", view).replace("{{csrf}}", token)


Rates = dict[str, tuple[float, float]]
RATES: Rates = {"POST": (20, 2.0), "GET": (240, 40.0)}
"""Per client address: actions, 20 at once and then 2 a second; pages, feeds and their data,
240 at once and then 40 a second (a page that loses the server reconnects by itself)."""
TOO_MANY = "Too many requests from this address; wait a moment and try again.\n"


class Throttled:
    """Refuses, with 429, a client address past its bucket (``RATES``): actions counted apart
    from pages, so a flood of page loads does not stop the GM rolling, nor the reverse."""

    def __init__(self, app: ASGIApp, rates: Rates) -> None:
        self.app = app
        self.buckets = {method: Bucket(*rate) for method, rate in rates.items()}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope["path"].startswith("/static/"):
            bucket = self.buckets["POST" if scope["method"] == "POST" else "GET"]
            client = (scope.get("client") or ("?", 0))[0]
            if not bucket.take(client):
                await PlainTextResponse(TOO_MANY, status_code=429, headers=HEADERS)(
                    scope, receive, send
                )
                return
        await self.app(scope, receive, send)


LARGEST_BODY = 16_384
"""The most any request may send: an action is a few hundred bytes, and no page sends more."""
TOO_LARGE = "That request is too large for this server; send the page's own action.\n"


class BodyLimit:
    """Refuses, with 413, a request whose body would pass ``largest`` bytes, for every route:
    on its Content-Length before any of it is read, and a body sent without one (chunked) as
    soon as what arrived passes the limit. The answer closes the connection, so the rest of the
    body is never read. A chunked body within the limit is read whole here and handed on as it
    came; one with a length is left to the route, which reads it only if it acts on it."""

    def __init__(self, app: ASGIApp, largest: int = LARGEST_BODY) -> None:
        self.app = app
        self.largest = largest

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = scope["headers"]
        # The HTTP server has refused a malformed or doubled Content-Length already.
        length = next((v for n, v in headers if n == b"content-length"), None)
        chunked = any(n == b"transfer-encoding" for n, _ in headers)
        if length is not None and (
            not (length.isascii() and length.isdigit()) or int(length) > self.largest
        ):
            await self._refuse(scope, receive, send)
            return
        if not chunked:
            # Within the limit as announced, and the HTTP server reads no more than announced:
            # the route reads it, if it needs it at all.
            await self.app(scope, receive, send)
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client left
                return
            body += message.get("body", b"")
            if len(body) > self.largest:
                await self._refuse(scope, receive, send)
                return
            if not message.get("more_body", False):
                break
        handed = False

        async def replay() -> Any:
            nonlocal handed
            if handed:
                return await receive()
            handed = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}

        await self.app(scope, replay, send)

    @staticmethod
    async def _refuse(scope: Scope, receive: Receive, send: Send) -> None:
        refusal = PlainTextResponse(
            TOO_LARGE, status_code=413, headers={**HEADERS, "Connection": "close"}
        )
        await refusal(scope, receive, send)


def _lifespan(fn: Callable[[Starlette], AsyncIterator[None]]) -> Any:
    from contextlib import asynccontextmanager

    return asynccontextmanager(fn)
