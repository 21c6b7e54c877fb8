"""A whole colour's trains on its own print told apart by a discriminant learnt across the other
colours (companion.vision.decide.cross_print), on hand-made numbers."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from companion.vision.decide.cross_print import (
    across,
    axis,
    best_split,
    cross_config,
    left_out,
    route_ends,
)
from companion.vision.decide.own_print import Groups
from companion.vision.types import PLAYER_COLORS

BLUE, RED, GREEN, YELLOW, BLACK = (
    PLAYER_COLORS.index(c) for c in ("blue", "red", "green", "yellow", "black")
)
COLUMNS = (0, 3, 8)  # L (left out: lightness), L spread and fine detail (relief)


def _picture(seed: int, black_trains: np.ndarray, black_open: np.ndarray) -> tuple[Any, ...]:
    """Blue, green and yellow trains on other prints (15 spaces each, relief high) and their
    clear free print (8 each, relief low), in hues far apart (column 0); black: its trains on
    other prints (``black_trains``, relief columns) and its open spaces (``black_open``), all
    of them read free as one print group (the colours cannot tell). One route per space."""
    rng = np.random.default_rng(seed)
    rows, trains, prints = [], [], []
    for c, hue in ((BLUE, 6.0), (GREEN, 5.0), (YELLOW, 13.0)):
        rows.append(np.c_[rng.normal(hue - 0.5, 0.3, 15), rng.normal([3.0, 3.0], 0.4, (15, 2))])
        trains += [c] * 15
        prints += [-1] * 15
        rows.append(np.c_[rng.normal(hue, 0.2, 8), rng.normal([1.3, 1.0], 0.2, (8, 2))])
        trains += [-1] * 8
        prints += [c] * 8
    rows.append(np.c_[np.full(len(black_trains), 2.8), black_trains])
    trains += [BLACK] * len(black_trains)
    prints += [-1] * len(black_trains)
    rows.append(np.c_[np.full(len(black_open), 3.5), black_open])
    trains += [-1] * len(black_open)
    prints += [BLACK] * len(black_open)
    x = np.vstack(rows)
    t, p = np.array(trains), np.array(prints)
    n = len(x)
    g = Groups(t, p, p.copy(), p >= 0, np.arange(n), np.zeros((n, 3)), np.zeros((5, 3)))
    clear = np.where((p >= 0) & (p != BLACK), 20.0, np.nan)  # the others' print: clearly print
    learnt = (
        np.full((5, 5), np.nan),
        np.isin(np.arange(5), [BLUE, GREEN, YELLOW]),  # black (and red, absent) left out
        np.where(p >= 0, p, -1),
    )
    for c in (BLUE, GREEN, YELLOW):
        learnt[0][c] = 1.0
    return x, g, learnt, clear


def _black(seed: int, trains: int, on_print: int, free: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    elsewhere = rng.normal([2.6, 2.7], 0.3, (trains, 2))
    opened = np.vstack(
        [rng.normal([2.7, 2.6], 0.3, (on_print, 2)), rng.normal([1.2, 0.9], 0.15, (free, 2))]
    )
    return elsewhere, opened


def test_best_split_finds_two_groups_and_not_one() -> None:
    rng = np.random.default_rng(1)
    two = np.r_[rng.normal(0.0, 0.3, 6), rng.normal(5.0, 0.3, 14)]
    sep, low, high = best_split(two, 2)
    assert sep > 8.0 and abs(low) < 0.5 and abs(high - 5.0) < 0.5
    one, _, _ = best_split(rng.normal(0.0, 1.0, 20), 2)
    assert one < 3.0
    assert best_split(np.array([1.0, 2.0, 3.0]), 2)[0] == 0.0


def test_axis_points_from_print_to_trains() -> None:
    rng = np.random.default_rng(2)
    z = np.r_[rng.normal([3.0, 0.0], 0.4, (20, 2)), rng.normal([1.0, 0.0], 0.4, (20, 2))]
    t = np.r_[np.ones(20, bool), np.zeros(20, bool)]
    w, mt, mp, spread = axis(z, t, ~t, 0.1)
    assert w[0] > 0 and abs(w[1]) < abs(w[0]) / 3
    assert (mt - mp) / spread > 4.0


def test_a_colour_seen_twice_elsewhere_is_read_by_the_other_colours_relief() -> None:
    """Black trains stand on 2 spaces elsewhere only, and black's print group is 14 of its
    trains and 5 of its print: learnt across blue, green and yellow (relief columns only, the
    lightness column weighs 0), black's discriminant calls its 14 trains trains and its 5 free
    spaces print, and is used (apart, its open spaces read by it). The colours already apart
    keep their terms."""
    elsewhere, opened = _black(3, 2, 14, 5)
    x, g, learnt, clear = _picture(4, elsewhere, opened)
    assert left_out(learnt, g.open_).tolist() == [c == BLACK for c in range(5)]  # red: absent
    terms, apart, where = across(x, g, learnt, COLUMNS, clear)
    assert apart[BLACK] and terms[BLACK, 2] == 0.0 and 0.0 < terms[BLACK, 0] < 1.0
    s = x @ terms[BLACK, 2:] + terms[BLACK, 1]
    black = np.flatnonzero(g.prints == BLACK)
    assert (s[black[:14]] > 0).all() and (s[black[14:]] < 0).all()
    assert (where[black] == BLACK).all()
    assert np.array_equal(terms[BLUE], learnt[0][BLUE]) and not apart[RED]


def test_a_colour_whose_trains_look_like_print_is_left_out() -> None:
    """Where black's own trains elsewhere show little relief (as red plastic does on the
    renders), the other colours' axis does not hold for it: black stays left out."""
    elsewhere, opened = _black(5, 10, 14, 5)
    elsewhere[:] = np.random.default_rng(6).normal([1.4, 1.1], 0.2, elsewhere.shape)
    x, g, learnt, clear = _picture(7, elsewhere, opened)
    terms, apart, where = across(x, g, learnt, COLUMNS, clear)
    assert not apart[BLACK] and np.isnan(terms[BLACK]).all()
    assert np.array_equal(where, learnt[2])


def test_a_colour_with_every_space_claimed_is_read_as_trains() -> None:
    """Every black space holds a black train (no print left to split them from): every route
    lies clearly on the trains' side, and black's discriminant calls them all trains."""
    elsewhere, opened = _black(8, 6, 19, 0)
    x, g, learnt, clear = _picture(9, elsewhere, opened)
    terms, apart, _ = across(x, g, learnt, COLUMNS, clear)
    assert apart[BLACK]
    assert (x[g.prints == BLACK] @ terms[BLACK, 2:] + terms[BLACK, 1] > 0).all()


def test_routes_of_trains_and_print_at_once_leave_the_colour_out() -> None:
    """Black's open spaces in routes whose spaces lie on both sides of the threshold
    (a route is all trains or all print: the axis does not hold for black), or halfway
    between trains and print: black stays left out."""
    elsewhere, opened = _black(12, 6, 12, 6)
    x, g, learnt, clear = _picture(13, elsewhere, opened)
    assert across(x, g, learnt, COLUMNS, clear)[1][BLACK]
    black = np.flatnonzero(g.prints == BLACK)
    mixed = g.route.copy()
    mixed[black[12:]] = mixed[black[:12:2]]  # each print space on a route with a train
    assert not across(x, dataclasses.replace(g, route=mixed), learnt, COLUMNS, clear)[1][BLACK]
    between = x.copy()
    between[black, 1:] = np.random.default_rng(14).normal([1.9, 1.8], 0.4, (18, 2))
    assert not across(between, g, learnt, COLUMNS, clear)[1][BLACK]


def test_route_ends_take_the_second_least_on_long_routes() -> None:
    """Per route its least and most; on a route of at least ``odd`` spaces, its second least
    and second most (elsewhere the least and most again)."""
    s = np.array([5.0, -1.0, 0.5, 2.0, -3.0, 4.0, 1.0])
    route = np.array([7, 7, 7, 2, 2, 9, 9])  # routes 2 and 9: two spaces; 7: three
    low, high, second_low, second_high = route_ends(s, route, 3)
    assert second_low.tolist() == [-3.0, 0.5, 1.0] and high.tolist() == [2.0, 5.0, 4.0]
    assert low.tolist() == [-3.0, -1.0, 1.0] and second_high.tolist() == [2.0, 0.5, 4.0]
    assert route_ends(s, route, 0)[2].tolist() == [-3.0, -1.0, 1.0]
    assert route_ends(s, route, 0)[3].tolist() == [2.0, 5.0, 4.0]
    assert route_ends(np.zeros(0), np.zeros(0, np.int64), 3)[0].shape == (0,)


def test_one_weak_space_on_a_long_route_of_trains_does_not_leave_the_colour_out() -> None:
    """Every black space holds a black train, one of a three-space route's with the relief
    halfway to print's (on renders at 1,000 px, black left out for it: 18 spaces): the route,
    read by its second least train-like space as ``own_route`` reads it, is trains, and black
    is read by the axis; judged by its least (``odd_spaces`` 0) it lies at the threshold, the
    spaces do not split either side of it, and black stays left out. Not so on a route of two."""
    elsewhere, opened = _black(8, 6, 19, 0)
    opened[0] = [2.0, 1.8]  # halfway between the trains' relief and the print's
    x, g, learnt, clear = _picture(9, elsewhere, opened)
    black = np.flatnonzero(g.prints == BLACK)
    route = g.route.copy()
    route[black[[1, 2]]] = route[black[0]]
    three = dataclasses.replace(g, route=route)
    terms, apart, _ = across(x, three, learnt, COLUMNS, clear)
    assert apart[BLACK]
    s = x[black] @ terms[BLACK, 2:] + terms[BLACK, 1]
    assert (s[1:] > 0).all()
    every = {**cross_config(), "odd_spaces": 0.0}
    assert not across(x, three, learnt, COLUMNS, clear, every)[1][BLACK]
    route[black[2]] = route[black[3]]
    two = dataclasses.replace(g, route=route)
    assert not across(x, two, learnt, COLUMNS, clear)[1][BLACK]


def test_one_train_like_space_on_a_long_free_route_is_set_aside_for_a_firm_colour() -> None:
    """A free black route of three spaces, two clearly print and one train-like (on renders, a
    river line across a free black space): set aside where every black train elsewhere lies on
    the trains' side (``odd_max_error`` 0), and black is read by the axis, that route print; not
    where the colour's trains elsewhere may fall short (red's relief, ``odd_max_error`` under
    the share that does, here -1), nor judged by every space (``odd_clear`` infinite)."""
    elsewhere, opened = _black(12, 6, 12, 6)
    x, g, learnt, clear = _picture(13, elsewhere, opened)
    black = np.flatnonzero(g.prints == BLACK)
    route = g.route.copy()
    route[black[[12, 13]]] = route[black[0]]  # print, print and a train
    odd = dataclasses.replace(g, route=route)
    terms, apart, _ = across(x, odd, learnt, COLUMNS, clear)
    assert apart[BLACK]
    s = x[black] @ terms[BLACK, 2:] + terms[BLACK, 1]
    assert (s[12:14] < 0).all() and s[0] > 0
    for changed in ({"odd_max_error": -1.0}, {"odd_clear": np.inf}):
        cfg = {**cross_config(), **changed}
        assert not across(x, odd, learnt, COLUMNS, clear, cfg)[1][BLACK]


def test_too_few_colours_to_learn_from_or_off() -> None:
    """With one other colour's trains seen (fewer than ``min_colours``), or the module off,
    black stays left out."""
    elsewhere, opened = _black(10, 6, 14, 5)
    x, g, learnt, clear = _picture(11, elsewhere, opened)
    assert across(x, g, learnt, COLUMNS, clear)[1][BLACK]
    few = dataclasses.replace(g, trains=np.where(g.trains == BLUE, -1, g.trains))
    few = dataclasses.replace(few, trains=np.where(few.trains == GREEN, -1, few.trains))
    assert not across(x, few, learnt, COLUMNS, clear)[1][BLACK]
    off = {**cross_config(), "min_separation": 0.0}
    assert not across(x, g, learnt, COLUMNS, clear, off)[1][BLACK]
