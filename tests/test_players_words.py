"""Every text a player-facing page is sent is in the table's words: no command to type and no
`--flag` on the players' feed, the board and its recap (the TV), a phone's state, feed, roll,
refusal or the GM's request, in any system. The GM's console keeps the command line.

The app is called in this process (the same app `tracker serve` runs); each evening opens an
obligation whose command-line words name a command (a panic check, a trait to assign, the
Threat spend a player's roll waits for) and rolls from the command line and the phones.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from test_live import SHEETS, tracker
from test_web_app import _call, invited

from tracker.app.live import Live
from tracker.app.tracker import Tracker
from tracker.web.guard import GM, PLAYERS
from tracker.web.server import make_app

UNLIMITED = {"POST": (1e9, 1e9), "GET": (1e9, 1e9)}
COMMAND_LINE = re.compile(r"`|(?<![\w-])--[a-z]")

# Each system's evening: set up and played from the command line, then from the phones (a roll
# of the player's own, a roll the GM asks of her) and the GM's console.
EVENINGS = {
    "gloom": (
        [
            "campaign new Neon --system gloom",
            f"character add --sheet {SHEETS / 'gloom-juno.toml'}",
            f"character add --sheet {SHEETS / 'gloom-kade.toml'}",
            "session start",
            # A catastrophe owes a panic check: "(`tracker panic Juno TRAIT`)" on the command line.
            "roll Juno Hacking --dl 5 --dice 1",
        ],
        ("Kade", {"trait": "Hacking", "values": {"dl": "5", "dice": "12"}}),
        ("Juno", "Mind", {"dl": "3"}),
        "`tracker panic Juno TRAIT`",
    ),
    "gurps": (
        [
            "campaign new Iron --system gurps",
            f"character add --sheet {SHEETS / 'gurps-mira.toml'}",
            f"character add --sheet {SHEETS / 'gurps-vora.toml'}",
            "session start",
            # A new quirk is owed: "(`tracker trait assign Mira NAME`)" on the command line.
            "fright Mira --dice 6,6,4 --table-dice 3,3,3",
        ],
        ("Vora", {"trait": "Broadsword", "values": {"dice": "3,4,2"}}),
        ("Mira", "Per", {"mods": ["-2"]}),
        "`tracker trait assign Mira NAME`",
    ),
    "glintlock": (
        [
            "campaign new Veyra --system glintlock",
            "character add Wren --stat Grit=3 --stat Wits=2",
            "character add Tomas --stat Grit=2 --stat Wits=4",
            "session start",
            "threat add 6 --reason danger",
            # Made with --override, which the log says.
            "roll Wren Wits --tag 1:gear --dice 15 --override",
        ],
        # Refused at Threat 6: "log it with `tracker threat spend hard`, or pass --override".
        ("Tomas", {"trait": "Grit", "values": {"tags": ["1:gear"], "dice": "16"}}),
        ("Wren", "Grit", {"tags": ["1:gear"]}),
        None,
    ),
}


class Served:
    """The app over one database, with a cookie and page token for the GM and each phone."""

    def __init__(self, db) -> None:
        self.tracker = Tracker(str(db))
        self.tracker.warm = False
        self.live = Live(self.tracker)
        gm_key, phones = invited(self.tracker)
        self.app = make_app(self.live, rates=UNLIMITED)
        state = self.live.state()
        self.who = {"gm": self._opened("/gm", f"tracker_gm={gm_key}")}
        for cid, key in phones.items():
            name = state.characters[cid].name
            self.who[name] = self._opened("/phone", f"tracker_phone={key}")

    def _opened(self, page: str, cookie: str) -> dict[str, str]:
        status, html = asyncio.run(_call(self.app, "GET", page, {"cookie": cookie}))
        assert status == 200, html[:200]
        token = re.search(rb'name="csrf-token" content="([0-9a-f]*)"', html).group(1).decode()
        return {"cookie": cookie, "x-csrf-token": token}

    def get(self, who: str, route: str) -> tuple[int, Any]:
        status, body = asyncio.run(
            _call(self.app, "GET", route, {"cookie": self.who[who]["cookie"]})
        )
        return status, json.loads(body)

    def post(self, who: str, route: str, doc: dict[str, Any]) -> tuple[int, Any]:
        body = json.dumps({**doc, "nonce": secrets.token_hex(16)}).encode()
        headers = {**self.who[who], "content-type": "application/json"}
        status, answer = asyncio.run(_call(self.app, "POST", route, headers, body))
        return status, json.loads(answer)

    def feed(self, view: str) -> list[Any]:
        """Every message a page of ``view`` is sent from the campaign's start: each event's
        line and the board after them."""
        _, messages = self.app.state.hub.feed.messages(view, 0)
        return [json.loads(data) for _, _, data in messages]


def shown(doc: Any, key: str = "") -> Iterator[str]:
    """Every string a page may show of a JSON document. A form field's ``flag`` is the name
    the page sends it by, never shown."""
    if isinstance(doc, str):
        yield doc
    elif isinstance(doc, list):
        for item in doc:
            yield from shown(item, key)
    elif isinstance(doc, dict):
        for k, v in doc.items():
            if k != "flag":
                yield from shown(v, k)


def command_line(docs: dict[str, Any]) -> list[str]:
    return [
        f"{what}: {text}"
        for what, doc in docs.items()
        for text in shown(doc)
        if COMMAND_LINE.search(text)
    ]


@pytest.mark.parametrize("system", list(EVENINGS))
def test_every_player_facing_text_of_an_evening_is_in_the_tables_words(tmp_path, system):
    setup, own_roll, asked, kept = EVENINGS[system]
    db = tmp_path / "table.db"
    for words in setup:
        tracker(db, *_split(words))
    served = Served(db)
    try:
        seen: dict[str, Any] = {}
        name, body = own_roll
        seen[f"{name}'s roll"] = served.post(name, "/phone/roll", body)[1]
        who, trait, values = asked
        status, doc = served.post(
            "gm", "/gm/ask", {"character": who, "trait": trait, "values": values}
        )
        assert status == 200, doc
        for phone in served.who.keys() - {"gm"}:
            status, seen[f"{phone}'s state"] = served.get(phone, "/phone/state")
            assert status == 200
        waiting = seen[f"{who}'s state"]["asked"]
        assert waiting, seen[f"{who}'s state"]
        seen[f"{who}'s asked roll"] = served.post(
            who, "/phone/roll", {"request": waiting["id"], "values": {}}
        )[1]
        seen["the players' feed"] = served.feed(PLAYERS)
        gm_feed = served.feed(GM)
        tracker(db, "session", "end")
        seen["the players' feed after the session"] = served.feed(PLAYERS)
    finally:
        served.tracker.close()
    board = seen["the players' feed"][-1]
    assert board["obligations"], "the evening owes nothing, so proves nothing"
    assert seen["the players' feed after the session"][-1]["recap"] is not None
    assert not command_line(seen), "\n".join(command_line(seen))
    # The GM's console keeps the command line's words.
    if kept is not None:
        assert any(kept in o["what"] for o in gm_feed[-1]["obligations"])


def _split(words: str) -> list[str]:
    import shlex

    return shlex.split(words)


@pytest.mark.parametrize(
    ("gm", "players"),
    [
        # An obligation: the command in parentheses goes, the sentence stays.
        (
            "Juno rolled a catastrophe: call a panic check (`tracker panic Juno TRAIT`) or "
            "dismiss it.",
            "Juno rolled a catastrophe: call a panic check or dismiss it.",
        ),
        (
            "Assign Mira a new quirk (-1 point) related to the event "
            "(`tracker trait assign Mira NAME`).",
            "Assign Mira a new quirk (-1 point) related to the event.",
        ),
        # A refusal: the clause telling the GM what to type goes whole, and "or pass --flag".
        (
            "Threat 6: the GM must spend hard or dire before any player roll; log it with "
            "`tracker threat spend hard`, or pass --override to roll anyway.",
            "Threat 6: the GM must spend hard or dire before any player roll.",
        ),
        # A flag the player gives is named in words; a line without a stop keeps none.
        ("no --tag given", "no tag given"),
        ("give the dice like --dice 3,4,5.", "give the dice like 3,4,5."),
        ("Wren rolls Wits at 2: 15 → miss", "Wren rolls Wits at 2: 15 → miss"),
        # Nothing left but commands: what the caller says instead.
        ("run `tracker verify`.", ""),
    ],
)
def test_a_command_line_sentence_reads_in_the_tables_words(gm, players):
    from tracker.words import table_words

    assert table_words(gm) == players
