"""The event log: an append-only SQLite file that is the truth of every game.

Tables:

* ``games``  — one row per game (id, created, variant, mode, players, finished, winners): an index
  for the history page; everything in it can be rebuilt from the events.
* ``events`` — ``seq`` (global, increasing), ``game_id``, ``ts``, ``actor`` (``host``, a player
  colour, ``camera``, ``reader``, ``button``), ``action`` (the action's JSON).
* ``tokens`` — pairing tokens of the players' phones (game, colour).
* ``phones_seen`` — the pairing tokens a phone has opened (the state's ``phone_seen``), kept so
  that a restart shows the same state.
* ``pair_links`` — the pairing links already opened by a phone (a link opens once; the host
  showing it again takes its row away).

The database runs in WAL mode with ``synchronous=FULL``: :meth:`EventStore.append` returns only
after the event is committed and synced, so an acknowledged action survives ``kill -9`` and power
loss. All access goes through one lock; the connection may be used from any thread.

After every commit of an event the store writes its witness (:mod:`companion.logwitness`)
beside the log; a start whose log lacks an acknowledged event (a damaged or deleted ``-wal``) is
:class:`DamagedLog` with the number missing. The write-ahead log is checkpointed into the
database file when a game ends, every few minutes of play and when the store closes, so that the
file alone (a copy of it) holds the games; :func:`companion.backup.backup` writes a consistent
copy at any time.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import threading
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.core.records import fields_json
from companion.logwitness import GENESIS, Mark, Witness, chain_of, damage, link
from companion.logwitness import SUFFIX as WITNESS_SUFFIX

log = logging.getLogger(__name__)

DB_NAME = "companion.sqlite3"
CHECKPOINT_EVERY = 300.0  # seconds of play between checkpoints of the write-ahead log

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    variant TEXT NOT NULL,
    mode TEXT NOT NULL,
    players TEXT NOT NULL,
    finished REAL,
    winners TEXT
);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id TEXT NOT NULL REFERENCES games(id),
    ts REAL NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_game ON events(game_id, seq);
CREATE TABLE IF NOT EXISTS tokens (
    token TEXT PRIMARY KEY,
    game_id TEXT NOT NULL,
    color TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS tokens_game ON tokens(game_id, color);
CREATE TABLE IF NOT EXISTS phones_seen (
    token TEXT PRIMARY KEY,
    seen REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS pair_links (
    token TEXT PRIMARY KEY,
    opened REAL NOT NULL
);
"""


class StoreError(RuntimeError):
    """The event log cannot be opened or written (disk full, wrong permissions, ...)."""


class DamagedLog(StoreError):
    """The event log's file is damaged (not a database, a bad page, an unreadable event).

    ``path``: the file; ``why``: what is wrong, in a few words. :func:`set_aside` keeps the file
    under another name so that a new log can start."""

    def __init__(self, path: Path, why: str, missing: int = 0) -> None:
        why = " ".join(why.split())
        super().__init__(f"the event log {path} is damaged ({why})")
        self.path = path
        self.why = why
        self.missing = missing  # acknowledged events the log has lost (from its witness)


DAMAGE_MARKS = ("not a database", "malformed", "corrupt", "encrypted")


def _damage(path: Path, exc: BaseException) -> DamagedLog | None:
    text = str(exc)
    if isinstance(exc, sqlite3.DatabaseError) and any(m in text.lower() for m in DAMAGE_MARKS):
        return DamagedLog(path, text)
    return None


def set_aside(state_dir: Path | str, *, clock: Any = time.time) -> Path:
    """Rename a damaged event log (with its WAL files and its witness) to
    ``companion.sqlite3.damaged-<time>`` so that the next :class:`EventStore` starts an empty
    one. Returns the new name."""
    path = Path(state_dir) / DB_NAME
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(float(clock())))
    target = path.with_name(f"{DB_NAME}.damaged-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{DB_NAME}.damaged-{stamp}-{n}")
    for suffix in ("-wal", "-shm", WITNESS_SUFFIX):
        side = path.with_name(DB_NAME + suffix)
        if side.exists():
            side.rename(target.with_name(target.name + suffix))
    if path.exists():
        path.rename(target)
    return target


@dataclass(frozen=True, slots=True)
class Event:
    seq: int
    game_id: str
    ts: float
    actor: str
    action: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)


@dataclass(frozen=True, slots=True)
class GameRow:
    id: str
    created: float
    variant: str
    mode: str
    players: list[dict[str, str]]
    finished: float | None
    winners: list[str]
    events: int

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)


def chain_of_one(mark: Mark, event: tuple[Any, ...]) -> Mark:
    """``mark`` with one more event (seq, game_id, ts, actor, action_text) chained in."""
    seq, game_id, ts, actor, text = event
    return Mark(int(seq), mark.events + 1, link(mark.chain, seq, game_id, ts, actor, text))


def _dumps(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), sort_keys=True)


class EventStore:
    """The SQLite event log under a state directory."""

    _db: sqlite3.Connection

    def __init__(self, state_dir: Path | str, *, clock: Any = time.time) -> None:
        self.dir = Path(state_dir)
        self.path = self.dir / DB_NAME
        self._clock = clock
        self._lock = threading.RLock()
        self._witness = Witness(self.path)
        self._mark = Mark(0, 0, GENESIS)
        self._checkpointed = time.monotonic()
        db: sqlite3.Connection | None = None
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            new = not self.path.exists()
            unwitnessed = self._verify(new)
            db = sqlite3.connect(
                self.path, check_same_thread=False, isolation_level=None, timeout=10.0
            )
            if new:
                os.chmod(self.path, 0o600)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            db.executescript(_SCHEMA)
            self._db = db
            if unwitnessed:  # a log from before witnesses, restored from a copy, or a crash
                log.info("event log %s: witnessed up to event %d", self.path, self._mark.seq)
                self._witnessed()
        except (OSError, sqlite3.Error, StoreError) as exc:
            with contextlib.suppress(sqlite3.Error):
                if db is not None:
                    db.close()
            self._witness.close()
            if isinstance(exc, StoreError):
                raise
            damaged = _damage(self.path, exc)
            if damaged is not None:
                raise damaged from exc
            raise StoreError(f"cannot open the event log {self.path}: {exc}") from exc

    def _verify(self, new: bool) -> bool:
        """Check the log before it is opened for writing, on a read-only connection (closing a
        connection that writes would checkpoint a damaged ``-wal`` into the file and delete it:
        the evidence must stay as it is for :func:`set_aside`). True when the log has events
        and no witness of its last event yet. :class:`DamagedLog` if anything is off."""
        if new:
            return self._check(None)
        uri = "file:" + urllib.parse.quote(str(self.path)) + "?mode=ro"
        con = sqlite3.connect(uri, uri=True, timeout=10.0)
        try:
            return self._check(con)
        finally:
            con.close()

    def _check(self, con: sqlite3.Connection | None) -> bool:
        """SQLite's quick check of every page, every event's JSON and the events against the
        witness (a few ms per thousand events); see :meth:`_verify`."""
        events: list[Any] = []
        if con is not None:
            rows = con.execute("PRAGMA quick_check(1)").fetchall()
            if [r[0] for r in rows] != ["ok"]:
                log.info("event log %s: quick_check: %s", self.path, rows)
                raise DamagedLog(self.path, "SQLite's check finds damaged pages")
            if con.execute("SELECT 1 FROM sqlite_master WHERE name='events'").fetchone():
                events = con.execute(
                    "SELECT seq, game_id, ts, actor, action FROM events ORDER BY seq"
                ).fetchall()
        for seq, _, _, _, text in events:
            try:
                action = json.loads(text)
            except (TypeError, ValueError):
                raise DamagedLog(self.path, f"event {seq} cannot be read") from None
            if not isinstance(action, dict):
                raise DamagedLog(self.path, f"event {seq} is not an action")
        self._mark, marks = chain_of(events)
        try:
            witness = self._witness.read()
        except OSError as exc:
            raise StoreError(f"cannot read the witness {self._witness.path}: {exc}") from exc
        if witness is not None:
            wrong = damage(witness, self._mark, marks)
            if wrong is not None:
                raise DamagedLog(self.path, wrong[1], missing=wrong[0])
            return witness != self._mark  # (the log went on after its last witness: a crash)
        if self._witness.exists():
            raise DamagedLog(self.path, f"its witness {self._witness.path.name} cannot be read")
        return bool(self._mark.events)

    def _witnessed(self, *event: Any) -> None:
        """Chain one more event (seq, game_id, ts, actor, action_text) into the mark and write
        the witness (a witness that cannot be written is logged: the log stays the truth)."""
        if event:
            self._mark = chain_of_one(self._mark, event)
        try:
            self._witness.write(self._mark)
        except OSError as exc:
            log.warning("cannot write the witness of the event log %s: %s", self.path, exc)

    def checkpoint(self, *, truncate: bool = False) -> bool:
        """Copy the write-ahead log into the database file (``truncate``: and empty it).
        False when a reader kept part of it back (it is copied at the next one)."""
        mode = "TRUNCATE" if truncate else "PASSIVE"
        with self._lock:
            try:
                busy, _, _ = self._db.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
            except sqlite3.Error as exc:
                log.warning("event log %s: checkpoint failed: %s", self.path, exc)
                return False
            self._checkpointed = time.monotonic()
            return not busy

    def close(self) -> None:
        """Checkpoint and close (a clean shutdown leaves the whole log in its file)."""
        with self._lock:
            try:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                self._db.close()
                self._witness.close()

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    yield self._db
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                raise StoreError(f"the event log could not be written: {exc}") from exc

    def pragma(self, name: str) -> Any:
        with self._lock:
            return self._db.execute(f"PRAGMA {name}").fetchone()[0]

    # --- writing ------------------------------------------------------------------------
    def new_game(
        self,
        game_id: str,
        *,
        variant: str,
        mode: str,
        players: list[dict[str, str]],
        actor: str,
        action: dict[str, Any],
    ) -> Event:
        """Create the game row and its first event in one transaction."""
        ts = float(self._clock())
        text = _dumps(action)
        with self._lock:
            with self._tx() as db:
                db.execute(
                    "INSERT INTO games(id, created, variant, mode, players) VALUES (?,?,?,?,?)",
                    (game_id, ts, variant, mode, _dumps(players)),
                )
                cur = db.execute(
                    "INSERT INTO events(game_id, ts, actor, action) VALUES (?,?,?,?)",
                    (game_id, ts, actor, text),
                )
                seq = int(cur.lastrowid or 0)
            self._committed(seq, game_id, ts, actor, text)
        return Event(seq, game_id, ts, actor, action)

    def append(
        self,
        game_id: str,
        actor: str,
        action: dict[str, Any],
        *,
        finished: bool | None = None,
        winners: list[str] | None = None,
    ) -> Event:
        """Append one event (committed and synced when this returns).

        ``finished`` True/False also updates the game's row (finish, or an undone finish).
        """
        ts = float(self._clock())
        text = _dumps(action)
        with self._lock:
            with self._tx() as db:
                cur = db.execute(
                    "INSERT INTO events(game_id, ts, actor, action) VALUES (?,?,?,?)",
                    (game_id, ts, actor, text),
                )
                seq = int(cur.lastrowid or 0)
                if finished is not None:
                    db.execute(
                        "UPDATE games SET finished=?, winners=? WHERE id=?",
                        (ts if finished else None, _dumps(winners or []), game_id),
                    )
            self._committed(seq, game_id, ts, actor, text, game_over=bool(finished))
        return Event(seq, game_id, ts, actor, action)

    def _committed(self, *event: Any, game_over: bool = False) -> None:
        """After an event's commit: its witness; a checkpoint at a game's end and every
        :data:`CHECKPOINT_EVERY` seconds."""
        self._witnessed(*event)
        if game_over or time.monotonic() - self._checkpointed >= CHECKPOINT_EVERY:
            self.checkpoint()

    def add_token(self, token: str, game_id: str, color: str) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO tokens(token, game_id, color, created) VALUES (?,?,?,?)",
                (token, game_id, color, float(self._clock())),
            )

    def open_link(self, token: str) -> bool:
        """Mark a pairing link opened: True for its first opening, False when it was already."""
        with self._tx() as db:
            cur = db.execute(
                "INSERT OR IGNORE INTO pair_links(token, opened) VALUES (?,?)",
                (token, float(self._clock())),
            )
            return cur.rowcount == 1

    def rearm_link(self, token: str) -> None:
        """The host shows the link again: it opens once more."""
        with self._tx() as db:
            db.execute("DELETE FROM pair_links WHERE token=?", (token,))

    def revoke_tokens(self, game_id: str, color: str) -> None:
        with self._tx() as db:
            db.execute("DELETE FROM tokens WHERE game_id=? AND color=?", (game_id, color))

    def mark_seen(self, token: str) -> None:
        """A phone opened its pairing link or page (committed before the state says so)."""
        with self._tx() as db:
            db.execute(
                "INSERT OR IGNORE INTO phones_seen(token, seen) VALUES (?,?)",
                (token, float(self._clock())),
            )

    # --- reading ------------------------------------------------------------------------
    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        with self._lock:
            try:
                return self._db.execute(sql, args).fetchall()
            except sqlite3.Error as exc:
                damaged = _damage(self.path, exc)
                if damaged is not None:
                    raise damaged from exc
                raise StoreError(f"the event log could not be read: {exc}") from exc

    def last_seq(self) -> int:
        rows = self._rows("SELECT MAX(seq) FROM events")
        return int(rows[0][0] or 0)

    def current_game_id(self) -> str | None:
        rows = self._rows("SELECT game_id FROM events ORDER BY seq DESC LIMIT 1")
        return str(rows[0][0]) if rows else None

    def events(self, game_id: str, *, upto: int | None = None) -> list[Event]:
        sql = "SELECT seq, game_id, ts, actor, action FROM events WHERE game_id=?"
        args: tuple[Any, ...] = (game_id,)
        if upto is not None:
            sql += " AND seq<=?"
            args = (game_id, upto)
        rows = self._rows(sql + " ORDER BY seq", args)
        return [Event(int(s), str(g), float(t), str(a), json.loads(j)) for s, g, t, a, j in rows]

    def game(self, game_id: str) -> GameRow | None:
        rows = self._rows(
            "SELECT g.id, g.created, g.variant, g.mode, g.players, g.finished, g.winners,"
            " (SELECT COUNT(*) FROM events e WHERE e.game_id=g.id) FROM games g WHERE g.id=?",
            (game_id,),
        )
        return self._game_row(rows[0]) if rows else None

    def games(self, limit: int = 200) -> list[GameRow]:
        rows = self._rows(
            "SELECT g.id, g.created, g.variant, g.mode, g.players, g.finished, g.winners,"
            " (SELECT COUNT(*) FROM events e WHERE e.game_id=g.id) FROM games g"
            " ORDER BY g.created DESC, g.rowid DESC LIMIT ?",
            (limit,),
        )
        return [self._game_row(r) for r in rows]

    @staticmethod
    def _game_row(r: Any) -> GameRow:
        return GameRow(
            id=str(r[0]),
            created=float(r[1]),
            variant=str(r[2]),
            mode=str(r[3]),
            players=json.loads(r[4]),
            finished=None if r[5] is None else float(r[5]),
            winners=json.loads(r[6]) if r[6] else [],
            events=int(r[7]),
        )

    def token(self, token: str) -> tuple[str, str] | None:
        """(game id, colour) of a pairing token, or None."""
        rows = self._rows("SELECT game_id, color FROM tokens WHERE token=?", (token,))
        return (str(rows[0][0]), str(rows[0][1])) if rows else None

    def link_opened(self, token: str) -> bool:
        """Whether a phone opened this pairing link (since the host last showed it)."""
        return bool(self._rows("SELECT 1 FROM pair_links WHERE token=?", (token,)))

    def seen_tokens(self) -> set[str]:
        """The pairing tokens a phone has opened (see :meth:`mark_seen`)."""
        return {str(r[0]) for r in self._rows("SELECT token FROM phones_seen")}

    def tokens_of(self, game_id: str) -> dict[str, str]:
        """colour -> its newest token, for one game."""
        rows = self._rows(
            "SELECT color, token FROM tokens WHERE game_id=? ORDER BY created, rowid", (game_id,)
        )
        return {str(c): str(t) for c, t in rows}
