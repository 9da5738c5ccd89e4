"""The table's app on the internet: HTTPS in the server itself, or behind a reverse proxy whose
forwarded headers alone are believed, and one public address for every link.

A certificate is made here with the system's ``openssl`` for each test that needs one; nothing
is fetched."""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import shutil
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from test_live import SHEETS, free_port, tracker
from test_web_app import asgi_request, invited

from tracker.app.live import Live
from tracker.app.tracker import Tracker
from tracker.web.server import Hosts, make_app

UNLIMITED = {"POST": (1e9, 1e9), "GET": (1e9, 1e9)}
PUBLIC = "https://dice.example.org"
PROXY = "127.0.0.2"

needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl here")


def certificate(folder: Path, name: str = "localhost") -> tuple[Path, Path]:
    """A self-signed certificate for ``name`` and its key, made with openssl."""
    cert, key = folder / f"{name}.crt", folder / f"{name}.key"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", f"/CN={name}", "-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


@pytest.fixture
def table(tmp_path) -> Path:
    db = tmp_path / "table.db"
    tracker(db, "campaign", "new", "Veyra", "--system", "glintlock")
    tracker(db, "character", "add", "--sheet", str(SHEETS / "glintlock-wren.toml"))
    tracker(db, "session", "start")
    return db


def _events(db: Path) -> int:
    import sqlite3

    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT count(*) FROM events").fetchone()[0]


# -- TLS in the server itself ------------------------------------------------------------------


def _unverified() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


@needs_openssl
def test_serve_over_https_with_its_own_certificate(table, tmp_path):
    """Links are https, every answer carries HSTS, the GM's cookie is Secure, the players'
    page needs its link (the server is public), and a plain HTTP request to the TLS port is
    no request at all."""
    cert, key = certificate(tmp_path)
    port = free_port()
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "tracker", "--db", str(table), "serve", "--port", str(port)),
            *("--cert", str(cert), "--cert-key", str(key)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        printed = [proc.stdout.readline() for _ in range(6)]
        assert f"Players: https://localhost:{port}/?key=" in "".join(printed)
        gm = re.search(r"(https://\S+/gm\?key=\S+)", "".join(printed))
        assert gm, (printed, proc.poll())
        assert f"https://localhost:{port}/phone?key=" in "".join(printed)
        local = gm[1].replace("localhost", "127.0.0.1")
        deadline = time.monotonic() + 20
        while True:
            try:
                page = urllib.request.urlopen(
                    f"https://127.0.0.1:{port}/static/live.css", context=_unverified(), timeout=2
                )
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not come up"
                time.sleep(0.1)
        assert page.status == 200
        assert page.headers["Strict-Transport-Security"] == "max-age=31536000"
        with pytest.raises(urllib.error.HTTPError) as players:
            urllib.request.urlopen(f"https://127.0.0.1:{port}/", context=_unverified(), timeout=5)
        assert players.value.code == 403
        assert players.value.headers["Strict-Transport-Security"] == "max-age=31536000"
        opener = urllib.request.build_opener(
            _NoRedirect, urllib.request.HTTPSHandler(context=_unverified())
        )
        with pytest.raises(urllib.error.HTTPError) as let_in:
            opener.open(local, timeout=5)
        assert let_in.value.code == 303
        cookie = let_in.value.headers["Set-Cookie"]
        assert cookie.startswith("tracker_gm=")
        assert "Secure" in cookie
        assert "HttpOnly" in cookie
        with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=3).read()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@needs_openssl
@pytest.mark.parametrize("case", ["cert alone", "key of another", "no such file", "encrypted key"])
def test_a_certificate_that_cannot_serve_is_refused_before_anything_listens(table, tmp_path, case):
    cert, key = certificate(tmp_path)
    _, other = certificate(tmp_path, "other")
    locked = tmp_path / "locked.key"
    subprocess.run(
        [
            *("openssl", "pkey", "-in", str(key), "-out", str(locked)),
            *("-aes256", "-passout", "pass:secret"),
        ],
        check=True,
        capture_output=True,
    )
    given = {
        "encrypted key": ["--cert", str(cert), "--cert-key", str(locked)],
        "cert alone": ["--cert", str(cert)],
        "key of another": ["--cert", str(cert), "--cert-key", str(other)],
        "no such file": ["--cert", str(tmp_path / "nowhere.crt"), "--cert-key", str(key)],
    }[case]
    port = free_port()
    before = _events(table)
    done = subprocess.run(
        [
            *(sys.executable, "-m", "tracker", "--db", str(table), "serve", "--port", str(port)),
            *given,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    said = done.stderr.strip()
    assert "\n" not in said, said
    assert "--cert" in said or "certificate" in said
    assert "Traceback" not in said
    with socket.socket() as probe:  # nothing was left listening
        assert probe.connect_ex(("127.0.0.1", port)) != 0
    assert _events(table) == before


@pytest.mark.parametrize(
    "url", ["dice.example.org", "ftp://dice.example.org", "https://dice.example.org/gm?x=1"]
)
def test_a_public_address_that_is_no_origin_is_refused(table, url):
    done = subprocess.run(
        [sys.executable, "-m", "tracker", "--db", str(table), "serve", "--public-url", url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "--public-url takes the address players open" in done.stderr


# -- behind a reverse proxy ----------------------------------------------------------------------


async def _call(app, path: str, *, client: str, headers: dict[str, str], body: bytes = b""):
    """One request through the app from ``client``: its status, headers and body."""
    return await asgi_request(app, "POST" if body else "GET", path, headers, body, client=client)


@pytest.fixture
def proxied(table):
    """The app as ``tracker serve --proxy 127.0.0.2 --public-url https://dice.example.org``
    makes it, with the GM's page opened through the proxy."""
    opened = Tracker(str(table))
    opened.warm = False
    app = make_app(
        Live(opened),
        hosts=Hosts("127.0.0.1", ("dice.example.org",)),
        base=PUBLIC,
        rates=UNLIMITED,
        proxies=(PROXY,),
    )
    app.state.gm_key = invited(opened)[0]
    yield app, table
    opened.close()


THROUGH = {
    "host": "dice.example.org",
    "x-forwarded-proto": "https",
    "x-forwarded-for": "203.0.113.7",
}


def _gm(app, client: str, headers: dict[str, str]) -> dict[str, str]:
    """The GM's cookie and page token, as a browser opening the console by ``client`` holds
    them."""
    status, got, _ = asyncio.run(
        _call(app, f"/gm?key={app.state.gm_key}", client=client, headers=headers)
    )
    assert status == 303
    cookie = got["set-cookie"].split(";")[0]
    status, got, page = asyncio.run(
        _call(app, "/gm", client=client, headers={**headers, "cookie": cookie})
    )
    assert status == 200
    token = re.search(rb'name="csrf-token" content="([0-9a-f]*)"', page).group(1).decode()
    return {"cookie": cookie, "x-csrf-token": token}


def _note(text: str) -> bytes:
    doc = {"path": ["note"], "values": {"text": text}, "nonce": secrets.token_hex(12)}
    return json.dumps(doc).encode()


def test_behind_the_proxy_the_public_https_origin_acts_and_the_cookie_is_secure(proxied):
    app, db = proxied
    status, got, _ = asyncio.run(
        _call(app, f"/gm?key={app.state.gm_key}", client=PROXY, headers=THROUGH)
    )
    assert status == 303
    assert "secure" in got["set-cookie"].lower()
    assert got["strict-transport-security"] == "max-age=31536000"
    gm = _gm(app, PROXY, THROUGH)
    before = _events(db)
    headers = {**THROUGH, **gm, "content-type": "application/json", "origin": PUBLIC}
    status, _, answer = asyncio.run(
        _call(app, "/gm/act", client=PROXY, headers=headers, body=_note("through the proxy"))
    )
    assert status == 200, answer
    assert _events(db) == before + 1


def test_forwarded_headers_from_anyone_but_the_proxy_are_not_believed(proxied):
    """A client on the server's own machine that is not the proxy forges X-Forwarded-Proto:
    the request stays plain HTTP, so no HSTS, no Secure cookie, and an action claiming the
    public https origin is refused with nothing appended."""
    app, db = proxied
    forged = {**THROUGH, "host": "127.0.0.1:8765"}
    status, got, _ = asyncio.run(
        _call(app, f"/gm?key={app.state.gm_key}", client="127.0.0.1", headers=forged)
    )
    assert status == 303
    assert "secure" not in got["set-cookie"].lower()
    assert "strict-transport-security" not in got
    gm = _gm(app, "127.0.0.1", forged)
    before = _events(db)
    headers = {**forged, **gm, "content-type": "application/json", "origin": "https://evil.example"}
    status, _, answer = asyncio.run(
        _call(app, "/gm/act", client="127.0.0.1", headers=headers, body=_note("forged"))
    )
    assert status == 403
    assert json.loads(answer)["error"] == "An action must come from this server's own page."
    assert _events(db) == before


def test_the_public_url_is_in_every_link_the_server_prints(table):
    port = free_port()
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "tracker", "--db", str(table), "serve", "--port", str(port)),
            *("--proxy", "127.0.0.1", "--public-url", PUBLIC + "/"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        printed = "".join(proc.stdout.readline() for _ in range(6))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert f"Players: {PUBLIC}/?key=" in printed
    assert f"GM:      {PUBLIC}/gm?key=" in printed
    assert f"Wren: {PUBLIC}/phone?key=" in printed
    assert "localhost" not in printed
