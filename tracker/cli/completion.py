"""``tracker completion``: the script that makes Tab complete tracker in a shell.

What Tab offers where is ``tracker.cli.complete``'s; this prints the script that asks for it.
"""

from __future__ import annotations

import click

from tracker.cli.declared import make_command
from tracker.systems.commands import Argument, Command

SHELLS = ("bash", "zsh", "fish")
# How the bash script adds a completion (click's script is a %-template, hence %%q).
BASH_REPLY = r"""if [[ ${COMP_WORDS[COMP_CWORD]} == [\"\']* ]]; then
                COMPREPLY+=("$value")
            else
                COMPREPLY+=("$(printf '%%q' "$value")")
            fi"""
# Where each shell's completion line goes; the order of SHELLS.
START_UP = {
    "bash": ("~/.bashrc", 'eval "$(tracker completion bash)"'),
    "zsh": ("~/.zshrc, after compinit", 'eval "$(tracker completion zsh)"'),
    "fish": ("~/.config/fish/config.fish", "tracker completion fish | source"),
}


COMPLETION = Command(
    ("completion",),
    """Print the script that makes Tab complete tracker in bash, zsh or fish.

    Tab then offers what `tracker shell` offers: commands, options, campaign names, characters,
    a character's stats and skills, spend kinds.

    \b
    Examples (one line in your shell's start-up file):
      bash   ~/.bashrc                    eval "$(tracker completion bash)"
      zsh    ~/.zshrc, after compinit     eval "$(tracker completion zsh)"
      fish   ~/.config/fish/config.fish   tracker completion fish | source

    Without SHELL it prints the script for the shell $SHELL names.
    """,
    arguments=(Argument("shell", kind="choice", choices=SHELLS, required=False),),
)


def _completion(shell: str | None) -> None:
    import os

    from click.shell_completion import get_completion_class

    if shell is None:
        named = os.path.basename(os.environ.get("SHELL", ""))
        if named not in SHELLS:
            raise click.UsageError(
                f"Name the shell: tracker completion {'|'.join(SHELLS)} "
                f"($SHELL is {named or 'not set'})."
            )
        shell = named
    from tracker.cli import cli

    kind = get_completion_class(shell)
    if shell == "bash":
        # click's bash script adds each word as it is: "Neon Drift" would reach the line as two
        # words. Quoted as bash would quote it, a name with spaces or parentheses stays one;
        # inside a quote the GM opened, bash closes the quote round the word as it is, and a
        # backslash there would be part of the name.
        quoted = kind.source_template.replace("COMPREPLY+=($value)", BASH_REPLY)
        kind = type("QuotingBashComplete", (kind,), {"source_template": quoted})
    click.echo(kind(cli, {}, "tracker", "_TRACKER_COMPLETE").source())


completion = make_command(COMPLETION, _completion, output=False)
COMMANDS = [completion]
