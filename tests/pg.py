"""A PostgreSQL server for the tests that prove tracker on PostgreSQL.

``pg_url`` (one per test run) is ``$TRACKER_TEST_PG`` when set, else a throwaway cluster started
from the PostgreSQL binaries installed on this machine, on a free localhost port, with trust
authentication, and stopped when the run ends. ``pg_database`` (one per test) is the URL of a new,
empty database on that server, dropped after the test. When no server can be had, the tests that
need one are skipped, or fail when ``$CI`` is set: CI must prove PostgreSQL, not skip it.

A test module loads the fixtures with ``pytest_plugins = ("pg",)``; ``pg_other_database`` is a
second empty database for a test that copies one into another.
"""

from __future__ import annotations

import contextlib
import grp
import os
import pwd
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

ENV_URL = "TRACKER_TEST_PG"
SERVER_USER = "postgres"
TEST_DATABASE = "tracker_test"
START_ATTEMPTS = 3


class NoServer(Exception):
    """No PostgreSQL server could be found or started; the message says why."""


def find_bindir() -> Path:
    """The newest installed PostgreSQL's bin folder (Debian's layout), else the one on PATH."""
    candidates = [
        p.parent for p in Path("/usr/lib/postgresql").glob("*/bin/initdb") if p.parent.is_dir()
    ]
    if candidates:

        def major(bindir: Path) -> tuple[int, ...]:
            name = bindir.parent.name
            return tuple(int(n) for n in name.split(".") if n.isdigit())

        return max(candidates, key=major)
    initdb = shutil.which("initdb")
    if initdb and shutil.which("pg_ctl"):
        return Path(initdb).resolve().parent
    raise NoServer(
        "no PostgreSQL binaries (initdb, pg_ctl) are installed; install PostgreSQL "
        f"(Debian: apt-get install postgresql) or set {ENV_URL} to a server's URL"
    )


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """A PostgreSQL cluster in a temporary folder, owned by an unprivileged user when run as root.

    PostgreSQL refuses to run as root, so as root the cluster belongs to the ``postgres`` system
    user (created if missing) and every server command runs through ``runuser``.
    """

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.as_user = SERVER_USER if os.geteuid() == 0 else None
        if self.as_user:
            ensure_system_user(self.as_user)
        # Not under pytest's tmp folder: as root that folder is private to root.
        self.root = Path(tempfile.mkdtemp(prefix="tracker-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = 0
        if self.as_user:
            user = pwd.getpwnam(self.as_user)
            os.chown(self.root, user.pw_uid, user.pw_gid)

    def run(self, *args: str) -> None:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self.as_user:
            if shutil.which("runuser"):
                command = ["runuser", "-u", self.as_user, "--", *command]
            else:
                command = ["su", self.as_user, "-s", "/bin/sh", "-c", shlex.join(command)]
        done = subprocess.run(
            command, cwd=self.root, capture_output=True, text=True, timeout=120, check=False
        )
        if done.returncode != 0:
            detail = (done.stderr or done.stdout).strip().splitlines()
            raise NoServer(f"{args[0]} failed: {detail[-1] if detail else done.returncode}")

    def start(self) -> str:
        """Create and start the cluster; return the URL of its (empty) test database."""
        initdb = ["initdb", "-D", str(self.data), "-U", SERVER_USER, "-A", "trust"]
        self.run(*initdb, "-E", "UTF8", "--locale=C", "--no-sync")
        for attempt in range(START_ATTEMPTS):
            # Another process may take the port between choosing it and the server binding it.
            self.port = free_port()
            # A throwaway cluster: durability settings off make the tests quicker.
            options = (
                f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            )
            start = ["pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options]
            try:
                self.run(*start, "-w", "start")
                break
            except NoServer:
                if attempt == START_ATTEMPTS - 1:
                    raise NoServer(
                        f"the server did not start; its log says: {self.log_tail()}"
                    ) from None
        admin = f"postgresql+psycopg://{SERVER_USER}@127.0.0.1:{self.port}/postgres"
        create_database(admin, TEST_DATABASE)
        return f"postgresql+psycopg://{SERVER_USER}@127.0.0.1:{self.port}/{TEST_DATABASE}"

    def log_tail(self) -> str:
        try:
            lines = self.log.read_text(errors="replace").strip().splitlines()
        except OSError:
            return "(no log)"
        return " / ".join(lines[-3:]) or "(empty log)"

    def stop(self) -> None:
        with contextlib.suppress(NoServer, OSError, subprocess.SubprocessError):
            if self.data.joinpath("postmaster.pid").exists():
                self.run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)


def ensure_system_user(name: str) -> None:
    try:
        pwd.getpwnam(name)
    except KeyError:
        # A group of that name may be there without its user (a package installed, then the
        # user removed): useradd then needs to be told to join it.
        try:
            grp.getgrnam(name)
            group = ["--gid", name]
        except KeyError:
            group = []
        done = subprocess.run(
            [
                "useradd",
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
                *group,
                name,
            ],
            capture_output=True,
            text=True,
            check=False,
            # useradd writes /etc/passwd anew under the umask it is given: tracker's own (which
            # keeps its files private) would leave the file unreadable to every other user.
            umask=0o022,
        )
        if done.returncode != 0:
            raise NoServer(
                f"running as root, and the {name} user to run the server as could not be "
                f"created: {done.stderr.strip()}"
            ) from None


def admin_engine(url: str):
    return create_engine(url, isolation_level="AUTOCOMMIT", poolclass=NullPool)


def create_database(server_url: str, name: str) -> None:
    """Create database ``name`` on the server ``server_url`` points at."""
    engine = admin_engine(server_url)
    try:
        with engine.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        engine.dispose()


def drop_database(server_url: str, name: str) -> None:
    """Drop database ``name``, ending any connection a test left open to it."""
    engine = admin_engine(server_url)
    try:
        with engine.connect() as conn:
            conn.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = :name AND pid <> pg_backend_pid()"
                ),
                {"name": name},
            )
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
    finally:
        engine.dispose()


def no_server(reason: str) -> NoReturn:
    message = f"PostgreSQL tests need a server: {reason}."
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    print(message, file=sys.stderr)
    pytest.skip(message)


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """The URL of a PostgreSQL database for this test run (``$TRACKER_TEST_PG`` or a new one)."""
    given = os.environ.get(ENV_URL)
    if given:
        yield given
        return
    cluster = None
    try:
        cluster = Cluster(find_bindir())
        url = cluster.start()
    except Exception as exc:
        if cluster is not None:
            cluster.stop()
        no_server(next(iter(str(exc).splitlines()), type(exc).__name__))
    try:
        yield url
    finally:
        cluster.stop()


@contextlib.contextmanager
def new_database(server_url: str) -> Iterator[str]:
    """The URL of a new, empty database on the server ``server_url`` points at; dropped after."""
    name = f"t_{uuid.uuid4().hex}"
    try:
        create_database(server_url, name)
    except Exception as exc:
        reason = next(iter(str(getattr(exc, "orig", None) or exc).splitlines()), "")
        no_server(f"cannot create a database on {make_url(server_url).host}: {reason}")
    try:
        yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
    finally:
        drop_database(server_url, name)


@pytest.fixture
def pg_database(pg_url: str) -> Iterator[str]:
    """The URL of a new, empty database on the test server, dropped when the test ends."""
    with new_database(pg_url) as url:
        yield url


@pytest.fixture
def pg_other_database(pg_url: str) -> Iterator[str]:
    """A second new, empty database, for tests that copy one database into another."""
    with new_database(pg_url) as url:
        yield url
