"""The pages and files of ``static/``, as the routes serve them: a page with its view and the
token its actions send back filled in, and the files the pages load (``ASSETS``)."""

from __future__ import annotations

from importlib import resources

from starlette.requests import Request
from starlette.responses import Response

from tracker.web.guard import HEADERS

ASSETS = {
    "live.js": "text/javascript",
    "live.css": "text/css",
    "feed.js": "text/javascript",
    "console.js": "text/javascript",
    "phone.js": "text/javascript",
    "table.css": "text/css",
}


def static_page(name: str, view: str, token: str = "") -> str:
    """A page of ``static/`` for ``view``, with the token its actions send back (none for the
    players' page, which sends nothing)."""
    html = (resources.files("tracker.web") / "static" / name).read_text(encoding="utf-8")
    return html.replace("{{view}}", view).replace("{{csrf}}", token)


async def asset(request: Request) -> Response:
    """A file the pages load, by its name in ``ASSETS``; any other name is not found."""
    name = request.path_params["name"]
    if name not in ASSETS:
        return Response("Not found.", 404)
    body = (resources.files("tracker.web") / "static" / name).read_bytes()
    return Response(body, media_type=ASSETS[name], headers=HEADERS)
