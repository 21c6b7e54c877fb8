"""Random legal end states (dense networks, stations, many tickets) for cross-checks."""

from __future__ import annotations

import random

from companion.core.board import GameMap
from companion.core.cards import PLAYER_COLORS
from companion.core.scoring import PlayerEnd


def random_end_state(
    game_map: GameMap, rng: random.Random, n_players: int | None = None
) -> list[PlayerEnd]:
    n = n_players or rng.randint(2, 5)
    colors = rng.sample(PLAYER_COLORS, n)
    owner: dict[str, str] = {}
    routes: dict[str, list[str]] = {c: [] for c in colors}
    trains = dict.fromkeys(colors, 0)
    budget = {c: rng.choice([10, 25, 38, 45]) for c in colors}
    home = {c: rng.choice(list(game_map.cities)) for c in colors}
    touched = {c: {home[c]} for c in colors}
    all_routes = list(game_map.routes.values())
    stalled: set[str] = set()
    while len(stalled) < n:
        c = rng.choice(colors)
        if c in stalled:
            continue
        options = []
        for r in all_routes:
            if r.id in owner or trains[c] + r.length > budget[c]:
                continue
            twin = r.twin
            if twin and (owner.get(twin) == c or (twin in owner and n <= 3)):
                continue
            near = r.a in touched[c] or r.b in touched[c]
            if near or rng.random() < 0.03:
                options.append(r)
        if not options:
            stalled.add(c)
            continue
        r = rng.choice(options)
        owner[r.id] = c
        routes[c].append(r.id)
        trains[c] += r.length
        touched[c] |= {r.a, r.b}
    # Stations and tickets mostly where they matter: at the edge of the player's network,
    # next to other players' routes; tickets whose cities the network (nearly) reaches.
    free_cities = set(game_map.cities)
    free_tickets = set(game_map.tickets)
    players = []
    for c in colors:
        near = set(touched[c])
        for r in all_routes:
            if owner.get(r.id) not in (None, c) and (r.a in touched[c] or r.b in touched[c]):
                near |= {r.a, r.b}
        stations: list[str] = []
        for _ in range(rng.randint(0, 3)):
            pool = sorted(near & free_cities) if rng.random() < 0.8 else sorted(free_cities)
            if pool:
                city = rng.choice(pool)
                stations.append(city)
                free_cities.discard(city)
        held: list[str] = []
        for _ in range(rng.randint(0, 8)):
            good = sorted(
                t
                for t in free_tickets
                if game_map.tickets[t].a in near and game_map.tickets[t].b in near
            )
            pool = good if good and rng.random() < 0.6 else sorted(free_tickets)
            t = rng.choice(pool)
            held.append(t)
            free_tickets.discard(t)
        players.append(PlayerEnd(c, c.title(), tuple(routes[c]), tuple(stations), tuple(held)))
    return players
