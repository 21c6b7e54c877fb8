"""Train cards: eight colours and the locomotive (wild).

:class:`TrainCard` and :class:`CardSet` are shared with the other boards (London plugs its six
colours and the bus into them): a card enum, its wild card, its aliases and its deck.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Generic, TypeVar

from .errors import NotationError


class TrainCard(StrEnum):
    """Base of every board's card enum. The value is the name used in every text and JSON form."""

    def __str__(self) -> str:
        return self.value


C = TypeVar("C", bound=TrainCard)


@dataclass(frozen=True)
class CardSet(Generic[C]):
    """One board's cards: the enum, its wild card and the words that name cards. Every board
    also knows the wild card as "wild" and by its plural, and pink as "purple" or "violet"."""

    kind: type[C]
    wild: C
    wild_plural: str  # in messages: "pay with red cards or <wild_plural>"
    aliases: Mapping[str, C]
    unknown: str = "card"  # in "unknown <unknown> 'x': expected one of ..."
    colors: tuple[C, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "colors", tuple(c for c in self.kind if c is not self.wild))
        shared = {"wild": self.wild, self.wild_plural: self.wild}
        for pink in (c for c in self.kind if c.value == "pink"):
            shared.update(purple=pink, violet=pink)
        object.__setattr__(self, "aliases", {**shared, **self.aliases})

    def parse(self, text: str) -> C:
        key = text.strip().lower()
        if key in self.aliases:
            return self.aliases[key]
        try:
            return self.kind(key)
        except ValueError:
            names = ", ".join(c.value for c in self.kind)
            raise NotationError(
                f"unknown {self.unknown} {text!r}: expected one of {names}"
            ) from None

    def parse_many(self, texts: Iterable[str]) -> list[C]:
        return [self.parse(t) for t in texts]

    def deck(self, per_color: int, wilds: int) -> list[C]:
        """Every card, in a fixed order: the colours in enum order, then the wild cards."""
        deck: list[C] = []
        for color in self.colors:
            deck.extend([color] * per_color)
        deck.extend([self.wild] * wilds)
        return deck


class Card(TrainCard):
    """A train card of Ticket to Ride: Europe."""

    PINK = "pink"
    BLUE = "blue"
    ORANGE = "orange"
    WHITE = "white"
    GREEN = "green"
    YELLOW = "yellow"
    BLACK = "black"
    RED = "red"
    LOCOMOTIVE = "locomotive"

    @property
    def is_locomotive(self) -> bool:
        return self is Card.LOCOMOTIVE


LOCO = Card.LOCOMOTIVE
EUROPE_CARDS: CardSet[Card] = CardSet(Card, LOCO, "locomotives", {"loco": LOCO})
COLORS: tuple[Card, ...] = EUROPE_CARDS.colors

PLAYER_COLORS: tuple[str, ...] = ("blue", "red", "green", "yellow", "black")


def parse_card(text: str) -> Card:
    """Parse a card name (``red``, ``locomotive``, aliases ``loco``, ``purple``)."""
    return EUROPE_CARDS.parse(text)


def parse_cards(texts: Iterable[str]) -> list[Card]:
    return EUROPE_CARDS.parse_many(texts)


def card_counts(cards: Iterable[Card]) -> Counter[Card]:
    return Counter(cards)


def full_deck(per_color: int = 12, locomotives: int = 14) -> list[Card]:
    """The 110 train cards of Ticket to Ride: Europe, in a fixed order."""
    return EUROPE_CARDS.deck(per_color, locomotives)


def parse_player_color(text: str) -> str:
    key = text.strip().lower()
    if key not in PLAYER_COLORS:
        raise NotationError(
            f"unknown player colour {text!r}: expected one of {', '.join(PLAYER_COLORS)}"
        )
    return key
