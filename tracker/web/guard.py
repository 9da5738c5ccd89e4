"""What stands between the network and the table's actions: who a request speaks for, whether
the page that sent it is one this server made, whether it was sent before, and how often.

- **Keys.** Each door (the GM's console, a character's phone) opens to a key the GM handed
  out: an invitation (``tracker.store.invitations``), kept hashed in the database apart from
  the log (the log keeps what was played, not who was let in), so a link lasts across restarts
  and servers until it expires or the GM revokes it. A link carries its key once; the server
  answers with a cookie and the key leaves the address bar. ``Doors`` looks a key up and ends
  the open feeds of one revoked: at once on this server, within ``SWEEP`` seconds on another.
- **Forgery.** Every page that can act carries a token (``csrf``) derived from the key it was
  opened with, made with the database's one secret (so a restart or another server of the
  database takes it); a POST must send it back in ``X-CSRF-Token``, as JSON, from no other origin
  (the address the request names, or the public one ``tracker serve --public-url`` gave).
  Over HTTPS the key cookies are ``Secure``.
  A page on another site can neither read the token nor send JSON here without asking first.
- **Replay.** Every POST names a nonce the page made; a nonce its key's holder sent before is
  refused (409, with the first answer), so a request sent twice (a double tap, a retry, or one
  copied off the network) logs once. The database remembers each holder's nonces (by a hash of
  its key) for as long as the page's token could send them again: a token carries its issue
  time and is refused after ``TOKEN_LIFE``. A request that logged is remembered in the very
  transaction that logged it, so no flood from another key, no restart and no crash in between
  lets it log twice.
- **Public.** On the internet (``tracker serve`` over HTTPS, behind a proxy or ``--public``)
  the players' page is a door too, opened by its own invitation; at home it is the room's.
- **Rates.** A small token bucket for actions, and a larger one for pages and feeds: per key
  for a request holding a key known to open a door (so a table behind one home router is not
  held to one address's bucket, and a key spread over many addresses is held to its own), and
  per client address for any other.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import math
import re
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse

from tracker.store.asked import AskedRolls
from tracker.store.eventstore import Claim, now_utc
from tracker.store.invitations import GM as INVITED_GM
from tracker.store.invitations import PHONE as INVITED_PHONE
from tracker.store.invitations import PLAYERS as INVITED_PLAYERS
from tracker.store.invitations import Invitation, Invitations

# The two views of the table: the players' (their stream alone) and the GM's (everything).
PLAYERS, GM = "players", "gm"
# No script, style or connection from anywhere but the page's own server.
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class Bucket:
    """A token bucket per client: ``burst`` requests at once, then ``rate`` a second."""

    def __init__(self, burst: float, rate: float, clients: int = 4096) -> None:
        self.burst, self.rate, self.clients = burst, rate, clients
        self.held: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self.lock = threading.Lock()

    def take(self, client: str) -> bool:
        """Whether ``client`` may make one more request now (and count it)."""
        now = time.monotonic()
        with self.lock:
            tokens, then = self.held.pop(client, (self.burst, now))
            tokens = min(self.burst, tokens + (now - then) * self.rate)
            allowed = tokens >= 1
            self.held[client] = (tokens - 1 if allowed else tokens, now)
            # A flood of addresses forgets the oldest, not the memory of the machine.
            while len(self.held) > self.clients:
                self.held.popitem(last=False)
            return allowed


DEEPEST = 6
"""How deep a request's JSON may nest: an action's is three levels ({"values": {"dice": [...]}})."""


def unfit_json(doc: Any, field: str = "the request", depth: int = 0) -> str | None:
    """Why a request's parsed JSON cannot be taken, in one sentence naming the field; None
    when it can: nested past ``DEEPEST``, text that cannot be stored (a lone surrogate, which
    no hash or log can spell), a number past any count."""
    if depth > DEEPEST:
        return "The request is nested deeper than any action; reload the page."
    if isinstance(doc, dict):
        for key, value in doc.items():
            problem = unfit_json(key, "a field name", depth) or unfit_json(value, key, depth + 1)
            if problem is not None:
                return problem
        return None
    if isinstance(doc, list):
        return next(
            (p for p in (unfit_json(v, field, depth + 1) for v in doc) if p is not None), None
        )
    shown = field if field and field.isprintable() and len(field) <= 40 else "a field"
    if isinstance(doc, str) and _SURROGATE.search(doc):
        return f"{shown} holds a character that cannot be stored (a lone surrogate); retype it."
    if isinstance(doc, float) and not math.isfinite(doc):
        return f"{shown} is a number past anything tracker counts; give a smaller one."
    if isinstance(doc, int) and not isinstance(doc, bool) and abs(doc) >= 10**15:
        return f"{shown} is a number past anything tracker counts (at most 15 digits)."
    return None


_SURROGATE = re.compile("[\ud800-\udfff]")


def csrf_token(secret: bytes, identity: str) -> str:
    """The token a page opened as ``identity`` ("gm", or "phone:" and its key) sends back."""
    return hmac.new(secret, identity.encode(), hashlib.sha256).hexdigest()


TOKEN_LIFE = 24 * 60 * 60
"""Seconds a page's token may send requests: a page open longer reloads itself for a new one.
A request's nonce is remembered as long as the token it came with could send it again."""


def page_token(secret: bytes, identity: str, issued: int) -> str:
    """A page's token: when it was issued (eight hex digits of seconds since the epoch) and a
    MAC of that time and ``identity``, so neither can be changed."""
    return f"{issued:08x}" + csrf_token(secret, f"{identity}@{issued}")


def token_issued(secret: bytes, identity: str, token: str) -> int | None:
    """When ``token`` was issued to a page opened as ``identity``; None when it is no token
    this server made for it."""
    if len(token) != 72 or not token.isascii() or not all(c in HEX for c in token):
        return None
    issued = int(token[:8], 16)
    made = csrf_token(secret, f"{identity}@{issued}")
    return issued if hmac.compare_digest(token[8:].encode(), made.encode()) else None


HEX = frozenset("0123456789abcdef")


@dataclass
class Asked:
    """A roll the GM asked of a character's phone: filled in there, rolled by the player."""

    id: str
    character_id: str
    trait: str
    options: dict[str, Any]
    secret: bool
    said: str


class Phones:
    """The GM's requests waiting on each character's phone, kept in the database
    (``tracker.store.asked``), and the open feeds of the phones this server serves: a request
    made here reaches them at once, one made on another server of the database at the next
    look (``run``, every ``SWEEP`` seconds)."""

    def __init__(self, asked: AskedRolls) -> None:
        self.asked = asked
        self.feeds: dict[str, set[asyncio.Queue[Any]]] = {}
        """character id -> the open feeds of its phones, to hand a request."""
        self.shown: dict[str, str | None] = {}
        """character id -> the request id its feeds were last handed (None: none)."""
        self.lock = threading.Lock()

    async def ask(self, asked: Asked) -> None:
        """Hand ``asked`` to the character's phones (one request at a time per character)."""
        await asyncio.to_thread(self.asked.put, asked.character_id, asked.id, _asked_doc(asked))
        self._hand(asked.character_id, asked.id, _asked_doc(asked))

    async def answered(self, character_id: str, request_id: str) -> Asked | None:
        """The request ``request_id`` of the character's, taken off its phones; None when it
        is not the one waiting."""
        taken = await asyncio.to_thread(self.asked.take, character_id, request_id)
        if taken is None:
            return None
        self._hand(character_id, None, "null")
        return _asked_from(character_id, taken)

    def request(self, character_id: str) -> Asked | None:
        """The request waiting on the character's phones, if any (reads the database)."""
        return self.requests([character_id]).get(character_id)

    def requests(self, character_ids: Iterable[str]) -> dict[str, Asked]:
        """The request waiting on each of the characters' phones that has one."""
        found = self.asked.waiting(character_ids)
        return {cid: _asked_from(cid, doc) for cid, (_, doc) in found.items()}

    def waiting(self, character_id: str) -> str:
        """The request waiting on the character's phones, as their feed sends it ("null")."""
        found = self.asked.waiting([character_id]).get(character_id)
        with self.lock:
            self.shown[character_id] = found[0] if found else None
        return found[1] if found else "null"

    def _hand(self, character_id: str, request_id: str | None, doc: str) -> None:
        with self.lock:
            self.shown[character_id] = request_id
            queues = list(self.feeds.get(character_id, ()))
        for queue in queues:
            queue.put_nowait([(None, "request", doc)])

    async def look(self) -> None:
        """Hand each phone here a request made or answered on another server since."""
        with self.lock:
            ids = [cid for cid, queues in self.feeds.items() if queues]
        if not ids:
            return
        now = await asyncio.to_thread(self.asked.waiting, ids)
        for cid in ids:
            found = now.get(cid)
            if self.shown.get(cid) != (found[0] if found else None):
                self._hand(cid, found[0] if found else None, found[1] if found else "null")

    async def run(self) -> None:
        """Look every ``SWEEP`` seconds, for as long as the server runs."""
        while True:
            await asyncio.sleep(SWEEP)
            with contextlib.suppress(*self.asked.backend.errors):
                await self.look()

    def join(self, character_id: str, queue: asyncio.Queue[Any]) -> None:
        with self.lock:
            self.feeds.setdefault(character_id, set()).add(queue)

    def leave(self, character_id: str, queue: asyncio.Queue[Any]) -> None:
        with self.lock:
            self.feeds.get(character_id, set()).discard(queue)


def _asked_doc(asked: Asked) -> str:
    """A roll asked of a phone, as its feed and its state send it, and the database keeps it."""
    return json.dumps(
        {
            "id": asked.id,
            "trait": asked.trait,
            "options": asked.options,
            "secret": asked.secret,
            "said": asked.said,
        },
        ensure_ascii=False,
    )


def _asked_from(character_id: str, doc: str) -> Asked:
    """A request as the database keeps it (``_asked_doc``), read back."""
    got = json.loads(doc)
    return Asked(got["id"], character_id, got["trait"], got["options"], got["secret"], got["said"])


SWEEP = 2.0
"""Seconds a key's answer is remembered, and how often the keys of the open feeds are asked
again: a key revoked on another server of the same database ends its pages within this."""
KNOWN = 4096
"""The most keys' answers remembered at once: a flood of made-up keys forgets the oldest."""


class Doors:
    """Which key opens which door: the database's invitations (``tracker.store.invitations``),
    each key's answer remembered ``SWEEP`` seconds; and the feeds each key holds open, ended at
    once when a key is revoked here, and within ``SWEEP`` when it is revoked elsewhere."""

    def __init__(self, invitations: Invitations) -> None:
        self.invitations = invitations
        self.known: dict[str, tuple[Invitation | None, float]] = {}
        self.feeds: dict[str, set[asyncio.Queue[Any]]] = {}
        # The keys found live lately, most recent last: what a request's rate is counted by
        # (``keyed``), without asking the database before the bucket is consulted.
        self.seen: OrderedDict[str, None] = OrderedDict()
        self.lock = threading.Lock()

    async def opened(self, key: str) -> Invitation | None:
        """The live invitation ``key`` is the key of; None when it is none, or is revoked
        or expired."""
        if not key or len(key) > 64:
            return None
        now = time.monotonic()
        with self.lock:
            found = self.known.get(key)
        if found is None or now - found[1] > SWEEP:
            found = (await asyncio.to_thread(self.invitations.opened_by, key), now)
            with self.lock:
                self.known.pop(key, None)
                self.known[key] = found
                while len(self.known) > KNOWN:
                    del self.known[next(iter(self.known))]
        invitation = found[0]
        live = invitation is not None and invitation.live(now_utc())
        with self.lock:
            self.seen.pop(key, None)
            if live:
                self.seen[key] = None
                while len(self.seen) > KNOWN:
                    self.seen.popitem(last=False)
        return invitation if live else None

    def keyed(self, keys: Iterable[str]) -> str | None:
        """The first of ``keys`` found live lately (by ``opened``): the bucket a request
        holding it is counted in. A key revoked since still counts here until it is next
        looked up; the route refuses it all the same."""
        with self.lock:
            return next((key for key in keys if key in self.seen), None)

    def hold(self, key: str, queue: asyncio.Queue[Any]) -> None:
        with self.lock:
            self.feeds.setdefault(key, set()).add(queue)

    def let_go(self, key: str, queue: asyncio.Queue[Any]) -> None:
        with self.lock:
            held = self.feeds.get(key, set())
            held.discard(queue)
            if not held:
                self.feeds.pop(key, None)

    async def sweep(self) -> None:
        """End the feeds of every key that opens nothing now, and forget what was known of
        each key: after a revoke here at once, and every ``SWEEP`` seconds for the others."""
        with self.lock:
            keys = list(self.feeds)
            self.known.clear()
        live = await asyncio.to_thread(self.invitations.live_among, keys) if keys else set()
        with self.lock:
            ended = [q for key in keys if key not in live for q in self.feeds.pop(key, ())]
        for queue in ended:
            queue.put_nowait(None)

    async def run(self) -> None:
        """Sweep every ``SWEEP`` seconds, for as long as the server runs."""
        while True:
            await asyncio.sleep(SWEEP)
            with contextlib.suppress(*self.invitations.backend.errors):
                await self.sweep()


async def held_open(
    doors: Doors, key: str, queue: asyncio.Queue[Any], events: AsyncIterator[Any]
) -> AsyncIterator[Any]:
    """A feed's ``events``, its ``queue`` held by ``key``: revoking the key ends it."""
    doors.hold(key, queue)
    try:
        async for message in events:
            yield message
    finally:
        doors.let_go(key, queue)


GM_COOKIE = "tracker_gm"
GM_ONLY = "The GM's console needs a live key of the GM's; open the link tracker printed for it."
PHONE_COOKIE = "tracker_phone"
PHONE_GONE = "This phone's link is not live; ask the GM for a new one."
PLAYERS_COOKIE = "tracker_players"
PLAYERS_ONLY = "This table's page needs its link; ask the GM for the players' link."
COOKIES = (GM_COOKIE, PHONE_COOKIE, PLAYERS_COOKIE)
"""Every cookie a key is held in."""
NONCE = re.compile(r"[A-Za-z0-9_-]{16,64}")


class Refusal(Exception):
    """A request refused before it reached the table: its status and one sentence;
    ``reload`` when the page should reload itself and send it again."""

    def __init__(self, status: int, sentence: str, *, reload: bool = False) -> None:
        super().__init__(sentence)
        self.status = status
        self.reload = reload


def refused(status: int, sentence: str, *, reload: bool = False) -> JSONResponse:
    doc: dict[str, Any] = {"error": sentence, **({"reload": True} if reload else {})}
    return JSONResponse(doc, status_code=status, headers=HEADERS)


def answer(doc: dict[str, Any]) -> JSONResponse:
    return JSONResponse(doc, headers=HEADERS)


def cookie_values(header: str, name: str) -> list[str]:
    """Every value the Cookie ``header`` gives ``name``, in its order (a browser holding
    cookies of one name for several paths sends them all, the most specific first)."""
    found = []
    for part in header.split(";"):
        given, eq, value = part.strip().partition("=")
        if eq and given == name and value:
            found.append(value.strip('"'))
    return found[:8]


def phone_identity(key: str) -> str:
    """Who a phone's pages speak as: its key, so a page of a revoked key can send nothing."""
    return "phone:" + key


def gm_identity(key: str) -> str:
    """Who the GM's pages speak as: the key they were opened with, as a phone's do."""
    return "gm:" + key


def let_in(request: Request, path: str, cookie: str, key: str) -> RedirectResponse:
    """The browser that gave ``key`` in its address, sent back to ``path`` without it and
    holding it in a cookie for ``path`` alone: the key leaves the address bar and the
    history. Over HTTPS the cookie is ``Secure``: no plain request ever carries it."""
    response = RedirectResponse(path, status_code=303, headers=HEADERS)
    secure = request.url.scheme == "https"
    response.set_cookie(cookie, key, httponly=True, samesite="strict", path=path, secure=secure)
    return response


class Guard:
    """Who a request speaks for, and whether a POST may act (see the module's docstring)."""

    def __init__(
        self,
        doors: Doors,
        phones: Phones,
        secret: bytes,
        origins: Iterable[str] = (),
        *,
        public: bool = False,
    ) -> None:
        self.doors = doors
        self.phones = phones
        self.secret = secret
        # On the internet the players' page needs its own key too.
        self.public = public
        # Where pages may come from besides the address a request names itself by: the
        # public address given once (``tracker serve --public-url``).
        self.origins = frozenset(origins)

    async def opens(self, given: str, kind: str, campaign_id: str | None) -> Invitation | None:
        """The live invitation ``given`` is the key of, when it opens the door ``kind`` of
        ``campaign_id``: a key made for one campaign opens that campaign's alone, one made
        for none (the GM's first) every campaign's. ``campaign_id`` None asks of no campaign:
        a phone at the plain address, whose page says when the table is elsewhere."""
        invitation = await self.doors.opened(given) if given else None
        if invitation is None or invitation.kind != kind:
            return None
        if campaign_id is not None and invitation.campaign_id not in (None, campaign_id):
            return None
        return invitation

    async def held(
        self, request: Request, cookie: str, kind: str, campaign_id: str | None
    ) -> tuple[str, Invitation] | None:
        """The key a cookie of the request holds that opens ``kind`` of ``campaign_id``, and
        its invitation; None when none does. A browser sends one cookie of the name for each
        path it was let in at (the plain address's and a campaign's own), most specific
        first: each is tried."""
        for given in cookie_values(request.headers.get("cookie", ""), cookie):
            invitation = await self.opens(given, kind, campaign_id)
            if invitation is not None:
                return given, invitation
        return None

    async def gm(self, request: Request, campaign_id: str) -> tuple[str, Invitation] | None:
        """The GM's key the request's cookie holds, for ``campaign_id``'s console; None when
        it holds no live one."""
        return await self.held(request, GM_COOKIE, INVITED_GM, campaign_id)

    async def phone(
        self, request: Request, campaign_id: str | None = None
    ) -> tuple[str, str] | None:
        """The phone's key and the character it is for (of ``campaign_id``, when one is
        named); None without a live key."""
        held = await self.held(request, PHONE_COOKIE, INVITED_PHONE, campaign_id)
        if held is None or not held[1].character_id:
            return None
        return held[0], held[1].character_id

    async def players(self, request: Request, campaign_id: str) -> str | None:
        """The players' page key the request's cookie holds, for ``campaign_id``; None
        without a live one. Public servers only ask: at home the page is the room's."""
        held = await self.held(request, PLAYERS_COOKIE, INVITED_PLAYERS, campaign_id)
        return held[0] if held else None

    def page_token(self, identity: str) -> str:
        """A new token for a page opened as ``identity``."""
        return page_token(self.secret, identity, int(time.time()))

    @staticmethod
    def holder(identity: str) -> str:
        """Who sends as ``identity``, as the database remembers its requests: a hash of its
        key (the GM's, or the phone's), never the key."""
        return hashlib.sha256(identity.encode("utf-8", "surrogatepass")).hexdigest()

    async def check(self, request: Request, identity: str) -> tuple[dict[str, Any], Claim]:
        """The JSON body of a POST that may act as ``identity``, and the claim its answer is
        remembered by; ``Refusal`` otherwise."""
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            raise Refusal(415, "Send the action as JSON, as the page does.")
        origin = request.headers.get("origin")
        own = f"{request.url.scheme}://{request.headers['host']}"
        if origin is not None and origin != own and origin not in self.origins:
            raise Refusal(403, "An action must come from this server's own page.")
        issued = token_issued(self.secret, identity, request.headers.get("x-csrf-token", ""))
        if issued is None:
            raise Refusal(403, "This page is out of date or not this server's; reload it.")
        if time.time() - issued > TOKEN_LIFE:
            raise Refusal(
                403, "This page was opened over a day ago; it reloads itself.", reload=True
            )
        body = await request.body()  # at most ``server.LARGEST_BODY``, read there
        try:
            doc = json.loads(body, parse_constant=_no_constant)
        except RecursionError:
            raise Refusal(400, DEEP) from None
        except ValueError:  # not JSON, not UTF-8, NaN, or an integer of thousands of digits
            raise Refusal(400, "The request is not JSON; reload the page.") from None
        if not isinstance(doc, dict):
            raise Refusal(400, "The request is not an action; reload the page.")
        problem = unfit_json(doc)
        if problem is not None:
            raise Refusal(400, problem)
        nonce = doc.get("nonce")
        if not isinstance(nonce, str) or not NONCE.fullmatch(nonce):
            raise Refusal(400, "The request carries no nonce; reload the page.")
        return doc, Claim(self.holder(identity), nonce, issued + TOKEN_LIFE)


DEEP = "The request is nested deeper than any action; reload the page."


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is no number an action holds")
