"""How well the Europe board's facts explain a picture under a homography (locating's test of a
candidate outline): the ~300 train spaces sampled where the geometry puts them, each compared
with its printed colour and with the five plastic trains (``classify.fit_features``)."""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np

from companion.vision.decide.classify import FIT_FEATURES, FitModel, fit_distances, fit_features
from companion.vision.decide.context import (
    ReadContext,
    balance_samples,
    spread_subset,
    take_samples,
)
from companion.vision.features.sample import (
    RawSamples,
    SampleGrids,
    SampleMaps,
    U8Array,
    make_maps,
    patch_px,
    prefilter_step,
    remap_points,
    row_medians,
    subset_grids,
)
from companion.vision.geometry.geometry import FloatArray


@dataclass(frozen=True)
class FitSet:
    """Spaces ``board_fit`` looks at: their grids, printed colours and the print's median
    gradient features (``sharpness_evened``)."""

    grids: SampleGrids
    printed: list[str]
    ref: FloatArray


_FIT_SETS: dict[int, tuple[ReadContext, dict[str, FitSet]]] = {}
# Whether a candidate may also be judged as another copy of the board (``print_evened``):
# set by ``locate_board`` for its second look, when the fitted print found no board.
OTHER_INKS: ContextVar[bool] = ContextVar("other_inks", default=False)
QUICK_EVERY = 8  # the quick look at a candidate turn: every 8th space (about 37)
QUICK_BELOW = 0.15  # a turn whose quick look explains less is not looked at in full


def fit_sets(ctx: ReadContext) -> dict[str, FitSet]:
    """The spaces looked at by ``board_fit`` (``all``, ``subset``) and by the quick look at a
    candidate turn (``quick``), built once per context."""
    got = _FIT_SETS.get(id(ctx))
    if got is not None and got[0] is ctx:
        return got[1]

    def fit_set(grids: SampleGrids, printed: list[str]) -> FitSet:
        means = np.stack([ctx.fit_model.printed[c][GRADIENTS] for c in printed])
        return FitSet(grids, printed, np.asarray(np.median(means, axis=0), dtype=np.float64))

    quick = spread_subset(ctx.geometry, QUICK_EVERY)
    sets = {
        "all": fit_set(ctx.fit_grids, ctx.printed_colors),
        "subset": fit_set(ctx.fit_sub_grids, [ctx.printed_colors[int(i)] for i in ctx.fit_subset]),
        "quick": fit_set(
            subset_grids(ctx.fit_grids, quick), [ctx.printed_colors[int(i)] for i in quick]
        ),
    }
    if len(_FIT_SETS) >= 8:  # contexts are few (one per configuration); never grow unbounded
        _FIT_SETS.clear()
    _FIT_SETS[id(ctx)] = (ctx, sets)
    return sets


def board_fit(
    image: U8Array, h: FloatArray, ctx: ReadContext, *, subset: bool = False
) -> tuple[float, float]:
    """How well the board's facts explain ``image`` under ``h``.

    Returns (share of spaces explained by their printed colour or a plastic train, mean capped
    distance; lower is better). Cheap enough to be called many times on a small image;
    ``subset`` looks at a spread half of the spaces only (comparing candidates, refining).
    """
    return fit_one(image, h, ctx, fit_sets(ctx)["subset" if subset else "all"])


def fit_one(image: U8Array, h: FloatArray, ctx: ReadContext, fs: FitSet) -> tuple[float, float]:
    """``board_fit`` on the spaces of ``fs``."""
    samples = take_samples(image, h, ctx, fs.grids, lab=False)
    return fit_scores(fit_features(samples.spaces), ctx, fs)


def fits_many(
    image: U8Array, hs: list[FloatArray], ctx: ReadContext, fs: FitSet
) -> list[tuple[float, float]]:
    """``fit_one`` under several homographies at once (one remap, one pass of the features: the
    same numbers, with less overhead); one at a time when a picture must be decimated first."""
    grids = fs.grids
    if len(hs) < 2 or any(prefilter_step(patch_px(h, grids)) != 1 for h in hs):
        return [fit_one(image, h, ctx, fs) for h in hs]
    each = [make_maps(h, grids) for h in hs]
    maps = SampleMaps(np.concatenate([m.xy for m in each]), sum(m.n_points for m in each))
    flat = remap_points(image, maps).reshape(len(hs), -1, 3)  # as sample.sample_all, all at once
    n_wb, n_sp, n_ci = grids.counts
    sp, ci = grids.spaces.shape[:3], grids.cities.shape[:3]
    spaces = [
        balance_samples(
            RawSamples(f[:n_wb], f[n_wb : n_wb + n_sp + n_ci], (sp[0], sp[1], sp[2]), ci),
            ctx,
            lab=False,
        ).spaces
        for f in flat
    ]
    feats = fit_features(np.concatenate(spaces))
    n = sp[0]
    return [fit_scores(feats[i * n : (i + 1) * n], ctx, fs) for i in range(len(hs))]


def fit_scores(feats: FloatArray, ctx: ReadContext, fs: FitSet) -> tuple[float, float]:
    """(explained, mean capped distance) of the fit features of the spaces of ``fs``."""
    cfg = ctx.cfg["locate"]
    best = fit_distances(feats, fs.printed, ctx.fit_model).min(axis=1)
    explained = float(np.mean(best < float(cfg["explained_dist"])))
    evened = sharpness_evened(feats, fs.printed, ctx.fit_model, fs.ref)
    if evened is not feats:  # a softer picture: judged as sharp too, the better of the two
        best_e = fit_distances(evened, fs.printed, ctx.fit_model).min(axis=1)
        explained_e = float(np.mean(best_e < float(cfg["explained_dist"])))
        if explained_e > explained:
            best, explained = best_e, explained_e
    if OTHER_INKS.get() and float(cfg["print_floor"]) <= explained < float(
        cfg["accept_full_frame"]
    ):
        # Partly explained: perhaps another copy of the board, in other inks.
        toned, change = print_evened(feats, fs.printed, ctx.fit_model, cfg["print_limits"])
        same = cfg["print_same"]  # how far from the fitted print a copy is still that print
        if (
            abs(change[0] - 1.0) > same[0]
            or abs(change[1]) > same[1]
            or abs(change[2] - 1.0) > same[2]
            or max(abs(change[3]), abs(change[4])) > same[3]
        ):
            best_t = fit_distances(toned, fs.printed, ctx.fit_model).min(axis=1)
            explained_t = float(np.mean(best_t < float(cfg["explained_dist"])))
            if explained_t > explained:
                best, explained = best_t, explained_t
    smooth = float(np.mean(np.minimum(best, float(cfg["smooth_cap"]))))
    return explained, smooth


GRADIENTS = [FIT_FEATURES.index("grad_along"), FIT_FEATURES.index("grad_across")]


def sharpness_evened(
    feats: FloatArray, printed: list[str], model: FitModel, ref: FloatArray | None = None
) -> FloatArray:
    """The fit features with the two gradient features brought up to the photos' sharpness.

    A small or soft frame (a 960x540 camera, a little blur) has weaker pixel gradients on
    every space alike than the photos the class means come from: on an empty board that
    alone left spaces unexplained (the demo's first frame: the board seen, 0.58 explained,
    refused). The gradients are divided by how much weaker their median over the spaces is
    than the print's means would have it (never made weaker: 1/3 to 1). Trains are smoother
    than print, so a full board looks softer too: ``board_fit`` keeps whichever of the two
    explains more. ``ref``: the print's medians for ``printed`` when already known."""
    if ref is None:
        ref = np.median(np.stack([model.printed[c][GRADIENTS] for c in printed]), axis=0)
    got = row_medians(feats[:, GRADIENTS].T)  # np.median(..., axis=0)
    ratio = float(np.exp(np.mean(np.log(np.maximum(got, 1e-6) / np.maximum(ref, 1e-6)))))
    ratio = min(max(ratio, 1.0 / 3.0), 1.0)
    if ratio >= 1.0:
        return feats
    out = feats.copy()
    out[:, GRADIENTS] /= ratio
    return out


_L_LIKE = [FIT_FEATURES.index(f) for f in ("L", "L_p20", "L_p90")]
_AB = [FIT_FEATURES.index("a"), FIT_FEATURES.index("b")]
_CHROMA = FIT_FEATURES.index("chroma")


def _line(x: FloatArray, y: FloatArray, w: FloatArray) -> tuple[float, float]:
    """Weighted least squares ``y = slope x + offset``."""
    mx, my = float(np.average(x, weights=w)), float(np.average(y, weights=w))
    var = float(np.average((x - mx) ** 2, weights=w))
    slope = float(np.average((x - mx) * (y - my), weights=w)) / max(var, 1e-9)
    return slope, my - slope * mx


def print_evened(
    feats: FloatArray, printed: list[str], model: FitModel, limits: dict[str, list[float]]
) -> tuple[FloatArray, tuple[float, ...]]:
    """The fit features brought back from another copy's inks to the fitted print's.

    Another print run shows the same map in other inks: paler, darker, warmer, more or less
    saturated. Per printed colour, the median L, a and b of its spaces (most spaces of an
    empty or half-played board are free) against the fitted print's give one lightness map
    (``L' = alpha L + beta``, the colour that fits it worst left out) and one colour map
    (``a' = s a + da``, ``b' = s b + db``) for the whole board, each within ``limits``
    (``locate.print_limits``: a picture that is not the board cannot be made one by them); the
    features are mapped back through them. Returns the features and (alpha, beta, s, da, db,
    rms): rms, how far the colours seen are from those maps (Lab units)."""
    colours = sorted(set(printed))
    at = np.array([colours.index(c) for c in printed])
    obs, ref, weight = [], [], []
    for j, c in enumerate(colours):
        rows = feats[at == j]
        if len(rows) < 2:
            continue
        obs.append(np.median(rows[:, [0, *_AB]], axis=0))
        ref.append(model.printed[c][[0, *_AB]])
        weight.append(np.sqrt(len(rows)))
    if len(obs) < 4:
        return feats, (1.0, 0.0, 1.0, 0.0, 0.0, float("inf"))
    o, r, w = np.array(obs), np.array(ref), np.array(weight)
    alpha, beta = _line(r[:, 0], o[:, 0], w)
    worst = np.arange(len(w)) != int(np.argmax(np.abs(o[:, 0] - alpha * r[:, 0] - beta)))
    alpha, beta = _line(r[worst, 0], o[worst, 0], w[worst])
    lo_a, hi_a, lo_b, hi_b = limits["lightness"]
    alpha = min(max(alpha, lo_a), hi_a)
    beta = min(max(beta, lo_b), hi_b)
    # a and b: one scale, each its own offset (centred on their weighted means)
    ma, mb = np.average(r[:, 1:], axis=0, weights=w), np.average(o[:, 1:], axis=0, weights=w)
    xc, yc = (r[:, 1:] - ma).ravel(), (o[:, 1:] - mb).ravel()
    ww = np.repeat(w, 2)
    s = float(np.sum(ww * xc * yc)) / max(float(np.sum(ww * xc * xc)), 1e-9)
    lo_s, hi_s, lo_d, hi_d = limits["colour"]
    s = min(max(s, lo_s), hi_s)
    d = np.clip(mb - s * ma, lo_d, hi_d)
    # how well one copy's inks explain the colours seen (the worst lightness left out)
    res_l = (o[worst, 0] - alpha * r[worst, 0] - beta) ** 2
    res_ab = ((o[:, 1:] - s * r[:, 1:] - d) ** 2).sum(axis=1)
    rms = float(np.sqrt(np.average(res_l, weights=w[worst]) + np.average(res_ab, weights=w)))
    out = feats.copy()
    # the lightness moved, its spread within a space kept (grain and noise are not the inks')
    out[:, _L_LIKE] += ((out[:, 0] - beta) / alpha - out[:, 0])[:, None]
    out[:, _AB] = (out[:, _AB] - d) / s
    out[:, _CHROMA] /= s
    # the edges' gradients follow the inks' contrast and the picture's sharpness alike: not
    # judged on another copy (each space given its own print's)
    out[:, GRADIENTS] = np.stack([model.printed[c][GRADIENTS] for c in printed])
    return out, (alpha, beta, s, float(d[0]), float(d[1]), rms)
