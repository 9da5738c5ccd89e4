"""The rolls the GM asked of the players' phones, not rolled yet: one per character, kept in
the database (not the log) so that a restart of the web app keeps them and every server of the
database hands them to the phones it serves."""

from __future__ import annotations

from collections.abc import Iterable

from tracker.store.backend import Backend, placeholders


class AskedRolls:
    """The requests waiting on the phones (``EventStore.asked``), each a JSON document the web
    app wrote, by character."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def put(self, character_id: str, request_id: str, request: str) -> None:
        """The request now waiting on the character's phones, in place of any before it."""
        with self.backend.writing() as link:
            link.rows("DELETE FROM asked WHERE character_id = :c", {"c": character_id})
            link.rows(
                "INSERT INTO asked (character_id, request_id, request) VALUES (:c, :r, :doc)",
                {"c": character_id, "r": request_id, "doc": request},
            )

    def take(self, character_id: str, request_id: str) -> str | None:
        """The request ``request_id`` of the character's, taken off its phones; None when it is
        not the one waiting (rolled already, here or on another server, or asked anew)."""
        key = {"c": character_id, "r": request_id}
        with self.backend.writing() as link:
            found = list(
                link.rows(
                    "SELECT request FROM asked WHERE character_id = :c AND request_id = :r", key
                )
            )
            if not found:
                return None
            link.rows("DELETE FROM asked WHERE character_id = :c AND request_id = :r", key)
        return found[0][0]

    def waiting(self, character_ids: Iterable[str]) -> dict[str, tuple[str, str]]:
        """The request waiting on each of ``character_ids`` that has one: its id and document."""
        ids = list(character_ids)
        if not ids:
            return {}
        marks, params = placeholders("c", ids)
        with self.backend.reading() as link:
            rows = link.rows(
                "SELECT character_id, request_id, request FROM asked "
                f"WHERE character_id IN {marks}",
                params,
            )
            return {cid: (rid, doc) for cid, rid, doc in rows}
