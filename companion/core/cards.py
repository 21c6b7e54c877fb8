"""Train cards: eight colours and the locomotive (wild)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from enum import StrEnum

from .errors import NotationError


class Card(StrEnum):
    """A train card. The value is the name used in every text and JSON form."""

    PINK = "pink"
    BLUE = "blue"
    ORANGE = "orange"
    WHITE = "white"
    GREEN = "green"
    YELLOW = "yellow"
    BLACK = "black"
    RED = "red"
    LOCOMOTIVE = "locomotive"

    def __str__(self) -> str:
        return self.value

    @property
    def is_locomotive(self) -> bool:
        return self is Card.LOCOMOTIVE


COLORS: tuple[Card, ...] = tuple(c for c in Card if c is not Card.LOCOMOTIVE)
LOCO = Card.LOCOMOTIVE

_ALIASES = {
    "loco": Card.LOCOMOTIVE,
    "locomotives": Card.LOCOMOTIVE,
    "wild": Card.LOCOMOTIVE,
    "purple": Card.PINK,
    "violet": Card.PINK,
}

PLAYER_COLORS: tuple[str, ...] = ("blue", "red", "green", "yellow", "black")


def parse_card(text: str) -> Card:
    """Parse a card name (``red``, ``locomotive``, aliases ``loco``, ``purple``)."""
    key = text.strip().lower()
    if key in _ALIASES:
        return _ALIASES[key]
    try:
        return Card(key)
    except ValueError:
        names = ", ".join(c.value for c in Card)
        raise NotationError(f"unknown card {text!r}: expected one of {names}") from None


def parse_cards(texts: Iterable[str]) -> list[Card]:
    return [parse_card(t) for t in texts]


def card_counts(cards: Iterable[Card]) -> Counter[Card]:
    return Counter(cards)


def full_deck(per_color: int = 12, locomotives: int = 14) -> list[Card]:
    """The 110 train cards of Ticket to Ride: Europe, in a fixed order."""
    deck: list[Card] = []
    for color in COLORS:
        deck.extend([color] * per_color)
    deck.extend([LOCO] * locomotives)
    return deck


def parse_player_color(text: str) -> str:
    key = text.strip().lower()
    if key not in PLAYER_COLORS:
        raise NotationError(
            f"unknown player colour {text!r}: expected one of {', '.join(PLAYER_COLORS)}"
        )
    return key
