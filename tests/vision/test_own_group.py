"""A colour's print group that is mostly its own trains, cleared by the other inks' print
(companion.vision.decide.own_group): on hand-made numbers, and on an own-print tuning game whose
black player holds four of the six black single routes and one route elsewhere (issue 25)."""

from __future__ import annotations

import numpy as np
import pytest

from companion.sim.perturb import jpeg, resize_width
from companion.sim.render import BoardRenderer, own_print_game
from companion.vision.decide.context import ReadContext
from companion.vision.decide.own_group import (
    clear_group,
    group_config,
    paper_like,
    stand_in_distance,
)
from companion.vision.decide.own_print import Groups
from companion.vision.types import PLAYER_COLORS
from tests.vision_reading import assert_undisputed, read_whole

BLACK = PLAYER_COLORS.index("black")
RED = PLAYER_COLORS.index("red")
CFG = {
    "far": 4.0,
    "closer": 1.5,
    "var_floor": 0.05,
    "paper": 2.0,
    "paper_spaces": 2,
    "min_trains": 3,
}


def _groups(black_print: list[list[float]], black_trains: int = 3) -> tuple[np.ndarray, Groups]:
    """Two features. Red's free print (8 spaces, 4 routes of 2) around (0, 0) with spread 1,
    black's trains elsewhere (one route) at (6, 6), then ``black_print``: black's print group,
    a route of 2 spaces per row (its two features)."""
    rng = np.random.default_rng(3)
    red = rng.normal(0.0, 1.0, (8, 2))
    trains = np.full((black_trains, 2), 6.0) + rng.normal(0.0, 0.3, (black_trains, 2))
    own = np.repeat(np.array(black_print, dtype=np.float64), 2, axis=0)
    x = np.concatenate([red, trains, own])
    n_red, n_t, n_own = len(red), len(trains), len(own)
    colour = np.concatenate([np.full(n_red, RED), np.full(n_t, -1), np.full(n_own, BLACK)])
    t = np.concatenate([np.full(n_red, -1), np.full(n_t, BLACK), np.full(n_own, -1)])
    route = np.concatenate([np.arange(n_red) // 2, [4] * n_t, 5 + np.arange(n_own) // 2])
    g = Groups(
        trains=t.astype(np.int64),
        prints=colour.astype(np.int64),
        open_=colour.astype(np.int64),
        free=colour >= 0,
        route=route.astype(np.int64),
        centre=np.zeros((len(x), 2)),
        own_centre=np.zeros((len(PLAYER_COLORS), 2)),
    )
    return x, g


def test_routes_unlike_the_stand_ins_and_like_the_trains_move_to_the_trains() -> None:
    """Black's group: two routes of paper (near red's print), two like black's trains, one
    unlike both (a city disc at its end). The two like its trains become its trains; the
    others stay its print; red's print is not touched."""
    x, g = _groups([[0.2, -0.3], [-0.5, 0.4], [6.2, 5.8], [5.5, 6.4], [-4.0, 4.0]])
    got = clear_group(x, g, 3, CFG)
    own = np.flatnonzero(g.prints == BLACK)
    assert got.prints[own].tolist() == [BLACK] * 4 + [-1] * 4 + [BLACK] * 2
    assert got.trains[own].tolist() == [-1] * 4 + [BLACK] * 4 + [-1] * 2
    assert (got.prints[g.prints == RED] == RED).all()
    assert (g.prints[own] == BLACK).all()  # the caller's groups are not changed
    far, near = stand_in_distance(x, g, BLACK, 0.05, 3) or (None, None)
    assert far is not None and near is not None
    assert far[0] < 1.0 < CFG["far"] < far[4] and near[4] * CFG["closer"] < far[4]
    assert far[8] > CFG["far"] and near[8] * CFG["closer"] > far[8]  # the disc


def test_a_group_of_print_too_few_trains_or_stand_ins_or_off_changes_nothing() -> None:
    x, g = _groups([[0.2, -0.3], [-0.5, 0.4], [0.9, 0.1]])
    assert clear_group(x, g, 3, CFG) is g  # print alone
    x, g = _groups([[0.2, -0.3], [4.0, 4.0], [-9.0, 9.0]])
    assert clear_group(x, g, 3, CFG) is g  # a route like the trains, but print farther off
    x, g = _groups([[0.2, -0.3], [6.2, 5.8]], black_trains=2)
    assert clear_group(x, g, 3, CFG) is g  # its trains elsewhere on 2 spaces: not measured
    assert clear_group(x, g, 3, {**CFG, "min_trains": 2}) is not g  # ... unless 2 will do
    assert clear_group(x, g, 9, CFG) is g  # 8 stand-ins
    x, g = _groups([[0.2, -0.3], [6.2, 5.8]])
    assert clear_group(x, g, 3, {**CFG, "far": 0.0}) is g  # off
    assert clear_group(x, g, 3, CFG) is not g
    cfg = group_config()
    assert cfg["far"] > 0.0 and cfg["closer"] > 1.0  # on, and nearer its trains than paper


@pytest.mark.parametrize(
    ("seed", "width", "on_own"), [(16032, 1000, 4), (16032, 1300, 4), (16309, 1000, 7)]
)
def test_black_trains_on_most_of_black_print_are_read_or_listed(
    ctx: ReadContext, renderer: BoardRenderer, seed: int, width: int, on_own: int
) -> None:
    """Before the rules, game 16032 read angora-erzurum, danzig-riga, edinburgh-london-1 and
    roma-venezia (black's 12 trains on black print; 3 spaces of black elsewhere) free at
    calibrated 0.97-0.99, none listed, at every width (black short by 12); 16309 at 1,000 px
    (black's trains on 7 routes of black print and a free lane read black: over 45 trains,
    black left out) roma-venezia free at 0.97, silently (black short by 6). Now every wrong
    route is listed and every colour's count within 2, and no free route of a player colour's
    print reads as trains unlisted."""
    scene = own_print_game(seed, renderer.geometry, 0.5)
    geometry = renderer.geometry
    black = [r for r, c in scene.routes.items() if c == "black"]
    assert len([r for r in black if geometry.routes[r].color == "black"]) == on_own
    reading = read_whole(jpeg(resize_width(renderer.render_board(scene, 2400), width), 85), ctx)
    assert_undisputed(reading, scene, ctx)
    for r in ctx.geometry.route_ids:
        if geometry.routes[r].color in PLAYER_COLORS and scene.routes.get(r) is None:
            assert reading.routes[r] is None or r in reading.check, r


def test_routes_like_paper_the_discriminant_calls_trains_are_marked() -> None:
    """Black's open group: a route of paper, one like its trains, one midway, all called
    trains by black's discriminant (learnt on the stand-ins). Only the paper one is marked
    (nearer the stand-ins by ``paper`` times); none where the discriminant calls them print,
    for a colour not asked or not learnt, or with ``paper`` off."""
    x, g = _groups([[0.2, -0.3], [6.2, 5.8], [3.0, 3.0]])
    cfg = {**CFG, "paper": 2.0}
    terms = np.full((len(PLAYER_COLORS), 4), np.nan)
    terms[BLACK] = [0.5, 10.0, 0.0, 0.0]  # every space trains
    got = paper_like(x, g, terms, np.array([BLACK]), 3, cfg)
    own = np.flatnonzero(g.open_ == BLACK)
    assert got[own].tolist() == [True, True, False, False, False, False]
    assert not got[g.open_ != BLACK].any()
    assert not paper_like(x, g, terms, np.array([RED]), 3, cfg)[own].any()
    assert not paper_like(x, g, terms, np.array([BLACK]), 3, {**cfg, "paper": 0.0}).any()
    assert not paper_like(x, g, terms, np.array([BLACK]), 3, {**cfg, "paper_spaces": 3}).any()
    terms[BLACK, 1] = -10.0  # every space print
    assert not paper_like(x, g, terms, np.array([BLACK]), 3, cfg).any()
    assert group_config()["paper"] > 1.0
