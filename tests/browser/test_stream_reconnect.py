"""The dashboard's live stream comes back (Chromium against the real server on 127.0.0.1):
after the server refused the stream (503: every slot taken) the page tries again with a growing
wait, and resumes after the last state it saw."""

from __future__ import annotations

import itertools
import time
from typing import Any

from tests.browser.conftest import Server
from tests.browser.test_dashboard import api, ready, see, two_player_game


def test_the_page_reconnects_with_back_off_and_resumes(server: Server, phone: Any) -> None:
    two_player_game(server)
    page = phone()
    answers: list[tuple[float, int, str]] = []
    page.on(
        "response",
        lambda r: (
            answers.append((time.monotonic(), r.status, r.url)) if "/api/events" in r.url else None
        ),
    )
    ready(page, server.url + "/")
    page.wait_for_selector("#conn:not(.off)")
    see(page, "#scores tr[data-color=blue] td.score", "0")
    slots = server.app.extensions["companion.sse_slots"]
    size = slots.size
    slots.size = 0  # every slot taken: a new stream is a 503
    server.service.close_streams()  # the page's stream ends (as in a restart)
    server.service.streams.open()
    page.wait_for_selector("#conn.off")
    # while it is away, the game goes on
    api(
        server, "POST", "/api/actions", {"type": "claim", "player": "blue", "route": "dieppe-paris"}
    )
    page.wait_for_timeout(6000)  # refused, refused again 1 s later, then 2 s... (events flow)
    slots.size = size
    page.wait_for_selector("#conn:not(.off)", timeout=20_000)
    see(page, "#scores tr[data-color=blue] td.score", "1")  # what it missed, it got
    statuses = [s for _, s, _ in answers]
    assert statuses[0] == 200 and statuses[-1] == 200 and statuses.count(503) >= 2, answers
    assert "last_event_id=" in answers[-1][2]  # resumed after the last state it saw
    refused = [t for t, s, _ in answers if s == 503]
    waits = [b - a for a, b in itertools.pairwise(refused)]
    assert waits and max(waits) >= 1.5, waits  # the waits grow (1 s, 2 s...): no tight loop
    assert min(waits) >= 0.8, waits
    assert page.js_errors == []
