"""Counts a player would not dispute (issue 25): on a whole board 1,000-1,300 px wide, scaled
down with area averaging and re-encoded as JPEG 85 (as a phone or a messenger gives it), every
player colour's train count within 2 of the truth. Rendered games (the seeds of
``bench_vision_check.py``'s "smaller pictures") are read at their true corners; the shared
photos are located (skipped when absent). And a colour covering most of its own print (late in
a game) does not become that print."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.sim.perturb import jpeg, resize_width
from companion.sim.render import BoardRenderer, own_print_game, random_scene
from companion.vision.decide.adapt import print_estimate
from companion.vision.decide.context import ReadContext
from companion.vision.geometry.geometry import load_geometry
from companion.vision.types import PLAYER_COLORS, BoardReading
from tests.vision_reading import PRINT_CFG, PRINT_SCALE, read_located, read_whole
from tools.read_tune import UNKNOWN, labelled_photos

WIDTHS = (1000, 1100, 1200, 1300)
LIMIT = 2  # trains a colour's count may be off by


def _smaller(image: np.ndarray, width: int) -> np.ndarray:
    return jpeg(resize_width(image, width), 85)


def _count_errors(reading: BoardReading, truth: dict[str, Any]) -> dict[str, int]:
    """Per player colour: trains read less trains there (routes of unknown truth left out)."""
    lengths = {rid: r.length for rid, r in load_geometry().routes.items()}
    out = dict.fromkeys(PLAYER_COLORS, 0)
    for rid, t in truth.items():
        if t == UNKNOWN:
            continue
        if t is not None:
            out[t] -= lengths[rid]
        got = reading.routes[rid]
        if got is not None:
            out[got] += lengths[rid]
    return out


@pytest.fixture(scope="module")
def games(
    ctx: ReadContext, renderer: BoardRenderer
) -> list[tuple[np.ndarray, dict[str, str | None]]]:
    out = []
    for seed in range(700, 703):
        scene = random_scene(np.random.default_rng(seed), renderer.geometry, claimed=0.6)
        truth = {r: scene.routes.get(r) for r in ctx.geometry.route_ids}
        out.append((renderer.render_board(scene, 2400), truth))
    return out


@pytest.mark.parametrize("seed", [6006, 6010, 6012, 6016, 6033, 6035, 6088])
def test_trains_on_their_own_print_are_counted_within_two_trains_and_the_rest_listed(
    ctx: ReadContext, renderer: BoardRenderer, seed: int
) -> None:
    """Without a table profile, on a board 1,100 px wide: black on black, blue on blue... The
    picture's own discriminant between a colour's trains and its print, learnt on a print
    group cleared of that colour's trains (and on the other colours' print where its own is
    all claimed), reads them (before: off by 3, 14 and 10 trains). Where a colour's print group
    is spoilt by its own trains, or most of its print is claimed, the other prints standing in
    clear it or replace it (own_print.learn; before: 6016, 6033, 6035 and 6088 off by 9, 10, 19
    and 20 black trains)."""
    scene = own_print_game(seed, renderer.geometry, 0.5)
    truth = {r: scene.routes.get(r) for r in ctx.geometry.route_ids}
    reading = read_whole(_smaller(renderer.render_board(scene, 2400), 1100), ctx)
    errors = _count_errors(reading, truth)
    assert max(abs(v) for v in errors.values()) <= LIMIT, errors
    wrong = [r for r, t in truth.items() if reading.routes[r] != t]
    assert set(wrong) <= set(reading.check), wrong


@pytest.mark.parametrize("width", WIDTHS)
def test_rendered_games_are_counted_within_two_trains(
    ctx: ReadContext, games: list[tuple[np.ndarray, dict[str, str | None]]], width: int
) -> None:
    for k, (board, truth) in enumerate(games):
        errors = _count_errors(read_whole(_smaller(board, width), ctx), truth)
        assert max(abs(v) for v in errors.values()) <= LIMIT, (700 + k, errors)


def _photo_count_errors(ctx: ReadContext, photos_dir: Path) -> list[tuple[str, int, int]]:
    """(photo, width, worst colour's count error) of every labelled shared photo, located."""
    out = []
    for photo in labelled_photos(photos_dir, ctx):
        if photo.space_labels is None:
            continue
        truth = {}
        for rid, sl in ctx.route_slices.items():
            labels = set(photo.space_labels[sl])
            truth[rid] = labels.pop() if len(labels) == 1 else UNKNOWN
        image = cv2.imread(str(photo.path))
        for width in WIDTHS:
            small = _smaller(image, width)
            _, reading = read_located(small, ctx)
            errors = _count_errors(reading, truth)
            out.append((photo.name, width, max(abs(v) for v in errors.values())))
    return out


@pytest.fixture(scope="module")
def photo_errors(ctx: ReadContext, photos_dir: Path) -> list[tuple[str, int, int]]:
    return _photo_count_errors(ctx, photos_dir)


@pytest.mark.photos
def test_the_shared_photos_are_counted_within_two_trains(
    photo_errors: list[tuple[str, int, int]],
) -> None:
    """The "trainning" photo's yellow trains on yellow-printed smolensk-wilno were read free
    (yellow 3 short): its relief (features/relief.py) tells them from the print now."""
    assert photo_errors and all(e <= LIMIT for _, _, e in photo_errors), photo_errors


def test_a_colour_covering_most_of_its_own_print_does_not_become_that_print() -> None:
    """Late in a game most red-printed routes may hold red trains: on the copy the reader was
    fitted on (no other colour's print seen moved) the cluster they make is trains, and the
    fitted print stays; on another copy (pink's print seen moved) it is taken as the print
    and the colour is unsettled (its claims listed)."""
    rng = np.random.default_rng(5)
    scale, cfg = PRINT_SCALE, PRINT_CFG
    prior = {"red": np.array([42.0, 41.0, 36.0, 6.0]), "pink": np.array([63.0, 23.0, -10.0, 7.0])}
    plastic = {"red": np.array([47.0, 53.0, 36.0, 5.0]), "blue": np.array([45.0, 0.0, -37.0, 7.0])}

    def cores(mean: list[float], n: int) -> np.ndarray:
        return np.asarray(mean) + rng.normal(0, 0.5, (n, 4))

    red = np.vstack([cores([47, 54, 36, 6], 16), cores([42, 41, 36, 6], 6)])
    index = np.r_[np.zeros(22, np.int64), np.ones(20, np.int64)]
    rows = np.vstack([red, cores([63, 23, -10, 7], 20)])
    est, unsettled = print_estimate(rows, index, ["red", "pink"], prior, plastic, scale, cfg)
    assert np.array_equal(est["red"], prior["red"]) and not unsettled
    rows = np.vstack([red, cores([60, 40, -20, 5], 20)])  # pink's print moved: another copy
    est, unsettled = print_estimate(rows, index, ["red", "pink"], prior, plastic, scale, cfg)
    assert est["red"][1] > 48 and unsettled == {"red"}
