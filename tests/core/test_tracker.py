"""The table tracker: checks what the table shows, in every payment mode."""

from __future__ import annotations

import pytest

from companion.core.actions import (
    Action,
    BuildStation,
    ClaimRoute,
    DrawDeck,
    DrawTickets,
    DrewCards,
    EndTurn,
    KeepTickets,
    PayTunnel,
    RevealTunnel,
    WithdrawTunnel,
)
from companion.core.board import GameMap
from companion.core.cards import LOCO, Card
from companion.core.errors import IllegalActionError, InvalidStateError
from companion.core.tracker import TableTracker

R, B, P, G = Card.RED, Card.BLUE, Card.PINK, Card.GREEN


def tracker(emap: GameMap, n: int = 2, mode: str = "lenient") -> TableTracker:
    colors = ["red", "blue", "green", "yellow", "black"][:n]
    return TableTracker(emap, [(c.title(), c) for c in colors], payment_mode=mode)


def refused(t: TableTracker, action: Action) -> str:
    """The rule ``t`` names as it refuses ``action`` (the test fails if it takes it)."""
    with pytest.raises(IllegalActionError) as err:
        t.apply(action)
    return err.value.rule


def test_claim_without_cards_is_trusted_unless_strict(emap: GameMap) -> None:
    t = tracker(emap)
    t.apply(ClaimRoute("red", "berlin-wien"))
    assert t.route_owner == {"berlin-wien": "red"} and t.players[0].trains == 42
    strict = tracker(emap, mode="strict")
    assert refused(strict, ClaimRoute("red", "berlin-wien")) == "no-cards-given"


def test_payment_modes(emap: GameMap) -> None:
    wrong = ClaimRoute("red", "berlin-frankfurt-2", (B, B, B))
    strict = tracker(emap, mode="strict")
    before = strict.to_json()
    assert refused(strict, wrong) == "payment-colour"
    assert strict.to_json() == before
    lenient = tracker(emap, mode="lenient")
    warnings = lenient.apply(wrong)
    assert lenient.route_owner["berlin-frankfurt-2"] == "red"
    assert len(warnings) == 1 and "red" in warnings[0]
    off = tracker(emap, mode="off")
    assert off.apply(wrong) == [] and off.route_owner["berlin-frankfurt-2"] == "red"


def test_one_action_per_turn_and_turn_order(emap: GameMap) -> None:
    t = tracker(emap, 3)
    t.apply(ClaimRoute("red", "berlin-wien"))
    assert refused(t, ClaimRoute("red", "essen-frankfurt")) == "one-action-per-turn"
    assert refused(t, ClaimRoute("green", "essen-frankfurt")) == "not-your-turn"
    # the next player acting ends the turn the table forgot to end
    t.apply(ClaimRoute("blue", "essen-frankfurt"))
    assert t.current_player.color == "blue" and t.turn == 1
    t.apply(EndTurn("blue"))
    assert t.current_player.color == "green"


def test_double_routes_and_trains(emap: GameMap) -> None:
    t = tracker(emap, 2)
    t.apply(ClaimRoute("red", "berlin-frankfurt-1"))
    assert refused(t, ClaimRoute("blue", "berlin-frankfurt-2")) == "double-closed"
    t.players[1].trains = 2
    assert refused(t, ClaimRoute("blue", "berlin-wien")) == "not-enough-trains"


def test_tunnel_flow_with_reveal_and_surcharge(emap: GameMap) -> None:
    t = tracker(emap, mode="strict")
    t.apply(ClaimRoute("red", "marseille-zurich", (P, P)))
    assert t.tunnel is not None and t.tunnel.surcharge is None
    assert refused(t, EndTurn("red")) == "tunnel-pending"
    assert refused(t, PayTunnel("red", (P,))) == "tunnel-not-revealed"
    t.apply(RevealTunnel("red", (P, LOCO, B)))
    assert t.to_json()["tunnel"]["extra"] == 2
    assert refused(t, PayTunnel("red", (P, B))) == "tunnel-extra-colour"
    t.apply(PayTunnel("red", (P, LOCO)))
    assert t.route_owner == {"marseille-zurich": "red"} and t.tunnel is None


def test_tunnel_withdraw_and_free_tunnel(emap: GameMap) -> None:
    t = tracker(emap)
    t.apply(ClaimRoute("red", "marseille-zurich", (P, P)))
    t.apply(RevealTunnel("red", (R, B, G)))  # nothing matches: built at once
    assert t.route_owner == {"marseille-zurich": "red"}
    t.apply(EndTurn("red"))
    t.apply(ClaimRoute("blue", "paris-zurich", (R, R, R)))
    t.apply(RevealTunnel("blue", (R, R, R)))
    t.apply(WithdrawTunnel("blue"))
    assert "paris-zurich" not in t.route_owner
    assert refused(t, ClaimRoute("blue", "berlin-wien")) == "one-action-per-turn"


def test_stations_and_tickets(emap: GameMap) -> None:
    t = tracker(emap, mode="strict")
    t.apply(KeepTickets("red", ("brest-petrograd", "paris-wien")))
    assert refused(t, KeepTickets("blue", ("berlin-roma",))) == "keep-minimum"
    t.apply(KeepTickets("blue", ("berlin-roma", "kyiv-sochi")))
    assert t.phase == "playing"
    assert refused(t, BuildStation("red", "wien")) == "no-cards-given"
    t.apply(BuildStation("red", "wien", (B,)))
    t.apply(EndTurn("red"))
    assert refused(t, BuildStation("blue", "wien", (G,))) == "station-taken"
    t.apply(DrawTickets("blue"))
    t.apply(KeepTickets("blue", ("frankfurt-kobenhavn",)))  # a later draw: keep 1 to 3
    assert "frankfurt-kobenhavn" in t.players[1].tickets
    t.apply(EndTurn("blue"))
    assert refused(t, BuildStation("red", "roma", (R,))) == "station-cost"
    t.apply(DrawTickets("red"))
    assert refused(t, KeepTickets("red", ("danzig-lisboa",))) == "long-ticket"


def test_variant_tickets_are_checked(emap: GameMap) -> None:
    t = TableTracker(emap, [("A", "red"), ("B", "blue")], variant="1912")
    assert refused(t, KeepTickets("red", ("paris-wien", "brest-petrograd"))) == "wrong-variant"


def test_final_round_timing(emap: GameMap) -> None:
    t = tracker(emap, 2)
    t.players[0].trains = 5
    t.apply(ClaimRoute("red", "berlin-wien"))
    t.apply(EndTurn("red"))
    assert t.final_round and not t.over
    t.apply(DrewCards("blue"))
    t.apply(EndTurn("blue"))
    assert not t.over and t.current_player.color == "red"
    t.apply(EndTurn("red"))
    assert t.over
    with pytest.raises(IllegalActionError):
        t.apply(EndTurn("blue"))
    score = t.final_score()
    assert score.by_color("red").route_points == 4


def test_simulation_only_actions_are_refused(emap: GameMap) -> None:
    t = tracker(emap)
    assert refused(t, DrawDeck("red")) == "not-tracked"


def test_bad_trackers(emap: GameMap) -> None:
    with pytest.raises(InvalidStateError):
        TableTracker(emap, [("A", "red"), ("B", "blue")], payment_mode="sometimes")
    with pytest.raises(InvalidStateError):
        TableTracker(emap, [("A", "red")])
    assert refused(tracker(emap), ClaimRoute("red", "paris-atlantis")) == "unknown-route"
