"""Becoming host without a terminal (issue 21): a fresh state directory has no host; the claim
window (opened by the box's confirm button, the host menu, the host's page or `companion host
open-claim`) lets the first phone that asks become host; the window closes after its time.
The window's clock is injected: nothing here sleeps through a window."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.hosts import HostAccess
from companion.service import Service
from companion.statedir import TOKEN_FILE, read_or_create_token
from companion.webapp import create_app
from companion.webapp.security import HOST_COOKIE
from tests.waiting import Clock

from .conftest import TOKEN

PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def access(tmp_path: Path, clock: Clock) -> HostAccess:
    (tmp_path / "state").mkdir()
    return HostAccess(TOKEN, tmp_path / "state", clock=clock)


@pytest.fixture
def claim_app(service: Service, access: HostAccess) -> Flask:
    return create_app(service, {"HOST_TOKEN": TOKEN, "HOST_ACCESS": access})


def claim(client: FlaskClient, **kw: Any) -> Any:
    return client.post("/api/host/claim", json={}, **kw)


def cookie_of(resp: Any) -> str:
    (header,) = [h for h in resp.headers.getlist("Set-Cookie") if h.startswith(HOST_COOKIE)]
    return str(header.split(";", 1)[0].split("=", 1)[1])


def test_a_fresh_state_directory_has_no_host(tmp_path: Path, claim_app: Flask) -> None:
    state = tmp_path / "fresh"
    token, created = read_or_create_token(state)
    assert created and (state / TOKEN_FILE).stat().st_mode & 0o777 == 0o600
    assert not HostAccess(token, state).has_host()
    status = claim_app.test_client().get("/api/host/claim").json
    assert status == {"open": False, "seconds_left": 0, "has_host": False}
    assert claim_app.test_client().get("/api/session").json["role"] == "guest"
    # the table view offers a guest the way to become host (no host yet)
    assert 'href="/host/claim"' in claim_app.test_client().get("/").get_data(as_text=True)


def test_a_claim_outside_a_window_is_refused_with_a_code(claim_app: Flask) -> None:
    r = claim(claim_app.test_client())
    assert r.status_code == 403
    assert r.json["code"] == "host.claim_closed" and r.json["error"]
    assert "Set-Cookie" not in r.headers


def test_inside_the_window_the_first_claim_is_host_and_the_second_is_refused(
    claim_app: Flask, access: HostAccess
) -> None:
    access.open_window("button")
    first, second = claim_app.test_client(), claim_app.test_client()
    r = claim(first)
    assert r.status_code == 200 and r.json["role"] == "host" and r.json["claimed"]
    value = cookie_of(r)
    assert TOKEN not in value and value.startswith("h1.")  # a session, not the host token
    assert "HttpOnly" in r.headers["Set-Cookie"] and "SameSite=Strict" in r.headers["Set-Cookie"]
    session = first.get("/api/session").json
    assert session["role"] == "host" and session["csrf_token"] == r.json["csrf_token"]
    assert first.get("/host").status_code == 200
    r2 = claim(second)
    assert r2.status_code == 403 and r2.json["code"] == "host.claim_closed"
    assert second.get("/api/session").json["role"] == "guest"
    assert access.has_host() and len(access.sessions()) == 1
    assert 'href="/host/claim"' not in second.get("/").get_data(as_text=True)  # a host now
    # the host acts with its session (and the CSRF token the claim answered)
    act = first.post(
        "/api/actions",
        json={"type": "new_game", "players": PLAYERS},
        headers={"X-CSRF-Token": r.json["csrf_token"]},
    )
    assert act.status_code == 200


def test_the_window_closes_after_its_time(
    claim_app: Flask, access: HostAccess, clock: Clock
) -> None:
    access.open_window("command", 60)
    clock.now += 59.5
    assert claim_app.test_client().get("/api/host/claim").json["open"] is True
    clock.now += 0.5
    assert claim_app.test_client().get("/api/host/claim").json["open"] is False
    r = claim(claim_app.test_client())
    assert r.status_code == 403 and r.json["code"] == "host.claim_closed"
    assert not access.has_host()
    # a new window, claimed before its end
    access.open_window("button", 60)
    clock.now += 59.9
    assert claim(claim_app.test_client()).status_code == 200


def test_a_claim_body_other_than_an_object_is_400(claim_app: Flask, access: HostAccess) -> None:
    access.open_window("button")
    r = claim_app.test_client().post(
        "/api/host/claim", data="[1]", headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 400 and r.json["code"] == "request.not_json"
    assert access.window_left() > 0  # a bad request takes nothing from the window
    assert claim_app.test_client().post("/api/host/claim").status_code == 200  # no body: fine


def test_the_host_adds_another_device_and_sessions_persist(
    claim_app: Flask, access: HostAccess, tmp_path: Path, clock: Clock
) -> None:
    host = claim_app.test_client()
    r = host.get(f"/host/login?token={TOKEN}")
    assert r.status_code == 303 and TOKEN not in r.headers["Set-Cookie"]
    csrf = host.get("/api/session").json["csrf_token"]
    guest = claim_app.test_client()
    assert guest.post("/api/host/claim/open").status_code == 401  # only the host asks
    assert host.post("/api/host/claim/open", headers={"X-CSRF-Token": csrf}).json["open"]
    assert claim(guest).status_code == 200
    listed = host.get("/api/host/sessions").json
    assert [s["via"] for s in listed["sessions"]] == ["link", "claim"]
    assert [s["current"] for s in listed["sessions"]] == [True, False]
    assert listed["claim"] == {"open": False, "seconds_left": 0}
    # a restart (a new HostAccess on the same directory) keeps both devices signed in
    again = HostAccess(TOKEN, access.state_dir, clock=clock)
    assert again.has_host() and len(again.sessions()) == 2
    assert again.session_ok(host.get_cookie(HOST_COOKIE).value)  # type: ignore[union-attr]


def test_rotating_the_token_ends_every_host_session(claim_app: Flask, access: HostAccess) -> None:
    assert access.state_dir is not None
    read_or_create_token(access.state_dir)  # (the server's token file)
    old_token = access.token
    host = claim_app.test_client()
    host.get(f"/host/login?token={old_token}")
    other = claim_app.test_client()
    access.open_window("host")
    assert claim(other).status_code == 200
    csrf = host.get("/api/session").json["csrf_token"]
    r = host.post("/api/host/rotate", headers={"X-CSRF-Token": csrf})
    assert r.status_code == 200 and r.json == {"rotated": True, "ended": 2}
    assert access.token != old_token
    assert (access.state_dir / TOKEN_FILE).read_text().strip() == access.token
    assert not access.has_host()
    for c in (host, other):
        s = c.get("/api/session").json
        assert s["role"] == "guest"
    assert other.get("/api/host/sessions").json["code"] == "host.signed_out"
    bearer = {"Authorization": f"Bearer {old_token}"}
    assert claim_app.test_client().get("/api/host/sessions", headers=bearer).status_code == 403
    assert claim_app.test_client().get(f"/host/login?token={old_token}").status_code == 403
    new = {"Authorization": f"Bearer {access.token}"}
    assert claim_app.test_client().get("/api/host/sessions", headers=new).json["sessions"] == []


# --- the referee box: the confirm button and the host menu -----------------------------------


class FakeService:
    """What TableControls asks of the service: nothing is ever there to confirm."""

    def __init__(self, state: dict[str, Any] | None = None) -> None:
        self.listeners: list[Any] = []
        self.notices: list[tuple[str, str]] = []
        self._state = state or {"seq": 0, "phase": "none", "pending": {}}
        self.observed: list[dict[str, Any]] = []

    def state(self) -> dict[str, Any]:
        return self._state

    def observe(self, obs: dict[str, Any], actor: Any) -> dict[str, Any]:
        self.observed.append(obs)
        return {"result": "ignored", "text": "Nothing to confirm."}

    def notice(
        self, text: str, level: str = "info", *a: Any, code: str = "message", **k: Any
    ) -> None:
        self.notices.append((code, text))


@pytest.fixture
def box(access: HostAccess) -> Iterator[tuple[Any, Any, FakeService]]:
    from companion.controls import FakeControls
    from companion.controls.table import TableControls

    svc = FakeService()
    table = TableControls(svc, claims=access)
    panel = FakeControls(callback=table.on_button)
    table.start(panel)
    yield table, panel, svc
    table.stop()


def test_the_confirm_button_opens_the_window_on_a_box_without_host(
    box: tuple[Any, Any, FakeService], access: HostAccess
) -> None:
    table, panel, svc = box
    panel.press("confirm")
    assert table.drain()
    assert access.window_left() == 60
    assert panel.status == "host_claim"  # the LED shows the window
    assert ("host.claim_open", svc.notices[-1][1]) == svc.notices[-1]
    assert access.claim() is not None  # a phone claims it: the window closes, the LED too
    assert table.drain() and panel.status == "ready"


def test_a_box_with_a_host_opens_no_window_on_confirm_but_the_host_menu_does(
    box: tuple[Any, Any, FakeService], access: HostAccess
) -> None:
    table, panel, svc = box
    access.new_session("link")
    panel.press("confirm")
    assert table.drain()
    assert access.window_left() == 0 and panel.status == "ready"
    assert svc.notices[-1][0] == "message"  # "Nothing to confirm."
    panel.hold("undo")  # the host menu; its confirm (no camera question open): a window
    panel.press("confirm")
    assert table.drain()
    assert access.window_left() == 60 and panel.status == "host_claim"


def test_the_command_opens_the_window_through_the_claim_file(
    access: HostAccess, clock: Clock
) -> None:
    import time

    from companion.statedir import CLAIM_FILE, request_claim

    assert access.state_dir is not None
    request_claim(access.state_dir, 30, time.time())
    heard: list[tuple[str, float]] = []
    access.listeners.append(lambda kind, s: heard.append((kind, s)))
    assert 29 < access.window_left() <= 30
    assert not (access.state_dir / CLAIM_FILE).exists()  # taken
    assert heard and heard[0][0] == "claim_open"
    clock.now += 31
    assert access.window_left() == 0 and heard[-1] == ("claim_closed", 0.0)
    # stale, damaged or linked files open nothing and are removed
    request_claim(access.state_dir, 30, time.time() - 40)
    assert access.window_left() == 0 and not (access.state_dir / CLAIM_FILE).exists()
    (access.state_dir / CLAIM_FILE).write_text("not json")
    assert access.window_left() == 0 and not (access.state_dir / CLAIM_FILE).exists()
    target = access.state_dir / "elsewhere"
    request_claim(access.state_dir, 30, time.time())
    (access.state_dir / CLAIM_FILE).rename(target)
    (access.state_dir / CLAIM_FILE).symlink_to(target)
    assert access.window_left() == 0 and target.exists()


def test_a_rotation_that_cannot_be_written_changes_nothing(
    claim_app: Flask, access: HostAccess, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    from companion import statedir

    host = claim_app.test_client()
    host.get(f"/host/login?token={TOKEN}")
    csrf = host.get("/api/session").json["csrf_token"]

    def full(path: Path, data: bytes, mode: int = 0o600) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(statedir, "write_atomic", full)
    r = host.post("/api/host/rotate", headers={"X-CSRF-Token": csrf})
    assert r.status_code == 503 and r.json["code"] == "host.rotate_failed"
    assert access.token == TOKEN and host.get("/api/session").json["role"] == "host"
