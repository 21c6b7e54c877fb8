"""Pairings (issue 22): a pairing link opens once (a second device gets the "ask the host" page,
coded in both languages; the host can show it again), and a pairing belongs to a player of a
game: it carries into the next game only where the same name sits at the same colour."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from companion.service import Service
from companion.store import EventStore
from companion.webapp import create_app
from companion.webapp.security import PLAYER_COOKIE

from .conftest import BEARER, TOKEN

PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]


def act(client: FlaskClient, action: dict[str, Any]) -> dict[str, Any]:
    r = client.post("/api/actions", json=action, headers=BEARER)
    assert r.status_code == 200, r.json
    return dict(r.json)


def pair(client: FlaskClient, color: str, **body: Any) -> str:
    r = client.post(f"/api/players/{color}/pair", json=body, headers=BEARER)
    assert r.status_code == 200
    return str(r.json["url"]).rsplit("/", 1)[1]


def test_a_pairing_link_opens_once_and_again_when_the_host_shows_it(
    app: Flask, client: FlaskClient
) -> None:
    act(client, {"type": "new_game", "players": PLAYERS})
    token = pair(client, "red")
    first, second = app.test_client(), app.test_client()
    r = first.get(f"/pair/{token}")
    assert r.status_code == 303 and r.headers["Location"].endswith("/me")
    r = second.get(f"/pair/{token}")
    assert r.status_code == 403 and "Set-Cookie" not in r.headers
    page = r.get_data(as_text=True)
    assert 'data-i18n="pair.used_title"' in page and 'data-i18n="pair.used_text"' in page
    assert token not in page
    assert second.get("/api/session").json["role"] == "guest"
    # the phone that opened it may open it again: nothing changes
    assert first.get(f"/pair/{token}").status_code == 303
    assert first.get("/api/session").json == {**first.get("/api/session").json, "color": "red"}
    # the host shows it again: it opens once more (the first phone stays paired)
    assert pair(client, "red") == token
    assert second.get(f"/pair/{token}").status_code == 303
    assert app.test_client().get(f"/pair/{token}").status_code == 403
    for phone in (first, second):
        assert phone.get("/api/players/red/tickets").status_code == 200


def test_an_opened_link_stays_opened_after_a_restart(tmp_path: Path) -> None:
    store = EventStore(tmp_path)
    svc = Service(store).start()
    try:
        app = create_app(svc, {"HOST_TOKEN": TOKEN})
        act(app.test_client(), {"type": "new_game", "players": PLAYERS})
        token = pair(app.test_client(), "blue")
        assert app.test_client().get(f"/pair/{token}").status_code == 303
    finally:
        svc.stop()
        store.close()
    store = EventStore(tmp_path)
    svc = Service(store).start()
    try:
        app = create_app(svc, {"HOST_TOKEN": TOKEN})
        assert app.test_client().get(f"/pair/{token}").status_code == 403
    finally:
        svc.stop()
        store.close()


def test_the_used_link_page_has_words_in_both_languages() -> None:
    import json

    root = Path(__file__).resolve().parents[2] / "web" / "static" / "i18n"
    for lang in ("en", "ja"):
        strings = json.loads((root / f"{lang}.json").read_text("utf-8"))
        assert strings["pair.used_title"] and strings["pair.used_text"]
    ja = json.loads((root / "ja.json").read_text("utf-8"))
    assert "ホスト" in ja["pair.used_text"]


def test_a_pairing_carries_on_only_where_the_same_name_sits_at_the_same_colour(
    app: Flask, client: FlaskClient
) -> None:
    three = [*PLAYERS, {"name": "Cy", "color": "green"}]
    act(client, {"type": "new_game", "players": three})
    tokens = {c: pair(client, c) for c in ("red", "blue", "green")}
    phones = {}
    for color, token in tokens.items():
        phones[color] = app.test_client()
        assert phones[color].get(f"/pair/{token}").status_code == 303
    act(client, {"type": "finish"})
    # red: the same name at the same colour (letter case and spaces aside); blue: another
    # player at blue; green: Cy now plays yellow
    nxt = [
        {"name": " aki ", "color": "red"},
        {"name": "Dee", "color": "blue"},
        {"name": "Cy", "color": "yellow"},
    ]
    st = act(client, {"type": "new_game", "players": nxt})
    assert [(p["color"], p["paired"]) for p in st["players"]] == [
        ("red", True),
        ("blue", False),
        ("yellow", False),
    ]
    assert phones["red"].get("/api/players/red/tickets").status_code == 200
    assert phones["red"].get("/api/session").json["color"] == "red"
    # Ben's phone does not read or act for Dee, who now plays blue
    r = phones["blue"].get("/api/players/blue/tickets")
    assert r.status_code in (401, 403) and r.json["code"] == "auth.stale_pairing"
    assert phones["blue"].get("/api/session").json["role"] == "guest"
    assert phones["green"].get("/api/session").json["role"] == "guest"
    assert app.test_client().get(f"/pair/{tokens['blue']}").status_code == 403
    # the same holds when a running game is replaced
    st = act(
        client,
        {
            "type": "new_game",
            "players": [{"name": "Aki", "color": "blue"}, nxt[0]],
            "replace": True,
        },
    )
    # Aki moved to blue: not paired; " aki " stays at red: still paired
    assert [p["paired"] for p in st["players"]] == [False, True]
    assert phones["red"].get("/api/session").json["color"] == "red"


def test_the_host_page_shows_which_phones_stay_paired(app: Flask, client: FlaskClient) -> None:
    host = app.test_client()
    host.get(f"/host/login?token={TOKEN}")
    page = host.get("/host").get_data(as_text=True)
    assert 'id="stay-paired"' in page and "/static/js/hostclaim.js" in page
    js = (Path(__file__).resolve().parents[2] / "web/static/js/hostclaim.js").read_text("utf-8")
    assert '"host.stay_paired"' in js and '"host.stay_paired_none"' in js
    assert PLAYER_COOKIE  # (the phones' cookie: see the test above)
