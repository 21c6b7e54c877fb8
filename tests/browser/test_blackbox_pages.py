"""The black box on the pages, in Japanese: the host's section (space used, the recorded game,
「問題を報告」's download) and the history's photo beside the map at the replay's position, with
the time-lapse to download; no raw key or id on the page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from companion.blackbox.recorder import Settings, for_service
from tests.blackbox_fakes import Frame, Watcher

from .conftest import HOST_TOKEN, Server
from .targets import too_small
from .test_dashboard import host_page, ready
from .test_phone_game import latin_words

JA = json.loads(
    (Path(__file__).resolve().parents[2] / "web/static/i18n/ja.json").read_text("utf-8")
)
PLAYERS = [{"name": "アキ", "color": "red"}, {"name": "ベン", "color": "blue"}]
BEARER = {"Authorization": f"Bearer {HOST_TOKEN}"}


def test_host_section_and_history_photos(server: Server, phone: Any) -> None:
    from playwright.sync_api import expect

    svc = server.service
    box = for_service(svc, server.store.dir, Settings(), camera="")  # as serve wires it
    watcher = Watcher()
    shown = [0]

    def look() -> None:
        i = shown[0]
        image = np.full((90, 160, 3), 40 + 30 * i, np.uint8)
        box.look(Frame(image, float(i), i), watcher, [])
        shown[0] += 1

    from companion.service import Actor

    try:
        svc.act({"type": "new_game", "variant": "europe", "players": PLAYERS}, Actor.host())
        look()
        for color, tickets in (
            ("red", ["paris-wien", "brest-marseille"]),
            ("blue", ["budapest-zurich", "brindisi-zurich"]),
        ):
            svc.act({"type": "keep_tickets", "player": color, "tickets": tickets}, Actor.host())
            look()
        claim = {"type": "claim", "player": "red", "route": "berlin-wien", "cards": ["green"] * 3}
        svc.act(claim, Actor.host())
        look()
        assert box.flush()
        host = host_page(phone, server, "ja-JP")
        panel = host.locator("#blackbox")
        expect(panel.locator("#blackbox-games li")).to_have_count(1)
        expect(host.locator("#blackbox-report")).to_have_text(JA["blackbox.report"])
        href = host.get_attribute("#blackbox-report", "href")
        assert href is not None and href.startswith("/api/blackbox/report?game=")
        text = host.inner_text("#blackbox")
        assert JA["blackbox.current"] in text and "blackbox." not in text and "{" not in text
        assert latin_words(host) == [] and too_small(host) == [], too_small(host)
        # the report downloads from the page
        with host.expect_download() as dl:
            host.click("#blackbox-report")
        assert dl.value.suggested_filename.startswith("companion-report-")
        # the history: the photo at the replay's position, and the time-lapse
        ready(host, server.url + "/history")
        host.click("#history li button")
        expect(host.locator("#replay-photo img")).to_have_count(1)
        src = host.get_attribute("#replay-photo img", "src")
        assert src is not None and "/frames/" in src
        loaded = host.evaluate(
            "() => new Promise((ok) => { const i = document.querySelector('#replay-photo img');"
            " if (i.complete) ok(i.naturalWidth); else i.onload = () => ok(i.naturalWidth); })"
        )
        assert loaded == 160
        expect(host.locator("#replay-photo a")).to_have_text(JA["history.timelapse"])
        assert latin_words(host) == [] and too_small(host) == [], too_small(host)
        assert host.js_errors == []
    finally:
        box.stop()
