"""`companion demo`: watch a seeded game of Ticket to Ride: Europe played by bots.

Until the dashboard exists this prints the game turn by turn in the terminal and ends with the
final score table.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from companion.core.actions import ClaimRoute, DrawDeck, DrawFaceUp, PayTunnel, WithdrawTunnel
from companion.core.bots import RandomBot
from companion.core.game import Game


def register(sub: Any) -> None:
    p = sub.add_parser("demo", help="watch a seeded game played by bots")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--players", type=int, default=4, choices=range(2, 6))
    p.add_argument("--variant", default="europe")
    p.add_argument("--delay", type=float, default=0.0, help="seconds to wait between turns")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from companion.cli import CommandError
    from companion.commands.score import format_table
    from companion.core.errors import RulesError
    from companion.data import europe_map

    m = europe_map()
    names = ["Aki", "Ben", "Chiara", "Dmitri", "Emma"]
    colors = ["blue", "red", "green", "yellow", "black"]
    try:
        game = Game.new(
            m,
            list(zip(names, colors, strict=True))[: args.players],
            variant=args.variant,
            seed=args.seed,
        )
    except RulesError as exc:
        raise CommandError(str(exc)) from None
    bot = RandomBot(args.seed)
    announced = False
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
        if args.delay:
            time.sleep(args.delay)
    print()
    print(format_table(game.final_score()))
    return 0
