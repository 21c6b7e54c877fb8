"""Paying for a route: the route's length in cards of one colour, buses standing in for any."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from companion.core.errors import IllegalActionError

from .board import Route
from .cards import BUS, COLORS, Card


def describe(cards: Sequence[Card]) -> str:
    if not cards:
        return "no cards"
    counts = Counter(cards)
    return ", ".join(f"{n} {c.value}" for c, n in sorted(counts.items(), key=lambda kv: kv[0]))


def paying_color(cards: Iterable[Card]) -> Card:
    """The colour a set of cards pays as: its one non-bus colour, or BUS when all are buses."""
    colors = {c for c in cards if c is not BUS}
    if len(colors) > 1:
        names = ", ".join(sorted(c.value for c in colors))
        raise IllegalActionError(
            f"cards must be of one colour (plus buses), got {names}", rule="one-colour"
        )
    return next(iter(colors)) if colors else BUS


def check_route_payment(route: Route, cards: Sequence[Card]) -> Card:
    """Raise IllegalActionError unless ``cards`` exactly pay for ``route``; return the colour."""
    if len(cards) != route.length:
        raise IllegalActionError(
            f"{route.id} is {route.length} long and needs exactly {route.length} cards, "
            f"got {len(cards)} ({describe(cards)})",
            rule="payment-count",
        )
    color = paying_color(cards)
    if route.color is not None and color is not BUS and color is not route.color:
        raise IllegalActionError(
            f"{route.id} is {route.color.value}: pay with {route.color.value} cards or buses, "
            f"not {color.value}",
            rule="payment-colour",
        )
    return color


def is_legal_payment(route: Route, cards: Sequence[Card]) -> tuple[bool, str]:
    try:
        check_route_payment(route, cards)
    except IllegalActionError as exc:
        return False, str(exc)
    return True, f"{describe(cards)} pays for {route.id}"


def has_cards(hand: Counter[Card], cards: Sequence[Card]) -> bool:
    need = Counter(cards)
    return all(hand[c] >= n for c, n in need.items())


def payment_options(route: Route, hand: Counter[Card]) -> Iterator[list[Card]]:
    """Every distinct legal payment for ``route`` that ``hand`` can afford (fewest buses first)."""
    colors: Sequence[Card] = COLORS if route.color is None else (route.color,)
    for color in colors:
        for buses in range(0, min(hand[BUS], route.length - 1) + 1):
            if hand[color] >= route.length - buses:
                yield [color] * (route.length - buses) + [BUS] * buses
    if hand[BUS] >= route.length:
        yield [BUS] * route.length
