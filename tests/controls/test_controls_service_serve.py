"""`companion serve` and the controls: wired on mock pins, a one-line warning without GPIO."""

from __future__ import annotations

import re
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from controls_harness import FAST, on_real_pi, wait_for

from companion.commands.devices import start_controls
from companion.service import Actor, Service
from companion.store import EventStore
from tests.serving import serve_cmd

PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]


def test_serve_wires_the_configured_pins_to_the_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    factory = MockFactory(pin_class=MockPWMPin)
    store = EventStore(tmp_path)
    svc = Service(store).start()
    table = start_controls(svc, FAST, pin_factory=factory)
    try:
        assert table is not None
        assert "buttons on GPIO17/27/22" in capsys.readouterr().out
        # no first tickets entered at this table: turns do not wait for them
        svc.act({"type": "new_game", "players": PLAYERS, "tickets_tracked": False}, Actor.host())
        assert wait_for(lambda: table.panel is not None and table.panel.status == "ready")
        pin = factory.pin(FAST.pins["end_turn"])
        pin.drive_low()
        time.sleep(0.05)
        pin.drive_high()
        assert wait_for(lambda: svc.state()["current"] == "blue")
    finally:
        if table is not None:
            table.stop()
        svc.stop()
        store.close()
    names = ("led_red", "led_green", "led_blue", "buzzer")
    assert all(not factory.pin(FAST.pins[n]).state for n in names)  # all off after stop


@pytest.mark.skipif(on_real_pi(), reason="a Raspberry Pi has GPIO")
def test_without_gpio_serve_warns_in_one_line_and_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = EventStore(tmp_path)
    svc = Service(store).start()
    try:
        assert start_controls(svc, FAST) is None
        err = capsys.readouterr().err
        assert err.count("\n") == 1
        assert err.startswith("companion: warning: no buttons, LED or buzzer: ")
        assert "enabled = false" in err
        svc.act({"type": "new_game", "players": PLAYERS}, Actor.host())  # the game goes on
        assert svc.state()["current"] == "red"
    finally:
        svc.stop()
        store.close()


def run_serve(tmp_path: Path, *extra: str) -> tuple[str, str]:
    """Start `companion serve` with [controls] enabled, check it answers, stop it."""
    config = tmp_path / "companion.toml"
    config.write_text("[controls]\nenabled = true\n", encoding="utf-8")
    proc = subprocess.Popen(
        serve_cmd(tmp_path / "state", "--config", str(config), "--no-qr", "--no-devices", *extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        out_lines: list[str] = []
        base = ""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not base:
            line = proc.stdout.readline()
            if not line:
                break
            out_lines.append(line)
            m = re.search(r"serving on (http://127\.0\.0\.1:\d+)/", line)
            if m:
                base = m.group(1)
        assert base, "the server did not start"
        ok = False
        while time.monotonic() < deadline and not ok:
            try:
                with urllib.request.urlopen(base + "/api/health", timeout=2) as r:
                    ok = r.status == 200
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.05)
        assert ok, "the server never answered /api/health"
        proc.send_signal(signal.SIGTERM)
        rest, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)
    assert proc.returncode == 0
    return "".join(out_lines) + rest, err


@pytest.mark.skipif(on_real_pi(), reason="a Raspberry Pi has GPIO")
def test_serve_with_controls_enabled_but_no_gpio_starts_with_one_warning(tmp_path: Path) -> None:
    out, err = run_serve(tmp_path)
    warnings = [line for line in err.splitlines() if "buttons" in line]
    assert len(warnings) == 1, err
    assert warnings[0].startswith("companion: warning: no buttons, LED or buzzer: ")
    assert "PinFactoryFallback" not in err and "Traceback" not in err
    assert "buttons on GPIO" not in out


def test_serve_no_controls_opens_no_pins(tmp_path: Path) -> None:
    out, err = run_serve(tmp_path, "--no-controls")
    assert "buttons" not in err and "buttons" not in out
    assert "Traceback" not in err


def test_the_confirm_pin_opens_a_host_claim_window_shown_on_the_led(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A box with no host device: the confirm button (a mock pin pressed), nothing to confirm,
    opens the claim window; the LED blinks magenta (host_claim) until a phone claims."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from companion.hosts import HostAccess

    factory = MockFactory(pin_class=MockPWMPin)
    store = EventStore(tmp_path)
    svc = Service(store).start()
    access = HostAccess("host-token-for-the-claim-test", tmp_path)
    table = start_controls(svc, FAST, pin_factory=factory, claims=access)
    try:
        assert table is not None
        assert wait_for(lambda: table.panel is not None and table.panel.status == "ready")
        pin = factory.pin(FAST.pins["confirm"])
        pin.drive_low()
        time.sleep(0.05)
        pin.drive_high()
        assert wait_for(lambda: access.window_left() > 0)
        assert wait_for(lambda: table.panel is not None and table.panel.status == "host_claim")
        assert access.claim() is not None and access.has_host()
        assert wait_for(lambda: table.panel is not None and table.panel.status == "ready")
        # now the box has a host: the confirm pin opens nothing (with no game: refused, red)
        pin.drive_low()
        time.sleep(0.05)
        pin.drive_high()
        assert wait_for(lambda: table.panel is not None and table.panel.status == "illegal")
        assert access.window_left() == 0
    finally:
        if table is not None:
            table.stop()
        svc.stop()
        store.close()
