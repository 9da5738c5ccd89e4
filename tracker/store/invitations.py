"""The table's invitations: the keys the GM hands out, kept where a restart and a second server
find them.

A key opens one door: the GM's console (``GM``), one character's phone (``PHONE``) or the
players' page (``PLAYERS``), for one campaign or, with no campaign, every campaign of the
database. The database keeps a hash of it (a stolen copy of the database opens nothing),
whom it lets in, when it was made, until when it lasts and whether it was revoked. None of
this is the log: the log keeps what was played, not who was let in, and revoking a key changes
no fact of the game.

Here too is the secret the web app's page tokens are made with (``page_secret``): one per
database, so a page opened before a restart, or on another server of the same database, goes
on acting without a reload.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from typing import Any

import msgspec

from tracker.store.backend import Backend, now_utc, placeholders

GM, PHONE, PLAYERS = "gm", "phone", "players"
KINDS = (GM, PHONE, PLAYERS)
PAGE_SECRET = "web.page_secret"
"""The settings key the page tokens' secret is kept under."""

_COLUMNS = "invitation_id, kind, campaign_id, character_id, made_at, expires_at, revoked_at"


class Invitation(msgspec.Struct, frozen=True):
    """One key handed out, as the database keeps it: never the key itself."""

    invitation_id: str
    """A short name for it (eight hex digits) that lists show and revoke takes."""
    kind: str
    """Which door it opens: ``GM``, ``PHONE`` or ``PLAYERS``."""
    campaign_id: str | None
    """The campaign it opens; None: every campaign of the database."""
    character_id: str | None
    """The character whose phone it opens (``PHONE``)."""
    made_at: str
    expires_at: str | None
    """When it stops opening anything (UTC, ISO 8601); None: when revoked."""
    revoked_at: str | None

    def live(self, now: str) -> bool:
        """Whether it opens its door at ``now`` (an ISO 8601 UTC stamp, as ``now_utc``)."""
        return self.revoked_at is None and (self.expires_at is None or now < self.expires_at)

    def to_dict(self) -> dict[str, Any]:
        return msgspec.structs.asdict(self)


def digest_of(key: str) -> str:
    """What the database keeps of a key: its SHA-256. A key is 144 random bits, so no salt or
    slow hash is needed against guessing it back from the hash."""
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


class Invitations:
    """The invitations of one database (``EventStore.invitations``)."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def make(
        self,
        kind: str,
        *,
        campaign_id: str | None = None,
        character_id: str | None = None,
        expires_at: str | None = None,
    ) -> tuple[Invitation, str]:
        """A new invitation and its key: the only time the key is known; it is not kept."""
        if kind not in KINDS:
            raise ValueError(kind)
        key = secrets.token_urlsafe(18)
        made = Invitation(
            invitation_id=secrets.token_hex(4),
            kind=kind,
            campaign_id=campaign_id,
            character_id=character_id,
            made_at=now_utc(),
            expires_at=expires_at,
            revoked_at=None,
        )
        with self.backend.writing() as link:
            link.rows(
                f"INSERT INTO invitations ({_COLUMNS}, digest) VALUES (:invitation_id, :kind, "
                ":campaign_id, :character_id, :made_at, :expires_at, :revoked_at, :digest)",
                {**made.to_dict(), "digest": digest_of(key)},
            )
        return made, key

    def opened_by(self, key: str) -> Invitation | None:
        """The invitation ``key`` is the key of, live or not; None for no key handed out.
        Looked up by its hash, so the time taken says nothing of how near a guess came."""
        with self.backend.reading() as link:
            for row in link.rows(
                f"SELECT {_COLUMNS} FROM invitations WHERE digest = :digest",
                {"digest": digest_of(key)},
            ):
                return Invitation(*row)
        return None

    def listed(self) -> list[Invitation]:
        """Every invitation, oldest first (revoked and expired ones too)."""
        with self.backend.reading() as link:
            rows = list(
                link.rows(f"SELECT {_COLUMNS} FROM invitations ORDER BY made_at, invitation_id")
            )
        return [Invitation(*row) for row in rows]

    def revoke(self, invitation_ids: Iterable[str]) -> list[Invitation]:
        """Revoke the invitations named (those not revoked already); the ones revoked now."""
        ids = list(invitation_ids)
        if not ids:
            return []
        marks, params = placeholders("i", ids)
        now = now_utc()
        with self.backend.writing() as link:
            rows = list(
                link.rows(
                    f"SELECT {_COLUMNS} FROM invitations "
                    f"WHERE invitation_id IN {marks} AND revoked_at IS NULL",
                    params,
                )
            )
            link.rows(
                f"UPDATE invitations SET revoked_at = :now "
                f"WHERE invitation_id IN {marks} AND revoked_at IS NULL",
                {**params, "now": now},
            )
        return [msgspec.structs.replace(Invitation(*row), revoked_at=now) for row in rows]

    def live_among(self, keys: Iterable[str]) -> set[str]:
        """Which of ``keys`` still open their door now: what a server asks of the keys its
        open pages were let in by, so a key revoked anywhere ends them."""
        by_digest = {digest_of(key): key for key in keys}
        if not by_digest:
            return set()
        marks, params = placeholders("d", list(by_digest))
        with self.backend.reading() as link:
            rows = list(
                link.rows(
                    f"SELECT digest, expires_at FROM invitations WHERE digest IN {marks} "
                    "AND revoked_at IS NULL",
                    params,
                )
            )
        now = now_utc()
        return {by_digest[d] for d, until in rows if until is None or now < until}

    def page_secret(self) -> bytes:
        """The secret the web app's page tokens are made with: made once, by whichever server
        asks first, and kept; every server of the database makes and checks the same tokens."""
        with self.backend.reading() as link:
            for (value,) in link.rows(
                "SELECT value FROM settings WHERE key = :key", {"key": PAGE_SECRET}
            ):
                return bytes.fromhex(value)
        with self.backend.writing() as link:
            # Under the writers' lock: of two servers starting at once, the second finds the
            # first's secret here and keeps it.
            for (value,) in link.rows(
                "SELECT value FROM settings WHERE key = :key", {"key": PAGE_SECRET}
            ):
                return bytes.fromhex(value)
            made = secrets.token_bytes(32)
            link.rows(
                "INSERT INTO settings (key, value) VALUES (:key, :value)",
                {"key": PAGE_SECRET, "value": made.hex()},
            )
        return made
