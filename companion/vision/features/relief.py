"""Relief: what a raised plastic piece shows and a flat printed space does not.

Where a player colour is also printed on the board (yellow trains on a yellow route) the colours
cannot tell a train from its print; what can is that the train stands up from the paper:

* ``fine_detail``: the mean absolute Laplacian of L over the box's core (between its outlines
  and ends). The print carries ink detail there: the small car symbol of each space, the paper's
  grain, halftone; a moulded piece is one smooth surface (its relief is broad: shading, not
  lines). The larger, the more like print.
* ``dome``: the across profile's middle (mean L of its central rows) less the darker of its two
  sides a quarter box width out. A piece's rounded top catches the light in its middle and
  falls away on its shaded side; a printed fill is even right up to its thin outline (further
  out than the sides measured). The larger, the more like plastic.

Both are measured on the patch's L (``classify.space_features_lab8``'s float L, (n, ny, nx),
x along the track, y across it) at the space's nominal place: a handful of array operations,
well under a millisecond a board (``bench_vision_speed.py --stages``). ``with_relief`` appends
them (clipped to ``data/vision_relief.json``'s ranges) to the cues the own-print discriminant
learns on (``decide/own_print.py``, ``decide/own_relief.py``): learnt per picture between a
colour's trains on other prints and its own free print, they tell yellow plastic from yellow
paper where the picture shows them apart; the gates leave them out where it does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.data import load_json

FloatArray = npt.NDArray[np.float64]
F32Array = npt.NDArray[np.float32]

RELIEF_FEATURES: tuple[str, ...] = ("fine_detail", "dome")


@cache
def relief_config() -> dict[str, Any]:
    """``data/vision_relief.json``'s ``relief`` section: the features' ``range`` (clip, one
    [low, high] per feature), the ``core`` they are measured on (across from, to; along from,
    to, in box widths and lengths from the centre), the ``dome`` rows (``middle``, ``side``:
    box widths from the centre) and which of them join the own-print discriminant."""
    data: dict[str, Any] = load_json("vision_relief.json")["relief"]
    return data


def relief_cues(big_l: F32Array, layout: Any, cfg: dict[str, Any] | None = None) -> FloatArray:
    """(n, len(RELIEF_FEATURES)) of the patches' float L ``big_l`` (n, ny, nx); ``layout``:
    a ``classify.PatchLayout``."""
    c = relief_config() if cfg is None else cfg
    ya, yb, xa, xb = (float(v) for v in c["core"])
    core = big_l[:, layout.y(ya) : layout.y(yb), layout.x(xa) : layout.x(xb)]
    lap = core[:, 1:-1, 1:-1] * np.float32(4.0)
    lap -= core[:, :-2, 1:-1]
    lap -= core[:, 2:, 1:-1]
    lap -= core[:, 1:-1, :-2]
    lap -= core[:, 1:-1, 2:]
    detail = np.abs(lap, out=lap).mean(axis=(1, 2), dtype=np.float64)
    half, side = float(c["dome"]["middle"]), float(c["dome"]["side"])
    m0 = layout.y(-half)
    m1 = max(layout.y(half), m0 + 1)
    # the across profile (mean L of each row between the core's ends) on the rows it needs
    at = np.r_[m0:m1, layout.y(-side), layout.y(side) - 1]
    rows = big_l[:, at, layout.x(xa) : layout.x(xb)].mean(axis=2, dtype=np.float64)
    middle = rows[:, : m1 - m0].mean(axis=1)
    sides = np.minimum(rows[:, -2], rows[:, -1])
    return np.stack([detail, middle - sides], axis=1)


def with_relief(cues: FloatArray, relief: FloatArray | None) -> FloatArray:
    """``cues`` (n, n_cues, clipped) with the relief features (clipped to their range)
    appended: what the own-print discriminant's columns index after the colour features and
    the cues. Without relief (features built elsewhere), the cues as they are."""
    if relief is None:
        return cues
    r = np.asarray(relief_config()["range"], dtype=np.float64)
    return np.concatenate([cues, np.clip(relief, r[:, 0], r[:, 1])], axis=1)


def own_print_columns(names: Sequence[str], features: Sequence[str]) -> tuple[int, ...]:
    """The own-print discriminant's columns: ``features`` (``vision.json``'s
    ``own_print_features``) and the relief features ``relief_config`` adds, as indices in
    ``names`` (the colour features and cues) followed by ``RELIEF_FEATURES``."""
    every = (*names, *RELIEF_FEATURES)
    extra = [f for f in relief_config()["own_print_features"] if f not in features]
    return tuple(every.index(f) for f in (*features, *extra))
