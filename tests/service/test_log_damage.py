"""A damaged log is never silent, and a backup is consistent: real `companion serve` processes
on 127.0.0.1. A byte flipped in the write-ahead log or a deleted ``-wal`` (events acknowledged,
then kill -9) stops the next start with one sentence and the number of events missing, and the
files are set aside as for a damaged database; `companion backup` while the server takes
actions writes a copy that opens, passes SQLite's check and starts a server at its last event."""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.backup import LAST_BACKUP
from companion.logwitness import SUFFIX
from companion.service import Service
from companion.store import DB_NAME, EventStore
from tests.service.test_hardening_start import Proc, run_once

pytestmark = pytest.mark.slow

PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]
TICKETS = {"red": ["paris-wien", "brest-marseille"], "blue": ["budapest-zurich", "angora-athina"]}
FRAME = 24 + 4096  # a WAL frame: its header and one page


@pytest.fixture
def state(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "state"


def post(server: Proc, action: dict[str, object]) -> dict[str, object]:
    token = (Path(server.state) / "host-token").read_text().strip()
    req = urllib.request.Request(
        server.base + "/api/actions",
        data=json.dumps(action).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        assert r.status == 200
        return dict(json.loads(r.read()))


def play(server: Proc, turns: int) -> int:
    """A game of ``turns`` turns; the number of events acknowledged."""
    # (a game with an explicit end of turn: each turn is two acknowledged events)
    post(server, {"type": "new_game", "players": PLAYERS, "auto_end": False})
    for color, ids in TICKETS.items():
        post(server, {"type": "keep_tickets", "player": color, "tickets": ids})
    for i in range(turns):
        color = ("red", "blue")[i % 2]
        post(server, {"type": "drew_cards", "player": color, "count": 2})
        post(server, {"type": "end_turn", "player": color})
    return 3 + 2 * turns


def serving(state: Path) -> Proc:
    server = Proc(state)
    server.state = state  # type: ignore[attr-defined]
    return server


def seen_by_sqlite(state: Path) -> int:
    """The events SQLite itself finds in the log as it is now (on a copy: nothing changes)."""
    probe = state.parent / "probe"
    shutil.rmtree(probe, ignore_errors=True)
    probe.mkdir()
    for name in (DB_NAME, DB_NAME + "-wal"):
        if (state / name).exists():
            shutil.copy(state / name, probe / name)
    con = sqlite3.connect(probe / DB_NAME)
    try:
        if not con.execute("SELECT 1 FROM sqlite_master WHERE name='events'").fetchone():
            return 0  # (the whole log was in the -wal: the file is empty)
        return int(con.execute("SELECT COUNT(*) FROM events").fetchone()[0])
    finally:
        con.close()


def flip_a_byte_mid_wal(state: Path) -> None:
    wal = state / (DB_NAME + "-wal")
    frames = (wal.stat().st_size - 32) // FRAME
    assert frames >= 4, frames
    at = 32 + (frames // 2) * FRAME + 24 + 300  # inside a page of the middle frame
    with wal.open("r+b") as f:
        f.seek(at)
        byte = f.read(1)
        f.seek(at)
        f.write(bytes([byte[0] ^ 0x5A]))


def delete_the_wal(state: Path) -> None:
    (state / (DB_NAME + "-wal")).unlink()


@pytest.mark.parametrize("damage", [flip_a_byte_mid_wal, delete_the_wal])
def test_a_damaged_wal_stops_the_start_with_the_number_missing(state: Path, damage: object) -> None:
    server = serving(state)
    try:
        written = play(server, 12)
    finally:
        server.stop(signal.SIGKILL)  # no clean shutdown: the game lives in the -wal
    assert (state / (DB_NAME + "-wal")).stat().st_size > 32
    assert callable(damage)
    damage(state)
    missing = written - seen_by_sqlite(state)
    assert missing > 0  # what SQLite alone would have dropped without a word
    kept = {p.name: p.read_bytes() for p in state.iterdir() if p.name.startswith(DB_NAME)}
    out = run_once(state)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    assert str(state / DB_NAME) in lines[0] and "damaged" in lines[0]
    assert f"({missing} acknowledged event{'s' if missing > 1 else ''} missing" in lines[0]
    assert "--set-aside-damaged-log" in lines[0]
    # as told: every file of the damaged log is kept aside as it was, and a new log begins
    again = Proc(state, "--set-aside-damaged-log")
    try:
        assert again.health() == 200
        with urllib.request.urlopen(again.base + "/api/state", timeout=5) as r:
            assert json.loads(r.read())["game_id"] is None
    finally:
        assert "Traceback" not in again.stop()
    aside = {p.name: p for p in state.glob(DB_NAME + ".damaged-*")}
    base = min(aside, key=len)
    for name, data in kept.items():
        if name.endswith("-shm"):
            continue  # (SQLite's index of the -wal: rebuilt from it)
        assert aside[base + name[len(DB_NAME) :]].read_bytes() == data, name


def test_a_finished_game_and_a_clean_stop_leave_the_log_in_its_file(state: Path) -> None:
    server = serving(state)
    try:
        play(server, 3)
        post(server, {"type": "finish"})
        # the game's end is checkpointed: the database file alone holds all of it
        only = state.parent / "only"
        only.mkdir()
        shutil.copy(state / DB_NAME, only / DB_NAME)
        con = sqlite3.connect(only / DB_NAME)
        try:
            assert con.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 3 + 6 + 1
        finally:
            con.close()
    finally:
        assert "Traceback" not in server.stop()  # a clean stop: the -wal is emptied
    wal = state / (DB_NAME + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    assert (state / (DB_NAME + SUFFIX)).exists()


def test_a_backup_while_the_server_plays_is_consistent_and_restorable(state: Path) -> None:
    server = serving(state)
    dest = state.parent / "backups"
    dest.mkdir()
    copies: list[Path] = []
    errors: list[BaseException] = []
    enough = threading.Event()
    written = [0]

    def actions() -> None:  # a game that goes on until three copies are made (at most 600 turns)
        try:
            post(server, {"type": "new_game", "players": PLAYERS})
            for color, ids in TICKETS.items():
                post(server, {"type": "keep_tickets", "player": color, "tickets": ids})
            for i in range(600):
                if enough.is_set():
                    break
                color = ("red", "blue")[i % 2]
                post(server, {"type": "drew_cards", "player": color, "count": 2})
                post(server, {"type": "end_turn", "player": color})
                written[0] = i + 1
        except BaseException as exc:
            errors.append(exc)

    try:
        writer = threading.Thread(target=actions)
        writer.start()
        deadline = time.monotonic() + 90
        while written[0] < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        while writer.is_alive() and len(copies) < 3 and time.monotonic() < deadline:
            out = dest / f"copy-{len(copies)}.sqlite3"
            cmd = [sys.executable, "-m", "companion", "backup", str(out), "--state-dir", str(state)]
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
            assert done.returncode == 0, done.stderr
            copies.append(out)
        enough.set()
        writer.join(60)
        assert not errors and not writer.is_alive()
    finally:
        enough.set()
        assert "Traceback" not in server.stop()
    assert len(copies) == 3, "the game ended before three copies were made"
    counts = []
    last = json.loads((state / LAST_BACKUP).read_text())
    assert last["dest"] == str(copies[-1].resolve()) and abs(last["time"] - time.time()) < 120
    for copy in copies:
        assert not Path(str(copy) + "-wal").exists()
        con = sqlite3.connect(copy)
        try:
            assert con.execute("PRAGMA quick_check").fetchone()[0] == "ok"
            seqs = [r[0] for r in con.execute("SELECT seq FROM events ORDER BY seq")]
        finally:
            con.close()
        assert seqs == list(range(1, len(seqs) + 1))  # every event up to one moment
        counts.append(len(seqs))
        # restorable: a state directory with the copy starts at its last event
        restored = state.parent / f"restored-{copy.stem}"
        restored.mkdir()
        shutil.copy(copy, restored / DB_NAME)
        store = EventStore(restored)
        try:
            svc = Service(store)
            assert svc.state()["seq"] == len(seqs)
        finally:
            store.close()
    assert last["events"] == len(seqs)
    assert counts == sorted(counts) and counts[0] < counts[-1]  # taken while the game went on


def test_backup_refuses_in_one_sentence(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "companion", "backup"]
    nothing = subprocess.run(
        [*cmd, str(tmp_path / "x.sqlite3"), "--state-dir", str(tmp_path / "none")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert nothing.returncode == 2 and "no event log" in nothing.stderr
    assert "Traceback" not in nothing.stderr
    EventStore(tmp_path / "s").close()
    nowhere = subprocess.run(
        [*cmd, str(tmp_path / "no" / "x.sqlite3"), "--state-dir", str(tmp_path / "s")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert nowhere.returncode == 2 and "does not exist" in nowhere.stderr
    assert not (tmp_path / "s" / LAST_BACKUP).exists()


def test_backup_into_a_folder_names_a_dated_file(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with EventStore(state) as store:
        store.new_game(
            "g1", variant="europe", mode="table", players=PLAYERS, actor="host", action={}
        )
    dest = tmp_path / "backups"
    dest.mkdir()
    cmd = [sys.executable, "-m", "companion", "backup", str(dest), "--state-dir", str(state)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    [copy] = dest.glob("companion-*.sqlite3")
    assert done.stdout.strip() == f"companion: 1 event copied to {copy.resolve()}"
    last = json.loads((state / LAST_BACKUP).read_text())
    assert last == {"time": last["time"], "dest": str(copy.resolve()), "events": 1}
