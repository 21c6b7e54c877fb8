"""Sampling only the part of a picture the board covers gives the very samples of the whole;
the faster ways of sampling (four-channel remap, maps projected in chunks) the very same values."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

from companion.vision.decide.context import ReadContext, sampling_maps
from companion.vision.features.sample import (
    BGRA_KEY,
    PART_KEY,
    REMAP_BGRA,
    SampleMaps,
    decimate,
    make_maps,
    maps_region,
    remap_points,
    sample_all,
    sample_decimated,
    shifted_grids,
)
from companion.vision.geometry.geometry import corners_homography, project


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
        r0, r1, c0, c1 = store[-k - PART_KEY].view(np.int64).tolist()
        assert (r1 - r0) * (c1 - c0) < 0.8 * (3000 // k) * (4000 // k)
        assert store[-k].shape[:2] == (3000 // k, 4000 // k)  # the part in its place


def test_a_stored_decimation_is_converted_to_bgra_once_and_samples_the_same(
    ctx: ReadContext,
) -> None:
    """The whole decimated picture in the store (locating made it) is sampled many times:
    where the remap runs on BGRA, it is converted once and kept, and every sampling gives the
    samples of the BGR picture itself."""
    image = _picture(1500, 2000, 8)
    store: dict[int, np.ndarray] = {}
    decimate(image, 2, store)  # as locating leaves it
    for nudge in (0.0, 5.0, -7.0):
        hom = corners_homography(
            np.array([[300, 200], [1700, 180], [1650, 1300], [320, 1280.0]]) + nudge
        )
        k, maps = sampling_maps(image, hom, ctx.grids)
        assert k == 2
        got = sample_decimated(image, k, maps, ctx.grids, store, h=hom)
        plain = _plain_remap(decimate(image, k), maps)
        assert np.array_equal(got.body, plain[len(got.wb) : len(got.wb) + len(got.body)])
        assert np.array_equal(got.wb, plain[: len(got.wb)])
    kept = store.get(k + BGRA_KEY)
    assert (kept is not None) == REMAP_BGRA
    if kept is not None:
        assert kept.shape == (750, 1000, 4)
        assert np.array_equal(kept[..., :3], store[2])


def _plain_remap(image: np.ndarray, maps: SampleMaps) -> np.ndarray:
    out = cv2.remap(image, maps.xy, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out).reshape(-1, 3)


@pytest.mark.parametrize("bgra", [True, False])
def test_remapping_as_bgra_gives_the_bgr_values(
    ctx: ReadContext, bgra: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever OpenCV this is, the four-channel remap (OpenCV 5's fast one) samples every
    point as the three-channel one does: inside, between and beyond the picture's edges."""
    import companion.vision.features.sample as sample

    monkeypatch.setattr(sample, "REMAP_BGRA", bgra)
    image = _picture(540, 960, 5)
    rng = np.random.default_rng(6)
    n = 64 * 3000
    xy = np.column_stack([rng.uniform(-20, 980, n), rng.uniform(-20, 560, n)])
    maps = SampleMaps(xy.astype(np.float32).reshape(-1, 64, 2), n)
    assert sample._remaps_bgra(image.shape, n) == bgra
    assert np.array_equal(remap_points(image, maps).reshape(-1, 3), _plain_remap(image, maps))
    four = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)  # a BGRA picture: its alpha is dropped
    assert np.array_equal(remap_points(four, maps).reshape(-1, 3), _plain_remap(image, maps))


@pytest.mark.parametrize("bgra", [True, False])
def test_a_frame_at_a_known_place_is_decimated_where_the_board_is(
    ctx: ReadContext, bgra: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 1080p frame read at a known place (no store): only the board's part is decimated,
    into its place, and the samples are those of the whole decimated frame, remapped plainly."""
    import companion.vision.features.sample as sample

    monkeypatch.setattr(sample, "REMAP_BGRA", bgra)
    parts: list[tuple[int, ...]] = []
    real = sample.decimate

    def spy(image: np.ndarray, k: int, store: Any = None, dst: Any = None) -> np.ndarray:
        parts.append(image.shape[:2])
        return real(image, k, store, dst)

    monkeypatch.setattr(sample, "decimate", spy)
    image = _picture(1080, 1920, 8)
    for corners in (
        [[298, 54], [1766, 78], [1758, 989], [265, 1009.0]],
        [[-400, 100], [1500, 80], [1520, 1070], [-380, 1075.0]],  # cut off at the left
    ):
        hom = corners_homography(np.array(corners))
        k, maps = sampling_maps(image, hom, ctx.grids)
        assert k == 2
        parts.clear()
        got = sample_decimated(image, k, maps, ctx.grids, h=hom)
        assert len(parts) == 1 and parts[0][0] * parts[0][1] < 0.8 * 1080 * 1920
        whole = _plain_remap(real(image, k), maps)
        n_wb, n_sp, n_ci = ctx.grids.counts
        assert np.array_equal(got.wb, whole[:n_wb])
        assert np.array_equal(got.body, whole[n_wb : n_wb + n_sp + n_ci])


def test_maps_projected_in_chunks_are_projected_at_once(
    ctx: ReadContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    import companion.vision.features.sample as sample

    hom = corners_homography(np.array([[300, 120], [1620, 100], [1650, 980], [270, 1000.0]]))
    pts = ctx.grids.points
    once = project(hom, pts).astype(np.float32)
    for chunk in (1000, 16_384, len(pts) + 1):
        monkeypatch.setattr(sample, "PROJECT_CHUNK", chunk)
        maps = make_maps(hom, ctx.grids)
        flat = maps.xy.reshape(-1, 2)
        assert maps.n_points == len(pts)
        assert np.array_equal(flat[: len(pts)], once)
        assert not flat[len(pts) :].any()  # the padding is zero
