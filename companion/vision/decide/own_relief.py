"""A colour's trains on its own print told apart by their relief, where all features are not.

``own_print.learn`` learns, per player colour, a discriminant between that colour's trains on
other prints and its own free print, and ``adapt.own_print_apart`` leaves a colour out of the
final decision when this picture does not show the two groups apart along it. On the shared
photo "trainning", yellow plastic is smooth and yellow print carries its ink detail
(``features/relief.py``'s fine_detail: about 4-5 pooled standard deviations apart at 1,000-1,300
px), yet the whole discriminant either left yellow out or, learnt on a print group that still
held yellow trains read free, read its trains on yellow smolensk-wilno as print (one space beside
a green piece looks like print in the cues).

``relief_only``: for such a colour, learnt on its own print (not on the other prints standing
in for it), the same discriminant over the relief columns only. Its print group is the
colour's print not read as another colour's trains, whatever the reading made of it, but the
routes whose relief is that of the colour's trains elsewhere (``own_print.unlikeness`` on the
relief at most ``own_print_like``): the reading's own sure free print depends on what the
earlier rounds read, the relief does not. It is used where it passes the relief gate
(``data/vision_relief.json``'s ``relief.own_print_gate``: min separation, max error share) and
the whole discriminant is left out or (``recheck``) is not that far apart on the same groups.
Which relief features join the whole discriminant as well is ``relief.full_discriminant``
(none: on rendered games, each of them there read some colour's trains on its print free).
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
from companion.vision.decide.adapt import own_print_apart, own_print_separation, own_print_terms
from companion.vision.features.relief import RELIEF_FEATURES
from companion.vision.types import PLAYER_COLORS

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
Learnt = tuple[FloatArray, BoolArray, IntArray]  # terms, apart, each space's colour (learn)

FIRST_RELIEF = 8  # own-print columns from here on are relief (4 colour features, 4 cues first)


@cache
def relief_gate() -> tuple[float, float, bool, int]:
    """``relief.own_print_gate`` of ``data/vision_relief.json``: the relief-only discriminant's
    min separation (pooled standard deviations; 0: off) and max error share, whether it also
    replaces a whole discriminant that passed its own gate (``recheck``), and the fewest
    spaces a colour's trains on other prints must be seen on (``min_trains``)."""
    g = load_json("vision_relief.json")["relief"]["own_print_gate"]
    sep, err = float(g["min_separation"]), float(g["max_error"])
    return sep, err, bool(g["recheck"]), int(g["min_trains"])


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
    opt: tuple[Any, ...],
    columns: tuple[int, ...],
    learn: Callable[..., Learnt],
    unlike: Callable[..., FloatArray],
) -> Learnt:
    """``own_print.learn`` (``learn``; ``unlike``: its ``unlikeness``) on ``x``'s ``columns``
    but the relief ones kept out of it (``in_full``), then ``relief_only`` on every relief
    column: terms (5, 2 + len(columns)), zero weight where a colour's discriminant does not
    use a column. ``groups``: ``own_print.Groups``; ``opt``: ``learn``'s arguments after
    ``args`` (gate, like, pooled: like and pooled's scarce are used here too)."""
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
    gate: tuple[float, float, bool, int] | None = None,
) -> Learnt:
    """``learnt`` with, for every colour learnt on its own print (at least ``scarce`` and
    ``args[0]`` spaces in its print group: ``groups.open_`` but the routes at or under
    ``like`` by ``unlike``, ``own_print.learn``'s ``unlikeness``, on the relief columns;
    ``settings``: args, like, scarce), the discriminant on the ``relief`` columns of ``x``
    alone (the others weigh 0) where that is apart by ``gate`` (default ``relief_gate``),
    its trains seen on at least ``min_trains`` spaces elsewhere, and the whole one is not
    (left out, or with ``recheck``, less than the min separation apart on those groups).
    ``groups``: ``own_print.Groups``."""
    (args, like, scarce), (terms, apart, where) = settings, learnt
    sep, err, recheck, most = relief_gate() if gate is None else gate
    least, k = args[0], len(PLAYER_COLORS)
    if sep <= 0.0 or not relief:
        return learnt
    kept = np.zeros(k, dtype=np.bool_)
    kept[where[where >= 0]] = True  # not left to the stand-ins
    can = kept & (np.bincount(groups.trains[groups.trains >= 0], minlength=k) >= most)
    can &= ~apart | recheck
    if not can.any():
        return learnt
    # the print group: its print not read as another colour's trains, but where its relief is
    # that of its trains elsewhere (whatever the reading made of it)
    only = x[:, relief]
    g = replace(groups, centre=groups.centre[:, relief], own_centre=groups.own_centre[:, relief])
    score = unlike(only, g, like[1], least)
    prints = np.where(score > like[0], groups.open_, -1)  # NaN (too few trains): out
    can &= np.bincount(prints[prints >= 0], minlength=k) >= max(least, scarce)
    if not can.any():
        return learnt
    # the candidate colours' groups only (the others' are not learnt)
    trains = np.where(can[np.maximum(groups.trains, 0)], groups.trains, -1)
    prints = np.where(can[np.maximum(prints, 0)], prints, -1)
    rows = own_print_terms(only, trains, prints, *args)
    ok = can & own_print_apart(only, trains, prints, rows, sep, err)
    if recheck and ok.any():  # the whole discriminant not apart on the groups the relief clears
        whole, _ = own_print_separation(x, trains, prints, terms)
        ok &= ~apart | (np.nan_to_num(whole, nan=-np.inf) < sep)
    take = np.flatnonzero(ok)
    if not len(take):
        return learnt
    terms, apart = terms.copy(), apart.copy()
    terms[take] = 0.0
    terms[take, :2] = rows[take, :2]
    terms[np.ix_(take, np.add(relief, 2))] = rows[take, 2:]
    apart[take] = True
    return terms, apart, where
