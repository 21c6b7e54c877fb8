"""Card events from a reader transport: each TAG line identified as a card."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

from .cards import CardCatalog, CardEvent
from .protocol import Err, Gone, Hello, Tag
from .registry import Registry, identify
from .transport import Connected, Disconnected, ReaderTransport

log = logging.getLogger(__name__)


class CardListener:
    """Turns the transport's messages into :class:`CardEvent` (one per arrival).

    ``on_reader`` tracks the UIDs on the reader now (TAG adds, GONE removes, a lost reader
    clears them).
    """

    def __init__(
        self,
        transport: ReaderTransport,
        catalog: CardCatalog,
        registry: Registry | None = None,
    ) -> None:
        self.transport = transport
        self.catalog = catalog
        self.registry = registry
        self.on_reader: dict[str, CardEvent] = {}
        self.arrivals = 0

    def next_event(self, timeout: float | None = None) -> CardEvent | None:
        """The next card arrival, or None when ``timeout`` seconds pass without one."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            got = self.transport.get(timeout=wait)
            if got is None:
                return None
            at, item = got
            if isinstance(item, Tag):
                card = identify(item.uid, item.payload, self.catalog, self.registry)
                event = CardEvent(item.uid, card, item.payload, at)
                self.on_reader[item.uid] = event
                self.arrivals += 1
                return event
            if isinstance(item, Gone):
                self.on_reader.pop(item.uid, None)
            elif isinstance(item, Err):
                log.warning("reader reports trouble: %s %s", item.code, item.detail)
            elif isinstance(item, Hello):
                log.info("reader firmware %s, chip %s", item.fw_version, item.chip)
            elif isinstance(item, Disconnected):
                self.on_reader.clear()
            elif isinstance(item, Connected):
                pass
            if deadline is not None and time.monotonic() >= deadline:
                return None

    def events(self, poll: float = 0.2) -> Iterator[CardEvent]:
        """Card arrivals forever (wakes every ``poll`` seconds so Ctrl-C is prompt)."""
        while True:
            event = self.next_event(timeout=poll)
            if event is not None:
                yield event
