"""Benchmark of the board reader on the shared real photos (skips when ../shared/photos is absent).

Prints per-space / per-route / per-station accuracy on each labelled photo and overall,
leave-one-photo-out numbers (the space model re-fitted without the photo it is tested on),
the photos as other cameras and rooms would take them (companion.sim.perturb),
locating raw photos at an angle (in-memory perspective warps onto a drawn table), refusals, and
single-threaded speed (wall median / p95 and this process's CPU time, with the machine's load):
cropped and uncropped 12-megapixel photos (locate + read), 1080p live frames with a known
location (without and with a ``ReadCache``) and locating a 1080p frame.

    .venv/bin/python benchmarks/bench_vision_read.py [--write]
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.results import Results, wants_write  # noqa: E402
from benchmarks.timing import load, percentile  # noqa: E402
from companion.sim.perturb import CAMERA_VARIATIONS  # noqa: E402
from companion.vision.decide.context import make_context  # noqa: E402
from companion.vision.geometry.geometry import corners_homography  # noqa: E402
from companion.vision.locate.locate import BoardLocation, locate_board  # noqa: E402
from companion.vision.reading.read import ReadCache, read_board, read_samples  # noqa: E402
from companion.vision.types import NoBoardError  # noqa: E402
from tools.read_tune import (  # noqa: E402
    Accuracy,
    fit_space_model,
    labelled_photos,
    photo_features,
    photo_samples,
    score_reading,
    station_rows,
    stations_held_out,
)

PHOTOS = ROOT.parent / "shared" / "photos"


def table(size: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    w, h = size
    base = np.zeros((h, w, 3), np.float32)
    base[:] = rng.uniform(30, 160, 3)
    grain = cv2.resize(rng.normal(0, 1, (h // 20, w // 2)).astype(np.float32), (w, h))
    base += grain[..., None] * 25
    return np.clip(base, 0, 255).astype(np.uint8)


def warp_onto(img: np.ndarray, corners: np.ndarray, size: tuple[int, int], rng) -> np.ndarray:
    h, w = img.shape[:2]
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    m = cv2.getPerspectiveTransform(src, corners.astype(np.float32))
    out = table(size, rng)
    cv2.warpPerspective(img, m, size, dst=out, borderMode=cv2.BORDER_TRANSPARENT)
    return out


def timed(fn, repeat: int, warm: int = 1) -> tuple[list[float], list[float]]:
    """Wall and CPU (this process) milliseconds of each of ``repeat`` calls."""
    for _ in range(warm):
        fn()
    wall, cpu = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        cpu.append((time.process_time() - c) * 1000)
        wall.append((time.perf_counter() - t) * 1000)
    return wall, cpu


def stats(label: str, fn, repeat: int, warm: int = 1) -> float:
    """Print the wall and CPU times of ``fn``; return the CPU median (ms)."""
    wall, cpu = timed(fn, repeat, warm)
    print(
        f"  {label}: wall median {np.median(wall):.1f} ms, p95 {percentile(wall, 95):.1f} ms; "
        f"CPU median {np.median(cpu):.1f} ms  (n={repeat})"
    )
    return float(np.median(cpu))


def share(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.1f} %)" if b else "-"


def accuracy(acc: Accuracy) -> str:
    return (
        f"routes {share(acc.routes_right, acc.routes_total)}, stations "
        f"{share(acc.stations_right, acc.stations_total)}, spaces "
        f"{share(acc.spaces_right, acc.spaces_total)}"
    )


def main() -> int:
    if not PHOTOS.is_dir():
        print(f"skipped: {PHOTOS} is absent")
        return 0
    cv2.setNumThreads(1)
    res = Results("bench_vision_read", write=wants_write(sys.argv))
    ctx = make_context()
    photos = labelled_photos(PHOTOS, ctx)
    images = {p.name: cv2.imread(str(p.path)) for p in photos}

    print("== accuracy, located automatically, tuned numbers from vision.json ==")
    total = Accuracy()
    for p in photos:
        reading = read_board(images[p.name], context=ctx)
        acc, wrong = score_reading(reading, p, ctx)
        total.add(acc)
        print(f"{p.name:42s} {acc.row()}")
        for w in wrong:
            print(f"    {w}")
    print(f"{'overall':42s} {total.row()}")
    res.add(
        "vision-photos",
        f"vision, the {len(photos)} shared photos, board located automatically",
        accuracy(total),
    )

    print("\n== leave-one-photo-out: space model fitted on the other photos ==")
    samples = {p.name: photo_samples(images[p.name], ctx) for p in photos}
    feats = {n: photo_features(s, ctx) for n, s in samples.items()}
    total = Accuracy()
    for p in photos:
        data = [
            (feats[q.name], q.space_labels)
            for q in photos
            if q.name != p.name and q.space_labels is not None
        ]
        model = fit_space_model(data, ctx)
        held = dataclasses.replace(ctx, model=model)
        reading, _ = read_samples(samples[p.name], held)
        acc, _ = score_reading(reading, p, held)
        total.add(acc)
        print(f"{p.name:42s} {acc.row()}")
    print(f"{'overall (held-out)':42s} {total.row()}")
    rows = station_rows(photos, [images[p.name] for p in photos], ctx)
    right, n, _ = stations_held_out(rows, ctx)
    print(f"stations, leave one city out (thresholds fitted on all the other cities): {right}/{n}")
    res.add(
        "vision-photos-held-out",
        "vision, the shared photos, leave-one-photo-out (space model fitted on the others);"
        " the station rule held out city by city",
        f"{accuracy(total)}; stations city by city {share(right, n)}",
    )

    print("\n== other cameras and rooms: every photo transformed, located and read ==")
    worst = 1.0
    route_shares, station_shares, refusals = [], [], 0
    for name, change in CAMERA_VARIATIONS.items():
        total, refused = Accuracy(), []
        for p in photos:
            try:
                reading = read_board(change(images[p.name]), context=ctx)
            except NoBoardError:
                refused.append(p.name)
                continue
            acc, _ = score_reading(reading, p, ctx)
            total.add(acc)
        if total.routes_total:
            worst = min(worst, total.routes_right / total.routes_total)
            route_shares.append(100 * total.routes_right / total.routes_total)
        if total.stations_total:
            station_shares.append(100 * total.stations_right / total.stations_total)
        refusals += len(refused)
        note = f"  REFUSED: {', '.join(refused)}" if refused else ""
        print(f"  {name:20s} {total.row()}{note}")
    print(f"  worst routes share over the variations: {100 * worst:.2f} %")
    res.add(
        "vision-variations",
        f"vision, the shared photos as {len(CAMERA_VARIATIONS)} other cameras and rooms would take"
        " them (light colour and strength, tone curve, saturation, JPEG, size, blur, noise, a lamp"
        " to one side, vignetting, turned, lens distortion)",
        f"routes {min(route_shares):.1f}-{max(route_shares):.1f} %, stations"
        f" {min(station_shares):.1f}-{max(station_shares):.1f} % per variation;"
        f" photos refused: {refusals}",
    )

    print("\n== raw photos at an angle (in-memory warps onto a table, some upside down) ==")
    rng = np.random.default_rng(2024)
    errs, right, tot, times, both = [], 0, 0, [], []
    for trial in range(8):
        p = photos[trial % len(photos)]
        size = (4000, 3000)
        c = np.array([[600, 500], [3500, 400], [3250, 2700], [700, 2450]], np.float64)
        c += rng.uniform(-250, 250, c.shape)
        c = np.roll(c, -int(rng.integers(0, 4)), axis=0)
        frame = warp_onto(images[p.name], c, size, rng)
        t = time.perf_counter()
        try:
            loc = locate_board(frame, context=ctx)
        except NoBoardError:
            print(f"  trial {trial}: NOT FOUND")
            continue
        times.append((time.perf_counter() - t) * 1000)
        errs.append(float(np.abs(loc.corners - c).max()))
        reading = read_board(frame, location=loc, context=ctx)
        both.append((time.perf_counter() - t) * 1000)
        acc, _ = score_reading(reading, p, ctx)
        right += acc.routes_right
        tot += acc.routes_total
    print(
        f"  found {len(errs)}/8; worst corner error {max(errs):.0f} px in a 4000x3000 frame; "
        f"routes {100 * right / max(tot, 1):.2f}% ({right}/{tot}); locate median "
        f"{np.median(times):.0f} ms, locate+read median {np.median(both):.0f} ms (wall)"
    )
    res.add(
        "vision-angled",
        "vision, raw photos at an angle on a table (4000x3000, 8 in-memory warps)",
        f"found {len(errs)}/8, routes {share(right, tot)}",
    )

    print("\n== refusals (must all be refused) ==")
    blank = next(images[p.name] for p in photos if "blank" in p.name)
    h, w = blank.shape[:2]
    tiles = [
        blank[r * h // 3 : (r + 1) * h // 3, c * w // 3 : (c + 1) * w // 3]
        for r in range(3)
        for c in range(3)
    ]
    order = [4, 8, 0, 6, 2, 7, 1, 5, 3]
    th, tw = h // 3, w // 3
    scrambled = np.vstack(
        [np.hstack([tiles[order[r * 3 + k]][:th, :tw] for k in range(3)]) for r in range(3)]
    )
    cases = {
        "mirrored blank": np.ascontiguousarray(blank[:, ::-1]),
        "upside-down mirror": np.ascontiguousarray(blank[::-1, :]),
        "scrambled tiles": np.ascontiguousarray(scrambled),
        "noise": rng.integers(0, 256, (1500, 2000, 3), dtype=np.uint8),
        "plain table": table((2000, 1500), rng),
    }
    refused_cases = 0
    for name, img in cases.items():
        try:
            loc = locate_board(img, context=ctx)
            print(f"  {name}: ACCEPTED (quality {loc.quality:.2f})  <-- wrong")
        except NoBoardError:
            print(f"  {name}: refused")
            refused_cases += 1
    res.add(
        "vision-not-a-board",
        "vision, images that are not the board (mirrored, upside-down mirror, scrambled tiles,"
        " noise, a plain table)",
        f"refused {refused_cases}/{len(cases)}",
    )

    print(f"\n== speed, one thread ({load()}) ==")
    img = images[photos[0].name]
    path = str(photos[0].path)
    stats(f"decode JPEG {img.shape[1]}x{img.shape[0]}", lambda: cv2.imread(path), 5)
    stats(
        f"locate+read cropped photo {img.shape[1]}x{img.shape[0]}",
        lambda: read_board(img, context=ctx),
        9,
    )
    f12 = np.sqrt(12e6 / (img.shape[0] * img.shape[1]))
    big = cv2.resize(img, None, fx=f12, fy=f12, interpolation=cv2.INTER_LINEAR)
    ms12 = stats(
        f"locate+read cropped 12 MP ({big.shape[1]}x{big.shape[0]})",
        lambda: read_board(big, context=ctx),
        9,
    )
    res.add(
        "vision-read-12mp",
        "vision, locate + read a cropped 12 MP photo (one thread)",
        f"{ms12:.0f} ms CPU median",
    )
    angled = []
    for trial in range(3):  # uncropped 12 MP photos, board at an angle on a table
        p = photos[trial % len(photos)]
        c = np.array([[600, 500], [3500, 400], [3250, 2700], [700, 2450]], np.float64)
        c += rng.uniform(-200, 200, c.shape)
        frame12 = warp_onto(images[p.name], np.roll(c, -trial, axis=0), (4000, 3000), rng)
        angled.append(
            stats(
                f"locate+read uncropped 12 MP at an angle #{trial}",
                lambda f=frame12: read_board(f, context=ctx),
                5,
            )
        )
    res.add(
        "vision-read-12mp-angled",
        "vision, locate + read an uncropped 12 MP photo at an angle (3 photos, one thread)",
        f"{min(angled):.0f}-{max(angled):.0f} ms CPU median",
    )
    c = np.array([[300, 120], [1620, 100], [1650, 980], [270, 1000]], np.float64)
    frame = warp_onto(img, c, (1920, 1080), rng)
    loc = BoardLocation(corners_homography(c), 1.0, (1920, 1080))
    # Live frames: the same board with fresh sensor noise in every frame.
    noisy = [
        np.clip(frame + rng.normal(0, 3, frame.shape), 0, 255).astype(np.uint8) for _ in range(8)
    ]
    k = iter(range(10**9))
    live = stats(
        "read 1080p live frame, known location (no cache)",
        lambda: read_board(noisy[next(k) % 8], location=loc, context=ctx),
        50,
    )
    cache = ReadCache()
    unchanged = stats(
        "read 1080p live frame, known location, ReadCache, board unchanged",
        lambda: read_board(noisy[next(k) % 8], location=loc, context=ctx, cache=cache),
        50,
    )
    print(f"    (frames read in full: {cache.full_reads} of {cache.frames})")
    # A hand / a new piece every other frame: every frame must be read in full.
    covered = frame.copy()
    cv2.rectangle(covered, (900, 500), (960, 540), (40, 40, 200), -1)
    alternate = [frame, covered]
    cache = ReadCache()
    stats(
        "read 1080p live frame, known location, ReadCache, board changing every frame",
        lambda: read_board(alternate[next(k) % 2], location=loc, context=ctx, cache=cache),
        50,
    )
    print(f"    (frames read in full: {cache.full_reads} of {cache.frames})")
    res.add(
        "vision-read-1080p",
        "vision, read a 1080p live frame at a known location (one thread): no cache / an unchanged"
        " board with the read cache",
        f"{live:.1f} ms / {unchanged:.1f} ms CPU median",
    )
    stats("locate 1080p frame (board at an angle)", lambda: locate_board(frame, context=ctx), 9)
    res.save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
