"""Payments, ferries, tunnels and stations: the rulebook's own examples and their edges."""

from __future__ import annotations

import pytest

from companion.core.board import GameMap
from companion.core.cards import LOCO, Card, parse_card, parse_cards
from companion.core.errors import IllegalActionError, NotationError
from companion.core.payment import (
    check_route_payment,
    check_station_payment,
    check_surcharge_payment,
    is_legal_payment,
    payment_options,
    station_cost,
    tunnel_surcharge,
)

R, G, Y, B, P = Card.RED, Card.GREEN, Card.YELLOW, Card.BLUE, Card.PINK


def test_card_names_and_aliases() -> None:
    assert parse_card("loco") is LOCO
    assert parse_card("Purple") is Card.PINK
    assert parse_card(" red ") is R
    with pytest.raises(NotationError, match="unknown card 'grey'"):
        parse_card("grey")


def _yellow_3(emap: GameMap):
    route = next(r for r in emap.routes.values() if r.color is Y and r.length == 3 and not r.tunnel)
    return route


def test_rulebook_example_1_coloured_route(emap: GameMap) -> None:
    """A 3-long yellow route: 3 yellow, 2 yellow + 1 loco, 1 yellow + 2 locos, or 3 locos."""
    route = _yellow_3(emap)
    for cards in ([Y, Y, Y], [Y, Y, LOCO], [Y, LOCO, LOCO], [LOCO, LOCO, LOCO]):
        assert check_route_payment(route, cards) in (Y, LOCO)
    for cards in ([Y, Y], [Y, Y, Y, Y], [R, R, R], [Y, Y, R]):
        with pytest.raises(IllegalActionError):
            check_route_payment(route, cards)


def test_rulebook_example_2_grey_route(emap: GameMap) -> None:
    """A 2-long grey route: 2 red, 1 yellow + 1 loco, or 2 locos, but not red + yellow."""
    route = next(
        r for r in emap.routes.values() if r.color is None and r.length == 2 and not r.ferry
    )
    assert check_route_payment(route, [R, R]) is R
    assert check_route_payment(route, [Y, LOCO]) is Y
    assert check_route_payment(route, [LOCO, LOCO]) is LOCO
    with pytest.raises(IllegalActionError) as err:
        check_route_payment(route, [R, Y])
    assert err.value.rule == "one-colour"


def test_wrong_colour_and_count_name_the_rule(emap: GameMap) -> None:
    route = emap.route("paris-zurich")  # grey tunnel, 3
    with pytest.raises(IllegalActionError) as err:
        check_route_payment(route, [R, R])
    assert err.value.rule == "payment-count"
    coloured = emap.route("berlin-frankfurt-2")  # red, 3
    with pytest.raises(IllegalActionError) as err:
        check_route_payment(coloured, [B, B, B])
    assert err.value.rule == "payment-colour"
    assert "red" in str(err.value)


def test_smyrna_palermo_ferry(emap: GameMap) -> None:
    """6 cards of which at least 2 locomotives; the rest one colour."""
    route = emap.route("palermo-smyrna")
    assert (route.length, route.locomotives, route.color) == (6, 2, None)
    assert check_route_payment(route, [R, R, R, R, LOCO, LOCO]) is R
    assert check_route_payment(route, [G, G, G, LOCO, LOCO, LOCO]) is G
    assert check_route_payment(route, [LOCO] * 6) is LOCO
    with pytest.raises(IllegalActionError) as err:
        check_route_payment(route, [R, R, R, R, R, LOCO])
    assert err.value.rule == "ferry-locomotives"
    with pytest.raises(IllegalActionError) as err:
        check_route_payment(route, [R, R, R, B, LOCO, LOCO])
    assert err.value.rule == "one-colour"
    legal, reason = is_legal_payment(route, [R, R, R, R, R, R])
    assert not legal and "at least 2 locomotives" in reason


def test_every_ferry_demands_its_locomotives(emap: GameMap) -> None:
    ferries = [r for r in emap.routes.values() if r.ferry]
    assert len(ferries) == 13 and sum(r.locomotives for r in ferries) == 17
    for r in ferries:
        ok = [LOCO] * r.locomotives + [B] * (r.length - r.locomotives)
        check_route_payment(r, ok)
        if r.length > r.locomotives:
            short = [LOCO] * (r.locomotives - 1) + [B] * (r.length - r.locomotives + 1)
            with pytest.raises(IllegalActionError):
                check_route_payment(r, short)


def test_tunnel_example_1_red() -> None:
    s = tunnel_surcharge([R, R], [R, B, G])
    assert (s.extra, s.color) == (1, R)


def test_tunnel_example_2_green_and_revealed_locomotive() -> None:
    s = tunnel_surcharge([G, G], [LOCO, B, Y])
    assert (s.extra, s.color) == (1, G)


def test_tunnel_example_3_only_locomotives_played() -> None:
    s = tunnel_surcharge([LOCO, LOCO], [LOCO, R, R])
    assert (s.extra, s.color) == (1, LOCO)
    check_surcharge_payment(s, [LOCO])
    with pytest.raises(IllegalActionError) as err:
        check_surcharge_payment(s, [R])
    assert err.value.rule == "tunnel-extra-colour"


def test_tunnel_mixed_payment_counts_colour_and_locos() -> None:
    s = tunnel_surcharge([R, LOCO], [R, LOCO, R])
    assert (s.extra, s.color) == (3, R)
    check_surcharge_payment(s, [R, LOCO, R])
    with pytest.raises(IllegalActionError) as err:
        check_surcharge_payment(s, [R, R])
    assert err.value.rule == "tunnel-extra-count"
    with pytest.raises(IllegalActionError):
        check_surcharge_payment(s, [R, R, B])


def test_tunnel_fewer_revealed_cards() -> None:
    assert tunnel_surcharge([R, R], []).extra == 0
    assert tunnel_surcharge([R, R], [R]).extra == 1
    with pytest.raises(IllegalActionError):
        tunnel_surcharge([R], [R, R, R, R])


def test_station_costs() -> None:
    assert [station_cost(n) for n in range(3)] == [1, 2, 3]
    assert check_station_payment(0, [B]) is B
    assert check_station_payment(0, [LOCO]) is LOCO
    assert check_station_payment(1, [R, LOCO]) is R
    assert check_station_payment(2, [P, P, P]) is P
    with pytest.raises(IllegalActionError) as err:
        check_station_payment(1, [R])
    assert err.value.rule == "station-cost" and "second station costs 2" in str(err.value)
    with pytest.raises(IllegalActionError) as err:
        check_station_payment(1, [R, B])
    assert err.value.rule == "one-colour"
    with pytest.raises(IllegalActionError) as err:
        check_station_payment(3, [R, R, R, R])
    assert err.value.rule == "no-stations"


def test_payment_options_are_all_legal_and_affordable(emap: GameMap) -> None:
    from collections import Counter

    hand = Counter(parse_cards(["red"] * 3 + ["blue"] * 2 + ["locomotive"] * 2))
    for route in emap.routes.values():
        options = list(payment_options(route, hand))
        for cards in options:
            check_route_payment(route, cards)
            assert all(hand[c] >= n for c, n in Counter(cards).items())
        assert len({tuple(sorted(o)) for o in options}) == len(options)
    # a 4-long red route can be paid 3 red + 1 loco or 2 red + 2 locos, nothing else
    red4 = next(r for r in emap.routes.values() if r.color is R and r.length == 4)
    got = {tuple(sorted(c.value for c in o)) for o in payment_options(red4, hand)}
    assert got == {("locomotive", "red", "red", "red"), ("locomotive", "locomotive", "red", "red")}
