"""The event log's witness file: a torn record leaves the other one; the store's start compares
the log with it (more events than witnessed is a crash between commit and witness: fine)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from companion.logwitness import RECORD, SUFFIX, Mark, Witness
from companion.store import DB_NAME, DamagedLog, EventStore

PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]


def log_with(state: Path, n: int) -> None:
    with EventStore(state) as store:
        store.new_game(
            "g1",
            variant="europe",
            mode="table",
            players=PLAYERS,
            actor="host",
            action={"type": "new_game"},
        )
        for i in range(n - 1):
            store.append("g1", "host", {"type": "drew_cards", "player": "red", "count": i})


def test_a_torn_record_leaves_the_other(tmp_path: Path) -> None:
    w = Witness(tmp_path / DB_NAME)
    for seq in (1, 2, 3):
        w.write(Mark(seq, seq, f"{seq:064x}"))
    w.close()
    assert Witness(tmp_path / DB_NAME).read() == Mark(3, 3, f"{3:064x}")
    raw = bytearray(w.path.read_bytes())
    assert len(raw) == 2 * RECORD
    newest = 3 % 2 * RECORD  # record of generation 3
    raw[newest + 10] ^= 0xFF  # a torn write of the newest
    w.path.write_bytes(bytes(raw))
    assert Witness(tmp_path / DB_NAME).read() == Mark(2, 2, f"{2:064x}")
    raw[(1 - 3 % 2) * RECORD + 3] ^= 0xFF  # and the other one
    w.path.write_bytes(bytes(raw))
    assert Witness(tmp_path / DB_NAME).read() is None


def test_the_store_checks_its_log_against_the_witness(tmp_path: Path) -> None:
    log_with(tmp_path, 5)
    with EventStore(tmp_path) as store:  # the same log: it opens
        assert store.last_seq() == 5
    # events written after the witness (a crash between the commit and the witness): fine
    con = sqlite3.connect(tmp_path / DB_NAME)
    with con:
        con.execute(
            "INSERT INTO events(game_id, ts, actor, action) VALUES ('g1', 1.0, 'host', '{}')"
        )
    con.close()
    with EventStore(tmp_path) as store:
        assert store.last_seq() == 6
    # the last two events gone: damaged, with the number missing
    con = sqlite3.connect(tmp_path / DB_NAME)
    with con:
        con.execute("DELETE FROM events WHERE seq >= 5")
    con.close()
    with pytest.raises(DamagedLog) as caught:
        EventStore(tmp_path)
    assert caught.value.missing == 2
    assert "2 acknowledged events missing: it ends at event 4, but event 6 was written" in str(
        caught.value
    )
    # an event changed in place: damaged, none missing
    log_with(tmp_path / "b", 3)
    con = sqlite3.connect(tmp_path / "b" / DB_NAME)
    with con:
        con.execute("""UPDATE events SET action='{"type":"drew_cards","count":9}' WHERE seq=2""")
    con.close()
    with pytest.raises(DamagedLog, match="not the ones that were written") as caught:
        EventStore(tmp_path / "b")
    assert caught.value.missing == 0


def test_a_missing_log_or_an_unreadable_witness_is_damage(tmp_path: Path) -> None:
    log_with(tmp_path, 3)
    for side in ("", "-wal", "-shm"):
        (tmp_path / (DB_NAME + side)).unlink(missing_ok=True)
    with pytest.raises(DamagedLog, match="3 acknowledged events missing: it holds no event"):
        EventStore(tmp_path)
    (tmp_path / (DB_NAME + SUFFIX)).write_bytes(b"\x00" * 40)
    with pytest.raises(DamagedLog, match=r"witness \S+ cannot be read"):
        EventStore(tmp_path)


def test_a_log_without_a_witness_begins_one(tmp_path: Path) -> None:
    log_with(tmp_path, 4)
    (tmp_path / (DB_NAME + SUFFIX)).unlink()  # a log from before witnesses, or restored
    with EventStore(tmp_path) as store:
        assert store.last_seq() == 4
    assert Witness(tmp_path / DB_NAME).read() is not None
    with EventStore(tmp_path) as store:
        store.append("g1", "host", {"type": "end_turn", "player": "red"})
    assert Witness(tmp_path / DB_NAME).read().seq == 5  # type: ignore[union-attr]
