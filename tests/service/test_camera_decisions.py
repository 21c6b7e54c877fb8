"""Camera decisions (reconcile), tested directly: an observation and a fold in, a decision out,
neither argument changed."""

from __future__ import annotations

import copy
from typing import Any

from companion.service.camera import Decision, reconcile
from companion.service.fold import GameFold, fold_game
from companion.service.pending import Pending
from companion.service.shapes import check_action_shape
from companion.store import Event
from tests.service.pure_games import MAP, claim, end_turn, europe


def seen(route: str, color: str, **extra: Any) -> dict[str, Any]:
    return {"kind": "claim_seen", "route": route, "color": color, **extra}


def station(city: str, color: str) -> dict[str, Any]:
    return {"kind": "station_seen", "city": city, "color": color}


def decide(fold: GameFold | None, obs: dict[str, Any], pending: Pending | None = None) -> Decision:
    pend = pending or Pending()
    before = (fold.tracker.to_json() if fold else None, copy.deepcopy(pend.to_json()))
    decision = reconcile(fold, pend, obs)
    assert (fold.tracker.to_json() if fold else None, pend.to_json()) == before  # pure
    return decision


def test_no_game_no_decision() -> None:
    assert decide(None, seen("berlin-wien", "red")).kind == "ignore"
    assert decide(None, {"kind": "card_tapped", "card": "red"}).kind == "ignore"
    assert decide(None, {"kind": "button", "name": "undo"}).kind == "button"


def test_a_legal_claim_of_the_current_player_is_applied() -> None:
    d = decide(europe(), seen("berlin-wien", "red"))
    assert d.kind == "apply" and d.action == claim("red", "berlin-wien")


def test_what_cannot_be_is_vetoed_with_a_code() -> None:
    fold = europe(claim("red", "berlin-wien"), end_turn("red"))
    unknown = decide(fold, seen("atlantis-wien", "blue"))
    assert (unknown.kind, unknown.code, unknown.params) == (
        "veto",
        "camera.unknown_route",
        {"id": "atlantis-wien"},
    )
    taken = decide(fold, seen("berlin-wien", "blue"))
    assert taken.kind == "veto" and taken.code == "camera.route_taken"
    assert taken.params == {"color": "blue", "route": "berlin-wien", "owner": "red"}
    absent = decide(fold, seen("munchen-wien", "yellow"))
    assert absent.kind == "veto" and absent.code == "camera.not_playing"
    city = decide(fold, station("atlantis", "blue"))
    assert city.kind == "veto" and city.code == "camera.unknown_city"


def test_a_route_already_ones_own_is_ignored() -> None:
    fold = europe(claim("red", "berlin-wien"), end_turn("red"))
    assert decide(fold, seen("berlin-wien", "red")).kind == "ignore"


def test_a_claim_out_of_turn_is_a_question() -> None:
    d = decide(europe(), seen("munchen-wien", "blue"))
    assert d.kind == "confirm" and d.code == "camera.not_their_turn"
    assert d.params == {"color": "blue", "current": "red"}
    assert d.action == claim("blue", "munchen-wien")


def test_an_unsure_sighting_is_a_question() -> None:
    d = decide(europe(), seen("berlin-wien", "red", unsure=True))
    assert d.kind == "confirm" and d.code == "camera.unsure_same_colour"


def test_a_listed_sighting_is_a_question_with_its_own_reason() -> None:
    d = decide(europe(), seen("berlin-wien", "red", unsure=True, listed=True))
    assert d.kind == "confirm" and d.code == "camera.unsure_listed"
    assert d.params == {"color": "red", "route": "berlin-wien"}
    # the rules still come first: a route owned by another colour is not asked about
    fold = europe(claim("red", "berlin-wien"), end_turn("red"))
    assert decide(fold, seen("berlin-wien", "blue", unsure=True, listed=True)).kind != "confirm"


def test_a_rule_refusal_is_a_question_or_a_veto_by_its_rule() -> None:
    # red has acted: a second claim is refused by the rules; not a VETO_RULES rule: a question
    fold = europe(claim("red", "berlin-wien"))
    d = decide(fold, seen("munchen-wien", "red"))
    assert d.kind == "confirm" and d.code.startswith("rule.")
    assert d.params["color"] == "red" and d.params["route"] == "munchen-wien"


def test_tapped_cards_pay_for_the_claim() -> None:
    pending = Pending(payment_player="red", cards=["green", "green", "locomotive"])
    d = decide(europe(), seen("berlin-wien", "red"), pending)
    assert d.kind == "apply" and d.action is not None
    assert d.action["cards"] == ["green", "green", "locomotive"]


def test_a_claim_after_an_early_end_turn_is_late() -> None:
    fold = europe(end_turn("red"))
    pending = Pending(ended=(5, "red", ["green", "green", "green"]))
    d = decide(fold, seen("berlin-wien", "red"), pending)
    assert d.kind == "late" and d.code == "camera.late_claim"
    assert d.params == {"color": "red", "route": "berlin-wien", "seq": 5}
    assert d.action is not None and d.action["cards"] == ["green", "green", "green"]
    # without ``late`` (the service's second try) it is an out-of-turn question
    assert reconcile(fold, pending, seen("berlin-wien", "red"), late=False).kind == "confirm"


def test_taps_are_collected_and_photo_games_are_not_watched() -> None:
    assert decide(europe(), {"kind": "card_tapped", "card": "red"}).kind == "tap"
    assert decide(europe(), {"kind": "reader_player", "player": "blue"}).kind == "tap"
    start = check_action_shape(
        {"type": "new_game", "players": [{"color": "red"}, {"color": "blue"}], "mode": "photo"}, MAP
    )
    photo = fold_game([Event(1, "g", 1.0, "host", start)], MAP)
    assert isinstance(photo, GameFold)
    assert decide(photo, seen("berlin-wien", "red")).kind == "ignore"
