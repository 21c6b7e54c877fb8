"""`companion host open-claim`: let a phone become host, for a box without buttons.

    companion host open-claim [--seconds 60] [--state-dir DIR] [--config FILE]

It writes ``DIR/host-claim`` (see companion.statedir.request_claim), which the running
``companion serve`` of that state directory takes within a second: the first phone that asks
(``POST /api/host/claim``, the page ``/host/claim``) in the next N seconds becomes host. Only
the state directory's owner may ask (the user the service runs as; the same person could read
the host token).
"""

from __future__ import annotations

import argparse
import os
import pwd
import shlex
import time
from typing import Any

DEFAULT_SECONDS = 60
WAIT_TAKEN = 3.0  # seconds to wait for the server to take the request


def register(sub: Any) -> None:
    p = sub.add_parser("host", help="the box's host: let a phone become host")
    hsub = p.add_subparsers(dest="host_command", metavar="COMMAND")
    o = hsub.add_parser(
        "open-claim",
        help="open a host-claim window on the running server (what the box's confirm button does)",
    )
    o.add_argument(
        "--seconds",
        type=int,
        default=DEFAULT_SECONDS,
        help=f"how long the window stays open (default {DEFAULT_SECONDS}, at most 600)",
    )
    o.add_argument("--state-dir", help="the server's state directory (default: the config's)")
    o.add_argument("--config", help="configuration file (TOML)")
    o.set_defaults(func=open_claim)
    p.set_defaults(func=lambda args: _usage(p))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _owner_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def open_claim(args: argparse.Namespace) -> int:
    from companion.cli import CommandError, state_dir_of
    from companion.statedir import MAX_CLAIM_SECONDS, lock_holder, request_claim

    if not 5 <= args.seconds <= MAX_CLAIM_SECONDS:
        raise CommandError(f"--seconds must be between 5 and {MAX_CLAIM_SECONDS}")
    state_dir = state_dir_of(args)
    try:
        st = state_dir.stat()
    except OSError:
        raise CommandError(
            f"there is no state directory {state_dir}: start companion serve first"
        ) from None
    if not state_dir.is_dir():
        raise CommandError(f"{state_dir} is not a directory")
    if st.st_uid != os.geteuid():
        owner = _owner_name(st.st_uid)
        again = shlex.join(
            ["sudo", "-u", owner, "companion", "host", "open-claim", "--state-dir", str(state_dir)]
        )
        raise CommandError(
            f"only the state directory's owner ({owner}) may open a host claim on {state_dir}; "
            f"run: {again}"
        )
    try:
        path = request_claim(state_dir, args.seconds, time.time())
    except OSError as exc:
        raise CommandError(f"cannot write to {state_dir}: {exc.strerror or exc}") from None
    deadline = time.monotonic() + WAIT_TAKEN
    while path.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    if not path.exists():
        print(
            f"companion: host claim window open for {args.seconds} s: on the phone, open "
            "/host/claim of the dashboard and tap the button (the first phone becomes host)",
            flush=True,
        )
        return 0
    if lock_holder(state_dir) is None:
        print(
            f"companion: no server runs on {state_dir}; the window opens when it starts "
            f"(if within {args.seconds} s)",
            flush=True,
        )
        return 0
    raise CommandError(f"the server on {state_dir} did not take the request; is it stuck?", 1)
