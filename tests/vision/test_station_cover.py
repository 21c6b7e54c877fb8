"""A station on a one-space route (issue 25): at a crowded city the station stands on the end
of a route, and a route of one space has nothing else to tell the station from trains. Its claims
in the colour of a station at one of its ends, or of its own print, are listed
(``decide/beside_station.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from companion.sim.perturb import jpeg, resize_width
from companion.sim.render import BoardRenderer, own_print_game
from companion.vision.decide.beside_station import RULE, covered_claims, max_spaces
from companion.vision.decide.context import ReadContext
from companion.vision.types import BoardReading
from tests.vision_reading import read_whole


def _reading(ctx: ReadContext, routes: dict[str, str], stations: dict[str, str]) -> BoardReading:
    g = ctx.geometry
    return BoardReading(
        routes={rid: routes.get(rid) for rid in g.route_ids},
        stations={cid: stations.get(cid) for cid in g.city_ids},
    )


def test_which_claims_a_station_may_explain(ctx: ReadContext) -> None:
    assert max_spaces() == 1
    g = ctx.geometry
    assert g.routes["budapest-wien-2"].color == "white"
    assert g.routes["amsterdam-bruxelles"].color == "black"
    routes = {
        "budapest-wien-2": "blue",  # the station's colour: listed
        "budapest-wien-1": "green",  # neither the station's nor the print's colour
        "amsterdam-bruxelles": "black",  # its own print's colour: listed
        "dieppe-paris": "red",  # no station at either end
        "berlin-frankfurt-1": "blue",  # three spaces: the others tell
    }
    stations = {"wien": "blue", "bruxelles": "yellow", "berlin": "blue"}
    got = covered_claims(_reading(ctx, routes, stations), g)
    assert got == ["amsterdam-bruxelles", "budapest-wien-2"]
    # without the stations nothing is listed, and free routes never are
    assert covered_claims(_reading(ctx, routes, {}), g) == []
    assert covered_claims(_reading(ctx, {}, stations), g) == []


@pytest.mark.parametrize(
    ("seed", "route", "read"),
    [(6049, "budapest-wien-2", "blue"), (6084, "amsterdam-bruxelles", "black")],
)
def test_a_station_read_as_trains_is_listed(
    ctx: ReadContext, renderer: BoardRenderer, seed: int, route: str, read: str
) -> None:
    """Own-print games as ``bench_vision_check.py`` makes them (tuning seeds): ``route`` is free,
    a station stands at one of its ends; on 1,000 and 1,300 px pictures it was read as ``read``
    trains at calibrated 0.998-0.9996 and not listed."""
    gb = renderer.geometry
    scene = own_print_game(seed, gb, 0.5)
    assert route not in scene.routes
    r = gb.routes[route]
    assert {scene.stations.get(r.a), scene.stations.get(r.b)} - {None}
    board = renderer.render_board(scene, 2400)
    for width in (1000, 1300):
        reading = read_whole(jpeg(resize_width(board, width), 85), ctx)
        got = reading.routes[route]
        assert got is None or (route in reading.check and RULE in reading.why[route]), width
        if got is not None:
            assert got == read
        # every claim the rule lists is one a station at its end could explain
        for rid, rules in reading.why.items():
            if RULE in rules:
                assert reading.routes[rid] is not None and gb.routes[rid].length == 1
    assert np.isfinite(reading.calibrated[route])
