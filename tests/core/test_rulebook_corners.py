"""Corner cases of the rulebook (found by an audit of the simulation and the tracker).

The draw pile and the discards may both run out; a player then must claim a route, build a
station or draw tickets (no pass while any of that, or any draw, is possible); cards paid
refill the empty face-up slots at once, with the three-locomotive redeal. A lenient table
still works out the tunnel surcharge when the first payment was wrong.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from companion.core.actions import ClaimRoute, Pass, PayTunnel, RevealTunnel
from companion.core.board import GameMap
from companion.core.cards import LOCO, Card, full_deck
from companion.core.errors import IllegalActionError
from companion.core.tracker import TableTracker

from .playing import pile_run_out
from .test_game import started

R, G, B, P, Y = Card.RED, Card.GREEN, Card.BLUE, Card.PINK, Card.YELLOW


def test_no_pass_while_a_route_can_be_claimed(emap: GameMap) -> None:
    g = started(emap)
    pile_run_out(g, [None] * 5, [R, R])
    g.ticket_deck = []
    with pytest.raises(IllegalActionError) as err:
        g.apply(Pass("red"))  # red can still claim danzig-warszawa (grey, 2) with 2 red cards
    assert err.value.rule == "pass" and err.value.code == "rule.pass"
    g.apply(ClaimRoute("red", "danzig-warszawa", (R, R)))
    assert g.current_player.color == "blue"


def test_no_pass_while_a_station_can_be_built(emap: GameMap) -> None:
    g = started(emap)
    pile_run_out(g, [None] * 5, [R])
    g.ticket_deck = []
    g.player("red").trains = 0  # no route can be claimed, but the first station costs 1 card
    with pytest.raises(IllegalActionError) as err:
        g.apply(Pass("red"))
    assert err.value.rule == "pass"
    g.player("red").stations = ["berlin", "wien", "roma"]
    g.station_owner.update({"berlin": "red", "wien": "red", "roma": "red"})
    g.apply(Pass("red"))
    assert g.current_player.color == "blue"


def test_no_pass_while_a_face_up_locomotive_can_be_drawn(emap: GameMap) -> None:
    g = started(emap)
    pile_run_out(g, [LOCO, None, None, None, None], [])
    g.ticket_deck = []
    with pytest.raises(IllegalActionError) as err:
        g.apply(Pass("red"))  # drawing is an action: the face-up locomotive may be taken
    assert err.value.rule == "pass"


def test_cards_paid_refill_the_empty_face_up_slots_at_once(emap: GameMap) -> None:
    g = started(emap)
    pile_run_out(g, [G, B, None, None, None], [R, R])
    g.apply(ClaimRoute("red", "danzig-warszawa", (R, R)))
    assert g.face_up == [G, B, R, R, None]  # both paid cards went face up, one slot stays empty
    assert g.deck == [] and g.discard == []
    assert g.all_cards() == Counter(full_deck())


def test_a_refilled_row_with_three_locomotives_is_discarded_and_dealt_again(
    emap: GameMap,
) -> None:
    redealt = 0
    for seed in range(12):
        g = started(emap)
        pile_run_out(g, [LOCO, LOCO, G, B, None], [R, LOCO])
        g.rng = random.Random(seed)
        g.apply(ClaimRoute("red", "danzig-warszawa", (R, LOCO)))
        row = g.face_up
        assert None not in row and row.count(LOCO) < 3
        assert Counter(row) + Counter(g.deck) + Counter(g.discard) == Counter(
            [LOCO, LOCO, LOCO, G, B, R]
        )
        redealt += row[:4] != [LOCO, LOCO, G, B]
        assert g.all_cards() == Counter(full_deck())
    assert redealt  # some seeds turned up the third locomotive: the row was dealt again


def test_tunnel_cards_turned_up_refill_the_empty_face_up_slots(emap: GameMap) -> None:
    g = started(emap)
    pile_run_out(g, [G, None, None, None, None], [P, P])
    g.apply(ClaimRoute("red", "marseille-zurich", (P, P)))  # nothing to turn up: built at once
    assert g.route_owner["marseille-zurich"] == "red"
    assert g.face_up == [G, P, P, None, None]


def lenient(emap: GameMap) -> TableTracker:
    return TableTracker(emap, [("Red", "red"), ("Blue", "blue")], payment_mode="lenient")


def test_lenient_tunnel_surcharge_is_counted_when_the_first_payment_was_wrong(
    emap: GameMap,
) -> None:
    t = lenient(emap)
    warnings = t.apply(ClaimRoute("red", "marseille-zurich", (P, B)))  # pink tunnel, mixed
    assert len(warnings) == 1 and t.tunnel is not None
    t.apply(RevealTunnel("red", (P, B, LOCO)))  # the pink card and the locomotive match
    tunnel = t.to_json()["tunnel"]
    assert (tunnel["extra"], tunnel["extra_color"]) == (2, "pink")
    assert len(t.apply(PayTunnel("red", (B, B)))) == 1  # still checked: a warning
    assert t.route_owner == {"marseille-zurich": "red"}


def test_lenient_wrong_colour_on_a_tunnel_counts_the_tunnels_colour(emap: GameMap) -> None:
    t = lenient(emap)
    t.apply(ClaimRoute("red", "marseille-zurich", (B, B)))  # blue cards on a pink tunnel
    t.apply(RevealTunnel("red", (B, B, R)))  # only pink cards and locomotives count
    assert t.tunnel is None and t.route_owner == {"marseille-zurich": "red"}


def test_lenient_grey_tunnel_in_mixed_colours_goes_by_the_colour_played_most(
    emap: GameMap,
) -> None:
    t = lenient(emap)
    t.apply(ClaimRoute("red", "barcelona-pamplona", (Y, Y, R)))  # 3 cards, two colours
    t.apply(RevealTunnel("red", (Y, R, G)))
    tunnel = t.to_json()["tunnel"]
    assert (tunnel["extra"], tunnel["extra_color"]) == (1, "yellow")
    back = TableTracker.from_json(t.to_json(), emap)  # the JSON form keeps what it was paid as
    assert back.to_json()["tunnel"] == tunnel
    assert back.apply(PayTunnel("red", (Y,))) == []
    assert back.route_owner == {"barcelona-pamplona": "red"}
