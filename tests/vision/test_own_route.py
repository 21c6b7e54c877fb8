"""A route's spaces read together by the own-print discriminant (companion.vision.decide
.own_route), on hand-made numbers."""

from __future__ import annotations

import numpy as np

from companion.vision.decide.own_route import route_config, route_values


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
