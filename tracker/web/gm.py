"""The GM's console: its page, its feed (everything, secrets included) and state, its QR codes
and the actions (``/gm/act``, ``/gm/ask``, ``/gm/revoke``, answered by ``console.Console``).

``/gm?key=KEY`` sets a cookie holding the key printed at start-up (a new one each start) and
drops the key from the address; every route here refuses a request without that cookie before
anything is read.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from tracker.web.console import Console
from tracker.web.feed import Hub, stream
from tracker.web.guard import (
    GM,
    GM_COOKIE,
    GM_IDENTITY,
    GM_ONLY,
    HEADERS,
    Guard,
    answer,
    let_in,
    refused,
)
from tracker.web.pages import static_page


def routes(hub: Hub, guard: Guard, console: Console) -> list[Route]:
    """The GM's console: its page, its feed and state, and the actions; each refused before
    anything is read without the GM's cookie."""

    async def gm_page(request: Request) -> Response:
        return _console_page(request, guard)

    async def gm_events(request: Request) -> Response:
        if not guard.is_gm(request):
            return Response("The GM's view needs the key `tracker serve` printed.", 403)
        return stream(request, hub, GM)

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


def _console_page(request: Request, guard: Guard) -> Response:
    """The GM's console for a browser that holds the key; one that gives it in the address is
    sent back without it, holding it in a cookie."""
    given = request.query_params.get("key")
    if given is not None:
        if not guard.is_gm_key(given):
            return _refused_page()
        return let_in(request, "/gm", GM_COOKIE, guard.key)
    if not guard.is_gm(request):
        return _refused_page()
    page = static_page("console.html", GM, guard.page_token(GM_IDENTITY))
    return HTMLResponse(page, headers=HEADERS)


def _refused_page() -> Response:
    return HTMLResponse(static_page("console.html", "refused", ""), 403, headers=HEADERS)
