"""The online guide (``tracker/web/ONLINE.md``), run: each of its steps read from the guide and
run as written against a throwaway PostgreSQL, its nginx site served by a real nginx with a
certificate made here, and two ``tracker serve`` behind it; only the server's name, the ports
and the certificate's files are changed.

Then an evening through the proxy: the TV's feed and a phone over HTTPS, the phone's rolls
landing on both servers in turn, one server killed (``kill -9``) mid-evening and started
again, and every roll counted: logged once, none lost or doubled, and every one on the TV.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import ssl
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url
from test_https import certificate
from test_live import SHEETS, free_port

pytest_plugins = ("pg",)

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "tracker/web/ONLINE.md"
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
NAME = "dice.example.org"
ROLLS = 12


def steps() -> dict[str, str]:
    """The guide's steps by name: the block after each ``<!-- step: NAME -->``."""
    text = GUIDE.read_text(encoding="utf-8")
    return dict(re.findall(r"<!-- step: (\w+) -->\n```\w*\n(.*?)```", text, re.S))


def test_the_guide_names_every_step_a_test_runs():
    assert list(steps()) == [
        "database",
        "environment",
        "campaign",
        "nginx",
        "serve",
        "invite",
        "revoke",
    ]


def _unverified() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


class Through:
    """HTTPS requests to nginx, as a browser at the table sends them."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.origin = f"https://localhost:{port}"

    def request(
        self, method: str, path: str, headers: dict[str, str] | None = None, body: bytes = b""
    ) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPSConnection(
            "127.0.0.1", self.port, context=_unverified(), timeout=20
        )
        try:
            sent = {"Host": f"localhost:{self.port}", **(headers or {})}
            conn.request(method, path, body=body or None, headers=sent)
            got = conn.getresponse()
            return got.status, {k.lower(): v for k, v in got.getheaders()}, got.read()
        finally:
            conn.close()

    def let_in(self, link: str, cookie_name: str) -> str:
        """The cookie a link opens into (its key leaves the address)."""
        status, headers, _ = self.request("GET", link.removeprefix(self.origin))
        assert status == 303, (status, link)
        cookie = headers["set-cookie"]
        assert "Secure" in cookie, cookie
        return cookie.split(";")[0]


class TV(threading.Thread):
    """The players' page's feed through nginx, reconnecting (with the last id it saw) as a
    browser's EventSource does when its server goes away."""

    def __init__(self, through: Through, cookie: str) -> None:
        super().__init__(daemon=True)
        self.through, self.cookie = through, cookie
        self.versions: set[int] = set()
        self.last = ""
        self.stopping = False

    def run(self) -> None:
        while not self.stopping:
            try:
                conn = http.client.HTTPSConnection(
                    "127.0.0.1", self.through.port, context=_unverified(), timeout=30
                )
                headers = {"Host": f"localhost:{self.through.port}", "Cookie": self.cookie}
                if self.last:
                    headers["Last-Event-ID"] = self.last
                conn.request("GET", "/events", headers=headers)
                answer = conn.getresponse()
                while not self.stopping:
                    line = answer.readline()
                    if not line:
                        break
                    found = re.match(rb"id: (\w+-(\d+))", line)
                    if found:
                        self.last = found.group(1).decode()
                        self.versions.add(int(found.group(2)))
            except (OSError, http.client.HTTPException):
                pass
            time.sleep(0.3)


def _roll(through: Through, page: dict[str, str]) -> dict:
    """One press of the phone's Roll (a strong hit, which moves no Threat): sent again with
    the same nonce while the proxy cannot answer (a server stopping under it), as the page
    does."""
    body = json.dumps(
        {"trait": "Grit", "values": {"dice": "18,19"}, "nonce": secrets.token_hex(12)}
    ).encode()
    headers = {**page, "Content-Type": "application/json", "Origin": through.origin}
    for _ in range(20):
        try:
            status, _, answer = through.request("POST", "/phone/roll", headers, body)
        except (OSError, http.client.HTTPException):
            time.sleep(0.3)
            continue
        if status in (502, 503, 504):
            time.sleep(0.3)
            continue
        doc = json.loads(answer)
        if status == 409 and doc.get("first"):
            return doc["first"]  # the first copy logged; this one is its answer again
        if status == 409 and "sent already" in doc["error"]:
            # The first copy logged on the server killed before it could keep its answer:
            # logged once all the same, as the page tells the player.
            return {"ok": True, "text": ["Logged once."]}
        assert status == 200, (status, doc)
        return doc
    raise AssertionError("the proxy never answered the roll")


def _rolls_logged(env: dict[str, str]) -> list[int]:
    done = subprocess.run(
        [sys.executable, "-m", "tracker", "log", "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    events = json.loads(done.stdout)["events"]
    return [e["version"] for e in events if e["type"] == "RollMade"]


def _serve(command: str, env: dict[str, str], ports: dict[str, int], https: int):
    args = shlex.split(command)
    args[args.index("--port") + 1] = str(ports[args[args.index("--port") + 1]])
    args[args.index("--public-url") + 1] = f"https://localhost:{https}"
    assert args[0] == "tracker"
    return subprocess.Popen(
        [sys.executable, "-m", "tracker", *args[1:]],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _printed(proc: subprocess.Popen, until: str) -> str:
    lines = []
    while True:
        line = proc.stdout.readline()
        assert line, ("".join(lines), proc.stderr.read() if proc.poll() is not None else "")
        lines.append(line)
        if until in line:
            return "".join(lines)


def _nginx_conf(site: str, folder: Path, ports: dict[str, int], cert: Path, key: Path) -> str:
    """The guide's site, its names changed, in a main file of nginx's own for this test."""
    for given, port in ports.items():
        site = site.replace(f"127.0.0.1:{given}", f"127.0.0.1:{port}")
    site = site.replace("listen 443 ssl;", f"listen 127.0.0.1:{ports['443']} ssl;")
    site = site.replace("listen 80;", f"listen 127.0.0.1:{ports['80']};")
    site = site.replace(f"/etc/letsencrypt/live/{NAME}/fullchain.pem", str(cert))
    site = site.replace(f"/etc/letsencrypt/live/{NAME}/privkey.pem", str(key))
    site = site.replace(NAME, "localhost")
    temp = " ".join(
        f"{kind}_temp_path {folder / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    user = "user root root;" if os.geteuid() == 0 else ""
    return (
        f"{user}\nworker_processes 1;\ndaemon off;\npid {folder / 'nginx.pid'};\n"
        f"error_log {folder / 'error.log'};\nevents {{ worker_connections 512; }}\n"
        f"http {{\n{temp}\nlog_format up '$request_method $uri $status $upstream_addr';\n"
        f"access_log {folder / 'access.log'} up;\n{site}\n}}\n"
    )


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl here")
def test_the_guide_run_step_by_step_and_an_evening_through_it(tmp_path, pg_url):
    if NGINX is None:
        if os.environ.get("CI"):
            pytest.fail("nginx is missing from the CI image (Debian's nginx-light).")
        pytest.skip("nginx is not installed; the online guide's test is off.")
    guide = steps()
    server = make_url(pg_url)
    admin = server.set(drivername="postgresql", database="postgres").render_as_string(
        hide_password=False
    )
    ports = {name: free_port() for name in ("8765", "8766", "443", "80")}
    env = {**os.environ}
    procs: list[subprocess.Popen] = []
    try:
        # 2. The database, as the guide makes it (the server's superuser by its URL).
        database = guide["database"].strip().replace("sudo -u postgres psql", f"psql {admin}")
        subprocess.run(database, shell=True, check=True, capture_output=True)
        exported = re.fullmatch(r"export TRACKER_DB=(\S+)\n", guide["environment"])
        env["TRACKER_DB"] = exported.group(1).replace(
            "@localhost/", f"@{server.host}:{server.port}/"
        )
        # 3. The campaign, a character's sheet beside the commands.
        shutil.copy(SHEETS / "glintlock-wren.toml", tmp_path / "wren.toml")
        for line in guide["campaign"].strip().splitlines():
            args = shlex.split(line)
            subprocess.run(
                [sys.executable, "-m", "tracker", *args[1:]],
                env=env,
                cwd=tmp_path,
                check=True,
                capture_output=True,
            )
        # 4. nginx, with a certificate made here.
        cert, key = certificate(tmp_path)
        conf = tmp_path / "nginx.conf"
        conf.write_text(_nginx_conf(guide["nginx"], tmp_path, ports, cert, key))
        procs.append(
            subprocess.Popen(
                [NGINX, "-c", str(conf), "-p", str(tmp_path)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
        )
        # 5. Two servers: the first makes and prints the links, the second finds them made.
        first, second = guide["serve"].strip().splitlines()
        one = _serve(first, env, ports, ports["443"])
        procs.append(one)
        printed = _printed(one, "Wren:")
        two = _serve(second, env, ports, ports["443"])
        procs.append(two)
        again = _printed(two, "Wren:")
        assert "by the link given before" in again
        assert "?key=" not in again
        through = Through(ports["443"])
        links = dict(re.findall(r"^\s*(Players|GM|Wren):\s+(https://\S+)$", printed, re.M))
        assert set(links) == {"Players", "GM", "Wren"}, printed
        _up(through, procs, tmp_path)
        # Port 80 only sends the browser to HTTPS.
        plain = http.client.HTTPConnection("127.0.0.1", ports["80"], timeout=10)
        plain.request("GET", "/phone", headers={"Host": "localhost"})
        assert plain.getresponse().status == 301

        # The evening, through nginx.
        tv = TV(through, through.let_in(links["Players"], "tracker_players"))
        tv.start()
        phone = {"Cookie": through.let_in(links["Wren"], "tracker_phone")}
        status, _, html = through.request("GET", "/phone", phone)
        assert status == 200
        phone["X-CSRF-Token"] = re.search(rb'name="csrf-token" content="(\w+)"', html)[1].decode()
        answers = [_roll(through, phone) for _ in range(ROLLS // 2)]
        # One server dies mid-evening, with presses in flight: three at once, each sent again
        # (its nonce the same) where the proxy lost it.
        with ThreadPoolExecutor(3) as pool:
            pressed = [pool.submit(_roll, through, phone) for _ in range(ROLLS // 2)]
            time.sleep(0.1)
            one.send_signal(signal.SIGKILL)
            answers += [press.result() for press in pressed]
        one.wait()
        one = _serve(first, env, ports, ports["443"])  # and comes back
        procs.append(one)
        assert "by the link given before" in _printed(one, "Wren:")
        _up(through, procs, tmp_path)
        answers += [_roll(through, phone) for _ in range(2)]
        assert all(a.get("ok") for a in answers), answers
        logged = _rolls_logged(env)
        assert len(logged) == len(answers) == ROLLS + 2
        deadline = time.monotonic() + 20
        while not set(logged) <= tv.versions and time.monotonic() < deadline:
            time.sleep(0.2)
        assert set(logged) <= tv.versions, sorted(set(logged) - tv.versions)
        tv.stopping = True
        served = (tmp_path / "access.log").read_text()
        rolled_by = set(re.findall(r"POST /phone/roll 200 127\.0\.0\.1:(\d+)", served))
        assert rolled_by == {str(ports["8765"]), str(ports["8766"])}, served[-600:]

        # The attacks from outside, through the proxy: each refused, nothing logged but the
        # one press that was sent twice.
        before = len(_rolls_logged(env))
        press = json.dumps(
            {"trait": "Grit", "values": {"dice": "18,19"}, "nonce": secrets.token_hex(12)}
        ).encode()
        sending = {**phone, "Content-Type": "application/json", "Origin": through.origin}
        tokenless = {k: v for k, v in sending.items() if k != "X-CSRF-Token"}
        assert through.request("POST", "/phone/roll", tokenless, press)[0] == 403
        elsewhere = {**sending, "Origin": "https://evil.example"}
        assert through.request("POST", "/phone/roll", elsewhere, press)[0] == 403
        assert through.request("GET", "/phone", {**phone, "Host": "evil.example"})[0] == 421
        assert through.request("GET", "/")[0] == 403  # the players' page without its link
        assert through.request("GET", "/events")[0] == 403
        assert through.request("POST", "/phone/roll", sending, press)[0] == 200
        again, _, first = through.request("POST", "/phone/roll", sending, press)
        assert again == 409  # the same press again, whichever server it reached
        assert json.loads(first)["first"]["ok"]
        assert len(_rolls_logged(env)) == before + 1
        answers.append(json.loads(first)["first"])

        # Forwarded headers sent straight to a server from an address that is not nginx's
        # (another of the machine's own) are not believed.
        direct = http.client.HTTPConnection(
            "127.0.0.1", ports["8766"], timeout=10, source_address=("127.0.0.2", 0)
        )
        direct.request(
            "GET",
            links["Wren"].removeprefix(through.origin),
            headers={"Host": "localhost", "X-Forwarded-Proto": "https"},
        )
        answer = direct.getresponse()
        assert answer.status == 303
        assert "Secure" not in answer.getheader("set-cookie")

        # 6. Invitations from anywhere: a new link opens through nginx; revoked, nothing.
        made = _tracker_lines(guide["invite"], env, tmp_path)
        link = re.search(r"Wren's phone: (https://\S+)", made[0]).group(1)
        assert link.startswith(through.origin + "/phone?key=")
        assert re.search(r"the players' page \(Ashes of Veyra\): https://\S+/\?key=", made[1])
        assert "Wren's phone (Ashes of Veyra)" in made[2]
        new = {"Cookie": through.let_in(link, "tracker_phone")}
        assert through.request("GET", "/phone/state", new)[0] == 200
        _tracker_lines(guide["revoke"], env, tmp_path)
        deadline = time.monotonic() + 5  # the other server drops it within two seconds
        while time.monotonic() < deadline:
            states = {through.request("GET", "/phone/state", new)[0] for _ in range(2)}
            if states == {403}:
                break
            time.sleep(0.3)
        assert states == {403}
        assert through.request("GET", "/phone/state", phone)[0] == 403
        assert len(_rolls_logged(env)) == len(answers) == ROLLS + 3
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
        subprocess.run(
            f'psql {admin} -c "DROP DATABASE IF EXISTS tracker WITH (FORCE)" '
            '-c "DROP ROLE IF EXISTS tracker"',
            shell=True,
            capture_output=True,
            check=False,
        )


def _up(through: Through, procs: list[subprocess.Popen], folder: Path) -> None:
    """Wait until both servers answer through nginx (a page's file, open to anyone); what
    nginx and the servers said when they do not."""
    procs = [proc for proc in procs if proc.poll() is None]  # not one killed before
    deadline = time.monotonic() + 60
    got: object = None
    while time.monotonic() < deadline:
        try:
            got = [through.request("GET", "/static/feed.js")[0] for _ in range(4)]
            if got == [200] * 4:
                return
        except (OSError, http.client.HTTPException) as exc:
            got = exc
        if any(proc.poll() is not None for proc in procs):
            break
        time.sleep(0.2)
    log = folder / "error.log"
    said = [
        (proc.args[:3], proc.poll(), proc.stderr.read()[-800:] if proc.poll() is not None else "")
        for proc in procs
    ]
    raise AssertionError(
        f"the servers never answered through nginx ({got!r}); {said}; nginx's log: "
        f"{log.read_text()[-1500:] if log.exists() else '(none)'}"
    )


def _tracker_lines(block: str, env: dict[str, str], cwd: Path) -> list[str]:
    """Each line of a step run, its output by line."""
    out = []
    for line in block.strip().splitlines():
        args = shlex.split(line)
        done = subprocess.run(
            [sys.executable, "-m", "tracker", *args[1:]],
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
            check=True,
        )
        out.append(done.stdout)
    return out
