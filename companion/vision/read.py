"""Read a located Europe board: every route's owner and every city's station."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cache
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
    classify_spaces,
    fit_model_from_config,
    lab8,
    load_vision_config,
    make_windows,
    model_from_config,
    space_features_lab8,
    tone_table,
)
from companion.vision.geometry import BoardGeometry, FloatArray, load_geometry
from companion.vision.read_stations import classify_stations_lab8
from companion.vision.sample import (
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
from companion.vision.types import BoardReading

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReadContext:
    """Everything that does not depend on the picture (build once, reuse for live frames)."""

    geometry: BoardGeometry
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


def spread_subset(geometry: BoardGeometry, every: int) -> npt.NDArray[np.int64]:
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
    geometry: BoardGeometry, city_points: FloatArray, width_scale: float
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
    geometry: BoardGeometry, points: FloatArray, width_scale: float
) -> npt.NDArray[np.bool_]:
    """(m,): which board points lie off every train space (its width scaled by
    ``width_scale``) and outside every city's spot (twice its size): the board's own paper."""
    off = off_the_tracks(geometry, points.reshape(1, -1, 2), width_scale)[0]
    for c in geometry.cities.values():
        du = (points[:, 0] - c.u) / max(c.w, 1e-9)
        dv = (points[:, 1] - c.v) / max(c.h, 1e-9)
        off &= du * du + dv * dv > 1.0
    return np.asarray(off)


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


@cache
def default_context() -> ReadContext:
    """The context of the packaged numbers, built once (it never changes once built)."""
    return make_context()


@dataclass
class Samples:
    spaces: U8Array  # tone-mapped space patches (n, ny, nx, 3) BGR
    cities: U8Array  # tone-mapped city patches (n, k, k, 3) BGR
    tone: U8Array  # the (1, 256, 3) lookup table that mapped them (``classify.tone_table``)
    spaces_lab: U8Array | None = None  # the same as OpenCV 8-bit Lab (when asked for)
    cities_lab: U8Array | None = None
    raw: U8Array | None = None  # spaces then cities (n_px, 3) BGR before white balance


def sampling_maps(image: U8Array, h: FloatArray, grids: SampleGrids) -> tuple[int, SampleMaps]:
    """Anti-aliasing decimation step for ``image`` under ``h`` (1: none) and the remap maps for
    the decimated image."""
    k = prefilter_step(patch_px(h, grids))
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


def balance_samples(raw: RawSamples, ctx: ReadContext, *, lab: bool = True) -> Samples:
    """Tone-map raw samples on the board's paper (and convert them to 8-bit Lab)."""
    import cv2

    lo, hi = ctx.cfg["sampling"]["tone_slopes"]
    paper = raw.wb[ctx.paper_mask]
    tone = tone_table(paper, ctx.tone_percentiles, ctx.tone_reference, (float(lo), float(hi)))
    body = np.asarray(cv2.LUT(raw.body.reshape(1, -1, 3), tone), dtype=np.uint8)
    body = body.reshape(-1, 3)
    k = raw.n_space_px
    spaces = body[:k].reshape(*raw.spaces_shape, 3)
    cities = body[k:].reshape(*raw.cities_shape, 3)
    if not lab:
        return Samples(spaces=spaces, cities=cities, tone=tone, raw=raw.body)
    body_lab = lab8(body)
    return Samples(
        spaces=spaces,
        cities=cities,
        tone=tone,
        spaces_lab=body_lab[:k].reshape(*raw.spaces_shape, 3),
        cities_lab=body_lab[k:].reshape(*raw.cities_shape, 3),
        raw=raw.body,
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
    return balance_samples(sample_raw(image, h, ctx, grids, maps, store), ctx, lab=lab)


def reading_grids(ctx: ReadContext, offsets: Any = None) -> SampleGrids:
    """The reading grids, each space and city moved by its local offset when there are any."""
    if offsets is None:
        return ctx.grids
    return shifted_grids(ctx.grids, offsets.spaces, offsets.cities)


def read_samples(
    samples: Samples,
    ctx: ReadContext,
    *,
    start: SpaceModel | None = None,
    rounds: int | None = None,
) -> tuple[BoardReading, SpaceResult]:
    spaces_lab = samples.spaces_lab if samples.spaces_lab is not None else lab8(samples.spaces)
    cities_lab = samples.cities_lab if samples.cities_lab is not None else lab8(samples.cities)
    feats = space_features_lab8(spaces_lab, ctx.layout, ctx.windows, ctx.info.tunnel)
    res = classify_spaces(feats, ctx.info, ctx.model, ctx.windows, start=start, rounds=rounds)
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
    return reading, res


def read_board(
    image_bgr: U8Array,
    *,
    location: Any = None,
    context: ReadContext | None = None,
    cache: Any = None,
) -> BoardReading:
    """Read a picture of a Europe board.

    ``location`` (a ``locate.BoardLocation``) skips locating: the fast path for live frames from a
    fixed camera. Without it the board is located first (``NoBoardError`` when there is none).
    ``cache`` (a ``live_cache.ReadCache``, kept by the caller across frames of the same board)
    makes repeated reads cheaper: sampling maps reused, unchanged frames not read again.
    """
    from companion.vision.locate import locate_board

    ctx = context if context is not None else default_context()
    if cache is not None and location is not None:
        result: BoardReading = cache.read(image_bgr, location, ctx)
        return result
    store: dict[int, U8Array] = {}  # decimated copies shared by locating and reading
    if location is None:
        location = locate_board(image_bgr, context=ctx, store=store)
    h = np.asarray(location.homography, dtype=np.float64)
    offsets = getattr(location, "offsets", None)
    samples = take_samples(image_bgr, h, ctx, store=store, offsets=offsets)
    reading, _ = read_samples(samples, ctx)
    return reading


def _copy_reading(r: BoardReading) -> BoardReading:
    return BoardReading(
        routes=dict(r.routes),
        stations=dict(r.stations),
        confidence=dict(r.confidence),
        spaces={k: list(v) for k, v in r.spaces.items()},
        board=r.board,
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
      rounds of adaptation instead of the photo reader's ``em_rounds``).

    Not thread-safe: one cache per reading thread.
    """

    key: tuple[bytes, tuple[int, ...], int] | None = None  # homography (+ offsets), size, ctx
    maps: tuple[int, SampleMaps] | None = None
    reference: U8Array | None = None  # raw patches of the last frame read in full
    reading: BoardReading | None = None
    model: SpaceModel | None = None
    frames: int = 0  # frames seen
    full_reads: int = 0  # frames read in full (the others reused the last reading)
    reused: int = 0  # frames that reused the last full reading since it was made

    def reset(self) -> None:
        self.key = None
        self.maps = None
        self.reference = None
        self.reading = None
        self.model = None
        self.reused = 0

    def changed(self, raw: U8Array, ctx: ReadContext) -> bool:
        """Did any space or city patch change since the reference frame? (share of a patch's
        channel values that moved by more than ``live.change_level``)"""
        import cv2

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

    def read(self, image: U8Array, location: Any, ctx: ReadContext) -> BoardReading:
        h = np.asarray(location.homography, dtype=np.float64)
        offsets = getattr(location, "offsets", None)
        key = (h.tobytes() + (offsets.key() if offsets else b""), tuple(image.shape), id(ctx))
        grids = reading_grids(ctx, offsets)
        if key != self.key:
            self.reset()
            self.key = key
            self.maps = sampling_maps(image, h, grids)
        self.frames += 1
        raw = sample_raw(image, h, ctx, grids, maps=self.maps)
        fresh = self.reused < int(ctx.cfg["live"]["max_reuse"])
        if self.reading is not None and fresh and not self.changed(raw.body, ctx):
            self.reused += 1
            return _copy_reading(self.reading)
        samples = balance_samples(raw, ctx)
        rounds = int(ctx.cfg["live"]["em_rounds"]) if self.model is not None else None
        reading, res = read_samples(samples, ctx, start=self.model, rounds=rounds)
        self.full_reads += 1
        self.reused = 0
        self.reference = raw.body.copy()
        self.reading = reading
        self.model = res.model
        return _copy_reading(reading)
