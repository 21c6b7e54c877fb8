"""Live camera, the same-colour guess when the board's look changes at once: claims asked, lost,
wrong questions and the host's "please check" notices.

    .venv/bin/python benchmarks/bench_live_bursts.py [--seeds 5 6] [--write]

A yellow train on a yellow route is invisible to the reader (the oracle here is blind to trains
on a route printed in their colour, as the pixel reader is); the live watcher guesses it from the
pixels and asks the host (an unsure claim). A lamp on one side of the table switched off darkens
the board unevenly: scenarios put such a lamp (four gradients, and a uniform dimming) at 4 s,
alone and with one same-colour claim in that same moment (two routes per player colour, black on
black the weakest), on the project's renderer. Also: two same-colour claims in one look (a
burst no light explains) and a bumped table with a claim. Counted per scenario run:

* asked: the claim was asked about (an unsure claim of its route and colour), as it should;
* lost: it was not (nothing said about it, beyond a host notice naming it among others);
* wrong: an unsure claim of a route nobody claimed (a wrong question for the host);
* notices: ``LookChanged`` events (the host's "please check" naming several routes).

Runs on any version of the watcher (an older one simply has no ``LookChanged``), so the same
script measures before and after a change: ``PYTHONPATH=<old tree> python <this script>``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.results import WRITE_HELP, Results
from companion.sim.camera import SimulatedCamera
from companion.sim.live_oracle import BlindToTheirOwnColour
from companion.sim.render import BoardRenderer
from companion.vision.live.live import ClaimSeen, LiveWatcher
from companion.vision.live.sources import Frame
from companion.vision.types import PLAYER_COLORS

SIZE = (480, 270)
FPS = 5.0
LAMPS = {  # name: (darkest, across the frame (else down it)), at 4 s
    "lamp-left-0.7": (0.7, True),
    "lamp-left-0.8": (0.8, True),
    "lamp-top-0.75": (0.75, False),
    "lamp-top-0.85": (0.85, False),
    "dimmer-0.94": (0.94, None),
}


def lamp(name: str) -> Callable[[float, np.ndarray], np.ndarray]:
    darkest, across = LAMPS[name]
    w, h = SIZE
    if across is None:
        gain: Any = darkest
    else:
        ramp = np.linspace(darkest, 1.0, w if across else h, dtype=np.float32)
        gain = ramp[None, :, None] if across else ramp[:, None, None]

    def light(t: float, image: np.ndarray) -> np.ndarray:
        if t < 4.0:
            return image
        return np.clip(image.astype(np.float32) * gain, 0, 255).astype(np.uint8)

    return light


def run(
    renderer: BoardRenderer,
    script: list[dict[str, Any]],
    seed: int,
    light: Callable[[float, np.ndarray], np.ndarray] | None,
) -> tuple[list[ClaimSeen], int, LiveWatcher]:
    """The claims the watcher reported and its LookChanged events (counted by name)."""
    cam = SimulatedCamera(
        [*script, {"t": 13.5, "until": 14.0, "shadow": [0.9, 0.9]}],
        seed=seed,
        fps=FPS,
        size=SIZE,
        renderer=renderer,
        flicker=0.01,
    )
    watcher = LiveWatcher(
        BlindToTheirOwnColour(renderer.geometry, flip=0.0, seed=seed), geometry=renderer.geometry
    )
    claims: list[ClaimSeen] = []
    looks = 0
    with cam:
        for f in cam:
            if light is not None:
                f = Frame(light(f.timestamp, f.image), f.timestamp, f.index, f.truth)
            for e in watcher.process(f):
                if isinstance(e, ClaimSeen):
                    claims.append(e)
                looks += type(e).__name__ == "LookChanged"
    return claims, looks, watcher


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[5])
    ap.add_argument("--write", action="store_true", help=WRITE_HELP)
    args = ap.parse_args()
    res = Results("bench_live_bursts", write=args.write)
    cv2.setNumThreads(1)
    renderer = BoardRenderer()
    geo = renderer.geometry
    routes = [
        r
        for c in PLAYER_COLORS
        for r in sorted(k for k, i in geo.routes.items() if i.color == c and i.twin is None)[:2]
    ]
    totals = {"asked": 0, "lost": 0, "wrong": 0, "notices": 0, "runs": 0, "claims": 0}
    alone = {"wrong": 0, "notices": 0, "runs": 0}
    print(f"{'scenario':34} {'seed':>4} {'claim':28} {'asked':>5} {'wrong':>5} {'notices':>7}")
    for seed in args.seeds:
        cases: list[tuple[str, list[dict[str, Any]], str | None, Any]] = []
        for name in LAMPS:
            cases.append((name, [], None, lamp(name)))
            for r in routes:
                claim = {"t": 4.0, "claim": r, "color": geo.routes[r].color}
                cases.append((name, [claim], r, lamp(name)))
        two = [{"t": 2.0, "claim": r, "color": geo.routes[r].color} for r in routes[6:8]]
        cases.append(("two claims at once", two, None, None))
        bump = [{"t": 4.0, "nudge": [3, 2, 0.3]}, {"t": 4.0, "claim": routes[6], "color": "yellow"}]
        cases.append(("bumped table + claim", bump, routes[6], None))
        for name, script, route, light in cases:
            claims, looks, _ = run(renderer, script, seed, light)
            truth = {(e["claim"], e["color"]) for e in script if "claim" in e}
            asked = sum((c.route, c.color) in truth for c in claims if c.unsure)
            wrong = sum((c.route, c.color) not in truth for c in claims)
            print(f"{name:34} {seed:>4} {route or '-':28} {asked:>5} {wrong:>5} {looks:>7}")
            if route is None and len(truth) < 2:
                alone["wrong"] += wrong
                alone["notices"] += looks
                alone["runs"] += 1
                continue
            if route is not None:
                totals["claims"] += 1
                totals["asked"] += asked
                totals["lost"] += 1 - min(1, asked)
            totals["wrong"] += wrong
            totals["notices"] += looks
            totals["runs"] += 1
    t = totals
    print(
        f"  with a claim: {t['asked']}/{t['claims']} asked, {t['lost']} lost, {t['wrong']} wrong"
        f" questions, {t['notices']} host notices in {t['runs']} runs"
    )
    print(
        f"  light alone: {alone['wrong']} wrong questions, {alone['notices']} host notices in"
        f" {alone['runs']} runs"
    )
    seeds = ", ".join(map(str, args.seeds))
    res.add(
        "live-bursts-claims",
        f"live camera, a same-colour claim at the moment a lamp goes off (4 gradients and a"
        f" dimmer, 2 routes per player colour), or the table is bumped (seeds {seeds},"
        f" {SIZE[0]}x{SIZE[1]})",
        f"{t['asked']}/{t['claims']} asked, {t['lost']} lost, {t['wrong']} wrong questions",
    )
    res.add(
        "live-bursts-light",
        f"live camera, a lamp going off with no claim (seeds {seeds})",
        f"{alone['wrong']} wrong questions, {alone['notices']} host notices in"
        f" {alone['runs']} runs",
    )
    res.save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
