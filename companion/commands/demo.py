"""`companion demo`: a scripted game on the dashboard (http://127.0.0.1:8080).

A seeded bot game (``companion.core.bots``) is turned into what a real table shows: cards tapped
on the reader, trains seen by the camera, tunnels settled on the host's screen (revealed cards,
surcharge, pay or withdraw), tickets tapped and kept, "end turn" pressed. The
:class:`DemoDriver` feeds those observations and actions into the running service a few seconds
apart, so a newcomer watches claims appear, tunnels settled, ferries paid and the final scores.

The observations go to the service directly (``Service.observe``), in the same JSON form the
camera and reader adapters produce; no frames are rendered and no serial port is opened.

``companion demo --terminal`` prints the bot game turn by turn instead (no server); so does
``companion demo`` when its output is not a terminal (scripts, CI), unless ``--serve`` is given.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.core.actions import (
    BuildStation,
    ClaimRoute,
    DrawDeck,
    DrawFaceUp,
    DrawTickets,
    EndTurn,
    KeepTickets,
    Pass,
    PayTunnel,
    WithdrawTunnel,
)
from companion.core.bots import RandomBot
from companion.core.game import Game, Phase

log = logging.getLogger(__name__)

NAMES = ["Aki", "Ben", "Chiara", "Dmitri", "Emma"]
COLORS = ["blue", "red", "green", "yellow", "black"]


def register(sub: Any) -> None:
    p = sub.add_parser("demo", help="watch a scripted game on the dashboard (no hardware)")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--players", type=int, default=4, choices=range(2, 6))
    p.add_argument("--variant", default="europe")
    p.add_argument("--delay", type=float, default=None, help="seconds between moves")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--state-dir", help="keep the demo's event log here (default: a temp dir)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--terminal", action="store_true", help="print the game; no dashboard")
    mode.add_argument(
        "--serve", action="store_true", help="serve the dashboard even when not at a terminal"
    )
    p.set_defaults(func=run)


@dataclass(frozen=True)
class Move:
    """One thing the table does: ``act`` (an action, as the host/phone sends it) or
    ``observe`` (a camera/reader/button observation). ``turn_end`` marks a pause point."""

    kind: str
    data: dict[str, Any]
    turn_end: bool = False
    text: str = ""


def table_script(seed: int = 2026, n_players: int = 4, variant: str = "europe") -> Iterator[Move]:
    """The moves of a seeded bot game as a real table would show them."""
    from companion.data import europe_map

    m = europe_map()
    players = list(zip(NAMES, COLORS, strict=True))[:n_players]
    game = Game.new(m, players, variant=variant, seed=seed)
    bot = RandomBot(seed)
    uid = 0

    def taps(cards: Any) -> Iterator[Move]:
        nonlocal uid
        for c in cards:
            uid += 1
            yield Move("observe", {"kind": "card_tapped", "card": c.value, "uid": f"04{uid:08x}"})

    yield Move(
        "act",
        {
            "type": "new_game",
            "variant": variant,
            "payment_mode": "strict",
            "players": [{"name": n, "color": c} for n, c in players],
        },
        turn_end=True,
        text="new game",
    )
    drew = 0
    while not game.over:
        current = game.current_player.color
        was_setup = game.phase is Phase.SETUP
        action = bot.choose(game)
        game.apply(action)
        color = action.player
        if isinstance(action, DrawDeck | DrawFaceUp):
            drew += 1
        elif isinstance(action, DrawTickets):
            pass
        elif isinstance(action, KeepTickets):
            yield Move("observe", {"kind": "reader_player", "player": color})
            for t in action.tickets:
                yield Move("observe", {"kind": "ticket_tapped", "ticket": t})
            yield Move("act", {"type": "keep_tickets", "player": color}, text=f"{color} keeps")
        elif isinstance(action, ClaimRoute):
            route = m.routes[action.route]
            yield Move("observe", {"kind": "reader_player", "player": color})
            yield from taps(action.cards or ())
            if route.tunnel:
                # A tunnel is claimed on the screen; the camera sees the trains only later.
                yield Move("act", {"type": "claim", "player": color, "route": route.id})
                yield Move(
                    "act",
                    {
                        "type": "tunnel_reveal",
                        "player": color,
                        "cards": [c.value for c in game.last_revealed],
                    },
                    text=f"{color} reveals {len(game.last_revealed)} cards for {route.id}",
                )
            else:
                yield Move(
                    "observe",
                    {"kind": "claim_seen", "route": route.id, "color": color},
                    text=f"camera: {color} on {route.id}",
                )
        elif isinstance(action, PayTunnel):
            yield from taps(action.cards or ())
            yield Move("act", {"type": "tunnel_pay", "player": color})
        elif isinstance(action, WithdrawTunnel):
            yield Move("act", {"type": "tunnel_withdraw", "player": color})
        elif isinstance(action, BuildStation):
            yield Move("observe", {"kind": "reader_player", "player": color})
            yield from taps(action.cards or ())
            yield Move(
                "observe",
                {"kind": "station_seen", "city": action.city, "color": color},
                text=f"camera: {color} station on {action.city}",
            )
        elif isinstance(action, Pass | EndTurn):
            pass
        turn_over = not was_setup and (game.over or game.current_player.color != current)
        if turn_over:
            if drew:
                yield Move("act", {"type": "drew_cards", "player": current, "count": min(drew, 2)})
                drew = 0
            yield Move(
                "observe", {"kind": "button", "name": "end_turn"}, turn_end=True, text="end turn"
            )
    yield Move("act", {"type": "finish"}, turn_end=True, text="final scores")


class DemoDriver:
    """Plays :func:`table_script` into a service, pausing ``delay`` seconds per turn."""

    def __init__(
        self,
        service: Any,
        *,
        seed: int = 2026,
        players: int = 4,
        variant: str = "europe",
        delay: float = 2.0,
        stop: threading.Event | None = None,
    ) -> None:
        self.service = service
        self.seed = seed
        self.players = players
        self.variant = variant
        self.delay = delay
        self.stop = stop or threading.Event()
        self.moves = 0
        self.errors: list[str] = []
        self.done = threading.Event()

    def run(self) -> None:
        from companion.service import Actor, ServiceError

        host = Actor.host()
        try:
            for move in table_script(self.seed, self.players, self.variant):
                if self.stop.is_set():
                    return
                try:
                    if move.kind == "act":
                        self.service.act(move.data, host)
                    else:
                        self.service.observe(move.data, Actor.device("demo"))
                except ServiceError as exc:
                    self.errors.append(f"{move.data}: {exc.message}")
                    log.warning("demo move refused: %s (%s)", move.data, exc.message)
                self.moves += 1
                if move.turn_end and self.delay and self.stop.wait(self.delay):
                    return
                if not move.turn_end and self.delay:
                    self.stop.wait(min(0.4, self.delay / 4))
        finally:
            self.done.set()


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
