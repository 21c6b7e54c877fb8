"""Live mode benchmark: false claims, claim latency and speed on rendered games with hands.

    .venv/bin/python benchmarks/bench_vision_live.py [--seeds 11 12] [--size 960x540] [--fps 5]
                                                      [--no-real-reader] [--quick]
                                                      [--static-seeds 100 116] [--write]

Everything runs on one core (cv2.setNumThreads(1)). Games come from the simulated camera (the
project's own renderer: hands and arms reaching over the board, shadows, a bumped table):

1. accuracy, per game and reader: false claims (a claim or station that is not on the board, or
   in the wrong colour) per 1,000 frames, claims found, and frames from "steady board" (the first
   frame after a claim with no hand over the board and nothing moving) to the reported claim;
   readers: the oracle (the simulator's truth with misreads, mostly wrong under hands), the
   project's pixel reader (companion.vision.reading.read) registered from the simulator's truth
   ("vision"), and the same reader finding the board by itself with locate_board ("located");
2. static reads: locate_board and read_board on random rendered games in 1920x1080 overhead
   frames (no hands): corner error, routes and cities read right, and which colours on which
   printed colours fail;
3. speed at 1920x1080: render time per frame, and the live pipeline per frame (the watcher alone,
   and the watcher with the pixel reader, whose reads happen only on steady, clear frames).
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.results import WRITE_HELP, Results
from benchmarks.timing import percentile
from companion.sim.camera import SimulatedCamera, simulated_game
from companion.sim.live_oracle import OracleReader
from companion.sim.render import BoardRenderer
from companion.vision.live.live import (
    ClaimSeen,
    Event,
    LiveWatcher,
    NeedsConfirmation,
    StationSeen,
    VisionReader,
)
from companion.vision.live.sources import Frame


class TruthPlacedVisionReader(VisionReader):
    """The project's pixel reader, with the board registered from the simulator's truth."""

    def locate(self, frame: Frame) -> np.ndarray:
        assert frame.truth is not None
        return np.asarray(frame.truth.corners, np.float64)


def _size(text: str) -> tuple[int, int]:
    w, h = text.lower().split("x")
    return int(w), int(h)


def run_game(
    renderer: BoardRenderer,
    seed: int,
    size: tuple[int, int],
    fps: float,
    reader_kind: str,
    max_turns: int | None,
) -> dict[str, Any]:
    script = simulated_game(seed, renderer=renderer, max_turns=max_turns)
    cam = SimulatedCamera(script, seed=seed, fps=fps, size=size, renderer=renderer)
    reader: Any
    if reader_kind == "oracle":
        reader = OracleReader(renderer.geometry, seed=seed)
    elif reader_kind == "vision":
        reader = TruthPlacedVisionReader()
    else:
        reader = VisionReader()  # locates the board itself
    watcher = LiveWatcher(reader, geometry=renderer.geometry)
    events: list[tuple[Frame, Event]] = []
    clear_frames: list[int] = []  # frames with no hand over the board and nothing moving
    hand_frames = 0
    t_watch = 0.0
    with cam:
        for f in cam:
            assert f.truth is not None
            if f.truth.covered or f.truth.covered_cities:
                hand_frames += 1
            if not f.truth.moving and not f.truth.covered and f.truth.occlusion < 0.002:
                clear_frames.append(f.index)
            a = time.perf_counter()
            got = watcher.process(f)
            t_watch += time.perf_counter() - a
            events.extend((f, e) for e in got)
    truth = {e.route: (e.color, e.t) for e in script.events if e.kind == "claim"}
    truth_st = {e.city: (e.color, e.t) for e in script.events if e.kind == "station"}
    false = 0
    found = 0
    asked = {True: 0, False: 0}  # unsure claims (questions), right and wrong
    checked = {True: 0, False: 0}  # questions from the reading's check list, right and wrong
    by_question: set[tuple[str, str | None]] = set()
    false_list: list[tuple[int, str, str, str, str | None]] = []
    late_list: list[tuple[int, str, str, int]] = []
    latencies: list[int] = []
    clear = np.array(clear_frames)
    for f, e in events:
        if isinstance(e, NeedsConfirmation):
            # the reader listed it for a person to check: a question for the host
            ch = e.change
            want = (truth if ch.kind == "route" else truth_st).get(ch.key)
            ok = want is not None and want[0] == ch.new
            checked[ok] += 1
            if ok:
                by_question.add((ch.key, ch.new))
            else:
                false_list.append((f.index, "question", ch.key, str(ch.new), want and want[0]))
            continue
        if isinstance(e, ClaimSeen):
            want = truth.get(e.route)
            ok = want is not None and want[0] == e.color
        elif isinstance(e, StationSeen):
            want = truth_st.get(e.city)
            ok = want is not None and want[0] == e.color
        else:
            continue
        if isinstance(e, ClaimSeen) and e.unsure:
            # same colour as the print: a question for the host, never recorded unasked
            asked[ok] += 1
            if not ok:
                false_list.append((f.index, "question", e.route, e.color, want and want[0]))
                continue
        if not ok or want is None:
            false += 1
            what = e.route if isinstance(e, ClaimSeen) else e.city
            false_list.append((f.index, type(e).__name__, what, e.color, want and want[0]))
            continue
        found += 1
        placed = int(np.ceil(want[1] * fps))
        later = clear[clear >= placed]
        if later.size:
            latencies.append(int(f.index - later[0]))
            if latencies[-1] > 25:
                what = e.route if isinstance(e, ClaimSeen) else e.city
                late_list.append((f.index, what, e.color, latencies[-1]))
    seen = {(e.route, e.color) for _, e in events if isinstance(e, ClaimSeen)}
    seen |= {(e.city, e.color) for _, e in events if isinstance(e, StationSeen)}
    seen |= by_question
    missed = [(k, c) for k, (c, _) in (truth | truth_st).items() if (k, c) not in seen]
    # found once each, by a claim or by a question (a question may come before the claim)
    found = len(truth) + len(truth_st) - len(missed)
    n = cam.frame_count
    return {
        "missed": missed,
        "seed": seed,
        "reader": reader_kind,
        "frames": n,
        "hand_frames": hand_frames,
        "claims_true": len(truth) + len(truth_st),
        "found": found,
        "false": false,
        "false_per_1000": 1000.0 * false / max(1, n),
        "false_list": false_list,
        "asked_true": asked[True],
        "asked_false": asked[False],
        "checked_true": checked[True],
        "checked_false": checked[False],
        "late_list": late_list,
        "latency": latencies,
        "watch_ms": 1000.0 * t_watch / max(1, n),
        "stats": watcher.stats,
    }


def static_reads(
    res: Results, renderer: BoardRenderer, seeds: range, size: tuple[int, int]
) -> None:
    """locate_board and read_board on random rendered games (no hands), one frame each."""
    from companion.sim.render import random_scene, random_view
    from companion.vision.locate.locate import BoardLocation, locate_board
    from companion.vision.reading.read import read_board
    from companion.vision.types import NoBoardError

    confusion: collections.Counter[tuple[str, str, str]] = collections.Counter()
    st_conf: collections.Counter[tuple[str, str]] = collections.Counter()
    tot = [0, 0, 0, 0]  # routes ok, routes, cities ok, cities
    located, errors, t_loc, t_read = 0, [], [], []
    print(f"{'seed':>4} {'table':>5} {'corner err px':>13} {'routes':>7} {'cities':>7}")
    for seed in seeds:
        rng = np.random.default_rng(seed)
        scene = random_scene(rng, renderer.geometry, claimed=0.45, stations=12)
        view = random_view(rng, size)
        frame = renderer.render_frame(scene, view, rng)
        a = time.perf_counter()
        try:
            loc = locate_board(frame.image)
            err = float(np.abs(loc.corners - frame.corners).max())
            located += 1
            errors.append(err)
            err_s = f"{err:13.1f}"
        except NoBoardError:
            err_s = f"{'not found':>13}"
        t_loc.append(time.perf_counter() - a)
        a = time.perf_counter()
        reading = read_board(frame.image, location=BoardLocation.from_corners(frame.corners, size))
        t_read.append(time.perf_counter() - a)
        r_ok = c_ok = 0
        for rid in renderer.geometry.drawable_routes():
            want, got = scene.routes.get(rid), reading.routes.get(rid)
            r_ok += want == got
            if want != got:
                confusion[(renderer.geometry.routes[rid].color, str(want), str(got))] += 1
        for cid in renderer.geometry.cities:
            want, got = scene.stations.get(cid), reading.stations.get(cid)
            c_ok += want == got
            if want != got:
                st_conf[(str(want), str(got))] += 1
        n_r, n_c = len(renderer.geometry.drawable_routes()), len(renderer.geometry.cities)
        tot = [tot[0] + r_ok, tot[1] + n_r, tot[2] + c_ok, tot[3] + n_c]
        print(f"{seed:>4} {view.table:>5} {err_s} {r_ok:>3}/{n_r} {c_ok:>3}/{n_c}")
    n = len(seeds)
    print(
        f"  located {located}/{n} (corner error median {statistics.median(errors or [0]):.1f} px, "
        f"max {max(errors or [0]):.1f} px); routes {tot[0]}/{tot[1]} "
        f"({100 * tot[0] / max(1, tot[1]):.2f} %), cities {tot[2]}/{tot[3]} "
        f"({100 * tot[2] / max(1, tot[3]):.2f} %); locate {1000 * statistics.mean(t_loc):.0f} ms, "
        f"read {1000 * statistics.mean(t_read):.0f} ms per frame"
    )
    res.add(
        "vision-live-static",
        f"vision, rendered 1920x1080 overhead frames of random games (seeds {seeds[0]}-"
        f"{seeds[-1]}), the renderer's plastic",
        f"board located {located}/{n}, routes {tot[0]}/{tot[1]}"
        f" ({100 * tot[0] / max(1, tot[1]):.1f} %), cities {tot[2]}/{tot[3]}"
        f" ({100 * tot[2] / max(1, tot[3]):.1f} %)",
    )
    for (printed, want, got), k in confusion.most_common():
        print(f"    route printed {printed:6}: {want:6} read as {got:6} x{k}")
    for (want, got), k in st_conf.most_common():
        print(f"    station {want:6} read as {got:6} x{k}")


def speed(renderer: BoardRenderer, seed: int, frames: int) -> dict[str, float]:
    """Render, watcher-only and watcher+pixel-reader times per 1920x1080 frame."""
    script = simulated_game(seed, renderer=renderer, max_turns=12)
    cam = SimulatedCamera(script, seed=seed, fps=5, size=(1920, 1080), renderer=renderer)
    rendered: list[Frame] = []
    t_render: list[float] = []
    for i in range(frames):
        a = time.perf_counter()
        rendered.append(cam.frame_at(i))
        t_render.append(time.perf_counter() - a)
    out: dict[str, float] = {
        "render_ms_mean": 1000 * statistics.mean(t_render[1:]),
        "render_ms_p95": 1000 * percentile(list(t_render[1:]), 95),
    }
    for kind in ("oracle", "vision"):
        reader: Any = (
            OracleReader(renderer.geometry, seed=seed)
            if kind == "oracle"
            else TruthPlacedVisionReader()
        )
        watcher = LiveWatcher(reader, geometry=renderer.geometry)
        times: list[float] = []
        read_times: list[float] = []
        for f in rendered:
            reads = watcher.stats["reads"]
            a = time.perf_counter()
            watcher.process(f)
            dt = time.perf_counter() - a
            times.append(dt)
            if watcher.stats["reads"] > reads:
                read_times.append(dt)
        out[f"{kind}_ms_mean"] = 1000 * statistics.mean(times[1:])
        out[f"{kind}_ms_p95"] = 1000 * percentile(list(times[1:]), 95)
        if read_times:
            out[f"{kind}_read_frame_ms"] = 1000 * statistics.mean(read_times)
        no_read = [t for t in times[1:] if t not in read_times]
        if no_read:
            out[f"{kind}_noread_frame_ms"] = 1000 * statistics.mean(no_read)
    return out


def simulated_game_args(ap: argparse.ArgumentParser) -> None:
    """The options of a benchmark that plays simulated games in front of a camera (also
    ``bench_vision_system``): seeds, frame size, frames a second, readers, short games."""
    ap.add_argument("--seeds", type=int, nargs="+", default=[11, 12])
    ap.add_argument("--size", default="960x540")
    ap.add_argument("--fps", type=float, default=5.0)
    ap.add_argument(
        "--readers",
        nargs="+",
        default=["oracle", "vision", "located"],
        choices=["oracle", "vision", "located"],
    )
    ap.add_argument("--quick", action="store_true", help="short games (20 turns)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    simulated_game_args(ap)
    ap.add_argument("--no-real-reader", action="store_true")
    ap.add_argument("--speed-frames", type=int, default=80, help="0: no speed section")
    ap.add_argument("--no-static", action="store_true", help="skip the static reads")
    ap.add_argument("--static-seeds", type=int, nargs=2, default=[100, 116], metavar=("A", "B"))
    ap.add_argument("--write", action="store_true", help=WRITE_HELP)
    args = ap.parse_args()
    res = Results("bench_vision_live", write=args.write)
    cv2.setNumThreads(1)
    renderer = BoardRenderer()
    size = _size(args.size)
    readers = ["oracle"] if args.no_real_reader else list(args.readers)
    print(f"accuracy: simulated games at {size[0]}x{size[1]}, {args.fps:g} fps, one core")
    header = (
        f"{'reader':8} {'seed':>4} {'frames':>6} {'hands':>6} {'true':>5} {'found':>5} "
        f"{'false':>5} {'false/1k':>8} {'lat.med':>7} {'lat.p95':>7} {'lat.max':>7} "
        f"{'watch ms':>8}"
    )
    print(header)
    totals: dict[str, list[float]] = {r: [0, 0, 0, 0] for r in readers}
    for reader in readers:
        for seed in args.seeds:
            r = run_game(renderer, seed, size, args.fps, reader, 20 if args.quick else None)
            lat = r["latency"] or [0]
            print(
                f"{reader:8} {seed:>4} {r['frames']:>6} {r['hand_frames']:>6} "
                f"{r['claims_true']:>5} {r['found']:>5} {r['false']:>5} "
                f"{r['false_per_1000']:>8.2f} {statistics.median(lat):>7.1f} "
                f"{percentile(list(lat), 95):>7.1f} {max(lat):>7d} {r['watch_ms']:>8.1f}"
            )
            for idx, kind, what, color, want in r["false_list"]:
                label = "wrong question" if kind == "question" else "false"
                print(f"    {label} at frame {idx}: {kind} {what} {color} (truth: {want})")
            for what, color in r["missed"]:
                print(f"    missed: {what} {color}")
            if r["asked_true"] or r["asked_false"]:
                print(
                    f"    questions (same colour as the print): {r['asked_true']} right, "
                    f"{r['asked_false']} wrong"
                )
            if r["checked_true"] or r["checked_false"]:
                print(
                    f"    questions (on the reading's check list): {r['checked_true']} right, "
                    f"{r['checked_false']} wrong"
                )
            for idx, what, color, lat in r["late_list"]:
                print(f"    late at frame {idx}: {what} {color}, {lat} frames after it was clear")
            t = totals[reader]
            t[0] += r["frames"]
            t[1] += r["false"]
            t[2] += r["found"]
            t[3] += r["claims_true"]
    for reader, (frames, false, found, true) in totals.items():
        print(
            f"  {reader}: {int(false)} false claims in {int(frames)} frames "
            f"({1000 * false / max(1, frames):.2f} per 1,000); found {int(found)} of {int(true)}"
        )
        res.add(
            f"vision-live-{reader}",
            f"vision, live watcher with the {reader} reader on rendered games with hands in view"
            f" and a table bump (seeds {', '.join(map(str, args.seeds))}, {size[0]}x{size[1]},"
            f" {args.fps:g} fps)",
            f"{1000 * false / max(1, frames):.1f} false claims per 1,000 frames ({int(false)} in"
            f" {int(frames)}), {int(found)}/{int(true)} claims found",
        )
    if not args.no_real_reader and not args.no_static:
        a, b = args.static_seeds
        print(
            f"\nstatic reads: random rendered games in 1920x1080 overhead frames, seeds {a}-{b - 1}"
        )
        static_reads(res, renderer, range(a, b), (1920, 1080))
    if args.speed_frames <= 0:
        res.save()
        return 0
    print(f"\nspeed at 1920x1080, one core, {args.speed_frames} frames of a game with hands:")
    sp = speed(renderer, args.seeds[0], args.speed_frames)
    for k, v in sp.items():
        print(f"  {k:26} {v:7.1f} ms")
    res.add(
        "vision-live-speed",
        f"vision, live pipeline per 1920x1080 frame of a game with hands ({args.speed_frames}"
        " frames, one core): watcher + pixel reader, mean / on a frame that reads",
        f"{sp['vision_ms_mean']:.1f} ms / {sp.get('vision_read_frame_ms', 0.0):.1f} ms",
    )
    res.save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
