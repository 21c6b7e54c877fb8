"""The live watcher's same-colour guess: trains on a route printed in their own colour.

The reader cannot tell such trains from their print, so the watcher guesses from the pixels: a
free route printed in a player colour, read free, whose pixels changed on most of its area (more
than its twin's), and not as a light changes it (each of its spaces' own brightness taken out,
some of it still changed: ``live_board.Patches.residue``; a lamp on one side of the table darkens
the board unevenly, which the board's brightness scale alone does not take out), for
``confirm_reads`` reads in a row. That guess is only as good as the pixels, and anything else
that changes the whole board's look at once (a board registered a pixel off, something lying
still taken as the new normal) changes every such route at once. Hence three rules, kept here:

* only a colour that plays is guessed (the service says which: ``players``; None while no game
  is known). A route printed in a colour nobody plays whose look changed is left as it is, its
  reference too: what changed there can only be another player's trains, which the reader may
  still see (the evidence gate then passes, as for any claim);
* one turn puts down one route: when several routes printed in a colour that plays are
  candidates in the same read, none is guessed. They are held while that lasts; a change that
  goes away leaves the real one, if any, alone and guessed; one that stays
  ``same_colour_hold_reads`` reads is the board's new look (its routes are taken as they now
  look, nothing is reported);
* a guess the rules refused is not made again on that route.

Pure bookkeeping: the watcher measures the pixels and applies what :meth:`SameColourHints.judge`
decides.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from companion.vision.geometry.board import DrawnBoard
from companion.vision.live.live_board import Patches
from companion.vision.live.live_events import LiveConfig
from companion.vision.types import PLAYER_COLORS


def candidates(
    free: Iterable[str],
    geometry: DrawnBoard,
    patches: Patches,
    look: tuple[np.ndarray, float],
    cfg: LiveConfig,
) -> dict[str, str]:
    """The routes of ``free`` (read free, as reported) printed in a player colour whose pixels
    (``patches``, against ``look``: the work picture and its brightness) changed on at least
    ``same_colour_evidence`` of their area since their state was last reported, and more than
    their twin's (else the twin's trains spill over), and not as a light changes them (the
    share still changed once each space's own brightness is taken out, ``Patches.residue``, at
    least ``same_colour_residue``): route id -> printed colour."""
    flat, level = look
    pixel = cfg.evidence_pixel

    def evidence(route: str) -> float:
        return patches.evidence(("route", route), flat, level, pixel)

    out: dict[str, str] = {}
    for route in free:
        info = geometry.routes[route]
        if info.color not in PLAYER_COLORS:
            continue
        share = evidence(route)
        if share < cfg.same_colour_evidence:
            continue
        if info.twin is not None and evidence(info.twin) > share + cfg.twin_margin:
            continue
        if patches.residue(("route", route), flat, pixel) < cfg.same_colour_residue:
            continue
        out[route] = info.color
    return out


@dataclass(frozen=True)
class HintRuling:
    """What one read's candidates come to: the route to guess (at most one), and the routes
    whose present look becomes their reference without any report (``settle``)."""

    guess: str | None = None
    settle: tuple[str, ...] = ()
    held: bool = False  # several candidates at once: nothing guessed this read


@dataclass
class SameColourHints:
    """Consecutive reads per candidate route, and the rules above."""

    config: LiveConfig
    players: frozenset[str] | None = None
    counts: dict[str, int] = field(default_factory=dict)
    refused: set[str] = field(default_factory=set)
    held_reads: int = 0  # reads in a row with several candidates

    def follow(self, players: Iterable[str] | None) -> None:
        """The colours that play (None: not known, every player colour may be guessed)."""
        self.players = None if players is None else frozenset(players)

    def plays(self, color: str) -> bool:
        return self.players is None or color in self.players

    def judge(self, candidates: dict[str, str]) -> HintRuling:
        """``candidates``: this read's routes (id -> printed colour) that pass the pixel test.
        Counts those that may be guessed (a route missing from one read starts again) and
        rules."""
        self.counts = {
            r: self.counts.get(r, 0) + 1
            for r, color in candidates.items()
            if r not in self.refused and self.plays(color)
        }
        if len(self.counts) >= self.config.same_colour_burst:
            self.held_reads += 1
            if self.held_reads < self.config.same_colour_hold_reads:
                return HintRuling(held=True)
            settle = tuple(sorted(self.counts))
            self.counts.clear()
            self.held_reads = 0
            return HintRuling(settle=settle, held=True)
        self.held_reads = 0
        due = [r for r, n in self.counts.items() if n >= self.config.confirm_reads]
        if not due:
            return HintRuling()
        del self.counts[due[0]]
        return HintRuling(guess=due[0])

    def refuse(self, route: str) -> None:
        """The rules refused the guess on ``route``: it is not made again there."""
        self.refused.add(route)
        self.counts.pop(route, None)
