"""The table's app as the GM and the players use it at speed, in Debian's headless Chromium: one
press logs one event whatever the console went through before it, every form's result shows
beside it in its outcome's tone, and every page follows the table to a new session or another
campaign.

A real `tracker serve` runs in its own process (``test_console.table_served``); the pages are
driven through Selenium as a person drives them, by keyboard and by clicks, and what was logged
is read back with `tracker log`.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from test_console import table_served
from test_live import SHEETS, browser, feed_texts, head, tracker, wait_for  # noqa: F401 (a fixture)

pytestmark = pytest.mark.slow


def _events(db: Path) -> list[dict[str, Any]]:
    return json.loads(tracker(db, "log", "--json").stdout)["events"]


def _rolls(db: Path, trait: str) -> list[dict[str, Any]]:
    """The rolls of ``trait`` in the whole log, every campaign's."""
    return [
        e
        for e in _events(db)
        if e["type"] == "RollMade" and e["payload"]["trait"].casefold() == trait.casefold()
    ]


def _console(driver: Any, server: Any) -> None:
    driver.set_window_size(1280, 800)
    driver.get(f"{server.base}/gm?key={server.key}")
    wait_for(
        driver,
        lambda d: d.switch_to.active_element.get_attribute("name") == "character",
        "focus in the roll form",
    )


def _phone(driver: Any, server: Any, name: str) -> None:
    """``name``'s phone opened at a phone's size, once it shows her."""
    driver.set_window_size(390, 844)
    driver.get(server.phones[name])
    wait_for(driver, lambda d: d.find_element("id", "me-name").text == name, "her phone")


def _press(driver: Any, where: str, text: str) -> None:
    """Click the button of ``where`` (CSS) that says ``text``, once the page shows it: found
    and clicked in one read, since the console redraws its lists as the feed moves."""

    def pressed(d: Any) -> bool:
        found = [b for b in d.find_elements("css selector", f"{where} button") if b.text == text]
        return bool(found) and (found[0].click() or True)

    wait_for(driver, pressed, f"the button {text!r}")


def _type_roll(driver: Any, who: str, trait: str, dice: str = "") -> None:
    """Escape, a character, Tab, a trait, (dice,) Enter: the console's roll by keyboard."""
    from selenium.webdriver.common.keys import Keys

    driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_for(
        driver,
        lambda d: d.switch_to.active_element.get_attribute("name") == "character",
        "focus back on the character",
    )
    driver.switch_to.active_element.send_keys(who, Keys.TAB)
    box = driver.switch_to.active_element
    box.send_keys(trait)
    if dice:
        driver.find_element("css selector", "#roll input[name=dice]").send_keys(dice)
        box = driver.find_element("css selector", "#roll input[name=dice]")
    box.send_keys(Keys.ENTER)


def _result(driver: Any, where: str, *words: str, refused: bool = False) -> Any:
    """The result line ``where`` once it holds ``words``, as done or refused."""
    state = "refused" if refused else "done"

    def there(d: Any) -> Any:
        line = d.find_element("id", where)
        classes = line.get_attribute("class").split()
        return line if state in classes and all(w in line.text for w in words) else None

    return wait_for(driver, there, f"{where} saying {words}")


def _switch(driver: Any, name: str) -> None:
    form = driver.find_element("id", "campaigns")
    box = form.find_element("css selector", "input[name=name]")
    box.clear()
    box.send_keys(name)
    form.find_element("css selector", "button").click()
    wait_for(driver, lambda d: d.find_element("id", "campaign").text == name, "the switch")


@pytest.fixture
def two_systems(tmp_path) -> Path:
    """A GURPS campaign (current, in session) and a Gloom one, each with its characters."""
    db = tmp_path / "table.db"
    tracker(db, "campaign", "new", "Gloomy", "--system", "gloom")
    tracker(db, "character", "add", "--sheet", str(SHEETS / "gloom-juno.toml"))
    tracker(db, "session", "start")
    tracker(db, "campaign", "new", "Iron", "--system", "gurps")
    for name in ("mira", "vora"):
        tracker(db, "character", "add", "--sheet", str(SHEETS / f"gurps-{name}.toml"))
    tracker(db, "session", "start")
    return db


def test_one_enter_logs_one_roll_after_campaign_switches(two_systems, browser):  # noqa: F811
    db = two_systems
    with table_served(db) as server:
        _console(browser, server)
        for campaign, who, trait, dice in (
            ("Gloomy", "Juno", "Hacking", "12"),
            ("Iron", "Mira", "Lockpicking", "3,4,2"),
            ("Gloomy", "Juno", "Hacking", "12"),
            ("Iron", "Mira", "Lockpicking", "3,4,2"),
        ):
            _switch(browser, campaign)
            before = len(_rolls(db, trait))
            _type_roll(browser, who, trait, dice)
            _result(browser, "result", who, trait)
            # Whatever else the form sent would be on its way by now.
            time.sleep(0.5)
            assert len(_rolls(db, trait)) == before + 1, f"one Enter after a switch to {campaign}"


def test_a_lower_forms_refusal_shows_beside_it_and_the_name_is_selected_after_escape(
    two_systems,
    browser,  # noqa: F811
):
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    db = two_systems
    with table_served(db) as server:
        _console(browser, server)
        Select(browser.find_element("id", "picker")).select_by_visible_text("hp")
        form = browser.find_element("id", "other")
        form.find_element("css selector", "input[name=character]").send_keys("Mira")
        form.find_element("css selector", "input[name=change]").send_keys("abc")
        browser.execute_script("arguments[0].scrollIntoView({block: 'end'})", form)
        before = head(db)
        form.find_element("css selector", "button.primary").click()
        line = _result(browser, "other-result", "abc", refused=True)
        assert head(db) == before
        # The refusal is where the GM looks: on screen, right under the form that made it.
        top, bottom = browser.execute_script(
            "const r = arguments[0].getBoundingClientRect(); return [r.top, r.bottom];", line
        )
        assert top >= 0
        assert bottom <= browser.execute_script("return window.innerHeight") + 1
        assert browser.find_element("id", "result").text == ""

        # A refused roll, then Escape: the name is selected, so typing replaces it.
        _type_roll(browser, "Nobody", "Per")
        _result(browser, "result", "Nobody", refused=True)
        browser.switch_to.active_element.send_keys(Keys.ESCAPE)
        browser.switch_to.active_element.send_keys("Mira")
        value = browser.find_element("css selector", "#roll input[name=character]")
        assert value.get_attribute("value") == "Mira"


def test_the_result_line_reads_in_the_outcomes_tone_on_the_console_and_the_phone(
    two_systems,
    browser,  # noqa: F811
):
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    db = two_systems
    with table_served(db) as server:
        _console(browser, server)
        for dice, marks, said in (
            ("6,6,6", ["bad", "critical"], "critical failure"),
            ("3,4,2", ["good"], "success"),
            ("1,1,1", ["good", "critical"], "critical success"),
            ("6,6,5", ["bad", "critical"], "critical failure"),
        ):
            _type_roll(browser, "Mira", "Per", dice)
            line = _result(browser, "result", said)
            # Its tone as the feed's, and a critical one set apart from a plain one.
            assert line.find_element("css selector", ".line").get_attribute("class").split() == [
                "line",
                *marks,
            ], said
            colour = line.find_element("css selector", ".line").value_of_css_property("color")
            fed = wait_for(
                browser,
                lambda d, s=said: [
                    n.value_of_css_property("color")
                    for n in d.find_elements("css selector", "#feed li .text")
                    if s in n.text
                ][:1],
                "the roll in the feed",
            )[0]
            assert colour == fed, "as the feed colours it"

        browser.set_window_size(390, 844)
        browser.delete_all_cookies()
        browser.get(server.phones["Mira"])
        wait_for(browser, lambda d: d.find_element("id", "me-name").text == "Mira", "her phone")
        Select(browser.find_element("css selector", "#roll select[name=trait]")).select_by_value(
            "Per"
        )
        browser.find_element("css selector", "#roll input[name=dice]").send_keys(
            "6,6,6", Keys.ENTER
        )
        line = _result(browser, "result", "critical failure")
        assert "bad" in line.find_element("css selector", ".line").get_attribute("class").split()
        assert line.value_of_css_property("color") != "rgba(123, 196, 127, 1)"  # not green


def test_a_roll_the_rules_kept_secret_says_why_in_the_console(two_systems, browser):  # noqa: F811
    db = two_systems
    tracker(db, "roll", "Mira", "Lockpicking", "--task", "door", "--secret", "--dice", "3,4,2")
    earlier = head(db)
    with table_served(db) as server:
        _console(browser, server)
        form = browser.find_element("id", "roll")
        for name, value in (
            ("character", "Mira"),
            ("trait", "Lockpicking"),
            ("task", "door"),
            ("dice", "3,4,2"),
        ):
            form.find_element("css selector", f"input[name={name}]").send_keys(value)
        form.find_element("css selector", "button.primary").click()
        line = _result(browser, "result", "Lockpicking")
        assert "secret" in line.text
        assert f"kept secret: secret event {earlier}" in line.text
        assert "an earlier attempt at this task" in line.text
        assert "tracker reveal" not in line.text, "the console's words: its Reveal button"


def test_a_phone_of_a_campaign_switched_away_says_so_and_comes_back_by_itself(
    two_systems,
    browser,  # noqa: F811
):
    db = two_systems
    with table_served(db) as server:
        _phone(browser, server, "Mira")
        tracker(db, "campaign", "use", "Gloomy")
        away = wait_for(
            browser,
            lambda d: d.find_element("id", "away").is_displayed() and d.find_element("id", "away"),
            "the phone saying the table moved",
        )
        assert "Gloomy" in away.text
        assert "Mira" in away.text
        assert "comes back by itself" in away.text
        assert not browser.find_element("id", "roll").is_displayed()
        assert not browser.find_element("id", "feed-section").is_displayed()
        assert browser.find_element("id", "connection").text == "live"
        # A reload says the same: her name, not an empty form and another campaign's feed.
        browser.refresh()
        wait_for(browser, lambda d: d.find_element("id", "away").is_displayed(), "away again")
        assert browser.title.startswith("Mira")
        assert not browser.find_element("id", "roll").is_displayed()
        tracker(db, "campaign", "use", "Iron")
        wait_for(browser, lambda d: d.find_element("id", "roll").is_displayed(), "her form back")
        assert not browser.find_element("id", "away").is_displayed()
        assert browser.find_element("id", "me-name").text == "Mira"
        assert browser.find_elements("css selector", "#roll select[name=trait] option")


def test_the_console_starts_afresh_on_a_new_session(two_systems, browser):  # noqa: F811
    db = two_systems
    tracker(db, "roll", "Mira", "Per", "--dice", "3,4,5")
    tracker(db, "undo")
    with table_served(db) as server:
        _console(browser, server)
        wait_for(
            browser,
            lambda d: d.find_element("css selector", "#history button.redo").is_enabled(),
            "redo offered",
        )
        tracker(db, "session", "end")
        tracker(db, "session", "start")
        wait_for(
            browser,
            lambda d: "session 2" in d.find_element("id", "where").text,
            "the new session",
        )
        wait_for(
            browser,
            lambda d: (
                [li.text for li in d.find_elements("css selector", "#feed li .text")]
                == ["session 2 started"]
            ),
            "the feed of the new session alone",
        )
        redo = browser.find_element("css selector", "#history button.redo")
        assert not redo.is_enabled(), "no redo of the last session's roll into this one"
        assert "nothing to put back" in redo.text


def test_spell_backlash_shows_live_where_a_sheet_has_no_hp(tmp_path, browser):  # noqa: F811
    db = tmp_path / "glint.db"
    tracker(db, "campaign", "new", "Veyra", "--system", "glintlock")
    for name in ("wren", "tomas"):
        tracker(db, "character", "add", "--sheet", str(SHEETS / f"glintlock-{name}.toml"))
    tracker(db, "session", "start")
    with table_served(db) as server:
        _console(browser, server)
        form = browser.find_element("id", "roll")
        for name, value in (
            ("character", "Wren"),
            ("trait", "Lore"),
            ("tags", "1:gear"),
            ("dice", "1"),
            ("backlash_dice", "6,6"),
        ):
            form.find_element("css selector", f"input[name={name}]").send_keys(value)
        form.find_element("css selector", "input[name=spell]").click()
        form.find_element("css selector", "button.primary").click()
        line = _result(browser, "result", "Lore")
        assert "12 HP of backlash, not applied" in line.text
        wait_for(
            browser,
            lambda d: (
                "12 HP of backlash, not applied" in d.find_element("css selector", "#feed li").text
            ),
            "the backlash in the console's feed",
        )
        browser.get(server.base + "/")
        wait_for(
            browser,
            lambda d: any(
                "12 HP of backlash, not applied" in li.text
                for li in d.find_elements("css selector", "#feed li")
            ),
            "the backlash on the TV",
        )


def test_a_phones_form_follows_her_sheet_without_a_reload(two_systems, browser):  # noqa: F811
    from selenium.webdriver.support.ui import Select

    db = two_systems
    with table_served(db) as server:
        _phone(browser, server, "Mira")
        Select(browser.find_element("css selector", "#roll select[name=trait]")).select_by_value(
            "Per"
        )
        browser.find_element("css selector", "#roll input[name=dice]").send_keys("3,4")

        def traits(d: Any) -> list[str]:
            """Her skills in the picker (Swimming is offered at default until she has it)."""
            return [
                o.get_attribute("value")
                for o in d.find_elements(
                    "css selector", "#roll select[name=trait] optgroup[label=Skills] option"
                )
            ]

        assert "Swimming" not in traits(browser)
        tracker(db, "character", "update", "Mira", "--skill", "Swimming=13")
        wait_for(browser, lambda d: "Swimming" in traits(d), "the trait gained in play")
        # What she had filled in stays.
        trait = browser.find_element("css selector", "#roll select[name=trait]")
        assert trait.get_attribute("value") == "Per"
        dice = browser.find_element("css selector", "#roll input[name=dice]")
        assert dice.get_attribute("value") == "3,4"
        before = head(db)
        dice.send_keys(",2")
        browser.find_element("css selector", "#roll button.primary").click()
        _result(browser, "result", "Per")
        time.sleep(0.5)
        assert head(db) == before + 1, "one press, one roll, on a form drawn again"


def test_a_press_whose_answer_was_lost_is_sent_again_with_its_nonce_and_logged_once(
    two_systems,
    browser,  # noqa: F811
):
    db = two_systems
    with table_served(db) as server:
        _console(browser, server)
        # The network loses the answer to the first action sent (the request reached the
        # server): the page sends the press again, as it must, with the same nonce.
        browser.execute_script(
            """
            window.sent = [];
            const real = window.fetch;
            let lose = 1;
            window.fetch = async (url, init) => {
              const posting = init && init.method === "POST";
              if (posting) window.sent.push(JSON.parse(init.body).nonce);
              const answer = await real(url, init);
              if (posting && lose > 0) { lose -= 1; throw new TypeError("answer lost"); }
              return answer;
            };
            """
        )
        before = head(db)
        _type_roll(browser, "Mira", "Per", "3,4,2")
        # The server answers the repeat with what it answered the first try.
        _result(browser, "result", "Mira", "Per", "success")
        time.sleep(0.5)
        assert head(db) == before + 1
        sent = browser.execute_script("return window.sent")
        assert len(sent) == 2
        assert sent[0] == sent[1], "every retry of a press sends its one nonce"
        # The next press is another action: a nonce of its own.
        _type_roll(browser, "Mira", "Per", "3,4,2")
        _result(browser, "result", "Mira", "Per", "success")
        assert head(db) == before + 2
        sent = browser.execute_script("return window.sent")
        assert len(sent) == 3
        assert sent[2] != sent[0]


def _count(db: Path) -> int:
    """Every event the database holds, of every campaign."""
    import sqlite3

    with sqlite3.connect(db) as con:
        return con.execute("SELECT count(*) FROM events").fetchone()[0]


EVENING_DICE = {
    "gurps": ("Per", "3,4,2"),
    "glintlock": ("Grit", "20,20"),
    "gloom": ("Hacking", "12"),
}
PLAYERS = {"gurps": ("Mira", "Vora"), "glintlock": ("Wren", "Tomas"), "gloom": ("Juno", "Kade")}


@pytest.mark.parametrize("system", sorted(EVENING_DICE))
def test_an_evening_of_switches_and_sessions_logs_one_event_per_press(
    system: str,
    tmp_path,
    browser,  # noqa: F811
):
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select
    from test_evening_web import Table

    other = "gurps" if system == "gloom" else "gloom"
    db = tmp_path / "evening.db"
    tracker(db, "campaign", "new", "Elsewhere", "--system", other)
    for name in PLAYERS[other]:
        tracker(db, "character", "add", "--sheet", str(SHEETS / f"{other}-{name.lower()}.toml"))
    tracker(db, "campaign", "new", "Tonight", "--system", system)
    for name in PLAYERS[system]:
        tracker(db, "character", "add", "--sheet", str(SHEETS / f"{system}-{name.lower()}.toml"))
    trait, dice = EVENING_DICE[system]
    a = PLAYERS[system][0]
    counted: list[tuple[str, int, int]] = []

    with table_served(db) as server:
        t = Table(browser, server, db)
        t.open("console", f"{server.base}/gm?key={server.key}", (1280, 800))
        t.open("phone", server.phones[a], (390, 844))
        t.wait("phone", lambda d: d.find_element("id", "me-name").text == a, "her phone")

        def did(what: str, logs: int, press: Any, *words: str, page: str = "console") -> None:
            n = _count(db)
            press()
            t.said(page, *words)
            time.sleep(0.3)  # a second request of the same press would be in by now
            counted.append((what, logs, _count(db) - n))

        def console_roll(who: str, trait: str, dice: str) -> None:
            d = t.on("console")
            d.switch_to.active_element.send_keys(Keys.ESCAPE)
            d.switch_to.active_element.send_keys(who, Keys.TAB)
            d.switch_to.active_element.send_keys(trait)
            box = d.find_element("css selector", "#roll input[name=dice]")
            box.send_keys(dice, Keys.ENTER)

        def phone_roll() -> None:
            d = t.on("phone")
            Select(d.find_element("css selector", "#roll select[name=trait]")).select_by_value(
                trait
            )
            d.find_element("css selector", "#roll input[name=dice]").send_keys(dice, Keys.ENTER)

        def click(selector: str, text: str = "") -> Any:
            return lambda: _click_on(t, selector, text)

        def switch(name: str) -> Any:
            def go() -> None:
                form = t.on("console").find_element("id", "campaigns")
                box = form.find_element("css selector", "input[name=name]")
                box.clear()
                box.send_keys(name)
                form.find_element("css selector", "button").click()

            return go

        for session in (1, 2):
            did("session start", 1, click("#history button.session", "Start"), "started")
            did("console roll", 1, lambda: console_roll(a, trait, dice), a, trait)
            did("phone roll", 1, phone_roll, a, trait, page="phone")
            did("undo", 1, click("#history button.undo"), "undo")
            did("redo", 1, click("#history button.redo"), "redo")
            did("switch away", 0, switch("Elsewhere"), "Elsewhere")
            t.wait("phone", lambda d: d.find_element("id", "away").is_displayed(), "away")
            b = PLAYERS[other][0]
            o_trait, o_dice = EVENING_DICE[other]
            if session == 1:
                did("session start there", 1, click("#history button.session", "Start"), "started")
            did("roll there", 1, lambda b=b, ot=o_trait, od=o_dice: console_roll(b, ot, od), b)
            did("switch back", 0, switch("Tonight"), "Tonight")
            t.wait("phone", lambda d: d.find_element("id", "roll").is_displayed(), "back")
            did("console roll after", 1, lambda: console_roll(a, trait, dice), a, trait)
            did("phone roll after", 1, phone_roll, a, trait, page="phone")
            did("session end", 1, click("#history button.session", "End"), "ended")

    wrong = [(what, logs, got) for what, logs, got in counted if logs != got]
    assert not wrong, f"actions that logged other than they should: {wrong}"
    assert len(counted) == 23


def _click_on(t: Any, selector: str, text: str) -> None:
    def clicked(d: Any) -> bool:
        for button in d.find_elements("css selector", selector):
            if text in button.text and button.is_enabled():
                button.click()
                return True
        return False

    t.wait("console", clicked, f"a button {selector} saying {text!r}")


def test_every_campaigns_phones_have_their_links_and_follow_the_table_to_theirs(
    two_systems,
    browser,  # noqa: F811
):
    import re

    db = two_systems
    with table_served(db) as server:
        more = [server.proc.stdout.readline() for _ in range(2)]
        assert re.fullmatch(
            r"Phones of Gloomy \(live when the table turns to it; its own address "
            r"http://\S+/c/[0-9a-f]{8}/\):",
            more[0].strip(),
        ), more
        juno = re.fullmatch(r"\s+Juno: (\S+/phone\?key=\S+)\s*", more[1])
        assert juno, more
        _console(browser, server)
        # The links are read inside the wait: the feed may redraw the list between two reads.
        shown = wait_for(
            browser,
            lambda d: (
                d.find_element("id", "elsewhere").is_displayed()
                and [
                    x.get_attribute("value")
                    for x in d.find_elements("css selector", "#elsewhere-list input.link")
                ]
            ),
            "the other campaign's phones on the console",
        )
        assert shown == [juno[1]]
        assert "Gloomy" in browser.find_element("id", "elsewhere-list").text
        # Juno's phone, opened while the table plays Iron: it says so, and follows the table.
        browser.set_window_size(390, 844)
        browser.get(juno[1])
        away = wait_for(
            browser,
            lambda d: d.find_element("id", "away").is_displayed() and d.find_element("id", "away"),
            "Juno's phone saying the table is elsewhere",
        )
        assert "The table is playing Iron, which Juno is not in" in away.text
        tracker(db, "campaign", "use", "Gloomy")
        wait_for(browser, lambda d: d.find_element("id", "me-name").text == "Juno", "her sheet")
        assert browser.find_element("id", "roll").is_displayed()
        assert browser.find_element("id", "campaign").text == "Gloomy"


def test_the_players_screens_speak_the_tables_words_and_the_console_labels_are_words(
    tmp_path,
    browser,  # noqa: F811
):
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    db = tmp_path / "glint.db"
    tracker(db, "campaign", "new", "Veyra", "--system", "glintlock")
    for name in ("wren", "tomas"):
        tracker(db, "character", "add", "--sheet", str(SHEETS / f"glintlock-{name}.toml"))
    tracker(db, "session", "start")
    tracker(db, "threat", "add", "6")
    with table_served(db) as server:
        _console(browser, server)
        labels = [
            e.text for e in browser.find_elements("css selector", "#roll .name, #roll .flag span")
        ]
        assert "the table's dice" in labels
        assert "the table's dice for backlash" in labels
        assert not [x for x in labels if x.startswith("-")], labels
        browser.find_element("css selector", "#roll input[name=character]").send_keys("Wren")
        assert browser.find_element("css selector", "#roll button.ask").text == "Ask Wren's phone"

        _phone(browser, server, "Wren")
        Select(browser.find_element("css selector", "#roll select[name=trait]")).select_by_value(
            "Grit"
        )
        browser.find_element("css selector", "#roll input[name=dice]").send_keys("3,4", Keys.ENTER)
        refusal = _result(browser, "result", "Threat", refused=True).text
        assert refusal == ("Threat is 6: the GM must spend hard or dire before any player roll."), (
            refusal
        )
        for page in (browser.find_element("tag name", "body").text,):
            assert "--" not in page
            assert "`" not in page
            assert "tracker " not in page
        browser.get(server.base + "/")
        wait_for(browser, lambda d: d.find_element("id", "connection").text == "live", "the TV")
        tv = browser.find_element("tag name", "body").text
        assert "--" not in tv
        assert "`" not in tv


def test_undo_redo_and_the_newest_reveal_from_the_keyboard_and_dice_one_tab_away(
    two_systems,
    browser,  # noqa: F811
):
    from selenium.webdriver.common.keys import Keys

    db = two_systems
    tracker(db, "roll", "Mira", "Per", "--secret", "--dice", "3,4,2")
    with table_served(db) as server:
        _console(browser, server)
        # A character, Tab, a trait, Tab, the table's dice, Enter.
        before = head(db)
        typing = browser.switch_to.active_element
        typing.send_keys("Mira", Keys.TAB)
        browser.switch_to.active_element.send_keys("Lockpicking", Keys.TAB)
        assert browser.switch_to.active_element.get_attribute("name") == "dice"
        browser.switch_to.active_element.send_keys("3,4,2", Keys.ENTER)
        _result(browser, "result", "Lockpicking", "3+4+2")
        assert head(db) == before + 1

        def key(letter: str) -> None:
            browser.switch_to.active_element.send_keys(Keys.ALT, letter)

        key("u")
        _result(browser, "table-result", "undo", "Lockpicking")
        assert head(db) == before + 2
        wait_for(
            browser,
            lambda d: d.find_element("css selector", "#history button.redo").is_enabled(),
            "redo offered",
        )
        key("r")
        _result(browser, "table-result", "redo", "Lockpicking")
        assert head(db) == before + 3
        key("v")
        _result(browser, "secrets-result", "revealed")
        assert head(db) == before + 4
        wait_for(
            browser,
            lambda d: d.find_element("id", "secrets").text == "none",
            "the secret revealed",
        )


def test_the_tv_says_why_a_number_is_what_it_is(two_systems, browser):  # noqa: F811
    db = two_systems
    with table_served(db) as server:
        browser.set_window_size(1920, 1080)
        browser.get(server.base + "/")
        wait_for(browser, lambda d: d.find_element("id", "connection").text == "live", "live")
        tracker(db, "roll", "Mira", "Lockpicking", "--mod", "-2:rude", "--dice", "3,4,2")
        tracker(db, "roll", "Vora", "Per", "--seed", "7")
        tracker(db, "hp", "Vora", "-3", "--cause", "a falling stone")

        def line(words: str) -> Any:
            return wait_for(
                browser,
                lambda d: [
                    li.text
                    for li in d.find_elements("css selector", "#feed li")
                    if words in li.text
                ][:1],
                words,
            )[0]

        assert "\u22122 rude · the table's dice" in line("Lockpicking")
        assert "seeded dice" in line("Vora rolls Per")
        assert "a falling stone" in line("HP -3")
        # A secret roll is a secret event to the players: what it was is not theirs to know.
        tracker(db, "roll", "Vora", "Per", "--secret", "--dice", "3,4,5")
        card = wait_for(
            browser,
            lambda d: (
                next(
                    li.text
                    for li in d.find_elements("css selector", "#characters li")
                    if "Vora" in li.text
                )
                if "secret" in d.find_element("id", "characters").text
                else None
            ),
            "Vora's sealed note",
        )
        assert "1 secret event not yet revealed" in card
        assert "secret roll" not in browser.find_element("tag name", "body").text


def test_the_tv_shows_the_last_roll_large_and_the_whole_board_at_1080p(
    two_systems,
    browser,  # noqa: F811
    tmp_path,
):
    db = two_systems
    for n in range(14):
        tracker(db, "roll", "Vora", "Per", "--dice", "3,4,5", "--mod", f"-1:gloom {n}")
    tracker(db, "roll", "Mira", "Per", "--dice", "3,4,5")
    tracker(db, "condition", "set", "Mira", "stunned")
    tracker(db, "hp", "Vora", "-3", "--cause", "a falling stone")
    with table_served(db) as server:
        browser.set_window_size(1920, 1080)
        browser.get(server.base + "/")
        wait_for(browser, lambda d: d.find_element("id", "connection").text == "live", "live")
        tracker(db, "roll", "Mira", "Lockpicking", "--dice", "6,6,6")
        outcome = wait_for(
            browser,
            lambda d: (
                "critical failure" in d.find_element("id", "last-outcome").text.lower()
                and d.find_element("id", "last-outcome")
            ),
            "the last roll",
        )
        assert "Mira rolls Lockpicking" in browser.find_element("id", "last-who").text
        assert outcome.size["height"] >= 96
        assert "critical" in outcome.get_attribute("class").split()
        browser.save_screenshot(str(tmp_path / "tv.png"))
        shots = Path("/tmp/table-app-shots")
        shots.mkdir(exist_ok=True)
        browser.save_screenshot(str(shots / "tv-1920x1080.png"))
        # One screen: nothing to scroll to, and no text a sofa three metres away cannot read.
        assert browser.execute_script(
            "return document.scrollingElement.scrollHeight <= window.innerHeight"
        )
        small = browser.execute_script(
            """
            const out = [];
            for (const node of document.querySelectorAll('main *, header *')) {
              const shown = [...node.childNodes].some(
                (c) => c.nodeType === 3 && c.textContent.trim());
              const box = node.getBoundingClientRect();
              if (!shown || !box.height || box.bottom > window.innerHeight) continue;
              const px = parseFloat(getComputedStyle(node).fontSize);
              if (px < 32) out.push(`${node.tagName}.${node.className}: ${px}`);
            }
            return out;
            """
        )
        assert not small, small
        # Nothing cut off at a column's foot: what does not fit is left out whole.
        cut = browser.execute_script(
            """
            const out = [];
            for (const section of document.querySelectorAll('main > section')) {
              const end = section.getBoundingClientRect().bottom;
              for (const node of section.querySelectorAll('li, h2, p')) {
                const box = node.getBoundingClientRect();
                if (box.height && box.top < end && box.bottom > end + 1) {
                  out.push(node.textContent.slice(0, 40));
                }
              }
            }
            return out;
            """
        )
        assert not cut, cut
        tracker(db, "roll", "Mira", "Lockpicking", "--dice", "3,4,2")
        wait_for(
            browser,
            lambda d: (
                "success by 3" in d.find_element("id", "last-outcome").text
                or d.find_element("id", "last-outcome").text.lower() == "success"
            ),
            "the plain success",
        )
        assert "critical" not in browser.find_element("id", "last-outcome").get_attribute("class")


def test_a_phones_trait_picker_shows_levels_grouped_and_the_rare_options_under_more(
    two_systems,
    browser,  # noqa: F811
):
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    db = two_systems
    with table_served(db) as server:
        _phone(browser, server, "Mira")
        groups = [
            g.get_attribute("label")
            for g in browser.find_elements("css selector", "#roll select[name=trait] optgroup")
        ]
        assert groups == ["Stats", "Skills", "Senses", "Defaults"]
        shown = [
            o.text for o in browser.find_elements("css selector", "#roll select[name=trait] option")
        ]
        assert "Lockpicking 12" in shown
        assert "Per 12" in shown
        # Her dice and her modifiers at hand; a task, a retry, a feat under "more".
        more = browser.find_element("css selector", "#roll details.more")
        assert more.get_attribute("open") is None
        assert not browser.find_element("css selector", "#roll [name=task]").is_displayed()
        assert browser.find_element("css selector", "#roll [name=dice]").is_displayed()
        assert browser.find_element("css selector", "#roll .many [name=mods]").is_displayed()
        Select(browser.find_element("css selector", "#roll select[name=trait]")).select_by_value(
            "Lockpicking"
        )
        before = head(db)
        browser.find_element("css selector", "#roll [name=dice]").send_keys("3,4,2", Keys.ENTER)
        note = _result(browser, "result", "Lockpicking at 12")
        assert head(db) == before + 1
        # The note of what her roll did fades back once read.
        assert note.value_of_css_property("animation-name") == "settle"


def _hold_enter(driver: Any, repeats: int = 8) -> None:
    """Enter pressed and held: one key down, then the keyboard's auto-repeat, then up."""
    key = {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "text": "\r"}
    driver.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyDown", **key})
    for _ in range(repeats):
        time.sleep(0.03)
        driver.execute_cdp_cmd(
            "Input.dispatchKeyEvent", {"type": "keyDown", "autoRepeat": True, **key}
        )
    driver.execute_cdp_cmd("Input.dispatchKeyEvent", {"type": "keyUp", **key})


def test_enter_held_down_in_a_lower_form_logs_one_event(two_systems, browser):  # noqa: F811
    from selenium.webdriver.support.ui import Select

    db = two_systems
    with table_served(db) as server:
        _console(browser, server)
        Select(browser.find_element("id", "picker")).select_by_visible_text("hp")
        form = browser.find_element("id", "other")
        form.find_element("css selector", "input[name=character]").send_keys("Vora")
        box = form.find_element("css selector", "input[name=change]")
        box.send_keys("-1")
        box.click()
        before = head(db)
        _hold_enter(browser)
        _result(browser, "other-result", "Vora", "HP")
        time.sleep(1)
        assert head(db) == before + 1, "one press, however long the key is held"


def test_escape_after_a_refused_roll_clears_what_would_refuse_the_next(two_systems, browser):  # noqa: F811
    db = two_systems
    with table_served(db) as server:
        _console(browser, server)
        before = head(db)
        _type_roll(browser, "Mira", "Per", "1,2")
        _result(browser, "result", refused=True)
        # Escape, and the next roll as typed: the two dice left behind are gone with it.
        _type_roll(browser, "Mira", "Per", "3,4,2")
        _result(browser, "result", "Mira", "Per", "3+4+2")
        assert head(db) == before + 1


def test_secrets_of_an_earlier_session_stay_to_reveal_and_alt_v_takes_the_one_that_can_go(
    two_systems,
    browser,  # noqa: F811
):
    from selenium.webdriver.common.keys import Keys

    db = two_systems
    tracker(db, "roll", "Mira", "Per", "--secret", "--dice", "3,4,2")
    # A later secret roll of Mira's counts the first: it can be shown only after it.
    tracker(db, "roll", "Mira", "Per", "--secret", "--dice", "6,6,6")
    second = head(db)
    tracker(db, "session", "end")
    tracker(db, "session", "start")
    with table_served(db) as server:
        _console(browser, server)
        items = wait_for(
            browser,
            lambda d: (
                [li.text for li in d.find_elements("css selector", "#secrets li")][:2]
                if "session 1" in d.find_element("id", "secrets").text
                else None
            ),
            "last session's secrets",
        )
        assert all("(session 1)" in text for text in items), items
        assert "shown after the older secret" in items[1]

        browser.switch_to.active_element.send_keys(Keys.ALT, "v")
        _result(browser, "secrets-result", "revealed")
        # The older one went first; the one that counted it is next.
        left = wait_for(
            browser,
            lambda d: (
                [li.text for li in d.find_elements("css selector", "#secrets li")]
                if len(d.find_elements("css selector", "#secrets li")) == 1
                else None
            ),
            "one secret left",
        )
        assert f"#{second} " in left[0], left
        assert "shown after" not in left[0]
        browser.switch_to.active_element.send_keys(Keys.ALT, "v")
        # Each reveal names what it showed.
        _result(browser, "secrets-result", "revealed", f"#{second} ")
        wait_for(browser, lambda d: d.find_element("id", "secrets").text == "none", "none left")
        browser.switch_to.active_element.send_keys(Keys.ALT, "v")
        _result(browser, "secrets-result", "No secret to reveal", refused=True)
        browser.switch_to.active_element.send_keys(Keys.ALT, "r")
        _result(browser, "table-result", "Nothing to redo", refused=True)
        # The players' page is on session 2: a reveal of session 1's rolls says them whole.
        browser.get(server.base + "/")
        wait_for(
            browser,
            lambda d: any("revealed" in t and "6+6+6" in t for t in feed_texts(d)),
            "last session's roll, revealed",
        )


@pytest.fixture
def glintlock_table(tmp_path) -> Path:
    """A Glintlock campaign in session: Wren (Grit 3) and Tomas."""
    db = tmp_path / "veyra.db"
    tracker(db, "campaign", "new", "Veyra", "--system", "glintlock")
    for name in ("wren", "tomas"):
        tracker(db, "character", "add", "--sheet", str(SHEETS / f"glintlock-{name}.toml"))
    tracker(db, "session", "start")
    return db


def test_a_phone_taps_its_tags_and_forgets_its_result_at_a_new_session(
    glintlock_table,
    browser,  # noqa: F811
):
    from selenium.webdriver.support.ui import Select

    db = glintlock_table
    with table_served(db) as server:
        _phone(browser, server, "Wren")
        Select(browser.find_element("css selector", "#roll select[name=trait]")).select_by_value(
            "Grit"
        )
        picks = {b.text: b for b in browser.find_elements("css selector", "#roll button.pick")}
        assert list(picks) == [
            "+1 power",
            "+1 gear",
            "+1 scene",
            "\u22121 scene",
            "\u22121 weakness",
            "\u22121 condition",
        ]
        picks["+1 gear"].click()
        picks["+1 gear"].click()
        picks["+1 power"].click()
        chips = browser.find_elements("css selector", "#roll .chosen button.chip")
        assert [c.text for c in chips] == ["+1 gear \u00d7", "+1 gear \u00d7", "+1 power \u00d7"]
        chips[0].click()  # one gear taken off again
        browser.find_element("css selector", "#roll input[name=dice]").send_keys("15")
        before = head(db)
        browser.find_element("css selector", "#roll button.primary").click()
        line = _result(browser, "result")
        assert "Wren rolls Grit" in line.text, line.text
        assert head(db) == before + 1
        roll = _rolls(db, "Grit")[-1]["payload"]
        assert [(t["value"], t["kind"]) for t in roll["inputs"]["tags"]] == [
            (1, "gear"),
            (1, "power"),
        ]
        # Its feed line says why its die is what it is: the tags, the position they gave.
        wait_for(
            browser,
            lambda d: any(
                "+1 gear \u00b7 +1 power \u00b7 risky: one d20 \u00b7 the table's dice" in t
                for t in feed_texts(d)
            ),
            "why the roll is what it is",
        )
        # Rolled: the chips are gone, ready for the next roll.
        assert not browser.find_elements("css selector", "#roll .chosen button.chip")
        # A new session: what her phone said of the last one goes with it.
        tracker(db, "session", "end")
        tracker(db, "session", "start")
        wait_for(
            browser,
            lambda d: any("session 2 started" in t for t in feed_texts(d)),
            "the new session",
        )
        wait_for(browser, lambda d: d.find_element("id", "result").text == "", "the result gone")


def test_a_breaking_point_asks_for_its_result_and_consequence_and_the_floor_starts_at_hard(
    glintlock_table,
    browser,  # noqa: F811
):
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    db = glintlock_table
    tracker(db, "stress", "Wren", "+6")
    tracker(db, "threat", "add", "4")
    with table_served(db) as server:
        _console(browser, server)
        # The console's cards say what the table stands at, as the TV does.
        wait_for(browser, lambda d: "Threat 4" in d.find_element("id", "shared").text, "Threat")
        cards = browser.find_element("id", "characters").text
        assert "stress 6" in cards
        assert "Mettle 0" in cards
        Select(browser.find_element("id", "picker")).select_by_visible_text("breaking-point")
        form = browser.find_element("id", "other")
        names = [n.text for n in form.find_elements("css selector", ".parts .name")]
        assert names == ["result (empty: rolled on the campaign's breaking table)", "consequence"]
        form.find_element("css selector", "input[name=character]").send_keys("Wren")
        boxes = form.find_elements("css selector", ".parts input")
        boxes[0].send_keys("freezes")
        before = head(db)
        form.find_element("css selector", "button.primary").click()
        # A result with no consequence is refused as that, not logged as a consequence.
        _result(browser, "other-result", "consequence", refused=True)
        assert head(db) == before
        form = browser.find_element("id", "other")
        boxes = form.find_elements("css selector", ".parts input")
        boxes[1].send_keys("fear of deep water")
        form.find_element("css selector", "button.primary").click()
        _result(browser, "other-result", "Wren")
        assert head(db) == before + 1
        logged = _events(db)[-1]["payload"]
        assert (logged["result"], logged["consequence"]) == ("freezes", "fear of deep water")

        # Threat 4: a hard spend is owed; its button starts the spend at hard, the least
        # that pays it.
        _press(browser, "#owed", "threat spend…")
        tier = browser.find_element("css selector", "#other select[name=tier]")
        assert tier.get_attribute("value") == "hard"
        # Filled in, the form's button has the focus: Enter pays the floor.
        before = head(db)
        browser.switch_to.active_element.send_keys(Keys.ENTER)
        _result(browser, "other-result", "Threat", "hard")
        assert head(db) == before + 1

        # Tags clicked at the console leave the focus in the trait: Enter rolls, once.
        _type_roll_start = browser.find_element("css selector", "#roll input[name=character]")
        _type_roll_start.send_keys(Keys.ESCAPE)
        browser.switch_to.active_element.send_keys("Tomas", Keys.TAB)
        browser.switch_to.active_element.send_keys("Grit")
        for value in ("1:gear", "1:power"):
            browser.find_element("css selector", f'#roll button.pick[data-value="{value}"]').click()
        before = head(db)
        browser.switch_to.active_element.send_keys(Keys.ENTER)
        _result(browser, "result", "Tomas rolls Grit")
        assert head(db) == before + 1
        tags = _rolls(db, "Grit")[-1]["payload"]["inputs"]["tags"]
        assert [t["kind"] for t in tags] == ["gear", "power"]


ILSA = """
name = "Ilsa"
system = "gurps"
traits = ["Acute Vision 2", "Danger Sense"]

[stats]
ST = 10
DX = 11
IQ = 12
HT = 11
Per = 12

[skills]
"Guns (Pistol)" = 13

[defaults]
Climbing = "DX-5"
"""


def test_a_phones_picker_offers_her_senses_and_her_defaults_at_their_levels_and_rolls_them(
    tmp_path,
    browser,  # noqa: F811
):
    """GURPS, 'Sense Rolls': "A sense roll is a success roll against your Perception (Per)
    score, modified by any relevant Acute Senses advantages." 'Default Rolls': "Lockpicking
    defaults to IQ−5."; her sheet's Climbing DX-5. The console rolls them; so does her phone,
    picked from her list at the level the rules give them."""
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    db = tmp_path / "table.db"
    sheet = tmp_path / "ilsa.toml"
    sheet.write_text(ILSA)
    tracker(db, "campaign", "new", "Iron", "--system", "gurps")
    tracker(db, "character", "add", "--sheet", str(sheet))
    tracker(db, "character", "add", "--sheet", str(SHEETS / "gurps-vora.toml"))
    tracker(db, "session", "start")
    with table_served(db) as server:
        _phone(browser, server, "Ilsa")
        picker = "#roll select[name=trait]"
        groups = {
            g.get_attribute("label"): [o.text for o in g.find_elements("css selector", "option")]
            for g in browser.find_elements("css selector", f"{picker} optgroup")
        }
        assert groups["Senses"] == ["Vision 14", "Hearing 12", "Taste 12", "Smell 12"]
        assert groups["Defaults"] == ["Climbing 6", "Lockpicking 7", "Swimming 7"]
        # A sense roll is the GM's to see (GURPS, 'Sense Rolls'): her phone says so.
        Select(browser.find_element("css selector", picker)).select_by_value("Vision")
        browser.find_element("css selector", "#roll [name=dice]").send_keys("3,4,4", Keys.ENTER)
        _result(browser, "result", "The GM has it")
        (vision,) = _rolls(db, "Vision")
        assert vision["payload"]["inputs"]["base"] == 12
        assert vision["payload"]["result"]["effective"] == 14
        Select(browser.find_element("css selector", picker)).select_by_value("Lockpicking")
        dice = browser.find_element("css selector", "#roll [name=dice]")
        dice.clear()
        dice.send_keys("3,3,3", Keys.ENTER)
        _result(browser, "result", "Lockpicking at 7")
        assert len(_rolls(db, "Lockpicking")) == 1


def test_a_luck_that_rounds_to_nothing_reads_even_on_the_tv_in_no_tone(
    two_systems,
    browser,  # noqa: F811
):
    """Vora fails Lockpicking at 5 (IQ-5): she was expected 10/216 of a success, so her luck is
    a hair under nothing; Mira makes Climbing at 15, expected 206/216 of a success, a hair over.
    Each reads "±0.0" in the board's own colour: neither lucky nor unlucky."""
    db = two_systems
    tracker(db, "roll", "Vora", "Lockpicking", "--dice", "6,6,5")
    tracker(db, "roll", "Mira", "Climbing", "--dice", "3,4,2")
    with table_served(db) as server:
        browser.set_window_size(1920, 1080)
        browser.get(server.base + "/")

        def luck(d: Any) -> list[tuple[str, str, str, bool]]:
            rows = d.find_elements("css selector", "#luck li")
            if len(d.find_elements("css selector", "#luck li .who")) != 2:
                return []
            read = []
            for row in rows:
                figure = row.find_elements("css selector", ":scope > span")[-1]
                same = figure.value_of_css_property("color") == row.value_of_css_property("color")
                read.append((row.text, figure.text, figure.get_attribute("class"), same))
            return read

        for row, figure, kind, same_colour in wait_for(browser, luck, "the luck of both"):
            assert figure == "±0.0", row
            assert kind == "even"
            assert same_colour


def test_a_revoked_phone_says_its_link_is_not_live_rather_than_reconnecting(
    glintlock_table,
    browser,  # noqa: F811
):
    from test_console import gm

    db = glintlock_table
    with table_served(db) as server:
        _phone(browser, server, "Wren")
        console = gm(server)
        desk = json.loads(console.get("/gm/state")[1])
        wren = next(c["id"] for c in desk["characters"] if c["name"] == "Wren")
        assert console.post("/gm/revoke", {"character": wren})[0] == 200
        shown = wait_for(
            browser,
            lambda d: (
                d.find_element("id", "refused").is_displayed() and d.find_element("id", "refused")
            ),
            "the phone told its link is not live",
        )
        assert "not live" in shown.text
        assert not browser.find_element("id", "roll").is_displayed()


def test_an_installed_systems_own_tracks_show_on_every_screen_and_a_secret_moves_none(
    tmp_path,
    browser,  # noqa: F811
    pool_installed,
    monkeypatch,
):
    """Pool (an outside package) keeps each character's Strain: the TV's cards, the console's
    and the phone show it as they show Mettle, the players' screens without a secret push."""
    import os

    from conftest import PLUGINS
    from selenium.webdriver.common.keys import Keys
    from tracker_pool import BOONS

    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(pool_installed), str(PLUGINS)]))
    db = tmp_path / "road.db"
    tracker(db, "campaign", "new", "The Long Road", "--system", "pool")
    for name in ("ash", "bram"):
        tracker(db, "character", "add", "--sheet", str(PLUGINS / "tracker_pool" / f"{name}.toml"))
    tracker(db, "session", "start")
    tracker(db, "roll", "Ash", "Nerve", "--dice", "5,6,6")  # two successes: Momentum 1
    tracker(db, "roll", "Ash", "Reach", "--push", "--dice", "1,2,5")  # Ash's Strain 1
    tracker(db, "roll", "Bram", "Brawn", "--dice", "5,6,6,1")  # Momentum 2
    tracker(db, "roll", "Bram", "Brawn", "--push", "--secret", "--dice", "1,1,1,1,1")

    def cards(d: Any) -> dict[str, str]:
        return {
            li.find_element("css selector", ".name").text: li.find_element(
                "css selector", ".tracks"
            ).text
            for li in d.find_elements("css selector", "#characters li")
            if li.find_elements("css selector", ".tracks")
        }

    with table_served(db) as server:
        browser.set_window_size(1920, 1080)
        browser.get(server.base + "/")
        tv = wait_for(browser, lambda d: len(cards(d)) == 2 and cards(d), "the TV's cards")
        assert tv == {"Ash": "Strain 1", "Bram": "Strain 0"}
        assert browser.find_element("id", "shared").text.startswith("Momentum ")
        _console(browser, server)
        gm = wait_for(browser, lambda d: len(cards(d)) == 2 and cards(d), "the console's cards")
        # The GM's cards count the secret push the players do not know of.
        assert {name.split("\n")[0]: text for name, text in gm.items()} == {
            "Ash": "Strain 1",
            "Bram": "Strain 1",
        }
        # Pool's --boon is repeatable and takes its declared choices: a box of them each,
        # another as one is chosen.
        from selenium.webdriver.support.ui import Select

        roll = browser.find_element("id", "roll")
        roll.find_element("css selector", "input[name=character]").send_keys("Ash")
        roll.find_element("css selector", "input[name=trait]").send_keys("Nerve")
        roll.find_element("css selector", "input[name=dice]").send_keys("1,2,3,4,1")
        Select(roll.find_element("css selector", "select[name=boons]")).select_by_value(
            "good light"
        )
        boons = wait_for(
            browser,
            lambda d: (
                len(d.find_elements("css selector", "#roll select[name=boons]")) == 2
                and d.find_elements("css selector", "#roll select[name=boons]")
            ),
            "a second box for another boon",
            wait=5,
        )
        assert [o.text for o in Select(boons[1]).options] == ["", *BOONS]
        Select(boons[1]).select_by_value("a friend's hand")
        before = head(db)
        roll.find_element("css selector", "input[name=dice]").send_keys(Keys.ENTER)
        wait_for(browser, lambda d: head(db) == before + 1, "the roll with two boons")
        assert _events(db)[-1]["payload"]["inputs"]["boons"] == ["good light", "a friend's hand"]

        # The full pool owes a complication, which two of Pool's commands meet: both are
        # offered beside it, and the GM's call meets it.
        tracker(db, "roll", "Bram", "Brawn", "--dice", "6,6,6,6")
        tracker(db, "roll", "Bram", "Brawn", "--dice", "6,6,6,6")
        offered = wait_for(
            browser,
            lambda d: [b.text for b in d.find_elements("css selector", "#owed li button")],
            "what meets the complication",
        )
        assert offered == ["momentum spend…", "complication call…", "Dismiss"]
        # The spend's N takes 1 to the pool's most, as the command line does.
        _press(browser, "#owed", "momentum spend…")
        amount = browser.find_element("css selector", "#other input[name=amount]")
        assert (amount.get_attribute("min"), amount.get_attribute("max")) == ("1", "6")
        _press(browser, "#owed", "complication call…")
        before = head(db)
        browser.switch_to.active_element.send_keys("the bridge gives way", Keys.ENTER)
        wait_for(
            browser,
            lambda d: d.find_element("id", "owed").text == "nothing is owed",
            "the complication met",
        )
        assert [e["type"] for e in _events(db)[before:]] == ["PoolComplicationCalled"]
        _phone(browser, server, "Bram")
        assert browser.find_element("id", "me-tracks").text == "Strain 0"
        # The party's pool, as the TV shows it: the secret push may have moved it.
        wait_for(
            browser,
            lambda d: d.find_element("id", "shared").text == "Momentum 6 + ? sealed",
            "the pool on his phone",
        )
        # His Edge, which Pool never rolls, is not in his picker.
        picker = browser.find_elements("css selector", "#roll select[name=trait] option")
        assert [o.get_attribute("value") for o in picker if o.get_attribute("value")] == [
            "Brawn",
            "Guile",
        ]
        tracker(db, "roll", "Bram", "Brawn", "--push", "--dice", "1,1,1,1,1")
        wait_for(
            browser,
            lambda d: d.find_element("id", "me-tracks").text == "Strain 1",
            "Bram's phone counting his public push",
        )
