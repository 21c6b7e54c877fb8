"""A lane of a double route beside the other lane's trains: its own colour's trains, or free print.

On a double route the other lane is a train's width away. Its trains, wider than their boxes and
blurred into this lane by a small picture (area downscaling, JPEG), cover up to half of this
lane's printed box, on the side that faces them (``core.py``; crops of the sampled patches of
berlin-frankfurt-1 and bruxelles-paris-1 on tuning games 6054, 6138, 6417, 6472, 5085, 5050).
Trains of this lane's printed colour on that print then show less of themselves than elsewhere:
their windows and their core take in the other lane's plastic, and the picture's own-print
discriminant sees them less well. Every space leans a little to free (issue 25: on own-print
tuning games, berlin-frankfurt-1 printed black, bruxelles-paris-1 and berlin-frankfurt-2 printed
red, each with the other lane's trains beside it, read free, each space leaning to free by
0.1-1.5, where ``close_call`` turns only those under 0.85 and never black beside trains). Free
print there can lean as little: black (tuning seeds 5250, 6417: by 0.4-1.0) and red (5085: 1.5).
The leans cannot tell them; the half of the lane's box away from the other lane can.

``turn`` reads a lane of at least ``min_spaces`` spaces printed in a player colour c, the other
lane read as another colour's trains, on the check list (what the reader is sure of stays):

* By the picture's own looks (``relative``; not yellow: the far half of yellow trains beside
  black trains looked like print on tuning games 6003 and 6603): where its spaces lean on
  average within ``zone``
  and the picture shows at least ``min_refs`` spaces of c's trains and of c's free print that
  the classifier is sure of (off any double route, or on a lane whose other lane is free), the
  lane's far half is compared with both halves of those (``lane_looks``: L, its spread, the mean
  absolute Laplacian of L, a and b; each feature's difference of the two looks times the lane's
  offset from their middle over their pooled variance, summed, averaged over its spaces): above
  ``split`` c's trains, below free print (a lane read as c only where it leans to free on
  average, under ``free_below``). For the ``wide`` colours (black) within ``wide_zone``
  instead, whatever a lane read as c leans; and a lane not listed whose score is at least
  ``unlisted`` from ``split`` the other way is listed as read (on the tuning pictures black's
  looks told 650 such lanes, trains from free print, by 3.7 or more: 6447's black trains
  beside yellow trains, read free at calibrated 0.99, are now listed; but on fresh tuning
  pictures 6757 and 6813 they took two free black lanes, read free and sure, for trains).
  A lane read as c and not listed whose score is at least ``firm`` under ``split`` is turned
  to free print (and listed): on own-print tuning games 6000-6599 and plain 5000-5299 at
  1,000-1,300 px, 232 lanes of black trains beside trains read black scored -0.44 or more, and
  plain game 5162's free black berlin-frankfurt-1 beside yellow trains, read black and sure at
  1,000 px, scored -25.8; the looks' worst miss on fresh pictures (6757, 6813) was 5.2.
  Likewise a lane read free and not listed whose score is at least ``firm_trains`` above
  ``split`` is turned to c's trains (and listed): black trains beside red or yellow trains, read
  free and sure, scored 11.7-15.3 (own-print tuning 16164's edinburgh-london-1 at 1,000 px,
  17267's berlin-frankfurt-1 at 1,100 and 1,300 px), free black print read free 2.8 or less.
  Both ``firm`` turns are made whatever the lane's lean (outside ``wide_zone`` too: plain 5227's
  free berlin-frankfurt-1, read black leaning by 7, silent at 1,100 and 1,300 px, scored -17 to
  -19). The figures, and the picture counts they were measured on, are in the data file.
  Lanes shorter than ``min_spaces`` but of at least ``relative.min_spaces`` (budapest-wien-1,
  one space) are read by these looks only, never by the leans below.
* Otherwise by its leans, for the colours of ``colours``: a free lane whose spaces lean to free
  by less than ``mean_lean`` on average and none by more than ``space_lean`` is c's trains; a
  lane ``close_call`` turned to c (reason ``close-call``) one of whose spaces leans to free by
  more than ``space_lean`` is free print with one space the other lane's trains reach into
  (not black: black trains beside red trains lean that far, own-print 6603 at 1,000 px).

A turned lane is listed (reason ``twin-lane``) with the reader's own odds of c against free
as its confidence. Only on pictures of at most ``max_space_px`` pixels a train space (the tuning
pictures were 34-44). Thresholds, and what they were chosen on, in ``data/vision_twin_lane.json``.
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
from companion.vision.decide.close_call import RULE as CLOSE_CALL
from companion.vision.decide.route_vote import leaned
from companion.vision.types import PLAYER_COLORS, BoardReading

RULE = "twin-lane"
LAB_L = 100.0 / 255.0  # OpenCV's 8-bit Lab: L is stored as L * 255 / 100

FloatArray = npt.NDArray[np.float64]
U8Array = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class TwinLane:
    """``data/vision_twin_lane.json``'s ``twin_lane`` section (``min_spaces`` 0: off)."""

    min_spaces: int
    mean_lean: float
    space_lean: float
    colours: tuple[int, ...]  # player colour indices
    max_space_px: float
    relative: Relative | None = None  # black print: the picture's own looks (``lane_looks``)


@dataclass(frozen=True)
class Relative:
    """``twin_lane.relative`` of ``data/vision_twin_lane.json``: the colours read by this
    picture's own looks of their trains and their print (``lane_looks``)."""

    colours: tuple[int, ...]  # player colour indices
    zone: tuple[float, float]  # the lane's mean lean of its colour over free: from, to
    min_refs: int  # spaces of each look the picture must show
    half: float  # the half box measured: box widths from the centre, away from the other lane
    along: float  # box lengths either side of the centre
    var_floor: float
    split: float  # a lane's score above: its colour's trains; below: free print
    free_below: float  # a lane read as its colour is read free only where it leans less
    wide: tuple[int, ...]  # colours read so within ``wide_zone``, listed or not
    wide_zone: tuple[float, float]
    unlisted: float  # a lane not listed is listed where its score is this far past ``split``
    firm: float = np.inf  # a lane not listed read as c is read free this far under ``split``
    firm_trains: float = np.inf  # a lane not listed read free is read as c this far above it
    min_spaces: int = 0  # lanes this short read so too (0: ``TwinLane.min_spaces``)


@cache
def twin_lane_config() -> TwinLane:
    data: dict[str, Any] = load_json("vision_twin_lane.json")["twin_lane"]
    rel = data.get("relative")
    relative = None
    if rel is not None:
        relative = Relative(
            colours=tuple(PLAYER_COLORS.index(c) for c in rel["colours"]),
            zone=(float(rel["zone"][0]), float(rel["zone"][1])),
            min_refs=int(rel["min_refs"]),
            half=float(rel["half"]),
            along=float(rel["along"]),
            var_floor=float(rel["var_floor"]),
            split=float(rel["split"]),
            free_below=float(rel["free_below"]),
            wide=tuple(PLAYER_COLORS.index(c) for c in rel["wide"]["colours"]),
            wide_zone=(float(rel["wide"]["zone"][0]), float(rel["wide"]["zone"][1])),
            unlisted=float(rel["wide"]["unlisted"]),
            firm=float(rel["wide"].get("firm", np.inf)),
            firm_trains=float(rel["wide"].get("firm_trains", np.inf)),
            min_spaces=int(rel.get("min_spaces", 0)),
        )
    return TwinLane(
        min_spaces=int(data["min_spaces"]),
        mean_lean=float(data["mean_lean"]),
        space_lean=float(data["space_lean"]),
        colours=tuple(PLAYER_COLORS.index(c) for c in data["colours"]),
        max_space_px=float(data["max_space_px"]),
        relative=relative,
    )


def lane_leans(space_lp: FloatArray, info: Any) -> tuple[FloatArray, FloatArray]:
    """Per route (``info.route_ids`` order): the mean and the least of its spaces' margins of
    its printed player colour over free in ``space_lp`` (n, 6, as ``route_vote`` leans them);
    NaN where the print is no player colour."""
    starts = np.asarray(info.route_starts)
    own = np.asarray(info.own_colour)
    rows = np.arange(len(space_lp))
    margin = np.where(own >= 0, space_lp[rows, np.maximum(own, 0) + 1] - space_lp[:, 0], np.nan)
    sizes = np.diff(np.append(starts, len(space_lp)))
    mean = np.add.reduceat(margin, starts) / sizes if len(starts) else np.zeros(0)
    least = np.minimum.reduceat(margin, starts) if len(starts) else np.zeros(0)
    return np.asarray(mean, dtype=np.float64), np.asarray(least, dtype=np.float64)


@dataclass(frozen=True)
class Looks:
    """What ``lane_looks`` measures on: the picture's space patches (8-bit Lab, (n, ny, nx, 3)),
    their ``classify.PatchLayout``, and the classifier's routes (``SpaceResult.route_owner``,
    ``route_confidence``) with the confidence it adapts on (``em_confidence``)."""

    lab: U8Array
    layout: Any
    owner: dict[str, str | None]
    confidence: dict[str, float]
    sure: float


def looks_of(res: Any, lab: U8Array, ctx: Any) -> Looks:
    """``Looks`` of a ``classify.SpaceResult`` on patches ``lab`` read with ``ctx``."""
    return Looks(lab, ctx.layout, res.route_owner, res.route_confidence, res.model.em_confidence)


def half_stats(lab: U8Array, layout: Any, across: tuple[float, float], along: float) -> FloatArray:
    """(k, 5) of patches ``lab`` (k, ny, nx, 3; 8-bit Lab) over the box part ``across`` (box
    widths from the centre, from, to) and ``along`` (box lengths either side): L (median), its
    standard deviation, the mean absolute Laplacian of L, a and b (medians)."""
    r0, r1 = layout.y(across[0]), layout.y(across[1])
    return part_stats(lab[:, r0:r1, layout.x(-along) : layout.x(along)])


def part_stats(part: U8Array) -> FloatArray:
    """``half_stats`` of the parts ``part`` (k, rows, columns, 3; 8-bit Lab) of patches."""
    k, m = len(part), part.shape[1] * part.shape[2]
    # Channel-major rows of the codes: the medians by sorting 8-bit codes (as core.py does).
    codes = np.ascontiguousarray(np.moveaxis(part.reshape(k, m, 3), 2, 0))
    codes = np.sort(codes, axis=2, kind="stable")  # 8-bit codes: a radix sort, fast
    med = (codes[..., (m - 1) // 2].astype(np.float64) + codes[..., m // 2]) / 2.0  # (3, k)
    big_l = part[..., 0] * LAB_L
    lap = 4.0 * big_l[:, 1:-1, 1:-1]
    lap -= big_l[:, :-2, 1:-1] + big_l[:, 2:, 1:-1] + big_l[:, 1:-1, :-2] + big_l[:, 1:-1, 2:]
    return np.stack(
        [
            med[0] * LAB_L,
            big_l.reshape(k, -1).std(axis=1),
            np.abs(lap).reshape(k, -1).mean(axis=1),
            med[1] - 128.0,
            med[2] - 128.0,
        ],
        axis=1,
    )


def lane_looks(
    looks: Looks, info: Any, colour: int, rel: Relative
) -> Callable[[str], float | None]:
    """A lane's score (``Relative``) by the picture's look of ``colour``'s trains and of its
    free print: both halves of the spaces of the routes the classifier read so with at least
    ``looks.sure`` (its trains on any print; its print free), off any double route or on a lane
    whose other lane it read free, against the lane's half away from the other lane. None for
    every lane where the picture shows fewer than ``rel.min_refs`` spaces of either look."""
    side = np.asarray(info.lane_side)
    route = np.asarray(info.space_route)
    ids = info.route_ids
    owner = np.array([looks.owner.get(r) == PLAYER_COLORS[colour] for r in ids])
    free = np.array([looks.owner.get(r, "") is None for r in ids])
    sure = np.array([looks.confidence.get(r, 0.0) >= looks.sure for r in ids])
    twin = other_lanes(info)
    clear = np.array([r not in twin or looks.owner.get(twin[r], "") is None for r in ids])
    single = (side == 0) | clear[route]
    trains = np.flatnonzero(single & (owner & sure)[route])
    prints = np.flatnonzero(single & (free & sure)[route] & (np.asarray(info.own_colour) == colour))
    if min(len(trains), len(prints)) < rel.min_refs:
        return lambda rid: None
    upper, lower = (-rel.half, 0.0), (0.0, rel.half)
    lay = looks.layout
    rows = [slice(lay.y(a), lay.y(b)) for a, b in (upper, lower)]
    cols = slice(lay.x(-rel.along), lay.x(rel.along))
    sel = np.concatenate([trains, prints])
    parts = [looks.lab[sel, r, cols] for r in rows]
    if parts[0].shape == parts[1].shape:  # both halves at once (one call: faster)
        both = part_stats(np.concatenate(parts)).reshape(2, len(sel), -1)
    else:
        both = np.stack([part_stats(x) for x in parts])
    n = len(trains)
    t, p = both[:, :n].reshape(2 * n, -1), both[:, n:].reshape(-1, both.shape[2])
    mt, mp = t.mean(axis=0), p.mean(axis=0)
    var = (t.var(axis=0) * len(t) + p.var(axis=0) * len(p)) / (len(t) + len(p)) + rel.var_floor
    w = (mt - mp) / var
    mid = (mt + mp) / 2.0
    slices = dict(zip(ids, info.route_slices.values(), strict=True))

    def score(rid: str) -> float | None:
        sl = slices[rid]
        far = upper if float(side[sl.start]) > 0 else lower  # away from the other lane
        x = half_stats(looks.lab[sl], looks.layout, far, rel.along)
        return float(((x - mid) @ w).mean())

    return score


def turns(
    space_lp: FloatArray,
    info: Any,
    routes: dict[str, str | None],
    cfg: TwinLane,
    looks: Looks | None = None,
) -> dict[str, tuple[str | None, bool, bool, bool]]:
    """The lanes ``turn`` would read otherwise: how, whether by the picture's own looks,
    whether those are sure enough to list a lane not listed, and to turn it (``routes``: the
    reading's; the check list is ``turn``'s to see)."""
    if cfg.min_spaces <= 0:
        return {}
    mean, least = lane_leans(space_lp, info)
    starts = np.asarray(info.route_starts)
    sizes = np.diff(np.append(starts, len(space_lp)))
    colour = np.asarray(info.own_colour)[starts]
    pos = {rid: k for k, rid in enumerate(info.route_ids)}
    rel = cfg.relative
    scores: dict[int, Callable[[str], float | None]] = {}
    out: dict[str, tuple[str | None, bool, bool, bool]] = {}
    for a, b in info.lane_pairs:
        for lane, other in ((a, b), (b, a)):
            k = pos[lane]
            c = int(colour[k])
            short = sizes[k] < cfg.min_spaces  # read by the picture's own looks only
            if c < 0 or routes.get(other) is None:
                continue
            if short and (rel is None or not 0 < rel.min_spaces <= sizes[k]):
                continue
            mine, now = PLAYER_COLORS[c], routes.get(lane)
            read = None  # how the picture's own looks read it (None: not so read)
            if rel is not None and looks is not None and c in rel.colours:
                wide = c in rel.wide
                lo, hi = rel.wide_zone if wide else rel.zone
                zoned = lo < mean[k] < hi  # ``firm`` turns whatever the lean
                firmable = wide and (np.isfinite(rel.firm) or np.isfinite(rel.firm_trains))
                near = now in (None, mine) and (zoned or firmable)
                if near and routes.get(other) != mine:
                    if c not in scores:
                        scores[c] = lane_looks(looks, info, c, rel)
                    got = scores[c](lane)
                    if got is not None:
                        want = mine if got > rel.split else None
                        sure = wide and abs(got - rel.split) >= rel.unlisted
                        firm = wide and (
                            (now == mine and got <= rel.split - rel.firm)
                            or (now is None and got >= rel.split + rel.firm_trains)
                        )
                        if zoned or firm:
                            read = (want, wide or mean[k] < rel.free_below, sure, firm)
            if read is not None:
                if read[0] != now and (read[0] is not None or read[1]):
                    out[lane] = (read[0], True, read[2], read[3])
            elif short:
                continue
            elif now is None and c in cfg.colours and routes.get(other) != mine:
                if mean[k] > -cfg.mean_lean and least[k] > -cfg.space_lean:
                    out[lane] = (mine, False, False, False)
            elif now == mine and c in cfg.colours and least[k] <= -cfg.space_lean:
                out[lane] = (None, False, False, False)
    return out


def turn(
    reading: BoardReading,
    scores: FloatArray,
    info: Any,
    geometry: Any,
    space_px: float | None,
    temperature: float,
    looks: Looks | None = None,
    cfg: TwinLane | None = None,
) -> BoardReading:
    """``reading`` with its lanes beside the other lane's trains turned (``RULE`` added to their
    reasons): a listed free lane to its colour's trains, a close call back to free, and a lane
    of a ``relative`` colour as ``looks`` (``looks_of``; None: not those) says (not listed:
    listed as read, where the looks are sure).
    ``scores``: the classifier's per-space scores (n, 6; ``SpaceResult.scores``); ``info``: a
    ``classify.SpaceLayoutInfo``; ``space_px``: the picture's train space length (None:
    unknown, nothing turned); ``temperature``: the model's ``route_temperature``."""
    cfg = cfg or twin_lane_config()
    if cfg.min_spaces <= 0 or space_px is None or space_px > cfg.max_space_px:
        return reading
    lp = leaned(log_softmax(np.asarray(scores, dtype=np.float64)), info)
    wanted = turns(lp, info, reading.routes, cfg, looks)
    if not wanted:
        return reading
    starts = np.asarray(info.route_starts)
    sums = np.add.reduceat(lp, starts, axis=0)
    pos = {rid: k for k, rid in enumerate(info.route_ids)}
    done = Turns(reading)
    listed = set(reading.check)
    for rid, (now, relative, sure, firm) in wanted.items():
        if rid not in listed and not firm:  # what the reader is sure of (or a table profile
            if sure:  # settled) stays, listed where the picture's own looks clearly disagree
                done.keep(rid)
            continue
        if now is None and not relative and CLOSE_CALL not in reading.why.get(rid, []):
            continue  # by the leans, only a close call goes back to free
        k = pos[rid]
        c = int(np.asarray(info.own_colour)[starts[k]])
        odds = (sums[k, c + 1] - sums[k, 0]) / temperature  # of c against free
        done.turn_at_odds(rid, now, float(odds))
    return done.listed(RULE, geometry)
