"""A notice with ``"audience": "host"`` is queued for the host's subscriptions only; a notice
without an audience for every subscription; the in-process listeners hear both."""

from __future__ import annotations

import json
import queue
from typing import Any

from companion.service.streams import Streams, Subscription


def queued_notices(sub: Subscription) -> list[dict[str, Any]]:
    out = []
    while True:
        try:
            item = sub.get(timeout=0.01)
        except queue.Empty:
            return out
        if item is not None and item[0] == "notice":
            out.append(json.loads(item[2]))


def test_a_host_notice_goes_to_host_subscriptions_only() -> None:
    streams = Streams()
    streams.publish({"seq": 1}, publish=False, pending_only=False)
    heard: list[dict[str, Any]] = []
    streams.listeners.append(lambda kind, data: heard.append(data) if kind == "notice" else None)
    host = streams.subscribe(host=True)
    phone = streams.subscribe()
    table = streams.subscribe(None)
    streams.notice(
        "Ben kept paris-wien, which Aki also holds: settle it on the host page",
        "warning",
        code="tickets.clash",
        params={"ticket": "paris-wien", "keeper": "Ben", "holders": "Aki"},
        audience="host",
    )
    streams.notice("Everyone's notice.", code="message")
    host_got = queued_notices(host)
    assert [n["code"] for n in host_got] == ["tickets.clash", "message"]
    assert host_got[0]["audience"] == "host" and host_got[0]["params"]["keeper"] == "Ben"
    for sub in (phone, table):
        got = queued_notices(sub)
        assert [n["code"] for n in got] == ["message"]
        assert "audience" not in got[0]
    assert [n["code"] for n in heard] == ["tickets.clash", "message"]
