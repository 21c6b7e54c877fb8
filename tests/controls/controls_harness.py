"""Harnesses that play the same contract on the fake, on gpiozero's mock pins and on a real Pi."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from companion.config import ControlsConfig
from companion.controls import ButtonPressed, Controls, FakeControls
from tests import waiting

FAST = ControlsConfig(enabled=True, hold_time=0.3, beep_short=0.05, beep_long=0.25)


def wait_for(predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
    """Poll until predicate() is true (the hold and blink threads run in the background)."""
    return waiting.wait_for(predicate, timeout)


def on_real_pi() -> bool:
    try:
        model = Path("/proc/device-tree/model").read_bytes()
    except OSError:
        return False
    return b"Raspberry Pi" in model


class Harness:
    """Builds a panel and plays its buttons; ``events`` collects what the callback got."""

    name = "?"
    can_press = True

    def __init__(self) -> None:
        self.events: list[ButtonPressed] = []
        self.panel: Any = None

    def make(self, config: ControlsConfig = FAST) -> Any:
        raise NotImplementedError

    def press(self, button: str) -> None:
        raise NotImplementedError

    def hold(self, button: str, seconds: float) -> None:
        raise NotImplementedError

    def names(self) -> list[str]:
        return [e.button for e in self.events]


class FakeHarness(Harness):
    name = "fake"

    def make(self, config: ControlsConfig = FAST) -> FakeControls:
        self.panel = FakeControls(config, self.events.append)
        return self.panel

    def press(self, button: str) -> None:
        self.panel.press(button)

    def hold(self, button: str, seconds: float) -> None:
        self.panel.hold(button)


class MockHarness(Harness):
    name = "mock"

    def __init__(self) -> None:
        super().__init__()
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        self.factory = MockFactory(pin_class=MockPWMPin)
        self.config = FAST

    def make(self, config: ControlsConfig = FAST) -> Controls:
        self.config = config
        self.panel = Controls(config, self.events.append, pin_factory=self.factory)
        return self.panel

    def pin(self, name: str) -> Any:
        return self.factory.pin(self.config.pins[name])

    def press(self, button: str) -> None:
        pin = self.pin(button)
        pin.drive_low()  # buttons pull up: pressed = low
        pin.drive_high()

    def hold(self, button: str, seconds: float) -> None:
        pin = self.pin(button)
        pin.drive_low()
        time.sleep(seconds)
        pin.drive_high()


class PiHarness(Harness):
    """Real pins: outputs are read back; nobody is there to press the buttons."""

    name = "pi"
    can_press = False

    def make(self, config: ControlsConfig = FAST) -> Controls:
        self.panel = Controls(config, self.events.append)
        return self.panel


@pytest.fixture(params=["fake", "mock", pytest.param("pi", marks=pytest.mark.pi)])
def harness(request: pytest.FixtureRequest) -> Iterator[Harness]:
    if request.param == "pi" and not (
        on_real_pi() and os.environ.get("COMPANION_PI_HARDWARE") == "1"
    ):
        pytest.skip("needs a Raspberry Pi with the controls wired and COMPANION_PI_HARDWARE=1")
    made: Harness = {"fake": FakeHarness, "mock": MockHarness, "pi": PiHarness}[request.param]()
    yield made
    if made.panel is not None:
        made.panel.close()


@pytest.fixture
def mock() -> Iterator[MockHarness]:
    made = MockHarness()
    yield made
    if made.panel is not None:
        made.panel.close()


def with_pins(config: ControlsConfig, **pins: int) -> ControlsConfig:
    merged = dict(config.pins)
    merged.update(pins)
    return replace(config, pins=merged)
