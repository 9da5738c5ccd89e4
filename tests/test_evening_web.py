"""A whole evening at the table in the browser, in each system: the GM at the console, two
players at their phones, the TV showing the players' page.

A real `tracker serve` runs in its own process; Debian's headless Chromium (through Selenium
and Debian's chromedriver) holds four windows: the console, the TV and two phones. The phones
open the server by two names (127.0.0.1 and localhost), as two handsets keep their cookies
apart. Every action is made in a page, as the table makes it; what each page shows is read
after each step, and every refusal is its one sentence in the page with nothing appended.

Screenshots of every page at three sizes go to ``$EVENING_SHOTS`` (default
/tmp/evening-shots), to be looked at.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from test_console import path_of, table_served
from test_live import SHEETS, browser, head, tracker, wait_for  # noqa: F401 (a fixture)

SHOTS = (1920, 1080), (1280, 800), (390, 844)
HERE = Path(os.environ.get("EVENING_SHOTS", "/tmp/evening-shots"))


@dataclass(frozen=True)
class Evening:
    """What one system's evening rolls: two characters, the traits and dice each step uses."""

    system: str
    players: tuple[str, str]
    trait: str  # a trait both sheets have
    own_dice: str  # dice the first phone types in
    phone_options: dict[str, list[str]] = field(default_factory=dict)  # repeatable ones
    moved: str = ""  # what the first phone's roll moved, as the TV says it
    asked_dice: str = ""  # dice the phones answer the GM's requests with ("": the server's)
    blind_dice: str = ""  # dice a blind roll is answered with


EVENINGS = {
    "glintlock": Evening(
        "glintlock",
        ("Wren", "Tomas"),
        "Grit",
        "15",
        {"tags": ["1:gear", "1:power"]},
        "Threat +1",
        # A roll given no tag is desperate, two dice; natural 20s keep Threat under 6, where
        # every roll would be refused until the GM spends.
        "20,20",
        "20,20",
    ),
    "gurps": Evening(
        "gurps",
        ("Mira", "Vora"),
        "Per",
        "3,4,2",
        {"mods": ["-2:bad light", "+1:a lantern"]},
        blind_dice="3,4,2",
    ),
    "gloom": Evening("gloom", ("Juno", "Kade"), "Hacking", "12", blind_dice="12"),
}


class Table:
    """The four windows of one evening, by name, and what each shows."""

    def __init__(self, driver: Any, server: Any, db: Path) -> None:
        self.d, self.server, self.db = driver, server, db
        self.windows: dict[str, str] = {}

    def open(self, name: str, url: str, size: tuple[int, int]) -> None:
        if self.windows:
            self.d.switch_to.new_window("window")
        self.windows[name] = self.d.current_window_handle
        self.d.set_window_size(*size)
        self.d.get(url)

    def on(self, name: str) -> Any:
        self.d.switch_to.window(self.windows[name])
        return self.d

    def wait(self, name: str, predicate: Any, what: str, wait: float = 15) -> Any:
        from selenium.common.exceptions import StaleElementReferenceException

        def settled(d: Any) -> Any:
            # A page redraws its lists as the feed arrives: an element read a moment before
            # may be gone; read again.
            try:
                return predicate(d)
            except StaleElementReferenceException:
                return None

        return wait_for(self.on(name), settled, f"{name}: {what}", wait)

    def texts(self, name: str, selector: str) -> list[str]:
        # Read as the page holds it: the TV trims its feed to the screen, and a line past the
        # screen's foot is there but not shown.
        return [
            e.get_attribute("textContent")
            for e in self.on(name).find_elements("css selector", selector)
        ]

    def feed(self, name: str) -> list[str]:
        return self.texts(name, "#feed li .text")

    def shows(self, name: str, *words: str, selector: str = "#feed li .text") -> None:
        """Wait until one line of ``selector`` in ``name`` holds every one of ``words``."""
        self.wait(
            name,
            lambda d: any(
                all(w in e.get_attribute("textContent") for w in words)
                for e in d.find_elements("css selector", selector)
            ),
            f"a line with {words} in {selector}",
        )

    def result(self, name: str) -> str:
        return self.on(name).find_element("id", "result").text

    def said(self, name: str, *words: str, refused: bool = False) -> str:
        """Wait for a result line of the page (each form has its own, beside it) to hold
        ``words``, as a refusal or as done."""
        cls = "refused" if refused else "done"

        def there(d: Any) -> str | None:
            for line in d.find_elements("css selector", ".result"):
                got = line.text
                if cls in line.get_attribute("class").split() and all(w in got for w in words):
                    return got
            return None

        return self.wait(name, there, f"a result line saying {words}")

    def shoot(self, name: str, label: str, sizes=SHOTS) -> None:
        d = self.on(name)
        was = d.get_window_size()
        for w, h in sizes:
            d.set_window_size(w, h)
            d.execute_script("window.scrollTo(0, 0)")
            time.sleep(0.4)
            d.save_screenshot(str(HERE / f"{label}-{w}x{h}.png"))
        d.set_window_size(was["width"], was["height"])


def _console_roll(t: Table, who: str, trait: str) -> None:
    """Type a roll into the console by keyboard alone: Escape, a character, Tab, a trait,
    Enter."""
    from selenium.webdriver.common.keys import Keys

    d = t.on("console")
    d.switch_to.active_element.send_keys(Keys.ESCAPE)
    t.wait(
        "console",
        lambda d: d.switch_to.active_element.get_attribute("name") == "character",
        "focus",
    )
    box = d.switch_to.active_element
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(who, Keys.TAB)
    d.switch_to.active_element.send_keys(trait, Keys.ENTER)


def _phone_roll(t: Table, phone: str, trait: str, dice: str = "", **many: list[str]) -> None:
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    d = t.on(phone)
    Select(d.find_element("css selector", "#roll select[name=trait]")).select_by_value(trait)
    for name, values in many.items():
        for i, value in enumerate(values):
            # Declared choices (Glintlock's tags) are tapped, not typed.
            pick = d.find_elements("css selector", f'#roll button.pick[data-value="{value}"]')
            if pick:
                pick[0].click()
                continue
            boxes = d.find_elements("css selector", f"#roll .many input[name={name}]")
            assert len(boxes) == i + 1, "a repeatable option grows a box as the last is filled"
            boxes[-1].send_keys(value)
    dice_box = d.find_element("css selector", "#roll input[name=dice]")
    dice_box.send_keys(dice, Keys.ENTER)


def _ask(t: Table, who: str, trait: str, *, secret: bool) -> None:
    d = t.on("console")
    form = d.find_element("id", "roll")
    for name, value in (("character", who), ("trait", trait)):
        box = form.find_element("css selector", f"input[name={name}]")
        box.clear()
        box.send_keys(value)
    secret_box = form.find_element("css selector", "input[name=secret]")
    if secret_box.is_selected() != secret:
        secret_box.click()
    form.find_element("css selector", "button.ask").click()


def _click(t: Table, name: str, selector: str, text: str = "", about: str = "") -> None:
    """Click the button ``selector`` saying ``text`` (with ``about``, a button within the
    ``selector`` that names it); the console redraws its lists as the feed arrives, so it is
    looked for again until a click lands."""

    def clicked(d: Any) -> bool:
        if about:
            found = d.find_elements("css selector", selector)
            buttons = [
                b
                for x in found
                if about in x.text
                for b in x.find_elements("css selector", "button")
            ]
        else:
            buttons = d.find_elements("css selector", selector)
        for button in buttons:
            if text in button.text and button.is_enabled():
                button.click()
                return True
        return False

    t.wait(name, clicked, f"a button {selector} saying {text!r}")


def _pick(t: Table, path: str, values: dict[str, str], *, choose: dict[str, str] | None = None):
    """Another command, picked from the console's list, filled in and sent."""
    from selenium.webdriver.support.ui import Select

    d = t.on("console")
    Select(d.find_element("id", "picker")).select_by_visible_text(path)
    _send_other(t, values, choose)


def _send_other(t: Table, values: dict[str, str], choose: dict[str, str] | None = None) -> None:
    from selenium.webdriver.support.ui import Select

    form = t.on("console").find_element("id", "other")
    for name, value in values.items():
        box = form.find_element("css selector", f"input[name={name}]")
        box.clear()
        box.send_keys(value)
    for name, value in (choose or {}).items():
        Select(form.find_element("css selector", f"select[name={name}]")).select_by_value(value)
    form.find_element("css selector", "button.primary").click()


def _filled(t: Table, name: str) -> str | None:
    """What the console's form of other commands holds in its box ``name`` now: the form is
    drawn anew when a button of the owed list chooses its command, so it is read in a wait."""
    form = t.on("console").find_element("id", "other")
    boxes = form.find_elements("css selector", f"input[name={name}]")
    return boxes[0].get_attribute("value") if boxes else None


def _owed(t: Table) -> list[str]:
    return [li.text for li in t.on("console").find_elements("css selector", "#owed li")]


@pytest.mark.slow
@pytest.mark.parametrize("system", sorted(EVENINGS))
def test_a_whole_evening_from_the_console_and_two_phones_with_the_tv_following(
    system: str,
    tmp_path,
    browser,  # noqa: F811 (test_live's fixture)
):
    ev = EVENINGS[system]
    a, b = ev.players
    HERE.mkdir(parents=True, exist_ok=True)
    db = tmp_path / "evening.db"
    # The campaign the evening ends by turning to, then the evening's own (current).
    tracker(db, "campaign", "new", "Next week", "--system", "gloom")
    tracker(db, "campaign", "new", "Tonight", "--system", system)
    for name in ev.players:
        tracker(db, "character", "add", "--sheet", str(SHEETS / f"{system}-{name.lower()}.toml"))

    with table_served(db) as server:
        t = Table(browser, server, db)
        t.open("console", f"{server.base}/gm?key={server.key}", (1280, 800))
        t.open("tv", server.base + "/", (1920, 1080))
        t.open("a", server.base + path_of(server.phones[a]), (390, 844))
        localhost = server.base.replace("127.0.0.1", "localhost")
        t.open("b", localhost + path_of(server.phones[b]), (390, 844))
        for name in t.windows:
            t.wait(name, lambda d: d.find_element("id", "connection").text == "live", "live")
        t.wait("a", lambda d: d.find_element("id", "me-name").text == a, "her character")
        t.wait("b", lambda d: d.find_element("id", "me-name").text == b, "his character")
        assert "no session" in t.on("tv").find_element("id", "where").text

        # Session start, from the console.
        _click(t, "console", "#history button.session", "Start a session")
        t.said("console", "session 1")
        t.shows("tv", "session 1", selector="#where")
        t.shows("tv", "session 1 started")

        # A roll typed in the console by keyboard alone; the character stays for the next.
        n = head(db)
        _console_roll(t, a, ev.trait)
        t.said("console", a, ev.trait)
        t.shows("tv", a, ev.trait)
        assert head(db) == n + 1
        assert (
            t.on("console")
            .find_element("css selector", "#roll input[name=character]")
            .get_attribute("value")
            == a
        )

        # The console rolling for a character the campaign lacks: one sentence, nothing logged.
        n = head(db)
        _console_roll(t, "Nobody", ev.trait)
        refusal = t.said("console", "Nobody", refused=True)
        assert "\n" not in refusal
        time.sleep(0.5)
        assert head(db) == n

        # Phone A rolls with her own dice (and a repeatable option's several values).
        _phone_roll(t, "a", ev.trait, ev.own_dice, **ev.phone_options)
        t.said("a", a, ev.trait)
        t.shows("tv", a, ev.trait, ev.moved)
        t.shows("a", a, ev.trait)  # her phone's feed
        t.shows("console", a, ev.trait)
        assert head(db) == n + 1
        for name in ev.phone_options:
            boxes = t.on("a").find_elements("css selector", f"#roll .many input[name={name}]")
            values = [x.get_attribute("value") for x in boxes]
            # Rolled: one empty box again, or no chip chosen of what was tapped.
            assert values in ([""], []), values
            if not values:
                assert not t.on("a").find_elements("css selector", "#roll .chosen .chip")

        # A phone rolling a trait its sheet lacks (a page out of date): refused, nothing logged.
        # Before phone B's roll: the server's dice there may bring Glintlock's Threat to 6,
        # which refuses any roll for a reason of its own.
        n = head(db)
        t.on("b").execute_script(
            "const s = document.querySelector('#roll select[name=trait]');"
            "const o = document.createElement('option'); o.value = o.textContent = 'Flying';"
            "s.append(o);"
        )
        _phone_roll(t, "b", "Flying")
        refusal = t.said("b", "Flying", refused=True)
        assert "\n" not in refusal
        time.sleep(0.5)
        assert head(db) == n
        # Phone B rolls with the server's dice; in Glintlock with the table's, as a miss there
        # would bring Threat to 6, which refuses every player's roll after it.
        n = head(db)
        _phone_roll(t, "b", ev.trait, "20,20" if ev.system == "glintlock" else "")
        t.said("b", b, ev.trait)
        t.shows("tv", b, ev.trait)
        assert head(db) == n + 1

        # The GM asks phone A for a public roll: it appears there filled in, rolled there.
        _ask(t, a, ev.trait, secret=False)
        t.said("console", f"Asked {a}: {ev.trait}")
        t.wait("a", lambda d: d.find_element("id", "asked").is_displayed(), "the request")
        assert f"{a}: {ev.trait}" in t.on("a").find_element("id", "asked-text").text
        n = head(db)
        t.on("a").find_element("css selector", "#answer input[name=dice]").send_keys(ev.asked_dice)
        t.on("a").find_element("css selector", "#answer button").click()
        t.said("a", a, ev.trait)
        t.wait("a", lambda d: not d.find_element("id", "asked").is_displayed(), "the request gone")
        assert head(db) == n + 1

        # A blind roll asked of phone B: he rolls, his phone says the GM has it, and the
        # players see only that there was one.
        _ask(t, b, ev.trait, secret=True)
        t.said("console", f"Asked {b}: {ev.trait}", "blind")
        t.wait("b", lambda d: d.find_element("id", "asked").is_displayed(), "the request")
        assert "blind roll" in t.on("b").find_element("id", "asked-text").text
        t.on("b").find_element("css selector", "#answer input[name=dice]").send_keys(ev.blind_dice)
        t.on("b").find_element("css selector", "#answer button").click()
        t.said("b", "Rolled. The GM has it.")
        t.shows("tv", f"a secret event for {b}")
        t.shows("b", f"a secret event for {b}")
        t.shows("console", f"#{n + 2}", selector="#secrets li")

        # The system's own command from the console.
        _system_commands(t, ev)

        # Undo and redo from the console: their text names what they take back and put back.
        n = head(db)
        undo = t.on("console").find_element("css selector", "#history button.undo").text
        assert undo.startswith("Undo: #")
        taken_back = undo.removeprefix("Undo: ").split(" ", 1)[1]
        _click(t, "console", "#history button.undo")
        t.said("console", "undo")
        assert head(db) == n + 1
        t.shows("tv", "taken back", taken_back.split(" ")[0])
        assert t.on("tv").find_elements("css selector", "#feed li.undone")
        redo = t.on("console").find_element("css selector", "#history button.redo").text
        assert redo.startswith("Redo: #")
        assert taken_back.split(" ")[0] in redo
        _click(t, "console", "#history button.redo")
        t.said("console", "redo")
        t.shows("tv", "put back", taken_back.split(" ")[0])

        # Reveal the blind roll from the console: the TV shows it as it went.
        t.wait("console", lambda d: d.find_elements("css selector", "#secrets li button"), "reveal")
        sealed = len([x for x in t.feed("tv") if f"a secret event for {b}" in x])
        _click(t, "console", "#secrets li button", "Reveal")
        t.said("console", "reveal")
        t.wait(
            "tv",
            lambda d: len([x for x in t.feed("tv") if f"a secret event for {b}" in x]) < sealed,
            "the reveal",
        )
        t.wait(
            "console",
            lambda d: d.find_element("id", "secrets").text == "none",
            "no secret left " + t.on("console").find_element("id", "secrets").text,
            wait=5,
        )

        # Screenshots of every page, mid-evening.
        t.shoot("tv", f"{system}-tv")
        t.shoot("console", f"{system}-console")
        t.shoot("a", f"{system}-phone")
        _qr(t, system, a)

        # Session end: the TV holds the night's recap, what changed and the luck.
        _click(t, "console", "#history button.session", "End session 1")
        t.said("console", "session 1")
        t.wait(
            "tv",
            lambda d: "recap" in d.find_element("tag name", "body").get_attribute("class"),
            "the recap",
        )
        t.wait("tv", lambda d: d.find_element("id", "recap").is_displayed(), "what changed")
        luck = t.texts("tv", "#luck li")
        assert any(a in x for x in luck), luck
        assert any("expected" in x for x in luck), luck
        assert any(ev.trait in x for x in t.feed("tv")), "the feed stays up as the recap"
        t.shoot("tv", f"{system}-tv-recap", sizes=SHOTS[:1])

        # A campaign switch from the console: every page turns to it.
        form = t.on("console").find_element("id", "campaigns")
        form.find_element("css selector", "input[name=name]").send_keys("Next week")
        form.find_element("css selector", "button").click()
        t.said("console", 'Now playing "Next week"')
        t.wait("tv", lambda d: d.find_element("id", "campaign").text == "Next week", "the switch")
        t.wait("tv", lambda d: not t.feed("tv"), "the old feed gone")
        t.wait(
            "console", lambda d: d.find_element("id", "campaign").text == "Next week", "the switch"
        )


def _system_commands(t: Table, ev: Evening) -> None:
    a, b = ev.players
    db = t.db
    if ev.system == "glintlock":
        # Threat past the floor: the console offers the spend that discharges it.
        shared = t.on("tv").find_element("id", "shared").text
        threat = int(shared.split("Threat ")[1].split()[0]) if "Threat" in shared else 0
        if threat < 4:
            _pick(t, "threat add", {"amount": str(4 - threat)})
            t.said("console", "Threat")
        t.wait("console", lambda d: any("hard or dire" in x for x in _owed(t)), "the floor owed")
        _click(t, "console", "#owed button", "threat spend")
        n = head(db)
        _send_other(t, {}, {"tier": "hard"})
        t.said("console", "spends Threat")
        assert head(db) == n + 1
        t.wait("console", lambda d: _owed(t) == ["nothing is owed"], "the floor met")
        t.shows("tv", "Threat -2")
        # Her Mettle, spent from the console; then a spend the rules lack: refused, nothing
        # logged.
        _pick(t, "spend", {"character": a, "action": "steel-yourself"})
        t.said("console", a, "Mettle")
        t.shows("tv", a, "Mettle -1")
        n = head(db)
        _pick(t, "spend", {"character": b, "action": "fly"})
        refusal = t.said("console", "fly", refused=True)
        assert "\n" not in refusal
        time.sleep(0.5)
        assert head(db) == n
    elif ev.system == "gurps":
        n = head(db)
        _pick(t, "fright", {"character": a, "dice": "3,4,2"})
        t.said("console", "Fright Check")
        t.shows("tv", a, "Fright Check")
        _pick(t, "points award", {"character": a, "amount": "5"})
        t.said("console", a, "5")
        t.shows("a", "CP 5", selector="#me-tracks")
        # A regular contest still running: the console offers its next round, filled in.
        _pick(
            t,
            "contest",
            {
                "a": a,
                "trait_a": ev.trait,
                "b": b,
                "trait_b": ev.trait,
                "dice_a": "3,3,3",
                "dice_b": "3,3,3",
            },
            choose={"mode": "regular"},
        )
        t.said("console", "round 1")
        t.wait("console", lambda d: any("still running" in x for x in _owed(t)), "the contest owed")
        _click(t, "console", "#owed button", "contest")
        t.wait("console", lambda d: _filled(t, "a") == a, "the contest's next round filled in")
        _send_other(t, {"dice_a": "3,3,3", "dice_b": "6,6,6"})
        t.said("console", "round 2")
        t.wait("console", lambda d: _owed(t) == ["nothing is owed"], "the contest decided")
        assert head(db) == n + 4
    else:
        # A catastrophe owes a panic check: the console offers it, filled in with whose.
        n = head(db)
        _console_roll_with_dice(t, a, ev.trait, "1")
        t.said("console", "catastrophe")
        t.wait("console", lambda d: any("panic check" in x for x in _owed(t)), "the panic owed")
        # Hers: a roll of the server's dice earlier may have owed another character's too.
        _click(t, "console", "#owed li", "panic", about=a)
        t.wait("console", lambda d: _filled(t, "character") == a, "the panic check filled in")
        _send_other(t, {"trait": "Mind", "dice": "15"})
        t.said("console", a, "Mind")
        t.wait("console", lambda d: _owed(t) == ["nothing is owed"], "the panic check made")
        t.shows("tv", a, "panic")
        assert head(db) == n + 2


def _console_roll_with_dice(t: Table, who: str, trait: str, dice: str) -> None:
    from selenium.webdriver.common.keys import Keys

    form = t.on("console").find_element("id", "roll")
    for name, value in (("character", who), ("trait", trait), ("dice", dice)):
        box = form.find_element("css selector", f"input[name={name}]")
        box.clear()
        box.send_keys(value)
    box.send_keys(Keys.ENTER)


def _qr(t: Table, system: str, who: str) -> None:
    """The QR code panel of a phone link, opened and photographed; its image is decoded back
    when a decoder is at hand."""
    d = t.on("console")
    for li in d.find_elements("css selector", "#characters li"):
        if li.find_element("css selector", ".name").text.startswith(who):
            li.find_element("css selector", "summary").click()
            img = li.find_element("css selector", "img.qr")
            wait_for(d, lambda _, img=img: img.get_property("naturalWidth"), "the QR code drawn")
            d.execute_script("arguments[0].scrollIntoView()", li)
            time.sleep(0.3)
            d.save_screenshot(str(HERE / f"{system}-console-qr-1280x800.png"))
            shot = HERE / f"{system}-qr.png"
            img.screenshot(str(shot))
            link = li.find_element("css selector", "input.link").get_attribute("value")
            assert img.size["width"] >= 180, "big enough for a phone's camera across a table"
            _decodes(shot, link)
            return
    raise AssertionError(f"no phone link shown for {who}")


def _decodes(png: Path, link: str) -> None:
    """The code as the page draws it reads back as the phone's link (when OpenCV is here to
    read it: it is no dependency of tracker's)."""
    try:
        import cv2
    except ImportError:
        return
    image = cv2.imread(str(png))
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    assert text == link, (text, link)
