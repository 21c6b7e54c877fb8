"""Who is asking, and may they: host/player tokens, host sessions, cookies, CSRF, Host and Origin
checks, and the per-address limit on refusals (429 ``rate.limited``)."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import wraps
from typing import Any, TypeVar

from flask import Response, current_app, g, jsonify, request

from companion.hosts import HostAccess
from companion.service import Actor, Forbidden, Service, ServiceError

from .ratelimit import RateLimiter

HOST_COOKIE = "companion_host"
PLAYER_COOKIE = "companion_player"
CSRF_HEADER = "X-CSRF-Token"
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})

F = TypeVar("F", bound=Callable[..., Any])


class Unauthorized(ServiceError, status=401, code="auth.sign_in"): ...


class BadHost(ServiceError, status=400, code="request.bad_host"): ...


class RateLimited(ServiceError):
    status = 429
    default_code = "rate.limited"


@dataclass(frozen=True)
class Identity:
    """The caller: ``role`` host | player | guest; how it proved it (bearer or cookie)."""

    role: str
    color: str | None = None
    token: str | None = None  # the credential presented (a token or a session cookie's value)
    via: str | None = None  # "bearer" | "cookie" | None
    problem: str | None = None  # why a presented credential was refused
    pairing: str | None = None  # a player's pairing token (the server's to know, never sent)

    @property
    def actor(self) -> Actor:
        if self.role == "host":
            return Actor.host()
        if self.role == "player" and self.color:
            return Actor.player(self.color)
        raise Unauthorized("Sign in first: open the host link or pair this phone.")


def default_allowed_hosts(extra: Iterable[str] = ()) -> set[str]:
    """Names (besides IP literals) the Host header may carry."""
    names = {"localhost"}
    try:
        name = socket.gethostname().lower()
    except OSError:
        name = ""
    if name:
        names.update({name, f"{name}.local", name.split(".")[0]})
    names.update(h.lower() for h in extra if h)
    return names


def split_host(value: str) -> str:
    """The host part of a Host header value (without the port)."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        return value[1:end] if end > 0 else value
    if value.count(":") == 1:
        return value.split(":", 1)[0]
    return value


def host_allowed(value: str, allowed: set[str]) -> bool:
    if not value or any(c in value for c in "/\\@ \t"):
        return False
    host = split_host(value)
    if not host:
        return False
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        pass
    return host in allowed


def csrf_token(secret: bytes, credential: str) -> str:
    return hmac.new(secret, b"csrf:" + credential.encode(), hashlib.sha256).hexdigest()[:40]


def _service() -> Service:
    svc: Service = current_app.extensions["companion.service"]
    return svc


def host_access() -> HostAccess:
    access: HostAccess = current_app.extensions["companion.hosts"]
    return access


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


def resolve_identity() -> Identity:
    """Look at the Authorization header, then the cookies (cached on ``g``)."""
    cached = g.get("companion_identity")
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    ident = _resolve()
    g.companion_identity = ident
    return ident


def _resolve() -> Identity:
    svc = _service()
    auth = request.headers.get("Authorization")
    if auth is not None:
        scheme, _, token = auth.strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            return Identity("guest", problem="bad-authorization")
        if host_access().token_ok(token):
            return Identity("host", token=token, via="bearer")
        color = svc.player_of_token(token)
        # a pairing link's token works until a phone opens the link: that phone then has its
        # own session (cookie), and the token (in a URL, a QR code, a browser's history) no
        # longer signs anyone in
        if color is not None and not svc.link_opened(token):
            return Identity("player", color=color, token=token, via="bearer", pairing=token)
        return Identity("guest", problem="wrong-token")
    host_cookie = request.cookies.get(HOST_COOKIE)
    player_cookie = request.cookies.get(PLAYER_COOKIE)
    found = svc.player_of_session(player_cookie) if player_cookie else None
    color, pairing = found if found is not None else (None, None)
    if host_cookie and host_access().session_ok(host_cookie):
        return Identity("host", color=color, token=host_cookie, via="cookie", pairing=pairing)
    if color is not None and player_cookie:
        return Identity("player", color=color, token=player_cookie, via="cookie", pairing=pairing)
    if host_cookie and not player_cookie:
        return Identity("guest", problem="stale-host")
    if host_cookie or player_cookie:
        return Identity("guest", problem="stale-cookie")
    return Identity("guest")


def session_csrf(ident: Identity) -> str | None:
    if ident.via != "cookie" or ident.token is None:
        return None
    return csrf_token(current_app.config["CSRF_SECRET"], ident.token)


def check_csrf(ident: Identity) -> None:
    if request.method not in UNSAFE_METHODS or ident.via != "cookie":
        return
    sent = request.headers.get(CSRF_HEADER, "")
    expected = session_csrf(ident) or ""
    if not sent or not _same(sent, expected):
        raise Forbidden(
            "The request has no valid CSRF token: reload the page and try again.",
            rule="csrf",
            code="auth.csrf",
        )


def _refuse(ident: Identity) -> ServiceError:
    if ident.problem == "bad-authorization":
        return Unauthorized(
            'Send the token as "Authorization: Bearer <token>".', code="auth.bad_authorization"
        )
    if ident.problem == "wrong-token":
        return Forbidden("That token is not valid for this game.", code="auth.wrong_token")
    if ident.problem == "stale-host":
        return Forbidden(
            "This device is no longer signed in as host (the host token was changed); become "
            "host again at the box.",
            code="host.signed_out",
        )
    if ident.problem == "stale-cookie":
        return Forbidden(
            "This browser's pairing is not valid for the current game; pair again.",
            code="auth.stale_pairing",
        )
    return Unauthorized("Sign in first: open the host link or pair this phone.")


def require(role: str) -> Callable[[F], F]:
    """``host``: host only; ``player``: host or any paired player; ``color``: host or the
    player whose colour is the ``color`` URL argument. Checks CSRF for cookie-authenticated
    unsafe requests."""

    def deco(fn: F) -> F:
        @wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            ident = resolve_identity()
            if ident.role == "guest":
                raise _refuse(ident)
            if role == "host" and ident.role != "host":
                raise Forbidden("Only the host can do that.", code="auth.host_only")
            if role == "color" and ident.role != "host":
                wanted = str(kwargs.get("color", "")).lower()
                if ident.color != wanted:
                    raise Forbidden(
                        f"This phone is paired with {ident.color}, not {wanted}.",
                        code="auth.other_color",
                        params={"color": ident.color, "wanted": wanted},
                    )
            check_csrf(ident)
            return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return deco


def check_host_and_origin() -> None:
    """Refuse requests for another Host (DNS rebinding) and cross-site Origins."""
    host = request.headers.get("Host", "")
    if not host_allowed(host, current_app.config["ALLOWED_HOSTS"]):
        raise BadHost(
            f"This server does not answer for the host {host!r}.",
            rule="bad-host",
            code="request.bad_host",
            params={"host": host},
        )
    origin = request.headers.get("Origin")
    if origin is not None:
        ok = origin.lower() in (f"http://{host.lower()}", f"https://{host.lower()}")
        if not ok:
            raise Forbidden(
                f"Requests from {origin} are not accepted here.",
                rule="bad-origin",
                code="request.bad_origin",
                params={"origin": origin},
            )


# --- per-address limits on refusals -------------------------------------------------------------

SIGN_IN_PATHS = ("/pair/", "/host/login", "/api/host/claim")
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# reads that need a credential (a player's tickets, the host's things): a limited address reads
# them only with a working one
PRIVATE_READS = ("/api/players/", "/api/host/", "/api/photo/", "/api/camera/", "/api/doctor")


def _limiter() -> RateLimiter | None:
    limiter: RateLimiter | None = current_app.extensions.get("companion.ratelimit")
    return limiter


def _signs_in() -> bool:
    return request.path.startswith(SIGN_IN_PATHS)


def check_rate() -> Response | None:
    """429 before any work for an address refused too often, unless the caller is the host or
    only reads: the public pages and state (whatever cookie it has), a signed-in player's own
    things. See companion/webapp/ratelimit.py."""
    limiter = _limiter()
    if limiter is None:
        return None
    wait = limiter.retry_after(request.remote_addr or "")
    if wait <= 0:
        return None
    ident = resolve_identity()
    if ident.role == "host":
        return None
    reading = (
        request.method in SAFE_METHODS
        and not _signs_in()
        and "Authorization" not in request.headers
    )
    if reading and (ident.role == "player" or not request.path.startswith(PRIVATE_READS)):
        return None
    exc = RateLimited(
        f"Too many refused requests from this address; try again in {wait} s.",
        params={"retry_after": wait},
    )
    resp = jsonify(exc.to_json())
    resp.status_code = 429
    resp.headers["Retry-After"] = str(wait)
    return resp


def count_refusal(resp: Response) -> Response:
    """A refused answer is one strike for the caller's address (never the host's)."""
    limiter = _limiter()
    status = resp.status_code
    if limiter is None or status < 400 or status in (429, 503) or status >= 500:
        return resp
    if status in (401, 403):
        kind = "auth"
    elif request.method not in SAFE_METHODS and status in (400, 404, 409):
        kind = "refused"
    else:
        return resp
    try:
        if resolve_identity().role == "host":
            return resp
    except Exception:  # (a request too broken to tell who sent it still counts)
        pass
    limiter.strike(request.remote_addr or "", kind)
    return resp
