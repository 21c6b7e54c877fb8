"""The black box's writer: the recorder's own thread, which makes the JPEGs and writes the
records (never the camera's thread, never the game loop's).

Jobs come through a bounded queue (:meth:`Writer.put` never waits: a job that does not fit is
dropped and counted). Before a frame is written, :meth:`Writer._room` keeps the recordings under
the cap: the oldest other games' recordings go first, never the current game's; the current game
alone over the cap stops the recording, as does a disk that cannot be written, each with one
notice to the host. A failure here never reaches the camera or the loop.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.blackbox import layout

log = logging.getLogger("companion.blackbox.recorder")


def summary(reading: Any) -> dict[str, Any] | None:
    """The reading's summary: the routes and stations it saw (not free), its check list."""
    if reading is None:
        return None
    out = reading.to_json()
    return {
        "routes": {k: v for k, v in out["routes"].items() if v},
        "stations": {k: v for k, v in out["stations"].items() if v},
        "check": out.get("check", []),
    }


def write_file(path: Path, blob: bytes) -> None:
    with path.open("wb") as f:
        f.write(blob)


class Writer:
    """The writing thread (see the module note). ``quality``, ``cap`` (bytes): the settings;
    ``games``: the store's game rows (for the order recordings go in); ``notice``:
    ``Streams.notice``; ``write``: how a file is written (a test's full disk)."""

    def __init__(
        self,
        state_dir: Path,
        *,
        quality: int,
        cap: int,
        games: Callable[[], list[Any]],
        notice: Callable[..., None],
        write: Callable[[Path, bytes], None] | None = None,
    ) -> None:
        cfg = layout.settings()
        self.state_dir = Path(state_dir)
        self.quality = quality
        self.cap = cap
        self._games = games
        self._notice = notice
        self._write_file = write or write_file
        self._queue: queue.Queue[tuple[str, Any] | None] = queue.Queue(int(cfg["queue"]))
        self._most_frames = int(cfg["queue_frames"])
        self._frames_waiting = 0
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._bytes: int | None = None  # the recordings' size (this thread)
        self._log_at = -1e9
        self.log_lines: deque[str] = deque(maxlen=int(cfg["log_lines"]))
        self.dropped = 0
        self.written = 0
        self.stopped: str | None = None  # why recording stopped ("disk_full", "io", "cap")

    @property
    def running(self) -> bool:
        return self._thread is not None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name="companion-blackbox", daemon=True
            )
            self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        if self._thread is None:
            return
        with contextlib.suppress(queue.Full):
            self._queue.put(None, timeout=timeout)
        self._thread.join(timeout)
        self._thread = None

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every queued job is written (tests, the report)."""
        deadline = time.monotonic() + timeout
        while self._queue.unfinished_tasks and time.monotonic() < deadline:
            time.sleep(0.01)
        return not self._queue.unfinished_tasks

    def put(self, kind: str, job: Any) -> bool:
        """Queue a job without waiting; False (counted) when the queue is full, or when as many
        frames as ``queue_frames`` already wait (each holds a whole picture)."""
        with self._lock:
            if kind == "frame" and self._frames_waiting >= self._most_frames:
                self.dropped += 1
                return False
            try:
                self._queue.put_nowait((kind, job))
            except queue.Full:
                self.dropped += 1
                return False
            if kind == "frame":
                self._frames_waiting += 1
        return True

    def _run(self) -> None:
        while True:
            job = self._queue.get()
            try:
                if job is None:
                    return
                if self.stopped:
                    continue
                self._do(*job)
            except OSError as exc:
                self._stop("disk_full" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else "io", exc)
            except Exception:
                log.exception("the black box could not keep a record")
            finally:
                if job is not None and job[0] == "frame":
                    with self._lock:
                        self._frames_waiting -= 1
                self._queue.task_done()

    def _do(self, kind: str, job: Any) -> None:
        if kind == "record":
            game_id, record = job
            self._append(game_id, record)
        elif kind == "frame":
            game_id, clean, record = job
            import cv2

            params = [int(cv2.IMWRITE_JPEG_QUALITY), self.quality]
            ok, data = cv2.imencode(".jpg", clean.image, params)
            if not ok:
                raise ValueError("the frame could not be made a JPEG")
            blob = data.tobytes()
            if not self._room(game_id, len(blob)):
                return
            record["reading"] = summary(clean.reading)
            self._write(layout.game_dir(self.state_dir, game_id) / record["file"], blob)
            self._append(game_id, record)
            self.written += 1
            if time.monotonic() - self._log_at >= 10.0:
                self._log_at = time.monotonic()
                self._do("log", (game_id, list(self.log_lines)))
        elif kind == "log":
            game_id, lines = job
            text = "".join(line + "\n" for line in lines).encode()
            path = layout.game_dir(self.state_dir, game_id) / layout.LOG
            old = path.stat().st_size if path.exists() else 0
            self._write(path, text)
            self._grow(-old)
        elif kind == "profile":
            game_id, version, profile = job
            blob = json.dumps(profile.to_json(), separators=(",", ":")).encode()
            name = layout.profile_name(version)
            self._write(layout.game_dir(self.state_dir, game_id) / name, blob)
            self._append(game_id, {"type": "profile", "version": version, "file": name})

    def _append(self, game_id: str, record: dict[str, Any]) -> None:
        line = (layout.dumps(record) + "\n").encode()
        path = layout.game_dir(self.state_dir, game_id) / layout.INDEX
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("ab") as f:
            f.write(line)
        self._grow(len(line))

    def _write(self, path: Path, blob: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._write_file(path, blob)
        self._grow(len(blob))

    def _grow(self, size: int) -> int:
        """The recordings' size, counted once from the disk and then kept up to date."""
        if self._bytes is None:
            self._bytes = layout.total_size(self.state_dir)
        self._bytes += size
        return self._bytes

    def _room(self, game_id: str, size: int) -> bool:
        """Room for ``size`` more bytes under the cap: the oldest other games' recordings go
        first; the current game alone over the cap stops the recording."""
        if self._grow(0) + size <= self.cap:
            return True
        try:
            games = self._games()
        except Exception:
            games = []
        for gid in layout.prune_order(self.state_dir, games, game_id):
            freed = layout.delete_game(self.state_dir, gid)
            log.info("black box: the recording of game %s went to make room (%d bytes)", gid, freed)
            self._bytes = layout.total_size(self.state_dir)
            if self._bytes + size <= self.cap:
                return True
        self._stop("cap", None)
        return False

    def _stop(self, why: str, exc: BaseException | None) -> None:
        if self.stopped:
            return
        self.stopped = why
        if why == "cap":
            log.warning("black box: the current game's recording reached the cap; stopped")
            self._notice(
                "The black box is full: this game's frames are no longer kept.",
                "warning",
                code="blackbox.full",
                params={"cap_mb": self.cap >> 20},
                audience="host",
            )
        else:
            log.error("black box: recording stopped: %s", exc)
            self._notice(
                "The black box cannot write (is the disk full?): frames are no longer kept.",
                "warning",
                code="blackbox.disk_full",
                params={"error": str(getattr(exc, "strerror", None) or exc)},
                audience="host",
            )
