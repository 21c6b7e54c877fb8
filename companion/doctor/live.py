"""The set-up check inside the running service, whose devices are in use by it.

- :class:`FrameTap`: the camera's thread hands it every frame; it passes frames on only while
  a check reads (armed), through a small queue read by :func:`~companion.doctor.camera.capture`.
- :class:`ReaderWatch`: the card reader's transport (its connection and HELLO) and the test
  tap: while armed, the next card on the reader is the test's and does not reach the game.
- :class:`ControlsWatch`: the buttons, LED and buzzer: started or not, and the press test:
  while armed, presses are the test's (ticked, not played) and the LED and buzzer show each
  colour and beep once.
- :class:`Devices`: all of it, plus the state directory, the network, whether the box routes
  and the clock; its :meth:`Devices.checks` gives the same lines as ``companion doctor``.

Every wait here has a deadline from ``companion/data/doctor.json``; the device threads only
put an item on a queue or set a flag.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.doctor import Check, settings
from companion.doctor.checks import ReaderFacts, camera_checks, reader_checks
from companion.doctor.probes import Clock, Routing, StatusSource, SystemClock, SystemRouting
from companion.doctor.runner import ControlsState, Setup, camera_from_capture, camera_trouble, run

if TYPE_CHECKING:
    from companion.vision.live.sources import Frame

log = logging.getLogger(__name__)

BUTTONS = ("end_turn", "confirm", "undo")
# what the LED and buzzer show in the press test: each colour of the box, with a beep
SHOW = (
    ("illegal", "accepted"),  # red
    ("ready", "accepted"),  # green
    ("waiting_for_tap", "accepted"),  # blue
    ("final_round", "accepted"),  # amber
    ("host_menu", "attention"),  # white
)


class _Frames:
    """The frames a :class:`FrameTap` passes on, as a source (None after ``wait`` s without)."""

    name = "tap"

    def __init__(self, box: queue.Queue[Frame], wait: float) -> None:
        self.box = box
        self.wait = wait

    def read(self) -> Frame | None:
        try:
            return self.box.get(timeout=self.wait)
        except queue.Empty:
            return None


class FrameTap:
    """Frames of the running camera for the check. Call it with every frame (the camera's
    thread: it returns at once when no check reads)."""

    def __init__(self, wait: float = 3.0) -> None:
        self.wait = wait
        self._box: queue.Queue[Frame] | None = None
        self._lock = threading.Lock()
        self.frames = 0  # frames seen since the start

    def __call__(self, frame: Frame) -> None:
        self.frames += 1
        box = self._box
        if box is not None:
            with contextlib.suppress(queue.Full):  # the check is behind: not needed
                box.put_nowait(frame)

    def capture(self, seconds: float, keep: int) -> Any:
        """Read ``seconds`` of the camera's frames (a :class:`Capture`; no frames when the
        camera gave none within ``wait`` seconds)."""
        from companion.doctor.camera import capture

        with self._lock:
            box: queue.Queue[Frame] = queue.Queue(maxsize=64)
            self._box = box
            try:
                return capture(_Frames(box, self.wait), seconds, keep)
            finally:
                self._box = None


class ReaderWatch:
    """The running reader: ``transport`` is set by ``devices.start_reader``; :meth:`tapped`
    is called by its thread with every card (True: the test took it)."""

    def __init__(self, port: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.port = port
        self.transport: Any = None
        self._clock = clock
        self._lock = threading.Lock()
        self._armed_at: float | None = None
        self._deadline = 0.0
        self._seen: float | None = None  # seconds from arming to the card
        self._missed = False

    def facts(self) -> ReaderFacts:
        t = self.transport
        if t is None or not t.connected:
            why = "the card reader is not connected" if t is not None else "not started"
            return ReaderFacts(self.port, opened=False, problem=why)
        hello = t.hello
        if hello is None:  # the firmware says HELLO in answer to PING
            from companion.reader import protocol

            try:
                t.send(protocol.Ping)
            except Exception as exc:  # the reader went away in between
                log.info("doctor: PING failed: %s", exc)
            deadline = self._clock() + float(settings()["reader"]["hello_seconds"])
            while t.hello is None and self._clock() < deadline:
                time.sleep(0.05)
            hello = t.hello
        return ReaderFacts(
            self.port,
            opened=True,
            firmware=hello.fw_version if hello else None,
            chip=hello.chip if hello else None,
        )

    def arm(self, seconds: float) -> None:
        with self._lock:
            self._armed_at = self._clock()
            self._deadline = self._armed_at + seconds
            self._seen = None
            self._missed = False

    def tapped(self, uid: str) -> bool:
        with self._lock:
            if self._armed_at is None:
                return False
            now = self._clock()
            if now > self._deadline:
                self._missed, self._armed_at = True, None
                return False
            self._seen, self._armed_at = now - self._armed_at, None
            log.info("doctor: the test card %s came in %.2f s", uid, self._seen)
            return True

    def state(self) -> dict[str, Any]:
        """``idle`` / ``waiting`` (``left`` seconds) / ``seen`` / ``missed``, with the test
        tap's check line once there is one."""
        with self._lock:
            now = self._clock()
            if self._armed_at is not None and now > self._deadline:
                self._missed, self._armed_at = True, None
            if self._armed_at is not None:
                return {"state": "waiting", "left": round(self._deadline - now, 1), "check": None}
            seconds = float(settings()["reader"]["tap_seconds"])
            if self._seen is not None:
                facts = ReaderFacts(self.port, opened=True, firmware="", tap_seconds=self._seen)
                return {"state": "seen", "left": 0, "check": _tap_line(facts)}
            if self._missed:
                facts = ReaderFacts(self.port, opened=True, firmware="", tap_waited=seconds)
                return {"state": "missed", "left": 0, "check": _tap_line(facts)}
            return {"state": "idle", "left": 0, "check": None}


def _tap_line(facts: ReaderFacts) -> dict[str, Any]:
    line = next(c for c in reader_checks(facts) if c.id == "reader.tap")
    return line.to_json()


class ControlsWatch:
    """The running buttons, LED and buzzer: ``table`` (a ``controls.table.TableControls``) is
    set once they started; :meth:`pressed` is called with every press (True: the test's)."""

    def __init__(
        self,
        enabled: bool = False,
        problem: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.enabled = enabled
        self.problem = problem
        self.table: Any = None
        self._clock = clock
        self._lock = threading.Lock()
        self._deadline: float | None = None
        self._seen: list[str] = []
        self._tried = False

    def attach(self, table: Any) -> None:
        """The controls started: presses pass by the test first."""
        self.table = table
        if table is not None:
            table.divert = self.pressed

    @property
    def state_of(self) -> ControlsState:
        return ControlsState(self.enabled, self.table is not None, self.problem)

    def arm(self, seconds: float) -> None:
        """Open the press test for ``seconds`` and show each colour with a beep."""
        with self._lock:
            self._deadline = self._clock() + seconds
            self._seen = []
            self._tried = True
        show = getattr(self.table, "demonstrate", None)
        if show is not None:
            show(SHOW)

    def pressed(self, button: str) -> bool:
        name = "undo" if button == "host_menu" else button
        with self._lock:
            if self._deadline is None or self._clock() > self._deadline:
                return False
            if name in BUTTONS and name not in self._seen:
                self._seen.append(name)
            if all(b in self._seen for b in BUTTONS):
                self._deadline = None  # every button came: the test is over
            return True

    def state(self) -> dict[str, Any]:
        """``idle`` (never tried) / ``waiting`` (``left`` seconds) / ``done``, with the
        buttons seen and those still missing."""
        with self._lock:
            now = self._clock()
            if self._deadline is not None and now > self._deadline:
                self._deadline = None
            seen = list(self._seen)
            left = 0.0 if self._deadline is None else round(self._deadline - now, 1)
            state = "done" if self._tried else "idle"
            if self._deadline is not None:
                state = "waiting"
        missing = [b for b in BUTTONS if b not in seen] if state != "idle" else []
        return {"state": state, "left": left, "seen": seen, "missing": missing}


@dataclass
class Devices:
    """What the running service's set-up check looks at."""

    state_dir: Path | None
    camera: str | None = None
    frames: FrameTap | None = None
    reader: ReaderWatch | None = None
    controls: ControlsWatch = field(default_factory=ControlsWatch)
    network: StatusSource | None = None
    clock: Clock = field(default_factory=SystemClock)
    routing: Routing = field(default_factory=SystemRouting)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def camera_lines(self) -> list[Check]:
        if self.camera is None:
            return camera_checks(None, None)
        if self.frames is None:  # configured, but it could not be started here
            return camera_trouble(self.camera, "the camera could not be started")
        cfg = settings()["camera"]
        cap = self.frames.capture(float(cfg["seconds"]), int(cfg["frames"]))
        if not cap.frames:
            return camera_trouble(self.camera, "no picture from the camera")
        return camera_from_capture(self.camera, cap)

    def reader_lines(self) -> list[Check]:
        if self.reader is None:
            return reader_checks(ReaderFacts(None))
        return reader_checks(self.reader.facts())

    def checks(self) -> list[Check] | None:
        """Every line, as ``companion doctor`` gives them; None while another check runs (one
        at a time: the camera's frames are read for seconds)."""
        if not self._lock.acquire(blocking=False):
            return None
        try:
            setup = Setup(
                state_dir=self.state_dir or Path("."),
                controls=self.controls.state_of,
                network=self.network,
                clock=self.clock,
                routing=self.routing,
                camera_checks=self.camera_lines(),
                reader_checks=self.reader_lines(),
            )
            lines = run(setup)
        finally:
            self._lock.release()
        if self.state_dir is None:  # no state directory (a test's in-memory log)
            lines = [c for c in lines if not c.id.startswith("storage.")]
        return lines
