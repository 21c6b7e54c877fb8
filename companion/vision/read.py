"""Read a located Europe board: every route's owner and every city's station."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from companion.vision.classify import (
    SpaceModel,
    SpaceResult,
    apply_gains,
    classify_spaces,
    load_vision_config,
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
    grids: SampleGrids
    model: SpaceModel
    cfg: dict[str, Any]
    route_slices: dict[str, slice]
    printed_colors: list[str]
    wb_grid: FloatArray


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
    slices: dict[str, slice] = {}
    i = 0
    for rid in geometry.route_ids:
        n = len(geometry.spaces[rid])
        slices[rid] = slice(i, i + n)
        i += n
    u, v = np.meshgrid(np.linspace(0.04, 0.96, 48), np.linspace(0.05, 0.95, 32))
    return ReadContext(
        geometry=geometry,
        grids=grids,
        model=model_from_config(cfg),
        cfg=cfg,
        route_slices=slices,
        printed_colors=geometry.space_printed_colors(),
        wb_grid=np.stack([u, v], axis=-1),
    )


@dataclass
class Samples:
    spaces: U8Array  # white-balanced space patches
    cities: U8Array  # white-balanced city patches
    gains: FloatArray


def take_samples(image: U8Array, h: FloatArray, ctx: ReadContext) -> Samples:
    """Sample (and white-balance) all spaces and cities of ``image`` under homography ``h``."""
    import cv2

    s = ctx.cfg["sampling"]
    # Image pixels per patch pixel along a space, to anti-alias large photos before sampling.
    boxes = ctx.grids.spaces
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
    spaces = apply_gains(sample_spaces(img, hh, ctx.grids), gains)
    cities = apply_gains(sample_cities(img, hh, ctx.grids), gains)
    return Samples(spaces=spaces, cities=cities, gains=gains)


def read_samples(samples: Samples, ctx: ReadContext) -> tuple[BoardReading, SpaceResult]:
    feats = space_features(samples.spaces)
    res = classify_spaces(feats, ctx.printed_colors, ctx.route_slices, ctx.model)
    stations, station_conf = classify_stations(samples.cities, res.model, ctx.cfg)
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
