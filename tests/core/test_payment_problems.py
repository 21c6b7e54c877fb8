"""A lenient table accepts a wrong payment and records the problem on the claim, in a JSON
form, until the host accepts it (or corrects the claim)."""

from __future__ import annotations

import json

import pytest

from companion.core.actions import (
    BuildStation,
    ClaimRoute,
    DrewCards,
    EndTurn,
    PayTunnel,
    RevealTunnel,
)
from companion.core.board import GameMap
from companion.core.cards import LOCO, Card
from companion.core.errors import IllegalActionError
from companion.core.tracker import TableTracker
from companion.london.actions import ClaimRoute as LondonClaim
from companion.london.board import london_map
from companion.london.cards import Card as LondonCard
from companion.london.tracker import TableTracker as LondonTracker

R, B, P = Card.RED, Card.BLUE, Card.PINK


def table(emap: GameMap, mode: str = "lenient") -> TableTracker:
    return TableTracker(emap, [("Red", "red"), ("Blue", "blue")], payment_mode=mode)


def test_a_wrong_payment_is_accepted_and_recorded_on_the_claim(emap: GameMap) -> None:
    t = table(emap)
    warnings = t.apply(ClaimRoute("red", "berlin-frankfurt-2", (B, B, B)))  # a red route
    assert t.route_owner == {"berlin-frankfurt-2": "red"}
    [problem] = t.last_problems
    assert warnings == [problem.error]
    d = problem.to_json()
    assert json.loads(json.dumps(d)) == d  # JSON-able as it is
    assert d["player"] == "red" and d["kind"] == "claim" and d["place"] == "berlin-frankfurt-2"
    assert d["cards"] == ["blue", "blue", "blue"] and d["rule"] == "payment-colour"
    assert d["code"] == "rule.payment-colour" and d["params"]["place"] == "berlin-frankfurt-2"
    assert d["turn"] == 0 and d["accepted"] is False and d["id"] == 0
    t.apply(EndTurn("red"))
    assert t.last_problems == [] and t.open_problems() == [problem]
    assert t.to_json()["problems"] == [d]


def test_the_host_accepts_a_payment_problem_and_its_mark_goes(emap: GameMap) -> None:
    t = table(emap)
    t.apply(ClaimRoute("red", "berlin-frankfurt-2", (B, B, B)))
    back = TableTracker.from_json(t.to_json(), emap)
    assert [p.to_json() for p in back.problems] == [p.to_json() for p in t.problems]
    assert back.accept_problem(0).accepted and back.open_problems() == []
    with pytest.raises(IllegalActionError) as err:
        back.accept_problem(1)
    assert err.value.rule == "no-payment-problem"


def test_strict_refuses_and_off_records_nothing(emap: GameMap) -> None:
    strict = table(emap, "strict")
    with pytest.raises(IllegalActionError):
        strict.apply(ClaimRoute("red", "berlin-frankfurt-2", (B, B, B)))
    assert strict.problems == []
    off = table(emap, "off")
    off.apply(ClaimRoute("red", "berlin-frankfurt-2", (B, B, B)))
    assert off.problems == [] and off.route_owner == {"berlin-frankfurt-2": "red"}


def test_a_wrong_tunnel_surcharge_and_a_wrong_station_payment_are_recorded(
    emap: GameMap,
) -> None:
    t = table(emap)
    t.apply(ClaimRoute("red", "marseille-zurich", (P, P)))
    t.apply(RevealTunnel("red", (P, LOCO, B)))  # 2 more pink cards or locomotives
    t.apply(PayTunnel("red", (B, B)))
    [tunnel] = t.last_problems
    assert (tunnel.kind, tunnel.place, tunnel.rule) == (
        "tunnel",
        "marseille-zurich",
        "tunnel-extra-colour",
    )
    t.apply(EndTurn("red"))
    t.apply(BuildStation("blue", "berlin", (R, R)))  # the first station costs 1 card
    [station] = t.last_problems
    assert (station.player, station.kind, station.place, station.rule) == (
        "blue",
        "station",
        "berlin",
        "station-cost",
    )
    assert [p.id for p in t.problems] == [0, 1] and t.problems[1].turn == 1


def test_london_records_a_wrong_payment_too() -> None:
    lmap = london_map()
    t = LondonTracker(lmap, [("Red", "red"), ("Blue", "blue")])
    t.apply(LondonClaim("red", "british-museum--piccadilly-circus", (LondonCard.BLACK,)))
    [problem] = t.problems
    assert problem.rule == "payment-count" and problem.place == "british-museum--piccadilly-circus"
    t.apply(DrewCards("blue"))  # the next player acts: a new action, no new problem
    assert t.last_problems == [] and LondonTracker.from_json(t.to_json(), lmap).problems


def test_a_lenient_claim_with_no_cards_is_marked_for_the_host(emap: GameMap) -> None:
    """No cards entered is a payment the table did not see: taken, and marked like a wrong one
    (a claim, a station; a tunnel without cards is built at once, its claim marked)."""
    t = table(emap)
    warnings = t.apply(ClaimRoute("red", "berlin-frankfurt-2", None))
    [claim] = t.last_problems
    assert t.route_owner == {"berlin-frankfurt-2": "red"} and warnings == [claim.error]
    assert (claim.kind, claim.place, claim.cards, claim.rule, claim.code) == (
        "claim",
        "berlin-frankfurt-2",
        (),
        "no-cards-entered",
        "rule.no-cards-entered",
    )
    assert claim.params == {
        "place": "berlin-frankfurt-2",
        "color": "red",
        "need": 3,
        "need_card": "red",
    }
    t.apply(EndTurn("red"))
    t.apply(BuildStation("blue", "berlin", None))
    [station] = t.last_problems
    assert (station.kind, station.rule, station.params["need"]) == (
        "station",
        "no-cards-entered",
        1,
    )
    t.apply(EndTurn("blue"))
    t.apply(ClaimRoute("red", "marseille-zurich", None))  # a tunnel: built with no reveal
    assert t.tunnel is None and t.last_problems[0].place == "marseille-zurich"
    back = TableTracker.from_json(json.loads(json.dumps(t.to_json())), emap)
    assert [p.rule for p in back.problems] == ["no-cards-entered"] * 3
    off = table(emap, "off")
    off.apply(ClaimRoute("red", "berlin-frankfurt-2", None))
    assert off.problems == []


def test_london_marks_a_lenient_claim_with_no_cards() -> None:
    lmap = london_map()
    t = LondonTracker(lmap, [("Red", "red"), ("Blue", "blue")])
    t.apply(LondonClaim("red", "british-museum--piccadilly-circus", None))
    [problem] = t.problems
    route = lmap.routes["british-museum--piccadilly-circus"]
    assert problem.rule == "no-cards-entered" and problem.params["need"] == route.length
