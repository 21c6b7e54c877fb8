"""`companion backup`: how long a consistent copy of the event log takes, and what it costs the
game loop when it is taken while the server plays.

    python benchmarks/bench_backup.py [--events N] [--quick] [--write]

A long game's log is made by the real service (``Service.act``, each action synced to the
SQLite log in a temporary state directory: two cards drawn by whoever's turn it is, so every
action is a new log position). Then:

* ``companion.backup.backup`` on that log with the service stopped (median of 5 copies: the
  online backup, the copy's check, fsync and rename), and the copy's size;
* the whole command, ``python -m companion backup DEST --state-dir DIR`` (Python's start
  included), median of 3;
* copies taken one after another (0.1 s apart) while the service plays, at least 5: the loop's
  answer times (p50 / p95 / max) without and with the copies, and the copies' own times.
"""

from __future__ import annotations

import argparse
import contextlib
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.results import WRITE_HELP, Results  # noqa: E402
from benchmarks.timing import draw_turns, spread  # noqa: E402
from companion.backup import backup  # noqa: E402
from companion.service import Actor, Service  # noqa: E402
from companion.store import DB_NAME, EventStore  # noqa: E402

PLAYERS = [{"name": "Aki", "color": "red"}, {"name": "Ben", "color": "blue"}]
TICKETS = {"red": ["paris-wien", "brest-marseille"], "blue": ["budapest-zurich", "angora-athina"]}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=600, help="actions in the long game's log")
    ap.add_argument("--quick", action="store_true", help="300 actions, fewer repeats")
    ap.add_argument("--write", action="store_true", help=WRITE_HELP)
    args = ap.parse_args(argv)
    n = 300 if args.quick else args.events
    during = 40 if args.quick else 120
    res = Results("bench_backup", write=args.write)
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        state.mkdir()
        dest = Path(tmp) / "copies"
        dest.mkdir()
        store = EventStore(state)
        svc = Service(store).start()
        host = Actor.host()
        svc.act({"type": "new_game", "players": PLAYERS}, host)
        for color, ids in TICKETS.items():
            svc.act({"type": "keep_tickets", "player": color, "tickets": ids}, host)
        draw_turns(svc, n)
        # copies 0.1 s apart while the loop plays (at least 5), then as much play without
        stop = threading.Event()
        copies: list[float] = []

        def copier() -> None:
            k = 0
            while not stop.wait(0.1):
                k += 1
                t0 = time.perf_counter()
                backup(state, dest / f"during-{k}.sqlite3")
                copies.append((time.perf_counter() - t0) * 1000)

        thread = threading.Thread(target=copier, daemon=True)
        thread.start()
        with_copies = draw_turns(svc, during)
        while len(copies) < 5 and thread.is_alive():
            with_copies += draw_turns(svc, 10)
        stop.set()
        thread.join(30)
        without = draw_turns(svc, len(with_copies))
        svc.stop()
        store.close()
        with contextlib.closing(sqlite3.connect(state / DB_NAME)) as db:
            events = int(db.execute("SELECT COUNT(*) FROM events").fetchone()[0])
        quiet: list[float] = []
        size = 0
        for k in range(5):
            t0 = time.perf_counter()
            done = backup(state, dest / f"quiet-{k}.sqlite3")
            quiet.append((time.perf_counter() - t0) * 1000)
            size = done.path.stat().st_size
            assert done.events == events, (done.events, events)
        command: list[float] = []
        for k in range(1 if args.quick else 3):
            cmd = [sys.executable, "-m", "companion", "backup", str(dest / f"cmd-{k}.sqlite3")]
            t0 = time.perf_counter()
            subprocess.run(
                [*cmd, "--state-dir", str(state)], cwd=REPO, check=True, capture_output=True
            )
            command.append((time.perf_counter() - t0) * 1000)
    print(f"a log of {events} events")
    print(
        f"backup(), server stopped: median {statistics.median(quiet):.1f} ms, {size / 1e3:.0f} kB"
    )
    print(f"companion backup (the command): median {statistics.median(command):.0f} ms")
    print(f"loop without copies: {spread(without)} ({len(without)} actions)")
    print(f"loop with copies 0.1 s apart: {spread(with_copies)}; {len(copies)} copies")
    res.add(
        "backup-copy",
        f"`companion.backup.backup` of a log of {events} events, the server stopped (online"
        " backup, check, fsync, rename; median of 5); the copy's size",
        f"{statistics.median(quiet):.1f} ms, {size / 1e3:.0f} kB",
    )
    res.add(
        "backup-command",
        f"`python -m companion backup DEST` on that log, Python's start included (median of"
        f" {len(command)})",
        f"{statistics.median(command):.0f} ms",
    )
    res.add(
        "backup-during-play",
        f"the game loop's answer times ({len(without)} actions, each synced) without copies /"
        " with copies taken 0.1 s apart meanwhile; the copies' own times",
        (
            f"without {spread(without)}; with {spread(with_copies)}; {len(copies)} copies,"
            f" median {statistics.median(copies):.1f} ms"
        )
        if copies
        else "no copy was taken",
    )
    res.save()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
