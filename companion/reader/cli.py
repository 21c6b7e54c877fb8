"""`companion reader listen|enroll|simulate`. Handlers import their parts lazily."""

from __future__ import annotations

import argparse
from typing import Any

from companion.cli import command_group, handler

_COMMANDS = "companion.reader.commands"


def register(sub: Any) -> None:
    rsub = command_group(sub, "reader", "the NFC card reader")

    listen = rsub.add_parser("listen", help="print one line per card tapped on the reader")
    listen.add_argument("--port", required=True, help="device path or pyserial URL")
    listen.add_argument("--json", action="store_true", help="one JSON object per line")
    listen.add_argument("--count", type=_positive, help="stop after N cards")
    listen.add_argument("--registry", help="UID -> card registry (default: in the state dir)")
    listen.set_defaults(func=handler(_COMMANDS, "listen_main"))

    enroll = rsub.add_parser(
        "enroll", help="tell the companion what each tapped card is (and write its sticker)"
    )
    enroll.add_argument("--port", required=True, help="device path or pyserial URL")
    enroll.add_argument(
        "--cards",
        help="the cards about to be tapped, in order, comma-separated "
        "(e.g. red,red,loco,ticket:paris-wien); without it, asks for each card",
    )
    enroll.add_argument(
        "--write", action="store_true", help="also write each card's payload onto its sticker"
    )
    enroll.add_argument("--count", type=_positive, help="stop after N cards")
    enroll.add_argument("--registry", help="UID -> card registry (default: in the state dir)")
    enroll.set_defaults(func=handler(_COMMANDS, "enroll_main"))

    sim = rsub.add_parser(
        "simulate",
        help="run a fake reader on a pseudo-terminal and print its path",
        description="Commands on stdin: tap UID [PAYLOAD], tap CARD (e.g. tap red), "
        "remove UID, noise, unplug, replug, quit.",
    )
    sim.add_argument("--link", help="also make this symlink to the pty (e.g. /tmp/ttr-reader)")
    sim.add_argument("--auto", type=float, help="tap a random card every SECONDS")
    sim.add_argument("--seed", type=int, default=1, help="seed for --auto and invented UIDs")
    sim.set_defaults(func=handler(_COMMANDS, "simulate_main"))


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, got {value}")
    return value
