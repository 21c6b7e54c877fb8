"""Who is host: the host token, the host sessions made from it, and the host-claim window.

One :class:`HostAccess` per server, shared by the web app (cookies, Bearer tokens, the claim),
the HTTP server's header gate, the referee box's buttons and LED, and ``serve``'s watcher of the
claim file that ``companion host open-claim`` writes.

* The host token (``DIR/host-token``) signs API clients in (``Authorization: Bearer``) and is
  in the host link that ``serve --host-link`` prints to a terminal.
* A browser gets a host *session*: its cookie holds ``h1.<nonce>.<HMAC(token, nonce)>``
  (:func:`companion.service.auth.host_session_value`), never the token. The sessions are kept
  (as hashes of their nonces) in ``DIR/host-sessions.json``, so the box knows whether it has a
  host and the host page can list its devices. Rotating the token ends every session.
* A fresh state directory has no host session. The claim window (:class:`ClaimWindow`) lets the
  first phone that asks become host; it opens from the box's confirm button (no host yet), the
  host menu, the host page ("add another host device") or ``companion host open-claim``.

The times of the window are on ``clock`` (monotonic, injectable); the sessions' creation times
and the claim file's on ``wall`` (unix time).
"""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.service.auth import (
    ClaimWindow,
    host_session_nonce,
    host_session_value,
    session_key,
)

log = logging.getLogger(__name__)

SESSIONS_FILE = "host-sessions.json"
CLAIM_SECONDS = 60.0
MAX_SESSIONS = 16  # host devices kept; the oldest goes when one more signs in
POLL_SECONDS = 0.5

Listener = Callable[[str, float], None]  # ("claim_open", seconds left) | ("claim_closed", 0)


class HostAccess:
    """The host token, its sessions and the claim window of one server."""

    def __init__(
        self,
        token: str,
        state_dir: Path | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        claim_seconds: float = CLAIM_SECONDS,
    ) -> None:
        self._token = token
        self.state_dir = state_dir
        self._clock = clock
        self._wall = wall
        self.claim_seconds = claim_seconds
        self._lock = threading.RLock()
        self._window = ClaimWindow()
        self._sessions: dict[str, dict[str, Any]] = self._load()
        self.listeners: list[Listener] = []
        self._announced = False  # listeners were told the window is open

    # --- the token ---------------------------------------------------------------------------
    @property
    def token(self) -> str:
        return self._token

    def token_ok(self, bearer: str | None) -> bool:
        import hmac

        return bool(bearer) and hmac.compare_digest(str(bearer).encode(), self._token.encode())

    def rotate(self) -> str:
        """A new host token (written to the state directory): every host session ends and the
        old host link and Bearer token stop working."""
        with self._lock:
            if self.state_dir is not None:
                from companion.statedir import replace_token

                self._token = replace_token(self.state_dir)
            else:
                self._token = secrets.token_urlsafe(32)
            ended = len(self._sessions)
            self._sessions = {}
            self._save()
        log.warning("the host token was changed: %d host session(s) ended", ended)
        return self._token

    # --- sessions ----------------------------------------------------------------------------
    def session_ok(self, value: str | None) -> bool:
        return self.session_of(value) is not None

    def session_of(self, value: str | None) -> str | None:
        """The key of a live host session of this cookie value (None: not one)."""
        if not value:
            return None
        nonce = host_session_nonce(self._token, value)
        if nonce is None:
            return None
        key = session_key(nonce)
        return key if key in self._sessions else None

    def new_session(self, via: str) -> str:
        """A new host session (``via``: "link" | "claim"); its cookie value."""
        nonce = secrets.token_urlsafe(18)
        with self._lock:
            value = host_session_value(self._token, nonce)
            self._sessions[session_key(nonce)] = {"created": round(self._wall(), 3), "via": via}
            while len(self._sessions) > MAX_SESSIONS:
                oldest = min(self._sessions, key=lambda k: self._sessions[k]["created"])
                del self._sessions[oldest]
            self._save()
        return value

    def end_session(self, value: str | None) -> bool:
        with self._lock:
            key = self.session_of(value)
            if key is None:
                return False
            del self._sessions[key]
            self._save()
            return True

    def has_host(self) -> bool:
        """At least one host device is signed in (a claim window then needs the host's asking,
        the host menu or the command)."""
        return bool(self._sessions)

    def sessions(self, current: str | None = None) -> list[dict[str, Any]]:
        """The host devices, oldest first: ``id`` (8 characters of the key), ``created`` (unix
        time), ``via`` and ``current`` (this request's own session)."""
        here = self.session_of(current)
        with self._lock:
            items = sorted(self._sessions.items(), key=lambda kv: kv[1]["created"])
        return [
            {"id": k[:8], "created": v["created"], "via": v["via"], "current": k == here}
            for k, v in items
        ]

    # --- the claim window --------------------------------------------------------------------
    def open_window(self, source: str, seconds: float | None = None) -> float:
        """Open (or reopen) the claim window; its seconds. ``source``: "button" | "host" |
        "command"."""
        secs = self.claim_seconds if seconds is None else float(seconds)
        with self._lock:
            self._window.open(self._clock(), secs, source)
        log.warning("host claim window open for %.0f s (%s)", secs, source)
        self._tell("claim_open", secs)
        return secs

    def close_window(self) -> None:
        with self._lock:
            self._window.close()
        self._tell("claim_closed", 0.0)

    def window_left(self) -> float:
        """Seconds the claim window stays open (0: closed). Also takes a claim file."""
        self.poll()
        with self._lock:
            left = self._window.remaining(self._clock())
        if left <= 0 and self._announced:
            self._tell("claim_closed", 0.0)
        return left

    def claim(self) -> str | None:
        """The first claim in an open window: a new host session's cookie value (the window
        closes); None when no window is open."""
        self.poll()
        with self._lock:
            if not self._window.take(self._clock()):
                return None
            value = self.new_session("claim")
        log.warning("a phone claimed the host session; the claim window is closed")
        self._tell("claim_closed", 0.0)
        return value

    def poll(self) -> None:
        """Take a claim file of ``companion host open-claim`` (see companion.statedir)."""
        if self.state_dir is None:
            return
        from companion.statedir import take_claim_request

        seconds = take_claim_request(self.state_dir, self._wall())
        if seconds is not None:
            self.open_window("command", seconds)

    def watch(self, stop: threading.Event, interval: float = POLL_SECONDS) -> threading.Thread:
        """A thread that takes claim files and tells the listeners when a window ends."""

        def run() -> None:
            while not stop.wait(interval):
                try:
                    self.window_left()
                except Exception:  # a bad file must not end the watcher
                    log.exception("the host claim watcher failed")

        thread = threading.Thread(target=run, name="companion-host-claim", daemon=True)
        thread.start()
        return thread

    def _tell(self, kind: str, seconds: float) -> None:
        self._announced = kind == "claim_open"
        for fn in list(self.listeners):
            try:
                fn(kind, seconds)
            except Exception:
                log.exception("a host claim listener failed")

    # --- the sessions file -------------------------------------------------------------------
    def _path(self) -> Path | None:
        return None if self.state_dir is None else self.state_dir / SESSIONS_FILE

    def _load(self) -> dict[str, dict[str, Any]]:
        path = self._path()
        if path is None:
            return {}
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            raw = data["sessions"] if data.get("token") == session_key(self._token) else {}
            return {
                str(k): {"created": float(v["created"]), "via": str(v["via"])}
                for k, v in dict(raw).items()
            }
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("%s could not be read (%s); no host device is signed in", path, exc)
            return {}

    def _save(self) -> None:
        path = self._path()
        if path is None:
            return
        from companion.statedir import write_atomic

        # (the token's key: sessions of an older token, written by hand back, are not taken)
        body = {"token": session_key(self._token), "sessions": self._sessions}
        with contextlib.suppress(OSError):
            write_atomic(path, json.dumps(body, indent=1).encode("utf-8"))
            return
        log.warning("%s could not be written; host sessions last until the restart", path)


__all__ = ["CLAIM_SECONDS", "SESSIONS_FILE", "HostAccess"]
