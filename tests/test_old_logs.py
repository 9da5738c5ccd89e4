"""A stored log keeps meaning what it meant when a ruling changes.

Each log under ``fixtures/logs`` was exported by the tracker before a ruling changed, with what
that tracker read from it (fixtures/logs/README.md). Read by this tracker it verifies, and
``status``, ``obligations``, ``replay`` and ``character show`` read as they did then; the same
evening played now follows the new ruling, which its events say they were logged under.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

LOGS = Path(__file__).resolve().parent.parent / "fixtures" / "logs"
SHEETS = Path(__file__).resolve().parent.parent / "fixtures" / "sheets"
OLD_LOGS = ["gurps-lasting-iq", "gloom-panicked-catastrophe"]


def commands_of(name: str) -> list[str]:
    """The commands the README says the log was played with, ``tracker`` left off."""
    text = (LOGS / "README.md").read_text(encoding="utf-8")
    block = text.split(f"`{name}`", 1)[1].split("```", 2)[1]
    return [line.strip().removeprefix("tracker ") for line in block.splitlines() if line.strip()]


def play(run, name: str) -> None:
    for command in commands_of(name):
        run.ok(shlex.split(command.replace("fixtures/sheets/", f"{SHEETS}/")))


@pytest.mark.parametrize("name", OLD_LOGS)
def test_a_log_recorded_before_the_ruling_verifies_and_reads_as_it_did(run, name):
    run.ok(["import", str(LOGS / f"{name}.events.jsonl")])
    verified = run.json("verify")
    assert verified["ok"] is True, verified
    then = json.loads((LOGS / f"{name}.read.json").read_text(encoding="utf-8"))
    for command, doc in then.items():
        assert run.json(command) == doc, command


def test_a_lasting_iq_loss_logged_before_moved_iq_alone(run):
    """The GURPS rules, 'Fright Check Results', row 40+: "As above, plus lose 1 point of IQ
    permanently." Logged when a lasting loss moved IQ alone, Mira's Will and Per stayed 12, and
    the Will roll, the Vision roll and the Fright Check after it were rolled at 12: they still
    are, and `verify` holds them to it."""
    run.ok(["import", str(LOGS / "gurps-lasting-iq.events.jsonl")])
    shown = run.ok("character show Mira").stdout
    assert "IQ 11 (12 on the sheet, -1 lasting)" in shown
    assert "Will 12 Per 12" in shown
    assert run.json("status Mira")["stat_changes"] == {"IQ": -1}
    # A roll made now reads the sheet as the log leaves it.
    run.ok("session start")
    assert run.json("roll Mira Will --dice 3,3,3")["base"] == 12
    assert run.json("verify")["ok"] is True


def test_a_lasting_iq_loss_logged_now_moves_will_and_per_and_says_so(run):
    """The same evening played now: the loss lowers Will and Per with IQ
    (tracker/app/RULINGS.md, 'Sheets that change'), and its stored effect says so."""
    play(run, "gurps-lasting-iq")
    fright = next(e for e in run.json("replay 1")["events"] if e["type"] == "FrightChecked")
    lasting = [e for e in fright["payload"]["effects"] if "stat_change" in e]
    assert lasting == [{"stat_change": "IQ", "delta": -1, "derived": True}]
    assert run.json("status Mira")["stat_changes"] == {"IQ": -1, "Will": -1, "Per": -1}
    rolls = [e for e in run.json("replay 1")["events"] if e["type"] == "RollMade"]
    assert [e["payload"]["inputs"]["base"] for e in rolls] == [11, 11]
    assert run.json("verify")["ok"] is True


def owed(run) -> list[int]:
    return [o["opened_version"] for o in run.json("obligations")["obligations"]]


def test_a_catastrophe_rolled_while_panicked_before_the_ruling_still_owes_its_check(run):
    """Logged when every catastrophe owed a check, panicked or not: Kade's catastrophes while
    panicked (a roll, event 7, and a contest, event 8) were owed until the check after the GM
    cleared the panic answered both (event 10, which names them), and the last one (event 12)
    is owed still. The panic answers none of them; a roll made now, while Kade is panicked,
    is logged under the new ruling and lets the panic answer the one still owed."""
    run.ok(["import", str(LOGS / "gloom-panicked-catastrophe.events.jsonl")])
    assert owed(run) == [12]
    replay = run.json("replay 1")["events"]
    check = next(e for e in replay if e["version"] == 10)
    assert check["payload"]["kind"] == "panic"
    assert "answering" not in check["payload"]["inputs"]
    assert [e["version"] for e in replay if "panic_answers" in json.dumps(e["payload"])] == []
    assert [c["name"] for c in run.json("status Kade")["conditions"]] == ["panicked"]
    rolled = run.json("roll Kade Hacking --dice 1,20")
    assert {o["how"] for o in rolled["obligations_discharged"]} == {
        "answered by the panic: Kade is panicked"
    }
    assert owed(run) == []
    assert run.json("verify")["ok"] is True


def test_a_catastrophe_rolled_while_panicked_now_is_answered_by_the_panic(run):
    """Gloom, 'Advantage and Disadvantage': "If you gain too much Stress and Panic, you gain
    Disadvantage." The same evening played now: a panicked character owes no further panic
    check (tracker/systems/gloom/RULINGS.md, 'Perfect success and catastrophe'), and the roll
    and the contest side rolled while panicked say they were logged so."""
    play(run, "gloom-panicked-catastrophe")
    assert owed(run) == []
    replay = run.json("replay 1")["events"]
    roll, contest = (e for e in replay if e["version"] in (7, 8))
    assert roll["payload"]["inputs"]["panic_answers"] is True
    assert contest["payload"]["a"]["inputs"]["panic_answers"] is True
    assert "panic_answers" not in contest["payload"]["b"]["inputs"]  # Juno is not panicked
    assert run.json("verify")["ok"] is True
