"""System benchmark: the camera's claims through the rules, over rendered full games with hands.

    .venv/bin/python benchmarks/bench_vision_system.py [--seeds 11 12] [--size 960x540] [--fps 5]
                                                        [--readers oracle vision located]
                                                        [--end-turn report prompt] [--quick]
                                                        [--write]

Each game is a simulated game (``sources.simulated_game``: five players, hands and arms over the
board, card draws, passing shadows, a bumped table) rendered by the project's renderer at
``--size``; its frames go through the live watcher, and every claim and station the watcher
reports goes through ``Service.observe`` (the service's ``reconcile``: vetoes and questions) of a
table game that follows the script (``companion.sim.table_sim``): the current player is the
script's, cards drawn are entered, turns are ended with the button, the host answers questions
from the truth. Counts per game and reader:

* false claims ACCEPTED into the game (the bar: zero);
* false claims vetoed, asked about (the host said no), or ignored;
* true claims accepted, true claims asked about (and those the host's yes could not enter);
* claims the camera had not reported by the next player's turn (entered by the host);
* the watcher's own vetoes and questions (notices only), and final owners differing from truth.

Readers: ``oracle`` (the simulator's truth with misreads, mostly wrong under hands), ``vision``
(the project's pixel reader, the board registered from the simulator's truth) and ``located``
(the pixel reader finding the board itself). One core (cv2.setNumThreads(1)).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_vision_live import simulated_game_args
from benchmarks.results import WRITE_HELP, Results
from companion.sim.camera import SimulatedCamera, simulated_game
from companion.sim.live_oracle import OracleReader
from companion.sim.render import BoardRenderer
from companion.sim.table_sim import SimulatedTable, SystemCounts
from companion.vision.live.live import LiveWatcher, VisionReader
from companion.vision.live.sources import Frame


class TruthPlacedVisionReader(VisionReader):
    """The project's pixel reader, with the board registered from the simulator's truth."""

    def locate(self, frame: Frame) -> np.ndarray:
        assert frame.truth is not None
        return np.asarray(frame.truth.corners, np.float64)


def make_reader(kind: str, renderer: BoardRenderer, seed: int) -> Any:
    if kind == "oracle":
        return OracleReader(renderer.geometry, seed=seed)
    if kind == "vision":
        return TruthPlacedVisionReader()
    return VisionReader()


def run_game(
    renderer: BoardRenderer,
    seed: int,
    size: tuple[int, int],
    fps: float,
    reader_kind: str,
    end_turn: str,
    max_turns: int | None,
) -> SystemCounts:
    from companion.service import Service
    from companion.store import EventStore

    script = simulated_game(seed, renderer=renderer, max_turns=max_turns)
    cam = SimulatedCamera(script, seed=seed, fps=fps, size=size, renderer=renderer)
    watcher = LiveWatcher(make_reader(reader_kind, renderer, seed), geometry=renderer.geometry)
    with tempfile.TemporaryDirectory() as tmp:
        store = EventStore(tmp)
        try:
            table = SimulatedTable(script, watcher, Service(store), end_turn=end_turn)
            with cam:
                counts = table.run(cam)
        finally:
            store.close()
    return counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    simulated_game_args(ap)
    ap.add_argument("--end-turn", nargs="+", default=["report"], choices=["report", "prompt"])
    ap.add_argument("--verbose", action="store_true", help="every question and veto")
    ap.add_argument("--write", action="store_true", help=WRITE_HELP)
    args = ap.parse_args()
    res = Results("bench_vision_system", write=args.write)
    cv2.setNumThreads(1)
    w, h = (int(v) for v in args.size.lower().split("x"))
    renderer = BoardRenderer()
    print(
        f"system: simulated games at {w}x{h}, {args.fps:g} fps, watcher -> Service.observe "
        "(reconcile), one core"
    )
    cols = (
        "frames pieces reports | FALSE-acc f-veto f-ask f-ign | true-acc t-ask t-ask-fail "
        "t-veto t-ign by-host | w-veto w-ask | mismatch"
    )
    print(f"{'reader':8} {'end':6} {'seed':>4} {cols}")
    for end_turn in args.end_turn:
        for reader in args.readers:
            total = SystemCounts()
            for seed in args.seeds:
                a = time.perf_counter()
                c = run_game(
                    renderer,
                    seed,
                    (w, h),
                    args.fps,
                    reader,
                    end_turn,
                    20 if args.quick else None,
                )
                took = time.perf_counter() - a
                total.add(c)
                print(f"{reader:8} {end_turn:6} {seed:>4} {_row(c)}   ({took:.0f} s)")
                for note in c.notes:
                    if args.verbose or "FALSE" in note or "vetoed" in note or "question" in note:
                        print(f"      {note}")
            print(f"{reader:8} {end_turn:6} {'all':>4} {_row(total)}")
            print(
                f"  {reader}/{end_turn}: {total.false_accepted} false claims accepted in "
                f"{total.frames} frames ({1000 * total.false_accepted / max(1, total.frames):.2f}"
                f" per 1,000); false sightings stopped: {total.false_vetoed} vetoed, "
                f"{total.false_asked} asked, {total.false_ignored} ignored; true: "
                f"{total.true_accepted} accepted, {total.true_asked} asked of {total.pieces}; "
                f"{total.entered_by_host} entered by the host"
            )
            res.add(
                f"system-{reader}-{end_turn}",
                f"vision through the service: the live watcher ({reader} reader) on rendered games"
                f" with hands (seeds {', '.join(map(str, args.seeds))}, {w}x{h}), every sighting"
                f" through the service's checks, turns ended by {end_turn}",
                f"{total.false_accepted} false claims accepted in {total.frames} frames; true:"
                f" {total.true_accepted} accepted + {total.true_asked} asked of {total.pieces};"
                f" {total.false_asked} false asked; {total.entered_by_host} entered by the host",
            )
    res.save()
    return 0


def _row(c: SystemCounts) -> str:
    return (
        f"{c.frames:>6} {c.pieces:>6} {c.reports:>7} | {c.false_accepted:>9} {c.false_vetoed:>6} "
        f"{c.false_asked:>5} {c.false_ignored:>5} | {c.true_accepted:>8} {c.true_asked:>5} "
        f"{c.true_asked_failed:>10} {c.true_vetoed:>6} {c.true_ignored:>5} "
        f"{c.entered_by_host:>7} | "
        f"{c.watcher_vetoes:>6} {c.watcher_questions:>5} | {c.final_mismatches:>8}"
    )


if __name__ == "__main__":
    raise SystemExit(main())
