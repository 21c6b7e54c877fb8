"""The black box's recorder: the frames of a game's board, kept in the state directory.

While a Europe game is played at the table with a camera, it keeps (``layout`` tells where):

* the steady frame just before and just after every camera event (a claim or station seen, a
  question, a veto, several routes changed at once, the board lost): "before" is the last clean
  frame the watcher read before the latest motion, "after" the frame the event was decided on;
* the frame at every move, whatever made it (phone, reader, button, camera): the newest clean
  frame when the log grew;
* one clean frame every ``every`` seconds of camera time otherwise.

Each with its time, the log position, the camera's location (corners and local offsets) and
table-profile version, and the reading's summary (what it saw, its check list); and the service's
decision on each claim or station seen (for ``companion replay``).

The camera's thread only decides what to keep and queues it (a bounded queue: when it is full the
frame is dropped and counted); the JPEG is made and written on the recorder's own thread, never the
game loop's, which only notes a new log position. Bounded: over the cap, the oldest other games'
recordings go first, never the current game's; a current game alone over the cap, or a full disk,
stops the recording with one notice to the host (no action is lost: recording never raises into
the camera or the loop).
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.blackbox import layout
from companion.blackbox.writer import Writer

log = logging.getLogger(__name__)

# the watcher's events kept as camera events (their class names)
EVENT_KINDS = {
    "ClaimSeen": "claim",
    "StationSeen": "station",
    "Vetoed": "veto",
    "NeedsConfirmation": "confirm",
    "BoardLost": "board_lost",
    "PieceRemoved": "removed",
    "LookChanged": "look_changed",
}


@dataclass(frozen=True)
class Settings:
    """What the configuration says (``[recording]``): see ``config.RecordingConfig``."""

    enabled: bool = True
    every: float = 30.0
    quality: int = 85
    cap: int = 1024 * 1024 * 1024  # bytes

    @staticmethod
    def of(config: Any) -> Settings:
        if config is None:
            return Settings()
        return Settings(
            bool(config.enabled), float(config.every), int(config.quality), int(config.cap_mb) << 20
        )


@dataclass
class Clean:
    """A frame the watcher read (nothing over the board)."""

    image: Any
    index: int
    t: float
    epoch: int  # motion periods seen before it
    corners: Any
    reading: Any


@dataclass
class GameState:
    """The current game's recording, as the camera's thread knows it."""

    game_id: str
    next_n: int = 1
    next_event: int = 1
    locations: list[bytes] = field(default_factory=list)
    profile_obj: Any = None
    profile_version: int = 0
    written: OrderedDict[int, int] = field(default_factory=OrderedDict)  # frame index -> n
    ids: dict[int, int] = field(default_factory=dict)  # id() of the last frame's events -> e
    last_every: float | None = None


def event_json(event: Any) -> dict[str, Any]:
    """A watcher event as recorded: ``kind`` (claim, station, veto, confirm, board_lost,
    removed, look_changed) and its fields (a change's own kind, route or station, as ``what``)."""
    data = dict(event.to_json())
    data.pop("event", None)
    if "kind" in data:
        data["what"] = data.pop("kind")
    data["kind"] = EVENT_KINDS.get(type(event).__name__, "other")
    return data


def offsets_json(offsets: Any) -> dict[str, Any] | None:
    if offsets is None:
        return None
    return {
        "spaces": offsets.spaces.tolist(),
        "cities": offsets.cities.tolist(),
        "measured": int(offsets.measured),
    }


def inner_offsets(reader: Any) -> Any:
    """The local offsets the innermost ``VisionReader`` reads with (None without one)."""
    seen = 0
    while reader is not None and seen < 8:
        get = getattr(reader, "local_offsets", None)
        if callable(get):
            return get()
        reader = getattr(reader, "inner", None)
        seen += 1
    return None


class RecordingReader:
    """The live reader, remembered: the last reading, its frame and corners (the camera's
    thread)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.last: tuple[int, Any, Any] | None = None

    def locate(self, frame: Any) -> Any:
        return self.inner.locate(frame)

    def read(self, frame: Any, corners: Any) -> Any:
        reading = self.inner.read(frame, corners)
        self.last = (frame.index, reading, corners)
        return reading


Now = Callable[[], Mapping[str, Any]]  # the public state (seq, game_id, game, mode, phase)


class Recorder:
    """See the module note. ``now``: the public state; ``games``: the store's game rows;
    ``notice``: ``Streams.notice``; ``profiles``: the table profile store (or None)."""

    def __init__(
        self,
        state_dir: Path,
        settings: Settings,
        *,
        now: Now,
        games: Callable[[], list[Any]],
        notice: Callable[..., None],
        profiles: Any = None,
        camera: str = "",
        write: Callable[[Path, bytes], None] | None = None,
    ) -> None:
        cfg = layout.settings()
        self.state_dir = Path(state_dir)
        self.settings = settings
        self.camera = camera
        self._now = now
        self.profiles = profiles
        self.writer = Writer(
            state_dir,
            quality=settings.quality,
            cap=settings.cap,
            games=games,
            notice=notice,
            write=write,
        )
        # the newest clean frames: enough for the reads that confirm an event
        self._ring: deque[Clean] = deque(maxlen=int(cfg["ring"]))
        self._keep_written = int(cfg["keep_written"])
        self._epoch = 0
        self._before: Clean | None = None  # the last clean frame before the latest motion
        self._moving = False
        self._moves: deque[int] = deque(maxlen=256)  # log positions heard (loop thread)
        self._refusals: deque[dict[str, Any]] = deque(maxlen=256)
        self._last_index = -1
        self._last_seq = -1
        self.game: GameState | None = None
        self.reader: RecordingReader | None = None
        self.handler: logging.Handler | None = None

    # -- wiring -----------------------------------------------------------------------------

    def tap(self, reader: Any) -> RecordingReader:
        self.reader = RecordingReader(reader)
        return self.reader

    @property
    def stopped(self) -> str | None:
        return self.writer.stopped

    @property
    def dropped(self) -> int:
        return self.writer.dropped

    def start(self) -> Recorder:
        if self.settings.enabled:
            self.writer.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        if self.handler is not None:
            logging.getLogger("companion").removeHandler(self.handler)
            self.handler = None
        game = self.game
        if game is not None and self.writer.running:
            self._put("log", (game.game_id, list(self.writer.log_lines)))
        self.writer.stop(timeout)
        if self.settings.enabled:
            log.info(
                "black box: %d frames written, %d dropped%s",
                self.writer.written,
                self.dropped,
                f", stopped ({self.stopped})" if self.stopped else "",
            )

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every queued job is written (tests, the report)."""
        return self.writer.flush(timeout)

    # -- the game loop's listener (it only notes) ---------------------------------------------

    def heard(self, kind: str, data: dict[str, Any]) -> None:
        if kind == "state":
            seq = int(data.get("seq") or 0)
            if seq != self._last_seq:
                self._last_seq = seq
                self._moves.append(seq)

    # -- the camera's thread -------------------------------------------------------------------

    def forgot(self, kind: str, key: str, color: str, owner: str | None) -> None:
        """The camera's watcher takes back a sighting the game refused, now: after the last
        frame it looked at and before the next (``devices.forget_refused``). Recorded with that
        last frame, so the replay forgets it before the same next frame. Noted here rather
        than when the game refused it (the loop's thread): the camera may be half-way through
        a frame then, and the watcher forgets it one frame later than the loop would say."""
        if not self.settings.enabled or self.stopped:
            return
        self._refusals.append(
            {
                "type": "refused",
                "frame": self._last_index,
                "kind": kind,
                "key": str(key),
                "color": str(color),
                "owner": owner,
            }
        )

    def observed(self, event: Any, future: Future[Any]) -> None:
        """A claim or station seen (after :meth:`look` kept it) went to the service: record
        its decision when it is made."""
        game = self.game
        e = game.ids.get(id(event)) if game is not None else None
        if game is None or e is None or self.stopped:
            return
        game_id = game.game_id
        future.add_done_callback(lambda f: self._decided(game_id, e, f))

    def _decided(self, game_id: str, e: int, fut: Future[Any]) -> None:
        try:
            out = fut.result()
        except Exception as exc:  # a refusal the loop raised: the decision is "refused"
            out = {"result": "refused", "text": str(exc)}
        record = {
            "type": "decision",
            "e": e,
            "result": out.get("result"),
            "seq": out.get("before"),
            "after": out.get("seq"),
            "pending": out.get("pending"),
        }
        self._put("record", (game_id, record))

    def look(self, frame: Any, watcher: Any, events: list[Any]) -> None:
        """After the watcher looked at ``frame`` (and the service was told its events)."""
        if not self.settings.enabled or self.stopped:
            return
        self._last_index = int(frame.index)
        snap = self._now()
        game_id = snap.get("game_id")
        live = (
            game_id is not None
            and snap.get("game") in (None, "europe")
            and snap.get("mode") == "table"
        )
        if not live:
            self._moves.clear()
            return
        assert isinstance(game_id, str)
        seq = int(snap.get("seq") or 0)
        if snap.get("phase") == "finished":  # the last moves' frame, then nothing more
            if self.game is not None and self.game.game_id == game_id and self._moves:
                self._moves.clear()
                if self._ring:
                    self._keep(self._ring[-1], seq, "move")
            return
        if self.game is None or self.game.game_id != game_id:
            self._begin(game_id, frame, watcher)
        game = self.game
        assert game is not None
        state = watcher.status.state
        if state == "moving":
            if not self._moving:
                self._epoch += 1
                # the board as it was before this motion: the newest clean frame
                if self._ring:
                    self._before = self._ring[-1]
            self._moving = True
        elif state == "read":
            self._moving = False
            last = self.reader.last if self.reader is not None else None
            reading = last[1] if last is not None and last[0] == frame.index else None
            clean = Clean(
                frame.image, frame.index, frame.timestamp, self._epoch, watcher.corners, reading
            )
            self._ring.append(clean)
        newest = self._ring[-1] if self._ring else None
        game.ids = {}
        while self._refusals:
            self._put("record", (game_id, self._refusals.popleft()))
        for event in events:
            kind = EVENT_KINDS.get(type(event).__name__)
            if kind is None:
                continue
            before = next((c for c in reversed(self._ring) if c.epoch < self._epoch), None)
            before = before or self._before
            if before is not None and before.index == frame.index:
                before = None
            b = self._keep(before, seq, "before") if before is not None else None
            if state == "read" and newest is not None and newest.index == frame.index:
                # the reads that confirmed it (the last is this frame): a replay reads them too
                confirm = max(1, int(getattr(watcher.config, "confirm_reads", 1)))
                reads = [c for c in self._ring if c.reading is not None][-confirm:]
                for c in reads[:-1]:
                    self._keep(c, seq, "confirm")
                a = self._keep(newest, seq, "after")
            else:  # the board lost: the frame as it is
                raw = Clean(frame.image, frame.index, frame.timestamp, self._epoch, None, None)
                a = self._keep(raw, seq, "after")
            record = {
                "type": "event",
                "e": game.next_event,
                "frame": int(frame.index),
                "t": round(float(frame.timestamp), 3),
                "seq": seq,
                "event": event_json(event),
                "before": b,
                "after": a,
            }
            game.ids[id(event)] = game.next_event
            game.next_event += 1
            self._put("record", (game_id, record))
        while self._moves:
            moved = self._moves.popleft()
            if newest is not None:
                self._keep(newest, moved, "move")
        if newest is not None:
            every = game.last_every
            if every is None or frame.timestamp - every >= self.settings.every:
                game.last_every = float(frame.timestamp)
                if newest.index not in game.written:
                    self._keep(newest, seq, "every")

    def _begin(self, game_id: str, frame: Any, watcher: Any) -> None:
        self.game = GameState(game_id)
        self._moves.clear()
        h, w = frame.image.shape[:2]
        state = getattr(watcher, "state", None)
        record = {
            "type": "start",
            "game": game_id,
            "camera": self.camera,
            "size": [int(w), int(h)],
            "quality": self.settings.quality,
            "every": self.settings.every,
            "wall": round(time.time(), 3),
            "watch": {
                "routes": dict(getattr(state, "routes", {}) or {}),
                "stations": dict(getattr(state, "stations", {}) or {}),
            },
        }
        self._put("record", (game_id, record))

    def _location(self, game: GameState, corners: Any) -> int | None:
        if corners is None:
            return None
        import numpy as np

        arr = np.asarray(corners, np.float64).reshape(4, 2)
        key = arr.tobytes()
        if key in game.locations:
            return game.locations.index(key) + 1
        game.locations.append(key)
        lid = len(game.locations)
        offsets = inner_offsets(self.reader)
        record = {
            "type": "location",
            "id": lid,
            "corners": arr.tolist(),
            "offsets": offsets_json(offsets),
        }
        self._put("record", (game.game_id, record))
        return lid

    def _profile(self, game: GameState) -> int:
        profile = getattr(self.profiles, "profile", None) if self.profiles is not None else None
        if profile is None:
            return 0
        if profile is not game.profile_obj:
            game.profile_obj = profile
            game.profile_version += 1
            self._put("profile", (game.game_id, game.profile_version, profile))
        return game.profile_version

    def _keep(self, clean: Clean, seq: int, why: str) -> int | None:
        """Queue ``clean`` (once) and a record of it; its frame number (None: dropped)."""
        game = self.game
        assert game is not None
        n = game.written.get(clean.index)
        record = {
            "type": "frame",
            "index": int(clean.index),
            "t": round(float(clean.t), 3),
            "wall": round(time.time(), 3),
            "seq": int(seq),
            "why": why,
            "location": self._location(game, clean.corners),
            "profile": self._profile(game),
        }
        if n is not None:  # already written: only the record
            record["n"] = n
            record["file"] = layout.frame_name(n)
            self._put("record", (game.game_id, record))
            return n
        n = game.next_n
        record["n"] = n
        record["file"] = layout.frame_name(n)
        if not self._put("frame", (game.game_id, clean, record)):
            return None
        game.next_n += 1
        game.written[clean.index] = n
        while len(game.written) > self._keep_written:
            game.written.popitem(last=False)
        return n

    def log_line(self, line: str) -> None:
        """A log line (any thread): kept in memory, and in the game's ``log.txt`` (at most
        every 10 s, with a frame)."""
        self.writer.log_lines.append(line)

    def _put(self, kind: str, job: Any) -> bool:
        return self.writer.put(kind, job)

    def status(self) -> dict[str, Any]:
        return {
            "recording": bool(self.settings.enabled and self.writer.running),
            "stopped": self.stopped,
            "dropped": self.dropped,
            "written": self.writer.written,
            "every": self.settings.every,
            "quality": self.settings.quality,
        }


class LogLines(logging.Handler):
    """The companion's log lines, kept in the current game's recording (``log.txt``)."""

    def __init__(self, recorder: Recorder) -> None:
        super().__init__(logging.INFO)
        self.recorder = recorder
        self.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        if record.name == __name__:
            return  # its own lines (a full disk) would only feed themselves
        try:
            line = self.format(record)
        except Exception:
            return
        self.recorder.log_line(line)


def for_service(service: Any, state_dir: Path, settings: Settings, *, camera: str) -> Recorder:
    """A recorder wired to a running service: its public state, its games, its host notices,
    the table profile, and the service's listeners; started, with the log lines."""
    rec = Recorder(
        state_dir,
        settings,
        now=service.state,
        games=service.store.games,
        notice=service.streams.notice,
        profiles=service.profiles,
        camera=camera,
    )
    if settings.enabled:
        service.listeners.append(rec.heard)
        handler = LogLines(rec)
        logging.getLogger("companion").addHandler(handler)
        rec.handler = handler
    return rec.start()
