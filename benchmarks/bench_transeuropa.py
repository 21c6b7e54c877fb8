"""Trans Europa penalty speed: the exact Steiner tree on the worst positions.

Run: .venv/bin/python benchmarks/bench_transeuropa.py [--quick] [--all] [--write]

The worst positions for the penalty are the emptiest boards (nothing to contract: the whole
210-node lattice takes part) with the five cities spread across the map (the largest trees).
1. Empty board, one city of each colour: a seeded sample of the 7^5 = 16,807 hands (``--all``
   tries every one) - the distribution of penalties and of the time per penalty.
2. The hands with the largest penalties, timed again one by one (the worst positions).
3. A whole round scored at the start of play (6 players, start markers and a few tracks each,
   coloured tracks on the board): every player's penalty, as ``transeuropa score`` does it.
Times are wall-clock milliseconds on this machine (process CPU time in brackets).
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import time

from results import WRITE_HELP, Results

from companion.transeuropa import CITY_COLORS, EndTurn, PlaceStart, Round, connection, trans_europa


def timed(fn: object, *args: object) -> tuple[float, float, object]:
    w, c = time.perf_counter(), time.process_time()
    out = fn(*args)  # type: ignore[operator]
    return (time.perf_counter() - w) * 1000, (time.process_time() - c) * 1000, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a smaller sample")
    parser.add_argument("--all", action="store_true", help="every one of the 16,807 hands")
    parser.add_argument("--write", action="store_true", help=WRITE_HELP)
    args = parser.parse_args()
    res = Results("bench_transeuropa", write=args.write)
    lat = trans_europa()
    rng = random.Random(2024)
    by_color = [sorted(c.id for c in lat.cities_of_color(col)) for col in CITY_COLORS]
    hands = list(itertools.product(*by_color))
    if not args.all:
        hands = rng.sample(hands, 300 if args.quick else 2000)

    print(
        f"lattice: {len(lat.nodes)} nodes, {len(lat.links)} links "
        f"({sum(1 for lk in lat.links.values() if lk.double)} double)"
    )
    connection(lat, [lat.cities[c].node for c in hands[0]])  # warm-up
    walls, cpus, costs = [], [], []
    for hand in hands:
        nodes = [lat.cities[c].node for c in hand]
        w, c, conn = timed(connection, lat, nodes)
        walls.append(w)
        cpus.append(c)
        costs.append((conn.cost, hand))  # type: ignore[attr-defined]
    walls.sort()
    print(f"\n1. empty board, {len(hands)} hands{' (all)' if args.all else ' (seeded sample)'}")
    pens = [p for p, _ in costs]
    print(f"   penalty: mean {statistics.mean(pens):.1f}, min {min(pens)}, max {max(pens)}")
    print(
        f"   time per penalty: mean {statistics.mean(walls):.2f} ms "
        f"(cpu {statistics.mean(cpus):.2f}), median {walls[len(walls) // 2]:.2f}, "
        f"p95 {walls[int(len(walls) * 0.95)]:.2f}, max {walls[-1]:.2f} ms"
    )
    res.add(
        "transeuropa-penalty",
        f"Trans Europa: exact penalty (Steiner tree), empty board, {len(hands)} hands"
        f"{' (all)' if args.all else ' (seeded sample)'}",
        f"mean {statistics.mean(cpus):.1f} ms CPU, max {max(cpus):.1f} ms CPU"
        f" (penalty up to {max(pens)})",
    )

    worst = sorted(costs, reverse=True)[:5]
    reps = 5 if args.quick else 20
    print(f"\n2. the largest penalties, each timed {reps} times")
    for pen, hand in worst:
        nodes = [lat.cities[c].node for c in hand]
        ws, cs = [], []
        for _ in range(reps):
            w, c, _ = timed(connection, lat, nodes)
            ws.append(w)
            cs.append(c)
        print(
            f"   {pen:2d}  {' '.join(hand):55s} mean {statistics.mean(ws):.2f} ms "
            f"(cpu {statistics.mean(cs):.2f}), max {max(ws):.2f} ms"
        )

    print("\n3. a 6-player round scored early (start markers, 2 turns of track, coloured tracks)")
    colors = ["red", "blue", "green", "yellow", "purple", "white"]
    ws, cs = [], []
    for seed in range(3 if args.quick else 10):
        g = random.Random(seed)
        r = Round.new(lat, [(c, "") for c in colors], rng=g, colored_variant=True)
        for _ in colors:
            r.apply(PlaceStart(r.current_player.color, g.choice(sorted(lat.nodes))))
        for turn in range(12):
            moves = r.legal_placements(r.current_player.color)
            move = g.choice([m for m in moves if m.colored] if turn % 3 == 0 else moves)
            r.apply(move)
            if r.placed:
                r.apply(EndTurn(r.current_player.color))
        w, c, _ = timed(r.score)
        ws.append(w)
        cs.append(c)
    print(
        f"   whole round (6 penalties): mean {statistics.mean(ws):.1f} ms "
        f"(cpu {statistics.mean(cs):.1f}), max {max(ws):.1f} ms"
    )
    res.add(
        "transeuropa-round",
        "Trans Europa: a 6-player round scored early (6 penalties)",
        f"mean {statistics.mean(cs):.1f} ms CPU",
    )
    res.save()


if __name__ == "__main__":
    main()
