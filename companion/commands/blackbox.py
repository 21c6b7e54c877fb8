"""`companion replay` and `companion report`: the black box's recordings (companion/blackbox/).

    companion replay SOURCE [--game ID] [--json]
    companion report [--game ID] [--state-dir DIR] --out FILE

``replay`` feeds a recording (SOURCE: a state directory or a report bundle) through the live
watcher and the camera decisions again and prints every difference against what happened: exit
0 when there is none, 1 when there are differences, 2 on bad input (one sentence).
``report`` writes the report bundle of a game (default: the newest recorded) to FILE: what
``replay`` reads. Nothing is written on bad input.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "replay", help="replay a game's recorded frames and print what the camera sees otherwise"
    )
    p.add_argument("source", help="a state directory or a report bundle (.zip)")
    p.add_argument("--game", help="the game's id (default: the newest recorded)")
    p.add_argument("--json", action="store_true", help="one JSON object instead of lines")
    p.set_defaults(func=run_replay)
    r = sub.add_parser("report", help="write a report bundle of a game (frames, log, profile)")
    r.add_argument("--game", help="the game's id (default: the newest recorded)")
    r.add_argument("--state-dir", help="the state directory (default: the configured one)")
    r.add_argument("--config", help="configuration file (TOML)")
    r.add_argument("--out", required=True, help="the bundle to write (a .zip)")
    r.set_defaults(func=run_report)


def run_replay(args: argparse.Namespace) -> int:
    from companion.blackbox.replay import replay
    from companion.blackbox.source import BadRecording, open_recording
    from companion.cli import CommandError

    try:
        rec = open_recording(Path(args.source), args.game)
        outcome = replay(rec)
    except BadRecording as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        print(json.dumps(outcome.to_json(), ensure_ascii=False, sort_keys=True))
    else:
        print(
            f"game {outcome.game_id}: {outcome.frames} frames replayed, "
            f"{len(outcome.live)} claims and stations seen then, {len(outcome.replayed)} now"
        )
        for d in outcome.differences:
            where = f" (frame {d.frame})" if d.frame is not None else ""
            print(f"  {d.kind}: {d.text}{where}")
        for d in outcome.notes:
            print(f"  note: {d.text} (frame {d.frame})")
        if not outcome.differences:
            print("  no difference")
    return 1 if outcome.differences else 0


def run_report(args: argparse.Namespace) -> int:
    from companion.blackbox.bundle import write_bundle
    from companion.blackbox.source import BadRecording
    from companion.cli import CommandError, config_of

    cfg = config_of(args)
    state_dir = Path(args.state_dir) if args.state_dir else cfg.server.state_dir
    try:
        info = write_bundle(state_dir, Path(args.out), args.game, config=cfg)
    except BadRecording as exc:
        raise CommandError(str(exc)) from None
    except OSError as exc:
        raise CommandError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    print(
        f"companion: report of game {info['game_id']} written to {args.out} "
        f"({info['frames']} frames, {info['bytes']} bytes)"
    )
    return 0
