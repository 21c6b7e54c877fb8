"""How a route's spaces vote: the spaces' log-probabilities as they enter the route's sum.

A route is decided on the sum of its spaces' log-probabilities (``classify.route_log_prob_matrix``).
On a route printed in a player colour, the trains of that colour and the free print are told
apart by this picture's own-print discriminant (``own_print.py``), and where it half sees the
trains every space of a train route leans a little to free (margins of a few tenths each), so
the whole route reads free (issue 25: 3-4 trains of a colour missed per route). Free print of a
player colour does not read so: on the tuning games its spaces lean to free by several units
(``tools/count_stats.py``; the per-route mean margin of free own print was below -2.7 on 99 % of
routes, and none of about 5,200 was above -0.25). ``own_print_lean`` (``data/vision.json``,
section ``route_vote``) is added, per space printed in a player colour, to that colour's
hypothesis as it enters the route's sum: a route whose spaces only lean to free by less reads as
that colour's trains (with the low confidence of a near tie: on the check list). It is small
(0.1): real print leans less far than rendered print, and at 0.25 the shared photos under
``CAMERA_VARIATIONS["saturation x0.7"]`` read free yellow print beside yellow trains (the
"trainning" photo) as yellow trains (listed, but 297 of 301 routes right on Debian's numpy).

Measured with ``tools/count_stats.py`` on tuning seeds (own-print 6000-6099, plain 5000-5099,
1,000-1,300 px): a missed train route's spaces all lean to free (its most train-like space still
leaned free on most of them), so one print-like space outvoting the others is rarely the cause.
``trim_from``: on routes of at least that many spaces, each hypothesis's sum leaves out its
worst space; it fixed few routes and lengthened the shared photos' check list, so it is off (0).
Pure functions.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.data import load_json

FloatArray = npt.NDArray[np.float64]


@cache
def vote_config() -> tuple[float, int]:
    """``route_vote.own_print_lean`` and ``route_vote.trim_from`` of ``data/vision.json``."""
    v = load_json("vision.json").get("route_vote", {})
    return float(v.get("own_print_lean", 0.0)), int(v.get("trim_from", 0))


def leaned(space_lp: FloatArray, info: Any, lean: float | None = None) -> FloatArray:
    """``space_lp`` (n, k) with ``lean`` (default ``route_vote.own_print_lean``) added to the
    column of each space's printed player colour (``info.own_colour``; -1: none): the spaces
    as they vote (``check`` takes the colours a route's spaces show from these)."""
    lean = vote_config()[0] if lean is None else lean
    if lean == 0.0:
        return space_lp
    own = np.asarray(info.own_colour)
    rows = np.flatnonzero(own >= 0)
    lp = np.array(space_lp, dtype=np.float64, copy=True)
    lp[rows, own[rows] + 1] += lean
    return lp


def route_sums(space_lp: FloatArray, info: Any, lean: float, trim_from: int) -> FloatArray:
    """(n_routes, k): every route's sum of its spaces' log-probabilities ``space_lp`` (n, k;
    column 1 + c: player colour c), with ``lean`` added to the column of each space's printed
    player colour (``info.own_colour``; -1: none) and, on routes of at least ``trim_from``
    spaces (0: none), each column's lowest space left out. ``info``: a
    ``classify.SpaceLayoutInfo`` (``route_starts``, ``own_colour``)."""
    lp = leaned(space_lp, info, lean)
    starts = info.route_starts
    sums = np.add.reduceat(lp, starts, axis=0)
    if trim_from > 0 and len(starts):
        sizes = np.diff(np.append(starts, len(lp)))
        long = sizes >= trim_from
        if long.any():
            worst = np.minimum.reduceat(lp, starts, axis=0)
            sums[long] -= worst[long]
    return np.asarray(sums, dtype=np.float64)


def route_votes(space_lp: FloatArray, info: Any) -> FloatArray:
    """``route_sums`` with this package's ``route_vote`` settings."""
    return route_sums(space_lp, info, *vote_config())
