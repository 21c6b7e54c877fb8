"""Photo mode end to end with the real vision reader: a rendered photo of a finished game is
uploaded, read, fixed by the host and scored."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from flask.testing import FlaskClient

from companion.core.bots import TicketBot, play_random_game
from companion.core.scoring import score_final
from companion.data import europe_map
from companion.sim.render import BoardRenderer, Scene

from .conftest import BEARER, photo_result

PLAYERS = [
    {"name": "Aki", "color": "blue"},
    {"name": "Ben", "color": "red"},
    {"name": "Chiara", "color": "green"},
]


def act(client: FlaskClient, action: dict) -> dict:
    r = client.post("/api/actions", json=action, headers=BEARER)
    assert r.status_code == 200, r.json
    return r.json


@pytest.mark.slow
def test_a_photo_of_a_finished_board_is_read_fixed_and_scored(client: FlaskClient) -> None:
    emap = europe_map()
    game, _ = play_random_game(emap, 3, seed=5, bot=TicketBot(5))
    truth_routes = dict(game.route_owner)
    truth_stations = dict(game.station_owner)
    scene = Scene(routes=truth_routes, stations=truth_stations, seed=5)
    photo = BoardRenderer().render_board(scene, width=2400)
    ok, jpeg = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok

    act(client, {"type": "new_game", "players": PLAYERS, "mode": "photo"})
    r = client.post(
        "/api/photo",
        data=np.asarray(jpeg).tobytes(),
        headers={**BEARER, "Content-Type": "image/jpeg"},
    )
    assert r.status_code == 202
    got = photo_result(client, r.json["job"], timeout=30.0)
    assert got["status"] == "done", got
    reading = got["reading"]
    assert set(reading["routes"]) == set(emap.routes)
    assert set(reading["stations"]) == set(emap.cities)
    # the reader's check list (ids to confirm) and problems reach photo mode
    assert set(reading["check"]) <= set(emap.routes) | set(emap.cities)
    assert isinstance(reading["problems"], list)
    right = sum(1 for rid in emap.routes if reading["routes"][rid] == truth_routes.get(rid))
    assert right >= 0.97 * len(emap.routes), right
    stations_right = sum(1 for c in emap.cities if reading["stations"][c] == truth_stations.get(c))
    assert stations_right >= len(emap.cities) - 1

    # The host fixes what the camera got wrong on the map, enters the tickets and finishes.
    tickets = {p.color: list(p.tickets) for p in game.players}
    act(
        client,
        {
            "type": "set_board",
            "routes": truth_routes,
            "stations": truth_stations,
            "tickets": tickets,
        },
    )
    final = act(client, {"type": "finish"})
    want = {p.color: p.total for p in score_final(emap, game.end_positions()).players}
    got_totals = {p["color"]: p["final"]["total"] for p in final["players"]}
    assert got_totals == want
