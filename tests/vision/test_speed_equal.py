"""The reader's fast paths give the very numbers of a straightforward computation (seeded
inputs; exact equality, not closeness): window and core sums from integral images, radix-sorted
medians, all colours' distances at once, the tone map's channels together, per-route reductions,
medians by one sort. Their speed is measured in benchmarks/bench_vision_speed.py."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from companion.vision.decide.check import (
    CheckConfig,
    _evidence,
    _with_profile,
    print_like,
    route_evidence,
)
from companion.vision.decide.classify import (
    HYPOTHESES,
    LAB_L,
    FitModel,
    distances,
    fit_distances,
    fit_features,
    lab8,
    log_softmax,
    route_log_prob_matrix,
    space_features_lab8,
    window_penalty,
)
from companion.vision.decide.context import ReadContext
from companion.vision.decide.profile import TableProfile, column_median, empty_look
from companion.vision.features.tone import tone_table
from companion.vision.types import PLAYER_COLORS


def _patches(ctx: ReadContext, seed: int) -> np.ndarray:
    """8-bit Lab patches of every space: smooth blobs with noise (codes over the whole range)."""
    rng = np.random.default_rng(seed)
    n = len(ctx.info.printed_colors)
    lo = ctx.layout
    base = rng.integers(0, 256, (n, 1, 1, 3))
    noise = rng.normal(0, rng.uniform(2, 40), (n, lo.ny, lo.nx, 3))
    return np.clip(base + noise, 0, 255).astype(np.uint8)


def _reference_features(lab: np.ndarray, ctx: ReadContext) -> tuple[Any, Any, Any]:
    """Patch by patch, window by window, with plain sums and np.median."""
    lo, win, tunnel = ctx.layout, ctx.windows, ctx.info.tunnel
    n = lab.shape[0]
    windows = np.empty((n, len(win.x0), 4))
    printed = np.empty((n, 4))
    highlight = np.empty(n)
    for i in range(n):
        p = lab[i].astype(np.int64)
        for k, (x0, y0) in enumerate(zip(win.x0, win.y0, strict=True)):
            box = p[y0 : y0 + win.ww, x0 : x0 + win.wl]
            area = float(box.shape[0] * box.shape[1])
            mean8 = box.reshape(-1, 3).sum(axis=0) / area
            sq = float((box[..., 0] ** 2).sum()) / area
            std = np.sqrt(max(sq - mean8[0] * mean8[0], 0.0)) * LAB_L
            windows[i, k] = [mean8[0] * LAB_L, mean8[1] - 128.0, mean8[2] - 128.0, std]
        ya, yb, xa, xb = (-0.2, 0.2, -0.3, 0.3) if tunnel[i] else (-0.3, 0.3, -0.35, 0.35)
        core = p[lo.y(ya) : lo.y(yb), lo.x(xa) : lo.x(xb)].reshape(-1, 3)
        m = len(core)
        med = [float(np.median(core[:, c])) for c in range(3)]
        sq = float((core[:, 0] ** 2).sum()) / m
        mean_l = float(core[:, 0].sum()) / m
        std = np.sqrt(max(sq - mean_l * mean_l, 0.0)) * LAB_L
        printed[i] = [med[0] * LAB_L, med[1] - 128.0, med[2] - 128.0, std]
        k95 = min(m - 1, int(0.95 * (m - 1) + 0.5))
        highlight[i] = (np.sort(core[:, 0])[k95] - med[0]) * LAB_L
    return windows, printed, highlight


@pytest.mark.parametrize("seed", [0, 1])
def test_space_features_are_the_plain_sums_and_medians(ctx: ReadContext, seed: int) -> None:
    lab = _patches(ctx, seed)
    assert ctx.info.tunnel.any() and not ctx.info.tunnel.all()
    got = space_features_lab8(lab, ctx.layout, ctx.windows, ctx.info.tunnel)
    windows, printed, highlight = _reference_features(lab, ctx)
    assert np.array_equal(got.windows, windows)
    assert np.array_equal(got.printed, printed)
    assert np.array_equal(got.cues[:, 3], highlight)
    # the same patches again (the windows' corners kept): the same numbers
    again = space_features_lab8(lab.copy(), ctx.layout, ctx.windows, ctx.info.tunnel)
    assert np.array_equal(again.windows, got.windows) and np.array_equal(again.cues, got.cues)


def _reference_distances(feats: Any, ctx: ReadContext, model: Any) -> tuple[Any, Any]:
    """One colour at a time, one feature at a time (float32), as the reader first did."""
    penalty = window_penalty(model, ctx.windows, ctx.info.lane_side)
    n = feats.printed.shape[0]
    dist = np.empty((n, len(HYPOTHESES)))
    inv = 1.0 / model.scale
    plastic = np.stack([model.plastic[c] for c in PLAYER_COLORS])
    if model.plastic_offset is not None:
        plastic = plastic + model.plastic_offset
    mus = (plastic * inv).astype(np.float32)
    wz = (feats.windows * inv).astype(np.float32)
    best = np.empty((n, len(PLAYER_COLORS)), dtype=np.int64)
    for c in range(len(PLAYER_COLORS)):
        d = penalty.astype(np.float32)
        for k in range(wz.shape[2]):
            z = wz[:, :, k] - mus[c, k]
            d = d + np.minimum(z * z, np.float32(model.clip))
        best[:, c] = np.argmin(d, axis=1)
        dist[:, c + 1] = d[np.arange(n), best[:, c]]
    mu = np.stack([model.printed[c] for c in ctx.info.printed_colors])
    z64 = (feats.printed - mu) / model.scale
    dist[:, 0] = np.minimum(z64 * z64, model.clip).sum(axis=1)
    return dist, best


def test_distances_all_colours_at_once_are_one_by_one(ctx: ReadContext) -> None:
    feats = space_features_lab8(_patches(ctx, 3), ctx.layout, ctx.windows, ctx.info.tunnel)
    rng = np.random.default_rng(3)
    offset = rng.normal(0, 2, (len(PLAYER_COLORS), 4))
    for model in (ctx.model, replace(ctx.model, plastic_offset=offset)):
        penalty = window_penalty(model, ctx.windows, ctx.info.lane_side)
        kept: dict[bytes, Any] = {}
        for _ in range(2):  # the second time with the scaled windows kept
            dist, best = distances(feats, ctx.info, model, penalty, kept)
            want_dist, want_best = _reference_distances(feats, ctx, model)
            assert np.array_equal(dist, want_dist) and np.array_equal(best, want_best)
        assert len(kept) == 1


def test_fit_distances_are_the_plain_formula() -> None:
    rng = np.random.default_rng(4)
    names = ["red", "grey", "white", *PLAYER_COLORS]
    model = FitModel(
        plastic={c: rng.normal(0, 20, 10) for c in PLAYER_COLORS},
        printed={c: rng.normal(0, 20, 10) for c in names},
        scale=rng.uniform(1, 8, 10),
        clip=25.0,
    )
    printed = [str(c) for c in rng.choice(names, 200)]
    feats = rng.normal(0, 20, (200, 10))
    for _ in range(2):  # the printed means stacked once, then kept
        got = fit_distances(feats, printed, model)
        means = [np.stack([model.printed[c] for c in printed])]
        means += [model.plastic[c][None, :] for c in PLAYER_COLORS]
        for j, mu in enumerate(means):
            z = (feats - mu) / model.scale
            assert np.array_equal(got[:, j], np.minimum(z * z, model.clip).sum(axis=1))


def test_fit_features_quantiles_are_np_partitions() -> None:
    rng = np.random.default_rng(11)
    patches = np.clip(rng.normal(120, 50, (60, 10, 24, 3)), 0, 255).astype(np.uint8)
    got = fit_features(patches)
    lab = lab8(patches)
    core = lab[:, 3:7, 3:21].reshape(60, -1, 3)  # rows 0.3-0.7, columns 0.125-0.875
    m = core.shape[1]
    for i in range(60):
        for col, (ch, frac) in enumerate([(0, 0.5), (1, 0.5), (2, 0.5), (0, 0.2), (0, 0.9)]):
            kth = min(m - 1, int(frac * (m - 1) + 0.5))
            code = float(np.partition(core[i, :, ch], kth)[kth])
            want = code * LAB_L if ch == 0 else code - 128.0
            assert got[i, col] == want


def test_tone_table_channels_together_are_channel_by_channel(ctx: ReadContext) -> None:
    rng = np.random.default_rng(5)
    x = np.arange(256, dtype=np.float64)
    for trial in range(20):
        paper = rng.normal(rng.uniform(60, 200, 3), rng.uniform(3, 40, 3), (700, 3))
        paper = np.clip(paper, 0, 255).astype(np.uint8)
        if trial == 0:
            paper[:, 1] = 255  # a burnt-out channel: the percentiles coincide
        slopes = (0.4, 2.5) if trial % 2 else (0.7, 1.6)
        got = tone_table(paper, ctx.tone_percentiles, ctx.tone_reference, slopes)
        q = np.percentile(paper.astype(np.float64), ctx.tone_percentiles, axis=0)
        for c in range(3):
            xs = np.r_[0.0, q[:, c], 255.0]
            ys = np.r_[0.0, ctx.tone_reference[:, c], 255.0]
            xs = np.maximum.accumulate(xs + 1e-3 * np.arange(len(xs)))
            dx = np.diff(xs)
            slope = np.clip(np.diff(ys) / dx, *slopes)
            top = len(xs) - 2
            knots = np.empty_like(ys)
            knots[top] = ys[top]
            knots[top + 1] = ys[top] + slope[top] * dx[top]
            for k in range(top - 1, -1, -1):
                knots[k] = knots[k + 1] - slope[k] * dx[k]
            want = np.clip(np.interp(x, xs, knots) + 0.5, 0, 255).astype(np.uint8)
            assert np.array_equal(got[0, :, c], want)


def test_column_median_is_numpys() -> None:
    rng = np.random.default_rng(6)
    for m in (1, 2, 3, 8, 9, 40, 41, 300):
        x = rng.normal(0, 3, (m, 8))
        x[rng.random(x.shape) < 0.2] = 0.0
        x[: m // 3, 2] = 1.5  # ties
        assert np.array_equal(column_median(x), np.median(x, axis=0))
    x = rng.normal(0, 1, (9, 3))
    x[4, 1] = np.nan
    assert np.array_equal(column_median(x), np.median(x, axis=0), equal_nan=True)


def _reference_changed(profile: TableProfile, feats: Any, groups: Any) -> Any:
    from companion.vision.decide.profile import CALM, CHANGE_CAP, MIN_CALM

    diff = empty_look(feats) - profile.empty
    var = np.maximum(profile.empty_sq - profile.empty**2, 0.0)
    noise = np.maximum(np.sqrt(np.median(var, axis=0)), 1.0)

    def z2(d: Any) -> Any:
        z = d / noise
        return np.minimum(z * z, CHANGE_CAP).sum(axis=1)

    calm = z2(diff - np.median(diff, axis=0)) < CALM
    if int(calm.sum()) < MIN_CALM:
        return z2(diff)
    shift = np.broadcast_to(np.median(diff[calm], axis=0), diff.shape).copy()
    if groups is not None:
        for k in np.unique(groups):
            sel = calm & (groups == k)
            if int(sel.sum()) >= MIN_CALM:
                shift[groups == k] = np.median(diff[sel], axis=0)
    return z2(diff - shift)


def test_profile_changed_is_the_plain_medians(ctx: ReadContext) -> None:
    empty = space_features_lab8(_patches(ctx, 7), ctx.layout, ctx.windows, ctx.info.tunnel)
    profile = TableProfile.from_empty("test", empty)
    again = replace(empty, printed=empty.printed + 0.3)
    profile.add_empty(again)
    assert profile.empty_count == 2  # the noise measured from the two looks
    groups = ctx.info.printed_index[1]
    rng = np.random.default_rng(7)
    for spread in (0.2, 1.0, 4.0, 30.0):
        look = replace(
            empty,
            printed=empty.printed + rng.normal(0, spread, empty.printed.shape) + 1.5,
            cues=empty.cues + rng.normal(0, spread, empty.cues.shape),
        )
        for g in (None, groups):
            assert np.array_equal(profile.changed(look, g), _reference_changed(profile, look, g))


def _scores(ctx: ReadContext, seed: int) -> Any:
    rng = np.random.default_rng(seed)
    n = len(ctx.info.printed_colors)
    s = rng.normal(0, 3, (n, len(HYPOTHESES)))
    s[:, 0] += 4.0
    claimed = rng.random(len(ctx.info.route_ids)) < 0.3
    colour = rng.integers(1, len(HYPOTHESES), len(claimed))
    for k, rid in enumerate(ctx.info.route_ids):
        if claimed[k]:
            s[ctx.info.route_slices[rid], colour[k]] += 8.0
    return s


def test_route_evidence_run_by_run_is_space_by_space(ctx: ReadContext) -> None:
    info = ctx.info
    for seed in range(5):
        scores = _scores(ctx, seed)
        ev = route_evidence(scores, info, 1.0)
        lsm = log_softmax(scores)
        n_routes = len(info.route_ids)
        sr = info.space_route
        other = np.argmax(scores, axis=1) != ev.choice[sr]
        mixed = np.zeros(n_routes, dtype=bool)
        np.logical_or.at(mixed, sr, other)
        d_claim = lsm[np.arange(len(lsm)), ev.choice[sr]] - lsm[:, 0]
        weakest = np.full(n_routes, np.inf)
        np.minimum.at(weakest, sr, d_claim)
        weakest[ev.choice == 0] = np.inf
        own = np.array(
            [PLAYER_COLORS.index(c) + 1 if c in PLAYER_COLORS else 0 for c in info.printed_colors]
        )
        d_hidden = np.where(own > 0, lsm[np.arange(len(lsm)), own] - lsm[:, 0], -np.inf)
        hidden = np.full(n_routes, -np.inf)
        np.maximum.at(hidden, sr, d_hidden)
        hidden[ev.choice != 0] = -np.inf
        assert np.array_equal(ev.mixed, mixed)
        assert np.array_equal(ev.weakest, weakest)
        assert np.array_equal(ev.hidden, hidden)


def test_with_profile_all_routes_at_once_are_route_by_route(ctx: ReadContext) -> None:
    info, cfg = ctx.info, CheckConfig.load()
    rng = np.random.default_rng(8)
    for seed in range(5):
        scores = _scores(ctx, 10 + seed)
        lp = route_log_prob_matrix(log_softmax(scores), info, 1.0)
        ev = _evidence(scores, info, log_softmax(scores), lp)
        least = rng.choice([5.0, 50.0, 90.0], len(info.route_ids)) + rng.uniform(0, 5)
        listed: set[int] = set()
        settled: set[int] = set()
        got = _with_profile(ev, lp, least, cfg, listed, settled)
        choice, conf = ev.choice.copy(), ev.confidence.copy()
        want_listed, want_settled = set(), set()
        for k in range(len(choice)):
            if least[k] < cfg.unchanged:
                choice[k], conf[k] = 0, 1.0
                want_settled.add(k)
            elif least[k] > cfg.changed:
                colours = lp[k, 1:]
                p = np.exp(colours - colours.max())
                if choice[k] == 0:
                    choice[k] = 1 + int(np.argmax(colours))
                conf[k] = float(p[choice[k] - 1] / p.sum())
                want_settled.add(k)
            else:
                want_listed.add(k)
        assert np.array_equal(got.choice, choice) and np.array_equal(got.confidence, conf)
        assert listed == want_listed and settled == want_settled and listed and settled


def test_print_like_at_once_is_pair_by_pair(ctx: ReadContext) -> None:
    rng = np.random.default_rng(9)
    for radius in (1.0, 8.0, 30.0, 200.0):
        model = replace(
            ctx.model,
            plastic={c: v + rng.normal(0, 3, 4) for c, v in ctx.model.plastic.items()},
        )
        want = {}
        for p, mu in model.printed.items():
            near = {
                c
                for c, v in model.plastic.items()
                if float(np.sum(((mu - v) / model.scale) ** 2)) <= radius
            }
            want[p] = frozenset(near | ({p} if p in PLAYER_COLORS else set()))
        assert print_like(model, radius) == want
