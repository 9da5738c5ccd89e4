"""What the pages are sent: each view's feed of Server-Sent Events, read from the log once.

Two views: the players' (``PLAYERS``), made from the players' stream alone
(``Live.since(..., player_view=True)``), so a secret roll reaches it sealed, whatever the
request asks; and the GM's (``GM``), everything.

Each feed message that is an event carries the event's version as its SSE id, so a page that
reconnects sends ``Last-Event-ID`` and is sent what it missed. After each batch comes a
``board`` message (tracks, Threat, what is owed, the session's luck), which has no id.

One task (``Bell``) watches the database for the whole server, however many campaigns it
serves (on SQLite two ``stat`` calls every ``EVERY`` seconds, on PostgreSQL an append's
notification), and rings each campaign's ``Hub``; a hub whose campaign's head moved reads
what is new once per view and hands it to every page of that view. When the current campaign
is another (``Live.follow``), every page of the plain addresses is sent a ``reset`` and the
new campaign's session. Database work runs in one worker thread at a time per campaign
(``Feed.call``).
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

import click
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.requests import Request
from starlette.responses import Response

from tracker.app.history import Change
from tracker.app.lines import sealed_line, summarize
from tracker.app.live import Live, Page
from tracker.errors import NotFound
from tracker.events import StoredEvent
from tracker.events import play as p
from tracker.events.effects import TrackChange
from tracker.projections.player import Sealed, player_stream
from tracker.projections.rolls import amending_types
from tracker.systems.capabilities import OwnWords, able
from tracker.web.guard import GM, HEADERS, PLAYERS
from tracker.words import outcome_words, table_words

EVERY = 0.1

Message = tuple[int | None, str, str]
# Sent first when the view moved to another campaign: the page drops what it shows.
RESET: Message = (None, "reset", "{}")


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
            doc["text"] = self._sealed(event)
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
            doc["critical"] = outcome in able(rules, OwnWords).critical_outcomes

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

    def _sealed(self, event: StoredEvent) -> str:
        """A sealed event's line: "a secret event for Mira", or for the GM when no one's."""
        return sealed_line(self.names.get(event.character_id or "", "the GM"))

    def _revealed(self, view: str) -> set[str]:
        """The secret events the players were shown, for the players' view; none is needed
        for the GM's, which holds every event."""
        return self.live.table.revealed(self.live.row) if view == PLAYERS else set()

    def _naming(self, ids: tuple[str, ...] | list[str], view: str, shown: int = 3) -> str:
        """What an undo or a redo took back or put back, as the view may read it (a secret
        roll the players were not shown stays "a secret event for ..."): the first few lines."""
        store, cid = self.live.table.store, self.live.campaign_id
        revealed = self._revealed(view)
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
                lines.append(f"#{event.version} {self._sealed(event)}")
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
        revealed = self._revealed(view)

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
        lead = facts[0].lead
        if lead:
            why.append(able(rules, OwnWords).lead_said.get(lead, lead))
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


class Bell:
    """The one watcher of the database a server keeps, however many campaigns it serves: it
    looks as cheaply as the database allows (``Watcher``: on SQLite two ``stat`` calls every
    ``every`` seconds; on PostgreSQL an append's notification, which names its campaign) and
    rings the hubs whose campaign may have moved. One watcher, not one per campaign: on
    PostgreSQL each holds a connection and a thread waiting on it."""

    def __init__(self, table: Any, every: float = EVERY) -> None:
        self.table = table
        self.every = every
        self.hubs: list[Hub] = []

    async def add(self, hub: Hub) -> None:
        """Ring ``hub`` too from now on, where the log stands now read first."""
        await hub.open()
        self.hubs.append(hub)

    async def run(self) -> None:
        from tracker.app.live import Watcher

        watcher = await asyncio.to_thread(Watcher, self.table)
        failing = False
        try:
            while True:
                try:
                    await self._look(watcher)
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
                        watcher = await asyncio.to_thread(Watcher, self.table)
        finally:
            watcher.close()

    async def _look(self, watcher: Any) -> None:
        """Wait for the log to move (or a moment), then ring every hub."""
        if watcher.listening:
            # PostgreSQL: woken by an append's notification, or once a second to see whether
            # the current campaign changed (choosing one appends nothing, so notifies nothing).
            moved: set[str] | None = await asyncio.to_thread(watcher.heard, 1.0)
        else:
            await asyncio.sleep(self.every)
            if not watcher.changed():
                return
            moved = None
        hubs = list(self.hubs)
        # The heads of every campaign the log may have grown in, read at once: a hub whose
        # head stands still reads nothing more.
        served = [hub.feed.live.campaign_id for hub in hubs]
        wanted = served if moved is None else [cid for cid in served if cid in moved]
        heads = await asyncio.to_thread(self.table.store.heads, wanted) if wanted else {}
        for hub in hubs:
            await hub.rung(heads.get(hub.feed.live.campaign_id))


class Hub:
    """Hands each view's new messages to every page of that view, when the bell rings."""

    def __init__(self, feed: Feed) -> None:
        self.feed = feed
        # view -> the queue of every page following it.
        self.queues: dict[str, set[asyncio.Queue[list[Message] | None]]] = {
            PLAYERS: set(),
            GM: set(),
        }
        self.head = 0

    async def open(self) -> None:
        """Read where the log stands, before any page joins: what comes after is new."""
        self.head = await self.feed.call(self.feed.live.head)

    async def rung(self, head: int | None) -> None:
        """The bell rang (``Bell``), with the head of this hub's campaign as it read it (None:
        not read, the log having moved elsewhere). Hand each view what is new; when the
        current campaign is another, every page starts afresh on it."""
        if not self.feed.live.pinned and await self.feed.call(self.feed.live.follow):
            await self._switch()
            return
        if head is None or head == self.head:
            return
        before = self.head
        for view, queues in self.queues.items():
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
        for view, queues in self.queues.items():
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
        self.queues[view].add(queue)
        return queue

    def close(self) -> None:
        """Ask every feed to end its response (the server is stopping)."""
        for queues in self.queues.values():
            for queue in queues:
                queue.put_nowait(None)

    def leave(self, view: str, queue: asyncio.Queue[list[Message] | None]) -> None:
        self.queues[view].discard(queue)


def joined(
    request: Request, hub: Hub, view: str
) -> tuple[asyncio.Queue[list[Message] | None], AsyncIterator[ServerSentEvent]]:
    """A view's feed for one page, from the last event it saw (``Last-Event-ID``), and the
    queue through which the hub hands it what is new."""
    # An id is the campaign's token and the event's version: a page that comes back from
    # another campaign or database (or with an id past the head) starts afresh.
    given = request.headers.get("last-event-id") or ""
    prefix, _, number = given.rpartition("-")
    token = hub.token
    digits = number.isascii() and number.isdigit()  # "²" is a digit to isdigit, not to int
    seen = int(number) if prefix == token and digits and len(number) < 16 else -1
    queue = hub.join(view)
    return queue, _events(hub, view, queue, given, seen)


def stream(request: Request, hub: Hub, view: str) -> Response:
    """A view's feed for one page, as the response that sends it."""
    return sent(joined(request, hub, view)[1])


def sent(events: AsyncIterator[ServerSentEvent]) -> Response:
    """A response sending ``events`` as they come, with a ping every 15 seconds."""
    return EventSourceResponse(events, ping=15, headers=HEADERS)


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
