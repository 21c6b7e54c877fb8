"""The running service's devices seen by the set-up check: `serve`'s reader and camera threads
(devices.start_reader / start_camera) hand it the transport, the test card and the frames."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from companion.commands.devices import start_camera
from companion.doctor.live import Devices, FrameTap, ReaderWatch
from companion.reader.simulated import SimulatedReader
from companion.service import Actor, Service
from companion.store import EventStore
from tests.devices import reader_thread
from tests.waiting import wait_for

PLAYERS = [{"name": "A", "color": "red"}, {"name": "B", "color": "blue"}]


def test_the_test_card_is_the_checks_and_the_next_one_the_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, service: Service
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path / "state"))
    svc = service
    svc.act({"type": "new_game", "players": PLAYERS}, Actor.host())
    with SimulatedReader(fw_version="2.1") as sim:
        watch = ReaderWatch(sim.path)
        with reader_thread(svc, sim.path, watch=watch):
            assert wait_for(lambda: watch.transport is not None and watch.transport.connected)
            lines = {c.id: c for c in Devices(tmp_path, reader=watch).reader_lines()}
            assert lines["reader.found"].status == "ok"
            assert lines["reader.firmware"].params == {"version": "2.1", "chip": "sim"}
            watch.arm(5.0)
            sim.tap("04A1B2C3D4E5F6", "ttr:eu:train:green")
            assert wait_for(lambda: watch.state()["state"] == "seen")
            assert watch.state()["check"]["code"] == "doctor.reader.tap_ok"
            time.sleep(0.3)
            assert svc.state()["pending"]["payment"] is None  # the test card was not a move
            sim.remove("04A1B2C3D4E5F6")
            sim.tap("04A1B2C3D4E5F7", "ttr:eu:train:red")
            assert wait_for(lambda: svc.state()["pending"]["payment"] is not None)
            assert svc.state()["pending"]["payment"]["cards"] == ["red"]


def test_the_cameras_thread_feeds_the_tap_only_while_a_check_reads(tmp_path: Path) -> None:
    store = EventStore(tmp_path)
    svc = Service(store).start()
    stop = threading.Event()
    tap = FrameTap(wait=5.0)
    try:
        thread = start_camera(svc, "sim:3@320x180", stop, tap=tap)
        assert wait_for(lambda: tap.frames >= 3)
        cap = tap.capture(1.0, 2)
        assert len(cap.frames) == 2 and cap.read >= 10
        assert cap.fps == pytest.approx(10.0, rel=0.2)
        assert cap.frames[0].image.shape == (180, 320, 3)
    finally:
        stop.set()
        thread.join(timeout=10)
        svc.stop()
        store.close()
