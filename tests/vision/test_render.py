"""The procedural board renderer: seeded, drawn where the geometry says, hands and views."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from companion.sim.render import (
    BoardRenderer,
    Hand,
    Scene,
    Shadow,
    View,
    load_render_config,
    own_print_game,
    random_scene,
    random_view,
    within_the_rules,
)
from companion.vision.geometry.board import load_geometry
from companion.vision.types import PLAYER_COLORS


def _px(img: np.ndarray, x: float, y: float) -> np.ndarray:
    h, w = img.shape[:2]
    return img[round(y * h), round(x * w)].astype(int)


def test_same_seed_same_picture_and_other_seed_another(renderer: BoardRenderer) -> None:
    geo = renderer.geometry
    scene = random_scene(np.random.default_rng(4), geo, claimed=0.3, stations=5, hands=2)
    view = random_view(np.random.default_rng(9), (640, 360))
    a = renderer.render_frame(scene, view, np.random.default_rng(1)).image
    b = BoardRenderer().render_frame(scene, view, np.random.default_rng(1)).image
    assert a.shape == (360, 640, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b)
    other = random_scene(np.random.default_rng(5), geo, claimed=0.3, stations=5, hands=2)
    c = renderer.render_frame(other, view, np.random.default_rng(1)).image
    assert np.abs(a.astype(int) - c.astype(int)).mean() > 1.0


def test_printed_spaces_drawn_where_the_geometry_says(renderer: BoardRenderer) -> None:
    board = renderer.render_board(Scene(), 1500)
    printed = load_render_config()["printed"]
    checked = 0
    for info in renderer.geometry.routes.values():
        for i, s in enumerate(info.spaces):
            if i < info.locomotives:  # a ferry's locomotive mark: dark in the middle
                assert _px(board, s.x, s.y).max() < 90, (info.id, _px(board, s.x, s.y))
                continue
            if info.color == "grey":  # a printed wagon in the middle
                continue
            # the fill, a quarter of the way from the centre to an end (the symbol is in the
            # middle), medians of a 7 x 7 neighbourhood (the print is grained)
            a = math.radians(s.angle)
            x = s.x + 0.25 * s.w * math.cos(a)
            y = s.y + 0.25 * s.w * math.sin(a) * renderer.geometry.aspect
            h, w = board.shape[:2]
            r, c = round(y * h), round(x * w)
            got = np.median(board[r - 3 : r + 4, c - 3 : c + 4].reshape(-1, 3), axis=0)
            want = np.array(printed[info.color]["fill"])
            assert np.abs(got - want).max() < 40, (info.id, got, want)
            checked += 1
    assert checked >= 150
    # and between cities, away from every space, the background shows (not a route colour)
    paper = load_render_config()["board"]["paper"]
    land, sea = np.array(paper["land"]), np.array(paper["sea"])
    corner = _px(board, 0.08, 0.5)
    assert min(np.abs(corner - land).max(), np.abs(corner - sea).max()) < 40


def test_trains_and_stations_in_player_colours(renderer: BoardRenderer) -> None:
    geo = renderer.geometry
    players = load_render_config()["players"]
    route = "berlin-wien" if "berlin-wien" in geo.routes else geo.drawable_routes()[0]
    scene = Scene(routes={route: "blue"}, stations={"wien": "yellow"}, seed=3)
    board = renderer.render_board(scene, 1500)
    empty = renderer.render_board(Scene(), 1500)
    hits = 0

    def around(img: np.ndarray, x: float, y: float) -> np.ndarray:
        """Median colour of the 7 x 7 pixels around (x, y): a train's top face is moulded."""
        r, c = round(y * img.shape[0]), round(x * img.shape[1])
        return np.median(img[r - 3 : r + 4, c - 3 : c + 4].reshape(-1, 3), axis=0)

    for s in geo.routes[route].spaces:
        got = around(board, s.x, s.y)
        if np.abs(got - np.array(players["blue"])).max() < 50:
            hits += 1
        assert np.abs(got - around(empty, s.x, s.y)).max() > 20
    assert hits >= len(geo.routes[route].spaces) - 1
    c = geo.cities["wien"]
    patch = board[
        round((c.y - 0.02) * 1000) : round((c.y + 0.02) * 1000),
        round((c.x - 0.015) * 1500) : round((c.x + 0.015) * 1500),
    ].reshape(-1, 3)
    near_yellow = np.abs(patch.astype(int) - np.array(players["yellow"])).max(axis=1) < 40
    assert near_yellow.mean() > 0.15


def test_frame_puts_the_board_at_the_view_corners(renderer: BoardRenderer) -> None:
    scene = Scene(routes={"berlin-wien": "red"}, seed=1)
    view = random_view(np.random.default_rng(2), (960, 540))
    frame = renderer.render_frame(scene, view, np.random.default_rng(0))
    assert np.allclose(frame.corners, np.array(view.corners, np.float32))
    dst = np.array([[0, 0], [900, 0], [900, 600], [0, 600]], np.float32)
    M = cv2.getPerspectiveTransform(frame.corners.astype(np.float32), dst)

    # compared smoothed: the print and plastic grain resample differently, the layout does not
    def smooth(img: np.ndarray) -> np.ndarray:
        return cv2.GaussianBlur(img, (0, 0), 2.0).astype(int)

    back = smooth(cv2.warpPerspective(frame.image, M, (900, 600)))
    flat = smooth(renderer.render_board(scene, 900))
    diff = np.abs(back - flat).mean()
    assert diff < 25  # lighting, noise and blur differ; the layout does not
    shifted = cv2.warpPerspective(
        frame.image, M @ np.array([[1, 0, 40], [0, 1, 0], [0, 0, 1]]), (900, 600)
    )
    assert np.abs(smooth(shifted) - flat).mean() > diff + 5


def test_hands_occlude_and_report_what_they_cover(renderer: BoardRenderer) -> None:
    geo = renderer.geometry
    s = geo.routes["berlin-wien"].spaces[1]
    view = View.top_down(900)
    out_of_view = Scene(hands=(Hand(target=(s.x, s.y), edge="bottom", reach=0.0),))
    clear = renderer.render_frame(out_of_view, view)
    assert clear.occlusion == 0.0 and not clear.covered
    over = Scene(hands=(Hand(target=(s.x, s.y), edge="bottom", reach=1.0, sleeve=2),))
    hand = renderer.render_frame(over, view)
    assert hand.occlusion > 0.02
    assert "berlin-wien" in hand.covered
    assert np.abs(hand.image.astype(int) - clear.image.astype(int)).max(axis=2).mean() > 2
    shadow = renderer.render_frame(Scene(shadows=(Shadow(center=(0.5, 0.5)),)), view)
    assert shadow.occlusion > 0.01
    assert shadow.image.mean() < clear.image.mean()
    with pytest.raises(ValueError, match="edge"):
        renderer.render_frame(Scene(hands=(Hand(target=(0.5, 0.5), edge="middle"),)), view)


def test_unknown_colour_is_refused(renderer: BoardRenderer) -> None:
    with pytest.raises(ValueError, match="colour"):
        renderer.render_board(Scene(routes={"berlin-wien": "purple"}), 600)


def test_geometry_without_a_route_still_renders() -> None:
    geo = load_geometry()
    missing = dict(geo.routes)
    first = next(iter(missing))
    info = missing[first]
    missing[first] = type(info)(**{**info.__dict__, "spaces": ()})
    geo2 = type(geo)(aspect=geo.aspect, routes=missing, cities=geo.cities)
    r = BoardRenderer(geo2)
    assert first not in geo2.drawable_routes()
    img = r.render_board(Scene(routes={first: "red"}), 600)
    assert img.shape == (400, 600, 3)


@pytest.mark.parametrize("seed", [730, 250, 6006])
def test_games_within_the_rules_keep_a_players_trains_and_stations(
    renderer: BoardRenderer, seed: int
) -> None:
    gb = renderer.geometry
    wild = random_scene(np.random.default_rng(seed), gb, claimed=0.9, stations=30)
    for scene in (within_the_rules(wild, gb, seed), own_print_game(seed, gb, 0.9)):
        trains = {c: 0 for c in PLAYER_COLORS}
        for r, c in scene.routes.items():
            trains[c] += gb.routes[r].length
        assert max(trains.values()) <= 45, trains
        assert max(list(scene.stations.values()).count(c) for c in PLAYER_COLORS) <= 3
    kept = within_the_rules(wild, gb, seed)
    # only what the rules forbid is dropped: every colour that was over is now nearly full
    assert (
        kept.routes.items() <= wild.routes.items()
        and kept.stations.items() <= wild.stations.items()
    )

    def trains_of(scene: Scene, colour: str) -> int:
        return sum(gb.routes[r].length for r, c in scene.routes.items() if c == colour)

    over = [c for c in PLAYER_COLORS if trains_of(wild, c) > 45]
    assert over and len(kept.routes) < len(wild.routes)
    assert all(trains_of(kept, c) >= 45 - 8 for c in over)  # the longest route is 8
    assert all(trains_of(kept, c) == trains_of(wild, c) for c in PLAYER_COLORS if c not in over)
    assert within_the_rules(wild, gb, seed) == kept  # seeded
