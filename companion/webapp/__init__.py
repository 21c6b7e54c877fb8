"""The web app: ``create_app(service, config)`` with the API and page blueprints.

No module-level state: the service and the configuration live on the app
(``app.extensions["companion.service"]`` and ``app.config``). See API.md beside this file.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException

import companion
from companion.service import Service, ServiceError
from companion.store import StoreError

from .limits import MAX_UPLOAD, Refusal, admit
from .ratelimit import RateLimiter, load_limits
from .security import (
    check_host_and_origin,
    check_rate,
    count_refusal,
    default_allowed_hosts,
    host_access,
)

log = logging.getLogger(__name__)

CSP = (
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
    "script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'self'"
)


WEB_SHARE = Path("share") / "companion" / "web"

# Flask's own refusals: status -> (sentence, stable code); others are "http.error"
HTTP_ERRORS: dict[int, tuple[str, str]] = {
    400: ("The request is not well formed.", "http.bad_request"),
    404: ("There is nothing at this address.", "http.not_found"),
    405: ("That method is not allowed here.", "http.method_not_allowed"),
    406: ("The server cannot answer in a form the client accepts.", "http.not_acceptable"),
    408: ("The request took too long.", "http.timeout"),
    411: ("The request needs a Content-Length.", "http.length_required"),
    413: ("The upload is too large (20 MB at most).", "http.too_large"),
    414: ("The address is too long.", "http.uri_too_long"),
    415: ("The body is not of a type this address takes.", "http.unsupported_media"),
    429: ("Too many requests; try again in a moment.", "http.too_many_requests"),
    431: ("The request's headers are too large.", "http.headers_too_large"),
}


def web_dirs() -> list[Path]:
    """Where the dashboard's files may be, in order: ``web/`` beside the package (a source
    checkout or an editable install), then ``share/companion/web`` under the installation's
    data prefix (a wheel installs them there: see pyproject.toml), for a normal or a user
    install."""
    import site
    import sys
    import sysconfig

    out = [Path(companion.__file__).resolve().parents[1] / "web"]
    bases = [sysconfig.get_path("data"), sys.prefix, sys.base_prefix]
    with contextlib.suppress(KeyError, ValueError):
        bases.append(sysconfig.get_path("data", sysconfig.get_preferred_scheme("user")))
    bases.append(site.getuserbase())
    for base in bases:
        if base:
            p = Path(base) / WEB_SHARE
            if p not in out:
                out.append(p)
    return out


def web_dir() -> Path:
    """The dashboard's files (the first of :func:`web_dirs` holding the templates; the first
    one when none does, and the pages then answer 500 with a logged reason)."""
    dirs = web_dirs()
    for d in dirs:
        if (d / "templates" / "base.html").is_file() and (d / "static").is_dir():
            return d
    log.error("the dashboard's files are missing: looked in %s", ", ".join(map(str, dirs)))
    return dirs[0]


def create_app(service: Service, config: Mapping[str, Any] | None = None) -> Flask:
    """Build the Flask app for one service.

    config keys: ``HOST_TOKEN`` (required), ``ALLOWED_HOSTS`` (extra Host names),
    ``PUBLIC_URL`` (base of pairing links, e.g. ``http://192.168.1.20:8080``),
    ``SSE_KEEPALIVE`` (seconds, 15), ``SSE_LIFETIME`` (seconds a stream stays open, 600),
    ``SSE_MAX`` (most simultaneous streams of players and guests, 40), ``SSE_PER_ADDRESS``
    (of them from one client address, 3), ``SSE_HOST`` (the host's own streams, apart, 4),
    ``WEB_DIR``, ``DOCTOR`` (the set-up check's
    ``companion.doctor.live.Devices``: the running devices; default: none of them),
    ``HOST_ACCESS`` (the server's
    :class:`companion.hosts.HostAccess`; default: one in memory for ``HOST_TOKEN``),
    ``RATE_LIMITS`` (a mapping like ``companion/data/rate_limits.json``, a
    :class:`~companion.webapp.ratelimit.RateLimiter`, or None for none; default: the data file),
    ``BLACKBOX`` (the running
    recorder, or None), ``REPORT_CONFIG`` (the configuration a report bundle shows).
    """
    cfg = dict(config or {})
    token = cfg.get("HOST_TOKEN")
    if not isinstance(token, str) or len(token) < 16:
        raise ValueError("create_app needs HOST_TOKEN: a string of at least 16 characters")
    web = Path(cfg.get("WEB_DIR") or web_dir())
    app = Flask(
        "companion.webapp",
        template_folder=str(web / "templates"),
        static_folder=str(web / "static"),
        static_url_path="/static",
    )
    app.config.update(
        HOST_TOKEN=token,
        CSRF_SECRET=hashlib.sha256(b"companion-csrf:" + token.encode()).digest(),
        ALLOWED_HOSTS=default_allowed_hosts(cfg.get("ALLOWED_HOSTS") or ()),
        PUBLIC_URL=(cfg.get("PUBLIC_URL") or "").rstrip("/"),
        SSE_KEEPALIVE=float(cfg.get("SSE_KEEPALIVE", 15.0)),
        SSE_LIFETIME=float(cfg.get("SSE_LIFETIME", 600.0)),
        SSE_MAX=int(cfg.get("SSE_MAX", 40)),
        SSE_PER_ADDRESS=int(cfg.get("SSE_PER_ADDRESS", 3)),
        SSE_HOST=int(cfg.get("SSE_HOST", 4)),
        MAX_CONTENT_LENGTH=MAX_UPLOAD,
        JSON_SORT_KEYS=False,
        BLACKBOX=cfg.get("BLACKBOX"),
        REPORT_CONFIG=cfg.get("REPORT_CONFIG"),
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.extensions["companion.service"] = service
    if cfg.get("DOCTOR") is not None:
        app.extensions["companion.doctor"] = cfg["DOCTOR"]

    from companion.hosts import HostAccess

    access = cfg.get("HOST_ACCESS")
    if access is None:
        access = HostAccess(token)
    elif not isinstance(access, HostAccess):
        raise ValueError("HOST_ACCESS must be a companion.hosts.HostAccess")
    app.extensions["companion.hosts"] = access
    rates = cfg.get("RATE_LIMITS", "default")
    if rates == "default":
        rates = RateLimiter()
    elif isinstance(rates, Mapping):
        limits, most = load_limits(rates)
        rates = RateLimiter(limits, max_addresses=most)
    app.extensions["companion.ratelimit"] = rates

    from .api import bp as api_bp
    from .blackbox_api import bp as blackbox_bp
    from .camera_api import bp as camera_bp
    from .clash_api import bp as clash_bp  # the host's ticket clashes (API.md)
    from .doctor_api import bp as doctor_bp
    from .hostapi import bp as host_bp
    from .network_api import register as register_network
    from .pages import bp as pages_bp

    app.register_blueprint(api_bp)
    app.register_blueprint(camera_bp)
    app.register_blueprint(doctor_bp)
    app.register_blueprint(host_bp)
    app.register_blueprint(blackbox_bp)
    app.register_blueprint(pages_bp)
    register_network(app, cfg)  # the box's network (NETWORK, NETWORK_STATE_DIR, NETWORK_DELAY)
    app.before_request(check_host_and_origin)
    app.before_request(check_rate)
    app.before_request(check_body)
    app.register_blueprint(clash_bp)
    app.after_request(count_refusal)

    @app.after_request
    def headers(resp: Response) -> Response:
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("Referrer-Policy", "no-referrer")
        resp.headers.setdefault("Content-Security-Policy", CSP)
        if request.path.startswith("/api/"):
            resp.headers.setdefault("Cache-Control", "no-store")
        return resp

    def wants_json() -> bool:
        return request.path.startswith("/api/") or request.accept_mimetypes.best == (
            "application/json"
        )

    @app.errorhandler(ServiceError)
    def service_error(exc: ServiceError) -> Any:
        if wants_json():
            return jsonify(exc.to_json()), exc.status
        from .pages import message_page

        return message_page(exc.message, exc.status)

    @app.errorhandler(Refusal)
    def refused(exc: Refusal) -> Any:
        if wants_json():
            return jsonify(exc.to_json()), exc.status
        from .pages import message_page

        return message_page(exc.message, exc.status)

    @app.errorhandler(StoreError)
    def store_error(exc: StoreError) -> Any:
        log.error("event log: %s", exc)
        body = {
            "error": "The game log cannot be written; nothing was changed.",
            "code": "store.unwritable",
            "params": {},
        }
        return jsonify(body), 503

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Any:
        status = exc.code or 500
        text, code = HTTP_ERRORS.get(status, (exc.description or exc.name, "http.error"))
        params: dict[str, Any] = {"status": status}
        if status == 405:
            text = f"{request.method} is not allowed here."
            params["method"] = request.method
        if wants_json():
            return jsonify({"error": text, "code": code, "params": params}), status
        from .pages import message_page

        return message_page(text, status)

    @app.errorhandler(Exception)
    def unexpected(exc: Exception) -> Any:
        log.exception("unexpected error on %s %s", request.method, request.path)
        body = {
            "error": "Something went wrong inside the companion; see its log.",
            "code": "service.internal",
            "params": {},
        }
        return jsonify(body), 500

    return app


def check_body() -> None:
    """Refuse a body from the request's headers, before reading it (see limits.admit; the
    HTTP server has done the same before the app was called)."""
    te = request.headers.get("Transfer-Encoding", "").lower()
    admit(
        request.method,
        request.path,
        request.content_length,
        "chunked" in te,
        dict(request.headers.items()),
        host_access(),
    )


__all__ = ["create_app", "web_dir"]
