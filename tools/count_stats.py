"""Per picture, the per-colour train count error and the wrong routes, on TUNING seeds only.

PYTHONPATH=$PWD python tools/count_stats.py own 6000 6008 [--widths 1000,1300]
PYTHONPATH=$PWD python tools/count_stats.py plain 5000 5008
PYTHONPATH=$PWD python tools/count_stats.py heavy 17000 17008   (heavy_game: harder own-print)
"""

from __future__ import annotations

import sys
import time

import cv2
import numpy as np

from companion.sim.perturb import jpeg, resize_width
from companion.sim.render import (
    BoardRenderer,
    DrawnBoard,
    Scene,
    own_print_game,
    random_scene,
    within_the_rules,
)
from companion.vision.decide.check import load_check_data
from companion.vision.decide.context import make_context, take_samples
from companion.vision.locate.locate import BoardLocation
from companion.vision.reading.read import read_samples
from companion.vision.types import PLAYER_COLORS


def heavy_game(seed: int, geometry: DrawnBoard) -> Scene:
    """An own-print game (``own_print_game``) whose player of colour ``seed % 5`` holds about
    80 % of the routes printed in their colour (never both lanes of a double) and one route of
    at most 3 spaces elsewhere (none where it had none): their print group mostly their own
    trains, few of them elsewhere to learn from."""
    sc = own_print_game(seed, geometry, 0.5)
    rng = np.random.default_rng(seed + 7)
    colour = PLAYER_COLORS[seed % len(PLAYER_COLORS)]
    routes = dict(sc.routes)
    for r in geometry.drawable_routes():
        twin = geometry.routes[r].twin
        free_twin = twin is None or routes.get(twin) != colour
        if geometry.routes[r].color == colour and rng.random() < 0.8 and free_twin:
            routes[r] = colour
    away = sorted(
        r for r, c in routes.items() if c == colour and geometry.routes[r].color != colour
    )
    for r in away:
        del routes[r]
    short = [r for r in away if geometry.routes[r].length <= 3]  # few trains to learn from
    if short:
        routes[short[int(rng.integers(len(short)))]] = colour
    return within_the_rules(
        Scene(routes=routes, stations=sc.stations, seed=sc.seed), geometry, seed + 1
    )


def main() -> None:
    cv2.setNumThreads(1)
    kind, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    widths = [1000, 1100, 1200, 1300]
    if "--widths" in sys.argv:
        widths = [int(w) for w in sys.argv[sys.argv.index("--widths") + 1].split(",")]
    assert not (700 <= lo < 800 or 200 <= lo < 300), "held-out seeds"
    ctx = make_context()
    renderer = BoardRenderer()
    gb = renderer.geometry
    sure = load_check_data()["check"]["sure"]
    lengths = {r: gb.routes[r].length for r in ctx.geometry.route_ids}
    worst_all: list[int] = []
    silent_all = 0
    missed = claimed = 0  # train routes read free; free routes read as trains
    t0 = time.time()
    for seed in range(lo, hi):
        if kind == "own":
            sc = own_print_game(seed, gb, 0.5)
        elif kind == "heavy":
            sc = heavy_game(seed, gb)
        else:
            sc = within_the_rules(
                random_scene(np.random.default_rng(seed), gb, claimed=0.6), gb, seed + 1
            )
        board = renderer.render_board(sc, 2400)
        truth = {r: sc.routes.get(r) for r in ctx.geometry.route_ids}
        for width in widths:
            small = jpeg(resize_width(board, width), 85)
            h, w = small.shape[:2]
            corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
            loc = BoardLocation.from_corners(corners, (w, h))
            reading, _ = read_samples(take_samples(small, loc.homography, ctx), ctx)
            seen = dict.fromkeys(PLAYER_COLORS, 0)
            true = dict.fromkeys(PLAYER_COLORS, 0)
            wrong = []
            for r, t in truth.items():
                got = reading.routes.get(r)
                if t is not None:
                    true[t] += lengths[r]
                if got is not None:
                    seen[got] += lengths[r]
                if got != t:
                    missed += t is not None and got is None
                    claimed += t is None and got is not None
                    cal = reading.calibrated.get(r, 0.0)
                    listed = r in reading.check
                    silent_all += not listed
                    pc = gb.routes[r].color
                    wrong.append(
                        f"{r}[{pc},{lengths[r]}] t={t} got={got} cal={cal:.3f}"
                        + ("" if listed else " SILENT")
                    )
            err = {c: seen[c] - true[c] for c in PLAYER_COLORS}
            worst = max(abs(v) for v in err.values())
            worst_all.append(worst)
            errs = " ".join(f"{c[:3]}{v:+d}" for c, v in err.items() if v)
            print(f"{kind} {seed} {width}: worst {worst} ({errs}) list {len(reading.check)}")
            for x in wrong:
                print("    " + x)
    print(
        f"== {kind} {lo}-{hi}: worst max {max(worst_all)} median {np.median(worst_all)} "
        f">2: {sum(w > 2 for w in worst_all)}/{len(worst_all)} silent {silent_all} "
        f"trains read free {missed} free read as trains {claimed} "
        f"({time.time() - t0:.0f} s; sure {sure})"
    )


if __name__ == "__main__":
    main()
