"""How much of one rulebook the generic code still speaks (issue 33).

``test_source.py`` keeps system names out of the code outside ``tracker/systems/<name>/``; this
keeps count of the words that are one system's own: the string literals that hold them, the
places that branch on them (``kind == "panic"``, ``inputs.get("retry_mode")``,
``result["man_hours"]``), and the ``Feature`` flags, each a question that means "is it that
system". The counts may only go down: ``CEILING`` holds them as they stand, and a change that
moves a slice into its system lowers it. Docstrings and comments are prose and do not count.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

from tracker.systems import base, registry
from tracker.systems.commands import Setting

PACKAGE = Path(__file__).resolve().parent.parent / "tracker"

# What the generic code holds today: lower a figure when a change takes words out, never raise it.
CEILING = {"literals": 5, "branches": 0, "flags": 3}

# The bound the generic code was held to when each system took its slice: at most 20 literals
# of one system's vocabulary, no branch on one, and at most 3 ``Feature`` flags (those every
# system may have). CEILING, below it, keeps what has been won since.
TARGET = {"literals": 20, "branches": 0, "flags": 3}

# What a system declares that names its own rules, read from every installed system.
DECLARED = (
    "features",
    "outcome_tones",
    "spend_kinds",
    "settings",
    "track_max",
    "roll_options",
    "contest_options",
    "difficulties",
)

# Declared by one system, yet the core's own: such a literal is no sign of a system in it.
COMMON = {
    # Every secret event can be made public (reveal, the players' stream); GURPS only declares
    # it as the option that shows a sense roll.
    "public",
    # Every system's sheet has skills (``character update --skill``); Glintlock declares it as
    # the option naming a skill its roll uses.
    "skill",
    # The stress track is Gloom's and Glintlock's both; its limit is the campaign's setting.
    "stress limit",
}

# Words of one rulebook no declaration spells, found anywhere in a literal (as whole words, in
# any case, "_" and "-" read as a space, a plural "s" allowed). Each is said by one rulebook
# alone: the other two have no such rule.
TERMS = {
    "glintlock": {
        "mettle",  # Glintlock's player currency (Glintlock, 'Mettle')
        "threat",  # the GM's currency (Glintlock, 'Threat')
        "story tag",  # tags a story gives a roll (Glintlock, 'Story Tags')
        "breaking point",  # stress at its top (Glintlock, 'Breaking Point')
        # A check's position (Glintlock, 'Position'): "position" alone is also the log's order.
        "position step",
        "desperate",
        "risky",
        "controlled",
        "strong dc",  # the two thresholds of a Glintlock check
        "weak dc",
        "backlash",  # a spell's backlash (Glintlock, 'Spellcasting')
        "steel yourself",  # a Mettle spend
        "advantage die",
    },
    "gloom": {
        "panic",  # panic checks and the panicked condition (Gloom, 'Panic')
        "catastrophe",
        "overshoot",
        "undershoot",
        "tie rule",  # who wins equal dice in a contested roll (Gloom)
    },
    "gurps": {
        "fright",  # Fright Checks (GURPS, Basic Set p. B360)
        "buy up",  # character points spent on a roll's outcome
        "retry mode",  # repeated attempts (GURPS, B348); "retry" alone is also plain English
        "retry with damage",
        "retry at penalty",
        "project",  # major projects and their man-hours
        "man hours",
        "supervisor",
        "influence",  # influence rolls (B359)
        "reaction",
        "extra effort",  # (B356)
        "danger sense",  # an advantage that rolls in secret
        "sense",  # sense rolls (B358)
        "character point",
        "cinematic",
        "tech level",
        "critical success",
        "critical failure",
    },
}

# Rulebook words that are ordinary English too ("hard", "miss", "task"): counted only where a
# literal is the word itself, as a key or a value ("--dl", "hard", "task").
KEYS = {
    # Character points, a GURPS sheet's; --mod, one of its modifiers (declared as ``mods``);
    # Will and Per, the GURPS stats its fright checks and senses roll against; --retry.
    "gurps": {"points", "mod", "will", "per", "retry"},
    # --tag, one of a Glintlock roll's tags (declared as ``tags``).
    "glintlock": {"tag", "net tags"},
}


IDENTIFIER = re.compile(r"-{0,2}[A-Za-z][\w-]*")


def _plain(text: str) -> str:
    return re.sub(r"[\s_-]+", " ", text.casefold()).strip(" ")


def _word(declared: object) -> str:
    """What a system declares, as a word: a campaign setting by the name the log stores."""
    return declared.name if isinstance(declared, Setting) else str(declared)


def own_systems() -> dict[str, base.RuleSystem]:
    """tracker's own systems by name (not a plugin a test has installed meanwhile)."""
    systems = {name: registry.get(name) for name in registry.names()}
    return {
        name: system
        for name, system in systems.items()
        if type(system).__module__.startswith(f"tracker.systems.{name}.")
    }


def vocabulary() -> dict[str, tuple[set[str], set[str]]]:
    """Each system's words: (terms found within a literal, keys a literal must be)."""
    declared: dict[str, set[str]] = {}
    for name, system in own_systems().items():
        words = set()
        for attribute in DECLARED:
            words |= {_plain(_word(declared)) for declared in getattr(system, attribute, ())}
        declared[name] = words
    owners = Counter(word for words in declared.values() for word in words)
    found = {}
    for name, words in declared.items():
        own = {w for w in words if owners[w] == 1 and w not in COMMON}
        terms = {_plain(t) for t in TERMS.get(name, ())}
        keys = own | {_plain(k) for k in KEYS.get(name, ())}
        found[name] = (terms, keys)
    return found


def _matcher(vocab: dict[str, tuple[set[str], set[str]]]) -> Callable[[str], bool]:
    terms = sorted({t for ts, _ in vocab.values() for t in ts}, key=len, reverse=True)
    keys = {k for _, ks in vocab.values() for k in ks}
    within = re.compile(r"\b(?:" + "|".join(map(re.escape, terms)) + r")s?\b")

    def matches(text: str) -> bool:
        plain = _plain(text)
        return (
            plain in keys
            or (plain.endswith("s") and plain[:-1] in keys)
            or bool(within.search(plain))
        )

    return matches


def _prose(tree: ast.AST) -> set[int]:
    """The ids of string constants standing alone as statements: docstrings, attributes' too."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }


def _tests(tree: ast.AST) -> Iterator[ast.AST]:
    """Every expression the code decides by: a condition, a ternary's, a comprehension's
    filter, a ``match``'s subject and each case's pattern."""
    for node in ast.walk(tree):
        if isinstance(node, ast.If | ast.While | ast.IfExp):
            yield node.test
        elif isinstance(node, ast.comprehension):
            yield from node.ifs
        elif isinstance(node, ast.Match):
            for case in node.cases:
                yield case.pattern
                if case.guard is not None:
                    yield case.guard


class Scan:
    """One module's literals of a system's vocabulary and its branches on them."""

    def __init__(self, path: Path, matches: Callable[[str], bool]) -> None:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        prose = _prose(tree)
        self.matches = matches
        self.literals = [
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in prose
            and matches(node.value)
        ]
        # Of them, those that are a word alone (a key, a value, an option): no message's prose.
        self.keys = [text for text in self.literals if IDENTIFIER.fullmatch(text)]
        decided = set()
        self.branches = []
        for test in _tests(tree):
            if id(test) not in decided and self._on_vocabulary(test):
                self.branches.append(test.lineno)
                decided |= {id(n) for n in ast.walk(test)}
        self.conditions = len(self.branches)
        # A comparison or a lookup by a system's key outside any condition decides as well: a
        # flag computed (``panic = kind == "panic"``), a result read by one system's field.
        for node in ast.walk(tree):
            if id(node) not in decided and self._deciding(node):
                self.branches.append(node.lineno)

    def _is_word(self, node: ast.AST | None) -> bool:
        if isinstance(node, ast.Constant):
            return isinstance(node.value, str) and self.matches(node.value)
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return any(self._is_word(e) for e in node.elts)
        if isinstance(node, ast.MatchValue):
            return self._is_word(node.value)
        return False

    def _deciding(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Compare):
            return any(self._is_word(n) for n in (node.left, *node.comparators))
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            return self._is_word(node.slice)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            lookup = node.func.attr in {"get", "pop", "setdefault"}
            return lookup and bool(node.args) and self._is_word(node.args[0])
        return isinstance(node, ast.MatchValue) and self._is_word(node)

    def _on_vocabulary(self, test: ast.AST) -> bool:
        return any(self._deciding(node) for node in ast.walk(test))


def generic_modules() -> list[Path]:
    """Every module outside a system's own package (``tracker/systems/base.py`` is generic)."""
    return [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] != "systems"
        or len(path.relative_to(PACKAGE).parts) == 2
    ]


def feature_flags() -> list[str]:
    return [name for name, value in vars(base.Feature).items() if name.isupper() and value]


class Count(NamedTuple):
    """One module's count: literals (of them, words alone) and branches (of them, conditions)."""

    literals: int
    keys: int
    branches: int
    conditions: int


def measure() -> tuple[dict[str, Count], dict[str, int]]:
    """By module (relative to the repository), its count; and the totals."""
    matches = _matcher(vocabulary())
    by_file = {}
    for path in generic_modules():
        scan = Scan(path, matches)
        if scan.literals or scan.branches:
            by_file[str(path.relative_to(PACKAGE.parent))] = Count(
                len(scan.literals), len(scan.keys), len(scan.branches), scan.conditions
            )
    totals = {
        "literals": sum(c.literals for c in by_file.values()),
        "branches": sum(c.branches for c in by_file.values()),
        "flags": len(feature_flags()),
    }
    return by_file, totals


def table(by_file: dict[str, Count], totals: dict[str, int]) -> str:
    """The counts by module, most literals first, as ``pytest -s`` shows them."""
    owned = Counter(flag for system in own_systems().values() for flag in system.features)
    one = sum(1 for flag in feature_flags() if owned[getattr(base.Feature, flag)] == 1)
    heads = ("literals", "(words)", "branches", "(in ifs)")
    rows = [f"{'module':<36}" + "".join(f"{head:>10}" for head in heads)]
    ordered = sorted(by_file.items(), key=lambda row: (-row[1].literals, row[0]))
    for path, count in [
        *ordered,
        (f"{len(by_file)} modules", Count(*map(sum, zip(*by_file.values(), strict=True)))),
    ]:
        rows.append(f"{path:<36}" + "".join(f"{n:>10}" for n in count))
    rows.append(f"Feature flags: {totals['flags']} ({one} held by one system alone)")
    return "\n".join(rows)


def test_the_generic_code_speaks_no_more_of_one_rulebook_than_it_did():
    by_file, totals = measure()
    print("\n" + table(by_file, totals))
    over = {what: n for what, n in totals.items() if n > CEILING[what]}
    assert over == {}, f"more of one system's vocabulary than {CEILING}: {totals}"


def test_the_generic_code_meets_the_target_of_issue_33():
    _, totals = measure()
    assert all(totals[what] <= TARGET[what] for what in TARGET), totals


def test_the_count_finds_words_and_branches_but_not_prose(tmp_path):
    module = tmp_path / "slice.py"
    module.write_text(
        '''"""Mettle and Threat, said in a docstring: prose."""


def roll(kind, inputs, result, doc):
    # a comment on panic is prose too
    if kind == "panic":
        doc["mettle"] = 1
    hours = result["man_hours"]
    label = "steady" if inputs.get("retry_mode") else f"{hours} man-hours"
    match kind:
        case "fright-check":
            pass
    return [k for k in doc if k in ("threat", "stress")]
'''
    )
    scan = Scan(module, _matcher(vocabulary()))
    assert sorted(scan.literals) == sorted(
        ["panic", "mettle", "man_hours", "retry_mode", " man-hours", "fright-check", "threat"]
    )
    assert sorted(scan.keys) == [
        "fright-check",
        "man_hours",
        "mettle",
        "panic",
        "retry_mode",
        "threat",
    ]
    # The if, the ternary, the case and the filter decide; the subscript reads a GURPS result.
    assert (sorted(scan.branches), scan.conditions) == ([6, 8, 9, 11, 13], 4)
