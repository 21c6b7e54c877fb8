"""A turn in the fewest taps (issue 23), on 360 x 740 phones in Japanese.

A turn is one action: once it is complete (a claim with its payment, a tunnel once settled, a
station, cards drawn, tickets kept after a draw) the turn passes by itself, and the player who
acted may take it back on their own phone until the next player acts. Every tap goes through
Phone.tap(), from the first tap of the turn until the next player's phone says it is their turn:
coloured claim 2, grey 3, station 3, tunnel with a surcharge 5 (4 without), cards drawn 1.
"""

from __future__ import annotations

from typing import Any

from .conftest import HOST_TOKEN, Server
from .test_dashboard import api, keep_tickets, new_game, ready, see
from .test_phone_game import NAMES, SMALL, Phone, check, shot

PLAYERS = [{"name": n, "color": c} for c, n in NAMES.items()]
KEEP = {
    "blue": ["paris-wien", "frankfurt-kobenhavn"],
    "red": ["berlin-roma", "brindisi-zurich"],
    "green": ["brest-marseille", "essen-kyiv"],
}


def start(server: Server, browser: Any) -> tuple[dict[str, Phone], Phone]:
    """A game of three with its first tickets kept; a phone per player and the host's."""
    new_game(server, PLAYERS, KEEP)
    phones: dict[str, Phone] = {}
    for color in NAMES:
        url = api(server, "POST", f"/api/players/{color}/pair", {})["url"]
        ph = Phone(browser)
        ready(ph.page, url)
        phones[color] = ph
    host = Phone(browser)
    ready(host.page, f"{server.url}/host/login?token={HOST_TOKEN}")
    return phones, host


def turn_of(phones: dict[str, Phone], color: str) -> None:
    for ph in phones.values():
        ph.page.wait_for_selector(f"#whose-turn[data-color={color}]")


def test_every_kind_of_turn_in_its_target_taps(server: Server, needs_browser: Any) -> None:
    from playwright.sync_api import expect

    phones, host = start(server, needs_browser)
    aki, ben, chie = phones["blue"], phones["red"], phones["green"]
    everyone = {**phones, "host": host}
    try:
        turn_of(phones, "blue")
        # the turn bar: no end-turn button, the turn ends by itself
        expect(aki.page.locator("#turnbar #drew")).to_be_visible()
        assert aki.page.locator("#end-turn").count() == 0

        # Ben's phone, not his turn: the route sheet says whose turn it is and offers no claim
        ben.route("berlin-wien")
        expect(ben.page.locator(".sheet #cannot")).to_have_text(
            "今はAki（青）の手番です：この端末では路線を取れません。"
        )
        assert ben.page.locator(".sheet #claim-go").count() == 0
        ben.page.click(".sheet .actions button")

        # 1. Aki, a coloured route: route, confirm = 2; then it is Ben's turn, on every phone.
        aki.taps = 0
        aki.route("berlin-wien")
        aki.tap("#claim-go")
        turn_of(everyone, "red")
        assert aki.taps == 2
        # Aki may take it back on her phone until Ben acts; nobody else sees that
        expect(aki.page.locator("#own-undo")).to_contain_text("Akiのベルリン – ウィーン")
        assert ben.page.locator("#own-undo").count() == 0
        shot(aki.page, "ja-own-undo")
        check(aki.page, "player, own undo")
        aki.page.click("#lang")  # the same moment in English, for the screenshots
        aki.page.wait_for_selector("html[lang=en]")
        shot(aki.page, "en-own-undo")
        aki.page.click("#lang")
        aki.page.wait_for_selector("html[lang=ja]")
        # an explicit end of turn for Aki is still accepted, and changes nothing
        s = api(server, "POST", "/api/actions", {"type": "end_turn", "player": "blue"})
        assert s["current"] == "red" and s["own_undo"]["player"] == "blue"

        # 2. Ben, a grey route: route, colour, confirm = 3.
        ben.taps = 0
        ben.route("marseille-paris")
        ben.tap(".sheet .cards button[data-card=red]")
        ben.tap("#claim-go")
        turn_of(everyone, "green")
        assert ben.taps == 3
        # Ben acted: Aki's own undo is gone, Ben's is there
        aki.page.wait_for_selector("#own-undo", state="detached")
        ben.page.wait_for_selector("#own-undo")

        # 3. Chie, a station: city, colour, confirm = 3; she takes it back herself.
        chie.taps = 0
        chie.station("roma", "pink")
        turn_of(everyone, "blue")
        assert chie.taps == 3
        chie.page.click("#own-undo-go")
        turn_of(everyone, "green")
        host.page.wait_for_selector("[data-station=roma]", state="detached")
        # the banner says what was undone, on every screen
        for ph in everyone.values():
            see(ph.page, "#last-move", "Chieのローマの駅を取り消しました")
        shot(host.page, "ja-undo-banner")
        chie.taps = 0
        chie.station("roma", "pink")
        turn_of(everyone, "blue")
        assert chie.taps == 3

        # 4. Aki, a tunnel with a surcharge: route, the three cards turned up (the third sends
        # the claim and the reveal), pay = 5.
        aki.taps = 0
        aki.route("munchen-zurich")
        shot(aki.page, "ja-tunnel-sheet")
        for card in ("yellow", "locomotive", "blue"):
            aki.tap(f"#reveal-now .cards button[data-card={card}]")
        aki.page.wait_for_selector("#tunnel .surcharge")
        assert "2" in aki.page.inner_text("#tunnel .surcharge")
        # the tunnel's buttons are not under the bottom bar (the bar steps aside)
        bar = aki.page.locator("#turnbar")
        for button in ("#tunnel-pay", "#tunnel-withdraw"):
            box = aki.page.locator(button).bounding_box()
            assert box and box["y"] + box["height"] <= SMALL["height"], button
            assert not bar.is_visible() or box["y"] + box["height"] <= bar.bounding_box()["y"]
        shot(aki.page, "ja-tunnel")
        aki.tap("#tunnel-pay")
        turn_of(everyone, "red")
        assert aki.taps == 5

        # 5. Ben, cards drawn = 1.
        ben.taps = 0
        ben.tap("#drew")
        turn_of(everyone, "green")
        assert ben.taps == 1

        # 6. Chie, a tunnel without a surcharge: route, three cards = 4, and a word says so.
        chie.taps = 0
        chie.route("marseille-zurich")
        for card in ("red", "blue", "green"):
            chie.tap(f"#reveal-now .cards button[data-card={card}]")
        expect(chie.page.locator("#toasts")).to_contain_text(
            "追加コストなし：トンネルを建設しました。"
        )
        turn_of(everyone, "blue")
        assert chie.taps == 4

        # 7. Aki draws tickets and keeps one: the turn ends with the keep. The picker offers
        # neither her own tickets nor the long ones (dealt only at the start), and shows what
        # is chosen.
        aki.tap("#more-tickets")
        assert aki.page.locator(".sheet label[data-ticket='paris-wien']").count() == 0
        assert aki.page.locator(".sheet label[data-ticket='brest-petrograd']").count() == 0
        assert aki.page.locator(".sheet label[data-ticket='berlin-roma']").count() == 1
        aki.page.check(".sheet label[data-ticket='amsterdam-pamplona'] input")
        see(aki.page, "#tickets-picked", "選んだチケット：アムステルダム – パンプローナ")
        aki.page.click("#keep-go")
        turn_of(everyone, "red")

        for ph in everyone.values():
            assert ph.errors == []
    finally:
        for ph in everyone.values():
            ph.ctx.close()


FIRST_AFTER_BANNER = """() => {
  const main = document.getElementById("app");
  const shown = [...main.children].filter(
    (e) => e.id !== "banner" && e.getBoundingClientRect().height > 0
  );
  shown.sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top);
  return shown.map((e) => e.id);
}"""

UNDER_BAR = """() => {
  const bar = document.getElementById("turnbar");
  if (!bar || bar.classList.contains("hidden")) return [];
  window.scrollTo(0, document.documentElement.scrollHeight);
  const top = bar.getBoundingClientRect().top;
  const out = [];
  for (const e of document.querySelectorAll("main button, main a[href], main select, main input")) {
    const r = e.getBoundingClientRect();
    if (!r.height || e.closest(".hidden")) continue;
    if (r.bottom > top + 1 && r.top < window.innerHeight) {
      out.push(`${e.tagName}#${e.id} ${Math.round(r.bottom)} > ${Math.round(top)}`);
    }
  }
  return out;
}"""

# The map as a thumb leaves it: the page scrolled until the map's bottom edge meets the screen's
# (under the bar), the map scrolled to its bottom and sideways to the route.
ROUTE_IN_REACH = """(id) => {
  const scroll = document.querySelector(".map-scroll");
  const edge = scroll.getBoundingClientRect().bottom + window.scrollY;
  window.scrollTo(0, edge - window.innerHeight);
  scroll.scrollTop = scroll.scrollHeight;
  const space = document.querySelector(`g.route[data-route='${id}'] .space`);
  const box = space.getBoundingClientRect();
  const frame = scroll.getBoundingClientRect();
  scroll.scrollLeft += box.left + box.width / 2 - (frame.left + frame.width / 2);
  const r = space.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  const owner = hit && hit.closest("[data-route]");
  return owner ? owner.dataset.route : hit ? `${hit.tagName}#${hit.id}` : null;
}"""


def test_the_host_page_opens_on_what_comes_next_and_nothing_hides_under_the_bar(
    server: Server, needs_browser: Any
) -> None:
    host = Phone(needs_browser)
    aki: Phone | None = None
    try:
        hp = host.page
        ready(hp, f"{server.url}/host/login?token={HOST_TOKEN}")
        # no game: the new-game form first
        hp.wait_for_selector("body[data-phase=none]")
        assert hp.evaluate(FIRST_AFTER_BANNER)[0] == "new-panel"
        shot(hp, "ja-host-none")
        # setup: pairing and who has kept
        api(server, "POST", "/api/actions", {"type": "new_game", "players": PLAYERS})
        hp.wait_for_selector("body[data-phase=setup]")
        order = hp.evaluate(FIRST_AFTER_BANNER)
        assert order.index("pair-panel") < order.index("map") and order[0] in (
            "actions-panel",
            "pair-panel",
        )
        assert hp.locator("[data-pair=blue]").bounding_box()["y"] < 740
        shot(hp, "ja-host-setup")
        # playing: questions, problems, undo before the map
        keep_tickets(server, KEEP)
        wrong = {"type": "claim", "player": "blue", "route": "berlin-wien", "cards": ["red"] * 3}
        api(server, "POST", "/api/actions", wrong)
        hp.wait_for_selector("#problems li")
        order = hp.evaluate(FIRST_AFTER_BANNER)
        assert order.index("problems") < order.index("map")
        assert order.index("actions-panel") < order.index("map")
        assert hp.locator("#undo").bounding_box()["y"] < hp.locator("#map").bounding_box()["y"]
        shot(hp, "ja-host-playing")
        hp.click("#lang")
        hp.wait_for_selector("html[lang=en]")
        shot(hp, "en-host-playing")
        hp.click("#lang")
        hp.wait_for_selector("html[lang=ja]")
        # nothing under the bottom bar, on a player's phone in their turn: the page's end and
        # the map's bottom row of routes
        url = api(server, "POST", "/api/players/red/pair", {})["url"]
        aki = Phone(needs_browser)
        ready(aki.page, url)
        aki.page.wait_for_selector("#turnbar #drew")
        assert aki.page.evaluate(UNDER_BAR) == []
        for route in ("palermo-smyrna", "cadiz-madrid", "athina-smyrna"):
            assert aki.page.evaluate(ROUTE_IN_REACH, route) == route
        # finished: the breakdown, then a new game
        api(server, "POST", "/api/actions", {"type": "finish"})
        hp.wait_for_selector("body[data-phase=finished]")
        order = hp.evaluate(FIRST_AFTER_BANNER)
        assert order[0] == "final-panel" and order.index("new-panel") < order.index("map")
        shot(hp, "ja-host-finished")
        assert host.errors == [] and (aki is None or aki.errors == [])
    finally:
        host.ctx.close()
        if aki is not None:
            aki.ctx.close()
