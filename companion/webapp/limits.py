"""What a request may carry, decided from its headers before its body is read.

The same rules run twice: in the HTTP server's parser (companion.webapp.server), as soon as a
request's headers are in, so that a refused body is never read; and in the Flask app, for any
other server (and the test client). Uploaded images are sized from their own header before
anything decodes them (:func:`image_size`).
"""

from __future__ import annotations

import hmac
import ipaddress
import struct
from collections.abc import Mapping
from typing import Any, Protocol

from werkzeug.http import parse_cookie

from companion.service.auth import host_session_nonce

MAX_UPLOAD = 20 * 1024 * 1024  # a photo of the board
MAX_BODY = 64 * 1024  # anything else: one JSON action or observation
MAX_PIXELS = 50_000_000  # a photo larger than this is refused before it is decoded
PHOTO_PATH = "/api/photo"
CLAIM_PATH = "/api/host/claim"  # asked by a phone with no credential yet (a body of "{}" at most)
MAX_CLAIM_BODY = 64
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
HOST_COOKIE = "companion_host"
PLAYER_COOKIE = "companion_player"


# a refusal's rule -> its stable code (the words: notice.<code> in web/static/i18n/*.json)
REFUSAL_CODES = {
    "too-large": "limit.too_large",
    "too-many-pixels": "limit.too_many_pixels",
    "not-an-image": "limit.not_an_image",
    "sign-in": "auth.sign_in",
    "host-only": "auth.host_only",
    "rate-limited": "rate.limited",
}


class Refusal(Exception):
    """A request refused from its headers: HTTP ``status``, one sentence, a ``rule``, and the
    stable ``code`` and ``params`` of the answer ``{"error", "code", "params", "rule"}``."""

    def __init__(
        self, status: int, message: str, rule: str, params: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.rule = rule
        self.code = REFUSAL_CODES.get(rule, "request.refused")
        self.params: dict[str, Any] = dict(params or {})

    def to_json(self) -> dict[str, Any]:
        return {"error": self.message, "code": self.code, "params": self.params, "rule": self.rule}


REFUSALS = {
    "too-large-action": (413, "The request body is too large for an action.", "too-large"),
    "too-large-upload": (413, "The upload is too large (20 MB at most).", "too-large"),
    "sign-in": (401, "Sign in first: open the host link or pair this phone.", "sign-in"),
    "host-only": (403, "Only the host can do that.", "host-only"),
}


def refusal(name: str) -> Refusal:
    return Refusal(*REFUSALS[name])


def body_limit(method: str, path: str) -> int:
    """The most bytes a body may have on this method and path."""
    if method.upper() == "POST" and path.rstrip("/") == PHOTO_PATH:
        return MAX_UPLOAD
    return MAX_BODY


def _bearer(headers: Mapping[str, str]) -> str | None:
    auth = headers.get("authorization")
    if auth is None:
        return None
    scheme, _, token = auth.strip().partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


class HostCheck(Protocol):
    """What the gate asks of the server's host access (companion.hosts.HostAccess)."""

    def token_ok(self, bearer: str | None) -> bool: ...

    def session_ok(self, value: str | None) -> bool: ...


def _host_bearer(host: str | HostCheck, bearer: str) -> bool:
    if isinstance(host, str):
        return _same(bearer, host)
    return host.token_ok(bearer)


def _host_cookie(host: str | HostCheck, value: str | None) -> bool:
    if not value:
        return False
    if isinstance(host, str):
        return host_session_nonce(host, value) is not None
    return host.session_ok(value)


def host_credential(headers: Mapping[str, str], host_token: str | HostCheck) -> bool:
    """The request carries the host's token or a live host session (headers: lower-case)."""
    bearer = _bearer(headers)
    if bearer:
        return _host_bearer(host_token, bearer)
    cookie = parse_cookie(headers.get("cookie", "")).get(HOST_COOKIE)
    return _host_cookie(host_token, cookie)


def admit(
    method: str,
    path: str,
    content_length: int | None,
    chunked: bool,
    headers: Mapping[str, str],
    host_token: str | HostCheck,
) -> int:
    """The body limit of a request whose headers are in, or :class:`Refusal`.

    ``headers``: names in any case. A body on an unsafe method needs a credential of some kind
    (every such endpoint needs one but the host claim, whose body is "{}" at most; the app
    checks it fully); a photo needs the host's. A declared length over the limit is refused at
    once; a chunked body is cut at the limit. ``host_token``: the host token, or the server's
    host access (its sessions; the token may change).
    """
    if method.upper() == "POST" and path.rstrip("/") == CLAIM_PATH:
        if content_length is not None and content_length > MAX_CLAIM_BODY:
            raise refusal("too-large-action")
        return MAX_CLAIM_BODY
    limit = body_limit(method, path)
    headers = {k.lower(): v for k, v in headers.items()}
    has_body = chunked or (content_length or 0) > 0
    if content_length is not None and content_length > limit:
        raise refusal("too-large-upload" if limit == MAX_UPLOAD else "too-large-action")
    if not has_body or method.upper() not in UNSAFE_METHODS:
        return limit
    bearer = _bearer(headers)
    cookies = parse_cookie(headers.get("cookie", ""))
    host_cookie = cookies.get(HOST_COOKIE)
    if limit == MAX_UPLOAD:
        if bearer is not None:
            if not bearer or not _host_bearer(host_token, bearer):
                raise refusal("host-only" if bearer else "sign-in")
            return limit
        if _host_cookie(host_token, host_cookie):
            return limit
        raise refusal("host-only" if cookies.get(PLAYER_COOKIE) else "sign-in")
    if bearer or host_cookie or cookies.get(PLAYER_COOKIE):
        return limit
    raise refusal("sign-in")


# --- client addresses -----------------------------------------------------------------------


def address_key(addr: object) -> str:
    """The client address that the per-address caps count by: an IPv4 address as it is (an
    IPv4-mapped IPv6 address as its IPv4), an IPv6 address by its /64 (a device picks new
    addresses inside its /64 at will), anything else (a Unix socket) as ``"local"``."""
    text = str(addr or "").strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    text = text.split("%", 1)[0]
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return "local"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


# --- image headers ---------------------------------------------------------------------------

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# JPEG start-of-frame markers (baseline, progressive, lossless, arithmetic): C0-CF but C4
# (Huffman tables), C8 (reserved) and CC (arithmetic conditioning).
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
_STANDALONE = frozenset({0x01, *range(0xD0, 0xD8)})


class NotAnImage(ValueError):
    """The bytes are not a PNG or JPEG image whose size can be read."""


def image_size(data: bytes) -> tuple[str, int, int]:
    """("png" | "jpeg", width, height) from the image's header, without decoding it."""
    if data.startswith(PNG_SIGNATURE):
        if len(data) < 24 or data[12:16] != b"IHDR":
            raise NotAnImage("the PNG has no header")
        width, height = struct.unpack(">II", data[16:24])
        if width == 0 or height == 0:
            raise NotAnImage("the PNG is empty")
        return "png", width, height
    if data.startswith(b"\xff\xd8"):
        width, height = _jpeg_size(data)
        return "jpeg", width, height
    raise NotAnImage("the upload is not a JPEG or PNG image")


def _jpeg_size(data: bytes) -> tuple[int, int]:
    i = 2
    n = len(data)
    while i < n:
        if data[i] != 0xFF:
            raise NotAnImage("the JPEG is damaged")
        while i < n and data[i] == 0xFF:  # fill bytes
            i += 1
        if i >= n:
            break
        marker = data[i]
        i += 1
        if marker in _STANDALONE:
            continue
        if marker in (0xD9, 0xDA):  # end of image, start of scan: no frame header before
            break
        if i + 2 > n:
            break
        (length,) = struct.unpack(">H", data[i : i + 2])
        if length < 2:
            raise NotAnImage("the JPEG is damaged")
        if marker in _SOF:
            if i + 7 > n:
                break
            height, width = struct.unpack(">HH", data[i + 3 : i + 7])
            if width == 0 or height == 0:
                raise NotAnImage("the JPEG has no size in its header")
            return width, height
        i += length
    raise NotAnImage("the JPEG has no frame header")


def check_image(data: bytes, max_pixels: int = MAX_PIXELS) -> tuple[str, int, int]:
    """:func:`image_size`, or Refusal: 415 for a non-image, 413 over ``max_pixels``."""
    try:
        kind, width, height = image_size(data)
    except NotAnImage as exc:
        msg = str(exc)
        raise Refusal(415, msg[0].upper() + msg[1:] + ".", "not-an-image") from None
    if width * height > max_pixels:
        raise Refusal(
            413,
            f"The photo is {width} × {height} pixels; at most "
            f"{max_pixels // 1_000_000} million pixels are read.",
            "too-many-pixels",
            {"width": width, "height": height, "most": max_pixels // 1_000_000},
        )
    return kind, width, height


__all__ = [
    "CLAIM_PATH",
    "MAX_BODY",
    "MAX_PIXELS",
    "MAX_UPLOAD",
    "HostCheck",
    "NotAnImage",
    "Refusal",
    "address_key",
    "admit",
    "body_limit",
    "check_image",
    "host_credential",
    "image_size",
]
