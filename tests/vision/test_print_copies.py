"""No silent error on an unseen copy of the board: the print of the copy in front of the camera
is estimated from the picture itself (``adapt.print_estimate``), so printed colour is not read
as trains; what the picture cannot settle is on the check list. The copies are rendered
(``tools/print_copies.py``) and held out: nothing is fitted on them."""

from __future__ import annotations

import numpy as np
import pytest

from companion.sim.render import BoardRenderer, Scene, random_scene
from companion.vision.decide.adapt import print_estimate
from companion.vision.decide.context import ReadContext, take_samples
from companion.vision.locate.locate import BoardLocation
from companion.vision.reading.read import read_samples
from companion.vision.types import BoardReading
from tools.print_copies import COPIES, copy_config

CFG = {
    "radius": 9.0,
    "copy_radius": 16.0,
    "min_share": 0.3,
    "min_spaces": 4.0,
    "high_share": 0.6,
    "prior_weight": 8.0,
}
SCALE = np.array([6.0, 4.0, 5.0, 3.0])


def _read(image: np.ndarray, ctx: ReadContext) -> BoardReading:
    h, w = image.shape[:2]
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    loc = BoardLocation.from_corners(corners, (w, h))
    reading, _ = read_samples(take_samples(image, loc.homography, ctx), ctx)
    return reading


def _cores(rng: np.random.Generator, mean: list[float], n: int) -> np.ndarray:
    return np.asarray(mean) + rng.normal(0, 0.5, (n, 4))


def test_a_shifted_print_is_found_and_trains_are_not_taken_for_it() -> None:
    rng = np.random.default_rng(1)
    prior = {"blue": np.array([49.0, 3.0, -46.0, 8.0])}
    plastic = {"blue": np.array([45.0, 0.0, -37.0, 7.0]), "red": np.array([47.0, 51.0, 39.0, 4.0])}
    # a more saturated copy: 18 free spaces far from the fitted print, 5 red trains on it
    rows = np.vstack([_cores(rng, [51, 14, -62, 5], 18), _cores(rng, [47, 51, 39, 4], 5)])
    est, unsettled = print_estimate(
        rows, np.zeros(23, np.int64), ["blue"], prior, plastic, SCALE, CFG
    )
    assert est["blue"][2] < -55 and not unsettled
    # most of them red trains, too few free spaces to show any print, on a copy whose pink
    # print is seen moved: blue is unsettled (its prior kept)
    prior["pink"] = np.array([63.0, 23.0, -10.0, 7.0])
    rows = np.vstack(
        [
            _cores(rng, [51, 14, -62, 5], 3),
            _cores(rng, [47, 51, 39, 4], 20),
            _cores(rng, [60, 40, -20, 5], 20),
        ]
    )
    index = np.r_[np.zeros(23, np.int64), np.ones(20, np.int64)]
    est, unsettled = print_estimate(rows, index, ["blue", "pink"], prior, plastic, SCALE, CFG)
    assert unsettled == {"blue"} and np.array_equal(est["blue"], prior["blue"])
    assert est["pink"][1] > 35
    # the same picture with pink as fitted: nothing says this is another copy
    prior["pink"] = np.array([60.0, 40.0, -20.0, 5.0])
    _, unsettled = print_estimate(rows, index, ["blue", "pink"], prior, plastic, SCALE, CFG)
    assert not unsettled


def test_a_few_free_spaces_of_the_known_print_settle_it() -> None:
    rng = np.random.default_rng(2)
    prior = {"red": np.array([42.0, 41.0, 36.0, 6.0])}
    plastic = {"red": np.array([47.0, 51.0, 39.0, 4.0]), "blue": np.array([45.0, 0.0, -37.0, 7.0])}
    rows = np.vstack([_cores(rng, [42, 41, 36, 6], 5), _cores(rng, [45, 0, -37, 7], 17)])
    _, unsettled = print_estimate(rows, np.zeros(22, np.int64), ["red"], prior, plastic, SCALE, CFG)
    assert not unsettled


@pytest.mark.parametrize("copy", sorted(COPIES))
def test_an_empty_board_of_another_copy_reads_empty_or_lists_its_claims(
    ctx: ReadContext, copy: str
) -> None:
    board = BoardRenderer(config=copy_config(copy)).render_board(Scene(seed=0), 1600)
    reading = _read(board, ctx)
    claims = [r for r, c in reading.routes.items() if c is not None]
    assert set(claims) <= set(reading.check), claims


def test_a_game_on_a_much_more_saturated_copy_has_no_silent_error(ctx: ReadContext) -> None:
    renderer = BoardRenderer(config=copy_config("much more saturated"))
    scene = random_scene(np.random.default_rng(800), renderer.geometry, claimed=0.5, stations=6)
    reading = _read(renderer.render_board(scene, 2000), ctx)
    wrong = [r for r, c in reading.routes.items() if c != scene.routes.get(r)]
    assert set(wrong) <= set(reading.check), [r for r in wrong if r not in reading.check]


def test_the_copies_move_only_the_inks() -> None:
    base = BoardRenderer().config
    cfg = copy_config("paler")
    assert cfg["board"] == base["board"] and cfg["players"] == base["players"]
    assert cfg["printed"]["blue"]["fill"] != base["printed"]["blue"]["fill"]
