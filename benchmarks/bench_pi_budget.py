"""CPU budget per camera frame and memory of the service, measured here, scaled to a Pi 4 / Pi 5.

    .venv/bin/python benchmarks/bench_pi_budget.py [--frames N] [--fps F] [--pi4 X] [--pi5 Y]

What is measured on this machine (one thread: OpenCV is told to use one core, as a per-core
budget is what matters on a Pi whose other cores serve the web app):

1. ``vision``: the vision package's per-frame path for a fixed camera,
   ``companion.vision.read.read_board(frame, location=..., context=...)`` (the board located once
   by calibration), on a 1920x1080 frame. ``companion/vision/live.py`` (the live loop, written in
   parallel) wraps this call; its own API is not guessed at here.
2. ``reference``: a representative OpenCV pipeline that does not depend on the vision package:
   RGB frame copy (what picamera2 hands over), warp the 1080p frame onto the board, downscale,
   frame difference against the previous board image (motion gate), Lab conversion and the mean
   of 300 small patches (one per train space group).
3. memory: peak RSS (VmHWM) of a child process running ``companion serve`` when that command
   exists; until it does, of a child that imports what the service will (flask, waitress, numpy,
   cv2, gpiozero, companion's config/controls/sdnotify, the vision reader) and runs the vision path
   on a few frames.

Scaling (assumptions, stated in the output; override with --pi4/--pi5):

- Pi 4 (Cortex-A72, 1.8 GHz): 6.0x the time on this machine's core. Public single-core scores put
  a Pi 4 at about a fifth of a current x86 server core; OpenCV's kernels also lose AVX2 (256-bit)
  for NEON (128-bit) and the Pi 4's memory bandwidth is low, so the factor is rounded up.
- Pi 5 (Cortex-A76, 2.4 GHz): 2.5x. Raspberry Pi Ltd quote the Pi 5 as 2-3x a Pi 4; sysbench
  single-thread runs show about 2.3x; 6.0 / 2.4 = 2.5.
- Memory: same RSS on aarch64 (both 64-bit CPython), plus 60 MB on the Pi for picamera2/libcamera
  and its frame buffers (4 x 1920x1080 RGB = 25 MB of buffers; the rest libcamera and its IPA).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from companion.config import CameraConfig

PI4_FACTOR = 6.0
PI5_FACTOR = 2.5
PI_CAMERA_MB = 60.0
FRAME = (1920, 1080)
REPO = Path(__file__).resolve().parents[1]


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def synthetic_frame(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A 1080p frame with a textured, coloured board quad in it, and that quad's corners."""
    import cv2

    w, h = FRAME
    frame = rng.integers(40, 90, size=(h, w, 3), dtype=np.uint8)
    board = np.full((800, 1200, 3), 200, dtype=np.uint8)
    for _ in range(400):  # coloured blobs stand in for routes and trains
        x, y = int(rng.integers(0, 1200)), int(rng.integers(0, 800))
        color = tuple(int(c) for c in rng.integers(0, 255, size=3))
        cv2.rectangle(board, (x, y), (x + 30, y + 12), color, -1)
    corners = np.array([[250, 60], [1680, 80], [1660, 1030], [240, 1010]], dtype=np.float32)
    src = np.array([[0, 0], [1199, 0], [1199, 799], [0, 799]], dtype=np.float32)
    m = cv2.getPerspectiveTransform(src, corners)
    cv2.warpPerspective(board, m, (w, h), dst=frame, borderMode=cv2.BORDER_TRANSPARENT)
    return frame, corners


def time_per_frame(step: Callable[[int], Any], frames: int) -> tuple[float, float]:
    """(median, 90th percentile) milliseconds of one call, after two warm-up calls."""
    step(0)
    step(1)
    times = []
    for i in range(frames):
        start = time.perf_counter()
        step(i)
        times.append((time.perf_counter() - start) * 1000)
    return float(np.median(times)), float(np.percentile(times, 90))


def reference_pipeline(frames: list[np.ndarray], corners: np.ndarray) -> Callable[[int], Any]:
    import cv2

    board_w, board_h = 1200, 800
    dst = np.array([[0, 0], [board_w, 0], [board_w, board_h], [0, board_h]], dtype=np.float32)
    m = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    rng = np.random.default_rng(3)
    centres = np.stack(
        [rng.integers(8, board_w // 2 - 8, 300), rng.integers(8, board_h // 2 - 8, 300)], axis=1
    )
    state: dict[str, np.ndarray] = {}

    def step(i: int) -> float:
        frame = frames[i % len(frames)].copy()  # the buffer picamera2 hands over
        board = cv2.warpPerspective(frame, m, (board_w, board_h), flags=cv2.INTER_LINEAR)
        small = cv2.resize(board, (board_w // 2, board_h // 2), interpolation=cv2.INTER_AREA)
        gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        previous = state.get("previous")
        moved = 0
        if previous is not None:
            diff = cv2.absdiff(gray, previous)
            moved = int(np.count_nonzero(diff > 25))
        state["previous"] = gray
        lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
        patches = np.stack([lab[y - 4 : y + 4, x - 4 : x + 4] for x, y in centres])
        means = patches.reshape(300, -1, 3).mean(axis=1)
        return float(means.sum()) + moved

    return step


def vision_pipeline(frames: list[np.ndarray], corners: np.ndarray) -> Callable[[int], Any]:
    from companion.vision.locate import BoardLocation
    from companion.vision.read import make_context, read_board

    ctx = make_context()
    location = BoardLocation.from_corners(corners, FRAME, method="calibration")

    def step(i: int) -> Any:
        return read_board(frames[i % len(frames)], location=location, context=ctx)

    return step


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def vm_kb(pid: int, key: str) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def serve_exists() -> bool:
    exe = shutil.which("companion", path=str(Path(sys.executable).parent))
    if exe is None:
        return False
    probe = subprocess.run([exe, "serve", "--help"], capture_output=True, check=False)
    return probe.returncode == 0


def measure_serve_rss() -> tuple[float, str]:
    """Peak RSS (MB) of `companion serve` after it answered /api/state (or 10 s)."""
    import urllib.request

    exe = shutil.which("companion", path=str(Path(sys.executable).parent))
    assert exe is not None
    port = free_port()
    with tempfile.TemporaryDirectory() as state:
        env = dict(os.environ, COMPANION_CONFIG=str(REPO / "systemd/companion.toml.example"))
        cmd = [exe, "serve", "--state-dir", state, "--host", "127.0.0.1", "--port", str(port)]
        child = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=1):
                        break
                except OSError:
                    time.sleep(0.2)
            time.sleep(2)  # let it settle into its loop
            peak = vm_kb(child.pid, "VmHWM") or 0
        finally:
            child.terminate()
            child.wait(timeout=10)
    return peak / 1024, "companion serve (running, answering /api/state)"


IMPORT_PROBE = textwrap.dedent(
    """
    import sys, numpy as np
    import cv2, flask, waitress, gpiozero, segno, serial
    import companion.config, companion.controls, companion.sdnotify
    sys.path.insert(0, sys.argv[1])
    from bench_pi_budget import synthetic_frame, vision_pipeline
    frame, corners = synthetic_frame(np.random.default_rng(1))
    try:
        step = vision_pipeline([frame], corners)
        for i in range(3):
            step(i)
        note = "with the vision reader run on 3 frames"
    except Exception as exc:
        note = "vision reader unavailable: " + type(exc).__name__
    print(note)
    """
)


def measure_import_rss() -> tuple[float, str]:
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            IMPORT_PROBE + "\nimport time; time.sleep(1.5)\n",
            str(REPO / "benchmarks"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    peak = 0
    while child.poll() is None:
        peak = max(peak, vm_kb(child.pid, "VmHWM") or 0)
        time.sleep(0.05)
    out, err = child.communicate()
    if child.returncode != 0:
        raise RuntimeError(f"the import probe failed: {err.strip().splitlines()[-1:]}")
    what = "python + flask + waitress + numpy + cv2 + gpiozero + companion, " + out.strip()
    return peak / 1024, what


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=30, help="frames timed per pipeline")
    parser.add_argument(
        "--fps", type=float, default=CameraConfig().fps, help="live frame rate ([camera] fps)"
    )
    parser.add_argument("--pi4", type=float, default=PI4_FACTOR, help="Pi 4 time factor")
    parser.add_argument("--pi5", type=float, default=PI5_FACTOR, help="Pi 5 time factor")
    args = parser.parse_args()

    import cv2

    cv2.setNumThreads(1)
    rng = np.random.default_rng(20240601)
    frames_and_corners = [synthetic_frame(rng) for _ in range(3)]
    frames = [f for f, _ in frames_and_corners]
    corners = frames_and_corners[0][1]

    print(
        f"machine: {cpu_name()} ({platform.machine()}), Python {platform.python_version()}, "
        f"OpenCV {cv2.__version__}, numpy {np.__version__}, OpenCV threads: 1"
    )
    print(
        f"frame: {FRAME[0]}x{FRAME[1]}, live rate {args.fps:g} fps "
        f"-> {1000 / args.fps:.0f} ms between frames"
    )
    print(
        f"assumed factors: Pi 4 = {args.pi4:g}x this core's time, Pi 5 = {args.pi5:g}x "
        "(see the module docstring for where they come from)"
    )
    print()

    pipelines: list[tuple[str, Callable[[int], Any]]] = []
    live = Path(REPO / "companion/vision/live.py")
    try:
        pipelines.append(("vision read_board (fixed camera)", vision_pipeline(frames, corners)))
    except Exception as exc:  # the vision package is someone else's and may be mid-change
        print(f"vision pipeline not measured: {type(exc).__name__}: {exc}")
    pipelines.append(("reference OpenCV pipeline", reference_pipeline(frames, corners)))
    if live.exists():
        print(
            "note: companion/vision/live.py exists; its own loop (change tracking, rules veto) "
            "is not timed here, only the read_board call it makes per frame"
        )

    header = (
        f"{'pipeline':34} {'here ms':>8} {'p90':>6} {'Pi4 ms':>7} {'Pi4 core%':>9} "
        f"{'Pi5 ms':>7} {'Pi5 core%':>9}"
    )
    print(header)
    print("-" * len(header))
    for name, step in pipelines:
        median, p90 = time_per_frame(step, args.frames)
        pi4, pi5 = median * args.pi4, median * args.pi5
        share4 = pi4 * args.fps / 10  # percent of one core
        share5 = pi5 * args.fps / 10
        print(
            f"{name:34} {median:8.1f} {p90:6.1f} {pi4:7.0f} {share4:8.0f}% {pi5:7.0f} "
            f"{share5:8.0f}%"
        )
    print()
    print("core% = share of ONE core at the live rate (100% = the core is busy all the time;")
    print("the Pi has 4 cores, the web server and rules use another).")
    print()

    if serve_exists():
        rss, what = measure_serve_rss()
    else:
        rss, what = measure_import_rss()
        what += " (`companion serve` does not exist yet)"
    print(f"memory: peak RSS {rss:.0f} MB here: {what}")
    print(
        f"        Pi 4 / Pi 5 estimate: {rss + PI_CAMERA_MB:.0f} MB "
        f"(+{PI_CAMERA_MB:.0f} MB assumed for picamera2/libcamera and its buffers)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
