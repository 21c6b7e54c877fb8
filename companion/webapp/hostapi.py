"""Becoming host and the host's devices: the claim window, host sessions, rotating the token.

See API.md, "Becoming host". The sessions, the token and the window live in the server's
:class:`companion.hosts.HostAccess` (``app.extensions["companion.hosts"]``).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, redirect, request
from werkzeug.wrappers import Response as BaseResponse

from companion.service import BadRequest, Forbidden, Unavailable

from .pages import page, set_cookie
from .security import HOST_COOKIE, csrf_token, host_access, require, resolve_identity

bp = Blueprint("host", __name__)


def _empty_body() -> None:
    """The claim's body: nothing, or one JSON object (its fields are not read)."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        return
    import json

    try:
        data: Any = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        data = None
    if not isinstance(data, dict):
        raise BadRequest("Send no body or {}.", code="request.not_json")


def _window() -> dict[str, Any]:
    left = host_access().window_left()
    return {"open": left > 0, "seconds_left": round(left)}


@bp.get("/api/host/claim")
def claim_status() -> Response:
    """Whether a claim window is open now (anyone may ask: the LED shows it too)."""
    access = host_access()
    return jsonify({**_window(), "has_host": access.has_host()})


@bp.post("/api/host/claim")
def claim() -> Response:
    """Inside an open window, the first phone that asks gets the host session."""
    _empty_body()
    ident = resolve_identity()
    secret = current_app.config["CSRF_SECRET"]
    if ident.role == "host":  # (this device is host already: the window stays open)
        csrf = csrf_token(secret, ident.token) if ident.via == "cookie" and ident.token else None
        return jsonify({"role": "host", "csrf_token": csrf, "claimed": False})
    value = host_access().claim()
    if value is None:
        raise Forbidden(
            "No host claim window is open: press the box's confirm button (or ask the host), "
            "then try again within a minute.",
            code="host.claim_closed",
        )
    resp = jsonify({"role": "host", "csrf_token": csrf_token(secret, value), "claimed": True})
    set_cookie(resp, HOST_COOKIE, value)
    return resp


@bp.post("/api/host/claim/open")
@require("host")
def claim_open() -> Response:
    """The host lets another device become host: a window opens (60 s)."""
    host_access().open_window("host")
    return jsonify(_window())


@bp.get("/api/host/sessions")
@require("host")
def sessions() -> Response:
    access = host_access()
    current = request.cookies.get(HOST_COOKIE)
    return jsonify({"sessions": access.sessions(current), "claim": _window()})


@bp.post("/api/host/rotate")
@require("host")
def rotate() -> Response:
    """A new host token: every host session ends (this one too), the old host link and Bearer
    token stop working; a host link from the terminal or a claim window is needed again."""
    access = host_access()
    ended = len(access.sessions())
    try:
        access.rotate()
    except OSError as exc:  # (a full disk: the old token and its sessions stay)
        raise Unavailable(
            f"The new host token could not be written ({exc.strerror or exc}); nothing changed.",
            code="host.rotate_failed",
        ) from None
    resp = jsonify({"rotated": True, "ended": ended})
    resp.delete_cookie(HOST_COOKIE, path="/", httponly=True, samesite="Strict")
    return resp


@bp.get("/host/claim")
def claim_page() -> Any:
    """The page a phone opens to become host (a button that asks, and what to press first)."""
    if resolve_identity().role == "host":
        return redirect("/host", code=303)
    out: BaseResponse | str = page("claim.html")
    return out
