"""Transportation cards of Ticket to Ride: London: six colours and the multicoloured bus (wild)."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from companion.core.errors import NotationError


class Card(StrEnum):
    """A transportation card. The value is the name used in every text and JSON form."""

    BLACK = "black"
    BLUE = "blue"
    GREEN = "green"
    ORANGE = "orange"
    PINK = "pink"
    YELLOW = "yellow"
    BUS = "bus"

    def __str__(self) -> str:
        return self.value

    @property
    def is_bus(self) -> bool:
        return self is Card.BUS


COLORS: tuple[Card, ...] = tuple(c for c in Card if c is not Card.BUS)
BUS = Card.BUS

_ALIASES = {
    "wild": Card.BUS,
    "buses": Card.BUS,
    "multicolour": Card.BUS,
    "multicolor": Card.BUS,
    "rainbow": Card.BUS,
    "purple": Card.PINK,
    "violet": Card.PINK,
}


def parse_card(text: str) -> Card:
    """Parse a card name (``pink``, ``bus``; aliases ``wild``, ``multicolour``, ``purple``)."""
    key = text.strip().lower()
    if key in _ALIASES:
        return _ALIASES[key]
    try:
        return Card(key)
    except ValueError:
        names = ", ".join(c.value for c in Card)
        raise NotationError(f"unknown London card {text!r}: expected one of {names}") from None


def parse_cards(texts: Iterable[str]) -> list[Card]:
    return [parse_card(t) for t in texts]


def full_deck(per_color: int = 6, buses: int = 8) -> list[Card]:
    """The 44 transportation cards (6 of each colour, 8 buses), in a fixed order."""
    deck: list[Card] = []
    for color in COLORS:
        deck.extend([color] * per_color)
    deck.extend([BUS] * buses)
    return deck
