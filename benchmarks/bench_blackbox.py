"""The black box's cost (companion/blackbox/), on rendered board frames:

* **the game loop**: what recording adds to it (the listener that notes a new log position, per
  call), and the loop's answer time (``Service.act``: drew cards / end turn, p50 / p95 / max)
  with the recorder idle and while it writes a 1080p frame at every camera frame (5 fps);
* **the camera's thread**: ``Recorder.look`` per frame (deciding and queueing only);
* **the CPU per recorded frame** (the recorder's own thread: JPEG at the default quality and the
  write), and the JPEG's size, at 1920x1080 and 960x540;
* **disk per hour of play at the defaults**: one frame every 30 s, plus the frames of a game's
  moves and camera events as a recorded game had them (``--recording DIR``, a state directory
  with a recording, e.g. one left by ``companion demo --fast --serve --state-dir DIR``), that game
  spread over ``--game-minutes`` minutes (an assumption, printed);
* **memory added**: the most bytes of pictures the recorder held at once (its newest clean
  frames, the one before the latest motion and the frames waiting to be written) while the
  writer ran at 1080p;
* **JPEG and the check list**: on rendered frames, how often the reading's check list and its
  routes differ between the raw frame and its JPEG (why a replay's doubt is a note).

    .venv-prod/bin/python benchmarks/bench_blackbox.py [--frames N] [--recording DIR] [--quick]
        [--write]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.results import WRITE_HELP, Results  # noqa: E402
from benchmarks.timing import draw_turns, load, percentile  # noqa: E402
from companion.blackbox import layout  # noqa: E402
from companion.blackbox.recorder import Recorder, Settings, for_service  # noqa: E402
from tests.blackbox_fakes import Frame, Watcher  # noqa: E402


def rendered(size: tuple[int, int], n: int, seed: int = 7) -> list[tuple[Any, Any]]:
    """``n`` rendered frames of a board with some claims, and their corners."""
    from companion.sim.render import BoardRenderer, Scene, random_view

    renderer = BoardRenderer()
    rng = np.random.default_rng(seed)
    view = random_view(rng, size)
    routes = list(renderer.geometry.routes)
    colours = ["red", "blue", "green", "yellow", "black"]
    out = []
    for i in range(n):
        picked = rng.choice(len(routes), size=12 + i, replace=False)
        scene = Scene(routes={routes[k]: colours[k % 5] for k in picked}, seed=seed)
        r = renderer.render_frame(scene, view, np.random.default_rng(100 + i))
        out.append((r.image, np.asarray(r.corners, np.float64)))
    return out


def cpu_per_frame(images: list[Any], quality: int) -> tuple[float, float, int]:
    """(median CPU ms, median wall ms, median bytes) of encoding and writing a frame."""
    cpu, wall, sizes = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i, image in enumerate(images * 3):
            t0, c0 = time.perf_counter(), time.thread_time()
            _ok, data = cv2.imencode(".jpg", image, [int(cv2.IMWRITE_JPEG_QUALITY), quality])
            (Path(tmp) / f"f{i}.jpg").write_bytes(data.tobytes())
            cpu.append((time.thread_time() - c0) * 1000)
            wall.append((time.perf_counter() - t0) * 1000)
            sizes.append(len(data))
    return float(np.median(cpu)), float(np.median(wall)), int(np.median(sizes))


class Table:
    def __init__(self) -> None:
        self.snap: dict[str, Any] = {"game_id": "g1", "game": "europe", "mode": "table", "seq": 1}

    def notice(self, *a: Any, **kw: Any) -> None:
        pass


def camera_thread(images: list[Any], frames: int) -> dict[str, float]:
    """Recorder.look per frame on the camera's thread: frames kept or not."""
    table = Table()
    with tempfile.TemporaryDirectory() as tmp:
        rec = Recorder(
            Path(tmp), Settings(), now=lambda: table.snap, games=lambda: [], notice=table.notice
        ).start()
        w = Watcher()
        quiet, kept = [], []
        for i in range(frames):
            table.snap = {**table.snap, "seq": 1 + i // 10}
            if i % 10 == 0:
                rec.heard("state", {"seq": 1 + i // 10})  # a move every 10 frames
            t0 = time.thread_time()
            rec.look(Frame(images[i % len(images)], i * 0.2, i), w, [])
            took = (time.thread_time() - t0) * 1e6
            (kept if i % 10 == 0 else quiet).append(took)
            if i % 10 == 0:
                rec.flush()
        rec.stop()
    return {
        "quiet_us": float(np.median(quiet)),
        "kept_us": float(np.median(kept)),
        "kept_p95_us": percentile(kept, 95),
    }


def listener_cost(n: int = 20000) -> float:
    table = Table()
    with tempfile.TemporaryDirectory() as tmp:
        rec = Recorder(
            Path(tmp), Settings(), now=lambda: table.snap, games=lambda: [], notice=table.notice
        )
        t0 = time.thread_time()
        for i in range(n):
            rec.heard("state", {"seq": i})
        return (time.thread_time() - t0) / n * 1e6


def loop_latency(images: list[Any], actions: int, with_recorder: bool) -> dict[str, Any]:
    """Service.act answer times while the recorder writes a 1080p frame at every camera frame
    (5 fps) or is idle."""
    from companion.service import Actor, Service
    from companion.store import EventStore

    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        store = EventStore(tmp)
        svc = Service(store).start()
        host = Actor.host()
        players = [{"name": "A", "color": "red"}, {"name": "B", "color": "blue"}]
        svc.act({"type": "new_game", "variant": "europe", "players": players}, host)
        for color, tickets in (
            ("red", ["paris-wien", "brest-marseille"]),
            ("blue", ["budapest-zurich", "brindisi-zurich"]),
        ):
            svc.act({"type": "keep_tickets", "player": color, "tickets": tickets}, host)
        stop = threading.Event()
        rec = None
        feeder = None
        if with_recorder:
            # wired as serve wires it; a frame at every camera frame: the worst case
            rec = for_service(svc, Path(tmp), Settings(every=0.0), camera="")
            w = Watcher()

            def feed() -> None:
                i = 0
                while not stop.is_set():
                    rec.look(Frame(images[i % len(images)], i * 0.2, i), w, [])
                    i += 1
                    stop.wait(0.2)

            feeder = threading.Thread(target=feed, daemon=True)
            feeder.start()
            time.sleep(1.0)
        times = draw_turns(svc, actions, pause=0.05)
        stop.set()
        if feeder is not None:
            feeder.join(2)
        if rec is not None:
            rec.flush()
            rec.stop()
            out["written"] = rec.writer.written
            out["dropped"] = rec.dropped
        svc.stop()
        store.close()
    # p50 and p95 as every benchmark's answer times (timing.spread): the median, nearest rank
    p50, p95 = statistics.median(times), percentile(times, 95)
    out.update(p50=p50, p95=p95, max=max(times), n=len(times))
    return out


def memory_held(images: list[Any], frames: int) -> float:
    """The most picture bytes the recorder held at once (MB), a frame kept at every frame."""
    table = Table()
    with tempfile.TemporaryDirectory() as tmp:
        rec = Recorder(
            Path(tmp),
            Settings(every=0.0),
            now=lambda: table.snap,
            games=lambda: [],
            notice=table.notice,
        ).start()
        w = Watcher()
        most = 0
        for i in range(frames):
            image = images[i % len(images)].copy()  # a new picture per frame, as a camera's
            rec.look(Frame(image, i * 0.2, i), w, [])
            held: dict[int, int] = {}
            for c in list(rec._ring) + ([rec._before] if rec._before is not None else []):
                held[id(c.image)] = c.image.nbytes
            for kind, job in list(rec.writer._queue.queue):
                if kind == "frame":
                    held[id(job[1].image)] = job[1].image.nbytes
            held.pop(id(image), None)  # the camera's own frame: not added by the recorder
            most = max(most, sum(held.values()))
        rec.flush()
        rec.stop()
    return most / 1e6


def recording_counts(folder: Path) -> dict[str, Any] | None:
    from companion.blackbox.source import newest_game

    game = newest_game(folder)
    if game is None:
        return None
    records = layout.read_index(layout.game_dir(folder, game))
    frames = [r for r in records if r["type"] == "frame"]
    files = {r["file"] for r in frames}
    periodic = {r["file"] for r in frames if r["why"] == "every"}
    size, _ = layout.folder_size(layout.game_dir(folder, game))
    return {
        "game": game,
        "files": len(files),
        "other": len(files - periodic),
        "moves": len({r["seq"] for r in frames if r["why"] == "move"}),
        "events": sum(1 for r in records if r["type"] == "event"),
        "bytes": size,
    }


def jpeg_and_check(n: int) -> tuple[int, int, int, int]:
    """(frames, frames whose check list differs, frames whose routes differ, routes differing)
    between a rendered 960x540 frame and its JPEG at the default quality."""
    from companion.vision.live.readers import VisionReader
    from companion.vision.live.sources import Frame as VFrame

    quality = Settings().quality
    diff_check = diff_frames = diff_routes = 0
    for image, corners in rendered((960, 540), n, seed=11):
        raw = VisionReader()
        a = raw.read(VFrame(image, 0.0, 0), corners).to_json()
        _ok, data = cv2.imencode(".jpg", image, [int(cv2.IMWRITE_JPEG_QUALITY), quality])
        again = VisionReader()
        again.use_offsets(corners, raw.local_offsets())
        b = again.read(VFrame(cv2.imdecode(data, 1), 0.0, 0), corners).to_json()
        diff_check += set(a["check"]) != set(b["check"])
        d = sum(a["routes"][k] != b["routes"][k] for k in a["routes"])
        diff_routes += d
        diff_frames += d > 0
    return n, diff_check, diff_frames, diff_routes


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=200, help="camera frames per measurement")
    p.add_argument("--actions", type=int, default=60, help="turns for the loop's answer times")
    p.add_argument("--recording", help="a state directory with a recorded game")
    p.add_argument("--game-minutes", type=float, default=60.0)
    p.add_argument("--check-frames", type=int, default=16)
    p.add_argument("--quick", action="store_true", help="60 frames, 20 turns, 4 check frames")
    p.add_argument("--write", action="store_true", help=WRITE_HELP)
    args = p.parse_args()
    if args.quick:
        args.frames, args.actions, args.check_frames = 60, 20, 4
    res = Results("bench_blackbox", write=args.write)
    cv2.setNumThreads(1)
    print(
        f"bench_blackbox: Python {sys.version.split()[0]}, numpy {np.__version__}, "
        f"OpenCV {cv2.__version__}; {load()}"
    )
    quality = Settings().quality
    big = [img for img, _ in rendered((1920, 1080), 4)]
    small = [img for img, _ in rendered((960, 540), 4)]
    sizes = {}
    for name, images in (("1920x1080", big), ("960x540", small)):
        cpu, wall, size = cpu_per_frame(images, quality)
        sizes[name] = size
        print(
            f"  recorded frame {name}, JPEG q{quality}: CPU {cpu:.1f} ms (median, the "
            f"recorder's thread), wall {wall:.1f} ms, {size / 1000:.0f} kB"
        )
        res.add(
            f"blackbox-frame-{name.split('x')[1]}p",
            f"one recorded {name} frame (rendered board), JPEG q{quality} and its write, on the"
            " recorder's own thread: CPU and wall (medians), the file's size",
            f"CPU {cpu:.1f} ms, wall {wall:.1f} ms, {size / 1000:.0f} kB",
        )
    cam = camera_thread(big, args.frames)
    print(
        f"  camera's thread, Recorder.look: {cam['quiet_us']:.0f} us a frame not kept, "
        f"{cam['kept_us']:.0f} us a frame kept (p95 {cam['kept_p95_us']:.0f} us): only queued"
    )
    res.add(
        "blackbox-camera-thread",
        "the camera's thread: `Recorder.look` per 1080p frame, a frame not kept / kept (only"
        " queued)",
        f"{cam['quiet_us']:.0f} us / {cam['kept_us']:.0f} us (p95 {cam['kept_p95_us']:.0f} us)",
    )
    listener = listener_cost()
    print(f"  game loop, the listener (a new log position): {listener:.2f} us a call")
    res.add(
        "blackbox-listener",
        "the game loop: the recorder's listener per new log position",
        f"{listener:.2f} us a call",
    )
    idle = loop_latency(big, args.actions, with_recorder=False)
    busy = loop_latency(big, args.actions, with_recorder=True)
    print(
        f"  game loop, Service.act answer times ({idle['n']} actions): recorder idle "
        f"p50 {idle['p50']:.1f} / p95 {idle['p95']:.1f} / max {idle['max']:.1f} ms; "
        f"recorder writing 1080p at 5 fps p50 {busy['p50']:.1f} / p95 {busy['p95']:.1f} / "
        f"max {busy['max']:.1f} ms ({busy['written']} frames written, "
        f"{busy['dropped']} dropped)"
    )
    res.add(
        "blackbox-loop",
        f"the game loop's answer time (`Service.act`, {idle['n']} turns of two cards drawn):"
        " recorder idle / writing a 1080p frame at every camera frame (5 fps)",
        f"idle p50 {idle['p50']:.1f} / p95 {idle['p95']:.1f} / max {idle['max']:.1f} ms;"
        f" recording p50 {busy['p50']:.1f} / p95 {busy['p95']:.1f} / max {busy['max']:.1f} ms"
        f" ({busy['written']} frames written, {busy['dropped']} dropped)",
    )
    held = memory_held(big, args.frames // 2)
    res.add(
        "blackbox-memory",
        "memory the recorder adds: the most bytes of 1080p pictures it held at once (ring, the"
        " frame before a motion, frames waiting to be written), a frame kept at every frame",
        f"{held:.1f} MB",
    )
    print(
        f"  memory added: at most {held:.1f} MB of 1080p pictures "
        f"held at once (ring {layout.settings()['ring']} + the frame before + at most "
        f"{layout.settings()['queue_frames']} waiting)"
    )
    every = Settings().every
    per_hour_periodic = 3600.0 / every
    counts = recording_counts(Path(args.recording)) if args.recording else None
    if counts is not None:
        other = counts["other"] * 60.0 / args.game_minutes
        frames_hour = per_hour_periodic + other
        print(
            f"  the recorded game {counts['game']}: {counts['moves']} log positions with a "
            f"frame, {counts['events']} camera events, {counts['files']} frame files, "
            f"{counts['bytes'] / 1e6:.1f} MB"
        )
        print(
            f"  disk per hour of play at the defaults (every {every:.0f} s, q{quality}), that "
            f"game's {counts['other']} move and event frames over {args.game_minutes:.0f} min: "
            f"{frames_hour:.0f} frames, {frames_hour * sizes['1920x1080'] / 1e6:.0f} MB at "
            f"1920x1080, {frames_hour * sizes['960x540'] / 1e6:.0f} MB at 960x540"
        )
        res.add(
            "blackbox-disk-hour",
            f"disk per hour of play at the defaults (a frame every {every:.0f} s, q{quality}) plus"
            f" a recorded game's {counts['other']} move and event frames spread over"
            f" {args.game_minutes:.0f} min (an assumption)",
            f"{frames_hour:.0f} frames, {frames_hour * sizes['1920x1080'] / 1e6:.0f} MB at"
            f" 1920x1080, {frames_hour * sizes['960x540'] / 1e6:.0f} MB at 960x540",
        )
    else:
        print(
            f"  disk per hour with nothing happening: {per_hour_periodic:.0f} frames, "
            f"{per_hour_periodic * sizes['1920x1080'] / 1e6:.0f} MB at 1920x1080 "
            "(--recording DIR adds a recorded game's moves and events)"
        )
        res.add(
            "blackbox-disk-hour",
            f"disk per hour with nothing happening (a frame every {every:.0f} s, q{quality}; no"
            " recorded game given, so no move or event frames)",
            f"{per_hour_periodic:.0f} frames, {per_hour_periodic * sizes['1920x1080'] / 1e6:.0f}"
            " MB at 1920x1080",
        )
    n, check, frames, routes = jpeg_and_check(args.check_frames)
    print(
        f"  JPEG q{quality} and the reading, {n} rendered 960x540 frames: the check list "
        f"differs in {check}, the routes in {frames} ({routes} routes in all)"
    )
    res.add(
        "blackbox-jpeg-check",
        f"JPEG q{quality} and the reading: rendered 960x540 frames whose check list / routes"
        " differ between the raw frame and its JPEG",
        f"{n} frames: check list differs in {check}, routes in {frames} ({routes} routes in all)",
    )
    res.save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
