"""Paying for a route: the route's length in cards of one colour, buses standing in for any.

The rules are the core's (:mod:`companion.core.payment`) over the London card set.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from companion.core.payment import (
    check_payment,
    describe,
    has_cards,
    paying_color_in,
    payment_choices,
    payment_verdict,
)

from .board import Route
from .cards import LONDON_CARDS, Card

__all__ = [
    "check_route_payment",
    "describe",
    "has_cards",
    "is_legal_payment",
    "paying_color",
    "payment_options",
]


def paying_color(cards: Iterable[Card]) -> Card:
    """The colour a set of cards pays as: its one non-bus colour, or BUS when all are buses."""
    return paying_color_in(cards, LONDON_CARDS)


def check_route_payment(route: Route, cards: Sequence[Card]) -> Card:
    """Raise IllegalActionError unless ``cards`` exactly pay for ``route``; return the colour."""
    return check_payment(route, cards, LONDON_CARDS)


def is_legal_payment(route: Route, cards: Sequence[Card]) -> tuple[bool, str]:
    return payment_verdict(route, cards, check_route_payment)


def payment_options(route: Route, hand: Counter[Card]) -> Iterator[list[Card]]:
    """Every distinct legal payment for ``route`` that ``hand`` can afford (fewest buses first)."""
    return payment_choices(route, route.color, hand, LONDON_CARDS)
