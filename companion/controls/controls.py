"""Buttons, the RGB status LED and the buzzer on the Pi's GPIO header (gpiozero).

:class:`Controls` drives the real parts through a gpiozero pin factory (the Pi's default
factory, or ``gpiozero.pins.mock.MockFactory`` in tests). :class:`FakeControls` is its twin for
machines without GPIO: it records what it was asked to show and sound, and ``press()`` /
``hold()`` play the buttons. Both keep the same contract, so the same tests run on either.

Button events reach the service through one callback, called with a :class:`ButtonPressed`:

- ``end_turn`` and ``confirm`` when the button goes down;
- ``undo`` when the undo button comes up before ``hold_time``;
- ``host_menu`` once when the undo button has been held for ``hold_time`` (its release then
  sends nothing).

The callback runs on gpiozero's thread: keep it short (put the event on a queue).
"""

from __future__ import annotations

import logging
import threading
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from companion.config import ControlsConfig

logger = logging.getLogger(__name__)

BUTTON_EVENTS: tuple[str, ...] = ("end_turn", "confirm", "undo", "host_menu")
STATUSES: tuple[str, ...] = (
    "off",
    "ready",
    "waiting_for_tap",
    "illegal",
    "final_round",
    "host_menu",
    "host_claim",
)
SOUNDS: tuple[str, ...] = ("accepted", "illegal", "attention")


@dataclass(frozen=True)
class LedPattern:
    """An LED look: a colour (r, g, b in 0..1), steady or blinking."""

    color: tuple[float, float, float]
    on_time: float | None = None  # None: steady
    off_time: float | None = None


# What each status looks like. Colours are chosen to read apart for the common colour-vision
# deficiencies too: the blink rate carries the meaning as well as the hue.
LED_PATTERNS: Mapping[str, LedPattern] = {
    "off": LedPattern((0.0, 0.0, 0.0)),
    "ready": LedPattern((0.0, 1.0, 0.0)),  # steady green
    "waiting_for_tap": LedPattern((0.0, 0.0, 1.0), on_time=0.5, off_time=0.5),  # slow blue blink
    "illegal": LedPattern((1.0, 0.0, 0.0), on_time=0.15, off_time=0.15),  # fast red blink
    "final_round": LedPattern((1.0, 0.35, 0.0)),  # steady amber
    "host_menu": LedPattern((1.0, 1.0, 1.0), on_time=1.0, off_time=0.25),  # white, long on
    # a phone may become host now: magenta, short on / long off (host_menu's rhythm reversed)
    "host_claim": LedPattern((1.0, 0.0, 1.0), on_time=0.25, off_time=1.0),
}


@dataclass(frozen=True)
class ButtonPressed:
    """A button event: ``button`` is one of BUTTON_EVENTS; ``at`` is time.monotonic()."""

    button: str
    at: float


ButtonCallback = Callable[[ButtonPressed], None]


class ControlsError(RuntimeError):
    """The controls cannot be opened here; the message is one plain sentence."""


class StatusPanel(Protocol):
    """What the service uses: Controls and FakeControls both provide it."""

    @property
    def status(self) -> str: ...

    def show(self, status: str) -> None: ...

    def sound(self, kind: str) -> None: ...

    def close(self) -> None: ...


def _check_status(status: str) -> LedPattern:
    try:
        return LED_PATTERNS[status]
    except KeyError:
        raise ValueError(f"unknown LED status {status!r} (known: {', '.join(STATUSES)})") from None


def _check_sound(kind: str) -> None:
    if kind not in SOUNDS:
        raise ValueError(f"unknown sound {kind!r} (known: {', '.join(SOUNDS)})")


def beep_pattern(kind: str, config: ControlsConfig) -> tuple[float, float, int]:
    """(on seconds, off seconds, count) of a sound: short = accepted, long = illegal."""
    _check_sound(kind)
    if kind == "accepted":
        return (config.beep_short, config.beep_short, 1)
    if kind == "illegal":
        return (config.beep_long, config.beep_short, 1)
    return (config.beep_short, config.beep_short, 3)  # attention: three short beeps


class _UndoHold:
    """Turns the undo button's press/hold/release into exactly one undo or host_menu."""

    def __init__(self, emit: Callable[[str], None], is_pressed: Callable[[], bool]) -> None:
        self._emit = emit
        self._is_pressed = is_pressed
        self._lock = threading.Lock()
        self._held = False

    def pressed(self) -> None:
        with self._lock:
            self._held = False

    def held(self) -> None:
        with self._lock:
            if self._held or not self._is_pressed():
                return
            self._held = True
        self._emit("host_menu")

    def released(self) -> None:
        with self._lock:
            was_held = self._held
            self._held = False
        if not was_held:
            self._emit("undo")


class _Emitter:
    def __init__(self, callback: ButtonCallback | None, clock: Callable[[], float]) -> None:
        self._callback = callback
        self._clock = clock

    def __call__(self, button: str) -> None:
        event = ButtonPressed(button, self._clock())
        logger.debug("button %s", button)
        if self._callback is None:
            return
        try:
            self._callback(event)
        except Exception:  # a handler bug must not kill gpiozero's thread
            logger.exception("the button callback failed on %s", button)


class Controls:
    """The real buttons, RGB LED and buzzer, on the pins of a ControlsConfig."""

    def __init__(
        self,
        config: ControlsConfig,
        callback: ButtonCallback | None = None,
        pin_factory: Any = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        try:
            from gpiozero import RGBLED, Button, Buzzer
            from gpiozero.exc import GPIOZeroError
        except ImportError:
            raise ControlsError(
                "the controls need gpiozero, which is not installed: run `pip install gpiozero` "
                "or set [controls] enabled = false"
            ) from None
        self.config = config
        self._emit = _Emitter(callback, clock)
        self._lock = threading.Lock()
        self._status = "off"
        self._devices: list[Any] = []
        pins = config.pins
        bounce = config.bounce_time or None
        try:
            with warnings.catch_warnings(record=True) as fallbacks:
                # gpiozero warns once per pin library it cannot load before it settles (or
                # gives up): keep that out of the terminal, the error below says it in one line.
                warnings.simplefilter("always")
                self._open(config, pin_factory, pins, bounce, Button, RGBLED, Buzzer)
            for w in fallbacks:
                logger.debug("gpiozero: %s", w.message)
        except GPIOZeroError as exc:
            self.close()
            raise ControlsError(
                f"cannot open the GPIO controls ({type(exc).__name__}: {exc}); is this a "
                "Raspberry Pi with python3-lgpio installed? Otherwise set [controls] "
                "enabled = false"
            ) from None
        except OSError as exc:
            self.close()
            raise ControlsError(
                f"cannot open the GPIO controls: {exc}; the service user needs the gpio group "
                "(scripts/install.sh adds it where the group exists: `sudo usermod -aG gpio "
                "companion`)"
            ) from None
        self.buttons["end_turn"].when_pressed = lambda: self._emit("end_turn")
        self.buttons["confirm"].when_pressed = lambda: self._emit("confirm")
        undo = self.buttons["undo"]
        self._undo = _UndoHold(self._emit, lambda: bool(undo.is_pressed))
        undo.when_pressed = self._undo.pressed
        undo.when_held = self._undo.held
        undo.when_released = self._undo.released

    def _open(
        self,
        config: ControlsConfig,
        pin_factory: Any,
        pins: Mapping[str, int],
        bounce: float | None,
        button_class: Any,
        led_class: Any,
        buzzer_class: Any,
    ) -> None:
        self.buttons: dict[str, Any] = {}
        for name in ("end_turn", "confirm", "undo"):
            button = button_class(
                pins[name],
                pull_up=True,
                bounce_time=bounce,
                hold_time=config.hold_time,
                pin_factory=pin_factory,
            )
            self._devices.append(button)
            self.buttons[name] = button
        self.led = led_class(
            pins["led_red"],
            pins["led_green"],
            pins["led_blue"],
            active_high=not config.led_common_anode,
            pwm=True,
            pin_factory=pin_factory,
        )
        self._devices.append(self.led)
        self.buzzer = buzzer_class(
            pins["buzzer"], active_high=config.buzzer_active_high, pin_factory=pin_factory
        )
        self._devices.append(self.buzzer)

    @property
    def status(self) -> str:
        return self._status

    def show(self, status: str) -> None:
        """Put the LED into one of STATUSES (steady or blinking in the background)."""
        pattern = _check_status(status)
        with self._lock:
            self._status = status
            if pattern.on_time is None:
                self.led.value = pattern.color
            else:
                self.led.blink(
                    on_time=pattern.on_time,
                    off_time=pattern.off_time or pattern.on_time,
                    fade_in_time=0,
                    fade_out_time=0,
                    on_color=pattern.color,
                    off_color=(0.0, 0.0, 0.0),
                    n=None,
                    background=True,
                )

    def sound(self, kind: str) -> None:
        """Beep in the background: ``accepted`` short, ``illegal`` long, ``attention`` 3 short."""
        on_time, off_time, count = beep_pattern(kind, self.config)
        with self._lock:
            self.buzzer.beep(on_time=on_time, off_time=off_time, n=count, background=True)

    def close(self) -> None:
        """Release every pin (LED and buzzer off). Safe to call twice."""
        for device in reversed(self._devices):
            try:
                device.close()
            except Exception:  # closing must go on for the other pins
                logger.exception("closing %r failed", device)
        self._devices.clear()

    def __enter__(self) -> Controls:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class FakeControls:
    """The twin of Controls without hardware: records what it shows and sounds.

    ``press(name)`` plays a short press of end_turn, confirm or undo; ``hold("undo")`` plays a
    long press (host_menu). Events go to the callback exactly as Controls sends them.
    """

    def __init__(
        self,
        config: ControlsConfig | None = None,
        callback: ButtonCallback | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config or ControlsConfig()
        self._emit = _Emitter(callback, clock)
        self._status = "off"
        self.shown: list[str] = []
        self.sounds: list[str] = []
        self.closed = False

    @property
    def status(self) -> str:
        return self._status

    @property
    def color(self) -> tuple[float, float, float]:
        """The LED's colour when lit for the current status."""
        return LED_PATTERNS[self._status].color

    def show(self, status: str) -> None:
        _check_status(status)
        self._status = status
        self.shown.append(status)

    def sound(self, kind: str) -> None:
        _check_sound(kind)
        self.sounds.append(kind)

    def press(self, button: str) -> None:
        if button not in ("end_turn", "confirm", "undo"):
            raise ValueError(f"no button {button!r} (buttons: end_turn, confirm, undo)")
        self._emit(button)

    def hold(self, button: str) -> None:
        if button != "undo":
            raise ValueError(f"only the undo button has a hold action, not {button!r}")
        self._emit("host_menu")

    def close(self) -> None:
        self.closed = True
        self._status = "off"

    def __enter__(self) -> FakeControls:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_controls(
    config: ControlsConfig, callback: ButtonCallback | None = None, pin_factory: Any = None
) -> Controls | FakeControls:
    """Controls when ``[controls] enabled``, else a FakeControls that only records."""
    if not config.enabled:
        return FakeControls(config, callback)
    return Controls(config, callback, pin_factory=pin_factory)
