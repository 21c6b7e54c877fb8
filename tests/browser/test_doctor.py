"""The host page's 点検 (set-up check), in Japanese: every line in words with its advice (no id,
code or placeholder on the page), the test card on the reader, and the buttons ticked as the
box sends them, the LED and buzzer confirmed by the host."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from companion.controls import FakeControls
from companion.controls.table import TableControls
from companion.doctor.checks import CODES
from companion.doctor.live import ControlsWatch, Devices, ReaderWatch
from companion.doctor.probes import FakeClock
from companion.reader.protocol import Hello

from .conftest import Server
from .targets import too_small
from .test_dashboard import host_page
from .test_phone_game import latin_words

JA = json.loads(
    (Path(__file__).resolve().parents[2] / "web/static/i18n/ja.json").read_text("utf-8")
)


class Transport:
    connected = True
    hello = Hello("1.2", "rc522")

    def send(self, make: Any) -> int:
        return 1


def test_the_host_checks_the_box_in_japanese(server: Server, phone: Any) -> None:
    from playwright.sync_api import expect

    table = TableControls(server.service)
    table.show_seconds = 0.05
    panel = FakeControls(callback=table.on_button)
    table.start(panel)
    try:
        devices = Devices(server.store.dir, clock=FakeClock(False))
        devices.reader = ReaderWatch("/dev/ttr-reader")
        devices.reader.transport = Transport()
        devices.controls = ControlsWatch(enabled=True)
        devices.controls.attach(table)
        server.app.extensions["companion.doctor"] = devices

        host = host_page(phone, server, "ja-JP")
        expect(host.locator("#doctor-panel h2")).to_have_text(JA["section.doctor"])
        host.click("#doctor-run")
        rows = host.locator("#doctor-checks li")
        expect(rows.first).to_be_visible()
        text = host.inner_text("#doctor")
        # each line in words: its name, its state and its sentence with the params filled
        assert JA["doctor.label.reader.firmware"] in text
        assert JA["doctor.reader.firmware_ok"].format(version="1.2", chip="rc522") in text
        assert JA["doctor.label.clock.sync"] in text and JA["doctor.clock.sync_no"] in text
        assert JA["doctor.storage.backup_none"] in text
        assert JA["doctor.status_warn"] in text and JA["doctor.status_ok"] in text
        expect(host.locator("#doctor-checks li[data-status=warn]").first).to_be_visible()
        for cid in CODES:
            assert cid not in text
        assert "doctor." not in text and "{" not in text and "_" not in text
        assert latin_words(host) == [] and too_small(host) == [], too_small(
            host
        )  # programs' versions and the OS are marked as such

        # the test card
        host.click("#doctor-reader-test")
        waiting = JA["doctor.reader_waiting"].split("（")[0]
        expect(host.locator("#doctor-reader-state")).to_contain_text(waiting)
        assert devices.reader.tapped("04A224B2C15E80")
        done = JA["doctor.reader.tap_ok"].split("}")[-1]  # the words after the seconds
        expect(host.locator("#doctor-reader-state")).to_contain_text(done)

        # the buttons, LED and buzzer
        host.click("#doctor-controls-test")
        expect(host.locator("#doctor-buttons li[data-seen=no]")).to_have_count(3)
        panel.press("end_turn")
        expect(host.locator("#doctor-buttons li[data-seen=yes]")).to_have_count(1)
        expect(host.locator("#doctor-buttons li[data-seen=yes]")).to_contain_text(
            JA["doctor.button.end_turn"]
        )
        panel.press("confirm")
        panel.press("undo")
        expect(host.locator("#doctor-buttons li[data-seen=yes]")).to_have_count(3)
        expect(host.locator("#doctor")).to_contain_text(JA["doctor.controls_all"])
        host.click("#doctor-led-no")
        expect(host.locator("#doctor-led")).to_have_text(JA["doctor.controls_led_bad"])
        assert latin_words(host) == [] and too_small(host) == [], too_small(host)
        assert "illegal" in panel.shown and "host_menu" in panel.shown  # red and white shown
        assert host.js_errors == []
    finally:
        table.stop()
