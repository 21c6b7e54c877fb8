"""Who asks (:class:`Actor`) and what each may do (:func:`authorize`); host sessions derived
from the host token and the host-claim window. Pure."""

from __future__ import annotations

import hashlib
import hmac
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


# --- host sessions and the claim window (pure: no clock, no file) ---------------------------

SESSION_SCHEME = "h1"
PLAYER_SESSION_SCHEME = "p1"
SESSION_MAC_LEN = 32  # hex characters of the session's HMAC kept in the cookie
MAX_SESSION_LEN = 160


def _session_value(scheme: str, label: bytes, token: str, nonce: str) -> str:
    mac = hmac.new(token.encode(), label + nonce.encode(), hashlib.sha256)
    return f"{scheme}.{nonce}.{mac.hexdigest()[:SESSION_MAC_LEN]}"


def _session_nonce(scheme: str, label: bytes, token: str, value: str) -> str | None:
    if not value or len(value) > MAX_SESSION_LEN:
        return None
    head, _, rest = value.partition(".")
    nonce, _, _mac = rest.partition(".")
    if head != scheme or not nonce or not _mac:
        return None
    expected = _session_value(scheme, label, token, nonce)
    return nonce if hmac.compare_digest(expected.encode(), value.encode()) else None


def host_session_value(token: str, nonce: str) -> str:
    """The host cookie's value for one session: ``h1.<nonce>.<HMAC(token, nonce)>``. It is
    derived from the host token without holding it: a new token (rotation) makes every session
    value of the old one invalid."""
    return _session_value(SESSION_SCHEME, b"host-session:", token, nonce)


def host_session_nonce(token: str, value: str) -> str | None:
    """The nonce of a session value made with ``token`` (None: not one of its sessions)."""
    return _session_nonce(SESSION_SCHEME, b"host-session:", token, value)


def player_session_value(token: str, nonce: str) -> str:
    """The player cookie's value for the phone that opened a pairing link:
    ``p1.<nonce>.<HMAC(pairing token, nonce)>``. The link's token itself is never in it (once
    its link is opened, the token signs nothing in), and a new token (the host's "rotate")
    ends every session of the old one."""
    return _session_value(PLAYER_SESSION_SCHEME, b"player-session:", token, nonce)


def player_session_nonce(token: str, value: str) -> str | None:
    """The nonce of a player session made with ``token`` (None: not one of its sessions)."""
    return _session_nonce(PLAYER_SESSION_SCHEME, b"player-session:", token, value)


def session_key(nonce: str) -> str:
    """What the sessions file keeps of a session (a hash: the file alone signs no one in)."""
    return hashlib.sha256(b"host-session-key:" + nonce.encode()).hexdigest()[:32]


@dataclass
class ClaimWindow:
    """The time during which the first phone that asks becomes host. Times are the caller's
    clock (seconds); nothing here reads one."""

    until: float | None = None
    source: str | None = None  # "button" | "host" | "command"

    def open(self, now: float, seconds: float, source: str) -> float:
        self.until = now + max(0.0, seconds)
        self.source = source
        return self.until

    def is_open(self, now: float) -> bool:
        return self.until is not None and now < self.until

    def remaining(self, now: float) -> float:
        return max(0.0, self.until - now) if self.is_open(now) and self.until else 0.0

    def take(self, now: float) -> bool:
        """The first claim inside the window: True, and the window is closed; else False."""
        if not self.is_open(now):
            self.close()
            return False
        self.close()
        return True

    def close(self) -> None:
        self.until = None
        self.source = None


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
