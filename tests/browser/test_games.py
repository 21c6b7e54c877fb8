"""The other games on a phone-sized chromium (390 x 844): London by tapping routes listed by
district, Trans Europa rounds on the score track, Trambahn cards and scorings by tapping."""

from __future__ import annotations

from typing import Any

from .conftest import Server
from .test_dashboard import api, host_page, pair, ready, score_of, see, watch_requests


def start(page: Any, game: str, names: list[str], **fields: str) -> None:
    page.select_option("#newgame #game", game)
    page.wait_for_selector("#newgame input[data-i='0']")
    while page.locator("#newgame .player-row").count() > len(names):
        n = page.locator("#newgame .player-row").count()
        page.click(f"#newgame button[aria-label='Remove {n}']")
    for i, name in enumerate(names):
        page.fill(f"#newgame input[data-i='{i}']", name)
    for selector, value in fields.items():
        page.fill(selector, value)
    page.click("#start-game")
    page.wait_for_selector("#game-panel:not(.hidden)")


def japanese(page: Any, title: str, text: str = "") -> None:
    page.click("#lang")
    see(page, "html", "ja", attr="lang")
    see(page, "#game-title", title)
    if text:  # the game's own names in Japanese too
        assert text in page.inner_text("#game")
    page.click("#lang")
    see(page, "html", "en", attr="lang")


def test_london_by_tapping(server: Server, phone: Any) -> None:
    from playwright.sync_api import expect

    host = host_page(phone, server)
    outside = watch_requests(host, server)
    start(host, "london", ["Aki", "Ben"])
    see(host, "#game-title", "Ticket to Ride: London")
    assert host.locator("#map").is_hidden()
    expect(host.locator("#scores tbody tr")).to_have_count(2)
    # every location is in a district (drawn once the map's data has come: wait for it)
    expect(host.locator("#game .district")).to_have_count(5)
    # each player keeps first tickets (the London deck)
    for color, ticket in (
        ("blue", "piccadilly-circus--waterloo"),
        ("red", "covent-garden--hyde-park"),
    ):
        host.click(f"[data-keep={color}]")
        host.check(f".sheet label[data-ticket='{ticket}'] input")
        host.click("#keep-go")
        host.wait_for_selector(f"[data-keep={color}]", state="detached")
    host.wait_for_selector("#whose-turn[data-color=blue]")
    # Aki's phone lists Aki's London ticket, never Ben's
    aki = pair(host, phone, "blue")
    aki.wait_for_selector("#my-tickets li[data-ticket='piccadilly-circus--waterloo']")
    assert "Piccadilly Circus – Waterloo" in aki.inner_text("#my-tickets")
    assert "covent-garden--hyde-park" not in aki.content()
    assert aki.evaluate("fetch('/api/players/red/tickets').then(r => r.status)") in (401, 403)
    # Aki claims Big Ben - Waterloo from the Big Ben entry of district 2: the route's colour
    # comes filled, as in Europe
    host.click("#game .district[data-district='2'] details[data-location='big-ben'] summary")
    host.click("#game details[data-location='big-ben'] button[data-route='big-ben--waterloo']")
    host.wait_for_selector(".sheet #claim-go")
    expect(host.locator(".sheet .paid")).to_contain_text("blue")
    host.click("#claim-go")
    see(host, "#scores tr[data-color=blue] td.score", "1")
    assert host.inner_text("#scores tr[data-color=blue] td.trains") == "16"
    see(host, "#last-move", "Aki: Big Ben – Waterloo (blue)")
    # the claim was the whole turn: it is Ben's now, with no end-turn button
    host.wait_for_selector("#whose-turn[data-color=red]")
    assert host.locator("#end-turn").count() == 0
    host.click("#drew")  # Ben's turn, ended by the draw
    host.wait_for_selector("#whose-turn[data-color=blue]")
    host.click("#undo")
    host.wait_for_selector("#whose-turn[data-color=red]")
    expect(host.locator("#drew")).to_be_enabled()
    japanese(host, "チケット・トゥ・ライド：ロンドン", "ピカデリー・サーカス")
    host.click("#finish")
    host.click("#finish-go")
    host.wait_for_selector("#final-panel:not(.hidden) .final-player[data-color=blue]")
    assert host.inner_text(".final-player[data-color=blue] dd.districts") == "0"
    total = host.get_attribute(".final-player[data-color=blue] .total", "data-total")
    state = api(server, "GET", "/api/state")
    blue = next(p for p in state["players"] if p["color"] == "blue")
    assert total == str(blue["final"]["total"]) == score_of(host, "blue")
    assert blue["final"]["route_points"] == 1 and blue["final"]["ticket_points"] == -3
    assert outside == [] and host.js_errors == [] and aki.js_errors == []


def test_transeuropa_rounds_on_the_score_track(server: Server, phone: Any) -> None:
    host = host_page(phone, server)
    start(host, "transeuropa", ["Aki", "Ben", "Chiara"], **{"#start-points": "6"})
    see(host, "#game-title", "Trans Europa")
    assert [p["score"] for p in api(server, "GET", "/api/state")["players"]] == [6, 6, 6]
    see(host, "#announcement", "Round 1: Aki (blue) starts.")
    host.fill("input[data-penalty=red]", "2")
    host.click("input[data-penalty=green] ~ button")  # the + button: 1
    host.click("#te-record")
    host.wait_for_selector("#game tr[data-round='1']")
    assert score_of(host, "red") == "4" and score_of(host, "green") == "5"
    see(host, "#announcement", "Round 2: Ben (red) starts.")
    # the end position's form: an incomplete one is refused with a sentence, nothing changes
    host.click("#actions details summary")
    host.select_option("[data-cities=red] select[data-city-color=blue]", "roma")
    host.fill("#te-tracks", "0906-1005 nonsense")
    host.click("#te-position-go")
    host.wait_for_selector(".toast.error")
    assert "five cities" in host.inner_text(".toast.error")
    # round 2 sends Ben into the red area: the game ends by itself
    host.fill("input[data-penalty=red]", "5")
    host.click("#te-record")
    host.wait_for_selector("#final-panel:not(.hidden) .final-player[data-color=green]")
    see(host, "#phase", "Final scores")
    assert host.inner_text(".final-player[data-color=blue] .total") == "6"
    assert "Winner: Aki" in host.inner_text("#final")
    assert host.locator("#game td.red-area").count() == 1
    japanese(host, "トランスヨーロッパ")
    host.click("#undo")
    host.wait_for_selector("#final-panel.hidden", state="attached")
    assert score_of(host, "red") == "4"
    assert host.js_errors == []


def test_trambahn_by_tapping(server: Server, phone: Any) -> None:
    host = host_page(phone, server)
    start(host, "trambahn", ["Aki", "Ben"])
    see(host, "#game-title", "Trambahn")
    see(host, "#tram-count", "Terminal scorings: 0 of 10")
    host.click("[data-new-line=blue]")
    host.click(".sheet [data-line-color=brown]")
    host.wait_for_selector(".tram-player[data-color=blue] .tram-line[data-line='brown-1']")
    host.click("[data-tram='brown-1:horse']")
    host.wait_for_selector("[data-tram='brown-1:horse']", state="detached")
    for card in ("6", "7"):
        host.click("[data-stop='brown-1']")
        host.click(f".sheet button[data-card='{card}']")
        host.wait_for_selector(".sheet", state="detached")
    host.click("[data-stop='brown-1']")
    host.click(".sheet button[data-card='3']")  # not ascending: refused, the sheet stays
    host.wait_for_selector(".toast.error")
    assert "ascending" in host.inner_text(".toast.error")
    host.click(".sheet .actions button")
    for _ in range(4):
        host.click("[data-passenger=brown]")
    see(host, "#tram-count", "Terminal scorings: 1 of 10")
    assert score_of(host, "blue") == "6" and score_of(host, "red") == "0"
    see(host, ".tram-player[data-color=blue] h3 .score", "6")
    host.click("#undo")
    see(host, "#tram-count", "Terminal scorings: 0 of 10")
    assert host.inner_text("[data-terminal=brown]").find("3/4") >= 0
    japanese(host, "トラムバーン")
    host.click("[data-score=green]")
    see(host, "#tram-count", "Terminal scorings: 1 of 10")
    host.click("#finish")
    host.click("#finish-go")
    host.wait_for_selector("#final-panel:not(.hidden) .final-player[data-color=red]")
    assert "Winner: Aki, Ben" in host.inner_text("#final")
    # the history page lists the game and opens its final breakdown
    ready(host, server.url + "/history")
    see(host, "#history li >> nth=0 >> strong", "Trambahn")
    # each game with its winners and scores
    see(host, "#history li >> nth=0 >> .hist-winners", "Winner: Aki and Ben")
    assert host.locator("#history li >> nth=0 >> .hist-score").count() == 2
    host.click("#history li >> nth=0 >> button")
    host.wait_for_selector("#final-panel:not(.hidden) .final-player[data-color=blue]")
    assert host.locator("#map").is_hidden()
    assert host.js_errors == []
