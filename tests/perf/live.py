"""The live view under a table's load: many pages connected, events logged from other processes.

    python tests/perf/live.py [--pages 50] [--events 40] [--idle 10]

Starts ``tracker serve`` on a fresh GURPS campaign, connects ``--pages`` players' feeds (each a
reader of the raw Server-Sent Events stream, as a browser's EventSource is), then logs
``--events`` rolls one after another, each as a one-shot ``tracker roll`` process. For every
roll and every page it takes the time from the command returning to the roll's item reaching
that page. It prints:

- the latency, median / p95 / max, over every page and roll;
- the server's CPU while idle with every page connected (``--idle`` seconds), from /proc;
- the server's memory per connected page: its resident size with every page connected, less
  its size with none, divided by the pages.

This is not a test: pytest does not collect it.
"""

from __future__ import annotations

import argparse
import os
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


REQUEST = b"GET /events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n"


class Page(threading.Thread):
    """One players' feed, read as its bytes arrive: when each event id came."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.arrived: dict[int, float] = {}
        self.ready = threading.Event()

    def run(self) -> None:
        sock = socket.create_connection(("127.0.0.1", self.port))
        sock.sendall(
            b"GET /events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n"
        )
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
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
