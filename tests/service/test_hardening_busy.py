"""A 503 means not applied: a command still queued when its caller stops waiting is withdrawn,
one that has started is waited for (real waitress on 127.0.0.1)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.webapp.conftest import BEARER
from tests.webapp.live import PLAYERS, TICKETS, LiveServer


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    s = LiveServer(tmp_path / "state")
    s.service.loop.timeout = 0.5
    yield s
    s.close()


def act(live: LiveServer, action: dict[str, Any]) -> tuple[int, Any]:
    return live.request("POST", "/api/actions", action, BEARER, timeout=20)


def effective(live: LiveServer) -> list[int]:
    fold = live.service.fold
    assert fold is not None
    return [s.seq for s in fold.steps if s.effective is not None]


def a_game(live: LiveServer) -> None:
    assert act(live, {"type": "new_game", "players": PLAYERS})[0] == 200
    for color, ids in TICKETS.items():
        assert act(live, {"type": "keep_tickets", "player": color, "tickets": ids})[0] == 200
    for color in ("red", "blue"):
        assert act(live, {"type": "drew_cards", "player": color, "count": 2})[0] == 200
        assert act(live, {"type": "end_turn", "player": color})[0] == 200


def test_a_503_was_not_applied_and_the_retry_applies_it_once(live: LiveServer) -> None:
    a_game(live)
    steps = effective(live)
    seq = live.service.seq
    gate = threading.Event()
    live.service.post(lambda: gate.wait(10))  # the loop is busy with something long
    t0 = time.monotonic()
    status, body = act(live, {"type": "undo"})
    assert status == 503 and body["code"] == "service.busy" and time.monotonic() - t0 < 5
    gate.set()
    time.sleep(0.3)  # the loop is free: the withdrawn undo must not run now
    assert live.service.seq == seq and effective(live) == steps
    status, _ = act(live, {"type": "undo"})  # the retry: one step, not two
    assert status == 200
    assert effective(live) == steps[:-1]


def test_a_command_that_has_started_is_waited_for_not_refused(
    live: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    a_game(live)
    steps = effective(live)
    store = live.service.store
    append = store.append

    def slow_append(*args: Any, **kwargs: Any) -> Any:
        time.sleep(1.2)  # longer than the 0.5 s the caller waits for a command to start
        return append(*args, **kwargs)

    monkeypatch.setattr(store, "append", slow_append)
    status, body = act(live, {"type": "undo"})
    assert status == 200, body  # applied: the answer says so, it is not a 503
    assert effective(live) == steps[:-1]


def test_undo_naming_its_target_cannot_undo_twice(live: LiveServer) -> None:
    a_game(live)
    steps = effective(live)
    state = live.request("GET", "/api/state")[1]
    assert state["undo_seq"] == steps[-1]
    assert act(live, {"type": "undo", "seq": state["undo_seq"]})[0] == 200
    status, body = act(live, {"type": "undo", "seq": state["undo_seq"]})  # a retry
    assert status == 409 and body["rule"] == "already-undone"
    assert effective(live) == steps[:-1]
