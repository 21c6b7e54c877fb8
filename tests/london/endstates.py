"""Random legal London end states (dense networks, districts, many tickets) for cross-checks."""

from __future__ import annotations

import random

from companion.core.cards import PLAYER_COLORS
from companion.london.board import LondonMap
from companion.london.scoring import PlayerEnd


def random_end_state(
    game_map: LondonMap, rng: random.Random, n_players: int | None = None
) -> list[PlayerEnd]:
    n = n_players or rng.randint(2, 4)
    colors = rng.sample(PLAYER_COLORS, n)
    owner: dict[str, str] = {}
    routes: dict[str, list[str]] = {c: [] for c in colors}
    buses = dict.fromkeys(colors, 0)
    budget = {c: rng.choice([4, 9, 14, 17, 17]) for c in colors}
    home = {c: rng.choice(list(game_map.locations)) for c in colors}
    touched = {c: {home[c]} for c in colors}
    all_routes = list(game_map.routes.values())
    stalled: set[str] = set()
    while len(stalled) < n:
        c = rng.choice(colors)
        if c in stalled:
            continue
        options = []
        for r in all_routes:
            if r.id in owner or buses[c] + r.length > budget[c]:
                continue
            twin = r.twin
            if twin and (owner.get(twin) == c or (twin in owner and n <= 2)):
                continue
            if r.a in touched[c] or r.b in touched[c] or rng.random() < 0.05:
                options.append(r)
        if not options:
            stalled.add(c)
            continue
        r = rng.choice(options)
        owner[r.id] = c
        routes[c].append(r.id)
        buses[c] += r.length
        touched[c] |= {r.a, r.b}
    free_tickets = set(game_map.tickets)
    players = []
    for c in colors:
        held: list[str] = []
        for _ in range(rng.randint(0, 6)):
            if not free_tickets:
                break
            good = sorted(
                t
                for t in free_tickets
                if game_map.tickets[t].a in touched[c] and game_map.tickets[t].b in touched[c]
            )
            pool = good if good and rng.random() < 0.6 else sorted(free_tickets)
            t = rng.choice(pool)
            held.append(t)
            free_tickets.discard(t)
        players.append(PlayerEnd(c, c.title(), tuple(routes[c]), tuple(held)))
    return players
