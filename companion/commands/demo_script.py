"""The demo game's script: a seeded bot game (``companion.core.bots``) as a real table plays it,
move by move (:class:`Move`: the host's screen, the card reader's taps, trains and stations put
down, the buttons). The tables that play it and the driver are in ``demo_game``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
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

NAMES = ["Aki", "Ben", "Chiara", "Dmitri", "Emma"]
COLORS = ["blue", "red", "green", "yellow", "black"]


@dataclass(frozen=True)
class Move:
    """One thing done at the table.

    ``kind``: ``host`` (an action on the host's screen: ``data`` is the action), ``select`` (the
    host picks whose cards the reader takes: ``player``), ``tap`` (train cards on the reader:
    ``player``, ``cards``), ``tickets`` (ticket cards on the reader: ``player``, ``tickets``),
    ``place`` (trains put on ``route`` by ``player``; the camera should see them), ``station``
    (a station on ``city``), ``pieces`` (trains of a settled tunnel put down; already recorded),
    ``button`` (``name``: end_turn or confirm). ``turn_end`` marks a pause point.
    """

    kind: str
    data: dict[str, Any]
    turn_end: bool = False
    text: str = ""


def table_script(seed: int = 2026, n_players: int = 4, variant: str = "europe") -> Iterator[Move]:
    """The moves of a seeded bot game as a real table plays them."""
    game = new_game(seed, n_players, variant)
    yield from script_of(game, RandomBot(seed), n_players, variant)


def new_game(seed: int, n_players: int, variant: str) -> Game:
    from companion.data import europe_map

    players = list(zip(NAMES, COLORS, strict=True))[:n_players]
    return Game.new(europe_map(), players, variant=variant, seed=seed)


def script_of(game: Game, bot: RandomBot, n_players: int, variant: str) -> Iterator[Move]:
    m = game.map
    players = list(zip(NAMES, COLORS, strict=True))[:n_players]
    yield Move(
        "host",
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
        tunnel_route = game.tunnel.route if game.tunnel is not None else None
        action = bot.choose(game)
        game.apply(action)
        color = action.player
        if isinstance(action, DrawDeck | DrawFaceUp):
            drew += 1
        elif isinstance(action, KeepTickets):
            yield Move("select", {"player": color})
            yield Move("tickets", {"player": color, "tickets": list(action.tickets)})
            yield Move("button", {"name": "confirm"}, text=f"{color} keeps tickets")
        elif isinstance(action, ClaimRoute):
            route = m.routes[action.route]
            cards = [c.value for c in action.cards or ()]
            yield Move("tap", {"player": color, "cards": cards})
            if route.tunnel:
                # A tunnel starts on the screen; the trains go down once it is settled.
                yield Move(
                    "host",
                    {"type": "claim", "player": color, "route": route.id},
                    text=f"{color} tries the tunnel {route.id}",
                )
                revealed = [c.value for c in game.last_revealed]
                if revealed:
                    yield Move("tap", {"player": color, "cards": revealed})
                    yield Move("button", {"name": "confirm"}, text=f"tunnel {route.id} revealed")
                else:  # an empty deck turns up nothing: the host says so on the screen
                    yield Move("host", {"type": "tunnel_reveal", "player": color, "cards": []})
                if game.tunnel is None and route.id in owned(game, color):
                    yield Move("pieces", {"route": route.id, "player": color})
            else:
                yield Move(
                    "place",
                    {"route": route.id, "player": color},
                    text=f"{color} claims {route.id}"
                    + (f" (ferry, {route.locomotives} SL)" if route.locomotives else ""),
                )
        elif isinstance(action, PayTunnel):
            yield Move("tap", {"player": color, "cards": [c.value for c in action.cards or ()]})
            yield Move("button", {"name": "confirm"}, text=f"{color} pays the tunnel")
            if tunnel_route is not None:
                yield Move("pieces", {"route": tunnel_route, "player": color})
        elif isinstance(action, WithdrawTunnel):
            yield Move(
                "host", {"type": "tunnel_withdraw", "player": color}, text=f"{color} withdraws"
            )
        elif isinstance(action, BuildStation):
            yield Move("tap", {"player": color, "cards": [c.value for c in action.cards or ()]})
            yield Move(
                "station",
                {"city": action.city, "player": color},
                text=f"{color} builds a station on {action.city}",
            )
        elif isinstance(action, DrawTickets | Pass | EndTurn):
            pass
        turn_over = not was_setup and (game.over or game.current_player.color != current)
        if turn_over:
            if drew:
                yield Move("host", {"type": "drew_cards", "player": current, "count": min(drew, 2)})
                drew = 0
            yield Move("button", {"name": "end_turn"}, turn_end=True, text="end turn")
    yield Move("host", {"type": "finish"}, turn_end=True, text="final scores")


def owned(game: Game, color: str) -> set[str]:
    for p in game.players:
        if p.color == color:
            return set(p.routes)
    return set()
