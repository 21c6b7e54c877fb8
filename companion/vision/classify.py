"""Classify train spaces from their sampled patches and decide every route's owner.

A space is either *printed* (free: it shows the board's printed colour for that route, known from
the map facts) or covered by a *plastic* train of one of the five player colours.

Each space is sampled as a patch twice as wide and 1.5 times as long as its printed box (x along
the track, y across it), so that a train sitting crooked or off its space is still seen:

* plastic hypotheses: a train-sized window is slid along and across the patch (a small
  neighbourhood; on a double route only a little towards the other lane, since a piece cannot
  sit on its neighbour) and the best match with each player's plastic colour is kept;
* the printed hypothesis: the box's core, at its nominal place, against the printed colour of
  that route (a tunnel's core is taken narrower, inside its thick black border), plus a few
  colour-free cues of print against plastic: the printed outline at the box's ends, the
  symmetry of the across profile (a plastic piece is lit on one side and shaded on the other)
  and thin dark lines inside (print and paper grain).

The per-hypothesis scores are a conditional logit with a handful of coefficients (fitted by
``read_tune`` with leave-one-photo-out checks; numbers only, in ``data/vision.json``). The class
means are adapted to each picture (a few rounds of expectation-maximisation on the routes read
with confidence). Routes are decided whole (a route is always claimed whole): the sum of their
spaces' log-probabilities; the two lanes of a double route are decided together and never go to
the same player.

The older, simpler per-space features (``fit_features``) are what locating uses to check a
candidate board outline: cheap and tolerant of a rough homography.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.types import PLAYER_COLORS

FloatArray = npt.NDArray[np.float64]
U8Array = npt.NDArray[np.uint8]
BoolArray = npt.NDArray[np.bool_]

# Hypotheses for a space: index 0 = free (printed), 1..5 = a train of PLAYER_COLORS[i - 1].
HYPOTHESES: tuple[str | None, ...] = (None, *PLAYER_COLORS)


@cache
def load_vision_config() -> dict[str, Any]:
    """``companion/data/vision.json`` (all thresholds and tuned numbers)."""
    text = resources.files("companion.data").joinpath("vision.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def to_lab(patches: U8Array, exact: bool = False) -> FloatArray:
    """BGR uint8 patches (..., 3) -> float Lab (L 0..100, a/b about -128..127).

    By default through OpenCV's 8-bit conversion (fast; steps of 0.4 in L, 1 in a and b);
    ``exact`` converts in floating point."""
    shape = patches.shape
    if exact:
        lab_f = cv2.cvtColor(
            patches.reshape(-1, 1, 3).astype(np.float32) / 255.0, cv2.COLOR_BGR2LAB
        )
        return np.asarray(lab_f, dtype=np.float64).reshape(shape)
    flat = np.ascontiguousarray(patches.reshape(-1, 1, 3), dtype=np.uint8)
    lab8 = np.asarray(cv2.cvtColor(flat, cv2.COLOR_BGR2LAB), dtype=np.float32).reshape(-1, 3)
    lab = np.empty(lab8.shape, dtype=np.float64)
    lab[:, 0] = lab8[:, 0] * (100.0 / 255.0)
    lab[:, 1:] = lab8[:, 1:] - 128.0
    return lab.reshape(shape)


def white_balance_gains(board_samples: U8Array, target: float, percentile: float) -> FloatArray:
    """Per-channel gains that bring the board's bright paper to ``target`` (grey world on the
    bright end: the printed map is mostly pale paper and sea whatever is on it)."""
    px = board_samples.reshape(-1, 3).astype(np.float64)
    white = np.percentile(px, percentile, axis=0)
    return np.asarray(target / np.maximum(white, 1.0), dtype=np.float64)


def apply_gains(patches: U8Array, gains: FloatArray) -> U8Array:
    out = np.clip(patches.astype(np.float32) * gains.astype(np.float32), 0, 255)
    return out.astype(np.uint8)


# --------------------------------------------------------------------------------------------
# Locating: the board-fit features (one small patch per space at its nominal place).

FIT_FEATURES: tuple[str, ...] = (
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


@dataclass(frozen=True)
class FitModel:
    """Class means of the board-fit features (locating only)."""

    plastic: dict[str, FloatArray]
    printed: dict[str, FloatArray]
    scale: FloatArray
    clip: float


def fit_model_from_config(cfg: dict[str, Any]) -> FitModel:
    m = cfg["locate"]["model"]
    if tuple(m["features"]) != FIT_FEATURES:
        raise ValueError("vision.json locate.model features do not match this code's features")
    return FitModel(
        plastic={k: np.array(v, dtype=np.float64) for k, v in m["plastic"].items()},
        printed={k: np.array(v, dtype=np.float64) for k, v in m["printed"].items()},
        scale=np.array(m["scale"], dtype=np.float64),
        clip=float(m["clip"]),
    )


def fit_features(patches: U8Array) -> FloatArray:
    """Board-fit feature vectors (n, len(FIT_FEATURES)) for patches (n, ny, nx, 3)."""
    n, ny, nx, _ = patches.shape
    lab = to_lab(patches, exact=True)
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


def fit_distances(feats: FloatArray, printed_colors: list[str], model: FitModel) -> FloatArray:
    """Squared capped distance (n, 6) of every space to each hypothesis (locating)."""
    n = feats.shape[0]
    dist = np.empty((n, len(HYPOTHESES)))
    printed_means = np.stack([model.printed[c] for c in printed_colors])
    means = [printed_means] + [model.plastic[c][None, :] for c in PLAYER_COLORS]
    for j, mu in enumerate(means):
        z = (feats - mu) / model.scale
        dist[:, j] = np.minimum(z * z, model.clip).sum(axis=1)
    return dist


# --------------------------------------------------------------------------------------------
# Reading: shift-tolerant windows, printed core, colour-free print cues.

COLOUR_FEATURES: tuple[str, ...] = ("L", "a", "b", "L_std")
CUE_FEATURES: tuple[str, ...] = ("end_outline", "asymmetry", "dark_lines")


@dataclass(frozen=True)
class PatchLayout:
    """Where things are in a space patch of ``ny`` x ``nx`` samples covering ``scale_len`` times
    the box's length and ``scale_wid`` times its width (the box is centred)."""

    nx: int
    ny: int
    scale_len: float
    scale_wid: float

    def x(self, frac: float) -> int:
        """Column of a point ``frac`` box-lengths from the box's centre."""
        return round(self.nx / 2 + frac * self.nx / self.scale_len)

    def y(self, frac: float) -> int:
        """Row of a point ``frac`` box-widths from the box's centre."""
        return round(self.ny / 2 + frac * self.ny / self.scale_wid)


@dataclass(frozen=True)
class WindowSet:
    """Train-sized windows slid over the patch: offsets in box lengths (along) and widths."""

    x0: npt.NDArray[np.int64]
    y0: npt.NDArray[np.int64]
    wl: int
    ww: int
    along: FloatArray  # offset along, in box lengths
    across: FloatArray  # offset across, in box widths


def make_windows(layout: PatchLayout, cfg: dict[str, Any]) -> WindowSet:
    w = cfg["windows"]
    wl = max(2, round(float(w["length"]) * layout.nx / layout.scale_len))
    ww = max(2, round(float(w["width"]) * layout.ny / layout.scale_wid))
    step_x = layout.nx / layout.scale_len  # samples per box length
    step_y = layout.ny / layout.scale_wid
    along = np.array([float(v) for v in w["along"]], dtype=np.float64)
    across = np.array([float(v) for v in w["across"]], dtype=np.float64)
    grid_a, grid_c = np.meshgrid(along, across, indexing="ij")
    aa: FloatArray = np.asarray(grid_a.ravel(), dtype=np.float64)
    cc: FloatArray = np.asarray(grid_c.ravel(), dtype=np.float64)
    x0 = np.round(layout.nx / 2 + aa * step_x - wl / 2).astype(np.int64)
    y0 = np.round(layout.ny / 2 + cc * step_y - ww / 2).astype(np.int64)
    x0 = np.clip(x0, 0, layout.nx - wl)
    y0 = np.clip(y0, 0, layout.ny - ww)
    return WindowSet(x0=x0, y0=y0, wl=wl, ww=ww, along=aa, across=cc)


@dataclass
class SpaceFeatures:
    windows: FloatArray  # (n, n_windows, 4): L, a, b, L_std of every window
    printed: FloatArray  # (n, 4): L, a, b (medians) and L_std of the box's core
    cues: FloatArray  # (n, len(CUE_FEATURES)) colour-free cues of print against plastic


def space_features(
    patches: U8Array, layout: PatchLayout, windows: WindowSet, tunnel: BoolArray
) -> SpaceFeatures:
    """Features of every space patch (n, ny, nx, 3) (x along the track, y across)."""
    lab = to_lab(patches)
    n = lab.shape[0]
    big_l = lab[..., 0]
    # Windows: box sums from an integral image of L, a, b and L^2.
    chans = np.concatenate([lab, (big_l * big_l)[..., None]], axis=-1).astype(np.float32)
    integral = np.zeros((n, layout.ny + 1, layout.nx + 1, 4), dtype=np.float32)
    np.cumsum(chans, axis=1, out=chans)
    np.cumsum(chans, axis=2, out=integral[:, 1:, 1:])
    x0, y0, x1, y1 = windows.x0, windows.y0, windows.x0 + windows.wl, windows.y0 + windows.ww
    sums = integral[:, y1, x1] - integral[:, y0, x1] - integral[:, y1, x0] + integral[:, y0, x0]
    mean = sums.astype(np.float64) / float(windows.wl * windows.ww)
    std = np.sqrt(np.maximum(mean[..., 3] - mean[..., 0] ** 2, 0.0))
    win = np.concatenate([mean[..., :3], std[..., None]], axis=-1)
    # Printed core at the nominal place (narrower inside a tunnel's black border).
    lo = layout

    def core_stats(ya: float, yb: float, xa: float, xb: float) -> FloatArray:
        core = lab[:, lo.y(ya) : lo.y(yb), lo.x(xa) : lo.x(xb)].reshape(n, -1, 3)
        return np.concatenate([np.median(core, axis=1), core[..., 0].std(axis=1)[:, None]], 1)

    printed = core_stats(-0.3, 0.3, -0.35, 0.35)
    if tunnel.any():
        printed[tunnel] = core_stats(-0.2, 0.2, -0.3, 0.3)[tunnel]
    # Colour-free cues.
    xa, xb = lo.x(-0.35), lo.x(0.35)
    rows = big_l[:, :, xa:xb].mean(axis=2)  # across profile
    cols = big_l[:, lo.y(-0.2) : lo.y(0.2), :].mean(axis=1)  # along profile

    def outline(prof: FloatArray, at: float, inward: int, to: Any) -> FloatArray:
        e = to(at)
        edge = prof[:, e - 1 : e + 2].min(axis=1)
        inside = prof[:, e + inward * 2 : e + inward * 4 : inward].mean(axis=1)
        outside = prof[:, e - inward * 4 : e - inward * 2 : inward].mean(axis=1)
        return np.asarray(np.minimum(inside, outside) - edge, dtype=np.float64)

    end_outline = np.minimum(outline(cols, -0.5, 1, lo.x), outline(cols, 0.5, -1, lo.x))
    c = lo.y(0.0)
    half = lo.y(0.5) - c
    top = rows[:, c - half : c]
    bottom = rows[:, c + half - 1 : c - 1 : -1] if c > 0 else rows[:, c + half - 1 :: -1]
    asymmetry = np.abs(top - bottom[:, : top.shape[1]]).mean(axis=1)
    inner = big_l[:, :, xa:xb]
    d2 = inner[:, :-2] + inner[:, 2:] - 2 * inner[:, 1:-1]
    dark_lines = np.maximum(d2[:, lo.y(-0.4) - 1 : lo.y(0.4) - 1], 0).mean(axis=(1, 2))
    cues = np.stack([end_outline, asymmetry, dark_lines], axis=1)
    return SpaceFeatures(windows=win, printed=printed, cues=cues)


@dataclass(frozen=True)
class SpaceModel:
    """The reader's numbers (``vision.json`` section ``space_model``)."""

    plastic: dict[str, FloatArray]  # player colour -> L, a, b, L_std of a train window
    printed: dict[str, FloatArray]  # printed route colour -> L, a, b, L_std of the core
    scale: FloatArray  # shared per-feature scale of the colour features
    clip: float  # cap on one feature's squared z (robustness to outliers)
    shift_penalty: float  # added distance for a window one full step away (both axes)
    toward_lane: float  # how far (box widths) a window may go towards the other lane
    coef: FloatArray  # printed weight, plastic weight, printed bias, cue weights
    cue_range: FloatArray  # (n_cues, 2): cues are clipped to this range (robustness)
    em_rounds: int
    em_prior_weight: float
    em_confidence: float
    route_temperature: float


def model_from_config(cfg: dict[str, Any]) -> SpaceModel:
    m = cfg["space_model"]
    if tuple(m["colour_features"]) != COLOUR_FEATURES or tuple(m["cues"]) != CUE_FEATURES:
        raise ValueError("vision.json space_model features do not match this code's features")
    return SpaceModel(
        plastic={k: np.array(v, dtype=np.float64) for k, v in m["plastic"].items()},
        printed={k: np.array(v, dtype=np.float64) for k, v in m["printed"].items()},
        scale=np.array(m["scale"], dtype=np.float64),
        clip=float(m["clip"]),
        shift_penalty=float(m["shift_penalty"]),
        toward_lane=float(m["toward_lane"]),
        coef=np.array(m["coef"], dtype=np.float64),
        cue_range=np.array(m["cue_range"], dtype=np.float64).reshape(len(CUE_FEATURES), 2),
        em_rounds=int(m["em_rounds"]),
        em_prior_weight=float(m["em_prior_weight"]),
        em_confidence=float(m["em_confidence"]),
        route_temperature=float(m["route_temperature"]),
    )


def model_to_config(model: SpaceModel) -> dict[str, Any]:
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
        "cue_range": [r(row) for row in model.cue_range],
        "em_rounds": model.em_rounds,
        "em_prior_weight": model.em_prior_weight,
        "em_confidence": model.em_confidence,
        "route_temperature": model.route_temperature,
    }


@dataclass(frozen=True)
class SpaceLayoutInfo:
    """Per-space facts the classifier needs (built once per geometry)."""

    printed_colors: list[str]
    tunnel: BoolArray  # (n,)
    lane_side: FloatArray  # (n,) +1 / -1: the other lane of a double route is at +y / -y; 0
    route_slices: dict[str, slice]
    lane_pairs: list[tuple[str, str]]


def window_penalty(model: SpaceModel, windows: WindowSet, lane_side: FloatArray) -> FloatArray:
    """(n, n_windows) added distance of each window for each space (inf where not allowed)."""
    amax = max(float(np.abs(windows.along).max()), 1e-6)
    cmax = max(float(np.abs(windows.across).max()), 1e-6)
    pen = model.shift_penalty * ((windows.along / amax) ** 2 + (windows.across / cmax) ** 2)
    toward = windows.across[None, :] * lane_side[:, None]
    allowed = (lane_side[:, None] == 0) | (toward <= model.toward_lane + 1e-9)
    return np.where(allowed, pen[None, :], np.inf)


def distances(
    feats: SpaceFeatures, info: SpaceLayoutInfo, model: SpaceModel, penalty: FloatArray
) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """Squared capped distances (n, 6) to each hypothesis and the best window per colour (n, 5)."""
    n = feats.printed.shape[0]
    dist = np.empty((n, len(HYPOTHESES)))
    mus = np.stack([model.plastic[c] for c in PLAYER_COLORS])  # (5, 4)
    z = (feats.windows[:, None, :, :] - mus[None, :, None, :]) / model.scale  # (n, 5, w, 4)
    d = np.minimum(z * z, model.clip).sum(axis=3) + penalty[:, None, :]
    best = np.asarray(np.argmin(d, axis=2), dtype=np.int64)  # (n, 5)
    dist[:, 1:] = np.take_along_axis(d, best[..., None], axis=2)[..., 0]
    mu = np.stack([model.printed[c] for c in info.printed_colors])
    z = (feats.printed - mu) / model.scale
    dist[:, 0] = np.minimum(z * z, model.clip).sum(axis=1)
    return dist, best


def clip_cues(cues: FloatArray, model: SpaceModel) -> FloatArray:
    return np.asarray(np.clip(cues, model.cue_range[:, 0], model.cue_range[:, 1]))


def hypothesis_scores(dist: FloatArray, cues: FloatArray, coef: FloatArray) -> FloatArray:
    """Conditional-logit scores (n, 6) from distances and cues; ``coef`` = (printed weight,
    plastic weight, printed bias, one weight per cue)."""
    s = -0.5 * dist * np.r_[coef[0], np.full(len(PLAYER_COLORS), coef[1])]
    s[:, 0] += coef[2] + cues @ coef[3:]
    return np.asarray(s, dtype=np.float64)


def log_softmax(s: FloatArray) -> FloatArray:
    m = s.max(axis=1, keepdims=True)
    return np.asarray(s - m - np.log(np.exp(s - m).sum(axis=1, keepdims=True)), dtype=np.float64)


def route_log_probs(
    space_lp: FloatArray, info: SpaceLayoutInfo, temperature: float
) -> dict[str, FloatArray]:
    """Every route's log-probability (6,) of each hypothesis, its spaces voting together."""
    return {rid: space_lp[sl].sum(axis=0) / temperature for rid, sl in info.route_slices.items()}


def decide_routes(
    route_lp: dict[str, FloatArray], info: SpaceLayoutInfo
) -> tuple[dict[str, int], dict[str, float]]:
    """Hypothesis index and 0..1 confidence per route; the lanes of a double route jointly."""
    choice: dict[str, int] = {}
    conf: dict[str, float] = {}
    paired = {r for pair in info.lane_pairs for r in pair}
    for rid, lp in route_lp.items():
        if rid in paired:
            continue
        p = np.exp(lp - lp.max())
        p /= p.sum()
        choice[rid] = int(np.argmax(p))
        conf[rid] = float(p[choice[rid]])
    k = len(HYPOTHESES)
    same = np.eye(k, dtype=bool)
    same[0, 0] = False  # both lanes free is fine; one player on both lanes is not
    for a, b in info.lane_pairs:
        joint = route_lp[a][:, None] + route_lp[b][None, :]
        joint = np.where(same, -np.inf, joint)
        p = np.exp(joint - joint.max())
        p /= p.sum()
        i, j = np.unravel_index(int(np.argmax(p)), p.shape)
        choice[a], choice[b] = int(i), int(j)
        conf[a] = float(p[i, :].sum())
        conf[b] = float(p[:, j].sum())
    return choice, conf


@dataclass
class SpaceResult:
    scores: FloatArray  # (n_spaces, 6) conditional-logit score per hypothesis (after adaptation)
    route_owner: dict[str, str | None]
    route_confidence: dict[str, float]
    space_labels: list[str | None]
    model: SpaceModel  # adapted to this picture


def _adapt(
    feats: SpaceFeatures,
    info: SpaceLayoutInfo,
    prior: SpaceModel,
    current: SpaceModel,
    choice: dict[str, int],
    conf: dict[str, float],
    best: npt.NDArray[np.int64],
) -> SpaceModel:
    """Re-estimate the class means from the routes read with confidence, shrunk to the prior."""
    k = prior.em_prior_weight
    plastic_rows: dict[str, list[FloatArray]] = {c: [] for c in PLAYER_COLORS}
    printed_rows: dict[str, list[FloatArray]] = {}
    for rid, sl in info.route_slices.items():
        if conf[rid] < prior.em_confidence:
            continue
        j = choice[rid]
        for i in range(sl.start, sl.stop):
            if j == 0:
                printed_rows.setdefault(info.printed_colors[i], []).append(feats.printed[i])
            else:
                plastic_rows[PLAYER_COLORS[j - 1]].append(feats.windows[i, best[i, j - 1]])

    def shrink(mu: FloatArray, rows: list[FloatArray]) -> FloatArray:
        if not rows:
            return mu
        return np.asarray((np.sum(rows, axis=0) + k * mu) / (len(rows) + k), dtype=np.float64)

    return replace(
        current,
        plastic={c: shrink(prior.plastic[c], plastic_rows[c]) for c in PLAYER_COLORS},
        printed={c: shrink(mu, printed_rows.get(c, [])) for c, mu in prior.printed.items()},
    )


def classify_spaces(
    feats: SpaceFeatures,
    info: SpaceLayoutInfo,
    model: SpaceModel,
    windows: WindowSet,
    adapt: bool = True,
) -> SpaceResult:
    """Score every space, adapt the class means to this picture, decide every route."""
    penalty = window_penalty(model, windows, info.lane_side)
    cues = clip_cues(feats.cues, model)
    current = model
    rounds = model.em_rounds if adapt else 0
    while True:
        dist, best = distances(feats, info, current, penalty)
        scores = hypothesis_scores(dist, cues, model.coef)
        lp = log_softmax(scores)
        choice, conf = decide_routes(route_log_probs(lp, info, model.route_temperature), info)
        if rounds == 0:
            break
        rounds -= 1
        current = _adapt(feats, info, model, current, choice, conf, best)
    owner = {rid: HYPOTHESES[j] for rid, j in choice.items()}
    labels: list[str | None] = [None] * scores.shape[0]
    for rid, sl in info.route_slices.items():
        for i in range(sl.start, sl.stop):
            labels[i] = owner[rid]
    return SpaceResult(
        scores=scores,
        route_owner=owner,
        route_confidence=conf,
        space_labels=labels,
        model=current,
    )


def space_labels_alone(scores: FloatArray) -> list[str | None]:
    """Each space's own best hypothesis (no route vote): for diagnostics."""
    return [HYPOTHESES[int(j)] for j in np.argmax(scores, axis=1)]
