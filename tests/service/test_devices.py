"""The device adapters of `companion serve`: the (simulated) card reader and camera events."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from companion.commands.devices import camera_observation, start_reader
from companion.reader.simulated import SimulatedReader
from companion.service import Actor, Service
from companion.store import EventStore
from companion.vision.live import live


def test_taps_on_the_simulated_reader_reach_the_pending_payment(
    tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path / "state"))
    store = EventStore(tmp_path)
    svc = Service(store).start()
    stop = threading.Event()
    sim = SimulatedReader().start()
    try:
        svc.act(
            {
                "type": "new_game",
                "players": [{"name": "A", "color": "red"}, {"name": "B", "color": "blue"}],
            },
            Actor.host(),
        )
        thread = start_reader(svc, sim.path, stop)
        time.sleep(0.3)
        sim.tap("04A1B2C3D4E5F6", "ttr:eu:train:green")
        sim.tap("04A1B2C3D4E5F7", "ttr:eu:train:locomotive")
        sim.tap("04A1B2C3D4E5F8", "ttr:eu:ticket:paris-wien")
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            pend = svc.state()["pending"]
            if pend["payment"] and len(pend["payment"]["cards"]) == 2 and pend["tickets"]:
                break
            time.sleep(0.05)
        pend = svc.state()["pending"]
        assert pend["payment"] == {
            "player": "red",
            "cards": ["green", "locomotive"],
            "duplicates": 0,
        }
        assert pend["tickets"] == {"player": "red", "count": 1}
    finally:
        stop.set()
        thread.join(timeout=5)
        sim.close()
        svc.stop()
        store.close()


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
