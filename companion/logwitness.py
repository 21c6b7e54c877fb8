"""The witness of the event log: the number, count and chained hash of the last event the log
acknowledged, kept in a small file beside it (``companion.sqlite3-witness``).

SQLite keeps the newest transactions in its write-ahead log (``-wal``) until a checkpoint
copies them into the database file. A byte flipped in that file makes SQLite drop the frame
whose checksum fails and every frame after it; a deleted ``-wal`` drops them all; either way the
log opens without a complaint, short of actions that were acknowledged. The witness makes that
loud: after every commit the store writes (and syncs) the last event's ``seq``, the number of
events and a hash chained over every event; at the next start the log must hold that event
with that hash (:func:`verify`), or the start stops with the number of events missing.

The file holds two fixed-size records written in turn, each with its own checksum, so that a
write torn by a power cut leaves the other one whole (a witness one commit behind is fine: the
log may be ahead of it, never behind).
"""

from __future__ import annotations

import hashlib
import os
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from companion.durable import sync_dir

SUFFIX = "-witness"
RECORD = 160  # bytes per record; two records in the file
GENESIS = "0" * 64  # the chain's value before the first event


def link(chain: str, seq: int, game_id: str, ts: float, actor: str, action_text: str) -> str:
    """The chain's value after one more event (``action_text``: its JSON as stored)."""
    h = hashlib.sha256(chain.encode("ascii"))
    h.update(f"\x1f{seq}\x1f{game_id}\x1f{ts!r}\x1f{actor}\x1f".encode())
    h.update(action_text.encode("utf-8"))
    return h.hexdigest()


@dataclass(frozen=True, slots=True)
class Mark:
    """What the log held when it last acknowledged an event."""

    seq: int  # the last event's number
    events: int  # how many events the log held
    chain: str  # the hash chained over all of them

    def encode(self, generation: int) -> bytes:
        body = f"{generation} {self.seq} {self.events} {self.chain}"
        line = f"{body} {zlib.crc32(body.encode('ascii')):08x}"
        return line.encode("ascii").ljust(RECORD - 1) + b"\n"


def _decode(raw: bytes) -> tuple[int, Mark] | None:
    try:
        parts = raw.decode("ascii").split()
    except UnicodeDecodeError:
        return None
    if len(parts) != 5:
        return None
    body = " ".join(parts[:4])
    if f"{zlib.crc32(body.encode('ascii')):08x}" != parts[4]:
        return None
    try:
        gen, seq, events = int(parts[0]), int(parts[1]), int(parts[2])
    except ValueError:
        return None
    return gen, Mark(seq, events, parts[3])


class Witness:
    """The witness file of one event log (``path``: the database file)."""

    def __init__(self, db_path: Path) -> None:
        self.path = db_path.with_name(db_path.name + SUFFIX)
        self._fd: int | None = None
        self._generation = 0

    def read(self) -> Mark | None:
        """The newest whole record (None: no witness, or none of it can be read)."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return None
        best: tuple[int, Mark] | None = None
        for i in range(0, min(len(data), 2 * RECORD), RECORD):
            got = _decode(data[i : i + RECORD])
            if got is not None and (best is None or got[0] > best[0]):
                best = got
        if best is not None:
            self._generation = best[0]
        return None if best is None else best[1]

    def exists(self) -> bool:
        return self.path.exists()

    def write(self, mark: Mark) -> None:
        """Write ``mark`` over the older record and sync it (the newer one stays whole)."""
        if self._fd is None:
            new = not self.path.exists()
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            if new:
                sync_dir(self.path.parent)
        self._generation += 1
        os.pwrite(self._fd, mark.encode(self._generation), (self._generation % 2) * RECORD)
        os.fdatasync(self._fd)

    def close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


def chain_of(rows: Iterable[tuple[int, str, float, str, str]]) -> tuple[Mark, dict[int, Mark]]:
    """The mark of a log's events (seq, game_id, ts, actor, action_text) in order, and the mark
    at each position (for :func:`missing`)."""
    chain, n, seq = GENESIS, 0, 0
    marks: dict[int, Mark] = {}
    for seq, game_id, ts, actor, text in rows:
        chain = link(chain, seq, game_id, ts, actor, text)
        n += 1
        marks[seq] = Mark(seq, n, chain)
    return Mark(seq, n, chain), marks


def damage(witness: Mark, last: Mark, marks: dict[int, Mark]) -> tuple[int, str] | None:
    """None when the log holds what ``witness`` says was acknowledged (it may hold more);
    else (the number of acknowledged events missing, what is wrong in a few words)."""
    at = marks.get(witness.seq)
    if at == witness:
        return None
    found = sum(1 for s in marks if s <= witness.seq)
    missing = max(0, witness.events - found)
    if missing:
        ends = f"it ends at event {last.seq}" if last.events else "it holds no event"
        return missing, (
            f"{missing} acknowledged event{'s' if missing != 1 else ''} missing: {ends}, but "
            f"event {witness.seq} was written"
        )
    return 0, f"the events up to {witness.seq} are not the ones that were written"


__all__ = ["GENESIS", "SUFFIX", "Mark", "Witness", "chain_of", "damage", "link"]
