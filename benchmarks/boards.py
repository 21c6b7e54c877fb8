"""Loops shared by the rules benchmarks of every board (bench_rules, bench_london); they run
as scripts, so import it as ``from boards import ...``."""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from results import WRITE_HELP, Results
from timing import timed


def grow_networks(
    m: Any, rng: random.Random, colors: Sequence[str], pieces: int, centre: str, far: float = 0.0
) -> dict[str, list[str]]:
    """Each player in turn takes the shortest free route touching what it already has (or, with
    chance ``far``, anywhere), all from ``centre``, until no more of its pieces fit."""
    owner: dict[str, str] = {}
    routes: dict[str, list[str]] = {c: [] for c in colors}
    used = dict.fromkeys(colors, 0)
    touched = {c: {centre} for c in routes}
    progress = True
    while progress:
        progress = False
        for c in routes:
            options = [
                r
                for r in m.routes.values()
                if r.id not in owner
                and used[c] + r.length <= pieces
                and (r.a in touched[c] or r.b in touched[c] or (far > 0 and rng.random() < far))
                and not (r.twin and owner.get(r.twin) == c)
            ]
            if not options:
                continue
            options.sort(key=lambda r: (r.length, rng.random()))
            r = options[0]
            owner[r.id] = c
            routes[c].append(r.id)
            used[c] += r.length
            touched[c] |= {r.a, r.b}
            progress = True
    return routes


def quick_run(name: str) -> tuple[bool, Results]:
    """The script's flags: whether ``--quick`` (fewer states and games), and the script
    ``name``'s results, which ``--write`` records in benchmarks/results/ (see results.py)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--write", action="store_true", help=WRITE_HELP)
    args = ap.parse_args()
    return args.quick, Results(name, write=args.write)


def scoring_section(
    head: Sequence[str],
    n_states: int,
    state: Callable[[], Any],
    score: Callable[[Any], object],
    repeat: int,
    digits: int,
    tail: Callable[[float], str],
) -> tuple[float, float]:
    """Print the head lines, then the median and worst scoring time (ms, ``digits`` decimals)
    over ``n_states`` states and what ``tail`` says of the median; returns (median, worst)."""
    for line in head:
        print(line)
    per_state = scoring_times(n_states, state, score, repeat)
    median = statistics.median(per_state)
    print(
        f"  states: {n_states}  median {median:.{digits}f} ms  "
        f"max {max(per_state):.{digits}f} ms  {tail(median)}"
    )
    return median, max(per_state)


def scoring_times(
    n_states: int, state: Callable[[], Any], score: Callable[[Any], object], repeat: int
) -> list[float]:
    """The best of ``repeat`` timings (ms) of ``score`` on each of ``n_states`` fresh states."""
    per_state = []
    for _ in range(n_states):
        players = state()
        score(players)  # warm
        per_state.append(min(timed(lambda p=players: score(p), repeat)))
    return per_state


def games_rate(
    games: int, play: Callable[[int], tuple[Any, list[Any]]]
) -> tuple[float, float, float]:
    """Play seeds 0..games-1 (``play(seed)`` gives the game and its actions) to the final score:
    games per second, actions per second, actions per game."""
    t0 = time.perf_counter()
    actions = 0
    for seed in range(games):
        g, acts = play(seed)
        g.final_score()
        actions += len(acts)
    dt = time.perf_counter() - t0
    return games / dt, actions / dt, actions / games
