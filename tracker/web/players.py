"""The players' routes: the players' page (the TV's), its feed and the pages' files. Nothing
here can act: the feed is the players' view (``feed.PLAYERS``), a secret sealed in it
whatever is asked.

At home the players' page is the room's: anyone who reaches the server reads it. On a public
server (``Guard.public``) it is a door like the others: ``/?key=KEY``, a players' invitation
of the campaign served, opens it into a cookie and leaves the address bar, and a request
without a live one is refused before anything is read. The pages' files are the package's
own, the same for every table, and are served to anyone.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from tracker.web.feed import Hub, joined, sent, stream
from tracker.web.guard import (
    HEADERS,
    INVITED_PLAYERS,
    PLAYERS,
    PLAYERS_COOKIE,
    PLAYERS_ONLY,
    Guard,
    held_open,
    let_in,
)
from tracker.web.pages import asset, static_page


def routes(hub: Hub, guard: Guard, prefix: str = "") -> list[Route]:
    """The players' page at ``prefix`` (a campaign's own, or the plain one) and its feed,
    behind the players' key on a public server."""
    at = prefix + "/"

    def served() -> str:
        return hub.feed.live.campaign_id

    async def players_page(request: Request) -> Response:
        given = request.query_params.get("key")
        if given is not None:
            if not guard.public:
                # A public server's link opened at home: the page is the room's anyway.
                return RedirectResponse(at, status_code=303, headers=HEADERS)
            if await guard.opens(given, INVITED_PLAYERS, served()) is None:
                return _refused_page()
            return let_in(request, at, PLAYERS_COOKIE, given)
        if guard.public and await guard.players(request, served()) is None:
            return _refused_page()
        return HTMLResponse(static_page("live.html", PLAYERS), headers=HEADERS)

    async def players_events(request: Request) -> Response:
        if not guard.public:
            return stream(request, hub, PLAYERS)
        key = await guard.players(request, served())
        if key is None:
            return Response(PLAYERS_ONLY, 403, headers=HEADERS)
        queue, events = joined(request, hub, PLAYERS)
        return sent(held_open(guard.doors, key, queue, events))

    return [Route(at, players_page), Route(at + "events", players_events)]


def files() -> list[Route]:
    """The pages' files: the package's own, the same for every table and every campaign."""
    return [Route("/static/{name}", asset)]


def _refused_page() -> Response:
    return HTMLResponse(static_page("live.html", "refused"), 403, headers=HEADERS)
