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

from companion.vision.classify import BoolArray, FloatArray, SpaceModel, U8Array, to_lab
from companion.vision.types import PLAYER_COLORS


def station_fractions(
    cities: U8Array, model: SpaceModel, cfg: dict[str, Any], mask: BoolArray | None = None
) -> FloatArray:
    """(n_cities, 5): share of each city patch's pixels (those in ``mask``, off the train
    spaces) that look like each player's plastic."""
    sc = cfg["stations"]
    scale = np.array(sc["pixel_scale"], dtype=np.float64)  # L, a, b
    radius2 = float(sc["pixel_radius"]) ** 2
    lab = to_lab(cities).reshape(cities.shape[0], -1, 3)
    d2 = np.empty((lab.shape[0], lab.shape[1], len(PLAYER_COLORS)))
    for i, c in enumerate(PLAYER_COLORS):
        mu = model.plastic[c][:3]
        z = (lab - mu) / scale
        d2[..., i] = (z * z).sum(axis=-1)
    nearest = np.argmin(d2, axis=-1)
    close = np.min(d2, axis=-1) < radius2
    keep = np.ones(nearest.shape, dtype=bool) if mask is None else mask
    count = np.maximum(keep.sum(axis=1), 1)
    out = np.empty((lab.shape[0], len(PLAYER_COLORS)))
    for i in range(len(PLAYER_COLORS)):
        out[:, i] = ((nearest == i) & close & keep).sum(axis=1) / count
    return out


def classify_stations(
    cities: U8Array, model: SpaceModel, cfg: dict[str, Any], mask: BoolArray | None = None
) -> tuple[list[str | None], list[float]]:
    """Station colour (or None) and a 0..1 confidence for every city patch."""
    sc = cfg["stations"]
    frac = station_fractions(cities, model, cfg, mask)
    thresholds = np.array([float(sc["min_fraction"][c]) for c in PLAYER_COLORS])
    ratio = frac / thresholds
    black = PLAYER_COLORS.index("black")
    colours: list[str | None] = []
    conf: list[float] = []
    for i in range(frac.shape[0]):
        r = ratio[i].copy()
        coloured = np.delete(np.arange(len(PLAYER_COLORS)), black)
        # A station's own shadow is dark: a coloured piece at its threshold beats "black".
        best = int(coloured[np.argmax(r[coloured])]) if r[coloured].max() >= 1.0 else black
        if r[best] < 1.0:
            best = int(np.argmax(r))
        value = float(r[best])
        colours.append(PLAYER_COLORS[best] if value >= 1.0 else None)
        # Distance from the decision threshold on a log scale -> 0.5..1.
        margin = abs(np.log(max(value, 1e-3)))
        conf.append(float(0.5 + 0.5 * (1 - np.exp(-3 * margin))))
    return colours, conf
