"""The contract every StatusPanel keeps: the fake, gpiozero's mock pins and (marked) a real Pi."""

from __future__ import annotations

import time

import pytest
from controls_harness import FAST, Harness, wait_for

from companion.config import ControlsConfig
from companion.controls import (
    LED_PATTERNS,
    SOUNDS,
    STATUSES,
    ButtonPressed,
    FakeControls,
    open_controls,
)


def needs_buttons(harness: Harness) -> None:
    if not harness.can_press:
        pytest.skip(f"the {harness.name} harness cannot press buttons")


def test_starts_off_and_shows_every_status(harness: Harness) -> None:
    panel = harness.make()
    assert panel.status == "off"
    for status in STATUSES:
        panel.show(status)
        assert panel.status == status
        led = getattr(panel, "led", None)  # the real LED reads back what it was set to
        if led is not None and LED_PATTERNS[status].on_time is None:
            assert led.value == pytest.approx(LED_PATTERNS[status].color)


def test_unknown_status_and_sound_are_refused_and_change_nothing(harness: Harness) -> None:
    panel = harness.make()
    panel.show("ready")
    with pytest.raises(ValueError, match="unknown LED status 'party'"):
        panel.show("party")
    with pytest.raises(ValueError, match="unknown sound 'fanfare'"):
        panel.sound("fanfare")
    assert panel.status == "ready"


def test_every_sound_is_accepted(harness: Harness) -> None:
    panel = harness.make()
    for kind in SOUNDS:
        panel.sound(kind)


@pytest.mark.parametrize("button", ["end_turn", "confirm", "undo"])
def test_a_short_press_emits_its_button(harness: Harness, button: str) -> None:
    needs_buttons(harness)
    harness.make()
    before = time.monotonic()
    harness.press(button)
    assert wait_for(lambda: len(harness.events) == 1)
    event = harness.events[0]
    assert isinstance(event, ButtonPressed)
    assert event.button == button
    assert before <= event.at <= time.monotonic()


def test_holding_undo_opens_the_host_menu_and_does_not_undo(harness: Harness) -> None:
    needs_buttons(harness)
    harness.make()
    harness.hold("undo", FAST.hold_time + 0.3)
    assert wait_for(lambda: len(harness.events) >= 1)
    time.sleep(0.05)  # a stray undo after the release would arrive now
    assert harness.names() == ["host_menu"]


def test_presses_arrive_in_order(harness: Harness) -> None:
    needs_buttons(harness)
    harness.make()
    for button in ["confirm", "end_turn", "undo", "confirm"]:
        harness.press(button)
    assert wait_for(lambda: len(harness.events) == 4)
    assert harness.names() == ["confirm", "end_turn", "undo", "confirm"]


def test_a_failing_callback_is_logged_and_later_presses_still_arrive(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    needs_buttons(harness)
    calls: list[str] = []

    def flaky(event: ButtonPressed) -> None:
        calls.append(event.button)
        if len(calls) == 1:
            raise RuntimeError("boom")

    harness.make()
    harness.panel._emit._callback = flaky
    harness.press("confirm")
    harness.press("end_turn")
    assert wait_for(lambda: len(calls) == 2)
    assert calls == ["confirm", "end_turn"]
    assert "button callback failed on confirm" in caplog.text


def test_close_turns_the_panel_off(harness: Harness) -> None:
    panel = harness.make()
    panel.show("ready")
    panel.close()
    panel.close()  # twice is fine


def test_open_controls_gives_a_recording_fake_when_disabled() -> None:
    events: list[ButtonPressed] = []
    panel = open_controls(ControlsConfig(enabled=False), events.append)
    assert isinstance(panel, FakeControls)
    panel.show("waiting_for_tap")
    panel.sound("accepted")
    panel.press("end_turn")
    assert panel.shown == ["waiting_for_tap"]
    assert panel.sounds == ["accepted"]
    assert [e.button for e in events] == ["end_turn"]


def test_fake_refuses_buttons_that_do_not_exist() -> None:
    fake = FakeControls()
    with pytest.raises(ValueError, match="no button 'start'"):
        fake.press("start")
    with pytest.raises(ValueError, match="only the undo button"):
        fake.hold("confirm")
