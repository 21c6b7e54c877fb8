"""The Raspberry Pi camera without its software (picamera2 cannot be imported): the advice is to
install it, not to check the cable; the page's words name no command, the command's text does;
`companion serve`'s warning for a configured one is the same line as `companion doctor`'s."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from companion.commands.doctor import configured_camera_problem
from companion.config import CameraConfig, camera_backend_problem
from companion.doctor import runner
from companion.doctor.checks import CAMERA_SOFTWARE_HOW, camera_checks
from companion.doctor.probes import camera_software_missing
from companion.doctor.words import catalogue
from companion.vision.live.sources import SourceError

from ..core.cli_helpers import run

I18N = Path(__file__).resolve().parents[2] / "web/static/i18n"
CODE = "doctor.camera.software_missing"


def refuse(name: str) -> None:
    raise ImportError(f"No module named {name!r}")


def test_only_the_pi_camera_without_its_module_is_missing_software() -> None:
    assert camera_software_missing("picamera2", load=refuse)
    assert camera_software_missing("picamera2:1920x1080", load=refuse)
    assert not camera_software_missing("picamera2", load=lambda name: object())
    assert not camera_software_missing("v4l2:/dev/video0", load=refuse)  # (cable advice holds)
    assert not camera_software_missing(None, load=refuse)

    def broken(name: str) -> None:  # installed for another numpy: fails as it loads
        raise ValueError("numpy.dtype size changed, may indicate binary incompatibility")

    assert camera_software_missing("picamera2", load=broken)


def test_the_line_says_the_software_is_missing() -> None:
    (line,) = camera_checks("picamera2", None, "picamera2 is not installed", software=False)
    assert (line.id, line.status, line.code) == ("camera.found", "fail", CODE)
    assert line.params == {"source": "picamera2", "detail": CAMERA_SOFTWARE_HOW}
    assert "python3-picamera2" in CAMERA_SOFTWARE_HOW and "install.sh" in CAMERA_SOFTWARE_HOW
    (other,) = camera_checks("v4l2:/dev/video0", None, "no such device")
    assert other.code == "doctor.camera.found_fail"  # another camera: its cable and power


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_the_page_words_name_no_command_and_no_cable_check(lang: str) -> None:
    words = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
    text = words[CODE]
    for raw in ("sudo", "apt", "picamera2", "install.sh", "`", "--", "/"):
        assert raw not in text, raw
    assert text != words["doctor.camera.found_fail"]


def test_the_runner_tells_missing_software_from_a_bad_camera(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_camera() -> None:
        raise SourceError("picamera2 is not installed")

    monkeypatch.setattr(runner, "camera_software_missing", lambda name: name == "picamera2")
    assert runner.camera_lines("picamera2", no_camera)[0].code == CODE
    assert runner.camera_lines("v4l2:/dev/video0", no_camera)[0].code == (
        "doctor.camera.found_fail"
    )


def test_the_command_says_what_to_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # (an import of it fails, on a Pi too)
    args = ["doctor", "--camera", "picamera2", "--reader", "none", "--state-dir", str(tmp_path)]
    code, out, _ = run(capsys, *args)
    first = out.splitlines()[0]
    assert code == 1 and first.startswith("FAIL  camera.found")
    assert "software is not installed" in first and "Check its cable" not in first
    assert "sudo apt install python3-picamera2" in first  # the command's text gives the command
    code, out, _ = run(capsys, *args, "--json")
    (line,) = [c for c in json.loads(out)["checks"] if c["id"] == "camera.found"]
    assert (line["status"], line["code"]) == ("fail", CODE)


def test_serve_warns_in_the_words_of_the_doctors_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # (an import of it fails, on a Pi too)
    pi_camera = CameraConfig(backend="picamera2")
    problem = configured_camera_problem(pi_camera)
    assert problem is not None and problem.startswith(catalogue("en")[CODE])
    assert problem.endswith(f" ({CAMERA_SOFTWARE_HOW})")
    args = ["doctor", "--camera", "picamera2", "--reader", "none", "--state-dir", str(tmp_path)]
    _, out, _ = run(capsys, *args)
    assert out.splitlines()[0] == f"FAIL  {'camera.found':<20} {problem}"  # one message
    assert camera_backend_problem(pi_camera) is None  # (the configuration has no words of its own)
    assert configured_camera_problem(CameraConfig(backend="none")) is None
    usb = CameraConfig(backend="v4l2", device="/dev/video99")  # another camera: as before
    assert configured_camera_problem(usb) == camera_backend_problem(usb) is not None


def test_the_running_service_names_a_configured_camera_it_could_not_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from companion.commands.serve import _doctor_devices
    from companion.doctor import live

    monkeypatch.setattr(runner, "camera_software_missing", lambda name: name == "picamera2")
    # serve without the camera (its software is missing): the check names it, at once
    devices = _doctor_devices(tmp_path, None, None, None, None, "picamera2")
    assert devices.frames is None
    (line,) = devices.camera_lines()
    assert (line.code, line.params["source"]) == (CODE, "picamera2")
    # no camera configured at all: still "none is configured"
    (none,) = live.Devices(tmp_path).camera_lines()
    assert none.code == "doctor.camera.found_none"
