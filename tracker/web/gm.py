"""The GM's console: its page, its feed (everything, secrets included) and state, its QR codes
and the actions (``/gm/act``, ``/gm/ask``, ``/gm/revoke``, answered by ``console.Console``).

``/gm?key=KEY`` sets a cookie holding a key of the GM's (an invitation, printed when it was
made) and drops the key from the address; every route here refuses a request without a live
one before anything is read.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from tracker.web.console import Console
from tracker.web.feed import Hub, joined, sent
from tracker.web.guard import (
    GM,
    GM_COOKIE,
    GM_ONLY,
    HEADERS,
    Guard,
    answer,
    gm_identity,
    held_open,
    let_in,
    refused,
)
from tracker.web.pages import static_page


def routes(hub: Hub, guard: Guard, console: Console) -> list[Route]:
    """The GM's console: its page, its feed and state, and the actions; each refused before
    anything is read without the GM's cookie."""

    async def gm_page(request: Request) -> Response:
        return await _console_page(request, guard)

    async def gm_events(request: Request) -> Response:
        key = await guard.gm(request)
        if key is None:
            return Response(GM_ONLY, 403)
        queue, events = joined(request, hub, GM)
        return sent(held_open(guard.doors, key, queue, events))

    async def gm_state(request: Request) -> Response:
        key = await guard.gm(request)
        if key is None:
            return refused(403, GM_ONLY)
        yours = await guard.doors.opened(key)
        state = await hub.feed.call(console.gm_state, request)
        state["invitations"] = await hub.feed.call(
            console.invitations, yours.invitation_id if yours else None
        )
        return answer(state)

    async def gm_qr(request: Request) -> Response:
        if await guard.gm(request) is None:
            return refused(403, GM_ONLY)
        return console.qr(request, request.path_params["character"])

    return [
        Route("/gm", gm_page),
        Route("/gm/events", gm_events),
        Route("/gm/state", gm_state),
        Route("/gm/act", console.act, methods=["POST"]),
        Route("/gm/ask", console.ask, methods=["POST"]),
        Route("/gm/revoke", console.revoke, methods=["POST"]),
        Route("/gm/invite", console.invite, methods=["POST"]),
        Route("/gm/uninvite", console.uninvite, methods=["POST"]),
        Route("/gm/qr/{character}", gm_qr),
    ]


async def _console_page(request: Request, guard: Guard) -> Response:
    """The GM's console for a browser that holds a key of the GM's; one that gives it in the
    address is sent back without it, holding it in a cookie."""
    given = request.query_params.get("key")
    if given is not None:
        if not await guard.opens_console(given):
            return _refused_page()
        return let_in(request, "/gm", GM_COOKIE, given)
    key = await guard.gm(request)
    if key is None:
        return _refused_page()
    page = static_page("console.html", GM, guard.page_token(gm_identity(key)))
    return HTMLResponse(page, headers=HEADERS)


def _refused_page() -> Response:
    return HTMLResponse(static_page("console.html", "refused", ""), 403, headers=HEADERS)
