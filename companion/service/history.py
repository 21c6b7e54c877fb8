"""History reads (a game's log, its public state at a log position), computed once per log
position and cached, and never more than one at a time.

Guests may read a long game's history in a loop: each read replays up to the whole game. Here a
result is kept per (game, log position) and reused until the log changes in a way that changes
it; the replays that must be done run one at a time (:attr:`History.workers`), so that readers
queue behind each other instead of taking the processor from the game loop and the host.

The state at a position is the fold of the *effective* log up to it: the steps up to that
position, with every correction made to them since (a finish undone later is no finish there:
no ticket of anyone is shown).
"""

from __future__ import annotations

import bisect
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from companion.core.board import GameMap
from companion.core.errors import RulesError
from companion.games import EUROPE
from companion.service.errors import NotFound, Unavailable
from companion.service.fold import (
    AnyFold,
    GameFold,
    Step,
    apply_step,
    effective_steps,
    fold_game,
    last_of,
    start_fold,
)
from companion.service.shapes import CORRECTIONS
from companion.service.views import log_entry, log_kind, problems_settled, public_state
from companion.store import Event, EventStore

Current = Callable[[], tuple[str | None, Sequence[Event]]]


def effective_upto(events: Sequence[Event], upto: int) -> list[Event]:
    """The events of the effective log up to ``upto``: those up to it, and the corrections made
    after it to steps up to it (in log order)."""
    out = [e for e in events if e.seq <= upto]
    for e in events:
        if e.seq > upto and e.action.get("type") in CORRECTIONS:
            target = e.action.get("seq")
            if isinstance(target, int) and target <= upto:
                out.append(e)
    return out


class Replay:
    """A Europe game's effective log, replayed once: a copy of the fold every
    :attr:`every` steps, from which the state at any position is a few steps away."""

    every = 100

    def __init__(self, events: Sequence[Event], game_map: GameMap) -> None:
        self.first = events[0]
        self.map = game_map
        self.events: list[Event] = list(events)
        self.steps, _ = effective_steps(self.events)
        self.marks: list[tuple[int, GameFold, list[str]]] = []  # (steps applied, fold, warnings)
        self.lock = threading.Lock()

    def extend(self, events: Sequence[Event]) -> None:
        """Take the events logged since (plain steps: a correction starts another replay)."""
        with self.lock:
            for e in events[len(self.events) :]:
                self.events.append(e)
                if e.action.get("type") not in CORRECTIONS:
                    self.steps.append(Step(e.seq, e.actor, e.action, dict(e.action)))

    @staticmethod
    def _copy(fold: GameFold) -> GameFold:
        return fold.copy_with(skipped=list(fold.skipped))

    def fold_at(self, at: int) -> GameFold:
        """The fold of the effective log up to position ``at``."""
        with self.lock:
            n = bisect.bisect_right([s.seq for s in self.steps], at)
            start = 0
            fold: GameFold | None = None
            warnings: list[str] = []
            for done, mark, mark_warnings in self.marks:
                if done <= n:
                    start, fold, warnings = done, mark, mark_warnings
            fold = start_fold(self.first, self.map) if fold is None else fold
            fold = self._copy(fold)
            steps = self.steps
            for i in range(start, n):
                s = steps[i]
                if s.effective is not None:
                    try:
                        warnings = apply_step(fold, s.effective)
                    except (RulesError, KeyError, TypeError, ValueError) as exc:
                        fold.skipped.append(f"event {s.seq} was skipped: {exc}")
                        warnings = []
                if (i + 1) % self.every == 0 and (i + 1) > (self.marks[-1][0] if self.marks else 0):
                    self.marks.append((i + 1, self._copy(fold), list(warnings)))
            last = max((e for e in self.events if e.seq <= at), key=lambda e: e.seq)
        fold.steps = list(steps[:n])
        fold.seq = at
        fold.warnings = warnings if last.action.get("type") not in CORRECTIONS else []
        fold.last = last_of(last)
        return fold


class History:
    """The history reads of one service. ``current``: the current game's id and its events
    (in memory: no store read for the game being played)."""

    size = 256  # results kept
    workers = 1  # replays at a time
    wait = 20.0  # seconds a reader waits for its turn to replay (then 503, nothing changed)

    def __init__(
        self,
        store: EventStore,
        game_map: GameMap,
        current: Current,
        snapshot: Callable[[], tuple[dict[str, Any], str]] | None = None,
    ) -> None:
        self.store = store
        self._snapshot = snapshot
        self.map = game_map
        self._current = current
        self._lock = threading.Lock()
        self._cache: OrderedDict[tuple[Any, ...], tuple[dict[str, Any], str]] = OrderedDict()
        self._logs: OrderedDict[tuple[str, int], list[Event]] = OrderedDict()
        self._lines: dict[tuple[str, bool], dict[int, tuple[str, ...]]] = {}
        self._replays: OrderedDict[tuple[str, int], Replay] = OrderedDict()
        self._work = threading.BoundedSemaphore(self.workers)
        self.computed = 0  # replays done (for tests and benchmarks)

    # --- the log ------------------------------------------------------------------------
    def _events(self, game_id: str, position: int) -> list[Event]:
        gid, events = self._current()
        if gid == game_id:
            return list(events)
        key = (game_id, position)
        with self._lock:
            log = self._logs.get(key)
        if log is None:
            log = self.store.events(game_id)
            with self._lock:
                self._logs[key] = log
                while len(self._logs) > 4:
                    self._logs.popitem(last=False)
        return log

    def _position(self, game_id: str) -> int:
        """A number that changes whenever the game's log does (its last seq while it is the
        current game; its event count after, when it no longer changes)."""
        gid, events = self._current()
        if gid == game_id and events:
            return events[-1].seq
        game = self.store.game(game_id)
        if game is None:
            raise NotFound(
                f"There is no game {game_id!r}.", code="request.no_game", params={"game": game_id}
            )
        return -game.events

    # --- the cache ----------------------------------------------------------------------
    def _cached(
        self,
        key: tuple[Any, ...],
        compute: Callable[[], tuple[dict[str, Any], str]],
        *,
        work: bool = True,
    ) -> tuple[dict[str, Any], str]:
        """``key``'s result, computed by ``compute`` when not kept; ``work``: a replay (one at
        a time; the others wait their turn)."""
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
        if not work:
            hit = compute()
            self.computed += 1
            with self._lock:
                self._cache[key] = hit
                while len(self._cache) > self.size:
                    self._cache.popitem(last=False)
            return hit
        if not self._work.acquire(timeout=self.wait):
            raise Unavailable(
                "The history is busy; try again in a moment.", code="service.history_busy"
            )
        try:
            with self._lock:  # computed while this reader waited for its turn?
                hit = self._cache.get(key)
            if hit is None:
                hit = compute()
                self.computed += 1
        finally:
            self._work.release()
        with self._lock:
            self._cache[key] = hit
            self._cache.move_to_end(key)
            while len(self._cache) > self.size:
                self._cache.popitem(last=False)
        return hit

    def _replay(self, game_id: str, epoch: int, events: Sequence[Event]) -> Replay:
        with self._lock:
            replay = self._replays.get((game_id, epoch))
            if replay is None:
                replay = Replay(events, self.map)
                self._replays[(game_id, epoch)] = replay
                while len(self._replays) > 2:
                    self._replays.popitem(last=False)
        replay.extend(events)
        return replay

    @staticmethod
    def _both(data: dict[str, Any]) -> tuple[dict[str, Any], str]:
        return data, json.dumps(data, separators=(",", ":"))

    # --- the reads ----------------------------------------------------------------------
    def game_events(self, game_id: str, *, reveal: bool) -> tuple[dict[str, Any], str]:
        """The game's log for the history page (``reveal``: the host sees the tickets) as
        (``{}``, its JSON text): each line is made once; a new log position only adds its own
        and marks the undone ones."""
        game = self.store.game(game_id)
        if game is None:
            raise NotFound(
                f"There is no game {game_id!r}.", code="request.no_game", params={"game": game_id}
            )
        hide = not reveal and game.finished is None
        position = self._position(game_id)

        def compute() -> tuple[dict[str, Any], str]:
            events = self._events(game_id, position)
            text = self._log_text(game_id, events, hide)
            return {}, text

        # (one reader makes it, the others wait for it: twenty readers of a new position would
        # otherwise each make the same 1.4 MB at 10,000 events)
        return self._cached(("log", game_id, position, hide), compute)

    def _log_text(self, game_id: str, events: Sequence[Event], hide: bool) -> str:
        steps, _ = effective_steps(events)
        undone = {s.seq for s in steps if s.effective is None}
        with self._lock:
            lines = self._lines.get((game_id, hide))
            if lines is None:
                lines = self._lines[(game_id, hide)] = {}
                while len(self._lines) > 8:
                    self._lines.pop(next(iter(self._lines)))
        kind = log_kind(events)
        settled = problems_settled(steps)
        parts = []
        for move, e in enumerate(events):  # a game's log only grows: an event's move stays
            if e.action.get("problems"):  # rare, and settled later: made each time
                entry = log_entry(
                    e, kind, hide=hide, undone=e.seq in undone, move=move, settled=settled
                )
                parts.append(json.dumps(entry, separators=(",", ":")))
                continue
            both = lines.get(e.seq)
            if both is None:
                both = tuple(
                    json.dumps(
                        log_entry(e, kind, hide=hide, undone=u, move=move), separators=(",", ":")
                    )
                    for u in (False, True)
                )
                lines[e.seq] = both
            parts.append(both[e.seq in undone])
        return '{"game_id":' + json.dumps(game_id) + ',"events":[' + ",".join(parts) + "]}"

    def game_state(self, game_id: str, upto: int | None = None) -> tuple[dict[str, Any], str]:
        """The public state of a game at log position ``upto`` (None: its last)."""
        position = self._position(game_id)
        events = self._events(game_id, position)
        if not events:
            raise NotFound(
                f"There is no game {game_id!r}.", code="request.no_game", params={"game": game_id}
            )
        last = events[-1].seq
        at = last if upto is None else min(upto, last)
        if at == last and self._snapshot is not None and self._current()[0] == game_id:
            state, text = self._snapshot()  # the game being played, now: the live state
            if state.get("game_id") == game_id and state.get("seq") == last:
                return state, text
        if at < events[0].seq:
            raise NotFound(
                f"Game {game_id} has no events up to #{upto}.",
                code="request.no_events",
                params={"game": game_id, "seq": upto},
            )
        # A state before the end changes only when a correction is logged; the end's with
        # every event.
        corrections = [e.seq for e in events if e.action.get("type") in CORRECTIONS]
        epoch = corrections[-1] if corrections else 0
        key = ("state", game_id, at, position if at == last else epoch)

        def compute() -> tuple[dict[str, Any], str]:
            if events[0].action.get("game", EUROPE) == EUROPE:
                fold: AnyFold = self._replay(game_id, epoch, events).fold_at(at)
            else:
                fold = fold_game(effective_upto(events, at), self.map)
            state = public_state(fold, None, self.store.tokens_of(game_id), seq=at)
            return self._both(state)

        return self._cached(key, compute)


__all__ = ["History", "effective_upto"]
