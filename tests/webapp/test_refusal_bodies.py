"""Every 4xx body is {"error": "<English sentence>", "code": "<stable code>", "params": {...}}
(with "rule" where a rule was broken), and every code has words in both catalogues."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.webapp.conftest import BEARER

I18N = Path(__file__).resolve().parents[2] / "web" / "static" / "i18n"
PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]


def catalogues() -> list[dict[str, Any]]:
    return [json.loads((I18N / f"{lang}.json").read_text("utf-8")) for lang in ("en", "ja")]


def check_body(r: Any, status: int) -> dict[str, Any]:
    assert r.status_code == status, (r.status_code, r.get_data(as_text=True))
    body = r.get_json()
    assert isinstance(body, dict), r.get_data(as_text=True)
    assert isinstance(body["error"], str) and body["error"][0].isupper()
    assert body["error"].endswith((".", "!", "?"))
    assert isinstance(body["code"], str) and body["code"]
    assert isinstance(body["params"], dict)
    for strings in catalogues():
        assert f"notice.{body['code']}" in strings, body["code"]
    return body


def act(client: FlaskClient, body: Any, headers: dict[str, str] | None = None) -> Any:
    return client.post("/api/actions", json=body, headers=BEARER if headers is None else headers)


def test_flask_level_refusals_answer_with_a_code(client: FlaskClient) -> None:
    assert check_body(client.get("/api/nothing-here"), 404)["code"] == "http.not_found"
    body = check_body(client.delete("/api/state", headers=BEARER), 405)
    assert body["code"] == "http.method_not_allowed" and body["params"]["method"] == "DELETE"
    r = client.post(
        "/api/photo", data=b"not an image", headers={**BEARER, "Content-Type": "image/jpeg"}
    )
    assert check_body(r, 415)["code"] == "limit.not_an_image"
    r = client.post("/api/photo", data=b"x" * (21 * 2**20), headers=BEARER)
    assert check_body(r, 413)["code"] == "limit.too_large"


def test_malformed_and_unauthorised_requests_answer_with_a_code(client: FlaskClient) -> None:
    r = client.post("/api/actions", data="{nope", headers={**BEARER, "Content-Type": "x"})
    assert check_body(r, 400)["code"] == "request.not_json"
    assert check_body(act(client, {"type": "teleport"}), 400)["code"] == "request.invalid"
    assert check_body(act(client, {"type": "finish"}, headers={}), 401)["code"] == "auth.sign_in"
    r = act(client, {"type": "finish"}, headers={"Authorization": "Bearer wrong-token-xxxxxxxx"})
    assert check_body(r, 403)["code"] == "auth.wrong_token"
    r = client.get("/api/state", headers={"Host": "evil.example"})
    body = check_body(r, 400)
    assert body["code"] == "request.bad_host" and body["rule"] == "bad-host"


def test_rule_refusals_keep_the_rule_and_give_code_and_params(client: FlaskClient) -> None:
    body = check_body(act(client, {"type": "drew_cards", "player": "red"}), 409)
    assert (body["rule"], body["code"]) == ("no-game", "rule.no-game")
    r = act(client, {"type": "new_game", "players": PLAYERS, "tickets_tracked": False})
    assert r.status_code == 200
    act(client, {"type": "claim", "player": "red", "route": "berlin-wien", "cards": ["green"] * 3})
    act(client, {"type": "end_turn", "player": "red"})
    body = check_body(act(client, {"type": "claim", "player": "blue", "route": "berlin-wien"}), 409)
    assert (body["rule"], body["code"]) == ("route-taken", "rule.route-taken")
    body = check_body(client.get("/api/games/nope/state"), 404)
    assert body["code"] == "request.no_game" and body["params"] == {"game": "nope"}


@pytest.mark.parametrize(
    ("color", "code"), [("yellow", "request.no_player"), ("gold", "request.no_color")]
)
def test_an_unknown_colour_is_404_with_a_code(client: FlaskClient, color: str, code: str) -> None:
    body = check_body(client.get(f"/api/players/{color}/tickets", headers=BEARER), 404)
    assert body["code"] == code and body["params"] == {"color": color}
