"""Buttons, RGB status LED and buzzer (gpiozero). See companion/controls/README.md."""

from companion.controls.controls import (
    BUTTON_EVENTS,
    LED_PATTERNS,
    SOUNDS,
    STATUSES,
    ButtonPressed,
    Controls,
    ControlsError,
    FakeControls,
    StatusPanel,
    open_controls,
)

__all__ = [
    "BUTTON_EVENTS",
    "LED_PATTERNS",
    "SOUNDS",
    "STATUSES",
    "ButtonPressed",
    "Controls",
    "ControlsError",
    "FakeControls",
    "StatusPanel",
    "open_controls",
]
