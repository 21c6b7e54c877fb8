"""Memory of the production service as a Pi runs it: ``companion serve`` with its config file,
the camera a real-sized still-image source (no renderer: nothing simulated is imported), the
pixel reader, the controls on gpiozero's mock pins, no card reader. Target: <= 200 MB RSS.

    python benchmarks/bench_pi_memory.py [--python PY] [--window SECONDS] [--quick] [--write]

Frames: the shared board photos (../shared/photos) scaled to 1920x1080, what the Pi camera is
configured for, shown in turn (a folder of links, read by the ``file`` camera backend as fast
as the reader takes them: the busiest the camera thread gets). ``--python`` runs the service
with another interpreter, e.g. ``.venv-prod/bin/python`` (scripts/dev prod-test builds it):
Debian's numpy 1.24 and the OpenCV pip picks there, the Pi's pair.

Prints peak RSS (VmHWM), the RSS at the end, mean CPU and the modules that would mean a
renderer was loaded (there must be none).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks import bench_pi_budget as pi  # noqa: E402
from benchmarks.results import WRITE_HELP, Results  # noqa: E402

PHOTOS = REPO.parent / "shared" / "photos"
SIZE = (1920, 1080)

# Runs the real CLI; on a clean exit says which simulation modules got imported (none expected).
SERVE = """
import atexit, sys
def report():
    sim = sorted(m for m in sys.modules if m.startswith("companion.sim")
                 or (m.startswith("companion.") and "render" in m))
    print("bench: numpy", sys.modules["numpy"].__version__ if "numpy" in sys.modules else "-",
          "opencv", sys.modules["cv2"].__version__ if "cv2" in sys.modules else "-", flush=True)
    print("bench: simulation modules loaded:", ", ".join(sim) or "none", flush=True)
    print("bench: frames read", READ[0], flush=True)
atexit.register(report)
READ = [0]
from companion.vision.live import sources
_read = sources.FileSource.read
def counted(self):
    frame = _read(self)
    READ[0] += frame is not None
    return frame
sources.FileSource.read = counted
from companion.cli import main
sys.exit(main(sys.argv[1:]))
"""


def make_frames(folder: Path, count: int) -> list[str]:
    """``count`` links to the shared photos scaled (and centre-cropped) to 1920x1080."""
    import cv2

    photos = sorted(PHOTOS.glob("*.jpg"))
    if not photos:
        raise SystemExit(f"no photos in {PHOTOS}")
    stills = []
    for i, photo in enumerate(photos):
        image = cv2.imread(str(photo), cv2.IMREAD_COLOR)
        h, w = image.shape[:2]
        scale = max(SIZE[0] / w, SIZE[1] / h)
        image = cv2.resize(
            image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA
        )
        y = (image.shape[0] - SIZE[1]) // 2
        x = (image.shape[1] - SIZE[0]) // 2
        still = folder.parent / f"still{i}.jpg"
        cv2.imwrite(str(still), image[y : y + SIZE[1], x : x + SIZE[0]])
        stills.append(still)
    folder.mkdir()
    for k in range(count):
        (folder / f"frame{k:05d}.jpg").symlink_to(stills[k % len(stills)])
    return [p.name for p in photos]


def start_table_service(
    tmp: Path, python: str, stdout: Any, stderr: Any
) -> tuple[subprocess.Popen[str], int, list[str]]:
    """`companion serve` as a Pi's table runs it (``SERVE`` under the interpreter ``python``),
    in ``tmp``: the file camera on 3000 frames of the shared photos, no card reader, the
    controls on gpiozero's mock pins, its state in tmp/state, on a free loopback port. The
    process, its port and the photos' names."""
    frames = tmp / "frames"
    names = make_frames(frames, 3000)
    config = tmp / "companion.toml"
    config.write_text(
        f'[camera]\nbackend = "file"\ndevice = "{frames}"\n\n'
        "[reader]\nenabled = false\n\n[controls]\nenabled = true\n",
        encoding="utf-8",
    )
    port = pi.free_port()
    env = dict(
        os.environ,
        GPIOZERO_PIN_FACTORY="mock",
        GPIOZERO_MOCK_PIN_CLASS="mockpwmpin",  # the LED dims by PWM
        PYTHONPATH=str(REPO),
    )
    env.pop("COMPANION_CONFIG", None)
    cmd = [python, "-c", SERVE, "serve", "--config", str(config), "--state-dir", str(tmp / "state")]
    cmd += ["--host", "127.0.0.1", "--port", str(port), "--no-qr"]
    child = subprocess.Popen(cmd, stdout=stdout, stderr=stderr, text=True, cwd=tmp, env=env)
    return child, port, names


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=sys.executable, help="interpreter to run the service")
    ap.add_argument("--window", type=float, default=90.0, help="seconds to watch it (default 90)")
    ap.add_argument("--quick", action="store_true", help="a 20 s window")
    ap.add_argument("--write", action="store_true", help=WRITE_HELP)
    args = ap.parse_args(argv)
    window = 20.0 if args.quick else args.window
    python = os.path.abspath(args.python)  # not resolved: a venv's python is a link
    with tempfile.TemporaryDirectory() as tmp:
        output = (subprocess.PIPE, subprocess.STDOUT)  # the lines it prints, read below
        child, port, names = start_table_service(Path(tmp), python, *output)
        lines: list[str] = []
        assert child.stdout is not None
        out = child.stdout
        pump = threading.Thread(target=lambda: lines.extend(out), daemon=True)
        pump.start()
        try:
            pi.wait_until_answering(child, port, "/api/health", 120)
            start_rss = (pi.vm_kb(child.pid, "VmRSS") or 0) / 1024
            rss, cpu = pi.watch(child, window)
            peak = (pi.vm_kb(child.pid, "VmHWM") or 0) / 1024
            alive = child.poll() is None
        finally:
            pi.stop(child, 20)
            pump.join(timeout=5)
    print(f"photos: {', '.join(names)} at {SIZE[0]}x{SIZE[1]}; interpreter {args.python}")
    for line in lines:
        keep = ("bench:", "companion: camera", "companion: buttons", "companion: warn")
        if line.startswith(keep) or "camera stopped" in line or "Traceback" in line:
            print("  " + line.rstrip())
    versions = next((ln.split("bench: ", 1)[1].strip() for ln in lines if "bench: numpy" in ln), "")
    res = Results("bench_pi_memory", write=args.write, libraries=f"{python}: {versions}")
    res.add(
        "pi-memory",
        "memory of the production service as a Pi runs it (`serve` with its config file, a 1080p"
        " still-image camera read by the pixel reader, controls on mock pins, no renderer, no card"
        f" reader), {window:.0f} s",
        f"{start_rss:.0f} MB when ready, peak {peak:.0f} MB (target <= 200 MB)",
    )
    res.save()
    verdict = "within" if peak <= 200 else "OVER"
    print(
        f"serve, still-image camera + pixel reader + mock controls, {window:.0f} s: "
        f"RSS {start_rss:.0f} MB when ready, {rss / 1024:.0f} MB at the end, "
        f"peak {peak:.0f} MB ({verdict} the 200 MB target); CPU {cpu:.0f} % of one core; "
        f"{'still running' if alive else 'EXITED early'}"
    )
    return 0 if alive and peak <= 200 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
