"""A pairing link hands the phone that opens it a session of its own (the cookie holds
``p1.<nonce>.<HMAC(token, nonce)>``, never the token): from then on the link's token signs no one
in, neither on a page nor as ``Authorization: Bearer``. The phone goes on with its cookie, also
into the next game where the same name plays the same colour; the host's "rotate" ends it."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from companion.service.auth import player_session_nonce, player_session_value
from companion.webapp.security import PLAYER_COOKIE

from .conftest import BEARER

PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]
DRAW = {"type": "drew_cards", "player": "red"}


def act(client: FlaskClient, action: dict[str, Any], **headers: str) -> Any:
    return client.post("/api/actions", json=action, headers=headers or BEARER)


def pair(client: FlaskClient, color: str, **body: Any) -> str:
    r = client.post(f"/api/players/{color}/pair", json=body, headers=BEARER)
    assert r.status_code == 200
    return str(r.json["url"]).rsplit("/", 1)[1]


def cookie_of(phone: FlaskClient) -> str:
    found = phone.get_cookie(PLAYER_COOKIE)
    assert found is not None
    return found.value


def csrf(phone: FlaskClient) -> str:
    return str(phone.get("/api/session").json["csrf_token"])


def test_the_session_value_is_bound_to_its_token() -> None:
    value = player_session_value("token-one-0123456789", "nonce")
    assert value.startswith("p1.nonce.") and "token-one" not in value
    assert player_session_nonce("token-one-0123456789", value) == "nonce"
    assert player_session_nonce("token-two-0123456789", value) is None
    forged = value[:-1] + ("1" if value.endswith("0") else "0")
    assert player_session_nonce("token-one-0123456789", forged) is None
    assert player_session_nonce("token-one-0123456789", "h1" + value[2:]) is None  # a host's
    assert player_session_nonce("token-one-0123456789", "token-one-0123456789") is None


def test_an_opened_link_no_longer_signs_in_and_the_phone_goes_on(
    app: Flask, client: FlaskClient
) -> None:
    act(client, {"type": "new_game", "players": PLAYERS, "tickets_tracked": False})
    token = pair(client, "red")
    bearer = {"Authorization": f"Bearer {token}"}
    # not opened yet: an API client may use the token
    assert client.get("/api/players/red/tickets", headers=bearer).status_code == 200
    phone = app.test_client()
    r = phone.get(f"/pair/{token}")
    assert r.status_code == 303 and r.headers["Location"].endswith("/me")
    value = cookie_of(phone)
    assert value.startswith("p1.") and token not in value and token not in r.headers["Set-Cookie"]
    # the token is spent: as Bearer (reading or acting), as a link, as a cookie
    for answer in (
        client.get("/api/players/red/tickets", headers=bearer),
        act(client, DRAW, **bearer),
    ):
        assert answer.status_code == 403 and answer.json["code"] == "auth.wrong_token"
    assert app.test_client().get(f"/pair/{token}").status_code == 403
    thief = app.test_client()
    thief.set_cookie(PLAYER_COOKIE, token)
    assert thief.get("/api/session").json["role"] == "guest"
    r = thief.get("/api/players/red/tickets")
    assert r.status_code == 403 and r.json["code"] == "auth.stale_pairing"
    assert thief.get("/me").status_code == 403  # the "pairing gone" page
    # the phone that opened it goes on with its own session
    assert phone.get("/me").status_code == 200
    assert phone.get("/api/session").json["role"] == "player"
    assert phone.get("/api/players/red/tickets").status_code == 200
    assert act(phone, DRAW, **{"X-CSRF-Token": csrf(phone)}).status_code == 200
    assert phone.get(f"/pair/{token}").status_code == 303  # its own link: to its page again
    assert cookie_of(phone) == value
    state = client.get("/api/state").json
    assert [p["phone_seen"] for p in state["players"]] == [True, False]


def test_the_host_showing_it_again_opens_it_once_more(app: Flask, client: FlaskClient) -> None:
    act(client, {"type": "new_game", "players": PLAYERS, "tickets_tracked": False})
    token = pair(client, "red")
    first, second = app.test_client(), app.test_client()
    assert first.get(f"/pair/{token}").status_code == 303
    assert pair(client, "red") == token  # shown again: one more opening (or one API client)
    assert second.get(f"/pair/{token}").status_code == 303
    assert cookie_of(first) != cookie_of(second)  # a session each
    bearer = {"Authorization": f"Bearer {token}"}
    assert client.get("/api/players/red/tickets", headers=bearer).status_code == 403
    for phone in (first, second):
        assert phone.get("/api/players/red/tickets").status_code == 200


def test_the_session_carries_into_the_next_game_and_rotate_ends_it(
    app: Flask, client: FlaskClient
) -> None:
    act(client, {"type": "new_game", "players": PLAYERS, "tickets_tracked": False})
    red, blue = app.test_client(), app.test_client()
    assert red.get(f"/pair/{pair(client, 'red')}").status_code == 303
    assert blue.get(f"/pair/{pair(client, 'blue')}").status_code == 303
    act(client, {"type": "finish"})
    act(client, {"type": "new_game", "players": [PLAYERS[0], {"name": "Cy", "color": "blue"}]})
    assert red.get("/api/players/red/tickets").status_code == 200  # Aki plays red again
    r = blue.get("/api/players/blue/tickets")
    assert r.status_code == 403 and r.json["code"] == "auth.stale_pairing"  # Ben does not
    new = pair(client, "red", rotate=True)
    r = red.get("/api/players/red/tickets")
    assert r.status_code == 403 and r.json["code"] == "auth.stale_pairing"
    again = app.test_client()
    assert again.get(f"/pair/{new}").status_code == 303
    assert again.get("/api/players/red/tickets").status_code == 200
