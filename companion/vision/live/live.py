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
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np

from companion.vision.geometry.board import DrawnBoard, load_geometry
from companion.vision.live import live_steady as steady
from companion.vision.live.live_board import Patches, WorkBoard
from companion.vision.live.live_events import (
    OK,
    BoardFound,
    BoardLost,
    Change,
    ClaimSeen,
    Event,
    LiveConfig,
    LookChanged,
    NeedsConfirmation,
    PieceRemoved,
    RulesValidator,
    StationSeen,
    Validator,
    Verdict,
    Vetoed,
    WatchState,
    needs_confirmation,
    veto,
)
from companion.vision.live.live_hints import SameColourHints, candidates
from companion.vision.live.readers import CallableReader, FrameReader, VisionReader
from companion.vision.live.sources import Frame
from companion.vision.types import PLAYER_COLORS, BoardReading, NoBoardError

__all__ = [
    "OK",
    "BoardFound",
    "BoardLost",
    "CallableReader",
    "Change",
    "ClaimSeen",
    "Event",
    "FrameReader",
    "FrameStatus",
    "LiveConfig",
    "LiveWatcher",
    "LookChanged",
    "NeedsConfirmation",
    "PieceRemoved",
    "RulesValidator",
    "StationSeen",
    "Validator",
    "Verdict",
    "Vetoed",
    "VisionReader",
    "WatchState",
    "as_questions",
    "needs_confirmation",
    "veto",
]

log = logging.getLogger(__name__)


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


STAT_KEYS = (
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
    "hints_held",
    "hints_settled",
)


class LiveWatcher:
    """Consumes frames, emits events. One instance per camera; not thread-safe."""

    def __init__(
        self,
        reader: FrameReader,
        *,
        validator: Validator | None = None,
        config: LiveConfig | None = None,
        geometry: DrawnBoard | None = None,
        initial: BoardReading | None = None,
        corners: Any = None,
        players: Iterable[str] | None = None,
    ) -> None:
        self.reader = reader
        self.config = config or LiveConfig.load()
        self.geometry = geometry or load_geometry()
        self.validator: Validator = validator or RulesValidator.for_geometry(
            self.geometry, self.config
        )
        self.state = WatchState() if initial is None else WatchState.seen_in(initial)
        self.board = WorkBoard(self.geometry, self.config)
        self.corners: np.ndarray | None = None
        if corners is not None:
            self.corners = np.asarray(corners, np.float64).reshape(4, 2)
        self.status = FrameStatus()
        self.stats: dict[str, int] = dict.fromkeys(STAT_KEYS, 0)
        self._prev: np.ndarray | None = None
        self._ref: np.ndarray | None = None  # float32 BGR work image of the clean board
        self._ref_gray: np.ndarray | None = None
        self._ref_level = 0.0  # the reference's brightness (see WorkBoard.level)
        self._patches = Patches(self.board.key_idx, self.board.spaces)
        self._steady = 0
        self._steady_t0: float | None = None
        self._occluded_t0: float | None = None
        self._occluded_frames = 0
        self._last_locate = -1e9
        self._last_read = -1e9
        self._pending: dict[tuple[str, str], _Pending] = {}
        self._vetoed: dict[tuple[str, str], str | None] = {}
        self._awaiting: dict[tuple[str, str], Change] = {}
        self._hints = SameColourHints(self.config)  # the same-colour guess (live_hints)
        self.players = players
        self._lost_reported = False

    # -- public API --------------------------------------------------------------------------

    @property
    def players(self) -> frozenset[str] | None:
        """The colours that play (the service's game; None: not known): see ``live_hints``."""
        return self._hints.players

    @players.setter
    def players(self, colours: Iterable[str] | None) -> None:
        self._hints.follow(colours)

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
        small_u8 = self.board.warp(frame.image, self.corners)
        small = small_u8.astype(np.float32)
        gray = cv2.cvtColor(small_u8, cv2.COLOR_BGR2GRAY).astype(np.float32)

        cfg = self.config
        motion = steady.motion(gray, self._prev, cfg)
        self._prev = gray
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
                self.corners = self.board.register(frame.image, self.corners, self._ref_gray)
                small_u8 = self.board.warp(frame.image, self.corners)
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
        self._ref, self._ref_gray, self._ref_level = small, gray, self.board.level(gray)
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

    def _occlusion(
        self, small: np.ndarray, gray: np.ndarray, small_u8: np.ndarray
    ) -> tuple[bool, float, str]:
        """Is something over the board, compared with the last clean picture?"""
        assert self._ref is not None and self._ref_gray is not None
        ref, ref_gray, zone = self._ref, self._ref_gray, self.board.zone
        return steady.occlusion(small, gray, small_u8, ref, ref_gray, zone, self.config)

    def _adopt(
        self, small: np.ndarray, gray: np.ndarray, small_u8: np.ndarray, *, first: bool
    ) -> None:
        self._ref, self._ref_gray, self._ref_level = small, gray, self.board.level(gray)
        flat = small.reshape(-1, 3)
        self._patches.adopt(flat, self._ref_level, first=first)
        self._occluded_t0 = None
        self._occluded_frames = 0

    def _evidence(self, key: tuple[str, str], flat: np.ndarray) -> float:
        return self._patches.evidence(key, flat, self._ref_level, self.config.evidence_pixel)

    def _refresh(self, key: tuple[str, str], flat: np.ndarray) -> None:
        """Take the present look of ``key`` as its reference, forgetting any half-read change
        (one turn puts down one route or one station, never a route and its neighbours)."""
        if self._patches.take(key, flat, self._ref_level):
            self._pending.pop(key, None)

    def _refresh_patch(self, key: tuple[str, str], flat: np.ndarray) -> None:
        """Take the present look of ``key`` as its reference (keeping any half-read change)."""
        self._patches.take(key, flat, self._ref_level)

    def _consider(
        self, reading: BoardReading, small: np.ndarray, frame: Frame, events: list[Event]
    ) -> None:
        cfg = self.config
        flat = small.reshape(-1, 3)
        free: list[str] = []  # routes read free, as reported: the same-colour guess's ground
        for kind, values in (("route", reading.routes), ("station", reading.stations)):
            for key_id, value in values.items():
                key = (kind, key_id)
                current = self.state.get(kind, key_id)
                if value == current:
                    self._pending.pop(key, None)
                    self._vetoed.pop(key, None)
                    self._awaiting.pop(key, None)
                    if kind == "route" and value is None:
                        free.append(key_id)
                    continue
                if key in self._vetoed and self._vetoed[key] == value:
                    continue
                waiting = self._awaiting.get(key)
                if waiting is not None and waiting.new == value:
                    continue
                evidence = self._evidence(key, flat)
                if evidence < cfg.evidence_share:
                    self.stats["no_evidence"] += 1
                    self._pending.pop(key, None)
                    continue
                if kind == "route" and self._twin_stronger(key_id, evidence, flat):
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
                if verdict.action == "ok" and key_id in reading.check:
                    # the reader itself says a person should confirm this one
                    verdict = needs_confirmation("the camera asks a person to check it")
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
        self._same_colour(free, flat, frame, events, reading)

    def _twin_stronger(self, route: str, evidence: float, flat: np.ndarray) -> bool:
        """Did the other route of this double change more than ``evidence`` (this route's,
        plus ``twin_margin``)? Then its trains spill over here."""
        twin = self.geometry.routes[route].twin
        if twin is None:
            return False
        return self._evidence(("route", twin), flat) > evidence + self.config.twin_margin

    def _same_colour(
        self,
        free: list[str],
        flat: np.ndarray,
        frame: Frame,
        out: list[Event],
        reading: BoardReading,
    ) -> None:
        """The same-colour guess on the routes read free (``free``): see ``live_hints``."""
        cfg = self.config
        look = (flat, self._ref_level)
        ruling = self._hints.judge(candidates(free, self.geometry, self._patches, look, cfg))
        self.stats["hints_held"] += ruling.held
        if ruling.settle:  # their look changed for a while: taken as it is, the host asked
            out.append(LookChanged(ruling.settle, frame.index, frame.timestamp))
        for route in ruling.settle:
            self._refresh(("route", route), flat)
        self.stats["hints_settled"] += len(ruling.settle)
        if ruling.guess is None:
            return
        info = self.geometry.routes[ruling.guess]
        change = Change("route", ruling.guess, None, info.color, cfg.same_colour_confidence)
        if self.validator(change, self.state).action == "veto":
            self._hints.refuse(ruling.guess)
            self.stats["hints_vetoed"] += 1
            return
        self.stats["hints"] += 1
        self._accept(change, flat, frame.index, frame.timestamp, out, reading, unsure=True)

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
        if flat is not None and self._patches.take(key, flat, self._ref_level):
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
            for other in self.board.near.get(key, ()):
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


def as_questions(watcher: LiveWatcher, events: Iterable[Event]) -> list[Event]:
    """The watcher's events as the service takes them: a claim of a free route that waits for
    confirmation (the reading listed it, or read it unsure) is recorded by the watcher and
    reported as an unsure ``ClaimSeen`` (``listed``), so the service asks the host a yes/no
    question it can enter; a "no" comes back through ``LiveWatcher.forget``. Other waiting
    changes (stations, a route changing owner) stay ``NeedsConfirmation`` notices."""
    out: list[Event] = []
    for e in events:
        if not isinstance(e, NeedsConfirmation) or not _free_route_claim(e.change):
            out.append(e)
            continue
        for done in watcher.confirm(e.change.kind, e.change.key, frame=e.frame, t=e.t):
            if isinstance(done, ClaimSeen):
                done = replace(done, unsure=True, listed=True)
            out.append(done)
    return out


def _free_route_claim(ch: Change) -> bool:
    return ch.kind == "route" and ch.old is None and ch.new in PLAYER_COLORS
