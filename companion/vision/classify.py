"""Classify train spaces and city spots from their sampled patches.

A space is either *printed* (free: it shows the board's printed colour for that route, known
from the map facts) or covered by a *plastic* train of one of the five player colours. Each
space gets a small feature vector (colour in Lab, shading, texture, contrast with its rim);
classes are prototypes in that space with one shared scale per feature (numbers tuned on photos,
kept in ``companion/data/vision.json``). A free red route is therefore judged against "printed
red" and a red train against "plastic red": their colours are close, but plastic is lighter,
shaded and highlighted, and hides the printed rim and symbol.

Every picture is lit differently, so the prototypes are adapted to the picture itself (a few
rounds of expectation-maximisation): routes read with confidence lend their spaces to re-estimate
each class's mean, shrunk towards the tuned prior. Route owners come from a vote over all of a
route's spaces (a route is always claimed whole).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.types import PLAYER_COLORS

FloatArray = npt.NDArray[np.float64]
U8Array = npt.NDArray[np.uint8]

FEATURES: tuple[str, ...] = (
    "L",
    "a",
    "b",
    "L_p20",
    "L_p90",
    "L_std",
    "chroma",
    "grad_along",
    "grad_across",
    "rim_minus_core",
)
# Hypotheses for a space: index 0 = free (printed), 1..5 = a train of PLAYER_COLORS[i - 1].
HYPOTHESES: tuple[str | None, ...] = (None, *PLAYER_COLORS)


@dataclass(frozen=True)
class SpaceModel:
    plastic: dict[str, FloatArray]  # player colour -> feature means
    printed: dict[str, FloatArray]  # printed route colour -> feature means
    scale: FloatArray  # shared per-feature scale
    clip: float  # cap on one feature's squared z (robustness to outliers)
    em_rounds: int
    em_prior_weight: float
    route_temperature: float


@cache
def load_vision_config() -> dict[str, Any]:
    """``companion/data/vision.json`` (all thresholds and tuned numbers)."""
    text = resources.files("companion.data").joinpath("vision.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def model_from_config(cfg: dict[str, Any]) -> SpaceModel:
    m = cfg["space_model"]
    names = tuple(m["features"])
    if names != FEATURES:
        raise ValueError("vision.json space_model features do not match this code's features")
    return SpaceModel(
        plastic={k: np.array(v, dtype=np.float64) for k, v in m["plastic"].items()},
        printed={k: np.array(v, dtype=np.float64) for k, v in m["printed"].items()},
        scale=np.array(m["scale"], dtype=np.float64),
        clip=float(m["clip"]),
        em_rounds=int(m["em_rounds"]),
        em_prior_weight=float(m["em_prior_weight"]),
        route_temperature=float(m["route_temperature"]),
    )


def model_to_config(model: SpaceModel) -> dict[str, Any]:
    def r(a: FloatArray) -> list[float]:
        return [round(float(x), 3) for x in a]

    return {
        "features": list(FEATURES),
        "plastic": {k: r(v) for k, v in sorted(model.plastic.items())},
        "printed": {k: r(v) for k, v in sorted(model.printed.items())},
        "scale": r(model.scale),
        "clip": model.clip,
        "em_rounds": model.em_rounds,
        "em_prior_weight": model.em_prior_weight,
        "route_temperature": model.route_temperature,
    }


def to_lab(patches: U8Array) -> FloatArray:
    """BGR uint8 patches (..., 3) -> float Lab (L 0..100, a/b about -128..127)."""
    shape = patches.shape
    flat = patches.reshape(-1, 1, 3).astype(np.float32) / 255.0
    lab = cv2.cvtColor(flat, cv2.COLOR_BGR2LAB)
    return np.asarray(lab, dtype=np.float64).reshape(shape)


def white_balance_gains(board_samples: U8Array, target: float, percentile: float) -> FloatArray:
    """Per-channel gains that bring the board's bright paper to ``target`` (grey world on the
    bright end: the printed map is mostly pale paper and sea whatever is on it)."""
    px = board_samples.reshape(-1, 3).astype(np.float64)
    white = np.percentile(px, percentile, axis=0)
    return np.asarray(target / np.maximum(white, 1.0), dtype=np.float64)


def apply_gains(patches: U8Array, gains: FloatArray) -> U8Array:
    out = np.clip(patches.astype(np.float32) * gains.astype(np.float32), 0, 255)
    return out.astype(np.uint8)


def space_features(patches: U8Array) -> FloatArray:
    """Feature vectors (n, len(FEATURES)) for space patches (n, ny, nx, 3), x along the track."""
    n, ny, nx, _ = patches.shape
    lab = to_lab(patches)
    r0, r1 = round(ny * 0.3), round(ny * 0.7)
    c0, c1 = round(nx * 0.125), round(nx * 0.875)
    core = lab[:, r0:r1, c0:c1]
    m = (r1 - r0) * (c1 - c0)
    big_l = np.sort(core[..., 0].reshape(n, m), axis=1)
    a = core[..., 1].reshape(n, m)
    b = core[..., 2].reshape(n, m)
    chroma = np.sort(np.hypot(a, b), axis=1)
    a = np.sort(a, axis=1)
    b = np.sort(b, axis=1)

    def q(arr: FloatArray, frac: float) -> FloatArray:
        return np.asarray(arr[:, min(m - 1, int(frac * (m - 1) + 0.5))], dtype=np.float64)

    med_l = q(big_l, 0.5)
    grad_along = np.abs(np.diff(lab[:, 1 : ny - 1, :, 0], axis=2)).mean(axis=(1, 2))
    grad_across = np.abs(np.diff(lab[:, :, c0:c1, 0], axis=1)).mean(axis=(1, 2))
    rim = np.concatenate([lab[:, 0, :, 0], lab[:, ny - 1, :, 0]], axis=1).mean(axis=1)
    return np.stack(
        [
            med_l,
            q(a, 0.5),
            q(b, 0.5),
            q(big_l, 0.2),
            q(big_l, 0.9),
            big_l.std(axis=1),
            q(chroma, 0.5),
            grad_along,
            grad_across,
            rim - med_l,
        ],
        axis=1,
    )


def _class_scores(
    feats: FloatArray, printed_colors: list[str], model: SpaceModel
) -> tuple[FloatArray, FloatArray]:
    """Log-likelihood (n, 6) of each hypothesis per space, and the best one's squared distance."""
    n = feats.shape[0]
    scores = np.empty((n, len(HYPOTHESES)))
    dist = np.empty((n, len(HYPOTHESES)))
    printed_means = np.stack([model.printed[c] for c in printed_colors])
    means = [printed_means] + [model.plastic[c][None, :] for c in PLAYER_COLORS]
    for j, mu in enumerate(means):
        z = (feats - mu) / model.scale
        d = np.minimum(z * z, model.clip).sum(axis=1)
        dist[:, j] = d
        scores[:, j] = -0.5 * d
    return scores, dist


@dataclass
class SpaceResult:
    scores: FloatArray  # (n_spaces, 6) log-likelihood per hypothesis (after adaptation)
    best_dist: FloatArray  # (n_spaces,) squared distance of the best hypothesis
    route_owner: dict[str, str | None]
    route_confidence: dict[str, float]
    space_labels: list[str | None]
    model: SpaceModel  # adapted to this picture


def _route_vote(
    scores: FloatArray, route_slices: dict[str, slice], temperature: float
) -> tuple[dict[str, str | None], dict[str, float], dict[str, int]]:
    owner: dict[str, str | None] = {}
    conf: dict[str, float] = {}
    best: dict[str, int] = {}
    for rid, sl in route_slices.items():
        tot = scores[sl].sum(axis=0) / max(1, sl.stop - sl.start)
        logits = tot / temperature
        p = np.exp(logits - logits.max())
        p /= p.sum()
        j = int(np.argmax(p))
        owner[rid] = HYPOTHESES[j]
        conf[rid] = float(p[j])
        best[rid] = j
    return owner, conf, best


def classify_spaces(
    feats: FloatArray,
    printed_colors: list[str],
    route_slices: dict[str, slice],
    model: SpaceModel,
    adapt: bool = True,
) -> SpaceResult:
    """Score every space, adapt the prototypes to this picture, vote per route."""
    current = model
    rounds = model.em_rounds if adapt else 0
    printed_arr = np.array(printed_colors)
    for _ in range(rounds + 1):
        scores, dist = _class_scores(feats, printed_colors, current)
        owner, conf, best = _route_vote(scores, route_slices, current.route_temperature)
        if rounds == 0:
            break
        rounds -= 1
        hyp = np.zeros(feats.shape[0], dtype=np.int64)
        confident = np.zeros(feats.shape[0], dtype=bool)
        for rid, sl in route_slices.items():
            hyp[sl] = best[rid]
            confident[sl] = conf[rid] > 0.6
        k = model.em_prior_weight

        def shrink(prior: FloatArray, sel: npt.NDArray[np.bool_], k: float = k) -> FloatArray:
            cnt = int(sel.sum())
            if cnt == 0:
                return prior
            return np.asarray((feats[sel].sum(axis=0) + k * prior) / (cnt + k), dtype=np.float64)

        plastic = {
            c: shrink(model.plastic[c], confident & (hyp == i + 1))
            for i, c in enumerate(PLAYER_COLORS)
        }
        printed = {
            c: shrink(model.printed[c], confident & (hyp == 0) & (printed_arr == c))
            for c in model.printed
        }
        current = SpaceModel(
            plastic=plastic,
            printed=printed,
            scale=model.scale,
            clip=model.clip,
            em_rounds=model.em_rounds,
            em_prior_weight=model.em_prior_weight,
            route_temperature=model.route_temperature,
        )
    labels = [HYPOTHESES[int(j)] for j in np.argmax(scores, axis=1)]
    return SpaceResult(
        scores=scores,
        best_dist=dist.min(axis=1),
        route_owner=owner,
        route_confidence=conf,
        space_labels=labels,
        model=current,
    )
