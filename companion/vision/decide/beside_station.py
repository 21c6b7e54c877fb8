"""A route whose every space a station may cover: what it shows may be the station.

A player sets a station beside its city, off the tracks where there is room; at a crowded city
(Budapest and Wien, Bruxelles) it lands on the end of a route. The reader knows which city holds a
station, not where beside it the piece stands, and every route's end space lies within a
station's reach of its city (the piece is about as wide as a train space is long). On a route of
several spaces the others tell: spaces that disagree are a mixed reading, listed by its kind. On a
route of one space (``max_spaces`` of ``data/vision_station_cover.json``) nothing else does, and
the covered space reads as plastic: the station's own colour (a blue station over Budapest-Wien's
white print read as blue trains), or, darkened by the piece's shadow and edge, the route's own
print read as trains of that colour (free black Amsterdam-Bruxelles beside a yellow station at
Bruxelles read black). Such a claim, in the colour of a station read at one of the route's ends
or of its own print, is listed (``station-beside``) whatever its confidence: the reader cannot
tell the station from trains there (issue 25; rendered games 5000-5299 and own-print games
6000-6299 at 900-1,300 px: 24 of their 39 silent errors, for 0.15 routes more on a list).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from companion.data import load_json
from companion.vision.decide.check import add_to_list
from companion.vision.types import BoardReading

RULE = "station-beside"


@cache
def max_spaces() -> int:
    """Routes of at most this many spaces are read with a station beside them listed (0: never)."""
    data: dict[str, Any] = load_json("vision_station_cover.json")
    return int(data["station_cover"]["max_spaces"])


def covered_claims(reading: BoardReading, geometry: Any) -> list[str]:
    """The routes of ``reading`` (read on ``geometry``, a ``SamplingGeometry``) of at most
    ``max_spaces`` spaces read as a claim in the colour of a station read at one of their ends,
    or of their own print, while a station stands at one of their ends."""
    limit = max_spaces()
    out: list[str] = []
    for rid in geometry.route_ids:
        route = geometry.routes[rid]
        got = reading.routes.get(rid)
        if got is None or route.length > limit:
            continue
        beside = {reading.stations.get(route.a), reading.stations.get(route.b)} - {None}
        if beside and (got in beside or got == route.color):
            out.append(rid)
    return out


def list_covered(reading: BoardReading, geometry: Any) -> BoardReading:
    """``reading`` with ``covered_claims`` on its check list (rule ``station-beside``)."""
    ids = covered_claims(reading, geometry)
    return add_to_list(reading, ids, RULE, geometry) if ids else reading
