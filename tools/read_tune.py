"""Tune the reader's numbers on labelled photos (development tool, never needed at run time).

The labelled photos are not part of the project (see ../shared/photos/README.md); this module
only reads them from a folder given on the command line and writes *numbers* (class means and
scales) into ``companion/data/vision.json``::

    .venv/bin/python tools/read_tune.py ../shared/photos --write

The label loading, scoring and station-rule checks here are also used by the tests and the
vision benchmarks (``from tools.read_tune import ...`` with the repository root on the path).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the package beside this folder

from companion.vision.decide.classify import (
    COLOUR_FEATURES,
    CUE_FEATURES,
    HYPOTHESES,
    FloatArray,
    SpaceFeatures,
    SpaceModel,
    clip_cues,
    distances,
    fit_features,
    hypothesis_scores,
    log_softmax,
    space_features,
    window_penalty,
)
from companion.vision.decide.context import (
    ReadContext,
    Samples,
    make_context,
    sample_raw,
    take_samples,
)
from companion.vision.decide.read_stations import decide_stations, station_fractions_lab8
from companion.vision.features.tone import white_balance_gains
from companion.vision.geometry.geometry import corners_homography
from companion.vision.locate.register import refine_registration
from companion.vision.reading.read import read_samples
from companion.vision.types import PLAYER_COLORS

ROOT = Path(__file__).resolve().parents[1]
log = logging.getLogger(__name__)

UNKNOWN = "?"  # label of a space/city the photo's labels do not cover


@dataclass
class LabelledPhoto:
    name: str
    path: Path
    space_labels: list[str | None] | None  # per space (space_index order); UNKNOWN entries
    station_labels: list[str | None] | None  # per city (city_ids order)


def labelled_photos(folder: Path, ctx: ReadContext) -> list[LabelledPhoto]:
    """The shared development photos with their labels, as far as they are known.

    The blank board has no trains and no stations; the "cropped1" photo has no stations (its
    README entry says so); the other labels come from the .trains.json / .stations.json files.
    """
    g = ctx.geometry
    out: list[LabelledPhoto] = []
    for img in sorted(folder.glob("*.jpg")):
        stem = img.with_suffix("")
        trains = Path(str(stem) + ".trains.json")
        stations = Path(str(stem) + ".stations.json")
        space_labels: list[str | None] | None = None
        station_labels: list[str | None] | None = None
        if "blank" in img.name:
            space_labels = [None] * g.n_spaces
            station_labels = [None] * len(g.city_ids)
        if trains.exists():
            lab = json.loads(trains.read_text(encoding="utf-8"))["spaces"]
            space_labels = []
            for rid, i in g.space_index():
                space_labels.append(lab[rid][i] if rid in lab else UNKNOWN)
            if "cropped1" in img.name:
                station_labels = [None] * len(g.city_ids)
        if stations.exists():
            st = json.loads(stations.read_text(encoding="utf-8"))["stations"]
            station_labels = [st.get(c, UNKNOWN) for c in g.city_ids]
        out.append(LabelledPhoto(img.stem, img, space_labels, station_labels))
    return out


def full_frame_homography(shape: tuple[int, ...]) -> FloatArray:
    h, w = shape[:2]
    return corners_homography(np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64))


def photo_homography(image: Any, ctx: ReadContext) -> FloatArray:
    """Where the board is in a photo cropped to it: the whole frame, registered on the printed
    spaces (as ``locate_board`` does last)."""
    return refine_registration(image, full_frame_homography(image.shape), ctx).homography


def tone_reference(
    images: list[Any], ctx: ReadContext, homographies: list[FloatArray] | None = None
) -> FloatArray:
    """The reference tones (len(tone_percentiles), 3) BGR: the board paper's percentiles on
    the given (cropped) photos, each first white-balanced (``sampling.white_percentile`` of the
    paper sent to ``sampling.white_target``), averaged over the photos. ``homographies``: the
    photos' ``photo_homography`` when already known."""
    s = ctx.cfg["sampling"]
    hs = homographies or [photo_homography(image, ctx) for image in images]
    rows = []
    for image, h in zip(images, hs, strict=True):
        raw = sample_raw(image, h, ctx)
        paper = raw.wb[ctx.paper_mask]
        gains = white_balance_gains(paper, float(s["white_target"]), float(s["white_percentile"]))
        rows.append(np.percentile(paper * gains, ctx.tone_percentiles, axis=0))
    return np.asarray(np.mean(rows, axis=0), dtype=np.float64)


def with_tone_reference(ctx: ReadContext, reference: FloatArray) -> ReadContext:
    """``ctx`` with other reference tones (the rest unchanged)."""
    return replace(ctx, tone_reference=np.asarray(reference, dtype=np.float64))


def photo_samples(image: Any, ctx: ReadContext, h: FloatArray | None = None) -> Samples:
    return take_samples(image, photo_homography(image, ctx) if h is None else h, ctx)


def model_to_config(model: SpaceModel) -> dict[str, Any]:
    """The fitted numbers of ``model`` as ``vision.json``'s ``space_model`` section holds them."""

    def r(a: FloatArray) -> list[float]:
        return [round(float(x), 4) for x in a]

    return {
        "colour_features": list(COLOUR_FEATURES),
        "cues": list(CUE_FEATURES),
        "plastic": {k: r(v) for k, v in sorted(model.plastic.items())},
        "printed": {k: r(v) for k, v in sorted(model.printed.items())},
        "scale": r(model.scale),
        "clip": model.clip,
        "shift_penalty": model.shift_penalty,
        "toward_lane": model.toward_lane,
        "coef": r(model.coef),
        "same_coef": {c: r(model.same_coef[i]) for i, c in enumerate(PLAYER_COLORS)},
        "cue_range": [r(row) for row in model.cue_range],
        "em_rounds": model.em_rounds,
        "em_prior_weight": model.em_prior_weight,
        "em_confidence": model.em_confidence,
        "route_temperature": model.route_temperature,
    }


def fit_space_model(
    data: list[tuple[SpaceFeatures, list[str | None]]], ctx: ReadContext
) -> SpaceModel:
    """Fit the reader's numbers on labelled pictures.

    Class means of the colour features (plastic: the nominal train window; printed: the core),
    one pooled scale per feature (with floors), then the conditional-logit coefficients by
    maximum likelihood over the labelled spaces (Adam, fixed steps, deterministic).
    """
    m = ctx.cfg["space_model"]
    prior = ctx.model
    zero = int(np.argmin(np.abs(ctx.windows.along) + np.abs(ctx.windows.across)))
    plastic_rows: dict[str, list[FloatArray]] = {c: [] for c in PLAYER_COLORS}
    printed_rows: dict[str, list[FloatArray]] = {}
    for feats, labels in data:
        for i, lab in enumerate(labels):
            if lab == UNKNOWN:
                continue
            if lab is None:
                printed_rows.setdefault(ctx.printed_colors[i], []).append(feats.printed[i])
            else:
                plastic_rows[lab].append(feats.windows[i, zero])
    groups = [np.array(v) for v in [*plastic_rows.values(), *printed_rows.values()] if len(v) >= 3]
    var = np.mean([g.var(axis=0) for g in groups], axis=0)
    scale = np.maximum(np.sqrt(var), np.array(m["scale_floor"], dtype=np.float64))
    plastic = {c: np.mean(v, axis=0) if v else prior.plastic[c] for c, v in plastic_rows.items()}
    printed = {
        c: np.mean(printed_rows[c], axis=0) if printed_rows.get(c) else mu
        for c, mu in prior.printed.items()
    }
    model = replace(prior, plastic=plastic, printed=printed, scale=scale)
    penalty = window_penalty(model, ctx.windows, ctx.info.lane_side)
    all_cues = np.concatenate([f.cues for f, _ in data])
    low, high = np.percentile(all_cues, [1.0, 99.0], axis=0)
    model = replace(model, cue_range=np.stack([low, high], axis=1))
    dists, cues, ys = [], [], []
    for feats, labels in data:
        d, _ = distances(feats, ctx.info, model, penalty)
        known = np.array([lab != UNKNOWN for lab in labels])
        dists.append(d[known])
        cues.append(clip_cues(feats.cues, model)[known])
        ys.append(np.array([HYPOTHESES.index(lab) for lab in labels if lab != UNKNOWN]))
    coef = fit_coefficients(np.concatenate(dists), np.concatenate(cues), np.concatenate(ys))
    return replace(model, coef=coef, same_coef=fit_same_colour(data, model, ctx))


def fit_same_colour(
    data: list[tuple[SpaceFeatures, list[str | None]]], model: SpaceModel, ctx: ReadContext
) -> FloatArray:
    """The same-colour terms (5, 1 + cues): for a train on a route printed in its own colour
    the colours cannot tell, the relief cues named in ``space_model.same_cues`` can (a 3-D
    piece is lit on one side and shaded on the other, a glossy one shows a highlight, matte
    print neither). Per player colour, the log-likelihood ratio of those cues between that
    colour's trains (on any route) and that colour's printed spaces, each a normal
    distribution with the pooled within-class variance, times ``same_weight``."""
    m = ctx.cfg["space_model"]
    names = list(m.get("same_cues", []))
    weight = float(m.get("same_weight", 0.0))
    out = np.zeros((len(PLAYER_COLORS), 1 + len(CUE_FEATURES)))
    if not names or weight == 0.0:
        return out
    cols = [CUE_FEATURES.index(n) for n in names]
    groups: dict[tuple[str, str], list[FloatArray]] = {}
    for feats, labels in data:
        cues = clip_cues(feats.cues, model)[:, cols]
        for i, lab in enumerate(labels):
            if lab == UNKNOWN:
                continue
            key = ("plastic", lab) if lab is not None else ("printed", ctx.printed_colors[i])
            groups.setdefault(key, []).append(cues[i])
    arrays = {k: np.array(v) for k, v in groups.items() if len(v) >= 3}
    if not arrays:
        return out
    var = np.mean([a.var(axis=0) for a in arrays.values()], axis=0)
    var = np.maximum(var, np.array(m.get("same_var_floor", [1.0] * len(cols)), np.float64))
    for i, c in enumerate(PLAYER_COLORS):
        pl, pr = arrays.get(("plastic", c)), arrays.get(("printed", c))
        if pl is None or pr is None:
            continue
        mp, mr = pl.mean(axis=0), pr.mean(axis=0)
        out[i, 0] = -0.5 * weight * float(((mp**2 - mr**2) / var).sum())
        out[i, 1 + np.array(cols)] = weight * (mp - mr) / var
    return out


def fit_coefficients(
    dist: FloatArray,
    cues: FloatArray,
    y: npt.NDArray[np.int64],
    steps: int = 3000,
    rate: float = 0.05,
    l2: float = 1e-3,
) -> FloatArray:
    """Maximum-likelihood coefficients of ``hypothesis_scores`` (cues standardised while
    fitting, then folded back)."""
    mu = cues.mean(axis=0)
    sd = cues.std(axis=0) + 1e-6
    cn = (cues - mu) / sd
    theta = np.r_[1.0, 1.0, 0.0, np.zeros(cues.shape[1])]
    m1 = np.zeros_like(theta)
    m2 = np.zeros_like(theta)
    onehot = np.zeros((len(y), len(HYPOTHESES)))
    onehot[np.arange(len(y)), y] = 1.0
    for t in range(1, steps + 1):
        s = hypothesis_scores(dist, cn, theta)
        p = np.exp(log_softmax(s))
        r = (p - onehot) / len(y)
        grad = np.empty_like(theta)
        grad[0] = (r[:, 0] * (-0.5 * dist[:, 0])).sum()
        grad[1] = (r[:, 1:] * (-0.5 * dist[:, 1:])).sum()
        grad[2] = r[:, 0].sum()
        grad[3:] = cn.T @ r[:, 0]
        grad += l2 * theta
        m1 = 0.9 * m1 + 0.1 * grad
        m2 = 0.999 * m2 + 0.001 * grad * grad
        theta -= rate * (m1 / (1 - 0.9**t)) / (np.sqrt(m2 / (1 - 0.999**t)) + 1e-8)
    beta = theta[3:] / sd
    return np.asarray(np.r_[theta[0], theta[1], theta[2] - float(mu @ beta), beta])


def fit_locate_means(
    data: list[tuple[Any, list[str | None], FloatArray]], ctx: ReadContext
) -> dict[str, dict[str, list[float]]]:
    """Class means of the locating features (``classify.fit_features``) on labelled photos
    (image, space labels, its ``photo_homography``), sampled as the reader samples them
    (tone-mapped, registered): per player colour for the plastic, per printed colour for the
    free spaces. The scales and the cap stay as they are in ``vision.json``."""
    plastic: dict[str, list[FloatArray]] = {c: [] for c in PLAYER_COLORS}
    printed: dict[str, list[FloatArray]] = {}
    for image, labels, h in data:
        samples = take_samples(image, h, ctx, ctx.fit_grids, lab=False)
        feats = fit_features(samples.spaces)
        for i, lab in enumerate(labels):
            if lab == UNKNOWN:
                continue
            if lab is None:
                printed.setdefault(ctx.printed_colors[i], []).append(feats[i])
            else:
                plastic[lab].append(feats[i])
    old = ctx.fit_model

    def means(rows: dict[str, list[FloatArray]], prior: dict[str, FloatArray]) -> Any:
        return {
            c: [round(float(v), 3) for v in (np.mean(rows[c], axis=0) if rows.get(c) else mu)]
            for c, mu in sorted(prior.items())
        }

    return {"plastic": means(plastic, old.plastic), "printed": means(printed, old.printed)}


def station_rows(
    photos: list[LabelledPhoto],
    images: list[Any],
    ctx: ReadContext,
    homographies: list[FloatArray | None] | None = None,
) -> list[tuple[FloatArray, str | None]]:
    """Every labelled city of the photos: its shares of each player colour (as the reader
    measures them, in the light adapted on that photo's trains) and its label.
    ``homographies``: the photos' ``photo_homography`` when already known."""
    rows: list[tuple[FloatArray, str | None]] = []
    hs = homographies or [None] * len(images)
    for ph, image, h in zip(photos, images, hs, strict=True):
        if ph.station_labels is None:
            continue
        samples = photo_samples(image, ctx, h)
        _, res = read_samples(samples, ctx)
        assert samples.cities_lab is not None
        frac = station_fractions_lab8(samples.cities_lab, res.model, ctx.cfg, ctx.city_mask)
        rows.extend((frac[i], lab) for i, lab in enumerate(ph.station_labels) if lab != UNKNOWN)
    return rows


def fit_station_thresholds(
    rows: list[tuple[FloatArray, str | None]], prior: dict[str, float]
) -> dict[str, float]:
    """Per player colour, the share of a city's ground in that colour that makes a station:
    the geometric mean of the weakest station of that colour and the strongest city without
    a station (the prior's value for a colour with no station among ``rows``)."""
    out: dict[str, float] = {}
    for k, c in enumerate(PLAYER_COLORS):
        pos = [f[k] for f, lab in rows if lab == c]
        neg = [f[k] for f, lab in rows if lab is None]
        if not pos or not neg:
            out[c] = prior[c]
            continue
        weakest, strongest = min(pos), max(neg)
        out[c] = round(float(np.sqrt(max(weakest, 1e-4) * max(strongest, 1e-4))), 4)
    return out


def stations_held_out(
    rows: list[tuple[FloatArray, str | None]], ctx: ReadContext
) -> tuple[int, int, list[int]]:
    """Leave one city out: every labelled city decided with thresholds fitted on all the
    others. Returns (right, total, the rows decided wrong)."""
    prior = {c: float(v) for c, v in ctx.cfg["stations"]["min_fraction"].items()}
    right, wrong = 0, []
    for i, (frac, lab) in enumerate(rows):
        th = fit_station_thresholds(rows[:i] + rows[i + 1 :], prior)
        cfg = {"stations": {**ctx.cfg["stations"], "min_fraction": th}}
        got, _ = decide_stations(frac[None, :], cfg)
        if got[0] == lab:
            right += 1
        else:
            wrong.append(i)
    return right, len(rows), wrong


def photo_features(samples: Samples, ctx: ReadContext) -> SpaceFeatures:
    return space_features(
        samples.spaces, ctx.layout, ctx.windows, ctx.info.tunnel, ctx.info.lane_side
    )


def main(argv: list[str] | None = None) -> int:
    import cv2

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("photos", type=Path)
    parser.add_argument("--write", action="store_true", help="write the model into vision.json")
    args = parser.parse_args(argv)
    ctx = make_context()
    every = labelled_photos(args.photos, ctx)
    all_images = {ph.name: cv2.imread(str(ph.path)) for ph in every}
    # registered once per photo (it reads raw grey samples: the tone reference cannot move it)
    where = {ph.name: photo_homography(all_images[ph.name], ctx) for ph in every}
    photos = [ph for ph in every if ph.space_labels is not None]
    images = [all_images[ph.name] for ph in photos]
    hs = [where[ph.name] for ph in photos]
    reference = tone_reference(images, ctx, hs)
    ctx = with_tone_reference(ctx, reference)
    data: list[tuple[SpaceFeatures, list[str | None]]] = []
    for ph, image, h in zip(photos, images, hs, strict=True):
        assert ph.space_labels is not None
        feats = photo_features(photo_samples(image, ctx, h), ctx)
        data.append((feats, ph.space_labels))
        print(f"{ph.name}: {feats.printed.shape[0]} spaces")
    model = fit_space_model(data, ctx)
    locate_means = fit_locate_means(
        [
            (image, ph.space_labels or [], h)
            for ph, image, h in zip(photos, images, hs, strict=True)
        ],
        ctx,
    )
    cfg_model = dict(ctx.cfg["space_model"])
    cfg_model.update(model_to_config(model))
    fitted = replace(ctx, model=model)
    rows = station_rows(
        every, [all_images[ph.name] for ph in every], fitted, [where[ph.name] for ph in every]
    )
    prior = {c: float(v) for c, v in ctx.cfg["stations"]["min_fraction"].items()}
    thresholds = fit_station_thresholds(rows, prior)
    print("station thresholds by the rule (vision.json keeps its own):", thresholds)
    if args.write:
        path = ROOT / "companion" / "data" / "vision.json"
        cfg = json.loads(path.read_text(encoding="utf-8"))
        cfg["space_model"] = cfg_model
        cfg["locate"]["model"].update(locate_means)
        cfg["sampling"]["tone_reference"] = [
            [round(float(v), 2) for v in row] for row in reference.T
        ]
        path.write_text(json.dumps(cfg, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {path}")
    else:
        print("tone_reference (B, G, R rows):", reference.T.round(2).tolist())
        print(json.dumps(cfg_model, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


@dataclass
class Accuracy:
    spaces_right: int = 0
    spaces_total: int = 0
    routes_right: int = 0
    routes_total: int = 0
    stations_right: int = 0
    stations_total: int = 0

    def add(self, other: Accuracy) -> None:
        for k in vars(self):
            setattr(self, k, getattr(self, k) + getattr(other, k))

    @staticmethod
    def pct(a: int, b: int) -> str:
        return f"{100.0 * a / b:6.2f}% ({a}/{b})" if b else "     -"

    def row(self) -> str:
        return (
            f"spaces {self.pct(self.spaces_right, self.spaces_total)}  "
            f"routes {self.pct(self.routes_right, self.routes_total)}  "
            f"stations {self.pct(self.stations_right, self.stations_total)}"
        )


def _judged(what: str, read: Any, label: Any, wrong: list[str]) -> int:
    """1 where ``what`` was read as its label; else 0, and the mistake noted in ``wrong``."""
    if read == label:
        return 1
    wrong.append(f"{what}: read {read}, label {label}")
    return 0


def score_reading(
    reading: Any, photo: LabelledPhoto, ctx: ReadContext
) -> tuple[Accuracy, list[str]]:
    """Compare a BoardReading with a photo's labels; returns the tally and the mistakes."""
    acc = Accuracy()
    wrong: list[str] = []
    g = ctx.geometry
    if photo.space_labels is not None:
        labels = photo.space_labels
        for rid, sl in ctx.route_slices.items():
            truth = labels[sl]
            if any(t == UNKNOWN for t in truth):
                continue
            got = reading.spaces[rid]
            for t, s in zip(truth, got, strict=True):
                acc.spaces_total += 1
                acc.spaces_right += int(t == s)
            owners = {t for t in truth}
            owner = truth[0] if len(owners) == 1 else UNKNOWN
            if owner == UNKNOWN:
                continue
            acc.routes_total += 1
            acc.routes_right += _judged(f"route {rid}", reading.routes[rid], owner, wrong)
    if photo.station_labels is not None:
        for cid, t in zip(g.city_ids, photo.station_labels, strict=True):
            if t == UNKNOWN:
                continue
            acc.stations_total += 1
            acc.stations_right += _judged(f"station {cid}", reading.stations[cid], t, wrong)
    return acc, wrong
