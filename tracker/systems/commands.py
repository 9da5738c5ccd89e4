"""Commands as data: what a command takes, declared once.

A ``Command`` names its path, its help (examples included), its ``Argument``s and its
``Option``s; a ``Setting`` names a campaign setting a rule system reads and the options that
give it. The command line is made from these (``tracker.cli.declared``), and so are Tab
completion, ``tracker shell`` and ``tracker/cli/COMMANDS.md``, which read the command line; a
form that asks for a roll can be made from the same values. They live beside the rule systems,
with no click in them, so that a system declares the options its rolls read
(``RuleSystem.roll_options``) and the values a command line gave reach it as one struct of
their own (``options_struct``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import msgspec

from tracker.errors import BadInput

Kind = Literal["int", "str", "bool", "choice", "difficulty", "file", "input", "system", "change"]
"""What an option or argument takes: a number, text, nothing (a flag), one of ``choices``, a
difficulty (a number, or a name of one the campaign's system has), the path of a file, the path
of a file that is there to be read (or ``-``, standard input), or the name of an installed rule
system."""


class Option(msgspec.Struct, frozen=True):
    """One option of a command as the command line takes it.

    ``complete`` names what Tab offers for its value ("characters", "traits", "conditions",
    "difficulties", "spend_kinds"; "traits:a" for the traits of the character given as the
    argument ``a``; any other name, what the campaign's system keeps of that kind, as
    ``Folding.named`` gives it); ``system`` the rule system that reads it, None for every
    system."""

    flag: str
    """The option as typed, with its dashes ("--push")."""
    help: str
    """What it does, in one sentence: its ``--help`` (after ``label``) and the forms' hint."""
    kind: Kind = "str"
    """What it takes (``Kind``): "str" unless said, "bool" for a flag that takes nothing."""
    dest: str | None = None
    """The name its value goes by, where not the flag's words (see ``name``)."""
    metavar: str | None = None
    """How ``--help`` shows its value ("N", "N,N..."); None: click's own."""
    multiple: bool = False
    """True: it may be given many times, and its value is a tuple of what was given (``()`` when not
    given); a form offers a box for each."""
    choices: tuple[str, ...] | None = None
    """The values it takes; of a number (``kind`` "int"), as their digits."""
    limits: tuple[int, int] | None = None
    """A number's lowest and highest (``kind`` "int")."""
    case_sensitive: bool = True
    """False: a choice is taken in any case ("leadership" for "Leadership")."""
    default: Any = None
    """Its value when not given (a flag's is False, or None with ``off``)."""
    required: bool = False
    """True: a command line without it is refused."""
    show_default: bool = False
    """True: ``--help`` says its default."""
    example: str | None = None
    """How it is given ("--dl hard"), flag included: a form's empty box shows the value as its
    placeholder ("e.g. hard")."""
    complete: str | None = None
    """What Tab offers for its value (see above); None: nothing."""
    system: str | None = None
    """The rule system that reads it, set by tracker from the system that declares it; leave it
    None."""
    short: str | None = None
    """A one-letter flag it also goes by ("-o"), as a command line spells it."""
    off: str | None = None
    """A flag's other form, which says no (``--no-cinematic``); with one, a flag given in
    neither form is None."""
    gm_only: bool = False
    """True: only the GM gives it (a roll kept from the players, an exception to the rules,
    seeded dice); a player's phone neither offers nor takes it."""
    picks: tuple[tuple[str, str], ...] = ()
    """Values a form offers to tap, each with its words (``("1:gear", "+1 gear")``): the
    declared choices of a repeatable option that also takes others at the command line."""
    label: str | None = None
    """What a form calls it, in the table's words ("the table's dice", "difficulty" for
    ``--dl``), and what its ``--help`` starts with; None where its flag's words read as well
    ("advantage" for ``--advantage``): no abbreviation, no "no ..." beside a box to tick. See
    ``shown``."""

    @property
    def shown(self) -> str:
        """Its name on a form: ``label``, else the words of its flag."""
        return self.label or self.flag.removeprefix("--").replace("-", " ")

    @property
    def name(self) -> str:
        """The name its value goes by: ``dest``, else the flag's words (``--no-panic``:
        ``no_panic``)."""
        return self.dest or self.flag.removeprefix("--").replace("-", "_")

    @property
    def is_flag(self) -> bool:
        """Whether it takes no value (``kind`` "bool")."""
        return self.kind == "bool"

    def empty(self) -> Any:
        """Its value when the command line does not give it."""
        if self.multiple:
            return ()
        if self.is_flag:
            return None if self.off else False
        return self.default


class Argument(msgspec.Struct, frozen=True):
    """One argument of a command: ``nargs`` -1 takes every word left."""

    name: str
    """Its name: the field of the command's request its value fills."""
    help: str = ""
    """What it is, for ``--help``."""
    kind: Kind = "str"
    """What it takes (``Kind``)."""
    metavar: str | None = None
    """How ``--help`` shows it; None: its name in capitals."""
    nargs: int = 1
    """How many words it takes: 1, or -1 for every word left (a tuple)."""
    required: bool = True
    """False: it may be left out, and is then ``default``."""
    default: Any = None
    """Its value when left out (``required`` False)."""
    choices: tuple[str, ...] | None = None
    """The values it takes, where only some are; None: any."""
    complete: str | None = None
    """What Tab offers for it, as ``Option.complete``."""
    example: str | None = None
    """A value it might take ("Ash"), as a reader of the declaration sees it."""
    parts: tuple[str, ...] = ()
    """Of one that takes every word left: what each word is, in order ("result",
    "consequence"), so that a form asks for each in a box of its own from the start; the first
    ones may be left out. Empty: as many as given, all alike."""
    label: str | None = None
    """What a form calls it, as ``Option.label``: "A's trait" for a contest's ``trait_a``."""
    limits: tuple[int, int] | None = None
    """A number's lowest and highest (``kind`` "int"), as ``Option.limits``."""

    @property
    def shown(self) -> str:
        """Its name on a form: ``label``, else its name's words."""
        return self.label or self.name.replace("_", " ")


class Command(msgspec.Struct, frozen=True):
    """A command: its words (``("threat", "spend")``), its help with examples, what it takes."""

    path: tuple[str, ...]
    """Its words on the command line: ("momentum", "spend") is ``tracker momentum spend``."""
    help: str
    """Its ``--help``: a first line that says what it does, then paragraphs, then a line of
    ``\\b`` alone and ``Example:`` with command lines."""
    arguments: tuple[Argument, ...] = ()
    """Its arguments, in order."""
    options: tuple[Option, ...] = ()
    """Its options, by flag (tracker adds ``--json`` to a system's command)."""
    short_help: str | None = None
    """Its line in the list of commands; None: the first line of ``help``."""
    negative: bool = False
    """Whether an argument may be a negative number (``-2``) rather than an option; so it may
    whenever one takes a number."""
    group_help: str | None = None
    """The help of the group its first word makes, when it has words after that (``tracker
    threat``: "Glintlock: the GM's Threat."); None: one made of the systems' titles and
    ``what``."""

    @property
    def name(self) -> str:
        """Its last word."""
        return self.path[-1]


def odds_option(
    flag: str,
    help: str,
    kind: type = int,
    *,
    is_flag: bool = False,
    choices: tuple[str, ...] | None = None,
    **settings: Any,
) -> Option:
    """An ``Option`` as ``tracker odds NAME`` declares it: a number unless it says otherwise."""
    named: Kind = "bool" if is_flag else "choice" if choices else "str" if kind is str else "int"
    return Option(flag, help, named, choices=choices, **settings)


_TYPES: dict[str, Any] = {
    "int": int | None,
    "str": str | None,
    "bool": bool,
    "choice": str | None,
    "difficulty": int | str,
    "file": str | None,
    "input": str | None,
    "system": str | None,
}


@functools.cache
def options_struct(name: str, options: tuple[Option, ...]) -> type[msgspec.Struct]:
    """A frozen struct with a field for each of ``options`` (the first of a name counting), at
    its value when not given: what a command's options came to, as one typed value."""
    fields: dict[str, tuple[str, Any, Any]] = {}
    for option in options:
        if option.name in fields:
            continue
        kind = _TYPES[option.kind]
        if option.off:
            kind = bool | None
        if option.multiple:
            kind = tuple[Any, ...]
        fields[option.name] = (option.name, kind, option.empty())
    return msgspec.defstruct(name, list(fields.values()), frozen=True)


def option_values(options: tuple[Option, ...], **values: Any) -> Any:
    """``values`` as the struct of ``options`` (``options_struct``); a sequence given to an
    option taken many times is kept as a tuple."""
    many = {o.name for o in options if o.multiple}
    return options_struct("Options", options)(
        **{k: tuple(v) if k in many else v for k, v in values.items()}
    )


def given(options: Sequence[Option], values: Any) -> list[Option]:
    """The options of ``options`` whose value in ``values`` (a struct) is not what it is when
    left out: those the command line gave."""
    return [o for o in options if hasattr(values, o.name) and getattr(values, o.name) != o.empty()]


NO_TABLE = ("rulebook", "none")
"""What a table setting takes in place of a file: the campaign has no table of its own."""


class Setting(msgspec.Struct, frozen=True):
    """A campaign setting a rule system reads: one its rulebook leaves to the GM.

    ``name`` is the name the log stores it under (``CampaignSettingsChanged.settings``; a
    system's own name is logged as tracker's are, any but ``catalog.RESERVED``), ``words`` how
    the GM reads it ("tie rule"). ``option`` sets it with ``campaign set``, ``new`` with ``campaign
    new`` (None: only ``campaign set`` takes it); each option's help is worded without the
    system's title, which the command adds. A value given is held to the option's choices and
    to ``limits`` (a number's lowest and highest), then to ``check``, which returns it as the
    system reads it or refuses it in one sentence saying what to do (``verify`` holds a logged
    value to the same, and to the option's kind: a flag's is true or false, a number's whole).
    A ``table`` is given as
    the path of a file (TOML or JSON), which is read for ``check``, or as a word of
    ``NO_TABLE`` (None: no table of its own). ``unset`` is how None reads, ``shown`` how any
    other value does (else "yes" or "no" for a flag, the value itself otherwise)."""

    name: str
    """The field of ``CampaignSettingsChanged`` the log stores it in (one of
    ``tracker.events.catalog.SETTINGS``)."""
    words: str
    """How the GM reads it ("tie rule")."""
    option: Option
    """Its option on ``campaign set``."""
    new: Option | None = None
    """Its option on ``campaign new``, the same flag; None: only ``campaign set`` takes it."""
    limits: tuple[int, int] | None = None
    """A number's lowest and highest."""
    table: bool = False
    """True: it is a table, given as a file (or a word of ``NO_TABLE``)."""
    check: Callable[[Any], Any] | None = None
    """(value) -> the value as the system reads it; raises ``BadInput`` in one sentence for one it
    cannot use. None: taken as given."""
    unset: str = "none"
    """How a value of None reads."""
    shown: Callable[[Any], str] | None = None
    """(value) -> how a value reads; None: "yes"/"no" for a flag, the value itself otherwise."""
    system: str | None = None
    """The rule system that reads it, set by tracker; leave it None."""
    created: Any = msgspec.UNSET
    """The value ``campaign new`` writes when the GM gives none, where the system's ruling for
    a new campaign is not the stored field's default (Glintlock: Threat carries over); UNSET:
    the field's default (a setting a creation has no field for: none is written, and the
    campaign reads it as None until one is set). The field's default stays what a stored
    creation without the setting meant."""

    def text(self, value: Any) -> str:
        """``value`` as the GM reads it."""
        if value is None:
            return self.unset
        if self.shown is not None:
            return self.shown(value)
        if isinstance(value, bool):
            return "yes" if value else "no"
        return str(value)

    def problem(self, value: Any) -> str | None:
        """Why ``value`` (not None) is not one the option takes, in one sentence; None when it
        is."""
        flag, choices = self.option.flag, self.option.choices
        # A command line and a form give each value as its kind; a value of another kind was
        # written into the log by hand, which stores a setting as whatever its JSON is.
        if self.option.kind == "bool" and type(value) is not bool:
            return f"{flag} is yes or no, not {value!r}; give one of those."
        if self.option.kind == "int" and type(value) is not int:
            return f"{flag} is a whole number, not {value!r}; give one."
        if choices is not None and value not in choices:
            *rest, last = choices
            listed = f"{', '.join(rest)} or {last}" if rest else last
            return f"{flag} must be {listed}; give one of those."
        if self.limits is not None:
            low, high = self.limits
            if type(value) is not int or not low <= value <= high:
                return f"{flag} is {low} to {high}, not {value}; give one from {low} to {high}."
        return None


# What one value sent by a form may hold: a form is typed by hand at the table, and a longer
# value (or list) is a mistake or an attack, refused before anything reads it.
LONGEST = 2000
MOST = 24


def taken(command: Command, values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` (by argument and option name, as a form or a JSON body sends them: text,
    numbers, true/false, lists) as ``command`` declares them, what the command line's parser
    makes of its words: every argument and option by name, each of its kind, those not given
    at their value when left out. A name it does not declare, a required one missing or a
    value of the wrong kind is refused with one sentence (``BadInput``)."""
    said = " ".join(command.path)
    known: dict[str, Argument | Option] = {a.name: a for a in command.arguments}
    for option in command.options:
        known.setdefault(option.name, option)
    strange = sorted(set(values) - set(known))
    if strange:
        raise BadInput(f"{said} takes no {strange[0][:40]!r}; leave it out.")
    out: dict[str, Any] = {}
    for name, part in known.items():
        many = part.multiple if isinstance(part, Option) else part.nargs == -1
        value = values.get(name)
        if value is None or value == "" or value == []:
            if part.required and not (isinstance(part, Argument) and part.nargs == -1):
                raise BadInput(f"{said} needs {name.replace('_', ' ')}.")
            if isinstance(part, Option):
                out[name] = part.empty()
            else:
                out[name] = () if many else part.default
            continue
        if many:
            given = value if isinstance(value, list) else [value]
            if len(given) > MOST:
                raise BadInput(f"{said} takes at most {MOST} values of {name}.")
            if isinstance(part, Argument) and part.parts:
                # Words in their places: only the leading ones may be left out, so "freezes"
                # with no consequence stays a result with an empty consequence, refused as one.
                while given and given[0] in ("", None):
                    given = given[1:]
                out[name] = tuple(_one(said, part, "" if v is None else v) for v in given)
                continue
            out[name] = tuple(_one(said, part, v) for v in given if v not in ("", None))
        else:
            out[name] = _one(said, part, value)
    return out


def signed_change(value: Any, what: str) -> int:
    """A change of a track given as +N or -N (a bare N adds), as every front door reads one
    (``kind`` "change": the command line's type and a form's value alike); ``what`` is the
    change's name ("stress change") in the one sentence that refuses anything else."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and _is_number(value):
        return int(value)
    raise BadInput(f"Give the {what} as +N or -N, not {str(value)[:20]!r}.")


def _one(said: str, part: Argument | Option, value: Any) -> Any:
    """One value of ``part`` as its kind takes it."""
    kind, name = part.kind, part.name.replace("_", " ")
    if kind == "change":
        return signed_change(value, part.shown)
    if isinstance(value, str) and len(value) > LONGEST:
        raise BadInput(f"{said}: {name} is longer than {LONGEST} characters.")
    if kind in ("file", "input"):
        # A form comes over the network: no page may have the server read a file of its own.
        raise BadInput(f"{said}: {name} names a file; give it at the command line.")
    if kind == "bool":
        if isinstance(value, bool):
            return value
        if value in ("true", "on", "1"):
            return True
        if value in ("false", "off", "0"):
            return False
        raise BadInput(f"{said}: {name} is on or off.")
    if kind == "int" or (kind == "difficulty" and _is_number(value)):
        if isinstance(value, bool) or not _is_number(value):
            raise BadInput(f"{said}: {name} takes a whole number, not {str(value)[:20]!r}.")
        number = int(value)
        if part.choices is not None and str(number) not in part.choices:
            raise BadInput(f"{said}: {name} is one of {', '.join(part.choices)}.")
        low, high = getattr(part, "limits", None) or (number, number)
        if not low <= number <= high:
            raise BadInput(f"{said}: {name} is {low} to {high}, not {number}.")
        return number
    if not isinstance(value, str):
        raise BadInput(f"{said}: {name} takes text.")
    if kind == "difficulty":
        return difficulty(value)
    if kind == "choice":
        sensitive = getattr(part, "case_sensitive", True)
        for choice in part.choices or ():
            if choice == value or (not sensitive and choice.casefold() == value.casefold()):
                return choice
        raise BadInput(f"{said}: {name} is one of {', '.join(part.choices or ())}.")
    return value


def difficulty(value: int | str) -> int | str:
    """A difficulty as every front door reads it (``kind`` "difficulty": the command line's type
    and a form's value alike): a whole number, else the name of one the system reads ("hard"),
    in lower case."""
    if _is_number(value):
        return int(value)
    return str(value).strip().casefold()


def _is_number(value: Any) -> bool:
    if isinstance(value, int) and not isinstance(value, bool):
        return True
    text = value.strip() if isinstance(value, str) else ""
    # One sign at most, and ASCII digits: "²" is a digit to isdigit, not to int.
    digits = text[1:] if text[:1] in ("+", "-") else text
    return digits.isascii() and digits.isdigit() and len(text) < 12
