"""A whole colour's trains on its own print, told apart by a discriminant learnt across colours.

``own_print.learn`` learns, per player colour, the discriminant between that colour's trains on
other prints and its own print, and leaves a colour out where this picture does not show the two
groups apart (``adapt.own_print_apart``): too few of its trains stand elsewhere (on own-print
renders of seed 6142, black on two spaces), or its print group, late in a game mostly its own
trains, is not apart by a space or two. Left out, such a colour is read by the colours alone,
which cannot tell its trains from its print: the whole colour is read free (14-19 spaces).

What still tells them apart is that a train stands up from the paper, whatever its hue: its
core's spread of lightness, its outline, shading, dark lines, highlight and fine detail
(the own-print columns but lightness and colour) are those of plastic, the print's those of
ink and paper. ``across`` learns that on the picture itself from the other colours: their
trains on other prints against the print clearly read free (every player colour's print
unlike its trains elsewhere, and the plain prints, ``Groups.others``), and uses it, for a
colour left out, where:

* the pooled groups are ``min_separation`` pooled standard deviations apart along it;
* the colour's own trains elsewhere (at least ``min_trains``) lie on the trains' side,
  ``target_separation`` from the print's mean and at most ``max_error`` of them on the wrong
  side of its threshold: the axis holds for this hue too (on renders, red plastic shows less
  relief than the other colours' and fails here);
* its own open spaces (``Groups.open_``) read along it look like trains or print and nothing
  between (``fits``): no route both, and every route clearly on one side of the threshold or
  the spaces in two groups either side of it: its trains and its free print, as the axis says.

The threshold is midway between the print's mean and the colour's trains (its trains elsewhere
drawn towards the pooled trains' mean as ``shrink`` spaces would). Thresholds in
``data/vision_cross_print.json``. Pure array functions; colours in PLAYER_COLORS order.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.data import load_json
from companion.vision.decide.own_route import by_route
from companion.vision.types import PLAYER_COLORS

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
Learnt = tuple[FloatArray, BoolArray, IntArray]  # terms, apart, each space's colour (learn)

HUE_COLUMNS = 3  # own-print columns under 3 are L, a, b (as own_print.centres): left out


@cache
def cross_config() -> dict[str, float]:
    """``cross_print`` of ``data/vision_cross_print.json`` (numbers only; 0 ``min_separation``:
    off)."""
    cfg = load_json("vision_cross_print.json")["cross_print"]
    return {k: float(v) for k, v in cfg.items()}


def axis(
    z: FloatArray, trains: BoolArray, prints: BoolArray, floor: float
) -> tuple[FloatArray, float, float, float]:
    """The linear discriminant between the rows of ``z`` in ``trains`` and in ``prints``
    (normal, pooled per-feature variance at least ``floor``): its weights, the projections of
    the two groups' means and their pooled standard deviation along it."""
    t, p = z[trains], z[prints]
    mt, mp = t.mean(axis=0), p.mean(axis=0)
    within = ((t - mt) ** 2).sum(axis=0) + ((p - mp) ** 2).sum(axis=0)
    w = (mt - mp) / np.maximum(within / (len(t) + len(p)), floor)
    st, sp = t @ w, p @ w
    spread = np.sqrt(((st - st.mean()) ** 2).sum() + ((sp - sp.mean()) ** 2).sum())
    spread /= np.sqrt(len(t) + len(p))
    return w, float(st.mean()), float(sp.mean()), max(float(spread), 1e-9)


def best_split(values: FloatArray, least: int) -> tuple[float, float, float]:
    """The split of ``values`` into a lower and an upper group (each at least ``least``) whose
    means lie the most standard deviations (pooled within the groups) apart: that many, and
    the two means; (0, nan, nan) where there are too few values."""
    v = np.sort(values)
    n = len(v)
    if n < 2 * least:
        return 0.0, float("nan"), float("nan")
    s1, s2 = np.cumsum(v), np.cumsum(v * v)
    i = np.arange(least, n - least + 1)  # the lower group's size
    lo_mean = s1[i - 1] / i
    hi_mean = (s1[-1] - s1[i - 1]) / (n - i)
    lo_ss = s2[i - 1] - i * lo_mean**2
    hi_ss = (s2[-1] - s2[i - 1]) - (n - i) * hi_mean**2
    within = np.sqrt(np.maximum(lo_ss + hi_ss, 0.0) / n)
    apart = (hi_mean - lo_mean) / np.maximum(within, 1e-9)
    j = int(np.argmax(apart))
    return float(apart[j]), float(lo_mean[j]), float(hi_mean[j])


def left_out(learnt: Learnt, open_: IntArray) -> BoolArray:
    """(5,) the colours ``own_print.learn`` leaves out (not learnt, or not apart) that have
    open spaces (``Groups.open_``)."""
    terms, apart, _ = learnt
    k = len(PLAYER_COLORS)
    left = ~(apart & np.isfinite(terms[:, 0]))
    return np.asarray(left & (np.bincount(open_[open_ >= 0], minlength=k) > 0), dtype=np.bool_)


def route_ends(
    s: FloatArray, route: IntArray, odd: int
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Per route (in ``np.unique`` order; one sort, ``own_route.by_route``) its least and its
    most train-like space's value in ``s``, and of a route with at least ``odd`` spaces (0:
    none) its second least and second most (one odd space does not make a route of trains
    look like print, as ``own_route`` reads a route; elsewhere the least and the most again)."""
    v, starts, sizes, _ = by_route(s, route)
    ends = starts + sizes - 1
    skip = ((odd > 0) & (sizes >= odd)).astype(np.int64)
    return v[starts], v[ends], v[starts + skip], v[ends - skip]


def fits(s: FloatArray, route: IntArray, spread: float, cfg: dict[str, float]) -> bool:
    """Whether a colour's open spaces read along the axis (``s``: their projections less the
    threshold; ``route``: their routes) look like its trains and its print and nothing
    between: no route has spaces ``margin`` pooled standard deviations on both sides of the
    threshold (a route is all trains or all print: on renders, red trains show spaces of
    print-like relief), and every route's least train-like space is that far from it, or the
    spaces split into two groups ``split_separation`` apart on either side of it: of a route
    of at least ``odd_spaces`` spaces, its second least train-like space (``route_ends``; on
    renders, a black train route's one space of weak relief left black out, 18 spaces). Nor
    is a route of at least ``odd_spaces`` spaces mixed whose second most train-like space lies
    ``odd_clear`` pooled standard deviations under the threshold (a free route's one odd space:
    on renders, a river line across free black print); ``across`` sets that aside only for a
    colour whose trains elsewhere are at most ``odd_max_error`` under the threshold (red trains
    on renders show print-like spaces, and their routes look just so)."""
    margin = cfg["margin"] * spread
    low, high, least, second = route_ends(s, route, int(cfg["odd_spaces"]))
    odd = second < -cfg["odd_clear"] * spread
    if not len(low) or ((low < -margin) & (high > margin) & ~odd).mean() > cfg["max_mixed"]:
        return False
    if (np.abs(least) < margin).mean() <= cfg["max_ambiguous"]:
        return True
    split, lower, upper = best_split(s, int(cfg["split_least"]))
    return split >= cfg["split_separation"] and lower < 0.0 < upper


def across(
    x: FloatArray,
    groups: Any,
    learnt: Learnt,
    columns: tuple[int, ...],
    clear: FloatArray,
    cfg: dict[str, float] | None = None,
) -> Learnt:
    """``learnt`` (``own_print.learn``'s terms, apart, where) with, for every colour left out
    (not learnt, or not apart) and passing the module doc's checks, the discriminant learnt
    across the other colours on the ``columns`` of ``x`` but lightness and colour (the others
    weigh 0): its terms, apart, and its open spaces read by it. ``groups``:
    ``own_print.Groups``; ``clear`` (n,): each space's ``own_print.unlikeness`` (how unlike its
    colour's trains elsewhere its route looks; NaN where not measured): a player colour's print
    above ``unlike`` is clearly print."""
    c = cross_config() if cfg is None else cfg
    terms, apart, where = learnt
    k = len(PLAYER_COLORS)
    if c["min_separation"] <= 0.0:
        return learnt
    open_ = np.asarray(groups.open_)
    left = left_out(learnt, open_)
    if not left.any():
        return learnt
    rel = np.array([j for j, col in enumerate(columns) if col >= HUE_COLUMNS], dtype=np.int64)
    if not len(rel):
        return learnt
    z = x[:, rel]
    trains = np.asarray(groups.trains)
    seen = np.bincount(trains[trains >= 0], minlength=k)
    prints = np.where(np.nan_to_num(clear, nan=-np.inf) > c["unlike"], groups.prints, -1)
    least = int(c["min_spaces"])
    terms, apart, where = terms.copy(), apart.copy(), where.copy()
    for colour in np.flatnonzero(left):
        donors = np.flatnonzero((seen >= least) & (np.arange(k) != colour))
        t = np.isin(trains, donors)
        p = (prints >= 0) & (prints != colour)
        if groups.others is not None:
            p |= groups.others
        if len(donors) < c["min_colours"] or p.sum() < least:
            continue
        w, mt, mp, spread = axis(z, t, p, c["var_floor"])
        if (mt - mp) / spread < c["min_separation"]:
            continue
        own = z[trains == colour] @ w
        if len(own) < c["min_trains"]:
            continue
        anchor = (own.sum() + c["shrink"] * mt) / (len(own) + c["shrink"])
        bias = (anchor + mp) / 2.0
        if (own < bias).mean() > c["max_error"]:
            continue
        if (own.mean() - mp) / spread < c["target_separation"]:
            continue
        firm = (own < bias).mean() <= c["odd_max_error"]  # else no odd space set aside
        judged = c if firm else {**c, "odd_clear": np.inf}
        if not fits(z[open_ == colour] @ w - bias, groups.route[open_ == colour], spread, judged):
            continue
        m = min(int(t.sum()), int(p.sum()))
        terms[colour] = 0.0
        terms[colour, 0] = m / (m + c["share_shrink"])
        terms[colour, 1] = -bias
        terms[colour, 2 + rel] = w
        apart[colour] = True
        where[open_ == colour] = colour
    return terms, apart, where


def from_learn(
    x: FloatArray,
    groups: Any,
    learnt: Learnt,
    columns: tuple[int, ...],
    unlike: Callable[..., FloatArray],
    settings: tuple[float, int],
) -> Learnt:
    """``across`` on ``own_print.from_reading``'s result: ``unlike`` is
    ``own_print.unlikeness``, measured with ``settings``: its variance floor
    (``own_print_like``'s) and the fewest trains a colour is measured against (its min
    spaces)."""
    if cross_config()["min_separation"] <= 0.0 or not left_out(learnt, groups.open_).any():
        return learnt  # nothing to do: and no unlikeness to measure
    clear = unlike(x, groups, *settings)
    return across(x, groups, learnt, columns, clear)
