"""A second opinion on a route printed in a player colour that the reader left undecided: that
colour's trains, or free print?

On own-print games at 1,000-1,300 px (issue 25), most pictures with a colour off by more than 2
have ONE route of 2-4 spaces printed in a player colour, carrying trains of that colour, read
free and listed at a calibrated 0.5-0.9: the colours cannot tell the plastic from its print, and
the cues the reader learns per picture (``own_print.py``) half see it. This module looks at those
routes' space patches again with a discriminant fitted once, on tuning renders, from the shape of
the brightness and colour across and along each patch (``shape_features``): a plastic piece is
shorter than its printed box (gaps at its ends), lit on one side and shaded on the other, and
hides the print's thin outline; a printed box is an even fill inside its outline. Each
profile is taken less the patch's own core mean (so a paler or warmer print, or another light,
moves it little) and folded about the patch's centre (its symmetric part, and the size of its
odd part: the light may come from either side of a route).

``turn``: on a picture whose train spaces are ``min_space_px``-``max_space_px`` pixels long
(what the fit saw), a route on the check list (what the reader is sure of stays as read), read
free, printed in player colour c, of at least ``min_spaces`` spaces, whose twin lane is not read
as c, is read as c's trains when its spaces' discriminant scores average at least ``mean_at_least``
and none is under ``each_at_least``; and only where the picture's own free print, the routes
printed in a player colour that the reader reads free and does not list, scores as on the fitted
renders (``like_the_fit``): on the shared photos scaled down, some real print scores like
plastic, and the rule stays off there. A turned route stays listed (reason ``own-second``) at the
reader's own odds of c against free (below one half). Weights, thresholds and the tuning ranges
they were fitted and checked on: ``data/vision_own_second.json`` (``tools/fit_own_second.py``).
Pure functions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.data import load_json
from companion.vision.decide.check import Turns, other_lanes
from companion.vision.decide.classify import log_softmax
from companion.vision.decide.route_vote import leaned
from companion.vision.types import PLAYER_COLORS, BoardReading

RULE = "own-second"

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
U8Array = npt.NDArray[np.uint8]

CORE_ROWS = (-0.3, 0.3)  # box widths from the centre: the along profile's rows
CORE_COLS = (-0.35, 0.35)  # box lengths from the centre: the across profile's columns


@dataclass(frozen=True)
class OwnSecond:
    """``data/vision_own_second.json``'s ``own_second`` section (``min_spaces`` 0: off)."""

    min_spaces: int
    mean_at_least: float
    each_at_least: float
    min_space_px: float
    max_space_px: float
    free_quantile: float  # the sure free print's scores: this quantile of them ...
    free_at_most: float  # ... at most this, or the picture is not like the fitted ones
    min_free_spaces: int  # and at least this many such spaces
    shape: tuple[int, int]  # (ny, nx) of the patches the weights were fitted on
    mean: FloatArray  # (d,) the features' standardisation
    scale: FloatArray  # (d,)
    weights: FloatArray  # (d,) the discriminant on standardised features
    bias: float


@cache
def own_second_config() -> OwnSecond:
    data: dict[str, Any] = load_json("vision_own_second.json")["own_second"]
    return config_from(data)


def config_from(data: dict[str, Any]) -> OwnSecond:
    """An ``OwnSecond`` from a dict shaped as the data file's section."""
    return OwnSecond(
        min_spaces=int(data["min_spaces"]),
        mean_at_least=float(data["mean_at_least"]),
        each_at_least=float(data["each_at_least"]),
        min_space_px=float(data["min_space_px"]),
        max_space_px=float(data["max_space_px"]),
        free_quantile=float(data["free_quantile"]),
        free_at_most=float(data["free_at_most"]),
        min_free_spaces=int(data["min_free_spaces"]),
        shape=(int(data["shape"][0]), int(data["shape"][1])),
        mean=np.asarray(data["mean"], dtype=np.float64),
        scale=np.asarray(data["scale"], dtype=np.float64),
        weights=np.asarray(data["weights"], dtype=np.float64),
        bias=float(data["bias"]),
    )


def _folded(prof: FloatArray) -> list[FloatArray]:
    """A profile (m, k; k even) folded about its centre: its symmetric part and the size of its
    odd part, each (m, k / 2) from the outside in."""
    flip = prof[:, ::-1]
    half = prof.shape[1] // 2
    return [((prof + flip) / 2)[:, :half], (np.abs(prof - flip) / 2)[:, :half]]


def shape_features(lab: U8Array) -> FloatArray:
    """(m, d) of space patches ``lab`` (m, ny, nx, 3; OpenCV 8-bit Lab, x along the track, y
    across it, 1.5 box lengths by 2 box widths as ``classify.PatchLayout``): per channel (L, a,
    b as floats) the across profile over the box's middle columns and the along profile over
    its middle rows, each less the patch's core mean and folded (``_folded``); then the core's L
    spread and its mean absolute L steps along and across."""
    _, ny, nx, _ = lab.shape
    r0, r1 = round(ny / 2 + CORE_ROWS[0] * ny / 2), round(ny / 2 + CORE_ROWS[1] * ny / 2)
    c0 = round(nx / 2 + CORE_COLS[0] * nx / 1.5)
    c1 = round(nx / 2 + CORE_COLS[1] * nx / 1.5)
    x = lab.astype(np.float64)
    x[..., 0] *= 100.0 / 255.0
    x[..., 1:] -= 128.0
    out: list[FloatArray] = []
    for ch in range(3):
        p = x[..., ch]
        core = p[:, r0:r1, c0:c1].mean(axis=(1, 2))[:, None]
        out += _folded(p[:, :, c0:c1].mean(axis=2) - core)
        out += _folded(p[:, r0:r1, :].mean(axis=1) - core)
    core_l = x[:, r0:r1, c0:c1, 0]
    steps_along = np.abs(np.diff(core_l, axis=2)).mean(axis=(1, 2))
    steps_across = np.abs(np.diff(core_l, axis=1)).mean(axis=(1, 2))
    out += [core_l.std(axis=(1, 2))[:, None], steps_along[:, None], steps_across[:, None]]
    return np.concatenate(out, axis=1)


def scores(lab: U8Array, cfg: OwnSecond) -> FloatArray:
    """(m,) the discriminant of each patch: above 0 like a plastic piece on its own print."""
    z = (shape_features(lab) - cfg.mean) / cfg.scale
    return np.asarray(z @ cfg.weights + cfg.bias, dtype=np.float64)


def fits(spaces_lab: U8Array, space_px: float | None, cfg: OwnSecond) -> bool:
    """Whether the picture is what the discriminant was fitted on: its train space length
    (``space_px``; None: unknown) within ``min_space_px``-``max_space_px``, its patches of
    ``shape``."""
    if space_px is None or not cfg.min_space_px <= space_px <= cfg.max_space_px:
        return False
    return tuple(spaces_lab.shape[1:3]) == cfg.shape


def route_scores(spaces_lab: U8Array, slices: list[slice], cfg: OwnSecond) -> list[FloatArray]:
    """Per route (its spaces' ``slices``), its spaces' scores (``scores``, in one call)."""
    if not slices:
        return []
    s = scores(spaces_lab[np.concatenate([np.arange(sl.start, sl.stop) for sl in slices])], cfg)
    ends = np.cumsum([sl.stop - sl.start for sl in slices])
    return list(np.split(s, ends[:-1]))


def pick(
    rows: list[int],
    reading: BoardReading,
    spaces_lab: U8Array,
    info: Any,
    space_px: float | None,
    keep: Callable[[int, slice, FloatArray], bool],
) -> list[int]:
    """Of ``rows`` (route numbers), those ``keep`` (route number, its spaces' slice, their
    scores) takes; none where the picture is not what the discriminant was fitted on (``fits``)
    or its sure free print does not score like the fit's (``like_the_fit``)."""
    cfg = own_second_config()
    if not rows or not fits(spaces_lab, space_px, cfg):
        return []
    slices = [info.route_slices[info.route_ids[k]] for k in rows]
    mine = route_scores(spaces_lab, slices, cfg)
    out = [k for k, sl, m in zip(rows, slices, mine, strict=True) if keep(k, sl, m)]
    if out and not like_the_fit(spaces_lab, reading, info, cfg):
        return []
    return out


def sure_free(reading: BoardReading, info: Any) -> list[slice]:
    """The spaces of every route printed in a player colour that the reader reads free and does
    not list: the print this picture shows for sure."""
    own = np.asarray(info.own_colour)
    return [
        sl
        for rid, sl in info.route_slices.items()
        if own[sl.start] >= 0 and reading.routes.get(rid, "") is None and rid not in reading.check
    ]


def like_the_fit(spaces_lab: U8Array, reading: BoardReading, info: Any, cfg: OwnSecond) -> bool:
    """Is the discriminant to be trusted on this picture? Its sure free print
    (``sure_free``) must score as the fitted renders' did: its ``free_quantile`` at most
    ``free_at_most`` (on the shared photos scaled to 1,000-1,300 px some real print scores
    like plastic, and there the quantile is higher)."""
    sure = sure_free(reading, info)
    if not sure:
        return False
    idx = np.concatenate([np.arange(sl.start, sl.stop) for sl in sure])
    if len(idx) < cfg.min_free_spaces:
        return False
    s = scores(spaces_lab[idx], cfg)
    return bool(np.quantile(s, cfg.free_quantile) <= cfg.free_at_most)


def printed_routes(info: Any) -> tuple[IntArray, IntArray]:
    """Per route (``info.route_ids`` order, ``info``: a ``classify.SpaceLayoutInfo``): its
    spaces, and its printed player colour's index (-1: printed in no player colour)."""
    starts = np.asarray(info.route_starts)
    sizes = np.diff(np.append(starts, len(info.printed_colors)))
    return sizes, np.asarray(info.own_colour)[starts]


def candidates(reading: BoardReading, info: Any, cfg: OwnSecond) -> list[tuple[int, int]]:
    """(route number, printed player colour) of every route the rule may turn: listed, read
    free, printed in a player colour, at least ``min_spaces`` spaces, its twin not read as that
    colour (one player never holds both lanes)."""
    twin = other_lanes(info)
    sizes, colour = printed_routes(info)
    pos = {rid: k for k, rid in enumerate(info.route_ids)}
    out = []
    for rid in reading.check:
        k = pos.get(rid)
        if k is None or colour[k] < 0 or sizes[k] < cfg.min_spaces:
            continue
        if reading.routes.get(rid, "") is not None:
            continue
        if reading.routes.get(twin.get(rid, "")) == PLAYER_COLORS[int(colour[k])]:
            continue
        out.append((int(k), int(colour[k])))
    return out


def turn(
    reading: BoardReading,
    spaces_lab: U8Array,
    space_scores: FloatArray,
    info: Any,
    geometry: Any,
    space_px: float | None,
    temperature: float,
    cfg: OwnSecond | None = None,
) -> BoardReading:
    """``reading`` with the routes this second opinion is sure of turned to their printed
    colour's trains (``RULE`` added to their reasons). ``spaces_lab``: every space's patch
    (n, ny, nx, 3, 8-bit Lab); ``space_scores``: the classifier's per-space scores (n, 6);
    ``info``: a ``classify.SpaceLayoutInfo``; ``space_px``: the picture's train space length
    (None: unknown, nothing turned); ``temperature``: the model's ``route_temperature``."""
    cfg = cfg or own_second_config()
    if cfg.min_spaces <= 0 or not fits(spaces_lab, space_px, cfg):
        return reading
    found = candidates(reading, info, cfg)
    if not found or not like_the_fit(spaces_lab, reading, info, cfg):
        return reading
    slices = [info.route_slices[info.route_ids[k]] for k, _ in found]
    turns = Turns(reading)
    lp: FloatArray | None = None  # the spaces as they vote (route_vote.leaned), when needed
    for (k, c), sl, mine in zip(found, slices, route_scores(spaces_lab, slices, cfg), strict=True):
        if mine.mean() < cfg.mean_at_least or mine.min() < cfg.each_at_least:
            continue
        if lp is None:
            lp = leaned(log_softmax(np.asarray(space_scores, dtype=np.float64)), info)
        odds = float(lp[sl, c + 1].sum() - lp[sl, 0].sum()) / temperature  # of c against free
        rid, now = info.route_ids[k], PLAYER_COLORS[c]
        p = float(1.0 / (1.0 + np.exp(-min(odds, 0.0))))
        turns.turn(rid, now, p)
    return turns.listed(RULE, geometry)
