"""The London simulation, rule by rule, with the rule sheet's own cases."""

from __future__ import annotations

from collections import Counter

import pytest

from companion.core.errors import IllegalActionError, InvalidStateError
from companion.london.actions import (
    ClaimRoute,
    DrawDeck,
    DrawFaceUp,
    DrawTickets,
    DrewCards,
    KeepTickets,
    Pass,
)
from companion.london.board import LondonMap
from companion.london.cards import BUS, Card, full_deck
from companion.london.game import Game, Phase, apply
from companion.london.payment import check_route_payment, is_legal_payment, payment_options

from ..core.playing import json_round_trip

Y, K, B, G, OR, P = Card.YELLOW, Card.BLACK, Card.BLUE, Card.GREEN, Card.ORANGE, Card.PINK
COLORS4 = ["red", "blue", "green", "yellow"]


def new_game(lmap: LondonMap, n: int = 2, seed: int = 1) -> Game:
    return Game.new(lmap, [(c.title(), c) for c in COLORS4[:n]], seed=seed)


def started(lmap: LondonMap, n: int = 2, seed: int = 1) -> Game:
    g = new_game(lmap, n, seed)
    for p in g.players:
        g.apply(KeepTickets(p.color, tuple(p.offered)))
    assert g.phase is Phase.PLAYING
    return g


def give(g: Game, color: str, *cards: Card) -> None:
    """Move cards from the deck into a hand (keeps the 44 cards conserved)."""
    p = g.player(color)
    for c in cards:
        g.deck.remove(c) if c in g.deck else g.discard.remove(c)
        p.hand[c] += 1


def refused(g: Game, action: object, rule: str) -> None:
    before = g.to_json()
    with pytest.raises(IllegalActionError) as err:
        g.apply(action)  # type: ignore[arg-type]
    assert err.value.rule == rule
    assert g.to_json() == before  # a refused action changes nothing


def test_setup(lmap: LondonMap) -> None:
    g = new_game(lmap, 4)
    assert all(sum(p.hand.values()) == 2 for p in g.players)  # two cards each
    assert all(p.buses == 17 for p in g.players)
    assert len(g.face_up) == 5 and sum(1 for c in g.face_up if c is BUS) < 3
    assert g.all_cards() == Counter(full_deck()) and sum(g.all_cards().values()) == 44
    assert Counter(full_deck())[BUS] == 8 and all(Counter(full_deck())[c] == 6 for c in (Y, K, P))
    assert all(len(p.offered) == 2 for p in g.players)  # two tickets dealt each
    assert len(g.ticket_deck) == 20 - 8


@pytest.mark.parametrize("n", [1, 5])
def test_two_to_four_players(lmap: LondonMap, n: int) -> None:
    with pytest.raises(InvalidStateError) as err:
        Game.new(lmap, [(c, c) for c in ["red", "blue", "green", "yellow", "black"][:n]])
    assert "2-4 players" in str(err.value)


def test_first_tickets_keep_one_or_both_unkept_to_the_bottom(lmap: LondonMap) -> None:
    g = new_game(lmap, 2)
    red, blue = g.player("red"), g.player("blue")
    refused(g, KeepTickets("red", ()), "keep-minimum")
    refused(g, DrawDeck("red"), "setup-tickets")
    refused(g, KeepTickets("red", (blue.offered[0],)), "ticket-not-offered")
    kept, returned = red.offered
    g.apply(KeepTickets("red", (kept,)))
    assert red.tickets == [kept] and g.ticket_deck[-1] == returned  # under the deck
    refused(g, KeepTickets("red", (returned,)), "setup-done")
    assert g.phase is Phase.SETUP
    g.apply(KeepTickets("blue", tuple(blue.offered)))  # both may be kept
    assert len(blue.tickets) == 2 and g.phase is Phase.PLAYING
    assert g.all_tickets() == Counter(list(lmap.tickets))


def test_yellow_three_pays_with_any_mix_of_yellow_and_buses(lmap: LondonMap) -> None:
    """The rule sheet's example: a 3-long yellow route takes YYY, YY+bus, Y+2 buses or 3 buses."""
    route = lmap.routes["big-ben--elephant-castle"]
    assert (route.length, route.color) == (3, Y)
    hand = Counter({Y: 5, BUS: 5, K: 5})
    options = sorted(tuple(sorted(o)) for o in payment_options(route, hand))
    assert options == sorted(
        tuple(sorted(o)) for o in ([Y, Y, Y], [Y, Y, BUS], [Y, BUS, BUS], [BUS, BUS, BUS])
    )
    for cards in options:
        assert check_route_payment(route, cards) in (Y, BUS)
    for bad, rule in [
        ([K, K, K], "payment-colour"),
        ([Y, Y], "payment-count"),
        ([Y, Y, Y, Y], "payment-count"),
        ([Y, K, BUS], "one-colour"),
    ]:
        with pytest.raises(IllegalActionError) as err:
            check_route_payment(route, bad)
        assert err.value.rule == rule


def test_grey_routes_take_any_one_colour(lmap: LondonMap) -> None:
    route = lmap.routes["baker-street--piccadilly-circus"]
    assert route.is_grey and route.length == 4
    for color in (K, B, G, OR, P, Y):
        assert is_legal_payment(route, [color] * 3 + [BUS])[0]
    assert not is_legal_payment(route, [K, K, B, B])[0]
    hand = Counter({K: 4, B: 2, BUS: 2})
    options = list(payment_options(route, hand))
    assert [K, K, K, K] in options and [B, B, BUS, BUS] in options and len(options) == 4


def test_claim_scores_by_the_route_table_and_ends_the_turn(lmap: LondonMap) -> None:
    assert dict(lmap.route_points) == {1: 1, 2: 2, 3: 4, 4: 7}
    g = started(lmap)
    give(g, "red", OR, OR, OR, BUS)
    g.apply(ClaimRoute("red", "baker-street--british-museum", (OR, OR, OR, BUS)))
    red = g.player("red")
    assert (
        red.score == 7
        and red.buses == 13
        and g.route_owner == {"baker-street--british-museum": "red"}
    )
    assert g.current_player.color == "blue"
    refused(g, ClaimRoute("blue", "baker-street--british-museum", (OR, OR, OR, OR)), "route-taken")
    refused(g, ClaimRoute("blue", "big-ben--waterloo", (Y,)), "payment-colour")
    refused(g, ClaimRoute("blue", "big-ben--waterloo", None), "no-cards-given")
    refused(g, ClaimRoute("blue", "big-ben--atlantis", (B,)), "unknown-route")
    blue = g.player("blue")
    if blue.hand[B] == 0:
        refused(g, ClaimRoute("blue", "big-ben--waterloo", (B,)), "not-in-hand")


def test_not_enough_buses(lmap: LondonMap) -> None:
    g = started(lmap)
    give(g, "red", K, K, K, K)
    g.player("red").buses = 3
    refused(g, ClaimRoute("red", "baker-street--hyde-park", (K, K, K, K)), "not-enough-buses")


def test_double_routes_closed_in_two_player_games(lmap: LondonMap) -> None:
    g = started(lmap, 2)
    give(g, "red", OR)
    g.apply(ClaimRoute("red", "buckingham-palace--hyde-park-1", (OR,)))
    give(g, "blue", Y)
    refused(g, ClaimRoute("blue", "buckingham-palace--hyde-park-2", (Y,)), "double-closed")


def test_double_routes_open_to_another_player_with_three(lmap: LondonMap) -> None:
    g = started(lmap, 3)
    give(g, "red", OR)
    g.apply(ClaimRoute("red", "buckingham-palace--hyde-park-1", (OR,)))
    give(g, "blue", Y)
    g.apply(ClaimRoute("blue", "buckingham-palace--hyde-park-2", (Y,)))
    g.apply(DrawDeck("green"))
    g.apply(DrawDeck("green"))
    give(g, "red", G)
    refused(g, ClaimRoute("red", "covent-garden--piccadilly-circus-1", (Y,)), "payment-colour")
    g.apply(ClaimRoute("red", "covent-garden--piccadilly-circus-1", (G,)))
    g.apply(DrawDeck("blue"))
    g.apply(DrawDeck("blue"))
    g.apply(DrawDeck("green"))
    g.apply(DrawDeck("green"))
    give(g, "red", Y)
    refused(g, ClaimRoute("red", "covent-garden--piccadilly-circus-2", (Y,)), "double-both")


def test_drawing_two_cards_and_the_face_up_refill(lmap: LondonMap) -> None:
    g = started(lmap)
    g.face_up = [Y, K, B, G, OR]
    g.deck[-1:] = [P]  # the next card turned up is pink
    g.apply(DrawFaceUp("red", K))
    assert g.face_up == [Y, P, B, G, OR] and g.player("red").hand[K] >= 1
    assert g.current_player.color == "red" and g.cards_drawn == 1
    refused(g, ClaimRoute("red", "big-ben--waterloo", (B,)), "one-action-per-turn")
    refused(g, DrawFaceUp("red", BUS), "not-face-up")
    g.apply(DrawDeck("red"))
    assert g.current_player.color == "blue" and g.cards_drawn == 0


def test_a_face_up_bus_is_the_whole_draw_and_never_the_second(lmap: LondonMap) -> None:
    g = started(lmap)
    g.face_up = [BUS, K, B, G, OR]
    g.deck[-1:] = [Y]
    g.apply(DrawFaceUp("red", BUS))
    assert g.current_player.color == "blue"  # the turn ended at once
    g.face_up = [BUS, K, B, G, OR]
    g.apply(DrawFaceUp("blue", K))
    refused(g, DrawFaceUp("blue", BUS), "second-bus")
    g.apply(DrawDeck("blue"))  # a bus from the deck as second card is fine
    assert g.current_player.color == "red"


def test_three_face_up_buses_replace_the_row(lmap: LondonMap) -> None:
    g = started(lmap)
    # move two buses and three other cards into the row, then refill with a third bus
    g.discard.extend(c for c in g.face_up if c is not None)
    row = [BUS, BUS, K, B, G]
    for c in row:
        (g.deck if c in g.deck else g.discard).remove(c)
    g.face_up = list(row)
    bus_from = g.deck if BUS in g.deck else g.discard
    bus_from.remove(BUS)
    g.deck.append(BUS)  # the card that replaces the black one is a third bus
    before = Counter(g.all_cards())
    discards_before = len(g.discard)
    g.apply(DrawFaceUp("red", K))
    assert sum(1 for c in g.face_up if c is BUS) < 3
    assert len(g.discard) >= discards_before + 5  # the whole row went to the discards
    assert g.all_cards() == before


def test_an_empty_deck_is_the_discards_reshuffled(lmap: LondonMap) -> None:
    g = started(lmap)
    g.discard.extend(g.deck)
    g.deck = []
    n = len(g.discard)
    g.apply(DrawDeck("red"))
    assert len(g.deck) == n - 1 and g.discard == []


def test_drawing_tickets_keep_one_or_two_rest_under_the_deck(lmap: LondonMap) -> None:
    g = started(lmap)
    top = g.ticket_deck[:2]
    g.apply(DrawTickets("red"))
    assert g.player("red").offered == top
    refused(g, DrawDeck("red"), "tickets-pending")
    refused(g, KeepTickets("red", ()), "keep-minimum")
    g.apply(KeepTickets("red", (top[1],)))
    assert g.ticket_deck[-1] == top[0] and top[1] in g.player("red").tickets
    assert g.current_player.color == "blue"


def test_the_last_ticket_can_be_drawn_and_must_be_kept(lmap: LondonMap) -> None:
    g = started(lmap)
    last = g.ticket_deck[0]
    g.ticket_deck = [last]
    g.apply(DrawTickets("red"))
    assert g.player("red").offered == [last]
    refused(g, KeepTickets("red", ()), "keep-minimum")
    g.apply(KeepTickets("red", (last,)))
    refused(g, DrawTickets("blue"), "no-tickets")


def test_pass_only_when_nothing_can_be_drawn(lmap: LondonMap) -> None:
    g = started(lmap)
    refused(g, Pass("red"), "pass")
    g.player("blue").hand.update(g.deck + g.discard + [c for c in g.face_up if c is not None])
    g.deck, g.discard, g.face_up = [], [], [None] * 5
    g.ticket_deck = []
    # red still holds cards that claim a route: no pass while a route can be claimed
    refused(g, Pass("red"), "pass")
    g.player("blue").hand.update(g.player("red").hand)
    g.player("red").hand.clear()
    g.apply(Pass("red"))
    assert g.current_player.color == "blue"
    assert g.all_cards() == Counter(full_deck())


def test_two_buses_left_start_the_final_round_for_everyone(lmap: LondonMap) -> None:
    g = started(lmap, 3)
    give(g, "blue", G, G, G)
    g.player("blue").buses = 5
    g.apply(DrawDeck("red"))
    g.apply(DrawDeck("red"))
    g.apply(ClaimRoute("blue", "brick-lane--the-charterhouse", (G, G, G)))
    assert g.player("blue").buses == 2 and g.final_round and not g.over
    for color in ("green", "red"):
        g.apply(DrawDeck(color))
        g.apply(DrawDeck(color))
        assert not g.over
    g.apply(DrawDeck("blue"))  # the player who started it plays once more too
    g.apply(DrawDeck("blue"))
    assert g.over and g.phase is Phase.OVER
    refused(g, DrawDeck("green"), "game-over")


def test_three_buses_left_does_not_end_the_game(lmap: LondonMap) -> None:
    g = started(lmap, 2)
    give(g, "red", G, G)
    g.player("red").buses = 5
    g.apply(ClaimRoute("red", "big-ben--buckingham-palace", (G, G)))
    assert g.player("red").buses == 3 and not g.final_round


def test_turn_order_and_table_only_actions(lmap: LondonMap) -> None:
    g = started(lmap)
    refused(g, DrawDeck("blue"), "not-your-turn")
    refused(g, DrawDeck("black"), "unknown-player")
    refused(g, DrewCards("red", 2), "not-in-simulation")


def test_json_round_trip_and_pure_apply(lmap: LondonMap) -> None:
    g = started(lmap, 3, seed=7)
    data = g.to_json()
    again = json_round_trip(g, lmap)
    nxt = apply(g, DrawDeck("red"))
    assert g.to_json() == data and nxt.cards_drawn == 1
    # the restored game continues exactly like the original, shuffles included
    g.apply(DrawDeck("red"))
    again.apply(DrawDeck("red"))
    assert g.to_json() == again.to_json()
