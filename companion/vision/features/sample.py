"""Sample the pixels of every train space and city spot through a board homography.

Everything a reading needs from the picture (a sparse grid over the board for the white balance,
every space as a small patch of ``ny`` x ``nx`` pixels laid along its track, x along the track and
y across it, and every city spot) is sampled in ONE ``cv2.remap`` call: the board points of all
of them are stacked once per geometry (``SampleGrids.points``), projected through the homography
into one map (``SampleMaps``, reusable while the board does not move), and the
output is cut back into its parts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.geometry.geometry import (
    FloatArray,
    SamplingGeometry,
    city_grid,
    project,
    space_grid,
)

U8Array = npt.NDArray[np.uint8]

MAP_WIDTH = 64  # columns of the stacked remap output (rows = points / MAP_WIDTH)
REGION_PIXELS = 4_000_000  # pictures this large decimate only the part the board covers
REMAP_BGRA = int(cv2.__version__.split(".")[0]) >= 5  # see ``_remaps_bgra``
BGRA_POINTS_PER_PIXEL = 8  # remap as BGRA when points x this >= the picture's pixels
PROJECT_CHUNK = 16_384  # points projected at a time by ``make_maps``


def white_balance_grid() -> FloatArray:
    """(32, 48, 2) board points spread over the whole board (its pale paper sets the white)."""
    u, v = np.meshgrid(np.linspace(0.04, 0.96, 48), np.linspace(0.05, 0.95, 32))
    return np.asarray(np.stack([u, v], axis=-1), dtype=np.float64)


@dataclass(frozen=True)
class SampleGrids:
    """Board-point grids for one geometry and patch size (reusable across frames)."""

    spaces: FloatArray  # (n_spaces, ny, nx, 2)
    cities: FloatArray  # (n_cities, nc, nc, 2)
    wb: FloatArray  # (gy, gx, 2) white-balance points
    # (4,) min u, min v, max u, max v holding every point, when known (``bounds``)
    outer: FloatArray | None = field(default=None, compare=False)
    # ``points`` when built with the grids (``shifted_grids``: the grids are views into it)
    stacked: FloatArray | None = field(default=None, compare=False, repr=False)

    @property
    def counts(self) -> tuple[int, int, int]:
        """Number of white-balance, space and city points (their order in ``points``)."""
        return (
            int(np.prod(self.wb.shape[:-1])),
            int(np.prod(self.spaces.shape[:-1])),
            int(np.prod(self.cities.shape[:-1])),
        )

    @cached_property
    def points(self) -> FloatArray:
        """All board points, stacked: white balance, spaces, cities; (n, 2)."""
        if self.stacked is not None:
            return self.stacked
        return np.concatenate(
            [self.wb.reshape(-1, 2), self.spaces.reshape(-1, 2), self.cities.reshape(-1, 2)]
        )

    @cached_property
    def bounds(self) -> FloatArray:
        """(4,): min u, min v, max u, max v of a rectangle that holds every point."""
        if self.outer is not None:
            return self.outer
        pts = self.points
        u, v = pts[:, 0], pts[:, 1]
        return np.array([u.min(), v.min(), u.max(), v.max()], dtype=np.float64)

    @cached_property
    def ends(self) -> FloatArray:
        """(2, n_spaces, ny, 2): the first and the last column of every space patch."""
        return np.ascontiguousarray(np.stack([self.spaces[:, :, 0], self.spaces[:, :, -1]]))


def shifted_grids(
    grids: SampleGrids, spaces: FloatArray, cities: FloatArray | None = None
) -> SampleGrids:
    """The same grids with every space's (and city's, when given) points moved by its own
    offset (board points, (n_spaces, 2) and (n_cities, 2)). The moved points are written
    straight into their stacked place (``SampleGrids.points``; the grids are views into it)."""
    reach = float(np.abs(spaces).max(initial=0.0))
    if cities is not None:
        reach = max(reach, float(np.abs(cities).max(initial=0.0)))
    n_wb, n_sp, n_ci = grids.counts
    stacked = np.empty((n_wb + n_sp + n_ci, 2), dtype=np.float64)
    stacked[:n_wb] = grids.wb.reshape(-1, 2)
    _moved(grids.spaces, spaces, stacked[n_wb : n_wb + n_sp])
    if cities is None:
        stacked[n_wb + n_sp :] = grids.cities.reshape(-1, 2)
    else:
        _moved(grids.cities, cities, stacked[n_wb + n_sp :])
    return SampleGrids(
        spaces=stacked[n_wb : n_wb + n_sp].reshape(grids.spaces.shape),
        cities=stacked[n_wb + n_sp :].reshape(grids.cities.shape),
        wb=grids.wb,
        outer=grids.bounds + np.array([-reach, -reach, reach, reach]),
        stacked=stacked,
    )


def _moved(points: FloatArray, by: FloatArray, out: FloatArray) -> None:
    """``points`` (m, ..., 2), each of the m groups moved by its own offset ``by`` (m, 2),
    into ``out`` ((m * ...), 2, contiguous). The (u, v) pairs are added as complex numbers
    u + iv: the same two float sums as a broadcast over the last axis, in far fewer (and
    longer) inner loops of numpy's."""
    m = points.shape[0]
    src = np.ascontiguousarray(points, dtype=np.float64).reshape(m, -1, 2)
    off = np.ascontiguousarray(by, dtype=np.float64).reshape(m, 1, 2)
    dst = out.reshape(m, -1, 2)
    np.add(src.view(np.complex128), off.view(np.complex128), out=dst.view(np.complex128))


def subset_grids(grids: SampleGrids, spaces: npt.NDArray[np.int64]) -> SampleGrids:
    """The same grids for some of the spaces only (and no city)."""
    return SampleGrids(spaces=grids.spaces[spaces], cities=grids.cities[:0], wb=grids.wb)


def make_grids(
    geometry: SamplingGeometry,
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
        wb=white_balance_grid(),
    )


@dataclass(frozen=True)
class SampleMaps:
    """The image position of every point of a ``SampleGrids`` for one homography, as one
    (rows, MAP_WIDTH, 2) float map (OpenCV's float maps interpolate exactly; its fixed-point
    maps round positions to 1/32 pixel for no measurable speed gain here)."""

    xy: npt.NDArray[np.float32]
    n_points: int


def make_maps(h: FloatArray, grids: SampleGrids) -> SampleMaps:
    """The maps of ``grids`` under ``h``: projected in double precision, ``PROJECT_CHUNK``
    points at a time (each chunk's doubles stay in the cache on their way to float32)."""
    pts = grids.points
    n = pts.shape[0]
    rows = -(-n // MAP_WIDTH)
    xy = np.empty((rows * MAP_WIDTH, 2), dtype=np.float32)
    xy[n:] = 0.0
    for a in range(0, n, PROJECT_CHUNK):
        b = min(n, a + PROJECT_CHUNK)
        xy[a:b] = project(h, pts[a:b])
    return SampleMaps(xy.reshape(rows, MAP_WIDTH, 2), n)


@dataclass
class RawSamples:
    """The sampled pixels (BGR, before white balance), cut into their parts."""

    wb: U8Array  # (n_wb, 3)
    body: U8Array  # (n_space_px + n_city_px, 3): spaces then cities, contiguous
    spaces_shape: tuple[int, int, int]  # (n_spaces, ny, nx)
    cities_shape: tuple[int, int, int]  # (n_cities, nc, nc)

    @property
    def n_space_px(self) -> int:
        s = self.spaces_shape
        return s[0] * s[1] * s[2]


def _remaps_bgra(shape: tuple[int, ...], n_points: int) -> bool:
    """Whether to remap a BGR picture of ``shape`` as BGRA (``n_points`` points): OpenCV 5's
    remap has a vector path for four channels and not for three, so a reading's points are
    sampled in about half the time as BGRA (the same values, channel by channel). It pays
    when the points are many for the picture's size (the conversion is paid per pixel, the
    saving per point); OpenCV 4's remap is about as fast in both, so there it never pays."""
    if not REMAP_BGRA or len(shape) != 3 or shape[2] != 3:
        return False
    return n_points * BGRA_POINTS_PER_PIXEL >= shape[0] * shape[1]


def remap_points(image: U8Array, maps: SampleMaps) -> U8Array:
    """The BGR pixels of ``image`` (BGR, or BGRA: its alpha is dropped) at every point of
    ``maps`` (bilinear, the picture's edge replicated), as (rows, MAP_WIDTH, 3)."""
    four = _remaps_bgra(image.shape, maps.n_points)
    src = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA) if four else image
    out = cv2.remap(  # type: ignore[call-overload]  # one interleaved float map, no map2
        src, maps.xy, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    if src.ndim == 3 and src.shape[2] == 4:
        out = cv2.cvtColor(out, cv2.COLOR_BGRA2BGR)
    return np.asarray(out, dtype=np.uint8)


def sample_all(image: U8Array, maps: SampleMaps, grids: SampleGrids) -> RawSamples:
    flat = remap_points(image, maps).reshape(-1, 3)
    n_wb, n_sp, n_ci = grids.counts
    return RawSamples(
        wb=flat[:n_wb],
        body=flat[n_wb : n_wb + n_sp + n_ci],
        spaces_shape=(grids.spaces.shape[0], grids.spaces.shape[1], grids.spaces.shape[2]),
        cities_shape=(grids.cities.shape[0], grids.cities.shape[1], grids.cities.shape[2]),
    )


Span = tuple[int, int, int, int]  # rows r0:r1, columns c0:c1 of a decimated picture


def _span(lo: FloatArray, hi: FloatArray, h: int, w: int, margin: int) -> Span | None:
    """The pixels from ``lo`` to ``hi`` (x, y) with ``margin`` more around, within h x w."""
    if not (np.isfinite(lo).all() and np.isfinite(hi).all()):
        return None
    if hi[0] < -margin or hi[1] < -margin or lo[0] > w + margin or lo[1] > h + margin:
        return None
    c0 = min(max(0, int(np.floor(lo[0])) - margin), w)
    c1 = max(min(w, int(np.ceil(hi[0])) + margin + 1), c0)
    r0 = min(max(0, int(np.floor(lo[1])) - margin), h)
    r1 = max(min(h, int(np.ceil(hi[1])) + margin + 1), r0)
    return r0, r1, c0, c1


def _within(inner: Span, outer: Span) -> bool:
    return (
        outer[0] <= inner[0]
        and inner[1] <= outer[1]
        and outer[2] <= inner[2]
        and (inner[3] <= outer[3])
    )


def _area(span: Span) -> int:
    return (span[1] - span[0]) * (span[3] - span[2])


def maps_span(maps: SampleMaps, h: int, w: int) -> Span | None:
    """Where ``maps`` sample a picture of h x w pixels, two pixels around every point."""
    xy = maps.xy.reshape(-1, 2)[: maps.n_points]
    xs, ys = xy[:, 0], xy[:, 1]  # one column at a time (a reduction across rows is slow)
    lo = np.array([xs.min(), ys.min()], dtype=np.float64)
    hi = np.array([xs.max(), ys.max()], dtype=np.float64)
    return _span(lo, hi, h, w, 2)


def board_span(hom: FloatArray, grids: SampleGrids, h: int, w: int) -> Span | None:
    """Where ``grids`` under ``hom`` sample a picture of h x w pixels, two pixels around every
    point: the image of the rectangle holding them (the points lie inside it; None when the
    board's plane crosses the camera's horizon there)."""
    u0, v0, u1, v1 = (float(x) for x in grids.bounds)
    rect = np.array([[u0, v0], [u1, v0], [u1, v1], [u0, v1]])
    depth = rect @ hom[2, :2] + hom[2, 2]
    if not (np.all(depth > 1e-12) or np.all(depth < -1e-12)):
        return None
    img = project(hom, rect)
    return _span(img.min(axis=0), img.max(axis=0), h, w, 3)


def moved_maps(maps: SampleMaps, r0: int, c0: int) -> SampleMaps:
    """``maps`` for the part of the picture from row r0 and column c0 on. Whole pixels off
    float32 positions under 2^24: exact, the same fractions."""
    shift = (float(c0), float(r0), 0.0, 0.0)  # per channel (x, y) of the float map
    moved = np.asarray(cv2.subtract(maps.xy, shift), np.float32)  # type: ignore[call-overload]
    return SampleMaps(moved, maps.n_points)


@dataclass(frozen=True)
class Region:
    """The part of a picture that maps for its k-times decimated copy reach, in whole k x k
    blocks (rows ``y0:y1``, columns ``x0:x1`` of the picture), and the maps moved onto the
    decimated part. Decimating the part gives exactly the same pixels as that part of the
    decimated whole, and every point keeps two pixels of the part around it (or the picture's
    own edge), so sampling it gives exactly the same samples."""

    k: int
    y0: int
    y1: int
    x0: int
    x1: int
    maps: SampleMaps


def maps_region(maps: SampleMaps, k: int, shape: tuple[int, ...]) -> Region | None:
    """The ``Region`` of a picture of ``shape`` that ``maps`` (for its k-times decimated copy)
    reach; None when decimating it would not save much (or nothing is decimated)."""
    h, w = shape[0] // k, shape[1] // k
    if k <= 1 or h < 1 or w < 1:
        return None
    span = maps_span(maps, h, w)
    if span is None or min(span[1] - span[0], span[3] - span[2]) < 4 or _area(span) > 0.9 * h * w:
        return None
    r0, r1, c0, c1 = span
    return Region(k, r0 * k, r1 * k, c0 * k, c1 * k, moved_maps(maps, r0, c0))


def _stored_part(store: dict[int, U8Array] | None, k: int) -> tuple[U8Array, Span] | None:
    """The decimated part of the picture kept in ``store`` (under -k, its span under
    -k - PART_KEY) by ``sample_decimated``."""
    if store is None or -k not in store:
        return None
    span = store[-k - PART_KEY].view(np.int64)
    return store[-k], (int(span[0]), int(span[1]), int(span[2]), int(span[3]))


PART_KEY = 1_000_000


def sample_decimated(
    image: U8Array,
    k: int,
    maps: SampleMaps,
    grids: SampleGrids,
    store: dict[int, U8Array] | None = None,
    region: Region | None = None,
    h: FloatArray | None = None,
) -> RawSamples:
    """``sample_all(decimate(image, k, store), maps, grids)``, decimating only the part of the
    picture the maps reach when the store does not hold the whole decimated picture: ``region``
    (kept by a caller that samples many frames alike), or the part the board covers under
    ``h`` (the homography the maps were made with; without it, for a large picture, found from
    the maps), kept in ``store`` with a margin for the next samplings of the same board. The
    part is decimated into its place in a picture of the decimated size whose other pixels are
    never read (every point keeps its two pixels around it inside the part, or the picture's
    own edge), so the maps are used as they are and the samples are exactly the same."""
    if k <= 1 or (store is not None and k in store):
        return sample_all(_bgra_kept(decimate(image, k, store), k, maps, store), maps, grids)
    if region is not None:
        part = decimate(image[region.y0 : region.y1, region.x0 : region.x1], k)
        return sample_all(part, region.maps, grids)
    hk, wk = image.shape[0] // k, image.shape[1] // k
    small = image.shape[0] * image.shape[1] < REGION_PIXELS
    if (small and h is None) or hk < 8 or wk < 8:
        return sample_all(decimate(image, k, store), maps, grids)
    if h is not None:
        need = board_span(decimated_homography(h, k), grids, hk, wk)
    else:
        need = maps_span(maps, hk, wk)
    kept = _stored_part(store, k)
    if kept is None or need is None or not _within(need, kept[1]):
        if need is None:
            return sample_all(decimate(image, k, store), maps, grids)
        # a margin for the next samplings (the board nudged) when there is a store to keep it
        m = 4 + int(0.03 * max(hk, wk)) if store is not None else 0
        wide = (
            max(0, need[0] - m),
            min(hk, need[1] + m),
            max(0, need[2] - m),
            min(wk, need[3] + m),
        )
        if _area(wide) > 0.8 * hk * wk:
            return sample_all(decimate(image, k, store), maps, grids)
        kept = (_decimated_part(image, k, wide, maps.n_points), wide)
        if store is not None:
            store[-k] = kept[0]
            store[-k - PART_KEY] = np.array(wide, dtype=np.int64).view(np.uint8)
    return sample_all(kept[0], maps, grids)


BGRA_KEY = 2_000_000  # ``store[k + BGRA_KEY]``: the k-times decimated picture as BGRA


def _bgra_kept(
    image: U8Array, k: int, maps: SampleMaps, store: dict[int, U8Array] | None
) -> U8Array:
    """``image`` (``store[k]``, the whole k-times decimated picture, or the picture itself
    for k = 1) as ``remap_points`` would remap it: as BGRA when that pays (``_remaps_bgra``),
    converted once and kept in ``store`` for the next samplings (locating samples the same
    decimated picture several times, then reading once more)."""
    if store is None or not _remaps_bgra(image.shape, maps.n_points):
        return image
    kept = store.get(k + BGRA_KEY)
    if kept is None or kept.shape[:2] != image.shape[:2]:
        kept = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2BGRA), dtype=np.uint8)
        store[k + BGRA_KEY] = kept
    return kept


def _decimated_part(image: U8Array, k: int, span: Span, n_points: int) -> U8Array:
    """A picture of ``image``'s k-times decimated size holding the decimated ``span`` (rows
    r0:r1, columns c0:c1 of it) in its place, its other pixels left as they were allocated
    (never read); BGRA when it is to be remapped so (``_remaps_bgra``)."""
    hk, wk = image.shape[0] // k, image.shape[1] // k
    r0, r1, c0, c1 = span
    src = image[r0 * k : r1 * k, c0 * k : c1 * k]
    if _remaps_bgra((hk, wk, *image.shape[2:]), n_points):
        four = np.empty((hk, wk, 4), dtype=np.uint8)
        _into(four[r0:r1, c0:c1], cv2.cvtColor, decimate(src, k), cv2.COLOR_BGR2BGRA)
        return four
    whole = np.empty((hk, wk, *image.shape[2:]), dtype=np.uint8)
    decimate(src, k, dst=whole[r0:r1, c0:c1])  # straight into its place
    return whole


def _into(view: U8Array, op: Any, *args: Any, **kw: Any) -> None:
    """``view[...] = op(*args, **kw)``, written by the OpenCV call straight into ``view``
    (its ``dst``) when its bindings can (a sub-rectangle of a picture, no copy), else copied."""
    got = op(*args, dst=view, **kw)
    if not np.shares_memory(got, view):
        view[...] = got


def patch_px(h: FloatArray, grids: SampleGrids) -> float:
    """Image pixels per patch pixel along a space (median over spaces) under ``h``."""
    ends = project(h, grids.ends)
    d = (ends[1] - ends[0]).reshape(-1, 2)
    along = median(np.hypot(d[:, 0], d[:, 1]))
    return along / float(max(1, grids.spaces.shape[2] - 1))


def row_medians(values: FloatArray) -> FloatArray:
    """``np.median(values, axis=1)`` of a 2-D array: for finite values, each row's middle
    value of its partition or the mean of its middle two (what numpy's median computes),
    without the median's own overhead."""
    k = values.shape[1]
    if k == 0 or not np.isfinite(values).all():
        return np.asarray(np.median(values, axis=1), dtype=np.float64)
    if k % 2:
        return np.asarray(np.partition(values, k // 2, axis=1)[:, k // 2], dtype=np.float64)
    part = np.partition(values, [k // 2 - 1, k // 2], axis=1)
    return np.asarray((part[:, k // 2 - 1] + part[:, k // 2]) / 2.0, dtype=np.float64)


def median(values: FloatArray) -> float:
    """``float(np.median(values))`` of a 1-D array: for finite values, the middle one of its
    partition or the mean of the middle two (what numpy's median computes), without the
    median's own overhead (called for every candidate outline of a photo)."""
    k = len(values)
    if k == 0 or not np.isfinite(values).all():
        return float(np.median(values))
    if k % 2:
        return float(np.partition(values, k // 2)[k // 2])
    part = np.partition(values, [k // 2 - 1, k // 2])
    return float((part[k // 2 - 1] + part[k // 2]) / 2.0)


def decimate(
    image: U8Array, k: int, store: dict[int, U8Array] | None = None, dst: U8Array | None = None
) -> U8Array:
    """``image`` shrunk k times in each direction by averaging k x k blocks (``INTER_AREA`` at
    an integer ratio: exact and several times faster than at other ratios). ``store`` keeps
    the results of one picture for the stages that need the same size (locate, then read);
    ``dst`` (k > 1, no store): where to write them (a view of the decimated size)."""
    if k <= 1:
        return image
    if store is not None and k in store:
        return store[k]
    h, w = image.shape[:2]
    hk, wk = max(1, h // k), max(1, w // k)
    # Whole blocks only (a remainder of up to k-1 pixels at the right and bottom is dropped):
    # OpenCV's fast integer-ratio path needs the exact ratio.
    src = image[: hk * k, : wk * k] if h >= k and w >= k else image
    if dst is not None:
        _into(dst, cv2.resize, src, (wk, hk), interpolation=cv2.INTER_AREA)
        return dst
    small = cv2.resize(src, (wk, hk), interpolation=cv2.INTER_AREA)
    out = np.asarray(small, dtype=np.uint8)
    if store is not None:
        store[k] = out
    return out


def decimated_homography(h: FloatArray, k: int) -> FloatArray:
    """``h`` for the image decimated k times (pixel centres stay pixel centres)."""
    if k <= 1:
        return h
    s = np.array([[1.0 / k, 0.0, 0.5 / k - 0.5], [0.0, 1.0 / k, 0.5 / k - 0.5], [0.0, 0.0, 1.0]])
    return np.asarray(s @ h, dtype=np.float64)


def prefilter_step(patch_px: float) -> int:
    """1 (sample the image as it is) for mildly undersampled pictures such as live frames
    (a patch pixel under 1/0.6 image pixels); otherwise the integer decimation that brings a
    patch pixel closest to 1.5 image pixels."""
    factor = 1.5 / max(patch_px, 1e-6)
    if factor >= 0.6:
        return 1
    return max(2, round(1.0 / factor))


def prefilter(image: U8Array, h: FloatArray, patch_px: float) -> tuple[U8Array, FloatArray]:
    """Downscale ``image`` so a sampled pixel covers about one and a half image pixels
    (anti-aliasing). ``patch_px`` is the image size (pixels) of one patch pixel at full
    resolution. Returns the image to sample and the homography adjusted to it."""
    k = prefilter_step(patch_px)
    return decimate(image, k), decimated_homography(h, k)


def _remap(image: U8Array, h: FloatArray, grid: FloatArray) -> U8Array:
    n, gy, gx, _ = grid.shape
    xy = project(h, grid).astype(np.float32)
    mx = np.ascontiguousarray(xy[..., 0].reshape(n * gy, gx))
    my = np.ascontiguousarray(xy[..., 1].reshape(n * gy, gx))
    out = cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out, dtype=np.uint8).reshape(n, gy, gx, -1)


def sample_spaces(image: U8Array, h: FloatArray, grids: SampleGrids) -> U8Array:
    """Patches (n_spaces, ny, nx, 3) of the spaces, in the order of ``space_index()``."""
    return _remap(image, h, grids.spaces)


def sample_cities(image: U8Array, h: FloatArray, grids: SampleGrids) -> U8Array:
    """Patches (n_cities, n, n, 3) of the city spots, in the order of ``city_ids``."""
    return _remap(image, h, grids.cities)
