"""A close call on a route printed in a player colour: its own colour's trains, not free print.

On a plain game (no own print) at 1,000-1,300 px, the commonest count a player would dispute is a
route of two to four spaces covered by trains of its own printed colour and read free: the colours
cannot tell those trains from their print, the own-print discriminant half sees them, and every
space leans a little to free (``route_vote``'s ``own_print_lean`` of 0.1 is too small to turn
them). Free print of a player colour leans much further: per space, on tuning games 5000-5799
(``tools/count_stats.py plain``; 3,200 pictures), the trains read free leaned by 0.02 to about 1.6
(most by less than 0.85), and free print of two or more spaces by less than 0.9 only where it is
black print beside the other lane's trains (those trains, blurred by a small picture, reach into
its core and make it look like plastic). Free print of one space leans like the trains, and one
space is too little to tell them: one-space routes are left as they are.

``turn`` turns such a route on a reading: where a route on the check list (what the reader is sure
of, or a table profile settled, stays as read, and the list grows by none) of at least
``min_spaces`` spaces, printed in player colour c and read free, leans to free on average by less
than ``per_space`` a space (the sum of its spaces' log-probabilities as ``route_vote`` leans them),
it is read as c's trains, with the reader's own odds of c against free as its confidence (below one
half), its reasons naming ``close-call``. Not where the printed colour is one of
``not_beside_trains`` and the other lane of its double route reads as trains: there, the other way
round, a claim in that colour that only some of the route's spaces show is the other lane's trains
reaching into free print, and it is read free (tuning games 5000-5799: 12 of 13 such claims were
free print, and of the 662 whose every space showed black, all but one were black trains). Only on
pictures whose train spaces are at most ``max_space_px`` pixels long: the tuning games were read at
1,000-1,300 px (34-44 px a space), and on the shared photos at full size (about 120 px a space)
free black print leans to free by as little (the "trainning" photo's Danzig-Riga, 0.57 a space).
Thresholds in ``data/vision_close_call.json``. Pure functions.
"""

from __future__ import annotations

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

RULE = "close-call"

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class CloseCall:
    """``data/vision_close_call.json``'s ``close_call`` section (``min_spaces`` 0: off)."""

    min_spaces: int
    per_space: float
    tie: float
    not_beside_trains: tuple[int, ...]  # player colour indices
    max_space_px: float


@cache
def close_call_config() -> CloseCall:
    data: dict[str, Any] = load_json("vision_close_call.json")["close_call"]
    return CloseCall(
        min_spaces=int(data["min_spaces"]),
        per_space=float(data["per_space"]),
        tie=float(data["tie"]),
        not_beside_trains=tuple(PLAYER_COLORS.index(c) for c in data["not_beside_trains"]),
        max_space_px=float(data["max_space_px"]),
    )


def occupied_lanes(sums: FloatArray, info: Any) -> npt.NDArray[np.bool_]:
    """(n_routes,) the other lane of the route's double route reads as trains in ``sums``
    (n_routes, 6: every route's sum per hypothesis; some colour above free)."""
    out = np.zeros(len(sums), dtype=np.bool_)
    ia, ib = info.pair_index
    if len(ia):
        claimed = sums[:, 1:].max(axis=1) > sums[:, 0]
        out[ia] = claimed[ib]
        out[ib] = claimed[ia]
    return out


def close_calls(space_lp: FloatArray, info: Any, cfg: CloseCall) -> FloatArray:
    """(n_routes,) per route, what each of its spaces would add to its printed player colour's
    column of ``space_lp`` (n, 6, as ``route_vote`` leans them) for the route's sum to say the
    other way by ``tie`` a space: above 0 a close call of its colour's trains read free, below
    0 a claim of that colour beside the other lane's trains that some of its spaces do not
    show (0 elsewhere)."""
    starts = np.asarray(info.route_starts)
    if cfg.min_spaces <= 0 or not len(starts):
        return np.zeros(len(starts))
    sizes = np.diff(np.append(starts, len(space_lp)))
    colour = np.asarray(info.own_colour)[starts]
    sums = np.add.reduceat(space_lp, starts, axis=0)
    rows = np.arange(len(starts))
    margin = np.where(colour >= 0, sums[rows, colour + 1] - sums[:, 0], -np.inf)
    mean = margin / sizes
    take = (sizes >= cfg.min_spaces) & (mean < 0.0) & (mean > -cfg.per_space)
    back = np.zeros(len(starts), dtype=np.bool_)
    if cfg.not_beside_trains:
        dark = np.isin(colour, cfg.not_beside_trains) & occupied_lanes(sums, info)
        take &= ~dark
        # its own colour read on some of its spaces only: the other lane's trains
        shows = np.argmax(space_lp, axis=1) == np.asarray(info.own_colour) + 1
        back = dark & (mean > 0.0) & (np.add.reduceat(shows, starts) < sizes)
    return np.where(take, cfg.tie - mean, 0.0) - np.where(back, cfg.tie + mean, 0.0)


def turn(
    reading: BoardReading,
    scores: FloatArray,
    info: Any,
    geometry: Any,
    space_px: float | None,
    temperature: float,
    cfg: CloseCall | None = None,
) -> BoardReading:
    """``reading`` with the close calls on its check list turned (``RULE`` added to their
    reasons). ``scores``: the
    classifier's per-space scores (n, 6; ``SpaceResult.scores``); ``info``: a
    ``classify.SpaceLayoutInfo``; ``space_px``: the picture's train space length (None:
    unknown, nothing turned); ``temperature``: the model's ``route_temperature``."""
    cfg = cfg or close_call_config()
    if cfg.min_spaces <= 0 or space_px is None or space_px > cfg.max_space_px:
        return reading
    lp = leaned(log_softmax(np.asarray(scores, dtype=np.float64)), info)
    add = close_calls(lp, info, cfg)
    if not add.any():
        return reading
    starts = np.asarray(info.route_starts)
    sums = np.add.reduceat(lp, starts, axis=0)
    colour = np.asarray(info.own_colour)[starts]
    twin = other_lanes(info)
    turns = Turns(reading)
    routes = turns.routes
    listed = set(reading.check)  # what the reader is sure of (or a table profile settled) stays
    for k in np.flatnonzero(add).tolist():
        rid, c = info.route_ids[k], int(colour[k])
        was, now = (None, PLAYER_COLORS[c]) if add[k] > 0 else (PLAYER_COLORS[c], None)
        if rid not in listed or routes.get(rid) != was:
            continue
        if now is not None and routes.get(twin.get(rid, "")) == now:
            continue
        odds = (sums[k, c + 1] - sums[k, 0]) / temperature  # of c against free
        turns.turn_at_odds(rid, now, float(odds))
    return turns.listed(RULE, geometry)
