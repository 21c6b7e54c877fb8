"""Uneven light: a lamp to one side, a window, a vignette.

The tone map (``tone.tone_table``) corrects the light of the whole board at once; a board lit
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

Live frames of one board at one place share their light: ``measure`` fits it once (a
``LightFix``: the gains per patch), ``apply`` takes it off each frame, and ``still_fits`` says
when the light's shape has changed enough to measure it again (``read.ReadCache`` does so, and
every ``light.refresh_reads`` full reads in any case). ``flatten_raw`` is both on one frame.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.features.sample import U8Array
from companion.vision.geometry.geometry import FloatArray

GROUPS = 4  # chromaticity groups of the paper (quantiles of blue - red chromaticity)
# where the surface's span over the board is taken: a 5 x 5 grid over it, corners included
_SPAN_POINTS = np.array([[u, v] for u in np.linspace(0, 1, 5) for v in np.linspace(0, 1, 5)])


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
    s = _terms(_SPAN_POINTS) @ surface
    return np.asarray(surface, dtype=np.float64), float(s.max() - s.min())


@dataclass(frozen=True)
class LightFix:
    """The light's surface over the board as measured on one frame, ready to be taken off the
    frames that follow at the same place (``measure``, then ``apply``): the gains in fixed point
    (1/128) per reading patch and per white-balance point, or None when the board is lit evenly
    (its samples are left exactly as they were); ``paper``: the paper's pixels it was measured
    on (``still_fits`` compares the next frames' with them)."""

    gain_patch: npt.NDArray[np.uint16] | None  # (n_spaces + n_cities,)
    gain_wb: npt.NDArray[np.uint16] | None  # (n_wb,)
    runs: tuple[tuple[int, int], ...]  # (patches, pixels each): spaces, then cities
    paper: U8Array  # (m, 3) BGR

    @property
    def even(self) -> bool:
        return self.gain_patch is None


def _fixed(gain: FloatArray) -> npt.NDArray[np.uint16]:
    """Gains within 0.5-2 in steps of 1/128."""
    return np.asarray(np.round(np.clip(gain, 0.5, 1.99) * 128), dtype=np.uint16)


def _scaled(px: U8Array, groups: int, g: npt.NDArray[np.uint16]) -> U8Array:
    """``px`` (groups * k, 3) uint8, each of ``groups`` equal runs times its fixed-point gain
    ``g`` (``_fixed``): ``min((px * g) >> 7, 255)``, in two passes (the product in 16 bits,
    then ``(p - 63.5) / 128`` rounded to the nearest, which is ``p >> 7`` for every product
    of a byte and a gain, saturated at 255)."""
    a = np.multiply(px.reshape(groups, -1), g[:, None], dtype=np.uint16)
    out = cv2.convertScaleAbs(a, alpha=1.0 / 128.0, beta=-63.5 / 128.0)
    return np.asarray(out, dtype=np.uint8).reshape(px.shape)


def fit_gains(
    wb: U8Array,
    paper: Any,
    wb_uv: FloatArray,
    patch_uv: FloatArray,
    min_span: float,
) -> tuple[npt.NDArray[np.uint16], npt.NDArray[np.uint16]] | None:
    """The fixed-point gains that take the light's surface off each patch centred at
    ``patch_uv`` and each white-balance point (``wb`` (n_wb, 3) at ``wb_uv``), measured on the
    points ``paper`` of ``wb``; None when the surface spans no more than ``min_span`` (a log
    ratio) or there is too little paper to measure it."""
    fit = light_surface(wb[paper], wb_uv[paper])
    if fit is None or fit[1] < min_span:
        return None
    surface, _ = fit
    mean = float(np.mean(_terms(wb_uv[paper]) @ surface))
    gain_patch = np.exp(mean - _terms(patch_uv) @ surface)
    gain_wb = np.exp(mean - _terms(wb_uv) @ surface)
    return _fixed(gain_patch), _fixed(gain_wb)


def apply_gains(
    body: U8Array,
    wb: U8Array,
    gain_patch: npt.NDArray[np.uint16],
    gain_wb: npt.NDArray[np.uint16],
    runs: tuple[tuple[int, int], ...],
) -> tuple[U8Array, U8Array]:
    """``body`` (runs of equal patches, one after the other) and ``wb`` times their gains."""
    out = np.empty_like(body)
    px = patch = 0
    for count, size in runs:
        part = slice(px, px + count * size)
        out[part] = _scaled(body[part], count, gain_patch[patch : patch + count])
        px += count * size
        patch += count
    return out, _scaled(wb, len(wb), gain_wb)


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
    gains = fit_gains(wb, paper, wb_uv, patch_uv, min_span)
    if gains is None:
        return body, wb, False
    out, out_wb = apply_gains(body, wb, gains[0], gains[1], runs)
    return out, out_wb, True


def _on_reading_grids(raw: Any, ctx: Any) -> bool:
    grids = ctx.grids
    return bool(
        raw.spaces_shape == grids.spaces.shape[:3] and raw.cities_shape == grids.cities.shape[:3]
    )


def _runs(raw: Any) -> tuple[tuple[int, int], ...]:
    n_sp, ny, nx = raw.spaces_shape
    n_ci, nc, nc2 = raw.cities_shape
    return ((n_sp, ny * nx), (n_ci, nc * nc2))


def measure(raw: Any, ctx: Any) -> LightFix | None:
    """The light's surface on ``raw`` (``sample.RawSamples`` of the reading grids), ready to be
    taken off it and the frames that follow at the same place; None when they are not the
    reading grids' samples (nothing is taken off those)."""
    if not _on_reading_grids(raw, ctx):
        return None
    grids = ctx.grids
    _, ny, nx = raw.spaces_shape
    _, nc, _ = raw.cities_shape
    patch_uv = np.concatenate(
        [grids.spaces[:, ny // 2, nx // 2], grids.cities[:, nc // 2, nc // 2]], axis=0
    )
    runs = _runs(raw)
    paper = raw.wb[ctx.paper_mask]
    gains = fit_gains(
        raw.wb,
        ctx.paper_mask,
        grids.wb.reshape(-1, 2),
        patch_uv,
        float(ctx.cfg["light"]["min_span"]),
    )
    if gains is None:
        return LightFix(None, None, runs, paper.copy())
    return LightFix(gains[0], gains[1], runs, paper.copy())


def apply(raw: Any, fix: LightFix | None) -> Any:
    """``raw`` with the light's surface of ``fix`` taken off (the same object when the board is
    lit evenly or there is no fix)."""
    if fix is None or fix.gain_patch is None or fix.gain_wb is None:
        return raw
    if _runs(raw) != fix.runs:
        return raw
    body, wb = apply_gains(raw.body, raw.wb, fix.gain_patch, fix.gain_wb, fix.runs)
    return replace(raw, body=body, wb=wb)


def still_fits(fix: LightFix, raw: Any, ctx: Any) -> bool:
    """Is the light on ``raw``'s paper shaped as it was when ``fix`` was measured? A change of
    the light's overall strength (a camera's exposure) keeps it; a lamp switched on, a curtain
    drawn, does not: the paper's log-brightness change, less its median over the board, stays
    within ``light.refit_change`` at the ``light.refit_quantile`` of the paper's points."""
    if not _on_reading_grids(raw, ctx):
        return False
    paper = raw.wb[ctx.paper_mask]
    if paper.shape != fix.paper.shape:
        return False
    now = paper.astype(np.float32).sum(axis=1) + 3.0
    then = fix.paper.astype(np.float32).sum(axis=1) + 3.0
    # neither nearly black (its log brightness is noise) nor burnt out (it cannot follow)
    ok = (np.minimum(now, then) > 60.0) & (
        np.maximum(paper.max(axis=1), fix.paper.max(axis=1)) < 254
    )
    if int(ok.sum()) < 100:
        return False
    d = np.log(now[ok]) - np.log(then[ok])
    d -= np.median(d)
    cfg = ctx.cfg["light"]
    q = float(np.quantile(np.abs(d), float(cfg["refit_quantile"])))
    return q <= float(cfg["refit_change"])


def flatten_raw(raw: Any, ctx: Any) -> Any:
    """``sample.RawSamples`` of the reading grids with the light's surface taken off (the same
    object when the board is lit evenly, or when they are not the reading grids' samples)."""
    return apply(raw, measure(raw, ctx))
