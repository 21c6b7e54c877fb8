"""The dashboard in a phone-sized chromium: a short game, private tickets, Japanese UI."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

from .conftest import HOST_TOKEN, Server


def api(server: Server, method: str, path: str, body: Any = None, token: str = HOST_TOKEN) -> Any:
    req = urllib.request.Request(
        server.url + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=10) as res:
        return json.loads(res.read())


def ready(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")


def see(page: Any, selector: str, text: str, attr: str | None = None) -> None:
    """Wait until the element shows exactly this text (or attribute value)."""
    from playwright.sync_api import expect

    if attr:
        expect(page.locator(selector)).to_have_attribute(attr, text)
    else:
        expect(page.locator(selector)).to_have_text(text)


def see_none(page: Any, selector: str) -> None:
    from playwright.sync_api import expect

    expect(page.locator(selector)).to_have_count(0)


def watch_requests(page: Any, server: Server) -> list[str]:
    outside: list[str] = []

    def check(req: Any) -> None:
        if not (req.url.startswith(server.url) or req.url.startswith("data:")):
            outside.append(req.url)

    page.on("request", check)
    return outside


def host_page(phone: Any, server: Server, locale: str = "en-US") -> Any:
    page = phone(locale)
    ready(page, f"{server.url}/host/login?token={HOST_TOKEN}")
    assert page.url.endswith("/host")
    return page


def score_of(page: Any, color: str) -> str:
    return page.inner_text(f"#scores tr[data-color={color}] td.score")


def pair(host: Any, phone: Any, color: str) -> Any:
    host.click(f"[data-pair={color}]")
    url = host.get_attribute(f"a[data-pair-url={color}]", "href")
    assert url and "/pair/" in url
    assert host.locator(".qr svg").count() == 1
    host.click(".sheet .actions button")
    page = phone()
    ready(page, url)
    assert page.url.endswith("/me")
    return page


def keep(page: Any, color: str, tickets: list[str]) -> None:
    page.click(f"[data-keep={color}]")
    for t in tickets:
        page.check(f".sheet label[data-ticket='{t}'] input")
    page.click("#keep-go")
    for t in tickets:
        page.wait_for_selector(f"#my-tickets li[data-ticket='{t}']")


def test_short_game_on_phones(server: Server, phone: Any) -> None:
    host = host_page(phone, server)
    outside = watch_requests(host, server)

    # New game: two players, from the form.
    host.fill("#newgame input[data-i='0']", "Aki")
    host.fill("#newgame input[data-i='1']", "Ben")
    host.click("#newgame button[aria-label='Remove 3']")
    host.click("#start-game")
    host.wait_for_selector("#scores tr[data-color=red]")
    assert host.locator("#scores tbody tr").count() == 2

    # Each player pairs a phone by the QR link and keeps tickets privately.
    aki = pair(host, phone, "blue")
    ben = pair(host, phone, "red")
    keep(aki, "blue", ["paris-wien", "frankfurt-kobenhavn"])
    keep(ben, "red", ["berlin-roma", "brindisi-zurich"])
    host.wait_for_selector("#whose-turn[data-color=blue]")

    # The second phone cannot see the first one's tickets, not even by asking the API.
    assert "paris-wien" not in ben.content()
    assert "frankfurt-kobenhavn" not in ben.content()
    status = ben.evaluate("fetch('/api/players/blue/tickets').then(r => r.status)")
    assert status in (401, 403)
    assert host.inner_text("#scores tr[data-color=blue] td.held") == "2"

    # Aki claims Paris-Frankfurt by tapping the map on the phone, paying with the quick fill.
    aki.wait_for_selector("#whose-turn")
    assert "Your turn" in aki.inner_text("#whose-turn")
    aki.click("button.zoom[aria-label='Zoom in']")
    aki.click("g.route[data-route='frankfurt-paris-1'] .space >> nth=1")
    aki.wait_for_selector(".sheet")
    assert "Paris" in aki.inner_text(".sheet h2")
    assert "orange ×3" in aki.inner_text(".sheet .paid")  # a coloured route comes filled
    aki.click("#claim-go")
    see(host, "#scores tr[data-color=blue] td.score", "4")
    assert host.get_attribute("g.route[data-route='frankfurt-paris-1']", "data-owner") == "blue"
    assert host.inner_text("#scores tr[data-color=blue] td.trains") == "42"
    # Live ticket progress on Aki's phone: Paris-Wien not connected, the missing routes listed.
    aki.wait_for_selector("#my-tickets li[data-ticket='paris-wien'] .missing")
    assert (
        aki.get_attribute("#my-tickets li[data-ticket='paris-wien']", "data-completed") == "false"
    )
    host.wait_for_selector("#whose-turn[data-color=red]")  # the claim ended the turn

    # Ben's turn entered by the host: a tunnel, the three revealed cards, the surcharge, pay.
    host.select_option("#route-select", "munchen-zurich")
    host.click("#claim-go")
    host.wait_for_selector("#tunnel")
    for card in ("yellow", "locomotive", "blue"):  # the third card sends the reveal
        host.click(f"#tunnel .cards button[data-card={card}]")
    host.wait_for_selector("#tunnel .surcharge")
    assert re.search(r"2 more yellow", host.inner_text("#tunnel .surcharge"))
    host.click("#tunnel-pay")
    see(host, "#scores tr[data-color=red] td.score", "2")

    # Aki draws cards on the phone; Ben (host) builds a station, then the host undoes it.
    aki.wait_for_selector("#whose-turn[data-color=blue]")
    aki.click("#drew")  # one tap: the turn ends with it
    host.wait_for_selector("#whose-turn[data-color=red]")
    host.select_option("#city-select", "wien")
    host.click(".sheet .cards button[data-card=red]")
    host.click("#station-go")
    host.wait_for_selector("[data-station=wien]")
    assert host.inner_text("#scores tr[data-color=red] td.stations") == "2"
    aki.wait_for_selector("[data-station=wien]")  # live on the phones too
    host.click("#undo")
    see_none(host, "[data-station=wien]")
    assert host.inner_text("#scores tr[data-color=red] td.stations") == "3"

    # The score chart has one line per player.
    assert host.locator("#chart polyline").count() == 2

    # Finish: a breakdown per player, the longest trail drawn on the map.
    host.click("#finish")
    host.click("#finish-go")
    host.wait_for_selector("#final-panel:not(.hidden) .final-player")
    state = api(server, "GET", "/api/state")
    assert state["phase"] == "finished"
    for p in state["players"]:
        shown = host.get_attribute(f".final-player[data-color={p['color']}] .total", "data-total")
        assert shown == str(p["final"]["total"])
    host.click(".final-player[data-color=blue] .row button")
    assert host.locator(".highlights polyline").count() >= 1
    aki.wait_for_selector("#final-panel:not(.hidden) .final-player[data-color=blue]")
    # Ticket results are public once the game is finished.
    assert aki.locator(".final-player[data-color=red] ul.tickets li").count() == 2

    for page in (host, aki, ben):
        assert page.js_errors == []
    assert outside == []


def test_guest_sees_no_tickets_and_cannot_act(server: Server, phone: Any) -> None:
    new_game(server, A_AND_B, {"blue": ["paris-wien", "berlin-roma"]})
    guest = phone()
    ready(guest, server.url + "/")
    guest.wait_for_selector("#scores tr[data-color=blue]")
    assert "paris-wien" not in guest.content()
    assert guest.locator("#actions").count() == 0
    status = guest.evaluate("fetch('/api/players/blue/tickets').then(r => r.status)")
    assert status == 401
    assert guest.js_errors == []


def test_japanese_ui_and_switch(server: Server, phone: Any) -> None:
    api(
        server,
        "POST",
        "/api/actions",
        {
            "type": "new_game",
            "players": [{"name": "アキ", "color": "red"}, {"name": "Ben", "color": "green"}],
        },
    )
    page = phone("ja-JP")
    ready(page, server.url + "/")
    assert page.get_attribute("html", "lang") == "ja"
    assert page.inner_text("nav.tabs a[data-nav=table]") == "テーブル"
    assert "得点" in page.inner_text("#scores thead")
    labels = page.locator("svg.board text.label").all_text_contents()
    assert "パリ" in labels and "ウィーン" in labels and "ベルリン" in labels
    assert "準備" in page.inner_text("#banner")
    assert "赤" in page.inner_text("#scores tr[data-color=red]")

    # The switch goes to English and is remembered.
    page.click("#lang")
    see(page, "html", "en", attr="lang")
    assert page.inner_text("nav.tabs a[data-nav=table]") == "Table"
    assert "Paris" in page.locator("svg.board text.label").all_text_contents()
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.get_attribute("html", "lang") == "en"
    page.click("#lang")
    see(page, "html", "ja", attr="lang")
    assert page.js_errors == []


def new_game(
    server: Server, players: list[dict[str, str]], keeps: dict[str, list[str]] | None = None
) -> None:
    """A new game of ``players``; then each colour in ``keeps`` keeps those first tickets."""
    api(server, "POST", "/api/actions", {"type": "new_game", "players": players})
    keep_tickets(server, keeps or {})


def keep_tickets(server: Server, keeps: dict[str, list[str]]) -> None:
    for color, tickets in keeps.items():
        body = {"type": "keep_tickets", "player": color, "tickets": tickets}
        api(server, "POST", "/api/actions", body)


A_AND_B = [{"name": "A", "color": "blue"}, {"name": "B", "color": "red"}]


def two_player_game(server: Server) -> None:
    """A new game of A (blue) and B (red), both with their first tickets kept."""
    new_game(
        server,
        A_AND_B,
        {"blue": ["paris-wien", "berlin-roma"], "red": ["kyiv-sochi", "essen-kyiv"]},
    )


def blue_owns_42_trains(server: Server) -> None:
    """Blue's routes worth 42 trains (the board as the host corrected it: the longest first,
    one of each double route), dieppe-paris left for blue's next claim to begin the final
    round."""
    routes: dict[str, str] = {}
    total = 0
    data = json.loads((server_root() / "companion" / "data" / "europe.json").read_text("utf-8"))
    seen_pairs: set[frozenset[str]] = set()
    for r in sorted(data["routes"], key=lambda r: -r["length"]):
        pair_ = frozenset((r["a"], r["b"]))
        if pair_ in seen_pairs or total + r["length"] > 42 or r["id"] == "dieppe-paris":
            continue
        seen_pairs.add(pair_)
        routes[r["id"]] = "blue"
        total += r["length"]
    assert total == 42
    api(server, "POST", "/api/actions", {"type": "set_board", "routes": routes, "stations": {}})


def test_final_round_is_announced(server: Server, phone: Any) -> None:
    two_player_game(server)
    blue_owns_42_trains(server)  # then a 1-train claim
    api(
        server, "POST", "/api/actions", {"type": "claim", "player": "blue", "route": "dieppe-paris"}
    )
    api(server, "POST", "/api/actions", {"type": "end_turn", "player": "blue"})
    page = phone("ja-JP")
    ready(page, server.url + "/")
    page.wait_for_selector("#final-round")
    assert "最終ラウンド" in page.inner_text("#final-round")
    assert page.locator("#banner.final").count() == 1
    assert page.js_errors == []


def server_root() -> Path:
    return Path(__file__).resolve().parents[2]


def test_no_outside_requests_and_page_loads_fast(server: Server, phone: Any) -> None:
    page = phone()
    outside = watch_requests(page, server)
    ready(page, server.url + "/")
    assert outside == []
    assert page.locator("svg.board g.route").count() == 101
    assert page.locator("svg.board g.city").count() == 47
    assert page.locator("svg.board g.route.tunnel").count() > 0
    assert page.locator("svg.board circle.loco").count() > 0


def test_photo_mode_read_fix_and_score(photo_server: Server, phone: Any) -> None:
    server = photo_server
    host = host_page(phone, server)
    ready(host, server.url + "/photo")
    assert host.input_value("#newgame #mode") == "photo"
    host.fill("#newgame input[data-i='0']", "Aki")
    host.fill("#newgame input[data-i='1']", "Ben")
    host.click("#newgame button[aria-label='Remove 3']")
    host.click("#start-game")
    host.wait_for_selector("label.file-pick")
    # (the header of a 16 x 16 JPEG: the server sizes a photo before any job; the fake reads it)
    jpeg = b"\xff\xd8\xff\xc0\x00\x11\x08\x00\x10\x00\x10\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01"
    host.set_input_files(
        "#photo-file", files=[{"name": "board.jpg", "mimeType": "image/jpeg", "buffer": jpeg}]
    )
    host.click("#photo .primary")
    # The reading is drawn on the map; the unsure route is marked for checking.
    host.wait_for_selector("g.route[data-route='frankfurt-paris-1'][data-owner=blue]")
    assert host.get_attribute("g.route[data-route='berlin-wien']", "data-owner") == "red"
    assert "unsure" in (host.get_attribute("g.route[data-route='berlin-wien']", "class") or "")
    assert host.locator("[data-station=roma]").count() == 1
    # The check list: each thing to confirm, one tap when the reading is right.
    assert host.locator("#photo-check li[data-check]").count() == 2
    host.click("#photo-check button[data-confirm=roma]")
    see(host, "#photo-check li[data-check=roma]", "true", attr="data-done")
    # Fix it on the map: red -> free -> blue; and two more routes for blue by tapping.
    host.click("button.zoom[aria-label='Zoom in']")
    for _ in range(2):
        host.click("g.route[data-route='berlin-wien'] .space >> nth=1")
    assert host.get_attribute("g.route[data-route='berlin-wien']", "data-owner") == "blue"
    host.click("g.route[data-route='munchen-wien'] .space >> nth=1")
    host.click("g.route[data-route='frankfurt-munchen'] .space >> nth=0")
    see(host, "#photo-check li[data-check=berlin-wien]", "true", attr="data-done")  # fixed
    # the ticket picker offers the variant's tickets only (Europe: 46), searchable
    host.click("[data-pick-tickets=red]")
    assert host.locator(".sheet label[data-ticket]").count() == 46
    host.check(".sheet label[data-ticket='berlin-roma'] input")
    host.click("#keep-go")
    host.click("[data-pick-tickets=blue]")
    assert host.locator(".sheet label[data-ticket]").count() == 45  # red's is not offered
    host.fill(".sheet input[type=search]", "vienna")
    host.check(".sheet label[data-ticket='paris-wien'] input")
    assert "Paris – Wien" in host.inner_text("#tickets-picked")  # what is chosen, shown
    host.click("#keep-go")
    # scoring ends the game: it asks first
    host.click("#photo-confirm-go")
    host.click("#photo-finish-go")
    host.wait_for_selector("#final-panel:not(.hidden) .final-player[data-color=blue]")
    state = api(server, "GET", "/api/state")
    blue = next(p for p in state["players"] if p["color"] == "blue")
    assert sorted(blue["routes"]) == [
        "berlin-wien",
        "frankfurt-munchen",
        "frankfurt-paris-1",
        "munchen-wien",
    ]
    assert blue["final"]["route_points"] == 4 + 4 + 4 + 2
    assert blue["final"]["tickets"][0]["completed"] is True
    shown = host.get_attribute(".final-player[data-color=blue] .total", "data-total")
    assert shown == str(blue["final"]["total"])
    assert host.js_errors == []
