"""`companion demo`: a scripted game played at a simulated table (http://127.0.0.1:8080).

How the table is simulated (reader, camera, buttons, the host's screen) is told in
:mod:`companion.commands.demo_game`, which plays it.

``--fast`` (or a delay of 0) runs the camera faster than real time, for tests.
``companion demo --terminal`` prints the bot game turn by turn instead (no server); so does
``companion demo`` when its output is not a terminal (scripts, CI), unless ``--serve`` is given.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from companion.commands.demo_game import COLORS, NAMES
from companion.core.actions import ClaimRoute, DrawDeck, DrawFaceUp, PayTunnel, WithdrawTunnel
from companion.core.bots import RandomBot
from companion.core.game import Game


def register(sub: Any) -> None:
    p = sub.add_parser("demo", help="watch a scripted game on the dashboard (no hardware)")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--players", type=int, default=4, choices=range(2, 6))
    p.add_argument("--variant", default="europe")
    p.add_argument("--delay", type=float, default=None, help="seconds between moves (default 2)")
    p.add_argument("--fast", action="store_true", help="no pauses, camera faster than real time")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--state-dir", help="keep the demo's event log here (default: a temp dir)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--terminal", action="store_true", help="print the game; no dashboard")
    mode.add_argument(
        "--serve", action="store_true", help="serve the dashboard even when not at a terminal"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # At a terminal the demo serves the dashboard; with its output captured or piped (scripts,
    # CI) it prints the game and ends, unless --serve says otherwise.
    if args.terminal or not (args.serve or sys.stdout.isatty()):
        return run_terminal(args)
    from companion.cli import CommandError
    from companion.commands.serve import serve

    delay = 2.0 if args.delay is None else args.delay
    if delay < 0:
        raise CommandError("--delay must not be negative")
    if args.fast:
        delay = 0.0

    def serve_demo(state_dir: Path) -> int:
        return serve(
            state_dir,
            "127.0.0.1",
            args.port,
            demo=True,
            demo_delay=delay,
            demo_seed=args.seed,
            demo_players=args.players,
        )

    if args.state_dir:
        return serve_demo(Path(args.state_dir))
    with tempfile.TemporaryDirectory(prefix="companion-demo-") as tmp:
        return serve_demo(Path(tmp))


def run_terminal(args: argparse.Namespace) -> int:
    """The bot game printed turn by turn, ending with the final score table."""
    from companion.cli import CommandError
    from companion.commands.score import format_table
    from companion.core.errors import RulesError
    from companion.data import europe_map

    m = europe_map()
    try:
        game = Game.new(
            m,
            list(zip(NAMES, COLORS, strict=True))[: args.players],
            variant=args.variant,
            seed=args.seed,
        )
    except RulesError as exc:
        raise CommandError(str(exc)) from None
    bot = RandomBot(args.seed)
    announced = False
    delay = 0.0 if args.fast else (args.delay or 0.0)
    while not game.over:
        action = bot.choose(game)
        game.apply(action)
        if isinstance(action, DrawDeck | DrawFaceUp):
            continue
        line = action.to_text()
        if isinstance(action, ClaimRoute) and m.routes[action.route].tunnel:
            shown = " ".join(c.value for c in game.last_revealed) or "nothing"
            line += f"   (tunnel: revealed {shown})"
        if isinstance(action, PayTunnel | WithdrawTunnel):
            line += "   (tunnel settled)"
        print(f"turn {game.turn:3d}  {line}")
        if game.final_round and not announced:
            announced = True
            print("           *** final round: every player has one last turn ***")
        if delay:
            time.sleep(delay)
    print()
    print(format_table(game.final_score()))
    return 0
