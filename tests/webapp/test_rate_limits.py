"""Per-address limits on refusals and failed authentication (issue 22): 429 ``rate.limited``
with ``retry_after``, logged once per burst; the host is never limited, and another address
is not either. Real waitress on 127.0.0.1, clients from other addresses of 127.0.0.0/8.
(How fast the host stays during a flood is measured by benchmarks/bench_rate_limits.py.)"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.webapp.ratelimit import Limit, RateLimiter, load_limits
from tests.waiting import Clock

from .conftest import BEARER
from .live import LiveServer

PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]
LIMITS = {"auth": {"burst": 5, "per_minute": 6}, "refused": {"burst": 8, "per_minute": 6}}
FLOOD = "127.0.0.2"
OTHER = "127.0.0.3"


def test_the_limiter_counts_strikes_per_address_and_kind(caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock(50.0)
    limiter = RateLimiter({"auth": Limit(3, 60), "refused": Limit(5, 30)}, clock=clock)
    with caplog.at_level(logging.WARNING, logger="companion.webapp.ratelimit"):
        for _ in range(3):
            assert limiter.retry_after("10.0.0.1") == 0
            limiter.strike("10.0.0.1", "auth")
        assert limiter.retry_after("10.0.0.1") == 1  # one auth strike a second comes back
        limiter.strike("10.0.0.1", "auth")  # (one more while limited: still one log line)
        assert limiter.retry_after("10.0.0.1") == 2
        assert limiter.retry_after("10.0.0.9") == 0  # another address
        clock.now += 2.0
        assert limiter.retry_after("10.0.0.1") == 0
        for _ in range(5):
            limiter.strike("10.0.0.9", "refused")
        assert limiter.retry_after("10.0.0.9") == 2  # 30 a minute: one in 2 s
        limiter.strike("10.0.0.1", "auth")
        limiter.strike("10.0.0.1", "auth")  # a second burst: logged again
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 3 and limiter.bursts == 3
    assert sum("10.0.0.1" in line for line in lines) == 2
    with pytest.raises(ValueError):
        limiter.strike("10.0.0.1", "other")


def test_the_table_of_addresses_is_bounded() -> None:
    limiter = RateLimiter({"auth": Limit(1, 1), "refused": Limit(1, 1)}, max_addresses=10)
    for i in range(50):
        limiter.strike(f"10.0.1.{i}", "auth")
    assert len(limiter._addresses) == 10 and limiter.retry_after("10.0.1.49") > 0


def test_the_thresholds_come_from_the_data_file() -> None:
    limits, most = load_limits()
    assert limits["auth"].burst >= 1 and limits["refused"].per_minute > 0 and most >= 100
    with pytest.raises(ValueError):
        load_limits({"auth": {"burst": 0, "per_minute": 1}, "refused": LIMITS["refused"]})


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path, app_config={"RATE_LIMITS": LIMITS})
    yield server
    server.close()


def test_token_guesses_and_refused_actions_get_429_the_host_never(
    live: LiveServer, caplog: pytest.LogCaptureFixture
) -> None:
    assert (
        live.request("POST", "/api/actions", {"type": "new_game", "players": PLAYERS}, BEARER)[0]
        == 200
    )
    status, out = live.request("POST", "/api/players/blue/pair", None, BEARER)
    blue = {"Authorization": f"Bearer {out['url'].rsplit('/', 1)[1]}"}
    guesses: list[tuple[int, Any]] = []
    with caplog.at_level(logging.WARNING, logger="companion.webapp.ratelimit"):
        for i in range(8):
            wrong = {"Authorization": f"Bearer guess-{i:04d}-0123456789abcdef"}
            guesses.append(
                live.request("GET", "/api/players/red/tickets", None, wrong, source=FLOOD)
            )
    assert [s for s, _ in guesses] == [403] * 5 + [429] * 3
    status, body = guesses[-1]
    assert body["code"] == "rate.limited" and body["params"]["retry_after"] >= 1
    assert body["error"]
    assert [r.getMessage() for r in caplog.records if FLOOD in r.getMessage()] != []
    assert len([r for r in caplog.records if FLOOD in r.getMessage()]) == 1  # once per burst
    # a pairing link guessed from the same address: 429 too, before any work
    assert live.request("GET", "/pair/guessed-token-0123456789", None, None, source=FLOOD)[0] == 429
    # the host from the same address and another guest are not limited
    assert live.request("GET", "/api/players/red/tickets", None, BEARER, source=FLOOD)[0] == 200
    ok = {"type": "set_payment_mode", "payment_mode": "strict"}
    assert live.request("POST", "/api/actions", ok, BEARER, source=FLOOD)[0] == 200
    wrong = {"Authorization": "Bearer another-guess-0123456789"}
    assert live.request("GET", "/api/players/red/tickets", None, wrong, source=OTHER)[0] == 403
    # a guest from the flooding address still reads the public state (also with a stale cookie)
    assert live.request("GET", "/api/state", None, None, source=FLOOD)[0] == 200
    stale = {"Cookie": "companion_player=gone-0123456789abcdef"}
    assert live.request("GET", "/api/state", None, stale, source=FLOOD)[0] == 200
    status, body = live.request("GET", "/api/players/red/tickets", None, stale, source=FLOOD)
    assert status == 429 and body["code"] == "rate.limited"  # a cookie guess
    # refused actions: blue acting out of turn, from a third address, again and again
    third = "127.0.0.4"
    outs = [
        live.request(
            "POST", "/api/actions", {"type": "drew_cards", "player": "blue"}, blue, source=third
        )[0]
        for _ in range(10)
    ]
    assert outs[:8] == [409] * 8 and outs[8:] == [429, 429]
    status, headers_body = live.request("POST", "/api/host/claim", {}, None, source=third)
    assert status == 429 and headers_body["code"] == "rate.limited"
    # while the host's own refusals never count
    for _ in range(12):
        bad = {"type": "drew_cards", "player": "blue"}
        assert live.request("POST", "/api/actions", bad, BEARER, source="127.0.0.5")[0] == 409
    wrong = {"Authorization": "Bearer one-more-guess-0123456789"}
    assert (
        live.request("GET", "/api/players/red/tickets", None, wrong, source="127.0.0.5")[0] == 403
    )


def test_a_429_carries_retry_after(live: LiveServer) -> None:
    import http.client

    for _ in range(6):
        live.request("GET", "/host/login?token=wrong-0123456789abcdef", None, None, source=FLOOD)
    conn = http.client.HTTPConnection("127.0.0.1", live.port, timeout=5, source_address=(FLOOD, 0))
    try:
        conn.request("GET", "/host/login?token=wrong-again-0123456789")
        resp = conn.getresponse()
        resp.read()
        assert resp.status == 429 and int(resp.getheader("Retry-After") or 0) >= 1
    finally:
        conn.close()


def test_the_servers_gate_answers_429_before_the_app(tmp_path: Path) -> None:
    limiter = RateLimiter(load_limits(LIMITS)[0])
    live = LiveServer(tmp_path, app_config={"RATE_LIMITS": limiter}, rate_limiter=limiter)
    try:
        for _ in range(5):
            live.request(
                "GET", "/host/login?token=wrong-0123456789abcdef", None, None, source=FLOOD
            )
        # a POST from the limited address: refused from its headers, in the server's parser
        body = b'{"type": "end_turn", "player": "red"}'
        headers = {"Content-Type": "application/json", "Authorization": "Bearer guess-0123456789"}
        status, out = live.request("POST", "/api/actions", None, headers, source=FLOOD)
        assert status == 429 and out["code"] == "rate.limited" and out["rule"] == "rate-limited"
        assert out["params"]["retry_after"] >= 1
        guess = {"Authorization": "Bearer another-guess-0123456789"}
        status, out = live.request("GET", "/api/players/red/tickets", None, guess, source=FLOOD)
        assert status == 429 and out["rule"] == "rate-limited"  # (the gate: a credential)
        assert live.request("GET", "/api/state", None, None, source=FLOOD)[0] == 200  # reading
        # the host's own POST from the same address goes through; another address too
        game = {"type": "new_game", "players": PLAYERS}
        assert live.request("POST", "/api/actions", game, BEARER, source=FLOOD)[0] == 200
        status, _ = live.request_raw("POST", "/api/actions", body, headers)
        assert status == 403  # (a wrong token, answered by the app)
    finally:
        live.close()
