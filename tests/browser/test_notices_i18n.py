"""Notices, camera questions and announcements arrive as codes and show in the page's language."""

from __future__ import annotations

from typing import Any

from .conftest import Server
from .test_dashboard import api, blue_owns_42_trains, ready, two_player_game


def _toasts(page: Any, needle: str) -> str:
    # (a locator, not wait_for_function: polling a function is an eval, refused by the CSP)
    from playwright.sync_api import expect

    expect(page.locator("#toasts .toast", has_text=needle).first).to_be_attached(timeout=10000)
    return " | ".join(page.locator("#toasts .toast").all_text_contents())


def observe(server: Server, observation: dict[str, str]) -> Any:
    """What the camera or the card reader would report, as the service answers it."""
    return api(server, "POST", "/api/observations", observation)


def test_notices_are_translated(server: Server, phone: Any) -> None:
    two_player_game(server)
    page = phone("ja-JP")
    ready(page, server.url + "/")
    page.wait_for_selector("#conn:not(.off)")
    # a camera sighting of a colour nobody plays: vetoed
    out = observe(server, {"kind": "claim_seen", "route": "berlin-wien", "color": "yellow"})
    assert out["result"] == "vetoed"
    text = _toasts(page, "このゲームに黄のプレイヤーはいません")
    assert "camera saw" not in text
    # red's trains seen while blue has not played: a question, with its reason translated
    out = observe(server, {"kind": "claim_seen", "route": "berlin-wien", "color": "red"})
    assert out["result"] == "pending"
    # (players named, not colours)
    text = _toasts(page, "確認してください：B（赤）がベルリン – ウィーンを取りましたか？")
    assert "今はA（青）の手番で、A（青）はまだ何もしていません。" in text
    # a card tapped twice
    for _ in range(2):
        observe(server, {"kind": "card_tapped", "card": "red", "uid": "04AA"})
    _toasts(page, "この支払いで既にタッチされています")
    assert page.js_errors == []


def test_the_final_round_announcement_is_translated(server: Server, phone: Any) -> None:
    two_player_game(server)
    blue_owns_42_trains(server)  # then a 1-train claim
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
