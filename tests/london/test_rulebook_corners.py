"""London corner cases: the draw pile and the discards run out; no pass while a route can be
claimed; cards paid refill the empty face-up slots at once, with the three-bus redeal."""

from __future__ import annotations

import random
from collections import Counter

from companion.london.actions import ClaimRoute, Pass
from companion.london.board import LondonMap
from companion.london.cards import BUS, Card, full_deck

from ..core.playing import pile_run_out
from .test_game import refused, started

K, G, B = Card.BLACK, Card.GREEN, Card.BLUE
ROUTE = "british-museum--piccadilly-circus"  # grey, 2


def test_no_pass_while_a_route_can_be_claimed(lmap: LondonMap) -> None:
    g = started(lmap)
    pile_run_out(g, [None] * 5, [K, K])
    g.ticket_deck = []
    refused(g, Pass("red"), "pass")


def test_cards_paid_refill_the_empty_face_up_slots_at_once(lmap: LondonMap) -> None:
    g = started(lmap)
    pile_run_out(g, [G, B, None, None, None], [K, K])
    g.apply(ClaimRoute("red", ROUTE, (K, K)))
    assert g.face_up == [G, B, K, K, None] and g.deck == [] and g.discard == []
    assert g.all_cards() == Counter(full_deck())


def test_a_refilled_row_with_three_buses_is_discarded_and_dealt_again(lmap: LondonMap) -> None:
    redealt = 0
    for seed in range(12):
        g = started(lmap)
        pile_run_out(g, [BUS, BUS, G, B, None], [K, BUS])
        g.rng = random.Random(seed)
        g.apply(ClaimRoute("red", ROUTE, (K, BUS)))
        assert None not in g.face_up and g.face_up.count(BUS) < 3
        redealt += g.face_up[:4] != [BUS, BUS, G, B]
        assert g.all_cards() == Counter(full_deck())
    assert redealt
