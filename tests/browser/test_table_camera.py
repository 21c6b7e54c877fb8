"""The table camera's guided set-up on the host's page, in Japanese: step 1 refused while the
camera sees no board (the refusal in the page's words), then the empty board learnt from a
simulated camera's frames, each colour's line in plain words; the table view has no such panel."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from companion.service.profile_store import settings

from .conftest import Server
from .test_dashboard import host_page, ready

JA = json.loads(
    (Path(__file__).resolve().parents[2] / "web/static/i18n/ja.json").read_text("utf-8")
)


def test_the_host_learns_the_empty_board_on_the_host_page(
    server: Server, phone: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from playwright.sync_api import expect

    from companion.sim.render import BoardRenderer, Scene, random_view

    monkeypatch.setitem(settings()["empty"], "spacing", 0.0)
    monkeypatch.setitem(settings()["empty"], "wait", 0.3)
    profiles = server.service.attach_camera("v4l2:/dev/video0")
    host = host_page(phone, server, "ja-JP")
    expect(host.locator("#table-step")).to_have_text(JA["table.step_empty"])
    host.click("#table-learn")  # no clean frame yet
    expect(host.locator("#table-message")).to_have_text(JA["notice.camera.table_no_board"])
    renderer = BoardRenderer()
    view = random_view(np.random.default_rng(302), (1280, 720))
    for i in (1, 2, 3):
        look = renderer.render_frame(Scene(seed=2), view, np.random.default_rng(i))
        profiles.seen(look.image, look.corners)
    host.click("#table-learn")
    expect(host.locator("#table-step")).to_have_text(JA["table.empty_looks"].format(n=3))
    expect(host.locator(".table-colours li")).to_have_count(5)
    expect(host.locator("#table-forget")).to_be_visible()
    text = host.inner_text("#table-camera")
    assert JA["table.verdict_learning"] in text
    assert "table." not in text and "notice." not in text and "{" not in text
    table = phone("ja-JP")
    ready(table, server.url + "/")
    assert table.locator("#table-camera").count() == 0
    assert host.js_errors == [] and table.js_errors == []
