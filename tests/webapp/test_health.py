"""`/api/health` reports the game loop's last turn-around, on a real waitress on 127.0.0.1: a
loop stuck for over 5 s is a 503 with the code ``health.loop_stuck`` (the loop blocked by a test
hook, its clock moved by the test: no long sleep)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.waiting import Clock

from .live import LiveServer


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    s = LiveServer(tmp_path / "state")
    yield s
    s.close()


def test_health_is_503_while_the_game_loop_is_stuck(live: LiveServer) -> None:
    clock = Clock()
    live.service.loop.clock = clock
    live.service.call(lambda: None)  # one command turned around
    status, body = live.request("GET", "/api/health")
    assert status == 200 and body["ok"] is True and body["loop"]["waiting"] == 0.0
    assert body["loop"]["last_turnaround"] == 0.0
    gate, started = threading.Event(), threading.Event()
    try:
        live.service.post(lambda: (started.set(), gate.wait(10)))  # the test hook: a stuck loop
        assert started.wait(5)
        clock.now += 4
        status, body = live.request("GET", "/api/health")
        assert status == 200 and body["loop"]["waiting"] == 4.0
        clock.now += 2
        status, body = live.request("GET", "/api/health")
        assert status == 503
        assert body["code"] == "health.loop_stuck" and body["params"] == {"seconds": 6}
        assert body["ok"] is False and body["error"].startswith("The game loop")
        assert body["seq"] == 0 and body["loop"]["waiting"] == 6.0
    finally:
        gate.set()
    live.service.call(lambda: None)
    status, body = live.request("GET", "/api/health")
    assert status == 200 and body["ok"] is True
