"""The card reader's link, as the table sees it.

A card tapped while the reader is away (its USB cable pulled, the board resetting, the port
being reopened) never reaches the companion: the reader has nowhere to send it. The taps made
before stay pending; for those made during, the table is told: when the link goes, a notice
that taps are not received; when it comes back, a notice and the status LED's "illegal" flash
and sound (the controls hear it as a veto) asking the player to tap those cards again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

log = logging.getLogger(__name__)


class Link(Protocol):
    @property
    def connected(self) -> bool: ...


class ReaderLink:
    """Watches ``transport.connected``; :meth:`check` is called often (each listener wake)."""

    def __init__(
        self, service: Any, transport: Link, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.service = service
        self.transport = transport
        self.clock = clock
        self.was_connected = bool(transport.connected)
        self.away_since: float | None = None
        self.outages = 0

    def _who(self) -> str | None:
        """The player whose taps the reader takes now (the pending payment's, the reader's
        player, or the one whose turn it is)."""
        try:
            state = self.service.state()
        except Exception:  # no state yet: nobody in particular
            return None
        pending = state.get("pending") or {}
        payment = pending.get("payment") or {}
        who = payment.get("player") or pending.get("reader_player") or state.get("current")
        return str(who) if who else None

    def check(self) -> str | None:
        """Tell the table about a change of the link: "away", "back" or None."""
        connected = bool(self.transport.connected)
        if connected == self.was_connected:
            return None
        self.was_connected = connected
        who = self._who()
        if not connected:
            self.away_since = self.clock()
            self.outages += 1
            self.service.notice(
                "The card reader is away: taps are not received until it is back",
                "warning",
                who,
                code="reader.away",
            )
            return "away"
        seconds = 0 if self.away_since is None else round(self.clock() - self.away_since)
        self.away_since = None
        self.service.notice(
            "The card reader is back: tap again any card tapped while it was away",
            "warning",
            who,
            code="reader.back",
            params={"seconds": seconds, "player": who},
        )
        tell = getattr(getattr(self.service, "streams", None), "tell", None)
        if tell is not None:  # the LED's flash and sound: the controls hear vetoes
            tell("vetoed", {"text": "tap again", "color": who, "kind": "reader"})
        return "back"


__all__ = ["ReaderLink"]
