"""What reading a board needs before it sees a picture, and sampling a picture with it.

``ReadContext`` holds everything that does not depend on the picture (the sampling grids, the
colour models, the masks of the board's own paper): built once, reused for every frame. The
sampling functions take a picture and a homography and give the white-balanced patches that
``register``, ``locate`` and ``read`` all look at.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.decide.classify import (
    FitModel,
    PatchLayout,
    SpaceLayoutInfo,
    SpaceModel,
    WindowSet,
    fit_model_from_config,
    lab8,
    load_vision_config,
    make_windows,
    model_from_config,
)
from companion.vision.features.light import LightFix, apply, measure
from companion.vision.features.sample import (
    RawSamples,
    SampleGrids,
    SampleMaps,
    U8Array,
    decimate,
    decimated_homography,
    make_grids,
    make_maps,
    patch_px,
    prefilter_step,
    sample_all,
    shifted_grids,
    subset_grids,
)
from companion.vision.features.tone import tone_table
from companion.vision.geometry.geometry import FloatArray, SamplingGeometry, load_geometry


@dataclass(frozen=True)
class ReadContext:
    """Everything that does not depend on the picture (build once, reuse for live frames)."""

    geometry: SamplingGeometry
    grids: SampleGrids  # reading: enlarged space patches and city spots
    fit_grids: SampleGrids  # locating: small patches at the spaces' nominal places
    fit_subset: npt.NDArray[np.int64]  # locating: the spaces looked at to compare candidates
    fit_sub_grids: SampleGrids  # fit_grids of those spaces only
    model: SpaceModel
    fit_model: FitModel
    layout: PatchLayout
    windows: WindowSet
    info: SpaceLayoutInfo
    cfg: dict[str, Any]
    route_slices: dict[str, slice]
    printed_colors: list[str]
    city_mask: npt.NDArray[np.bool_]  # (n_cities, n*n): city samples off every train space
    paper_mask: npt.NDArray[np.bool_]  # (n_wb,): white-balance points off tracks and cities
    tone_percentiles: list[float]
    tone_reference: FloatArray  # (len(tone_percentiles), 3) BGR


def make_context(cfg: dict[str, Any] | None = None) -> ReadContext:
    cfg = cfg if cfg is not None else load_vision_config()
    geometry = load_geometry()
    s = cfg["sampling"]
    grids = make_grids(
        geometry,
        nx=int(s["space_nx"]),
        ny=int(s["space_ny"]),
        scale_len=float(s["space_scale_len"]),
        scale_wid=float(s["space_scale_wid"]),
        city_n=int(s["city_n"]),
        city_scale=float(s["city_scale"]),
    )
    f = cfg["locate"]["sampling"]
    fit_grids = make_grids(
        geometry,
        nx=int(f["space_nx"]),
        ny=int(f["space_ny"]),
        scale_len=float(f["space_scale_len"]),
        scale_wid=float(f["space_scale_wid"]),
        city_n=2,
        city_scale=0.5,
    )
    fit_subset = spread_subset(geometry, int(f["subset_every"]))
    layout = PatchLayout(
        nx=int(s["space_nx"]),
        ny=int(s["space_ny"]),
        scale_len=float(s["space_scale_len"]),
        scale_wid=float(s["space_scale_wid"]),
    )
    slices: dict[str, slice] = {}
    i = 0
    for rid in geometry.route_ids:
        n = len(geometry.spaces[rid])
        slices[rid] = slice(i, i + n)
        i += n
    printed = geometry.space_printed_colors()
    info = SpaceLayoutInfo(
        printed_colors=printed,
        tunnel=np.array([geometry.routes[rid].tunnel for rid, _ in geometry.space_index()]),
        lane_side=lane_sides(geometry),
        route_slices=slices,
        lane_pairs=lane_pairs(geometry),
    )
    return ReadContext(
        geometry=geometry,
        grids=grids,
        fit_grids=fit_grids,
        fit_subset=fit_subset,
        fit_sub_grids=subset_grids(fit_grids, fit_subset),
        model=model_from_config(cfg),
        fit_model=fit_model_from_config(cfg),
        layout=layout,
        windows=make_windows(layout, cfg["space_model"]),
        info=info,
        cfg=cfg,
        route_slices=slices,
        printed_colors=printed,
        city_mask=off_the_tracks(geometry, grids.cities, float(cfg["stations"]["track_width"])),
        paper_mask=paper_mask(geometry, grids.wb.reshape(-1, 2), float(s["paper_track_width"])),
        tone_percentiles=[float(v) for v in s["tone_percentiles"]],
        tone_reference=np.array(s["tone_reference"], dtype=np.float64).T,
    )


def spread_subset(geometry: SamplingGeometry, every: int) -> npt.NDArray[np.int64]:
    """Every ``every``-th space (in ``space_index`` order, offset per route so that short
    routes are not always skipped the same way)."""
    if every <= 1:
        return np.arange(geometry.n_spaces, dtype=np.int64)
    out: list[int] = []
    i = 0
    for k, rid in enumerate(geometry.route_ids):
        n = len(geometry.spaces[rid])
        out.extend(i + j for j in range(n) if (j + k) % every == 0)
        i += n
    return np.array(out, dtype=np.int64)


def off_the_tracks(
    geometry: SamplingGeometry, city_points: FloatArray, width_scale: float
) -> npt.NDArray[np.bool_]:
    """(n_cities, n*n): which city samples lie outside every train space's box (its width
    scaled by ``width_scale``): a station is judged on the ground around its city, never on
    the trains that end there."""
    a = geometry.aspect
    boxes = geometry.space_boxes()
    centre = np.array([[b.u * a, b.v] for b in boxes])  # isotropic board units
    th = np.radians([b.angle for b in boxes])
    cos, sin = np.cos(th), np.sin(th)
    half_len = np.array([b.length * a / 2 for b in boxes])
    half_wid = np.array([b.width * width_scale / 2 for b in boxes])
    pts = city_points.reshape(city_points.shape[0], -1, 2) * np.array([a, 1.0])
    # Only the boxes that can reach a city's patch are looked at for that city.
    mid = pts.mean(axis=1)
    reach = np.hypot(*(pts - mid[:, None, :]).transpose(2, 0, 1)).max(axis=1)
    gap = np.hypot(*(mid[:, None, :] - centre[None, :, :]).transpose(2, 0, 1))
    near = gap <= reach[:, None] + np.hypot(half_len, half_wid)[None, :] + 1e-9
    inside = np.zeros(pts.shape[:2], dtype=bool)
    for c in range(pts.shape[0]):
        k = np.flatnonzero(near[c])
        if len(k) == 0:
            continue
        du = pts[c, :, 0:1] - centre[k, 0]  # (m, boxes)
        dv = pts[c, :, 1:2] - centre[k, 1]
        along = du * cos[k] + dv * sin[k]
        across = -du * sin[k] + dv * cos[k]
        inside[c] = ((np.abs(along) < half_len[k]) & (np.abs(across) < half_wid[k])).any(axis=1)
    mask = ~inside
    mask[mask.sum(axis=1) == 0] = True  # never leave a city without samples
    return np.asarray(mask)


def paper_mask(
    geometry: SamplingGeometry, points: FloatArray, width_scale: float
) -> npt.NDArray[np.bool_]:
    """(m,): which board points lie off every train space (its width scaled by
    ``width_scale``) and outside every city's spot (twice its size): the board's own paper."""
    off = off_the_tracks(geometry, points.reshape(1, -1, 2), width_scale)[0]
    for c in geometry.cities.values():
        du = (points[:, 0] - c.u) / max(c.w, 1e-9)
        dv = (points[:, 1] - c.v) / max(c.h, 1e-9)
        off &= du * du + dv * dv > 1.0
    return np.asarray(off)


def lane_pairs(geometry: SamplingGeometry) -> list[tuple[str, str]]:
    """The double routes: (lane 1, lane 2) route ids with the same two cities."""
    out = []
    for rid in geometry.route_ids:
        if rid.endswith("-1") and rid[:-2] + "-2" in geometry.routes:
            out.append((rid, rid[:-2] + "-2"))
    return out


def lane_sides(geometry: SamplingGeometry) -> FloatArray:
    """Per space: +1 / -1 when the other lane of its double route lies at +y / -y of its patch
    (y runs across the track, at +90 degrees from the direction along it); 0 on a single route."""
    a = geometry.aspect
    partner: dict[str, str] = {}
    for r1, r2 in lane_pairs(geometry):
        partner[r1], partner[r2] = r2, r1
    out: list[float] = []
    for rid in geometry.route_ids:
        boxes = geometry.spaces[rid]
        if rid not in partner:
            out.extend([0.0] * len(boxes))
            continue
        other = np.mean([[b.u * a, b.v] for b in geometry.spaces[partner[rid]]], axis=0)
        for b in boxes:
            th = np.radians(b.angle)
            normal = np.array([-np.sin(th), np.cos(th)])
            out.append(float(np.sign((other - np.array([b.u * a, b.v])) @ normal)))
    return np.array(out, dtype=np.float64)


@cache
def default_context() -> ReadContext:
    """The context of the packaged numbers, built once (it never changes once built)."""
    return make_context()


@dataclass
class Samples:
    spaces: U8Array  # tone-mapped space patches (n, ny, nx, 3) BGR
    cities: U8Array  # tone-mapped city patches (n, k, k, 3) BGR
    tone: U8Array  # the (1, 256, 3) lookup table that mapped them (``tone.tone_table``)
    spaces_lab: U8Array | None = None  # the same as OpenCV 8-bit Lab (when asked for)
    cities_lab: U8Array | None = None
    raw: U8Array | None = None  # spaces then cities (n_px, 3) BGR before white balance
    space_px: float | None = None  # median train space length in picture pixels, when known


def sampling_maps(
    image: U8Array, h: FloatArray, grids: SampleGrids, px: float | None = None
) -> tuple[int, SampleMaps]:
    """Anti-aliasing decimation step for ``image`` under ``h`` (1: none) and the remap maps for
    the decimated image; ``px``: ``sample.patch_px(h, grids)`` when the caller has it."""
    k = prefilter_step(patch_px(h, grids) if px is None else px)
    return k, make_maps(decimated_homography(h, k), grids)


def sample_raw(
    image: U8Array,
    h: FloatArray,
    ctx: ReadContext,
    grids: SampleGrids | None = None,
    maps: tuple[int, SampleMaps] | None = None,
    store: dict[int, U8Array] | None = None,
) -> RawSamples:
    """Every sample point of ``grids`` (default: the reading grids) in one remap, before white
    balance; ``maps`` from ``sampling_maps`` (reusable while the board and the image size stay
    the same); ``store`` keeps decimated copies of the picture (see ``sample.decimate``)."""
    grids = grids if grids is not None else ctx.grids
    k, m = maps if maps is not None else sampling_maps(image, h, grids)
    return sample_all(decimate(image, k, store), m, grids)


def balance_samples(
    raw: RawSamples,
    ctx: ReadContext,
    *,
    lab: bool = True,
    light: LightFix | None = None,
    space_px: float | None = None,
) -> Samples:
    """Tone-map raw samples on the board's paper (and convert them to 8-bit Lab); a board lit
    unevenly is first evened out: by ``light`` (a ``light.LightFix`` measured on an earlier
    frame at the same place) or, without it, by the light measured on these samples."""
    raw = apply(raw, light if light is not None else measure(raw, ctx))
    lo, hi = ctx.cfg["sampling"]["tone_slopes"]
    paper = raw.wb[ctx.paper_mask]
    tone = tone_table(paper, ctx.tone_percentiles, ctx.tone_reference, (float(lo), float(hi)))
    body = np.asarray(cv2.LUT(raw.body.reshape(1, -1, 3), tone), dtype=np.uint8)
    body = body.reshape(-1, 3)
    k = raw.n_space_px
    spaces = body[:k].reshape(*raw.spaces_shape, 3)
    cities = body[k:].reshape(*raw.cities_shape, 3)
    if not lab:
        return Samples(spaces=spaces, cities=cities, tone=tone, raw=raw.body, space_px=space_px)
    body_lab = lab8(body)
    return Samples(
        spaces=spaces,
        cities=cities,
        tone=tone,
        spaces_lab=body_lab[:k].reshape(*raw.spaces_shape, 3),
        cities_lab=body_lab[k:].reshape(*raw.cities_shape, 3),
        raw=raw.body,
        space_px=space_px,
    )


def take_samples(
    image: U8Array,
    h: FloatArray,
    ctx: ReadContext,
    grids: SampleGrids | None = None,
    *,
    lab: bool = True,
    maps: tuple[int, SampleMaps] | None = None,
    store: dict[int, U8Array] | None = None,
    offsets: Any = None,
) -> Samples:
    """Sample (and white-balance) all spaces and cities of ``image`` under homography ``h``
    (with the reading grids, or the given ones), in one remap. ``lab`` also converts them to
    8-bit Lab (one conversion); ``maps`` from ``sampling_maps``; ``offsets`` (a
    ``register.LocalOffsets``) moves each space and city of the reading grids first."""
    grids = reading_grids(ctx, offsets) if grids is None else grids
    px = patch_px(h, grids)  # once, for the maps and the space length
    if maps is None:
        maps = sampling_maps(image, h, grids, px)
    raw = sample_raw(image, h, ctx, grids, maps, store)
    return balance_samples(raw, ctx, lab=lab, space_px=space_length_px(h, grids, px))


def space_length_px(h: FloatArray, grids: SampleGrids, px: float | None = None) -> float:
    """Median length of a train space in picture pixels under ``h`` (the patches are laid over
    1.5 space lengths); ``px``: ``sample.patch_px(h, grids)`` when the caller has it."""
    return float((patch_px(h, grids) if px is None else px) * (grids.spaces.shape[2] - 1) / 1.5)


def reading_grids(ctx: ReadContext, offsets: Any = None) -> SampleGrids:
    """The reading grids, each space and city moved by its local offset when there are any."""
    if offsets is None:
        return ctx.grids
    return shifted_grids(ctx.grids, offsets.spaces, offsets.cities)
