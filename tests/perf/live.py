"""The live view under a table's load: many pages connected, events logged from other processes.

    python tests/perf/live.py [--pages 50] [--events 40] [--idle 10]
    python tests/perf/live.py --table [--phones 8] [--events 40] [--idle 10]

Starts ``tracker serve`` on a fresh GURPS campaign, connects ``--pages`` players' feeds (each a
reader of the raw Server-Sent Events stream, as a browser's EventSource is), then logs
``--events`` rolls one after another, each as a one-shot ``tracker roll`` process. For every
roll and every page it takes the time from the command returning to the roll's item reaching
that page. It prints:

- the latency, median / p95 / max, over every page and roll;
- the server's CPU while idle with every page connected (``--idle`` seconds), from /proc;
- the server's memory per connected page: its resident size with every page connected, less
  its size with none, divided by the pages.

With ``--table``, the table as it plays: ``--phones`` characters, each with its phone's feed
open (behind its key, as the phone's page opens it), one TV (the players' page's feed) and the
GM's console (its feed, behind the GM's key). Each roll is a phone's: a POST to ``/phone/roll``
as the phone's page sends it (its page token, a nonce of its own), the phones taking turns. It
prints the latency from the POST returning to the roll's item reaching each page (all of them,
then the phones, the TV and the console apart), and the server's CPU while idle with them all
connected.

This is not a test: pytest does not collect it.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHEET = ROOT / "fixtures" / "sheets" / "gurps-mira.toml"


def tracker(db: Path, *args: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "tracker", "--db", str(db), *args],
        check=True,
        capture_output=True,
    )


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Page(threading.Thread):
    """One feed (by default the players'), read as its bytes arrive: when each event id came.
    ``cookie`` is the key a phone's or the GM's page holds."""

    def __init__(self, port: int, path: str = "/events", cookie: str = "") -> None:
        super().__init__(daemon=True)
        self.port = port
        self.request = (
            f"GET {path} HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n"
            + (f"Cookie: {cookie}\r\n" if cookie else "")
            + "\r\n"
        ).encode()
        self.arrived: dict[int, float] = {}
        self.ready = threading.Event()

    def run(self) -> None:
        sock = socket.create_connection(("127.0.0.1", self.port))
        sock.sendall(self.request)
        stream = sock.makefile("rb")
        for raw in stream:
            if raw.startswith(b"id: "):
                self.arrived[int(raw.rsplit(b"-", 1)[1])] = time.perf_counter()
            elif raw.startswith(b"event: board"):
                self.ready.set()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--events", type=int, default=40)
    parser.add_argument("--idle", type=float, default=10.0)
    parser.add_argument("--table", action="store_true", help="phones, a TV and the console")
    parser.add_argument("--phones", type=int, default=8)
    args = parser.parse_args()
    if args.table:
        table(args.phones, args.events, args.idle)
        return
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "live.db"
        tracker(db, "campaign", "new", "Bench", "--system", "gurps")
        tracker(db, "character", "add", "--sheet", str(SHEET))
        tracker(db, "session", "start")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = subprocess.Popen(
            [sys.executable, "-m", "tracker", "--db", str(db), "serve", "--port", str(port)],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            for _ in range(3):
                server.stdout.readline()
            time.sleep(1.0)
            alone = rss_kb(server.pid)
            pages = [Page(port) for _ in range(args.pages)]
            for page in pages:
                page.start()
            for page in pages:
                page.ready.wait(30)
            time.sleep(1.0)
            crowded = rss_kb(server.pid)
            before, started = cpu_seconds(server.pid), time.perf_counter()
            time.sleep(args.idle)
            idle = (cpu_seconds(server.pid) - before) / (time.perf_counter() - started)
            latencies = []
            for n in range(args.events):
                version_before = max((max(p.arrived, default=0) for p in pages), default=0)
                tracker(db, "roll", "Mira", "Lockpicking", "--dice", "3,4,5")
                returned = time.perf_counter()
                version = version_before + 1
                deadline = returned + 10
                while time.perf_counter() < deadline and not all(
                    version in p.arrived for p in pages
                ):
                    time.sleep(0.002)
                missing = [p for p in pages if version not in p.arrived]
                if missing:
                    raise SystemExit(f"roll {n}: {len(missing)} pages never got event {version}")
                latencies += [max(p.arrived[version] - returned, 0.0) for p in pages]
            ms = sorted(x * 1000 for x in latencies)
            p95 = ms[int(len(ms) * 0.95) - 1]
            print(f"pages connected: {args.pages}; rolls logged: {args.events}")
            print(
                f"latency, command returned -> on every page: median {statistics.median(ms):.0f} "
                f"ms, p95 {p95:.0f} ms, max {ms[-1]:.0f} ms  (target p95 <= 250 ms)"
            )
            print(f"server CPU while idle with {args.pages} pages: {idle:.2%}")
            per_page = (crowded - alone) / args.pages
            print(
                f"server memory: {alone / 1024:.1f} MB alone, {crowded / 1024:.1f} MB with "
                f"{args.pages} pages: {per_page:.0f} KB per page  (target < 1 MB)"
            )
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=15)


NAMES = ("Alba", "Bran", "Cato", "Dara", "Edda", "Finn", "Gala", "Hugo", "Ines", "Jory")
# Actions from one address are held to 2 a second after a burst of 20 (``tracker.web.server.
# RATES``): the rolls are spaced past it, as players at one table are.
SPACING = 0.6


def percentiles(seconds: list[float]) -> str:
    ms = sorted(x * 1000 for x in seconds)
    p95 = ms[max(int(len(ms) * 0.95) - 1, 0)]
    return f"median {statistics.median(ms):.0f} ms, p95 {p95:.0f} ms, max {ms[-1]:.0f} ms"


class PhoneClient:
    """A phone's page: its key (as the cookie its link set) and the token its page carries."""

    def __init__(self, port: int, key: str) -> None:
        self.port = port
        self.cookie = f"tracker_phone={key}"
        page = self._request("GET", "/phone")
        self.token = re.search(rb'name="csrf-token" content="([0-9a-f]+)"', page)[1].decode()

    def roll(self, trait: str, dice: str) -> None:
        body = {"trait": trait, "values": {"dice": dice}, "nonce": secrets.token_hex(16)}
        answer = json.loads(self._request("POST", "/phone/roll", body))
        if not answer.get("ok"):
            raise SystemExit(f"a phone's roll was refused: {answer}")

    def _request(self, method: str, path: str, body: dict | None = None) -> bytes:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {"Host": "localhost", "Cookie": self.cookie}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers |= {"Content-Type": "application/json", "X-CSRF-Token": self.token}
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        got = response.read()
        connection.close()
        return got


def table(phones: int, events: int, idle_s: float) -> None:
    """The table's pages connected, rolls made from the phones (see the module's docstring)."""
    if not 1 <= phones <= len(NAMES):
        raise SystemExit(f"--phones takes 1 to {len(NAMES)}")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "live.db"
        tracker(db, "campaign", "new", "Bench", "--system", "gurps")
        for name in NAMES[:phones]:
            tracker(db, "character", "add", name, "--stat", "DX=12", "--skill", "Lockpicking=12")
        tracker(db, "session", "start")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = subprocess.Popen(
            [sys.executable, "-m", "tracker", "--db", str(db), "serve", "--port", str(port)],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            printed = [server.stdout.readline() for _ in range(4 + phones)]
            gm_key = re.search(r"/gm\?key=(\S+)", "".join(printed))[1]
            keys = re.findall(r"/phone\?key=(\S+)", "".join(printed))
            time.sleep(1.0)
            clients = [PhoneClient(port, key) for key in keys]
            kinds = {
                "phones": [Page(port, "/phone/events", c.cookie) for c in clients],
                "TV": [Page(port)],
                "console": [Page(port, "/gm/events", f"tracker_gm={gm_key}")],
            }
            pages = [page for group in kinds.values() for page in group]
            for page in pages:
                page.start()
            for page in pages:
                if not page.ready.wait(30):
                    raise SystemExit("a page never got its first board")
            time.sleep(1.0)
            before, started = cpu_seconds(server.pid), time.perf_counter()
            time.sleep(idle_s)
            idle = (cpu_seconds(server.pid) - before) / (time.perf_counter() - started)
            latency: dict[str, list[float]] = {kind: [] for kind in kinds}
            version = max(max(p.arrived, default=0) for p in pages)
            for n in range(events):
                time.sleep(SPACING)
                clients[n % len(clients)].roll("Lockpicking", "3,4,5")
                returned = time.perf_counter()
                version += 1
                deadline = returned + 10
                while time.perf_counter() < deadline and not all(
                    version in p.arrived for p in pages
                ):
                    time.sleep(0.002)
                missing = [p for p in pages if version not in p.arrived]
                if missing:
                    raise SystemExit(f"roll {n}: {len(missing)} pages never got event {version}")
                for kind, group in kinds.items():
                    latency[kind] += [max(p.arrived[version] - returned, 0.0) for p in group]
            every = [x for group in latency.values() for x in group]
            print(
                f"pages connected: {phones} phones, 1 TV, the console; "
                f"rolls from the phones: {events}"
            )
            print(
                f"latency, phone's POST returned -> on every page: {percentiles(every)}  "
                "(target p95 <= 250 ms)"
            )
            for kind, group in latency.items():
                print(f"  {kind}: {percentiles(group)}")
            print(f"server CPU while idle with them connected ({idle_s:.0f} s): {idle:.2%}")
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=15)


if __name__ == "__main__":
    main()
