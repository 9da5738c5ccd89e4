"""Docs cannot drift: every command has help text and is in the README, which names only files
of the project."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest

from tracker.cli import cli

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def leaf_commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    out = []
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        path = f"{prefix}{name}"
        if isinstance(command, click.Group):
            out.extend(leaf_commands(command, path + " "))
        else:
            out.append((path, command))
    return out


COMMANDS = leaf_commands(cli)


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[p for p, _ in COMMANDS])
def test_every_command_has_help_and_is_in_the_readme(path, command):
    assert (command.help or "").strip(), f"tracker {path} has no help text"
    assert f"tracker {path}" in README, f"tracker {path} is missing from the README"


def test_every_help_page_renders(run):
    for path, _ in COMMANDS:
        result = run([*path.split(), "--help"])
        assert result.exit_code == 0, path
        assert "Usage:" in result.stdout


def test_the_command_lines_index_is_made_from_the_modules_and_loads_each_command():
    """A command is declared in one module and listed in its ``COMMANDS``; the index the
    command line loads it by is made from those lists, never kept by hand."""
    import importlib

    from tracker.cli import _load
    from tracker.cli.index import MODULES
    from tracker.cli.reference import index

    written = (ROOT / "tracker/cli/index.py").read_text(encoding="utf-8")
    assert written == index(), (
        "tracker/cli/index.py is stale; run "
        "`python -m tracker.cli.reference --write-index tracker/cli/index.py`"
    )
    for name, module_name in MODULES.items():
        command = _load(name)
        assert command is not None, name
        assert command.name == name
        assert command in importlib.import_module(f"tracker.cli.{module_name}").COMMANDS


def test_the_readme_names_no_path_outside_the_project():
    assert "../" not in README, "README.md points outside the project"
    for path in re.findall(r"`([^`\s]+)`", README):
        path = path.split("::", 1)[0]
        assert not path.startswith("/"), f"README.md names {path}, outside the project"
        if path.split("/", 1)[0] in {".ci", "fixtures", "migrations", "tests", "tracker"}:
            assert (ROOT / path).exists(), f"README.md names {path}, which the project lacks"


def test_the_command_reference_is_what_the_command_line_says():
    from tracker.cli.reference import reference

    written = (ROOT / "tracker/cli/COMMANDS.md").read_text(encoding="utf-8")
    assert written == reference(), (
        "tracker/cli/COMMANDS.md is stale; run "
        "`python -m tracker.cli.reference --write tracker/cli/COMMANDS.md`"
    )
    assert "[tracker/cli/COMMANDS.md](tracker/cli/COMMANDS.md)" in README


def test_the_reference_names_every_command_and_option():
    from tracker.cli.reference import reference

    text = reference()
    for path, command in COMMANDS:
        assert f"\ntracker {path}" in text, path
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                assert f"`{param.opts[0]}" in text or f", {param.opts[0]}" in text, (
                    path,
                    param.opts,
                )


def test_the_reference_lists_each_systems_roll_options_under_its_own_heading():
    """Made with no campaign, as `tracker roll --help` is with none: a reader of the reference
    sees whose each option is, and which apply to the campaign in front of him."""
    from tracker.cli.reference import reference

    text = reference()
    for command, whose in [
        ("roll", {"Gloom": "--dl", "GURPS": "--mod", "Glintlock": "--tag"}),
        ("contest", {"Gloom": "--dl-a", "GURPS": "--mod-a"}),
    ]:
        part = text.split(f"\n## tracker {command}\n")[1].split("\n## ")[0]
        common = part.split("\nOptions:\n")[1].split(" options:\n")[0]
        assert "`--seed S`" in common
        for title, flag in whose.items():
            theirs = part.split(f"\n{title} options:\n")[1].split(" options:\n")[0]
            assert f"- `{flag} " in theirs
            assert f"- `{flag} " not in common
            assert f"({title})" not in theirs


# The documents that live beside what they describe (the README points at each).
DOCS = sorted(
    path
    for path in ROOT.rglob("*.md")
    if not any(
        part.startswith(".") or part.endswith(".egg-info") or part in {"build", "dist"}
        for part in path.relative_to(ROOT).parts
    )
)
TOP = {".ci", "fixtures", "migrations", "tests", "tracker"}
TEST_REFERENCE = re.compile(r"`((?:tests/[\w/.-]+\.py)?(?:::[\w*\[\]-]+)+|tests/[\w/.-]+\.py)`")


def _doc_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("doc", DOCS, ids=_doc_id)
def test_every_document_names_only_what_the_project_has(doc):
    text = doc.read_text(encoding="utf-8")
    assert "../shared" not in text, f"{_doc_id(doc)} points outside the project"
    for path in re.findall(r"`([^`\s]+)`", text):
        path = path.split("::", 1)[0]
        if path.split("/", 1)[0] in TOP:
            assert (ROOT / path).exists(), f"{_doc_id(doc)} names {path}, which the project lacks"
    for link in re.findall(r"\]\(([^)\s]+)\)", text):
        if not re.match(r"[a-z]+:", link):
            target = (doc.parent / link.split("#", 1)[0]).resolve()
            assert target.is_relative_to(ROOT), f"{_doc_id(doc)} links outside the project: {link}"
            assert target.exists(), f"{_doc_id(doc)} links to {link}, which is not there"


@pytest.mark.parametrize("doc", DOCS, ids=_doc_id)
def test_every_test_a_document_names_is_there(doc):
    """A promise is only as good as the test named as its proof: `tests/FILE.py::name` (and a
    following `::name` of the same file) must name a test that exists."""
    for line in doc.read_text(encoding="utf-8").splitlines():
        current: Path | None = None
        for found in TEST_REFERENCE.findall(line):
            file, _, names = found.partition("::")
            if file:
                current = ROOT / file
                assert current.exists(), f"{_doc_id(doc)} names {file}, which is not there"
            if not names:
                continue
            assert current is not None, f"{_doc_id(doc)}: `{found}` follows no test file"
            name = names.split("::")[-1].split("[")[0]
            if name != "*":
                source = current.read_text(encoding="utf-8")
                assert re.search(rf"^\s*(def|class) {re.escape(name)}\b", source, re.M), (
                    f"{_doc_id(doc)} names {current.name}::{name}, which is no test there"
                )


def _shown_commands(doc: Path) -> list[list[str]]:
    """The `tracker ...` lines of a document's shell blocks, as a shell would split them, cut
    at a pipe, a redirection or a job's `&`."""
    shown = []
    inside = False
    for line in doc.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            inside = line.strip() == "```sh"
            continue
        if not inside or not line.startswith("tracker "):
            continue
        words = shlex.split(line, comments=True)
        cut = next((i for i, w in enumerate(words) if w in {"|", ">", "&", "&&"}), len(words))
        shown.append(words[1:cut])
    return shown


def _parse(words: list[str]) -> None:
    """``words`` read by the command line as it would run them, without running them."""
    ctx = cli.make_context("tracker", list(words))
    command: click.Command = cli
    rest = [*ctx._protected_args, *ctx.args]
    while isinstance(command, click.Group) and rest:
        name, found, rest = command.resolve_command(ctx, rest)
        assert found is not None, f"no command {name}"
        ctx = found.make_context(name, rest, parent=ctx)
        command, rest = found, [*ctx._protected_args, *ctx.args]


@pytest.mark.parametrize("doc", DOCS, ids=_doc_id)
def test_every_command_a_document_shows_is_one_the_command_line_takes(doc, monkeypatch):
    monkeypatch.chdir(ROOT)  # the sheets and tables it names are the repository's
    for words in _shown_commands(doc):
        try:
            _parse(words)
        except click.BadParameter as exc:
            # A file an earlier line of the document writes (an export, then its import).
            if "does not exist" not in exc.format_message():
                pytest.fail(
                    f"{_doc_id(doc)}: `tracker {shlex.join(words)}`: {exc.format_message()}"
                )
        except click.UsageError as exc:
            pytest.fail(f"{_doc_id(doc)}: `tracker {shlex.join(words)}`: {exc.format_message()}")


def _cited_in() -> list[Path]:
    """Every text file of the project that may cite a document: code, tests, fixtures,
    migrations, the documents themselves."""
    found = [ROOT / "README.md", ROOT / "pyproject.toml", ROOT / ".ci" / "run"]
    for top in ("tracker", "tests", "fixtures", "migrations"):
        found += [
            path
            for path in (ROOT / top).rglob("*")
            if path.is_file()
            and path.suffix in {".py", ".md", ".toml", ".json", ".js", ".html", ".css", ".txt"}
            and "__pycache__" not in path.parts
        ]
    return found


def test_every_document_cited_is_one_the_project_has():
    """A ruling's document is cited by its path (`tracker/systems/gurps/RULINGS.md`), and a
    rulebook by its title and section: a citation of a document the repository lacks (a design
    or a rulebook kept elsewhere) points a reader nowhere."""
    cited = re.compile(r"(?<![\w/.-])((?:\.\.?/)*[\w./-]*[\w-]\.md)\b")
    missing = []
    for path in _cited_in():
        for name in cited.findall(path.read_text(encoding="utf-8", errors="replace")):
            if not ((ROOT / name).is_file() or (path.parent / name).is_file()):
                missing.append(f"{path.relative_to(ROOT)} cites {name}")
    assert not missing, "; ".join(missing)


def test_every_ruling_cited_by_its_heading_is_one_its_rulings_document_has():
    """Code and tests cite a ruling by its document's path and its heading in quotes, so a
    reader finds it beside the rulebook's sentence it reads: a heading the document lacks (a
    ruling moved, renamed or never written down) points a reader nowhere."""
    cited = re.compile(r"(tracker/[\w/]+/RULINGS\.md),?\s*'([^']+)'")
    missing = []
    for path in _cited_in():
        # A citation may run over a docstring's or a comment's line break.
        text = re.sub(r"\n\s*(?:#\s*)?", " ", path.read_text(encoding="utf-8", errors="replace"))
        for document, heading in cited.findall(text):
            lines = (ROOT / document).read_text(encoding="utf-8").splitlines()
            headings = {line.lstrip("#").strip().casefold() for line in lines if line[:1] == "#"}
            if heading.casefold() not in headings:
                missing.append(f"{path.relative_to(ROOT)} cites {document}, '{heading}'")
    assert not missing, "; ".join(missing)
