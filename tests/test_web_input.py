"""The web server's input, attacked from outside: what it reads of a request, how long a
client may hold it, what it remembers of requests sent before, and that no input makes it fail.

A real `tracker serve` runs in its own process and every request is made over a socket, as an
attacker on the network would make it. Whatever is refused is answered 4xx in one sentence,
and the log's head is where it was.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket

import pytest
from test_console import gm, table_served
from test_live import SHEETS, head, items, sse, tracker


@pytest.fixture
def table(tmp_path):
    db = tmp_path / "input.db"
    tracker(db, "campaign", "new", "Iron", "--system", "gurps")
    for name in ("mira", "vora"):
        tracker(db, "character", "add", "--sheet", str(SHEETS / f"gurps-{name}.toml"))
    tracker(db, "session", "start", "--title", "The salt mines")
    return db


def _feed_token(server) -> str:
    raw = sse(f"{server.base}/events", until_version=head_of(server))
    return re.search(rb"id: (\w+)-", raw).group(1).decode()


def head_of(server) -> int:
    return server.head


def test_a_feed_resumes_from_version_0_in_both_views(table):
    """`Last-Event-ID: TOKEN-0` asks for everything: the players' feed and the GM's send the
    whole campaign from its first event, with no key needed for the players'."""
    last = head(table)
    with table_served(table) as server:
        server.head = last
        token = _feed_token(server)
        players = items(sse(f"{server.base}/events", until_version=last, last_id=f"{token}-0"))
        assert [doc["version"] for doc in players] == list(range(1, last + 1))
        console = gm(server)
        request_headers = {"Last-Event-ID": f"{token}-0"}
        raw = _read_feed(console, "/gm/events", request_headers, last)
        assert [doc["version"] for doc in items(raw)] == list(range(1, last + 1))


def _read_feed(client, path: str, headers: dict[str, str], until: int) -> bytes:
    """A feed read through ``client``'s cookies until the board after version ``until``."""
    import urllib.request

    request = urllib.request.Request(client.base + path, headers=headers)
    got = b""
    with client.opener.open(request, timeout=15) as response:
        while True:
            got += response.readline()
            mark = re.search(rf"id: \w+-{until}\r?\n".encode(), got)
            if (
                mark
                and b"event: board" in got[mark.end() :]
                and got.endswith((b"\r\n\r\n", b"\n\n"))
            ):
                return got


def test_a_malformed_or_out_of_range_last_event_id_starts_the_feed_afresh(table):
    last = head(table)
    with table_served(table) as server:
        server.head = last
        token = _feed_token(server)
        for given in (f"{token}-99999", "x-1", f"{token}--1", f"{token}-{'9' * 40}", "-", "\u00e9"):
            raw = sse(f"{server.base}/events", until_version=last, last_id=given)
            assert raw.startswith(b"event: reset"), given
            assert json.loads(raw.split(b"data: ", 2)[2].split(b"\n")[0])["version"] >= 1


def _raw(server, request: bytes, *, source: str = "127.0.0.1") -> socket.socket:
    """A connection from ``source`` (any loopback address) that has sent ``request``."""
    sock = socket.create_connection(
        ("127.0.0.1", server.port), timeout=10, source_address=(source, 0)
    )
    sock.sendall(request)
    return sock


def _answer(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    got = b""
    while chunk := sock.recv(65536):
        got += chunk
    return got


def _post_head(server, path: str, extra: str) -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
        f"Content-Type: application/json\r\n{extra}\r\n"
    ).encode()


def test_a_body_over_the_limit_is_refused_on_its_length_before_any_of_it_is_read(table):
    """A phone's key holder announcing 128 MiB is answered 413 at once, without the server
    waiting for a byte of the body, and the connection is closed."""
    before = head(table)
    with table_served(table) as server:
        for path in ("/phone/roll", "/gm/act", "/", "/events"):
            sock = _raw(server, _post_head(server, path, f"Content-Length: {128 << 20}\r\n"))
            answer = _answer(sock)  # would wait for the body (and time out) if it were read
            sock.close()
            assert answer.startswith(b"HTTP/1.1 413 "), (path, answer[:200])
            assert b"connection: close" in answer.lower()
            assert answer.rstrip().endswith(b"send the page's own action.")
    assert head(table) == before


def test_a_chunked_body_is_counted_as_it_arrives_and_cut_off_at_the_limit(table):
    """A body sent without a length is read only up to the limit: past it the server answers
    413 and closes the connection, however much more the client goes on sending."""
    before = head(table)
    with table_served(table) as server:
        sock = _raw(server, _post_head(server, "/gm/act", "Transfer-Encoding: chunked\r\n"))
        chunk = b"1000\r\n" + b"[" * 0x1000 + b"\r\n"
        sent = 0
        with contextlib.suppress(OSError):  # the server closing the connection stops us
            while sent < 64 << 20:
                sock.sendall(chunk)
                sent += 0x1000
        answer = _answer(sock)
        sock.close()
        assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
        assert sent < 16 << 20  # cut off long before the 64 MiB it would have sent
    assert head(table) == before
