"""A short route read free with confidence whose patches say otherwise: listed.

On own-print and plain tuning renders at 1,000-1,300 px (issue 25), after every other rule, the
silent errors left were trains read free, at a calibrated 0.96-1.0, on routes of one to three
spaces printed in their own colour: the colours cannot tell those trains from their print, and
the route looks enough like its print for the reader to be sure. Three kinds, each with what
sets it apart from the free print the reader reads right (measured on every route of 1-3 spaces
printed in a player colour, read free and not listed):

* ``covered``: a route of one space beside a station read at one of its ends (Budapest-Wien-1
  beside a black station at Wien or Budapest). The station stands over part of the only space
  and the reader reads the rest, too little to tell trains from print. Only then is the space
  far from its print (``classify``'s print distance, at least ``covered_distance``): the piece
  covers much of it. Free print so covered is listed too (it reads the same), but few routes
  are: listing every such one-space route instead cost 0.25-0.93 routes a picture (last stop).
* ``like trains``: a route whose patches ``own_second``'s discriminant (the shape of a plastic
  piece: end gaps, a lit and a shaded side, no print outline) scores as trains, on average at
  least ``mean_at_least`` and none under ``each_at_least`` (Kobenhavn-Stockholm-2 and
  Bucuresti-Constantinople with yellow trains, Amsterdam-Bruxelles with black): ``own_second``
  reads such routes only when they are listed, and the reader did not list them. Listed here
  before ``own_second`` runs, they are then read by it (from ``min_spaces`` spaces). A lane
  whose other lane reads as trains needs ``min_spaces`` spaces or more: those trains reach into
  its patches (free red Budapest-Wien-1 beside yellow trains scored up to 15).
* ``unlike print``: a route of ``min_spaces`` or more spaces every space of which is at least
  ``print_distance`` from its print and one of which the discriminant scores at least
  ``shape_at_least`` (Constantinople-Sofia with blue trains, read free at 0.9999: its spaces
  8.4-9.7 from their print; free print as far from its own scored at most -4.8 a space there).

The last two use ``own_second``'s discriminant, so they run where it does: on pictures of its
``min_space_px``-``max_space_px`` pixels a space whose sure free print scores as its fitted
renders' did (``own_second.like_the_fit``). All three run only on pictures of at most
``max_space_px`` pixels a space: what the thresholds were chosen on. Thresholds and the tuning
seeds they were chosen on: ``data/vision_short_free.json``. Pure functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from companion.data import load_json
from companion.vision.decide import own_second
from companion.vision.decide.check import add_to_list, other_lanes
from companion.vision.types import BoardReading

RULE = "short-free"

FloatArray = npt.NDArray[np.float64]
U8Array = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class ShortFree:
    """``data/vision_short_free.json``'s ``short_free`` section (``max_spaces`` 0: off)."""

    max_spaces: int  # routes of at most this many spaces
    max_space_px: float  # on pictures of at most this many pixels a train space
    covered_distance: float  # one space beside a station: its print distance at least this
    min_spaces: int  # the two kinds read by the discriminant: routes of at least this many
    mean_at_least: float  # like trains: the spaces' discriminant scores average at least this
    each_at_least: float  # ... and none is under this
    print_distance: float  # unlike print: every space at least this far from its print
    shape_at_least: float  # ... and one space's discriminant score at least this


@cache
def short_free_config() -> ShortFree:
    data: dict[str, Any] = load_json("vision_short_free.json")["short_free"]
    return ShortFree(
        max_spaces=int(data["max_spaces"]),
        max_space_px=float(data["max_space_px"]),
        covered_distance=float(data["covered_distance"]),
        min_spaces=int(data["min_spaces"]),
        mean_at_least=float(data["mean_at_least"]),
        each_at_least=float(data["each_at_least"]),
        print_distance=float(data["print_distance"]),
        shape_at_least=float(data["shape_at_least"]),
    )


def quiet_free(reading: BoardReading, info: Any, cfg: ShortFree) -> list[int]:
    """Route numbers (``info.route_ids`` order) of the routes the rule looks at: of at most
    ``max_spaces`` spaces, printed in a player colour, read free and not on the check list."""
    sizes, colour = own_second.printed_routes(info)
    listed = set(reading.check)
    return [
        k
        for k, rid in enumerate(info.route_ids)
        if colour[k] >= 0
        and sizes[k] <= cfg.max_spaces
        and reading.routes.get(rid, "") is None
        and rid not in listed
    ]


def covered(
    rows: list[int],
    reading: BoardReading,
    distance: FloatArray,
    info: Any,
    geometry: Any,
    cfg: ShortFree,
) -> list[int]:
    """Of ``rows``, the routes of one space beside a station read at one of their ends whose
    space is at least ``covered_distance`` from its print (``distance``, n,)."""
    out = []
    for k in rows:
        sl = info.route_slices[info.route_ids[k]]
        if sl.stop - sl.start != 1 or distance[sl.start] < cfg.covered_distance:
            continue
        route = geometry.routes[info.route_ids[k]]
        if reading.stations.get(route.a) is not None or reading.stations.get(route.b) is not None:
            out.append(k)
    return out


def shaped(
    rows: list[int],
    reading: BoardReading,
    spaces_lab: U8Array,
    distance: FloatArray,
    info: Any,
    space_px: float,
    cfg: ShortFree,
) -> list[int]:
    """Of ``rows``, the routes that ``own_second``'s discriminant calls trains (``like
    trains``; a lane whose other lane reads as trains only with ``min_spaces`` or more: those
    trains reach into its patches), or of ``min_spaces`` or more that are far from their print
    with one space shaped like a piece (``unlike print``); none where the discriminant is not to
    be trusted."""
    twin = other_lanes(info)

    def keep(k: int, sl: slice, mine: FloatArray) -> bool:
        n = sl.stop - sl.start
        beside = reading.routes.get(twin.get(info.route_ids[k], "")) is not None
        like = mine.mean() >= cfg.mean_at_least and mine.min() >= cfg.each_at_least
        like &= n >= cfg.min_spaces or not beside
        unlike = distance[sl].min() >= cfg.print_distance and mine.max() >= cfg.shape_at_least
        return bool(like or (unlike and n >= cfg.min_spaces))

    return own_second.pick(rows, reading, spaces_lab, info, space_px, keep)


def list_short_free(
    reading: BoardReading,
    spaces_lab: U8Array,
    print_distance: FloatArray | None,
    info: Any,
    geometry: Any,
    space_px: float | None,
    cfg: ShortFree | None = None,
) -> BoardReading:
    """``reading`` with the short routes read free that their patches call trains on its check
    list (``RULE``). ``spaces_lab``: every space's patch (n, ny, nx, 3, 8-bit Lab);
    ``print_distance``: every space's distance to its print (``SpaceResult.print_distance``;
    None: nothing listed); ``info``: a ``classify.SpaceLayoutInfo``; ``space_px``: the
    picture's train space length (None: unknown, nothing listed)."""
    cfg = cfg or short_free_config()
    if cfg.max_spaces <= 0 or space_px is None or print_distance is None:
        return reading
    if space_px > cfg.max_space_px:
        return reading
    rows = quiet_free(reading, info, cfg)
    if not rows:
        return reading
    distance = np.asarray(print_distance, dtype=np.float64)
    found = covered(rows, reading, distance, info, geometry, cfg)
    found += shaped(rows, reading, spaces_lab, distance, info, space_px, cfg)
    if not found:
        return reading
    ids = [info.route_ids[k] for k in sorted(set(found))]
    return add_to_list(reading, ids, RULE, geometry)
