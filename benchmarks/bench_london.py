"""London rules speed: final scoring on dense end states, and simulated games per second.

Run: .venv/bin/python benchmarks/bench_london.py [--quick]
Dense states: 4 players each spend all 17 buses on the shortest routes around one location
(the most networks and district checks) and hold 5 of the 20 tickets.
"""

from __future__ import annotations

import random
from functools import partial
from typing import Any

from boards import games_rate, grow_networks, quick_run, scoring_section

from companion.london.board import LondonMap, london_map
from companion.london.bots import TicketBot, play_random_game
from companion.london.scoring import PlayerEnd, score_final

COLORS = ["blue", "red", "green", "yellow"]


def dense_state(m: LondonMap, rng: random.Random, n_players: int = 4) -> list[PlayerEnd]:
    centre = rng.choice(list(m.locations))
    routes = grow_networks(m, rng, COLORS[:n_players], m.buses_per_player, centre, far=0.1)
    tickets = list(m.tickets)
    rng.shuffle(tickets)
    return [
        PlayerEnd(c, c, tuple(routes[c]), tuple(tickets[5 * i : 5 * i + 5]))
        for i, c in enumerate(routes)
    ]


def scorings_per_second(median: float) -> str:
    return f"({1000 / median:.0f} scorings/s)"


def main() -> None:
    quick, res = quick_run("bench_london")
    m = london_map()
    rng = random.Random(1)
    head = [
        "London final scoring, dense end states",
        "  (4 players, 17 buses each on short routes, 5 tickets each, 5 districts)",
    ]
    state, score = (lambda: dense_state(m, rng)), partial(score_final, m)
    n_states = 50 if quick else 300
    median, worst = scoring_section(head, n_states, state, score, 5, 3, scorings_per_second)
    res.add(
        "london-score",
        f"London: final scoring, dense end states (4 players x 17 buses, 5 tickets each),"
        f" {n_states} states",
        f"median {median:.2f} ms, max {worst:.2f} ms",
    )

    print("London simulated games (all rules, seeded, final scoring included)")
    games = 40 if quick else 200
    rates = []
    for label, make_bot in (("random bots", None), ("ticket bots", TicketBot)):
        for n in (2, 3, 4):

            def play(seed: int, n: int = n, make_bot: Any = make_bot) -> tuple[Any, list[Any]]:
                bot = make_bot(seed) if make_bot is not None else None
                return play_random_game(m, n, seed=seed, bot=bot)

            per_s, actions_per_s, per_game = games_rate(games, play)
            print(
                f"  {label}, {n} players: {per_s:.0f} games/s  "
                f"({actions_per_s:.0f} actions/s, {per_game:.0f} actions/game)"
            )
            rates.append(per_s)
    res.add(
        "london-games",
        "London: simulated games, all rules (random and ticket bots, 2-4 players)",
        f"{min(rates):.0f}-{max(rates):.0f} games/s",
    )
    res.save()


if __name__ == "__main__":
    main()
