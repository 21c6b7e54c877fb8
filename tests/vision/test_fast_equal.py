"""Fast paths that give the very numbers of a straightforward computation (exact equality):
stations' per-pixel nearest plastic taken colour by colour (the shares of ``np.argmin`` over
all the colours' distances, ties to the first colour included); the scaled train windows made
feature-major a feature at a time; the windows' Lab and L spread channel by channel; every
pair's squared distance term by term; medians by partition."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from companion.vision.decide.classify import LAB_L, SpaceModel
from companion.vision.decide.context import ReadContext
from companion.vision.decide.read_stations import station_fractions_lab8
from companion.vision.features.exact import pair_sq_dist
from companion.vision.features.integral import (
    feature_major,
    window_corners,
    window_stats,
    window_sums,
)
from companion.vision.features.sample import median, row_medians
from companion.vision.types import PLAYER_COLORS


def _straight(lab: np.ndarray, model: SpaceModel, cfg: dict[str, Any], mask: Any) -> np.ndarray:
    """Every pixel's distance to every plastic (float32, as the reader), nearest by argmin."""
    sc = cfg["stations"]
    n = lab.shape[0]
    per = int(np.prod(lab.shape[1:-1]))
    idx = np.flatnonzero(mask)
    codes = lab.reshape(-1, 3)[idx].astype(np.float32)
    inv = 1.0 / np.array(sc["pixel_scale"], dtype=np.float64)
    mul = np.array([LAB_L, 1.0, 1.0]) * inv
    d2 = np.zeros((len(PLAYER_COLORS), len(idx)), dtype=np.float32)
    for i, c in enumerate(PLAYER_COLORS):
        off = (model.plastic[c][:3] + np.array([0.0, 128.0, 128.0])) * inv
        for ch in range(3):
            z = codes[:, ch] * np.float32(mul[ch]) - np.float32(off[ch])
            d2[i] += z * z
    k = len(PLAYER_COLORS)
    close = d2.min(axis=0) < np.float32(float(sc["pixel_radius"]) ** 2)
    code = np.where(close, np.argmin(d2, axis=0), k)
    city = idx // per
    counts = np.bincount(city * (k + 1) + code, minlength=n * (k + 1)).reshape(n, k + 1)
    return np.asarray(counts[:, :k] / np.maximum(mask.sum(axis=1), 1)[:, None])


def test_nearest_plastic_colour_by_colour_is_argmin(ctx: ReadContext) -> None:
    rng = np.random.default_rng(25)
    n, per = ctx.city_mask.shape
    side = round(per**0.5)
    model = ctx.model
    # the plastics' own looks, and codes around them, so that many pixels are near one
    looks = np.stack([model.plastic[c][:3] for c in PLAYER_COLORS])
    near = looks[rng.integers(0, len(looks), n * per)] + rng.normal(0, 6, (n * per, 3))
    codes = np.stack([near[:, 0] / LAB_L, near[:, 1] + 128, near[:, 2] + 128], axis=1)
    lab = np.clip(np.rint(codes), 0, 255).astype(np.uint8).reshape(n, side, side, 3)
    got = station_fractions_lab8(lab, model, ctx.cfg, ctx.city_mask)
    want = _straight(lab, model, ctx.cfg, ctx.city_mask)
    assert np.array_equal(got, want)
    assert got.sum() > 0.5 * n  # most pixels are near a plastic: the shares are not all 0
    # two plastics alike: every tie goes to the first of them, as argmin's
    plastic = dict(model.plastic)
    plastic["yellow"] = plastic["red"].copy()
    twin = replace(model, plastic=plastic)
    got = station_fractions_lab8(lab, twin, ctx.cfg, ctx.city_mask)
    assert np.array_equal(got, _straight(lab, twin, ctx.cfg, ctx.city_mask))
    first = min(PLAYER_COLORS.index("red"), PLAYER_COLORS.index("yellow"))
    second = max(PLAYER_COLORS.index("red"), PLAYER_COLORS.index("yellow"))
    assert got[:, second].sum() == 0.0 and got[:, first].sum() > 0.0


def test_feature_major_windows_are_the_scaled_windows_cast_whole() -> None:
    rng = np.random.default_rng(7)
    values = rng.normal(50.0, 30.0, (300, 55, 4))
    values[0, 0] = [np.inf, -np.inf, 0.0, -0.0]
    scale = 1.0 / np.array([3.7, 2.9, 4.1, 1.3])
    want = np.ascontiguousarray(np.moveaxis(values * scale, -1, 0), dtype=np.float32)
    got = feature_major(values, scale)
    assert got.dtype == np.float32 and got.shape == (4, 300, 55)
    assert np.array_equal(got, want) and got.flags.c_contiguous
    assert np.array_equal(np.signbit(got), np.signbit(want))


def test_window_stats_channel_by_channel_are_those_of_the_whole_array(ctx: ReadContext) -> None:
    rng = np.random.default_rng(11)
    n, ny, nx = 40, ctx.layout.ny, ctx.layout.nx
    lab = rng.integers(0, 256, (n, ny, nx, 3), dtype=np.uint8)
    stack = lab.reshape(n * ny, nx, 3)
    s_int = cv2.integral(stack, sdepth=cv2.CV_32S)
    sq_int = cv2.integral(np.square(stack[..., 0], dtype=np.float32), sdepth=cv2.CV_64F)
    windows = ctx.windows
    corners = window_corners(n, ny, nx, windows)
    got = window_stats(s_int, sq_int, corners, windows, LAB_L)
    area = float(windows.wl * windows.ww)
    mean8 = window_sums(s_int, corners, n) / area
    sq = window_sums(sq_int, corners, n) / area
    want = np.empty((*mean8.shape[:2], 4))
    want[..., 0] = mean8[..., 0] * LAB_L
    want[..., 1:3] = mean8[..., 1:] - 128.0
    want[..., 3] = np.sqrt(np.maximum(sq - np.square(mean8[..., 0]), 0.0)) * LAB_L
    assert got.shape == (n, len(windows.x0), 4)
    assert np.array_equal(got, want)
    assert got[..., 3].max() > 10.0  # random codes: the windows' L spreads are wide


def test_pair_distances_term_by_term_are_the_summed_expression() -> None:
    rng = np.random.default_rng(3)
    for n, k in ((1, 3), (23, 3), (122, 3), (40, 1), (30, 2), (20, 7), (15, 9)):
        z = rng.normal(0.0, 1.0, (n, k)) * rng.uniform(0.1, 30.0, (1, k))
        want = ((z[:, None, :] - z[None, :, :]) ** 2).sum(axis=2)
        got = pair_sq_dist(z)
        assert got.shape == (n, n) and np.array_equal(got, want), (n, k)
    # the order of the terms shows: summed the other way round, some pairs differ
    z = rng.normal(0.0, 1.0, (200, 3))
    t = [np.square(z[:, None, c] - z[None, :, c]) for c in range(3)]
    other = t[0] + (t[1] + t[2])
    assert not np.array_equal(pair_sq_dist(z), other)


def test_row_medians_are_numpys_medians() -> None:
    rng = np.random.default_rng(5)
    for k in (1, 2, 9, 16, 17, 33, 37, 149, 300):
        scores = rng.normal(0.0, 3.0, (300, k))
        scores[:5] = np.round(scores[:5])  # ties
        assert np.array_equal(row_medians(scores), np.median(scores, axis=1)), k
    feats = rng.normal(0.0, 3.0, (149, 10))  # a view's rows (fit.sharpness_evened's columns)
    cols = feats[:, [7, 8]].T
    assert np.array_equal(row_medians(cols), np.median(feats[:, [7, 8]], axis=0))
    scores = rng.normal(0.0, 3.0, (50, 17))
    scores[3, 4] = np.nan  # a NaN row: NaN, as numpy's median gives it
    got = row_medians(scores)
    assert np.isnan(got[3]) and np.array_equal(
        np.delete(got, 3), np.delete(np.median(scores, 1), 3)
    )


def test_median_is_numpys_median() -> None:
    rng = np.random.default_rng(9)
    for k in (1, 2, 3, 10, 1490, 3000, 6001):
        values = rng.gamma(2.0, 3.0, k)
        values[: k // 3] = np.round(values[: k // 3])  # ties
        assert median(values) == float(np.median(values)), k
    values = rng.normal(0.0, 1.0, 11)
    values[4] = np.inf
    assert median(values) == float(np.median(values))
    values[5] = np.nan
    assert np.isnan(median(values)) and np.isnan(float(np.median(values)))
