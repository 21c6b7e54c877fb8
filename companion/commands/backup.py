"""``companion backup DEST``: a consistent copy of the event log (see :mod:`companion.backup`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "backup",
        help="copy the event log to DEST (a file, or a folder for a dated file), "
        "also while the server runs",
    )
    p.add_argument("dest", metavar="DEST", help="the copy's file, or a folder to put it in")
    p.add_argument("--state-dir", help="the state directory (default: the configured one)")
    p.add_argument("--config", help="configuration file (TOML)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from companion.backup import backup
    from companion.cli import CommandError, state_dir_of
    from companion.store import StoreError

    state_dir = state_dir_of(args)
    try:
        done = backup(state_dir, Path(args.dest))
    except StoreError as exc:
        raise CommandError(str(exc)) from None
    noun = "event" if done.events == 1 else "events"
    print(f"companion: {done.events} {noun} copied to {done.path}", flush=True)
    return 0
