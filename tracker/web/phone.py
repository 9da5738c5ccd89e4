"""A player's phone: its link, its page, its character's state and feed, and its roll
(``/phone/roll``, answered by ``console.Console``); each for the one character its key is for.

The link (``/phone?key=KEY``) sets a cookie holding the key and drops it from the address; the
key is an invitation of the database's (``tracker.app.invitations``), live until it expires or
the GM revokes it. At the plain address the phone follows the table (and says when it is
elsewhere); at its campaign's own (``/c/TOKEN/phone``) it opens for that campaign's characters
alone. The phone's feed is the players'
(``feed.PLAYERS``), with its character as the players know it after each board.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from sse_starlette import ServerSentEvent
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from tracker.errors import TrackerError
from tracker.web.console import Console
from tracker.web.feed import Hub, Message, joined, sent
from tracker.web.guard import (
    HEADERS,
    PHONE_GONE,
    PLAYERS,
    Guard,
    answer,
    held_open,
    phone_identity,
    refused,
)
from tracker.web.pages import static_page


def routes(hub: Hub, guard: Guard, console: Console) -> list[Route]:
    """A player's phone at ``console.prefix``: its link, its page, state and feed, and its
    roll; each for the one character its key is for (of the campaign of the address, at a
    campaign's own)."""
    at = console.prefix + "/phone"

    async def phone_page(request: Request) -> Response:
        entry = await console.phone_entry(request)
        if entry is not None:
            return entry
        held = await guard.phone(request, console.pinned_to)
        if held is None:
            return HTMLResponse(static_page("phone.html", "refused", ""), 403, headers=HEADERS)
        page = static_page("phone.html", "phone", guard.page_token(phone_identity(held[0])))
        return HTMLResponse(page, headers=HEADERS)

    async def phone_state(request: Request) -> Response:
        held = await guard.phone(request, console.pinned_to)
        if held is None:
            return refused(403, PHONE_GONE)
        try:
            return answer(await hub.feed.call(console.phone_state, held[1]))
        except TrackerError as exc:
            return refused(404, str(exc))

    async def phone_events(request: Request) -> Response:
        held = await guard.phone(request, console.pinned_to)
        if held is None:
            return Response(PHONE_GONE, 403)
        queue, events = joined(request, hub, PLAYERS)
        mine = _with_character(hub, queue, events, console, held[1])
        return sent(held_open(guard.doors, held[0], queue, mine))

    return [
        Route(at, phone_page),
        Route(at + "/state", phone_state),
        Route(at + "/events", phone_events),
        Route(at + "/roll", console.phone_roll, methods=["POST"]),
    ]


async def _with_character(
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
                    waiting = await hub.feed.call(console.phones.waiting, character_id)
                    yield ServerSentEvent(data=waiting, event="request")
    finally:
        console.phones.leave(character_id, queue)
