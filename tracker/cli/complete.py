"""Completion by position: what fits where the cursor stands, read from the command line itself.

Each argument that names something in the campaign says how to complete it (``shell_complete``
on the argument: characters, a character's traits, spend kinds, campaigns); choices and option
names come from click. ``tracker shell``'s Tab asks click for the completions of the line so far,
so the shell and the terminal offer the same words in the same places.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import click

from tracker.systems.capabilities import Currencies, RollKinds, SheetRules, able

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem

# Imported by every command module, so that each argument can name its completion: click's
# completion machinery is loaded only when a completion is asked for, never for a roll.
Completions = Callable[[click.Context, click.Parameter, str], "list[CompletionItem]"]


def _tracker(ctx: click.Context, said: Mapping[str, str] | None = None) -> Any:
    """The tracker the line runs against: the shell's own, else the database the line names
    (before the command or after it), opened only when it is a database of this tracker's
    schema as it stands: completing never makes, upgrades or takes over a file."""
    root = ctx.find_root()
    obj = root.obj if isinstance(root.obj, dict) else {}
    if obj.get("tracker") is not None:
        return obj["tracker"]
    from tracker.app.where import current

    # ``said``: what the line gave that click has not read yet (``campaign_system``).
    params = {**ctx.params, **(said or {})}
    db = params.get("db_override") or root.params.get("db") or obj.get("db")
    if not current(db):
        return None
    from tracker.app import Tracker

    campaign = params.get("campaign_override") or root.params.get("campaign")
    tracker = Tracker(db, campaign or obj.get("campaign"))
    root.obj = {**obj, "tracker": tracker}
    return tracker


def campaign_system(ctx: click.Context) -> str | None:
    """The rule system of the campaign the line runs against (the shell's, or the one
    ``--db`` and ``--campaign`` name, before the command or after it); None when there is none
    to read: no database, an empty one, one of another schema, no campaign chosen. Like a Tab,
    a help page never makes, upgrades or takes over a file; a SQLite file is read from its
    rows alone (``where.campaign_system``), without opening a store."""
    given = ctx.meta.get(ARGS, [])
    said = {
        name: given[given.index(flag) + 1]
        for flag, name in (("--db", "db_override"), ("--campaign", "campaign_override"))
        if ctx.params.get(name) is None and flag in given[:-1]
    }
    root = ctx.find_root()
    obj = root.obj if isinstance(root.obj, dict) else {}
    params = {**ctx.params, **said}
    db = params.get("db_override") or root.params.get("db") or obj.get("db")
    try:
        if obj.get("tracker") is None and not (db and "://" in db and "sqlite:" not in db):
            from tracker.app.where import campaign_system as of_file

            campaign = params.get("campaign_override") or root.params.get("campaign")
            return of_file(db, campaign or obj.get("campaign"))
        tracker = _tracker(ctx, said)
        return None if tracker is None else str(tracker.campaign().system)
    except Exception:
        return None


ARGS = "tracker.args"
"""Where a command that reads its campaign for its help keeps the words of its line
(``ctx.meta``): click reads ``--help`` before the options given beside it."""


def _state(ctx: click.Context) -> Any:
    # A completion that cannot be worked out offers nothing; it never prints an error mid-line.
    try:
        tracker = _tracker(ctx)
        if tracker is None:
            return None
        with tracker.loader.snapshots_paused():  # a Tab only reads
            return tracker.state()
    except Exception:
        return None


def _matching(words: Iterable[str], incomplete: str) -> list[CompletionItem]:
    from click.shell_completion import CompletionItem

    wanted = incomplete.casefold()
    return [CompletionItem(w) for w in words if w.casefold().startswith(wanted)]


def _character(state: Any, named: str | None) -> Any:
    """The character the line named, as a command would find it (in any case, or by the
    start of one name); None when it names none, or the start of several."""
    if state is None or not named:
        return None
    from tracker.app.names import one_named
    from tracker.errors import Refused

    try:
        found = one_named(named, [c.name for c in state.characters.values()], "characters")
    except Refused:
        return None
    return None if found is None else state.character(found)


def characters(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """The campaign's characters."""
    state = _state(ctx)
    names = [] if state is None else [c.name for c in state.characters.values()]
    return _matching(sorted(names, key=str.casefold), incomplete)


def traits_of(argument: str) -> Completions:
    """The traits the character the line named in ``argument`` may roll, as her system says
    (``SheetRules.rollable``)."""

    def complete(ctx: click.Context, param: click.Parameter, incomplete: str):
        state = _state(ctx)
        character = _character(state, ctx.params.get(argument))
        if state is None or character is None:
            return []
        return _matching(able(state.rules, SheetRules).rollable(character), incomplete)

    return complete


def conditions_of(argument: str) -> Completions:
    """The conditions the character named in ``argument`` has now."""

    def complete(ctx: click.Context, param: click.Parameter, incomplete: str):
        character = _character(_state(ctx), ctx.params.get(argument))
        return [] if character is None else _matching(character.conditions, incomplete)

    return complete


def spend_kinds(
    ctx: click.Context, param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    """What the campaign's rule system lets a character spend on."""
    state = _state(ctx)
    return [] if state is None else _matching(able(state.rules, Currencies).spend_kinds, incomplete)


def campaigns(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """The campaigns in the database."""
    try:
        tracker = _tracker(ctx)
        names = [] if tracker is None else [c.name for c in tracker.store.campaigns()]
    except Exception:
        names = []
    return _matching(names, incomplete)


def named(kind: str) -> Completions:
    """What the campaign's rule system keeps under ``kind`` (``Folding.named``: GURPS's
    projects)."""

    def complete(
        ctx: click.Context, param: click.Parameter, incomplete: str
    ) -> list[CompletionItem]:
        state = _state(ctx)
        names = [] if state is None else state.rules.folding.named(state, kind)
        return _matching(names, incomplete)

    return complete


def difficulties(
    ctx: click.Context, param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    """The difficulties the campaign's rule system names (Gloom: routine ... impossible)."""
    state = _state(ctx)
    return [] if state is None else _matching(able(state.rules, RollKinds).difficulties, incomplete)


class SystemOptions(click.Command):
    """A command some of whose options only one rule system reads (``--tag`` is Glintlock's,
    ``--dl`` Gloom's, ``--mod`` GURPS's). ``reads`` names the list each system declares of
    them (``settings``), or gives the names of the systems reading each option (a command made
    from declarations, whose options say which system reads them): after a dash, Tab offers
    the campaign's own and the ones every system takes, never another system's, which the
    command would refuse. Without a campaign to read, it offers them all."""

    def __init__(
        self,
        *args: Any,
        reads: str | Callable[[], Mapping[str, Collection[str]]],
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.reads = reads

    def _readers(self) -> Mapping[str, Collection[str]]:
        if callable(self.reads):
            return self.reads()
        from tracker.systems import registry

        readers: dict[str, set[str]] = {}
        for system in registry.systems():
            for name in getattr(system, self.reads):
                readers.setdefault(name, set()).add(system.name)
        return readers

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[CompletionItem]:
        offered = super().shell_complete(ctx, incomplete)
        state = _state(ctx)
        if state is None:
            return offered
        readers = self._readers()
        refused = {
            flag
            for p in self.params
            if isinstance(p, click.Option)
            and p.name in readers
            and state.rules.name not in readers[p.name]
            for flag in (*p.opts, *p.secondary_opts)
        }
        return [item for item in offered if item.value not in refused]
