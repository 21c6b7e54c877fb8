"""Per-address limits on refused requests and failed sign-ins (429 ``rate.limited``).

Each client address has one bucket per kind of strike, refilled with time:

* ``auth``: an answer 401 or 403 (a wrong token or cookie, a used pairing link, a closed
  claim window, a player doing what only the host may);
* ``refused``: an unsafe request (POST ...) answered 400, 404 or 409 (a refused action).

An address whose bucket of either kind is empty is *limited*: until it has one strike again,
anything it could be refused for (an unsafe request, a sign-in, a credential that does not
work) is answered 429 before any work, with ``retry_after`` (whole seconds). A signed-in player
still reads; the host is never limited, so another address's flood does not slow the host
down. An address is logged once per burst. Thresholds: ``companion/data/rate_limits.json``.
The table of addresses is bounded (``max_addresses``; the least recently struck go first).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

KINDS = ("auth", "refused")


@dataclass(frozen=True)
class Limit:
    burst: int
    per_minute: float

    @property
    def per_second(self) -> float:
        return self.per_minute / 60.0


def load_limits(data: Mapping[str, Any] | None = None) -> tuple[dict[str, Limit], int]:
    """The limits of ``data`` (default: the package's ``rate_limits.json``) and the most
    addresses kept."""
    if data is None:
        from companion.data import load_json

        data = load_json("rate_limits.json")
    limits = {}
    for kind in KINDS:
        raw = data[kind]
        limit = Limit(int(raw["burst"]), float(raw["per_minute"]))
        if limit.burst < 1 or limit.per_minute <= 0:
            raise ValueError(f"rate limit {kind!r} needs burst >= 1 and per_minute > 0")
        limits[kind] = limit
    return limits, int(data.get("max_addresses", 4096))


class _Buckets:
    __slots__ = ("at", "level", "logged")

    def __init__(self, limits: Mapping[str, Limit], now: float) -> None:
        self.level = {kind: float(limit.burst) for kind, limit in limits.items()}
        self.at = now
        self.logged = False


class RateLimiter:
    """Strikes per address and kind; :meth:`retry_after` says whether an address is limited."""

    def __init__(
        self,
        limits: Mapping[str, Limit] | None = None,
        *,
        max_addresses: int = 4096,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if limits is None:
            limits, max_addresses = load_limits()
        self.limits = dict(limits)
        self.max_addresses = max(1, max_addresses)
        self._clock = clock
        self._lock = threading.Lock()
        self._addresses: OrderedDict[str, _Buckets] = OrderedDict()
        self.bursts = 0  # addresses that became limited (each logged once)

    def _refill(self, b: _Buckets, now: float) -> None:
        dt = max(0.0, now - b.at)
        for kind, limit in self.limits.items():
            b.level[kind] = min(float(limit.burst), b.level[kind] + dt * limit.per_second)
        b.at = now

    def _wait(self, b: _Buckets) -> float:
        worst = 0.0
        for kind, limit in self.limits.items():
            if b.level[kind] < 1.0:
                worst = max(worst, (1.0 - b.level[kind]) / limit.per_second)
        return worst

    def retry_after(self, address: str) -> int:
        """Whole seconds until ``address`` may be refused again (0: not limited)."""
        with self._lock:
            b = self._addresses.get(address)
            if b is None:
                return 0
            self._refill(b, self._clock())
            wait = self._wait(b)
            if wait <= 0:
                b.logged = False  # the burst is over: the next one is logged again
                return 0
            return max(1, math.ceil(wait))

    def strike(self, address: str, kind: str) -> None:
        """One refusal of ``kind`` for ``address``."""
        if kind not in self.limits:
            raise ValueError(f"unknown kind of strike {kind!r}")
        now = self._clock()
        with self._lock:
            b = self._addresses.get(address)
            if b is None:
                b = self._addresses[address] = _Buckets(self.limits, now)
                while len(self._addresses) > self.max_addresses:
                    self._addresses.popitem(last=False)
            else:
                self._addresses.move_to_end(address)
                self._refill(b, now)
                if self._wait(b) <= 0:
                    b.logged = False  # the last burst is over
            b.level[kind] = max(-float(self.limits[kind].burst), b.level[kind] - 1.0)
            newly = not b.logged and self._wait(b) > 0
            if newly:
                b.logged = True
                self.bursts += 1
        if newly:
            log.warning(
                "rate limit: %s was refused too often (%s); it gets 429 for a while", address, kind
            )


__all__ = ["KINDS", "Limit", "RateLimiter", "load_limits"]
