"""A receipt of a log's head: a short line players keep, which a later log must still hold.

A hash chain inside one file proves that what it holds was not edited, reordered or filled in
between; it cannot prove that nothing was cut from its end, or that the whole file was not
replaced by another chain made from scratch. Whoever keeps a receipt can: ``tracker verify
--against RECEIPT`` says whether the log still holds, at that place, the event the receipt names.

A receipt reads ``tracker:CAMPAIGN:VERSION:HASH``: the first 8 characters of the campaign's id,
the event's version, and the first 16 hex digits (64 bits) of its hash.
"""

from __future__ import annotations

import re
from typing import NamedTuple

PATTERN = re.compile(r"tracker:([0-9a-f]{8}):(\d{1,18}):([0-9a-f]{16})")


class Receipt(NamedTuple):
    campaign: str
    version: int
    digest: str

    def __str__(self) -> str:
        return f"tracker:{self.campaign}:{self.version}:{self.digest}"


def receipt(campaign_id: str, version: int, head_hash: str) -> Receipt:
    """The receipt of a campaign's log at ``version``, whose event has ``head_hash``."""
    return Receipt(campaign_id[:8], version, head_hash[:16])


def find_receipt(text: str) -> Receipt | None:
    """The receipt written in ``text`` (a line a player kept), if there is one."""
    found = PATTERN.search(text)
    if found is None:
        return None
    return Receipt(found.group(1), int(found.group(2)), found.group(3))
