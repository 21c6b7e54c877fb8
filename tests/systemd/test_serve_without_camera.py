"""`companion serve` configured for a camera this machine lacks: one warning line, no traceback,
and the game served all the same (what --force off a Pi used to meet at every start)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from tests.serving import serve_cmd


def serve_briefly(tmp_path: Path, camera: str) -> tuple[str, str]:
    config = tmp_path / "companion.toml"
    config.write_text(f"[camera]\n{camera}\n\n[reader]\nenabled = false\n", encoding="utf-8")
    env = dict(os.environ, COMPANION_CONFIG=str(config))
    proc = subprocess.Popen(
        serve_cmd(tmp_path / "state", "--no-qr"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    out: list[str] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        out.append(line)
        if re.search(r"serving on http://127\.0\.0\.1:\d+/", line):
            break
    time.sleep(1.0)  # the camera thread, had it started, would fail by now
    proc.terminate()
    rest, err = proc.communicate(timeout=30)
    return "".join(out) + rest, err


def test_a_missing_picamera2_is_one_line_and_the_game_is_served(tmp_path: Path) -> None:
    if importlib.util.find_spec("picamera2") is not None:
        pytest.skip("picamera2 is installed here")
    out, err = serve_briefly(tmp_path, 'backend = "picamera2"')
    assert "serving on http://127.0.0.1:" in out
    warnings = [line for line in err.splitlines() if "no camera" in line]
    assert len(warnings) == 1
    # the set-up check's words (doctor.camera.software_missing), then the command to run
    assert "The Raspberry Pi camera's software is not installed on the box" in warnings[0]
    assert "(install it with `sudo apt install python3-picamera2`" in warnings[0]
    assert "Traceback" not in err
    assert "--source" not in out + err  # serve has no such flag
    assert "companion: camera" not in out


def test_backend_none_starts_no_camera_and_says_nothing(tmp_path: Path) -> None:
    out, err = serve_briefly(tmp_path, 'backend = "none"')
    assert "serving on http://127.0.0.1:" in out
    assert "companion: camera" not in out
    assert "camera" not in err.lower()
