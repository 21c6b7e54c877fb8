"""Seeded players that make legal moves: for property tests, benchmarks and the demo."""

from __future__ import annotations

import random
from collections.abc import Iterator

from .actions import (
    Action,
    BuildStation,
    ClaimRoute,
    DrawDeck,
    DrawFaceUp,
    DrawTickets,
    KeepTickets,
    Pass,
    PayTunnel,
    WithdrawTunnel,
)
from .board import GameMap
from .cards import LOCO
from .errors import IllegalActionError
from .game import Game, Phase
from .payment import payment_options, station_options, surcharge_options
from .rules import check_route_free, check_station_free, check_trains


def claimable_routes(game: Game) -> Iterator[ClaimRoute]:
    """One claim (the payment with the fewest locomotives) per route the current player can take."""
    p = game.current_player
    for route in game.map.routes.values():
        try:
            check_route_free(game.map, game.route_owner, route, p.color, game.n_players)
            check_trains(route, p.trains)
        except IllegalActionError:
            continue
        for cards in payment_options(route, p.hand):
            yield ClaimRoute(p.color, route.id, tuple(cards))
            break


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
        return [KeepTickets(p.color, (p.offered[0],)), KeepTickets(p.color, tuple(p.offered))]
    moves = []
    if game.deck or game.discard:
        moves.append(DrawDeck(p.color))
    for card in dict.fromkeys(c for c in game.face_up if c is not None):
        if not (game.cards_drawn and card is LOCO):
            moves.append(DrawFaceUp(p.color, card))
    if game.cards_drawn:
        return moves
    moves.extend(claimable_routes(game))
    if len(p.stations) < game.map.stations_per_player:
        options = next(station_options(len(p.stations), p.hand, game.map.station_costs), None)
        if options is not None:
            for city in game.map.cities:
                try:
                    check_station_free(game.map, game.station_owner, city, len(p.stations))
                except IllegalActionError:
                    continue
                moves.append(BuildStation(p.color, city, tuple(options)))
    if game.ticket_deck:
        moves.append(DrawTickets(p.color))
    if not moves:
        moves.append(Pass(p.color))
    return moves


class RandomBot:
    """Mostly claims what it can, else draws; now and then takes tickets or builds a station."""

    def __init__(self, seed: int = 0, claim_bias: float = 0.7) -> None:
        self.rng = random.Random(seed)
        self.claim_bias = claim_bias

    def choose(self, game: Game) -> Action:
        moves = legal_moves(game)
        if not moves:
            raise IllegalActionError("the game is over", rule="game-over")
        claims = [m for m in moves if isinstance(m, ClaimRoute)]
        if claims and self.rng.random() < self.claim_bias:
            return self.rng.choice(claims)
        pays = [m for m in moves if isinstance(m, PayTunnel)]
        if pays and self.rng.random() < 0.8:
            return pays[0]
        stations = [m for m in moves if isinstance(m, BuildStation)]
        if stations and self.rng.random() < 0.03:
            return self.rng.choice(stations)
        tickets = [m for m in moves if isinstance(m, DrawTickets)]
        if tickets and self.rng.random() < 0.04:
            return tickets[0]
        draws = [m for m in moves if isinstance(m, DrawDeck | DrawFaceUp)]
        if draws:
            return self.rng.choice(draws)
        return self.rng.choice(moves)


def play_random_game(
    game_map: GameMap,
    n_players: int = 4,
    *,
    seed: int = 0,
    variant: str = "europe",
    max_actions: int = 5000,
) -> tuple[Game, list[Action]]:
    """Play a whole seeded game with RandomBots. Returns the game and every action applied."""
    colors = ["blue", "red", "green", "yellow", "black"][:n_players]
    game = Game.new(game_map, [(c.title(), c) for c in colors], variant=variant, seed=seed)
    bot = RandomBot(seed)
    actions: list[Action] = []
    while not game.over and len(actions) < max_actions:
        action = bot.choose(game)
        game.apply(action)
        actions.append(action)
    return game, actions
