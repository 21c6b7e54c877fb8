"""Collecting the cards a player taps to pay (or the cards revealed for a tunnel).

A payment is a set of distinct physical cards: the same card (UID) tapped twice counts once
and the second tap is flagged. Unknown cards and tickets are flagged and not counted.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum

from companion.core.cards import Card

from .cards import CardEvent, TrainCard


class TapResult(StrEnum):
    ADDED = "added"
    DUPLICATE = "duplicate"  # this card was already tapped in this payment
    UNKNOWN = "unknown"  # the reader could not say which card it is
    NOT_A_TRAIN_CARD = "not-a-train-card"  # a ticket


@dataclass(frozen=True, slots=True)
class Flag:
    uid: str
    result: TapResult


@dataclass
class Payment:
    """The train cards tapped for one payment, in tap order, each physical card once."""

    taps: list[CardEvent] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)

    def add(self, event: CardEvent) -> TapResult:
        if any(t.uid == event.uid for t in self.taps):
            result = TapResult.DUPLICATE
        elif event.card is None:
            result = TapResult.UNKNOWN
        elif not isinstance(event.card, TrainCard):
            result = TapResult.NOT_A_TRAIN_CARD
        else:
            self.taps.append(event)
            return TapResult.ADDED
        self.flags.append(Flag(event.uid, result))
        return result

    @property
    def cards(self) -> list[Card]:
        return [t.card.color for t in self.taps if isinstance(t.card, TrainCard)]

    @property
    def uids(self) -> list[str]:
        return [t.uid for t in self.taps]

    @property
    def duplicates(self) -> list[str]:
        return [f.uid for f in self.flags if f.result is TapResult.DUPLICATE]

    def counts(self) -> Counter[Card]:
        return Counter(self.cards)

    def __len__(self) -> int:
        return len(self.taps)

    def clear(self) -> None:
        self.taps.clear()
        self.flags.clear()
