"""The game loop's pulse (``Loop.health``): each command is timed from queueing to its end; the
loop is stuck when its oldest unfinished command is older than ``stuck_after``. An injected clock
and a command blocked by the test: no sleeping."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from companion.service.loop import Loop
from tests.waiting import Clock


@pytest.fixture
def clock() -> Clock:
    return Clock(100.0)


@pytest.fixture
def gate() -> threading.Event:
    """What a command blocked by the test waits for (set at the end, whatever happened)."""
    return threading.Event()


@pytest.fixture
def loop(clock: Clock, gate: threading.Event) -> Iterator[Loop]:
    """A loop on the test's clock, not started yet; stopped after its blocked commands end."""
    loop = Loop(lambda exc: None, clock)
    yield loop
    gate.set()
    loop.stop()


def test_a_blocked_loop_is_stuck_after_five_seconds_and_well_again_when_it_turns(
    clock: Clock, gate: threading.Event, loop: Loop
) -> None:
    assert loop.health() == {"stuck": False, "waiting": 0.0, "last_turnaround": None}
    loop.start()
    loop.call(lambda: None)
    assert loop.health()["last_turnaround"] == 0.0
    started = threading.Event()
    blocked = loop.post(lambda: (started.set(), gate.wait(10)))
    assert started.wait(5)
    clock.now += 4.9
    pulse = loop.health()
    assert not pulse["stuck"] and pulse["waiting"] == 4.9
    clock.now += 0.2  # 5.1 s: stuck
    pulse = loop.health()
    assert pulse["stuck"] and pulse["waiting"] == 5.1
    assert pulse["last_turnaround"] == 0.0  # the last command that finished
    gate.set()
    blocked.result(5)
    loop.call(lambda: None)  # the pings queued behind it have run too
    pulse = loop.health()
    assert not pulse["stuck"]
    assert pulse["last_turnaround"] is not None and pulse["last_turnaround"] < 5.1


def test_a_loop_that_runs_nothing_is_seen_by_its_own_ping(
    clock: Clock, gate: threading.Event, loop: Loop
) -> None:
    loop.start()
    loop.post(lambda: gate.wait(10))  # the loop is busy with something that never ends
    assert not loop.health()["stuck"]
    clock.now += 6
    assert loop.health()["stuck"]


def test_a_command_withdrawn_while_queued_counts_as_turned_when_the_loop_reaches_it(
    clock: Clock, gate: threading.Event, loop: Loop
) -> None:
    loop.start()
    loop.post(lambda: gate.wait(10))
    queued = loop.post(lambda: None)
    assert queued.cancel()  # a caller gave up on it
    clock.now += 1
    gate.set()
    loop.call(lambda: None)
    assert loop.health() == {"stuck": False, "waiting": 0.0, "last_turnaround": 0.0}
