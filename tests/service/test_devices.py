"""The device adapters of `companion serve`: the (simulated) card reader and camera events."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from companion.commands.devices import camera_observation
from companion.reader.simulated import SimulatedReader
from companion.service import Actor, Service
from companion.vision.live import live
from tests.devices import reader_thread
from tests.waiting import wait_for


def test_taps_on_the_simulated_reader_reach_the_pending_payment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, service: Service
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path / "state"))
    players = [{"name": "A", "color": "red"}, {"name": "B", "color": "blue"}]
    service.act({"type": "new_game", "players": players}, Actor.host())
    with SimulatedReader() as sim, reader_thread(service, sim.path):
        time.sleep(0.3)
        sim.tap("04A1B2C3D4E5F6", "ttr:eu:train:green")
        sim.tap("04A1B2C3D4E5F7", "ttr:eu:train:locomotive")
        sim.tap("04A1B2C3D4E5F8", "ttr:eu:ticket:paris-wien")

        def both_pending() -> bool:
            pend = service.state()["pending"]
            return bool(pend["payment"] and len(pend["payment"]["cards"]) == 2 and pend["tickets"])

        wait_for(both_pending, 5.0, step=0.05)
        pend = service.state()["pending"]
        assert pend["payment"] == {
            "player": "red",
            "cards": ["green", "locomotive"],
            "duplicates": 0,
        }
        assert pend["tickets"] == {"player": "red", "count": 1}


def test_camera_events_become_observations_or_notices() -> None:
    seen = live.ClaimSeen("berlin-wien", "red", 0.9, 10, 1.0)
    assert camera_observation(seen) == (
        "observe",
        {"kind": "claim_seen", "route": "berlin-wien", "color": "red"},
    )
    station = live.StationSeen("wien", "blue", 0.9, 11, 1.1)
    assert camera_observation(station) == (
        "observe",
        {"kind": "station_seen", "city": "wien", "color": "blue"},
    )
    lost = live.BoardLost("the board is covered", 12, 1.2)
    kind, text = camera_observation(lost)
    assert kind == "notice" and "covered" in str(text)


def test_routes_changed_at_once_are_a_please_check_for_the_host() -> None:
    """The watcher took several routes' new look as it is (none guessed): the host's screens
    are told which, to enter a claim made among them; the black box keeps it as its own kind."""
    from companion.blackbox.recorder import event_json
    from companion.commands.devices import HOST_NOTICES, camera_notice

    look = live.LookChanged(("amsterdam-essen", "barcelona-madrid"), 30, 6.0)
    kind, text = camera_observation(look)
    assert kind == "notice" and "amsterdam-essen, barcelona-madrid" in str(text)
    code, params = camera_notice(look)
    assert code == "camera.look_changed" and code in HOST_NOTICES
    assert params == {"routes": ["amsterdam-essen", "barcelona-madrid"], "n": 2}
    assert event_json(look) == {
        "kind": "look_changed",
        "routes": ["amsterdam-essen", "barcelona-madrid"],
        "frame": 30,
        "t": 6.0,
    }
    assert camera_notice(live.BoardLost("covered", 1, 0.1))[0] not in HOST_NOTICES
