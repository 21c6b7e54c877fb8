"""What a tapped card is: payload <-> card identity, and the card event.

Payloads (NDEF Text records on the stickers): ``ttr:eu:train:<colour>``,
``ttr:eu:train:locomotive`` and ``ttr:eu:ticket:<ticket id>``. Other games' payloads
(``ttr:london:...``) are recognised as not ours and identify nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from companion.core.cards import Card
from companion.core.errors import NotationError

GAME = "eu"
PREFIX = "ttr:"
_ALIASES = {"loco": Card.LOCOMOTIVE, "purple": Card.PINK}
_PAYLOAD = re.compile(r"ttr:([a-z0-9_-]+):(train|ticket):([a-z0-9_-]+)")


@dataclass(frozen=True, slots=True)
class TrainCard:
    """A train card: one of eight colours or the locomotive."""

    color: Card

    kind = "train"

    def to_json(self) -> dict[str, str]:
        return {"kind": "train", "color": self.color.value}

    def payload(self) -> str:
        return f"ttr:{GAME}:train:{self.color.value}"

    def __str__(self) -> str:
        return f"train {self.color.value}"


@dataclass(frozen=True, slots=True)
class TicketCard:
    """A destination ticket, by its id in companion/data/europe.json (e.g. ``paris-wien``)."""

    id: str

    kind = "ticket"

    def to_json(self) -> dict[str, str]:
        return {"kind": "ticket", "id": self.id}

    def payload(self) -> str:
        return f"ttr:{GAME}:ticket:{self.id}"

    def __str__(self) -> str:
        return f"ticket {self.id}"


CardIdentity = TrainCard | TicketCard


def card_json(card: CardIdentity | None) -> dict[str, str] | None:
    return None if card is None else card.to_json()


def train_colour(text: str) -> Card | None:
    """A card colour by name (``red``, ``locomotive``; aliases ``loco``, ``purple``), or None."""
    key = text.strip().lower()
    if key in _ALIASES:
        return _ALIASES[key]
    try:
        return Card(key)
    except ValueError:
        return None


class CardCatalog:
    """The cards of one game: the eight colours, the locomotive and the game's ticket ids."""

    def __init__(self, ticket_ids: Iterable[str]) -> None:
        self.ticket_ids = frozenset(ticket_ids)

    @classmethod
    def europe(cls) -> CardCatalog:
        from companion.data import load_json

        data = load_json("europe.json")
        return cls(t["id"] for t in data["tickets"])

    def from_payload(self, payload: str | None) -> CardIdentity | None:
        """The card a sticker's payload names, or None (no payload, another game, unknown)."""
        if not payload:
            return None
        m = _PAYLOAD.fullmatch(payload)
        if not m or m.group(1) != GAME:
            return None
        if m.group(2) == "train":
            colour = train_colour(m.group(3))
            return None if colour is None else TrainCard(colour)
        ticket = m.group(3)
        return TicketCard(ticket) if ticket in self.ticket_ids else None

    def parse(self, text: str) -> CardIdentity:
        """A card typed by a person: ``red``, ``loco``, ``purple``, ``ticket paris-wien``,
        ``ticket:paris-wien``, ``paris-wien`` or a whole payload. Raises NotationError."""
        key = text.strip().lower()
        if not key:
            raise NotationError("no card given")
        by_payload = self.from_payload(key)
        if by_payload is not None:
            return by_payload
        colour = train_colour(key)
        if colour is not None:
            return TrainCard(colour)
        for sep in (" ", ":"):
            head, _, rest = key.partition(sep)
            if head == "ticket" and rest:
                key = rest.strip()
                break
        if key in self.ticket_ids:
            return TicketCard(key)
        names = ", ".join(c.value for c in Card)
        raise NotationError(
            f"unknown card {text.strip()!r}: expected a colour ({names}, loco, purple) "
            "or a ticket id such as paris-wien"
        )


@dataclass(frozen=True, slots=True)
class CardEvent:
    """A card arrived on the reader. ``card`` None: unknown (no usable payload, not enrolled).
    ``timestamp``: seconds since the epoch when the host read the line."""

    uid: str
    card: CardIdentity | None
    payload: str | None
    timestamp: float

    def to_json(self) -> dict[str, Any]:
        """Exactly the CLI contract: ``{"uid": ..., "card": {...} | null}``."""
        return {"uid": self.uid, "card": card_json(self.card)}

    def describe(self) -> str:
        return f"{self.uid} {self.card if self.card is not None else 'unknown'}"
