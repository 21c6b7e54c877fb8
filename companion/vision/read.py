"""Read a located Europe board: every route's owner and every city's station."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.vision.classify import (
    FitModel,
    PatchLayout,
    SpaceLayoutInfo,
    SpaceModel,
    SpaceResult,
    WindowSet,
    apply_gains,
    classify_spaces,
    fit_model_from_config,
    load_vision_config,
    make_windows,
    model_from_config,
    space_features,
    white_balance_gains,
)
from companion.vision.geometry import BoardGeometry, FloatArray, load_geometry, project
from companion.vision.read_stations import classify_stations
from companion.vision.sample import (
    SampleGrids,
    U8Array,
    make_grids,
    prefilter,
    sample_cities,
    sample_spaces,
)
from companion.vision.types import BoardReading

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReadContext:
    """Everything that does not depend on the picture (build once, reuse for live frames)."""

    geometry: BoardGeometry
    grids: SampleGrids  # reading: enlarged space patches and city spots
    fit_grids: SampleGrids  # locating: small patches at the spaces' nominal places
    model: SpaceModel
    fit_model: FitModel
    layout: PatchLayout
    windows: WindowSet
    info: SpaceLayoutInfo
    cfg: dict[str, Any]
    route_slices: dict[str, slice]
    printed_colors: list[str]
    wb_grid: FloatArray
    city_mask: npt.NDArray[np.bool_]  # (n_cities, n*n): city samples off every train space


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
    u, v = np.meshgrid(np.linspace(0.04, 0.96, 48), np.linspace(0.05, 0.95, 32))
    return ReadContext(
        geometry=geometry,
        grids=grids,
        fit_grids=fit_grids,
        model=model_from_config(cfg),
        fit_model=fit_model_from_config(cfg),
        layout=layout,
        windows=make_windows(layout, cfg["space_model"]),
        info=info,
        cfg=cfg,
        route_slices=slices,
        printed_colors=printed,
        wb_grid=np.stack([u, v], axis=-1),
        city_mask=off_the_tracks(geometry, grids.cities, float(cfg["stations"]["track_width"])),
    )


def off_the_tracks(
    geometry: BoardGeometry, city_points: FloatArray, width_scale: float
) -> npt.NDArray[np.bool_]:
    """(n_cities, n*n): which city samples lie outside every train space's box (its width
    scaled by ``width_scale``): a station is judged on the ground around its city, never on
    the trains that end there."""
    a = geometry.aspect
    pts = city_points.reshape(-1, 2)
    inside = np.zeros(len(pts), dtype=bool)
    for b in geometry.space_boxes():
        th = np.radians(b.angle)
        du = pts[:, 0] * a - b.u * a
        dv = pts[:, 1] - b.v
        along = du * np.cos(th) + dv * np.sin(th)
        across = -du * np.sin(th) + dv * np.cos(th)
        inside |= (np.abs(along) < b.length * a / 2) & (np.abs(across) < b.width * width_scale / 2)
    mask = ~inside.reshape(city_points.shape[0], -1)
    mask[mask.sum(axis=1) == 0] = True  # never leave a city without samples
    return np.asarray(mask)


def lane_pairs(geometry: BoardGeometry) -> list[tuple[str, str]]:
    """The double routes: (lane 1, lane 2) route ids with the same two cities."""
    out = []
    for rid in geometry.route_ids:
        if rid.endswith("-1") and rid[:-2] + "-2" in geometry.routes:
            out.append((rid, rid[:-2] + "-2"))
    return out


def lane_sides(geometry: BoardGeometry) -> FloatArray:
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


@dataclass
class Samples:
    spaces: U8Array  # white-balanced space patches
    cities: U8Array  # white-balanced city patches
    gains: FloatArray


def take_samples(
    image: U8Array, h: FloatArray, ctx: ReadContext, grids: SampleGrids | None = None
) -> Samples:
    """Sample (and white-balance) all spaces and cities of ``image`` under homography ``h``
    (with the reading grids, or the given ones)."""
    import cv2

    s = ctx.cfg["sampling"]
    grids = grids if grids is not None else ctx.grids
    # Image pixels per patch pixel along a space, to anti-alias large photos before sampling.
    boxes = grids.spaces
    p0 = project(h, boxes[:, :, 0, :])
    p1 = project(h, boxes[:, :, -1, :])
    along = float(np.median(np.hypot(*(p1 - p0).reshape(-1, 2).T))) / max(1, boxes.shape[2] - 1)
    img, hh = prefilter(image, h, along)
    pts = project(hh, ctx.wb_grid).astype(np.float32)
    board_px = cv2.remap(img, pts[..., 0], pts[..., 1], cv2.INTER_LINEAR)
    gains = white_balance_gains(
        np.asarray(board_px, dtype=np.uint8),
        float(s["white_target"]),
        float(s["white_percentile"]),
    )
    spaces = apply_gains(sample_spaces(img, hh, grids), gains)
    cities = apply_gains(sample_cities(img, hh, grids), gains)
    return Samples(spaces=spaces, cities=cities, gains=gains)


def read_samples(samples: Samples, ctx: ReadContext) -> tuple[BoardReading, SpaceResult]:
    feats = space_features(samples.spaces, ctx.layout, ctx.windows, ctx.info.tunnel)
    res = classify_spaces(feats, ctx.info, ctx.model, ctx.windows)
    stations, station_conf = classify_stations(samples.cities, res.model, ctx.cfg, ctx.city_mask)
    g = ctx.geometry
    spaces: dict[str, list[str | None]] = {
        rid: list(res.space_labels[sl]) for rid, sl in ctx.route_slices.items()
    }
    confidence = dict(res.route_confidence)
    st = {cid: stations[i] for i, cid in enumerate(g.city_ids)}
    confidence.update({cid: station_conf[i] for i, cid in enumerate(g.city_ids)})
    reading = BoardReading(
        routes=dict(res.route_owner),
        stations=st,
        confidence=confidence,
        spaces=spaces,
    )
    return reading, res


def read_board(
    image_bgr: U8Array,
    *,
    location: Any = None,
    context: ReadContext | None = None,
) -> BoardReading:
    """Read a picture of a Europe board.

    ``location`` (a ``locate.BoardLocation``) skips locating: the fast path for live frames from a
    fixed camera. Without it the board is located first (``NoBoardError`` when there is none).
    """
    from companion.vision.locate import locate_board

    ctx = context if context is not None else make_context()
    if location is None:
        location = locate_board(image_bgr, context=ctx)
    samples = take_samples(image_bgr, np.asarray(location.homography, dtype=np.float64), ctx)
    reading, _ = read_samples(samples, ctx)
    return reading
