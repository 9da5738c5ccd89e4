"""tracker: an event-sourced session tracker for tabletop role-playing campaigns."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec

__version__ = "0.1.0"

# What an installed tracker holds inside the package, and the checkout beside it.
_BESIDE = {"tracker.migrations": "migrations", "tracker.fixtures": "fixtures"}


class _Checkout:
    """Finds ``tracker.migrations`` and ``tracker.fixtures`` in a checkout when nothing else
    does. A wheel ships the top-level migrations/ and fixtures/ folders inside the package; a
    checkout keeps them beside it. `python -m tracker` run from a checkout imports the checkout's
    package (the current folder comes first on the path), even over an installed tracker, and
    would then find no migrations: last on the search path, this costs nothing otherwise."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> ModuleSpec | None:
        folder = _BESIDE.get(name)
        if folder is None:
            return None
        from importlib.util import spec_from_file_location
        from pathlib import Path

        where = Path(__file__).resolve().parent.parent / folder
        if not (where / "__init__.py").is_file():
            return None
        return spec_from_file_location(
            name, where / "__init__.py", submodule_search_locations=[str(where)]
        )


sys.meta_path.append(_Checkout())
