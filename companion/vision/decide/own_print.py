"""A train on the print of its own colour: this picture's discriminant, learnt on clean groups.

``adapt.own_print_terms`` learns, per player colour, the discriminant between that colour's
trains on routes printed in other colours (the colours tell those apart from any print) and its
print read free with confidence. Two things spoil the print group:

* **its own trains read free.** Where the colours cannot tell a train from its print, the
  trains standing on it are read free with confidence at first, join the print group and draw
  the discriminant towards themselves (the more of a colour's print is claimed, the more of
  its print group is trains). Those trains look like the colour's trains elsewhere in every
  feature; print does not. The print group keeps only the routes unlike those trains: the mean
  over a route's spaces and the features of the squared z-score against them (per feature
  mean and variance) above ``unlike``. Where its trains elsewhere are too few to say what
  they look like, the other inks' free print says what paper looks like: the routes unlike it
  and like those trains move to its trains first (``own_group.clear_group``);
* **too little print left.** Late in a game most of a colour's routes may be claimed, and no
  print of it is free to learn from. The relief of print (its spread, outline, shading, fine
  lines, highlight) is that of the board's paper and ink, and every other printed colour shows
  it on this picture: where fewer than ``min_spaces`` spaces of its own print are left, the
  print group is every free space read with confidence, each moved from its own print's
  fitted look to this colour's (the lightness and colour columns; the relief stays as seen).
  So too where its print group is not apart (its trains unlike its trains elsewhere left in
  it): the stand-ins' discriminant then clears the group of what it calls trains. Where the
  player colours' print is nearly all claimed, the other inks' (``Groups.others``) stand in.

Whether the final decision uses a colour's discriminant stays ``adapt.own_print_apart``'s to
say, on the groups it was learnt on. Pure array functions; colours in PLAYER_COLORS order.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.data import load_json
from companion.vision.decide.adapt import own_print_apart, own_print_features, own_print_terms
from companion.vision.decide.cross_print import from_learn
from companion.vision.decide.own_group import clear_group, paper_like
from companion.vision.decide.own_relief import learn_with_relief
from companion.vision.decide.single_route import restore, single_spaces
from companion.vision.types import PLAYER_COLORS

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class Groups:
    """What the groups are made of, per space (n,): ``trains``: the colour index of a train read
    with confidence on a route printed in another colour, else -1; ``prints``: the colour index
    of a space printed in that player colour and read free with confidence, else -1;
    ``open_``: the colour index of a space printed in that player colour and not read as
    another colour's train, else -1; ``free``: read free with confidence, whatever its printed
    colour; ``route``: its route; ``centre`` (n, n_features): its own print's fitted look in
    the features (zero in the relief columns); ``own_centre`` (5, n_features): each player
    colour's print's."""

    trains: IntArray
    prints: IntArray
    open_: IntArray
    free: BoolArray
    route: IntArray
    centre: FloatArray
    own_centre: FloatArray
    others: BoolArray | None = None


def unlikeness(
    x: FloatArray, g: Groups, floor: float, least: int, share: float = 0.0
) -> FloatArray:
    """(n,) per space of ``g.open_``, how unlike its colour's trains on other prints its route
    looks: the mean over the route's spaces and the features of the squared z-score against
    those trains (per feature mean and variance, at least ``floor``); NaN where that colour's
    trains are seen on fewer than ``least`` spaces, and off ``g.open_``. ``share``: each
    feature's variance at least that share of the colours' pooled variance around their own
    means too (a colour seen on a route or two, alike, under-states its spread)."""
    return unlikeness_shares(x, g, floor, least, (share,))[0]


def unlikeness_shares(
    x: FloatArray, g: Groups, floor: float, least: int, shares: tuple[float, ...]
) -> list[FloatArray]:
    """``unlikeness`` at each of ``shares``, the trains' statistics taken once."""
    k = len(PLAYER_COLORS)
    has = g.trains >= 0
    lab = g.trains[has]
    n = np.bincount(lab, minlength=k).astype(np.float64)
    sums = np.stack([np.bincount(lab, weights=col, minlength=k) for col in x[has].T], axis=1)
    squares = np.stack([np.bincount(lab, weights=col * col, minlength=k) for col in x[has].T], 1)
    mean = sums / np.maximum(n, 1.0)[:, None]
    own = np.maximum(squares / np.maximum(n, 1.0)[:, None] - mean * mean, 0.0)
    pooled = (own * n[:, None]).sum(axis=0) / max(float(n.sum()), 1.0)
    rows = np.flatnonzero((g.open_ >= 0) & (n[np.maximum(g.open_, 0)] >= least))
    c = g.open_[rows]
    squared = (x[rows] - mean[c]) ** 2
    out = []
    for share in shares:
        var = np.maximum(np.maximum(own, share * pooled), floor)
        score = np.full(len(x), np.nan)
        score[rows] = (squared / var[c]).mean(axis=1)
        seen = np.flatnonzero(np.isfinite(score))
        if len(seen):
            r = g.route[seen]
            total = np.bincount(r, weights=score[seen], minlength=int(g.route.max()) + 1)
            spaces = np.bincount(r, minlength=len(total))
            score[seen] = (total / np.maximum(spaces, 1))[r]
        out.append(score)
    return out


def learn(
    x: FloatArray,
    g: Groups,
    args: tuple[int, float, float],
    gate: tuple[float, float],
    like: tuple[float, float],
    pooled: tuple[float, int, float],
    stand: tuple[float, float, float] | None = None,
) -> tuple[FloatArray, BoolArray, IntArray]:
    """This picture's ``own_print_terms`` (5, 2 + n_features), ``own_print_apart`` (5,) on the
    groups of the module doc, and each space's colour for ``adapt.own_print_scores`` (n,: its
    printed player colour where the discriminant may read it, else -1). ``args``: min spaces,
    variance floor and shrink of ``own_print_terms``; ``gate``: min separation and max error
    share of ``own_print_apart``; ``like``: the bound on ``unlikeness`` at or under which a
    route looks like its colour's trains (0: the print group as read) and its variance floor:
    such routes leave the print group and, for a colour learnt on stand-ins, are the only
    ones it may read as trains (a stand-in is not that colour's print); ``pooled``: the gate's
    max error share on the stand-ins (their spread is wider; 0: none), and the fewest spaces
    of its own print a colour is learnt on (fewer, in a picture whose trains look like their
    print, are likely its trains: the stand-ins replace them), and the ``unlikeness`` above
    which a print may stand in (clearly print). ``stand``: the stand-ins' min separation and
    the bound on ``unlikeness`` at or under which a colour learnt on them may read a route as
    trains, and the max error share when ``g.others`` stand in (default: the gate's,
    ``like``'s and ``pooled[0]``).

    A colour is learnt on stand-ins where its own print is scarce or its two groups are not
    apart (its own trains, unlike its trains elsewhere, left in the print group); their
    discriminant, where apart, then clears its print group of what it calls trains, and a
    colour with ``pooled[1]`` spaces of print left and apart on them is learnt on its own print
    after all. Where the player colours' clear prints are fewer than ``pooled[1]`` (most of
    them claimed), ``g.others`` stand in too."""
    least = args[0]
    cleared = clear_group(x, g, least)  # own_group.py: trains the other inks' print tells
    moved = np.unique(cleared.trains[cleared.trains != g.trains])  # the colours it moved
    g = cleared
    prints = g.prints
    where = g.open_.copy()
    score = np.full(len(x), np.nan)
    floor = stand_in_config()["spread_floor"]
    if like[0] > 0.0:  # and clearly print (below) with the spread floor
        score, clear = unlikeness_shares(x, g, like[1], least, (0.0, floor))
        prints = np.where(score <= like[0], -1, prints)  # NaN: as read
    terms = own_print_terms(x, g.trains, prints, *args)
    apart = own_print_apart(x, g.trains, prints, terms, *gate)
    if pooled[0] <= 0.0:
        return terms, apart, where
    scarce = max(least, pooled[1])
    k = len(PLAYER_COLORS)
    # the plain prints of the player colours (grey has wagons, ferries), where clearly unlike
    # their colour's trains (not trains the colours read free)
    # a colour seen on a route or two (alike) under-states its spread, and its trains on its
    # print look clearly unlike them: clearly print here is unlike them at least a share
    # ``spread_floor`` of the colours' pooled spread (``unlikeness``'s ``share``) too
    if not like[0] > 0.0:
        (clear,) = unlikeness_shares(x, g, like[1], least, (floor,))
    clear = np.where(np.isnan(clear), score, np.minimum(score, clear))
    plain = (prints >= 0) & (clear > pooled[2])
    sep, bound, most = stand if stand is not None else (gate[0], like[0], pooled[0])
    if g.others is not None and plain.sum() < scarce:  # most of them claimed
        plain |= g.others
    else:
        most = pooled[0]
    base = x[plain] - g.centre[plain]
    counts = np.bincount(prints[prints >= 0], minlength=k)
    seen = np.bincount(g.trains[g.trains >= 0], minlength=k)
    need = np.flatnonzero(((counts < scarce) | ~apart) & (seen >= least))
    if not len(need) or len(base) < least:
        return terms, apart, where
    # every colour's stand-ins at once: its block of the other prints, moved to its look
    both = np.concatenate([x, *(base + g.own_centre[c] for c in need)])
    trains = np.concatenate([g.trains, np.full(len(base) * len(need), -1)])
    group = np.concatenate([np.full(len(x), -1), np.repeat(need, len(base))])
    rows = own_print_terms(both, trains, group, *args)
    standing = own_print_apart(both, trains, group, rows, sep, most)
    # a colour whose trains the other inks' print told is gated as on the player colours' print
    if len(moved):
        standing[moved] = own_print_apart(both, trains, group, rows, sep, pooled[0])[moved]
    # the print group cleared by the stand-ins' discriminant: a space it calls trains, and not
    # clearly print (``pooled[2]``), leaves it; a colour with enough print left, and apart on
    # it, is learnt on its own print
    for c in need[standing[need]]:
        called = (x @ rows[c, 2:] + rows[c, 1] > 0) & ~(clear > pooled[2])
        prints = np.where((prints == c) & called, -1, prints)
    again = own_print_terms(x, g.trains, prints, *args)
    ok = own_print_apart(x, g.trains, prints, again, *gate)
    left = np.bincount(prints[prints >= 0], minlength=k)
    own = need[ok[need] & (left[need] >= scarce)]
    terms[own], apart[own] = again[own], True
    need = np.setdiff1d(need, own)
    terms[need], apart[need] = rows[need], standing[need]
    paper = paper_like(x, g, terms, need, least)  # own_group.py: print the stand-ins call trains
    where[np.isin(g.open_, need) & (~(score <= bound) | paper)] = -1
    return terms, apart, where


def centres(
    printed: dict[str, FloatArray],
    names: list[str],
    index: IntArray,
    scale: FloatArray,
    columns: tuple[int, ...],
) -> tuple[FloatArray, FloatArray]:
    """``Groups.centre`` and ``Groups.own_centre`` from the prints' looks (``printed``: L, a, b,
    L spread per printed colour name; ``names`` and ``index``: each space's printed colour)
    over the model's ``scale``, in the ``columns`` of ``adapt.own_print_features`` (lightness
    and colour only: the relief columns are zero)."""
    cols = np.array(columns, dtype=np.int64)
    keep = cols < 3  # L, a, b: the print's own; its spread and the cues: the paper's

    def look(name: str) -> FloatArray:
        row = np.zeros(len(cols))
        if name in printed:
            both = np.concatenate([np.asarray(printed[name][:4]) / scale, np.zeros(4)])
            row[keep] = both[cols[keep]]
        return row

    table = np.stack([look(n) for n in names]) if names else np.zeros((0, len(cols)))
    own = np.stack([look(c) for c in PLAYER_COLORS])
    return np.asarray(table[index], dtype=np.float64), own


def from_reading(
    printed: FloatArray,
    cues: FloatArray,
    model: Any,
    info: Any,
    seen: tuple[IntArray, IntArray, IntArray, BoolArray],
    x: FloatArray | None = None,
) -> tuple[FloatArray, BoolArray, IntArray]:
    """``learn`` on a reading (``classify._adapt``): ``printed`` and ``cues`` (clipped) of
    every space as ``classify.space_features`` measures them, ``model`` the ``SpaceModel``
    (the print as estimated on this picture), ``info`` the ``SpaceLayoutInfo``; ``seen``:
    per space, ``Groups.trains`` and ``Groups.prints``, its route's hypothesis as read, and
    whether its route is read free with confidence. ``x``: ``own_print_features`` of them, when
    the caller has them (``classify_spaces`` does: the same every round).

    A pure function of its arguments: a round whose reading left ``seen`` as the last round
    had it (on the same ``x``, ``printed``, ``model`` and ``info``, ``cues`` equal) gets the
    last round's result again (copies) instead of learning it anew."""
    global _LAST
    last = _LAST
    if (
        x is not None
        and last is not None
        and _same_call(last[0], (printed, cues, model, info, x), seen)
    ):
        return _copies(last[1])
    out = _from_reading(printed, cues, model, info, seen, x)
    if x is not None:
        kept = (printed.copy(), x.copy())  # their values, should the caller change them
        _LAST = (
            (printed, cues.copy(), model, info, x, tuple(a.copy() for a in seen), *kept),
            _copies(out),
        )
    return out


# a ``from_reading`` call's inputs: printed, cues, model, info, x, seen, printed's and x's values
Call = tuple[Any, ...]
_LAST: tuple[Call, tuple[FloatArray, BoolArray, IntArray]] | None = None  # the last call's


def _same_call(last: Call, now: tuple[Any, ...], seen: tuple[Any, ...]) -> bool:
    """Whether ``from_reading`` on ``now`` (printed, cues, model, info, x) and ``seen`` is the
    call ``last`` was: the same objects (``printed`` and ``x`` unchanged too), and ``cues``
    and ``seen`` equal."""
    if any(last[i] is not now[i] for i in (0, 2, 3, 4)):
        return False
    arrays = zip(
        (*last[5], last[1], last[6], last[7]), (*seen, now[1], now[0], now[4]), strict=True
    )
    return all(
        a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b) for a, b in arrays
    )


def _copies(
    learnt: tuple[FloatArray, BoolArray, IntArray],
) -> tuple[FloatArray, BoolArray, IntArray]:
    return learnt[0].copy(), learnt[1].copy(), learnt[2].copy()


def _from_reading(
    printed: FloatArray,
    cues: FloatArray,
    model: Any,
    info: Any,
    seen: tuple[IntArray, IntArray, IntArray, BoolArray],
    x: FloatArray | None = None,
) -> tuple[FloatArray, BoolArray, IntArray]:
    """``from_reading`` learnt anew."""
    trains, prints, got, sure_free = seen
    own = info.own_colour
    if x is None:
        x = own_print_features(printed, cues, model.scale, model.own_print_columns)
    args = (model.same_min_spaces, model.own_print_floor, model.own_print_shrink)
    open_ = np.where((own >= 0) & ((got == 0) | (got == own + 1)), own, -1)  # not another's
    names, index = info.printed_index
    ct = centres(model.printed, names, index, model.scale, model.own_print_columns)
    cfg = stand_in_config()
    plain = np.array([n in cfg["others"] for n in names], dtype=np.bool_)
    others = sure_free & plain[index] & ~info.tunnel
    g = Groups(trains, prints, open_, sure_free, info.space_route, *ct, others)
    opt = (model.own_print_gate, model.own_print_like, model.own_print_pooled)
    stand = (cfg["min_separation"], cfg["like"], cfg["others_max_error"])
    cols = model.own_print_columns  # own_relief.py: and on the relief alone
    learnt = learn_with_relief(x, g, args, (*opt, stand), cols, learn, unlikeness)
    learnt = from_learn(x, g, learnt, cols, unlikeness, (opt[1][1], args[0]))  # cross_print.py
    return restore(x, open_, g.route, single_spaces(info), learnt)  # single_route.py


@cache
def stand_in_config() -> dict[str, Any]:
    """``space_model.adapt.own_print_stand_in`` of ``data/vision.json``: ``learn``'s
    ``stand`` and the printed colours (not the player colours') whose free spaces away from
    tunnels may stand in (``Groups.others``)."""
    cfg = load_json("vision.json")["space_model"]["adapt"]["own_print_stand_in"]
    return {
        "min_separation": float(cfg["min_separation"]),
        "like": float(cfg["like"]),
        "others_max_error": float(cfg["others_max_error"]),
        "spread_floor": float(cfg.get("spread_floor", 0.0)),
        "others": frozenset(str(c) for c in cfg["others"]),
    }
