"""Rules core speed: final scoring on worst-case states, and simulated games per second.

Run: .venv/bin/python benchmarks/bench_rules.py [--quick] [--write]
Worst case for scoring: every player spends 45 trains on the shortest routes of one dense
region (many forks and loops for the longest-trail search), builds 3 stations on the busiest
cities next to other players' routes (the most borrowing choices), and holds 12 tickets.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from results import WRITE_HELP, Results
from timing import timed

from companion.core.board import GameMap
from companion.core.bots import play_random_game
from companion.core.longest import longest_trail
from companion.core.scoring import PlayerEnd, score_final
from companion.data import europe_map

COLORS = ["blue", "red", "green", "yellow", "black"]


def dense_state(m: GameMap, rng: random.Random, n_players: int = 5) -> list[PlayerEnd]:
    owner: dict[str, str] = {}
    routes: dict[str, list[str]] = {c: [] for c in COLORS[:n_players]}
    trains = dict.fromkeys(COLORS[:n_players], 0)
    centre = rng.choice(["frankfurt", "munchen", "wien", "berlin", "budapest", "paris"])
    touched = {c: {centre} for c in routes}
    progress = True
    while progress:
        progress = False
        for c in routes:
            options = [
                r
                for r in m.routes.values()
                if r.id not in owner
                and trains[c] + r.length <= 45
                and (r.a in touched[c] or r.b in touched[c])
                and not (r.twin and owner.get(r.twin) == c)
            ]
            if not options:
                continue
            options.sort(key=lambda r: (r.length, rng.random()))
            r = options[0]
            owner[r.id] = c
            routes[c].append(r.id)
            trains[c] += r.length
            touched[c] |= {r.a, r.b}
            progress = True
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--write", action="store_true", help=WRITE_HELP)
    args = ap.parse_args()
    res = Results("bench_rules", write=args.write)
    m = europe_map()
    rng = random.Random(1)
    n_states = 20 if args.quick else 100

    print("final scoring, worst-case dense states")
    print("  (5 players, 45 trains each in one region, 3 stations on busy cities, 12 tickets)")
    per_state = []
    for _ in range(n_states):
        players = dense_state(m, rng)
        score_final(m, players)  # warm
        per_state.append(min(timed(lambda p=players: score_final(m, p), 3)))
    print(
        f"  states: {n_states}  median {statistics.median(per_state):.2f} ms  "
        f"max {max(per_state):.2f} ms  (target <= 5 ms)"
    )
    res.add(
        "rules-score",
        f"final scoring of a whole table, worst-case dense states (5 players x 45 trains in one"
        f" region, 3 stations each on the busiest cities, 12 tickets each), {n_states} states",
        f"median {statistics.median(per_state):.1f} ms, max {max(per_state):.1f} ms"
        " (target <= 5 ms)",
    )

    net = worst_single_network(m, rng, 60 if args.quick else 300)
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
        games = 10 if args.quick else 40
        t0 = time.perf_counter()
        actions = 0
        for seed in range(games):
            g, acts = play_random_game(m, n, seed=seed)
            g.final_score()
            actions += len(acts)
        dt = time.perf_counter() - t0
        print(f"  {n} players: {games / dt:.1f} games/s  ({actions / dt:.0f} actions/s)")
        rates.append(f"{games / dt:.0f} games/s ({n} players, {actions / dt:,.0f} actions/s)")
    res.add("rules-games", "full simulated games, random bots, all rules", ", ".join(rates))
    res.save()


if __name__ == "__main__":
    main()
