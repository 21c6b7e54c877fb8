"""The demo game played through the service: every move accepted, the game finished."""

from __future__ import annotations

from pathlib import Path

from companion.commands.demo import DemoDriver, table_script
from companion.data import europe_map
from companion.service import Service
from companion.store import EventStore


def test_demo_script_shows_camera_claims_tunnels_and_ferries() -> None:
    m = europe_map()
    moves = list(table_script(2026, 4))
    seen = [mv.data["route"] for mv in moves if mv.data.get("kind") == "claim_seen"]
    reveals = [mv for mv in moves if mv.data.get("type") == "tunnel_reveal"]
    assert seen and reveals
    assert any(m.routes[r].locomotives > 0 for r in seen)  # a ferry paid with locomotives
    assert moves[-1].data == {"type": "finish"}
    assert moves == list(table_script(2026, 4))  # seeded


def test_demo_plays_a_whole_game_through_the_service(tmp_path: Path) -> None:
    store = EventStore(tmp_path)
    svc = Service(store).start()
    try:
        driver = DemoDriver(svc, seed=7, players=3, delay=0)
        driver.run()
        assert driver.errors == []
        st = svc.state()
        assert st["phase"] == "finished" and st["winners"]
        assert all(p["final"] is not None for p in st["players"])
        actors = {e.actor for e in store.events(st["game_id"])}
        assert {"demo", "button", "host"} <= actors
        assert st["payment_mode"] == "strict"
    finally:
        svc.stop()
        store.close()
