"""The check list on seeded renders without a table profile (the cases of
``benchmarks/bench_vision_check.py``, the same seeds): what is read wrong is on the list, and the
list stays short."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from companion.sim.perturb import channel_gains, light_gradient, resize_width
from companion.sim.render import BoardRenderer, Scene, random_scene, random_view
from companion.vision.decide.context import ReadContext, take_samples
from companion.vision.locate.locate import BoardLocation
from companion.vision.reading.read import read_samples
from companion.vision.types import PLAYER_COLORS, BoardReading


def _read(image: np.ndarray, corners: Any, ctx: ReadContext) -> BoardReading:
    loc = BoardLocation.from_corners(corners, (image.shape[1], image.shape[0]))
    reading, _ = read_samples(take_samples(image, loc.homography, ctx), ctx)
    return reading


def _top(image: np.ndarray) -> np.ndarray:
    h, w = image.shape[:2]
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)


def _wrong(reading: BoardReading, scene: Scene) -> list[str]:
    routes = [r for r, c in reading.routes.items() if c != scene.routes.get(r)]
    return routes + [c for c, s in reading.stations.items() if s != scene.stations.get(c)]


def _frame(renderer: BoardRenderer, scene: Scene, seed: int) -> tuple[np.ndarray, Any]:
    """The game at 1080p from the benchmark's camera for ``seed``, the light a little warmer."""
    view = random_view(np.random.default_rng(300 + seed), (1920, 1080))
    fr = renderer.render_frame(scene, view, np.random.default_rng(3))
    return channel_gains(fr.image, (0.9, 0.98, 1.08)), fr.corners


@pytest.mark.parametrize("seed", range(4))
def test_one_colour_on_both_lanes_is_listed(
    ctx: ReadContext, renderer: BoardRenderer, seed: int
) -> None:
    gb = renderer.geometry
    rng = np.random.default_rng(400 + seed)
    routes: dict[str, str] = {}
    for r in gb.drawable_routes():
        twin = gb.routes[r].twin
        if twin and r < str(twin) and rng.random() < 0.4:
            routes[r] = routes[str(twin)] = PLAYER_COLORS[int(rng.integers(0, 5))]
    scene = Scene(routes=routes, seed=seed)
    reading = _read(*_frame(renderer, scene, seed), ctx)
    wrong = _wrong(reading, scene)
    assert set(wrong) <= set(reading.check), [x for x in wrong if x not in reading.check]
    # both lanes of every such double (all impossible) and at most 8 more
    assert len(reading.check) <= len(routes) + 8, reading.check


@pytest.mark.parametrize("seed", range(4))
def test_trains_on_their_own_print_are_read_or_listed(
    ctx: ReadContext, renderer: BoardRenderer, seed: int
) -> None:
    """Blue, red, green and yellow trains on routes printed in their own colour (half of
    those routes), with a random game around them (red on red since the renderer's plastic
    colours were set from the photos' plastic). Black is left out: black trains on black print
    can pass for the print (the benchmark's one silent error on this set: seed 1,
    danzig-riga, its likeliest space's black trains 3.0 below the print, the limit 3)."""
    gb = renderer.geometry
    rng = np.random.default_rng(200 + seed)
    sc = random_scene(rng, gb, claimed=0.3, stations=5)
    routes = dict(sc.routes)
    for r in gb.drawable_routes():
        c = gb.routes[r].color
        free_twin = routes.get(str(gb.routes[r].twin)) != c
        if c in PLAYER_COLORS and c != "black" and rng.random() < 0.5 and free_twin:
            routes[r] = c
    scene = Scene(routes=routes, stations=sc.stations, seed=sc.seed)
    reading = _read(*_frame(renderer, scene, seed), ctx)
    wrong = _wrong(reading, scene)
    assert set(wrong) <= set(reading.check), [x for x in wrong if x not in reading.check]
    assert len(wrong) <= 10, wrong
    assert len(reading.check) <= 18, reading.check


@pytest.mark.parametrize("seed", range(4))
def test_a_whole_board_1100_px_wide_is_read_or_listed(
    ctx: ReadContext, renderer: BoardRenderer, seed: int
) -> None:
    """A random game seen from above, the whole board 1,100 px wide: blue and black trains
    are told apart (at most one mistaken for the other), and every mistake is listed."""
    gb = renderer.geometry
    scene = random_scene(np.random.default_rng(600 + seed), gb, claimed=0.6, stations=8)
    board = resize_width(renderer.render_board(scene, 2400), 1100)
    reading = _read(board, _top(board), ctx)
    wrong = _wrong(reading, scene)
    assert set(wrong) <= set(reading.check), [x for x in wrong if x not in reading.check]
    blue_black = [
        r for r in wrong if {reading.routes.get(r), scene.routes.get(r)} == {"blue", "black"}
    ]
    assert len(blue_black) <= 1, blue_black
    assert len(reading.check) <= 14, reading.check


def test_a_lamp_to_one_side_is_read_or_listed(ctx: ReadContext, renderer: BoardRenderer) -> None:
    """A random game (seed 12, the one a red route under a lamp was once missed silently on)
    lit by a lamp to one side."""
    scene = random_scene(np.random.default_rng(12), renderer.geometry)
    board = light_gradient(renderer.render_board(scene, 2000), 0.45)
    reading = _read(board, _top(board), ctx)
    wrong = _wrong(reading, scene)
    assert set(wrong) <= set(reading.check), [x for x in wrong if x not in reading.check]
    assert len(reading.check) <= 10, reading.check


@pytest.mark.parametrize("seed", [100, 102, 118, 119])
def test_a_missed_station_on_a_rendered_game_is_listed(
    ctx: ReadContext, renderer: BoardRenderer, seed: int
) -> None:
    """Random games in 1080p frames as ``bench_vision_live.py``'s static reads draw them (these
    seeds each miss one red or yellow station, read with confidence 0.73-0.76): every wrong
    reading is on the list."""
    rng = np.random.default_rng(seed)
    scene = random_scene(rng, renderer.geometry, claimed=0.45, stations=12)
    view = random_view(rng, (1920, 1080))
    frame = renderer.render_frame(scene, view, rng)
    reading = _read(frame.image, frame.corners, ctx)
    wrong = _wrong(reading, scene)
    assert set(wrong) <= set(reading.check), [x for x in wrong if x not in reading.check]
    assert len(reading.check) <= 12, reading.check
