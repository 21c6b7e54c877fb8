"""A single route its colour's discriminant clearly calls trains: read by it, however unlike its
colour's trains elsewhere the route looks.

Where a colour's own print is scarce or its print group is not apart, ``own_print.learn`` learns
its discriminant on stand-ins (the other colours' free print, moved to its look) and lets it read
as trains only the routes that look like that colour's trains elsewhere (``unlikeness`` at most
``own_print_stand_in.like``); on every other route the discriminant is left out
(``Groups.open_`` set to -1) and the colours alone, which cannot tell those trains from their
print, read the route free. Some single routes carry trains that look unlike their colour's
trains elsewhere on a render (a station or a city disc at an end, the piece off its space, a
print tone of its own), and they recur: constantinople-sofia, roma-venezia, brest-paris,
amsterdam-bruxelles.

On own-print tuning games 6000-6199 (1,000-1,300 px, JPEG 85, 800 pictures), the discriminant
(its log-odds; a route's least train-like space, or the next where that is clearly trains:
``own_route.route_values``) of the single routes of two spaces or more left out that way split
cleanly: free print at most -4.0 (1,035 routes), trains at least 0 (48, of which 16 were read
free); routes of one space do not (a free one at 8.7 beside a station, trains at 8.1). The lanes
of double routes split as cleanly (free at most -3.9 of 331, trains at least 7.4 of 10), but
they are read by their own rules (the other lane's trains): ``doubles`` (off) lets ``restore``
read them too. ``restore`` gives the discriminant back to a route of at least ``min_spaces``
spaces whose route value is at least ``clear``: clearly trains, as ``own_route``'s ``second``.
Thresholds in ``data/vision_single_route.json``. Pure functions.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.data import load_json
from companion.vision.decide.own_route import route_values

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
Learnt = tuple[FloatArray, BoolArray, IntArray]


@cache
def single_config() -> tuple[int, float]:
    """``single_route`` of ``data/vision_single_route.json``: ``min_spaces`` (0: off) and
    ``clear``."""
    cfg = load_json("vision_single_route.json")["single_route"]
    return int(cfg["min_spaces"]), float(cfg["clear"])


@cache
def with_doubles() -> bool:
    """``single_route.doubles`` of ``data/vision_single_route.json``: the lanes of double routes
    too."""
    return bool(load_json("vision_single_route.json")["single_route"]["doubles"])


def single_spaces(info: Any, doubles: bool | None = None) -> BoolArray:
    """(n,) per space (a ``classify.SpaceLayoutInfo``'s), whether ``restore`` may read its
    route: not one lane of a double route, or any route where ``doubles`` (default
    ``with_doubles``)."""
    route = np.asarray(info.space_route)
    if with_doubles() if doubles is None else doubles:
        return np.ones(len(route), dtype=np.bool_)
    ia, ib = info.pair_index
    return np.asarray(~np.isin(route, np.concatenate([ia, ib])), dtype=np.bool_)


def restore(
    x: FloatArray,
    open_: IntArray,
    route: IntArray,
    single: BoolArray,
    learnt: Learnt,
    cfg: tuple[int, float] | None = None,
) -> Learnt:
    """``learnt`` (``own_print.learn``'s terms, apart, where) with ``where`` set back to
    ``open_`` (n,: each space's printed player colour, -1 where none or read as another
    colour's trains) on the spaces of every route of ``single`` spaces (n,) that has at least
    ``min_spaces`` spaces (by ``route``, n,) and whose colour's discriminant, learnt and apart,
    reads it at least ``clear`` (``own_route.route_values`` of ``x``'s log-odds)."""
    least, clear = single_config() if cfg is None else cfg
    terms, apart, where = learnt
    if least <= 0:
        return learnt
    c = np.maximum(open_, 0)
    usable = np.isfinite(terms[c, 0]) & apart[c]
    rows = np.flatnonzero((where < 0) & (open_ >= 0) & single & usable)
    if not len(rows):
        return learnt
    sizes = np.bincount(route, minlength=int(route.max()) + 1)
    rows = rows[sizes[route[rows]] >= max(least, 1)]
    if not len(rows):
        return learnt
    t = terms[open_[rows]]
    seen = t[:, 1] + (x[rows] * np.nan_to_num(t[:, 2:])).sum(axis=1)
    take = rows[route_values(seen, route[rows]) >= clear]
    if not len(take):
        return learnt
    where = where.copy()
    where[take] = open_[take]
    return terms, apart, where
