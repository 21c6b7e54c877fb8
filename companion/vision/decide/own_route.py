"""A route's spaces read together by the own-print discriminant: its least train-like space, but
where the one after it is clearly trains.

``adapt.own_print_scores`` gives every space of a route the discriminant of the route's least
train-like space: trains cover every space of a claimed route, and a print that looks like
trains on some of its spaces (in a shadow, beside another lane) is print. On own-print renders
that reads a claimed route of three or more spaces free where one space alone looks like print
(a piece's end beside a city, a neighbour's shadow): one route of three is a count error of 3.
Where a route of at least ``min_spaces`` spaces has its second least train-like space at or above
``second`` (log-odds: clearly trains, which the print's lookalike spaces on the renders never
reach), that space's discriminant is the route's.

A colour the final round's discriminant gives more trains than a player has is left out
(``adapt.own_print_final``: the discriminant then takes its print for trains); but a player
may have placed all 45, and one free route read as that colour (by the colours, or by the
discriminant) then left the whole colour out: its trains on its own print read free, 17
spaces on a render. Over by at most ``slack`` spaces, ``within_trains`` leaves out only the
colour's least train-like route read by the discriminant, one at a time, and ``even_odds``
reads that route at even odds between the colour's trains and its print: which of the two it
is this picture does not say (the colours alone read it free, sure of it: a silent error
where it holds trains). Thresholds in
``data/vision_own_route.json``. Pure array functions.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt

from companion.data import load_json

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@cache
def route_config() -> tuple[int, float]:
    """``own_route`` of ``data/vision_own_route.json``: ``min_spaces`` and ``second``."""
    cfg = load_json("vision_own_route.json")["own_route"]
    return int(cfg["min_spaces"]), float(cfg["second"])


@cache
def slack() -> int:
    """``own_route.slack`` of ``data/vision_own_route.json`` (0: a colour over is left out)."""
    return int(load_json("vision_own_route.json")["own_route"]["slack"])


def by_route(
    values: FloatArray, route: IntArray
) -> tuple[FloatArray, IntArray, IntArray, IntArray]:
    """``values`` sorted by ``route`` and, within a route, by value (``np.lexsort``: stable),
    with each route's first place in it, its number of spaces and its id (ascending: the order
    of ``np.unique``)."""
    order = np.lexsort((values, route))
    r, s = np.asarray(route)[order], np.asarray(values, dtype=np.float64)[order]
    if not len(r):
        empty = np.zeros(0, dtype=np.int64)
        return s, empty, empty, empty
    starts = np.flatnonzero(np.r_[True, r[1:] != r[:-1]])
    sizes = np.diff(np.r_[starts, len(r)])
    return s, starts, sizes, r[starts]


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
    s, starts, sizes, ids = by_route(seen, route)
    out[ids] = s[starts]
    big = sizes >= max(least, 2)
    take = s[starts[big] + 1] >= second
    out[ids[big][take]] = s[starts[big][take] + 1]
    return np.asarray(out[route], dtype=np.float64)


def within_trains(
    x: FloatArray,
    own: IntArray,
    terms: FloatArray,
    read: tuple[IntArray, IntArray],
    excess: IntArray,
    over: BoolArray,
    most: int | None = None,
) -> tuple[IntArray, BoolArray]:
    """``own`` (each space's colour the discriminant reads, -1: none) and the colours still
    apart, for the colours ``over`` (5,) a player's trains by ``excess`` (5,): a colour over by
    at most ``most`` (default ``slack``) spaces no longer has the discriminant on its least
    train-like route (by ``route_values`` of ``x`` along its ``terms``) among those read as
    its trains; one over by more, or with no such route, is left out. ``read``: each space's
    route and its route's hypothesis (0 free, 1 + colour)."""
    route, claimed = read
    limit = slack() if most is None else most
    own = own.copy()
    keep = np.ones(len(over), dtype=np.bool_)
    for c in np.flatnonzero(over):
        rows = np.flatnonzero((own == c) & (claimed == c + 1))
        if excess[c] > limit or not len(rows):
            keep[c] = False
            continue
        s = route_values(x[rows] @ np.nan_to_num(terms[c, 2:]) + terms[c, 1], route[rows])
        own[route == route[rows[int(np.argmin(s))]]] = -1
    return own, keep


def even_odds(scores: FloatArray, doubt: IntArray) -> FloatArray:
    """``scores`` (n, 6; free, then PLAYER_COLORS) with, on the spaces where ``doubt`` (n,)
    names a player colour, free and that colour's trains at even odds (their log-sum-exp
    kept); unchanged where it is -1."""
    rows = np.flatnonzero(doubt >= 0)
    if not len(rows):
        return scores
    out = np.array(scores, dtype=np.float64, copy=True)
    col = 1 + doubt[rows]
    half = np.logaddexp(out[rows, 0], out[rows, col]) - np.log(2.0)
    out[rows, 0] = half
    out[rows, col] = half
    return out
