"""Sampling only the part of a picture the board covers gives the very samples of the whole."""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.decide.context import ReadContext, sampling_maps
from companion.vision.features.sample import (
    decimate,
    maps_region,
    sample_all,
    sample_decimated,
    shifted_grids,
)
from companion.vision.geometry.geometry import corners_homography


def _picture(h: int, w: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, (h, w, 3), dtype=np.uint8)


@pytest.mark.parametrize(
    ("corners", "size", "part"),
    [
        ([[700, 400], [3300, 520], [3150, 2500], [820, 2350]], (4000, 3000), True),  # 12 MP
        ([[200, 60], [1720, 40], [1750, 1040], [170, 1050]], (1920, 1080), True),  # live
        ([[-400, 100], [1500, 80], [1520, 1070], [-380, 1075]], (1920, 1080), True),  # cut off
        ([[2, 2], [1917, 3], [1915, 1077], [3, 1076]], (1921, 1083), True),  # odd size
        ([[-60, 40], [1900, -30], [1985, 1050], [10, 1110]], (1920, 1080), False),  # all of it
    ],
)
def test_a_region_samples_exactly_as_the_whole_picture(
    ctx: ReadContext, corners: list[list[float]], size: tuple[int, int], part: bool
) -> None:
    w, h = size
    image = _picture(h, w, w + int(corners[0][0]))
    hom = corners_homography(np.array(corners, dtype=np.float64))
    k, maps = sampling_maps(image, hom, ctx.grids)
    assert k > 1
    region = maps_region(maps, k, image.shape)
    assert (region is not None) == part  # taken only where it saves decimating
    if region is not None:
        assert region.y0 % k == 0 and region.x0 % k == 0
        assert (region.y1 - region.y0) * (region.x1 - region.x0) < 0.9 * h * w
    whole = sample_all(decimate(image, k), maps, ctx.grids)
    for got in (
        sample_decimated(image, k, maps, ctx.grids, region=region),  # as a ReadCache does
        sample_decimated(image, k, maps, ctx.grids),  # found here for a large picture
    ):
        assert np.array_equal(got.body, whole.body)
        assert np.array_equal(got.wb, whole.wb)


def test_a_stored_decimation_is_used_as_it_is(ctx: ReadContext) -> None:
    image = _picture(1080, 1920, 3)
    hom = corners_homography(np.array([[300, 120], [1620, 100], [1650, 980], [270, 1000.0]]))
    k, maps = sampling_maps(image, hom, ctx.grids)
    store: dict[int, np.ndarray] = {}
    small = decimate(image, k, store)
    got = sample_decimated(image, k, maps, ctx.grids, store)
    assert np.array_equal(got.body, sample_all(small, maps, ctx.grids).body)


def test_a_large_picture_is_decimated_where_the_board_is_and_kept(ctx: ReadContext) -> None:
    """A 12 MP picture, the board on part of it: decimated there only, kept in the store for
    the next samplings of the same board (moved a little, with local shifts), and each gives
    the samples of the whole decimated picture."""
    image = _picture(3000, 4000, 12)
    corners = np.array([[900, 700], [3100, 640], [3000, 2300], [1000, 2360.0]])
    store: dict[int, np.ndarray] = {}
    shifts = np.random.default_rng(4).normal(0, 0.002, (ctx.grids.spaces.shape[0], 2))
    cities = np.zeros((ctx.grids.cities.shape[0], 2))
    grids = [ctx.grids, ctx.grids, shifted_grids(ctx.grids, shifts, cities)]
    for nudge, g in zip((0.0, 12.0, -9.0), grids, strict=True):
        hom = corners_homography(corners + nudge)
        k, maps = sampling_maps(image, hom, g)
        assert k > 1
        got = sample_decimated(image, k, maps, g, store, h=hom)
        whole = sample_all(decimate(image, k), maps, g)
        assert np.array_equal(got.body, whole.body)
        assert np.array_equal(got.wb, whole.wb)
        assert k not in store  # the whole picture was never decimated
        part = store[-k]
        assert part.shape[0] * part.shape[1] < 0.8 * (3000 // k) * (4000 // k)
