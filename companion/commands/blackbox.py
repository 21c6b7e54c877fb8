"""`companion replay`: the black box's recordings (companion/blackbox/).

    companion replay SOURCE [--game ID] [--json]

``replay`` feeds a recording (SOURCE: a state directory or a report bundle) through the live
watcher and the camera decisions again and prints every difference against what happened: exit
0 when there is none, 1 when there are differences, 2 on bad input (one sentence).
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
