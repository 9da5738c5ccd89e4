"""Many tables on one server: how many a process holds with every screen live.

    python tests/perf/tables.py [--tables 10,25,50,100] [--db sqlite|postgres]
                                [--servers 1|2] [--seconds 30] [--pace 8] [--idle 10]

Makes one database of as many campaigns as the largest count asks (GURPS, five characters and
a session each; on PostgreSQL a throwaway cluster from this machine's binaries, as the tests
make one), then, for each count N: starts ``--servers`` ``tracker serve --public`` on it, and
opens N tables at their own addresses (``/c/TOKEN/``), each a console, five phones and a TV,
every one of these seven pages a feed of Server-Sent Events from its own loopback address
(127.1.x.y) holding its own key, spread over the servers. Each table's phones then roll, one
roll every ``--pace`` seconds a table (a table's pace), for ``--seconds``. For every roll it
takes the time from the phone's POST being sent to the roll's event reaching each of its
table's seven pages, and prints, per N:

- the latency over every roll and page, median / p95 / max;
- the servers' CPU while the N tables sat idle (``--idle`` seconds), and their resident size.

Then the most tables whose p95 stayed within 250 ms. The clients run in this one process
(asyncio), on the same two cores as the servers: its own CPU is printed beside theirs.

This is not a test: pytest does not collect it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

PHONES = ("Alba", "Bran", "Cato", "Dara", "Edda")
TARGET_MS = 250.0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Keys:
    token: str
    gm: str
    players: str
    phones: list[str]


def made(db: str, count: int) -> list[Keys]:
    """``count`` tables on the database ``db`` and each one's keys."""
    from click.testing import CliRunner

    from tracker.app.tracker import Tracker
    from tracker.cli import cli
    from tracker.store.invitations import GM, PHONE, PLAYERS

    runner = CliRunner()

    def run(*args: str) -> None:
        done = runner.invoke(cli, ["--db", db, *args], catch_exceptions=False)
        if done.exit_code != 0:
            raise SystemExit(f"tracker {' '.join(args)} failed: {done.output}")

    for n in range(count):
        name = f"Table {n:03d}"
        run("campaign", "new", name, "--system", "gurps")
        for who in PHONES:
            run("character", "add", who, "--stat", "DX=12", "--skill", "Lockpicking=12")
        run("session", "start")
    opened = Tracker(db)
    store = opened.store.invitations
    keys = []
    for row in sorted(opened.store.campaigns(), key=lambda r: r.name):
        state = opened.state(row)
        phones = [
            store.make(PHONE, campaign_id=row.campaign_id, character_id=cid)[1]
            for cid in state.characters
        ]
        keys.append(
            Keys(
                row.campaign_id[:8],
                store.make(GM, campaign_id=row.campaign_id)[1],
                store.make(PLAYERS, campaign_id=row.campaign_id)[1],
                phones,
            )
        )
    opened.close()
    return keys


class Addresses:
    """A loopback address of its own for each client: 127.1.0.1, 127.1.0.2, ..."""

    def __init__(self) -> None:
        self.n = 0

    def next(self) -> str:
        self.n += 1
        return f"127.1.{self.n // 250}.{self.n % 250 + 1}"


async def request(
    port: int,
    source: str,
    method: str,
    path: str,
    cookie: str,
    extra: dict[str, str] | None = None,
    body: bytes = b"",
) -> tuple[int, bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    headers = {"Host": "localhost", "Cookie": cookie, "Connection": "close", **(extra or {})}
    if body:
        headers["Content-Length"] = str(len(body))
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    writer.write(f"{method} {path} HTTP/1.1\r\n{head}\r\n".encode() + body)
    await writer.drain()
    raw = await reader.read()
    writer.close()
    status = int(raw.split(b" ", 2)[1])
    return status, raw.partition(b"\r\n\r\n")[2]


@dataclass
class Page:
    """One screen's feed: when each event (by version) reached it."""

    port: int
    source: str
    path: str
    cookie: str
    arrived: dict[int, float] = field(default_factory=dict)
    ready: asyncio.Event = field(default_factory=asyncio.Event)

    async def follow(self) -> None:
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", self.port, local_addr=(self.source, 0)
        )
        writer.write(
            f"GET {self.path} HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n"
            f"Cookie: {self.cookie}\r\n\r\n".encode()
        )
        await writer.drain()
        while line := await reader.readline():
            if line.startswith(b"id: "):
                self.arrived[int(line.rsplit(b"-", 1)[1])] = time.perf_counter()
            elif line.startswith(b"event: board"):
                self.ready.set()
        raise SystemExit(f"a feed ended: {self.path}")


@dataclass
class Table:
    keys: Keys
    pages: list[Page]
    phones: list[tuple[int, str, str, str]]  # port, source, cookie, page token
    rolls: list[tuple[int, float]] = field(default_factory=list)  # version, sent at


async def opened(keys: Keys, ports: list[int], addresses: Addresses) -> Table:
    """A table's seven screens, each from its own address, on one server or another."""
    at = f"/c/{keys.token}"

    def port() -> int:
        return random.choice(ports)

    pages = [
        Page(port(), addresses.next(), f"{at}/gm/events", f"tracker_gm={keys.gm}"),
        Page(port(), addresses.next(), f"{at}/events", f"tracker_players={keys.players}"),
    ]
    phones = []
    for key in keys.phones:
        source, cookie = addresses.next(), f"tracker_phone={key}"
        pages.append(Page(port(), source, f"{at}/phone/events", cookie))
        status, page = await request(port(), source, "GET", f"{at}/phone", cookie)
        if status != 200:
            raise SystemExit(f"a phone's page answered {status}")
        token = re.search(rb'name="csrf-token" content="([0-9a-f]+)"', page)[1].decode()
        phones.append((port(), source, cookie, token))
    return Table(keys, pages, phones)


async def play(table: Table, seconds: float, pace: float) -> None:
    """A table's phones rolling, one roll every ``pace`` seconds, for ``seconds``."""
    end = time.perf_counter() + seconds
    await asyncio.sleep(random.uniform(0, pace))
    at = f"/c/{table.keys.token}"
    while time.perf_counter() < end:
        port, source, cookie, token = random.choice(table.phones)
        body = json.dumps(
            {"trait": "Lockpicking", "values": {"dice": "3,4,5"}, "nonce": secrets.token_hex(16)}
        ).encode()
        sent = time.perf_counter()
        status, answer = await request(
            port,
            source,
            "POST",
            f"{at}/phone/roll",
            cookie,
            {"Content-Type": "application/json", "X-CSRF-Token": token},
            body,
        )
        try:
            doc = json.loads(answer)
        except ValueError:
            doc = {"answer": answer[:300]}
        if status != 200 or not doc.get("lines"):
            raise SystemExit(f"a roll was refused ({status}): {doc}")
        table.rolls.append((doc["lines"][-1]["version"], sent))
        await asyncio.sleep(pace)


def percentiles(ms: list[float]) -> str:
    ms = sorted(ms)
    p95 = ms[max(int(len(ms) * 0.95) - 1, 0)]
    return f"median {statistics.median(ms):.0f} ms, p95 {p95:.0f} ms, max {ms[-1]:.0f} ms"


async def measured(
    keys: list[Keys], ports: list[int], pids: list[int], seconds: float, pace: float, idle: float
) -> float:
    """Open the tables, sit idle, play; print the figures; the p95 in ms."""
    addresses = Addresses()
    tables = [await opened(k, ports, addresses) for k in keys]
    followers = [asyncio.create_task(p.follow()) for t in tables for p in t.pages]
    for table in tables:
        for page in table.pages:
            await asyncio.wait_for(page.ready.wait(), 60)
    await asyncio.sleep(1.0)
    before = [cpu_seconds(pid) for pid in pids]
    mine, started = time.process_time(), time.perf_counter()
    await asyncio.sleep(idle)
    spent = time.perf_counter() - started
    idle_cpu = [(cpu_seconds(pid) - b) / spent for pid, b in zip(pids, before, strict=True)]
    before = [cpu_seconds(pid) for pid in pids]
    mine, started = time.process_time(), time.perf_counter()
    await asyncio.gather(*(play(t, seconds, pace) for t in tables))
    await asyncio.sleep(3.0)  # the last rolls reach their screens
    spent = time.perf_counter() - started
    busy_cpu = [(cpu_seconds(pid) - b) / spent for pid, b in zip(pids, before, strict=True)]
    clients_cpu = (time.process_time() - mine) / spent
    for task in followers:
        task.cancel()
    ms, missing = [], 0
    for table in tables:
        for version, sent in table.rolls:
            for page in table.pages:
                if version in page.arrived:
                    ms.append(max(page.arrived[version] - sent, 0.0) * 1000)
                else:
                    missing += 1
    rolls = sum(len(t.rolls) for t in tables)
    print(
        f"{len(tables)} tables ({7 * len(tables)} screens), {rolls} rolls in {seconds:.0f} s: "
        f"{percentiles(ms)}" + (f"; {missing} screens never got their roll" if missing else "")
    )
    print(
        "  servers' CPU idle "
        + ", ".join(f"{c:.1%}" for c in idle_cpu)
        + "; playing "
        + ", ".join(f"{c:.0%}" for c in busy_cpu)
        + f"; resident {', '.join(f'{rss_mb(p):.0f} MB' for p in pids)}"
        + f"; the clients' own CPU {clients_cpu:.0%}"
    )
    ms.sort()
    return float("inf") if missing else ms[max(int(len(ms) * 0.95) - 1, 0)]


def serving(db: str, count: int) -> tuple[list[subprocess.Popen], list[int]]:
    ports = [free_port() for _ in range(count)]
    procs = []
    for port in ports:
        # What a server says of a failure, kept to read after.
        log = Path(tempfile.gettempdir(), f"tables-server-{port}.log")
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        procs.append(
            subprocess.Popen(
                [
                    *(sys.executable, "-m", "tracker", "--db", db, "serve"),
                    *("--port", str(port), "--public", "--max-connections", "256"),
                ],
                stdout=subprocess.DEVNULL,
                stderr=fd,
            )
        )
        os.close(fd)
    for port in ports:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("a server never listened") from None
                time.sleep(0.1)
    return procs, ports


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="10,25,50,100")
    parser.add_argument("--db", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--servers", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--pace", type=float, default=8.0)
    parser.add_argument("--idle", type=float, default=10.0)
    args = parser.parse_args()
    counts = [int(n) for n in args.tables.split(",")]
    cluster = None
    with tempfile.TemporaryDirectory() as tmp:
        if args.db == "postgres":
            from pg import Cluster, find_bindir

            cluster = Cluster(find_bindir())
            db = cluster.start()
        else:
            db = str(Path(tmp) / "tables.db")
        try:
            started = time.perf_counter()
            keys = made(db, max(counts))
            print(
                f"{args.db}, {args.servers} server process(es); {max(counts)} tables made in "
                f"{time.perf_counter() - started:.0f} s; a roll every {args.pace:.0f} s a table"
            )
            held = 0
            for count in counts:
                procs, ports = serving(db, args.servers)
                try:
                    p95 = asyncio.run(
                        measured(
                            keys[:count],
                            ports,
                            [p.pid for p in procs],
                            args.seconds,
                            args.pace,
                            args.idle,
                        )
                    )
                finally:
                    for proc in procs:
                        proc.send_signal(signal.SIGINT)
                        proc.wait(timeout=20)
                if p95 <= TARGET_MS:
                    held = max(held, count)
            print(f"most tables with p95 <= {TARGET_MS:.0f} ms: {held} (of {args.tables} tried)")
        finally:
            if cluster is not None:
                cluster.stop()


if __name__ == "__main__":
    main()
