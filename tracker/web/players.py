"""The players' routes: what anyone who reaches the server is served, the players' page (the
TV's), its feed and the pages' files. Nothing here needs a key, and nothing here can act: the
feed is the players' view (``feed.PLAYERS``), a secret sealed in it whatever is asked."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from tracker.web.feed import Hub, stream
from tracker.web.guard import HEADERS, PLAYERS
from tracker.web.pages import asset, static_page


def routes(hub: Hub) -> list[Route]:
    """What anyone who reaches the server is served: the players' page, its feed, the pages'
    files."""

    async def players_page(request: Request) -> Response:
        return HTMLResponse(static_page("live.html", PLAYERS), headers=HEADERS)

    async def players_events(request: Request) -> Response:
        return stream(request, hub, PLAYERS)

    return [
        Route("/", players_page),
        Route("/events", players_events),
        Route("/static/{name}", asset),
    ]
