"""Issue 24's "Done when", as a person types it: `companion demo --fast --serve --seed 7
--players 3 --port P --state-dir DIR` run until its game is finished, then stopped, leaves a
recording; `companion replay DIR --json` finds no difference (exit 0); the bundle of
`companion report --state-dir DIR --out F` replays the same; the bundle cut short exits 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.blackbox import layout

pytestmark = pytest.mark.slow


def companion(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
        check=False,
    )


def test_the_demo_leaves_a_recording_that_replays_identical(tmp_path: Path) -> None:
    state = tmp_path / "state"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion",
            "demo",
            "--fast",
            "--serve",
            "--seed",
            "7",
            "--players",
            "3",
            "--port",
            "0",
            "--state-dir",
            str(state),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    assert proc.stdout is not None
    over = False
    deadline = time.monotonic() + 400
    try:
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            if "demo game over" in line:
                over = True
                break
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=60)
    assert over, err[-2000:]
    assert proc.returncode == 0, err[-2000:]
    assert "Traceback" not in err
    games = layout.recorded_games(state)
    assert len(games) == 1
    assert len(list((layout.game_dir(state, games[0]) / "frames").glob("*.jpg"))) > 50

    replayed = companion("replay", str(state), "--json", cwd=tmp_path)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    data = json.loads(replayed.stdout)
    assert data["identical"] is True and data["differences"] == []
    assert data["seen_then"] > 20

    bundle = tmp_path / "F.zip"
    made = companion("report", "--state-dir", str(state), "--out", str(bundle), cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    again = companion("replay", str(bundle), "--json", cwd=tmp_path)
    assert again.returncode == 0 and json.loads(again.stdout) == data

    cut = tmp_path / "cut.zip"
    cut.write_bytes(bundle.read_bytes()[: bundle.stat().st_size * 2 // 3])
    bad = companion("replay", str(cut), cwd=tmp_path)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and "cut short" in bad.stderr
