"""The table tracker: checks what the table shows, in every payment mode."""

from __future__ import annotations

import pytest

from companion.core.actions import (
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


def test_claim_without_cards_is_trusted_unless_strict(emap: GameMap) -> None:
    t = tracker(emap)
    t.apply(ClaimRoute("red", "berlin-wien"))
    assert t.route_owner == {"berlin-wien": "red"} and t.players[0].trains == 42
    strict = tracker(emap, mode="strict")
    with pytest.raises(IllegalActionError) as err:
        strict.apply(ClaimRoute("red", "berlin-wien"))
    assert err.value.rule == "no-cards-given"


def test_payment_modes(emap: GameMap) -> None:
    wrong = ClaimRoute("red", "berlin-frankfurt-2", (B, B, B))
    strict = tracker(emap, mode="strict")
    before = strict.to_json()
    with pytest.raises(IllegalActionError) as err:
        strict.apply(wrong)
    assert err.value.rule == "payment-colour"
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
    with pytest.raises(IllegalActionError) as err:
        t.apply(ClaimRoute("red", "essen-frankfurt"))
    assert err.value.rule == "one-action-per-turn"
    with pytest.raises(IllegalActionError) as err:
        t.apply(ClaimRoute("green", "essen-frankfurt"))
    assert err.value.rule == "not-your-turn"
    # the next player acting ends the turn the table forgot to end
    t.apply(ClaimRoute("blue", "essen-frankfurt"))
    assert t.current_player.color == "blue" and t.turn == 1
    t.apply(EndTurn("blue"))
    assert t.current_player.color == "green"


def test_double_routes_and_trains(emap: GameMap) -> None:
    t = tracker(emap, 2)
    t.apply(ClaimRoute("red", "berlin-frankfurt-1"))
    with pytest.raises(IllegalActionError) as err:
        t.apply(ClaimRoute("blue", "berlin-frankfurt-2"))
    assert err.value.rule == "double-closed"
    t.players[1].trains = 2
    with pytest.raises(IllegalActionError) as err:
        t.apply(ClaimRoute("blue", "berlin-wien"))
    assert err.value.rule == "not-enough-trains"


def test_tunnel_flow_with_reveal_and_surcharge(emap: GameMap) -> None:
    t = tracker(emap, mode="strict")
    t.apply(ClaimRoute("red", "marseille-zurich", (P, P)))
    assert t.tunnel is not None and t.tunnel.surcharge is None
    with pytest.raises(IllegalActionError) as err:
        t.apply(EndTurn("red"))
    assert err.value.rule == "tunnel-pending"
    with pytest.raises(IllegalActionError) as err:
        t.apply(PayTunnel("red", (P,)))
    assert err.value.rule == "tunnel-not-revealed"
    t.apply(RevealTunnel("red", (P, LOCO, B)))
    assert t.to_json()["tunnel"]["extra"] == 2
    with pytest.raises(IllegalActionError) as err:
        t.apply(PayTunnel("red", (P, B)))
    assert err.value.rule == "tunnel-extra-colour"
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
    with pytest.raises(IllegalActionError) as err:
        t.apply(ClaimRoute("blue", "berlin-wien"))
    assert err.value.rule == "one-action-per-turn"


def test_stations_and_tickets(emap: GameMap) -> None:
    t = tracker(emap, mode="strict")
    t.apply(KeepTickets("red", ("brest-petrograd", "paris-wien")))
    with pytest.raises(IllegalActionError) as err:
        t.apply(KeepTickets("blue", ("berlin-roma",)))
    assert err.value.rule == "keep-minimum"
    t.apply(KeepTickets("blue", ("berlin-roma", "kyiv-sochi")))
    assert t.phase == "playing"
    with pytest.raises(IllegalActionError) as err:
        t.apply(BuildStation("red", "wien"))
    assert err.value.rule == "no-cards-given"
    t.apply(BuildStation("red", "wien", (B,)))
    t.apply(EndTurn("red"))
    with pytest.raises(IllegalActionError) as err:
        t.apply(BuildStation("blue", "wien", (G,)))
    assert err.value.rule == "station-taken"
    t.apply(DrawTickets("blue"))
    t.apply(KeepTickets("blue", ("frankfurt-kobenhavn",)))  # a later draw: keep 1 to 3
    assert "frankfurt-kobenhavn" in t.players[1].tickets
    t.apply(EndTurn("blue"))
    with pytest.raises(IllegalActionError) as err:
        t.apply(BuildStation("red", "roma", (R,)))
    assert err.value.rule == "station-cost"
    t.apply(DrawTickets("red"))
    with pytest.raises(IllegalActionError) as err:
        t.apply(KeepTickets("red", ("danzig-lisboa",)))
    assert err.value.rule == "long-ticket"


def test_variant_tickets_are_checked(emap: GameMap) -> None:
    t = TableTracker(emap, [("A", "red"), ("B", "blue")], variant="1912")
    with pytest.raises(IllegalActionError) as err:
        t.apply(KeepTickets("red", ("paris-wien", "brest-petrograd")))
    assert err.value.rule == "wrong-variant"


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
    with pytest.raises(IllegalActionError) as err:
        t.apply(DrawDeck("red"))
    assert err.value.rule == "not-tracked"


def test_bad_trackers(emap: GameMap) -> None:
    with pytest.raises(InvalidStateError):
        TableTracker(emap, [("A", "red"), ("B", "blue")], payment_mode="sometimes")
    with pytest.raises(InvalidStateError):
        TableTracker(emap, [("A", "red")])
    with pytest.raises(IllegalActionError) as err:
        tracker(emap).apply(ClaimRoute("red", "paris-atlantis"))
    assert err.value.rule == "unknown-route"
