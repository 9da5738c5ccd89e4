"""The table's live view: the web app that follows the campaign as it is logged, assembled.

``make_app`` puts together the routes, made by audience, each module saying what guards them:

- ``players``: ``/`` and ``/events``, the players' page and feed (behind the players' key on
  a public server), and the pages' files;
- ``gm``: ``/gm`` and ``/gm/...``, the GM's console, behind a key of the GM's;
- ``phone``: ``/phone`` and ``/phone/...``, a character's phone, behind its own key.

The keys are the database's invitations (``tracker.app.invitations``), which last across
restarts and are shared by every server of the database.

The feeds are ``feed``'s (one task watches the log for every page); the actions are
``console``'s, guarded as ``guard`` says.

Here too is what stands before every route: every request is answered only when its Host
header names this server (``Hosts``): a page on another site that points a name of its own at
this machine (DNS rebinding) is refused with 421 before anything is read, on every route. Then
a client's rate (``Throttled``) and the size of what it sends (``BodyLimit``).
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import time
from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Match, NoMatchFound, Router
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from tracker.app.live import Live
from tracker.app.tracker import Tracker
from tracker.web import gm, phone, players
from tracker.web.console import Console
from tracker.web.feed import EVERY, Bell, Feed, Hub
from tracker.web.guard import COOKIES, HEADERS, SWEEP, Bucket, Doors, Guard, Phones, cookie_values

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
                misdirected = PlainTextResponse(MISDIRECTED, status_code=421, headers=HEADERS)
                await misdirected(scope, receive, send)
                return
        await self.app(scope, receive, send)


def make_app(
    live: Live,
    *,
    every: float = EVERY,
    hosts: Hosts | None = None,
    base: str | None = None,
    rates: Rates | None = None,
    proxies: tuple[str, ...] = (),
    shown: dict[str, str] | None = None,
    public: bool = False,
) -> Starlette:
    """The web app of ``live``'s campaign (the plain addresses) and every campaign of its
    database (their own), its doors opened by the database's invitations. ``shown``: the keys
    made as it starts, by ``Invited.door``, whose links the consoles show; ``hosts``: the Host
    headers it answers (by default a server on 127.0.0.1's); ``base``: the address phones open
    it by, whose origin pages may act from; ``rates``: the clients' buckets; ``proxies``: the
    reverse proxies whose forwarded headers are believed; ``public``: whether the players'
    page too needs a key (HTTPS, a proxy, or ``tracker serve --public``)."""
    hub = Hub(Feed(live))
    bell = Bell(live.table, every)
    # The console acts on the campaign served, whatever another process makes current.
    live.table.chosen = live.campaign_id
    phones = Phones(live.table.store.asked)
    invitations = live.table.store.invitations
    doors = Doors(invitations)
    origins = () if base is None else (_origin(base),)
    guard = Guard(doors, phones, invitations.page_secret(), origins=origins, public=public)
    shown = shown if shown is not None else {}
    console = Console(hub, guard, base, shown)
    own = OwnAddresses(live.table, guard, base, shown, bell)

    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await bell.add(hub)
        watchers = [asyncio.create_task(job) for job in (bell.run(), doors.run(), phones.run())]
        try:
            yield
        finally:
            for watcher in watchers:
                watcher.cancel()

    app = Starlette(
        routes=[
            *players.routes(hub, guard),
            *gm.routes(hub, guard, console),
            *phone.routes(hub, guard, console),
            *players.files(),
            own,
        ],
        middleware=_before_every_route(proxies, hosts, rates or RATES, doors),
        lifespan=_lifespan(lifespan),
        # Starlette answers with this and re-raises, so the server logs the traceback once.
        exception_handlers={Exception: _failed},
    )
    app.state.hub = hub
    app.state.hubs = lambda: [hub, *own.hubs()]
    app.state.campaigns = own
    app.state.phones = phones
    app.state.doors = doors
    return app


def _before_every_route(
    proxies: tuple[str, ...], hosts: Hosts | None, rates: Rates, doors: Doors
) -> list[Middleware]:
    """What stands before every route, outermost first: the proxy's forwarded headers
    believed from it alone, HSTS over HTTPS, the Host check, the rates, the body's size."""
    return [
        *([Middleware(ProxyHeadersMiddleware, trusted_hosts=list(proxies))] if proxies else []),
        Middleware(StrictTransport),
        Middleware(ServedHostsOnly, hosts=hosts or Hosts("127.0.0.1")),
        Middleware(Throttled, rates=rates, doors=doors),
        Middleware(BodyLimit),
    ]


OWN = re.compile(r"/c/([0-9a-f]{8})(/.*)?")
"""A campaign's own address: ``/c/`` and the first eight hex digits of its id (``Live.token``),
then the page."""
NO_CAMPAIGN = "No campaign of this server is at that address; open the link the GM gave.\n"


class OwnAddresses(BaseRoute):
    """Every campaign's own address (``/c/TOKEN/`` and its ``gm`` and ``phone``): the same
    pages as the plain ones, each staying on its campaign, and acting on it alone. A
    campaign's pages are made the first time one is asked for, and rung by the server's one
    bell (``feed.Bell``); an address no campaign has is not found."""

    def __init__(
        self, table: Tracker, guard: Guard, base: str | None, shown: dict[str, str], bell: Bell
    ) -> None:
        self.table = table
        self.guard = guard
        self.base = base
        self.shown = shown
        self.bell = bell
        self.sites: dict[str, tuple[Hub, Router]] = {}
        # One campaign's pages are made by one request at a time: two at once make one.
        self.making = asyncio.Lock()
        self.tokens: tuple[float, dict[str, Any]] = (-SWEEP, {})

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] == "http" and OWN.fullmatch(scope["path"]):
            return Match.FULL, {}
        return Match.NONE, {}

    def url_path_for(self, name: str, /, **path_params: Any) -> Any:
        raise NoMatchFound(name, path_params)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        token = OWN.fullmatch(scope["path"]).group(1)  # type: ignore[union-attr]
        site = self.sites.get(token)
        if site is None:
            async with self.making:
                site = self.sites.get(token) or await self._made(token)
        if site is None:
            missing = PlainTextResponse(NO_CAMPAIGN, status_code=404, headers=HEADERS)
            await missing(scope, receive, send)
            return
        await site[1](scope, receive, send)

    async def _made(self, token: str) -> tuple[Hub, Router] | None:
        """The pages of the campaign ``token`` names, made now; None when none has it. The
        campaigns are read again at most every ``SWEEP`` seconds, so a flood of made-up
        addresses asks the database nothing more."""
        now = time.monotonic()
        if now - self.tokens[0] > SWEEP:
            rows = await asyncio.to_thread(self.table.store.campaigns)
            self.tokens = (now, {row.campaign_id[:8]: row for row in rows})
        row = self.tokens[1].get(token)
        if row is None:
            return None
        live = Live(self.table.on(row.campaign_id), row)
        hub = Hub(Feed(live))
        prefix = f"/c/{token}"
        console = Console(hub, self.guard, self.base, self.shown, prefix=prefix)
        router = Router(
            routes=[
                *players.routes(hub, self.guard, prefix),
                *gm.routes(hub, self.guard, console),
                *phone.routes(hub, self.guard, console),
            ]
        )
        await self.bell.add(hub)
        self.sites[token] = (hub, router)
        return self.sites[token]

    def hubs(self) -> list[Hub]:
        return [hub for hub, _ in self.sites.values()]


def _origin(base: str) -> str:
    """The origin of an address (``https://dice.example.org``), as a browser's Origin says it."""
    parts = urlsplit(base)
    return f"{parts.scheme}://{parts.netloc}"


HSTS = (b"strict-transport-security", b"max-age=31536000")
"""Sent over HTTPS: the browser asks this host by HTTPS alone for a year."""


class StrictTransport:
    """Adds ``Strict-Transport-Security`` to every answer given over HTTPS (TLS in the server,
    or a proxy's ``X-Forwarded-Proto`` believed): a browser that met the table over HTTPS never
    sends its cookies over plain HTTP to it again. Plain HTTP, on a home network, is left as
    it is."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("scheme") != "https":
            await self.app(scope, receive, send)
            return

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), HSTS]}
            await send(message)

        await self.app(scope, receive, sending)


FAILED = "The server failed on this request; what failed is in its terminal.\n"


async def _failed(request: Request, exc: Exception) -> Response:
    """What a request hears of an error no route foresaw: one sentence, never a traceback."""
    return PlainTextResponse(FAILED, status_code=500, headers=HEADERS)


Rates = dict[str, tuple[float, float]]
RATES: Rates = {"POST": (20, 2.0), "GET": (240, 40.0)}
"""Per key, or per client address for a request holding none: actions, 20 at once and then 2
a second; pages, feeds and their data, 240 at once and then 40 a second (a page that loses
the server reconnects by itself)."""
TOO_MANY = "Too many requests from this address; wait a moment and try again.\n"


class Throttled:
    """Refuses, with 429, a client past its bucket (``RATES``): actions counted apart from
    pages, so a flood of page loads does not stop the GM rolling, nor the reverse. A request
    whose cookie holds a key found live lately (``Doors.keyed``) is counted by that key, so
    the six phones of a table behind one home router each have their own bucket; any other
    (a link being opened, a stranger, a key made up) by its address, before the database is
    asked anything of it."""

    def __init__(self, app: ASGIApp, rates: Rates, doors: Doors | None = None) -> None:
        self.app = app
        self.buckets = {method: Bucket(*rate) for method, rate in rates.items()}
        self.doors = doors

    def client(self, scope: Scope) -> str:
        """Whom a request is counted against: its key's bucket, else its address's."""
        if self.doors is not None:
            cookies = next((v for n, v in scope["headers"] if n == b"cookie"), None)
            if cookies is not None:
                text = cookies.decode("latin-1")
                key = self.doors.keyed(k for name in COOKIES for k in cookie_values(text, name))
                if key is not None:
                    return "key:" + key
        return (scope.get("client") or ("?", 0))[0]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope["path"].startswith("/static/"):
            bucket = self.buckets["POST" if scope["method"] == "POST" else "GET"]
            if not bucket.take(self.client(scope)):
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
