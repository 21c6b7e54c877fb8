"""The set-up check on the host's page (see API.md, "Set-up check (host)"): the same lines as
``companion doctor``, from the running service's own devices (``companion.doctor.live``), and
the two steps a person does: a test card on the reader, and each button pressed while the LED
shows its colours and the buzzer beeps."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify

from companion.service import Service
from companion.service.errors import Conflict

from .security import require

bp = Blueprint("doctor", __name__, url_prefix="/api/doctor")

KEY = "companion.doctor"


def devices() -> Any:
    """The app's ``doctor.live.Devices`` (given as the ``DOCTOR`` config, else one with no
    camera, reader or controls, over the service's state directory)."""
    found = current_app.extensions.get(KEY)
    if found is None:
        from companion.doctor.live import Devices

        svc: Service = current_app.extensions["companion.service"]
        found = Devices(getattr(svc.store, "dir", None))
        current_app.extensions[KEY] = found
    return found


@bp.get("")
@require("host")
def checks() -> Response:
    from companion.doctor import report

    lines = devices().checks()
    if lines is None:
        raise Conflict("A check is already running; wait until it ends.", code="doctor.busy")
    return jsonify(report(lines))


def _reader_watch() -> Any:
    """The card test of the reader; a Conflict when no card reader is connected."""
    watch = devices().reader
    if watch is None:
        raise Conflict("No card reader is connected to this box.", code="doctor.no_reader")
    return watch


def _controls_watch() -> Any:
    """The button test; a Conflict when the box uses no buttons, LED or buzzer."""
    watch = devices().controls
    if watch.table is None:
        raise Conflict(
            "This box does not use buttons, an LED or a buzzer.", code="doctor.no_controls"
        )
    return watch


def _armed(watch: Any, seconds: float) -> Response:
    """Start the test ``watch`` for ``seconds``: its state and the seconds."""
    watch.arm(seconds)
    return jsonify({**watch.state(), "seconds": seconds})


@bp.post("/reader-test")
@require("host")
def reader_test() -> Response:
    from companion.doctor import settings

    return _armed(_reader_watch(), float(settings()["reader"]["tap_seconds"]))


@bp.get("/reader-test")
@require("host")
def reader_test_state() -> Response:
    return jsonify(_reader_watch().state())


@bp.post("/controls-test")
@require("host")
def controls_test() -> Response:
    from companion.doctor import settings

    return _armed(_controls_watch(), float(settings()["controls"]["test_seconds"]))


@bp.get("/controls-test")
@require("host")
def controls_test_state() -> Response:
    return jsonify(_controls_watch().state())
