"""Transportation cards of Ticket to Ride: London: six colours and the multicoloured bus (wild)."""

from __future__ import annotations

from collections.abc import Iterable

from companion.core.cards import CardSet, TrainCard


class Card(TrainCard):
    """A transportation card. The value is the name used in every text and JSON form."""

    BLACK = "black"
    BLUE = "blue"
    GREEN = "green"
    ORANGE = "orange"
    PINK = "pink"
    YELLOW = "yellow"
    BUS = "bus"


BUS = Card.BUS
LONDON_CARDS: CardSet[Card] = CardSet(
    Card, BUS, "buses", dict.fromkeys(("multicolour", "multicolor", "rainbow"), BUS), "London card"
)
COLORS: tuple[Card, ...] = LONDON_CARDS.colors


def parse_card(text: str) -> Card:
    """Parse a card name (``pink``, ``bus``; aliases ``wild``, ``multicolour``, ``purple``)."""
    return LONDON_CARDS.parse(text)


def parse_cards(texts: Iterable[str]) -> list[Card]:
    return LONDON_CARDS.parse_many(texts)


def full_deck(per_color: int = 6, buses: int = 8) -> list[Card]:
    """The 44 transportation cards (6 of each colour, 8 buses), in a fixed order."""
    return LONDON_CARDS.deck(per_color, buses)
