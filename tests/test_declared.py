"""Commands declared as data: the values a declaration gives, and the click command made of it."""

from __future__ import annotations

import click
import msgspec
import pytest

from tracker.app.actions import declarations
from tracker.cli.declared import click_option
from tracker.errors import BadInput
from tracker.systems import registry
from tracker.systems.commands import (
    Argument,
    Command,
    Option,
    given,
    odds_option,
    options_struct,
    taken,
)


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


def test_a_number_within_limits_is_held_to_them_by_the_command_line_and_a_form_alike():
    run_up = Option("--run-up", "x", "int", default=0, limits=(0, 100))
    made = click_option(run_up)
    assert isinstance(made.type, click.IntRange)
    assert (made.type.min, made.type.max) == (0, 100)
    show = Command(("character", "show"), "x", options=(run_up,))
    assert taken(show, {"run_up": "4"}) == {"run_up": 4}
    with pytest.raises(BadInput, match="0 to 100, not 101"):
        taken(show, {"run_up": 101})


def test_a_systems_declared_command_is_on_the_command_line_unless_tracker_has_the_word(
    run, monkeypatch
):
    """A command a system declares (``SystemCommand.declared``) is made from its declaration
    when asked for; a word tracker has a command for stays tracker's."""
    from tracker.cli import cli, known
    from tracker.systems import registry
    from tracker.systems.acts import SystemCommand
    from tracker.systems.commands import Argument, Command

    class Omen(msgspec.Struct, frozen=True):
        sign: str
        note: str | None = None

    def declared(path: tuple[str, ...], help: str) -> SystemCommand:
        command = Command(
            path, help, arguments=(Argument("sign"),), options=(Option("--note", "Why."),)
        )
        return SystemCommand(path, Omen, lambda *_: None, "Omens", declared=command)

    glintlock = registry.get("glintlock")
    theirs = [
        (
            glintlock,
            declared(("omen", "read"), "Read an omen.\n\n\b\nExample:\n  tracker omen read crow"),
        ),
        (glintlock, declared(("condition", "read"), "Not tracker's.")),
    ]
    monkeypatch.setattr(registry, "command_lines", lambda: theirs)
    listed = run.ok("--help").stdout
    assert "omen" in listed
    assert known("omen")
    assert "omen read [OPTIONS] SIGN" in run.ok("omen read --help").stdout
    assert "read" not in run.ok("condition --help").stdout  # tracker's own group, as it was
    run.ok("campaign new Ashes --system glintlock")
    refused = run("omen read crow")
    assert refused.exit_code == 1
    assert "omen read is a rule no installed system has" in refused.stderr
    assert "omen" not in cli.commands  # made for the line, not kept


def test_a_file_to_read_is_one_that_is_there_or_standard_input_and_never_from_a_form():
    from tracker.cli.declared import click_argument
    from tracker.systems.commands import Argument

    made = click_argument(Argument("file", kind="input"))
    assert isinstance(made.type, click.Path)
    assert (made.type.exists, made.type.allow_dash, made.type.dir_okay) == (True, True, False)
    imported = Command(("import",), "x", arguments=(Argument("file", kind="input"),))
    with pytest.raises(BadInput, match="names a file"):
        taken(imported, {"file": "/etc/passwd"})


# The command line's short forms, which no one at the table says: a form names its fields in
# words ("difficulty", not "dl").
ABBREVIATIONS = {"dl", "mod", "mods", "vs", "tl", "pct", "num", "max", "min", "dmg", "cfg"}


def _unsaid(shown: str) -> str | None:
    """Why a form's name for an option is not the table's words, or None when it is."""
    words = shown.split()
    if words[0].casefold() in ("no", "not"):
        return "starts with a negation that reads oddly beside a box to tick"
    short = [w for w in words if w.casefold() in ABBREVIATIONS]
    if short:
        return f"holds the abbreviation {short[0]!r}"
    if len(words[-1]) == 1 and words[-1].islower():
        return f"ends in a side's letter as the flag spells it ({words[-1]!r}; say \"A's dice\")"
    return None


@pytest.mark.parametrize("system", registry.names())
def test_every_field_a_form_offers_is_named_in_the_tables_words(system):
    """The console and the phone name each field by its ``shown``: a label in the table's
    words, else the words of its flag or name, which only some are."""
    rules = registry.get(system)
    unsaid = [
        f"`{' '.join(command.path)} {said}` shows as {field.shown!r}, which {why}"
        for command in declarations(rules)
        for field, said in [
            *((a, a.name.upper()) for a in command.arguments),
            *((o, o.flag) for o in command.options),
        ]
        if (why := _unsaid(field.shown)) is not None
    ]
    assert not unsaid, (
        f"A {rules.title} form names a field in the command line's words, not the table's: "
        + "; ".join(unsaid)
        + ". Give each Option or Argument a label a player understands"
        + ' (--dl: label="difficulty").'
    )


def test_the_check_of_a_forms_words_refuses_what_the_command_line_says():
    said = [
        _unsaid(Option(flag, "x").shown) for flag in ("--dl", "--mod", "--dice-a", "--no-panic")
    ]
    assert None not in said
    assert _unsaid(Option("--dl", "x", label="difficulty").shown) is None
    assert _unsaid(Option("--dice-a", "x", label="the table's dice for A").shown) is None
    assert _unsaid(Argument("trait_a").shown) is not None
    assert _unsaid(Argument("trait_a", label="A's trait or score").shown) is None


@pytest.mark.parametrize(
    ("system", "name", "shown"),
    [
        ("gloom", "dl", "e.g. hard"),
        ("gurps", "mods", "e.g. -2:darkness"),
        ("glintlock", "tags", "e.g. 1:gear"),
    ],
)
def test_an_empty_box_shows_its_declared_example_as_the_table_says_it(system, name, shown):
    """A form's box shows a value as a player would give it, not the command line's
    ``N|NAME`` or ``N[:LABEL]``."""
    from tracker.app.actions import declaration
    from tracker.app.declared import ROLL
    from tracker.web.console import _form

    form = _form(declaration(registry.get(system), ROLL.path))
    option = next(o for o in form["options"] if o["name"] == name)
    assert option["placeholder"] == shown
