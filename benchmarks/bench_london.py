"""London rules speed: final scoring on dense end states, and simulated games per second.

Run: .venv/bin/python benchmarks/bench_london.py [--quick] [--write]
Dense states: 4 players each spend all 17 buses on the shortest routes around one location
(the most networks and district checks) and hold 5 of the 20 tickets.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from results import WRITE_HELP, Results
from timing import timed

from companion.london.board import LondonMap, london_map
from companion.london.bots import TicketBot, play_random_game
from companion.london.scoring import PlayerEnd, score_final

COLORS = ["blue", "red", "green", "yellow"]


def dense_state(m: LondonMap, rng: random.Random, n_players: int = 4) -> list[PlayerEnd]:
    owner: dict[str, str] = {}
    routes: dict[str, list[str]] = {c: [] for c in COLORS[:n_players]}
    buses = dict.fromkeys(COLORS[:n_players], 0)
    centre = rng.choice(list(m.locations))
    touched = {c: {centre} for c in routes}
    progress = True
    while progress:
        progress = False
        for c in routes:
            options = [
                r
                for r in m.routes.values()
                if r.id not in owner
                and buses[c] + r.length <= m.buses_per_player
                and (r.a in touched[c] or r.b in touched[c] or rng.random() < 0.1)
                and not (r.twin and owner.get(r.twin) == c)
            ]
            if not options:
                continue
            options.sort(key=lambda r: (r.length, rng.random()))
            r = options[0]
            owner[r.id] = c
            routes[c].append(r.id)
            buses[c] += r.length
            touched[c] |= {r.a, r.b}
            progress = True
    tickets = list(m.tickets)
    rng.shuffle(tickets)
    return [
        PlayerEnd(c, c, tuple(routes[c]), tuple(tickets[5 * i : 5 * i + 5]))
        for i, c in enumerate(routes)
    ]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--write", action="store_true", help=WRITE_HELP)
    args = ap.parse_args()
    res = Results("bench_london", write=args.write)
    m = london_map()
    rng = random.Random(1)
    n_states = 50 if args.quick else 300

    print("London final scoring, dense end states")
    print("  (4 players, 17 buses each on short routes, 5 tickets each, 5 districts)")
    per_state = []
    for _ in range(n_states):
        players = dense_state(m, rng)
        score_final(m, players)  # warm
        per_state.append(min(timed(lambda p=players: score_final(m, p), 5)))
    print(
        f"  states: {n_states}  median {statistics.median(per_state):.3f} ms  "
        f"max {max(per_state):.3f} ms  ({1000 / statistics.median(per_state):.0f} scorings/s)"
    )
    res.add(
        "london-score",
        f"London: final scoring, dense end states (4 players x 17 buses, 5 tickets each),"
        f" {n_states} states",
        f"median {statistics.median(per_state):.2f} ms, max {max(per_state):.2f} ms",
    )
    rates = []

    print("London simulated games (all rules, seeded, final scoring included)")
    games = 40 if args.quick else 200
    for label, make_bot in (("random bots", None), ("ticket bots", TicketBot)):
        for n in (2, 3, 4):
            t0 = time.perf_counter()
            actions = 0
            for seed in range(games):
                bot = make_bot(seed) if make_bot is not None else None
                g, acts = play_random_game(m, n, seed=seed, bot=bot)
                g.final_score()
                actions += len(acts)
            dt = time.perf_counter() - t0
            print(
                f"  {label}, {n} players: {games / dt:.0f} games/s  "
                f"({actions / dt:.0f} actions/s, {actions / games:.0f} actions/game)"
            )
            rates.append(games / dt)
    res.add(
        "london-games",
        "London: simulated games, all rules (random and ticket bots, 2-4 players)",
        f"{min(rates):.0f}-{max(rates):.0f} games/s",
    )
    res.save()


if __name__ == "__main__":
    main()
