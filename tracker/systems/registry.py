"""The registry of rule systems: every system installed, found through one entry-point group.

A package adds a rule system by declaring, in its ``pyproject.toml``::

    [project.entry-points."tracker.systems"]
    coin = "tracker_coin:Coin"

naming a ``RuleSystem`` subclass (or instance) whose ``name`` is the entry point's name.
tracker's own three systems are declared the same way in tracker's ``pyproject.toml``: nothing
here knows their names. A system is imported the first time a campaign or a command asks for it;
what it does beyond what it declares may be imported later still (``base.later``).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from importlib import import_module
from typing import Any, NamedTuple

import msgspec

from tracker.errors import BadInput, Refused, TrackerError
from tracker.events import catalog
from tracker.systems.acts import SystemCommand
from tracker.systems.base import ContestRequest, RollKind, RollRequest, RuleSystem, request_of
from tracker.systems.capabilities import OwnCommands, OwnSettings, RollKinds, able
from tracker.systems.commands import Command, Option, Setting

GROUP = "tracker.systems"
# A campaign stores its system's name in a column this wide; a name is one lower-case word.
NAME_PATTERN = re.compile(r"[a-z][a-z0-9_-]{0,15}")


class EntryPoint(NamedTuple):
    """One ``name = module:attribute`` line of the group."""

    name: str
    value: str

    def load(self) -> Any:
        module, _, attribute = self.value.partition(":")
        found: Any = import_module(module.strip())
        for part in filter(None, attribute.strip().split(".")):
            found = getattr(found, part)
        return found


_found: dict[str, EntryPoint] | None = None
_loaded: dict[str, RuleSystem] = {}


class UnknownSystem(Refused):
    """A campaign or a command names a rule system that is not installed."""


class BrokenSystem(TrackerError):
    """An installed rule system cannot be loaded."""


def _entry_points() -> dict[str, EntryPoint]:
    global _found
    if _found is None:
        _found = _declared()
        if not _found:
            raise BrokenSystem(
                "No rule system is installed, not even tracker's own (they are found through "
                "the package's metadata); reinstall tracker, with `pip install -e .` in a "
                "checkout."
            )
    return _found


def _declared() -> dict[str, EntryPoint]:
    """The group's entry points, read from the ``entry_points.txt`` of every distribution on the
    path as ``importlib.metadata`` finds them: path order, each folder's distributions in the
    order it lists them, the first distribution of a name counting, the first entry point of a
    name winning.

    Read by hand because importing ``importlib.metadata`` (which brings the email package with
    it) took longer than the rest of a one-shot command's own imports. Where the path holds what
    this reading does not follow (a zipped entry, another finder of distributions), it goes the
    standard way."""
    if any(os.path.isfile(entry) for entry in sys.path if entry) or any(
        hasattr(finder, "find_distributions") and finder.__name__ != "PathFinder"
        for finder in map(_finder_class, sys.meta_path)
    ):
        from importlib.metadata import entry_points

        found: dict[str, EntryPoint] = {}
        for point in entry_points(group=GROUP):
            found.setdefault(point.name, EntryPoint(point.name, point.value))
        return found
    found = {}
    distributions: set[str] = set()
    for entry in sys.path:
        for distribution, info in _infos(entry or "."):
            if distribution in distributions:
                continue
            distributions.add(distribution)
            for name, value in _group_lines(os.path.join(info, "entry_points.txt")):
                found.setdefault(name, EntryPoint(name, value))
    return found


def _finder_class(finder: Any) -> type:
    return finder if isinstance(finder, type) else type(finder)


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _infos(folder: str) -> list[tuple[str, str]]:
    """The metadata folders of the distributions in one path entry, by normalized name: each
    ``*.dist-info`` and ``*.egg-info`` (any case), grouped by name in the order the folder lists
    them, then an unpacked egg's ``EGG-INFO`` when the entry is the egg."""
    try:
        children = os.listdir(folder)
    except OSError:  # a path entry that does not exist, or cannot be listed
        return []
    infos: dict[str, list[str]] = {}
    eggs: list[tuple[str, str]] = []
    base = os.path.basename(folder).lower()
    for child in children:
        low = child.lower()
        if low.endswith((".dist-info", ".egg-info")):
            name = _normalized(low.rpartition(".")[0].partition("-")[0])
            infos.setdefault(name, []).append(os.path.join(folder, child))
        elif base.endswith(".egg") and low == "egg-info":
            name = _normalized(base.rpartition(".")[0].partition("-")[0])
            eggs.append((name, os.path.join(folder, child)))
    return [(name, path) for name, paths in infos.items() for path in paths] + eggs


def _group_lines(path: str) -> list[tuple[str, str]]:
    """The ``name = value`` lines of the group's section in one ``entry_points.txt``."""
    try:
        with open(path, encoding="utf-8") as text:
            lines = text.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    section = None
    found = []
    for line in lines:
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif section == GROUP and "=" in line:
            name, _, value = line.partition("=")
            # An entry point may name extras after the object ("mod:Obj [extra]").
            found.append((name.strip(), value.split("[")[0].strip()))
    return found


def refresh() -> None:
    """Forget what was found, so systems installed (or removed) since are seen."""
    global _found, _said, _generation
    _found = None
    _said = None
    _loaded.clear()
    _generation += 1


_generation = 0


def generation() -> int:
    """How many times what was found has been forgotten (``refresh``): what is worked out
    from the installed systems and kept may be kept under it."""
    return _generation


def get(name: str) -> RuleSystem:
    """The rule system called ``name``; one sentence when it is not installed."""
    system = _loaded.get(name)
    if system is not None:
        return system
    point = _entry_points().get(name)
    if point is None:
        raise UnknownSystem(
            f'This campaign plays "{name}", a rule system that is not installed here; install '
            "the package that provides it, or choose another campaign with "
            "`tracker campaign use NAME`."
        )
    try:
        found = point.load()
        system = found() if isinstance(found, type) else found
    except Exception as exc:  # a plugin's own failure, reported as a sentence
        raise BrokenSystem(
            f'The rule system "{name}" could not be loaded ({type(exc).__name__}: {exc}); '
            "reinstall the package that provides it."
        ) from exc
    if not isinstance(system, RuleSystem) or system.name != name:
        raise BrokenSystem(
            f'The entry point "{name}" in {GROUP} is not a rule system of that name; '
            "reinstall the package that provides it."
        )
    if not NAME_PATTERN.fullmatch(name):
        raise BrokenSystem(
            f'The rule system "{name}" has a name tracker cannot store (one lower-case word of '
            "at most 16 letters, digits, - or _); ask its makers for another."
        )
    _loaded[name] = system
    return system


def systems() -> list[RuleSystem]:
    """Every installed rule system that loads, in their listing order. One that does not load is
    left out here (a campaign that plays it is told why when it asks for it): a broken plugin
    does not take the others down with it."""
    found = []
    for name in _entry_points():
        try:
            found.append(get(name))
        except BrokenSystem:
            continue
    return sorted(found, key=_listing)


# tracker's own systems, in the order the documentation has always taught them.
_OWN = ("gloom", "gurps", "glintlock")


def _listing(system: RuleSystem) -> tuple[int, str]:
    """Where ``system`` is listed: tracker's own first, in their order, then the others by
    name."""
    at = _OWN.index(system.name) if built_in(system) and system.name in _OWN else len(_OWN)
    return at, system.name


def names() -> list[str]:
    """The names of every installed rule system, in their listing order."""
    return [system.name for system in systems()]


def titles_with(feature: str | Callable[[RuleSystem], bool]) -> str:
    """The systems that have ``feature`` (or of which it holds), as a sentence says them
    ("Gloom and Glintlock")."""
    has = feature if callable(feature) else (lambda system: system.has(feature))
    titles = [system.title for system in systems() if has(system)]
    if len(titles) <= 1:
        return "".join(titles) or "no installed system's"
    return ", ".join(titles[:-1]) + " and " + titles[-1]


def require(
    system: RuleSystem,
    feature: str | Callable[[RuleSystem], bool],
    what: str,
    verb: str = "is",
) -> None:
    """Refuse ``what`` when ``system`` lacks ``feature`` (or it does not hold of it), naming
    the systems that have it: "Threat is a Glintlock rule and this campaign plays gloom;
    switch to ..." """
    has = feature if callable(feature) else (lambda s: s.has(feature))
    if not has(system):
        titles = titles_with(has)
        if not any(has(s) for s in systems()):
            raise Refused(
                f"{what} {verb} a rule no installed system has and this campaign plays "
                f"{system.name}; install a rule system that has it, or leave it out."
            )
        elsewhere = titles.replace(" and ", " or ")
        raise Refused(
            f"{what} {verb} a {titles} rule and this campaign plays {system.name}; switch to a "
            f"{elsewhere} campaign with `tracker campaign use NAME`, or give --campaign NAME."
        )


def roll_kind(system: RuleSystem, kind: str) -> RollKind:
    """``system``'s roll of ``kind``; refused, naming the systems that have one, when it has
    none."""
    own = able(system, RollKinds).roll_kinds.get(kind)
    if own is None:

        def kinds(s: RuleSystem) -> Mapping[str, RollKind]:
            return able(s, RollKinds).roll_kinds

        what = next((kinds(s)[kind].what for s in systems() if kind in kinds(s)), None)
        require(system, lambda s: kind in kinds(s), what or f"A {kind} roll")
        raise AssertionError("unreachable")  # require refused
    return own


def commands_at(
    path: tuple[str, ...], given: Mapping[str, Any] | None = None
) -> list[SystemCommand]:
    """Every installed system's command at ``path`` on the command line, of the kind ``given``
    (the arguments and options by name) chooses (``SystemCommand.chosen_by``)."""
    chosen = _chosen(path, given or {})
    return [c for system in systems() for c in able(system, OwnCommands).commands if chosen(c)]


def command(
    system: RuleSystem, path: tuple[str, ...], given: Mapping[str, Any] | None = None
) -> SystemCommand:
    """``system``'s command at ``path`` of the kind ``given`` chooses; refused, naming the
    systems that have one, when it has none."""
    chosen = _chosen(path, given or {})
    own = next((c for c in able(system, OwnCommands).commands if chosen(c)), None)
    if own is None:
        others = commands_at(path, given)
        what, verb = (others[0].what, others[0].verb) if others else (" ".join(path), "is")
        require(system, lambda s: any(chosen(c) for c in able(s, OwnCommands).commands), what, verb)
        raise AssertionError("unreachable")  # require refused
    return own


_said: dict[type, Callable[[Any, str], str]] | None = None


def words_for(event_type: type) -> Callable[[Any, str], str] | None:
    """How the installed system that owns ``event_type`` says an event of it in a line of the
    log (``OwnCommands.event_words``): given the event and whom it is about."""
    global _said
    if _said is None:
        _said = {}
        for system in systems():
            _said.update(able(system, OwnCommands).event_words)
    return _said.get(event_type)


def _every_system_whole() -> None:
    """Every installed system loaded with all it does (``RuleSystem.load``): its modules
    register the event types and effects it owns."""
    for system in systems():
        system.load()


# A stored event of a type no system loaded so far registered: load them all, and ask again.
catalog.discover = _every_system_whole


def declared(what: str) -> tuple[Option, ...]:
    """The options every installed system declares as ``what`` ("roll_options",
    "contest_options"), each marked with the system that reads it, in the systems' order: the
    options ``tracker roll`` and ``tracker contest`` take beyond their own."""
    return tuple(
        msgspec.structs.replace(o, system=s.name) for s in systems() for o in getattr(s, what, ())
    )


def settings() -> tuple[Setting, ...]:
    """The campaign settings every installed system reads, each (and its options) marked with
    that system, in the systems' order."""
    found = []
    for s in systems():
        for setting in able(s, OwnSettings).settings:
            marked = {"system": s.name, "dest": setting.name}
            found.append(
                msgspec.structs.replace(
                    setting,
                    system=s.name,
                    option=msgspec.structs.replace(setting.option, **marked),
                    new=None
                    if setting.new is None
                    else msgspec.structs.replace(setting.new, **marked),
                )
            )
    return tuple(found)


def campaign_settings() -> tuple[Setting, ...]:
    """The campaign settings of every installed system (``settings``), each name once (the
    first system to declare it gives its options), as ``campaign new`` and ``campaign set``
    take them: those a creation stores first, in its order (``catalog.CREATED``), then the
    others in the systems' order, as the commands have always listed them."""
    found: dict[str, Setting] = {}
    for setting in settings():
        found.setdefault(setting.name, setting)
    created = {name: at for at, name in enumerate(catalog.CREATED)}
    return tuple(sorted(found.values(), key=lambda s: created.get(s.name, len(created))))


def with_options(
    command: Command,
    what: str | Iterable[Option],
    before: str | None,
    system: RuleSystem | None = None,
) -> Command:
    """``command`` with the options every installed system (or ``system`` alone) declares as
    ``what`` ("roll_options"), or with the options ``what`` lists, each marked with the system
    that reads it, put before its option ``before`` (None: after the last); each one's help says
    whose it is ("GURPS: a modifier.") unless it names its system already, and of those of one
    name the first counts. What a command line takes, and what a form of the campaign's system
    offers."""
    theirs: dict[str, Option] = {}
    if isinstance(what, str):
        options = declared_by(system, what) if system is not None else declared(what)
    else:
        options = tuple(what)
    for option in options:
        title = get(option.system or "").title
        worded = option.help if option.help.startswith(title) else f"{title}: {option.help}"
        theirs.setdefault(option.name, msgspec.structs.replace(option, help=worded))
    own = command.options
    at = next((i for i, o in enumerate(own) if o.flag == before), len(own))
    whole = (*own[:at], *theirs.values(), *own[at:])
    return msgspec.structs.replace(command, options=whole)


def declared_by(system: RuleSystem, what: str) -> tuple[Option, ...]:
    """The options ``system`` declares as ``what``, each marked with the system."""
    return tuple(msgspec.structs.replace(o, system=system.name) for o in getattr(system, what, ()))


def readers(what: str, name: str) -> list[str]:
    """The titles of the systems that declare an option called ``name`` as ``what``."""
    return [s.title for s in systems() if any(o.name == name for o in getattr(s, what, ()))]


def not_theirs(flag: str, owners: list[str], system: RuleSystem, path: tuple[str, ...]) -> BadInput:
    """The refusal of an option ``flag`` that the systems titled ``owners`` read and the
    campaign's ``system`` does not, given to the command at ``path``: one sentence naming whose
    it is, so the GM sees it was not a typo but another system's word."""
    whose = " and ".join(f"{title}'s" for title in owners) or "no installed system's"
    return BadInput(
        f"{flag} is {whose} option; this campaign plays {system.title}, so leave it out "
        f"(see `tracker {' '.join(path)} --help`)."
    )


def refuse_others(system: RuleSystem, path: tuple[str, ...], given: Mapping[str, Any]) -> None:
    """Refuse a value in ``given`` (by name) for an option no command of ``system`` at ``path``
    takes and another installed system's does (``--to`` of GURPS's buy-up in a Glintlock
    campaign's ``tracker spend``): a command line declared by several systems parses them all,
    and a value its system's request has no field for would be dropped unsaid."""

    def takes(s: RuleSystem, name: str) -> bool:
        return any(
            c.path == path and name in c.request.__struct_fields__
            for c in able(s, OwnCommands).commands
        )

    if not any(c.path == path for c in able(system, OwnCommands).commands):
        return  # a command the system has none of is refused as such (``command``)
    # Its options alone: an argument (the spend's action) is every system's, read or not.
    flags = {
        o.name: o.flag
        for _, c in command_lines()
        if c.path == path and c.declared is not None
        for o in c.declared.options
    }
    for name, value in given.items():
        if name not in flags or value in (None, False, (), "") or takes(system, name):
            continue
        owners = [s.title for s in systems() if takes(s, name)]
        if owners:
            raise not_theirs(flags[name], owners, system, path)


def roll_request(trait: str, **values: Any) -> RollRequest:
    """A roll of ``trait`` as a command line gives it: ``RollRequest``'s own fields, and the
    options of any installed system (which the campaign's system must read)."""
    return request_of(RollRequest, declared("roll_options"), {"trait": trait, **values})


def contest_request(**values: Any) -> ContestRequest:
    """A contest as a command line gives it (``roll_request``)."""
    return request_of(ContestRequest, declared("contest_options"), values)


def _chosen(path: tuple[str, ...], given: Mapping[str, Any]) -> Callable[[SystemCommand], bool]:
    """Whether a command is of the kind at ``path`` that ``given`` chooses: one whose
    ``chosen_by`` names the value given, where any installed command does; else one that
    names none."""

    def names(c: SystemCommand) -> bool:
        return c.chosen_by is not None and given.get(c.chosen_by[0]) in c.chosen_by[1]

    at = [c for system in systems() for c in able(system, OwnCommands).commands if c.path == path]
    named = any(names(c) for c in at)
    return lambda c: c.path == path and (names(c) if named else c.chosen_by is None)


def built_in(system: RuleSystem) -> bool:
    """Whether ``system`` is one of tracker's own (a module of the ``tracker`` package), not
    an outside package's: the command reference tracker ships names only what every
    installation has."""
    return type(system).__module__.partition(".")[0] == "tracker"


def command_lines() -> list[tuple[RuleSystem, SystemCommand]]:
    """Every installed system's commands that declare a command line of their own
    (``SystemCommand.declared``), with the system of each, in the systems' order."""
    return [
        (s, c) for s in systems() for c in able(s, OwnCommands).commands if c.declared is not None
    ]
