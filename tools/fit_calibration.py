"""Fit the calibration of the reader's confidence (development tool, never needed at run time).

Reads the *fitting sets* only: rendered pictures of seeds of their own (9000 and up; the
benchmarks use others, under 1000) and, with ``--photos``, the shared photos under the camera
variations the benchmark does not read (``PHOTO_VARIATIONS``), each photo read by a space model
fitted without it; never the benchmarks' rendered sets, the shared photos as the benchmark reads
them, the other printed copies (``tools/print_copies.py``) or the downscales of
``bench_vision_check.py``.
Every route and station reading is scored against the scene's truth and kept as (kind, grade,
right) (``companion.vision.decide.calibrate``); per kind, ``calibrate.fit_steps`` maps the grade
to the share right, and the result goes into ``companion/data/vision_calibration.json``::

    .venv/bin/python tools/fit_calibration.py --pictures 800 --photos ../shared/photos --write

The fitting sets: random games (a share of routes claimed, stations), games with trains put on
routes printed in their own colour, doubles with one colour on both lanes, empty boards, and
games near their end (each colour's trains placed until 0-3 of its 45 are left or no route
fits, half of the routes printed in a player colour taken by that colour's trains); no colour
over a player's 45 trains (as in a game: the check list's ``free-full`` kind rests on it); each
seen top-down (whole boards 1,000-2,400 px wide, area-scaled and JPEG re-encoded) or at an
angle (1080p frames), under one of several lights.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.sim.perturb import (  # noqa: E402
    CAMERA_VARIATIONS,
    channel_gains,
    gamma,
    jpeg,
    light_gradient,
    resize_width,
)
from companion.sim.render import BoardRenderer, Scene, random_scene, random_view  # noqa: E402
from companion.vision.decide.calibrate import (  # noqa: E402
    KINDS,
    Calibration,
    fit_steps,
    logit,
    station_kind,
)
from companion.vision.decide.check import (  # noqa: E402
    CheckConfig,
    grade_routes,
    print_like,
    route_evidence,
)
from companion.vision.decide.context import (  # noqa: E402
    ReadContext,
    Samples,
    make_context,
    take_samples,
)
from companion.vision.locate.locate import BoardLocation, locate_board  # noqa: E402
from companion.vision.reading.read import read_samples  # noqa: E402
from companion.vision.types import PLAYER_COLORS, NoBoardError  # noqa: E402
from tools.read_tune import (  # noqa: E402
    UNKNOWN,
    LabelledPhoto,
    fit_space_model,
    labelled_photos,
    photo_features,
    photo_samples,
)

SEED = 9000  # the fitting sets' seeds start here (the benchmarks' stay under 1000)
OUT = ROOT / "companion" / "data" / "vision_calibration.json"
Image = np.ndarray
LIGHTS: tuple[Callable[[Image], Image], ...] = (
    lambda i: i,
    lambda i: channel_gains(i, (0.78, 0.94, 1.18)),
    lambda i: channel_gains(i, (1.15, 1.0, 0.86)),
    lambda i: light_gradient(i, 0.5),
    lambda i: gamma(i, 1.25),
    lambda i: channel_gains(i, (0.8, 0.8, 0.8)),
)
Row = tuple[str, float, bool]  # kind, grade, right
Truth = tuple[dict[str, Any], dict[str, Any]]
# The camera variations of the shared photos fitted on: those bench_vision_check.py does not
# read (it reads warm and cool light, a lamp, gamma 1.4, saturation x1.3, 1,000 px wide, turned 7
# degrees and a vignette).
PHOTO_VARIATIONS = (
    "dark (x0.55)",
    "bright (x1.3)",
    "gamma 0.7",
    "saturation x0.7",
    "JPEG quality 35",
    "2000 px wide",
    "1400 px wide",
    "blur sigma 2",
    "noise sigma 8",
    "turned -12 degrees",
    "lens barrel 3 %",
    "lens pincushion 3 %",
)


def within_trains(routes: dict[str, str], renderer: BoardRenderer) -> dict[str, str]:
    """The claims as a game can hold them: a colour's routes (in board order) while their
    lengths stay within a player's trains (``CheckConfig.trains_per_player``)."""
    gb = renderer.geometry
    cap = CheckConfig.load().trains_per_player
    used = dict.fromkeys(PLAYER_COLORS, 0)
    out: dict[str, str] = {}
    for r in gb.drawable_routes():
        c = routes.get(r)
        if c is None:
            continue
        n = len(gb.routes[r].spaces)
        if used[c] + n <= cap:
            used[c] += n
            out[r] = c
    return out


def full_board(rng: np.random.Generator, renderer: BoardRenderer) -> dict[str, str]:
    """A game near its end: each colour's trains placed until it has at most a few of its 45
    left (or no route fits), about half the routes printed in a player colour taken by that
    colour's trains (never one colour on both lanes of a double)."""
    gb = renderer.geometry
    cap = CheckConfig.load().trains_per_player
    left = {c: cap - int(rng.integers(0, 4)) for c in PLAYER_COLORS}
    routes: dict[str, str] = {}
    order = gb.drawable_routes()
    for i in rng.permutation(len(order)).tolist():
        r = order[i]
        info = gb.routes[r]
        n = len(info.spaces)
        twin = routes.get(str(info.twin))
        fits = [c for c in PLAYER_COLORS if left[c] >= n and c != twin]
        if not fits:
            continue
        if info.color in fits and rng.random() < 0.5:
            c = info.color
        else:
            c = fits[int(rng.integers(0, len(fits)))]
        routes[r] = c
        left[c] -= n
    return routes


def scene_for(rng: np.random.Generator, renderer: BoardRenderer, k: int) -> Scene:
    """The k-th fitting scene: a random game, trains on their own print, doubles with one
    colour on both lanes, an empty board, or a game near its end (in turn); no colour over a
    player's trains."""
    gb = renderer.geometry
    kind = k % 5
    seed = int(rng.integers(0, 1 << 30))
    if kind == 3:
        return Scene(seed=seed)
    if kind == 4:
        st = random_scene(rng, gb, claimed=0.0, stations=int(rng.integers(0, 12))).stations
        return Scene(routes=full_board(rng, renderer), stations=st, seed=seed)
    sc = random_scene(
        rng, gb, claimed=float(rng.uniform(0.2, 0.7)), stations=int(rng.integers(0, 12))
    )
    routes = dict(sc.routes)
    if kind == 1:
        for r in gb.drawable_routes():
            c = gb.routes[r].color
            twin = gb.routes[r].twin
            if c in PLAYER_COLORS and rng.random() < 0.5 and routes.get(twin or "") != c:
                routes[r] = c
    elif kind == 2:
        for r in gb.drawable_routes():
            twin = gb.routes[r].twin
            if twin and r < str(twin) and rng.random() < 0.4:
                c = PLAYER_COLORS[int(rng.integers(0, 5))]
                routes[r] = c
                routes[str(twin)] = c
    return Scene(routes=within_trains(routes, renderer), stations=sc.stations, seed=seed)


def picture(
    rng: np.random.Generator, renderer: BoardRenderer, sc: Scene
) -> tuple[Image, np.ndarray]:
    """The scene seen top-down (1,000-2,400 px, area + JPEG) or at an angle (1080p), under a
    light: the image and the board's corners in it."""
    light = LIGHTS[int(rng.integers(0, len(LIGHTS)))]
    if rng.random() < 0.5:
        top = renderer.render_board(sc, 2400)
        width = int(rng.integers(1000, 2401))
        image = jpeg(resize_width(light(top), width), int(rng.integers(70, 96)))
        h, w = image.shape[:2]
        return image, np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    view = random_view(np.random.default_rng(int(rng.integers(0, 1 << 30))), (1920, 1080))
    fr = renderer.render_frame(sc, view, np.random.default_rng(int(rng.integers(0, 1 << 30))))
    return light(fr.image), np.asarray(fr.corners, dtype=np.float64)


def reading_rows(image: Image, corners: np.ndarray, sc: Scene, ctx: ReadContext) -> list[Row]:
    """Every route and station of one rendered picture read: (kind, grade, right)."""
    loc = BoardLocation.from_corners(corners, (image.shape[1], image.shape[0]))
    truth = (dict(sc.routes), dict(sc.stations))
    return scored_rows(take_samples(image, loc.homography, ctx), truth, ctx)


def scored_rows(samples: Samples, truth: Truth, ctx: ReadContext) -> list[Row]:
    """Every route and station read from samples and scored against the truth (route or city
    id -> colour or None; missing ids are free, ``UNKNOWN`` ones left out): (kind, grade,
    right)."""
    routes, stations = truth
    reading, res = read_samples(samples, ctx)
    info = ctx.info
    ev = route_evidence(res.scores, info, res.model.route_temperature)
    cfg = CheckConfig.load()
    like = print_like(res.model, cfg.print_like_radius)
    grades = grade_routes(ev, info, like, cfg.trains_per_player)
    rows: list[Row] = []
    for k, rid in enumerate(info.route_ids):
        t = routes.get(rid)
        if t != UNKNOWN:
            rows.append((grades.kinds[k], float(grades.grade[k]), reading.routes[rid] == t))
    playing = {c for c in reading.routes.values() if c is not None}
    for cid, got in reading.stations.items():
        t = stations.get(cid)
        if t != UNKNOWN:
            kind = station_kind(got, playing)
            g = float(logit(reading.confidence.get(cid, 1.0)))
            rows.append((kind, g, got == t))
    return rows


def photo_truth(p: LabelledPhoto, ctx: ReadContext) -> Truth:
    """A labelled shared photo's truth: the routes whose spaces agree (the others
    ``UNKNOWN``), and the stations as far as labelled."""
    routes: dict[str, Any] = {}
    if p.space_labels is not None:
        for rid, sl in ctx.route_slices.items():
            t = p.space_labels[sl]
            routes[rid] = t[0] if len(set(t)) == 1 else UNKNOWN
    else:
        routes = dict.fromkeys(ctx.geometry.route_ids, UNKNOWN)
    g = ctx.geometry
    st = dict(zip(g.city_ids, p.station_labels, strict=True)) if p.station_labels else {}
    if not st:
        st = dict.fromkeys(g.city_ids, UNKNOWN)
    return routes, st


def photo_rows(folder: Path, ctx: ReadContext) -> list[Row]:
    """The shared photos under the camera variations the benchmark does not use
    (``PHOTO_VARIATIONS``), located, each read by a space model fitted without it."""
    photos = labelled_photos(folder, ctx)
    images = {p.name: cv2.imread(str(p.path)) for p in photos}
    feats = {p.name: photo_features(photo_samples(images[p.name], ctx), ctx) for p in photos}
    rows: list[Row] = []
    for p in photos:
        data = [
            (feats[q.name], q.space_labels)
            for q in photos
            if q.name != p.name and q.space_labels is not None
        ]
        held = replace(ctx, model=fit_space_model(data, ctx))
        truth = photo_truth(p, ctx)
        for vn in PHOTO_VARIATIONS:
            image = CAMERA_VARIATIONS[vn](images[p.name])
            store: dict[int, Any] = {}
            try:
                loc = locate_board(image, context=held, store=store)
            except NoBoardError:
                continue
            samples = take_samples(image, loc.homography, held, store=store, offsets=loc.offsets)
            rows += scored_rows(samples, truth, held)
    return rows


def fitting_rows(pictures: int, ctx: ReadContext) -> list[Row]:
    rng = np.random.default_rng(SEED)
    renderer = BoardRenderer()
    rows: list[Row] = []
    for k in range(pictures):
        sc = scene_for(rng, renderer, k)
        image, corners = picture(rng, renderer, sc)
        rows += reading_rows(image, corners, sc, ctx)
        if (k + 1) % 20 == 0:
            print(f"  {k + 1} pictures read", file=sys.stderr)
    return rows


def fit(rows: list[Row], min_count: int) -> Calibration:
    steps = {}
    for kind in KINDS:
        g = [x for k, x, _ in rows if k == kind]
        r = [y for k, _, y in rows if k == kind]
        if g:
            steps[kind] = fit_steps(g, r, min_count=min_count)
    return Calibration(steps)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pictures", type=int, default=800, help="rendered fitting pictures")
    ap.add_argument("--min-count", type=int, default=40)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--photos", type=Path, help="the shared photos' folder (../shared/photos)")
    ap.add_argument("--rows", type=Path, help="keep the scored readings here (JSON)")
    ap.add_argument(
        "--from-rows",
        type=Path,
        nargs="*",
        help="fit on readings kept before (--pictures and --photos then say what they were)",
    )
    args = ap.parse_args(argv)
    ctx = make_context()
    rows: list[Row] = []
    if args.from_rows:
        for f in args.from_rows:
            rows += [(str(k), float(g), bool(y)) for k, g, y in json.loads(f.read_text())]
    else:
        rows = fitting_rows(args.pictures, ctx)
        if args.photos:
            rows += photo_rows(args.photos, ctx)
    if args.rows:
        args.rows.write_text(json.dumps(rows))
    cal = fit(rows, args.min_count)
    for kind, s in cal.steps.items():
        n = sum(1 for k, _, _ in rows if k == kind)
        bad = sum(1 for k, _, y in rows if k == kind and not y)
        print(f"{kind:16s} readings {n:6d} wrong {bad:4d}")
        for e, v, c in zip(s.edges, s.values, s.counts, strict=True):
            print(f"    grade >= {e:7.2f}: {c:6d} readings, {100 * v:7.3f} % right")
    if args.write:
        photos = (
            "; and the shared photos under the camera variations bench_vision_check.py does not "
            f"read ({', '.join(PHOTO_VARIATIONS)}), each photo read by a space model fitted "
            "without it"
            if args.photos
            else ""
        )
        data: dict[str, Any] = {
            "note": (
                "Calibration of the vision reader's confidence (companion/vision/decide/"
                "calibrate.py): per kind of reading, the grade (raw confidence as log-odds, held "
                "down by the weakest space) from which a share of the readings was right. "
                "Written by tools/fit_calibration.py from rendered fitting sets of their own "
                f"seeds ({args.pictures} pictures from seed {SEED}, a fifth of them games "
                "with trains on their own print, a fifth games near their end, no colour over "
                f"a player's 45 trains){photos}. The benchmarks' rendered sets, "
                "the shared photos as bench_vision_check.py reads them and the other printed "
                "copies are never fitted on."
            ),
            "pictures": args.pictures,
            "seed": SEED,
            "photos": bool(args.photos),
            "readings": len(rows),
            "kinds": cal.to_json(),
        }
        OUT.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
