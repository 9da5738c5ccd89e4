"""The web server's input, attacked from outside: what it reads of a request, how long a
client may hold it, what it remembers of requests sent before, and that no input makes it fail.

A real `tracker serve` runs in its own process and every request is made over a socket, as an
attacker on the network would make it. Whatever is refused is answered 4xx in one sentence,
and the log's head is where it was.
"""

from __future__ import annotations

import collections
import contextlib
import json
import re
import socket
import time

import pytest
from test_console import Client, gm, phone, table_served
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
    """Everything the server sends until it closes the connection (``RESET`` when it closed
    it on bytes it never read: the kernel then resets it, and the answer may be lost)."""
    got = b""
    try:
        while chunk := sock.recv(65536):
            got += chunk
    except ConnectionResetError:
        return got or RESET
    return got


RESET = b"- reset -"


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


def test_stalled_connections_are_closed_at_the_deadline_and_bounded_per_address(table):
    """300 connections from one address that send half a request's headers and stop: those
    past the address's bound are refused at once, the rest closed at the deadline, and the
    players, the console and a phone (from another address) are answered all the while."""
    with table_served(table, "--request-timeout", "3", "--max-connections", "40") as server:
        console = gm(server)
        mira = phone(server, "Mira")
        opened = time.monotonic()
        stalled = [
            _raw(server, b"GET / HTTP/1.1\r\nHost: 127.0", source="127.0.0.9") for _ in range(300)
        ]
        # The GM's headers whole, then half a body, which the action waits for: held to the
        # same deadline.
        gm_head = (
            f"Cookie: tracker_gm={server.key}\r\nX-CSRF-Token: {console.token}\r\n"
            "Content-Length: 100\r\n"
        )
        stalled += [
            _raw(server, _post_head(server, "/gm/act", gm_head) + b'{"pa') for _ in range(5)
        ]
        for _ in range(3):
            assert console.get("/gm/state")[0] == 200
            assert mira.get("/phone/state")[0] == 200
            assert Client(server.base).get("/")[0] == 200
        answers = [_answer(sock) for sock in stalled]
        closed = time.monotonic() - opened
        for sock in stalled:
            sock.close()
    statuses = collections.Counter(a.split(b" ", 2)[1] for a in answers[:300])
    assert statuses[b"408"] == 40, statuses
    assert statuses[b"429"] + statuses[b"reset"] == 260, statuses
    assert all(a == b"" for a in answers[300:])  # its request began: only closed
    assert closed < 20  # 3 s, and never the 70 s and more they were held before


def test_the_limits_are_refused_past_their_bounds(table):
    for option, value in (("--request-timeout", "61"), ("--max-connections", "0")):
        done = tracker(table, "serve", option, value, check=False)
        assert done.returncode == 2
        assert option in done.stderr


def test_an_action_refused_for_its_key_is_answered_before_its_body_is_read(table):
    """A POST without the GM's key is refused on its headers: the server does not wait for a
    byte of the body it announced."""
    with table_served(table) as server:
        sock = _raw(server, _post_head(server, "/gm/act", "Content-Length: 1000\r\n"))
        sock.settimeout(5)  # the deadline is 30 s: an answer within 5 read nothing more
        answer = sock.recv(65536)
        sock.close()
    assert answer.startswith(b"HTTP/1.1 403 "), answer[:200]
