"""The real reader (companion.vision.locate.locate / read, unchanged) on the procedural board.

The renderer's job is to look to the reader as a real board does: these tests locate the
rendered board with ``locate_board`` (no known corners) and read rendered games with
``read_board``, at sizes a camera gives.
"""

from __future__ import annotations

import numpy as np
import pytest

from companion.sim.render import BoardRenderer, Scene, View, random_scene, random_view
from companion.vision.locate.locate import BoardLocation, locate_board
from companion.vision.reading.read import read_board


def _scene(renderer: BoardRenderer, seed: int) -> Scene:
    return random_scene(np.random.default_rng(seed), renderer.geometry, claimed=0.45, stations=12)


def test_locate_finds_the_cropped_rendered_board(renderer: BoardRenderer) -> None:
    scene = _scene(renderer, 3)
    board = renderer.render_frame(scene, View.top_down(1500, noise=3.0, blur=0.6)).image
    loc = locate_board(board)
    h, w = board.shape[:2]
    truth = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)
    assert np.abs(loc.corners - truth).max() < 4.0
    assert loc.quality > 0.8


@pytest.mark.parametrize("seed", [12, 20])
def test_locate_finds_the_board_in_an_overhead_frame(renderer: BoardRenderer, seed: int) -> None:
    rng = np.random.default_rng(seed)
    scene = _scene(renderer, seed)
    view = random_view(rng, (1920, 1080))
    frame = renderer.render_frame(scene, view, rng)
    loc = locate_board(frame.image)
    assert np.abs(loc.corners - frame.corners).max() < 5.0


def test_read_board_reads_rendered_games(renderer: BoardRenderer) -> None:
    """Random claims and stations in 1080p overhead frames: >= 99 % of the routes and of the
    cities right over three games, the first located by the reader itself."""
    routes_ok = routes = cities_ok = cities = 0
    for k, seed in enumerate((21, 22, 24)):
        rng = np.random.default_rng(seed)
        scene = _scene(renderer, seed)
        view = random_view(rng, (1920, 1080))
        frame = renderer.render_frame(scene, view, rng)
        location = None if k == 0 else BoardLocation.from_corners(frame.corners, view.size)
        reading = read_board(frame.image, location=location)
        for rid in renderer.geometry.drawable_routes():
            routes += 1
            routes_ok += reading.routes.get(rid) == scene.routes.get(rid)
        for cid in renderer.geometry.cities:
            cities += 1
            cities_ok += reading.stations.get(cid) == scene.stations.get(cid)
    assert routes_ok >= 0.99 * routes, (routes_ok, routes)
    assert cities_ok >= 0.99 * cities, (cities_ok, cities)
