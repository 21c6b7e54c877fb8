"""HTML pages: the dashboard's templates (web/templates), login and pairing links."""

from __future__ import annotations

import secrets
from html import escape
from typing import Any

from flask import Blueprint, Response, current_app, redirect, render_template
from jinja2 import TemplateNotFound
from werkzeug.wrappers import Response as BaseResponse

from companion.service import Service
from companion.service.auth import player_session_value

from .security import (
    HOST_COOKIE,
    PLAYER_COOKIE,
    Identity,
    host_access,
    resolve_identity,
    session_csrf,
)

bp = Blueprint("pages", __name__)

COOKIE_AGE = 30 * 24 * 3600


def service() -> Service:
    svc: Service = current_app.extensions["companion.service"]
    return svc


def message_page(text: str, status: int = 200) -> Response:
    body = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Companion</title></head><body><p>{escape(text)}</p>"
        '<p><a href="/">Back to the table</a></p></body></html>'
    )
    return Response(body, status=status, mimetype="text/html")


def page(template: str, ident: Identity | None = None) -> Response | str:
    ident = ident or resolve_identity()
    context: dict[str, Any] = {
        "role": ident.role,
        "color": ident.color,
        "csrf_token": session_csrf(ident) or "",
        "game_id": service().state()["game_id"],
    }
    if ident.role == "guest":  # a "become host" tab: a box without host, or a claim window open
        access = host_access()
        context["claimable"] = not access.has_host() or access.window_left() > 0
    try:
        return render_template(template, **context)
    except TemplateNotFound:
        return message_page(f"The dashboard page {template} is not installed.", 503)


def set_cookie(resp: BaseResponse, name: str, value: str) -> None:
    resp.set_cookie(
        name, value, max_age=COOKIE_AGE, path="/", httponly=True, samesite="Strict", secure=False
    )


@bp.get("/")
def index() -> Response | str:
    return page("index.html")


@bp.get("/history")
def history() -> Response | str:
    return page("history.html")


def host_page(template: str, otherwise: str) -> Any:
    """The host's page ``template``; anyone else is sent on to ``otherwise``."""
    ident = resolve_identity()
    if ident.role != "host":
        return redirect(otherwise, code=303)
    return page(template, ident)


@bp.get("/host")
def host() -> Any:
    return host_page("host.html", "/host/claim")


@bp.get("/photo")
def photo() -> Any:
    return host_page("photo.html", "/")


def pairing_gone() -> Response:
    """The page of a phone whose pairing is gone: ask the host for a new code (in its language)."""
    ident = resolve_identity()
    out = page("gone.html", Identity("guest") if ident.role == "guest" else ident)
    return out if isinstance(out, Response) else Response(out, 403, mimetype="text/html")


@bp.get("/me")
def me() -> Any:
    ident = resolve_identity()
    if ident.color is None:
        if ident.problem == "stale-cookie":
            return pairing_gone()
        return redirect("/", code=303)
    if ident.pairing:
        service().phone_seen(ident.pairing)
    return page("player.html", ident)


@bp.get("/host/login")
def host_login() -> BaseResponse:
    from flask import request

    token = request.args.get("token", "")
    access = host_access()
    if not token or not access.token_ok(token):
        # a page in the phone's language (the plain sentence when the template is missing)
        out = page("host_link.html", Identity("guest"))
        if isinstance(out, Response) and out.status_code != 200:
            return message_page("That host link is not valid.", 403)
        return out if isinstance(out, Response) else Response(out, 403, mimetype="text/html")
    resp = redirect("/host", code=303)
    set_cookie(resp, HOST_COOKIE, access.new_session("link"))
    return resp


def pairing_used() -> Response:
    """The page of a second device opening a pairing link: ask the host (who can show it
    again)."""
    ident = resolve_identity()
    out = page("used.html", Identity("guest") if ident.role == "guest" else ident)
    if isinstance(out, Response):
        out.status_code = 403
        return out
    return Response(out, 403, mimetype="text/html")


@bp.get("/pair/<token>")
def pair(token: str) -> BaseResponse:
    svc = service()
    if svc.player_of_token(token) is None:
        return pairing_gone()
    ident = resolve_identity()
    if ident.via == "cookie" and ident.pairing == token:
        return redirect("/me", code=303)  # this phone opened it before: nothing changes
    if not svc.open_link(token):  # a link opens once (until the host shows it again)
        return pairing_used()
    svc.phone_seen(token)
    resp = redirect("/me", code=303)
    # the phone's own session, not the link's token: from now on the token signs no one in
    set_cookie(resp, PLAYER_COOKIE, player_session_value(token, secrets.token_urlsafe(18)))
    return resp
