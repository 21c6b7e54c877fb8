"""A route's spaces read together by the own-print discriminant: its least train-like space, but
where the one after it is clearly trains.

``adapt.own_print_scores`` gives every space of a route the discriminant of the route's least
train-like space: trains cover every space of a claimed route, and a print that looks like
trains on some of its spaces (in a shadow, beside another lane) is print. On own-print renders
that reads a claimed route of three or more spaces free where one space alone looks like print
(a piece's end beside a city, a neighbour's shadow): one route of three is a count error of 3.
Where a route of at least ``min_spaces`` spaces has its second least train-like space at or above
``second`` (log-odds: clearly trains, which the print's lookalike spaces on the renders never
reach), that space's discriminant is the route's. Thresholds in ``data/vision_own_route.json``.
Pure array functions.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt

from companion.data import load_json

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@cache
def route_config() -> tuple[int, float]:
    """``own_route`` of ``data/vision_own_route.json``: ``min_spaces`` and ``second``."""
    cfg = load_json("vision_own_route.json")["own_route"]
    return int(cfg["min_spaces"]), float(cfg["second"])


def route_values(
    seen: FloatArray, route: IntArray, cfg: tuple[int, float] | None = None
) -> FloatArray:
    """(n,) per space (``seen``: its discriminant; ``route``: its route), its route's: the least
    ``seen`` of the route, or the second least where the route has at least ``min_spaces``
    spaces and that is at least ``second``."""
    least, second = route_config() if cfg is None else cfg
    out = np.full(int(route.max(initial=-1)) + 1, np.inf)
    if not len(seen):
        return np.asarray(seen, dtype=np.float64)
    order = np.lexsort((seen, route))
    r, s = route[order], seen[order]
    starts = np.flatnonzero(np.r_[True, r[1:] != r[:-1]])
    sizes = np.diff(np.r_[starts, len(r)])
    out[r[starts]] = s[starts]
    big = starts[sizes >= max(least, 2)]
    take = big[s[big + 1] >= second]
    out[r[take]] = s[take + 1]
    return np.asarray(out[route], dtype=np.float64)
