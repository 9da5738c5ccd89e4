"""What a client may hold of the server before the app sees a request: how long a request may
take to arrive, and how many connections one address may keep open.

Both are enforced in the HTTP server's protocol, where bytes arrive: a client that sends half a
request's headers and stops never reaches the app, so no middleware could see it. uvicorn sets a
deadline only between requests on a kept-alive connection (``timeout_keep_alive``); a new
connection, or one that started a request and stalled, would be held open for ever, and a few
hundred of them use up the process's open files.

- **A deadline per request.** From the moment a connection is ready for a request (when it is
  opened, and after each response on a kept-alive one) its headers and body must have arrived
  within ``deadline`` seconds; otherwise the server answers 408 (when no request began) and
  closes it. A feed's long response is not held to it: its request arrived whole.
- **A body not read.** A request answered before its body arrived (refused for its host, its
  rate or its key) has its connection closed: what is left of the body is never read.
- **Connections per address.** One client address holds at most ``per_address`` open
  connections at once; one more is answered 429 and closed at once. A whole table behind one
  home router (a console, a TV and eight phones, each with its feed and actions in flight)
  needs about thirty.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

DEADLINE = 30.0
"""Seconds a request's headers and body may take to arrive."""
PER_ADDRESS = 64
"""Open connections one client address may hold."""

# The client is still sending its request in these states.
_ARRIVING = (h11.IDLE, h11.SEND_BODY)


def _plain(status: str, sentence: str) -> bytes:
    """A whole response written straight to the socket: no request of it was ever parsed."""
    body = sentence.encode()
    return (
        f"HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode() + body


TOO_SLOW = _plain("408 Request Timeout", "The request took too long to arrive; send it again.\n")
TOO_MANY = _plain(
    "429 Too Many Requests",
    "Too many connections from this address; close some pages and try again.\n",
)


def guarded_protocol(deadline: float = DEADLINE, per_address: int = PER_ADDRESS) -> type:
    """uvicorn's HTTP/1.1 protocol, holding each request to ``deadline`` seconds and each
    client address to ``per_address`` open connections (a count of this server's alone)."""
    held: dict[str, int] = {}
    return type(
        "Guarded", (Guarded,), {"deadline": deadline, "per_address": per_address, "held": held}
    )


class Guarded(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a deadline per request and a bound per address; a
    server's own subclass (``guarded_protocol``) gives the figures and the count it keeps."""

    deadline: float = DEADLINE
    per_address: int = PER_ADDRESS
    held: dict[str, int]
    """client address -> its open connections, shared by every connection of one server."""
    timer: asyncio.TimerHandle | None = None
    address: str | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self.address = self.client[0] if self.client else "?"
        self.held[self.address] = self.held.get(self.address, 0) + 1
        if self.held[self.address] > self.per_address:
            transport.write(TOO_MANY)
            transport.close()
            return
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self.address is not None:
            left = self.held.get(self.address, 1) - 1
            if left > 0:
                self.held[self.address] = left
            else:
                self.held.pop(self.address, None)
            self.address = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.conn.their_state is h11.SEND_BODY and not self.transport.is_closing():
            # Answered before its body arrived (refused for its host, its rate or its key):
            # the rest of the body is never read, however large it was announced.
            self.transport.close()
            return
        self._watch()

    def _unsupported_upgrade_warning(self) -> None:
        """No route speaks WebSocket (``ws="none"``): an upgrade asked for is answered as
        a plain request, and a client asking many times does not fill the terminal."""

    def _watch(self) -> None:
        """Keep the deadline running while a request is still arriving, and only then."""
        if self.conn.their_state in _ARRIVING and not self.transport.is_closing():
            if self.timer is None:
                self._arm()
        else:
            self._disarm()

    def _arm(self) -> None:
        self.timer = self.loop.call_later(self.deadline, self._expired)

    def _disarm(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _expired(self) -> None:
        self.timer = None
        if self.transport.is_closing() or self.conn.their_state not in _ARRIVING:
            return
        if self.conn.their_state is h11.IDLE:
            # No request began, so no response is under way: the client is told why.
            self.transport.write(TOO_SLOW)
        self.transport.close()
