"""The command reference, made from the command line itself so that it cannot drift from it.

``python -m tracker.cli.reference`` prints it as Markdown; ``--write tracker/cli/COMMANDS.md``
writes the file the README links to. ``tests/test_docs.py`` fails while that file differs.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

HEADER = """# tracker's commands

Every command and option, made from the command line itself by
`python -m tracker.cli.reference --write tracker/cli/COMMANDS.md` (a test fails while this file
differs from it). `tracker COMMAND --help` says the same at the terminal; the README tells the
story.
"""


def reference() -> str:
    """Every command and option of ``tracker``, in Markdown."""
    from tracker.cli import acts, cli
    from tracker.cli.index import MODULES

    root = click.Context(cli, info_name="tracker")
    # What tracker's own systems add, not an outside package installed beside it.
    ours = {*MODULES, *acts.names(built_in=True)}
    names = [name for name in cli.list_commands(root) if name in ours]
    out = [HEADER, "## Contents", ""]
    out += [f"[{name}](#tracker-{name})" + ("," if name != names[-1] else "") for name in names]
    out += ["", "## Before any command", ""]
    out += ["Given before the command (`--db` and `--campaign` after it too):", ""]
    out += _options(cli, root)
    out.append("")
    for name in names:
        out += _command(cli.get_command(root, name), root, name, level=2)
    return "\n".join(out).rstrip() + "\n"


def _command(command: click.Command, parent: click.Context, name: str, level: int) -> list[str]:
    ctx = click.Context(command, info_name=name, parent=parent)
    pieces = " ".join(command.collect_usage_pieces(ctx)).replace("[OPTIONS]", "").strip()
    out = [f"{'#' * level} {ctx.command_path}", ""]
    out += ["```text", f"{ctx.command_path} {pieces}".rstrip(), "```", ""]
    out += _help(command.help or "")
    for heading, options in _sections(command, ctx):
        out += [f"{heading}:", "", *options, ""]
    if isinstance(command, click.Group):
        for sub in command.list_commands(ctx):
            out += _command(command.get_command(ctx, sub), ctx, sub, level + 1)
    return out


def _help(text: str) -> list[str]:
    """A help text's paragraphs: prose joined into one line each, and the blocks click keeps
    as written (``\\b``) as code."""
    out: list[str] = []
    for paragraph in re.split(r"\n\s*\n", click.unstyle(_dedent(text)).strip()):
        lines = paragraph.splitlines()
        if lines and lines[0].strip() == "\b":
            kept = _dedent("\n".join(lines[1:])).splitlines()
            heading = [kept.pop(0)] if kept and kept[0].rstrip().endswith(":") else []
            if heading:
                out += [heading[0].strip(), ""]
            out += ["```text", *(line.rstrip() for line in _dedent("\n".join(kept)).splitlines())]
            out += ["```", ""]
        else:
            out += [" ".join(line.strip() for line in lines), ""]
    return out


def _dedent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text)


def _options(command: click.Command, ctx: click.Context) -> list[str]:
    out = []
    for param in command.get_params(ctx):
        if not isinstance(param, click.Option) or "--help" in param.opts:
            continue
        record = param.get_help_record(ctx)
        if record is None:
            continue
        out.append(_item(*record))
    return out


def _sections(command: click.Command, ctx: click.Context) -> list[tuple[str, list[str]]]:
    """A command's options under their headings: one "Options" list, or, for a command whose
    options are partly each system's own (``BySystem``), every system's under its own heading,
    as its ``--help`` shows them with no campaign (the reference is made with none)."""
    from tracker.cli.declared import BySystem

    if not isinstance(command, BySystem):
        options = _options(command, ctx)
        return [("Options", options)] if options else []
    return [
        (heading, [_item(opts, text) for opts, text in records if "--help" not in opts])
        for heading, records in command.sections(ctx, None)
    ]


def _item(opts: str, help_text: str) -> str:
    return f"- `{opts}`: {help_text}" if help_text else f"- `{opts}`"


INDEX_HEADER = (
    '"""Which module of ``tracker.cli`` holds each of tracker\'s own commands, so that a '
    "command\nimports its own module alone (``tracker.cli._load``) and ``tracker --help`` none "
    "of them.\n\nMade from the modules' own ``COMMANDS`` by ``python -m tracker.cli.reference "
    "--write-index\ntracker/cli/index.py`` (a test fails while this file differs): a new "
    "command is its declaration\nand its handler in one module, listed in that module's "
    '``COMMANDS``. Edit those, not this.\n"""\n\n'
)


def index() -> str:
    """The command line's index (``tracker/cli/index.py``), made from every module of
    ``tracker.cli`` that lists commands."""
    import importlib
    import pkgutil

    import tracker.cli as package

    found: dict[str, str] = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"tracker.cli.{info.name}")
        for command in getattr(module, "COMMANDS", ()):
            found[command.name] = info.name
    rows = [f'    "{name}": "{module}",' for name, module in sorted(found.items())]
    return INDEX_HEADER + "MODULES: dict[str, str] = {\n" + "\n".join(rows) + "\n}\n"


def write(path: Path, text: str | None = None) -> bool:
    """Write the reference (or ``text``) to ``path``; whether that changed it."""
    text = reference() if text is None else text
    changed = not path.exists() or path.read_text(encoding="utf-8") != text
    if changed:
        path.write_text(text, encoding="utf-8")
    return changed


def main(argv: list[str]) -> int:
    if argv[:1] in (["--write"], ["--write-index"]) and len(argv) == 2:
        made = index() if argv[0] == "--write-index" else None
        changed = write(Path(argv[1]), made)
        print(f"{argv[1]}: {'updated' if changed else 'up to date'}.")
        return 0
    if argv:
        usage = (
            "Usage: python -m tracker.cli.reference [--write tracker/cli/COMMANDS.md | "
            "--write-index tracker/cli/index.py]"
        )
        print(usage, file=sys.stderr)
        return 2
    sys.stdout.write(reference())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
