"""The HTTP API through Flask's test client: contract, auth, CSRF, Host/Origin, errors, SSE."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.service import Service

from .conftest import BEARER, TOKEN, photo_result
from .images import png

PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]


def post(client: FlaskClient, body: Any, headers: dict[str, str] | None = None) -> Any:
    return client.post(
        "/api/actions", json=body, headers=headers if headers is not None else BEARER
    )


def start(client: FlaskClient, **extra: Any) -> dict[str, Any]:
    r = post(client, {"type": "new_game", "variant": "europe", "players": PLAYERS, **extra})
    assert r.status_code == 200, r.json
    for color, tickets in (
        ("red", ["paris-wien", "brest-marseille"]),
        ("blue", ["budapest-zurich", "brindisi-zurich"]),
    ):
        r = post(client, {"type": "keep_tickets", "player": color, "tickets": tickets})
        assert r.status_code == 200, r.json
    return r.json  # type: ignore[no-any-return]


def pair_phone(app: Flask, client: FlaskClient, color: str) -> tuple[FlaskClient, str]:
    r = client.post(f"/api/players/{color}/pair", headers=BEARER)
    assert r.status_code == 200 and r.json["qr_svg"].startswith("<svg")
    token = r.json["url"].rsplit("/", 1)[1]
    phone = app.test_client()
    r = phone.get(f"/pair/{token}")
    assert r.status_code == 303 and r.headers["Location"].endswith("/me")
    cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    return phone, token


def test_state_before_and_after_a_game(client: FlaskClient) -> None:
    r = client.get("/api/state")
    assert r.status_code == 200 and r.json["phase"] == "none" and r.json["players"] == []
    st = start(client)
    r = client.get("/api/state")
    assert r.json == st
    assert st["phase"] == "playing" and st["current"] == "red"
    p = st["players"][0]
    assert (p["name"], p["color"], p["score"], p["trains_left"], p["stations_left"]) == (
        "Aki",
        "red",
        0,
        45,
        3,
    )
    assert p["routes"] == [] and p["stations"] == [] and p["tickets_held"] == 2
    assert "paris-wien" not in r.get_data(as_text=True)


def test_actions_claim_station_finish(client: FlaskClient) -> None:
    start(client)
    r = post(
        client, {"type": "claim", "player": "red", "route": "berlin-wien", "cards": ["green"] * 3}
    )
    assert r.status_code == 200 and r.json["players"][0]["routes"] == ["berlin-wien"]
    assert r.json["players"][0]["score"] == 4
    r = post(client, {"type": "build_station", "player": "blue", "city": "wien", "cards": ["blue"]})
    assert r.status_code == 200 and r.json["players"][1]["stations"] == ["wien"]
    r = post(client, {"type": "finish"})
    assert r.status_code == 200 and r.json["phase"] == "finished"
    red = r.json["players"][0]["final"]
    assert red["longest_trail"] == ["berlin-wien"] and {t["id"] for t in red["tickets"]} == {
        "paris-wien",
        "brest-marseille",
    }
    assert r.json["players"][0]["score"] == red["total"]


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        ('{"type": "teleport"}', "unknown action type"),
        ('{"type": "claim", "route": "berlin-wien"}', "player"),
        ('{"type": "claim", "player": "red", "route": "berlin-wien", "cards": "red"}', "list"),
        (
            '{"type": "claim", "player": "red", "route": "berlin-wien", "cards": ["gold"]}',
            "unknown card",
        ),
        ('{"type": "new_game", "players": [{"color": "purple"}, {"color": "red"}]}', "colour"),
        ("", "no body"),
        ('{"type": "undo", "seq": "x"}', "seq"),
    ],
)
def test_malformed_actions_are_400_with_a_sentence(
    client: FlaskClient, body: str, fragment: str
) -> None:
    r = client.post(
        "/api/actions", data=body, headers={**BEARER, "Content-Type": "application/json"}
    )
    assert r.status_code == 400
    assert fragment.lower() in r.json["error"].lower()


def test_illegal_actions_are_409_with_the_rule(client: FlaskClient) -> None:
    r = post(client, {"type": "claim", "player": "red", "route": "berlin-wien"})
    assert r.status_code == 409 and r.json["rule"] == "no-game"
    start(client)
    post(client, {"type": "claim", "player": "red", "route": "berlin-wien", "cards": ["green"] * 3})
    r = post(client, {"type": "claim", "player": "blue", "route": "berlin-wien"})
    assert r.status_code == 409 and r.json["rule"] == "route-taken"
    assert r.json["error"][0].isupper() and r.json["error"].endswith(".")
    r = post(client, {"type": "claim", "player": "red", "route": "nowhere-land"})
    # (red's claim ended red's turn by itself: red acting again is out of turn)
    assert r.status_code == 409 and r.json["rule"] in ("unknown-route", "not-your-turn")
    r = post(client, {"type": "keep_tickets", "player": "green", "tickets": ["paris-wien"]})
    assert r.status_code == 409 and r.json["rule"] == "unknown-player"
    r = post(client, {"type": "new_game", "players": [PLAYERS[0]]})
    assert r.status_code == 409


def test_auth_401_403(app: Flask, client: FlaskClient) -> None:
    start(client)
    action = {"type": "drew_cards", "player": "red"}
    assert post(client, action, headers={}).status_code == 401
    assert post(client, action, headers={"Authorization": "Basic abc"}).status_code == 401
    assert (
        post(client, action, headers={"Authorization": "Bearer wrong-token-xxxxxxxx"}).status_code
        == 403
    )
    token = client.post("/api/players/red/pair", headers=BEARER).json["url"].rsplit("/", 1)[1]
    # Player token as Bearer (its link not opened): own colour yes, other colour and host no.
    bearer = {"Authorization": f"Bearer {token}"}
    assert post(client, {"type": "drew_cards", "player": "blue"}, headers=bearer).status_code == 403
    assert post(client, {"type": "finish"}, headers=bearer).status_code == 403
    assert post(client, action, headers=bearer).status_code == 200
    assert (
        client.post(
            "/api/observations", json={"kind": "button", "name": "end_turn"}, headers=bearer
        ).status_code
        == 403
    )


def test_cookie_posts_need_the_csrf_token(app: Flask, client: FlaskClient) -> None:
    start(client)
    phone, _ = pair_phone(app, client, "red")
    session = phone.get("/api/session").json
    assert session["role"] == "player" and session["color"] == "red" and session["csrf_token"]
    action = {"type": "drew_cards", "player": "red"}
    r = phone.post("/api/actions", json=action)
    assert r.status_code == 403 and "CSRF" in r.json["error"]
    r = phone.post("/api/actions", json=action, headers={"X-CSRF-Token": "0" * 40})
    assert r.status_code == 403
    r = phone.post("/api/actions", json=action, headers={"X-CSRF-Token": session["csrf_token"]})
    assert r.status_code == 200 and r.json["last"]["actor"] == "red"
    # The page carries the same token for the dashboard's scripts.
    page = phone.get("/me")
    assert page.status_code == 200 and session["csrf_token"] in page.get_data(as_text=True)


def test_host_login_sets_a_cookie(app: Flask) -> None:
    browser = app.test_client()
    assert browser.get("/host/login?token=nope").status_code == 403
    assert browser.get("/host").status_code == 303
    r = browser.get(f"/host/login?token={TOKEN}")
    assert r.status_code == 303 and "SameSite=Strict" in r.headers["Set-Cookie"]
    assert browser.get("/host").status_code == 200
    s = browser.get("/api/session").json
    assert s["role"] == "host"
    r = browser.post(
        "/api/actions",
        json={"type": "new_game", "players": PLAYERS},
        headers={"X-CSRF-Token": s["csrf_token"]},
    )
    assert r.status_code == 200


def test_host_and_origin_checks(client: FlaskClient) -> None:
    assert client.get("/api/state", headers={"Host": "evil.example"}).status_code == 400
    assert client.get("/api/state", headers={"Host": "192.168.1.20:8080"}).status_code == 200
    assert client.get("/api/state", headers={"Host": "[::1]:8080"}).status_code == 200
    r = post(
        client,
        {"type": "new_game", "players": PLAYERS},
        headers={**BEARER, "Origin": "http://evil.example"},
    )
    assert r.status_code == 403 and r.json["rule"] == "bad-origin"
    r = post(
        client,
        {"type": "new_game", "players": PLAYERS},
        headers={**BEARER, "Origin": "http://localhost"},
    )
    assert r.status_code == 200


def test_tickets_only_for_that_player_or_the_host(app: Flask, client: FlaskClient) -> None:
    start(client)
    assert client.get("/api/players/red/tickets").status_code == 401
    r = client.get("/api/players/red/tickets", headers=BEARER)
    assert r.status_code == 200 and [t["id"] for t in r.json["tickets"]] == [
        "paris-wien",
        "brest-marseille",
    ]
    t = r.json["tickets"][0]
    assert t["completed"] is False and t["reachable"] and t["missing"] and t["missing_trains"] > 0
    phone, _ = pair_phone(app, client, "red")
    assert phone.get("/api/players/red/tickets").status_code == 200
    r = phone.get("/api/players/blue/tickets")
    assert r.status_code == 403 and "budapest" not in r.get_data(as_text=True)
    assert client.get("/api/players/green/tickets", headers=BEARER).status_code == 404
    assert client.get("/api/players/purple/tickets", headers=BEARER).status_code == 404


def test_rotated_or_old_pairings_stop_working(app: Flask, client: FlaskClient) -> None:
    start(client)
    phone, token = pair_phone(app, client, "red")
    client.post("/api/players/red/pair", json={"rotate": True}, headers=BEARER)
    assert phone.get("/api/players/red/tickets").status_code == 403
    assert app.test_client().get(f"/pair/{token}").status_code == 403


def test_observations_confirmations_and_pending(client: FlaskClient) -> None:
    start(client, payment_mode="strict")
    for uid in ("u1", "u2", "u3"):
        r = client.post(
            "/api/observations",
            json={"kind": "card_tapped", "card": "green", "uid": uid},
            headers=BEARER,
        )
        assert r.json["result"] == "pending"
    r = client.post(
        "/api/observations",
        json={"kind": "claim_seen", "route": "berlin-wien", "color": "red"},
        headers=BEARER,
    )
    assert r.json["result"] == "applied"
    r = client.post(
        "/api/observations",
        json={"kind": "claim_seen", "route": "berlin-wien", "color": "blue"},
        headers=BEARER,
    )
    assert r.json["result"] == "vetoed" and "belongs to red" in r.json["text"]
    r = client.post(
        "/api/observations",
        json={"kind": "claim_seen", "route": "munchen-wien", "color": "blue"},
        headers=BEARER,
    )
    assert r.json["result"] in ("applied", "pending")
    assert (
        client.post("/api/observations", json={"kind": "smell"}, headers=BEARER).status_code == 400
    )
    assert (
        client.post("/api/confirmations/c99", json={"accept": True}, headers=BEARER).status_code
        == 404
    )
    assert (
        client.post("/api/confirmations/c99", json={"accept": "yes"}, headers=BEARER).status_code
        == 400
    )
    assert client.post("/api/pending/clear", headers=BEARER).json == {"cleared": True}


def test_undo_over_http(client: FlaskClient) -> None:
    start(client)
    post(client, {"type": "claim", "player": "red", "route": "berlin-wien", "cards": ["green"] * 3})
    r = post(client, {"type": "undo"})
    assert r.status_code == 200 and r.json["players"][0]["routes"] == []
    events = client.get(f"/api/games/{r.json['game_id']}/events").json["events"]
    assert events[-1]["action"]["type"] == "undo" and events[-2]["undone"]
    assert events[1]["action"]["tickets"] == 2  # hidden from guests
    assert post(client, {"type": "undo", "seq": 99999}).status_code == 404


def test_map_history_health_and_unknown_ids(client: FlaskClient) -> None:
    m = client.get("/api/map").json
    assert len(m["routes"]) == 101 and len(m["cities"]) == 47
    assert m["routes"]["berlin-wien"]["spaces"] and 0 < m["cities"]["wien"]["x"] < 1
    st = start(client)
    games = client.get("/api/games").json["games"]
    assert games[0]["id"] == st["game_id"] and games[0]["phase"] == "playing"
    assert client.get(f"/api/games/{st['game_id']}").json["players"][0]["tickets_held"] == 2
    assert (
        client.get(f"/api/games/{st['game_id']}/state?seq=1").json["players"][0]["tickets_held"]
        == 0
    )
    assert client.get("/api/games/nope").status_code == 404
    assert client.get(f"/api/games/{st['game_id']}/state?seq=x").status_code == 400
    assert client.get("/api/health").json["ok"] is True
    r = client.get("/api/nothing-here")
    assert r.status_code == 404 and "error" in r.json
    assert client.delete("/api/state").status_code == 405


def test_pages_render(client: FlaskClient) -> None:
    for path in ("/", "/history"):
        r = client.get(path)
        assert r.status_code in (200, 503)
        assert r.headers["Content-Security-Policy"].startswith("default-src 'self'")


def test_photo_upload_flow(app: Flask, client: FlaskClient, service: Service) -> None:
    photo = png(12, 8)
    service._photo_reader = lambda data: {
        "routes": {"berlin-wien": "red" if data == photo else None},
        "stations": {},
        "confidence": {},
    }
    post(client, {"type": "new_game", "players": PLAYERS, "mode": "photo"})
    assert client.post("/api/photo", headers=BEARER).status_code == 400
    r = client.post("/api/photo", data=photo, headers={**BEARER, "Content-Type": "image/png"})
    assert r.status_code == 202
    got = photo_result(client, r.json["job"], timeout=2.0)
    assert got["status"] == "done" and got["reading"]["routes"]["berlin-wien"] == "red"
    r = post(
        client,
        {"type": "set_board", "routes": {"berlin-wien": "red"}, "tickets": {"red": ["paris-wien"]}},
    )
    assert r.status_code == 200
    r = post(client, {"type": "finish"})
    assert r.json["players"][0]["final"]["route_points"] == 4


def test_photo_that_is_not_an_image_is_refused_before_any_job(
    client: FlaskClient, service: Service
) -> None:
    r = client.post(
        "/api/photo", data=b"not an image", headers={**BEARER, "Content-Type": "image/jpeg"}
    )
    assert r.status_code == 415 and "not a JPEG or PNG" in r.json["error"]
    assert service._photo_jobs == {}


def test_photo_damaged_after_its_header_fails_with_a_sentence(client: FlaskClient) -> None:
    data = png(10, 10)[:33] + b"damaged" * 10
    r = client.post("/api/photo", data=data, headers={**BEARER, "Content-Type": "image/png"})
    assert r.status_code == 202
    got = photo_result(client, r.json["job"], timeout=10.0)
    assert got["status"] == "failed" and "not a JPEG or PNG" in got["error"]


# --- server-sent events ---------------------------------------------------------------------


def sse_reader(
    client: FlaskClient, headers: dict[str, str] | None = None
) -> tuple[queue.Queue[str], Any]:
    resp = client.get("/api/events", headers=headers or {}, buffered=False)
    assert resp.status_code == 200 and resp.mimetype == "text/event-stream"
    out: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        for chunk in resp.response:
            out.put(chunk.decode() if isinstance(chunk, bytes) else chunk)

    threading.Thread(target=pump, daemon=True).start()
    return out, resp


def messages(q: queue.Queue[str], n: int, timeout: float = 3.0) -> Iterator[dict[str, str]]:
    got = 0
    import time

    deadline = time.monotonic() + timeout
    while got < n:
        chunk = q.get(timeout=max(0.01, deadline - time.monotonic()))
        if chunk.startswith((":", "retry")):
            continue
        fields = {}
        for line in chunk.strip().splitlines():
            key, _, value = line.partition(": ")
            fields[key] = value
        got += 1
        yield fields


def test_sse_sends_each_state_with_the_log_seq(client: FlaskClient) -> None:
    q, _resp = sse_reader(client)
    first = next(messages(q, 1))
    assert "event" not in first and first["id"] == "0"
    start(client)
    got = list(messages(q, 3))
    ids = [int(m["id"]) for m in got]
    assert ids == sorted(ids) and len(set(ids)) == 3
    import json

    last = json.loads(got[-1]["data"])
    assert last["seq"] == ids[-1] and last["players"][1]["tickets_held"] == 2


def test_sse_resumes_from_last_event_id(client: FlaskClient, service: Service) -> None:
    start(client)
    post(client, {"type": "drew_cards", "player": "red"})
    post(client, {"type": "end_turn", "player": "red"})
    seq_now = service.state()["seq"]
    q, _resp = sse_reader(client, {"Last-Event-ID": str(seq_now - 2)})
    got = list(messages(q, 2))
    assert [int(m["id"]) for m in got] == [seq_now - 1, seq_now]
    q2, _resp2 = sse_reader(client, {"Last-Event-ID": str(seq_now)})
    with pytest.raises(queue.Empty):
        list(messages(q2, 1, timeout=0.3))
    post(client, {"type": "drew_cards", "player": "blue"})
    assert int(next(messages(q2, 1))["id"]) == seq_now + 1


def test_sse_pending_and_notice_events(client: FlaskClient) -> None:
    start(client)
    q, _resp = sse_reader(client)
    next(messages(q, 1))
    client.post(
        "/api/observations", json={"kind": "card_tapped", "card": "red", "uid": "x"}, headers=BEARER
    )
    m = next(messages(q, 1))
    assert m["event"] == "pending" and "id" not in m and '"cards":["red"]' in m["data"]
    client.post(
        "/api/observations", json={"kind": "card_tapped", "card": "red", "uid": "x"}, headers=BEARER
    )
    kinds = [x.get("event") for x in messages(q, 2)]
    assert "notice" in kinds
