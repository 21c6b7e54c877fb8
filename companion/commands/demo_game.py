"""The demo game at a simulated table: the tables that play the bot game's script
(``demo_script``; straight into the service, or through the simulated devices), the driver and
:class:`Demo`.

A seeded bot game (``companion.core.bots``) is played the way a real table plays it, through the
same devices and code paths as the product:

* the **card reader** is a :class:`~companion.reader.simulated.SimulatedReader` on a
  pseudo-terminal, read by the real serial transport and listener (``devices.start_reader``): the
  player taps the cards they pay with, the three cards turned up for a tunnel and the tickets they
  keep;
* the **camera** is a simulated camera (:class:`TableCamera`, rendered frames of the board) whose
  scene follows the game: a hand reaches in, the trains or the station go down, the hand leaves.
  The frames go through the real :class:`~companion.vision.live.live.LiveWatcher` and the project's
  pixel reader (``companion.vision.reading.read``). A fixed camera is calibrated once: the pixel
  locator
  finds the board on the first (empty) frame; should it fail, the simulator's corners are used
  (logged). Before the first move the host's guided set-up learns the empty board (the table
  profile, ``service.profile_store``), so the dashboard shows it done and each colour learnt
  from its first trains as the game goes;
* the **buttons**: "end turn" and "confirm" (which reveals and pays a tunnel from the tapped
  cards, and keeps the tapped tickets) are pressed as the controls do;
* the **host's screen**: the new game, whose cards the reader takes while tickets are kept,
  "drew cards", starting a tunnel and withdrawing from one, and finally "finish". When the camera
  has not reported a claim within a bounded time, the host taps it on the map instead (logged).

``--fast`` (or a delay of 0) runs the camera faster than real time, for tests.
``companion demo --terminal`` prints the bot game turn by turn instead (no server); so does
``companion demo`` when its output is not a terminal (scripts, CI), unless ``--serve`` is given.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from companion.commands.demo_script import COLORS as COLORS
from companion.commands.demo_script import NAMES as NAMES
from companion.commands.demo_script import Move as Move
from companion.commands.demo_script import new_game, script_of
from companion.commands.demo_script import table_script as table_script
from companion.core.bots import RandomBot
from companion.core.game import Game

log = logging.getLogger(__name__)

CAMERA_SIZE = (960, 540)
DEMO_CAMERA = "demo-sim"  # the simulated camera's id (its table profile's file)
CAMERA_FPS = 5.0
FAST_SPEED = 50.0  # camera time runs this many times faster than the wall clock with --fast
REPORT_WINDOW = 6.0  # camera seconds after the hand left for the camera to report a claim


# --- the table's devices ---------------------------------------------------------------------


class Table(Protocol):
    """What the driver does with the table's devices."""

    def set_up(self) -> None:
        """Before the first move: the host's set-up of the table (the camera's profile)."""
        ...

    def tap_cards(self, cards: list[str]) -> None: ...

    def tap_tickets(self, tickets: list[str]) -> None: ...

    def place(self, kind: str, key: str, color: str) -> bool:
        """Put trains (``kind`` "route") or a station ("city") down; True when the camera
        reported them in time."""
        ...

    def put_down(self, route: str, color: str) -> None:
        """Trains already recorded (a settled tunnel) go on the board."""
        ...

    def close(self) -> None: ...


class DirectTable:
    """No devices: what the camera and the reader would report goes to the service as it is
    (the same observations; for quick tests of the script)."""

    def __init__(self, service: Any) -> None:
        from companion.service import Actor

        self.service = service
        self.reader = Actor.device("reader")
        self.camera = Actor.device("camera")
        self._uid = 0

    def set_up(self) -> None:
        pass  # no camera: nothing to learn

    def _next_uid(self) -> str:
        self._uid += 1
        return f"04{self._uid:012X}"

    def tap_cards(self, cards: list[str]) -> None:
        for c in cards:
            obs = {"kind": "card_tapped", "card": c, "uid": self._next_uid()}
            self.service.observe(obs, self.reader)

    def tap_tickets(self, tickets: list[str]) -> None:
        for t in tickets:
            self.service.observe({"kind": "ticket_tapped", "ticket": t}, self.reader)

    def place(self, kind: str, key: str, color: str) -> bool:
        if kind == "route":
            obs = {"kind": "claim_seen", "route": key, "color": color}
        else:
            obs = {"kind": "station_seen", "city": key, "color": color}
        self.service.observe(obs, self.camera)
        return True

    def put_down(self, route: str, color: str) -> None:
        self.service.observe({"kind": "claim_seen", "route": route, "color": color}, self.camera)

    def close(self) -> None:
        pass


def _table_camera_class() -> type:
    """TableCamera, built on first use (the vision stack is imported only by the demo)."""
    from companion.sim.camera import SimEvent, SimScript, SimulatedCamera

    class TableCamera(SimulatedCamera):
        """A simulated camera whose scene is changed while it runs: hands and pieces are added
        by the driver at camera times (``index / fps``). Paced at ``speed`` x real time."""

        def __init__(
            self,
            *,
            seed: int,
            fps: float = CAMERA_FPS,
            size: tuple[int, int] = CAMERA_SIZE,
            speed: float = 1.0,
        ) -> None:
            super().__init__([], seed=seed, fps=fps, size=size, flicker=0.01)
            self.duration = 1e7  # runs until closed
            self.speed = speed
            self._events: list[Any] = []
            self._lock = threading.Lock()
            self.cond = threading.Condition()
            self.seen = -1.0  # camera time of the last frame the watcher has looked at
            self.dead = False

        def add(self, **event: Any) -> None:
            e = SimEvent(**event)
            self._check_event(e)
            with self._lock:
                self._events.append(e)

        def frame_at(self, index: int) -> Any:
            with self._lock:
                self.script = SimScript(list(self._events), self.duration, self.seed)
            return super().frame_at(index)

        def read(self) -> Any:
            if self._wall0 is None:
                self.open()
            assert self._wall0 is not None
            due = self._wall0 + self._index / (self.fps * self.speed)
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            elif delay < -1.0:  # far behind (a slow machine): do not try to catch up
                self._wall0 -= delay
            frame = self.frame_at(self._index)
            self._index += 1
            return frame

        def mark(self, t: float) -> None:
            with self.cond:
                self.seen = t
                self.cond.notify_all()

        def kill(self) -> None:
            with self.cond:
                self.dead = True
                self.cond.notify_all()

        def wait_until(self, t: float, wall: float) -> bool:
            """Wait until the watcher has seen camera time ``t`` (False: camera stopped or
            ``wall`` seconds passed)."""
            deadline = time.monotonic() + wall
            with self.cond:
                while self.seen < t and not self.dead:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return False
                    self.cond.wait(min(left, 0.5))
                return not self.dead

    return TableCamera


class DeviceTable:
    """The simulated reader on a pty and the simulated camera, read by the real device code."""

    def __init__(
        self,
        service: Any,
        state_dir: Path,
        *,
        seed: int,
        fast: bool,
        stop: threading.Event,
        tap_pause: float = 0.3,
        recorder: Any = None,
    ) -> None:
        from companion.commands.devices import start_reader
        from companion.reader.simulated import SimulatedReader

        self.service = service
        self.fast = fast
        self.stop = stop
        self.recorder = recorder  # the black box (or None)
        self.tap_pause = 0.0 if fast else tap_pause
        self.rng = random.Random(seed)
        self.stats: Counter[str] = Counter()
        self.asked: list[str] = []  # the camera's questions the host answered yes
        self.frame_tap: Any = None  # called with every camera frame (the set-up check's)
        # the reader: a pty the real transport opens, like /dev/ttr-reader
        self.reader = SimulatedReader(state_dir / "demo-reader")
        self.reader.start()
        self.reader_thread = start_reader(
            service, self.reader.path, stop, registry_path=state_dir / "demo-reader-cards.sqlite"
        )
        # the camera
        camera_class = _table_camera_class()
        self.camera = camera_class(seed=seed, speed=FAST_SPEED if fast else 1.0)
        self.skins = {c: i % 5 for i, c in enumerate(COLORS)}
        self.calibration = ""  # "located" (the pixel locator found the board) or "known"
        self.setup = ""  # "learnt" (the empty board, before the first move) or the refusal's code
        self.attached = threading.Event()  # the camera's table profile is attached
        self.camera_thread = threading.Thread(
            target=self._watch, name="companion-demo-camera", daemon=True
        )
        self.camera_thread.start()

    # -- the camera ----------------------------------------------------------------------

    def _watch(self) -> None:
        import numpy as np

        from companion.commands.devices import (
            camera_notice,
            camera_observation,
            forget_refused,
            playing_colours,
            watch_refusals,
        )
        from companion.service import Actor
        from companion.vision.live.live import LiveWatcher, VisionReader, as_questions

        cam = self.camera
        corners = self._calibrate(np.asarray(cam.view.corners, np.float64))

        class Calibrated(VisionReader):
            def locate(self, frame: Any) -> Any:
                return corners

        from companion.service.profile_store import TappedReader

        reader: Any = TappedReader(Calibrated(), self.service.attach_camera(DEMO_CAMERA))
        recorder = self.recorder
        if recorder is not None:
            reader = recorder.tap(reader)
        self.attached.set()
        watcher = LiveWatcher(reader, corners=corners)
        # as serve's camera: a sighting the game refused is taken back before the next frame
        refused = watch_refusals(self.service)
        actor = Actor.device("camera")
        try:
            with cam:
                for frame in cam:
                    if self.stop.is_set():
                        return
                    if self.frame_tap is not None:
                        self.frame_tap(frame)
                    forget_refused(watcher, refused, recorder)
                    watcher.players = playing_colours(self.service)
                    events = as_questions(watcher, watcher.process(frame))
                    if recorder is not None:
                        recorder.look(frame, watcher, events)
                    for event in events:
                        what, data = camera_observation(event)
                        if what == "observe":
                            assert isinstance(data, dict)
                            log.info("demo camera: %s", event.text())
                            self.stats["camera_reports"] += 1
                            fut = self.service.observe_nowait(data, actor)
                            if recorder is not None:
                                recorder.observed(event, fut)
                        elif what == "notice":
                            log.info("demo camera: %s", data)
                            code, params = camera_notice(event)
                            self.service.notice(str(data), "warning", code=code, params=params)
                    self.stats["frames"] += 1
                    cam.mark(frame.timestamp)
        except Exception:
            log.exception("the demo camera stopped")
            self.service.notice("The camera stopped; see the log.", "error", code="camera.stopped")
        finally:
            self.stats["reads"] = watcher.stats["reads"]
            cam.kill()

    def _calibrate(self, known: Any) -> Any:
        """A fixed camera is calibrated once, on the empty board: the pixel locator finds it.
        Should it fail (or land far from where the simulator put the board), the simulator's
        corners are used instead, and the log says so."""
        import numpy as np

        from companion.vision.live.live import VisionReader
        from companion.vision.types import NoBoardError

        try:
            found = np.asarray(VisionReader().locate(self.camera.frame_at(0)), np.float64)
        except (NoBoardError, ValueError) as exc:
            log.warning("demo: the camera did not find the board (%s): using its known place", exc)
            self.calibration = "known"
            return known
        span = float(np.linalg.norm(known[1] - known[0]))
        error = float(np.abs(found - known).max())
        if error > 0.02 * span:
            log.warning(
                "demo: the board was found %.0f px from its place: using its known place", error
            )
            self.calibration = "known"
            return known
        log.info("demo: the camera found the board (corners within %.1f px)", error)
        self.calibration = "located"
        return found

    def set_up(self) -> None:
        """The host's guided set-up, before the first move: the camera learns the empty board
        from its first clean frames (``TableProfiles.learn_empty`` waits a few seconds for
        them). Refused (the board not seen): logged, and the demo plays on without it."""
        from companion.service import ServiceError

        if not self.attached.wait(60.0) or self.stop.is_set():
            self.setup = "camera.table_no_camera"
            log.warning("demo: the camera did not start: the empty board is not learnt")
            return
        try:
            self.service.profiles.learn_empty()
        except ServiceError as exc:
            self.setup = exc.code
            log.warning("demo: the empty board was not learnt (%s): %s", exc.code, exc.message)
            return
        self.setup = "learnt"
        log.info("demo: the camera learnt the empty board")

    def _reach(self, target: tuple[float, float], color: str, hold: float) -> tuple[float, float]:
        """A hand comes in towards ``target`` and leaves; returns (mid time, end time)."""
        from companion.sim.camera import HAND_RAMP

        cam = self.camera
        t0 = max(cam.seen, 0.0) + 3.0 / cam.fps
        end = t0 + 2 * HAND_RAMP + hold
        edge = "bottom" if target[1] > 0.45 else "top"
        cam.add(
            kind="hand",
            t=t0,
            until=end,
            target=target,
            edge=edge,
            skin=self.skins.get(color, 0),
            sleeve=COLORS.index(color) if color in COLORS else 0,
            spread=self.rng.uniform(-0.1, 0.1),
        )
        return t0 + HAND_RAMP + hold / 2, end

    def place(self, kind: str, key: str, color: str) -> bool:
        cam = self.camera
        geo = cam.renderer.geometry
        if kind == "route":
            spaces = geo.routes[key].spaces
            target = (
                sum(s.x for s in spaces) / len(spaces),
                sum(s.y for s in spaces) / len(spaces),
            )
            hold = 0.7 + 0.15 * len(spaces)
        else:
            city = geo.cities[key]
            target, hold = (city.x, city.y + 0.01), 0.9
        mid, end = self._reach(target, color, hold)
        if kind == "route":
            cam.add(kind="claim", t=mid, route=key, color=color)
        else:
            cam.add(kind="station", t=mid, city=key, color=color)
        wall = 30.0 if self.fast else 30.0 + end - cam.seen
        if not cam.wait_until(end, wall):
            return False
        deadline = end + REPORT_WINDOW
        while not self.stop.is_set():
            state = self.service.state()
            if _holds(state, kind, key, color):
                return True
            self._agree(state, key, color)
            if not cam.wait_until(min(cam.seen + 0.2, deadline), 10.0) or cam.seen >= deadline:
                return _holds(self.service.state(), kind, key, color)
        return False

    def _agree(self, state: dict[str, Any], key: str, color: str) -> None:
        """The camera asks about the piece just put down (trains on a route printed in their
        own colour): the host, who saw it put down, says yes."""
        from companion.service import Actor, ServiceError

        for c in state["pending"]["confirmations"]:
            if (c["route"] or c["city"]) == key and c["color"] == color:
                log.info("demo: the host confirms the camera's question %s", c)
                self.asked.append(key)
                try:
                    self.service.confirm(c["id"], True, Actor.host())
                except ServiceError as exc:
                    log.info("demo: %s", exc.message)

    def put_down(self, route: str, color: str) -> None:
        cam = self.camera
        geo = cam.renderer.geometry
        spaces = geo.routes[route].spaces
        target = (sum(s.x for s in spaces) / len(spaces), sum(s.y for s in spaces) / len(spaces))
        mid, end = self._reach(target, color, 0.7 + 0.15 * len(spaces))
        cam.add(kind="claim", t=mid, route=route, color=color)
        cam.wait_until(end + 1.0, 30.0)

    # -- the reader ----------------------------------------------------------------------

    def _tap(self, payload: str) -> None:
        uid = "04" + "".join(f"{self.rng.randrange(256):02X}" for _ in range(6))
        self.reader.tap(uid, payload)
        self.reader.remove(uid)
        self.stats["taps"] += 1
        if self.tap_pause:
            self.stop.wait(self.tap_pause)

    def tap_cards(self, cards: list[str]) -> None:
        from companion.core.cards import Card
        from companion.reader.cards import TrainCard

        for c in cards:
            self._tap(TrainCard(Card(c)).payload())

    def tap_tickets(self, tickets: list[str]) -> None:
        from companion.reader.cards import TicketCard

        for t in tickets:
            self._tap(TicketCard(t).payload())

    def close(self) -> None:
        self.stop.set()
        self.camera_thread.join(timeout=10)
        self.reader_thread.join(timeout=5)
        self.reader.close()


def _holds(state: dict[str, Any], kind: str, key: str, color: str) -> bool:
    for p in state.get("players", []):
        if p["color"] == color:
            return key in (p["routes"] if kind == "route" else p["stations"])
    return False


# --- the driver ------------------------------------------------------------------------------


@dataclass
class DemoReport:
    """What happened: how each claim reached the service."""

    moves: int = 0
    camera: list[str] = field(default_factory=list)  # claims/stations reported by the camera
    fallback: list[str] = field(default_factory=list)  # ... that the host tapped instead
    errors: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # camera questions the host answered no


class DemoDriver:
    """Plays :func:`table_script` at a table (devices or direct), pausing ``delay`` seconds
    per turn."""

    def __init__(
        self,
        service: Any,
        *,
        table: Table | None = None,
        seed: int = 2026,
        players: int = 4,
        variant: str = "europe",
        delay: float = 2.0,
        stop: threading.Event | None = None,
    ) -> None:
        self.service = service
        self.table: Table = table if table is not None else DirectTable(service)
        self.seed = seed
        self.players = players
        self.variant = variant
        self.delay = delay
        self.stop = stop or threading.Event()
        self.report = DemoReport()
        self.done = threading.Event()
        self.game: Game | None = None  # the bot's own game, for comparing at the end

    @property
    def errors(self) -> list[str]:
        return self.report.errors

    @property
    def moves(self) -> int:
        return self.report.moves

    def run(self) -> None:
        from companion.service import Actor, ServiceError

        host = Actor.host()
        game = new_game(self.seed, self.players, self.variant)
        self.game = game
        try:
            self.table.set_up()
            script = script_of(game, RandomBot(self.seed), self.players, self.variant)
            seen = False
            for move in script:
                if self.stop.is_set():
                    return
                try:
                    self._play(move, host)
                except ServiceError as exc:
                    self.report.errors.append(f"{move.kind} {move.data}: {exc.message}")
                    log.warning("demo move refused: %s %s (%s)", move.kind, move.data, exc.message)
                self.report.moves += 1
                if move.text:
                    log.info("demo: %s", move.text)
                seen = seen or move.kind not in ("host", "button", "select")
                # a turn that only drew cards passes quicker than one that changed the board
                pause = self.delay if seen else self.delay / 3
                if move.turn_end and self.delay and self.stop.wait(pause):
                    return
                if move.turn_end:
                    seen = False
                if not move.turn_end and self.delay:
                    self.stop.wait(min(0.5, self.delay / 4))
            c, f = len(self.report.camera), len(self.report.fallback)
            print(
                f"companion: demo game over: {c} claims and stations seen by the camera, "
                f"{f} tapped by the host",
                flush=True,
            )
        finally:
            self.done.set()

    def _play(self, move: Move, host: Any) -> None:
        from companion.service import Actor

        d = move.data
        svc = self.service
        if move.kind == "host":
            svc.act(d, host)
        elif move.kind == "select":
            svc.observe({"kind": "reader_player", "player": d["player"]}, host)
        elif move.kind == "button":
            svc.observe({"kind": "button", "name": d["name"]}, Actor.device("button"))
        elif move.kind == "tap":
            self._reader_follows(d["player"], host)
            self._clear_strays(d["player"], cards=True)
            self.table.tap_cards(d["cards"])
            self._wait_pending(lambda p: _payment_is(p, d["player"], d["cards"]), "card taps")
        elif move.kind == "tickets":
            self._clear_strays(d["player"], cards=False)
            self.table.tap_tickets(d["tickets"])
            n = len(d["tickets"])
            self._wait_pending(lambda p: _tickets_are(p, d["player"], n), "ticket taps")
        elif move.kind in ("place", "station"):
            kind, key = ("route", d["route"]) if move.kind == "place" else ("city", d["city"])
            color = d["player"]
            if self.table.place(kind, key, color):
                self.report.camera.append(key)
            else:
                self._answer_questions()
                if not _holds(svc.state(), kind, key, color):
                    log.warning(
                        "demo: the camera did not report %s %s in time; "
                        "the host taps it on the map",
                        color,
                        key,
                    )
                    self.report.fallback.append(key)
                    action = (
                        {"type": "claim", "player": color, "route": key}
                        if kind == "route"
                        else {"type": "build_station", "player": color, "city": key}
                    )
                    svc.act(action, host)
                else:
                    self.report.camera.append(key)
            self._answer_questions()
        elif move.kind == "pieces":
            self.table.put_down(d["route"], d["player"])
            self._answer_questions()
        else:  # pragma: no cover - the script makes only the kinds above
            raise ValueError(f"unknown demo move {move.kind}")

    def _reader_follows(self, player: str, host: Any) -> None:
        """The reader still takes someone else's cards (set while tickets were kept): the host
        points it at the paying player."""
        chosen = self.service.state()["pending"]["reader_player"]
        if chosen is not None and chosen != player:
            self.service.observe({"kind": "reader_player", "player": player}, host)

    def _clear_strays(self, player: str, *, cards: bool) -> None:
        """Taps left over from a refused move would spoil the next payment: the host clears
        them (logged)."""
        from companion.service import Actor

        p = self.service.state()["pending"]
        stray = p["payment"] if cards else p["tickets"]
        if stray and (stray["player"] != player or (cards and stray["cards"])):
            log.warning("demo: clearing stray reader taps %s", stray)
            self.service.clear_pending(Actor.host())

    def _wait_pending(self, ok: Callable[[dict[str, Any]], bool], what: str) -> None:
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline and not self.stop.is_set():
            if ok(self.service.state()["pending"]):
                return
            time.sleep(0.01)
        log.warning("demo: the %s did not all arrive: %s", what, self.service.state()["pending"])

    def _answer_questions(self) -> None:
        """A camera question the script did not cause (a misread): the host says no."""
        from companion.service import Actor, ServiceError

        for c in list(self.service.state()["pending"]["confirmations"]):
            self.report.rejected.append(f"{c['color']} {c['route'] or c['city']}")
            log.warning("demo: the host rejects the camera's question %s", c)
            try:
                self.service.confirm(c["id"], False, Actor.host())
            except ServiceError as exc:
                log.info("demo: %s", exc.message)


def _payment_is(pending: dict[str, Any], player: str, cards: list[str]) -> bool:
    pay = pending["payment"]
    if not cards:
        return pay is None or not pay["cards"] or pay["player"] != player
    return bool(pay) and pay["player"] == player and sorted(pay["cards"]) == sorted(cards)


def _tickets_are(pending: dict[str, Any], player: str, n: int) -> bool:
    t = pending["tickets"]
    return bool(t) and t["player"] == player and t["count"] == n


# --- running it ------------------------------------------------------------------------------


class Demo:
    """The demo at a table of simulated devices, in threads of a running service."""

    def __init__(
        self,
        service: Any,
        state_dir: Path,
        *,
        seed: int = 2026,
        players: int = 4,
        variant: str = "europe",
        delay: float = 2.0,
        fast: bool = False,
        recorder: Any = None,
    ) -> None:
        self.stop_event = threading.Event()
        self.table = DeviceTable(
            service, state_dir, seed=seed, fast=fast, stop=self.stop_event, recorder=recorder
        )
        self.driver = DemoDriver(
            service,
            table=self.table,
            seed=seed,
            players=players,
            variant=variant,
            delay=0.0 if fast else delay,
            stop=self.stop_event,
        )
        self.thread = threading.Thread(target=self.driver.run, name="companion-demo", daemon=True)

    def start(self) -> Demo:
        self.thread.start()
        return self

    def wait(self, timeout: float | None = None) -> bool:
        return self.driver.done.wait(timeout)

    def stop(self) -> None:
        self.stop_event.set()
        self.thread.join(timeout=10)
        self.table.close()
