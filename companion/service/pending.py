"""Taps and camera questions waiting for a decision (not in the log: a restart forgets them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.core.board import GameMap
from companion.service.fold import AnyFold, OtherFold


def max_payment(game_map: GameMap) -> int:
    """The most cards one payment can hold: the longest route's (a tunnel's extra cards are a
    payment of their own; a station costs fewer)."""
    return max((r.length for r in game_map.routes.values()), default=8)


def max_tickets(game_map: GameMap) -> int:
    """The most tickets a player is dealt at once, in any variant of the map."""
    most = [
        max(v.setup.long_dealt + v.setup.regular_dealt, v.draw) for v in game_map.variants.values()
    ]
    return max(most, default=5)


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


def fill_from_pending(pending: Pending, action: dict[str, Any]) -> tuple[bool, bool]:
    """Use tapped cards/tickets for an action that names none (fills ``action`` in place).

    Returns (used cards, used tickets): the taps to clear once the action is logged.
    """
    kind = action["type"]
    player = action.get("player")
    used_cards = used_tickets = False
    if (
        kind in ("claim", "build_station", "tunnel_pay")
        and "cards" not in action
        and pending.payment_player == player
        and pending.cards
    ):
        action["cards"] = list(pending.cards)
        used_cards = True
    if kind in ("claim", "build_station", "tunnel_pay") and "cards" in action:
        used_cards = used_cards or pending.payment_player == player
    if (
        kind == "keep_tickets"
        and not action.get("tickets")
        and pending.tickets_player == player
        and pending.tickets
    ):
        action["tickets"] = list(pending.tickets)
        used_tickets = True
    return used_cards, used_tickets


def open_confirmations(
    fold: AnyFold | None, confirmations: list[Confirmation]
) -> list[Confirmation]:
    """The camera questions still worth asking: their route or city still free, the game live.
    (No game: kept as they are; another game than Europe: none.)"""
    if fold is None:
        return confirmations
    if isinstance(fold, OtherFold):
        return []
    t = fold.tracker
    keep = []
    for c in confirmations:
        taken = (t.route_owner if c.kind == "claim" else t.station_owner).get(c.key)
        if taken is None and not fold.finished:
            keep.append(c)
    return keep
