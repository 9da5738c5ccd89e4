"""The GM's console: its page, its feed (everything, secrets included) and state, its QR codes
and the actions (``/gm/act``, ``/gm/ask``, ``/gm/revoke``, answered by ``console.Console``).

``/gm?key=KEY`` sets a cookie holding a key of the GM's (an invitation, printed when it was
made) and drops the key from the address; every route here refuses a request without a live
one before anything is read. A key made for one campaign opens that campaign's console alone:
at its own address (``/c/TOKEN/gm``), or at the plain one while that campaign is current.
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
    INVITED_GM,
    Guard,
    answer,
    gm_identity,
    held_open,
    let_in,
    refused,
)
from tracker.web.pages import static_page


def routes(hub: Hub, guard: Guard, console: Console) -> list[Route]:
    """The GM's console at ``console.prefix``: its page, its feed and state, and the
    actions; each refused before anything is read without the GM's cookie."""
    at = console.prefix + "/gm"

    async def gm_page(request: Request) -> Response:
        given = request.query_params.get("key")
        if given is not None:
            if await guard.opens(given, INVITED_GM, console.served()) is None:
                return _refused_page()
            return let_in(request, at, GM_COOKIE, given)
        held = await guard.gm(request, console.served())
        if held is None:
            return _refused_page()
        page = static_page("console.html", GM, guard.page_token(gm_identity(held[0])))
        return HTMLResponse(page, headers=HEADERS)

    async def gm_events(request: Request) -> Response:
        held = await guard.gm(request, console.served())
        if held is None:
            return Response(GM_ONLY, 403)
        queue, events = joined(request, hub, GM)
        return sent(held_open(guard.doors, held[0], queue, events))

    async def gm_state(request: Request) -> Response:
        held = await guard.gm(request, console.served())
        if held is None:
            return refused(403, GM_ONLY)
        yours = held[1]
        state = await hub.feed.call(console.gm_state, request, yours.campaign_id)
        state["invitations"] = await hub.feed.call(
            console.invitations, yours.invitation_id, yours.campaign_id
        )
        return answer(state)

    async def gm_qr(request: Request) -> Response:
        if await guard.gm(request, console.served()) is None:
            return refused(403, GM_ONLY)
        return console.qr(request, request.path_params["character"])

    return [
        Route(at, gm_page),
        Route(at + "/events", gm_events),
        Route(at + "/state", gm_state),
        Route(at + "/act", console.act, methods=["POST"]),
        Route(at + "/ask", console.ask, methods=["POST"]),
        Route(at + "/revoke", console.revoke, methods=["POST"]),
        Route(at + "/invite", console.invite, methods=["POST"]),
        Route(at + "/uninvite", console.uninvite, methods=["POST"]),
        Route(at + "/qr/{character}", gm_qr),
    ]


def _refused_page() -> Response:
    return HTMLResponse(static_page("console.html", "refused", ""), 403, headers=HEADERS)
