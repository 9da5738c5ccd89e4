"""Attacks from outside on a real `tracker serve`, each once an answer the server got wrong:
every test states a promise of tracker/web/README.md's "Security model" and sends what it must
hold against (digits that are not ASCII, WebSocket handshakes, copies of one request sent at
once, a large body behind a refusal)."""

from __future__ import annotations

import base64
import json
import os
import re
import socket
import time

import pytest
from test_console import ROLL, gm, phone, table_served
from test_live import SHEETS, head, sse, tracker


@pytest.fixture
def table(tmp_path):
    db = tmp_path / "attack.db"
    tracker(db, "campaign", "new", "Iron", "--system", "gurps")
    for name in ("mira", "vora"):
        tracker(db, "character", "add", "--sheet", str(SHEETS / f"gurps-{name}.toml"))
    tracker(db, "session", "start", "--title", "The salt mines")
    return db


def _raw(server, request: bytes, *, source: str = "127.0.0.1", wait: float = 5) -> bytes:
    sock = socket.create_connection(
        ("127.0.0.1", server.port), timeout=wait, source_address=(source, 0)
    )
    sock.sendall(request)
    got = b""
    try:
        while chunk := sock.recv(65536):
            got += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    sock.close()
    return got


def _status(answer: bytes) -> int:
    found = re.match(rb"HTTP/1\.1 (\d+)", answer)
    return int(found.group(1)) if found else 0


def test_a_last_event_id_of_other_digits_starts_the_feed_afresh(table):
    """No header makes the server answer 5xx: Latin-1's superscript digits are digits to
    str.isdigit() and not to int(); the feed starts afresh."""
    with table_served(table) as server:
        raw = sse(f"{server.base}/events", until_version=head(table))
        token = re.search(rb"id: (\w+)-", raw).group(1)
        console, mira = gm(server), phone(server, "Mira")
        for path, cookie in (("/events", ""), ("/gm/events", console), ("/phone/events", mira)):
            jar = "; ".join(f"{c.name}={c.value}" for c in cookie.jar) if cookie else ""
            answer = _raw(
                server,
                f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n".encode()
                + f"Cookie: {jar}\r\n".encode()
                + b"Last-Event-ID: "
                + token
                + b"-\xb2\r\n\r\n",
                wait=2,
            )
            assert _status(answer) == 200, (path, answer[:200])


def test_a_number_typed_with_other_digits_or_two_signs_is_refused_400(table):
    """No JSON answers 5xx: a whole number given as "²" or "+-5", or a modifier preset with
    one ("darkness:²"), is refused in one sentence."""
    with table_served(table) as server:
        console = gm(server)
        before = head(table)
        for values in (
            {"character": "Mira", "amount": "\u00b2"},
            {"character": "Mira", "amount": "+-5"},
        ):
            status, doc = console.post("/gm/act", {"path": ["points", "award"], "values": values})
            assert status == 400, (values, status, doc)
        for mods in (["darkness:\u00b2"], ["encumbrance:\u00b2"], ["equipment:best:\u00b2"]):
            body = {"path": ["roll"], "values": {**ROLL["values"], "mods": mods}}
            status, doc = console.post("/gm/act", body)
            assert status == 400, (mods, status, doc)
        assert head(table) == before


def test_websocket_handshakes_do_not_use_up_an_address_for_good(table):
    """One address holds at most --max-connections *open* connections. A page on any site can
    open WebSockets to 127.0.0.1: each handshake is answered as the plain request it is and
    closed, and stops counting against its address once closed."""
    with table_served(table, "--max-connections", "8") as server:
        source = "127.0.0.9"
        for _ in range(8):
            key = base64.b64encode(os.urandom(16)).decode()
            answer = _raw(
                server,
                f"GET /gm/events HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                f"Origin: http://elsewhere.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode(),
                source=source,
            )
            assert _status(answer) == 403
        time.sleep(0.5)
        answer = _raw(
            server,
            f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode(),
            source=source,
        )
        assert _status(answer) == 200, answer[:200]


def test_the_same_request_sent_at_once_on_several_connections_keeps_its_first_answer(table):
    """A request sent again is refused 409 with the first answer, even when the copies arrive
    at once: one logs, the rest read "sent already" with its answer, which stays the one
    remembered."""
    with table_served(table) as server:
        console = gm(server)
        jar = "; ".join(f"{c.name}={c.value}" for c in console.jar)
        nonce = "race" + os.urandom(8).hex()
        body = json.dumps({"path": ["note"], "values": {"text": "once"}, "nonce": nonce}).encode()
        message = (
            f"POST /gm/act HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nCookie: {jar}\r\n"
            f"X-CSRF-Token: {console.token}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        ).encode() + body
        socks = [
            socket.create_connection(
                ("127.0.0.1", server.port), timeout=10, source_address=(f"127.0.3.{i + 1}", 0)
            )
            for i in range(6)
        ]
        for sock in socks:
            sock.sendall(message[:-1])
        for sock in socks:
            sock.send(message[-1:])
        answers = []
        for sock in socks:
            got = b""
            while chunk := sock.recv(65536):
                got += chunk
            answers.append(got)
            sock.close()
        firsts = [a for a in answers if _status(a) == 200]
        assert len(firsts) == 1
        first = json.loads(firsts[0].split(b"\r\n\r\n", 1)[1])
        for other in answers:
            if other is not firsts[0]:
                assert _status(other) == 409
                assert "sent already" in other.decode(), other[-200:]
        status, doc = console.post(
            "/gm/act", {"path": ["note"], "values": {"text": "once"}}, nonce=nonce
        )
        assert status == 409
        assert doc["first"] == first, doc


def test_a_request_that_logs_nothing_sent_at_once_twice_runs_once(table):
    """A request that logs nothing (/gm/ask), sent six times at once with one nonce, runs
    once: the copies are answered 409."""
    with table_served(table) as server:
        console = gm(server)
        jar = "; ".join(f"{c.name}={c.value}" for c in console.jar)
        nonce = "twice" + os.urandom(8).hex()
        body = json.dumps({"character": "Mira", "trait": "Per", "nonce": nonce}).encode()
        message = (
            f"POST /gm/ask HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nCookie: {jar}\r\n"
            f"X-CSRF-Token: {console.token}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        ).encode() + body
        socks = [
            socket.create_connection(
                ("127.0.0.1", server.port), timeout=10, source_address=(f"127.0.4.{i + 1}", 0)
            )
            for i in range(6)
        ]
        for sock in socks:
            sock.sendall(message[:-1])
        for sock in socks:
            sock.send(message[-1:])
        statuses = []
        for sock in socks:
            got = b""
            while chunk := sock.recv(65536):
                got += chunk
            statuses.append(_status(got))
            sock.close()
        assert sorted(statuses) == [200, 409, 409, 409, 409, 409], statuses


def test_a_large_body_to_a_host_not_served_is_not_read_on(table):
    """A body over 16 KiB is never read, however the request is refused: one refused for its
    Host (421) has its connection closed at once, rather than read whole until the deadline."""
    with table_served(table) as server:
        sock = socket.create_connection(
            ("127.0.0.1", server.port), timeout=5, source_address=("127.0.0.12", 0)
        )
        sock.sendall(
            b"POST /gm/act HTTP/1.1\r\nHost: elsewhere.example\r\n"
            b"Content-Length: 10000000000\r\n\r\n"
        )
        sent, start, chunk = 0, time.monotonic(), b"x" * 65536
        try:
            while time.monotonic() - start < 5:
                sent += sock.send(chunk)
        except OSError:
            pass
        sock.close()
        assert sent < 16 * 1024 * 1024, f"the server read {sent / 1e6:.0f} MB of a refused body"
