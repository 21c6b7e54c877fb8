"""A train on its own print: the print group cleared of its colour's trains, and the other
prints standing in where a colour's print is all claimed (companion.vision.decide.own_print),
on hand-made numbers."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from companion.vision.decide import own_group
from companion.vision.decide.own_group import group_config
from companion.vision.decide.own_print import Groups, centres, learn, unlikeness
from companion.vision.types import PLAYER_COLORS

RED = PLAYER_COLORS.index("red")
BLUE = PLAYER_COLORS.index("blue")
ARGS = (3, 0.5, 3.0)  # min spaces, variance floor, shrink
GATE = (3.0, 0.03)
STAND = (2.5, 6.0, 0.03)  # the stand-ins: min separation, bound on unlikeness, max error (others)


def _groups(trains: np.ndarray, prints: np.ndarray, open_: np.ndarray, shift: float) -> Groups:
    """One route per space; every print's fitted look at 0 but red's at ``shift`` (column 0)."""
    n = len(trains)
    own_centre = np.zeros((len(PLAYER_COLORS), 2))
    own_centre[RED, 0] = shift
    centre = np.zeros((n, 2))
    centre[prints == RED, 0] = shift
    free = prints >= 0
    return Groups(trains, prints, open_, free, np.arange(n), centre, own_centre)


def test_its_own_trains_read_free_leave_the_print_group() -> None:
    """Red trains on other prints (20) and red spaces read free with confidence: 6 of them
    print, 8 of them red trains the colours could not tell. The print group keeps the 6
    (unlike red's trains elsewhere) and the discriminant learnt on it calls the 8 trains and
    is used (apart); learnt on the group as read, it is not."""
    rng = np.random.default_rng(7)
    t = rng.normal(2.0, 0.5, (20, 2))
    p = rng.normal(-2.0, 0.5, (6, 2))
    own = rng.normal(2.0, 0.3, (8, 2))
    x = np.vstack([t, p, own])
    trains = np.r_[np.full(20, RED), np.full(14, -1)]
    prints = np.r_[np.full(20, -1), np.full(14, RED)]
    g = _groups(trains, prints, prints, 0.0)
    score = unlikeness(x, g, 0.1, 3)
    assert np.isnan(score[:20]).all()  # not red's print
    assert (score[20:26] > 8.0).all() and (score[26:] < 3.0).all()
    terms, apart, where = learn(x, g, ARGS, GATE, (3.0, 0.1), (0.0, 0, 0.0))
    assert apart[RED] and np.array_equal(where, prints)
    llr = own @ terms[RED, 2:] + terms[RED, 1]
    assert (llr > 0).all()
    _, as_read, _ = learn(x, g, ARGS, GATE, (0.0, 0.1), (0.0, 0, 0.0))
    assert not as_read[RED]


def test_a_colour_with_all_its_print_claimed_learns_from_the_other_prints() -> None:
    """Every red space holds a red train: no red print to learn from. Blue's print (seen
    free, unlike blue's trains) moved to red's fitted look stands in for it: the discriminant
    is learnt and calls the red trains on red print trains, but only where they look like red
    trains elsewhere (one route does not: it stays as the colours read it); without the
    stand-in nothing is learnt for red. Where the other prints look like the trains (a photo
    whose pieces resemble the print), the gate keeps it out."""
    rng = np.random.default_rng(8)
    tb = rng.normal([0.0, 4.0], 0.5, (20, 2))  # blue trains on other prints
    t = rng.normal([3.0, 2.0], 0.5, (20, 2))  # red trains on other prints
    own = rng.normal([3.0, 2.0], 0.5, (10, 2))  # red trains on red print (read free)
    own[9] = [0.0, 0.0]  # ... one unlike red's trains elsewhere
    blue = rng.normal([-1.0, -2.0], 0.4, (12, 2))  # blue print, free
    x = np.vstack([tb, t, own, blue])
    trains = np.r_[np.full(20, BLUE), np.full(20, RED), np.full(22, -1)]
    prints = np.r_[np.full(40, -1), np.full(10, RED), np.full(12, BLUE)]
    g = _groups(trains, prints, prints, 1.0)
    pooled = (0.1, 6, 8.0)
    terms, apart, where = learn(x, g, ARGS, GATE, (3.0, 0.1), pooled)
    assert apart[RED] and np.isfinite(terms[RED]).all()
    assert (own[:9] @ terms[RED, 2:] + terms[RED, 1] > 0).all()
    assert (blue @ terms[RED, 2:] + terms[RED, 1] < 0).all()
    assert (where[40:49] == RED).all() and where[49] == -1 and (where[50:] == BLUE).all()
    none, _, _ = learn(x, g, ARGS, GATE, (3.0, 0.1), (0.0, 6, 8.0))
    assert np.isnan(none[RED]).all()
    alike = x.copy()
    alike[50:] = rng.normal([3.0, 2.0], 0.5, (12, 2))  # blue print like red trains
    alike[:20] = rng.normal([3.0, 2.0], 0.5, (20, 2))  # ... and like blue's trains
    _, gate, _ = learn(alike, g, ARGS, GATE, (3.0, 0.1), (0.1, 6, 0.0))
    assert not gate[RED]


def test_the_stand_in_takes_the_colour_of_its_print_and_keeps_the_relief() -> None:
    printed = {"red": np.array([42.0, 41.0, 36.0, 6.0]), "grey": np.array([59.0, 0.0, 3.0, 9.0])}
    scale = np.array([6.0, 4.0, 5.0, 3.0])
    centre, own = centres(printed, ["grey", "red"], np.array([1, 0, 1]), scale, (0, 3, 5))
    assert np.allclose(centre[0], [7.0, 0.0, 0.0]) and np.allclose(centre[1], [59 / 6, 0, 0])
    assert np.allclose(own[RED], [7.0, 0.0, 0.0]) and np.allclose(own[BLUE], 0.0)


def test_a_colour_not_apart_for_its_own_trains_in_its_print_is_cleared_by_the_stand_ins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Red's print group holds 8 spaces of red print and 6 of red trains the colours read free,
    unlike red's trains elsewhere (so they stay in it) and spoiling the gate. The blue print
    standing in tells those 6 trains; they leave the group and red is learnt on its own print
    after all: apart, read on every red space. Without the stand-ins (and ``own_group``, which
    tells them by the blue print too, off), red is not apart."""
    rng = np.random.default_rng(11)
    tb = rng.normal([0.0, 4.0], 0.5, (20, 2))  # blue trains on other prints
    t = rng.normal([3.0, 2.0], 0.5, (20, 2))  # red trains on other prints
    red = rng.normal([-2.0, -1.0], 0.4, (8, 2))  # red print, free
    odd = rng.normal([3.6, 0.8], 0.15, (6, 2))  # red trains on red print, read free
    blue = rng.normal([-1.0, -2.0], 0.4, (12, 2))  # blue print, free
    x = np.vstack([tb, t, red, odd, blue])
    trains = np.r_[np.full(20, BLUE), np.full(20, RED), np.full(26, -1)]
    prints = np.r_[np.full(40, -1), np.full(14, RED), np.full(12, BLUE)]
    g = _groups(trains, prints, prints, 0.0)
    score = unlikeness(x, g, 0.1, 3)[48:54]
    assert (score > 3.0).all() and (score <= 8.0).all()  # in the print group, not clearly print
    _, alone, _ = learn(x, g, ARGS, GATE, (3.0, 0.1), (0.0, 6, 8.0))
    assert alone[RED]  # own_group: the 6 unlike the blue print and like red's trains
    monkeypatch.setattr(own_group, "group_config", lambda: {**group_config(), "far": 0.0})
    _, alone, _ = learn(x, g, ARGS, GATE, (3.0, 0.1), (0.0, 6, 8.0))
    assert not alone[RED]
    terms, apart, where = learn(x, g, ARGS, GATE, (3.0, 0.1), (0.1, 6, 8.0), STAND)
    assert apart[RED] and np.array_equal(where, prints)
    llr = x @ terms[RED, 2:] + terms[RED, 1]
    assert (llr[48:54] > 0).all() and (llr[40:48] < 0).all()


def test_the_other_prints_stand_in_when_the_player_colours_are_all_claimed() -> None:
    """Every red space holds a red train and no player colour's print is free: only white
    print (``Groups.others``) is left to stand in. With it red is learnt and calls its trains
    on red print trains; without it nothing is learnt for red."""
    rng = np.random.default_rng(12)
    t = rng.normal([3.0, 2.0], 0.5, (20, 2))  # red trains on other prints
    own = rng.normal([3.0, 2.0], 0.5, (10, 2))  # red trains on red print (read free)
    white = rng.normal([-1.0, -2.0], 0.4, (12, 2))  # white print, free
    x = np.vstack([t, own, white])
    trains = np.r_[np.full(20, RED), np.full(22, -1)]
    prints = np.r_[np.full(20, -1), np.full(10, RED), np.full(12, -1)]
    g = _groups(trains, prints, prints, 0.0)
    others = np.r_[np.zeros(30, dtype=bool), np.ones(12, dtype=bool)]
    with_white = dataclasses.replace(g, others=others)
    terms, apart, where = learn(x, with_white, ARGS, GATE, (3.0, 0.1), (0.1, 6, 8.0), STAND)
    assert apart[RED] and (where[20:30] == RED).all()
    assert (own @ terms[RED, 2:] + terms[RED, 1] > 0).all()
    assert (white @ terms[RED, 2:] + terms[RED, 1] < 0).all()
    none, _, _ = learn(x, g, ARGS, GATE, (3.0, 0.1), (0.1, 6, 8.0), STAND)
    assert np.isnan(none[RED]).all()


def test_a_colour_seen_on_few_alike_spaces_does_not_make_its_own_trains_clearly_print() -> None:
    """Blue trains on other prints seen on 7 alike spaces (spread 0.1), red's on 30 (0.8).
    Blue's own trains on its print, a little off, look clearly unlike blue's seen (over
    ``own_print_unlike``, 8) on blue's spread alone; with at least half the colours' pooled
    spread they do not, and blue's print (far off) still does."""
    rng = np.random.default_rng(11)
    red = rng.normal(2.0, 0.8, (30, 2))
    blue = rng.normal(2.0, 0.1, (7, 2))
    own = rng.normal(3.0, 0.05, (6, 2))
    print_ = rng.normal(-2.0, 0.3, (6, 2))
    x = np.vstack([red, blue, own, print_])
    trains = np.r_[np.full(30, RED), np.full(7, BLUE), np.full(12, -1)]
    open_ = np.r_[np.full(37, -1), np.full(12, BLUE)]
    g = _groups(trains, open_, open_, 0.0)
    alone = unlikeness(x, g, 0.1, 3)
    pooled = unlikeness(x, g, 0.1, 3, 0.5)
    assert (alone[37:43] > 8.0).all() and (pooled[37:43] < 8.0).all()
    assert (pooled[43:] > 8.0).all() and (pooled[43:] <= alone[43:]).all()
    assert np.array_equal(unlikeness(x, g, 0.1, 3, 0.0), alone, equal_nan=True)
