"""Notices, camera questions and announcements arrive as codes and show in the page's language."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import Server
from .test_dashboard import api, ready, two_player_game


def _toasts(page: Any, needle: str) -> str:
    # (a locator, not wait_for_function: polling a function is an eval, refused by the CSP)
    from playwright.sync_api import expect

    expect(page.locator("#toasts .toast", has_text=needle).first).to_be_attached(timeout=10000)
    return " | ".join(page.locator("#toasts .toast").all_text_contents())


def test_notices_are_translated(server: Server, phone: Any) -> None:
    two_player_game(server)
    page = phone("ja-JP")
    ready(page, server.url + "/")
    page.wait_for_selector("#conn:not(.off)")
    # a camera sighting of a colour nobody plays: vetoed
    out = api(
        server,
        "POST",
        "/api/observations",
        {"kind": "claim_seen", "route": "berlin-wien", "color": "yellow"},
    )
    assert out["result"] == "vetoed"
    text = _toasts(page, "このゲームに黄のプレイヤーはいません")
    assert "camera saw" not in text
    # red's trains seen while blue has not played: a question, with its reason translated
    out = api(
        server,
        "POST",
        "/api/observations",
        {"kind": "claim_seen", "route": "berlin-wien", "color": "red"},
    )
    assert out["result"] == "pending"
    # (players named, not colours)
    text = _toasts(page, "確認してください：B（赤）がベルリン – ウィーンを取りましたか？")
    assert "今はA（青）の手番で、A（青）はまだ何もしていません。" in text
    # a card tapped twice
    for _ in range(2):
        api(
            server,
            "POST",
            "/api/observations",
            {"kind": "card_tapped", "card": "red", "uid": "04AA"},
        )
    _toasts(page, "この支払いで既にタッチされています")
    assert page.js_errors == []


def test_the_final_round_announcement_is_translated(server: Server, phone: Any) -> None:
    two_player_game(server)
    # blue's routes worth 42 trains (the board as the host corrected it), then a 1-train claim
    data = json.loads(
        (Path(__file__).resolve().parents[2] / "companion/data/europe.json").read_text()
    )
    routes: dict[str, str] = {}
    total = 0
    pairs: set[frozenset[str]] = set()
    for r in sorted(data["routes"], key=lambda r: -r["length"]):
        ends = frozenset((r["a"], r["b"]))
        if ends in pairs or total + r["length"] > 42 or r["id"] == "dieppe-paris":
            continue
        pairs.add(ends)
        routes[r["id"]] = "blue"
        total += r["length"]
    api(server, "POST", "/api/actions", {"type": "set_board", "routes": routes, "stations": {}})
    page = phone("ja-JP")
    ready(page, server.url + "/")
    page.wait_for_selector("#conn:not(.off)")
    # the claim is the whole turn: the final round begins as it ends (an end_turn after it
    # changes nothing)
    api(
        server, "POST", "/api/actions", {"type": "claim", "player": "blue", "route": "dieppe-paris"}
    )
    api(server, "POST", "/api/actions", {"type": "end_turn", "player": "blue"})
    state = api(server, "GET", "/api/state")
    assert state["announcement_code"] == "final.round"
    assert state["announcement_params"] == {"name": "A", "color": "blue", "n": 2}
    assert state["announcement"].startswith("Final round: A (blue) has 2 trains left.")
    page.wait_for_selector("#announcement")
    assert page.inner_text("#announcement") == (
        "最終ラウンド：A（青）の列車は残り2両。全員があと1手番ずつ行い、Aの手番で終わります。"
    )
    _toasts(page, "最終ラウンド：A（青）")  # the notice of the moment, translated too
    page.click("#lang")
    from playwright.sync_api import expect

    expect(page.locator("html")).to_have_attribute("lang", "en")
    assert page.inner_text("#announcement") == (
        "Final round: A (blue) has 2 trains left. Everyone plays one last turn, ending with A."
    )
    assert page.js_errors == []


def test_a_refusal_shows_from_its_code_in_the_pages_language(server: Server, phone: Any) -> None:
    from .test_dashboard import host_page

    two_player_game(server)
    api(server, "POST", "/api/actions", {"type": "set_payment_mode", "payment_mode": "strict"})
    host = host_page(phone, server, "ja-JP")
    host.wait_for_selector("#whose-turn[data-color=blue]")
    # a grey route confirmed with no card tapped: strict payments refuse it, in Japanese
    host.select_option("#route-select", "marseille-paris")
    host.click("#claim-go")
    # which cards pay: any one colour, four of them
    text = _toasts(host, "をリーダーにタッチしてください")
    assert "マルセイユ – パリの支払い（好きな1色の列車カード4枚）" in text
    assert "tap the cards" not in text.lower()
    assert host.js_errors == []
