"""Every route reading of rendered TUNING games with what may tell a silent error from a right
reading of the same kind (development tool; never the benchmarks' held-out seeds).

A silent error is a route read wrong, with calibrated confidence >= ``sure``
(``data/vision_check.json``), and not on the check list. Per picture (a game rendered 2,400 px
wide, area-scaled to each width and JPEG re-encoded, read at its true corners), every route read
with calibrated confidence >= ``--least`` or read wrong is kept as one JSON line: the truth and
the reading, its kind, grade and calibrated confidence, whether it is listed (and why), its
printed colour and length, the trains read in its printed colour, the other lane of its double
(truth and reading), the weakest / strongest space margins (``check.RouteEvidence``) and
whether the picture's own-print discriminant was used for its printed colour::

    PYTHONPATH=$PWD python tools/silent_stats.py own 6000 6100 --out /tmp/own.jsonl
    PYTHONPATH=$PWD python tools/silent_stats.py plain 5000 5100 --out /tmp/p.jsonl

It prints the silent errors as it goes and a summary per kind at the end.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.sim.perturb import jpeg, resize_width  # noqa: E402
from companion.sim.render import (  # noqa: E402
    BoardRenderer,
    Scene,
    own_print_game,
    random_scene,
    within_the_rules,
)
from companion.vision.decide.check import (  # noqa: E402
    CheckConfig,
    grade_routes,
    print_like,
    room_left,
    route_evidence,
    trains_read,
)
from companion.vision.decide.classify import HYPOTHESES  # noqa: E402
from companion.vision.decide.context import ReadContext, make_context, take_samples  # noqa: E402
from companion.vision.locate.locate import BoardLocation  # noqa: E402
from companion.vision.reading.read import read_samples  # noqa: E402
from companion.vision.types import PLAYER_COLORS  # noqa: E402

HELD_OUT = (range(200, 300), range(700, 800))


def scene(kind: str, seed: int, renderer: BoardRenderer) -> Scene:
    gb = renderer.geometry
    if kind == "own":
        return own_print_game(seed, gb, 0.5)
    sc = random_scene(np.random.default_rng(seed), gb, claimed=0.6)
    return within_the_rules(sc, gb, seed + 1)


def picture_rows(
    board: np.ndarray, sc: Scene, seed: int, width: int, ctx: ReadContext, least: float
) -> list[dict[str, Any]]:
    """The kept route readings of one picture (see the module's note)."""
    small = jpeg(resize_width(board, width), 85)
    h, w = small.shape[:2]
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    loc = BoardLocation.from_corners(corners, (w, h))
    reading, res = read_samples(take_samples(small, loc.homography, ctx), ctx)
    info = ctx.info
    cfg = CheckConfig.load()
    ev = route_evidence(res.scores, info, res.model.route_temperature)
    like = print_like(res.model, cfg.print_like_radius)
    grades = grade_routes(ev, info, like, cfg.trains_per_player)
    used = trains_read(ev.choice, info).tolist()
    left = room_left(ev.choice, info, cfg.trains_per_player).tolist()
    apart = res.model.own_print_apart
    first = info.route_starts.tolist()
    twins = dict(info.lane_pairs) | {b: a for a, b in info.lane_pairs}
    rows = []
    for k, rid in enumerate(info.route_ids):
        truth, got = sc.routes.get(rid), reading.routes.get(rid)
        cal = float(reading.calibrated.get(rid, 0.0))
        if got == truth and cal < least:
            continue
        printed = info.printed_colors[first[k]]
        pc = PLAYER_COLORS.index(printed) if printed in PLAYER_COLORS else -1
        twin = twins.get(rid)
        rows.append(
            {
                "seed": seed,
                "width": width,
                "route": rid,
                "length": int(np.sum(info.space_route == k)),
                "printed": printed,
                "truth": truth,
                "got": got,
                "right": got == truth,
                "kind": grades.kinds[k],
                "grade": round(float(grades.grade[k]), 3),
                "raw": round(float(ev.confidence[k]), 5),
                "cal": round(cal, 5),
                "listed": rid in reading.check,
                "why": reading.why.get(rid, []),
                "weakest": round(float(min(ev.weakest[k], 99.0)), 3),
                "hidden": round(float(max(ev.hidden[k], -99.0)), 3),
                "mixed": bool(grades.mixed[k]),
                "printed_read": used[pc + 1] if pc >= 0 else 0,
                "room_left": int(left[k]) if pc >= 0 else 99,
                "apart": bool(apart[pc]) if apart is not None and pc >= 0 else None,
                "twin_truth": sc.routes.get(twin) if twin else "-",
                "twin_got": reading.routes.get(twin) if twin else "-",
                "got_hyp": HYPOTHESES.index(got),
            }
        )
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("kind", choices=("own", "plain"))
    ap.add_argument("lo", type=int)
    ap.add_argument("hi", type=int)
    ap.add_argument("--widths", default="900,1000,1100,1200,1300")
    ap.add_argument("--least", type=float, default=0.9, help="keep right readings from this cal")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    for held in HELD_OUT:
        assert not (set(range(args.lo, args.hi)) & set(held)), "held-out seeds"
    cv2.setNumThreads(1)
    ctx = make_context()
    renderer = BoardRenderer()
    sure = CheckConfig.load().sure or 0.95
    widths = [int(w) for w in args.widths.split(",")]
    out = args.out.open("w") if args.out else None
    kinds: Counter[str] = Counter()
    silent: Counter[str] = Counter()
    wrong_sure: Counter[str] = Counter()
    t0 = time.time()
    for seed in range(args.lo, args.hi):
        sc = scene(args.kind, seed, renderer)
        board = renderer.render_board(sc, 2400)
        for width in widths:
            for row in picture_rows(board, sc, seed, width, ctx, args.least):
                if out:
                    out.write(json.dumps(row) + "\n")
                if row["cal"] >= sure:
                    kinds[row["kind"]] += 1
                    if not row["right"]:
                        wrong_sure[row["kind"]] += 1
                        if not row["listed"]:
                            silent[row["kind"]] += 1
                            print(
                                f"SILENT {args.kind} {seed} {width} {row['route']} "
                                f"[{row['printed']},{row['length']}] t={row['truth']} "
                                f"got={row['got']} {row['kind']} g={row['grade']} "
                                f"cal={row['cal']} twin {row['twin_truth']}/{row['twin_got']}",
                                flush=True,
                            )
    print(f"== {args.kind} {args.lo}-{args.hi} x {widths} ({time.time() - t0:.0f} s, sure {sure})")
    for kind, n in sorted(kinds.items()):
        bad, quiet = wrong_sure[kind], silent[kind]
        print(f"  {kind:16s} at >= sure {n:7d}  wrong {bad:4d}  silent {quiet:4d}")
    print(f"  silent {sum(silent.values())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
