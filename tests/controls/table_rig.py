"""A real Service with a new game, wired to the controls on gpiozero's mock pins or a real Pi."""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from controls_harness import FAST, on_real_pi, wait_for

from companion.controls import ButtonPressed, Controls
from companion.controls.table import TableControls
from companion.service import Actor, Service
from companion.store import EventStore

HOST = Actor.host()
PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]
ILLEGAL_SECONDS = 0.6
MENU_SECONDS = 2.0


class Recorder:
    """A StatusPanel in front of the real one: what the table asked for, in order."""

    def __init__(self, panel: Controls) -> None:
        self.panel = panel
        self.shown: list[str] = []
        self.sounds: list[str] = []
        self._lock = threading.Lock()

    @property
    def status(self) -> str:
        return self.panel.status

    def show(self, status: str) -> None:
        with self._lock:
            self.shown.append(status)
        self.panel.show(status)

    def sound(self, kind: str) -> None:
        with self._lock:
            self.sounds.append(kind)
        self.panel.sound(kind)

    def close(self) -> None:
        self.panel.close()


class Rig:
    """``press``/``hold`` play the buttons: on mock pins by driving the pin, on a real Pi (no
    one there to press) by handing the same ButtonPressed to the table's callback."""

    def __init__(self, kind: str, state_dir: Path) -> None:
        self.kind = kind
        self.store = EventStore(state_dir)
        self.svc = Service(self.store).start()
        self.notices: list[dict[str, Any]] = []
        self.svc.listeners.append(self._heard)
        self.factory: Any = None
        if kind == "mock":
            from gpiozero.pins.mock import MockFactory, MockPWMPin

            self.factory = MockFactory(pin_class=MockPWMPin)
        self.table = TableControls(
            self.svc, illegal_seconds=ILLEGAL_SECONDS, menu_seconds=MENU_SECONDS
        )
        self.controls = Controls(FAST, self.table.on_button, pin_factory=self.factory)
        self.panel = Recorder(self.controls)
        self.table.start(self.panel)

    def _heard(self, kind: str, data: dict[str, Any]) -> None:
        if kind == "notice":
            self.notices.append(data)

    def close(self) -> None:
        self.table.stop()
        self.svc.stop()
        self.store.close()

    # --- the game ---------------------------------------------------------------------------
    def new_game(self) -> None:
        self.svc.act({"type": "new_game", "players": PLAYERS}, HOST)
        self.svc.act(
            {
                "type": "keep_tickets",
                "player": "red",
                "tickets": ["brest-marseille", "paris-wien"],
            },
            HOST,
        )
        self.svc.act(
            {
                "type": "keep_tickets",
                "player": "blue",
                "tickets": ["budapest-zurich", "brindisi-zurich"],
            },
            HOST,
        )
        assert self.wait_status("ready")

    def state(self) -> dict[str, Any]:
        return self.svc.state()

    # --- buttons ----------------------------------------------------------------------------
    def pin(self, name: str) -> Any:
        return self.factory.pin(FAST.pins[name])

    def press(self, button: str) -> None:
        if self.factory is None:
            self.table.on_button(ButtonPressed(button, time.monotonic()))
            return
        pin = self.pin(button)
        pin.drive_low()  # pull-up: pressed = low
        time.sleep(FAST.bounce_time + 0.02)
        pin.drive_high()

    def hold_undo(self) -> None:
        if self.factory is None:
            self.table.on_button(ButtonPressed("host_menu", time.monotonic()))
            return
        pin = self.pin("undo")
        pin.drive_low()
        time.sleep(FAST.hold_time + 0.25)
        pin.drive_high()

    # --- what the table shows ---------------------------------------------------------------
    def wait_status(self, status: str, timeout: float = 10.0) -> bool:
        return wait_for(lambda: self.panel.status == status, timeout)

    def wait_sound(self, kind: str, count: int = 1, timeout: float = 10.0) -> bool:
        return wait_for(lambda: self.panel.sounds.count(kind) >= count, timeout)

    def buzzer_beeps(self) -> list[float]:
        """Mock pins only: how long the buzzer stayed on each time (its state history)."""
        states = self.pin("buzzer").states
        return [b.timestamp for a, b in itertools.pairwise(states) if a.state and not b.state]

    def led(self) -> tuple[float, float, float]:
        """The LED's three channels as driven now (mock pins: the pins; real: read back)."""
        if self.factory is None:
            r, g, b = self.controls.led.value
            return (float(r), float(g), float(b))
        r, g, b = (float(self.pin(n).state) for n in ("led_red", "led_green", "led_blue"))
        return (r, g, b)


def rig_kinds() -> list[Any]:
    return ["mock", pytest.param("pi", marks=pytest.mark.pi)]


def make_rig(kind: str, tmp_path: Path) -> Iterator[Rig]:
    if kind == "pi" and not (on_real_pi() and os.environ.get("COMPANION_PI_HARDWARE") == "1"):
        pytest.skip("needs a Raspberry Pi with the controls wired and COMPANION_PI_HARDWARE=1")
    rig = Rig(kind, tmp_path)
    try:
        yield rig
    finally:
        rig.close()
