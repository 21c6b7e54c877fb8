"""The full simulation: setup, drawing, claiming, tunnels, stations, tickets, the final round."""

from __future__ import annotations

from collections import Counter

import pytest

from companion.core.actions import (
    BuildStation,
    ClaimRoute,
    DrawDeck,
    DrawFaceUp,
    DrawTickets,
    KeepTickets,
    Pass,
    PayTunnel,
    WithdrawTunnel,
)
from companion.core.board import GameMap
from companion.core.cards import LOCO, Card
from companion.core.errors import IllegalActionError, InvalidStateError
from companion.core.game import Game, Phase, apply

from .playing import json_round_trip

R, G, B, Y, K, W = Card.RED, Card.GREEN, Card.BLUE, Card.YELLOW, Card.BLACK, Card.WHITE


def new_game(emap: GameMap, n: int = 2, variant: str = "europe", seed: int = 1) -> Game:
    colors = ["red", "blue", "green", "yellow", "black"][:n]
    return Game.new(emap, [(c.title(), c) for c in colors], variant=variant, seed=seed)


def started(emap: GameMap, n: int = 2, **kw) -> Game:
    """A game past the first ticket choice (everyone keeps all dealt tickets)."""
    g = new_game(emap, n, **kw)
    for p in g.players:
        keep = [t for t in p.offered if not emap.tickets[t].long]
        longs = [t for t in p.offered if emap.tickets[t].long]
        g.apply(KeepTickets(p.color, tuple(keep + longs[:1])))
    assert g.phase is Phase.PLAYING
    return g


def test_setup_deals_cards_tickets_and_face_up(emap: GameMap) -> None:
    g = new_game(emap, 4)
    assert all(sum(p.hand.values()) == 4 for p in g.players)
    assert len(g.face_up) == 5 and sum(1 for c in g.face_up if c is LOCO) < 3
    assert sum(g.all_cards().values()) == 110
    for p in g.players:
        longs = [t for t in p.offered if emap.tickets[t].long]
        assert (len(longs), len(p.offered)) == (1, 4)
    assert len(g.box) == 6 - 4  # the long tickets not dealt go back to the box
    assert len(g.ticket_deck) == 40 - 12


@pytest.mark.parametrize(
    ("variant", "long_dealt", "dealt", "deck_total"),
    [
        ("europe", 1, 4, 46),
        ("1912", 1, 4, 55),
        ("mega_europe", 2, 7, 101),
        ("big_cities", 0, 5, 45),
    ],
)
def test_variant_setup(
    emap: GameMap, variant: str, long_dealt: int, dealt: int, deck_total: int
) -> None:
    g = new_game(emap, 3, variant=variant)
    for p in g.players:
        assert len(p.offered) == dealt
        assert sum(1 for t in p.offered if emap.tickets[t].long) == long_dealt
    offered = sum(len(p.offered) for p in g.players)
    assert offered + len(g.ticket_deck) + len(g.box) == deck_total


def test_first_ticket_choice_rules(emap: GameMap) -> None:
    g = new_game(emap)
    red = g.player("red")
    with pytest.raises(IllegalActionError) as err:
        g.apply(KeepTickets("red", (red.offered[0],)))
    assert err.value.rule == "keep-minimum"
    with pytest.raises(IllegalActionError) as err:
        g.apply(DrawDeck("red"))
    assert err.value.rule == "setup-tickets"
    with pytest.raises(IllegalActionError) as err:
        g.apply(KeepTickets("red", ("brest-petrograd", "paris-wien")))
    assert err.value.rule == "ticket-not-offered" or "brest-petrograd" in red.offered
    g.apply(KeepTickets("red", tuple(red.offered[:2])))
    with pytest.raises(IllegalActionError) as err:
        g.apply(KeepTickets("red", tuple(red.offered[:2])))
    assert err.value.rule == "setup-done"
    assert g.phase is Phase.SETUP
    g.apply(KeepTickets("blue", tuple(g.player("blue").offered)))
    assert g.phase is Phase.PLAYING
    # europe: unkept first tickets go back to the box, not into the deck
    assert len(g.box) == 6 - 2 + 2


def test_mega_europe_keeps_at_most_one_long(emap: GameMap) -> None:
    g = new_game(emap, 2, variant="mega_europe")
    red = g.player("red")
    longs = [t for t in red.offered if emap.tickets[t].long]
    regular = [t for t in red.offered if not emap.tickets[t].long]
    with pytest.raises(IllegalActionError) as err:
        g.apply(KeepTickets("red", (*longs, regular[0])))
    assert err.value.rule == "keep-long-maximum"
    with pytest.raises(IllegalActionError) as err:  # no long: at least 3 regular
        g.apply(KeepTickets("red", tuple(regular[:2])))
    assert err.value.rule == "keep-minimum"
    deck_before = len(g.ticket_deck)
    g.apply(KeepTickets("red", (longs[0], *regular[:2])))  # one long + 2 regular is enough
    # the 3 regular tickets returned go under the deck, the long one into the box
    assert len(g.ticket_deck) == deck_before + 3
    assert set(g.ticket_deck[-3:]) == set(regular[2:])


def test_face_up_locomotive_ends_the_draw(emap: GameMap) -> None:
    g = started(emap)
    g.face_up = [LOCO, R, G, B, Y]
    g.deck.extend([K, K, K])
    g.apply(DrawFaceUp("red", LOCO))
    assert g.current_player.color == "blue" and g.player("red").hand[LOCO] >= 1


def test_no_face_up_locomotive_as_second_card(emap: GameMap) -> None:
    g = started(emap)
    g.face_up = [LOCO, R, G, B, Y]
    g.deck.extend([K, K, K])
    g.apply(DrawFaceUp("red", R))
    assert g.cards_drawn == 1 and g.current_player.color == "red"
    before = g.to_json()
    with pytest.raises(IllegalActionError) as err:
        g.apply(DrawFaceUp("red", LOCO))
    assert err.value.rule == "second-locomotive"
    assert g.to_json() == before
    with pytest.raises(IllegalActionError) as err:
        g.apply(ClaimRoute("red", "berlin-wien", (G, G, G)))
    assert err.value.rule == "one-action-per-turn"
    g.apply(DrawDeck("red"))
    assert g.current_player.color == "blue"


def test_blind_locomotive_counts_as_one_card(emap: GameMap) -> None:
    g = started(emap)
    g.deck.extend([R, LOCO])  # top is LOCO
    g.apply(DrawDeck("red"))
    assert g.current_player.color == "red" and g.cards_drawn == 1
    g.apply(DrawDeck("red"))
    assert g.current_player.color == "blue"


def test_three_face_up_locomotives_are_replaced(emap: GameMap) -> None:
    g = started(emap)
    g.face_up = [LOCO, LOCO, R, G, B]
    g.deck = [K, K, K, K, K, Y, Y, W, W, W, LOCO]  # refill draws LOCO -> three locos
    g.discard = []
    before = g.all_cards()
    g.apply(DrawFaceUp("red", R))
    assert sum(1 for c in g.face_up if c is LOCO) < 3
    assert g.discard.count(LOCO) == 3
    assert g.all_cards() == before


def test_discards_are_reshuffled_when_the_deck_runs_out(emap: GameMap) -> None:
    g = started(emap)
    g.discard.extend(g.deck)
    g.deck = []
    g.apply(DrawDeck("red"))
    assert g.deck and not g.discard
    assert sum(g.all_cards().values()) == 110


def test_drawing_may_be_impossible(emap: GameMap) -> None:
    g = started(emap)
    red, blue = g.player("red"), g.player("blue")
    # every card is in blue's hand: red can neither draw nor build
    for c in [*g.deck, *g.discard, *(x for x in g.face_up if x is not None), *red.hand.elements()]:
        blue.hand[c] += 1
    red.hand.clear()
    g.deck, g.discard, g.face_up = [], [], [None] * 5
    with pytest.raises(IllegalActionError) as err:
        g.apply(DrawDeck("red"))
    assert err.value.rule == "no-cards"
    with pytest.raises(IllegalActionError) as err:
        g.apply(Pass("red"))  # tickets can still be drawn
    assert err.value.rule == "pass"
    g.ticket_deck = []
    g.apply(Pass("red"))
    assert g.current_player.color == "blue"


def test_second_draw_impossible_ends_the_turn(emap: GameMap) -> None:
    g = started(emap)
    red = g.player("red")
    for c in [*g.deck, *g.discard]:
        red.hand[c] += 1
    g.deck, g.discard = [], []
    g.face_up = [R, LOCO, None, None, None]
    g.apply(DrawFaceUp("red", R))  # only a locomotive is left face up: the turn ends
    assert g.current_player.color == "blue"


def test_claim_pays_places_and_scores(emap: GameMap) -> None:
    g = started(emap)
    red = g.player("red")
    red.hand = Counter({R: 2, LOCO: 1})
    g.apply(ClaimRoute("red", "berlin-frankfurt-2", (R, R, LOCO)))
    assert g.route_owner["berlin-frankfurt-2"] == "red"
    assert red.trains == 42 and red.score == 4 and not red.hand
    assert g.discard[-3:] == [R, R, LOCO]
    assert g.current_player.color == "blue"


def test_claim_needs_the_cards_in_hand(emap: GameMap) -> None:
    g = started(emap)
    g.player("red").hand = Counter({R: 2})
    before = g.to_json()
    with pytest.raises(IllegalActionError) as err:
        g.apply(ClaimRoute("red", "berlin-frankfurt-2", (R, R, R)))
    assert err.value.rule == "not-in-hand"
    assert g.to_json() == before


def test_not_your_turn(emap: GameMap) -> None:
    g = started(emap)
    with pytest.raises(IllegalActionError) as err:
        g.apply(DrawDeck("blue"))
    assert err.value.rule == "not-your-turn" and "red's turn" in str(err.value)


@pytest.mark.parametrize(
    ("n", "rule"), [(2, "double-closed"), (3, "double-closed"), (4, None), (5, None)]
)
def test_double_routes_by_player_count(emap: GameMap, n: int, rule: str | None) -> None:
    g = started(emap, n)
    g.player("red").hand = Counter({K: 3})
    g.apply(ClaimRoute("red", "berlin-frankfurt-1", (K, K, K)))
    blue = g.player("blue")
    blue.hand = Counter({R: 3})
    if rule is None:
        g.apply(ClaimRoute("blue", "berlin-frankfurt-2", (R, R, R)))
        assert g.route_owner["berlin-frankfurt-2"] == "blue"
    else:
        with pytest.raises(IllegalActionError) as err:
            g.apply(ClaimRoute("blue", "berlin-frankfurt-2", (R, R, R)))
        assert err.value.rule == rule


def test_one_player_never_takes_both_routes_of_a_double(emap: GameMap) -> None:
    g = started(emap, 4)
    g.player("red").hand = Counter({K: 3, R: 3})
    g.apply(ClaimRoute("red", "berlin-frankfurt-1", (K, K, K)))
    for color in ("blue", "green", "yellow"):
        g.apply(DrawDeck(color))
        g.apply(DrawDeck(color))
    with pytest.raises(IllegalActionError) as err:
        g.apply(ClaimRoute("red", "berlin-frankfurt-2", (R, R, R)))
    assert err.value.rule == "double-both"


def _tunnel_game(emap: GameMap, hand: dict[Card, int], reveal: list[Card]) -> Game:
    g = started(emap)
    g.player("red").hand = Counter(hand)
    g.deck.extend(reversed(reveal))  # the first revealed card is the top
    return g


def test_tunnel_example_1_pay_the_surcharge(emap: GameMap) -> None:
    route = emap.route("marseille-zurich")  # pink tunnel, 2
    assert route.tunnel and route.length == 2
    P = Card.PINK
    g = _tunnel_game(emap, {P: 3}, [P, B, G])
    cards = g.all_cards()
    g.apply(ClaimRoute("red", route.id, (P, P)))
    assert g.tunnel is not None and g.tunnel.surcharge.extra == 1
    assert g.tunnel.revealed == (P, B, G)
    assert g.all_cards() == cards
    with pytest.raises(IllegalActionError) as err:
        g.apply(DrawDeck("red"))
    assert err.value.rule == "tunnel-pending"
    g.apply(PayTunnel("red", (P,)))
    assert g.route_owner[route.id] == "red"
    assert g.tunnel is None and g.current_player.color == "blue"
    assert Counter(g.discard[-6:]) == Counter([P, P, P, P, B, G])


def test_tunnel_withdraw_takes_the_cards_back(emap: GameMap) -> None:
    P = Card.PINK
    g = _tunnel_game(emap, {P: 2}, [LOCO, P, R])
    g.apply(ClaimRoute("red", "marseille-zurich", (P, P)))
    assert g.tunnel is not None and g.tunnel.surcharge.extra == 2
    with pytest.raises(IllegalActionError) as err:
        g.apply(PayTunnel("red", (P, P)))
    assert err.value.rule == "not-in-hand"
    g.apply(WithdrawTunnel("red"))
    assert g.player("red").hand == Counter({P: 2})
    assert "marseille-zurich" not in g.route_owner
    assert g.current_player.color == "blue"
    assert Counter(g.discard[-3:]) == Counter([LOCO, P, R])


def test_tunnel_with_no_match_is_built_at_once(emap: GameMap) -> None:
    P = Card.PINK
    g = _tunnel_game(emap, {P: 2}, [R, B, G])
    g.apply(ClaimRoute("red", "marseille-zurich", (P, P)))
    assert g.tunnel is None and g.route_owner["marseille-zurich"] == "red"


def test_tunnel_with_only_locomotives_played(emap: GameMap) -> None:
    g = _tunnel_game(emap, {LOCO: 3}, [Card.PINK, LOCO, R])
    g.apply(ClaimRoute("red", "marseille-zurich", (LOCO, LOCO)))
    assert g.tunnel is not None
    assert (g.tunnel.surcharge.extra, g.tunnel.surcharge.color) == (1, LOCO)
    g.apply(PayTunnel("red", (LOCO,)))
    assert g.route_owner["marseille-zurich"] == "red"


def test_tunnel_reveals_fewer_cards_when_the_piles_run_out(emap: GameMap) -> None:
    P = Card.PINK
    g = started(emap)
    red = g.player("red")
    for c in [*g.deck, *g.discard]:
        red.hand[c] += 1
    g.deck, g.discard = [P], []
    red.hand[P] += 2
    g.apply(ClaimRoute("red", "marseille-zurich", (P, P)))
    assert g.tunnel is not None and g.tunnel.revealed == (P,) and g.tunnel.surcharge.extra == 1
    g.apply(WithdrawTunnel("red"))
    # nothing left to reveal at all: the tunnel is built with no risk
    g2 = started(emap)
    red2 = g2.player("red")
    for c in [*g2.deck, *g2.discard]:
        red2.hand[c] += 1
    g2.deck, g2.discard = [], []
    red2.hand[P] += 2
    g2.apply(ClaimRoute("red", "marseille-zurich", (P, P)))
    assert g2.route_owner["marseille-zurich"] == "red"


def test_ferry_in_play(emap: GameMap) -> None:
    g = started(emap)
    g.player("red").hand = Counter({R: 5, LOCO: 2})
    with pytest.raises(IllegalActionError) as err:
        g.apply(ClaimRoute("red", "palermo-smyrna", (R, R, R, R, R, LOCO)))
    assert err.value.rule == "ferry-locomotives"
    g.apply(ClaimRoute("red", "palermo-smyrna", (R, R, R, R, LOCO, LOCO)))
    assert g.player("red").score == 15


def test_station_costs_one_two_three(emap: GameMap) -> None:
    g = started(emap)
    g.player("red").hand = Counter({R: 3, B: 3, LOCO: 1})
    g.player("blue").hand = Counter({G: 9})
    g.apply(BuildStation("red", "wien", (B,)))
    with pytest.raises(IllegalActionError) as err:
        g.apply(BuildStation("blue", "wien", (G,)))
    assert err.value.rule == "station-taken"
    g.apply(BuildStation("blue", "roma", (G,)))
    with pytest.raises(IllegalActionError) as err:
        g.apply(BuildStation("red", "paris", (R,)))
    assert err.value.rule == "station-cost"
    g.apply(BuildStation("red", "paris", (R, LOCO)))
    assert g.player("red").stations == ["wien", "paris"]
    assert g.station_owner == {"wien": "red", "roma": "blue", "paris": "red"}


def test_station_third_and_fourth(emap: GameMap) -> None:
    g = started(emap)
    red = g.player("red")
    red.hand = Counter({R: 10})
    for city, cards in (("wien", (R,)), ("paris", (R, R)), ("madrid", (R, R, R))):
        g.apply(BuildStation("red", city, cards))
        g.apply(DrawDeck("blue"))
        g.apply(DrawDeck("blue"))
    assert red.stations == ["wien", "paris", "madrid"] and red.hand[R] == 4
    with pytest.raises(IllegalActionError) as err:
        g.apply(BuildStation("red", "roma", (R, R, R)))
    assert err.value.rule == "no-stations"


def test_draw_tickets_keep_at_least_one_return_to_bottom(emap: GameMap) -> None:
    g = started(emap)
    top3 = g.ticket_deck[:3]
    g.apply(DrawTickets("red"))
    assert g.player("red").offered == top3
    with pytest.raises(IllegalActionError) as err:
        g.apply(KeepTickets("red", ()))
    assert err.value.rule == "keep-minimum"
    with pytest.raises(IllegalActionError) as err:
        g.apply(DrawDeck("red"))
    assert err.value.rule == "tickets-pending"
    g.apply(KeepTickets("red", (top3[1],)))
    assert g.ticket_deck[-2:] == [top3[0], top3[2]]
    assert top3[1] in g.player("red").tickets
    assert g.current_player.color == "blue"


def test_big_cities_draws_four(emap: GameMap) -> None:
    g = started(emap, variant="big_cities")
    g.apply(DrawTickets("red"))
    assert len(g.player("red").offered) == 4


def test_final_round_gives_everyone_one_more_turn(emap: GameMap) -> None:
    g = started(emap, 3)
    red = g.player("red")
    red.trains = 5
    red.hand = Counter({R: 3})
    g.apply(ClaimRoute("red", "berlin-frankfurt-2", (R, R, R)))  # red ends with 2 trains
    assert g.final_round and red.trains == 2
    for color in ("blue", "green"):
        assert g.current_player.color == color and not g.over
        g.apply(DrawDeck(color))
        g.apply(DrawDeck(color))
    assert g.current_player.color == "red" and not g.over  # red's own last turn
    g.apply(DrawDeck("red"))
    g.apply(DrawDeck("red"))
    assert g.over
    with pytest.raises(IllegalActionError) as err:
        g.apply(DrawDeck("blue"))
    assert err.value.rule == "game-over"


def test_three_trains_do_not_start_the_final_round(emap: GameMap) -> None:
    g = started(emap)
    red = g.player("red")
    red.trains = 6
    red.hand = Counter({R: 3})
    g.apply(ClaimRoute("red", "berlin-frankfurt-2", (R, R, R)))
    assert red.trains == 3 and not g.final_round
    with pytest.raises(IllegalActionError) as err:
        red.hand = Counter({K: 4})
        g.apply(DrawDeck("blue"))
        g.apply(DrawDeck("blue"))
        g.apply(ClaimRoute("red", "berlin-danzig", (K, K, K, K)))
    assert err.value.rule == "not-enough-trains"


def test_json_round_trip_and_pure_apply(emap: GameMap) -> None:
    g = started(emap, 3, seed=5)
    data = g.to_json()
    again = json_round_trip(g, emap)
    g2 = apply(g, DrawDeck("red"))
    assert g.to_json() == data and g2.to_json() != data
    # the restored game continues identically, shuffles included
    for game in (g, again):
        game.discard.extend(game.deck)
        game.deck = []
        game.apply(DrawDeck("red"))
    assert g.to_json() == again.to_json()


def test_bad_setups(emap: GameMap) -> None:
    with pytest.raises(InvalidStateError):
        Game.new(emap, [("A", "red")])
    with pytest.raises(InvalidStateError):
        Game.new(emap, [("A", "red"), ("B", "red")])
    with pytest.raises(InvalidStateError):
        Game.new(emap, [("A", "red"), ("B", "pink")])
