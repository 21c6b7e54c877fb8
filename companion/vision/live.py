"""Live mode: turn a stream of camera frames into claims and stations, once each, when sure.

A :class:`LiveWatcher` gets every frame (with its timestamp) and keeps a small, downscaled,
gain-normalised picture of the board (warped to the board's own frame, so a re-registration keeps
its history valid). Per frame it decides:

1. **moving**: the board picture differs from the previous frame (a hand moving, a bumped table);
2. **settling**: not moving, but not yet for ``steady_frames`` frames and ``steady_seconds``;
3. **occluded**: steady, but something lies over the board compared with the last clean picture
   (the reference): a changed blob touching the board's edge (an arm), change away from the
   route spaces and city spots where pieces go (a hand; less of it when skin-coloured), a large
   changed area, or a large darkened area (a shadow);
4. **clear**: steady and unoccluded. Only then is the board read (by an injected reader), and the
   clean picture becomes the new reference.

A reading that differs from the reported state becomes a change only when it has been read the
same way ``confirm_reads`` times in a row *and* the board's pixels at that route or city changed
since its state was last reported (so a reader that always misreads an empty printed route cannot
make a claim out of nothing). The change then goes through a validator (the rules engine plugs in
here): ``ok`` reports it as :class:`ClaimSeen` / :class:`StationSeen`, ``veto`` as
:class:`Vetoed` (a route changing owner, a 46th train, a 4th station), ``confirm`` as
:class:`NeedsConfirmation` (resolved by :meth:`LiveWatcher.confirm` or :meth:`LiveWatcher.reject`).
Each change is reported exactly once.

When the board stays "occluded" while steady, the reader is asked to locate the board again (the
camera or the board moved). Thresholds live in ``companion/data/live.json``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Protocol

import cv2
import numpy as np

from companion.data import load_json
from companion.vision import register
from companion.vision.board import BoardGeometry, load_geometry
from companion.vision.context import default_context
from companion.vision.locate import BoardLocation, locate_board
from companion.vision.read import ReadCache, read_board
from companion.vision.sources import Frame
from companion.vision.types import PLAYER_COLORS, BoardReading, NoBoardError

log = logging.getLogger(__name__)


# --------------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LiveConfig:
    work_width: int = 320
    work_blur: float = 1.0
    motion_threshold: int = 14
    motion_fraction: float = 0.0015
    steady_frames: int = 3
    steady_seconds: float = 0.25
    diff_threshold: int = 28
    max_change_area: float = 0.02
    edge_margin: float = 0.03
    edge_blob_area: float = 0.0015
    foreign_area: float = 0.002
    foreign_skin_area: float = 0.0004
    skin_share: float = 0.35
    skin_chroma_shift: float = 0.025
    shadow_ratio: float = 0.8
    shadow_area: float = 0.012
    confirm_reads: int = 3
    reset_on_motion: bool = False
    min_read_interval: float = 0.0
    min_confidence: float = 0.5
    evidence_pixel: float = 8.0
    evidence_share: float = 0.5
    same_colour_evidence: float = 0.8
    same_colour_confidence: float = 0.3
    twin_margin: float = 0.1
    relocate_after_frames: int = 4
    relocate_shift: float = 0.004
    relocate_keep: float = 0.5
    register_response: float = 0.1
    refine_iterations: int = 30
    refine_max: float = 4.0
    adopt_seconds: float = 6.0
    stuck_seconds: float = 30.0
    locate_interval: float = 1.0
    trains_per_player: int = 45
    stations_per_player: int = 3

    @staticmethod
    def load(overrides: Mapping[str, Any] | None = None) -> LiveConfig:
        """The thresholds of live.json, with ``overrides`` on top."""
        data = dict(load_json("live.json"))
        data.update(overrides or {})
        known = {f.name: f for f in fields(LiveConfig)}
        kwargs: dict[str, Any] = {}
        for k, v in data.items():
            if k in known:
                kwargs[k] = v
            elif k != "note":
                raise ValueError(f"unknown live setting {k!r}")
        return LiveConfig(**kwargs)


# --------------------------------------------------------------------------------------------
# Changes, verdicts and events
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """A route (``kind`` "route") or city (``kind`` "station") going from ``old`` to ``new``."""

    kind: str
    key: str
    old: str | None
    new: str | None
    confidence: float = 1.0

    def describe(self) -> str:
        what = "route" if self.kind == "route" else "station at"
        return f"{what} {self.key}: {self.old or 'free'} -> {self.new or 'free'}"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "id": self.key,
            "old": self.old,
            "new": self.new,
            "confidence": round(self.confidence, 3),
        }


@dataclass(frozen=True)
class Verdict:
    action: str  # "ok" | "veto" | "confirm"
    reason: str = ""


OK = Verdict("ok")


def veto(reason: str) -> Verdict:
    return Verdict("veto", reason)


def needs_confirmation(reason: str) -> Verdict:
    return Verdict("confirm", reason)


@dataclass
class WatchState:
    """What has been reported so far: route id -> owner, city id -> station colour."""

    routes: dict[str, str] = field(default_factory=dict)
    stations: dict[str, str] = field(default_factory=dict)

    def get(self, kind: str, key: str) -> str | None:
        return (self.routes if kind == "route" else self.stations).get(key)

    def apply(self, change: Change) -> None:
        table = self.routes if change.kind == "route" else self.stations
        if change.new is None:
            table.pop(change.key, None)
        else:
            table[change.key] = change.new


@dataclass(frozen=True)
class ClaimSeen:
    """Trains seen on a route. ``unsure``: the reader could not see them (the route is printed
    in their colour) but most of the route's pixels changed and stayed changed: a question
    for a human rather than a claim to record."""

    route: str
    color: str
    confidence: float
    frame: int
    t: float
    unsure: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "event": "claim",
            "route": self.route,
            "color": self.color,
            "confidence": round(self.confidence, 3),
            "frame": self.frame,
            "t": round(self.t, 3),
        }
        if self.unsure:
            out["unsure"] = True
        return out

    def text(self) -> str:
        mark = ", unsure: same colour as the print" if self.unsure else ""
        return f"claim   {self.route} {self.color} ({self.confidence:.2f}{mark})"


@dataclass(frozen=True)
class StationSeen:
    city: str
    color: str
    confidence: float
    frame: int
    t: float

    def to_json(self) -> dict[str, Any]:
        return {
            "event": "station",
            "city": self.city,
            "color": self.color,
            "confidence": round(self.confidence, 3),
            "frame": self.frame,
            "t": round(self.t, 3),
        }

    def text(self) -> str:
        return f"station {self.city} {self.color} ({self.confidence:.2f})"


@dataclass(frozen=True)
class PieceRemoved:
    """A validator accepted trains or a station leaving the board (the default vetoes it)."""

    change: Change
    frame: int
    t: float

    def to_json(self) -> dict[str, Any]:
        return {
            "event": "removed",
            **self.change.to_json(),
            "frame": self.frame,
            "t": round(self.t, 3),
        }

    def text(self) -> str:
        return f"removed {self.change.describe()}"


@dataclass(frozen=True)
class NeedsConfirmation:
    change: Change
    reason: str
    frame: int
    t: float

    def to_json(self) -> dict[str, Any]:
        return {
            "event": "confirm",
            **self.change.to_json(),
            "reason": self.reason,
            "frame": self.frame,
            "t": round(self.t, 3),
        }

    def text(self) -> str:
        return f"confirm {self.change.describe()}? {self.reason}"


@dataclass(frozen=True)
class Vetoed:
    change: Change
    reason: str
    frame: int
    t: float

    def to_json(self) -> dict[str, Any]:
        return {
            "event": "veto",
            **self.change.to_json(),
            "reason": self.reason,
            "frame": self.frame,
            "t": round(self.t, 3),
        }

    def text(self) -> str:
        return f"veto    {self.change.describe()}: {self.reason}"


@dataclass(frozen=True)
class BoardFound:
    corners: tuple[tuple[float, float], ...]
    relocated: bool
    frame: int
    t: float

    def to_json(self) -> dict[str, Any]:
        return {
            "event": "board",
            "found": True,
            "relocated": self.relocated,
            "corners": [[round(x, 1), round(y, 1)] for x, y in self.corners],
            "frame": self.frame,
            "t": round(self.t, 3),
        }

    def text(self) -> str:
        what = "board moved, found again" if self.relocated else "board found"
        return f"{what} at frame {self.frame}"


@dataclass(frozen=True)
class BoardLost:
    reason: str
    frame: int
    t: float

    def to_json(self) -> dict[str, Any]:
        return {
            "event": "board",
            "found": False,
            "reason": self.reason,
            "frame": self.frame,
            "t": round(self.t, 3),
        }

    def text(self) -> str:
        return f"no board: {self.reason}"


Event = ClaimSeen | StationSeen | PieceRemoved | NeedsConfirmation | Vetoed | BoardFound | BoardLost
Validator = Callable[[Change, WatchState], Verdict]


class RulesValidator:
    """The default checks: what the board itself can tell is impossible.

    Vetoes a route changing owner, trains or a station leaving the board, a station changing
    colour, a player over the trains or stations they own, and one player on both routes of a
    double. Asks for confirmation when the reader is unsure (confidence under ``min_confidence``).
    """

    def __init__(
        self,
        *,
        route_lengths: Mapping[str, int],
        twins: Mapping[str, str | None],
        trains_per_player: int = 45,
        stations_per_player: int = 3,
        min_confidence: float = 0.5,
    ) -> None:
        self.lengths = dict(route_lengths)
        self.twins = dict(twins)
        self.trains = trains_per_player
        self.stations = stations_per_player
        self.min_confidence = min_confidence

    @staticmethod
    def for_geometry(geometry: BoardGeometry, config: LiveConfig) -> RulesValidator:
        return RulesValidator(
            route_lengths={r: info.length for r, info in geometry.routes.items()},
            twins={r: info.twin for r, info in geometry.routes.items()},
            trains_per_player=config.trains_per_player,
            stations_per_player=config.stations_per_player,
            min_confidence=config.min_confidence,
        )

    def __call__(self, change: Change, state: WatchState) -> Verdict:
        if change.kind == "route":
            if change.old is not None and change.new is not None:
                return veto(f"{change.key} already belongs to {change.old}")
            if change.new is None:
                return veto(f"trains do not leave a claimed route ({change.key}, {change.old})")
            length = self.lengths.get(change.key)
            if length is None:
                return veto(f"unknown route {change.key}")
            used = sum(self.lengths.get(r, 0) for r, c in state.routes.items() if c == change.new)
            if used + length > self.trains:
                return veto(
                    f"{change.new} would have {used + length} trains on the board "
                    f"(a player has {self.trains})"
                )
            twin = self.twins.get(change.key)
            if twin and state.routes.get(twin) == change.new:
                return veto(f"{change.new} already holds {twin}, the other route of this double")
        else:
            if change.old is not None and change.new is not None:
                return veto(f"{change.key} already has a {change.old} station")
            if change.new is None:
                return veto(f"stations do not leave the board ({change.key}, {change.old})")
            built = sum(1 for c in state.stations.values() if c == change.new)
            if built + 1 > self.stations:
                return veto(f"{change.new} has no station left (a player has {self.stations})")
        if change.confidence < self.min_confidence:
            return needs_confirmation(f"the camera is unsure ({change.confidence:.2f})")
        return OK


# --------------------------------------------------------------------------------------------
# Readers
# --------------------------------------------------------------------------------------------


class FrameReader(Protocol):
    """What the watcher needs from the board reader."""

    def locate(self, frame: Frame) -> np.ndarray:
        """The board's corners in the frame, TL TR BR BL (4x2); raises NoBoardError."""
        ...

    def read(self, frame: Frame, corners: np.ndarray) -> BoardReading:
        """Read the board whose corners are ``corners``."""
        ...


class CallableReader:
    """Adapts plain functions: ``read(image) -> BoardReading`` and ``locate(image) -> corners``
    (or fixed ``corners``, for a fixed camera already calibrated)."""

    def __init__(
        self,
        read: Callable[[np.ndarray], BoardReading],
        *,
        locate: Callable[[np.ndarray], Any] | None = None,
        corners: Any = None,
    ) -> None:
        if locate is None and corners is None:
            raise ValueError("CallableReader needs a locate function or fixed corners")
        self._read = read
        self._locate = locate
        self._corners = None if corners is None else np.asarray(corners, np.float64).reshape(4, 2)

    def locate(self, frame: Frame) -> np.ndarray:
        if self._locate is not None:
            return np.asarray(self._locate(frame.image), np.float64).reshape(4, 2)
        assert self._corners is not None
        return self._corners

    def read(self, frame: Frame, corners: np.ndarray) -> BoardReading:
        return self._read(frame.image)


class VisionReader:
    """The project's own reader (companion.vision.locate / read), imported when first used.

    ``calibration``: a saved ``companion.vision.calibration.Calibration`` to start from.
    One reader per camera: it keeps the reader's ``ReadCache`` (sampling maps kept while the
    board stays put, unchanged frames not read again). Frames are read as they come: the reader
    decimates a picture itself (by a whole step) only when it holds more pixels per space than
    it needs, so a 1080p frame is never resized.
    """

    def __init__(self, calibration: Any = None) -> None:
        self.calibration = calibration
        self.cache = ReadCache()
        # the local offsets (lens, a board not flat) measured for the current corners
        self._offsets: tuple[bytes, Any] | None = None

    def locate(self, frame: Frame) -> np.ndarray:
        if self.calibration is not None:
            h, w = frame.image.shape[:2]
            loc = self.calibration.location((w, h))
            self.calibration = None  # used once, to start; later calls locate afresh
        else:
            loc = locate_board(frame.image)
        return np.asarray(loc.corners, np.float64).reshape(4, 2)

    def read(self, frame: Frame, corners: np.ndarray) -> BoardReading:
        h, w = frame.image.shape[:2]
        loc = BoardLocation.from_corners(np.asarray(corners, np.float64), (w, h), method="live")
        key = np.asarray(corners, np.float64).tobytes()
        if self._offsets is None or self._offsets[0] != key:
            # once per board position (frames are read only when nothing covers the board)
            self._offsets = (
                key,
                register.local_offsets(frame.image, loc.homography, default_context()),
            )
        loc = replace(loc, offsets=self._offsets[1])
        return read_board(frame.image, location=loc, cache=self.cache)


# --------------------------------------------------------------------------------------------
# The watcher
# --------------------------------------------------------------------------------------------


@dataclass
class FrameStatus:
    """What the watcher made of the last frame (for logs, the dashboard and benchmarks)."""

    state: str = "no-board"  # no-board | moving | settling | occluded | clear | read
    motion: float = 0.0
    change_area: float = 0.0
    reason: str = ""


@dataclass
class _Pending:
    value: str | None
    count: int
    confidences: list[float]


_SKIN_LO = np.array([0, 138, 80], np.uint8)  # YCrCb
_SKIN_HI = np.array([255, 180, 130], np.uint8)


class LiveWatcher:
    """Consumes frames, emits events. One instance per camera; not thread-safe."""

    def __init__(
        self,
        reader: FrameReader,
        *,
        validator: Validator | None = None,
        config: LiveConfig | None = None,
        geometry: BoardGeometry | None = None,
        initial: BoardReading | None = None,
        corners: Any = None,
    ) -> None:
        self.reader = reader
        self.config = config or LiveConfig.load()
        self.geometry = geometry or load_geometry()
        self.validator: Validator = validator or RulesValidator.for_geometry(
            self.geometry, self.config
        )
        self.state = WatchState()
        if initial is not None:
            self.state.routes = {k: v for k, v in initial.routes.items() if v is not None}
            self.state.stations = {k: v for k, v in initial.stations.items() if v is not None}
        cfg = self.config
        self.work_size = (int(cfg.work_width), round(cfg.work_width / self.geometry.aspect))
        self._key_idx = self._key_pixels()
        self._zone = self._piece_zone()
        self._near = self._neighbours()
        self.corners: np.ndarray | None = None
        if corners is not None:
            self.corners = np.asarray(corners, np.float64).reshape(4, 2)
        self.status = FrameStatus()
        self.stats: dict[str, int] = dict.fromkeys(
            (
                "frames",
                "no_board",
                "moving",
                "settling",
                "occluded",
                "reads",
                "relocations",
                "relocations_kept_out",
                "adoptions",
                "no_evidence",
                "twin_spill",
                "claims",
                "stations",
                "vetoes",
                "confirmations",
                "read_errors",
                "hints",
                "hints_vetoed",
            ),
            0,
        )
        self._prev: np.ndarray | None = None
        self._ref: np.ndarray | None = None  # float32 BGR work image of the clean board
        self._ref_gray: np.ndarray | None = None
        self._patches: dict[tuple[str, str], np.ndarray] = {}
        self._steady = 0
        self._steady_t0: float | None = None
        self._occluded_t0: float | None = None
        self._occluded_frames = 0
        self._last_locate = -1e9
        self._last_read = -1e9
        self._pending: dict[tuple[str, str], _Pending] = {}
        self._vetoed: dict[tuple[str, str], str | None] = {}
        self._awaiting: dict[tuple[str, str], Change] = {}
        # routes printed in a player colour whose pixels changed while the reader saw nothing
        self._hints: dict[tuple[str, str], int] = {}
        self._hint_refused: set[tuple[str, str]] = set()
        self._lost_reported = False

    # -- geometry of the work image ----------------------------------------------------------

    def _key_pixels(self) -> dict[tuple[str, str], np.ndarray]:
        ww, wh = self.work_size
        out: dict[tuple[str, str], np.ndarray] = {}
        for rid, info in self.geometry.routes.items():
            if not info.spaces:
                continue
            mask = np.zeros((wh, ww), np.uint8)
            for s in info.spaces:
                box = cv2.boxPoints(
                    ((s.x * ww, s.y * wh), (s.w * ww * 0.85, s.h * wh * 0.8), s.angle)
                )
                cv2.fillPoly(mask, [np.round(box).astype(np.int32)], 1)
            idx = np.flatnonzero(mask)
            if idx.size:
                out[("route", rid)] = idx
        for cid, c in self.geometry.cities.items():
            mask = np.zeros((wh, ww), np.uint8)
            r = max(2, round(0.6 * max(c.w * ww, c.h * wh)))
            cv2.circle(mask, (round(c.x * ww), round(c.y * wh)), r, 1, -1)
            out[("station", cid)] = np.flatnonzero(mask)
        return out

    def _spill_mask(self, key: tuple[str, str]) -> np.ndarray:
        """Where the pieces of ``key`` can change the board's pixels: a route's spaces with room
        for crooked trains and their shadows, or a city's spot with a station beside it."""
        ww, wh = self.work_size
        mask = np.zeros((wh, ww), np.uint8)
        kind, key_id = key
        if kind == "route":
            for s in self.geometry.routes[key_id].spaces:
                box = cv2.boxPoints(
                    ((s.x * ww, s.y * wh + 0.4), (s.w * ww * 1.35, s.h * wh * 2.0), s.angle)
                )
                cv2.fillPoly(mask, [np.round(box).astype(np.int32)], 1)
        else:
            c = self.geometry.cities[key_id]
            r = max(2, round(1.1 * max(c.w * ww, c.h * wh)))
            cv2.circle(mask, (round(c.x * ww), round(c.y * wh)), r, 1, -1)
        return np.asarray(cv2.dilate(mask, np.ones((3, 3), np.uint8))) > 0

    def _neighbours(self) -> dict[tuple[str, str], list[tuple[str, str]]]:
        """For every route and city, the other routes and cities whose pixels its pieces can
        change (a crooked train's end over a city spot, a station's shadow over a track)."""
        keys = list(self._key_idx)
        ww = self.work_size[0]
        rows = {k: (int(v.min()) // ww, int(v.max()) // ww) for k, v in self._key_idx.items()}
        out: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for key in keys:
            spill = self._spill_mask(key)
            ys = np.flatnonzero(spill.any(axis=1))
            if not ys.size:
                continue
            y0, y1 = int(ys[0]), int(ys[-1])
            flat = spill.reshape(-1)
            out[key] = [
                other
                for other in keys
                if other != key
                and rows[other][1] >= y0
                and rows[other][0] <= y1
                and bool(flat[self._key_idx[other]].any())
            ]
        return out

    def _piece_zone(self) -> np.ndarray:
        """Where pieces can appear: every route space (with room for crooked trains and their
        shadows) and every city spot."""
        ww, wh = self.work_size
        mask = np.zeros((wh, ww), np.uint8)
        for info in self.geometry.routes.values():
            for s in info.spaces:
                box = cv2.boxPoints(
                    ((s.x * ww, s.y * wh + 0.4), (s.w * ww * 1.35, s.h * wh * 2.0), s.angle)
                )
                cv2.fillPoly(mask, [np.round(box).astype(np.int32)], 1)
        for c in self.geometry.cities.values():
            r = max(2, round(1.1 * max(c.w * ww, c.h * wh)))
            cv2.circle(mask, (round(c.x * ww), round(c.y * wh)), r, 1, -1)
        grown = cv2.dilate(mask, np.ones((3, 3), np.uint8))
        out: np.ndarray = np.asarray(grown) > 0
        return out

    def _warp(self, image: np.ndarray, corners: np.ndarray) -> np.ndarray:
        """The board, downscaled and warped to the work size (float32 BGR, lightly blurred)."""
        ww, wh = self.work_size
        span = float(np.linalg.norm(corners[1] - corners[0]))
        f = max(1, int(span / (1.5 * ww)))
        img = image
        c = corners
        if f > 1:
            h, w = image.shape[:2]
            img = cv2.resize(image, (w // f, h // f), interpolation=cv2.INTER_AREA)
            c = corners / f
        dst = np.array([[0, 0], [ww, 0], [ww, wh], [0, wh]], np.float32)
        M = cv2.getPerspectiveTransform(c.astype(np.float32), dst)
        warped = cv2.warpPerspective(
            img, M, (ww, wh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        if self.config.work_blur > 0:
            warped = cv2.GaussianBlur(warped, (0, 0), self.config.work_blur)
        return np.asarray(warped)

    def _register(self, image: np.ndarray, corners: np.ndarray) -> np.ndarray:
        """Corners found again (a few pixels off, as any locate is) moved so that the board
        lies where it lay in the reference: the shift between the two board pictures (phase
        correlation, sub-pixel) is taken back into the frame. Without it, the clean-board
        reference would differ from every new frame along every printed line."""
        if self._ref_gray is None:
            return corners
        ww, wh = self.work_size
        gray = cv2.cvtColor(
            np.clip(self._warp(image, corners), 0, 255).astype(np.uint8), cv2.COLOR_BGR2GRAY
        ).astype(np.float32)
        (dx, dy), response = cv2.phaseCorrelate(self._ref_gray.astype(np.float32), gray)
        if response < self.config.register_response or max(abs(dx), abs(dy)) > 0.05 * ww:
            return corners
        dst = np.array([[0, 0], [ww, 0], [ww, wh], [0, wh]], np.float32)
        back = cv2.getPerspectiveTransform(dst, corners.astype(np.float32))
        moved = cv2.perspectiveTransform((dst + np.array([dx, dy], np.float32))[None], back)[0]
        moved = np.asarray(moved, np.float64)
        return self._refine(image, moved)

    def _refine(self, image: np.ndarray, corners: np.ndarray) -> np.ndarray:
        """Corners aligned to the reference beyond a shift: the homography between the two
        board pictures (ECC, started from identity) taken back into the frame. A locate is a
        pixel or two off in scale and turn too, and the reader reads the spaces' boxes at
        their nominal place: a printed box read a fifth of its width off looks like a piece
        (its outline on one side). Kept only when it converges to a small correction."""
        assert self._ref_gray is not None
        cfg = self.config
        ww, wh = self.work_size
        gray = cv2.cvtColor(
            np.clip(self._warp(image, corners), 0, 255).astype(np.uint8), cv2.COLOR_BGR2GRAY
        ).astype(np.float32)
        warp: Any = np.eye(3, dtype=np.float32)
        criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, cfg.refine_iterations, 1e-4)
        try:
            _, warp = cv2.findTransformECC(
                self._ref_gray.astype(np.float32),
                gray,
                warp,
                cv2.MOTION_HOMOGRAPHY,
                criteria,
                np.full(gray.shape, 255, np.uint8),
                3,
            )
        except cv2.error:
            return corners
        dst = np.array([[0, 0], [ww, 0], [ww, wh], [0, wh]], np.float32)
        seen = cv2.perspectiveTransform(dst[None], np.asarray(warp, np.float64))[0]
        if not np.all(np.isfinite(seen)) or float(np.abs(seen - dst).max()) > cfg.refine_max:
            return corners
        back = cv2.getPerspectiveTransform(dst, corners.astype(np.float32))
        out = cv2.perspectiveTransform(seen[None].astype(np.float32), back)[0]
        return np.asarray(out, np.float64)

    # -- public API --------------------------------------------------------------------------

    def process_all(self, frames: Iterable[Frame]) -> list[Event]:
        events: list[Event] = []
        for f in frames:
            events.extend(self.process(f))
        return events

    def process(self, frame: Frame) -> list[Event]:
        """Look at one frame; return the events it completes (usually none)."""
        self.stats["frames"] += 1
        events: list[Event] = []
        t = frame.timestamp
        if self.corners is None and not self._try_locate(frame, events, relocated=False):
            self._set("no-board")
            return events
        assert self.corners is not None
        small_u8 = self._warp(frame.image, self.corners)
        small = small_u8.astype(np.float32)
        gray = cv2.cvtColor(small_u8, cv2.COLOR_BGR2GRAY).astype(np.float32)

        motion = self._motion(gray)
        self._prev = gray
        cfg = self.config
        if motion > cfg.motion_fraction:
            self._steady = 0
            self._steady_t0 = None
            self._occluded_t0 = None
            if cfg.reset_on_motion:
                self._pending.clear()
            self._set("moving", motion)
            return events
        self._steady += 1
        if self._steady_t0 is None:
            self._steady_t0 = t
        if self._steady < cfg.steady_frames or t - self._steady_t0 < cfg.steady_seconds:
            self._set("settling", motion)
            return events

        if self._ref is None:
            self._adopt(small, gray, small_u8, first=True)
        occluded, area, reason = self._occlusion(small, gray, small_u8)
        if occluded:
            self._occluded_frames += 1
            if self._occluded_t0 is None:
                self._occluded_t0 = t
            moved = False
            if (
                self._occluded_frames >= cfg.relocate_after_frames
                and t - self._last_locate >= cfg.locate_interval
            ):
                before = (self.corners.copy(), len(events), small, gray, small_u8)
                moved = self._try_locate(frame, events, relocated=True)
            if moved:
                assert self.corners is not None
                self.corners = self._register(frame.image, self.corners)
                small_u8 = self._warp(frame.image, self.corners)
                small = small_u8.astype(np.float32)
                gray = cv2.cvtColor(small_u8, cv2.COLOR_BGR2GRAY).astype(np.float32)
                occluded2, area2, reason2 = self._occlusion(small, gray, small_u8)
                if occluded2 and area2 > cfg.relocate_keep * area:
                    # Found again, but the board's pixels do not match the reference any
                    # better: the board did not move (a locate a few pixels off, often with
                    # a hand in view). Keep the corners the reference was taken with.
                    self.corners, n_events, small, gray, small_u8 = before
                    del events[n_events:]
                    self.stats["relocations"] -= 1
                    self.stats["relocations_kept_out"] += 1
                else:
                    occluded, area, reason = occluded2, area2, reason2
                self._prev = gray
            if occluded:
                still = t - self._occluded_t0
                if (still >= cfg.adopt_seconds and reason != "arm at the edge") or (
                    still >= cfg.stuck_seconds
                ):
                    log.warning(
                        "something (%s) has lain still on the board for %.1f s: taking it as "
                        "the new normal",
                        reason,
                        still,
                    )
                    self._adopt(small, gray, small_u8, first=False)
                    self.stats["adoptions"] += 1
                self._set("occluded", motion, area, reason)
                return events
        self._occluded_frames = 0
        self._occluded_t0 = None

        if t - self._last_read < cfg.min_read_interval:
            self._set("clear", motion, area)
            return events
        self._last_read = t
        try:
            reading = self.reader.read(frame, self.corners)
        except NoBoardError as exc:
            self.stats["read_errors"] += 1
            log.info("the reader found no board under the current corners: %s", exc)
            self._occluded_frames = cfg.relocate_after_frames
            self._set("occluded", motion, area, "reader: no board")
            return events
        self.stats["reads"] += 1
        self._ref = small
        self._ref_gray = gray
        self._consider(reading, small, frame, events)
        self._set("read", motion, area)
        return events

    def confirm(self, kind: str, key: str, *, frame: int = -1, t: float = 0.0) -> list[Event]:
        """Accept a change that waited for confirmation."""
        change = self._awaiting.pop((kind, key), None)
        if change is None:
            return []
        events: list[Event] = []
        self._accept(change, None, frame, t, events)
        return events

    def reject(self, kind: str, key: str) -> bool:
        """Refuse a change that waited for confirmation (it will not be asked again)."""
        change = self._awaiting.pop((kind, key), None)
        if change is None:
            return False
        self._vetoed[(kind, key)] = change.new
        return True

    def forget(self, kind: str, key: str, color: str, owner: str | None = None) -> bool:
        """Take back a reported ``color`` on route/city ``key`` (``kind`` "route"/"station")
        that the game refused: the record goes back to ``owner`` (the game's; None: free), so
        a later real piece there is judged afresh. False if ``color`` was not on record."""
        if self.state.get(kind, key) != color:
            return False
        self.state.apply(Change(kind, key, color, owner))
        self._awaiting.pop((kind, key), None)
        return True

    # -- steps -------------------------------------------------------------------------------

    def _set(self, state: str, motion: float = 0.0, area: float = 0.0, reason: str = "") -> None:
        self.status = FrameStatus(state, motion, area, reason)
        key = state.replace("-", "_")
        if key in self.stats:
            self.stats[key] += 1

    def _try_locate(self, frame: Frame, events: list[Event], *, relocated: bool) -> bool:
        t = frame.timestamp
        if t - self._last_locate < self.config.locate_interval:
            return False
        self._last_locate = t
        try:
            corners = np.asarray(self.reader.locate(frame), np.float64).reshape(4, 2)
        except NoBoardError as exc:
            if not self._lost_reported:
                events.append(BoardLost(str(exc), frame.index, t))
                self._lost_reported = True
            return False
        self._lost_reported = False
        if self.corners is not None:
            span = float(np.linalg.norm(self.corners[1] - self.corners[0]))
            shift = float(np.abs(corners - self.corners).max())
            if shift < self.config.relocate_shift * span:
                return False
        self.corners = corners
        if relocated:  # found again while steady: the reference (in board space) still holds
            self.stats["relocations"] += 1
        else:
            self._prev = None
            self._steady = 0
            self._steady_t0 = None
        events.append(
            BoardFound(tuple((float(x), float(y)) for x, y in corners), relocated, frame.index, t)
        )
        return True

    def _motion(self, gray: np.ndarray) -> float:
        prev = self._prev
        if prev is None:
            return 1.0
        gain = float(np.median(gray[::4, ::4])) / max(1.0, float(np.median(prev[::4, ::4])))
        gain = min(2.0, max(0.5, gain))
        diff = np.abs(gray - prev * gain)
        return float(np.count_nonzero(diff > self.config.motion_threshold)) / diff.size

    def _adopt(
        self, small: np.ndarray, gray: np.ndarray, small_u8: np.ndarray, *, first: bool
    ) -> None:
        self._ref = small
        self._ref_gray = gray
        flat = small.reshape(-1, 3)
        for key, idx in self._key_idx.items():
            if first or key not in self._patches:
                self._patches[key] = flat[idx].copy()
        self._occluded_t0 = None
        self._occluded_frames = 0

    def _occlusion(
        self, small: np.ndarray, gray: np.ndarray, small_u8: np.ndarray
    ) -> tuple[bool, float, str]:
        """Is something over the board, compared with the last clean picture?"""
        assert self._ref is not None and self._ref_gray is not None
        cfg = self.config
        ref, ref_gray = self._ref, self._ref_gray
        gain = float(np.median(gray[::4, ::4])) / max(1.0, float(np.median(ref_gray[::4, ::4])))
        gain = min(2.0, max(0.5, gain))
        diff = np.abs(small - ref * gain).max(axis=2)
        mask = (diff > cfg.diff_threshold).astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        wh, ww = mask.shape
        total = float(ww * wh)
        area = float(np.count_nonzero(mask)) / total
        if area > 0.0:
            # pieces only go down on route spaces and city spots: change elsewhere is foreign
            foreign = (mask > 0) & ~self._zone
            nf = int(np.count_nonzero(foreign))
            if nf:
                f8 = foreign.astype(np.uint8)
                n, _, stats, _ = cv2.connectedComponentsWithStats(f8, connectivity=8)
                m = cfg.edge_margin
                mx, my = m * ww, m * wh
                for i in range(1, n):
                    x, y, w, h, a = (int(v) for v in stats[i])
                    if a / total > cfg.edge_blob_area and (
                        x <= mx or y <= my or x + w >= ww - mx or y + h >= wh - my
                    ):
                        return True, area, "arm at the edge"
            if nf / total > cfg.foreign_area:
                return True, area, "something over the board"
            if nf / total > cfg.foreign_skin_area:
                skin = self._new_skin(small, ref, small_u8)
                if np.count_nonzero(skin & foreign) / nf > cfg.skin_share:
                    return True, area, "hand"
            if area > cfg.max_change_area:
                return True, area, "large change"
        # shadows: a broad darkening
        soft = cv2.GaussianBlur(gray, (0, 0), 3.0)
        soft_ref = cv2.GaussianBlur(ref_gray, (0, 0), 3.0) * gain
        dark = soft < soft_ref * cfg.shadow_ratio
        if float(np.count_nonzero(dark)) / total > cfg.shadow_area:
            return True, area, "shadow"
        return False, area, ""

    def _new_skin(self, small: np.ndarray, ref: np.ndarray, small_u8: np.ndarray) -> np.ndarray:
        """Skin-coloured pixels whose chromaticity changed since the reference.

        The tan parchment of the board is skin-coloured too, and darkening it (a piece's shadow)
        keeps its chromaticity: only a change of hue marks a hand."""
        ycc = cv2.cvtColor(small_u8, cv2.COLOR_BGR2YCrCb)
        skin = cv2.inRange(ycc, _SKIN_LO, _SKIN_HI) > 0
        now = small / (small.sum(axis=2, keepdims=True) + 1.0)
        before = ref / (ref.sum(axis=2, keepdims=True) + 1.0)
        shift = np.abs(now - before).max(axis=2)
        out: np.ndarray = skin & (shift > self.config.skin_chroma_shift)
        return out

    def _evidence(self, key: tuple[str, str], flat: np.ndarray, gain: float) -> float:
        """Share of the route's spaces (or the city's spot) that changed since its state was
        last reported: pieces put down change most of it, a neighbour's crooked train a bit."""
        idx = self._key_idx.get(key)
        before = self._patches.get(key)
        if idx is None or before is None:
            return 1.0
        diff = np.abs(flat[idx] - before * gain).max(axis=1)
        changed = int(np.count_nonzero(diff > self.config.evidence_pixel))
        return changed / max(1, int(diff.size))

    def _refresh(self, key: tuple[str, str], flat: np.ndarray) -> None:
        """Take the present look of ``key`` as its reference, forgetting any half-read change
        (one turn puts down one route or one station, never a route and its neighbours)."""
        idx = self._key_idx.get(key)
        if idx is not None:
            self._patches[key] = flat[idx].copy()
            self._pending.pop(key, None)

    def _refresh_patch(self, key: tuple[str, str], flat: np.ndarray) -> None:
        """Take the present look of ``key`` as its reference (keeping any half-read change)."""
        idx = self._key_idx.get(key)
        if idx is not None:
            self._patches[key] = flat[idx].copy()

    def _consider(
        self, reading: BoardReading, small: np.ndarray, frame: Frame, events: list[Event]
    ) -> None:
        cfg = self.config
        flat = small.reshape(-1, 3)
        gain = 1.0
        for kind, values in (("route", reading.routes), ("station", reading.stations)):
            for key_id, value in values.items():
                key = (kind, key_id)
                current = self.state.get(kind, key_id)
                if value == current:
                    self._pending.pop(key, None)
                    self._vetoed.pop(key, None)
                    self._awaiting.pop(key, None)
                    if kind == "route" and value is None:
                        self._same_colour_hint(key_id, flat, gain, frame, events, reading)
                    continue
                self._hints.pop(key, None)
                if key in self._vetoed and self._vetoed[key] == value:
                    continue
                waiting = self._awaiting.get(key)
                if waiting is not None and waiting.new == value:
                    continue
                evidence = self._evidence(key, flat, gain)
                if evidence < cfg.evidence_share:
                    self.stats["no_evidence"] += 1
                    self._pending.pop(key, None)
                    continue
                if kind == "route" and self._twin_stronger(key_id, evidence, flat, gain):
                    # the change is stronger on the other route of the double: its trains
                    # spill over here, and the reader may be confusing the two
                    self.stats["twin_spill"] += 1
                    self._pending.pop(key, None)
                    continue
                conf = float(reading.confidence.get(key_id, 1.0))
                p = self._pending.get(key)
                if p is not None and p.value == value:
                    p.count += 1
                    p.confidences.append(conf)
                else:
                    p = _Pending(value, 1, [conf])
                    self._pending[key] = p
                if p.count < cfg.confirm_reads:
                    continue
                del self._pending[key]
                change = Change(kind, key_id, current, value, float(np.mean(p.confidences)))
                verdict = self.validator(change, self.state)
                if verdict.action == "ok":
                    self._accept(change, flat, frame.index, frame.timestamp, events, reading)
                elif verdict.action == "confirm":
                    self._awaiting[key] = change
                    self.stats["confirmations"] += 1
                    events.append(
                        NeedsConfirmation(change, verdict.reason, frame.index, frame.timestamp)
                    )
                else:
                    self._vetoed[key] = value
                    self.stats["vetoes"] += 1
                    events.append(Vetoed(change, verdict.reason, frame.index, frame.timestamp))

    def _twin_stronger(self, route: str, evidence: float, flat: np.ndarray, gain: float) -> bool:
        """Did the other route of this double change more than ``evidence`` (this route's,
        plus ``twin_margin``)? Then its trains spill over here."""
        twin = self.geometry.routes[route].twin
        if twin is None:
            return False
        return self._evidence(("route", twin), flat, gain) > evidence + self.config.twin_margin

    def _same_colour_hint(
        self,
        route: str,
        flat: np.ndarray,
        gain: float,
        frame: Frame,
        events: list[Event],
        reading: BoardReading,
    ) -> None:
        """A free route printed in a player's colour whose pixels changed (most of them, and
        more than its twin's) for ``confirm_reads`` reads in a row while the reader still sees
        it free: trains of that colour were most likely put on it. Reported as an unsure
        claim (the game asks a human), once; the rules' vetoes apply as to any claim."""
        cfg = self.config
        key = ("route", route)
        info = self.geometry.routes[route]
        if info.color not in PLAYER_COLORS or key in self._hint_refused:
            return
        evidence = self._evidence(key, flat, gain)
        if evidence < cfg.same_colour_evidence or self._twin_stronger(route, evidence, flat, gain):
            self._hints.pop(key, None)
            return
        count = self._hints.get(key, 0) + 1
        self._hints[key] = count
        if count < cfg.confirm_reads:
            return
        del self._hints[key]
        change = Change("route", route, None, info.color, cfg.same_colour_confidence)
        verdict = self.validator(change, self.state)
        if verdict.action == "veto":
            self._hint_refused.add(key)
            self.stats["hints_vetoed"] += 1
            return
        self.stats["hints"] += 1
        self._accept(change, flat, frame.index, frame.timestamp, events, reading, unsure=True)

    def _accept(
        self,
        change: Change,
        flat: np.ndarray | None,
        index: int,
        t: float,
        events: list[Event],
        reading: BoardReading | None = None,
        *,
        unsure: bool = False,
    ) -> None:
        key = (change.kind, change.key)
        self.state.apply(change)
        if flat is None and self._ref is not None:
            flat = self._ref.reshape(-1, 3)
        idx = self._key_idx.get(key)
        if flat is not None and idx is not None:
            self._patches[key] = flat[idx].copy()
            info = self.geometry.routes.get(change.key) if change.kind == "route" else None
            if info is not None:
                # new trains spill onto the other route of a double and the cities at the ends
                if info.twin:
                    self._refresh(("route", info.twin), flat)
                self._refresh(("station", info.a), flat)
                self._refresh(("station", info.b), flat)
            # ... and onto whatever lies beside them (a city the track passes, a crossing
            # route): their pixels changed because of these pieces, which must not count as
            # evidence of a change there later. Only where the reader still sees what was
            # reported: a piece put down there meanwhile keeps its evidence.
            for other in self._near.get(key, ()):
                if reading is not None:
                    seen = (reading.routes if other[0] == "route" else reading.stations).get(
                        other[1]
                    )
                    if seen != self.state.get(*other):
                        continue
                self._refresh_patch(other, flat)
        self._vetoed.pop(key, None)
        if change.new is None:
            events.append(PieceRemoved(change, index, t))
        elif change.kind == "route":
            self.stats["claims"] += 1
            events.append(ClaimSeen(change.key, change.new, change.confidence, index, t, unsure))
        else:
            self.stats["stations"] += 1
            events.append(StationSeen(change.key, change.new, change.confidence, index, t))
