"""``tracker serve``: the table's live view, in a browser, while the GM logs from the shell."""

from __future__ import annotations

import contextlib
import socket
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import click

from tracker.cli.declared import make_command
from tracker.cli.options import open_tracker
from tracker.cli.render import bold, printable, warn
from tracker.errors import BadInput
from tracker.systems.commands import Command, Option

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from tracker.app.invitations import Invited
    from tracker.app.live import Live
    from tracker.store.eventstore import CampaignRow

LOCAL = "127.0.0.1"


SERVE = Command(
    ("serve",),
    """Serve the current campaign's live view until Ctrl-C: the players' page, the GM's
    console and each player's phone. Both follow what is logged from any process: one-shot
    commands, the shell, another machine on the same database.

    The console and the phones open to links that last (invitations, kept hashed in the
    database): the first start prints one for the GM and one for each player's character,
    and a later start prints only those made then. A browser let in before stays let in
    across restarts; `tracker invite` makes, lists and revokes links.

    It answers only pages opened by localhost, by a loopback address or the one it listens on
    (any address with --host 0.0.0.0), or by a name --host or --allow-host gives; any other
    name is refused (421), so a web page elsewhere cannot reach the feed by pointing a name of
    its own at this machine (DNS rebinding).

    Over the internet, serve HTTPS: with a certificate and its key (--cert, --cert-key), or
    behind a reverse proxy that holds them (--proxy, its address, and --public-url, the
    address players open). Every link and QR code then uses the public address, cookies are
    Secure and browsers are told to use HTTPS alone.

    Every campaign of the database is served at its own address too (/c/ and eight hex
    digits, printed at start): its players' page, console and phones stay on it, and a key
    made for one campaign opens that campaign's alone. The plain addresses (/, /gm, /phone)
    follow the campaign the table is playing.

    Served over HTTPS, behind a proxy or with --public, the server is public: the players'
    page needs a link too (the first public start prints one; the console shows it with a QR
    code for the TV), and a request holding no live link is refused before anything is read.
    On the home network without these, the players' page stays open to the room.

    \b
    Examples:
      tracker serve                       on this computer only
      tracker serve --host 0.0.0.0        the table's TV and phones on the local network
      tracker serve --host 0.0.0.0 --allow-host gm-laptop.lan
      tracker serve --host 0.0.0.0 --port 443 --cert fullchain.pem --cert-key privkey.pem
      tracker serve --proxy 127.0.0.1 --public-url https://dice.example.org
      tracker serve --host 0.0.0.0 --public
    """,
    options=(
        Option(
            "--host",
            "Where to listen; 0.0.0.0 opens it to the local network (a TV, phones).",
            default=LOCAL,
            show_default=True,
        ),
        Option("--port", "0: any free.", "int", limits=(0, 65535), default=8765, show_default=True),
        Option(
            "--max-connections",
            "Open connections one address may hold; a table behind one router needs about 30.",
            "int",
            dest="per_address",
            limits=(1, 4096),
            default=64,
            show_default=True,
            metavar="N",
        ),
        Option(
            "--request-timeout",
            "Seconds a request's headers and body may take to arrive.",
            "int",
            dest="deadline",
            limits=(1, 60),
            default=30,
            show_default=True,
            metavar="SECONDS",
        ),
        Option(
            "--allow-host",
            "Also answer pages opened by this name (e.g. gm-laptop.lan); repeatable.",
            dest="allowed",
            multiple=True,
            metavar="NAME",
        ),
        Option(
            "--cert",
            "A TLS certificate (PEM, its chain after it) to serve HTTPS with, and --cert-key.",
            metavar="FILE",
        ),
        Option(
            "--cert-key",
            "The certificate's private key (PEM).",
            dest="cert_key",
            metavar="FILE",
        ),
        Option(
            "--public-url",
            "The address players open (https://dice.example.org): every link and QR code.",
            dest="public_url",
            metavar="URL",
        ),
        Option(
            "--proxy",
            "A reverse proxy's address, whose X-Forwarded-For and -Proto alone are believed.",
            dest="proxies",
            multiple=True,
            metavar="ADDRESS",
        ),
        Option(
            "--public",
            "The players' page needs its link too (implied by HTTPS and --proxy).",
            "bool",
        ),
    ),
    short_help="The table's live view: a page that follows the session.",
)


def _serve(
    host: str,
    port: int,
    per_address: int,
    deadline: int,
    allowed: tuple[str, ...],
    cert: str | None,
    cert_key: str | None,
    public_url: str | None,
    proxies: tuple[str, ...],
    public: bool,
) -> None:
    try:
        # Imported here to say a missing web server at once; ``_run`` serves with it.
        import uvicorn  # noqa: F401

        from tracker.web.connections import guarded_protocol
        from tracker.web.server import Hosts, make_app
    except ModuleNotFoundError as exc:
        # Only a web server not installed is the GM's to fix; tracker's own modules are there.
        if (exc.name or "").partition(".")[0] == "tracker":
            raise
        raise BadInput(
            "tracker serve needs its web server: install it with pip install 'tracker[serve]'."
        ) from None
    from tracker.app.live import Live

    # Refused before the database is opened.
    tls, address = _tls(cert, cert_key), public_address(public_url)
    _names_and_proxies(allowed, proxies)
    # Over HTTPS (the server's own or a proxy's) the table is on the internet, where the
    # players' page is no longer the room's to read.
    public = public or bool(tls) or bool(proxies) or (address or "").startswith("https:")

    tracker = open_tracker()
    # Pages are answered on several threads at once: each folds its own state from the
    # snapshots and the log, never one kept in memory that another thread folds on.
    tracker.warm = False
    live = Live(tracker)
    sock = _listening(host, port)
    bound_at, bound = sock.getsockname()[:2]
    scheme = "https" if tls else "http"
    base = address or f"{scheme}://{_reachable(host)}:{bound}"
    if address:
        allowed = (*allowed, urlsplit(address).hostname or "")
    made, kept = tracker.invitations.at_start(public=public)
    tracker.invitations.remember_base(base)
    _announce(live.row, host, base, made, kept, public)
    _announce_phones(live, made, kept, base)
    # A name given to --host is answered, as is the address it was bound at.
    try:
        hosts = Hosts(bound_at, (host, *allowed))
    except ValueError:  # a --host the system took that is no name a browser sends
        hosts = Hosts(bound_at, allowed)
    shown = {i.door: i.key for i in made if i.door is not None}
    app = make_app(live, hosts=hosts, base=base, proxies=proxies, shown=shown, public=public)
    _run(app, sock, guarded_protocol(deadline, per_address), tls)
    click.echo("Stopped.")


serve = make_command(SERVE, _serve, output=False, db=True)


def _tls(cert: str | None, key: str | None) -> tuple[str, str] | None:
    """The certificate and key to serve HTTPS with, tried before anything listens; None for
    plain HTTP. A missing, unreadable or mismatched pair is refused in one sentence."""
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        raise BadInput("Give --cert and --cert-key together: the certificate and its private key.")
    import ssl

    try:
        # An encrypted key would have OpenSSL ask for its passphrase on the terminal, where a
        # server started by a script waits for ever: it is refused like any key that fails.
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(
            cert, key, password=lambda: b""
        )
    except (OSError, ssl.SSLError, ValueError) as exc:
        why = getattr(exc, "strerror", None) or getattr(exc, "reason", None) or str(exc)
        raise BadInput(
            f"Cannot serve HTTPS with {cert} and {key} ({str(why)[:80]}); give a PEM "
            "certificate and the private key it was made with, unencrypted."
        ) from None
    return cert, key


def public_address(url: str | None, option: str = "--public-url") -> str | None:
    """The public address as links use it (no trailing slash); one sentence, naming
    ``option``, for an address that is not a plain http or https origin."""
    if url is None:
        return None
    parts = urlsplit(url.strip())
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or parts.username is not None
    ):
        raise BadInput(
            f"{option} takes the address players open, like https://dice.example.org, "
            f"not {url[:60]!r}."
        )
    return f"{parts.scheme}://{parts.netloc}"


def _names_and_proxies(allowed: tuple[str, ...], proxies: tuple[str, ...]) -> None:
    """Refuse an --allow-host that is no host name, and a --proxy that is not an address:
    only a proxy's own address is believed."""
    import ipaddress

    from tracker.web.server import Hosts

    try:
        Hosts(LOCAL, allowed)
    except ValueError as exc:
        raise BadInput(
            f"{str(exc)[:60]} is not a host name; give --allow-host a name such as gm-laptop.lan."
        ) from None
    for address in proxies:
        try:
            ipaddress.ip_address(address)
        except ValueError:
            raise BadInput(
                f"--proxy takes the proxy's address, like 127.0.0.1, not {address[:60]!r}."
            ) from None


def _listening(host: str, port: int) -> socket.socket:
    """A socket bound at ``host`` and ``port``; one taken already is refused with a sentence."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise BadInput(
            f"Cannot listen on {host}:{port} ({exc.strerror}); pick another --port."
        ) from None
    return sock


def _announce(
    row: CampaignRow,
    host: str,
    base: str,
    made: list[Invited],
    kept: list[dict[str, Any]],
    public: bool,
) -> None:
    """Say what is served and the two pages' addresses, and warn when others can reach them.
    ``base`` is the address the phones' links use (``_reachable``): listening on every address
    (0.0.0.0), the TV and the GM's laptop open the machine's address on the network, as the
    phones do. A link is printed when it was made now; else the one given before still
    opens its page. The players' page needs one only when the server is ``public``."""
    # Every campaign has an address of its own, which stays on it; the plain ones below follow
    # the table.
    click.echo(
        f'Serving "{bold(row.name)}" ({row.system}), its own address {base}/c/'
        f"{row.campaign_id[:8]}/. Ctrl-C stops."
    )
    if public:
        _announce_link("Players", "players", base, made, kept, row.campaign_id)
    else:
        click.echo(f"  Players: {base}/")
    _announce_link("GM", "gm", base, made, kept)
    if public:
        click.echo(
            "  Public: every page needs its link, and a link opens its own page alone; "
            "give each only to its holder."
        )
    elif host != LOCAL:
        click.echo(
            warn(
                f"Open on {host}: anyone on the network can read the players' page; "
                "the GM's address and each phone's link act at the table: give each only to "
                "its holder."
            )
        )


def _announce_link(
    label: str,
    kind: str,
    base: str,
    made: list[Invited],
    kept: list[dict[str, Any]],
    campaign_id: str | None = None,
) -> None:
    """The link into one page (the GM's, or the players' of the campaign served): printed
    when made now, else how many given before still open it."""
    shown = f"  {label + ':':<8} "
    new = next((i for i in made if i.invitation.kind == kind), None)
    if new is not None:
        click.echo(shown + new.link(base))
        return
    given = sum(
        1
        for doc in kept
        if doc["kind"] == kind and (campaign_id is None or doc["campaign_id"] == campaign_id)
    )
    another = "--gm --every-campaign" if kind == "gm" else f"--{kind}"
    click.echo(
        f"{shown}{base}{'/gm' if kind == 'gm' else '/'}, by the link given before "
        f"({given} live); `tracker invite new {another}` makes another"
    )


def _reachable(host: str) -> str:
    """The name a phone opens the server by: this machine's address on the local network
    when it listens on every address, else the one given."""
    if host == LOCAL:
        return "localhost"
    if host not in ("0.0.0.0", "::"):
        return f"[{host}]" if ":" in host else host
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        # No packet is sent: connecting a UDP socket only picks the interface a route uses.
        probe.connect(("192.0.2.1", 9))
        return probe.getsockname()[0]
    return host


def _announce_phones(
    live: Live, made: list[Invited], kept: list[dict[str, Any]], base: str
) -> None:
    """Each character's phone link made now (the console shows them too, with a QR code), and
    those invited before: the campaign served first, then every other campaign's."""
    from tracker.app.invitations import campaigns_served_first

    links = {i.invitation.character_id: i.link(base) for i in made}
    before = {doc["character_id"] for doc in kept if doc["kind"] == "phone"}
    for n, row in enumerate(campaigns_served_first(live.table)):
        lines = []
        for cid, ch in live.table.state(row).characters.items():
            if ch.npc or ch.retired_version is not None:
                continue
            if cid in links:
                lines.append(f"    {printable(ch.name)}: {links[cid]}")
            elif cid in before:
                lines.append(f"    {printable(ch.name)}: invited before; that link still works")
        if not lines:
            continue
        if n == 0:
            click.echo("  Phones (one link per character; the console revokes one):")
        else:
            click.echo(
                f"  Phones of {printable(row.name)} (live when the table turns to it; "
                f"its own address {base}/c/{row.campaign_id[:8]}/):"
            )
        for line in lines:
            click.echo(line)


def _run(app: Starlette, sock: socket.socket, protocol: type, tls: tuple[str, str] | None) -> None:
    """Serve ``app`` on ``sock`` until Ctrl-C, each connection read by ``protocol``, over TLS
    with ``tls`` (certificate, key)."""
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: object) -> None:
            # The feeds end their responses first, so no page is cut off mid-message.
            for hub in app.state.hubs():
                hub.close()
            super().handle_exit(sig, frame)

    config = uvicorn.Config(
        app,
        http=protocol,
        # No route speaks WebSocket: an upgrade is answered as the plain request it also is,
        # and its connection stays the protocol's, counted and held to the deadline.
        ws="none",
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=2,
        # Forwarded headers are believed from --proxy alone (``make_app``), never from
        # uvicorn's default of any local client.
        proxy_headers=False,
        ssl_certfile=tls[0] if tls else None,
        ssl_keyfile=tls[1] if tls else None,
    )
    # The server stops on Ctrl-C and hands the signal back once it has.
    with contextlib.suppress(KeyboardInterrupt):
        Server(config).run(sockets=[sock])


COMMANDS = [serve]
