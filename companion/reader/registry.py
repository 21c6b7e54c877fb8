"""UID -> card registry (SQLite), filled by ``companion reader enroll``.

Used when a sticker carries no payload (or one this game does not know). Stored as payload text,
so the registry and the stickers speak the same language.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Mapping
from pathlib import Path

from .cards import CardCatalog, CardIdentity

log = logging.getLogger(__name__)

FILENAME = "reader-cards.sqlite"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS cards (
    uid TEXT PRIMARY KEY,
    payload TEXT NOT NULL,
    enrolled_at REAL NOT NULL
)
"""


class RegistryError(Exception):
    """The registry file cannot be opened or written (one plain sentence)."""


def default_state_dir(env: Mapping[str, str] | None = None) -> Path:
    """COMPANION_STATE_DIR, else systemd's STATE_DIRECTORY, else $XDG_STATE_HOME/companion
    (``~/.local/state/companion``)."""
    env = os.environ if env is None else env
    if env.get("COMPANION_STATE_DIR"):
        return Path(env["COMPANION_STATE_DIR"])
    if env.get("STATE_DIRECTORY"):
        return Path(env["STATE_DIRECTORY"].split(":")[0])
    base = env.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "companion"


def default_path(env: Mapping[str, str] | None = None) -> Path:
    return default_state_dir(env) / FILENAME


class Registry:
    """The UID -> card table. Safe to share between threads."""

    def __init__(self, path: Path | str, catalog: CardCatalog) -> None:
        self.path = Path(path)
        self.catalog = catalog
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False)
            try:
                with self._db:
                    self._db.execute(_SCHEMA)
            except sqlite3.Error:
                self._db.close()  # (never left to the garbage collector)
                raise
        except (OSError, sqlite3.Error) as exc:
            raise RegistryError(f"cannot open the card registry {self.path}: {exc}") from None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Registry:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get(self, uid: str) -> CardIdentity | None:
        with self._lock:
            row = self._db.execute("SELECT payload FROM cards WHERE uid = ?", (uid,)).fetchone()
        if row is None:
            return None
        card = self.catalog.from_payload(row[0])
        if card is None:
            log.warning("registry entry for %s names no known card: %r", uid, row[0])
        return card

    def put(self, uid: str, card: CardIdentity) -> None:
        try:
            with self._lock, self._db:
                self._db.execute(
                    "INSERT INTO cards (uid, payload, enrolled_at) VALUES (?, ?, ?) "
                    "ON CONFLICT(uid) DO UPDATE SET payload = excluded.payload, "
                    "enrolled_at = excluded.enrolled_at",
                    (uid, card.payload(), time.time()),
                )
        except sqlite3.Error as exc:
            raise RegistryError(f"cannot write to the card registry {self.path}: {exc}") from None

    def remove(self, uid: str) -> bool:
        with self._lock, self._db:
            cur = self._db.execute("DELETE FROM cards WHERE uid = ?", (uid,))
        return cur.rowcount > 0

    def items(self) -> list[tuple[str, CardIdentity | None]]:
        with self._lock:
            rows = self._db.execute("SELECT uid, payload FROM cards ORDER BY uid").fetchall()
        return [(uid, self.catalog.from_payload(payload)) for uid, payload in rows]

    def __len__(self) -> int:
        with self._lock:
            (n,) = self._db.execute("SELECT COUNT(*) FROM cards").fetchone()
        return int(n)


def identify(
    uid: str, payload: str | None, catalog: CardCatalog, registry: Registry | None
) -> CardIdentity | None:
    """The card: from the payload when it names one, else from the registry, else None."""
    card = catalog.from_payload(payload)
    if card is None and registry is not None:
        card = registry.get(uid)
    return card
