"""Concurrent writers on PostgreSQL: tracker's command path against a raw psycopg writer.

Each writer is a process of its own that opens one connection (tracker: one open ``Tracker``,
its state kept warm as the shell keeps it) and logs ``APPENDS`` notes to the same campaign, all
writers starting together. The twin does the same work with nothing but psycopg: take tracker's
advisory lock, read the head, chain and hash the event as tracker does, insert it, commit.
Appends per second are the writers' total over the wall time from the common start to the last
writer's end. Nothing here is collected by pytest.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from pathlib import Path
from typing import Any

import twins

APPENDS = 150
WRITER_COUNTS = (1, 2, 4, 8)
# tracker's advisory lock key (tracker.store.backend.WRITERS_LOCK_KEY), spelled "trackr".
LOCK_KEY = 0x747261636B72
CAMPAIGN = "Writers"


def _tracker_writer(url: str, appends: int, start: Any, done: Any) -> None:
    from tracker.app.tracker import Tracker
    from tracker.errors import ConcurrencyError

    tracker = Tracker(url, CAMPAIGN)
    tracker.warm = True
    collisions = 0
    append = tracker.store.append

    def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal collisions
        try:
            return append(*args, **kwargs)
        except ConcurrencyError:
            collisions += 1
            raise

    tracker.store.append = counted  # type: ignore[method-assign]
    tracker.state()  # opened and folded before the clock starts, as a shell is
    start.wait()
    for i in range(appends):
        tracker.tracks.note(f"writer {os.getpid()} note {i}")
    tracker.close()
    done.put(collisions)


def _raw_writer(url: str, appends: int, start: Any, done: Any) -> None:
    import psycopg

    conn = psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"))
    campaign_id = conn.execute(
        "SELECT campaign_id FROM campaigns WHERE name = %s", (CAMPAIGN,)
    ).fetchone()[0]
    conn.commit()
    start.wait()
    for i in range(appends):
        payload = {"text": f"writer {os.getpid()} note {i}"}
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
        version, prev = conn.execute(
            "SELECT version, hash FROM events WHERE campaign_id = %s ORDER BY version DESC LIMIT 1",
            (campaign_id,),
        ).fetchone()
        row = twins.chained_row(campaign_id, version + 1, prev, "NoteAdded", payload)
        conn.execute(twins.INSERT_APPENDED.replace("?", "%s"), row)
        conn.commit()
    conn.close()
    done.put(0)


def run_writers(url: str, writers: int, raw: bool, appends: int = APPENDS) -> dict[str, Any]:
    """``writers`` processes logging ``appends`` notes each; appends per second and collisions."""
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(writers + 1)
    done = context.Queue()
    target = _raw_writer if raw else _tracker_writer
    procs = [
        context.Process(target=target, args=(url, appends, start, done)) for _ in range(writers)
    ]
    for proc in procs:
        proc.start()
    start.wait()
    began = time.perf_counter()
    collisions = sum(done.get(timeout=600) for _ in procs)
    seconds = time.perf_counter() - began
    for proc in procs:
        proc.join()
        if proc.exitcode != 0:
            raise SystemExit(f"a writer exited {proc.exitcode}")
    return {"per_second": writers * appends / seconds, "collisions": collisions}


def make_campaign(url: str) -> None:
    from tracker.app.tracker import Tracker

    tracker = Tracker(url)
    tracker.campaigns.campaign_new(CAMPAIGN, "glintlock")
    tracker.close()


def server() -> Any:
    """A throwaway PostgreSQL cluster (the tests' own), or None with the reason it is missing."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import pg

    try:
        cluster = pg.Cluster(pg.find_bindir())
        return cluster, cluster.start()
    except pg.NoServer as exc:
        return None, str(exc)


def measure(url: str, appends: int = APPENDS) -> list[dict[str, Any]]:
    """For each count of writers, tracker's appends per second and the twin's, on one campaign
    (the twin's appends continue tracker's chain, so both write to the same growing log)."""
    make_campaign(url)
    rows = []
    for writers in WRITER_COUNTS:
        mine = run_writers(url, writers, raw=False, appends=appends)
        raw = run_writers(url, writers, raw=True, appends=appends)
        rows.append({"writers": writers, "tracker": mine, "raw": raw})
    return rows


if __name__ == "__main__":
    cluster, url = server()
    if cluster is None:
        raise SystemExit(url)
    try:
        for row in measure(url, int(sys.argv[1]) if len(sys.argv) > 1 else APPENDS):
            print(row, flush=True)
    finally:
        cluster.stop()
