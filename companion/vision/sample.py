"""Sample the pixels of every train space and city spot through a board homography.

All spaces are sampled in one ``cv2.remap`` call: each space becomes a small patch of
``ny`` x ``nx`` pixels laid along its track (x along the track, y across it).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.geometry import BoardGeometry, FloatArray, city_grid, project, space_grid

U8Array = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class SampleGrids:
    """Board-point grids for one geometry and patch size (reusable across frames)."""

    spaces: FloatArray  # (n_spaces, ny, nx, 2)
    cities: FloatArray  # (n_cities, nc, nc, 2)


def make_grids(
    geometry: BoardGeometry,
    nx: int,
    ny: int,
    scale_len: float,
    scale_wid: float,
    city_n: int,
    city_scale: float,
) -> SampleGrids:
    return SampleGrids(
        spaces=space_grid(geometry, nx, ny, scale_len, scale_wid),
        cities=city_grid(geometry, city_n, city_scale),
    )


def _remap(image: U8Array, h: FloatArray, grid: FloatArray) -> U8Array:
    n, gy, gx, _ = grid.shape
    xy = project(h, grid).astype(np.float32)
    mx = np.ascontiguousarray(xy[..., 0].reshape(n * gy, gx))
    my = np.ascontiguousarray(xy[..., 1].reshape(n * gy, gx))
    out = cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out, dtype=np.uint8).reshape(n, gy, gx, -1)


def prefilter(image: U8Array, h: FloatArray, patch_px: float) -> tuple[U8Array, FloatArray]:
    """Downscale ``image`` so a sampled pixel covers about one image pixel (anti-aliasing).

    ``patch_px`` is the image size (pixels) of one patch pixel at full resolution. Returns the
    image to sample and the homography adjusted to it.
    """
    factor = min(1.0, 1.5 / max(patch_px, 1e-6))
    if factor >= 0.6:  # mild undersampling (live frames): bilinear sampling is enough
        return image, h
    small = cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    s = np.diag([factor, factor, 1.0])
    return np.asarray(small, dtype=np.uint8), s @ h


def sample_spaces(image: U8Array, h: FloatArray, grids: SampleGrids) -> U8Array:
    """Patches (n_spaces, ny, nx, 3) of the spaces, in the order of ``space_index()``."""
    return _remap(image, h, grids.spaces)


def sample_cities(image: U8Array, h: FloatArray, grids: SampleGrids) -> U8Array:
    """Patches (n_cities, n, n, 3) of the city spots, in the order of ``city_ids``."""
    return _remap(image, h, grids.cities)
