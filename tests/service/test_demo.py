"""The demo game's script and driver: every move accepted, the game finished (without devices
here; tests/commands/test_demo_pipeline.py plays it through the simulated camera and reader), and
`companion serve --demo` as a process."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from companion.commands.demo_game import DemoDriver, table_script
from companion.data import europe_map
from companion.service import Service
from companion.store import EventStore


def test_demo_script_shows_camera_claims_tunnels_and_ferries() -> None:
    m = europe_map()
    moves = list(table_script(2026, 4))
    placed = [mv.data["route"] for mv in moves if mv.kind == "place"]
    tunnels = [mv.data["route"] for mv in moves if mv.kind == "host" and mv.data["type"] == "claim"]
    assert placed and tunnels
    assert all(m.routes[r].tunnel for r in tunnels)
    assert not any(m.routes[r].tunnel for r in placed)  # tunnels go down once settled
    assert any(m.routes[r].locomotives > 0 for r in placed)  # a ferry
    confirms = [mv for mv in moves if mv.kind == "button" and mv.data["name"] == "confirm"]
    assert len(confirms) >= len(tunnels)  # reveal (and pay) by the confirm button, keep tickets
    taps = [mv for mv in moves if mv.kind == "tap"]
    assert all(isinstance(c, str) for mv in taps for c in mv.data["cards"])
    assert moves[-1].data == {"type": "finish"}
    assert moves == list(table_script(2026, 4))  # seeded


def test_demo_plays_a_whole_game_through_the_service(tmp_path: Path) -> None:
    store = EventStore(tmp_path)
    svc = Service(store).start()
    try:
        driver = DemoDriver(svc, seed=7, players=3, delay=0)
        driver.run()
        assert driver.errors == []
        assert driver.report.fallback == []  # the direct table reports every claim
        st = svc.state()
        assert st["phase"] == "finished" and st["winners"]
        assert all(p["final"] is not None for p in st["players"])
        actors = {e.actor for e in store.events(st["game_id"])}
        assert {"camera", "button", "host"} <= actors
        assert st["payment_mode"] == "strict"
        assert driver.game is not None
        bot = {p.color: p.total for p in driver.game.final_score().players}
        assert {p["color"]: p["final"]["total"] for p in st["players"]} == bot
    finally:
        svc.stop()
        store.close()


@pytest.mark.slow
def test_serve_demo_plays_through_the_simulated_devices(tmp_path: Path) -> None:
    """`serve --demo` starts the simulated table; claims arrive from the camera; SIGTERM stops
    it cleanly mid-game."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion",
            "-v",
            "serve",
            "--state-dir",
            str(tmp_path),
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-qr",
            "--demo",
            "--demo-delay",
            "0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        base = ""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not base:
            m = re.search(r"serving on (http://127\.0\.0\.1:\d+)/", proc.stdout.readline())
            base = m.group(1) if m else ""
        assert base
        claimed = 0
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and claimed < 3:
            with urllib.request.urlopen(base + "/api/state", timeout=5) as r:
                st = json.loads(r.read())
            claimed = sum(len(p["routes"]) for p in st["players"])
            time.sleep(0.2)
        assert claimed >= 3
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out
    assert "Traceback" not in out, out
    assert "demo camera: claim" in out  # the camera's watcher reported claims
