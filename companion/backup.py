"""A consistent copy of the event log, while the server runs or not (`companion backup DEST`).

SQLite's online backup copies the database as one read transaction sees it: every committed
event up to that moment, the write-ahead log included, nothing half-written. The copy is a
plain database file (no ``-wal`` beside it), checked, synced and renamed into place; the state
directory then holds ``last-backup.json`` ``{"time": <unix seconds>, "dest": "...", "events": N}``.

To restore one: stop the server, then put the copy in place of ``DIR/companion.sqlite3`` and
remove ``companion.sqlite3-wal``, ``-shm`` and ``-witness`` beside it (the copy begins a new
witness at the next start).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from companion.durable import sync_dir, write_atomic
from companion.store import DB_NAME, StoreError

LAST_BACKUP = "last-backup.json"


@dataclass(frozen=True, slots=True)
class Backup:
    path: Path  # the copy
    events: int  # the events it holds
    time: float  # when it was taken (unix seconds)


def target(dest: Path, now: float) -> Path:
    """The copy's file: ``dest`` itself, or a dated file inside ``dest`` when it is a folder."""
    if dest.is_dir():
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
        return dest / f"companion-{stamp}.sqlite3"
    return dest


def backup(state_dir: Path, dest: Path, *, clock: object = time.time) -> Backup:
    """Copy the event log of ``state_dir`` to ``dest`` (see the module's text); StoreError
    with one sentence when it cannot be done."""
    source = state_dir / DB_NAME
    if not source.is_file():
        raise StoreError(f"there is no event log in {state_dir}")
    now = float(clock()) if callable(clock) else time.time()
    out = target(dest, now)
    if not out.parent.is_dir():
        raise StoreError(f"the folder {out.parent} does not exist")
    if out.resolve() == source.resolve():
        raise StoreError("the copy cannot be the event log itself")
    partial = out.with_name(out.name + ".partial")
    sides = [source.with_name(source.name + s) for s in ("-wal", "-shm")]
    before = {p for p in sides if p.exists()}
    try:
        events = _copy(source, partial)
        _sync_file(partial)
        os.replace(partial, out)
        sync_dir(out.parent)
    except (OSError, sqlite3.Error) as exc:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise StoreError(f"cannot write the copy {out}: {exc}") from exc
    finally:
        _give_back(source, [p for p in sides if p not in before])
    done = Backup(out.resolve(), events, now)
    write_last(state_dir, done)
    return done


def _copy(source: Path, partial: Path) -> int:
    with contextlib.suppress(FileNotFoundError):
        partial.unlink()
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=10.0)
    try:
        dst = sqlite3.connect(partial)
        try:
            src.backup(dst)  # one read transaction: a consistent snapshot
            dst.execute("PRAGMA journal_mode=DELETE")  # a single file, no -wal beside it
            check = dst.execute("PRAGMA quick_check(1)").fetchone()[0]
            if check != "ok":
                raise StoreError(f"the copy does not pass SQLite's check ({check})")
            return int(dst.execute("SELECT COUNT(*) FROM events").fetchone()[0])
        finally:
            dst.close()
    finally:
        src.close()


def _give_back(source: Path, created: list[Path]) -> None:
    """Files SQLite made beside the log for this copy (run as root) go to the log's owner,
    so that the server (another user) can still open it."""
    if os.geteuid() != 0:
        return
    try:
        st = source.stat()
    except OSError:
        return
    for p in created:
        with contextlib.suppress(OSError):
            os.chown(p, st.st_uid, st.st_gid)


def write_last(state_dir: Path, done: Backup) -> None:
    """``last-backup.json`` in the state directory, written whole (temporary file, rename);
    run as root, given to the state directory's owner (who reads and replaces it)."""
    path = state_dir / LAST_BACKUP
    data = {"time": int(done.time), "dest": str(done.path), "events": done.events}
    try:
        write_atomic(path, (json.dumps(data) + "\n").encode("utf-8"), 0o644, owner_of=state_dir)
    except OSError as exc:
        raise StoreError(f"the copy is written, but {path} cannot be: {exc}") from exc


def read_last(state_dir: Path) -> dict[str, object] | None:
    """The last backup's record, or None (none yet, or it cannot be read)."""
    try:
        data = json.loads((state_dir / LAST_BACKUP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _sync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


__all__ = ["LAST_BACKUP", "Backup", "backup", "read_last", "target", "write_last"]
