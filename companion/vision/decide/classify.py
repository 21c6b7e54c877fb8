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
``tools/read_tune.py`` with leave-one-photo-out checks; numbers only, in ``data/vision.json``). The
class means are adapted to each picture (a few rounds of expectation-maximisation on the routes
read with confidence). Routes are decided whole (a route is always claimed whole): the sum of their
spaces' log-probabilities; the two lanes of a double route are decided together and never go to the
same player.

The older, simpler per-space features (``fit_features``) are what locating uses to check a
candidate board outline: cheap and tolerant of a rough homography.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache, cached_property
from importlib import resources
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from companion.vision.decide import adapt as learn
from companion.vision.decide.adapt import plastic_offsets, same_colour_terms, with_print_estimate
from companion.vision.decide.core import CORE, core_stats, lane_asymmetry, lane_core
from companion.vision.decide.own_print import from_reading as learn_own_print
from companion.vision.decide.route_vote import route_votes
from companion.vision.features.integral import feature_major, window_corners, window_stats
from companion.vision.features.relief import own_print_columns, relief_cues, with_relief
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


LAB_L = 100.0 / 255.0  # OpenCV's 8-bit Lab: L is stored as L * 255 / 100, a and b offset by 128


def lab8(patches: U8Array) -> U8Array:
    """BGR uint8 pixels (..., 3) -> OpenCV 8-bit Lab, same shape (one conversion call)."""
    flat = np.ascontiguousarray(patches, dtype=np.uint8).reshape(1, -1, 3)
    out = cv2.cvtColor(flat, cv2.COLOR_BGR2LAB)
    return np.asarray(out, dtype=np.uint8).reshape(patches.shape)


def lab8_to_float(lab: U8Array) -> FloatArray:
    """8-bit Lab (..., 3) -> float Lab (L 0..100, a/b about -128..127)."""
    out = lab.astype(np.float64)
    out[..., 0] *= LAB_L
    out[..., 1:] -= 128.0
    return out


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
    """Board-fit feature vectors (n, len(FIT_FEATURES)) for patches (n, ny, nx, 3).

    Computed on OpenCV's 8-bit Lab codes (steps of 0.4 in L, 1 in a and b: well under the
    features' scales); quantiles are taken on the codes (the conversion is monotone)."""
    n, ny, nx, _ = patches.shape
    lab = lab8(patches)
    r0, r1 = round(ny * 0.3), round(ny * 0.7)
    c0, c1 = round(nx * 0.125), round(nx * 0.875)
    m = (r1 - r0) * (c1 - c0)
    core = np.ascontiguousarray(np.moveaxis(lab[:, r0:r1, c0:c1], 3, 0)).reshape(3, n, m)

    def k(frac: float) -> int:  # index of the quantile ``frac`` in the sorted values
        return int(min(m - 1, int(frac * (m - 1) + 0.5)))

    k20, k50, k90 = k(0.2), k(0.5), k(0.9)
    codes = np.sort(core, axis=2, kind="stable")  # 8-bit codes: a radix sort, fast
    part_l = codes[0]
    part_ab = codes[1:, :, k50].astype(np.float64) - 128.0
    ab = core[1:].astype(np.float32) - np.float32(128.0)
    chroma = np.partition(np.sqrt(ab[0] * ab[0] + ab[1] * ab[1]), k50, axis=1)[:, k50]
    big_l = lab[..., 0].astype(np.int16)
    grad_along = np.abs(np.diff(big_l[:, 1 : ny - 1, :], axis=2)).mean(axis=(1, 2)) * LAB_L
    grad_across = np.abs(np.diff(big_l[:, :, c0:c1], axis=1)).mean(axis=(1, 2)) * LAB_L
    rim = (big_l[:, 0, :].mean(axis=1) + big_l[:, ny - 1, :].mean(axis=1)) / 2.0 * LAB_L
    med_l = part_l[:, k50] * LAB_L
    return np.stack(
        [
            med_l,
            part_ab[0],
            part_ab[1],
            part_l[:, k20] * LAB_L,
            part_l[:, k90] * LAB_L,
            core[0].std(axis=1) * LAB_L,
            chroma.astype(np.float64),
            grad_along,
            grad_across,
            rim - med_l,
        ],
        axis=1,
    )


_FIT_PRINTED: dict[tuple[int, tuple[str, ...]], tuple[FitModel, FloatArray]] = {}


def fit_distances(feats: FloatArray, printed_colors: list[str], model: FitModel) -> FloatArray:
    """Squared capped distance (n, 6) of every space to each hypothesis (locating)."""
    dist = np.empty((feats.shape[0], len(HYPOTHESES)))
    key = (id(model), tuple(printed_colors))
    kept = _FIT_PRINTED.get(key)
    if kept is None or kept[0] is not model:  # the printed means, stacked once per model
        table = {c: i for i, c in enumerate(model.printed)}
        means = np.stack(list(model.printed.values()))
        kept = (model, means[[table[c] for c in printed_colors]])
        if len(_FIT_PRINTED) > 16:
            _FIT_PRINTED.clear()
        _FIT_PRINTED[key] = kept
    z = np.empty_like(feats)
    for j, mu in enumerate([kept[1]] + [model.plastic[c][None, :] for c in PLAYER_COLORS]):
        np.divide(np.subtract(feats, mu, out=z), model.scale, out=z)
        dist[:, j] = np.minimum(np.square(z, out=z), model.clip, out=z).sum(axis=1)
    return dist


# --------------------------------------------------------------------------------------------
# Reading: shift-tolerant windows, printed core, colour-free print cues.

COLOUR_FEATURES: tuple[str, ...] = ("L", "a", "b", "L_std")
CUE_FEATURES: tuple[str, ...] = ("end_outline", "asymmetry", "dark_lines", "highlight")


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
    xs: npt.NDArray[np.int64]  # the distinct first columns (one per offset along)
    ys: npt.NDArray[np.int64]  # the distinct first rows (one per offset across)
    # window k = (along index k // len(ys), across index k % len(ys)): x0 = xs[k // len(ys)]


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
    xs = np.clip(np.round(layout.nx / 2 + along * step_x - wl / 2), 0, layout.nx - wl)
    ys = np.clip(np.round(layout.ny / 2 + across * step_y - ww / 2), 0, layout.ny - ww)
    xi = np.asarray(xs, dtype=np.int64)
    yi = np.asarray(ys, dtype=np.int64)
    x0 = np.asarray(np.repeat(xi, len(yi)), dtype=np.int64)
    y0 = np.asarray(np.tile(yi, len(xi)), dtype=np.int64)
    return WindowSet(x0=x0, y0=y0, wl=wl, ww=ww, along=aa, across=cc, xs=xi, ys=yi)


@dataclass
class SpaceFeatures:
    windows: FloatArray  # (n, n_windows, 4): L, a, b, L_std of every window
    printed: FloatArray  # (n, 4): L, a, b (medians) and L_std of the box's core
    cues: FloatArray  # (n, len(CUE_FEATURES)) colour-free cues of print against plastic
    relief: FloatArray | None = None  # (n, 2) features/relief.py: raised plastic, flat print


def space_features(
    patches: U8Array,
    layout: PatchLayout,
    windows: WindowSet,
    tunnel: BoolArray,
    lane_side: FloatArray | None = None,
) -> SpaceFeatures:
    """Features of every space patch (n, ny, nx, 3) BGR (x along the track, y across)."""
    return space_features_lab8(lab8(patches), layout, windows, tunnel, lane_side)


def space_features_lab8(
    lab: U8Array,
    layout: PatchLayout,
    windows: WindowSet,
    tunnel: BoolArray,
    lane_side: FloatArray | None = None,
) -> SpaceFeatures:
    """Features of every space patch given as OpenCV 8-bit Lab (n, ny, nx, 3); ``lane_side``
    (``SpaceLayoutInfo.lane_side``): the print's core off the other lane's trains (core.py).

    Window and core sums come from integral images of the patches stacked one above the other
    (exact integer sums; a window never crosses its patch's border)."""
    n, ny, nx, _ = lab.shape
    stack = np.ascontiguousarray(lab).reshape(n * ny, nx, 3)
    s_int = cv2.integral(stack, sdepth=cv2.CV_32S)  # (n*ny+1, nx+1, 3)
    big_l8 = np.ascontiguousarray(stack[..., 0])
    # Squares of 8-bit codes are exact in float32, their sums exact in float64.
    sq_int = cv2.integral(np.square(big_l8, dtype=np.float32), sdepth=cv2.CV_64F)
    top = np.arange(n) * ny
    lo = layout

    # Windows: train-sized rectangles slid along and across: mean float Lab and the L standard
    # deviation from the 8-bit sums / area.
    win = window_stats(s_int, sq_int, window_corners(n, ny, nx, windows), windows, LAB_L)

    # Printed core at the nominal place (narrower inside a tunnel's black border; off the other
    # lane's trains where that is more even: core.py): L, a, b, L spread, highlight.
    ints = (s_int, sq_int)
    core = core_stats(lab, ints, top, lo, CORE, slice(None))
    if tunnel.any():
        core[tunnel] = core_stats(lab, ints, top, lo, (-0.2, 0.2, -0.3, 0.3), tunnel)
    core, moved = lane_core(core, lab, ints, top, lo, lane_side, tunnel)
    printed = np.ascontiguousarray(core[:, :4])
    highlight = core[:, 4]
    # Colour-free cues (on float L).
    big_l = np.multiply(big_l8.reshape(n, ny, nx), np.float32(LAB_L), dtype=np.float32)
    xa, xb = lo.x(-0.35), lo.x(0.35)
    rows = big_l[:, :, xa:xb].mean(axis=2, dtype=np.float64)  # across profile
    cols = big_l[:, lo.y(-0.2) : lo.y(0.2), :].mean(axis=1, dtype=np.float64)  # along profile

    def outline(prof: FloatArray, at: float, inward: int, to: Any) -> FloatArray:
        e = to(at)
        edge = prof[:, e - 1 : e + 2].min(axis=1)
        inside = prof[:, e + inward * 2 : e + inward * 4 : inward].mean(axis=1)
        outside = prof[:, e - inward * 4 : e - inward * 2 : inward].mean(axis=1)
        return np.asarray(np.minimum(inside, outside) - edge, dtype=np.float64)

    end_outline = np.minimum(outline(cols, -0.5, 1, lo.x), outline(cols, 0.5, -1, lo.x))
    asymmetry = lane_asymmetry(rows, lo, lane_side, moved)  # off the other lane's trains
    inner = big_l[:, lo.y(-0.4) - 1 : lo.y(0.4) + 1, xa:xb]
    d2 = inner[:, :-2] + inner[:, 2:]
    d2 -= 2 * inner[:, 1:-1]
    dark_lines = np.maximum(d2, 0, out=d2).mean(axis=(1, 2), dtype=np.float64)
    cues = np.stack([end_outline, asymmetry, dark_lines, highlight], axis=1)
    return SpaceFeatures(windows=win, printed=printed, cues=cues, relief=relief_cues(big_l, lo))


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
    # Same colour (a train on a route printed in its own colour, where the colours cannot
    # tell): per player colour (rows in PLAYER_COLORS order) a bias and cue weights added to
    # the score of that plastic hypothesis on the spaces printed in that colour (5, 1 + cues).
    same_coef: FloatArray
    cue_range: FloatArray  # (n_cues, 2): cues are clipped to this range (robustness)
    em_rounds: int
    em_prior_weight: float
    em_confidence: float
    route_temperature: float
    # Learnt on each picture (``adapt.py``; section ``adapt``): the same-colour terms from
    # these cues (indices in CUE_FEATURES), once seen on ``same_min_spaces`` spaces both ways,
    # times ``same_weight``; the plastic priors shifted with their print in these colour
    # features (indices in COLOUR_FEATURES)
    same_cues: tuple[int, ...] = ()
    same_weight: float = 0.5
    same_min_spaces: int = 3
    same_var_floor: float = 1.0
    same_shrink: float = 0.0
    shift_channels: tuple[int, ...] = ()
    # player colours whose plastic is this camera's own (a table profile's): not shifted
    camera_plastic: frozenset[str] = frozenset()
    # (5, n_colour_features) added to the plastic means for the spaces (not the stations):
    # the print's shift on this picture (``adapt.plastic_offsets``); None before adapting
    plastic_offset: FloatArray | None = None
    # A train on its own print: this picture's discriminant between each colour's trains and
    # its print (``adapt.own_print_terms``, variance floor ``own_print_floor``), times
    # ``own_print_weight`` (0: not used); None before adapting
    own_print: FloatArray | None = None
    own_print_weight: float = 0.0
    own_print_floor: float = 0.5
    own_print_shrink: float = 3.0
    own_print_columns: tuple[int, ...] = ()  # in COLOUR_FEATURES + CUE_FEATURES
    own_print_gate: tuple[float, float] = (0.0, 1.0)  # min separation, max error share
    own_print_apart: npt.NDArray[np.bool_] | None = None  # ``adapt.own_print_apart``
    own_print_max_trains: int = 45  # a player's trains: more, and the colour is left out
    own_print_like: tuple[float, float] = (0.0, 0.1)  # ``own_print.learn``
    own_print_where: npt.NDArray[np.int64] | None = None  # its spaces' colours (the same)
    own_print_pooled: tuple[float, int, float] = (0.0, 0, 0.0)  # other prints, a scarce one


def model_from_config(cfg: dict[str, Any]) -> SpaceModel:
    m = cfg["space_model"]
    a = m.get("adapt", {})
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
        same_coef=np.array(
            [m.get("same_coef", {}).get(c, [0.0] * (1 + len(CUE_FEATURES))) for c in PLAYER_COLORS],
            dtype=np.float64,
        ),
        cue_range=np.array(m["cue_range"], dtype=np.float64).reshape(len(CUE_FEATURES), 2),
        em_rounds=int(m["em_rounds"]),
        em_prior_weight=float(m["em_prior_weight"]),
        em_confidence=float(m["em_confidence"]),
        route_temperature=float(m["route_temperature"]),
        same_cues=tuple(CUE_FEATURES.index(c) for c in a.get("same_cues", [])),
        same_weight=float(m.get("same_weight", 0.5)),
        same_min_spaces=int(a.get("same_min_spaces", 3)),
        same_var_floor=float(a.get("same_var_floor", 1.0)),
        same_shrink=float(a.get("same_shrink", 0.0)),
        shift_channels=tuple(COLOUR_FEATURES.index(c) for c in a.get("shift_with_print", [])),
        own_print_weight=float(a.get("own_print_weight", 0.0)),
        own_print_floor=float(a.get("own_print_var_floor", 0.5)),
        own_print_shrink=float(a.get("own_print_shrink", 3.0)),
        own_print_max_trains=int(a.get("own_print_max_trains", 45)),
        own_print_like=(float(a.get("own_print_like", 0)), float(a.get("own_print_like_floor", 0))),
        own_print_pooled=(
            float(a.get("own_print_pooled", 0)),
            int(a.get("own_print_scarce", 0)),
            float(a.get("own_print_unlike", 0)),
        ),
        own_print_gate=(
            float(a.get("own_print_min_separation", 0.0)),
            float(a.get("own_print_max_error", 1.0)),
        ),
        own_print_columns=own_print_columns(
            (*COLOUR_FEATURES, *CUE_FEATURES), a.get("own_print_features", [])
        ),
    )


@dataclass(frozen=True)
class SpaceLayoutInfo:
    """Per-space facts the classifier needs (built once per geometry)."""

    printed_colors: list[str]
    tunnel: BoolArray  # (n,)
    lane_side: FloatArray  # (n,) +1 / -1: the other lane of a double route is at +y / -y; 0
    route_slices: dict[str, slice]
    lane_pairs: list[tuple[str, str]]

    @cached_property
    def route_ids(self) -> list[str]:
        return list(self.route_slices)

    @cached_property
    def route_starts(self) -> npt.NDArray[np.int64]:
        """First space of every route (routes are contiguous runs of spaces, in order)."""
        starts = np.array([sl.start for sl in self.route_slices.values()], dtype=np.int64)
        stops = np.array([sl.stop for sl in self.route_slices.values()], dtype=np.int64)
        if len(starts) and (starts[0] != 0 or np.any(starts[1:] != stops[:-1])):
            raise ValueError("route slices must be contiguous and in order")
        return starts

    @cached_property
    def space_route(self) -> npt.NDArray[np.int64]:
        """Route number (position in ``route_ids``) of every space."""
        out = np.empty(len(self.printed_colors), dtype=np.int64)
        for k, sl in enumerate(self.route_slices.values()):
            out[sl] = k
        return out

    @cached_property
    def pair_index(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Route numbers of the two lanes of every double route."""
        pos = {rid: k for k, rid in enumerate(self.route_slices)}
        a = np.array([pos[x] for x, _ in self.lane_pairs], dtype=np.int64)
        b = np.array([pos[y] for _, y in self.lane_pairs], dtype=np.int64)
        return a, b

    @cached_property
    def same_colour(self) -> BoolArray:
        """(n, 5): the player colour equals the space's printed colour."""
        pc = np.array(self.printed_colors)
        return np.asarray(pc[:, None] == np.array(PLAYER_COLORS)[None, :], dtype=np.bool_)

    @cached_property
    def own_colour(self) -> npt.NDArray[np.int64]:
        """(n,) the index in PLAYER_COLORS of the space's printed colour, -1 when no player
        has that colour."""
        return np.array(
            [PLAYER_COLORS.index(c) if c in PLAYER_COLORS else -1 for c in self.printed_colors],
            dtype=np.int64,
        )

    @cached_property
    def printed_index(self) -> tuple[list[str], npt.NDArray[np.int64]]:
        """The distinct printed colours and each space's index among them."""
        names = sorted(set(self.printed_colors))
        pos = {c: i for i, c in enumerate(names)}
        return names, np.array([pos[c] for c in self.printed_colors], dtype=np.int64)


_PENALTY: dict[tuple[int, int, float, float], tuple[Any, Any, FloatArray]] = {}


def window_penalty(model: SpaceModel, windows: WindowSet, lane_side: FloatArray) -> FloatArray:
    """(n, n_windows) added distance of each window for each space (inf where not allowed);
    kept for the last windows and lanes of each penalty (read-only)."""
    key = (id(windows), id(lane_side), model.shift_penalty, model.toward_lane)
    kept = _PENALTY.get(key)
    if kept is None or kept[0] is not windows or kept[1] is not lane_side:
        out = _window_penalty(model, windows, lane_side)
        out.flags.writeable = False
        if len(_PENALTY) > 16:
            _PENALTY.clear()
        kept = _PENALTY[key] = (windows, lane_side, out)
    return kept[2]


def _window_penalty(model: SpaceModel, windows: WindowSet, lane_side: FloatArray) -> FloatArray:
    amax = max(float(np.abs(windows.along).max()), 1e-6)
    cmax = max(float(np.abs(windows.across).max()), 1e-6)
    pen = model.shift_penalty * ((windows.along / amax) ** 2 + (windows.across / cmax) ** 2)
    toward = windows.across[None, :] * lane_side[:, None]
    allowed = (lane_side[:, None] == 0) | (toward <= model.toward_lane + 1e-9)
    return np.where(allowed, pen[None, :], np.inf)


def distances(
    feats: SpaceFeatures,
    info: SpaceLayoutInfo,
    model: SpaceModel,
    penalty: FloatArray,
    scaled: dict[bytes, Any] | None = None,
) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """Squared capped distances (n, 6) to each hypothesis and the best window per colour (n, 5).
    ``scaled``: the scaled windows kept by scale between calls on the same ``feats``."""
    n = feats.printed.shape[0]
    dist = np.empty((n, len(HYPOTHESES)))
    inv = 1.0 / model.scale
    plastic = np.stack([model.plastic[c] for c in PLAYER_COLORS])
    if model.plastic_offset is not None:
        plastic = plastic + model.plastic_offset
    mus = (plastic * inv).astype(np.float32)
    # Feature-major float32 (4, n, w); all colours at once (colour, n, w), feature by feature.
    kept = {} if scaled is None else scaled
    wz = kept.get(model.scale.tobytes())
    if wz is None:
        wz = feature_major(feats.windows, inv)  # features/integral.py
        kept[model.scale.tobytes()] = wz
    d = np.empty((len(PLAYER_COLORS), *wz.shape[1:]), dtype=np.float32)
    d[:] = penalty.astype(np.float32)
    z = np.empty_like(d)
    for k in range(wz.shape[0]):  # the penalty, then each feature in turn (as one by one)
        np.subtract(wz[k][None], mus[:, k, None, None], out=z)
        d += np.minimum(np.square(z, out=z), np.float32(model.clip), out=z)
    b = np.argmin(d, axis=2)  # (colour, n)
    dist[:, 1:] = np.take_along_axis(d, b[:, :, None], axis=2)[:, :, 0].T
    best = np.ascontiguousarray(b.T, dtype=np.int64)
    names, index = info.printed_index
    mu = np.stack([model.printed[c] for c in names])[index]
    z64 = (feats.printed - mu) / model.scale
    dist[:, 0] = np.minimum(z64 * z64, model.clip).sum(axis=1)
    return dist, best


def clip_cues(cues: FloatArray, model: SpaceModel) -> FloatArray:
    return np.asarray(np.clip(cues, model.cue_range[:, 0], model.cue_range[:, 1]))


def hypothesis_scores(
    dist: FloatArray,
    cues: FloatArray,
    coef: FloatArray,
    same: BoolArray | None = None,
    same_coef: FloatArray | None = None,
) -> FloatArray:
    """Conditional-logit scores (n, 6) from distances and cues; ``coef`` = (printed weight,
    plastic weight, printed bias, one weight per cue). ``same`` (n, 5): where a player colour
    is the space's printed colour, ``same_coef`` (bias, one weight per cue) is added to that
    plastic hypothesis's score (``same_coef`` (5, 1 + cues): per player colour)."""
    weight = np.full(len(HYPOTHESES), coef[1])
    weight[0] = coef[0]
    s = -0.5 * dist * weight
    s[:, 0] += coef[2] + cues @ coef[3:]
    if same is not None and same_coef is not None and np.any(same_coef):
        s[:, 1:] += same * (same_coef[None, :, 0] + cues @ same_coef[:, 1:].T)
    return np.asarray(s, dtype=np.float64)


def log_softmax(s: FloatArray) -> FloatArray:
    m = s.max(axis=1, keepdims=True)
    return np.asarray(s - m - np.log(np.exp(s - m).sum(axis=1, keepdims=True)), dtype=np.float64)


def route_log_prob_matrix(space_lp: FloatArray, info: SpaceLayoutInfo, temperature: float) -> Any:
    """(n_routes, 6): every route's log-probability of each hypothesis (spaces voting
    together), routes in the order of ``info.route_ids``."""
    return route_votes(space_lp, info) / temperature  # route_vote.py: how the spaces vote


def decide_route_matrix(
    route_lp: FloatArray, info: SpaceLayoutInfo
) -> tuple[npt.NDArray[np.int64], FloatArray]:
    """Hypothesis index and 0..1 confidence per route (rows of ``route_lp``); the lanes of a
    double route jointly (never one player on both)."""
    p = np.exp(route_lp - route_lp.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    choice = np.asarray(np.argmax(p, axis=1), dtype=np.int64)
    conf = p[np.arange(len(choice)), choice]
    ia, ib = info.pair_index
    if len(ia):
        k = len(HYPOTHESES)
        same = np.eye(k, dtype=bool)
        same[0, 0] = False  # both lanes free is fine; one player on both lanes is not
        joint = route_lp[ia][:, :, None] + route_lp[ib][:, None, :]
        joint[:, same] = -np.inf
        pj = np.exp(joint - joint.max(axis=(1, 2), keepdims=True))
        pj /= pj.sum(axis=(1, 2), keepdims=True)
        flat = np.argmax(pj.reshape(len(ia), -1), axis=1)
        i, j = flat // k, flat % k
        rows = np.arange(len(ia))
        choice[ia], choice[ib] = i, j
        conf[ia] = pj[rows, i, :].sum(axis=1)
        conf[ib] = pj[rows, :, j].sum(axis=1)
    # (sums of probabilities can round a hair above 1)
    return choice, np.asarray(np.clip(conf, 0.0, 1.0), dtype=np.float64)


@dataclass
class SpaceResult:
    scores: FloatArray  # (n_spaces, 6) conditional-logit score per hypothesis (after adaptation)
    route_owner: dict[str, str | None]
    route_confidence: dict[str, float]
    space_labels: list[str | None]
    model: SpaceModel  # adapted to this picture
    # (n_spaces,) every space's squared capped distance to its route's printed colour (as
    # adapted): how well "free" explains it, whatever the other hypotheses score
    print_distance: FloatArray | None = None
    print_unsettled: frozenset[str] = frozenset()  # printed colours this picture cannot settle


def _adapt(
    feats: SpaceFeatures,
    info: SpaceLayoutInfo,
    prior: SpaceModel,
    current: SpaceModel,
    choice: npt.NDArray[np.int64],
    conf: FloatArray,
    best: npt.NDArray[np.int64],
    fitted: dict[str, FloatArray] | None = None,
    mine: tuple[npt.NDArray[np.int64], FloatArray] | None = None,
    x: FloatArray | None = None,
) -> SpaceModel:
    """Re-estimate the class means from the routes read with confidence, shrunk to the prior.

    ``choice`` and ``conf`` per route (in ``info.route_ids`` order); the plastic moves with its
    print's shift from ``fitted`` (default the prior's print). ``mine``: the routes as read
    with the trains-on-their-own-print discriminant (its print group; default ``choice``)."""
    k = prior.em_prior_weight
    sure = conf[info.space_route] >= prior.em_confidence  # per space
    j = choice[info.space_route]  # per space: hypothesis of its route
    n = len(j)
    # Plastic: the best window of the chosen colour.
    pl = sure & (j > 0)
    idx = np.flatnonzero(pl)
    rows = feats.windows[idx, best[idx, j[idx] - 1]]  # (m, 4)
    colour = j[idx] - 1
    n_col = len(PLAYER_COLORS)
    sums = np.zeros((n_col, rows.shape[1] if rows.ndim == 2 else 4))
    for f in range(sums.shape[1]):  # as np.add.at, in the same order (faster on numpy < 1.25)
        sums[:, f] = np.bincount(colour, weights=rows[:, f], minlength=n_col)
    counts = np.bincount(colour, minlength=n_col).astype(np.float64)
    plastic = {
        c: np.asarray((sums[i] + k * prior.plastic[c]) / (counts[i] + k), dtype=np.float64)
        if counts[i] > 0
        else prior.plastic[c]
        for i, c in enumerate(PLAYER_COLORS)
    }
    # Printed: the cores of sure free routes, per printed colour.
    names, pidx = info.printed_index
    fr = np.flatnonzero(sure & (j == 0)) if n else np.zeros(0, dtype=np.int64)
    psums = np.zeros((len(names), feats.printed.shape[1]))
    for f in range(psums.shape[1]):
        psums[:, f] = np.bincount(pidx[fr], weights=feats.printed[fr, f], minlength=len(names))
    pcounts = np.bincount(pidx[fr], minlength=len(names)).astype(np.float64)
    pos = {c: i for i, c in enumerate(names)}
    printed: dict[str, FloatArray] = {}
    for c, mu in prior.printed.items():
        i = pos.get(c, -1)
        if i < 0 or pcounts[i] == 0:
            printed[c] = mu
        else:
            printed[c] = np.asarray((psums[i] + k * mu) / (pcounts[i] + k), dtype=np.float64)
    base = prior.printed if fitted is None else fitted  # the shift as the fitted print shrinks
    moved = {c: (psums[pos[c]] + k * base[c]) / (pcounts[pos[c]] + k) for c in base if c in pos}
    zero = np.zeros_like(prior.plastic["blue"])
    shift = np.stack([moved[c] - base[c] if c in moved else zero for c in PLAYER_COLORS])
    offset = plastic_offsets(shift, counts, k, prior.shift_channels)
    offset[[c in prior.camera_plastic for c in PLAYER_COLORS]] = 0.0
    # The same-colour terms: trains read with confidence, and free spaces printed in a player
    # colour read with confidence.
    trains = np.full(n, -1, dtype=np.int64)
    trains[idx] = colour
    prints = np.full(n, -1, dtype=np.int64)
    own = info.own_colour
    free = sure & (j == 0) & (own >= 0)
    prints[free] = own[free]
    cues = clip_cues(feats.cues, prior)
    sa = (prior.same_cues, prior.same_weight, prior.same_min_spaces, prior.same_var_floor)
    same = same_colour_terms(cues, trains, prints, prior.same_coef, *sa, prior.same_shrink)
    own_print = apart = where = None
    if prior.own_print_weight > 0.0:  # trains on another colour's print, and the print
        trains[idx] = np.where(own[idx] != colour, colour, -1)
        got, sure_free = j, sure & (j == 0)
        if mine is not None:  # the print as read with the discriminant (``classify_spaces``)
            got = mine[0][info.space_route]
            sure_free = ((mine[1] >= prior.em_confidence) & (mine[0] == 0))[info.space_route]
            prints = np.where(sure_free & (own >= 0), own, -1)
        seen = (trains, prints, got, sure_free)
        cues = with_relief(cues, feats.relief)  # features/relief.py
        own_print, apart, where = learn_own_print(feats.printed, cues, prior, info, seen, x)
    return replace(
        current,
        plastic=plastic,
        printed=printed,
        plastic_offset=offset,
        same_coef=same,
        own_print=own_print,
        own_print_apart=apart,
        own_print_where=where,
    )


def _choice(info: SpaceLayoutInfo, model: SpaceModel) -> Callable[[FloatArray], Any]:
    """Every route's hypothesis and confidence from the spaces' scores (``classify_spaces``)."""
    t = model.route_temperature
    return lambda s: decide_route_matrix(route_log_prob_matrix(log_softmax(s), info, t), info)


def classify_spaces(
    feats: SpaceFeatures,
    info: SpaceLayoutInfo,
    model: SpaceModel,
    windows: WindowSet,
    adapt: bool = True,
    *,
    start: SpaceModel | None = None,
    rounds: int | None = None,
) -> SpaceResult:
    """Score every space, adapt the class means to this picture, decide every route.

    ``start``: class means to begin from (a previous frame's adapted model; default the prior)
    and ``rounds`` of adaptation (default ``model.em_rounds``; 0 when ``adapt`` is false)."""
    penalty = window_penalty(model, windows, info.lane_side)
    cues = clip_cues(feats.cues, model)
    fitted, unsettled = model.printed, frozenset[str]()
    if start is None and adapt:  # the print of this copy, from the picture (adapt.py)
        model, unsettled = with_print_estimate(model, feats.printed, *info.printed_index)
    current = start if start is not None else model
    left = (model.em_rounds if rounds is None else rounds) if adapt else 0
    scaled: dict[bytes, Any] = {}  # the windows scaled once for every round
    x = learn.own_print_features(
        feats.printed, with_relief(cues, feats.relief), model.scale, model.own_print_columns
    )
    decide = _choice(info, model)
    while True:
        dist, best = distances(feats, info, current, penalty, scaled)
        scores = base = hypothesis_scores(
            dist, cues, model.coef, info.same_colour, current.same_coef
        )
        if current.own_print is not None:  # a train on its own print, as this picture shows
            op, w, own = current.own_print, model.own_print_weight, current.own_print_where
            own = info.own_colour if own is None else own
            if left > 0 or current.own_print_apart is None:  # EM rounds: every colour learnt
                scores = learn.own_print_scores(scores, x, own, op, w)
            else:  # the final round: the colours apart, per route, within a player's trains
                gate = (current.own_print_apart, info.space_route, model.own_print_max_trains)
                scores = learn.own_print_final(scores, x, own, op, w, gate, decide)
        choice, conf = decide(scores)
        if left == 0:
            break
        left -= 1  # the class means adapt to the reading without the discriminant
        mine = (choice, conf)
        choice, conf = (choice, conf) if scores is base else decide(base)
        current = _adapt(feats, info, model, current, choice, conf, best, fitted, mine, x)
    owners = [HYPOTHESES[c] for c in choice.tolist()]
    owner = dict(zip(info.route_ids, owners, strict=True))
    labels: list[str | None] = [owners[r] for r in info.space_route.tolist()]
    return SpaceResult(
        scores=scores,
        route_owner=owner,
        route_confidence=dict(zip(info.route_ids, conf.tolist(), strict=True)),
        space_labels=labels,
        model=current,
        print_distance=np.asarray(dist[:, 0], dtype=np.float64),
        print_unsettled=unsettled,
    )
