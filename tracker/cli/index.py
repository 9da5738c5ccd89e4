"""Which module of ``tracker.cli`` holds each of tracker's own commands, so that a command
imports its own module alone (``tracker.cli._load``) and ``tracker --help`` none of them.

Made from the modules' own ``COMMANDS`` by ``python -m tracker.cli.reference --write-index
tracker/cli/index.py`` (a test fails while this file differs): a new command is its declaration
and its handler in one module, listed in that module's ``COMMANDS``. Edit those, not this.
"""

MODULES: dict[str, str] = {
    "campaign": "campaign",
    "character": "campaign",
    "completion": "completion",
    "condition": "play",
    "contest": "play",
    "demo": "demo",
    "export": "export",
    "fp": "play",
    "hp": "play",
    "import": "export",
    "invite": "invite",
    "log": "log",
    "note": "play",
    "obligations": "play",
    "odds": "odds",
    "recap": "recap",
    "redo": "history",
    "replay": "history",
    "reveal": "history",
    "roll": "play",
    "serve": "serve",
    "session": "campaign",
    "shell": "shell",
    "status": "play",
    "stress": "play",
    "undo": "history",
    "verify": "log",
    "where": "where",
}
