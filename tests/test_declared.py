"""Commands declared as data: the values a declaration gives, and the click command made of it."""

from __future__ import annotations

import msgspec

from tracker.systems.commands import Option, given, odds_option, options_struct


def test_an_option_is_named_by_its_dest_or_its_flag():
    assert Option("--no-panic", "x", "bool").name == "no_panic"
    assert Option("--mod", "x", multiple=True, dest="mods").name == "mods"


def test_the_struct_of_options_holds_each_at_its_value_when_left_out():
    options = (
        Option("--mod", "x", multiple=True, dest="mods"),
        Option("--dl", "x", "difficulty", default=0),
        Option("--danger", "x", "bool"),
        Option("--task", "x"),
    )
    made = options_struct("Asked", options)
    empty = made()
    assert (empty.mods, empty.dl, empty.danger, empty.task) == ((), 0, False, None)
    assert options_struct("Asked", options) is made  # one type per declaration
    asked = made(mods=("-2",), task="lock")
    assert [o.name for o in given(options, asked)] == ["mods", "task"]
    try:
        asked.task = "other"  # type: ignore[misc]
    except AttributeError:
        pass
    else:
        raise AssertionError("the options a command was given are frozen")
    assert msgspec.structs.asdict(asked)["mods"] == ("-2",)


def test_an_odds_option_is_a_number_unless_it_says_otherwise():
    assert odds_option("--rank", "x", required=True).kind == "int"
    assert odds_option("--dl", "x", kind=str).kind == "str"
    assert odds_option("--dynamic", "x", is_flag=True).kind == "bool"
    assert odds_option("--tie-rule", "x", kind=str, choices=("stat",)).kind == "choice"
