"""The camera's start-up loads the simulator only for a simulated camera."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

SCRIPT = """
import sys, threading
from companion.commands.devices import start_camera

class Service:
    def __init__(self):
        self.listeners = []
        self.notices = []
    def observe_nowait(self, data, actor):
        pass
    def notice(self, text, level, code="", params=None):
        self.notices.append(code)

stop = threading.Event()
service = Service()
thread = start_camera(service, sys.argv[1], stop)
stop.set()  # the loop ends at its next frame
thread.join(timeout=60)
print(sorted(m for m in sys.modules if m.startswith("companion.sim")))
"""


def _sim_modules_after_start(spec: str) -> str:
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, spec],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout.strip().splitlines()[-1]


def test_a_real_camera_does_not_load_the_simulator(tmp_path: Path) -> None:
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), np.full((90, 160, 3), 200, np.uint8))
    assert _sim_modules_after_start(f"file:{image}") == "[]"


def test_a_simulated_camera_does() -> None:
    loaded = _sim_modules_after_start("sim:1@64x36")
    assert "companion.sim.camera" in loaded and "companion.sim.live_oracle" in loaded
