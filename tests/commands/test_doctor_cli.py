"""`companion doctor`: the JSON of the shared contract and its exit codes, with the demo's
simulated camera and card reader (shared/spec/cli.md, notes of issue 21)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.doctor.checks import all_codes

from ..core.cli_helpers import run

ROOT = Path(__file__).resolve().parents[2]


def test_sim_camera_and_reader_json_in_a_process(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "companion",
            "doctor",
            "--json",
            "--camera",
            "sim",
            "--reader",
            "sim",
            "--state-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert list(data) == ["checks"]
    checks = data["checks"]
    for c in checks:
        assert list(c) == ["id", "status", "code", "params"]
        assert c["status"] in ("ok", "warn", "fail")
        assert c["code"] in all_codes()
        assert c["code"].startswith(f"doctor.{c['id'].split('.')[0]}.")
    status = {c["id"]: c["status"] for c in checks}
    for cid in (
        "camera.found",
        "camera.board",
        "camera.sharpness",
        "camera.glare",
        "camera.steady",
        "camera.space_pixels",
        "reader.found",
        "reader.firmware",
        "reader.tap",
    ):
        assert status[cid] == "ok", cid
    areas = {c["id"].split(".")[0] for c in checks}
    assert areas == {"camera", "reader", "controls", "storage", "network", "clock", "versions"}
    by = {c["id"]: c for c in checks}
    assert by["reader.firmware"]["params"] == {"version": "1.0", "chip": "sim"}
    assert by["camera.frame_rate"]["params"] == {"fps": 5.0}
    assert by["storage.backup"]["code"] == "doctor.storage.backup_none"


def test_text_output_in_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "doctor", "--camera", "none", "--reader", "none", "--state-dir", str(tmp_path)
    )
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("WARN  camera.found")
    assert "No camera was checked" in lines[0]
    assert not any("doctor." in line for line in lines)  # words, not codes
    assert "host page" not in out  # the hint is for a device that cannot be opened
    code, out, _ = run(
        capsys,
        "doctor",
        "--camera",
        "none",
        "--reader",
        str(tmp_path / "r"),
        "--state-dir",
        str(tmp_path),
    )
    assert code == 1 and "FAIL  reader.found" in out and "host page" in out


def test_a_failing_check_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "doctor",
        "--json",
        "--camera",
        f"file:{tmp_path}/none.png",
        "--reader",
        str(tmp_path / "no-reader"),
        "--state-dir",
        str(tmp_path),
    )
    assert code == 1
    checks = {c["id"]: c for c in json.loads(out)["checks"]}
    assert checks["camera.found"]["status"] == "fail"
    assert "no such file" in checks["camera.found"]["params"]["detail"]
    assert checks["reader.found"]["status"] == "fail"


def test_a_picture_without_a_board_fails_the_board(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import cv2
    import numpy as np

    cv2.imwrite(str(tmp_path / "grey.png"), np.full((540, 960, 3), 120, np.uint8))
    code, out, _ = run(
        capsys,
        "doctor",
        "--json",
        "--camera",
        f"file:{tmp_path}/grey.png",
        "--reader",
        "none",
        "--state-dir",
        str(tmp_path),
    )
    checks = {c["id"]: c for c in json.loads(out)["checks"]}
    assert code == 1 and checks["camera.board"]["status"] == "fail"
    assert checks["camera.found"]["status"] == "ok"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--camera", "webcam"], "unknown camera"),
        (["--camera", "sim:abc"], "sim:abc"),
        (["--camera", "file:"], "needs a path"),
        (["--reader", " "], "--reader"),
    ],
)
def test_bad_input_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], words: str
) -> None:
    code, out, err = run(capsys, "doctor", "--state-dir", str(tmp_path), *args)
    assert code == 2 and out == ""
    assert words in err and "Traceback" not in err


def test_a_state_dir_that_is_a_file_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    code, _, err = run(capsys, "doctor", "--state-dir", str(f), "--camera", "none")
    assert code == 2 and "not a directory" in err
