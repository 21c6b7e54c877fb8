"""Two things the page decides for itself: a claim's payment problem is settled when the host
accepted it OR corrected the claim (its mark goes, in the moves and in the history); a notice
meant for the host ("audience": "host") shows on the host's page only, never on a player's
phone or the table view (even the table view opened in the host's own browser)."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from .conftest import HOST_TOKEN, Server
from .test_dashboard import api, host_page, ready, two_player_game

EN = json.loads(
    (Path(__file__).resolve().parents[2] / "web/static/i18n/en.json").read_text("utf-8")
)


def act(server: Server, action: dict[str, Any], token: str = HOST_TOKEN) -> Any:
    return api(server, "POST", "/api/actions", action, token)


def phone_act(page: Any, action: dict[str, Any]) -> int:
    """A paired phone's page sends an action with its own session (cookie and CSRF token):
    the pairing link's token signs nothing in once the link is opened."""
    status: int = page.evaluate(
        """async (action) => {
          const csrf = document.querySelector('meta[name="csrf-token"]').content;
          const r = await fetch("/api/actions", {method: "POST", body: JSON.stringify(action),
            headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf}});
          return r.status;
        }""",
        action,
    )
    return status


def refused(server: Server, action: dict[str, Any], token: str) -> dict[str, Any]:
    req = urllib.request.Request(
        server.url + "/api/actions",
        method="POST",
        data=json.dumps(action).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        urllib.request.urlopen(req, timeout=10)
    except urllib.error.HTTPError as e:
        assert e.code == 409
        out: dict[str, Any] = json.loads(e.read())
        return out
    raise AssertionError("the action was not refused")


def test_a_corrected_claims_problem_loses_its_mark_and_a_later_open_one_keeps_it(
    server: Server, phone: Any
) -> None:
    from playwright.sync_api import expect

    two_player_game(server)  # A (blue) then B (red), lenient payments
    # blue pays berlin-wien (green) in red, red pays brest-paris (black) in blue: two problems
    wrong = {"type": "claim", "player": "blue", "route": "berlin-wien", "cards": ["red"] * 3}
    blue_claim = act(server, wrong)["seq"]
    act(server, {"type": "end_turn", "player": "blue"})  # accepted; the turn had ended already
    act(server, {"type": "claim", "player": "red", "route": "brest-paris", "cards": ["blue"] * 3})
    assert [p["place"] for p in api(server, "GET", "/api/state")["problems"]] == [
        "berlin-wien",
        "brest-paris",
    ]
    # the host corrects blue's claim (the right cards): blue's problem is settled, not accepted
    right = {**wrong, "cards": ["green"] * 3}
    state = act(server, {"type": "replace", "seq": blue_claim, "action": right})
    (still,) = state["problems"]
    assert still["place"] == "brest-paris" and still["player"] == "red"
    events = api(server, "GET", f"/api/games/{state['game_id']}/events")["events"]
    marks = {e["action"]["route"]: e["problems"][0] for e in events if e["action"].get("problems")}
    assert marks["berlin-wien"]["corrected"] is True and marks["berlin-wien"]["accepted"] is False
    assert marks["brest-paris"]["corrected"] is False and marks["brest-paris"]["accepted"] is False
    # (the state numbers its open problems afresh: red's now has the id blue's had when logged)
    assert still["id"] == marks["berlin-wien"]["id"] != marks["brest-paris"]["id"]

    host = host_page(phone, server)
    host.wait_for_selector("#log li")
    # (the claims' rows; the correction's row names blue's claim too)
    blue_row = host.locator("#log li", has_text="claimed Berlin")
    red_row = host.locator("#log li", has_text="claimed Brest")
    expect(red_row.locator(".problem-mark")).to_have_count(1)
    expect(blue_row).to_have_count(1)
    expect(blue_row.locator(".problem-mark")).to_have_count(0)
    assert EN["log.payment_problem"] in red_row.inner_text()

    # the history: the replay's move line marks red's claim, not blue's corrected one
    hist = phone()
    ready(hist, server.url + "/history")
    hist.click(f"li[data-game={state['game_id']}] button")
    move = hist.locator("#replay-move")
    expect(move).to_contain_text("Brest")  # the replay opens on the last move: red's claim
    expect(move.locator(".problem-mark")).to_have_count(1)
    back = hist.locator(".replay-row button.step").first
    back.click()  # blue's claim, corrected since (its turn ended with it: no end_turn logged)
    expect(move).to_contain_text("Berlin")
    expect(move.locator(".problem-mark")).to_have_count(0)
    assert host.js_errors == [] and hist.js_errors == []


def toasts(page: Any) -> list[str]:
    return [t.strip() for t in page.locator("#toasts .toast").all_text_contents()]


def test_a_host_notice_shows_on_the_host_page_only(server: Server, phone: Any) -> None:
    from playwright.sync_api import expect

    two_player_game(server)
    host = host_page(phone, server)
    # the table view in the host's own browser (the host's cookie: its stream gets the notice)
    table_here = host.context.new_page()
    table_here.on("pageerror", lambda e: host.js_errors.append(str(e)))
    ready(table_here, server.url + "/")
    # blue's phone, paired
    token = api(server, "POST", "/api/players/blue/pair")["url"].rsplit("/", 1)[1]
    blue = phone()
    ready(blue, f"{server.url}/pair/{token}")
    assert blue.url.endswith("/me")
    table = phone()
    ready(table, server.url + "/")
    pages = {"host": host, "table (host's browser)": table_here, "blue": blue, "table": table}
    for page in pages.values():
        page.wait_for_selector("#conn:not(.off)")
    # blue's phone draws tickets and keeps one of red's: kept as any keep; the host alone is
    # told (a notice for the host) and the host's page shows the clash to settle
    assert phone_act(blue, {"type": "draw_tickets", "player": "blue"}) == 200
    assert (
        phone_act(blue, {"type": "keep_tickets", "player": "blue", "tickets": ["kyiv-sochi"]})
        == 200
    )
    told = EN["notice.tickets.clash"].format(keeper="A", ticket="Kyïv – Sochi", holders="B")
    # then a notice for everyone: a page that shows it has had the host's notice before it
    server.service.notice("A notice for every screen.")
    for page in pages.values():
        expect(page.locator("#toasts .toast", has_text="A notice for every screen.")).to_have_count(
            1
        )
    expect(host.locator("#toasts .toast", has_text="also holds")).to_have_count(1)
    assert told in toasts(host)
    for who, page in pages.items():
        if who != "host":
            assert not [t for t in toasts(page) if "also holds" in t], who
            assert page.locator("#clash-panel:not([hidden])").count() == 0, who
    panel = host.locator("#clash-panel")
    expect(panel).to_be_visible()
    expect(panel).to_contain_text("Kyïv – Sochi")
    panel.locator("button", has_text="B keeps it").click()  # red's keep stands
    expect(panel).to_be_hidden()
    assert host.js_errors == [] and blue.js_errors == [] and table.js_errors == []
