"""Each check's ok / warn / fail on constructed facts (no device, no file)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest

from companion.doctor import Check, exit_code, report, settings
from companion.doctor.camera import CameraFacts
from companion.doctor.checks import (
    CODES,
    ReaderFacts,
    StorageFacts,
    all_codes,
    camera_checks,
    clock_check,
    controls_check,
    grade,
    network_checks,
    reader_checks,
    storage_checks,
    versions_check,
)

GOOD = CameraFacts(
    width=1920,
    height=1080,
    fps=5.0,
    located=5,
    looked=5,
    quality=0.95,
    space_px=46.0,
    sharpness=700.0,
    clipped=0.001,
    moved=0.1,
    span=10.0,
)


def by_id(checks: list[Check]) -> dict[str, Check]:
    return {c.id: c for c in checks}


def test_a_code_is_its_area_and_what_was_found() -> None:
    c = by_id(camera_checks("picamera2", GOOD))["camera.found"]
    assert c.to_json() == {
        "id": "camera.found",
        "status": "ok",
        "code": "doctor.camera.found_ok",
        "params": {"source": "picamera2"},
    }
    assert len(all_codes()) == len(set(all_codes()))
    assert all(code.startswith("doctor.") for code in all_codes())


def test_grade_low_and_high_limits() -> None:
    low = {"warn_below": 10, "fail_below": 5}
    assert [grade(v, low) for v in (11, 10, 9.9, 5, 4.9)] == ["ok", "ok", "warn", "warn", "fail"]
    high = {"warn_above": 1, "fail_above": 2}
    assert [grade(v, high) for v in (0.5, 1.5, 2.5)] == ["ok", "warn", "fail"]


def test_a_good_camera_is_ok_on_every_line() -> None:
    checks = camera_checks("picamera2", GOOD)
    assert [c.id for c in checks] == list(CODES)[:8]
    assert {c.status for c in checks} == {"ok"}


@pytest.mark.parametrize(
    ("change", "cid", "status"),
    [
        ({"width": 960, "height": 540}, "camera.resolution", "warn"),
        ({"width": 320, "height": 240}, "camera.resolution", "fail"),
        ({"fps": 2.0}, "camera.frame_rate", "warn"),
        ({"fps": 0.5}, "camera.frame_rate", "fail"),
        ({"quality": 0.7}, "camera.board", "warn"),
        ({"quality": 0.5}, "camera.board", "fail"),
        ({"located": 4}, "camera.board", "warn"),
        ({"space_px": 20.0}, "camera.space_pixels", "warn"),
        ({"space_px": 12.0}, "camera.space_pixels", "fail"),
        ({"sharpness": 100.0}, "camera.sharpness", "warn"),
        ({"sharpness": 10.0}, "camera.sharpness", "fail"),
        ({"clipped": 0.03}, "camera.glare", "warn"),
        ({"clipped": 0.2}, "camera.glare", "fail"),
        ({"moved": 0.5}, "camera.steady", "warn"),
        ({"moved": 3.0}, "camera.steady", "fail"),
    ],
)
def test_each_camera_line_warns_and_fails(change: dict[str, float], cid: str, status: str) -> None:
    checks = by_id(camera_checks("picamera2", replace(GOOD, **change)))  # type: ignore[arg-type]
    assert checks[cid].status == status
    assert checks[cid].code.endswith(f"_{status}")
    others = {c.status for k, c in checks.items() if k != cid}
    assert others == {"ok"}


def test_camera_not_asked_not_opened_and_no_board() -> None:
    none = camera_checks(None, None)
    assert [(c.id, c.status, c.code) for c in none] == [
        ("camera.found", "warn", "doctor.camera.found_none")
    ]
    failed = camera_checks("v4l2:/dev/video0", None, "no camera at /dev/video0")
    assert [(c.id, c.status) for c in failed] == [("camera.found", "fail")]
    assert failed[0].params["detail"] == "no camera at /dev/video0"
    blind = CameraFacts(1920, 1080, 5.0, located=0, looked=5)
    checks = by_id(camera_checks("picamera2", blind))
    assert checks["camera.board"].status == "fail"
    assert "camera.sharpness" not in checks and "camera.steady" not in checks
    assert exit_code(list(checks.values())) == 1


def test_reader_lines() -> None:
    assert reader_checks(ReaderFacts(None))[0].code == "doctor.reader.found_none"
    gone = reader_checks(ReaderFacts("/dev/ttr-reader", problem="no such device"))
    assert [(c.id, c.status) for c in gone] == [("reader.found", "fail")]
    quiet = by_id(reader_checks(ReaderFacts("/dev/ttr-reader", opened=True)))
    assert quiet["reader.firmware"].status == "warn"
    assert "reader.tap" not in quiet
    good = by_id(
        reader_checks(
            ReaderFacts(
                "/dev/ttr-reader", opened=True, firmware="1.2", chip="rc522", tap_seconds=1.234
            )
        )
    )
    assert good["reader.firmware"].params == {"version": "1.2", "chip": "rc522"}
    assert good["reader.tap"].status == "ok" and good["reader.tap"].params == {"seconds": 1.23}
    missed = by_id(reader_checks(ReaderFacts("p", opened=True, firmware="1", tap_waited=20.0)))
    assert missed["reader.tap"].status == "fail"
    assert missed["reader.tap"].params == {"seconds": 20}


def test_controls_line() -> None:
    assert controls_check(False, False).status == "warn"
    assert controls_check(True, False, "no gpio").status == "fail"
    assert controls_check(True, False, "no gpio").params == {"detail": "no gpio"}
    assert controls_check(True, True).code == "doctor.controls.found_ok"


MB = 1024 * 1024
NOW = 1_800_000_000.0


@pytest.mark.parametrize(
    ("free_mb", "log_mb", "backup", "expect"),
    [
        (4000, 1, {"time": NOW - 86400, "dest": "/media/x", "events": 12}, ["ok", "ok", "ok"]),
        (400, 1, {"time": NOW - 86400}, ["warn", "ok", "ok"]),
        (20, 1, {"time": NOW - 86400}, ["fail", "ok", "ok"]),
        (4000, 300, {"time": NOW - 86400}, ["ok", "warn", "ok"]),
        (4000, 3000, {"time": NOW - 86400}, ["ok", "fail", "ok"]),
        (4000, 1, {"time": NOW - 30 * 86400}, ["ok", "ok", "warn"]),
        (4000, 1, None, ["ok", "ok", "warn"]),
        (4000, 1, {}, ["ok", "ok", "warn"]),
    ],
)
def test_storage_lines(free_mb: int, log_mb: int, backup: dict | None, expect: list[str]) -> None:
    facts = StorageFacts("/var/lib/companion", free_mb * MB, log_mb * MB, backup, NOW)
    checks = storage_checks(facts)
    assert [c.id for c in checks] == ["storage.free", "storage.log", "storage.backup"]
    assert [c.status for c in checks] == expect


def test_backup_codes_tell_none_old_and_broken_apart() -> None:
    def code(backup: dict | None) -> str:
        return storage_checks(StorageFacts("/s", 10**10, 0, backup, NOW))[2].code

    assert code(None) == "doctor.storage.backup_none"
    assert code({"time": "yesterday"}) == "doctor.storage.backup_broken"
    assert code({"time": NOW - 20 * 86400}) == "doctor.storage.backup_old"
    ok = storage_checks(StorageFacts("/s", 10**10, 0, {"time": NOW - 43200, "events": 7}, NOW))[2]
    assert ok.code == "doctor.storage.backup_ok" and ok.params == {"days": 0.5, "events": 7}


@dataclass(frozen=True)
class Net:
    mode: str = "hotspot"
    ssid: str | None = "companion-ab12"
    security: str | None = "wpa2"
    addresses: tuple[str, ...] = ("10.42.0.1",)
    mdns: str | None = "companion.local"
    interface: str | None = "wlan0"


@pytest.mark.parametrize(
    ("net", "codes"),
    [
        (Net(), ["addresses_ok", "mode_hotspot", "mdns_ok"]),
        (Net(security=None), ["addresses_ok", "mode_hotspot_open", "mdns_ok"]),
        (Net(mode="wifi", ssid="Cafe"), ["addresses_ok", "mode_wifi", "mdns_ok"]),
        (Net(mode="wired", ssid=None), ["addresses_ok", "mode_wired", "mdns_ok"]),
        (
            Net(mode="none", addresses=("127.0.0.1",), mdns=None),
            ["addresses_fail", "mode_none", "mdns_none"],
        ),
        (Net(mode="unknown", mdns=None), ["addresses_ok", "mode_unknown", "mdns_none"]),
    ],
)
def test_network_lines(net: Net, codes: list[str]) -> None:
    checks = network_checks(net)
    assert [c.code.rsplit(".", 1)[1] for c in checks] == codes
    assert exit_code(checks) == (1 if "addresses_fail" in codes else 0)


def test_network_shows_what_phones_can_reach() -> None:
    net = Net(addresses=("127.0.0.1", "10.42.0.1", "fe80::1", "192.168.1.20"))
    first = network_checks(net)[0]
    assert first.params["addresses"] == "10.42.0.1, 192.168.1.20"


def test_clock_and_versions() -> None:
    assert clock_check(True).status == "ok"
    assert clock_check(False).code == "doctor.clock.sync_no"
    assert clock_check(None).code == "doctor.clock.sync_unknown"
    v = versions_check({"companion": "1", "python": "3.11", "numpy": "1.24.2", "opencv": "4.6"})
    assert v.params["numpy"] == "1.24.2" and v.params["os"] == "?"


def test_report_and_exit_code() -> None:
    ok = [clock_check(True)]
    warn = [clock_check(True), clock_check(False)]
    fail = [*warn, controls_check(True, False)]
    assert exit_code(ok) == 0 and exit_code(warn) == 0 and exit_code(fail) == 1
    assert report(warn)["checks"][1]["status"] == "warn"
    with pytest.raises(ValueError):
        Check("clock.sync", "skip", "doctor.clock.sync_ok")


def test_thresholds_come_from_the_data_file() -> None:
    cam = settings()["camera"]
    for key in ("resolution", "fps", "quality", "space_px", "sharpness", "clipped", "moved"):
        assert set(cam[key]) <= {"warn_below", "fail_below", "warn_above", "fail_above"}
    lim = dict(cam)
    lim["sharpness"] = {"warn_below": 800.0, "fail_below": 40.0}
    assert by_id(camera_checks("p", GOOD, limits=lim))["camera.sharpness"].status == "warn"


def test_a_state_directory_this_user_cannot_read() -> None:
    facts = StorageFacts("/var/lib/companion", 10**10, 0, None, NOW, readable=False)
    checks = storage_checks(facts)
    assert [(c.id, c.status) for c in checks] == [
        ("storage.free", "ok"),
        ("storage.access", "warn"),
    ]
    assert checks[1].code == "doctor.storage.access_none"
