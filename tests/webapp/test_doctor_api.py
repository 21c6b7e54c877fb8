"""`GET /api/doctor` and the set-up check's two steps (host only): the same JSON as
`companion doctor`, from the running devices (fakes and the simulator here)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.controls import ButtonPressed, FakeControls
from companion.controls.table import TableControls
from companion.doctor.checks import all_codes
from companion.doctor.live import SHOW, ControlsWatch, Devices, FrameTap, ReaderWatch
from companion.doctor.probes import FakeClock
from companion.reader.protocol import Hello
from companion.service import Service
from companion.webapp import create_app

from .conftest import BEARER, TOKEN
from .test_api import pair_phone, start


@pytest.fixture
def devices(tmp_path: Path) -> Devices:
    return Devices(tmp_path, clock=FakeClock(True))


@pytest.fixture
def app(service: Service, devices: Devices) -> Flask:
    return create_app(service, {"HOST_TOKEN": TOKEN, "DOCTOR": devices})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def test_host_only(app: Flask, client: FlaskClient) -> None:
    guest = app.test_client()
    for path in ("/api/doctor", "/api/doctor/reader-test", "/api/doctor/controls-test"):
        r = guest.get(path)
        assert r.status_code == 401 and r.json["code"].startswith("auth."), path
    start(client)
    phone, _ = pair_phone(app, client, "red")
    r = phone.get("/api/doctor")
    assert r.status_code == 403 and r.json["code"] == "auth.host_only"
    csrf = phone.get("/api/session").json["csrf_token"]
    r = phone.post("/api/doctor/reader-test", headers={"X-CSRF-Token": csrf})
    assert r.status_code == 403 and r.json["code"] == "auth.host_only"
    assert (
        client.get(
            "/api/doctor", headers={"Authorization": "Bearer wrong-token-xxxxxxxx"}
        ).status_code
        == 403
    )


def test_the_same_json_as_the_command(client: FlaskClient) -> None:
    r = client.get("/api/doctor", headers=BEARER)
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"
    checks = r.json["checks"]
    assert list(r.json) == ["checks"]
    for c in checks:
        assert list(c) == ["id", "status", "code", "params"]
        assert c["code"] in all_codes()
    by = {c["id"]: c for c in checks}
    assert by["camera.found"]["code"] == "doctor.camera.found_none"
    assert by["reader.found"]["code"] == "doctor.reader.found_none"
    assert by["controls.found"]["code"] == "doctor.controls.found_none"
    assert by["storage.backup"]["code"] == "doctor.storage.backup_none"
    assert by["clock.sync"]["status"] == "ok"


def test_a_check_without_a_configured_app_uses_the_state_dir(
    service: Service, tmp_path: Path
) -> None:
    (tmp_path / "last-backup.json").write_text('{"time": 1, "dest": "x", "events": 3}')
    app = create_app(service, {"HOST_TOKEN": TOKEN})
    r = app.test_client().get("/api/doctor", headers=BEARER)
    by = {c["id"]: c for c in r.json["checks"]}
    assert by["storage.backup"]["code"] == "doctor.storage.backup_old"
    assert by["storage.backup"]["params"]["events"] == 3


@pytest.fixture
def fed(devices: Devices) -> Iterator[Devices]:
    """The simulated camera's frames fed to the tap (as serve's camera thread does), two a
    camera second, as fast as the check takes them."""
    from companion.sim.camera import SimulatedCamera

    cam = SimulatedCamera([], seed=4, fps=5.0, size=(960, 540))
    frames = [cam.frame_at(i) for i in range(2)]
    devices.camera, devices.frames = "sim", FrameTap(wait=2.0)
    stop = threading.Event()

    def feed() -> None:
        i = 0
        while not stop.wait(0.002):
            f = frames[i % 2]
            devices.frames(type(f)(f.image, i * 0.5, i, None))  # type: ignore[misc]
            i += 1

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    yield devices
    stop.set()
    t.join()


def test_the_running_cameras_frames_are_checked(client: FlaskClient, fed: Devices) -> None:
    r = client.get("/api/doctor", headers=BEARER)
    by = {c["id"]: c for c in r.json["checks"]}
    assert by["camera.found"]["status"] == "ok"
    assert by["camera.board"]["status"] == "ok"
    assert by["camera.frame_rate"]["params"]["fps"] == 2.0
    assert by["camera.steady"]["params"]["seconds"] == 10
    assert fed.frames is not None and fed.frames.frames > 20


def test_a_camera_that_gives_nothing_fails(client: FlaskClient, devices: Devices) -> None:
    devices.camera, devices.frames = "picamera2", FrameTap(wait=0.1)
    r = client.get("/api/doctor", headers=BEARER)
    found = r.json["checks"][0]
    assert (found["id"], found["status"]) == ("camera.found", "fail")


def test_a_second_check_while_one_runs_is_refused(client: FlaskClient, devices: Devices) -> None:
    with devices._lock:
        r = client.get("/api/doctor", headers=BEARER)
    assert r.status_code == 409 and r.json["code"] == "doctor.busy"


class Transport:
    connected = True
    hello: Hello | None = Hello("1.2", "rc522")

    def send(self, make: Any) -> int:
        return 1


def test_the_reader_and_its_test_card(client: FlaskClient, devices: Devices) -> None:
    r = client.post("/api/doctor/reader-test", headers=BEARER)
    assert r.status_code == 409 and r.json["code"] == "doctor.no_reader"
    devices.reader = ReaderWatch("/dev/ttr-reader")
    devices.reader.transport = Transport()
    by = {c["id"]: c for c in client.get("/api/doctor", headers=BEARER).json["checks"]}
    assert by["reader.found"]["status"] == "ok"
    assert by["reader.firmware"]["params"] == {"version": "1.2", "chip": "rc522"}
    assert client.get("/api/doctor/reader-test", headers=BEARER).json["state"] == "idle"
    assert devices.reader.tapped("04A224B2C15E80") is False  # not armed: the game's card
    r = client.post("/api/doctor/reader-test", headers=BEARER)
    assert r.status_code == 200 and r.json["state"] == "waiting" and r.json["seconds"] == 20.0
    assert devices.reader.tapped("04A224B2C15E80") is True  # the test's card
    r = client.get("/api/doctor/reader-test", headers=BEARER).json
    assert r["state"] == "seen" and r["check"]["code"] == "doctor.reader.tap_ok"


def test_a_test_card_that_never_comes() -> None:
    now = [0.0]
    watch = ReaderWatch("p", clock=lambda: now[0])
    watch.arm(20.0)
    now[0] = 21.0
    st = watch.state()
    assert st["state"] == "missed" and st["check"]["status"] == "fail"
    assert watch.tapped("04A224B2C15E80") is False


def test_a_reader_that_is_away(client: FlaskClient, devices: Devices) -> None:
    devices.reader = ReaderWatch("/dev/ttr-reader")
    gone = Transport()
    gone.connected = False
    devices.reader.transport = gone
    by = {c["id"]: c for c in client.get("/api/doctor", headers=BEARER).json["checks"]}
    assert by["reader.found"]["status"] == "fail"


def test_the_buttons_led_and_buzzer(
    service: Service, client: FlaskClient, devices: Devices
) -> None:
    r = client.post("/api/doctor/controls-test", headers=BEARER)
    assert r.status_code == 409 and r.json["code"] == "doctor.no_controls"
    table = TableControls(service)
    panel = FakeControls(callback=table.on_button)
    table.show_seconds = 0.01
    table.start(panel)
    heard: list[str] = []  # what the service told (a press it handled is a notice or a refusal)
    service.listeners.append(lambda kind, data: heard.append(kind))
    try:
        devices.controls = ControlsWatch(enabled=True)
        devices.controls.attach(table)
        by = {c["id"]: c for c in client.get("/api/doctor", headers=BEARER).json["checks"]}
        assert by["controls.found"]["status"] == "ok"
        r = client.post("/api/doctor/controls-test", headers=BEARER)
        assert r.status_code == 200 and r.json["state"] == "waiting"
        assert r.json["missing"] == ["end_turn", "confirm", "undo"]
        panel.press("confirm")
        panel.hold("undo")
        r = client.get("/api/doctor/controls-test", headers=BEARER).json
        assert r["state"] == "waiting" and r["seen"] == ["confirm", "undo"]
        panel.press("end_turn")
        r = client.get("/api/doctor/controls-test", headers=BEARER).json
        assert r["state"] == "done" and r["missing"] == []
        assert table.drain()
        shown = [s for s, _ in SHOW]
        for _ in range(200):
            if all(s in panel.shown for s in shown):
                break
            threading.Event().wait(0.01)
        first = panel.shown.index(shown[0])  # after the LED's own status at the start
        assert panel.shown[first : first + len(shown)] == shown
        assert panel.sounds.count("accepted") >= 4 and "attention" in panel.sounds
        for _ in range(200):  # then back to the game's own status
            if panel.shown[-1] == "ready" and len(panel.shown) > first + len(shown):
                break
            threading.Event().wait(0.01)
        assert panel.shown[first + len(shown) :] == ["ready"]
        assert heard == []  # the test's presses were not played
        table.on_button(ButtonPressed("confirm", 0.0))  # after the test: the game's again
        assert table.drain()
        for _ in range(200):
            if heard:
                break
            threading.Event().wait(0.01)
        assert heard[0] in ("notice", "refused")
    finally:
        table.stop()
