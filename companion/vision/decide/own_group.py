"""A colour's print group that is mostly its own trains, cleared by the other inks' print.

``own_print.learn`` learns, per player colour, the discriminant between that colour's trains on
other prints and its print read free with confidence (its print group). Where a player has most
of the routes printed in their colour and few trains elsewhere, the print group is mostly those
trains, read free by the colours at first: the ``unlike`` filter cannot take them out (its
trains elsewhere, on a route or so, are too few to say what they look like), the discriminant is
drawn to them and reads them free with confidence, silently (own-print tuning game 16032: black
on 4 of its 6 single routes, 12 trains, 3 spaces elsewhere, read free at 0.97-0.99 at every
width).

The print's look (lightness moved to this colour's print; its spread, outline, shading, lines,
highlight: the paper's and the ink's relief) is shown by every other ink's free print on this
picture, however few trains of the colour stand elsewhere. ``stand_in_distance`` measures each
space of a colour's print group against those stand-ins (the other player colours' print read
free and the plain prints, ``Groups.others``, each moved from its own print's fitted look to
this colour's as ``own_print.learn`` moves them): the mean over the route's spaces and the
features of the squared z-score (per feature mean and variance of the stand-ins, the variance
at least ``var_floor``). ``clear_group`` takes out of the print group every route at least
``far`` from the stand-ins and ``closer`` times as far from them as from the colour's trains
elsewhere (their mean, the stand-ins' variance): unlike paper and like its plastic, and
farther from the stand-ins than every route that stays (the group splits in two: on plain
tuning game 5051 a free yellow route at 5.9 and 1.6 times, beside one at 10.0 staying, was
read as trains). Those
routes move to the colour's trains: they no longer draw the discriminant to the print side nor
stand in for the other colours as clear print, and the discriminant, learnt on more than the
colour's few trains elsewhere, takes a fuller share of the decision (16032: with them left out
only, half, and one of the four routes stayed free at 1,100-1,600 px). Free print unlike the
stand-ins (a city disc, a river at its end) is as unlike the colour's trains. Where the colour's
trains elsewhere are too few for ``own_print.learn`` (``min_trains`` here) and all its print is
claimed, the moved routes are what it learns on: ``learn`` then gates the stand-ins' discriminant
of a colour with routes moved at ``own_print_pooled`` even where the plain prints stand in
(their own ``others_max_error`` left black out on heavy tuning game 17009 at 1,000 px: 5.9 %
on the wrong side, 3.9 standard deviations apart, black short by 11).

The other way round, ``paper_like``: where a colour is learnt on the stand-ins themselves (its
print scarce or not apart), their discriminant may take a route of its print for trains that
looks like paper (``paper`` times as near the stand-ins as the colour's trains elsewhere): such
a route is left to the colours, as a route unlike the colour's trains is (16309 at 1,000 px:
a free black lane read as black put black over a player's 45 trains and left the whole colour
out; roma-venezia's black trains were read free at 0.97, silently). Thresholds in
``data/vision_own_group.json``. Pure array functions; colours in PLAYER_COLORS order.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.data import load_json
from companion.vision.types import PLAYER_COLORS

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@cache
def group_config() -> dict[str, float]:
    """``own_group`` of ``data/vision_own_group.json`` (numbers only; 0 ``far``: off)."""
    cfg = load_json("vision_own_group.json")["own_group"]
    return {k: float(v) for k, v in cfg.items()}


def route_means(values: FloatArray, route: IntArray) -> FloatArray:
    """(n,) each row's route's mean of ``values`` (n,)."""
    if not len(values):
        return np.zeros(0)
    total = np.bincount(route, weights=values)
    spaces = np.bincount(route)
    return np.asarray(total[route] / np.maximum(spaces[route], 1), dtype=np.float64)


def stand_in_distance(
    x: FloatArray,
    g: Any,
    colour: int,
    var_floor: float,
    least: int,
    group: IntArray | None = None,
    fewest: int | None = None,
) -> tuple[FloatArray, FloatArray] | None:
    """Per space of ``colour``'s print group (``g.prints``, ``g``: ``own_print.Groups``; or
    of ``group``, n, where it names ``colour``), its route's mean squared z-score against the
    stand-ins (the module doc) and against the colour's trains elsewhere (their mean, the
    stand-ins' variance; NaN where they are seen on fewer than ``fewest`` spaces, default
    ``least``); None where fewer than ``least`` stand-ins show."""
    prints = np.asarray(g.prints)
    stand = (prints >= 0) & (prints != colour)
    if g.others is not None:
        stand |= np.asarray(g.others)
    if stand.sum() < least:
        return None
    base = x[stand] - g.centre[stand] + g.own_centre[colour]
    mean, var = base.mean(axis=0), np.maximum(base.var(axis=0), var_floor)
    rows = np.flatnonzero((prints if group is None else group) == colour)
    route = np.asarray(g.route)[rows]
    far = route_means((((x[rows] - mean) ** 2) / var).mean(axis=1), route)
    trains = x[np.asarray(g.trains) == colour]
    if len(trains) < (least if fewest is None else fewest):
        return far, np.full(len(rows), np.nan)
    near = route_means((((x[rows] - trains.mean(axis=0)) ** 2) / var).mean(axis=1), route)
    return far, near


def clear_group(x: FloatArray, g: Any, least: int, cfg: dict[str, float] | None = None) -> Any:
    """``g`` (``own_print.Groups``) with, per colour, the routes of its print group the
    stand-ins call its trains (the module doc) moved to its trains; ``least``: the fewest
    spaces of stand-ins measured on (of the colour's trains elsewhere: ``min_trains``)."""
    c = group_config() if cfg is None else cfg
    prints = np.asarray(g.prints)
    if c["far"] <= 0.0:
        return g
    moved = np.zeros(len(prints), dtype=np.bool_)
    for colour in range(len(PLAYER_COLORS)):
        rows = np.flatnonzero(prints == colour)
        if not len(rows):
            continue
        seen = stand_in_distance(x, g, colour, c["var_floor"], least, None, int(c["min_trains"]))
        if seen is None:
            continue
        far, near = seen
        trains = (far >= c["far"]) & (near * c["closer"] < far)  # NaN near: stays
        stays = far[~trains].max(initial=-np.inf)  # the group splits: all farther than print
        moved[rows[trains & (far > stays)]] = True
    if not moved.any():
        return g
    trains = np.where(moved, prints, g.trains)
    return replace(g, prints=np.where(moved, -1, prints), trains=trains)


def paper_like(
    x: FloatArray,
    g: Any,
    terms: FloatArray,
    colours: IntArray,
    least: int,
    cfg: dict[str, float] | None = None,
) -> BoolArray:
    """(n,) per space of ``g.open_`` (``own_print.Groups``) of one of ``colours``, whether its
    route looks like paper and its colour's discriminant (``terms``, ``own_print_terms``'s)
    calls it trains (the mean of its spaces' log-odds above 0): ``paper`` times as near the
    stand-ins as the colour's trains elsewhere (the module doc's measures, ``least`` as
    ``clear_group``'s), and at least ``paper_spaces`` spaces (one space beside a station or a
    city disc does not say). A route the discriminant calls print stays: the colours alone are
    less sure of it (on 16000-16099, 30 free routes more listed)."""
    c = group_config() if cfg is None else cfg
    out = np.zeros(len(x), dtype=np.bool_)
    if c["paper"] <= 0.0:
        return out
    open_, route = np.asarray(g.open_), np.asarray(g.route)
    for colour in np.asarray(colours).tolist():
        seen = stand_in_distance(x, g, colour, c["var_floor"], least, open_)
        if seen is None or not np.isfinite(terms[colour, 0]):
            continue
        far, near = seen
        rows = np.flatnonzero(open_ == colour)
        odds = route_means(
            x[rows] @ np.nan_to_num(terms[colour, 2:]) + terms[colour, 1], route[rows]
        )
        out[rows] = (far * c["paper"] <= near) & (odds > 0.0)  # NaN near: no
    sizes = np.bincount(route)
    return np.asarray(out & (sizes[route] >= c["paper_spaces"]), dtype=np.bool_)
