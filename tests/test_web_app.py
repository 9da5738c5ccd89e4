"""The web app's memory of requests and its answers to any input, called in this process.

- A replay is refused however many requests came between, and across a restart: each
  holder's nonces are in the database, the one of a request that logged written with its events.
- No input makes it fail: arbitrary JSON and arbitrary bytes, sent to every route that takes a
  body, with the GM's key, a phone's and none, are answered below 500, and the log moves only
  when the request was a valid action.

The app is called in this process through its ASGI interface (the same app `tracker serve`
runs, every middleware included), with the rate limits raised so that each example reaches the
routes.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_live import SHEETS, tracker

from tracker.app.live import Live
from tracker.app.tracker import Tracker
from tracker.web.server import make_app

ROUTES = ("/gm/act", "/gm/ask", "/gm/revoke", "/gm/invite", "/gm/uninvite", "/phone/roll")
UNLIMITED = {"POST": (1e9, 1e9), "GET": (1e9, 1e9)}


def invited(opened: Tracker) -> tuple[str, dict[str, str]]:
    """The keys ``tracker serve`` hands out as it starts on a new database: the GM's, and each
    player's phone's by character id."""
    made, _ = opened.invitations.at_start()
    gm = next(i.key for i in made if i.invitation.kind == "gm")
    return gm, {i.invitation.character_id: i.key for i in made if i.invitation.kind == "phone"}


async def asgi_request(
    app,
    method: str,
    path: str,
    headers: dict[str, str],
    body: bytes = b"",
    *,
    client: str = "127.0.0.1",
    raised=None,
):
    """One request through the app from the address ``client``: its status, its headers (by
    lower-case name) and its body; what the app raised to the server (which logs it) is added
    to ``raised``. The Host is the server's own unless ``headers`` names one."""
    given = [(k.lower().encode(), v.encode("latin-1")) for k, v in headers.items()]
    if not any(name == b"host" for name, _ in given):
        given.append((b"host", b"127.0.0.1:8765"))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path.split("?")[0],
        "raw_path": path.split("?")[0].encode(),
        "query_string": path.partition("?")[2].encode(),
        "root_path": "",
        "headers": [*given, (b"content-length", str(len(body)).encode())],
        "client": (client, 50000),
        "server": ("127.0.0.1", 8765),
    }
    sent = False

    async def receive():
        nonlocal sent
        if sent:
            await asyncio.sleep(3600)
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    start, chunks = {}, []

    async def send(message):
        if message["type"] == "http.response.start":
            start.update(message)
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    try:
        await app(scope, receive, send)
    except Exception as exc:  # the server logs it; the client reads what was sent
        (raised if raised is not None else []).append(exc)
    answered = {k.decode().lower(): v.decode() for k, v in start.get("headers", [])}
    return start.get("status"), answered, b"".join(chunks)


async def _call(
    app, method: str, path: str, headers: dict[str, str], body: bytes = b"", raised=None
):
    """One request through the app, from the server's own machine: its status and body."""
    status, _, answer = await asgi_request(app, method, path, headers, body, raised=raised)
    return status, answer


class Table:
    """The app over a small GURPS table, and who may speak to it: the GM's cookie and page
    token, a phone's, and a stranger's (none)."""

    def __init__(self, db, keys: tuple[str, dict[str, str]] | None = None) -> None:
        self.db = db
        self.tracker = Tracker(str(db))
        self.tracker.warm = False
        self.live = Live(self.tracker)
        self.keys = keys or invited(self.tracker)
        self.app = make_app(self.live, rates=UNLIMITED)
        gm_key, phones = self.keys
        phone_key = next(iter(phones.values()))
        self.who = {
            "gm": self._opened("/gm", f"tracker_gm={gm_key}"),
            "phone": self._opened("/phone", f"tracker_phone={phone_key}"),
            "nobody": {},
        }

    def _opened(self, page: str, cookie: str) -> dict[str, str]:
        status, html = asyncio.run(_call(self.app, "GET", page, {"cookie": cookie}))
        assert status == 200, html[:200]
        token = re.search(rb'name="csrf-token" content="([0-9a-f]*)"', html).group(1).decode()
        return {"cookie": cookie, "x-csrf-token": token}

    def post(self, who: str, route: str, body: bytes, content_type="application/json"):
        headers = {**self.who[who], "content-type": content_type}
        return asyncio.run(_call(self.app, "POST", route, headers, body))

    def act(self, who: str, route: str, doc: dict, nonce: str | None = None):
        """An action as a page sends it: its status and its answer."""
        body = json.dumps({**doc, "nonce": nonce or _nonce()}).encode()
        status, answer = self.post(who, route, body)
        return status, json.loads(answer)

    def head(self) -> int:
        return self.live.head()


def _made(db):
    tracker(db, "campaign", "new", "Iron", "--system", "gurps")
    for name in ("mira", "vora"):
        tracker(db, "character", "add", "--sheet", str(SHEETS / f"gurps-{name}.toml"))
    tracker(db, "session", "start", "--title", "The salt mines")
    return db


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    opened = Table(_made(tmp_path_factory.mktemp("fuzz") / "fuzz.db"))
    yield opened
    opened.tracker.close()


@pytest.fixture
def fresh(tmp_path):
    opened = Table(_made(tmp_path / "table.db"))
    yield opened
    opened.tracker.close()


ROLL = {"path": ["roll"], "values": {"character": "Mira", "trait": "Per", "dice": "3,4,2"}}


def test_a_replay_after_a_flood_from_another_key_is_refused_with_the_first_answer(fresh):
    """The GM rolls; a phone then sends 4,200 refused actions (more than any memory of recent
    nonces would hold); the GM's request sent again with its nonce logs nothing and is
    answered 409 with the first answer."""
    nonce = _nonce()
    status, first = fresh.act("gm", "/gm/act", ROLL, nonce)
    assert status == 200, first
    logged = fresh.head()
    for _ in range(4200):
        status, refused = fresh.act("phone", "/phone/roll", {"trait": "No such skill"})
        assert status == 409
        assert "no No such skill skill" in refused["error"]
    status, again = fresh.act("gm", "/gm/act", ROLL, nonce)
    assert status == 409
    assert again["error"] == "This request was sent already; nothing more was logged."
    assert again["first"] == first
    assert fresh.head() == logged


def test_a_refused_request_sent_again_is_not_run_on_a_changed_table(fresh):
    """A roll refused for a character not yet in play, sent again once the GM has added her,
    still logs nothing: a request kept or copied cannot be played later."""
    nonce = _nonce()
    roll = {"path": ["roll"], "values": {"character": "Ilsa", "trait": "IQ", "dice": "3,4,2"}}
    status, first = fresh.act("gm", "/gm/act", roll, nonce)
    assert status == 404, first
    tracker(fresh.db, "character", "add", "Ilsa", "--stat", "IQ=12")
    before = fresh.head()
    status, again = fresh.act("gm", "/gm/act", roll, nonce)
    assert status == 409
    assert again["first"] == first
    assert fresh.head() == before
    assert fresh.act("gm", "/gm/act", roll)[0] == 200  # a new press rolls


def test_a_request_that_logged_is_remembered_in_the_same_transaction(fresh, monkeypatch):
    """Should the server die between logging a roll and storing its answer (here the answer's
    write fails), the roll's nonce is in the database already: sent again, it is refused."""
    from tracker.store.eventstore import EventStore

    def died(self, claim, answer):
        raise fresh.tracker.store.errors[0]("the server died here")

    monkeypatch.setattr(EventStore, "remember", died)
    nonce = _nonce()
    status, _ = fresh.act("gm", "/gm/act", ROLL, nonce)
    assert status == 200
    logged = fresh.head()
    status, again = fresh.act("gm", "/gm/act", ROLL, nonce)
    assert status == 409
    assert again["first"] is None  # the answer was never stored
    assert fresh.head() == logged


def test_the_nonces_outlive_a_restart_of_the_server(fresh):
    """A new server on the same database, its page opened anew with the same key: a request
    the last one answered is still refused."""
    nonce = _nonce()
    assert fresh.act("gm", "/gm/act", ROLL, nonce)[0] == 200
    logged = fresh.head()
    restarted = Table(fresh.db, fresh.keys)
    try:
        status, again = restarted.act("gm", "/gm/act", ROLL, nonce)
        assert status == 409
        assert again["first"]["ok"] is True
    finally:
        restarted.tracker.close()
    assert fresh.head() == logged


def test_a_page_token_older_than_a_day_is_refused_and_the_page_told_to_reload(fresh, monkeypatch):
    from tracker.web import guard

    later = time.time() + 24 * 60 * 60 + 5
    monkeypatch.setattr(guard.time, "time", lambda: later)
    before = fresh.head()
    status, answer = fresh.act("gm", "/gm/act", ROLL)
    assert status == 403
    assert answer == {
        "error": "This page was opened over a day ago; it reloads itself.",
        "reload": True,
    }
    assert fresh.head() == before
    # The page reloaded now carries a token of now, and acts.
    fresh.who["gm"] = fresh._opened("/gm", fresh.who["gm"]["cookie"])
    assert fresh.act("gm", "/gm/act", ROLL)[0] == 200


def test_a_forged_or_altered_token_is_refused(fresh):
    good = fresh.who["gm"]["x-csrf-token"]
    for token in ("", good[:8] + "0" * 64, "ffffffff" + good[8:], good[:-1] + "é", good + "0"):
        fresh.who["gm"]["x-csrf-token"] = token
        before = fresh.head()
        status, answer = fresh.act("gm", "/gm/act", ROLL)
        assert status == 403, token
        assert answer["error"] == "This page is out of date or not this server's; reload it."
        assert fresh.head() == before


def _nonce() -> str:
    return secrets.token_hex(16)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(st.characters(codec=None), max_size=30),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)
PATHS = [["roll"], ["contest"], ["hp"], ["fp"], ["note"], ["undo"], ["redo"], ["session", "end"]]
PATHS += [["session", "start"], ["campaign", "use"], ["fright"], ["points", "award"], ["nothing"]]
# Values shaped like the pages' own, with arbitrary ones among them: most examples reach the
# actions themselves rather than stopping at the JSON's shape.
plausible = {
    "character": st.sampled_from(["Mira", "Vora", "mira", "Nobody", "Iron"]),
    "trait": st.sampled_from(["Per", "IQ", "Stealth", "Guns (Pistol)", ""]),
    "a": st.sampled_from(["Mira", "Vora"]),
    "b": st.sampled_from(["Mira", "Vora"]),
    "trait_a": st.sampled_from(["ST", "DX"]),
    "trait_b": st.sampled_from(["ST", "DX"]),
    "dice": st.sampled_from(["3,4,2", "1,1,1", "6,6,6", "7", "3,4", ""]),
    "change": st.sampled_from(["+1", "-2", "0", "abc", "+999999999999999"]),
    "text": st.text(max_size=20),
    "secret": st.booleans(),
    "modifier": st.integers(-20, 20),
    "amount": st.text(max_size=4),
    "mods": st.lists(
        st.builds(
            str.__add__,
            st.sampled_from(["darkness:", "encumbrance:", "equipment:best:", "in-combat*", "+"]),
            st.text(max_size=3),
        ),
        max_size=2,
    ),
}


def _mostly(strategy):
    """``strategy`` three times in four, else any JSON at all."""
    return st.integers(0, 3).flatmap(lambda i: strategy if i else json_values)


values = st.fixed_dictionaries(
    {}, optional={k: v | json_values for k, v in plausible.items()}
) | st.dictionaries(st.text(max_size=8), json_values, max_size=3)
actions = st.fixed_dictionaries(
    {
        "nonce": _mostly(st.builds(_nonce)),
        "path": _mostly(st.sampled_from(PATHS)),
        "values": _mostly(values),
    },
    optional={
        "character": plausible["character"] | json_values,
        "trait": plausible["trait"] | json_values,
        "secret": json_values,
        "request": json_values,
    },
)
# The route's own holder most often: the GM on the console's routes, a phone on its own.
holders = st.integers(0, 4).map(lambda i: ("own", "own", "own", "other", "nobody")[i])
# Actions a table takes, with one value at a time arbitrary: the paths past every check.
near_valid = st.fixed_dictionaries(
    {
        "nonce": st.builds(_nonce),
        "path": st.sampled_from([["roll"], ["hp"], ["note"]]),
        "values": st.fixed_dictionaries(
            {
                "character": plausible["character"],
                "trait": plausible["trait"],
                "dice": plausible["dice"],
            },
            optional={k: plausible[k] | json_values for k in ("change", "text", "modifier")},
        ),
    },
    optional={"trait": plausible["trait"], "character": plausible["character"]},
)
phone_near_valid = st.fixed_dictionaries(
    {"nonce": st.builds(_nonce), "trait": plausible["trait"]},
    optional={"values": st.fixed_dictionaries({}, optional={"dice": plausible["dice"]})},
)
sent = (
    st.tuples(st.sampled_from(ROUTES), _mostly(actions))
    | st.tuples(st.just("/gm/act"), near_valid)
    | st.tuples(st.just("/phone/roll"), phone_near_valid)
)


def _holder(route: str, who: str) -> str:
    own, other = ("phone", "gm") if route.startswith("/phone") else ("gm", "phone")
    return {"own": own, "other": other}.get(who, who)


@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))
@given(who=holders, sent=sent)
def test_arbitrary_json_is_answered_below_500_and_logs_only_a_valid_action(table, who, sent):
    route, doc = sent
    before = table.head()
    # As a page sends it: any character escaped, a lone surrogate ("\\ud800") included.
    body = json.dumps(doc).encode()
    status, answer = table.post(_holder(route, who), route, body)
    assert status is not None, answer[:300]
    assert status < 500, (status, answer[:300])
    if status != 200:
        assert table.head() == before, (status, answer[:300])
        assert b"Traceback" not in answer


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    who=holders,
    route=st.sampled_from(ROUTES),
    body=st.binary(max_size=300)
    | st.builds(lambda n: b"[" * n + b"]" * n, st.integers(1, 8000) | st.integers(1000, 8000))
    | st.builds(
        lambda n: b'{"nonce": "' + b"a" * 20 + b'", "path": ' + b"[" * n, st.integers(1, 9000)
    ),
    content_type=st.sampled_from(
        ["application/json", "text/plain", "application/json; charset=utf-8"]
    ),
)
def test_arbitrary_bytes_are_answered_below_500_and_log_nothing(
    table, who, route, body, content_type
):
    before = table.head()
    status, answer = table.post(_holder(route, who), route, body, content_type)
    assert status is not None, answer[:300]
    assert 400 <= status < 500, (status, answer[:300])
    assert table.head() == before


def test_an_error_no_route_foresaw_is_one_sentence_and_logged_once(table, monkeypatch):
    """A failure inside a route (here the log's read, made to fail) answers 500 with one
    sentence and no traceback; the traceback goes to the server's log, once."""
    from tracker.app import live

    def broken(self, *args, **kwargs):
        raise RuntimeError("the disk is on fire")

    monkeypatch.setattr(live.Live, "state", broken)
    raised: list[Exception] = []
    cookie = {"cookie": table.who["gm"]["cookie"]}
    status, answer = asyncio.run(_call(table.app, "GET", "/gm/state", cookie, raised=raised))
    assert [str(e) for e in raised] == ["the disk is on fire"]  # what the server logs
    assert status == 500
    assert answer == b"The server failed on this request; what failed is in its terminal.\n"


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ('{"path": ["note"], "values": {"text": "a\\ud800b"}}', "text holds a character"),
        (
            '{"path": ["hp"], "values": {"character": "Mira", "change": 1e400}}',
            "change is a number",
        ),
        (
            '{"path": ["hp"], "values": {"character": "Mira", "change": "+10000000000000000"}}',
            "hp: change is a number past anything tracker counts",
        ),
        (
            '{"path": ["roll"], "values": {"character": "Mira", "trait": "Per", "modifier": NaN}}',
            "The request is not JSON",
        ),
        ('{"path": ' + "[" * 5000 + "]" * 5000 + "}", "nested deeper than any action"),
        ('{"path": [[[[[[["roll"]]]]]]]}', "nested deeper than any action"),
        ('{"path": ["note"], "values": {"text": "two\\nlines"}}', "holds a control character"),
    ],
)
def test_a_value_that_cannot_be_stored_is_refused_in_one_sentence_naming_it(table, body, said):
    before = table.head()
    raw = body[:-1] + f', "nonce": "{_nonce()}"}}'
    status, answer = table.post("gm", "/gm/act", raw.encode())
    assert status == 400, answer
    error = json.loads(answer)["error"]
    assert said in error
    assert "\n" not in error
    assert table.head() == before


def test_a_refusal_of_the_consoles_form_names_the_box_the_gm_filled_not_a_flag(fresh):
    """The GM reads a refusal beside the roll form: "the table's dice gave 2 values", as the
    box is labelled, where the command line says "--dice gave 2 values"."""
    before = fresh.head()
    roll = {"path": ["roll"], "values": {"character": "Mira", "trait": "Per", "dice": "3,4"}}
    status, answer = fresh.act("gm", "/gm/act", roll)
    assert status == 400, answer
    assert "the table's dice gave 2 values" in answer["error"]
    assert "like 3,4,5" in answer["error"]
    assert "--" not in answer["error"]
    assert fresh.head() == before
