"""Report what is seen, and say what a person should check.

The space classifier gives every space a log-probability per hypothesis (free, or a train of one
of the five player colours). From those this module decides the reading *as seen*:

* every route is decided on its own (its spaces voting together), and only among "free" and the
  colours that at least one of its spaces shows on its own: a colour no space of the route looks
  like is never reported;
* the two lanes of a double route are not decided jointly: when both look like one colour they
  are both reported so, and the impossible combination is named (``double-same-color``), never
  resolved by inventing a colour for one lane;
* a colour over its 45 trains or its 3 stations is reported as seen, and named
  (``too-many-trains``, ``too-many-stations``).

The check list (``BoardReading.check``) holds the route and city ids a person should confirm
before the reading is used: low confidence; routes whose spaces disagree; a claim of a colour on a
route printed in a colour that may pass for those trains (its own colour above all: the colours
cannot tell, only the plastic's relief); a free route printed in a player's colour where that
colour's trains are nearly as likely as the print (unless that colour's trains, as read, leave
no room for the route under a player's 45: the ``free-full`` kind, calibrated on its own); a
free route printed in such a colour on a picture that could not tell those trains from their
print (``blind_print.py``); impossible combinations. Thresholds live in
``companion/data/vision_check.json``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.data import load_json
from companion.vision.decide.blind_print import blind_routes, cannot_tell
from companion.vision.decide.calibrate import (
    load_calibration,
    logit,
    route_grades,
    route_kind,
    station_kind,
)
from companion.vision.decide.classify import (
    HYPOTHESES,
    FloatArray,
    SpaceLayoutInfo,
    SpaceModel,
    log_softmax,
    route_log_prob_matrix,
)
from companion.vision.decide.route_vote import leaned
from companion.vision.types import PLAYER_COLORS, BoardReading

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class CheckConfig:
    """Thresholds of the check list (``data/vision_check.json``)."""

    route_confidence: float  # a route read with less goes on the list
    station_confidence: float  # a city's station (or its absence) read with less
    claim_margin: float  # a claim on look-alike print: listed unless its weakest space is surer
    hidden_margin: float  # a free route printed in a player's colour: listed when one space's
    # train hypothesis of that colour comes within this of the print
    print_like_radius: float  # printed colour p may pass for trains of c when their class means
    # are within this squared scaled distance (p == c always counts)
    trains_per_player: int  # also settles the kind ``free-full`` (``grade_routes``)
    stations_per_player: int
    # a route read free where at least half of its spaces are further than this from their
    # print (squared scaled distance, as ``classify.distances``): neither the print nor any
    # plastic explains it (a colour processing no model knows); listed
    unexplained: float = 35.0
    # With a table profile (``profile.TableProfile.changed``): a route whose least changed space
    # is under ``unchanged`` holds nothing; one whose least changed space is over ``changed``
    # holds something; in between it is listed.
    unchanged: float = 40.0
    changed: float = 60.0
    profile_fit: float = 5.0  # median change of the surely free spaces: above, a stale profile
    # A reading whose calibrated confidence (``calibrate.py``) is under ``sure`` is listed, and a
    # route whose raw confidence is under ``route_confidence`` (the rules claim_margin,
    # hidden_margin and station_confidence then make way for the calibration); None: the rules
    # as before calibration (kept for the benchmarks' comparison).
    sure: float | None = None
    # With ``sure``: a route is listed too where its calibrated share less ``evidence`` standard
    # errors of its step's share (``calibrate.Steps``) is under ``sure`` (0: off).
    evidence: float = 0.0
    # With ``sure``: a route read free on the print of a colour seen playing, on a picture that
    # could not tell that colour's trains from its print (``blind_print.py``), is listed
    # whatever its calibrated share ...
    list_blind: bool = True
    blind_few_trains: int = 10  # ... when that colour's trains are read on fewer spaces
    blind_short: int = 1  # ... or the route has at most this many spaces
    blind_grade: float = 15.0  # ... and its grade (the print's case) is under this

    @staticmethod
    def load(overrides: dict[str, Any] | None = None) -> CheckConfig:
        data = dict(load_check_data()["check"])
        data.update(overrides or {})
        return CheckConfig(
            route_confidence=float(data["route_confidence"]),
            station_confidence=float(data["station_confidence"]),
            claim_margin=float(data["claim_margin"]),
            hidden_margin=float(data["hidden_margin"]),
            print_like_radius=float(data["print_like_radius"]),
            trains_per_player=int(data["trains_per_player"]),
            stations_per_player=int(data["stations_per_player"]),
            unexplained=float(data["unexplained"]),
            unchanged=float(data["unchanged"]),
            changed=float(data["changed"]),
            profile_fit=float(data["profile_fit"]),
            sure=None if data.get("sure") is None else float(data["sure"]),
            evidence=float(data.get("evidence", 0.0)),
            list_blind=bool(data["list_blind"]),
            blind_few_trains=int(data["blind_few_trains"]),
            blind_short=int(data["blind_short"]),
            blind_grade=float(data["blind_grade"]),
        )


@cache
def load_check_data() -> dict[str, Any]:
    data: dict[str, Any] = load_json("vision_check.json")
    return data


@dataclass(frozen=True)
class Problem:
    """An impossible combination, as seen."""

    ids: tuple[str, ...]
    code: str  # double-same-color | too-many-trains | too-many-stations
    color: str
    count: int = 0  # trains or stations of that colour seen (the too-many codes)

    @property
    def text(self) -> str:
        if self.code == "double-same-color":
            return f"{self.color} trains on both routes of a double"
        if self.code == "too-many-trains":
            return f"{self.count} {self.color} trains seen (a player has 45)"
        return f"{self.count} {self.color} stations seen (a player has 3)"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ids": list(self.ids),
            "code": self.code,
            "color": self.color,
            "text": self.text,
        }
        if self.count:
            out["count"] = self.count
        return out


@dataclass(frozen=True)
class RouteEvidence:
    """Per route (rows in ``info.route_ids`` order) what the check list is decided from."""

    choice: IntArray  # hypothesis index as seen (0 free, 1.. PLAYER_COLORS)
    confidence: FloatArray  # probability of that hypothesis, the route on its own
    mixed: BoolArray  # its spaces, each on its own, do not all show the chosen hypothesis
    shown: BoolArray  # (n_routes, 6): the hypotheses its spaces show on their own
    weakest: FloatArray  # claimed routes: min over spaces of log p(colour) - log p(free)
    hidden: FloatArray  # free routes printed in a player colour: max over spaces of
    # log p(train of the printed colour) - log p(free); -inf elsewhere


def print_like(model: SpaceModel, radius: float) -> dict[str, frozenset[str]]:
    """Printed colour -> player colours whose trains it may pass for (its own always)."""
    printed = list(model.printed)
    plastic = list(model.plastic)
    if not printed or not plastic:
        return {p: frozenset({p} if p in PLAYER_COLORS else ()) for p in printed}
    mu = np.stack([model.printed[p] for p in printed])
    v = np.stack([model.plastic[c] for c in plastic])
    # every printed colour against every plastic at once (each pair's sum as on its own)
    near = ((((mu[:, None, :] - v[None, :, :]) / model.scale) ** 2).sum(axis=2) <= radius).tolist()
    out: dict[str, frozenset[str]] = {}
    for i, p in enumerate(printed):
        close = {c for c, yes in zip(plastic, near[i], strict=True) if yes}
        if p in PLAYER_COLORS:
            close.add(p)
        out[p] = frozenset(close)
    return out


def _route_runs(info: SpaceLayoutInfo) -> Any:
    """The routes' first spaces when every route has at least one space (then a per-route
    reduction is one ``reduceat``), else None."""
    starts = info.route_starts
    n = len(info.printed_colors)
    if len(starts) and bool(np.all(np.diff(starts) > 0)) and int(starts[-1]) < n:
        return starts
    return None


def route_evidence(scores: FloatArray, info: SpaceLayoutInfo, temperature: float) -> RouteEvidence:
    """Decide every route on its own, among free and the colours its spaces show."""
    lsm = log_softmax(scores)  # (n_spaces, 6)
    lp = np.asarray(route_log_prob_matrix(lsm, info, temperature), dtype=np.float64)
    return _evidence(scores, info, lsm, lp)


def _evidence(
    scores: FloatArray, info: SpaceLayoutInfo, lsm: FloatArray, lp: FloatArray
) -> RouteEvidence:
    """``route_evidence`` from the spaces' and routes' log-probabilities."""
    n_routes, k = lp.shape
    seen_space = np.argmax(scores, axis=1)
    seen = np.zeros((n_routes, k), dtype=bool)
    seen[info.space_route, seen_space] = True
    seen[info.space_route, np.argmax(leaned(lsm, info), axis=1)] = True  # route_vote.py
    allowed = seen.copy()
    allowed[:, 0] = True
    masked = np.where(allowed, lp, -np.inf)
    choice = np.asarray(np.argmax(masked, axis=1), dtype=np.int64)
    p = np.exp(lp - lp.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    rows = np.arange(n_routes)
    conf = np.clip(p[rows, choice], 0.0, 1.0)
    # Spaces that, on their own, show another hypothesis than their route's.
    other = seen_space != choice[info.space_route]
    # Claims: the weakest space's margin of the colour over the print.
    spaces = np.arange(len(lsm))
    d_claim = lsm[spaces, choice[info.space_route]] - lsm[:, 0]
    # Free routes printed in a player colour: the strongest space's case for trains of it.
    own = info.own_colour + 1
    d_hidden = np.where(own > 0, lsm[spaces, own] - lsm[:, 0], -np.inf)
    runs = _route_runs(info)
    if runs is not None:  # every route's spaces are one run: reduce run by run
        mixed = np.logical_or.reduceat(other, runs)
        weakest = np.minimum.reduceat(d_claim, runs)
        hidden = np.maximum.reduceat(d_hidden, runs)
    else:
        mixed = np.zeros(n_routes, dtype=bool)
        np.logical_or.at(mixed, info.space_route, other)
        weakest = np.full(n_routes, np.inf)
        np.minimum.at(weakest, info.space_route, d_claim)
        hidden = np.full(n_routes, -np.inf)
        np.maximum.at(hidden, info.space_route, d_hidden)
    weakest[choice == 0] = np.inf
    hidden[choice != 0] = -np.inf
    return RouteEvidence(
        choice=choice,
        confidence=np.asarray(conf, dtype=np.float64),
        mixed=mixed,
        shown=seen,
        weakest=weakest,
        hidden=hidden,
    )


def assess(
    reading: BoardReading,
    scores: FloatArray,
    info: SpaceLayoutInfo,
    model: SpaceModel,
    route_lengths: dict[str, int],
    config: CheckConfig | None = None,
    changed: FloatArray | None = None,
    print_distance: FloatArray | None = None,
    print_unsettled: frozenset[str] = frozenset(),
) -> BoardReading:
    """The reading as seen, with its check list and problems.

    ``scores``: the classifier's per-space scores (n_spaces, 6) after adaptation;
    ``reading``: what the classifier decided (its stations and their confidence are kept);
    ``changed``: with a table profile, every space's distance from its empty look;
    ``print_distance``: every space's distance to its print (``SpaceResult.print_distance``):
    a route read free that its print does not explain either is listed;
    ``print_unsettled``: printed colours whose print this picture did not show
    (``adapt.print_estimate``): every claim on them is listed. A colour's trains are counted
    once, from ``info`` (``trains_read``, as the calibration's ``room_left``):
    ``route_lengths`` is no longer read (the same lengths; kept so that callers need not
    change)."""
    cfg = config or CheckConfig.load()
    lsm = log_softmax(scores)  # (n_spaces, 6)
    lp = np.asarray(route_log_prob_matrix(lsm, info, model.route_temperature), dtype=np.float64)
    ev = _evidence(scores, info, lsm, lp)
    unexplained = _unexplained(print_distance, info, cfg.unexplained)
    ids = info.route_ids
    listed: set[int] = set()  # routes the profile puts on the list
    settled: set[int] = set()  # routes the profile decided, the colours agreeing
    profiled = changed is not None and profile_fits(changed, ev, info, cfg)
    if changed is not None and profiled:
        least = np.full(len(ids), np.inf)
        np.minimum.at(least, info.space_route, np.asarray(changed, dtype=np.float64))
        ev = _with_profile(ev, lp, least, cfg, listed, settled)
    routes: dict[str, str | None] = {
        rid: HYPOTHESES[int(ev.choice[k])] for k, rid in enumerate(ids)
    }
    confidence = dict(reading.confidence)
    for k, rid in enumerate(ids):
        confidence[rid] = float(ev.confidence[k])
    spaces = {rid: [routes[rid]] * len(v) for rid, v in reading.spaces.items()}
    why: dict[str, list[str]] = {}  # id -> the rules that put it on the check list

    def put(x: str, rule: str) -> None:
        why.setdefault(x, []).append(rule)

    problems: list[Problem] = []
    like = print_like(model, cfg.print_like_radius)
    playing = {c for c in routes.values() if c is not None}
    grades = grade_routes(ev, info, like, cfg.trains_per_player)
    used_a = trains_read(ev.choice, info)  # as room_left counts them
    limits = (cfg.blind_few_trains, cfg.blind_short, cfg.blind_grade)  # blind_print.py
    blind = blind_routes(
        grades.kinds, grades.grade, used_a, info, cannot_tell(model), limits
    ).tolist()
    mixed = grades.mixed.tolist()
    unsure = (ev.confidence < cfg.route_confidence).tolist()
    hidden_over = (ev.hidden > cfg.hidden_margin).tolist()
    weak = (ev.weakest < cfg.claim_margin).tolist()
    unexplained_l = unexplained.tolist()
    first = info.route_starts.tolist()
    kinds, grade = grades.kinds, grades.grade
    calibration = load_calibration() if cfg.sure is not None else None
    calibrated = {rid: float(ev.confidence[k]) for k, rid in enumerate(ids)}
    evident = dict(calibrated)  # less cfg.evidence standard errors of the calibration
    if calibration is not None:
        for kind in set(kinds):
            rows = [k for k, x in enumerate(kinds) if x == kind]
            for k, v in zip(rows, calibration(kind, grade[rows]).tolist(), strict=True):
                calibrated[ids[k]] = v
            low = calibration(kind, grade[rows], cfg.evidence).tolist()
            evident.update((ids[k], v) for k, v in zip(rows, low, strict=True))
    for k, rid in enumerate(ids):
        c = routes[rid]
        if k in listed:
            put(rid, "profile-between")
        if k in settled:
            if unsure[k]:
                put(rid, "unsure")
            continue
        printed = info.printed_colors[first[k]]
        if cfg.sure is not None:
            # what the reader itself is unsure of is listed whatever the calibration says (the
            # fit saw too few such readings to vouch for them)
            if evident[rid] < cfg.sure or unsure[k]:
                put(rid, "unsure")
            if cfg.list_blind and blind[k]:
                put(rid, "blind-print")
        else:  # the rules before calibration (benchmarks compare them)
            look_alike = c is not None and c in like.get(printed, frozenset())
            hidden = printed in playing and hidden_over[k]
            if unsure[k]:
                put(rid, "unsure")
            if mixed[k]:
                put(rid, "mixed")
            if look_alike and weak[k]:
                put(rid, "look-alike")
            if c is None and hidden and not profiled:
                put(rid, "hidden")
        if c is None and unexplained_l[k]:
            put(rid, "unexplained")
        if c is not None and printed in print_unsettled:
            put(rid, "print-unsettled")
    for a, b in info.lane_pairs:
        c = routes[a]
        if c is not None and routes[b] == c:
            problems.append(Problem((a, b), "double-same-color", c))
            put(a, "double-same-color")
            put(b, "double-same-color")
    length = lengths(info).tolist()
    used = used_a.tolist()
    for colour in PLAYER_COLORS:
        mine = [k for k, rid in enumerate(ids) if routes[rid] == colour]
        trains = used[HYPOTHESES.index(colour)]
        if trains > cfg.trains_per_player:
            # the least sure of them, until the excess is covered
            excess = trains - cfg.trains_per_player
            least_sure: list[str] = []
            for k in sorted(mine, key=lambda k: (ev.confidence[k], ev.weakest[k])):
                least_sure.append(ids[k])
                excess -= length[k]
                if excess <= 0 and len(least_sure) >= 2:
                    break
            problems.append(Problem(tuple(least_sure), "too-many-trains", colour, trains))
            for x in least_sure:
                put(x, "too-many-trains")
        built = [cid for cid, s in reading.stations.items() if s == colour]
        if len(built) > cfg.stations_per_player:
            problems.append(Problem(tuple(built), "too-many-stations", colour, len(built)))
            for x in built:
                put(x, "too-many-stations")
    cities = list(reading.stations)
    raws = [reading.confidence.get(cid, 1.0) for cid in cities]
    calibrated.update(zip(cities, raws, strict=True))
    if calibration is not None:  # one call per kind of station reading, not one per city
        station_kinds = [station_kind(reading.stations[cid], playing) for cid in cities]
        raw_grades = logit(raws)
        for kind in set(station_kinds):
            rows = [k for k, x in enumerate(station_kinds) if x == kind]
            for k, v in zip(rows, calibration(kind, raw_grades[rows]).tolist(), strict=True):
                calibrated[cities[k]] = v
    for cid, raw in zip(cities, raws, strict=True):
        if (
            calibrated[cid] < (cfg.sure or 0.0)
            if calibration is not None
            else raw < cfg.station_confidence
        ):
            put(cid, "station-unsure")
    order = {rid: i for i, rid in enumerate(ids)}
    order.update({cid: len(ids) + i for i, cid in enumerate(reading.stations)})
    return replace(
        reading,
        routes=routes,
        confidence=confidence,
        spaces=spaces,
        check=sorted(why, key=lambda x: order.get(x, len(order))),
        why=why,
        calibrated=calibrated,
        problems=[p.to_json() for p in problems],
    )


@dataclass(frozen=True)
class Grades:
    """Per route (``info.route_ids`` order): its kind and grade (``calibrate.py``)."""

    kinds: list[str]
    grade: FloatArray
    mixed: BoolArray  # its spaces, each on its own, show another hypothesis seen playing


def grade_routes(
    ev: RouteEvidence,
    info: SpaceLayoutInfo,
    like: dict[str, frozenset[str]],
    trains_per_player: int | None = None,
) -> Grades:
    """Every route's kind and grade for the calibration: a claim on print that may pass for
    those trains, or a free route printed in the colour of trains seen playing (even when the
    other lane of its double is read in that colour: an impossible combination is named, never
    used to settle a reading), is ``-own``; a
    route with a space that on its own shows free or a colour seen playing other than what it
    was read as is ``-mixed`` (a lone space of a colour nowhere else on the board is the
    print's own look). With ``trains_per_player``, a free ``-own`` route whose length added to
    the trains read in its printed colour goes over it is ``free-full``: a player has that many
    trains, and those read leave no room for it (``room_left``); only while that colour as read
    is itself within them (a colour read over them breaks the rule: it proves nothing)."""
    n = len(info.route_ids)
    playing = {PLAYER_COLORS[int(c) - 1] for c in ev.choice if c > 0}
    plays = np.array([h is None or h in playing for h in HYPOTHESES])
    disagree = ev.shown & plays[None, :]
    disagree[np.arange(n), ev.choice] = False
    mixed = disagree.any(axis=1)
    first = info.route_starts.tolist()
    own = np.zeros(n, dtype=bool)
    for k, c in enumerate(ev.choice.tolist()):
        printed = info.printed_colors[first[k]]
        if c > 0:
            own[k] = PLAYER_COLORS[c - 1] in like.get(printed, frozenset())
        else:
            own[k] = printed in playing
    claim = ev.choice > 0
    grade = route_grades(ev.confidence, claim, own, ev.weakest, ev.hidden)
    full = np.zeros(n, dtype=bool)
    if trains_per_player is not None:
        left = room_left(ev.choice, info, trains_per_player)
        full = ~claim & own & (left < 0) & (left + lengths(info) >= 0)
    kinds = [
        route_kind(a, b, m, f)
        for a, b, m, f in zip(
            claim.tolist(), own.tolist(), mixed.tolist(), full.tolist(), strict=True
        )
    ]
    return Grades(kinds, grade, mixed)


def lengths(info: SpaceLayoutInfo) -> IntArray:
    """Per route: its spaces (a player's trains it takes)."""
    out: IntArray = np.diff(np.r_[info.route_starts, len(info.printed_colors)]).astype(np.int64)
    return out


def trains_read(choice: IntArray, info: SpaceLayoutInfo) -> IntArray:
    """Per hypothesis (``HYPOTHESES`` order; free first): the trains of the routes read so,
    their spaces summed (``choice``: each route's hypothesis index)."""
    used: IntArray = np.zeros(len(HYPOTHESES), dtype=np.int64)
    np.add.at(used, choice, lengths(info))
    return used


def room_left(choice: IntArray, info: SpaceLayoutInfo, trains_per_player: int) -> IntArray:
    """Per route: the trains its printed colour's player would have left were the route theirs
    too (``trains_per_player`` less the spaces of the routes read in that colour and the
    route's own); a large number where the print is no player colour."""
    length = lengths(info)
    used = trains_read(choice, info)
    own = np.asarray(info.own_colour)[info.route_starts] + 1  # 0: no player colour
    left = trains_per_player - used[own] - length
    out: IntArray = np.where(own > 0, left, 1 << 20).astype(np.int64)
    return out


def _unexplained(
    print_distance: FloatArray | None, info: SpaceLayoutInfo, limit: float
) -> BoolArray:
    """Per route: at least half of its spaces (rounded up) further than ``limit`` from their
    print (all false without distances)."""
    n_routes = len(info.route_starts)
    if print_distance is None:
        return np.zeros(n_routes, dtype=bool)
    far = (np.asarray(print_distance) > limit).astype(np.int64)
    count = np.add.reduceat(far, info.route_starts)
    length = np.diff(np.r_[info.route_starts, len(far)])
    return np.asarray(2 * count >= length, dtype=np.bool_)


def profile_fits(
    changed: FloatArray, ev: RouteEvidence, info: SpaceLayoutInfo, cfg: CheckConfig
) -> bool:
    """Does the table profile still fit this picture? The spaces of routes the colours read
    free with confidence must mostly look as they did empty (median under ``profile_fit``);
    another camera, a board moved or another light fails this, and the profile is not used."""
    sure_free = (ev.choice == 0) & (ev.confidence >= cfg.route_confidence)
    spaces = sure_free[info.space_route]
    if int(spaces.sum()) < 10:
        return True  # a full board: too few free spaces to judge, trust the profile
    return bool(np.median(np.asarray(changed)[spaces]) <= cfg.profile_fit)


def _with_profile(
    ev: RouteEvidence,
    lp: FloatArray,
    least: FloatArray,
    cfg: CheckConfig,
    listed: set[int],
    settled: set[int],
) -> RouteEvidence:
    """Routes as a table profile sees them: nothing where no space changed from the empty look,
    the likeliest colour where every space did (even the route's own printed colour): those go
    in ``settled`` (listed only when the colour among the plastics is unsure); routes in
    between go in ``listed``."""
    choice = ev.choice.copy()
    conf = ev.confidence.copy()
    empty = least < cfg.unchanged
    full = ~empty & (least > cfg.changed)
    choice[empty] = 0
    conf[empty] = 1.0
    rows = np.flatnonzero(full)
    if len(rows):
        colours = lp[rows, 1:]
        p = np.exp(colours - colours.max(axis=1, keepdims=True))
        pick = np.where(choice[rows] == 0, 1 + np.argmax(colours, axis=1), choice[rows])
        choice[rows] = pick
        conf[rows] = p[np.arange(len(rows)), pick - 1] / p.sum(axis=1)
    settled.update(np.flatnonzero(empty | full).tolist())
    listed.update(np.flatnonzero(~(empty | full)).tolist())
    return replace(ev, choice=choice, confidence=conf)


def add_to_list(reading: BoardReading, ids: list[str], reason: str, geometry: Any) -> BoardReading:
    """``reading`` with ``ids`` on its check list, each with ``reason`` among its ``why``; the
    list in ``geometry``'s order (its routes, then its cities)."""
    why = {x: list(v) for x, v in reading.why.items()}
    for x in ids:
        why.setdefault(x, []).append(reason)
    order = {x: i for i, x in enumerate([*geometry.route_ids, *geometry.city_ids])}
    listed = set(reading.check) | set(ids)
    return replace(reading, why=why, check=sorted(listed, key=lambda x: order.get(x, len(order))))


def other_lanes(info: Any) -> dict[str, str]:
    """Each lane of a double route (``info``: a ``classify.SpaceLayoutInfo``): its other lane."""
    return {a: b for a, b in info.lane_pairs} | {b: a for a, b in info.lane_pairs}


class Turns:
    """What a rule after ``assess`` turns: ``reading``'s routes, confidences and spaces copied
    to change (``routes`` is what the rule reads back while it turns), then listed."""

    def __init__(self, reading: BoardReading) -> None:
        self.reading = reading
        self.routes = dict(reading.routes)
        self.confidence = dict(reading.confidence)
        self.calibrated = dict(reading.calibrated)
        self.spaces = dict(reading.spaces)
        self.turned: list[str] = []

    def turn(self, rid: str, now: str | None, p: float) -> None:
        """Read route ``rid`` (every space of it) as ``now`` at confidence ``p``, calibrated
        too (the rule's own odds), and list it."""
        self.routes[rid], self.confidence[rid], self.calibrated[rid] = now, p, p
        self.spaces[rid] = [now] * len(self.reading.spaces.get(rid, []))
        self.turned.append(rid)

    def turn_at_odds(self, rid: str, now: str | None, odds: float) -> None:
        """``turn`` at the confidence of ``odds`` (log-odds of the route's printed colour's
        trains against free print): their share where ``now`` is those trains, else free's."""
        self.turn(rid, now, float(1.0 / (1.0 + np.exp(-odds if now is not None else odds))))

    def keep(self, rid: str) -> None:
        """List route ``rid`` as it is read."""
        self.turned.append(rid)

    def listed(self, reason: str, geometry: Any) -> BoardReading:
        """The reading with the turned (and kept) routes, each on the check list with
        ``reason``."""
        if not self.turned:
            return self.reading
        out = replace(
            self.reading,
            routes=self.routes,
            confidence=self.confidence,
            calibrated=self.calibrated,
            spaces=self.spaces,
        )
        return add_to_list(out, self.turned, reason, geometry)
