"""Compare what the board reader sees on the real photos with what it sees on rendered boards.

    .venv/bin/python tools/render_stats.py [--photos ../shared/photos] [--width 1400]
                                           [--seeds 1 2 3] [--json]

The real photos (read at run time from ``--photos``; nothing of them is written anywhere) and
rendered boards (the project's own renderer, random claims) are both scaled so the board is
``--width`` pixels wide and read through the reader's own sampling and feature code at the
board's true place. The features are grouped by what lies on each space (its printed colour and
the plastic train on it, if any) and printed side by side, with the difference in units of the
reader's own feature scale: the numbers that guide ``companion/data/render.json``.

``--json`` prints the photo numbers (means per group) as JSON instead of the comparison table.
``--calibrate N`` runs N rounds of nudging ``render.json``'s colours and grain amplitudes
(printed fills, plastic colours; the paper, which sets the white balance, is left alone)
towards the photo numbers and writes the file: numbers only, through the reader's features.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.sim.render import BoardRenderer, View, random_scene
from companion.vision.decide.classify import (
    FIT_FEATURES,
    fit_features,
    lab8,
    space_features_lab8,
)
from companion.vision.decide.context import ReadContext, default_context, take_samples
from companion.vision.features.sample import decimate
from companion.vision.geometry.geometry import corners_homography

ROOT = Path(__file__).resolve().parents[1]
READ_FEATURES = ("L", "a", "b", "L_std", "end_outline", "asymmetry", "dark_lines")
PROFILE_FEATURES = ("outline_L", "rim_L")
PAPER_FEATURES = ("L_p10", "L_p50", "L_p90", "a_p50", "b_p50", "L_hf_std")

Group = tuple[str, str]  # (printed colour, occupant or "-")


def _full_frame_h(image: np.ndarray) -> np.ndarray:
    h, w = image.shape[:2]
    return corners_homography(np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64))


def space_stats(
    image: np.ndarray, ctx: ReadContext, occupants: list[str | None] | None
) -> dict[Group, list[np.ndarray]]:
    """Per (printed colour, occupant): fit features (on the locating work image) and reading
    features (best window of the occupant's colour, or the printed core), one row per space."""
    out: dict[Group, list[np.ndarray]] = defaultdict(list)
    k = max(1, round(max(image.shape[:2]) / int(ctx.cfg["locate"]["work_size"])))
    work = decimate(image, k)
    fit = fit_features(
        take_samples(work, _full_frame_h(work), ctx, ctx.fit_grids, lab=False).spaces
    )
    samples = take_samples(image, _full_frame_h(image), ctx)
    assert samples.spaces_lab is not None
    feats = space_features_lab8(  # as the reader: the print's core off the other lane's trains
        samples.spaces_lab, ctx.layout, ctx.windows, ctx.info.tunnel, ctx.info.lane_side
    )
    model = ctx.model
    # across profile (mean L of the box's middle columns): outline rows (+-0.45 box widths)
    # and pale rim rows (+-0.35)
    lo = ctx.layout
    big_l = samples.spaces_lab[..., 0].astype(np.float64) * (100.0 / 255.0)
    across = big_l[:, :, lo.x(-0.3) : lo.x(0.3)].mean(axis=2)

    def row(y: float) -> int:  # the sample row whose centre is ``y`` box widths off the middle
        return int(np.floor(y * lo.ny / lo.scale_wid + lo.ny / 2))

    profile = np.stack(
        [
            (across[:, row(-0.45)] + across[:, row(0.45)]) / 2,
            (across[:, row(-0.35)] + across[:, row(0.35)]) / 2,
        ],
        axis=1,
    )
    for i, printed in enumerate(ctx.printed_colors):
        occ = occupants[i] if occupants is not None else None
        if occ is None:
            colour = feats.printed[i]
        else:  # the window nearest the occupant's colour (what the reader would pick)
            z = (feats.windows[i] - model.plastic[occ]) / model.scale
            j = int(np.argmin((z * z).sum(axis=1)))
            colour = feats.windows[i, j]
        row = np.concatenate([fit[i], colour, feats.cues[i], profile[i]])
        out[(printed, occ or "-")].append(row)
    return out


def paper_stats(image: np.ndarray, ctx: ReadContext) -> np.ndarray:
    """Percentiles of the white-balance grid (the board's paper and sea) in Lab, and the fine
    texture (standard deviation of L minus its 5x5 blur) over the board."""
    gains = take_samples(image, _full_frame_h(image), ctx).gains
    small = np.clip(image.astype(np.float32) * gains[None, None, :].astype(np.float32), 0, 255)
    lab = lab8(small.astype(np.uint8)).astype(np.float32)
    big_l = lab[..., 0] * (100.0 / 255.0)
    hf = big_l - cv2.blur(big_l, (5, 5))
    h, w = big_l.shape
    inner = (slice(int(0.06 * h), int(0.94 * h)), slice(int(0.05 * w), int(0.95 * w)))
    lv = big_l[inner].ravel()
    return np.array(
        [
            np.percentile(lv, 10),
            np.percentile(lv, 50),
            np.percentile(lv, 90),
            float(np.median(lab[inner][..., 1])) - 128.0,
            float(np.median(lab[inner][..., 2])) - 128.0,
            float(hf[inner].std()),
        ]
    )


def _occupants(ctx: ReadContext, spaces: dict[str, list[str | None]]) -> list[str | None]:
    return [spaces.get(rid, [None] * (i + 1))[i] for rid, i in ctx.geometry.space_index()]


def photo_groups(
    photos: Path, ctx: ReadContext, width: int
) -> tuple[dict[Group, list[np.ndarray]], list[np.ndarray]]:
    groups: dict[Group, list[np.ndarray]] = defaultdict(list)
    papers = []
    for jpg in sorted(photos.glob("*.jpg")):
        labels = jpg.with_suffix(".trains.json")
        image = cv2.imread(str(jpg))
        if image is None:
            continue
        f = width / image.shape[1]
        image = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        papers.append(paper_stats(image, ctx))
        if labels.exists():
            occ = _occupants(ctx, json.loads(labels.read_text())["spaces"])
        elif "blank" in jpg.stem:
            occ = [None] * ctx.geometry.n_spaces
        else:
            continue  # trains not labelled
        for g, rows in space_stats(image, ctx, occ).items():
            groups[g].extend(rows)
    return groups, papers


def render_groups(
    ctx: ReadContext, width: int, seeds: list[int], config: dict[str, Any] | None = None
) -> tuple[dict[Group, list[np.ndarray]], list[np.ndarray]]:
    renderer = BoardRenderer(config=config)
    view_cfg = renderer.config["view"]
    groups: dict[Group, list[np.ndarray]] = defaultdict(list)
    papers = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        scene = random_scene(rng, renderer.geometry, claimed=0.45, stations=0)
        view = View.top_down(
            width,
            renderer.geometry.aspect,
            noise=float(view_cfg["noise"]),
            blur=float(view_cfg["blur"]),
        )
        image = renderer.render_frame(scene, view, rng).image
        papers.append(paper_stats(image, ctx))
        spaces: dict[str, list[str | None]] = {}
        for rid, info in renderer.geometry.routes.items():
            spaces[rid] = [scene.routes.get(rid)] * len(info.spaces)
        for g, rows in space_stats(image, ctx, _occupants(ctx, spaces)).items():
            groups[g].extend(rows)
    return groups, papers


def _bgr_to_lab(c: list[float]) -> np.ndarray:
    px = np.array([[c]], dtype=np.float32) / 255.0
    return np.asarray(cv2.cvtColor(px, cv2.COLOR_BGR2LAB)[0, 0], dtype=np.float64)


def _lab_to_bgr(lab: np.ndarray) -> list[int]:
    px = np.array([[lab]], dtype=np.float32)
    bgr = cv2.cvtColor(px, cv2.COLOR_LAB2BGR)[0, 0]
    return [round(float(np.clip(v, 0.0, 1.0)) * 255) for v in bgr]


def _pooled(groups: dict[Group, list[np.ndarray]], pick: Any) -> np.ndarray | None:
    rows = [r for g, rr in groups.items() if pick(g) for r in rr]
    return np.mean(rows, axis=0) if rows else None


def calibrate_step(
    cfg: dict[str, Any],
    real: dict[Group, list[np.ndarray]],
    ren: dict[Group, list[np.ndarray]],
    rate: float = 0.8,
) -> None:
    """Move the render config's colours (in Lab) and grain amplitudes towards the photos."""
    n_fit = len(FIT_FEATURES)
    lab_i = slice(n_fit, n_fit + 3)
    std_i = n_fit + 3

    def nudge(c: list[float], want: np.ndarray, got: np.ndarray) -> list[int]:
        return _lab_to_bgr(_bgr_to_lab(c) + rate * (want - got))

    def ratio(want: float, got: float) -> float:
        return float(np.clip(want / max(got, 0.3), 0.6, 1.6)) ** rate

    spaces = cfg["spaces"]
    outline_i, rim_i = n_fit + 7, n_fit + 8
    for colour, pc in cfg["printed"].items():
        r = _pooled(real, lambda g, c=colour: g == (c, "-"))
        n = _pooled(ren, lambda g, c=colour: g == (c, "-"))
        if r is None or n is None:
            continue
        pc["fill"] = nudge(pc["fill"], r[lab_i], n[lab_i])
        dl = np.array([r[rim_i] - n[rim_i], 0.0, 0.0])
        pc["rim"] = _lab_to_bgr(_bgr_to_lab(pc["rim"]) + rate * dl)
        g = spaces["grain"].get(colour, spaces["grain"]["default"])
        spaces["grain"][colour] = round(g * ratio(r[std_i], n[std_i]), 2)
    r = _pooled(real, lambda g: g[1] == "-")
    n = _pooled(ren, lambda g: g[1] == "-")
    if r is not None and n is not None:
        dl = np.array([r[outline_i] - n[outline_i], 0.0, 0.0])
        spaces["outline"] = _lab_to_bgr(_bgr_to_lab(spaces["outline"]) + rate * dl)
    train = cfg["train"]
    asym_i = n_fit + 5
    r = _pooled(real, lambda g: g[1] != "-")
    n = _pooled(ren, lambda g: g[1] != "-")
    if r is not None and n is not None:  # one-side shading of the pieces
        k = ratio(r[asym_i], n[asym_i])
        train["top_gradient"] = round(min(0.6, float(train["top_gradient"]) * k), 3)
    for colour in list(cfg["players"]):
        r = _pooled(real, lambda g, c=colour: g[1] == c)
        n = _pooled(ren, lambda g, c=colour: g[1] == c)
        if r is None or n is None:
            continue
        cfg["players"][colour] = nudge(cfg["players"][colour], r[lab_i], n[lab_i])
        g = train["relief"].get(colour, train["relief"]["default"])
        train["relief"][colour] = round(g * ratio(r[std_i], n[std_i]), 2)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--photos", type=Path, default=ROOT / ".." / "shared" / "photos")
    ap.add_argument("--width", type=int, default=1400, help="board width in pixels")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--json", action="store_true", help="photo numbers as JSON only")
    ap.add_argument("--min-count", type=int, default=4)
    ap.add_argument("--calibrate", type=int, default=0, metavar="N", help="rounds; writes")
    args = ap.parse_args(argv)
    if not args.photos.is_dir():
        print(f"no photos at {args.photos}", file=sys.stderr)
        return 2
    ctx = default_context()
    names = [f"fit:{f}" for f in FIT_FEATURES] + list(READ_FEATURES) + list(PROFILE_FEATURES)
    scale = np.concatenate(
        [ctx.fit_model.scale, ctx.model.scale, np.array([10.0, 5.0, 2.0, 8.0, 8.0])]
    )
    real, real_paper = photo_groups(args.photos, ctx, args.width)
    if args.json:
        out: dict[str, Any] = {
            "width": args.width,
            "features": names,
            "groups": {
                f"{p}/{o}": [round(float(v), 2) for v in np.mean(rows, axis=0)]
                for (p, o), rows in sorted(real.items())
                if len(rows) >= args.min_count
            },
            "paper": dict(
                zip(PAPER_FEATURES, np.round(np.mean(real_paper, axis=0), 2).tolist(), strict=True)
            ),
        }
        print(json.dumps(out, indent=1))
        return 0
    if args.calibrate:
        path = ROOT / "companion" / "data" / "render.json"
        for k in range(args.calibrate):
            cfg = json.loads(path.read_text(encoding="utf-8"))
            ren, ren_paper = render_groups(ctx, args.width, args.seeds, cfg)
            calibrate_step(cfg, real, ren)
            path.write_text(json.dumps(cfg, indent=1) + "\n", encoding="utf-8")
            print(f"calibration round {k + 1} written to {path}")
    ren, ren_paper = render_groups(ctx, args.width, args.seeds)
    print("paper       " + " ".join(f"{n:>9}" for n in PAPER_FEATURES))
    print("  real      " + " ".join(f"{v:9.2f}" for v in np.mean(real_paper, axis=0)))
    print("  render    " + " ".join(f"{v:9.2f}" for v in np.mean(ren_paper, axis=0)))
    short = [n.replace("fit:", "f.")[:9] for n in names]
    print(f"{'group':<16}{'n':>4} " + " ".join(f"{n:>9}" for n in short))
    worst: list[tuple[float, str]] = []
    zs: list[np.ndarray] = []
    for g in sorted(set(real) | set(ren)):
        rr, rn = real.get(g, []), ren.get(g, [])
        if len(rr) < args.min_count or len(rn) < args.min_count:
            continue
        mr, mn = np.mean(rr, axis=0), np.mean(rn, axis=0)
        z = (mn - mr) / scale
        label = f"{g[0]}/{g[1]}"
        print(f"{label:<16}{len(rr):>4} " + " ".join(f"{v:9.2f}" for v in mr))
        print(f"{'  render':<16}{len(rn):>4} " + " ".join(f"{v:9.2f}" for v in mn))
        print(f"{'  z':<16}{'':>4} " + " ".join(f"{v:9.2f}" for v in z))
        worst.append((float(np.abs(z).max()), label))
        zs.append(z)
    worst.sort(reverse=True)
    if zs:
        print(f"{'mean z':<21}" + " ".join(f"{v:9.2f}" for v in np.mean(zs, axis=0)))
        print(f"{'mean |z|':<21}" + " ".join(f"{v:9.2f}" for v in np.mean(np.abs(zs), axis=0)))
    print("largest differences (feature-scale units):", ", ".join(f"{n} {v:.1f}" for v, n in worst))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
