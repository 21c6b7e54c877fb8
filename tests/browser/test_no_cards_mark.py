"""A claim entered with no cards at a lenient table leaves a mark the host sees and accepts
(issue 23), on 360 x 740 phones in Japanese."""

from __future__ import annotations

import re
from typing import Any

from .conftest import HOST_TOKEN, Server
from .test_dashboard import api, new_game, ready
from .test_phone_game import Phone, shot


def test_a_claim_with_no_cards_is_marked_on_the_host_page(
    server: Server, needs_browser: Any
) -> None:
    from playwright.sync_api import expect

    players = [{"name": "Aki", "color": "blue"}, {"name": "Ben", "color": "red"}]
    keeps = {
        "blue": ["paris-wien", "frankfurt-kobenhavn"],
        "red": ["berlin-roma", "brest-marseille"],
    }
    new_game(server, players, keeps)
    assert api(server, "GET", "/api/state")["payment_mode"] == "lenient"
    host, aki = Phone(needs_browser), Phone(needs_browser)
    try:
        ready(host.page, f"{server.url}/host/login?token={HOST_TOKEN}")
        ready(aki.page, api(server, "POST", "/api/players/blue/pair", {})["url"])
        aki.page.wait_for_selector("#whose-turn[data-color=blue]")
        aki.route("berlin-wien")
        aki.tap("#claim-nocards")
        item = host.page.locator("#problems li[data-place='berlin-wien']")
        expect(item).to_contain_text("Aki：ベルリン – ウィーンの支払いの")
        assert item.inner_text().count("ベルリン") == 1  # the place said once
        expect(item).to_contain_text("カードが入力されていません")
        expect(item).to_contain_text("緑の列車カード3枚")
        expect(host.page.locator("#problems")).to_contain_text("テーブルが認める支払いは")
        words = re.findall(r"[A-Za-z]+", host.page.inner_text("#problems"))
        assert set(words) <= {"Aki"}, words
        shot(host.page, "ja-host-no-cards", top="#problems")
        # the host's log marks the claim too
        expect(host.page.locator(".problem-mark").first).to_be_visible()
        item.locator("button[data-accept]").click()
        expect(host.page.locator("#problems li")).to_have_count(0)
        assert api(server, "GET", "/api/state")["problems"] == []
    finally:
        host.ctx.close()
        aki.ctx.close()
