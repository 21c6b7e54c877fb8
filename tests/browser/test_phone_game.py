"""A whole 3-player game on 360 x 740 phones in Japanese, as a table plays it.

Counts the taps of each kind of claim (at most 2 with the cards tapped on the reader, at most 4
without; a tunnel adds only its three turned-up cards and the surcharge payment), and at each key
moment (tunnel pending, payment problem, undo, final round, finished) checks the table, host,
player and history pages: no Latin-alphabet word besides the players' names, the language switch
and the rulebook's SL; nothing wider than the screen; every tap target at least 44 px both ways
(tests/browser/targets.py: checkboxes by their labels, sliders, the map's hit shapes too).
With COMPANION_SCREENSHOTS=<dir> the main moments are saved there as PNGs (both languages).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .conftest import HOST_TOKEN, Server, tiny_png
from .targets import SMALLEST, smallest, too_small
from .test_dashboard import api, ready, see

ROOT = Path(__file__).resolve().parents[2]
SMALL = {"width": 360, "height": 740}
NAMES = {"blue": "Aki", "red": "Ben", "green": "Chie"}
# Words a Japanese page may show in Latin letters: the players' names, the language switch, the
# rulebook's own term for locomotive cards (SLカード), and the units of a size in bytes (the
# black box's space used: 「使用量：1 kB（上限 1.0 GB）」, as Japanese pages write them).
ALLOWED = set(NAMES.values()) | {"English", "SL", "kB", "MB", "GB"}
SHOTS = os.environ.get("COMPANION_SCREENSHOTS")


class Phone:
    """A page at 360 x 740 with a tap counter (every tap in a claim goes through tap())."""

    def __init__(self, browser: Any, locale: str = "ja-JP") -> None:
        self.ctx = browser.new_context(
            viewport=SMALL, locale=locale, is_mobile=True, has_touch=True, device_scale_factor=1
        )
        self.page = self.ctx.new_page()
        self.page.set_default_timeout(10_000)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.taps = 0

    def tap(self, selector: str) -> None:
        self.taps += 1
        self.page.locator(selector).first.tap()

    def route(self, route_id: str) -> None:
        # a middle space: the route itself, not a city beside it
        self.tap(f"g.route[data-route='{route_id}'] .space >> nth=1")

    def station(self, city: str, card: str) -> None:
        """A station: the city, one card of ``card``, confirm (3 taps)."""
        self.tap(f"g.city[data-city='{city}'] .dot")
        self.tap(f".sheet .cards button[data-card={card}]")
        self.tap("#station-go")


@contextmanager
def host_phone(browser: Any, server: Server, locale: str = "ja-JP") -> Iterator[Phone]:
    """A small phone logged in as the host (its page ready); its browser context closed after."""
    host = Phone(browser, locale)
    try:
        ready(host.page, f"{server.url}/host/login?token={HOST_TOKEN}")
        yield host
    finally:
        host.ctx.close()


# What a page marks as shown as it is (web/static/js/literal.js): an address to type, a network's
# name, a password, a program's version; nothing else is read past, and each such element must
# hold what its kind says (an address is a host name, a URL or numbers, not a sentence).
LITERAL = {
    "address": re.compile(r"^[A-Za-z0-9.:/\[\]%_-]+(?:[、, ]+[A-Za-z0-9.:/\[\]%_-]+)*$"),
    "network": re.compile(r"^.{1,32}$"),
    "password": re.compile(r"^.{8,63}$"),
    "software": re.compile(r"^[\w .:/()+-]{1,80}$"),
}
PAGE_TEXT = """() => {
  const lits = [...document.querySelectorAll("[data-literal]")]
    .filter((e) => e.getClientRects().length)
    .map((e) => [e.dataset.literal, e.innerText]);
  return [document.body.innerText, lits];
}"""


def latin_words(page: Any) -> list[str]:
    text, literals = page.evaluate(PAGE_TEXT)
    for kind, value in literals:
        assert kind in LITERAL and LITERAL[kind].match(value), (kind, value)
        text = text.replace(value, " ", 1)
    return sorted({w for w in re.findall(r"[A-Za-z]+", text) if w not in ALLOWED})


WIDE = """() => {
  const W = window.innerWidth;
  const out = [];
  const page = document.documentElement.scrollWidth;
  if (page > W) out.push(`page ${page}`);
  const clipped = (e) => {
    for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === "auto" || o === "scroll" || o === "hidden") return true;
    }
    return false;
  };
  for (const e of document.body.querySelectorAll("*")) {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height || e.closest("svg")) continue;
    if ((r.right > W + 1 || r.left < -1) && !clipped(e)) {
      out.push(`${e.tagName}#${e.id}.${e.className} ${Math.round(r.left)}..${Math.round(r.right)}`);
    }
  }
  return out;
}"""

# highlighted routes outside the map's visible part
OUT_OF_VIEW = """() => {
  const f = document.querySelector(".map-scroll").getBoundingClientRect();
  const lines = [...document.querySelectorAll(".highlights polyline.hl")];
  if (!lines.length) return -1;
  return lines.filter((p) => {
    const r = p.getBoundingClientRect();
    return !(r.right > f.left && r.left < f.right && r.bottom > f.top && r.top < f.bottom);
  }).length;
}"""


def check_layout(page: Any, where: str) -> None:
    assert page.evaluate(WIDE) == [], (where, page.evaluate(WIDE))
    assert too_small(page) == [], (where, too_small(page))
    SMALLEST[where] = smallest(page)  # printed at the end of a test run with -s


def check(page: Any, where: str) -> None:
    assert latin_words(page) == [], (where, latin_words(page))
    check_layout(page, where)


def shot(page: Any, name: str, top: str | None = None) -> None:
    if top:
        page.locator(top).evaluate("e => e.scrollIntoView({block: 'start'})")
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"))


def test_a_three_player_game_on_small_phones_in_japanese(
    server: Server, needs_browser: Any
) -> None:
    from playwright.sync_api import expect

    phones: list[Phone] = []

    def new(locale: str = "ja-JP") -> Phone:
        p = Phone(needs_browser, locale)
        phones.append(p)
        return p

    try:
        host = new()
        ready(host.page, f"{server.url}/host/login?token={HOST_TOKEN}")
        table = new()
        ready(table.page, server.url + "/")
        english = new("en-US")  # the same table in English: layout checks and screenshots
        ready(english.page, server.url + "/")
        english_host = new("en-US")
        ready(english_host.page, f"{server.url}/host/login?token={HOST_TOKEN}")
        hp = host.page

        # New game: the names are required (an empty one is pointed at, nothing starts).
        hp.fill("#newgame input[data-i='0']", NAMES["blue"])
        hp.fill("#newgame input[data-i='1']", NAMES["red"])
        hp.click("#start-game")
        expect(hp.locator("#new-problem")).to_have_text(
            "3人目のプレイヤーの名前を入力してください。"
        )
        assert api(server, "GET", "/api/state")["game_id"] is None
        hp.fill("#newgame input[data-i='2']", NAMES["green"])
        for i, color in enumerate(("blue", "red", "green")):
            hp.select_option(f"#newgame .player-row >> nth={i} >> select", color)
        hp.click("#start-game")
        hp.wait_for_selector("#scores tr[data-color=green]")
        check(hp, "host, setup")

        # Pairing: a phone per player, by its link.
        players: dict[str, Phone] = {}
        for color in NAMES:
            hp.click(f"[data-pair={color}]")
            url = hp.get_attribute(f"a[data-pair-url={color}]", "href")
            hp.click(".sheet .actions button")
            ph = new()
            ready(ph.page, url or "")
            assert ph.page.url.endswith("/me")
            players[color] = ph
        aki, ben, chie = players["blue"], players["red"], players["green"]
        check(aki.page, "player, setup")

        # First tickets on each phone, found by searching without diacritics and in hiragana.
        aki.page.click("[data-keep=blue]")
        aki.page.fill(".sheet input[type=search]", "munchen")
        shown = aki.page.locator(".sheet label[data-ticket]:not(.hidden)")
        assert shown.count() >= 1
        assert all("ミュンヘン" in t for t in shown.all_inner_texts())
        aki.page.fill(".sheet input[type=search]", "みゅんへん")
        assert shown.count() >= 1 and all("ミュンヘン" in t for t in shown.all_inner_texts())
        aki.page.fill(".sheet input[type=search]", "")
        check(aki.page, "player, first tickets")  # the checkboxes, tapped by their 44 px rows
        for ph, color, tickets in (
            (aki, "blue", ["paris-wien", "frankfurt-kobenhavn"]),
            (ben, "red", ["berlin-roma", "brindisi-zurich"]),
            (chie, "green", ["brest-marseille", "essen-kyiv"]),
        ):
            if color != "blue":
                ph.page.click(f"[data-keep={color}]")
            for t in tickets:
                ph.page.check(f".sheet label[data-ticket='{t}'] input")
            ph.page.click("#keep-go")
            ph.page.wait_for_selector(f"#my-tickets li[data-ticket='{tickets[0]}']")
        aki.page.wait_for_selector("#whose-turn[data-color=blue]")
        shot(aki.page, "ja-phone-turn")

        def turn_of(color: str) -> None:
            for ph in phones:
                ph.page.wait_for_selector(f"#whose-turn[data-color={color}]")

        def seen_everywhere(player: Phone, selector: str, what: str) -> None:
            """The moment ``what`` (``selector`` shown) on the player's phone, the host's and
            the table's, checked; and on the English table, its layout."""
            for ph, where in ((player, "player"), (host, "host"), (table, "table")):
                ph.page.wait_for_selector(selector)
                check(ph.page, f"{where}, {what}")
            english.page.wait_for_selector(selector)
            check_layout(english.page, f"english table, {what}")

        def turn_ends(ph: Phone, score: tuple[str, str], taps: int, then: str) -> None:
            """``ph``'s turn is over: the host sees (colour, score), it took ``taps`` taps,
            and every phone says it is ``then``'s turn."""
            see(hp, f"#scores tr[data-color={score[0]}] td.score", score[1])
            assert ph.taps == taps
            turn_of(then)

        # 1. Aki, a coloured route, no reader: route, confirm (the colour comes filled); the turn
        # ends by itself (there is no end-turn button).
        assert aki.page.locator("#end-turn").count() == 0
        # the current player's choices: in a bar at the bottom of the screen, where the thumb is
        for button in ("#drew", "#more-tickets"):
            box = aki.page.locator(button).bounding_box()
            assert box and box["y"] > SMALL["height"] - 80 and box["height"] >= 44, button
        assert ben.page.locator("#turnbar #drew").count() == 0  # not Ben's turn
        aki.taps = 0
        aki.route("berlin-wien")
        expect(aki.page.locator(".sheet .paid")).to_contain_text("緑")
        shot(aki.page, "ja-claim-sheet")
        aki.tap("#claim-go")
        turn_ends(aki, ("blue", "4"), 2, "red")
        # "Start the game" during a game asks first and names the game it would abandon.
        hp.click("#start-game")
        expect(hp.locator(".sheet h2")).to_have_text("進行中のゲームを置き換えますか？")
        assert "Aki、Ben、Chieのチケット・トゥ・ライド：ヨーロッパ（2手番目）" in hp.inner_text(
            ".sheet"
        )
        check(hp, "host, replacing asks")
        hp.click(".sheet .actions button:not(.danger)")
        see(hp, "#scores tr[data-color=red] td.score", "0")

        # 2. Ben, a grey route, no reader: route, colour, confirm.
        ben.taps = 0
        ben.route("marseille-paris")
        ben.tap(".sheet .cards button[data-card=red]")
        expect(ben.page.locator(".sheet .paid")).to_contain_text("赤 ×4")
        ben.tap("#claim-go")
        turn_ends(ben, ("red", "7"), 3, "green")

        # 3. Chie, the cards tapped on the reader first: route, confirm.
        for uid in ("C1", "C2", "C3"):
            api(
                server,
                "POST",
                "/api/observations",
                {"kind": "card_tapped", "card": "white", "uid": uid},
            )
        # the taps reach Chie's phone first (an update of its own), then she opens the route
        expect(chie.page.locator("#pending")).to_contain_text("Chieがタッチ", timeout=15_000)
        chie.taps = 0
        chie.route("frankfurt-paris-2")
        chie.page.wait_for_selector(".sheet #reader-cards")
        chie.tap("#claim-go")
        turn_ends(chie, ("green", "4"), 2, "blue")

        # 4. Aki, a tunnel: route, confirm; the surcharge step opens at the top at once; the
        # three turned-up cards (the third sends them), pay; the turn ends with the payment.
        aki.taps = 0
        aki.route("munchen-zurich")
        aki.tap("#claim-go")
        aki.page.wait_for_selector("#turn-slot #tunnel")
        assert "トンネルの追加コスト" in aki.page.inner_text("#tunnel h2")
        assert (
            aki.page.evaluate("() => document.getElementById('tunnel').getBoundingClientRect().top")
            < 300
        )
        assert aki.page.locator("#end-turn").count() == 0
        assert "トンネル" in aki.page.inner_text("#turn-step")
        seen_everywhere(aki, "#turn-slot #tunnel", "tunnel pending")
        shot(aki.page, "ja-tunnel")
        english_host.page.wait_for_selector(
            "#turn-slot #tunnel .surcharge, #turn-slot #tunnel .cards"
        )
        check_layout(english_host.page, "english host, tunnel pending")
        shot(english.page, "en-table-tunnel")
        for card in ("yellow", "locomotive", "blue"):
            aki.tap(f"#tunnel .cards button[data-card={card}]")
        aki.page.wait_for_selector("#tunnel .surcharge")
        assert "2" in aki.page.inner_text("#tunnel .surcharge")
        aki.tap("#tunnel-pay")
        turn_ends(aki, ("blue", "6"), 2 + 3 + 1, "red")

        # 5. Ben, a ferry (grey, one SL comes filled): route, colour, confirm; paid with the
        # wrong colour count on purpose: the lenient check records a payment problem.
        ben.taps = 0
        ben.route("dieppe-london-1")
        expect(ben.page.locator(".sheet .paid")).to_contain_text("SL")
        ben.tap(".sheet .cards button[data-card=blue]")
        ben.tap("#claim-go")
        turn_ends(ben, ("red", "9"), 3, "green")
        chie.taps = 0
        chie.route("brest-paris")
        chie.tap(".sheet .cards button[data-card=red]")  # the route is black
        chie.tap("#claim-go")
        # the warning first, while its toast is up (it goes after 6 s: looked for before
        # anything else is waited for)
        expect(chie.page.locator("#toasts")).to_contain_text(
            "Chie（緑）の支払い：ブレスト – パリは黒の路線です："
            "赤のカードでは払えません（黒かSLカードで払います）。"
        )
        see(hp, "#scores tr[data-color=green] td.score", "8")
        assert chie.taps == 3
        # the payment problem stays visible: a panel, a mark on the route and in the moves
        for ph in (chie, host, table):
            ph.page.wait_for_selector("#problems li[data-place=brest-paris]")
            text = ph.page.inner_text("#problems")
            # who, then what was paid against what was needed, the route said once
            assert "Chie：ブレスト – パリは黒の路線です：赤のカードでは払えません" in text, text
            assert text.count("ブレスト") == 1, text
            ph.page.wait_for_selector("g.route.problem[data-route=brest-paris]")
        hp.wait_for_selector("#log .problem-mark")
        for ph, where in ((chie, "player"), (host, "host"), (table, "table")):
            check(ph.page, f"{where}, payment problem")
        shot(table.page, "ja-payment-problem")
        # the host accepts it: the panel and the marks go
        hp.click("#problems button[data-accept]")
        for ph in (chie, host, table):
            ph.page.wait_for_selector("#problems li", state="detached")
            expect(ph.page.locator("g.route.problem")).to_have_count(0)
        hp.wait_for_selector("#log .problem-mark", state="detached")
        turn_of("blue")

        # 6. Aki, a station: city, colour, confirm; then the host undoes it.
        aki.taps = 0
        aki.station("roma", "pink")
        hp.wait_for_selector("[data-station=roma]")
        assert aki.taps == 3
        hp.click("#undo")
        hp.wait_for_selector("[data-station=roma]", state="detached")
        hp.wait_for_selector("#log li.undone")
        for ph, where in ((aki, "player"), (host, "host"), (table, "table")):
            check(ph.page, f"{where}, undo")
        turn_of("blue")  # the undo gave Aki her turn back
        aki.page.locator("#drew").click()
        turn_of("red")

        # The final round: the host corrects the board so that Ben has 2 trains left.
        state = api(server, "GET", "/api/state")
        owners = {r: p["color"] for p in state["players"] for r in p["routes"]}
        data = json.loads((ROOT / "companion/data/europe.json").read_text("utf-8"))
        taken = {frozenset((r["a"], r["b"])) for r in data["routes"] if r["id"] in owners}
        taken.add(frozenset(("brest", "dieppe")))  # Ben's last claim
        left = 45 - sum(r["length"] for r in data["routes"] if owners.get(r["id"]) == "red")
        for r in sorted(data["routes"], key=lambda r: -r["length"]):
            ends = frozenset((r["a"], r["b"]))
            if r["id"] in owners or ends in taken or left - r["length"] < 3:
                continue
            owners[r["id"]] = "red"
            taken.add(ends)
            left -= r["length"]
            if left == 3:
                break
        assert left == 3
        api(server, "POST", "/api/actions", {"type": "set_board", "routes": owners, "stations": {}})
        ben.page.wait_for_selector("#whose-turn[data-color=red]")
        ben.route("brest-dieppe")
        ben.tap("#claim-go")  # 2 trains or fewer left: the final round starts as the turn ends
        turn_of("green")
        seen_everywhere(ben, "#final-round", "final round")
        shot(table.page, "ja-final-round")
        # the last turns: Chie builds a station in Marseille (Ben's Paris - Marseille joins her
        # Brest - Paris to it), the others draw
        turn_of("green")
        chie.taps = 0
        chie.station("marseille", "yellow")
        hp.wait_for_selector("[data-station=marseille]")
        assert chie.taps == 3
        for ph, color in ((aki, "blue"), (ben, "red")):
            turn_of(color)
            ph.page.locator("#drew").click()

        # Finished: the breakdown, each station's borrowed route (none here), the history.
        hp.click("#finish")
        hp.click("#finish-go")
        for ph, where in ((host, "host"), (table, "table"), (aki, "player")):
            ph.page.wait_for_selector("#final-panel:not(.hidden) .final-player")
            check(ph.page, f"{where}, finished")
        # the route Chie's station borrowed, in words and on the map
        station = table.page.locator(".final-player[data-color=green] li[data-station=marseille]")
        assert station.get_attribute("data-borrowed") == "marseille-paris"
        assert "マルセイユの駅：マルセイユ – パリを借りる" in station.inner_text()
        station.locator("button").click()
        assert table.page.locator(".highlights polyline.borrowed").count() == 1
        table.page.click(".final-player[data-color=green] button.show-all")
        assert table.page.locator(".highlights polyline.borrowed").count() == 1
        # the longest trail is brought into view, over a white casing
        table.page.click(".final-player[data-color=red] button.show-trail")
        assert table.page.locator(".highlights polyline.hl-casing").count() > 0
        assert table.page.evaluate(OUT_OF_VIEW) == 0
        shot(table.page, "ja-final", top="#final-panel")
        english.page.wait_for_selector("#final-panel:not(.hidden) .final-player")
        check_layout(english.page, "english table, finished")
        shot(english.page, "en-final", top="#final-panel")
        hist = new()
        ready(hist.page, server.url + "/history")
        hist.page.wait_for_selector("#history li .hist-winners")
        hist.page.click("#history li >> nth=0 >> button")
        hist.page.wait_for_selector("#replay-slider")
        check(hist.page, "history, finished")
        # each game's winners and scores; the replay slider shows the state after move N
        assert "勝者：Ben" in hist.page.inner_text("#history li >> nth=0")
        final = hist.page.inner_text("#replay-scores")
        moves = hist.page.get_attribute("#replay-slider", "max")
        hist.page.locator("#replay-slider").fill("4")  # 3 first keeps, then Aki's claim
        see(hist.page, ".replay-label", f"{moves}手中4手目の後")
        assert "Aki：ベルリン – ウィーンを建設しました" in hist.page.inner_text("#replay-move")
        assert hist.page.inner_text("#replay-scores") != final
        assert hist.page.locator("g.route.claimed").count() == 1  # the board after move 4
        # move 11, Chie's wrong payment (accepted later): marked in the replay and on its map
        hist.page.locator("#replay-slider").fill("11")
        see(hist.page, "#replay-move", "Chie：ブレスト – パリを建設しました（赤 ×3）")
        hist.page.wait_for_selector("#replay li[data-problem]")
        assert "ブレスト – パリ" in hist.page.inner_text("#replay li[data-problem]")
        assert hist.page.locator("g.route.problem[data-route=brest-paris]").count() == 1
        check(hist.page, "history, replay")
        shot(hist.page, "ja-history")

        for ph in phones:
            assert ph.errors == []
        for where, px in SMALLEST.items():
            print(f"smallest tap target, {where}: {px:.1f} px")
    finally:
        for ph in phones:
            ph.ctx.close()


def test_photo_mode_in_japanese_on_a_small_phone(photo_server: Server, needs_browser: Any) -> None:
    server = photo_server
    with host_phone(needs_browser, server) as host:
        page = host.page
        ready(page, server.url + "/photo")
        page.fill("#newgame input[data-i='0']", NAMES["blue"])
        page.fill("#newgame input[data-i='1']", NAMES["red"])
        page.click("#newgame .player-row >> nth=2 >> button")
        page.click("#start-game")
        page.wait_for_selector("label.file-pick")
        page.set_input_files(
            "#photo-file",
            files=[{"name": "board.png", "mimeType": "image/png", "buffer": tiny_png()}],
        )
        page.click("#photo .primary")
        page.wait_for_selector("#photo-check li[data-check=berlin-wien]")
        # the check list names the route and the city, in Japanese
        assert "ベルリン – ウィーン" in page.inner_text("#photo-check")
        assert "ローマの駅" in page.inner_text("#photo-check")
        check(page, "photo, check list")
        page.click("#photo-check button[data-confirm=roma]")
        expect_done = page.locator("#photo-check li[data-check=roma]")
        see(page, "#photo-check li[data-check=roma]", "true", attr="data-done")
        assert expect_done.count() == 1
        assert host.errors == []
