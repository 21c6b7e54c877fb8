"""Rules core speed: final scoring on worst-case states, and simulated games per second.

Run: .venv/bin/python benchmarks/bench_rules.py [--quick]
Worst case for scoring: every player spends 45 trains on the shortest routes of one dense
region (many forks and loops for the longest-trail search), builds 3 stations on the busiest
cities next to other players' routes (the most borrowing choices), and holds 12 tickets.
"""

from __future__ import annotations

import random
import time
from functools import partial

from boards import games_rate, grow_networks, quick_run, scoring_section
from timing import timed

from companion.core.actions import Action
from companion.core.board import GameMap
from companion.core.bots import play_random_game
from companion.core.game import Game
from companion.core.longest import longest_trail
from companion.core.scoring import PlayerEnd, score_final
from companion.data import europe_map

COLORS = ["blue", "red", "green", "yellow", "black"]


def dense_state(m: GameMap, rng: random.Random, n_players: int = 5) -> list[PlayerEnd]:
    centre = rng.choice(["frankfurt", "munchen", "wien", "berlin", "budapest", "paris"])
    routes = grow_networks(m, rng, COLORS[:n_players], 45, centre)
    busiest = sorted(m.cities, key=lambda city: -len(m.routes_at[city]))
    tickets = list(m.tickets)
    rng.shuffle(tickets)
    players = []
    for i, c in enumerate(routes):
        stations = tuple(busiest[3 * i : 3 * i + 3])
        held = tuple(tickets[12 * i : 12 * i + 12])
        players.append(PlayerEnd(c, c, tuple(routes[c]), stations, held))
    return players


def worst_single_network(m: GameMap, rng: random.Random, tries: int) -> list[str]:
    """The 45-train network (short routes, one region) whose longest trail is slowest to find."""
    worst, worst_t = [], 0.0
    for _ in range(tries):
        centre = rng.choice(list(m.cities))
        chosen: list[str] = []
        touched, trains = {centre}, 0
        while True:
            options = [
                r
                for r in m.routes.values()
                if r.id not in chosen
                and trains + r.length <= 45
                and (r.a in touched or r.b in touched)
                and not (r.twin and r.twin in chosen)
            ]
            if not options:
                break
            options.sort(key=lambda r: (r.length, rng.random()))
            r = options[0] if rng.random() < 0.8 else rng.choice(options)
            chosen.append(r.id)
            trains += r.length
            touched |= {r.a, r.b}
        t0 = time.perf_counter()
        longest_trail([m.routes[r] for r in chosen])
        t = time.perf_counter() - t0
        if t > worst_t:
            worst, worst_t = chosen, t
    return worst


def play_seed(m: GameMap, n: int, seed: int) -> tuple[Game, list[Action]]:
    return play_random_game(m, n, seed=seed)


def main() -> None:
    quick, res = quick_run("bench_rules")
    m = europe_map()
    rng = random.Random(1)
    n_states = 20 if quick else 100
    median, worst = scoring_section(
        [
            "final scoring, worst-case dense states",
            "  (5 players, 45 trains each in one region, 3 stations on busy cities, 12 tickets)",
        ],
        n_states,
        lambda: dense_state(m, rng),
        partial(score_final, m),
        3,
        2,
        lambda median: "(target <= 5 ms)",
    )
    res.add(
        "rules-score",
        f"final scoring of a whole table, worst-case dense states (5 players x 45 trains in one"
        f" region, 3 stations each on the busiest cities, 12 tickets each), {n_states} states",
        f"median {median:.1f} ms, max {worst:.1f} ms (target <= 5 ms)",
    )

    net = worst_single_network(m, rng, 60 if quick else 300)
    t = timed(lambda: longest_trail([m.routes[r] for r in net]), 5)
    trail = longest_trail([m.routes[r] for r in net])
    print(
        f"  slowest single network found: {len(net)} routes, trail {trail.length} trains, "
        f"longest-trail search {min(t):.2f} ms"
    )
    res.add(
        "rules-longest",
        f"longest-trail search, the slowest single 45-train network found ({len(net)} routes)",
        f"{min(t):.1f} ms",
    )

    print("simulated games (random bots, all rules, seeded)")
    rates = []
    for n in (2, 3, 4, 5):
        games = 10 if quick else 40
        per_s, actions_per_s, _ = games_rate(games, partial(play_seed, m, n))
        print(f"  {n} players: {per_s:.1f} games/s  ({actions_per_s:.0f} actions/s)")
        rates.append(f"{per_s:.0f} games/s ({n} players, {actions_per_s:,.0f} actions/s)")
    res.add("rules-games", "full simulated games, random bots, all rules", ", ".join(rates))
    res.save()


if __name__ == "__main__":
    main()
