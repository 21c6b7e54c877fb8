"""Speed of the board reader on one thread, as issue 17's targets count it, and the readings'
fingerprints (to show that a faster reader reads the same).

Cases (seeded, built in memory):

* ``angle0..2``: an uncropped 12 MP photo (4000x3000) with the board at an angle on a table
  (a shared photo warped onto a drawn table), located + read + checked (``read_board``);
* ``cropped``: a shared photo scaled to 12 MP (4032x3024), located + read + checked;
* ``jpeg-angle0..2``, ``jpeg``: end to end from a phone's JPEG bytes (quality 90) of the
  ``angle`` frames and of ``cropped``'s photo, as photo mode takes them (``decode.read_photo``):
  decoded at the size the board needs (libjpeg's scaled decoding), located, read and checked;
  ``jpeg-angle-full``, ``jpeg-full``: ``angle0``'s and ``cropped``'s decoded at full size (as
  before) and read; ``-decode``: the reduced decoding alone;
* ``live``, ``live+profile``: a rendered 1080p frame at a known place as live mode reads it
  (a ``ReadCache`` kept across frames, every frame read in full, fresh sensor noise), without
  and with a table profile (learnt from a render of the empty board under the same view);
* ``located``, ``located+profile``: the same as live mode has it, the place found by locating
  the frame (with its local offsets);
* ``first``, ``first+profile``: the same frame at a known place without a cache (the first frame
  at a place).

Times are CPU milliseconds of the calling thread (``time.thread_time``: other processes on the
machine do not count), with wall time and the machine's load beside them.

    .venv/bin/python benchmarks/bench_vision_speed.py [--quick] [--case NAME ...] [--repeat N]
        [--write]     # --write: the medians into benchmarks/results/bench_vision_speed.md
    .venv/bin/python benchmarks/bench_vision_speed.py --hash      # readings' fingerprints
    .venv/bin/python benchmarks/bench_vision_speed.py --profile NAME   # cProfile of one case
    .venv/bin/python benchmarks/bench_vision_speed.py --json FILE   # every timing, as JSON
    .venv/bin/python benchmarks/bench_vision_speed.py --stages NAME    # CPU ms per stage
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import json
import pstats
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_vision_read import load, warp_onto  # noqa: E402
from benchmarks.results import WRITE_HELP, Results  # noqa: E402
from benchmarks.timing import percentile  # noqa: E402
from companion.sim.render import BoardRenderer, Scene, random_scene, random_view  # noqa: E402
from companion.vision.decide.classify import lab8, space_features_lab8  # noqa: E402
from companion.vision.decide.context import ReadContext, make_context, take_samples  # noqa: E402
from companion.vision.decide.profile import TableProfile  # noqa: E402
from companion.vision.locate.locate import BoardLocation, locate_board  # noqa: E402
from companion.vision.reading.decode import decode_photo, read_photo  # noqa: E402
from companion.vision.reading.read import ReadCache, read_board  # noqa: E402
from companion.vision.types import BoardReading, NoBoardError  # noqa: E402

PHOTOS = ROOT.parent / "shared" / "photos"


def angled_frames(photos: list[np.ndarray], n: int, seed: int, spread: float) -> list[Any]:
    """``n`` uncropped 12 MP frames with a photo warped onto a table, and their true corners."""
    rng = np.random.default_rng(seed)
    out = []
    for trial in range(n):
        c = np.array([[600, 500], [3500, 400], [3250, 2700], [700, 2450]], np.float64)
        c += rng.uniform(-spread, spread, c.shape)
        c = np.roll(c, -int(rng.integers(0, 4)), axis=0)
        out.append((warp_onto(photos[trial % len(photos)], c, (4000, 3000), rng), c))
    return out


def jpeg_bytes(image: np.ndarray) -> bytes:
    """A phone's JPEG of ``image`` (quality 90)."""
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return bytes(buf.tobytes())


def features(samples: Any, ctx: ReadContext) -> Any:
    lab = samples.spaces_lab if samples.spaces_lab is not None else lab8(samples.spaces)
    return space_features_lab8(lab, ctx.layout, ctx.windows, ctx.info.tunnel, ctx.info.lane_side)


def empty_profile(renderer: BoardRenderer, view: Any, seed: int, ctx: ReadContext) -> TableProfile:
    """A table profile learnt from a render of the empty board under ``view``."""
    empty = renderer.render_frame(Scene(seed=seed), view, np.random.default_rng(seed + 1))
    loc = BoardLocation.from_corners(empty.corners, (1920, 1080))
    return TableProfile.from_empty(
        "render", features(take_samples(empty.image, loc.homography, ctx), ctx)
    )


def live_frames(seed: int, ctx: ReadContext) -> tuple[list[np.ndarray], Any, TableProfile]:
    """Two noisy renders of one game at one place, its location and a profile of the table."""
    renderer = BoardRenderer()
    sc = random_scene(np.random.default_rng(seed), renderer.geometry, claimed=0.5, stations=6)
    view = random_view(np.random.default_rng(seed), (1920, 1080))
    fr = renderer.render_frame(sc, view, np.random.default_rng(seed))
    loc = BoardLocation.from_corners(fr.corners, (1920, 1080))
    rng = np.random.default_rng(seed + 1)
    noisy = [
        np.clip(fr.image + rng.normal(0, 3, fr.image.shape), 0, 255).astype(np.uint8)
        for _ in range(2)
    ]
    return noisy, loc, empty_profile(renderer, view, seed, ctx)


def shared_photos() -> list[tuple[str, np.ndarray]]:
    if not PHOTOS.is_dir():
        return []
    return [(p.stem, cv2.imread(str(p))) for p in sorted(PHOTOS.glob("*.jpg"))]


def cases(ctx: ReadContext, names: list[str]) -> dict[str, Callable[[], Any]]:
    """The timed calls, by name (only those asked for are built)."""
    out: dict[str, Callable[[], Any]] = {}
    photos = shared_photos()
    if photos and any(n.startswith(("angle", "cropped", "jpeg")) for n in names):
        imgs = [img for _, img in photos]
        for i, (frame, _) in enumerate(angled_frames(imgs, 3, 7, 200.0)):
            out[f"angle{i}"] = lambda f=frame: read_board(f, context=ctx)
        big = cv2.resize(imgs[-1], (4032, 3024), interpolation=cv2.INTER_LINEAR)
        out["cropped"] = lambda: read_board(big, context=ctx)
        # End to end, as photo mode and `vision read` take a phone photo (``read_photo``): the
        # JPEG's bytes decoded at the size the board needs, located, read and checked; and
        # (``-full``) decoded in full as before, (``-decode``) the reduced decoding alone.
        frames = [f for f, _ in angled_frames(imgs, 3, 7, 200.0)]
        for i, frame in enumerate(frames):
            photo = jpeg_bytes(frame)
            out[f"jpeg-angle{i}"] = lambda d=photo: read_photo(d, context=ctx)
        for name, image in (("jpeg-angle", frames[0]), ("jpeg", big)):
            data = jpeg_bytes(image)
            if name == "jpeg":
                out[name] = lambda d=data: read_photo(d, context=ctx)
            out[name + "-full"] = lambda d=data: read_board(
                decode_photo(d, full=True).image, context=ctx
            )
            out[name + "-decode"] = lambda d=data: decode_photo(d)
    if any(n.startswith(("live", "first", "located")) for n in names):
        noisy, loc, profile = live_frames(9, ctx)
        found = locate_board(noisy[0], context=ctx)
        for p, suffix in ((None, ""), (profile, "+profile")):
            cache = ReadCache()

            def cached(p: Any = p, cache: ReadCache = cache) -> BoardReading:
                cache.reference = None  # every frame read in full (the board changed)
                frame = noisy[cache.frames % 2]
                return read_board(frame, location=loc, context=ctx, cache=cache, profile=p)

            out["live" + suffix] = cached
            # as live mode has it: the place found by locating (with local offsets)
            cache_found = ReadCache()

            def cached_found(p: Any = p, cache: ReadCache = cache_found) -> BoardReading:
                cache.reference = None
                frame = noisy[cache.frames % 2]
                return read_board(frame, location=found, context=ctx, cache=cache, profile=p)

            out["located" + suffix] = cached_found
            k = iter(range(10**9))
            out["first" + suffix] = lambda p=p, k=k: read_board(
                noisy[next(k) % 2], location=loc, context=ctx, profile=p
            )
    return {n: out[n] for n in names if n in out}


ALL = [
    "angle0",
    "angle1",
    "angle2",
    "cropped",
    "jpeg-angle0",
    "jpeg-angle1",
    "jpeg-angle2",
    "jpeg-angle-full",
    "jpeg-angle-decode",
    "jpeg",
    "jpeg-full",
    "jpeg-decode",
    "live",
    "live+profile",
    "located",
    "located+profile",
    "first",
    "first+profile",
]


def run_speed(
    ctx: ReadContext, names: list[str], repeat: int, rounds: int, dump: str | None = None
) -> dict[str, float]:
    """Every case ``repeat`` times per round, the cases interleaved round after round; the
    median CPU ms of each case."""
    calls = cases(ctx, names)
    cpu: dict[str, list[float]] = {n: [] for n in calls}
    wall: dict[str, list[float]] = {n: [] for n in calls}
    for fn in calls.values():
        fn()  # warm: caches, first-call costs
    for _ in range(rounds):
        for n, fn in calls.items():
            for _ in range(repeat):
                t, c = time.perf_counter(), time.thread_time()
                fn()
                cpu[n].append((time.thread_time() - c) * 1000)
                wall[n].append((time.perf_counter() - t) * 1000)
    if dump:
        Path(dump).write_text(json.dumps({"cpu": cpu, "wall": wall, "load": load()}))
    print(f"== speed, one thread, CPU ms of the thread ({load()}) ==")
    for n in calls:
        a, w = np.array(cpu[n]), np.array(wall[n])
        print(
            f"  {n:14s} median {np.median(a):6.1f}  p95 {percentile(list(a), 95):6.1f}  "
            f"min {a.min():6.1f}  max {a.max():6.1f}   wall median {np.median(w):6.1f}  "
            f"(n={len(a)})"
        )
    return {n: float(np.median(v)) for n, v in cpu.items()}


def record(res: Results, ms: dict[str, float]) -> None:
    """The rows of the cases that ran (CPU ms medians of the thread)."""

    def pair(a: str, b: str) -> str:
        return f"{ms[a]:.1f} ms without a table profile, {ms[b]:.1f} ms with one"

    if "cropped" in ms:
        res.add(
            "vision-speed-12mp",
            "vision, locate + read + check a cropped 12 MP photo, CPU of one thread",
            f"{ms['cropped']:.0f} ms median (target <= 200 ms)",
        )

    def angled(row_id: str, prefix: str, what: str, target: int) -> None:
        """One row over the angled photos that ran: the least and most of their medians
        (``what`` names how many with ``{n}``)."""
        got = [ms[f"{prefix}{k}"] for k in range(3) if f"{prefix}{k}" in ms]
        if got:
            figure = f"{min(got):.0f}-{max(got):.0f} ms median (target <= {target} ms)"
            res.add(row_id, what.format(n=len(got)), figure)

    angled(
        "vision-speed-12mp-angled",
        "angle",
        "vision, locate + read + check an uncropped 12 MP photo at an angle ({n} photos), CPU of"
        " one thread",
        200,
    )
    if "jpeg" in ms:
        res.add(
            "vision-speed-12mp-jpeg",
            "vision, a cropped 12 MP phone photo end to end: JPEG decode (at the size the board"
            " needs) + locate + read + check, CPU of one thread",
            f"{ms['jpeg']:.0f} ms median (target <= 120 ms)",
        )
    angled(
        "vision-speed-12mp-jpeg-angled",
        "jpeg-angle",
        "vision, an uncropped 12 MP phone photo at an angle end to end ({n} photos): JPEG decode"
        " (at the size the board needs) + locate + read + check, CPU of one thread",
        120,
    )
    for row_id, a, what in (
        ("vision-speed-live", "live", "as live mode reads it (read cache kept, a known place)"),
        ("vision-speed-located", "located", "at the place found by locating the frame"),
        ("vision-speed-first", "first", "the first frame at a place (no cache)"),
    ):
        if a in ms and f"{a}+profile" in ms:
            res.add(
                row_id,
                f"vision, read + check a 1080p live frame {what}, CPU of one thread",
                pair(a, f"{a}+profile") + " (median; target <= 15 ms)",
            )


# The stages of a read, as ``read.py`` calls them (module, attribute): timed by wrapping.
STAGES = [
    ("read", "sample_decimated"),
    ("read", "balance_samples"),
    ("read", "space_features_lab8"),
    ("read", "classify_spaces"),
    ("classify", "distances"),
    ("classify", "relief_cues"),
    ("read", "classify_stations_lab8"),
    ("read", "assess"),
    ("profile", "TableProfile.changed"),
    ("read", "ReadCache.light_for"),
    ("read", "locate_board"),
]


def run_stages(ctx: ReadContext, name: str, frames: int) -> None:
    """Median CPU ms of one case and the mean CPU ms per call of each stage within it."""
    import companion.vision.decide.classify as classify_mod
    import companion.vision.decide.profile as profile_mod
    import companion.vision.reading.read as read_mod

    mods = {"read": read_mod, "classify": classify_mod, "profile": profile_mod}
    spent: dict[str, float] = {}
    fn = cases(ctx, [name])[name]
    fn()
    for mod_name, attr in STAGES:
        owner: Any = mods[mod_name]
        *path, last = attr.split(".")
        for part in path:
            owner = getattr(owner, part)
        inner = getattr(owner, last)

        def timed(*a: Any, _f: Any = inner, _k: str = attr, **k: Any) -> Any:
            t = time.thread_time()
            try:
                return _f(*a, **k)
            finally:
                spent[_k] = spent.get(_k, 0.0) + time.thread_time() - t

        setattr(owner, last, timed)
    times = []
    for _ in range(frames):
        t = time.thread_time()
        fn()
        times.append((time.thread_time() - t) * 1000)
    print(f"== {name}: median {np.median(times):.2f} CPU ms per read ({load()}); per stage:")
    for k, v in sorted(spent.items(), key=lambda kv: -kv[1]):
        print(f"  {k:28s} {v / frames * 1000:6.2f}")


def fingerprint(reading: BoardReading) -> str:
    data = reading.to_json()
    data["spaces"] = reading.spaces
    text = json.dumps(data, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def cached_prints(frames: list[Any], n: int, **read: Any) -> str:
    """Fingerprints of ``n`` reads through one ``ReadCache``, alternating two frames, each read
    in full (the cache's reference dropped before each)."""
    cache = ReadCache()
    prints = []
    for i in range(n):
        cache.reference = None
        prints.append(fingerprint(read_board(frames[i % 2], cache=cache, **read)))
    return " ".join(prints)


def run_hash(ctx: ReadContext) -> None:
    """Fingerprints of the readings of every shared photo, a few renders (located, at a known
    place, through a ReadCache, with a profile) and the angled test frames."""
    rows: list[tuple[str, str]] = []
    photos = shared_photos()
    for name, img in photos:
        rows.append((name, fingerprint(read_board(img, context=ctx))))
        for f in (0.5, 12e6 / (img.shape[0] * img.shape[1])):
            s = float(np.sqrt(f))
            small = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
            rows.append((f"{name} x{s:.2f}", fingerprint(read_board(small, context=ctx))))
    imgs = [img for _, img in photos]
    if imgs:
        for i, (frame, _) in enumerate(angled_frames(imgs, 8, 2024, 250.0)):
            try:
                rows.append((f"angled {i}", fingerprint(read_board(frame, context=ctx))))
            except NoBoardError:
                rows.append((f"angled {i}", "not found"))
    for seed in range(3):
        noisy, loc, profile = live_frames(20 + seed, ctx)
        for p, suffix in ((None, ""), (profile, " profile")):
            try:
                got = fingerprint(read_board(noisy[0], context=ctx, profile=p))
            except NoBoardError:
                got = "not found"
            rows.append((f"render {seed} located{suffix}", got))
            rows.append(
                (
                    f"render {seed} known{suffix}",
                    fingerprint(read_board(noisy[0], location=loc, context=ctx, profile=p)),
                )
            )
            prints = cached_prints(noisy, 4, location=loc, context=ctx, profile=p)
            rows.append((f"render {seed} cached{suffix}", prints))
            try:
                found = locate_board(noisy[1], context=ctx)
            except NoBoardError:
                rows.append((f"render {seed} located, cached{suffix}", "not found"))
                continue
            prints = cached_prints(noisy, 3, location=found, context=ctx, profile=p)
            rows.append((f"render {seed} located, cached{suffix}", prints))
    for name, fp in rows:
        print(f"{name:52s} {fp}")
    total = hashlib.sha256("".join(fp for _, fp in rows).encode()).hexdigest()[:16]
    print(f"{'ALL':52s} {total}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    ap.add_argument("--case", action="append", help="one case (repeatable); default all")
    ap.add_argument("--repeat", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=0)
    ap.add_argument("--hash", action="store_true")
    ap.add_argument("--profile", metavar="CASE")
    ap.add_argument("--stages", metavar="CASE", help="CPU ms per stage of one case")
    ap.add_argument("--json", metavar="FILE", help="write every timing to FILE")
    ap.add_argument("--write", action="store_true", help=WRITE_HELP)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    ctx = make_context()
    if args.hash:
        run_hash(ctx)
        return 0
    if args.stages:
        run_stages(ctx, args.stages, args.repeat or 40)
        return 0
    if args.profile:
        fn = cases(ctx, [args.profile])[args.profile]
        fn()
        prof = cProfile.Profile(time.thread_time)
        prof.enable()
        for _ in range(5):
            fn()
        prof.disable()
        pstats.Stats(prof).sort_stats("cumulative").print_stats(45)
        pstats.Stats(prof).sort_stats("tottime").print_stats(30)
        return 0
    names = args.case or ALL
    repeat = args.repeat or (3 if args.quick else 5)
    rounds = args.rounds or (2 if args.quick else 4)
    res = Results("bench_vision_speed", write=args.write)
    record(res, run_speed(ctx, names, repeat, rounds, args.json))
    res.save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
