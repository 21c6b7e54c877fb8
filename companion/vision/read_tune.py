"""Tune the reader's numbers on labelled photos (development tool, never needed at run time).

The labelled photos are not part of the project (see ../shared/photos/README.md); this module
only reads them from a folder given on the command line and writes *numbers* (class means and
scales) into ``companion/data/vision.json``::

    .venv/bin/python -m companion.vision.read_tune ../shared/photos --write
"""

from __future__ import annotations

import argparse
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from companion.vision.classify import (
    FEATURES,
    FloatArray,
    SpaceModel,
    model_to_config,
    space_features,
)
from companion.vision.geometry import corners_homography
from companion.vision.read import ReadContext, Samples, make_context, take_samples
from companion.vision.types import PLAYER_COLORS

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


def photo_samples(image: Any, ctx: ReadContext, h: FloatArray | None = None) -> Samples:
    return take_samples(image, full_frame_homography(image.shape) if h is None else h, ctx)


def fit_space_model(
    data: list[tuple[FloatArray, list[str | None]]],
    printed: list[str],
    cfg: dict[str, Any],
) -> SpaceModel:
    """Class means over all labelled spaces and one pooled scale per feature (with floors)."""
    feats = np.concatenate([f for f, _ in data])
    labels = [lab for _, labs in data for lab in labs]
    pcs = [p for _ in data for p in printed]
    groups: dict[str, list[int]] = {}
    for i, (lab, pc) in enumerate(zip(labels, pcs, strict=True)):
        if lab == UNKNOWN:
            continue
        key = f"T:{lab}" if lab is not None else f"P:{pc}"
        groups.setdefault(key, []).append(i)
    means = {k: feats[v].mean(axis=0) for k, v in groups.items()}
    var = [feats[v].var(axis=0) for v in groups.values() if len(v) >= 3]
    m = cfg["space_model"]
    floor = np.array(m["scale_floor"], dtype=np.float64)
    scale = np.maximum(np.sqrt(np.mean(var, axis=0)), floor)
    prior = cfg["space_model"]
    plastic = {
        c: means.get(f"T:{c}", np.array(prior["plastic"][c], dtype=np.float64))
        for c in PLAYER_COLORS
    }
    printed_colors = sorted(set(printed))
    printed_means = {
        c: means.get(f"P:{c}", np.array(prior["printed"][c], dtype=np.float64))
        for c in printed_colors
    }
    return SpaceModel(
        plastic=plastic,
        printed=printed_means,
        scale=scale,
        clip=float(m["clip"]),
        em_rounds=int(m["em_rounds"]),
        em_prior_weight=float(m["em_prior_weight"]),
        route_temperature=float(m["route_temperature"]),
    )


def main(argv: list[str] | None = None) -> int:
    import cv2

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("photos", type=Path)
    parser.add_argument("--write", action="store_true", help="write the model into vision.json")
    args = parser.parse_args(argv)
    ctx = make_context()
    data: list[tuple[FloatArray, list[str | None]]] = []
    for ph in labelled_photos(args.photos, ctx):
        if ph.space_labels is None:
            continue
        image = cv2.imread(str(ph.path))
        feats = space_features(photo_samples(image, ctx).spaces)
        data.append((feats, ph.space_labels))
        print(f"{ph.name}: {feats.shape[0]} spaces")
    model = fit_space_model(data, ctx.printed_colors, ctx.cfg)
    cfg_model = dict(ctx.cfg["space_model"])
    cfg_model.update(model_to_config(model))
    assert tuple(cfg_model["features"]) == FEATURES
    if args.write:
        path = Path(__file__).resolve().parents[1] / "data" / "vision.json"
        cfg = json.loads(path.read_text(encoding="utf-8"))
        cfg["space_model"] = cfg_model
        path.write_text(json.dumps(cfg, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {path}")
    else:
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
            if reading.routes[rid] == owner:
                acc.routes_right += 1
            else:
                wrong.append(f"route {rid}: read {reading.routes[rid]}, label {owner}")
    if photo.station_labels is not None:
        for cid, t in zip(g.city_ids, photo.station_labels, strict=True):
            if t == UNKNOWN:
                continue
            acc.stations_total += 1
            if reading.stations[cid] == t:
                acc.stations_right += 1
            else:
                wrong.append(f"station {cid}: read {reading.stations[cid]}, label {t}")
    return acc, wrong
