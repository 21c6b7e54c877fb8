"""The referee box on a real Service: drive a button pin, see the game react; act, see the LED
and hear the buzzer.

Runs on gpiozero's mock pins; the same tests run on a real Pi (marked ``pi``, skipped unless
COMPANION_PI_HARDWARE=1 on a Raspberry Pi), where the presses are handed to the controls'
callback (nobody is there to push) and the LED is read back from gpiozero.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from controls_harness import FAST, wait_for
from table_rig import HOST, ILLEGAL_SECONDS, MENU_SECONDS, Rig, make_rig, rig_kinds

from companion.controls import LED_PATTERNS
from companion.service import Actor, Conflict

READER = Actor.device("reader")
LONG_BEEP = (FAST.beep_short + FAST.beep_long) / 2


@pytest.fixture(params=rig_kinds())
def rig(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Rig]:
    yield from make_rig(request.param, tmp_path)


@pytest.fixture
def game(rig: Rig) -> Rig:
    rig.new_game()
    assert rig.table.drain()
    return rig


def tap(rig: Rig, card: str) -> None:
    rig.svc.observe({"kind": "card_tapped", "card": card}, READER)


def final_round_board(rig: Rig) -> dict[str, str]:
    """Routes for red using 43 to 45 trains (longest first, never both of a double)."""
    m = rig.svc.map
    chosen: dict[str, str] = {}
    used = 0
    for route in sorted(m.routes.values(), key=lambda r: (-r.length, r.id)):
        if route.twin in chosen or used + route.length > m.trains_per_player:
            continue
        chosen[route.id] = "red"
        used += route.length
        if used >= m.trains_per_player - m.final_round_trains:
            break
    assert m.trains_per_player - used <= m.final_round_trains
    return chosen


# --- end turn ---------------------------------------------------------------------------------


def test_the_end_turn_button_ends_the_current_players_turn(game: Rig) -> None:
    accepted = game.panel.sounds.count("accepted")
    assert game.state()["current"] == "red"
    game.press("end_turn")
    assert wait_for(lambda: game.state()["current"] == "blue")
    last = game.state()["last"]
    assert (last["type"], last["player"], last["actor"]) == ("end_turn", "red", "button")
    assert game.wait_sound("accepted", accepted + 1)
    assert game.panel.status == "ready"
    assert wait_for(lambda: game.led() == pytest.approx(LED_PATTERNS["ready"].color))
    if game.factory is not None:
        assert wait_for(lambda: len(game.buzzer_beeps()) >= 1)
        assert all(b < LONG_BEEP for b in game.buzzer_beeps())  # accepted = short beeps only
    game.press("end_turn")
    assert wait_for(lambda: game.state()["current"] == "red")
    assert game.state()["turn"] == 2


def test_the_end_turn_button_keeps_the_rules_of_the_phone(game: Rig) -> None:
    game.svc.act(
        {"type": "claim", "player": "red", "route": "angora-smyrna", "cards": ["orange"] * 3}, HOST
    )
    assert game.wait_status("waiting_for_tap")  # a tunnel waits for its revealed cards
    seq = game.svc.seq
    game.press("end_turn")
    assert game.wait_status("illegal")
    assert game.wait_sound("illegal")
    assert game.svc.seq == seq and game.state()["current"] == "red"
    assert game.wait_status("waiting_for_tap", timeout=ILLEGAL_SECONDS + 3)


# --- illegal ----------------------------------------------------------------------------------


def test_an_illegal_action_flashes_red_and_sounds_the_long_beep(game: Rig) -> None:
    game.svc.act({"type": "claim", "player": "red", "route": "berlin-wien"}, HOST)
    assert game.table.drain()
    state = game.state()
    with pytest.raises(Conflict):
        game.svc.act({"type": "claim", "player": "blue", "route": "berlin-wien"}, HOST)
    assert game.wait_status("illegal")
    assert game.wait_sound("illegal")
    assert game.state() == state  # refused: nothing changed
    if game.factory is not None:
        assert wait_for(lambda: any(b > LONG_BEEP for b in game.buzzer_beeps()))
        red = game.pin("led_red")
        assert wait_for(lambda: sum(1 for s in red.states if s.state) >= 2)  # blinking
        assert wait_for(lambda: game.led() == pytest.approx(LED_PATTERNS["illegal"].color))
    # The flash ends by itself and the LED shows the state again.
    assert game.wait_status("ready", timeout=ILLEGAL_SECONDS + 3)
    assert wait_for(lambda: game.led() == pytest.approx(LED_PATTERNS["ready"].color))


def test_a_vetoed_sighting_flashes_red(game: Rig) -> None:
    game.svc.act({"type": "claim", "player": "red", "route": "berlin-wien"}, HOST)
    reply = game.svc.observe({"kind": "claim_seen", "route": "berlin-wien", "color": "blue"})
    assert reply["result"] == "vetoed"
    assert game.wait_status("illegal")
    assert game.wait_sound("illegal")
    assert game.wait_status("ready", timeout=ILLEGAL_SECONDS + 3)


# --- taps, tunnels and questions: waiting_for_tap and the confirm button ----------------------


def test_a_pending_payment_waits_for_a_tap_until_the_claim(game: Rig) -> None:
    tap(game, "green")
    assert game.wait_status("waiting_for_tap")
    if game.factory is not None:
        blue = game.pin("led_blue")
        assert wait_for(lambda: sum(1 for s in blue.states if s.state) >= 2)  # slow blink
    # Nothing for the confirm button to settle: the camera has not seen the claim yet.
    game.press("confirm")
    assert game.wait_sound("attention")
    assert wait_for(lambda: any("Nothing to confirm" in n["text"] for n in game.notices))
    assert game.panel.status == "waiting_for_tap"
    accepted = game.panel.sounds.count("accepted")
    game.svc.observe({"kind": "claim_seen", "route": "berlin-wien", "color": "red"})
    assert game.wait_status("ready")
    assert game.wait_sound("accepted", accepted + 1)
    assert "berlin-wien" in game.state()["players"][0]["routes"]


def test_a_tunnel_is_settled_with_taps_and_the_confirm_button(game: Rig) -> None:
    game.svc.act(
        {"type": "claim", "player": "red", "route": "angora-smyrna", "cards": ["orange"] * 3}, HOST
    )
    assert game.wait_status("waiting_for_tap")
    for card in ("orange", "blue", "green"):
        tap(game, card)
    game.press("confirm")
    assert wait_for(lambda: (game.state()["tunnel"] or {}).get("extra") == 1)
    assert game.panel.status == "waiting_for_tap"  # the surcharge is still to pay
    tap(game, "locomotive")
    game.press("confirm")
    assert wait_for(lambda: game.state()["tunnel"] is None)
    assert "angora-smyrna" in game.state()["players"][0]["routes"]
    assert game.state()["last"]["actor"] == "button"
    assert game.wait_status("ready")


def test_a_camera_question_asks_for_attention_and_confirm_answers_it(game: Rig) -> None:
    reply = game.svc.observe({"kind": "claim_seen", "route": "berlin-wien", "color": "blue"})
    assert reply["result"] == "pending"
    assert game.wait_status("waiting_for_tap")
    assert game.wait_sound("attention")
    if game.factory is not None:
        assert wait_for(lambda: len(game.buzzer_beeps()) >= 3)  # three short beeps
    game.press("confirm")
    assert wait_for(lambda: "berlin-wien" in game.state()["players"][1]["routes"])
    assert game.state()["pending"]["confirmations"] == []
    assert game.wait_status("ready")


# --- final round ------------------------------------------------------------------------------


def test_the_final_round_shows_amber(game: Rig) -> None:
    game.svc.act({"type": "set_board", "routes": final_round_board(game)}, HOST)
    assert game.table.drain()
    assert game.panel.status == "ready"
    game.press("end_turn")  # red ends a turn with 2 trains or fewer: the final round begins
    assert wait_for(lambda: game.state()["final_round"])
    assert game.wait_status("final_round")
    assert wait_for(lambda: game.led() == pytest.approx(LED_PATTERNS["final_round"].color))
    tap(game, "red")  # a tap in the final round still waits for the claim
    assert game.wait_status("waiting_for_tap")
    game.svc.clear_pending(HOST)
    assert game.wait_status("final_round")
    game.press("end_turn")  # blue's last turn
    assert wait_for(lambda: game.state()["current"] == "red")
    assert game.panel.status == "final_round"
    game.press("end_turn")  # red's last turn: the game is over, the host finishes it
    assert wait_for(lambda: game.state()["phase"] == "over")
    assert game.panel.status == "final_round"
    game.svc.act({"type": "finish"}, HOST)
    assert game.wait_status("ready")


# --- undo -------------------------------------------------------------------------------------


def test_the_undo_button_undoes_the_last_step(game: Rig) -> None:
    game.svc.act({"type": "claim", "player": "red", "route": "berlin-wien"}, HOST)
    assert "berlin-wien" in game.state()["players"][0]["routes"]
    game.press("undo")
    assert wait_for(lambda: game.state()["last"]["type"] == "undo")
    state = game.state()
    assert state["last"]["actor"] == "button"
    assert "berlin-wien" not in state["players"][0]["routes"]
    assert state["current"] == "red" and not state["acted"]


# --- hold undo: the host menu -----------------------------------------------------------------


def test_holding_undo_opens_the_host_menu_and_end_turn_changes_the_payment_mode(
    game: Rig,
) -> None:
    # (red has not acted: a claim would have ended red's turn by itself)
    game.svc.act({"type": "set_payment_mode", "payment_mode": "lenient"}, HOST)
    seq = game.svc.seq
    game.hold_undo()
    assert game.wait_status("host_menu")
    assert game.wait_sound("attention")
    assert wait_for(lambda: any("Host menu" in n["text"] for n in game.notices))
    assert game.svc.seq == seq  # holding is not an undo
    assert game.state()["payment_mode"] == "lenient"
    game.press("end_turn")
    assert wait_for(lambda: game.state()["payment_mode"] == "off")
    assert game.state()["current"] == "red"  # the press chose from the menu, no turn ended
    assert game.state()["last"]["actor"] == "button"
    assert game.wait_status("ready")
    assert not game.table.menu_open
    game.press("end_turn")  # the menu is closed: back to ending turns
    assert wait_for(lambda: game.state()["current"] == "blue")


def test_the_host_menu_rejects_a_camera_question_and_clears_taps(game: Rig) -> None:
    game.svc.observe({"kind": "claim_seen", "route": "berlin-wien", "color": "blue"})
    assert game.wait_status("waiting_for_tap")
    game.hold_undo()
    assert game.wait_status("host_menu")
    game.press("confirm")
    assert wait_for(lambda: game.state()["pending"]["confirmations"] == [])
    assert game.state()["players"][1]["routes"] == []  # rejected, not applied
    assert game.wait_status("ready")
    tap(game, "green")
    tap(game, "green")
    assert game.wait_status("waiting_for_tap")
    game.hold_undo()
    assert game.wait_status("host_menu")
    game.press("undo")
    assert wait_for(lambda: game.state()["pending"]["payment"] is None)
    assert game.wait_status("ready")


def test_the_host_menu_closes_when_held_again_or_after_a_while(game: Rig) -> None:
    game.hold_undo()
    assert game.wait_status("host_menu")
    game.hold_undo()
    assert game.wait_status("ready")
    assert wait_for(lambda: any("Host menu closed" in n["text"] for n in game.notices))
    game.hold_undo()
    assert game.wait_status("host_menu")
    assert game.wait_status("ready", timeout=MENU_SECONDS + 3)  # nobody chose: it closes
    assert not game.table.menu_open
    seq = game.svc.seq
    game.press("confirm")  # the menu is closed: confirm has nothing to confirm
    assert game.wait_sound("attention", 3)
    assert game.svc.seq == seq
