"""Uneven light: a lamp to one side, a window, a vignette.

The tone map (``classify.tone_table``) corrects the light of the whole board at once; a board lit
more on one side than the other still shows a darker and a brighter half, and on the darker half
paper passes for black plastic, on the brighter one pale land for yellow plastic. Here the light's
shape over the board is measured on the board's own paper and taken off every sample before the
tone map.

The paper is of a few materials (pale land, sea, borders), each of its own brightness: the points
are grouped by their chromaticity (which a change of light's strength leaves alone), and
log-brightness is fitted as one level per group plus a smooth surface over the board (a plane and
its three quadratic terms), robustly (points far off the fit are dropped and it is fitted again).
Only when the surface spans more than ``light.min_span`` (a board lit evenly keeps its samples
exactly as they were) is every space and city patch divided by the surface at its place.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from companion.vision.classify import FloatArray, U8Array

GROUPS = 4  # chromaticity groups of the paper (quantiles of blue - red chromaticity)


def _terms(uv: FloatArray) -> FloatArray:
    u = uv[:, 0] - 0.5
    v = uv[:, 1] - 0.5
    return np.stack([u, v, u * u, v * v, u * v], axis=1)


def light_surface(paper: U8Array, uv: FloatArray) -> tuple[FloatArray, float] | None:
    """Coefficients of the log-brightness surface over the board (5,) and its span (max / min
    over the board's extent, as a log ratio) from paper pixels (m, 3) BGR at board points
    ``uv`` (m, 2); None when there is too little paper to measure."""
    px = paper.astype(np.float64) + 1.0
    total = px.sum(axis=1)
    ok = (total > 30.0) & (px.max(axis=1) < 254.0)  # neither black nor burnt out
    if int(ok.sum()) < 100:
        return None
    px, total, uv = px[ok], total[ok], uv[ok]
    chroma = (px[:, 0] - px[:, 2]) / total
    edges = np.quantile(chroma, np.linspace(0, 1, GROUPS + 1)[1:-1])
    group = np.searchsorted(edges, chroma)
    y = np.log(total)
    x = np.concatenate([np.eye(GROUPS)[group], _terms(uv)], axis=1)
    keep = np.ones(len(y), dtype=bool)
    coef = np.zeros(x.shape[1])
    for _ in range(3):
        coef, *_ = np.linalg.lstsq(x[keep], y[keep], rcond=None)
        resid = y - x @ coef
        spread = 1.4826 * float(np.median(np.abs(resid[keep])))
        keep = np.abs(resid) < 2.5 * max(spread, 1e-3)
    surface = coef[GROUPS:]
    corners = np.array([[u, v] for u in np.linspace(0, 1, 5) for v in np.linspace(0, 1, 5)])
    s = _terms(corners) @ surface
    return np.asarray(surface, dtype=np.float64), float(s.max() - s.min())


def _scaled(px: U8Array, groups: int, gain: FloatArray) -> U8Array:
    """``px`` (groups * k, 3) uint8, each of ``groups`` equal runs times its gain (fixed point:
    gains within 0.5-2 in steps of 1/128)."""
    g = np.round(np.clip(gain, 0.5, 1.99) * 128).astype(np.uint16)
    a = px.reshape(groups, -1).astype(np.uint16)
    a *= g[:, None]
    a >>= 7
    np.minimum(a, 255, out=a)
    return np.asarray(a.astype(np.uint8).reshape(px.shape), dtype=np.uint8)


def flatten(
    body: U8Array,
    wb: U8Array,
    paper: Any,
    wb_uv: FloatArray,
    patch_uv: FloatArray,
    runs: tuple[tuple[int, int], ...],
    min_span: float,
) -> tuple[U8Array, U8Array, bool]:
    """``body`` (n_px, 3): runs of equal patches (``runs``: (patches, pixels each), one after
    the other, centred at ``patch_uv``) and ``wb`` (n_wb, 3) with the light's surface taken
    off; the flag says whether it was (only when the surface spans more than ``min_span``, a
    log ratio)."""
    fit = light_surface(wb[paper], wb_uv[paper])
    if fit is None or fit[1] < min_span:
        return body, wb, False
    surface, _ = fit
    mean = float(np.mean(_terms(wb_uv[paper]) @ surface))
    gain_patch = np.exp(mean - _terms(patch_uv) @ surface)
    out = np.empty_like(body)
    px = patch = 0
    for count, size in runs:
        part = slice(px, px + count * size)
        out[part] = _scaled(body[part], count, gain_patch[patch : patch + count])
        px += count * size
        patch += count
    gain_wb = np.exp(mean - _terms(wb_uv) @ surface)
    out_wb = _scaled(wb, len(wb), gain_wb)
    return out, out_wb, True


def flatten_raw(raw: Any, ctx: Any) -> Any:
    """``sample.RawSamples`` of the reading grids with the light's surface taken off (the same
    object when the board is lit evenly, or when they are not the reading grids' samples)."""
    grids = ctx.grids
    if raw.spaces_shape != grids.spaces.shape[:3] or raw.cities_shape != grids.cities.shape[:3]:
        return raw
    n_sp, ny, nx = raw.spaces_shape
    n_ci, nc, _ = raw.cities_shape
    patch_uv = np.concatenate(
        [grids.spaces[:, ny // 2, nx // 2], grids.cities[:, nc // 2, nc // 2]], axis=0
    )
    body, wb, done = flatten(
        raw.body,
        raw.wb,
        ctx.paper_mask,
        grids.wb.reshape(-1, 2),
        patch_uv,
        ((n_sp, ny * nx), (n_ci, nc * nc)),
        float(ctx.cfg["light"]["min_span"]),
    )
    if not done:
        return raw
    return replace(raw, body=body, wb=wb)
