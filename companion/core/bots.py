"""Seeded players that make legal moves: for property tests, benchmarks and the demo.

The moves of a turn, the random and the ticket bot and the play-out loop are
:mod:`companion.core.bot_base`'s (shared with London); Europe adds the first tickets (long ones
capped), tunnels and stations.
"""

from __future__ import annotations

from collections.abc import Iterator

from . import bot_base
from .actions import (
    Action,
    BuildStation,
    ClaimRoute,
    DrawFaceUp,
    KeepTickets,
    PayTunnel,
    WithdrawTunnel,
)
from .board import GameMap
from .cards import EUROPE_CARDS
from .errors import IllegalActionError
from .game import Game, Phase
from .payment import payment_choices, station_options, surcharge_options
from .rules import check_station_free

__all__ = ["RandomBot", "TicketBot", "claimable_routes", "legal_moves", "play_random_game"]


def claimable_routes(game: Game) -> Iterator[ClaimRoute]:
    """One claim (the payment with the fewest locomotives) per route the current player can take."""
    hand = game.current_player.hand
    return bot_base.first_claims(
        game,
        lambda r: payment_choices(r, r.color, hand, EUROPE_CARDS, r.locomotives),
        ClaimRoute,
    )


def _stations(game: Game) -> list[Action]:
    p = game.current_player
    moves: list[Action] = []
    if len(p.stations) < game.map.stations_per_player:
        options = next(station_options(len(p.stations), p.hand, game.map.station_costs), None)
        if options is not None:
            for city in game.map.cities:
                try:
                    check_station_free(game.map, game.station_owner, city, len(p.stations))
                except IllegalActionError:
                    continue
                moves.append(BuildStation(p.color, city, tuple(options)))
    return moves


def legal_moves(game: Game) -> list[Action]:
    """Some legal actions for whoever must act now (never empty while the game goes on)."""
    if game.phase is Phase.OVER:
        return []
    if game.phase is Phase.SETUP:
        moves: list[Action] = []
        for p in game.players:
            if not p.ready:
                s = game.variant.setup
                regular = [t for t in p.offered if not game.map.tickets[t].long]
                longs = [t for t in p.offered if game.map.tickets[t].long]
                keep = longs[: s.long_keep_max] if s.long_keep_max is not None else longs
                keep = keep + regular[: max(0, s.keep_min - len(keep))]
                moves.append(KeepTickets(p.color, tuple(keep)))
                moves.append(
                    KeepTickets(p.color, tuple(keep + [t for t in regular if t not in keep]))
                )
                return moves
        return moves
    p = game.current_player
    if game.tunnel is not None:
        pays: list[Action] = [
            PayTunnel(p.color, tuple(c)) for c in surcharge_options(game.tunnel.surcharge, p.hand)
        ]
        return [*pays[:1], WithdrawTunnel(p.color)]
    if p.offered:
        return bot_base.keep_offers(p.color, p.offered)
    return bot_base.turn_moves(
        game, DrawFaceUp, lambda: claimable_routes(game), lambda: _stations(game)
    )


class RandomBot(bot_base.RandomBot[Game]):
    """Mostly claims what it can, else draws; now and then takes tickets or builds a station."""

    def moves(self, game: Game) -> list[Action]:
        return legal_moves(game)

    def _special(self, moves: list[Action]) -> Action | None:
        pays = [m for m in moves if isinstance(m, PayTunnel)]
        if pays and self.rng.random() < 0.8:
            return pays[0]
        stations = [m for m in moves if isinstance(m, BuildStation)]
        if stations and self.rng.random() < 0.03:
            return self.rng.choice(stations)
        return None


class TicketBot(bot_base.TicketBot[Game]):
    """Plays for its tickets: claims the free routes on the cheapest path between each ticket's
    cities, draws the colours those routes need, and keeps the shortest tickets it is offered.
    Good enough to make a demo game look like a real one."""

    LOW_PIECES = 20
    MAX_TICKETS = 6

    def moves(self, game: Game) -> list[Action]:
        return legal_moves(game)

    def _settle(self, moves: list[Action]) -> Action | None:
        pays = [m for m in moves if isinstance(m, PayTunnel)]
        if pays:
            return pays[0]
        if any(isinstance(m, WithdrawTunnel) for m in moves):
            return next(m for m in moves if isinstance(m, WithdrawTunnel))
        return None


def play_random_game(
    game_map: GameMap,
    n_players: int = 4,
    *,
    seed: int = 0,
    variant: str = "europe",
    max_actions: int = 5000,
    bot: RandomBot | TicketBot | None = None,
) -> tuple[Game, list[Action]]:
    """Play a whole seeded game with bots (RandomBot unless told). Returns the game and every
    action applied."""
    colors = ["blue", "red", "green", "yellow", "black"][:n_players]
    game = Game.new(game_map, [(c.title(), c) for c in colors], variant=variant, seed=seed)
    return game, bot_base.play_out(game, bot or RandomBot(seed), max_actions)
