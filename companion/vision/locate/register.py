"""Fine registration of a located board on its own printed train spaces.

Locating gives the board's outline to within a few tenths of a space's width (the outline's
corners are rounded, the paper's edge is worn, a phone photo is bent a little by its lens). That
is enough to find the board but not to read it: a space read a third of its width off its print
shows the print's edge and the paper beside it, and an empty route printed in a player's colour
starts to look like a plastic train.

Every printed space has a thin dark outline, a little inside the measured box: across the
track its two long sides are dark lines ``outline_across`` (0.8) box widths apart; along it, its
two ends ``outline_along`` (0.95) box lengths apart. For every space the shift (along and
across) that puts those line pairs on the darkest pair is measured on its sampled patch; spaces
whose lines are not clearly there (covered by a train, a station, a hand) are left out, and a
small affine map of the board is fitted to all the rest at once (RANSAC, composed with the
homography), so that a few wrong measurements cannot pull it. Two rounds (the second from the
first's result). What is left after that (a lens's barrel, a board not lying flat) is followed
locally: per space the median remaining shift of its nearest clear spaces (``local_offsets``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.decide.context import ReadContext, sampling_maps
from companion.vision.features.sample import (
    SampleGrids,
    U8Array,
    row_medians,
    sample_decimated,
    shifted_grids,
)
from companion.vision.geometry.geometry import FloatArray, project

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Registration:
    homography: FloatArray
    used: int  # spaces that measured their shift clearly (last round)
    inliers: int  # of those, the ones the fitted homography agrees with
    moved: float  # largest move of a board corner over all rounds, in picture pixels


@dataclass(frozen=True)
class LocalOffsets:
    """What a flat homography cannot follow (a lens's barrel, a board not lying flat): per
    space and per city, a small shift in board points (u, v) to add before projecting."""

    spaces: FloatArray  # (n_spaces, 2)
    cities: FloatArray  # (n_cities, 2)
    measured: int  # spaces whose outline was clear

    def key(self) -> bytes:
        return self.spaces.tobytes() + self.cities.tobytes()


def _pair_shift(
    profile: FloatArray, first: float, gap: float, reach: float, step: float
) -> tuple[FloatArray, FloatArray]:
    """For profiles (n, m): the shift in [-reach, reach] (samples) that makes the pair of dark
    lines at ``first + t`` and ``first + gap + t`` darkest against the middle between them and
    the outside, and how clear that is (contrast of the best shift over the median shift)."""
    n, m = profile.shape
    shifts = np.arange(-reach, reach + 1e-9, step)
    quarter = gap / 4.0

    across = np.ascontiguousarray(profile.T)  # (m, n): a position's values of every profile

    def at(x: FloatArray) -> FloatArray:  # linear interpolation of every profile at x (k,)
        x = np.clip(x, 0.0, m - 1.0)
        i = np.minimum(np.floor(x).astype(np.int64), m - 2)
        f = x - i
        got = across[i] * (1 - f)[:, None] + across[i + 1] * f[:, None]  # (k, n)
        return np.asarray(got, dtype=np.float64)

    # Every shift's seven positions at once: the two lines, three points between them and
    # one outside each (the same interpolation as one shift at a time), position-major.
    a = first + shifts
    b = first + gap + shifts
    pos = np.stack([a, b, a + quarter, a + 2 * quarter, b - quarter, a - quarter, b + quarter])
    vals = at(pos.reshape(-1)).reshape(7, len(shifts), n)
    lines = vals[0:2].mean(axis=0)
    inner = vals[2:5].mean(axis=0)
    outer = vals[5:7].mean(axis=0)
    scores = np.ascontiguousarray(((inner + outer) / 2.0 - lines).T)  # (n, shifts)
    best = np.argmax(scores, axis=1)
    rows = np.arange(n)
    clear = scores[rows, best] - row_medians(scores)
    # Sub-step: the vertex of the parabola through the best score and its two neighbours.
    lo = np.clip(best - 1, 0, len(shifts) - 1)
    hi = np.clip(best + 1, 0, len(shifts) - 1)
    s0, s1, s2 = scores[rows, lo], scores[rows, best], scores[rows, hi]
    den = s0 - 2 * s1 + s2
    frac = np.where(
        (lo < best) & (hi > best) & (den < 0), 0.5 * (s0 - s2) / np.where(den < 0, den, -1.0), 0.0
    )
    return np.asarray(shifts[best] + frac * step, dtype=np.float64), np.asarray(clear)


def measure_shifts(
    gray: npt.NDArray[Any], ctx: ReadContext, reach: float | None = None
) -> tuple[FloatArray, FloatArray, npt.NDArray[np.bool_]]:
    """Per space (from grey patches (n, ny, nx)): the shift along and across of its printed
    outline from where the homography put it, in patch samples, and which are clear."""
    cfg = ctx.cfg["register"]
    lo = ctx.layout
    _, ny, nx = gray.shape
    # (summed as float64 straight from the integer patches: the sums of whole numbers are
    # exact, the same as on a float64 copy of the whole patches)
    rows = gray[:, :, lo.x(-0.3) : lo.x(0.3)].mean(axis=2, dtype=np.float64)  # across (n, ny)
    cols = gray[:, lo.y(-0.25) : lo.y(0.25), :].mean(axis=1, dtype=np.float64)  # along (n, nx)
    len_s = nx / lo.scale_len  # samples per box length
    wid_s = ny / lo.scale_wid
    reach = float(cfg["reach"] if reach is None else reach)  # in box widths
    step = float(cfg["step"])
    # Sample i is at (i + 0.5) / n of the patch: the box edge at -0.5 box is at index
    # centre - 0.5 box - 0.5.
    gap_c = float(cfg["outline_across"]) * wid_s  # the printed outline inside the box
    gap_a = float(cfg["outline_along"]) * len_s
    across, c_clear = _pair_shift(rows, (ny - gap_c - 1) / 2, gap_c, reach * wid_s, step * wid_s)
    along, a_clear = _pair_shift(cols, (nx - gap_a - 1) / 2, gap_a, reach * wid_s, step * wid_s)
    min_clear = float(cfg["min_contrast"])
    ok = (c_clear >= min_clear) & (a_clear >= min_clear)
    return along, across, ok


@dataclass(frozen=True)
class _Frames:
    """Per context: every space's centre and the board points one patch sample along and
    across, and the reading grids of the spaces alone (no city)."""

    centre: FloatArray
    d_along: FloatArray
    d_across: FloatArray
    grids: SampleGrids
    gaps: FloatArray  # (n_spaces, n_spaces) distances between space centres, isotropic
    city_gaps: FloatArray  # (n_cities, n_spaces) from each city's spot to each space centre


_FRAMES: dict[int, tuple[ReadContext, _Frames]] = {}


def _frames(ctx: ReadContext) -> _Frames:
    got = _FRAMES.get(id(ctx))
    if got is not None and got[0] is ctx:
        return got[1]
    centre, d_along, d_across = _space_frames(ctx)
    grids = SampleGrids(spaces=ctx.grids.spaces, cities=ctx.grids.cities[:0], wb=ctx.grids.wb)
    iso = np.array([ctx.geometry.aspect, 1.0])  # board points -> isotropic units
    gaps = np.hypot(*((centre[:, None, :] - centre[None, :, :]) * iso).transpose(2, 0, 1))
    spots = np.array([[c.u, c.v] for c in (ctx.geometry.cities[i] for i in ctx.geometry.city_ids)])
    city_gaps = np.hypot(*((spots[:, None, :] - centre[None, :, :]) * iso).transpose(2, 0, 1))
    frames = _Frames(centre, d_along, d_across, grids, gaps, city_gaps)
    if len(_FRAMES) >= 8:  # contexts are few; never grow unbounded
        _FRAMES.clear()
    _FRAMES[id(ctx)] = (ctx, frames)
    return frames


def _space_frames(ctx: ReadContext) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Per space: its centre and the board points one patch sample along and across."""
    pts = ctx.grids.spaces  # (n, ny, nx, 2) board points of every patch sample
    _, ny, nx, _ = pts.shape
    centre = pts[:, ny // 2 - 1 : ny // 2 + 1, nx // 2 - 1 : nx // 2 + 1].mean(axis=(1, 2))
    d_along = (pts[:, :, -1] - pts[:, :, 0]).mean(axis=1) / (nx - 1)
    d_across = (pts[:, -1, :] - pts[:, 0, :]).mean(axis=1) / (ny - 1)
    return centre, d_along, d_across


def _nearest(dist: FloatArray, k: int) -> npt.NDArray[np.intp]:
    """Per row of ``dist``, the columns of its ``k`` smallest values (the same set as the
    first ``k`` of a full sort; rows with a tie at the k-th place are sorted in full)."""
    if dist.shape[1] <= k:
        return np.argsort(dist, axis=1)[:, :k]
    part = np.argpartition(dist, k - 1, axis=1)[:, :k]
    kth = np.take_along_axis(dist, part, axis=1).max(axis=1)
    tied = (dist <= kth[:, None]).sum(axis=1) > k
    if tied.any():
        part[tied] = np.argsort(dist[tied], axis=1)[:, :k]
    return part


def _shifts(
    image: U8Array,
    h: FloatArray,
    ctx: ReadContext,
    store: dict[int, U8Array] | None,
    reach: float | None = None,
    offsets: FloatArray | None = None,
) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
    """Where every space's printed outline is under ``h`` (each space first moved by its
    ``offsets``, board points): the board point (n, 2) its box centre shows, and which spaces
    showed their outline clearly."""
    fr = _frames(ctx)
    centre, d_along, d_across = fr.centre, fr.d_along, fr.d_across
    grids = fr.grids
    if offsets is not None and offsets.any():  # (none yet, as in local_offsets' first round)
        centre = centre + offsets
        grids = shifted_grids(grids, offsets)
    n, ny, nx, _ = ctx.grids.spaces.shape
    k, maps = sampling_maps(image, h, grids)  # as context.sample_raw, less decimated
    raw = sample_decimated(image, k, maps, grids, store, h=h)
    px = raw.body[: raw.n_space_px]
    gray = np.add(px[:, 0], px[:, 1], dtype=np.uint16)
    gray += px[:, 2]
    gray = gray.reshape(n, ny, nx)
    along, across, ok = measure_shifts(gray, ctx, reach)
    return centre + along[:, None] * d_along + across[:, None] * d_across, ok


def local_offsets(
    image: U8Array,
    h: FloatArray,
    ctx: ReadContext,
    store: dict[int, U8Array] | None = None,
) -> LocalOffsets | None:
    """Per space, the median shift of its printed outline (from where ``h`` puts it) over the
    clear spaces nearest to it, and per city that of the spaces nearest to it; None when too
    few spaces are clear. ``register.local_rounds`` rounds, each measuring from the last one's
    offsets within a short reach; the result shrunk by the measuring noise and capped."""
    cfg = ctx.cfg["register"]
    fr = _frames(ctx)
    centre, d_across = fr.centre, fr.d_across
    a = ctx.geometry.aspect
    iso = np.array([a, 1.0])  # board points -> isotropic units
    k = int(cfg["local_neighbours"])
    width = float(np.median(np.hypot(*(d_across * iso).T))) * ctx.grids.spaces.shape[1]
    box = width / ctx.layout.scale_wid  # a box's width, isotropic board units
    spaces = np.zeros_like(centre)
    measured = 0
    for _ in range(int(cfg["local_rounds"])):
        # Only small shifts are left after the registration: a short reach keeps a space
        # from locking onto a dark line beside it (the board's border, a neighbour's outline).
        seen, ok = _shifts(image, h, ctx, store, float(cfg["local_reach"]), spaces)
        measured = int(ok.sum())
        if measured < int(cfg["min_spaces"]):
            return None
        shift = (seen - centre - spaces)[ok]
        spaces = spaces + np.median(shift[_nearest(fr.gaps[:, ok], k)], axis=1)
    # Shifts within the measurements' own noise are taken as none (shrunk by ``local_dead``
    # box widths), the rest capped at ``local_cap``.
    size = np.hypot(*(spaces * iso).T)
    dead, cap = float(cfg["local_dead"]) * box, float(cfg["local_cap"]) * box
    spaces *= (np.clip(size - dead, 0.0, cap) / np.maximum(size, 1e-12))[:, None]
    cities = np.median(spaces[_nearest(fr.city_gaps, k)], axis=1)
    return LocalOffsets(
        np.asarray(spaces, dtype=np.float64), np.asarray(cities, dtype=np.float64), measured
    )


def refine_registration(
    image: U8Array,
    h: FloatArray,
    ctx: ReadContext,
    store: dict[int, U8Array] | None = None,
) -> Registration:
    """``h`` (board points -> picture) moved onto the printed spaces' outlines."""
    cfg = ctx.cfg["register"]
    fr = _frames(ctx)
    centre, d_across = fr.centre, fr.d_across
    unit = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    corners0 = project(h, unit)
    current = np.asarray(h, dtype=np.float64)
    used = inliers = 0
    for _ in range(int(cfg["rounds"])):
        seen, ok = _shifts(image, current, ctx, store)
        used = int(ok.sum())
        if used < int(cfg["min_spaces"]):
            log.debug("registration: only %d clear spaces, keeping the homography", used)
            break
        # The board point each box centre really shows, as a small affine map of the board
        # (a whole homography is poorly held at the corners, where there are no spaces).
        tol = float(cfg["ransac_samples"]) * float(np.median(np.hypot(*d_across.T)))
        found, mask = cv2.estimateAffine2D(
            centre[ok].astype(np.float64),
            seen[ok].astype(np.float64),
            method=cv2.RANSAC,
            ransacReprojThreshold=tol,
            maxIters=2000,
            confidence=0.999,
            refineIters=10,
        )
        if found is None or mask is None:
            break
        inliers = int(mask.sum())
        if inliers < int(cfg["min_spaces"]):
            break
        affine = np.vstack([np.asarray(found, dtype=np.float64), [0.0, 0.0, 1.0]])
        found = current @ affine
        current = np.asarray(found, dtype=np.float64)
    moved = float(np.abs(project(current, unit) - corners0).max())
    return Registration(current, used, inliers, moved)
