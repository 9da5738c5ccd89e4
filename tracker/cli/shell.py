"""``tracker shell``: the evening's prompt. The same commands without the word ``tracker``, one
open database, the campaign's state kept warm in memory, completion and history."""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

import click

from tracker.cli.declared import make_command
from tracker.cli.options import open_tracker
from tracker.systems.commands import Command

EXIT_WORDS = {"exit", "quit", "bye"}
SHELL_WIDE = {"--db", "--campaign"}
HELP_WORDS = {"help", "?"}
HELP_FLAGS = {"--help", "-h"}


def run_line(line: str, obj: dict) -> int:
    """Run one command line as ``tracker`` would; return its exit code. Never raises."""
    from tracker.cli import cli

    try:
        args = shlex.split(line)
    except ValueError as exc:
        click.echo(f"Error: {exc}; check the quotes.", err=True)
        return 2
    if not args:
        return 0
    if args[0] in HELP_WORDS or any(a in HELP_FLAGS for a in args):
        named = (
            args[1:]
            if args[0] in HELP_WORDS
            else args[: min(map(args.index, HELP_FLAGS & {*args}))]
        )
        text = shell_help(named, obj)
        if text is not None:
            click.echo(text)
            return 0
        args = [*named, "--help"]  # no such command: click says so, as for any line
    if args[0] == "shell":
        click.echo("Already in the shell; type the command without `shell`.", err=True)
        return 2
    if any(a in SHELL_WIDE or a.startswith(("--db=", "--campaign=")) for a in args):
        # Taken silently they would be ignored: the shell has one database and one campaign.
        click.echo(
            "Error: --db and --campaign are given when the shell starts; here, `campaign use "
            "NAME` switches campaigns, or exit and start `tracker --db ... shell`.",
            err=True,
        )
        return 2
    try:
        code = cli.main(args, prog_name="tracker", standalone_mode=False, obj=obj)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except Exception as exc:
        problem = str(exc).rstrip(".")
        click.echo(
            f"Error: {problem}; the command stopped there, so check `tracker log` before running "
            "it again.",
            err=True,
        )
        code = 1
    return code if isinstance(code, int) else 0


SHELL_INTRO = (
    "Type any command without the word tracker, as in `roll Wren Grit`. Tab completes; `help "
    "COMMAND` (or `COMMAND --help`) says more of one; `exit`, `quit` or Ctrl-D leaves. The "
    "shell stays on the database it started on; `campaign use NAME` switches campaigns."
)
# Words a line of help may hold that the shell refuses or cannot run: another database or
# campaign (given when the shell starts), and the terminal's own pipes and chains.
NOT_AT_THE_PROMPT = re.compile(r"(^|\s)(--db|--campaign)\b|&&|\s\|\s")


def shell_help(words: list[str], obj: dict | None = None) -> str | None:
    """The help for the command ``words`` name (none: the shell's own), worded for the
    prompt: commands without the word tracker, and no example or option the shell refuses.
    None when ``words`` name no command; the line then runs and click says so. ``obj``: the
    shell's, whose campaign a roll's help names the options of."""
    from tracker.cli import cli

    ctx = click.Context(cli, info_name="tracker", obj=obj, **cli.context_settings)
    command: click.Command = cli
    for word in words:
        if not isinstance(command, click.Group) or word.startswith("-"):
            break
        found = command.get_command(ctx, word)
        if found is None or found.name == "shell":
            return None
        command, ctx = found, click.Context(found, info_name=word, parent=ctx)
    if command is cli:
        return _overview(ctx)
    return _at_the_prompt(command.get_help(ctx))


def _overview(ctx: click.Context) -> str:
    from tracker.cli import cli

    formatter = ctx.make_formatter()
    formatter.write_text(SHELL_INTRO)
    names = [n for n in cli.list_commands(ctx) if n != "shell"]
    rows = [(n, cli.get_command(ctx, n)) for n in names]
    limit = formatter.width - 6 - max(len(n) for n in names)
    with formatter.section("Commands"):
        formatter.write_dl(
            [(n, c.get_short_help_str(limit)) for n, c in rows if c is not None and not c.hidden]
            + [("help", "This list; help COMMAND for one."), ("exit", "Leave the shell.")]
        )
    return formatter.getvalue().rstrip("\n")


def _at_the_prompt(text: str) -> str:
    """A command's help as the shell takes it: `tracker roll ...` is `roll ...`; an example
    or an option the shell would refuse is left out."""
    lines: list[str] = []
    dropping = False
    for line in text.splitlines():
        bare = line.lstrip()
        indent = len(line) - len(bare)
        if dropping and indent > 2 and not bare.startswith("-"):
            continue  # the rest of a left-out option's wrapped help
        dropping = False
        if indent == 2 and bare.startswith(("--db ", "--campaign ")):
            dropping = True
            continue
        shown = bare.removeprefix("Example: ")
        if shown.startswith("tracker ") and NOT_AT_THE_PROMPT.search(shown):
            continue
        line = line.replace("Usage: tracker ", "Usage: ").replace("`tracker ", "`")
        if shown.startswith("tracker "):
            line = line.replace("tracker ", "", 1)
        lines.append(line)
    return "\n".join(_without_empty_examples(lines)).rstrip("\n")


def _without_empty_examples(lines: list[str]) -> list[str]:
    """An "Examples:" heading all of whose examples were left out goes too, and so does a
    blank line a left-out line leaves beside another."""
    kept: list[str] = []
    for i, line in enumerate(lines):
        heading = line.strip() in ("Example:", "Examples:")
        after = lines[i + 1] if i + 1 < len(lines) else ""
        if (heading and not after.strip()) or (not line.strip() and kept and not kept[-1]):
            continue
        kept.append(line.rstrip())
    return kept


class Completer:
    """Tab in the shell: what fits at the cursor, as the command line itself completes it
    (``tracker.cli.complete``): commands, then each argument's own words (characters, their
    traits, spend kinds, Threat tiers, campaigns), and options after a dash."""

    def __init__(self, obj: dict, prompt: Callable[[], str] = lambda: "") -> None:
        self.obj = obj
        self.prompt = prompt
        self.matches: list[str] = []

    def words(self, before: list[str], incomplete: str = "") -> list[str]:
        from click.shell_completion import ShellComplete

        from tracker.cli import cli, known

        if before and (before[0] == "shell" or not known(before[0])):
            return []  # nothing follows a word that is no command here
        completer = ShellComplete(cli, {"obj": self.obj}, "tracker", "")
        try:
            items = completer.get_completions(before, incomplete)
        except Exception:
            # A line click cannot follow (an unknown command, a stray quote) offers nothing.
            return []
        return [item.value for item in items if item.type != "file"]

    def lines(self, line: str) -> list[str]:
        """``line`` (what stands before the cursor) with its last word completed, one line per
        word that fits: quoted as the GM began it, else in double quotes when it holds a space
        ("Ilsa Varga", "Guns (Pistol)"), and followed by a space. The whole line is given back
        because readline replaces only what follows its last word break, and a name with a
        space in it, quoted or escaped, is one word broken in two there."""
        before, word, start, quote = split_line(line)
        fitting = [w for w in self.words(before, word) if w.casefold().startswith(word.casefold())]
        return [line[:start] + quoted(w, quote) + " " for w in fitting]

    def complete(self, text: str, index: int) -> str | None:
        # With no word breaks set, readline gives the whole line before the cursor as ``text``.
        if index == 0:
            self.matches = self.lines(text)
        return self.matches[index] if index < len(self.matches) else None

    def display(self, substitution: str, matches: list[str], longest: int) -> None:
        """Several fit: the words are listed, not the whole lines readline holds."""
        import readline
        import shutil

        words = [split_line(m.rstrip(" "))[1] for m in matches]
        # In columns across the terminal, as readline lists them.
        width = max(len(w) for w in words) + 2
        per_line = max(1, shutil.get_terminal_size().columns // width)
        rows = [words[i : i + per_line] for i in range(0, len(words), per_line)]
        click.echo("")
        for row in rows:
            click.echo("".join(w.ljust(width) for w in row).rstrip())
        click.echo(self.prompt() + readline.get_line_buffer(), nl=False)


def split_line(line: str) -> tuple[list[str], str, int, str | None]:
    """``line`` read as the shell reads a command (``shlex``), a quote still open at its end
    allowed: the words before the last, the last as it reads (empty after a space), where that
    word begins in ``line``, and the quote it began with, if any."""
    words: list[str] = []
    word: list[str] = []
    start, opened, quote, at = len(line), None, None, 0
    in_word = False
    while at < len(line):
        ch = line[at]
        if quote is not None:
            if ch == quote:
                quote = None
            elif ch == "\\" and quote == '"' and line[at + 1 : at + 2] in ('"', "\\"):
                at += 1
                word.append(line[at])
            else:
                word.append(ch)
        elif ch in " \t":
            if in_word:
                words.append("".join(word))
                word, in_word, start = [], False, len(line)
        else:
            if not in_word:
                in_word, start = True, at
                opened = ch if ch in "\"'" else None
            if ch in "\"'":
                quote = ch
            elif ch == "\\" and at + 1 < len(line):
                at += 1
                word.append(line[at])
            else:
                word.append(ch)
        at += 1
    if not in_word:
        return words, "", len(line), None
    return words, "".join(word), start, opened


def quoted(word: str, quote: str | None) -> str:
    """``word`` as one word of a line: in the quote the GM opened it with, else in double
    quotes when a space or a quote in it would break it, else as it is."""
    if quote == "'" and "'" not in word:
        return f"'{word}'"
    if quote is not None or re.search(r"[\s\"'\\]", word):
        escaped = word.replace("\\", "\\\\").replace('"', '\\"')
        return f'"{escaped}"'
    return word


def _history_file() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("tracker", appauthor=False)) / "shell_history"


def _shell() -> None:
    """An interactive prompt for the evening: every command, instantly, without `tracker`.

    \b
    Example:
      tracker --campaign "Ashes of Veyra" shell
      tracker> roll Wren Grit --tag 1:gear
      tracker> threat spend hard --note "the shelves collapse"
      tracker> exit
    """
    import gc

    gc.enable()  # an evening of commands: collect as usual
    tracker = open_tracker()
    tracker.warm = True
    from tracker.cli.where import given

    ctx = click.get_current_context()
    # What `where` says inside the shell: the database and campaign the shell was started on.
    started = {"db": given(ctx, "db"), "campaign": given(ctx, "campaign")}
    obj = {"tracker": tracker, "db": tracker.url, "campaign": None, "given": started}
    interactive = sys.stdin.isatty()
    history = _history_file()
    if interactive:
        try:
            import readline

            completer = Completer(obj, lambda: _prompt(tracker))
            readline.set_completer(completer.complete)
            # No word breaks: the completer reads the whole line, names with spaces included.
            readline.set_completer_delims("")
            readline.set_completion_display_matches_hook(completer.display)
            readline.parse_and_bind("tab: complete")
            history.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            if history.exists():
                readline.read_history_file(history)
        except (ImportError, OSError):
            pass
        click.echo(f"tracker shell on {tracker.location}. Tab completes; `exit` or Ctrl-D ends.")
    while True:
        try:
            line = input(_prompt(tracker) if interactive else "")
        except EOFError:
            if interactive:
                click.echo("")  # Ctrl-D ends the prompt's line, so the terminal's is a new one
            break
        except KeyboardInterrupt:
            click.echo("")
            continue
        if line.strip() in EXIT_WORDS:
            break
        run_line(line, obj)
    if interactive:
        try:
            import readline

            readline.set_history_length(2000)
            readline.write_history_file(history)
        except (ImportError, OSError):
            pass


# Its help is the handler's docstring: the example is prose, as docstrings are.
SHELL = Command(("shell",), _shell.__doc__ or "")
shell = make_command(SHELL, _shell, output=False, db=True)


def _prompt(tracker) -> str:
    try:
        name = tracker.campaign().name
    except Exception:
        name = "tracker"
    return f"{name}> "


COMMANDS = [shell]
