"""The names part of ``tracker/systems/REFERENCE.md``, made from the docstrings themselves.

Every name ``tracker.systems.api`` exports is written with where it is defined, its signature
or fields, its docstring, and each public member with its type, its default and its own
docstring (a field's is the string right under it, as Python's own documentation tools read
it). The docstrings are the source: the reference cannot say one thing and the code another.
``tests/test_reference.py`` fails while the file is stale; to write it again::

    python -m tracker.systems.reference --write tracker/systems/REFERENCE.md

Only the part between the two markers is made; the guide around it is written by hand.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import inspect
import sys
from dataclasses import dataclass
from pathlib import Path

BEGIN = "<!-- names: made by python -m tracker.systems.reference; edit the docstrings -->"
END = "<!-- end of names -->"

# The heading each run of ``api.__all__`` goes under, by the name that starts it.
SECTIONS = {
    "RuleSystem": "The system",
    "Capability": "What a system may have beyond its core",
    "CharacterView": "What a system reads of the campaign",
    "RollRequest": "Rolls and contests",
    "Folding": "State, folds and obligations",
    "SystemCommand": "Commands, options and settings",
    "EventPayload": "Events and effects",
    "trait_value": "Helpers",
    "TrackerError": "Refusals",
}


def _capabilities() -> list[type]:
    from tracker.systems import capabilities

    return list(capabilities.Capability.__subclasses__())


# The classes a system subclasses, whose methods' defaults are what it gets by leaving them.
OVERRIDDEN = frozenset({"RuleSystem", "Folding", *(c.__name__ for c in _capabilities())})

# A value longer than this is not written beside its name (a tuple of options): its docstring
# says what it holds.
SHORTEST_VALUE = 60


@dataclass(frozen=True)
class Member:
    """One public member of a class as its source declares it."""

    name: str
    line: str
    doc: str | None
    default: str | None = None
    """What a method of ``RuleSystem`` or ``Folding`` does when a system leaves it alone, read
    from its body where that is one statement (``return []``); None where its docstring must
    say."""


@dataclass(frozen=True)
class Name:
    """One exported name: where it is defined, how it is declared, its docstring, its members."""

    name: str
    module: str
    kind: str
    line: str
    doc: str | None
    members: tuple[Member, ...]


def _api_path() -> Path:
    return Path(__file__).with_name("api.py")


@functools.cache
def origins() -> dict[str, str]:
    """Each name ``api`` imports, by the module that defines it (read from api's imports)."""
    tree = ast.parse(_api_path().read_text(encoding="utf-8"))
    return {
        alias.name: node.module
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module and node.module != "__future__"
        for alias in node.names
    }


@functools.cache
def exported() -> tuple[str, ...]:
    """``api.__all__``, read from its source so that making the reference imports nothing."""
    tree = ast.parse(_api_path().read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return tuple(ast.literal_eval(node.value))
    raise LookupError("tracker/systems/api.py has no __all__")


@functools.cache
def _module_tree(module: str) -> ast.Module:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise LookupError(f"no module {module}")
    return ast.parse(Path(spec.origin).read_text(encoding="utf-8"))


def _string_after(body: list[ast.stmt], index: int) -> str | None:
    """The string right under the statement at ``index``: an attribute's docstring."""
    if index + 1 < len(body):
        after = body[index + 1]
        if (
            isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            return inspect.cleandoc(after.value.value)
    return None


def _assigned(stmt: ast.stmt) -> tuple[str, str] | None:
    """(name, declaration) of an assignment to one plain name."""
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        line = f"{stmt.target.id}: {ast.unparse(stmt.annotation)}"
        return stmt.target.id, line + _value(stmt.value)
    if (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
    ):
        return stmt.targets[0].id, stmt.targets[0].id + _value(stmt.value)
    return None


def _value(value: ast.expr | None) -> str:
    if value is None:
        return ""
    text = ast.unparse(value)
    return f" = {text}" if len(text) <= SHORTEST_VALUE and "\n" not in text else ""


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> str:
    args = node.args
    if method and (args.posonlyargs or args.args):
        args = ast.arguments(
            posonlyargs=args.posonlyargs[1:] if args.posonlyargs else [],
            args=args.args if args.posonlyargs else args.args[1:],
            vararg=args.vararg,
            kwonlyargs=args.kwonlyargs,
            kw_defaults=args.kw_defaults,
            kwarg=args.kwarg,
            defaults=args.defaults,
        )
    decorators = {ast.unparse(d) for d in node.decorator_list}
    if "property" in decorators:
        returns = f": {ast.unparse(node.returns)}" if node.returns else ""
        return f"{node.name}{returns}  (a property)"
    returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    made = "classmethod " if "classmethod" in decorators else ""
    return f"{made}{node.name}({ast.unparse(args)}){returns}"


def members(cls: ast.ClassDef) -> tuple[Member, ...]:
    """The public members a class body declares (fields, class attributes, methods), in order,
    each with its docstring; a name declared twice counts once, as Python reads it."""
    out: dict[str, Member] = {}
    overridden = cls.name in OVERRIDDEN
    for index, stmt in enumerate(cls.body):
        default = None
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            name, line, doc = stmt.name, _signature(stmt, True), ast.get_docstring(stmt)
            if overridden:
                default = _default(stmt)
        elif (found := _assigned(stmt)) is not None:
            (name, line), doc = found, _string_after(cls.body, index)
        else:
            continue
        if name.startswith("_") or name in out:
            continue
        out[name] = Member(name, line, doc, default)
    return tuple(out.values())


def _default(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """What a method does by default, where its body says it in one statement."""
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # its docstring
    if not body:
        return "does nothing."
    if len(body) != 1:
        return None
    [stmt] = body
    if isinstance(stmt, ast.Pass):
        return "does nothing."
    if isinstance(stmt, ast.Raise) and stmt.exc is not None:
        raised = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
        if ast.unparse(raised) == "NotImplementedError":
            return "none; a system must implement it."
        return f"refuses (`{ast.unparse(raised)}`)."
    if isinstance(stmt, ast.Return):
        # What it works out from the system itself is no default to leave: only a constant,
        # or what it was given.
        if stmt.value is None:
            return "returns `None`."
        if not any(isinstance(n, ast.Name) and n.id == "self" for n in ast.walk(stmt.value)):
            text = ast.unparse(stmt.value)
            if len(text) <= SHORTEST_VALUE and "\n" not in text:
                return f"returns `{text}`."
    return None


def _inherited(member: Member, cls: ast.ClassDef) -> Member:
    """A member with no docstring of its own takes its base's, where a base this module
    describes documents it (``RollMade.TYPE`` is ``EventPayload.TYPE``), as ``inspect.getdoc``
    reads a method's."""
    if member.doc:
        return member
    for base in cls.bases:
        name = ast.unparse(base)
        if name not in origins():
            continue
        for stmt in _module_tree(origins()[name]).body:
            if isinstance(stmt, ast.ClassDef) and stmt.name == name:
                for theirs in members(stmt):
                    if theirs.name == member.name:
                        found = _inherited(theirs, stmt)
                        if found.doc:
                            return Member(member.name, member.line, found.doc, member.default)
    return member


def described(name: str) -> Name:
    """One exported name, read from the source of the module that defines it."""
    module = origins()[name]
    body = _module_tree(module).body
    for index, stmt in enumerate(body):
        if isinstance(stmt, ast.ClassDef) and stmt.name == name:
            bases = [ast.unparse(b) for b in stmt.bases] + [ast.unparse(k) for k in stmt.keywords]
            line = f"class {name}" + (f"({', '.join(bases)})" if bases else "")
            own = tuple(_inherited(m, stmt) for m in members(stmt))
            return Name(name, module, "class", line, ast.get_docstring(stmt), own)
        if isinstance(stmt, ast.FunctionDef) and stmt.name == name:
            line = "def " + _signature(stmt, False)
            return Name(name, module, "function", line, ast.get_docstring(stmt), ())
        found = _assigned(stmt)
        if found is not None and found[0] == name:
            return Name(name, module, "value", found[1], _string_after(body, index), ())
    raise LookupError(f"{module} defines no {name}")


def _indented(text: str, prefix: str = "  ") -> str:
    return "\n".join(prefix + line if line else "" for line in text.splitlines())


def section(item: Name) -> str:
    """One name as the reference writes it."""
    parts = [
        f"### `{item.name}`",
        f"`{item.module}.{item.name}`, a {item.kind}: `{item.line}`",
    ]
    if item.doc:
        parts.append(item.doc)
    if item.members:
        lines = []
        for member in item.members:
            lines.append(f"- `{member.line}`")
            if member.doc:
                lines.append("")
                lines.append(_indented(member.doc))
            if member.default:
                lines.append("")
                lines.append(f"  Default: {member.default}")
            lines.append("")
        parts.append("\n".join(lines).rstrip())
    return "\n\n".join(parts)


def names_part() -> str:
    """The reference's names, between its markers (markers included)."""
    parts = [BEGIN]
    for name in exported():
        heading = SECTIONS.get(name)
        if heading:
            parts.append(f"## {heading}")
        parts.append(section(described(name)))
    parts.append(END)
    return "\n\n".join(parts)


def written(document: str) -> str:
    """``document`` with its names part made afresh from the docstrings."""
    before, begin, rest = document.partition(BEGIN)
    _, end, after = rest.partition(END)
    if not begin or not end:
        raise LookupError("the reference has no names part between its markers")
    return before + names_part() + after


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "--write":
        print(
            "usage: python -m tracker.systems.reference --write tracker/systems/REFERENCE.md",
            file=sys.stderr,
        )
        return 2
    path = Path(argv[1])
    path.write_text(written(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
