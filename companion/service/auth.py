"""Who asks (:class:`Actor`) and what each may do (:func:`authorize`). Pure."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.service.describe import describe
from companion.service.errors import Conflict, Forbidden
from companion.service.shapes import HOST_ONLY


@dataclass(frozen=True, slots=True)
class Actor:
    """Who asks: the host, a paired player (``color``), or a device in the process."""

    role: str  # "host" | "player" | "device"
    color: str | None = None
    name: str = "host"  # what goes into the log's actor column

    @staticmethod
    def host() -> Actor:
        return Actor("host", None, "host")

    @staticmethod
    def player(color: str) -> Actor:
        return Actor("player", color, color)

    @staticmethod
    def device(name: str) -> Actor:
        return Actor("device", None, name)


def authorize(action: Mapping[str, Any], actor: Actor) -> None:
    """Refuse (Forbidden) what this actor may not do: the host and devices may do anything, a
    paired player only their own colour's table actions (and the undo of their own last move,
    which the ledger checks against the game: :func:`~companion.service.fold.own_undo`)."""
    if actor.role == "host" or actor.role == "device":
        return
    kind = action["type"]
    if kind == "undo" and action.get("seq") is not None:
        return  # a player's own last move, until the next player acts: the ledger decides
    if kind in HOST_ONLY:
        raise Forbidden(
            f"Only the host can {describe(action).split(':')[0]}.",
            code="auth.host_only_action",
            params={"type": kind},
        )
    if action.get("player") is None:
        raise Forbidden(
            "Only the host can enter this for the whole table.", code="auth.host_only_table"
        )
    if action.get("player") != actor.color:
        raise Forbidden(
            f"This phone is paired with {actor.color}; only the host can act for "
            f"{action.get('player')}.",
            code="auth.other_player",
            params={"color": actor.color, "player": action.get("player")},
        )


def check_own_undo(action: Mapping[str, Any], actor: Actor, own: Mapping[str, Any] | None) -> None:
    """A phone's undo takes back only its own last move (``own``: the game's ``own_undo``),
    before the next player acts: anything else is the host's (409 ``rule.own-undo-gone``)."""
    if actor.role != "player":
        return
    if own is None or own["player"] != actor.color or own["seq"] != action.get("seq"):
        raise Conflict(
            "Only your own last move can be taken back from your phone, before the next player "
            "acts; ask the host.",
            rule="own-undo-gone",
            params={"color": actor.color},
        )
