"""Other Ticket to Ride maps refused, over many seeds (and the Europe board found, as control).

Every kind of ``companion.sim.other_maps`` (invented maps in three aspects, Europe with its
cities warped, Europe with its colours shuffled) and the Europe board itself are drawn by the
renderer with trains on them in 1920x1080 camera frames, overhead and at an angle from a seat,
and located with ``locate_board``. Per kind and view: how many were refused, and how close the
refused ones came to being accepted:

* best candidate: the highest share of spaces explained (on half the spaces) by any outline
  locate tried; candidates below ``locate.candidate_min_explained`` are refused at once, one at
  or above ``locate.accept_full_frame`` stops the search;
* best full fit: the highest share explained on ALL the spaces by any board position locate
  scored in full; its final score (one of these) must reach ``locate.min_explained``.

Both are read by wrapping ``companion.vision.locate.locate.board_fit`` while the benchmark runs (the
locator itself is not changed). Run: ``.venv/bin/python benchmarks/bench_vision_refuse.py``
(``--quick``: 5 seeds per kind; ``--seeds N``; ``--kinds landscape,europe``; ``--write``).
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from results import WRITE_HELP, Results

from companion.sim.other_maps import KINDS, other_map, render_case
from companion.sim.render import BoardRenderer
from companion.vision.decide.context import make_context
from companion.vision.geometry.board import load_geometry
from companion.vision.locate import locate as locate_mod
from companion.vision.types import NoBoardError

VIEWS = ("overhead", "angled")


@dataclass
class Probe:
    """The best shares of explained spaces seen by ``board_fit`` during one locate call."""

    sub: float = 0.0
    full: float = 0.0

    def reset(self) -> None:
        self.sub = self.full = 0.0


@contextlib.contextmanager
def probing(probe: Probe) -> Iterator[bool]:
    """Wrap ``locate.board_fit`` to record the best explained shares; yields False (and
    records nothing) when the locator has no such function any more."""
    original: Callable[..., tuple[float, float]] | None = getattr(locate_mod, "board_fit", None)
    if original is None:
        yield False
        return
    orig = original

    def wrapped(image: Any, h: Any, ctx: Any, *, subset: bool = False) -> tuple[float, float]:
        explained, cost = orig(image, h, ctx, subset=subset)
        if subset:
            probe.sub = max(probe.sub, explained)
        else:
            probe.full = max(probe.full, explained)
        return explained, cost

    locate_mod.board_fit = wrapped
    try:
        yield True
    finally:
        locate_mod.board_fit = orig


@dataclass
class Outcome:
    seed: int
    accepted: bool
    quality: float  # the location's quality when accepted, else nan
    best_sub: float
    best_full: float
    corner_err: float  # pixels, when accepted
    ms: float


@dataclass
class Tally:
    outcomes: list[Outcome] = field(default_factory=list)

    def add(self, o: Outcome) -> None:
        self.outcomes.append(o)


def run(kinds: list[str], seeds: int, res: Results) -> int:
    cv2.setNumThreads(1)
    ctx = make_context()
    cfg = ctx.cfg["locate"]
    min_explained = float(cfg["min_explained"])
    accept = float(cfg["accept_full_frame"])
    cand_min = float(cfg["candidate_min_explained"])
    print(
        f"thresholds: candidate_min_explained {cand_min}, min_explained {min_explained}, "
        f"accept_full_frame {accept}; {seeds} seeds per kind, 1920x1080 frames, views "
        f"{', '.join(VIEWS)}"
    )
    europe = load_geometry()
    probe = Probe()
    tallies: dict[tuple[str, str], Tally] = {}
    t_all = time.perf_counter()
    with probing(probe) as probed:
        if not probed:
            print("(locate.board_fit not found: best-fit numbers are not available)")
        for kind in kinds:
            for seed in range(seeds):
                g = europe if kind == "europe" else other_map(kind, seed, europe)
                renderer = BoardRenderer(g, art_seed=seed)
                for view in VIEWS:
                    frame = render_case(renderer, seed, angled=view == "angled")
                    probe.reset()
                    t0 = time.perf_counter()
                    try:
                        loc = locate_mod.locate_board(frame.image, context=ctx)
                        err = float(np.abs(loc.corners - frame.corners).max())
                        ok, quality = True, float(loc.quality)
                    except NoBoardError:
                        ok, quality, err = False, float("nan"), float("nan")
                    ms = (time.perf_counter() - t0) * 1000
                    tallies.setdefault((kind, view), Tally()).add(
                        Outcome(seed, ok, quality, probe.sub, probe.full, err, ms)
                    )
            report_kind(kind, tallies, min_explained, accept)
            outs = [o for view in VIEWS for o in tallies[(kind, view)].outcomes]
            found = sum(o.accepted for o in outs)
            res.add(
                f"refuse-{kind}",
                f"vision, {'the Europe board (control)' if kind == 'europe' else kind + ' maps'}"
                f" drawn by the renderer, 1920x1080 {' and '.join(VIEWS)}, seeds 0-{seeds - 1}",
                f"found {found}/{len(outs)}"
                if kind == "europe"
                else f"refused {len(outs) - found}/{len(outs)}",
            )
    print(f"\n(total {time.perf_counter() - t_all:.0f} s, rendering included)")
    return 0


def report_kind(
    kind: str, tallies: dict[tuple[str, str], Tally], min_explained: float, accept: float
) -> None:
    print(f"\n== {kind} ==" + ("  (control: must be FOUND)" if kind == "europe" else ""))
    for view in VIEWS:
        outs = tallies[(kind, view)].outcomes
        n = len(outs)
        acc = [o for o in outs if o.accepted]
        ref = [o for o in outs if not o.accepted]
        ms = statistics.median(o.ms for o in outs)
        if kind == "europe":
            line = f"  {view:8s} found {len(acc)}/{n}"
            if acc:
                qs = sorted(o.quality for o in acc)
                errs = sorted(o.corner_err for o in acc)
                line += (
                    f"; quality min {qs[0]:.3f} median {statistics.median(qs):.3f}; corner "
                    f"error median {statistics.median(errs):.1f} px, max {errs[-1]:.1f} px"
                )
            print(line + f"; locate median {ms:.0f} ms")
            if ref:
                print(
                    "    REFUSED (false refusals): "
                    + ", ".join(f"seed {o.seed} (best full {o.best_full:.3f})" for o in ref)
                )
            continue
        line = f"  {view:8s} refused {len(ref)}/{n}"
        if ref:
            top_full = max(o.best_full for o in ref)
            top_sub = max(o.best_sub for o in ref)
            line += (
                f"; among refusals best candidate {top_sub:.3f}, best full fit {top_full:.3f} "
                f"({min_explained - top_full:+.3f} to min_explained {min_explained}, "
                f"{accept - top_full:+.3f} to accept_full_frame {accept})"
            )
        print(line + f"; locate median {ms:.0f} ms")
        if acc:
            print(
                "    ACCEPTED AS EUROPE: "
                + ", ".join(f"seed {o.seed} (quality {o.quality:.3f})" for o in acc)
            )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="5 seeds per kind")
    parser.add_argument("--write", action="store_true", help=WRITE_HELP)
    parser.add_argument("--seeds", type=int, default=50, help="seeds per kind (default 50)")
    parser.add_argument(
        "--kinds",
        default=",".join([*KINDS, "europe"]),
        help="comma-separated kinds (default: every other-map kind and the europe control)",
    )
    args = parser.parse_args(argv)
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in (*KINDS, "europe")]
    if unknown:
        print(f"unknown kind(s): {', '.join(unknown)}", file=sys.stderr)
        return 2
    res = Results("bench_vision_refuse", write=args.write)
    code = run(kinds, 5 if args.quick else max(1, args.seeds), res)
    res.save()
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
