"""`companion network ...`: the box's own network, through NetworkManager.

    companion network status [--json]
    companion network hotspot [--password | --password-stdin] [--interface IF]
    companion network join SSID [--password | --password-stdin] [--interface IF]
    companion network auto [--wait S] [--interface IF]

``hotspot`` without a password opens the open set-up network (and forgets a password set
before); with one, WPA2, and the password is kept in the state directory (0600) for ``auto`` and
the host page's Wi-Fi QR code. ``auto`` runs at boot (companion-network.service): a known Wi-Fi
within S seconds (default 45), else the box's own network. Exit 0 done, 2 bad input or no
NetworkManager (one sentence on stderr).

The password never needs to be on companion's own command line, where every local user can read
it (``ps``, ``/proc/PID/cmdline``): ``--password`` alone asks for it on the terminal without
echo (the box's own network's twice), ``--password-stdin`` reads its first line from standard
input. ``--password P`` still works, with a warning (``network.password_on_command_line``).
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from companion.network import (
    MDNS_NAME,
    NetworkError,
    NetworkStatus,
    NmcliNetwork,
    auto,
    default_ssid,
    join_or_fall_back,
    join_password_problem,
    password_problem,
    ssid_problem,
)
from companion.network.box import AUTO_WAIT
from companion.network.saved import read_password, save_password


def register(sub: Any) -> None:
    net = sub.add_parser("network", help="the box's own network and the Wi-Fi it joins")
    nsub = net.add_subparsers(dest="network_command", metavar="SUBCOMMAND")
    net.set_defaults(func=lambda args: (net.print_help(), 2)[1])

    def common(p: Any, state: bool = True) -> None:
        p.add_argument("--interface", metavar="IF", help="the Wi-Fi device (default: the first)")
        p.add_argument("--json", action="store_true", help="print the status as JSON")
        if state:
            p.add_argument("--state-dir", help="where the password of the box's network is kept")
            p.add_argument("--config", help="configuration file (TOML)")

    st = nsub.add_parser("status", help="how phones reach the box now")
    common(st, state=False)
    st.set_defaults(func=run_status)

    hs = nsub.add_parser("hotspot", help="open the box's own network")
    password_options(hs, "a WPA2 password, 8-63 characters (left out: an open network)")
    common(hs)
    hs.set_defaults(func=run_hotspot)

    jn = nsub.add_parser("join", help="join a Wi-Fi network (the box's own stays the fallback)")
    jn.add_argument("ssid", metavar="SSID")
    password_options(jn, "the network's password (left out: an open network)")
    common(jn)
    jn.set_defaults(func=run_join)

    au = nsub.add_parser("auto", help="at boot: a known Wi-Fi, else the box's own network")
    au.add_argument(
        "--wait",
        type=float,
        default=AUTO_WAIT,
        metavar="S",
        help=f"seconds a known Wi-Fi has to connect (default {AUTO_WAIT:g})",
    )
    common(au)
    au.set_defaults(func=run_auto)


ASK = object()  # --password without a value: ask on the terminal
HOTSPOT_PROMPT = "Password of the box's own network (8-63 characters): "
ARGV_WARNING = "network.password_on_command_line"


def password_options(p: Any, what: str) -> None:
    way = p.add_mutually_exclusive_group()
    way.add_argument(
        "--password",
        nargs="?",
        const=ASK,
        metavar="P",
        help=f"{what}, asked on the terminal without echo; --password P works too, with a "
        "warning: every user of this machine can read P (ps)",
    )
    way.add_argument(
        "--password-stdin",
        action="store_true",
        help="read the password from the first line of standard input",
    )


def typed(prompt: str) -> str:
    """What the person types at ``prompt`` on the terminal, without echo."""
    from companion.cli import CommandError

    try:
        return getpass.getpass(prompt, stream=sys.stderr)
    except EOFError:
        raise CommandError("no password was typed") from None


def password_of(args: argparse.Namespace, prompt: str, *, confirm: bool = False) -> str | None:
    """The password the command line asks for, never from the command line if avoidable:
    ``--password-stdin`` (the first line; on a terminal, asked without echo), ``--password``
    alone (asked on the terminal without echo; ``confirm``: twice), ``--password P`` (taken,
    with a warning on stderr), else None."""
    from companion.cli import CommandError

    stdin: TextIO | None = sys.stdin
    given = args.password
    if isinstance(given, str):
        print(
            f"companion: warning: [{ARGV_WARNING}] a password given as --password P is visible "
            "to every user of this machine while the command runs (ps, /proc); next time use "
            "--password alone (it asks) or --password-stdin",
            file=sys.stderr,
            flush=True,
        )
        return given
    on_terminal = stdin is not None and stdin.isatty()
    if args.password_stdin and not on_terminal:
        line = stdin.readline() if stdin is not None else ""
        password = line.removesuffix("\n").removesuffix("\r")
        if not password:
            raise CommandError("--password-stdin: standard input has no password on its first line")
        return password
    if given is ASK or args.password_stdin:
        if not on_terminal:
            raise CommandError(
                "--password asks on a terminal and there is none: give the password on "
                "standard input with --password-stdin"
            )
        password = typed(prompt)
        if not password:
            raise CommandError("no password was typed")
        if confirm and typed("The same password again: ") != password:
            raise CommandError("the two passwords typed differ; nothing was changed")
        return password
    return None


def network(args: argparse.Namespace) -> NmcliNetwork:
    from companion.cli import CommandError

    iface = args.interface
    if iface is not None and (not iface or len(iface) > 15 or "/" in iface or iface.isspace()):
        raise CommandError(f"{iface!r} is not a network interface name")
    return NmcliNetwork(default_ssid(), iface)


def state_dir(args: argparse.Namespace) -> Path:
    from companion.cli import state_dir_of

    return state_dir_of(args)


def failed(exc: NetworkError) -> Exception:
    from companion.cli import CommandError

    return CommandError(exc.message.rstrip("."))


def show(status: NetworkStatus, as_json: bool, what: str | None = None) -> None:
    if as_json:
        print(json.dumps(status.to_json(), ensure_ascii=False))
        return
    if what:
        print(f"companion: {what}")
    print(describe(status))


def describe(st: NetworkStatus) -> str:
    where = ", ".join(st.addresses) or "no address"
    name = f" (also {st.mdns})" if st.mdns else f" ({MDNS_NAME} is not published)"
    if st.mode == "hotspot":
        kind = "WPA2" if st.security == "wpa2" else "open"
        return f"the box's own network {st.ssid} ({kind}) on {st.interface}: {where}{name}"
    if st.mode == "wifi":
        return f"on the Wi-Fi {st.ssid} ({st.security}) via {st.interface}: {where}{name}"
    if st.mode == "wired":
        return f"wired via {st.interface}: {where}{name}"
    return "no network: phones cannot reach the box"


def run_status(args: argparse.Namespace) -> int:
    try:
        st = network(args).status()
    except NetworkError as exc:
        raise failed(exc) from None
    show(st, args.json)
    return 0


def checked_password(password: str | None) -> str | None:
    from companion.cli import CommandError

    if password is None:
        return None
    problem = password_problem(password)
    if problem is not None:
        raise CommandError(problem.rstrip("."))
    return password


def run_hotspot(args: argparse.Namespace) -> int:
    from companion.cli import CommandError

    password = checked_password(password_of(args, HOTSPOT_PROMPT, confirm=True))
    net = network(args)
    where = state_dir(args)
    try:
        st = net.open_hotspot(password)
    except NetworkError as exc:
        raise failed(exc) from None
    try:
        save_password(where, password)
    except OSError as exc:
        raise CommandError(
            f"the network is open, but its password cannot be kept in {where}: {exc.strerror}"
        ) from None
    show(st, args.json, "the box's own network is open")
    return 0


def run_join(args: argparse.Namespace) -> int:
    from companion.cli import CommandError

    problem = ssid_problem(args.ssid)
    if problem is not None:
        raise CommandError(problem.rstrip("."))
    password = password_of(args, f"Password of {args.ssid}: ")
    problem = None if password is None else join_password_problem(password)
    if problem is not None:
        raise CommandError(problem.rstrip("."))
    net = network(args)
    own = read_password(state_dir(args))
    try:
        st = join_or_fall_back(net, args.ssid, password, own)
    except NetworkError as exc:
        raise CommandError(
            f"{exc.message.rstrip('.')}; the box's own network is open again"
        ) from None
    show(st, args.json, f"joined {args.ssid}")
    return 0


def run_auto(args: argparse.Namespace) -> int:
    from companion.cli import CommandError

    if not 0 <= args.wait <= 3600:
        raise CommandError("--wait must be between 0 and 3600 seconds")
    net = network(args)
    where = state_dir(args)
    try:
        done, st = auto(net, read_password(where), wait=args.wait, state_dir=where)
    except NetworkError as exc:
        raise failed(exc) from None
    what = {
        "wifi": "a known Wi-Fi is connected",
        "kept": "the box's own network was already open",
        "hotspot": "no known Wi-Fi: the box's own network is open",
    }[done]
    show(st, args.json, what)
    return 0
