"""`companion serve`'s device threads run in the test's own process, stopped when the test ends."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from companion.commands.devices import start_reader


@contextmanager
def reader_thread(svc: Any, port: str, **kwargs: Any) -> Iterator[threading.Thread]:
    """The reader thread (``devices.start_reader``) listening on ``port`` for ``svc``; ``kwargs``
    as start_reader takes them (``watch``, ``registry_path``)."""
    stop = threading.Event()
    thread = start_reader(svc, port, stop, **kwargs)
    try:
        yield thread
    finally:
        stop.set()
        thread.join(timeout=5)
