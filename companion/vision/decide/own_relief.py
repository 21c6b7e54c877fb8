"""A colour's trains on its own print told apart by their relief, where all features are not.

``own_print.learn`` learns, per player colour, a discriminant between that colour's trains on
other prints and its own free print, and ``adapt.own_print_apart`` leaves a colour out of the
final decision when this picture does not show the two groups apart along it. The relief of a
space (``features/relief.py``: print's fine ink detail, a piece's rounded top) joins those
features (``relief.full_discriminant`` of ``data/vision_relief.json``: which of them), and where
the whole discriminant still fails the gate, the relief alone may not: summed over many
features, some disturbed on a few spaces (a neighbouring piece reaching into a cue's band),
the evidence of the relief is drowned. On the shared photo "trainning", yellow plastic is
smooth and yellow print carries its ink detail (4-5 pooled standard deviations apart in
``fine_detail`` at 1,000-1,300 px), yet the whole discriminant puts a few yellow trains on the
print's side and yellow was left out: its trains on yellow smolensk-wilno read free.

``relief_only``: for such a colour, learnt on its own print (not on the other prints standing
in for it), the same discriminant on the same groups over the relief columns only, used where
that passes the relief gate (``relief.own_print_gate``: min separation, max error share).
Pure array functions; colours in PLAYER_COLORS order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.data import load_json
from companion.vision.decide.adapt import own_print_apart, own_print_terms
from companion.vision.features.relief import RELIEF_FEATURES
from companion.vision.types import PLAYER_COLORS

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
Learnt = tuple[FloatArray, BoolArray, IntArray]  # terms, apart, each space's colour (learn)

FIRST_RELIEF = 8  # own-print columns from here on are relief (4 colour features, 4 cues first)


@cache
def relief_gate() -> tuple[float, float, bool]:
    """``relief.own_print_gate`` of ``data/vision_relief.json``: the relief-only discriminant's
    min separation (pooled standard deviations; 0: off) and max error share, and whether it
    also replaces a whole discriminant that passed its gate where it sets the groups further
    apart (``further``)."""
    g = load_json("vision_relief.json")["relief"]["own_print_gate"]
    return float(g["min_separation"]), float(g["max_error"]), bool(g["further"])


def separation(x: FloatArray, trains: IntArray, prints: IntArray, terms: FloatArray) -> FloatArray:
    """(5,) per colour, how many pooled standard deviations apart ``terms`` set its trains and
    its print (groups as in ``adapt.own_print_apart``); NaN where not learnt or a group is
    empty."""
    out = np.full(len(terms), np.nan)
    for c in np.flatnonzero(np.isfinite(terms[:, 0])):
        st = x[trains == c] @ terms[c, 2:]
        sp = x[prints == c] @ terms[c, 2:]
        if len(st) and len(sp):
            n = len(st) + len(sp)
            spread = np.sqrt((st.var() * len(st) + sp.var() * len(sp)) / n)
            out[c] = float(st.mean() - sp.mean()) / max(float(spread), 1e-9)
    return out


@cache
def in_full() -> frozenset[int]:
    """The relief features (indices in ``RELIEF_FEATURES``) the whole discriminant learns on
    too (``relief.full_discriminant``); the others only in ``relief_only``."""
    names = load_json("vision_relief.json")["relief"]["full_discriminant"]
    return frozenset(RELIEF_FEATURES.index(n) for n in names)


def learn_with_relief(
    x: FloatArray,
    groups: Any,
    args: tuple[int, float, float],
    opt: tuple[tuple[float, float], tuple[float, float], tuple[float, int, float]],
    columns: tuple[int, ...],
    learn: Callable[..., Learnt],
    unlike: Callable[..., FloatArray],
) -> Learnt:
    """``own_print.learn`` (``learn``; ``unlike``: its ``unlikeness``) on ``x``'s ``columns``
    but the relief ones kept out of it (``in_full``), then ``relief_only`` on every relief
    column: terms (5, 2 + len(columns)), zero weight where a colour's discriminant does not
    use a column. ``groups``: ``own_print.Groups``; ``opt``: ``learn``'s gate, like, pooled."""
    full = in_full()
    relief = [j for j, c in enumerate(columns) if c >= FIRST_RELIEF]
    main = [j for j, c in enumerate(columns) if c < FIRST_RELIEF or c - FIRST_RELIEF in full]
    if len(main) == len(columns):
        learnt = learn(x, groups, args, *opt)
    else:
        g = replace(groups, centre=groups.centre[:, main], own_centre=groups.own_centre[:, main])
        terms, apart, where = learn(x[:, main], g, args, *opt)
        out = np.where(np.isfinite(terms[:, :1]), 0.0, np.nan) * np.ones((1, 2 + len(columns)))
        out[:, :2] = terms[:, :2]
        out[:, np.add(main, 2)] = terms[:, 2:]
        learnt = out, apart, where
    return relief_only(x, groups, (args, opt[1], opt[2][1]), learnt, relief, unlike)


def relief_only(
    x: FloatArray,
    groups: Any,
    settings: tuple[tuple[int, float, float], tuple[float, float], int],
    learnt: Learnt,
    relief: list[int],
    unlike: Callable[..., FloatArray],
    gate: tuple[float, float, bool] | None = None,
) -> Learnt:
    """``learnt`` with, for every colour not apart there and learnt on its own print (at
    least ``scarce`` and ``args[0]`` of its spaces left after ``like``, as ``own_print.learn``
    clears that group with ``unlike``; ``settings``: args, like, scarce), the discriminant on
    the ``relief`` columns of ``x`` alone (the others weigh 0), where that is apart by
    ``gate`` (default ``relief_gate``). ``groups``: ``own_print.Groups``."""
    (args, like, scarce), (terms, apart, where) = settings, learnt
    sep, err, further = relief_gate() if gate is None else gate
    least = args[0]
    if sep <= 0.0 or not relief or (apart.all() and not further):
        return learnt
    prints = groups.prints
    if like[0] > 0.0:
        score = unlike(x, groups, like[1], least)
        prints = np.where(score <= like[0], -1, prints)  # NaN: as read
    own = np.bincount(prints[prints >= 0], minlength=len(PLAYER_COLORS))
    only = x[:, relief]
    rows = own_print_terms(only, groups.trains, prints, *args)
    ok = own_print_apart(only, groups.trains, prints, rows, sep, err)
    kept = np.isin(np.arange(len(apart)), where[where >= 0])  # not left to the stand-ins
    better = ~apart
    if further:  # where the relief alone sets them further apart than all the features
        mine = separation(only, groups.trains, prints, rows)
        better |= mine > np.nan_to_num(separation(x, groups.trains, prints, terms), nan=-np.inf)
    take = np.flatnonzero(better & ok & (own >= max(least, scarce)) & kept)
    if not len(take):
        return learnt
    terms, apart = terms.copy(), apart.copy()
    terms[take] = 0.0
    terms[take, :2] = rows[take, :2]
    terms[np.ix_(take, np.add(relief, 2))] = rows[take, 2:]
    apart[take] = True
    return terms, apart, where
