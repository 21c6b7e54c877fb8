"""Random legal London end states (dense networks, districts, many tickets) for cross-checks."""

from __future__ import annotations

import random

from companion.core.cards import PLAYER_COLORS
from companion.london.board import LondonMap
from companion.london.scoring import PlayerEnd

from ..core.endstates import pick_tickets, random_networks

# one player's routes of 18 buses in all: one more than a player has
EIGHTEEN_BUSES = (
    "baker-street--british-museum",
    "baker-street--hyde-park",
    "baker-street--piccadilly-circus",
    "british-museum--the-charterhouse",
    "big-ben--waterloo",
    "big-ben--trafalgar-square",
)


def random_end_state(
    game_map: LondonMap, rng: random.Random, n_players: int | None = None
) -> list[PlayerEnd]:
    n = n_players or rng.randint(2, 4)
    colors = rng.sample(PLAYER_COLORS, n)
    _, routes, touched = random_networks(
        rng,
        colors,
        game_map.locations,
        list(game_map.routes.values()),
        [4, 9, 14, 17, 17],
        2,
        0.05,
    )
    free_tickets = set(game_map.tickets)
    players = []
    for c in colors:
        count = rng.randint(0, 6)
        held = pick_tickets(rng, game_map.tickets, free_tickets, touched[c], count, True)
        players.append(PlayerEnd(c, c.title(), tuple(routes[c]), tuple(held)))
    return players
