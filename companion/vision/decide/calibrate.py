"""Confidence that means what it says: the reader's raw confidence mapped to the share of such
readings that were right.

Every route and station reading gets a *kind* and a *grade*:

* kinds: ``free`` (a route read free, printed in a colour no player's trains were seen in),
  ``free-own`` (read free, printed in the colour of trains seen playing: its own colour's trains
  may hide on it), ``free-full`` (read free, printed in the colour of trains seen playing, but
  those trains as read leave no room for it under a player's 45: the rules say they cannot hide
  there unless the colour is over-read elsewhere), ``claim`` (a claim on print that cannot pass
  for those trains), ``claim-own`` (a claim on print that may: its own colour above all), each
  with ``-mixed`` when its spaces, each on its own, do not all show what the route was read as;
  ``station`` and ``no-station``;
* a station of a colour no route is read in is ``station-alone`` (a player builds stations
  beside trains of their own: on an empty board a dark spot read as a station is this kind);
* the grade is the raw confidence as log-odds, held down by the weakest space: a claim's by its
  weakest space's margin of the colour over the print, a free route on its own colour's print by
  the strongest space's case for those trains (``check.RouteEvidence``).

``data/vision_calibration.json`` maps each kind's grade to the share right, piecewise constant
over the grade (a non-decreasing step function, fitted by ``fit_steps`` on the fitting sets of
``tools/fit_calibration.py``: rendered pictures of their own seeds, never the benchmark's sets).
A kind, or a grade under any the fit saw of its kind, gets 0: unknown is unsure. A step pools
rare low grades with common higher ones where the fit saw few of them: the check list
(``check.assess``) lists a route the reader itself gives under ``route_confidence`` whatever its
calibrated share.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.data import load_json

FloatArray = npt.NDArray[np.float64]

KINDS: tuple[str, ...] = (
    "free",
    "free-mixed",
    "free-own",
    "free-own-mixed",
    "free-full",
    "free-full-mixed",
    "claim",
    "claim-mixed",
    "claim-own",
    "claim-own-mixed",
    "station",
    "station-alone",
    "no-station",
)
GRADE_CAP = 30.0  # log-odds: a grade is clipped to +-GRADE_CAP


def logit(p: Any) -> FloatArray:
    """Log-odds of probabilities, clipped to +-GRADE_CAP."""
    q = np.clip(np.asarray(p, dtype=np.float64), 1e-13, 1.0 - 1e-13)
    out: FloatArray = np.clip(np.log(q) - np.log1p(-q), -GRADE_CAP, GRADE_CAP)
    return out


def route_kind(claim: bool, own: bool, mixed: bool, full: bool = False) -> str:
    """The kind of a route reading (``KINDS``); ``full``: a free route on its own colour's print
    whose trains, as read, leave no room for it (``free-full``)."""
    if not claim and own and full:
        base = "free-full"
    else:
        base = ("claim" if claim else "free") + ("-own" if own else "")
    return base + ("-mixed" if mixed else "")


def station_kind(colour: str | None, playing: set[str] | frozenset[str]) -> str:
    """The kind of a station reading (``KINDS``): ``no-station``, ``station`` of a colour seen
    playing (some route read in it), or ``station-alone``."""
    if colour is None:
        return "no-station"
    return "station" if colour in playing else "station-alone"


def route_grades(
    confidence: FloatArray,
    claim: npt.NDArray[np.bool_],
    own: npt.NDArray[np.bool_],
    weakest: FloatArray,
    hidden: FloatArray,
) -> FloatArray:
    """Per route: its raw confidence as log-odds, held down by its weakest space: a claim's by
    its weakest space's margin of the colour over the print; a free route on its own colour's
    print (``own``) by minus its strongest space's case for those trains."""
    g = logit(confidence)
    space = np.where(claim, weakest, np.where(own, -np.asarray(hidden), GRADE_CAP))
    out: FloatArray = np.clip(np.minimum(g, space), -GRADE_CAP, GRADE_CAP)
    return out


@dataclass(frozen=True)
class Steps:
    """A non-decreasing step function: ``values[i]`` from ``edges[i]`` (``edges[0]`` is the
    lowest grade fitted); below ``edges[0]`` 0 (the fit never saw such a reading)."""

    edges: tuple[float, ...]
    values: tuple[float, ...]
    counts: tuple[int, ...]  # fitting readings per step (``z``'s standard errors)

    def __call__(self, grade: Any, z: float = 0.0) -> FloatArray:
        """The share right at ``grade``, less ``z`` standard errors of its step's share (the
        evidence for it: a step of 147 readings at 0.953 is 0.935 at one)."""
        g = np.asarray(grade, dtype=np.float64)
        if not self.edges:
            return np.zeros_like(g)
        i = np.searchsorted(np.asarray(self.edges), g, side="right") - 1
        steps = np.asarray(self.values, dtype=np.float64)
        if z:
            n = np.maximum(np.asarray(self.counts, dtype=np.float64), 1.0)
            steps = steps - z * np.sqrt(steps * (1.0 - steps) / n)
        values = steps[np.clip(i, 0, None)]
        out: FloatArray = np.where(i < 0, 0.0, values)  # below any grade fitted: unknown
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "edges": [round(e, 3) for e in self.edges],
            "right": [round(v, 5) for v in self.values],
            "n": list(self.counts),
        }

    @staticmethod
    def from_json(d: dict[str, Any]) -> Steps:
        return Steps(
            tuple(float(e) for e in d["edges"]),
            tuple(float(v) for v in d["right"]),
            tuple(int(n) for n in d.get("n", [0] * len(d["edges"]))),
        )


def fit_steps(grades: Any, right: Any, min_count: int = 40, prior: float = 1.0) -> Steps:
    """The share right as a non-decreasing step function of the grade.

    Readings are sorted by grade and pooled (pool adjacent violators) until the pools' shares
    right rise with the grade and every pool holds at least ``min_count`` readings. A pool's
    value is ``right / (n + prior)``: a wrong reading more (with ``prior`` 1, fifty right readings
    of fifty are 0.98 right, not 1), so that a sparse pool is never called sure; pools whose
    values would then fall are pooled too."""
    g = np.asarray(grades, dtype=np.float64)
    r = np.asarray(right, dtype=np.float64)
    if len(g) == 0:
        return Steps((), (), ())
    order = np.argsort(g, kind="stable")
    g, r = g[order], r[order]
    starts = np.flatnonzero(np.r_[True, np.diff(g) > 0])  # equal grades: one pool
    ends = [*starts[1:].tolist(), len(g)]
    pools = [
        [float(g[s]), float(r[s:e].sum()), float(e - s)] for s, e in zip(starts, ends, strict=True)
    ]

    def merge(out: list[list[float]], k: int) -> None:  # pool k into pool k - 1
        out[k - 1][1] += out[k][1]
        out[k - 1][2] += out[k][2]
        del out[k]

    out: list[list[float]] = []
    for p in pools:  # pool adjacent violators of the plain share
        out.append(p)
        while len(out) > 1 and out[-2][1] / out[-2][2] >= out[-1][1] / out[-1][2]:
            merge(out, len(out) - 1)
    k = 1
    while k < len(out):  # every pool at least min_count readings
        if out[k - 1][2] < min_count or (out[k][2] < min_count and k == len(out) - 1):
            merge(out, k)
        else:
            k += 1

    def share(p: list[float]) -> float:
        return p[1] / (p[2] + prior)

    k = len(out) - 1
    while k > 0:  # the values rise with the grade
        if share(out[k - 1]) >= share(out[k]):
            merge(out, k)
            k = min(k, len(out) - 1)
        else:
            k -= 1
    return Steps(
        tuple(p[0] for p in out),
        tuple(share(p) for p in out),
        tuple(int(p[2]) for p in out),
    )


@dataclass(frozen=True)
class Calibration:
    """Per kind, the share right of a grade (``data/vision_calibration.json``)."""

    steps: dict[str, Steps]

    def __call__(self, kind: str, grade: Any, z: float = 0.0) -> FloatArray:
        s = self.steps.get(kind)
        if s is None:
            return np.zeros_like(np.asarray(grade, dtype=np.float64))
        return s(grade, z)

    def to_json(self) -> dict[str, Any]:
        return {k: s.to_json() for k, s in self.steps.items()}

    @staticmethod
    def from_json(d: dict[str, Any]) -> Calibration:
        return Calibration({k: Steps.from_json(v) for k, v in d.items()})


@cache
def load_calibration() -> Calibration:
    data: dict[str, Any] = load_json("vision_calibration.json")
    return Calibration.from_json(data["kinds"])
