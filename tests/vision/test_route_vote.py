"""How a route's spaces vote (companion.vision.decide.route_vote): on hand-made numbers, and on
own-print tuning games (trains mostly on their own colour's print) at 1,100 and 1,300 px where
a whole route of own-colour trains, every space leaning a little to free, read free (issue 25)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from companion.sim.perturb import jpeg, resize_width
from companion.sim.render import BoardRenderer, own_print_game
from companion.vision.decide.classify import log_softmax, route_log_prob_matrix
from companion.vision.decide.context import ReadContext
from companion.vision.decide.route_vote import route_sums, vote_config
from companion.vision.types import PLAYER_COLORS
from tests.vision_reading import assert_undisputed, between_free_and, read_whole

RED = PLAYER_COLORS.index("red")


def _info(sizes: list[int], own: list[int]) -> SimpleNamespace:
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    return SimpleNamespace(route_starts=starts, own_colour=np.array(own, dtype=np.int64))


def test_without_lean_or_trim_a_route_is_the_sum_of_its_spaces() -> None:
    rng = np.random.default_rng(3)
    lp = log_softmax(rng.normal(0.0, 3.0, (9, 6)))
    info = _info([3, 2, 4], [RED] * 3 + [-1] * 2 + [0] * 4)
    got = route_sums(lp, info, 0.0, 0)
    assert np.allclose(got, np.add.reduceat(lp, info.route_starts, axis=0))


def test_a_red_route_leaning_a_little_to_free_reads_red_and_free_red_print_stays_free() -> None:
    """Three red spaces each 0.2 to free: free without the lean, red with 0.25 per space. Red
    print 2 to free a space stays free; a space printed in no player colour gets no lean."""
    lp = np.concatenate(
        [
            between_free_and(RED, [-0.2] * 3),
            between_free_and(RED, [-2.0] * 3),
            between_free_and(RED, [-0.2] * 3),
        ]
    )
    info = _info([3, 3, 3], [RED] * 6 + [-1] * 3)
    before = route_sums(lp, info, 0.0, 0)
    after = route_sums(lp, info, 0.25, 0)
    assert np.argmax(before, axis=1).tolist() == [0, 0, 0]
    assert np.argmax(after, axis=1).tolist() == [1 + RED, 0, 0]
    assert np.allclose(after[:, 1 + RED] - before[:, 1 + RED], [0.75, 0.75, 0.0])
    assert np.allclose(np.delete(after, 1 + RED, axis=1), np.delete(before, 1 + RED, axis=1))


def test_trimming_leaves_out_each_hypothesis_worst_space_on_long_routes_only() -> None:
    """One print-like space (6 to free) against two leaning to red (1.5 each): free on the sum,
    red with the worst space of each hypothesis left out on routes of 3 or more; a route of 2
    is not trimmed."""
    lp = np.concatenate(
        [between_free_and(RED, [-6.0, 1.5, 1.5]), between_free_and(RED, [-6.0, 1.5])]
    )
    info = _info([3, 2], [-1] * 5)
    assert np.argmax(route_sums(lp, info, 0.0, 0), axis=1).tolist() == [0, 0]
    trimmed = route_sums(lp, info, 0.0, 3)
    assert np.argmax(trimmed, axis=1).tolist() == [1 + RED, 0]
    assert np.allclose(trimmed[1], route_sums(lp, info, 0.0, 0)[1])


def test_the_route_matrix_votes_as_the_data_file_says(ctx: ReadContext) -> None:
    rng = np.random.default_rng(5)
    lp = log_softmax(rng.normal(0.0, 2.0, (len(ctx.info.printed_colors), 6)))
    want = route_sums(lp, ctx.info, *vote_config()) / 2.0
    assert np.allclose(route_log_prob_matrix(lp, ctx.info, 2.0), want)
    assert vote_config()[0] > 0.0  # the lean is on (data/vision.json route_vote)


@pytest.mark.parametrize(("seed", "width"), [(6017, 1100), (6055, 1100), (6055, 1300)])
def test_own_colour_routes_leaning_a_little_to_free_are_counted(
    ctx: ReadContext, renderer: BoardRenderer, seed: int, width: int
) -> None:
    """Before the lean (``route_vote.own_print_lean``): 6017 at 1,100 px black short by 3
    (madrid-pamplona-1) and blue by 2; 6055 red short by 3 at 1,100 px (kyiv-smolensk) and 4
    at 1,300 px (marseille-pamplona). Every colour within 2, every wrong route listed, and no
    free print read as trains."""
    scene = own_print_game(seed, renderer.geometry, 0.5)
    board = renderer.render_board(scene, 2400)
    reading = read_whole(jpeg(resize_width(board, width), 85), ctx)
    assert_undisputed(reading, scene, ctx)
    for rid in ctx.geometry.route_ids:
        got = reading.routes[rid]
        assert scene.routes.get(rid) is not None or got is None, (rid, got)
