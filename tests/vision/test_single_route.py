"""A single route its colour's discriminant clearly calls trains, left to the colours by the
stand-ins' bound (companion.vision.decide.single_route): on hand-made numbers, and on own-print
tuning games where such a route of its colour's trains read free (issue 25)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from companion.sim.perturb import jpeg, resize_width
from companion.sim.render import BoardRenderer, own_print_game
from companion.vision.decide.context import ReadContext
from companion.vision.decide.single_route import (
    restore,
    single_config,
    single_spaces,
    with_doubles,
)
from companion.vision.types import PLAYER_COLORS
from tests.vision_reading import read_whole

BLUE = PLAYER_COLORS.index("blue")


def _learnt(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Blue's discriminant: its log-odds are the one feature; every other colour not learnt."""
    terms = np.full((len(PLAYER_COLORS), 3), np.nan)
    terms[BLUE] = [0.8, 0.0, 1.0]
    apart = np.zeros(len(PLAYER_COLORS), dtype=np.bool_)
    apart[BLUE] = True
    return terms, apart, np.full(n, -1)


def test_a_route_clearly_trains_gets_its_discriminant_back() -> None:
    """Routes (by space): 0 of three spaces all clearly trains; 1 of two, one space print-like;
    2 of one space, clearly trains; 3 of two, clearly trains but one lane of a double; 4 of
    two, clearly trains, already read by the discriminant (unchanged); 5 of two read as another
    colour's trains (``open_`` -1). Only route 0 is given its discriminant back."""
    x = np.array([[9.0], [7.0], [8.0], [12.0], [-5.0], [20.0], [15.0], [15.0], [9], [9], [9], [9]])
    route = np.array([0, 0, 0, 1, 1, 2, 3, 3, 4, 4, 5, 5])
    single = np.array([True] * 6 + [False] * 2 + [True] * 4)
    open_ = np.array([BLUE] * 10 + [-1] * 2)
    terms, apart, where = _learnt(len(x))
    where[8:10] = BLUE
    _, _, got = restore(x, open_, route, single, (terms, apart, where), (2, 6.0))
    assert got.tolist() == [BLUE] * 3 + [-1] * 5 + [BLUE] * 2 + [-1] * 2
    assert where[:3].tolist() == [-1] * 3  # the caller's array is not changed


def test_not_apart_not_learnt_under_the_bar_or_off_change_nothing() -> None:
    x = np.array([[9.0], [7.0]])
    route = np.array([0, 0])
    single = np.ones(2, dtype=np.bool_)
    open_ = np.array([BLUE, BLUE])
    terms, apart, where = _learnt(2)
    for learnt, cfg in [
        ((terms, ~apart, where), (2, 6.0)),  # blue not apart
        ((np.full_like(terms, np.nan), apart, where), (2, 6.0)),  # nothing learnt
        ((terms, apart, where), (2, 7.5)),  # 7 under the bar
        ((terms, apart, where), (0, 6.0)),  # off
    ]:
        assert restore(x, open_, route, single, learnt, cfg)[2].tolist() == [-1, -1]
    least, clear = single_config()
    assert least >= 2 and clear > 0.0  # one space is too little to tell; clearly trains


def test_single_spaces_are_those_of_no_double_route_unless_doubles_are_on() -> None:
    info = SimpleNamespace(
        space_route=np.array([0, 0, 1, 1, 2, 3, 3]),
        pair_index=(np.array([1]), np.array([3])),
    )
    want = [True, True, False, False, True, False, False]
    assert single_spaces(info, False).tolist() == want
    assert single_spaces(info, True).all()
    assert single_spaces(info).tolist() == (want if not with_doubles() else [True] * 7)


@pytest.mark.parametrize(
    ("seed", "width", "rid"),
    [(6017, 1300, "constantinople-sofia"), (6127, 1000, "brest-paris")],
)
def test_single_routes_of_own_colour_trains_unlike_their_trains_elsewhere_are_counted(
    ctx: ReadContext, renderer: BoardRenderer, seed: int, width: int, rid: str
) -> None:
    """Before the rule: 6017 at 1,300 px read constantinople-sofia's blue trains free (blue
    short by 5, with munchen-venezia), 6127 at 1,000 px brest-paris's black trains (black short
    by 3): the discriminant called them trains (log-odds 6 and more on every space), but both
    colours were learnt on stand-ins and the routes looked unlike their trains elsewhere.
    Now the route reads as its trains, and no free print of a player colour reads as trains."""
    scene = own_print_game(seed, renderer.geometry, 0.5)
    board = renderer.render_board(scene, 2400)
    reading = read_whole(jpeg(resize_width(board, width), 85), ctx)
    assert scene.routes.get(rid) == renderer.geometry.routes[rid].color
    assert reading.routes[rid] == scene.routes[rid]
    for r in ctx.geometry.route_ids:
        if renderer.geometry.routes[r].color in PLAYER_COLORS and scene.routes.get(r) is None:
            assert reading.routes[r] is None or r in reading.check, r
