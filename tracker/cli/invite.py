"""``tracker invite``: the links into the GM's console and the players' phones, made, listed
and revoked (``tracker.app.invitations``)."""

from __future__ import annotations

import sys
from typing import Any

import click

from tracker.cli.declared import make_command
from tracker.cli.options import emit_json, open_tracker
from tracker.cli.render import dim, local_time, printable, warn
from tracker.errors import BadInput
from tracker.systems.commands import Argument, Command, Option


@click.group("invite")
def invite() -> None:
    """Links into the GM's console, the players' phones and page: new, list, revoke."""


INVITE_NEW = Command(
    ("invite", "new"),
    """Make a link into a character's phone, with --gm into the GM's console of the campaign
    (with --every-campaign, of every campaign), or with --players into the players' page (a
    public server's TV), and print it
    (with --qr, as a QR code to scan too). The link is shown this once: the database keeps only
    a hash of its key. It lasts across restarts of `tracker serve` until it expires (--expires)
    or is revoked (`tracker invite revoke`); the links given before keep working.

    \b
    Examples:
      tracker invite new Wren --qr
      tracker invite new Tomas --expires 30d --url https://dice.example.org
      tracker invite new --gm
      tracker invite new --players --expires 2027-01-31
    """,
    arguments=(
        Argument(
            "character",
            "The character whose phone the link opens.",
            required=False,
            complete="characters",
        ),
    ),
    options=(
        Option("--gm", "A link into the GM's console of the campaign instead.", "bool"),
        Option(
            "--every-campaign",
            "With --gm: the console of every campaign, which turns the table between them.",
            "bool",
            dest="every",
        ),
        Option(
            "--players",
            "A link into the players' page instead (needed on a public server).",
            "bool",
        ),
        Option(
            "--expires",
            "When it stops working: a span (12h, 30d, 2w) or a date (2027-01-31).",
            metavar="WHEN",
        ),
        Option(
            "--url",
            "The server's address for the link; by default the last `tracker serve`'s.",
            metavar="URL",
        ),
        Option("--qr", "Print the link as a QR code too.", "bool"),
    ),
)


def _invite_new(
    as_json: bool,
    character: str | None,
    gm: bool,
    every: bool,
    players: bool,
    expires: str | None,
    url: str | None,
    qr: bool,
) -> None:
    from tracker.app.invitations import expiry
    from tracker.cli.serve import public_address

    if every and not gm:
        raise BadInput("--every-campaign goes with --gm: the GM's console of every campaign.")
    if [gm, players, character is not None].count(True) != 1:
        raise BadInput(
            "Name the character whose phone to invite, or give --gm for the GM's console or "
            "--players for the players' page."
        )
    tracker = open_tracker()
    base = public_address(url, "--url") if url else tracker.invitations.base()
    if base is None:
        raise BadInput(
            "No server address is known yet; give --url, like --url https://dice.example.org, "
            "or start `tracker serve` once."
        )
    made = tracker.invitations.invite(
        character=character, players=players, every=every, expires_at=expiry(expires)
    )
    link = made.link(base)
    if as_json:
        emit_json({**made.invitation.to_dict(), "who": made.who, "link": link})
        return
    until = made.invitation.expires_at
    click.echo(
        f"{printable(made.who)}: {link}\n"
        f"  {dim('shown this once; it works until ' + (local_time(until) if until else 'revoked'))}"
        f"{dim(' (tracker invite revoke ' + made.invitation.invitation_id + ')')}"
    )
    if qr:
        _qr(link)


def _qr(link: str) -> None:
    """The link as a QR code in the terminal, for a phone's camera."""
    try:
        import segno
    except ImportError:
        raise BadInput(
            "QR codes need segno: install it with pip install 'tracker[serve]'."
        ) from None
    segno.make(link, error="m").terminal(out=sys.stdout, compact=True, border=2)


invite.add_command(make_command(INVITE_NEW, _invite_new))


INVITE_LIST = Command(
    ("invite", "list"),
    """List the live links into the console and the phones: whom each lets in, when it was
    made and until when it works (--all: the revoked and expired too). The links themselves
    are not kept, so none is shown.

    \b
    Example:
      tracker invite list --all --json
    """,
    options=(Option("--all", "Show the revoked and expired ones too.", "bool", dest="everything"),),
)


def _invite_list(as_json: bool, everything: bool) -> None:
    listed = open_tracker().invitations.listed(everything=everything)
    if as_json:
        emit_json({"invitations": listed})
        return
    if not listed:
        click.echo("No live invitations; `tracker invite new NAME` or `tracker serve` makes them.")
    for doc in listed:
        click.echo(f"{doc['invitation_id']}  {printable(doc['who'])}  {dim(_standing(doc))}")


def _standing(doc: dict[str, Any]) -> str:
    """Whether an invitation works, and since and until when, as a list says it."""
    made = f"made {local_time(doc['made_at'])}"
    if doc["revoked_at"]:
        return f"{made}, revoked {local_time(doc['revoked_at'])}"
    if doc["expires_at"]:
        word = "expires" if doc["live"] else "expired"
        return f"{made}, {word} {local_time(doc['expires_at'])}"
    return f"{made}, until revoked"


invite.add_command(make_command(INVITE_LIST, _invite_list))


INVITE_REVOKE = Command(
    ("invite", "revoke"),
    """Revoke invitations: one by its id (`tracker invite list`), every live one of a
    character's phone by the character's name, every live one of the GM's with gm, or every
    live one of the current campaign's players' page with players. A page
    opened by one stops at once on a server of this machine and within two seconds on any
    other; nothing it did is undone.

    \b
    Examples:
      tracker invite revoke 3f9c02ab
      tracker invite revoke Wren
    """,
    arguments=(
        Argument("what", "An invitation's id, a character's name, gm or players.", example="Wren"),
    ),
)


def _invite_revoke(as_json: bool, what: str) -> None:
    tracker = open_tracker()
    revoked = tracker.invitations.revoke(what)
    if as_json:
        emit_json({"revoked": [inv.to_dict() for inv in revoked]})
        return
    for inv in revoked:
        click.echo(f"Revoked {inv.invitation_id} ({printable(tracker.invitations.who(inv))}).")
    if not revoked:
        click.echo(warn("Nothing was live to revoke."))


invite.add_command(make_command(INVITE_REVOKE, _invite_revoke))


COMMANDS = [invite]
