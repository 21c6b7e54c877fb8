"""The host page shows the lessons the table camera set aside (trains that looked like another
colour or the empty board) and those it took back when the host corrected or undid a claim, in
the page's language (Japanese here)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from companion.vision.decide import profile as prof
from companion.vision.decide.context import default_context

from .conftest import Server
from .test_dashboard import host_page

JA = json.loads(
    (Path(__file__).resolve().parents[2] / "web/static/i18n/ja.json").read_text("utf-8")
)


def test_the_host_sees_lessons_set_aside_and_taken_back(server: Server, phone: Any) -> None:
    from playwright.sync_api import expect

    profiles = server.service.attach_camera("v4l2:/dev/video0")
    n = len(default_context().info.printed_index[1])
    look = np.random.default_rng(0).normal(50, 5, (n, 8))
    profile = prof.TableProfile("v4l2:/dev/video0", look, look * look, 3)
    black = default_context().model.plastic["black"]
    profile.add_trains("black", np.tile(black, (6, 1)))
    profile.set_aside = {"black": 2}
    profiles.profile = profile
    profiles.taken_out = 1
    host = host_page(phone, server, "ja-JP")
    row = host.locator('.table-colours li[data-color="black"]')
    expect(row).to_contain_text(JA["table.set_aside"].format(n=2))
    expect(host.locator("#table-taken-out")).to_have_text(JA["table.taken_out"].format(n=1))
    assert host.locator('.table-colours li[data-color="red"] [data-set-aside]').count() == 0
    text = host.inner_text("#table-camera")
    assert "table." not in text and "{" not in text
    assert host.js_errors == []
