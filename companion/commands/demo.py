"""`companion demo`: a scripted game played at a simulated table (http://127.0.0.1:8080).

A seeded bot game (``companion.core.bots``) is played the way a real table plays it, through the
same devices and code paths as the product:

* the **card reader** is a :class:`~companion.reader.simulated.SimulatedReader` on a
  pseudo-terminal, read by the real serial transport and listener (``devices.start_reader``): the
  player taps the cards they pay with, the three cards turned up for a tunnel and the tickets they
  keep;
* the **camera** is a simulated camera (:class:`TableCamera`, rendered frames of the board) whose
  scene follows the game: a hand reaches in, the trains or the station go down, the hand leaves.
  The frames go through the real :class:`~companion.vision.live.LiveWatcher` and the project's
  pixel reader (``companion.vision.read``). A fixed camera is calibrated once: the pixel locator
  finds the board on the first (empty) frame; should it fail, the simulator's corners are used
  (logged);
* the **buttons**: "end turn" and "confirm" (which reveals and pays a tunnel from the tapped
  cards, and keeps the tapped tickets) are pressed as the controls do;
* the **host's screen**: the new game, whose cards the reader takes while tickets are kept,
  "drew cards", starting a tunnel and withdrawing from one, and finally "finish". When the camera
  has not reported a claim within a bounded time, the host taps it on the map instead (logged).

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
    if args.state_dir:
        return serve(
            Path(args.state_dir),
            "127.0.0.1",
            args.port,
            demo=True,
            demo_delay=delay,
            demo_seed=args.seed,
            demo_players=args.players,
        )
    with tempfile.TemporaryDirectory(prefix="companion-demo-") as tmp:
        return serve(
            Path(tmp),
            "127.0.0.1",
            args.port,
            demo=True,
            demo_delay=delay,
            demo_seed=args.seed,
            demo_players=args.players,
        )


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
