"""Fit the own-print second opinion (``companion/vision/decide/own_second.py``) on TUNING renders.

PYTHONPATH=$PWD python tools/fit_own_second.py [--own 6000 6200] [--plain 5100 5200]
    [--check 6200 6300] [--shrink 0.1] [--write]
PYTHONPATH=$PWD python tools/fit_own_second.py --photos ../shared/photos

Own-print games (``own_print_game``, half the routes printed in a player colour carry that
colour's trains) and plain games, each rendered at 2,400 px, scaled to 1,000-1,300 px wide and
re-encoded (JPEG 85) as ``tools/count_stats.py`` reads them. Every space of a route printed in a
player colour that is free or carries that colour's trains enters the fit: a linear discriminant
(pooled within-class covariance, shrunk by ``--shrink`` on standardised features) of trains
against print on ``own_second.shape_features``. The routes the reader leaves to the rule
(listed, read free, or already turned by it) are printed with their route scores; the
thresholds (``MEAN_AT_LEAST``, ``EACH_AT_LEAST``) were chosen from that printout.
``--photos``: the shipped rule on the labelled shared photos (real boards) scaled to 900-1,300 px
wide as ``bench_vision_check.py`` reads them: per picture its space length, the routes the rule
turned (and whether right), and the most train-like free print of a player colour of 2+ spaces
(listed or not), against the thresholds. ``--check``
prints the same on a range not fitted on. ``--write`` writes ``data/vision_own_second.json``.
No chance enters (the games are fixed by their seeds); the held-out seeds are refused.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.sim.perturb import jpeg, resize_width
from companion.sim.render import BoardRenderer, own_print_game, random_scene, within_the_rules
from companion.vision.decide.context import ReadContext, make_context, take_samples
from companion.vision.decide.own_second import (
    RULE,
    like_the_fit,
    own_second_config,
    scores,
    shape_features,
    sure_free,
)
from companion.vision.locate.locate import BoardLocation
from companion.vision.reading.read import read_samples
from companion.vision.types import PLAYER_COLORS

WIDTHS = (1000, 1100, 1200, 1300)
FORBIDDEN = ((200, 300), (700, 800), (6864, 6900), (6960, 6990))
# Chosen on the fitted ranges' printout (own 6000-6199, plain 5100-5199, shrinkage 0.1): every
# free route left to the rule there has a space under -1.1 (berlin-frankfurt-1's black print
# beside red trains, the closest: mean +5.6) or a mean under -1.8; trains' means run to +20.
EACH_AT_LEAST = 0.0  # no space of a turned route under this
MEAN_AT_LEAST = 3.0  # and their mean at least this
MIN_SPACES = 2  # one space is too little to tell (budapest-wien-1's free print scores high)
# The picture's sure free print (own_second.sure_free) must score as the fitted renders' did.
FREE_QUANTILE = 0.8
FREE_AT_MOST = -7.5
MIN_FREE_SPACES = 6  # every own-print picture of the fitted range has 7 or more
OUT = Path(__file__).resolve().parents[1] / "companion" / "data" / "vision_own_second.json"


def arg(name: str, default: tuple[int, int]) -> tuple[int, int]:
    if name not in sys.argv:
        return default
    i = sys.argv.index(name)
    return int(sys.argv[i + 1]), int(sys.argv[i + 2])


def pictures(kind: str, lo: int, hi: int, ctx: ReadContext) -> Any:
    """Per picture: the player-print routes' (seed, width, route id, trains, left to the rule,
    their spaces' features), then (seed, width, None, False, False, the features of the
    spaces of the print the reader reads free and does not list: ``own_second.sure_free``)."""
    renderer = BoardRenderer()
    gb = renderer.geometry
    rids = [r for r in ctx.geometry.route_ids if gb.routes[r].color in PLAYER_COLORS]
    for seed in range(lo, hi):
        assert not any(a <= seed < b for a, b in FORBIDDEN), "held-out seed"
        if kind == "own":
            sc = own_print_game(seed, gb, 0.5)
        else:
            rng = np.random.default_rng(seed)
            sc = within_the_rules(random_scene(rng, gb, claimed=0.6), gb, seed + 1)
        board = renderer.render_board(sc, 2400)
        for width in WIDTHS:
            small = jpeg(resize_width(board, width), 85)
            h, w = small.shape[:2]
            corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
            loc = BoardLocation.from_corners(corners, (w, h))
            samples = take_samples(small, loc.homography, ctx)
            reading, _ = read_samples(samples, ctx)
            assert samples.spaces_lab is not None
            for rid in rids:
                c = gb.routes[rid].color
                truth = sc.routes.get(rid)
                if truth not in (None, c):
                    continue
                got = reading.routes.get(rid)
                left = rid in reading.check and (got is None or RULE in reading.why.get(rid, []))
                f = shape_features(samples.spaces_lab[ctx.route_slices[rid]])
                yield (seed, width, rid, truth is not None, left, f)
            sure = sure_free(reading, ctx.info)
            ref = shape_features(samples.spaces_lab[np.r_[tuple(sure)]]) if sure else None
            yield (seed, width, None, False, False, ref)


class Sums:
    """Per class: count, sum and sum of outer products of the features (exact LDA)."""

    def __init__(self) -> None:
        self.n = np.zeros(2)
        self.s: list[Any] = [0.0, 0.0]
        self.ss: list[Any] = [0.0, 0.0]

    def add(self, y: int, f: Any) -> None:
        self.n[y] += len(f)
        self.s[y] = self.s[y] + f.sum(axis=0)
        self.ss[y] = self.ss[y] + f.T @ f

    def fit(self, shrink: float) -> dict[str, Any]:
        n = self.n.sum()
        mean = (self.s[0] + self.s[1]) / n
        var = (self.ss[0] + self.ss[1]).diagonal() / n - mean**2
        scale = np.sqrt(np.maximum(var, 1e-12))
        mu = [self.s[y] / self.n[y] for y in (0, 1)]
        cov = [self.ss[y] / self.n[y] - np.outer(mu[y], mu[y]) for y in (0, 1)]
        pooled = (cov[0] + cov[1]) / 2 / np.outer(scale, scale)
        z = [(m - mean) / scale for m in mu]
        w = np.linalg.solve(pooled + shrink * np.eye(len(mean)), z[1] - z[0])
        return {"mean": mean, "scale": scale, "weights": w, "bias": float(-w @ (z[0] + z[1]) / 2)}


def route_scores(
    rows: list[Any], model: dict[str, Any], free: dict[tuple[int, int], float]
) -> list[tuple[Any, ...]]:
    """Per route left to the rule: (mean, least, trains, route, seed, width, spaces, the
    ``FREE_QUANTILE`` of its picture's sure free print's scores)."""
    out = []
    for seed, width, rid, own, f in rows:
        s = score(f, model)
        q = free.get((seed, width), np.inf)
        out.append((float(s.mean()), float(s.min()), own, rid, seed, width, len(s), q))
    return out


def score(f: Any, model: dict[str, Any]) -> Any:
    return ((f - model["mean"]) / model["scale"]) @ model["weights"] + model["bias"]


def free_levels(refs: dict[tuple[int, int], Any], model: dict[str, Any]) -> dict[Any, float]:
    """Per picture: the ``FREE_QUANTILE`` of its sure free print's scores (inf: too few)."""
    out = {}
    for key, f in refs.items():
        ok = f is not None and len(f) >= MIN_FREE_SPACES
        out[key] = float(np.quantile(score(f, model), FREE_QUANTILE)) if ok else np.inf
    return out


def show(name: str, scored: list[tuple[Any, ...]], free: dict[Any, float]) -> None:
    gate = [r for r in scored if r[6] >= MIN_SPACES and r[7] <= FREE_AT_MOST]
    turn = [r for r in gate if r[0] >= MEAN_AT_LEAST and r[1] >= EACH_AT_LEAST]
    trains = [r for r in scored if r[2] and r[6] >= MIN_SPACES]
    levels = np.array(list(free.values()))
    print(
        f"== {name}: left to the rule ({MIN_SPACES}+ spaces) {len(trains)} trains, "
        f"{sum(not r[2] and r[6] >= MIN_SPACES for r in scored)} free; turned: "
        f"{sum(r[2] for r in turn)} trains right, {sum(not r[2] for r in turn)} free wrong; "
        f"pictures whose sure free print's {FREE_QUANTILE} quantile is over {FREE_AT_MOST}: "
        f"{int((levels > FREE_AT_MOST).sum())} of {len(levels)} (highest {levels.max():+.2f})"
    )
    for r in sorted(scored, key=lambda r: -r[0]):
        if r[6] >= MIN_SPACES and (r[2] or r[0] > MEAN_AT_LEAST - 6 or r[1] > EACH_AT_LEAST - 3):
            print(
                f"    {'trains' if r[2] else 'FREE  '} mean {r[0]:+7.2f} least {r[1]:+7.2f} "
                f"free print {r[7]:+6.2f} {r[3]} {r[4]} {r[5]}"
            )


def photos(folder: str) -> None:
    """The shipped rule on the labelled shared photos, scaled down (``--photos``)."""
    from benchmarks.bench_vision_check import locate_and_sample, photo_truth, smaller
    from tools.read_tune import labelled_photos

    ctx = make_context()
    cfg = own_second_config()
    g = ctx.geometry
    print(f"thresholds: mean >= {cfg.mean_at_least}, each >= {cfg.each_at_least}")
    for p in labelled_photos(Path(folder), ctx):
        if p.space_labels is None:
            continue
        truth = photo_truth(p, ctx)[0]
        image = cv2.imread(str(p.path))
        assert image is not None, p.path
        for width in (900, 1000, 1100, 1200, 1300):
            samples = locate_and_sample(smaller(image, width), ctx)
            reading, _ = read_samples(samples, ctx)
            assert samples.spaces_lab is not None
            turned = [r for r in reading.check if RULE in reading.why.get(r, [])]
            wrong = [r for r in turned if reading.routes[r] != truth.get(r)]
            free = []
            for rid in g.route_ids:
                n = g.routes[rid].length
                if g.routes[rid].color in PLAYER_COLORS and n >= 2 and truth.get(rid) is None:
                    s = scores(samples.spaces_lab[ctx.route_slices[rid]], cfg)
                    free.append((float(s.mean()), float(s.min()), rid))
            sure = [
                ctx.route_slices[rid]
                for rid in g.route_ids
                if g.routes[rid].color in PLAYER_COLORS
                and reading.routes[rid] is None
                and rid not in reading.check
            ]
            ref = scores(samples.spaces_lab[np.r_[tuple(sure)]], cfg) if sure else np.zeros(1)
            qs = np.round(np.quantile(ref, [0.5, cfg.free_quantile, 1.0]), 1).tolist()
            on = like_the_fit(samples.spaces_lab, reading, ctx.info, cfg)
            top = max(free, default=(0.0, 0.0, "-"))
            least = max(free, key=lambda f: f[1], default=(0.0, 0.0, "-"))
            print(
                f"{p.name} {width} px ({samples.space_px:.0f} px a space): rule "
                f"{'on' if on else 'off'}, turned {turned} "
                f"wrong {wrong}; free print most train-like: mean {top[0]:+.2f} ({top[2]}), "
                f"least {least[1]:+.2f} ({least[2]}); sure free spaces' scores (median, "
                f"{cfg.free_quantile}, "
                f"max): {qs} of {len(ref)}"
            )


def main() -> None:
    cv2.setNumThreads(1)
    if "--photos" in sys.argv:
        photos(sys.argv[sys.argv.index("--photos") + 1])
        return
    own, plain, check = arg("--own", (6000, 6200)), arg("--plain", (5100, 5200)), None
    if "--check" in sys.argv:
        check = arg("--check", (0, 0))
    shrink = float(sys.argv[sys.argv.index("--shrink") + 1]) if "--shrink" in sys.argv else 0.1
    ctx = make_context()
    sums, left, refs = Sums(), [], {}
    ny, nx = ctx.grids.spaces.shape[1:3]
    for kind, (lo, hi) in (("own", own), ("plain", plain)):
        for seed, width, rid, is_trains, is_left, f in pictures(kind, lo, hi, ctx):
            if rid is None:
                refs[(seed, width)] = None if f is None else f.astype(np.float32)
                continue
            sums.add(int(is_trains), f)
            if is_left:
                left.append((seed, width, rid, is_trains, f))
    model = sums.fit(shrink)
    free = free_levels(refs, model)
    show(f"fitted on own {own} plain {plain}", route_scores(left, model, free), free)
    if check is not None:
        rows, refs = [], {}
        for s, w, r, t, lf, f in pictures("own", check[0], check[1], ctx):
            if r is None:
                refs[(s, w)] = f
            elif lf:
                rows.append((s, w, r, t, f))
        free = free_levels(refs, model)
        show(f"checked on own {check} (not fitted)", route_scores(rows, model, free), free)
    data = {
        "note": (
            "The own-print second opinion (companion/vision/decide/own_second.py): a linear "
            "discriminant of a space patch's folded brightness and colour profiles, trains of "
            "its printed colour against free print, fitted by tools/fit_own_second.py on "
            f"tuning renders (own-print games {own[0]}-{own[1] - 1}, plain games "
            f"{plain[0]}-{plain[1] - 1}, 1,000-1,300 px wide: 34-44 px a space; shrinkage "
            f"{shrink}). A listed route read free, printed in a player colour, of at least "
            "'min_spaces' spaces, is read as that colour's trains when its spaces' scores "
            "average at least 'mean_at_least' and none is under 'each_at_least' (chosen on the "
            "fitted ranges: every free route left to the rule there had a space under -1.1 or a "
            "mean under -1.8, its trains' means ran to +20); only on pictures of "
            "'min_space_px'-'max_space_px' pixels a space (what the fit saw), and whose print "
            "read free and not listed scores as the fitted renders' did: its 'free_quantile' "
            "at most 'free_at_most' over at least 'min_free_spaces' spaces (on the fitted "
            "ranges it was at most -8.4 in every picture with trains left to the rule; on the "
            "shared photos scaled to 1,000-1,300 px, -7.2 to +0.3: some real print scores like "
            "plastic, and the rule stays off there: tools/fit_own_second.py --photos)."
        ),
        "own_second": {
            "min_spaces": MIN_SPACES,
            "mean_at_least": MEAN_AT_LEAST,
            "each_at_least": EACH_AT_LEAST,
            "min_space_px": 32.0,
            "max_space_px": 46.0,
            "free_quantile": FREE_QUANTILE,
            "free_at_most": FREE_AT_MOST,
            "min_free_spaces": MIN_FREE_SPACES,
            "shape": [int(ny), int(nx)],
            "mean": [round(float(v), 5) for v in model["mean"]],
            "scale": [round(float(v), 5) for v in model["scale"]],
            "weights": [round(float(v), 6) for v in model["weights"]],
            "bias": round(model["bias"], 6),
        },
    }
    if "--write" in sys.argv:
        OUT.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
