"""A route's spaces read together by the own-print discriminant, and a colour over a player's
trains by a route (companion.vision.decide.own_route), on hand-made numbers."""

from __future__ import annotations

import numpy as np

from companion.vision.decide.own_route import even_odds, route_config, route_values, within_trains


def test_each_space_takes_its_routes_least_train_like_space() -> None:
    """Without a clearly train-like second space, every route takes its least: the rule a
    print in a shadow needs (print on some of its spaces is print)."""
    rng = np.random.default_rng(3)
    seen = rng.normal(0.0, 3.0, 40)
    route = rng.integers(0, 9, 40)
    low = np.full(9, np.inf)
    np.minimum.at(low, route, seen)
    assert np.array_equal(route_values(seen, route, (3, np.inf)), low[route])


def test_one_print_like_space_does_not_free_a_clearly_claimed_route() -> None:
    """A route of three, two of its spaces clearly trains and one print-like, is read by the
    second: trains. A route of two, or with its second space not clearly trains, or three
    spaces of print with one train-like, keeps its least."""
    seen = np.array([9.0, -2.0, 7.0, 8.0, -1.0, -3.0, 2.0, 7.0, -5.0, -6.0, 12.0])
    route = np.array([0, 0, 0, 1, 1, 2, 2, 2, 3, 3, 3])
    out = route_values(seen, route, (3, 6.0))
    assert np.array_equal(out, [7.0] * 3 + [-1.0] * 2 + [-3.0] * 3 + [-6.0] * 3)
    assert route_config()[0] >= 3 and route_config()[1] > 0.0  # clearly trains, never print
    assert route_values(np.zeros(0), np.zeros(0, dtype=np.int64)).shape == (0,)


def test_a_colour_over_by_a_route_drops_its_least_train_like_route_only() -> None:
    """Black read on 47 spaces (a player has 45) over by 2: the discriminant no longer reads
    black's least train-like route among those read black (route 1); over by 5 (more than
    the slack), or with no route of its own to drop, black is left out as before."""
    black = 4
    x = np.array([[5.0], [5.0], [1.0], [1.0], [3.0], [3.0]])
    own = np.array([black, black, black, black, black, -1])
    terms = np.full((5, 3), np.nan)
    terms[black] = [0.8, 0.0, 1.0]
    route = np.array([0, 0, 1, 1, 2, 2])
    claimed = np.array([5, 5, 5, 5, 5, 5])  # every route read black
    excess = np.array([0, 0, 0, 0, 2])
    over = np.array([False, False, False, False, True])
    left, keep = within_trains(x, own, terms, (route, claimed), excess, over, 3)
    assert keep.all() and np.array_equal(left, [black, black, -1, -1, black, -1])
    _, keep = within_trains(x, own, terms, (route, claimed), excess + 3, over, 3)
    assert not keep[black] and keep[:black].all()
    _, keep = within_trains(x, np.full(6, -1), terms, (route, claimed), excess, over, 3)
    assert not keep[black]


def test_even_odds_between_a_colour_and_free_keep_the_rest() -> None:
    scores = np.log(np.array([[0.7, 0.1, 0.1, 0.05, 0.03, 0.02], [0.5, 0.1, 0.1, 0.1, 0.1, 0.1]]))
    out = even_odds(scores, np.array([4, -1]))
    assert out[0, 0] == out[0, 5] and np.isclose(np.exp(out[0, 0]), 0.36)
    assert np.array_equal(out[0, 1:5], scores[0, 1:5]) and np.array_equal(out[1], scores[1])
