"""Everything a player's browser can fetch from `tracker serve`, phones included, is the same
for two campaigns that differ only in what their secret rolls held.

Each evening is played twice against a real server: rolls from the command line, from the GM's
console and from the players' phones, a blind roll the GM asks of a phone, secret rolls whose
dice, labels and effects differ between the two. A TV's feed and every phone's feed are held
open from before the first roll to the last, as pages left open at the table; afterwards every
page, feed, state and script a player can ask for is fetched afresh, and the players' recap is
written. What the GM's console shows differs (or the evening proves nothing); what the players
were sent does not, byte for byte, once what differs between any two servers is put aside:
ids, times and hashes (as ``test_secrets.normalised`` numbers them), the keys and page tokens
each start makes, the feed's token (the campaign's id), and a response's ``Date``.
"""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from test_console import Client, gm, path_of, phone, table_served
from test_live import SHEETS, NoRedirect, head, tracker
from test_secrets import normalised

from tracker.web.pages import ASSETS

# Where a phone answers the GM's request: the request's id, read off the phone, goes here.
ASKED = "<the request waiting>"


@dataclass
class Evening:
    """How a campaign is set up before the server starts, and the evening played on it: each
    step ``("cli", words)``, ``("gm", path, values)``, ``("ask", body)`` or ``("phone", name,
    body)``, with ``{name}`` fields filled from the secrets of one of the two campaigns."""

    setup: list[str]
    steps: list[tuple[Any, ...]]
    secrets: list[dict[str, str]]
    phones: list[str] = field(default_factory=list)


GURPS = Evening(
    setup=[
        "campaign new Iron --system gurps",
        f"character add --sheet {SHEETS / 'gurps-mira.toml'}",
        f"character add --sheet {SHEETS / 'gurps-vora.toml'}",
        "session start --title 'The salt mines'",
    ],
    steps=[
        ("phone", "Mira", {"trait": "Lockpicking", "values": {"dice": "3,4,2"}}),
        # A sense roll is secret by the rules; its label and dice differ.
        ("cli", "roll Mira Vision --dice {vision} --mod '+1:{label}'"),
        (
            "gm",
            ["roll"],
            {
                "character": "Vora",
                "trait": "Broadsword",
                "secret": True,
                "dice": "{sword}",
                "mods": ["-2:{label}"],
            },
        ),
        # A blind roll: the GM asks it of Mira's phone, she rolls her own dice.
        ("ask", {"character": "Mira", "trait": "Per", "values": {"mods": ["-2"]}, "secret": True}),
        ("phone", "Mira", {"request": ASKED, "values": {"dice": "{blind}"}}),
        # A sense roll from a phone: blind by the rules, though nobody asked it.
        ("phone", "Vora", {"trait": "Vision", "values": {"dice": "{sense}"}}),
        # A secret fright check whose effects (conditions, FP, a trait owed) differ.
        (
            "cli",
            "fright Mira --secret --threat '{label}' --dice {fright} --table-dice {table}"
            " --effect-dice 4",
        ),
        ("gm", ["hp"], {"character": "Vora", "change": "-3", "cause": "a falling stone"}),
        ("phone", "Vora", {"trait": "Broadsword", "values": {"dice": "3,3,4"}}),
        ("cli", "note 'The ledger is gone.'"),
        ("cli", "session end"),
    ],
    secrets=[
        {
            "label": "the hidden glyph",
            "vision": "1,1,2",
            "sword": "6,6,6",
            "blind": "1,1,1",
            "sense": "6,6,5",
            "fright": "6,6,6",
            "table": "6,6,6",
        },
        {
            "label": "nothing there",
            "vision": "6,6,5",
            "sword": "1,1,1",
            "blind": "6,6,6",
            "sense": "1,1,1",
            "fright": "1,1,1",
            "table": "5,5,2",
        },
    ],
    phones=["Mira", "Vora"],
)

GLINT = ["1:gear"]
# Threat as the two campaigns hold it, step by step: 1, 3, then 3 or 5 (the GM's secret roll),
# 4 or 5 (Wren's blind roll), 1 or 2 after a public hard spend, 2 or 3 after Wren's weak hit.
GLINTLOCK = Evening(
    setup=[
        "campaign new Veyra --system glintlock",
        "character add Wren --stat Grit=3 --stat Wits=2",
        "character add Tomas --stat Grit=2 --stat Wits=4",
        "session start --title Archive",
    ],
    steps=[
        ("phone", "Tomas", {"trait": "Grit", "values": {"tags": GLINT, "dice": "16"}}),
        ("cli", "threat add 2 --reason danger"),
        (
            "gm",
            ["roll"],
            {"character": "Wren", "trait": "Wits", "secret": True, "tags": GLINT, "dice": "{gm}"},
        ),
        ("ask", {"character": "Wren", "trait": "Grit", "values": {"tags": GLINT}, "secret": True}),
        ("phone", "Wren", {"request": ASKED, "values": {"dice": "{blind}"}}),
        ("phone", "Tomas", {"trait": "Wits", "values": {"tags": GLINT, "dice": "20"}}),
        ("cli", "threat spend hard --note collapse"),
        ("phone", "Wren", {"trait": "Wits", "values": {"tags": GLINT, "dice": "16"}}),
        ("cli", "session end"),
    ],
    secrets=[{"gm": "19", "blind": "15"}, {"gm": "5", "blind": "18"}],
    phones=["Wren", "Tomas"],
)


# A secret roll that brings Threat to 6, where player rolls wait for the GM's spend: a phone's
# roll right after it is refused in one campaign and logged in the other.
GLINTLOCK_SIX = Evening(
    setup=GLINTLOCK.setup,
    steps=[
        ("cli", "threat add 4 --reason danger"),
        (
            "gm",
            ["roll"],
            {"character": "Wren", "trait": "Wits", "secret": True, "tags": GLINT, "dice": "{gm}"},
        ),
        ("phone", "Tomas", {"trait": "Grit", "values": {"tags": GLINT, "dice": "17"}}),
        ("cli", "threat spend hard --note collapse"),
        ("cli", "session end"),
    ],
    secrets=[{"gm": "19"}, {"gm": "5"}],
    phones=["Wren", "Tomas"],
)


class Held(threading.Thread):
    """A feed held open as a page left open at the table: every byte it is sent, as sent."""

    def __init__(self, url: str, cookie: str | None = None) -> None:
        super().__init__(daemon=True)
        self.request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
        self.raw = b""
        self.lock = threading.Lock()

    def run(self) -> None:
        try:
            with urllib.request.urlopen(self.request, timeout=120) as response:
                for line in response:
                    with self.lock:
                        self.raw += line
        except OSError:
            pass  # the server stopped

    def count(self, kind: str) -> int:
        with self.lock:
            raw = self.raw
        if not raw.endswith((b"\r\n\r\n", b"\n\n")):
            return -1  # a message half read
        return len(re.findall(rf"^event: {kind}\r?$".encode(), raw, re.M))


def wait(condition: Any, what: str, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"{what} never came"
        time.sleep(0.02)


def read_feed(url: str, cookie: str | None, *, version: int, token: str, last: str = "") -> bytes:
    """A feed opened afresh, read until the board after ``version``'s item (and, on a phone,
    the character sent after it)."""
    headers = {"Cookie": cookie} if cookie else {}
    if last:
        headers["Last-Event-ID"] = last
    got = b""
    phone_feed = "/phone/" in url
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=20) as r:
        while True:
            line = r.readline()
            assert line, got[-400:]
            got += line
            mark = re.search(rf"^id: {token}-{version}\r?$".encode(), got, re.M)
            if mark and got.endswith((b"\r\n\r\n", b"\n\n")):
                tail = got[mark.end() :]
                if b"event: board" in tail and (not phone_feed or b"event: me" in tail):
                    return got


def fetched(url: str, cookie: str | None = None, *, follow: bool = True) -> bytes:
    """A response as the browser is sent it: status, headers (but its ``Date``), body."""
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    opener = urllib.request.build_opener(*(() if follow else (NoRedirect,)))
    try:
        with opener.open(request, timeout=10) as response:
            status, headers, body = response.status, response.headers, response.read()
    except urllib.error.HTTPError as refused:
        status, headers, body = refused.code, refused.headers, refused.read()
    # A response's Date is when it was sent.
    kept = [f"{k}: {v}" for k, v in headers.items() if k.lower() != "date"]
    return f"{status}\n".encode() + "\n".join(kept).encode() + b"\n\n" + body


def play(folder: Path, evening: Evening, secrets: dict[str, str]) -> dict[str, str]:
    """One campaign's evening, played against its own server: what the players were sent and
    can fetch, by what asked for it, normalised; and the GM's state under ``"gm"``."""
    folder.mkdir()
    db = folder / "table.db"
    for words in evening.setup:
        tracker(db, *_split(words))
    seen: dict[str, bytes] = {}
    made: dict[str, str] = {}  # what this server made, and what it stands for
    with table_served(db) as server:
        console = gm(server)
        phones = {name: phone(server, name) for name in evening.phones}
        cookies = {name: _cookie(client) for name, client in phones.items()}
        made[server.key] = "<gm key>"
        for name, client in phones.items():
            made[path_of(server.phones[name]).split("key=")[1]] = f"<{name}'s key>"
            made[client.token] = f"<{name}'s page token>"
        token = re.search(
            rb"id: (\w+)-", read_feed(server.base + "/events", None, version=head(db), token=r"\w+")
        )[1].decode()
        tv = Held(server.base + "/events")
        held = {name: Held(server.base + "/phone/events", cookies[name]) for name in phones}
        for feed in (tv, *held.values()):
            feed.start()
        wait(lambda: tv.count("board") == 1, "the TV's first board")
        for name, feed in held.items():
            wait(lambda f=feed: f.count("request") == 1, f"{name}'s phone")
        answers = []
        start = head(db)
        for n, step in enumerate(evening.steps):
            kind, *rest = step
            step = _filled(rest, secrets)
            boards = tv.count("board")
            mes = {name: feed.count("me") for name, feed in held.items()}
            if kind == "cli":
                tracker(db, *_split(step[0]))
            elif kind == "gm":
                status, doc = console.post("/gm/act", {"path": step[0], "values": step[1]})
                assert status == 200, (step, doc)
            elif kind == "ask":
                asked = step[0]["character"]
                requests = held[asked].count("request")
                status, doc = console.post("/gm/ask", step[0])
                assert status == 200, (step, doc)
                wait(lambda f=held[asked], r=requests: f.count("request") == r + 1, "the request")
                continue
            else:
                name, body = step
                client = phones[name]
                if body.get("request") == ASKED:
                    waiting = json.loads(client.get("/phone/state")[1])["asked"]
                    made[waiting["id"]] = f"<request {n}>"
                    body = {**body, "request": waiting["id"]}
                status, doc = client.post("/phone/roll", body)
                answers.append(f"{name} {status} {json.dumps(doc, ensure_ascii=False)}".encode())
                if status != 200:
                    continue  # refused: nothing logged, nothing sent
            # Each step reaches every open page before the next is taken, as at the table.
            wait(lambda b=boards: tv.count("board") > b, f"step {n} on the TV")
            for name, feed in held.items():
                wait(lambda f=feed, m=mes[name]: f.count("me") > m, f"step {n} on {name}'s phone")
        now = head(db)
        seen["phone answers"] = b"\n".join(answers)
        seen["held /events"] = tv.raw
        seen["/events"] = read_feed(server.base + "/events", None, version=now, token=token)
        # A page that lost the server after the evening's first roll is sent what it missed.
        seen["/events, coming back"] = read_feed(
            server.base + "/events", None, version=now, token=token, last=f"{token}-{start + 1}"
        )
        seen["/"] = fetched(server.base + "/")
        for asset in sorted(ASSETS):
            seen[f"/static/{asset}"] = fetched(f"{server.base}/static/{asset}")
        for name, cookie in cookies.items():
            # The request's answers are sent by another path than the log's; which of the two
            # a page hears first is a race of the server's, not something a secret decides.
            log, asked = _split_channels(held[name].raw)
            seen[f"{name}: held /phone/events"] = log
            seen[f"{name}: held /phone/events, requests"] = asked
            seen[f"{name}: /phone/events"] = read_feed(
                server.base + "/phone/events", cookie, version=now, token=token
            )
            seen[f"{name}: /phone"] = fetched(server.base + "/phone", cookie)
            seen[f"{name}: /phone/state"] = fetched(server.base + "/phone/state", cookie)
            link = path_of(server.phones[name])
            seen[f"{name}: {link.split('?')[0]}?key="] = fetched(server.base + link, follow=False)
        gm_state = console.get("/gm/state")[1]
    for view in ("--session 1", "--session 1 --json", "--session 1 --html"):
        seen[f"recap {view}"] = tracker(db, "recap", *view.split()).stdout.encode()
    out = {what: _normalised(raw.decode(), made, token) for what, raw in seen.items()}
    out["gm"] = normalised(_put_aside(gm_state.decode(), made, token))
    return out


def _split(words: str) -> list[str]:
    import shlex

    return shlex.split(words)


def _filled(value: Any, secrets: dict[str, str]) -> Any:
    if isinstance(value, str):
        return value.format(**secrets)
    if isinstance(value, list):
        return [_filled(v, secrets) for v in value]
    if isinstance(value, dict):
        return {k: _filled(v, secrets) for k, v in value.items()}
    return value


def _cookie(client: Client) -> str:
    return "; ".join(f"{c.name}={c.value}" for c in client.jar)


def _split_channels(raw: bytes) -> tuple[bytes, bytes]:
    blocks = re.split(rb"(?<=\n)\r?\n", raw)
    asked = [b for b in blocks if b.startswith(b"event: request")]
    return b"".join(b + b"\r\n" for b in blocks if b not in asked), b"\n".join(asked)


def _put_aside(text: str, made: dict[str, str], token: str) -> str:
    for secret, name in made.items():
        text = text.replace(secret, name)
    # A page's token carries the second it was issued: each load of a page has its own.
    text = re.sub(r'(?<=name="csrf-token" content=")[0-9a-f]{72}(?=")', "<page token>", text)
    # A feed's ids start with the campaign's token.
    return re.sub(rf"(?<=id: ){token}(?=-\d)", "<token>", text)


def _normalised(text: str, made: dict[str, str], token: str) -> str:
    # A feed's keep-alive comment is sent by the clock every 15 seconds, not by the log.
    text = re.sub(r"^: ping[^\n]*\n(\r?\n)?", "", text, flags=re.M)
    return normalised(_put_aside(text, made, token))


def _differences(one: dict[str, str], other: dict[str, str]) -> list[str]:
    import difflib

    said = []
    for what in one:
        if what != "gm" and one[what] != other[what]:
            diff = difflib.unified_diff(
                one[what].splitlines(), other[what].splitlines(), lineterm="", n=0
            )
            said.append(f"{what}:\n" + "\n".join(list(diff)[2:40]))
    return said


@pytest.mark.slow
@pytest.mark.parametrize(
    "evening",
    [
        GURPS,
        GLINTLOCK,
        pytest.param(
            GLINTLOCK_SIX,
            marks=pytest.mark.xfail(
                strict=True,
                reason="a disclosure tracker/store/README.md names: the rules are played on "
                "the GM's state, so a phone's roll is refused at Threat 6 (and says so) when a "
                "sealed roll brought it there, which tells that player as much",
            ),
        ),
    ],
    ids=["gurps", "glintlock", "glintlock-threat-6"],
)
def test_every_page_a_player_can_open_is_the_same_whatever_the_secrets_held(tmp_path, evening):
    one, other = (play(tmp_path / str(n), evening, s) for n, s in enumerate(evening.secrets))
    assert one["gm"] != other["gm"]  # the GM's evenings differ, or this proves nothing
    assert "a secret event for" in one["/events"]
    differences = _differences(one, other)
    assert not differences, "\n\n".join(differences)
