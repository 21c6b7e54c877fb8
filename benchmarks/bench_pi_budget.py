"""CPU budget per camera frame and memory of the whole service, measured here, scaled to a Pi 4/5.

    .venv/bin/python benchmarks/bench_pi_budget.py [--frames N] [--fps F] [--pi4 X] [--pi5 Y]
                                                   [--window S] [--seed N] [--write]

What is measured on this machine (one thread: OpenCV is told to use one core, as a per-core
budget is what matters on a Pi whose other cores serve the web app). Times are this process's CPU
time (``time.process_time``), so another process on the machine does not inflate them.

1. ``live``: the live vision pipeline per frame, ``companion.vision.live.live.LiveWatcher.process``,
   on 1920x1080 frames of a rendered game with hands (``companion.sim.camera.SimulatedCamera``
   at the live frame rate), with the project's pixel reader (``VisionReader``: the frame shrunk to
   1280 px and ``read_board``) placed on the board from the simulator's truth (a fixed camera is
   calibrated once). The watcher reads only steady, clear frames: the table gives the mean over
   all frames, the 90th percentile (nearest rank), and the cost of a frame that reads.
2. ``watcher``: the same frames through the watcher with the simulator's oracle as reader (the
   watcher's own cost: warp, motion, occlusion tests).
3. ``reference``: a representative OpenCV pipeline that does not depend on the vision package:
   RGB frame copy, warp onto the board, downscale, frame difference, Lab and 300 patch means.
4. memory: peak RSS (VmHWM) of a running ``companion serve --demo --camera sim:SEED@1920x1080``
   with the controls enabled (on gpiozero's mock pins), its simulated camera read by the pixel
   reader (the sim camera's oracle is swapped for the truth-placed ``VisionReader`` in the child
   process; nothing else is changed), polled over ``--window`` seconds while the demo game plays.
   The child's CPU use over the window is printed too; it includes rendering the 1080p frames,
   which a real camera does not cost. The reads it made are counted (0 reads: the pixel reader
   did not run and the output says why).

Scaling (assumptions, stated in the output; override with --pi4/--pi5):

- Pi 4 (Cortex-A72, 1.8 GHz): 6.0x the time on this machine's core. Public single-core scores put
  a Pi 4 at about a fifth of a current x86 server core; OpenCV's kernels also lose AVX2 (256-bit)
  for NEON (128-bit) and the Pi 4's memory bandwidth is low, so the factor is rounded up.
- Pi 5 (Cortex-A76, 2.4 GHz): 2.5x. Raspberry Pi Ltd quote the Pi 5 as 2-3x a Pi 4; sysbench
  single-thread runs show about 2.3x; 6.0 / 2.4 = 2.5.
- Memory: same RSS on aarch64 (both 64-bit CPython), plus 60 MB on the Pi for picamera2/libcamera
  and its frame buffers (4 x 1920x1080 RGB = 25 MB of buffers; the rest libcamera and its IPA).
  The simulator's renderer, in the measured process, is not there on a Pi: the sum is an upper
  bound.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # run as a script: the package beside it (it is imported too)

from benchmarks.timing import percentile  # noqa: E402
from companion.config import CameraConfig  # noqa: E402

PI4_FACTOR = 6.0
PI5_FACTOR = 2.5
PI_CAMERA_MB = 60.0
FRAME = (1920, 1080)


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


@dataclass
class Timing:
    """CPU milliseconds per frame of one pipeline."""

    name: str
    times: list[float]
    read_times: list[float] = field(default_factory=list)

    @property
    def mean(self) -> float:
        return float(np.mean(self.times))

    @property
    def p90(self) -> float:
        return percentile(self.times, 90)  # nearest rank, as the other benchmarks

    @property
    def read_mean(self) -> float | None:
        return float(np.mean(self.read_times)) if self.read_times else None


def cpu_ms(fn: Callable[[], Any]) -> float:
    start = time.process_time()  # every thread of this process (a BLAS pool too)
    fn()
    return (time.process_time() - start) * 1000


# --- 1 and 2: the live pipeline on rendered 1080p frames ---------------------------------------


def rendered_frames(seed: int, fps: float, count: int) -> tuple[list[Any], Any]:
    """``count`` 1920x1080 frames of a simulated game with hands, ``fps`` apart."""
    from companion.sim.camera import SimulatedCamera, simulated_game
    from companion.sim.render import BoardRenderer

    renderer = BoardRenderer()
    script = simulated_game(seed, renderer=renderer, max_turns=12)
    cam = SimulatedCamera(script, seed=seed, fps=fps, size=FRAME, renderer=renderer)
    count = min(count, cam.frame_count)
    return [cam.frame_at(i) for i in range(count)], renderer


def truth_placed_reader() -> Any:
    """The project's pixel reader, placed on the board from the simulator's truth."""
    from companion.vision.live.live import VisionReader

    class TruthPlaced(VisionReader):
        def locate(self, frame: Any) -> np.ndarray:
            return np.asarray(frame.truth.corners, np.float64)

    return TruthPlaced()


def time_live(name: str, frames: list[Any], reader: Any, geometry: Any) -> Timing:
    from companion.vision.live.live import LiveWatcher

    first = frames[0]
    reader.read(first, reader.locate(first))  # one-off set-up (the reader's tables) not timed
    watcher = LiveWatcher(reader, geometry=geometry)
    out = Timing(name, [])
    for f in frames:
        reads = watcher.stats["reads"]
        ms = cpu_ms(lambda f=f: watcher.process(f))
        out.times.append(ms)
        if watcher.stats["reads"] > reads:
            out.read_times.append(ms)
    return out


# --- 3: the reference pipeline -----------------------------------------------------------------


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


def time_reference(count: int) -> Timing:
    import cv2

    rng = np.random.default_rng(20240601)
    pairs = [synthetic_frame(rng) for _ in range(3)]
    frames = [f for f, _ in pairs]
    corners = pairs[0][1]
    board_w, board_h = 1200, 800
    dst = np.array([[0, 0], [board_w, 0], [board_w, board_h], [0, board_h]], dtype=np.float32)
    m = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
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
            moved = int(np.count_nonzero(cv2.absdiff(gray, previous) > 25))
        state["previous"] = gray
        lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
        patches = np.stack([lab[y - 4 : y + 4, x - 4 : x + 4] for x, y in centres])
        return float(patches.reshape(300, -1, 3).mean(axis=1).sum()) + moved

    step(0)
    return Timing("reference OpenCV pipeline", [cpu_ms(lambda i=i: step(i)) for i in range(count)])


# --- 4: memory of the whole service ------------------------------------------------------------

SERVE_PROBE = textwrap.dedent(
    """
    import sys
    import numpy as np
    state, port, seed, config = sys.argv[1:5]
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory, MockPWMPin
    Device.pin_factory = MockFactory(pin_class=MockPWMPin)  # the controls, on mock pins
    reads = [0]
    try:
        import companion.sim.live_oracle as oracle
        from companion.vision.live.live import VisionReader

        class TruthPlaced(VisionReader):
            def __init__(self, *args, **kwargs):
                super().__init__(None)

            def locate(self, frame):
                return np.asarray(frame.truth.corners, np.float64)

            def read(self, frame, corners):
                try:
                    out = super().read(frame, corners)
                except Exception as exc:
                    print(f"bench: read failed: {type(exc).__name__}: {exc}", flush=True)
                    raise
                reads[0] += 1
                print(f"bench: reads {reads[0]}", flush=True)
                return out

        oracle.OracleReader = TruthPlaced  # serve builds this for a sim camera
        print("bench: pixel reader in place", flush=True)
    except Exception as exc:
        print(f"bench: oracle reader kept ({type(exc).__name__}: {exc})", flush=True)
    from companion.cli import main
    sys.exit(main([
        "serve", "--config", config, "--demo", "--demo-delay", "1",
        "--camera", f"sim:{seed}@1920x1080", "--state-dir", state,
        "--host", "127.0.0.1", "--port", port, "--no-qr",
    ]))
    """
)


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


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_until_answering(
    child: subprocess.Popen[Any], port: int, path: str, seconds: float
) -> None:
    """Until the served process answers ``path`` on loopback (or exits, or ``seconds`` pass)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and child.poll() is None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=1):
                return
        except OSError:
            time.sleep(0.2)


def watch(child: subprocess.Popen[Any], window: float) -> tuple[int, float]:
    """The process's last resident size (kB) and its CPU share (%) over ``window`` seconds."""
    cpu0, t0 = cpu_seconds(child.pid), time.monotonic()
    rss = 0
    while time.monotonic() - t0 < window and child.poll() is None:
        time.sleep(0.25)
        rss = vm_kb(child.pid, "VmRSS") or rss
    return rss, (cpu_seconds(child.pid) - cpu0) / (time.monotonic() - t0) * 100


def stop(child: subprocess.Popen[Any], seconds: float) -> None:
    """Terminate a served process; kill it when it has not ended within ``seconds``."""
    child.terminate()
    try:
        child.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait(timeout=10)


@dataclass
class ServeRun:
    peak_mb: float
    rss_mb: float
    cpu_percent: float
    reads: int
    notes: list[str]


def measure_serve(seed: int, window: float) -> ServeRun:

    port = free_port()
    lines: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "companion.toml"
        config.write_text("[controls]\nenabled = true\n", encoding="utf-8")
        child = subprocess.Popen(
            [
                sys.executable,
                "-c",
                SERVE_PROBE,
                str(Path(tmp) / "state"),
                str(port),
                str(seed),
                str(config),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=REPO,
        )
        assert child.stdout is not None
        out = child.stdout
        reader = threading.Thread(target=lambda: lines.extend(out), daemon=True)
        reader.start()
        try:
            wait_until_answering(child, port, "/api/state", 60)
            rss, cpu = watch(child, window)
            peak = vm_kb(child.pid, "VmHWM") or 0
        finally:
            stop(child, 15)
            reader.join(timeout=5)
    reads = max(
        (int(m.group(1)) for m in map(re.compile(r"bench: reads (\d+)").search, lines) if m),
        default=0,
    )
    notes = [
        ln.strip()
        for ln in lines
        if ln.startswith(
            (
                "bench: pixel",
                "bench: oracle",
                "bench: read failed",
                "companion: buttons",
                "companion: warning",
                "companion: camera",
            )
        )
    ]
    notes = list(dict.fromkeys(notes))  # once each
    return ServeRun(peak / 1024, rss / 1024, cpu, reads, notes)


# --- the report --------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=60, help="rendered frames timed")
    parser.add_argument(
        "--fps", type=float, default=CameraConfig().fps, help="live frame rate ([camera] fps)"
    )
    parser.add_argument("--pi4", type=float, default=PI4_FACTOR, help="Pi 4 time factor")
    parser.add_argument("--pi5", type=float, default=PI5_FACTOR, help="Pi 5 time factor")
    parser.add_argument("--seed", type=int, default=11, help="seed of the rendered game")
    parser.add_argument(
        "--window", type=float, default=30.0, help="seconds the running service is watched"
    )
    from results import WRITE_HELP, Results  # a script's sibling (this module is imported too)

    parser.add_argument("--write", action="store_true", help=WRITE_HELP)
    args = parser.parse_args()
    res = Results("bench_pi_budget", write=args.write)

    import cv2

    cv2.setNumThreads(1)
    interval = 1000 / args.fps
    print(
        f"machine: {cpu_name()} ({platform.machine()}), Python {platform.python_version()}, "
        f"OpenCV {cv2.__version__}, numpy {np.__version__}, OpenCV threads: 1"
    )
    print(f"frame: {FRAME[0]}x{FRAME[1]}, live rate {args.fps:g} fps -> {interval:.0f} ms apart")
    print(
        f"assumed factors: Pi 4 = {args.pi4:g}x this core's time, Pi 5 = {args.pi5:g}x "
        "(see the module docstring for where they come from)"
    )
    print()

    timings: list[Timing] = []
    try:
        frames, renderer = rendered_frames(args.seed, args.fps, args.frames)
        print(
            f"rendered game: seed {args.seed}, {len(frames)} frames ({len(frames) / args.fps:.0f} "
            "s of play with hands, shadows, claims)"
        )
        try:
            timings.append(
                time_live(
                    "live: watcher + pixel reader", frames, truth_placed_reader(), renderer.geometry
                )
            )
        except Exception as exc:  # the vision package is someone else's and may be mid-change
            print(f"live pipeline with the pixel reader not measured: {type(exc).__name__}: {exc}")
        from companion.sim.live_oracle import OracleReader

        timings.append(
            time_live(
                "live: watcher alone (oracle)",
                frames,
                OracleReader(renderer.geometry, seed=args.seed),
                renderer.geometry,
            )
        )
    except Exception as exc:
        print(f"live pipeline not measured: {type(exc).__name__}: {exc}")
    timings.append(time_reference(args.frames))
    print()

    header = (
        f"{'CPU per frame (one core)':30} {'here ms':>8} {'p90':>6} {'read fr.':>8} "
        f"{'Pi4 ms':>7} {'Pi4 core%':>9} {'Pi4 read':>8} {'Pi5 ms':>7} {'Pi5 core%':>9} "
        f"{'Pi5 read':>8}"
    )
    print(header)
    print("-" * len(header))
    for t in timings:
        read = t.read_mean
        cells = [
            f"{t.name:30} {t.mean:8.1f} {t.p90:6.1f} "
            f"{(f'{read:.1f}' if read is not None else '-'):>8}"
        ]
        for factor in (args.pi4, args.pi5):
            ms = t.mean * factor
            read_pi = f"{read * factor:.0f}" if read is not None else "-"
            cells.append(f"{ms:7.0f} {ms * args.fps / 10:8.0f}% {read_pi:>8}")
        print(" ".join(cells))
        if read is not None:
            print(
                f"{'':30} reads on {len(t.read_times)} of {len(t.times)} frames "
                "(steady, clear board only)"
            )
    print()
    print("ms = mean CPU per frame over all frames; p90 over all frames (nearest rank); read fr. =")
    print("mean of the frames on which the board was read. core% = share of ONE core at the live")
    print(f"rate (mean ms x {args.fps:g} fps).")
    live = next((t for t in timings if t.name.startswith("live: watcher +")), None)
    if live is not None and live.read_mean is not None:
        for pi, factor in (("Pi 4", args.pi4), ("Pi 5", args.pi5)):
            ms = live.read_mean * factor
            verdict = (
                "fits in"
                if ms <= interval
                else "is longer than: the frames that come meanwhile wait, claims come later"
            )
            print(
                f"{pi}: a frame that reads takes ~{ms:.0f} ms, which {verdict} the "
                f"{interval:.0f} ms between frames"
            )
        res.add(
            "pi-budget-live",
            f"live pipeline per 1080p frame at {args.fps:g} fps (watcher + pixel reader, mean"
            f" over a rendered game): measured here; Pi 4 / Pi 5 estimated (x{args.pi4:g} /"
            f" x{args.pi5:g}, assumed factors)",
            f"here {live.mean:.1f} ms; Pi 4 ~{live.mean * args.pi4:.0f} ms"
            f" ({live.mean * args.pi4 * args.fps / 10:.0f} % of a core; a frame that reads"
            f" ~{live.read_mean * args.pi4:.0f} ms), Pi 5 ~{live.mean * args.pi5:.0f} ms"
            f" ({live.mean * args.pi5 * args.fps / 10:.0f} %)",
        )
    print()

    run = measure_serve(args.seed, args.window)
    print(
        f"memory: companion serve --demo --camera sim:{args.seed}@1920x1080 with controls "
        f"(mock pins), watched {args.window:g} s"
    )
    for note in run.notes:
        print(f"        {note}")
    print(f"        board reads by the pixel reader in the service: {run.reads}")
    print(
        f"        peak RSS {run.peak_mb:.0f} MB (RSS at the end {run.rss_mb:.0f} MB); "
        f"CPU {run.cpu_percent:.0f}% of one core, rendering the 1080p frames included"
    )
    print(
        f"        Pi 4 / Pi 5 estimate: {run.peak_mb + PI_CAMERA_MB:.0f} MB "
        f"(+{PI_CAMERA_MB:.0f} MB assumed for picamera2/libcamera and its buffers; the renderer "
        "measured here is not on a Pi)"
    )
    res.add(
        "pi-budget-memory",
        f"memory of the whole service with a 1080p simulated camera, pixel reader and controls"
        f" ({args.window:g} s; the renderer drawing the frames included)",
        f"peak {run.peak_mb:.0f} MB here; {run.reads} board reads",
    )
    res.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
