"""No silent error on an unseen copy of the board: the print of the copy in front of the camera
is estimated from the picture itself (``adapt.print_estimate``), so printed colour is not read
as trains; what the picture cannot settle is on the check list. The copies are rendered
(``tools/print_copies.py``) and held out: nothing is fitted on them."""

from __future__ import annotations

import numpy as np
import pytest

from companion.sim.render import BoardRenderer, Scene, random_scene, random_view
from companion.vision.decide.adapt import print_estimate
from companion.vision.decide.context import ReadContext
from companion.vision.locate.fit import fit_sets, print_evened
from companion.vision.locate.locate import locate_board
from companion.vision.types import NoBoardError
from tests.vision_reading import PRINT_CFG as CFG
from tests.vision_reading import PRINT_SCALE as SCALE
from tests.vision_reading import read_whole
from tools.print_copies import COPIES, copy_config


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
    reading = read_whole(board, ctx)
    claims = [r for r, c in reading.routes.items() if c is not None]
    assert set(claims) <= set(reading.check), claims


def test_a_game_on_a_much_more_saturated_copy_has_no_silent_error(ctx: ReadContext) -> None:
    renderer = BoardRenderer(config=copy_config("much more saturated"))
    scene = random_scene(np.random.default_rng(800), renderer.geometry, claimed=0.5, stations=6)
    reading = read_whole(renderer.render_board(scene, 2000), ctx)
    wrong = [r for r, c in reading.routes.items() if c != scene.routes.get(r)]
    assert set(wrong) <= set(reading.check), [r for r in wrong if r not in reading.check]


def test_the_copies_move_only_the_inks() -> None:
    base = BoardRenderer().config
    cfg = copy_config("paler")
    assert cfg["board"] == base["board"] and cfg["players"] == base["players"]
    assert cfg["printed"]["blue"]["fill"] != base["printed"]["blue"]["fill"]


@pytest.mark.parametrize("copy", sorted(COPIES))
def test_every_copy_is_located_top_down_and_at_an_angle(ctx: ReadContext, copy: str) -> None:
    """A copy in other inks (the paler one was refused: its spaces too far from the fitted
    print) is found: the fitted print first, then the copy's own inks estimated."""
    renderer = BoardRenderer(config=copy_config(copy))
    top = renderer.render_board(Scene(seed=1), 1600)
    h, w = top.shape[:2]
    loc = locate_board(top, context=ctx)
    assert np.abs(loc.corners - [[0, 0], [w, 0], [w, h], [0, h]]).max() < 0.01 * w
    view = random_view(np.random.default_rng(100), (1920, 1080))
    frame = renderer.render_frame(Scene(seed=0), view, np.random.default_rng(0))
    loc = locate_board(frame.image, context=ctx)
    assert np.abs(loc.corners - frame.corners).max() < 6.0


def test_other_inks_are_tried_only_when_the_fitted_print_finds_no_board(ctx: ReadContext) -> None:
    paler = BoardRenderer(config=copy_config("paler")).render_board(Scene(seed=0), 1600)
    assert locate_board(paler, context=ctx).details.get("other_inks") == 1.0
    usual = BoardRenderer().render_board(Scene(seed=0), 1600)
    assert "other_inks" not in locate_board(usual, context=ctx).details
    # what the fitted print and another copy's inks both refuse stays refused
    rng = np.random.default_rng(3)
    with pytest.raises(NoBoardError):
        locate_board(rng.integers(0, 256, (700, 1000, 3), dtype=np.uint8), context=ctx)
    with pytest.raises(NoBoardError):
        locate_board(np.ascontiguousarray(paler[:, ::-1]), context=ctx)


def test_print_evened_finds_a_paler_copys_inks(ctx: ReadContext) -> None:
    fs = fit_sets(ctx)["all"]
    model = ctx.fit_model
    base = np.stack([model.printed[c] for c in fs.printed])
    rng = np.random.default_rng(4)
    feats = base + rng.normal(0, 1.0, base.shape)
    paler = feats.copy()
    paler[:, [0, 3, 4]] = 0.65 * paler[:, [0, 3, 4]] + 35.0
    paler[:, [1, 2, 6]] *= 0.7
    limits = ctx.cfg["locate"]["print_limits"]
    back, change = print_evened(paler, fs.printed, model, limits)
    assert abs(change[0] - 0.65) < 0.05 and abs(change[1] - 35.0) < 3.0
    assert abs(change[2] - 0.7) < 0.05 and change[5] < 3.0
    assert np.abs(back[:, 0] - feats[:, 0]).max() < 3.0
    # colours that no one copy's inks explain (a picture that is not the board) fit badly
    scrambled = paler[rng.permutation(len(paler))]
    assert print_evened(scrambled, fs.printed, model, limits)[1][5] > 3 * change[5]
