"""Stations: is there a plastic station on a city spot, and of which colour?

A city spot is printed as an orange-brown dot on pale paper. A station is a small plastic piece of
a player colour, often set beside the dot rather than on it: the ground around the city (twice the
spot's size) is looked at, leaving out the train spaces that end there (trains are not stations).
The colours of the five plastics are taken from the picture itself (the means the space
classifier adapted on this picture's trains), so stations are judged in the same light.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from companion.vision.decide.classify import LAB_L, BoolArray, FloatArray, SpaceModel, U8Array, lab8
from companion.vision.types import PLAYER_COLORS


def station_fractions(
    cities: U8Array, model: SpaceModel, cfg: dict[str, Any], mask: BoolArray | None = None
) -> FloatArray:
    """(n_cities, 5): share of each city patch's pixels (those in ``mask``, off the train
    spaces) that look like each player's plastic (BGR patches (n, k, k, 3))."""
    return station_fractions_lab8(lab8(cities), model, cfg, mask)


def station_fractions_lab8(
    lab: U8Array, model: SpaceModel, cfg: dict[str, Any], mask: BoolArray | None = None
) -> FloatArray:
    """``station_fractions`` of city patches given as OpenCV 8-bit Lab."""
    sc = cfg["stations"]
    n = lab.shape[0]
    per = int(np.prod(lab.shape[1:-1]))
    keep = np.ones((n, per), dtype=bool) if mask is None else mask
    idx = np.flatnonzero(keep)  # only the pixels looked at
    city = idx // per
    chans = np.ascontiguousarray(lab.reshape(-1, 3).T)[:, idx].astype(np.float32)  # (3, m)
    inv = 1.0 / np.array(sc["pixel_scale"], dtype=np.float64)
    # z = (Lab - mu) / scale, with Lab = code * [LAB_L, 1, 1] - [0, 128, 128]
    mul = np.array([LAB_L, 1.0, 1.0]) * inv
    k = len(PLAYER_COLORS)
    m = chans.shape[1]
    d2 = np.empty(m, dtype=np.float32)
    z = np.empty(m, dtype=np.float32)
    # the nearest plastic and its distance, colour by colour (the first of equals: as
    # ``np.argmin`` over the colours, without its slow pass across them)
    nearest = np.zeros(m, dtype=np.intp)
    least = np.empty(m, dtype=np.float32)
    for i, c in enumerate(PLAYER_COLORS):
        mu = model.plastic[c][:3]
        off = (mu + np.array([0.0, 128.0, 128.0])) * inv  # in scaled code units
        d2[:] = 0.0
        for ch in range(3):
            np.multiply(chans[ch], np.float32(mul[ch]), out=z)
            z -= np.float32(off[ch])
            np.square(z, out=z)
            d2 += z
        if i == 0:
            least[:] = d2
            continue
        nearest[d2 < least] = i
        np.minimum(least, d2, out=least)
    close = least < np.float32(float(sc["pixel_radius"]) ** 2)
    code = np.where(close, nearest, k)  # k = near no plastic
    counts = np.bincount(city * (k + 1) + code, minlength=n * (k + 1)).reshape(n, k + 1)
    total = np.maximum(keep.sum(axis=1), 1)
    return np.asarray(counts[:, :k] / total[:, None], dtype=np.float64)


def classify_stations(
    cities: U8Array, model: SpaceModel, cfg: dict[str, Any], mask: BoolArray | None = None
) -> tuple[list[str | None], list[float]]:
    """Station colour (or None) and a 0..1 confidence for every city patch (BGR)."""
    return decide_stations(station_fractions(cities, model, cfg, mask), cfg)


def classify_stations_lab8(
    lab: U8Array, model: SpaceModel, cfg: dict[str, Any], mask: BoolArray | None = None
) -> tuple[list[str | None], list[float]]:
    """``classify_stations`` of city patches given as OpenCV 8-bit Lab."""
    return decide_stations(station_fractions_lab8(lab, model, cfg, mask), cfg)


def decide_stations(frac: FloatArray, cfg: dict[str, Any]) -> tuple[list[str | None], list[float]]:
    """Station colour (or None) and confidence from the per-colour shares (n_cities, 5)."""
    sc = cfg["stations"]
    thresholds = np.array([float(sc["min_fraction"][c]) for c in PLAYER_COLORS])
    ratio = frac / thresholds
    black = PLAYER_COLORS.index("black")
    coloured = np.delete(np.arange(len(PLAYER_COLORS)), black)
    rc = ratio[:, coloured]
    # A station's own shadow is dark: a coloured piece at its threshold beats "black".
    best = np.where(rc.max(axis=1) >= 1.0, coloured[np.argmax(rc, axis=1)], black)
    rows = np.arange(len(ratio))
    best = np.where(ratio[rows, best] < 1.0, np.argmax(ratio, axis=1), best)
    value = ratio[rows, best]
    colours: list[str | None] = [
        PLAYER_COLORS[int(b)] if v >= 1.0 else None for b, v in zip(best, value, strict=True)
    ]
    # Distance from the decision threshold on a log scale -> 0.5..1.
    margin = np.abs(np.log(np.maximum(value, 1e-3)))
    conf = 0.5 + 0.5 * (1 - np.exp(-3 * margin))
    return colours, [float(c) for c in conf]
