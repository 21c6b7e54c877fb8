"""Pin-level behaviour on gpiozero's mock pin factory: drive the inputs, read the outputs."""

from __future__ import annotations

import itertools
import time
from dataclasses import replace

import pytest
from controls_harness import FAST, MockHarness, wait_for, with_pins
from gpiozero.pins.mock import MockFactory, MockPin, MockPWMPin

from companion.config import DEFAULT_PINS, ControlsConfig
from companion.controls import LED_PATTERNS, Controls, ControlsError, open_controls

LED_PINS = ("led_red", "led_green", "led_blue")


def led_value(h: MockHarness) -> tuple[float, ...]:
    return tuple(float(h.pin(name).state) for name in LED_PINS)


def on_durations(pin: object) -> list[float]:
    """How long the pin stayed on each time it went on (from the mock's state history)."""
    states = pin.states  # type: ignore[attr-defined]
    durations = []
    for current, following in itertools.pairwise(states):
        if current.state and not following.state:
            durations.append(following.timestamp)
    return durations


@pytest.mark.parametrize("status", ["off", "ready", "final_round"])
def test_steady_statuses_set_the_led_colour(mock: MockHarness, status: str) -> None:
    mock.make()
    mock.panel.show(status)
    assert led_value(mock) == pytest.approx(LED_PATTERNS[status].color)


def test_ready_is_green_on_the_green_pin_only(mock: MockHarness) -> None:
    mock.make()
    mock.panel.show("ready")
    assert led_value(mock) == (0.0, 1.0, 0.0)


@pytest.mark.parametrize(
    ("status", "lit"), [("illegal", "led_red"), ("waiting_for_tap", "led_blue")]
)
def test_blinking_statuses_toggle_one_colour(mock: MockHarness, status: str, lit: str) -> None:
    mock.make()
    pattern = LED_PATTERNS[status]
    assert pattern.on_time is not None
    for name in LED_PINS:
        mock.pin(name).clear_states()
    mock.panel.show(status)
    pin = mock.pin(lit)
    assert wait_for(lambda: len(on_durations(pin)) >= 2, timeout=5 * pattern.on_time + 2)
    for duration in on_durations(pin)[:2]:
        assert duration == pytest.approx(pattern.on_time, abs=0.1)
    for other in set(LED_PINS) - {lit}:
        assert all(s.state == 0 for s in mock.pin(other).states)


def test_a_new_status_stops_the_blinking(mock: MockHarness) -> None:
    mock.make()
    mock.panel.show("illegal")
    time.sleep(0.2)
    mock.panel.show("ready")
    red = mock.pin("led_red")
    red.clear_states()
    time.sleep(0.4)
    assert led_value(mock) == (0.0, 1.0, 0.0)
    assert [s.state for s in red.states] == [0.0]


def test_common_anode_leds_are_driven_inverted(mock: MockHarness) -> None:
    mock.make(replace(FAST, led_common_anode=True))
    mock.panel.show("ready")
    assert led_value(mock) == (1.0, 0.0, 1.0)  # low = lit on a common-anode LED


@pytest.fixture
def buzzer(mock: MockHarness) -> MockPin:
    """The buzzer's pin of a panel just made (with the fast beeps), its history cleared."""
    mock.make()
    pin = mock.pin("buzzer")
    pin.clear_states()
    return pin


def beeps(pin: MockPin, n: int) -> bool:
    """Whether ``pin`` has gone on and off ``n`` times, waiting a while for it."""
    return wait_for(lambda: len(on_durations(pin)) == n)


def test_accepted_is_a_short_beep_and_illegal_a_long_one(
    mock: MockHarness, buzzer: MockPin
) -> None:
    mock.panel.sound("accepted")
    assert beeps(buzzer, 1)
    time.sleep(FAST.beep_short * 3)
    mock.panel.sound("illegal")
    assert beeps(buzzer, 2)
    short, long_ = on_durations(buzzer)
    assert short == pytest.approx(FAST.beep_short, abs=0.04)
    assert long_ == pytest.approx(FAST.beep_long, abs=0.06)
    assert not buzzer.state


def test_attention_is_three_beeps(mock: MockHarness, buzzer: MockPin) -> None:
    mock.panel.sound("attention")
    assert beeps(buzzer, 3)
    time.sleep(FAST.beep_short * 3)
    assert len(on_durations(buzzer)) == 3


def test_pins_come_from_the_config(mock: MockHarness) -> None:
    config = with_pins(FAST, end_turn=4, confirm=26, buzzer=21)
    mock.make(config)
    mock.factory.pin(4).drive_low()
    mock.factory.pin(26).drive_low()
    assert mock.names() == ["end_turn", "confirm"]
    # The default pins are not used at all.
    assert mock.factory.pin(DEFAULT_PINS["end_turn"]).function == "input"
    mock.factory.pin(DEFAULT_PINS["end_turn"]).drive_low()
    assert mock.names() == ["end_turn", "confirm"]
    mock.panel.sound("accepted")
    assert beeps(mock.factory.pin(21), 1)


def test_a_release_before_hold_time_is_undo_not_host_menu(mock: MockHarness) -> None:
    mock.make(replace(FAST, hold_time=0.6))
    mock.hold("undo", 0.1)
    time.sleep(0.8)  # past hold_time: a late host_menu would have fired by now
    assert mock.names() == ["undo"]


def test_a_held_button_that_is_not_undo_fires_once(mock: MockHarness) -> None:
    mock.make()
    mock.hold("end_turn", FAST.hold_time + 0.2)
    assert mock.names() == ["end_turn"]


def test_bounce_time_and_pull_ups_are_set(mock: MockHarness) -> None:
    mock.make(replace(FAST, bounce_time=0.05))
    for name in ("end_turn", "confirm", "undo"):
        button = mock.panel.buttons[name]
        assert button.pull_up is True
        assert button.pin.bounce == pytest.approx(0.05)
        assert button.hold_time == pytest.approx(FAST.hold_time)


def test_close_releases_every_pin_for_reuse(mock: MockHarness) -> None:
    first = mock.make()
    first.show("ready")
    first.close()
    second = Controls(FAST, mock.events.append, pin_factory=mock.factory)
    try:
        mock.factory.pin(FAST.pins["confirm"]).drive_low()
        assert mock.names() == ["confirm"]
    finally:
        second.close()


def test_a_pin_in_use_is_a_clear_error() -> None:
    factory = MockFactory(pin_class=MockPWMPin)
    first = Controls(FAST, pin_factory=factory)
    try:
        with pytest.raises(ControlsError, match=r"cannot open the GPIO controls .*enabled = false"):
            Controls(FAST, pin_factory=factory)
    finally:
        first.close()


def test_pins_without_pwm_are_a_clear_error_and_release_what_was_opened() -> None:
    factory = MockFactory(pin_class=MockPin)
    with pytest.raises(ControlsError, match="cannot open the GPIO controls"):
        Controls(FAST, pin_factory=factory)
    # The buttons opened before the failure were closed again: their pins are free.
    factory.pin_class = MockPWMPin
    factory.reset()
    Controls(FAST, pin_factory=factory).close()


def test_open_controls_builds_real_controls_when_enabled() -> None:
    factory = MockFactory(pin_class=MockPWMPin)
    panel = open_controls(ControlsConfig(enabled=True), pin_factory=factory)
    try:
        assert isinstance(panel, Controls)
    finally:
        panel.close()
