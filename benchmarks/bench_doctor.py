"""How long the set-up check takes: the camera's measures (the board located in each kept
frame, its sharpness, glare and steadiness) per frame size, and the whole command with the
demo's simulated camera and reader.

Run: ``.venv/bin/python benchmarks/bench_doctor.py [--quick] [--write]``

The camera part is what ``GET /api/doctor`` adds to the 10 s of frames it waits for (the
frames come from the running camera, so reading them costs nothing here); the command's time
includes rendering the simulated frames and starting Python. Medians of a few runs, with the
machine's load average printed beside them.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from results import Results  # noqa: E402
from timing import timed  # noqa: E402


def camera_part(size: tuple[int, int], repeat: int) -> tuple[float, dict[str, object]]:
    from companion.doctor import settings
    from companion.doctor.camera import capture
    from companion.doctor.runner import camera_from_capture
    from companion.sim.camera import SimulatedCamera

    cam = SimulatedCamera([], seed=11, fps=5.0, size=size)
    cam.duration = 1e6
    cfg = settings()["camera"]
    cap = capture(cam, float(cfg["seconds"]), int(cfg["frames"]))  # rendered once
    lines: list[object] = []
    times = timed(lambda: lines.append(camera_from_capture("sim", cap)), repeat)
    last = {c.id: c.status for c in lines[-1]}  # type: ignore[attr-defined]
    return statistics.median(times), last


def command(repeat: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        args = [sys.executable, "-m", "companion", "doctor", "--json"]
        args += ["--camera", "sim", "--reader", "sim", "--state-dir", tmp]
        for _ in range(repeat):
            out += timed(lambda: subprocess.run(args, env=env, capture_output=True, check=False), 1)
    return statistics.median(out)


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    repeat = 1 if quick else 3
    res = Results("bench_doctor", write="--write" in argv)
    print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
    print("| frames | camera part (locate + measures of 5 frames), median ms | lines |")
    print("|---|---|---|")
    for size in ((960, 540), (1920, 1080)):
        ms, status = camera_part(size, repeat)
        bad = ", ".join(f"{k} {v}" for k, v in status.items() if v != "ok") or "all ok"
        print(f"| {size[0]}x{size[1]} | {ms:.0f} | {bad} |")
        res.add(
            f"doctor-camera-{size[1]}p",
            f"set-up check, the camera part (locate + measures of 5 frames) at {size[0]}x{size[1]}",
            f"{ms:.0f} ms median",
        )
    ms = command(repeat)
    print(f"companion doctor --camera sim --reader sim (whole process), median: {ms:.0f} ms")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    res.add(
        "doctor-command",
        "`companion doctor --camera sim --reader sim`, the whole process",
        f"{ms:.0f} ms median",
    )
    res.save()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
