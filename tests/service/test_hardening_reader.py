"""Taps while the card reader is away (a simulated reader on a pty, the real transport, the
real server on 127.0.0.1): the taps before stay pending; the table is told when it goes and,
when it is back, asked to tap again (notice and the LED's veto flash)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.commands.devices import start_reader
from companion.reader.simulated import SimulatedReader
from tests.webapp.conftest import BEARER
from tests.webapp.live import PLAYERS, TICKETS, LiveServer


def wait_for(cond: Callable[[], Any], timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = cond()
        if got:
            return got
        time.sleep(0.05)
    return cond()


def test_taps_while_the_reader_is_away_are_asked_again(live: LiveServer, tmp_path: Path) -> None:
    for action in (
        {"type": "new_game", "players": PLAYERS},
        *({"type": "keep_tickets", "player": c, "tickets": t} for c, t in TICKETS.items()),
    ):
        assert live.request("POST", "/api/actions", action, BEARER)[0] == 200
    heard: list[tuple[str, dict[str, Any]]] = []
    live.service.listeners.append(lambda kind, data: heard.append((kind, dict(data))))
    stop = threading.Event()
    reader = SimulatedReader(tmp_path / "reader").start()
    thread = start_reader(live.service, reader.path, stop, registry_path=tmp_path / "cards.sqlite")
    try:

        def payment() -> list[str]:
            pend = live.request("GET", "/api/state")[1]["pending"]["payment"]
            return list(pend["cards"]) if pend else []

        def notices(code: str) -> list[dict[str, Any]]:
            return [d for k, d in heard if k == "notice" and d.get("code") == code]

        time.sleep(0.5)
        reader.tap("04A1B2C3D4E5F6", "ttr:eu:train:green")
        assert wait_for(lambda: payment() == ["green"])
        reader.unplug()
        assert wait_for(lambda: notices("reader.away"))
        with pytest.raises(OSError):  # a tap now goes nowhere: the reader has no host
            reader.tap("04A1B2C3D4E5F7", "ttr:eu:train:green")
        reader.replug()
        back = wait_for(lambda: notices("reader.back"))
        assert back and back[0]["color"] == "red" and back[0]["params"]["player"] == "red"
        assert any(k == "vetoed" and d.get("kind") == "reader" for k, d in heard)  # the LED
        assert payment() == ["green"]  # the tap before it went away is kept
        reader.tap("04A1B2C3D4E5F7", "ttr:eu:train:green")  # tapped again, as asked
        assert wait_for(lambda: payment() == ["green", "green"])
    finally:
        stop.set()
        thread.join(5)
        reader.close()
