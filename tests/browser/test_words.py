"""Words a Japanese player would say (issue 23), on 360 x 740 phones: no English left on the
wrong host link's page, on London's payment problems, on photo mode's file picker."""

from __future__ import annotations

from typing import Any

from .conftest import Server
from .test_dashboard import api, ready
from .test_phone_game import Phone, check, host_phone, latin_words, shot


def test_a_wrong_host_link_says_so_in_japanese(server: Server, needs_browser: Any) -> None:
    ph = Phone(needs_browser)
    try:
        res = ph.page.goto(f"{server.url}/host/login?token=wrong")
        assert res is not None and res.status == 403
        ph.page.wait_for_selector("body[data-ready='1']")
        assert ph.page.inner_text("#bad-link h2") == "このホスト用リンクは使えません"
        check(ph.page, "wrong host link")
    finally:
        ph.ctx.close()


def test_londons_payment_problem_names_places_in_japanese(
    server: Server, needs_browser: Any
) -> None:
    players = [{"name": "Aki", "color": "blue"}, {"name": "Ben", "color": "red"}]
    api(server, "POST", "/api/actions", {"type": "new_game", "game": "london", "players": players})
    keeps = {"blue": ["piccadilly-circus--waterloo"], "red": ["covent-garden--hyde-park"]}
    for color, tickets in keeps.items():
        body = {"type": "keep_tickets", "player": color, "tickets": tickets}
        api(server, "POST", "/api/actions", body)
    with host_phone(needs_browser, server) as host:
        host.page.wait_for_selector("#conn:not(.off)")
        wrong = {"type": "claim", "player": "blue", "route": "big-ben--waterloo", "cards": ["pink"]}
        api(server, "POST", "/api/actions", wrong)
        toast = host.page.locator("#toasts .toast", has_text="の支払い")
        toast.first.wait_for()
        text = toast.first.inner_text()
        assert "Aki（青）の支払い" in text and "ビッグ・ベン" in text, text
        assert [w for w in latin_words(host.page) if w not in ("Aki", "Ben")] == []
        # London's turn on a phone as Europe's: the choices in the bottom bar
        url = api(server, "POST", "/api/players/red/pair", {})["url"]
        ben = Phone(needs_browser)
        ready(ben.page, url)
        ben.page.wait_for_selector("#turnbar #drew")
        assert ben.page.inner_text("#turnbar #drew") == "乗り物カードを引いた"
        ben.page.click("#turnbar #drew")  # one tap: the turn passes to Aki
        host.page.wait_for_selector("#whose-turn[data-color=blue]")
        check(ben.page, "london, phone")
        ben.ctx.close()


def test_photo_modes_file_picker_speaks_japanese(photo_server: Server, needs_browser: Any) -> None:
    server = photo_server
    with host_phone(needs_browser, server) as host:
        page = host.page
        players = [{"name": "Aki", "color": "blue"}, {"name": "Ben", "color": "red"}]
        api(
            server,
            "POST",
            "/api/actions",
            {"type": "new_game", "players": players, "mode": "photo"},
        )
        ready(page, server.url + "/photo")
        page.wait_for_selector("label.file-pick")
        assert page.inner_text("label.file-pick") == "写真を選ぶ・撮る"
        assert page.inner_text("#photo-chosen") == "まだ選ばれていません"
        check(page, "photo, file picker")
        shot(page, "ja-photo-picker", top="#photo-panel")


def test_trans_europas_end_position_is_a_form_in_japanese(
    server: Server, needs_browser: Any
) -> None:
    from companion.transeuropa import Round, trans_europa

    # red's five cities and the cheapest track joining them (the penalty's own build)
    cities = {
        "red": ["london", "paris", "malmo", "minsk", "roma"],
        "white": ["madrid", "berlin", "oslo", "kyiv", "sofia"],
    }
    lat = trans_europa()
    pos = {"players": [{"color": c, "cities": v} for c, v in cities.items()], "tracks": []}
    build = list(Round.from_json(lat, pos).score().players[0].build)
    players = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "white"}]
    api(
        server,
        "POST",
        "/api/actions",
        {"type": "new_game", "game": "transeuropa", "players": players},
    )
    with host_phone(needs_browser, server) as host:
        page = host.page
        page.click("#actions details summary")
        page.wait_for_selector("#te-position")
        for color, ids in cities.items():
            for city in ids:
                colour = lat.city(city).color
                page.select_option(f"[data-cities={color}] select[data-city-color={colour}]", city)
        page.fill("#te-tracks", " ".join(build))
        check(page, "trans europa, end position form")
        page.click("#te-position-go")
        page.wait_for_selector("#game tr[data-round='1']")
        state = api(server, "GET", "/api/state")
        assert state["table"]["rounds"][0]["source"] == "position"
        assert state["table"]["rounds"][0]["complete"] == {"red": True, "white": False}
        check(page, "trans europa, scored")
