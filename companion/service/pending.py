"""Taps and camera questions waiting for a decision (not in the log: a restart forgets them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Confirmation:
    id: str
    kind: str  # "claim" | "station"
    key: str
    color: str
    reason: str
    action: dict[str, Any]
    reason_code: str = "message"
    reason_params: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "route": self.key if self.kind == "claim" else None,
            "city": self.key if self.kind == "station" else None,
            "color": self.color,
            "reason": self.reason,
            "reason_code": self.reason_code,
            "reason_params": self.reason_params,
            "action": self.action,
        }


@dataclass
class Pending:
    """Taps and camera questions waiting for a decision (not in the log)."""

    payment_player: str | None = None
    cards: list[str] = field(default_factory=list)
    uids: list[str] = field(default_factory=list)
    duplicates: int = 0
    tickets_player: str | None = None
    tickets: list[str] = field(default_factory=list)
    reader_player: str | None = None
    confirmations: list[Confirmation] = field(default_factory=list)
    counter: int = 0
    # (seq of the end_turn, player, cards): a player's taps when they ended their turn
    # without an action, kept for a claim the camera reports late (see reconcile; not shown)
    ended: tuple[int, str, list[str]] | None = None

    def clear_payment(self) -> None:
        self.payment_player = None
        self.cards = []
        self.uids = []
        self.duplicates = 0

    def clear_tickets(self) -> None:
        self.tickets_player = None
        self.tickets = []

    def to_json(self) -> dict[str, Any]:
        return {
            "payment": None
            if self.payment_player is None
            else {
                "player": self.payment_player,
                "cards": list(self.cards),
                "duplicates": self.duplicates,
            },
            "tickets": None
            if self.tickets_player is None
            else {"player": self.tickets_player, "count": len(self.tickets)},
            "reader_player": self.reader_player,
            "confirmations": [c.to_json() for c in self.confirmations],
        }
