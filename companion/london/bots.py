"""Seeded London players that make legal moves: for property tests, benchmarks and demos.

The bots are the core's (:mod:`companion.core.bot_base`) with London's moves and numbers.
"""

from __future__ import annotations

from collections.abc import Iterator

from companion.core import bot_base
from companion.core.payment import payment_choices

from .actions import Action, ClaimRoute, DrawFaceUp
from .board import LondonMap
from .cards import LONDON_CARDS
from .game import Game, Phase

__all__ = ["PLAYER_ORDER", "RandomBot", "TicketBot", "legal_moves", "play_random_game"]

PLAYER_ORDER = ("blue", "red", "green", "yellow")


def claimable_routes(game: Game) -> Iterator[ClaimRoute]:
    """One claim (the payment with the fewest buses) per route the current player can take."""
    hand = game.current_player.hand
    return bot_base.first_claims(
        game,
        lambda r: payment_choices(r, r.color, hand, LONDON_CARDS),
        ClaimRoute,
    )


def legal_moves(game: Game) -> list[Action]:
    """Some legal actions for whoever must act now (never empty while the game goes on)."""
    if game.phase is Phase.OVER:
        return []
    if game.phase is Phase.SETUP:
        for p in game.players:
            if not p.ready:
                return bot_base.keep_offers(p.color, p.offered)
        return []
    p = game.current_player
    if p.offered:
        return bot_base.keep_offers(p.color, p.offered)
    return bot_base.turn_moves(game, DrawFaceUp, lambda: claimable_routes(game))


class RandomBot(bot_base.RandomBot[Game]):
    """Mostly claims what it can, else draws cards; now and then draws tickets."""

    def __init__(self, seed: int = 0, claim_bias: float = 0.7, ticket_rate: float = 0.06) -> None:
        super().__init__(seed, claim_bias, ticket_rate)

    def moves(self, game: Game) -> list[Action]:
        return legal_moves(game)


class TicketBot(bot_base.TicketBot[Game]):
    """Plays for its tickets: claims the free routes on the cheapest path between each ticket's
    locations, draws the colours those routes need, and keeps the shorter offers."""

    LOW_PIECES = 8
    MAX_TICKETS = 5

    def moves(self, game: Game) -> list[Action]:
        return legal_moves(game)


def play_random_game(
    game_map: LondonMap,
    n_players: int = 4,
    *,
    seed: int = 0,
    max_actions: int = 3000,
    bot: RandomBot | TicketBot | None = None,
) -> tuple[Game, list[Action]]:
    """Play a whole seeded London game with bots (RandomBot unless told). Returns the game and
    every action applied."""
    colors = PLAYER_ORDER[:n_players]
    game = Game.new(game_map, [(c.title(), c) for c in colors], seed=seed)
    return game, bot_base.play_out(game, bot or RandomBot(seed), max_actions)
