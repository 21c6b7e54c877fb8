"""A simulated table: a rendered game's camera frames through the live watcher into the service.

Measures the whole system, not the watcher alone: every claim and station the watcher reports
goes to :meth:`companion.service.Service.observe` (the path ``serve`` uses for the camera), whose
``reconcile`` applies the rules (a route owned by someone else, too few trains, a closed double
route are vetoed; a colour that is not the current player's becomes a question). The table
follows the simulated game's script (:attr:`SimScript.turns`): the game is started with the
script's players, the player whose turn it is is the service's current player, a player who draws
cards has it entered, and turns are ended with the "end turn" button:

* ``end_turn="report"``: the player presses it once the camera's report reached the dashboard
  (after ``reaction`` seconds), or at the latest when the next player reaches for the board; a
  claim the camera has not reported by then is entered by the host, as the demo does;
* ``end_turn="prompt"``: the player presses it ``reaction`` seconds after their hand left the
  board, whatever the camera did (a claim the camera reports later has to be asked about).

The host answers every question the service asks from the truth of the script (yes to a real
claim, no to a false one). Each report is scored against that truth: false claims *accepted* into
the game (the number that must be zero), false claims vetoed or asked about, true claims accepted
and true claims asked about. Used by ``benchmarks/bench_vision_system.py`` and the tests.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from companion.sim.camera import SimScript
from companion.vision.live.live import (
    ClaimSeen,
    Event,
    LiveWatcher,
    NeedsConfirmation,
    StationSeen,
    Vetoed,
    as_questions,
)
from companion.vision.live.sources import Frame

log = logging.getLogger(__name__)


@dataclass
class SystemCounts:
    """What came of the camera's reports in the game (see the module's docstring)."""

    frames: int = 0
    pieces: int = 0  # claims and stations in the script
    reports: int = 0  # claims and stations the watcher reported to the service
    false_accepted: int = 0
    false_vetoed: int = 0
    false_asked: int = 0
    false_ignored: int = 0
    true_accepted: int = 0
    true_asked: int = 0
    true_asked_failed: int = 0  # the host said yes, but the rules no longer allowed it
    true_vetoed: int = 0
    true_ignored: int = 0  # already in the game (entered by the host before the camera saw it)
    entered_by_host: int = 0  # claims the camera had not reported by the next player's turn
    watcher_vetoes: int = 0  # the watcher's own vetoes and questions (notices only)
    watcher_questions: int = 0
    final_mismatches: int = 0  # routes and stations whose owner in the game differs from truth
    notes: list[str] = field(default_factory=list)

    def add(self, other: SystemCounts) -> None:
        for name, value in vars(other).items():
            if isinstance(value, int):
                setattr(self, name, getattr(self, name) + value)
            else:
                self.notes.extend(value)


class SimulatedTable:
    """Plays ``script`` at a table with ``service``, the camera's events coming from ``watcher``.

    Call :meth:`start`, then :meth:`frame` for every camera frame (in order), then :meth:`finish`.
    """

    def __init__(
        self,
        script: SimScript,
        watcher: LiveWatcher,
        service: Any,
        *,
        end_turn: str = "report",
        reaction: float = 0.6,
    ) -> None:
        if end_turn not in ("report", "prompt"):
            raise ValueError(f"end_turn must be 'report' or 'prompt', not {end_turn!r}")
        if not script.turns:
            raise ValueError("the script has no turns (use sources.simulated_game)")
        self.script = script
        self.watcher = watcher
        self.service = service
        self.end_turn = end_turn
        self.reaction = float(reaction)
        self.counts = SystemCounts()
        # truth: (kind, key) -> (colour, time put down)
        self.truth: dict[tuple[str, str], tuple[str, float]] = {}
        for e in script.events:
            if e.kind == "claim":
                self.truth[("route", e.route)] = (e.color, e.t)
            elif e.kind == "station":
                self.truth[("station", e.city)] = (e.color, e.t)
        self.counts.pieces = len(self.truth)
        self._turn = 0  # the turn being played (index in script.turns)
        self._drawn = False  # its "drew cards" entered
        self._applied_at: float | None = None  # when its claim or station entered the game

    # -- the service -------------------------------------------------------------------------

    def start(self) -> None:
        from companion.service import Actor

        players = [{"name": c, "color": c} for c in self.script.players]
        self.watcher.players = self.script.players  # as serve's camera is told its game's
        # the simulated table enters no first tickets: its turns do not wait for them
        start = {"type": "new_game", "mode": "table", "players": players, "tickets_tracked": False}
        self.service.act(start, Actor.host())

    def _tracker(self) -> Any:
        fold = self.service.fold
        return None if fold is None else fold.tracker

    def _owner(self, kind: str, key: str) -> str | None:
        t = self._tracker()
        if t is None:
            return None
        owners = t.route_owner if kind == "route" else t.station_owner
        owner: str | None = owners.get(key)
        return owner

    def _host(self, action: dict[str, Any]) -> bool:
        from companion.service import Actor, ServiceError

        try:
            self.service.act(action, Actor.host())
        except ServiceError as exc:
            self.counts.notes.append(f"host could not {action}: {exc}")
            return False
        return True

    def _button(self, name: str) -> None:
        self.service.observe({"kind": "button", "name": name})

    # -- the players -------------------------------------------------------------------------

    def _turn_piece(self, k: int) -> tuple[str, str] | None:
        turn = self.script.turns[k]
        if turn.action == "claim":
            return ("route", turn.key)
        if turn.action == "station":
            return ("station", turn.key)
        return None

    def _advance(self, now: float) -> None:
        """Do what the table does up to time ``now``: cards drawn, turns ended."""
        turns = self.script.turns
        while self._turn < len(turns):
            k = self._turn
            turn = turns[k]
            nxt = turns[k + 1].t if k + 1 < len(turns) else math.inf
            if now < turn.done:
                return
            if turn.action == "draw" and not self._drawn:
                self._host({"type": "drew_cards", "player": turn.player, "count": 2})
                self._drawn = True
                self._applied_at = turn.done
            piece = self._turn_piece(k)
            if (
                piece is not None
                and self._applied_at is None
                and self._owner(*piece) == turn.player
            ):
                self._applied_at = now
            if self.end_turn == "prompt":
                end = turn.done + self.reaction
            elif self._applied_at is not None:
                end = min(self._applied_at + self.reaction, nxt)
            else:
                end = nxt
            if now < end:
                return
            if (
                self.end_turn == "report"
                and piece is not None
                and self._owner(*piece) != turn.player
            ):
                # the camera has not reported it by now: the host enters it
                self.counts.entered_by_host += 1
                self.counts.notes.append(f"entered by the host: {piece[1]} {turn.player}")
                kind = "claim" if piece[0] == "route" else "build_station"
                where = "route" if piece[0] == "route" else "city"
                self._host({"type": kind, "player": turn.player, where: piece[1]})
            t = self._tracker()
            if t is not None and t.current_player.color == turn.player and not t.over:
                self._button("end_turn")
            self._turn += 1
            self._drawn = False
            self._applied_at = None

    # -- the camera --------------------------------------------------------------------------

    def frame(self, frame: Frame) -> list[Event]:
        """One camera frame: the table's actions due by then, then the watcher's events."""
        self._advance(frame.timestamp)
        self.counts.frames += 1
        events = as_questions(self.watcher, self.watcher.process(frame))
        for e in events:
            self._report(e, frame.timestamp)
        return events

    def run(self, frames: Iterable[Frame]) -> SystemCounts:
        self.start()
        for f in frames:
            self.frame(f)
        return self.finish()

    def _report(self, e: Event, now: float) -> None:
        c = self.counts
        if isinstance(e, Vetoed):
            c.watcher_vetoes += 1
            return
        if isinstance(e, NeedsConfirmation):
            c.watcher_questions += 1
            return
        from companion.service.camera import sighting

        if isinstance(e, ClaimSeen):
            kind, key = "route", e.route
            obs = sighting("claim", e.route, e.color, unsure=e.unsure, listed=e.listed)
        elif isinstance(e, StationSeen):
            kind, key = "station", e.city
            obs = sighting("station", e.city, e.color)
        else:
            return
        c.reports += 1
        want = self.truth.get((kind, key))
        true = want is not None and want[0] == e.color and want[1] <= now + 1e-9
        result = self.service.observe(obs)["result"]
        label = f"{key} {e.color} (truth {want[0] if want else None})"
        if result == "applied":
            if true:
                c.true_accepted += 1
                self._mark_applied(kind, key, now)
            else:
                c.false_accepted += 1
                c.notes.append(f"FALSE claim accepted into the game: {label}")
        elif result == "vetoed":
            if true:
                c.true_vetoed += 1
                c.notes.append(f"true claim vetoed: {label}")
            else:
                c.false_vetoed += 1
                c.notes.append(f"false claim vetoed: {label}")
        elif result == "pending":
            self._answer(kind, key, e.color, true, label, now)
        elif true:
            c.true_ignored += 1
        else:
            c.false_ignored += 1
            c.notes.append(f"false claim ignored: {label}")

    def _mark_applied(self, kind: str, key: str, now: float) -> None:
        if self._turn < len(self.script.turns) and self._turn_piece(self._turn) == (kind, key):
            self._applied_at = now

    def _answer(self, kind: str, key: str, color: str, true: bool, label: str, now: float) -> None:
        """The host answers the service's question from the truth."""
        from companion.service import Actor, ServiceError

        c = self.counts
        what = "claim" if kind == "route" else "station"
        conf = next(
            (
                q
                for q in self.service.pending.confirmations
                if q.kind == what and q.key == key and q.color == color
            ),
            None,
        )
        if true:
            c.true_asked += 1
            c.notes.append(f"question for a true claim: {label}: {conf.reason if conf else '?'}")
        else:
            c.false_asked += 1
            c.notes.append(f"question for a false claim: {label}: {conf.reason if conf else '?'}")
        if conf is None:
            return
        try:
            self.service.confirm(conf.id, true, Actor.host())
        except ServiceError as exc:
            c.true_asked_failed += 1
            c.notes.append(f"the host said yes to {label}, refused: {exc}")
            # the host takes the question away and enters the piece by hand later
            self.service.confirm(conf.id, False, Actor.host())
            return
        if true:
            self._mark_applied(kind, key, now)

    def finish(self) -> SystemCounts:
        """The end of the recording: the last turns are ended, the game compared with truth."""
        self._advance(math.inf)
        t = self._tracker()
        if t is not None:
            for (kind, key), (color, _) in self.truth.items():
                if self._owner(kind, key) != color:
                    self.counts.final_mismatches += 1
            owners = [("route", k, v) for k, v in t.route_owner.items()]
            owners += [("station", k, v) for k, v in t.station_owner.items()]
            for kind, key, color in owners:
                if self.truth.get((kind, key), (None,))[0] != color:
                    self.counts.final_mismatches += 1
        return self.counts
