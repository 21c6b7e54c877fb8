"""The printed core of a space: the statistics the printed hypothesis is scored on.

The core is the middle of the printed box at its nominal place (``classify.space_features``):
medians of L, a, b, the L spread, and how far the brightest few pixels stand above the median
(a glossy piece's highlight; matte print has none). On a double route the other lane is a
train's width away: its trains, a little wider than their boxes and blurred into this one by a
small picture (area downscaling, JPEG), reach into the side of the core that faces them. Free
print beside them then shows a wide L spread and a bright highlight, far from its own look, while
a plastic window slid away from them finds the print's even dark: black print beside a lane of
trains read as black trains, confidently (issue 25). ``lane_core`` scores the print, on the
spaces of double routes, on the core moved off the side facing the other lane as well, and keeps
the moved one where it is the more even by a margin (its L spread smaller by ``lane_core_margin``):
clean print and trains are about as even either way, a core reached into by the other lane's
trains is not. There the across asymmetry (a cue of plastic) is measured off the other lane too.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.data import load_json
from companion.vision.features.integral import rect_sums

FloatArray = npt.NDArray[np.float64]
U8Array = npt.NDArray[np.uint8]

LAB_L = 100.0 / 255.0  # OpenCV's 8-bit Lab: L is stored as L * 255 / 100
CORE = (-0.3, 0.3, -0.35, 0.35)  # across (box widths), along (box lengths) from the centre


@cache
def lane_cut() -> tuple[float, float, float]:
    """``space_model.lane_core_cut``, ``lane_core_margin`` and ``lane_asymmetry_margin`` of
    ``data/vision.json``: how much (box widths) of the core's side facing the other lane the
    moved core leaves out (0: not used), by how much (L) it must be the more even to be kept,
    and by how much (L) the across asymmetry must be the smaller without that side to be
    measured so where the core is not moved (0: never)."""
    m = load_json("vision.json")["space_model"]
    keys = ("lane_core_cut", "lane_core_margin", "lane_asymmetry_margin")
    cut, margin, asym = (float(m.get(k, 0.0)) for k in keys)
    return cut, margin, asym


def core_stats(
    lab: U8Array,
    integrals: tuple[Any, Any],
    top: Any,
    layout: Any,
    box: tuple[float, float, float, float],
    sel: Any,
) -> FloatArray:
    """(k, 5) of the patches ``sel`` (8-bit Lab, (n, ny, nx, 3)): medians of L, a, b (monotone
    in the 8-bit codes), the L spread and the highlight, over ``box`` (across from, to; along
    from, to) of ``layout`` (a ``classify.PatchLayout``). ``integrals``: the stack's integral
    image and that of its squared L codes; ``top``: each patch's first row in the stack."""
    s_int, sq_int = integrals
    ya, yb, xa, xb = box
    r0, r1, c0, c1 = layout.y(ya), layout.y(yb), layout.x(xa), layout.x(xb)
    m = (r1 - r0) * (c1 - c0)
    # Channel-major rows of the core's codes: the medians by sorting along rows.
    core = np.ascontiguousarray(np.moveaxis(lab[sel, r0:r1, c0:c1].reshape(-1, m, 3), 2, 0))
    k95 = min(m - 1, int(0.95 * (m - 1) + 0.5))
    part = np.sort(core, axis=2, kind="stable")  # 8-bit codes: a radix sort, fast
    med8 = (part[..., (m - 1) // 2].astype(np.float64) + part[..., m // 2]) / 2.0  # (3, k)
    sq = rect_sums(sq_int, top[sel], r0, r1, c0, c1) / m
    mean_l = rect_sums(s_int[..., 0], top[sel], r0, r1, c0, c1) / m
    std = np.sqrt(np.maximum(sq - mean_l**2, 0.0)) * LAB_L
    high = (part[0, :, k95] - med8[0]) * LAB_L
    return np.stack([med8[0] * LAB_L, med8[1] - 128.0, med8[2] - 128.0, std, high], axis=1)


def across_asymmetry(rows: FloatArray, layout: Any, reach: float) -> FloatArray:
    """(k,) how unlike its mirror image the across profile ``rows`` (k, ny: mean L of each row
    of the patch) is within ``reach`` box widths of the centre (a plastic piece is lit on one
    side and shaded on the other; print is even)."""
    c = layout.y(0.0)
    half = layout.y(reach) - c
    upper = rows[:, c - half : c]
    lower = rows[:, c + half - 1 : c - 1 : -1] if c > 0 else rows[:, c + half - 1 :: -1]
    return np.asarray(np.abs(upper - lower[:, : upper.shape[1]]).mean(axis=1), dtype=np.float64)


def lane_asymmetry(
    rows: FloatArray,
    layout: Any,
    lane_side: FloatArray | None,
    moved: npt.NDArray[np.int64],
) -> FloatArray:
    """(n,) every space's across asymmetry (``across_asymmetry`` over the box), measured
    without the side facing the other lane (``lane_cut``) on the spaces whose core was
    ``moved`` (``lane_core``), and on those of a double route where that makes it smaller by
    ``lane_asymmetry_margin``: the other lane's trains, bright beside dark print, make even
    print look lit on one side (seed 5046's free black madrid-pamplona-1, its core clean)."""
    out = across_asymmetry(rows, layout, 0.5)
    cut, _, margin = lane_cut()
    if lane_side is None or cut <= 0.0:
        return out
    lanes = np.flatnonzero(lane_side != 0)
    narrow = across_asymmetry(rows[lanes], layout, 0.5 - cut)
    take = np.isin(lanes, moved)
    if margin > 0.0:
        take |= out[lanes] - narrow >= margin
    out[lanes[take]] = narrow[take]
    return out


def lane_core(
    core: FloatArray,
    lab: U8Array,
    integrals: tuple[Any, Any],
    top: Any,
    layout: Any,
    lane_side: FloatArray | None,
    tunnel: npt.NDArray[np.bool_],
) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """``core`` (n, 5, as ``core_stats``) where, on a space of a double route (``lane_side``
    +1 / -1: the other lane at +y / -y), the core without its side facing the other lane
    (``lane_cut``) is the more even by the margin: the print as seen off the other lane's
    trains (a train's own relief moves its spread less than the margin); and those spaces
    (their across asymmetry is then measured off the other lane too: ``across_asymmetry``)."""
    cut, margin, _ = lane_cut()
    taken: list[npt.NDArray[np.int64]] = []
    if lane_side is None or cut <= 0.0:
        return core, np.zeros(0, dtype=np.int64)
    out = core
    for side in (1.0, -1.0):
        sel = np.flatnonzero((lane_side == side) & ~tunnel)
        if not len(sel):
            continue
        ya, yb, xa, xb = CORE
        box = (ya, yb - cut, xa, xb) if side > 0 else (ya + cut, yb, xa, xb)
        moved = core_stats(lab, integrals, top, layout, box, sel)
        better = moved[:, 3] + margin < core[sel, 3]
        if better.any():
            out = out.copy() if out is core else out
            out[sel[better]] = moved[better]
            taken.append(sel[better])
    return out, np.concatenate([np.zeros(0, dtype=np.int64), *taken])
