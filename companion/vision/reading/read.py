"""Read a located Europe board: every route's owner and every city's station."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np

from companion.vision.decide.beside_station import list_covered
from companion.vision.decide.check import add_to_list, assess
from companion.vision.decide.classify import (
    SpaceModel,
    SpaceResult,
    classify_spaces,
    lab8,
    space_features_lab8,
)
from companion.vision.decide.close_call import turn as turn_close_calls
from companion.vision.decide.context import (
    ReadContext,
    Samples,
    balance_samples,
    default_context,
    reading_grids,
    sampling_maps,
    space_length_px,
)
from companion.vision.decide.own_second import turn as turn_own_second
from companion.vision.decide.print_claim import list_print_claims
from companion.vision.decide.read_stations import classify_stations_lab8
from companion.vision.decide.resolution import low_resolution_problem, unsettled
from companion.vision.decide.resolution import measure as measure_resolution
from companion.vision.decide.short_free import list_short_free
from companion.vision.decide.twin_lane import looks_of
from companion.vision.decide.twin_lane import turn as turn_twin_lanes
from companion.vision.features.light import LightFix, measure, still_fits
from companion.vision.features.sample import (
    Region,
    SampleGrids,
    SampleMaps,
    U8Array,
    maps_region,
    patch_px,
    sample_decimated,
)
from companion.vision.locate.locate import locate_board
from companion.vision.types import BoardReading

log = logging.getLogger(__name__)


def read_samples(
    samples: Samples,
    ctx: ReadContext,
    *,
    start: SpaceModel | None = None,
    rounds: int | None = None,
    profile: Any = None,
) -> tuple[BoardReading, SpaceResult]:
    """Read sampled patches: the reading as seen, with its check list (``check.assess``).
    ``profile``: a ``profile.TableProfile`` of this camera (its colours and empty looks)."""
    spaces_lab = samples.spaces_lab if samples.spaces_lab is not None else lab8(samples.spaces)
    cities_lab = samples.cities_lab if samples.cities_lab is not None else lab8(samples.cities)
    info = ctx.info
    feats = space_features_lab8(spaces_lab, ctx.layout, ctx.windows, info.tunnel, info.lane_side)
    model = ctx.model if profile is None else profile.model(ctx.model)
    res = classify_spaces(feats, ctx.info, model, ctx.windows, start=start, rounds=rounds)
    stations, station_conf = classify_stations_lab8(cities_lab, res.model, ctx.cfg, ctx.city_mask)
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
    changed = None if profile is None else profile.changed(feats, ctx.info.printed_index[1])
    lengths = {rid: g.routes[rid].length for rid in g.route_ids}
    reading = assess(
        reading,
        res.scores,
        ctx.info,
        res.model,
        lengths,
        changed=changed,
        print_distance=res.print_distance,
        print_unsettled=res.print_unsettled,
    )
    reading = list_covered(reading, g)  # a station may stand on a one-space route
    t = res.model.route_temperature  # close calls of own trains (close_call.py)
    reading = turn_close_calls(reading, res.scores, info, g, samples.space_px, t)
    reading = list_short_free(reading, spaces_lab, res.print_distance, info, g, samples.space_px)
    reading = list_print_claims(reading, spaces_lab, info, g, samples.space_px)  # print_claim.py
    reading = turn_own_second(reading, spaces_lab, res.scores, info, g, samples.space_px, t)
    looks = looks_of(res, spaces_lab, ctx)  # lanes beside the other lane's trains: twin_lane.py
    reading = turn_twin_lanes(reading, res.scores, info, g, samples.space_px, t, looks)
    if samples.space_px is not None:
        reading = _resolution_limits(reading, samples.space_px, spaces_lab, ctx)
    return reading, res


def _resolution_limits(
    reading: BoardReading, space_px: float, spaces_lab: U8Array, ctx: ReadContext
) -> BoardReading:
    """A reading of a picture below what the reader needs says so, and lists every route whose
    colour that picture cannot settle (``resolution.py``)."""
    res = measure_resolution(space_px, spaces_lab[..., 0], int(spaces_lab.shape[2]))
    if not res.too_low():
        return reading
    g = ctx.geometry
    ids = unsettled(reading.routes, {rid: g.routes[rid].color for rid in g.route_ids})
    listed = add_to_list(reading, ids, "low-resolution", g)
    return replace(listed, problems=[*reading.problems, low_resolution_problem(res, ids)])


def read_board(
    image_bgr: U8Array,
    *,
    location: Any = None,
    context: ReadContext | None = None,
    cache: Any = None,
    profile: Any = None,
) -> BoardReading:
    """Read a picture of a Europe board.

    ``location`` (a ``locate.BoardLocation``) skips locating: the fast path for live frames from a
    fixed camera. Without it the board is located first (``NoBoardError`` when there is none).
    ``cache`` (a ``live_cache.ReadCache``, kept by the caller across frames of the same board)
    makes repeated reads cheaper: sampling maps reused, unchanged frames not read again.
    ``profile`` (a ``profile.TableProfile`` of this camera) is used while it fits the picture.
    The reading reports what is seen and lists what a person should check (``check.assess``).
    """
    ctx = context if context is not None else default_context()
    if cache is not None and location is not None:
        result: BoardReading = cache.read(image_bgr, location, ctx, profile=profile)
        return result
    store: dict[int, U8Array] | None = None  # decimated copies shared by locating and reading
    if location is None:
        store = {}
        location = locate_board(image_bgr, context=ctx, store=store)
    h = np.asarray(location.homography, dtype=np.float64)
    grids = reading_grids(ctx, getattr(location, "offsets", None))
    px = patch_px(h, grids)  # once, for the maps and the space length
    k, maps = sampling_maps(image_bgr, h, grids, px)
    raw = sample_decimated(image_bgr, k, maps, grids, store, h=h)  # as take_samples did
    samples = balance_samples(raw, ctx, space_px=space_length_px(h, grids, px))
    reading, _ = read_samples(samples, ctx, profile=profile)
    return reading


def _copy_reading(r: BoardReading) -> BoardReading:
    return BoardReading(
        routes=dict(r.routes),
        stations=dict(r.stations),
        confidence=dict(r.confidence),
        spaces={k: list(v) for k, v in r.spaces.items()},
        board=r.board,
        check=list(r.check),
        problems=[dict(p) for p in r.problems],
        why={k: list(v) for k, v in r.why.items()},
        calibrated=dict(r.calibrated),
    )


@dataclass
class ReadCache:
    """What repeated reads of one board by a fixed camera can reuse (one per camera).

    Pass it to ``read_board(frame, location=..., cache=...)`` for every live frame:

    * the sampling maps (homography projection of ~210 000 points) are kept while the location
      and the frame size stay the same;
    * a frame whose space and city patches did not change since the last frame read in full
      (no patch with more than ``live.change_share`` of its channel values moved by more than
      ``live.change_level``) gets that reading again without being read, up to
      ``live.max_reuse`` frames in a row (then one is read in full anyway: a slow change of
      light, a piece too like its ground to move the pixels enough);
    * the class means adapted on the last full read start the next one (``live.em_rounds``
      rounds of adaptation instead of the photo reader's ``em_rounds``);
    * the light's shape over the board (``light.measure``) is measured on the first full read
      at a place and kept for the next ones: measured again after ``light.refresh_reads`` full
      reads, or sooner when the paper shows that the light changed its shape
      (``light.still_fits``).

    Not thread-safe: one cache per reading thread.
    """

    key: tuple[bytes, tuple[int, ...], int] | None = None  # homography (+ offsets), size, ctx
    grids: SampleGrids | None = None  # the reading grids at this place (with its offsets)
    maps: tuple[int, SampleMaps] | None = None
    region: Region | None = None  # the part of the frame the maps reach
    space_px: float | None = None  # train space length at this place (picture pixels)
    reference: U8Array | None = None  # raw patches of the last frame read in full
    reading: BoardReading | None = None
    model: SpaceModel | None = None
    frames: int = 0  # frames seen
    full_reads: int = 0  # frames read in full (the others reused the last reading)
    reused: int = 0  # frames that reused the last full reading since it was made
    light: LightFix | None = None  # the light's shape measured at this place
    light_reads: int = 0  # full reads that used it
    light_fits: int = 0  # times the light was measured

    def reset(self) -> None:
        self.key = None
        self.grids = None
        self.maps = None
        self.region = None
        self.space_px = None
        self.reference = None
        self.reading = None
        self.model = None
        self.reused = 0
        self.light = None
        self.light_reads = 0

    def light_for(self, raw: Any, ctx: ReadContext) -> LightFix | None:
        """The light's shape for a frame read in full: the one kept, or measured afresh."""
        every = int(ctx.cfg["light"]["refresh_reads"])
        kept = self.light
        if kept is None or self.light_reads >= every or not still_fits(kept, raw, ctx):
            self.light = measure(raw, ctx)
            self.light_reads = 0
            self.light_fits += 1
        self.light_reads += 1
        return self.light

    def changed(self, raw: U8Array, ctx: ReadContext) -> bool:
        """Did any space or city patch change since the reference frame? (share of a patch's
        channel values that moved by more than ``live.change_level``)"""
        if self.reference is None or self.reference.shape != raw.shape:
            return True
        live = ctx.cfg["live"]
        diff = cv2.absdiff(raw.reshape(1, -1), self.reference.reshape(1, -1))
        _, moved = cv2.threshold(diff, int(live["change_level"]), 1, cv2.THRESH_BINARY)
        moved = moved.reshape(-1)
        k = int(np.prod(ctx.grids.spaces.shape[:3])) * 3
        limit = float(live["change_share"])
        sp = moved[:k].reshape(ctx.grids.spaces.shape[0], -1)
        ci = moved[k:].reshape(ctx.grids.cities.shape[0], -1)
        sp_count = sp.sum(axis=1, dtype=np.int32)
        ci_count = ci.sum(axis=1, dtype=np.int32)
        return bool(
            sp_count.max(initial=0) > limit * sp.shape[1]
            or ci_count.max(initial=0) > limit * ci.shape[1]
        )

    def read(
        self, image: U8Array, location: Any, ctx: ReadContext, profile: Any = None
    ) -> BoardReading:
        h = np.asarray(location.homography, dtype=np.float64)
        offsets = getattr(location, "offsets", None)
        key = (h.tobytes() + (offsets.key() if offsets else b""), tuple(image.shape), id(ctx))
        if key != self.key or self.maps is None or self.grids is None:
            self.reset()
            self.key = key
            self.grids = reading_grids(ctx, offsets)
            px = patch_px(h, self.grids)
            self.maps = sampling_maps(image, h, self.grids, px)
            self.region = maps_region(self.maps[1], self.maps[0], image.shape)
            self.space_px = space_length_px(h, self.grids, px)
        self.frames += 1
        k, maps = self.maps
        raw = sample_decimated(image, k, maps, self.grids, region=self.region)
        fresh = self.reused < int(ctx.cfg["live"]["max_reuse"])
        if self.reading is not None and fresh and not self.changed(raw.body, ctx):
            self.reused += 1
            return _copy_reading(self.reading)
        light = self.light_for(raw, ctx)
        samples = balance_samples(raw, ctx, light=light, space_px=self.space_px)
        rounds = int(ctx.cfg["live"]["em_rounds"]) if self.model is not None else None
        reading, res = read_samples(samples, ctx, start=self.model, rounds=rounds, profile=profile)
        self.full_reads += 1
        self.reused = 0
        self.reference = raw.body.copy()
        self.reading = reading
        self.model = res.model
        return _copy_reading(reading)
