"""Random legal end states (dense networks, stations, many tickets) for cross-checks."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from companion.core.board import GameMap
from companion.core.cards import PLAYER_COLORS
from companion.core.scoring import PlayerEnd


def random_networks(
    rng: random.Random,
    colors: Sequence[str],
    places: Iterable[str],
    all_routes: Sequence[Any],
    budgets: Sequence[int],
    closed_up_to: int,
    stray: float,
) -> tuple[dict[str, str], dict[str, list[str]], dict[str, set[str]]]:
    """Grow each player's network from a random home: routes next to it (now and then, with
    probability ``stray``, anywhere), within a budget of pieces drawn from ``budgets``, legal
    for double routes. Returns (owner of each route, routes of each player, places touched).
    Any board: Europe and London use it."""
    n = len(colors)
    owner: dict[str, str] = {}
    routes: dict[str, list[str]] = {c: [] for c in colors}
    pieces = dict.fromkeys(colors, 0)
    budget = {c: rng.choice(list(budgets)) for c in colors}
    places = list(places)
    home = {c: rng.choice(places) for c in colors}
    touched = {c: {home[c]} for c in colors}
    stalled: set[str] = set()
    while len(stalled) < n:
        c = rng.choice(colors)
        if c in stalled:
            continue
        options = []
        for r in all_routes:
            if r.id in owner or pieces[c] + r.length > budget[c]:
                continue
            twin = r.twin
            if twin and (owner.get(twin) == c or (twin in owner and n <= closed_up_to)):
                continue
            if r.a in touched[c] or r.b in touched[c] or rng.random() < stray:
                options.append(r)
        if not options:
            stalled.add(c)
            continue
        r = rng.choice(options)
        owner[r.id] = c
        routes[c].append(r.id)
        pieces[c] += r.length
        touched[c] |= {r.a, r.b}
    return owner, routes, touched


def pick_tickets(
    rng: random.Random,
    tickets: Mapping[str, Any],
    free_tickets: set[str],
    near: set[str],
    count: int,
    stop_when_out: bool = False,
) -> list[str]:
    """``count`` free tickets, mostly (60 %) ones whose ends are both ``near``."""
    held: list[str] = []
    for _ in range(count):
        if stop_when_out and not free_tickets:
            break
        good = sorted(t for t in free_tickets if tickets[t].a in near and tickets[t].b in near)
        pool = good if good and rng.random() < 0.6 else sorted(free_tickets)
        t = rng.choice(pool)
        held.append(t)
        free_tickets.discard(t)
    return held


def random_end_state(
    game_map: GameMap, rng: random.Random, n_players: int | None = None
) -> list[PlayerEnd]:
    n = n_players or rng.randint(2, 5)
    colors = rng.sample(PLAYER_COLORS, n)
    all_routes = list(game_map.routes.values())
    owner, routes, touched = random_networks(
        rng, colors, game_map.cities, all_routes, [10, 25, 38, 45], 3, 0.03
    )
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
        held = pick_tickets(rng, game_map.tickets, free_tickets, near, rng.randint(0, 8))
        players.append(PlayerEnd(c, c.title(), tuple(routes[c]), tuple(stations), tuple(held)))
    return players
