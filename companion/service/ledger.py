"""The current game, changed only on the loop thread: its events, its fold, the pending taps and
the pairings. A step or a correction is tried on a copy, appended to the log (committed), then
kept; every change refreshes the public state on the event streams."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from companion.core.board import GameMap
from companion.core.errors import RulesError
from companion.games import GameKind
from companion.service.auth import Actor, check_own_undo
from companion.service.errors import (
    BadRequest,
    Conflict,
    Forbidden,
    NotFound,
    conflict,
    sentence,
)
from companion.service.fold import (
    AnyFold,
    GameFold,
    OtherFold,
    Step,
    apply_other,
    apply_step,
    check_clash,
    check_problem,
    fold_colors,
    fold_game,
    fold_game_name,
    fold_holders,
    fold_names,
    fold_tracker,
    fold_winners,
    last_of,
    own_undo,
    problem_key,
    start_any_fold,
    strict_fold,
    tracker_of,
    turn_ended_already,
    turn_key,
)
from companion.service.pending import Pending, fill_from_pending, open_confirmations
from companion.service.shapes import CORRECTIONS, SERVICE_STEPS
from companion.service.streams import Streams
from companion.service.views import clash_notices, final_round_announcement, public_state
from companion.store import Event, EventStore

# a change to the game: (action, actor), as Ledger._step and Ledger._correct
Change = Callable[[dict[str, Any], Actor], None]


def new_game_id() -> str:
    """A new game's id (random; a test may fix it, to compare two runs byte for byte)."""
    return "g" + secrets.token_hex(5)


class Ledger:
    """The game being played now (``fold``) and what goes with it."""

    def __init__(self, store: EventStore, game_map: GameMap, streams: Streams) -> None:
        self.store = store
        self.map = game_map
        self.streams = streams
        self.fold: AnyFold | None = None
        self.events: list[Event] = []
        self.pending = Pending()
        self.paired: dict[str, str] = {}
        self.marks: dict[int, tuple[Any, ...]] = {}  # log position -> whose turn (turn_key)
        self.seen: set[str] = set()  # pairing tokens a phone has opened (not just made)

    def load(self) -> None:
        """The current game of the log, as a restart finds it (pending taps forgotten)."""
        game_id = self.store.current_game_id()
        if game_id is not None:
            self.events = self.store.events(game_id)
            self.fold = fold_game(self.events, self.map)
            self.paired = self.store.tokens_of(game_id)
            self.seen = self.store.seen_tokens()  # phone_seen, as before the restart
        self.refresh(publish=False)

    @property
    def seq(self) -> int:
        return self.fold.seq if self.fold else self.store.last_seq()

    def refresh(self, *, publish: bool = True, pending_only: bool = False, **how: bool) -> None:
        snap = public_state(self.fold, self.pending, self.paired, seq=self.seq, seen=self.seen)
        self.streams.publish(snap, publish=publish, pending_only=pending_only, **how)

    def announce(self, before: AnyFold) -> None:
        """The final round's announcement, when this change began it."""
        ann = final_round_announcement(before, self.fold)
        if ann:
            self.streams.notice(ann[0], "info", code=ann[1], params=ann[2])

    def warn(self, warnings: Sequence[str], action: Mapping[str, Any]) -> None:
        tracker = fold_tracker(self.fold) if self.fold is not None else None  # London's too
        problems = list(getattr(tracker, "last_problems", None) or [])
        player = action.get("player")
        for i, w in enumerate(warnings):
            params: dict[str, Any] = {"player": player, "text": sentence(w)}
            if i < len(problems):  # the wrong payment with its code, for the page's language
                pr = problems[i]
                params["reason"] = {"code": pr.code, "params": pr.params, "text": sentence(w)}
                self.streams.notice(w, "warning", player, code="payment.problem", params=params)
                continue
            self.streams.notice(w, "warning", player, code="payment.warning", params=params)

    # --- actions ----------------------------------------------------------------------
    def act(
        self,
        action: dict[str, Any],
        actor: Actor,
        game: GameKind | None = None,
        *,
        after: int | None = None,
        replace: bool = False,
    ) -> dict[str, Any]:
        """Try, log and keep one action. ``after``: the log position the phone last saw (a
        stale view is refused); ``replace``: a new game may replace an unfinished one."""
        self._act(action, actor, game, after, replace)
        return self.streams.snapshot

    def _act(
        self,
        action: dict[str, Any],
        actor: Actor,
        game: GameKind | None,
        after: int | None,
        replace: bool,
    ) -> None:
        # A player's pairing must belong to the game being played now.
        if actor.role == "player" and (
            self.fold is None or self.paired.get(actor.color or "") is None
        ):
            raise Forbidden("This phone's pairing is for another game.", code="auth.stale_pairing")
        kind = action["type"]
        now = self.fold.kind if isinstance(self.fold, OtherFold) else None
        if kind != "new_game" and now is not game:
            raise Conflict("A new game was started meanwhile: look again.", rule="game-changed")
        if after is not None and kind != "new_game":
            self.check_after(action, after)
        if kind == "new_game":
            self.new_game(action, actor, replace=replace)
        elif kind in CORRECTIONS:
            self.correct(action, actor)
        # (an end of turn for a turn that ended by itself with its action: nothing to log)
        elif kind != "end_turn" or not turn_ended_already(self.fold, action.get("player")):
            self.step(action, actor)

    # --- stale views and retries -----------------------------------------------------------
    def turn_at(self, seq: int) -> tuple[Any, ...]:
        """Whose turn it was (turn number, current player) once event ``seq`` was logged."""
        mark = self.marks.get(seq)
        if mark is None:
            mark = turn_key(fold_game([e for e in self.events if e.seq <= seq], self.map))
            self.marks[seq] = mark
        return mark

    def check_after(self, action: Mapping[str, Any], after: int) -> None:
        """Refuse (409 ``action.stale``) an action sent from a view of log position ``after``
        when the game has moved on since in a way that matters to it: another action for the
        same player (a correction of one included), or a turn change. A correction, a finish
        or a board set by the host: any change since. So a retried request (its reply lost)
        and a second tap on an old view never apply twice."""
        fold = self.require_game()
        if after >= fold.seq:
            return
        first = self.events[0].seq
        later = [e for e in self.events if e.seq > after]
        kind = action["type"]
        player = action.get("player")
        if kind in CORRECTIONS and action.get("seq") is not None:
            target = fold.step(int(action["seq"]))
            player = target.action.get("player") if target is not None else None
        if kind == "accept_problem":
            return  # names its problem; refused when that is no longer open

        def touches(e: Event) -> bool:
            a = e.action
            if a.get("type") in CORRECTIONS:
                step = fold.step(int(a.get("seq") or 0))
                return step is not None and step.action.get("player") == player
            return a.get("player") == player

        if after < first:
            moved = True
        elif player is None:
            moved = bool(later)
        else:
            moved = any(touches(e) for e in later) or self.turn_at(after) != turn_key(fold)
        if moved:
            raise Conflict(
                f"The game has moved on since log position {after} (now {fold.seq}): look "
                "again, and repeat the action if it is still wanted.",
                rule="stale",
                code="action.stale",
                params={"after": after, "seq": fold.seq},
            )

    def mark(self) -> None:
        """Remember whose turn it is at the current log position (for ``check_after``)."""
        if self.fold is not None:
            self.marks[self.fold.seq] = turn_key(self.fold)

    def tell_clashes(self, before: Mapping[str, Sequence[str]]) -> None:
        """A step or a correction opened a clash: the host hears of it (see views)."""
        for text, params in clash_notices(self.fold, before):  # to the host only
            self.streams.notice(
                text, "warning", code="tickets.clash", params=params, audience="host"
            )

    def new_game(self, action: dict[str, Any], actor: Actor, *, replace: bool = False) -> None:
        old = self.fold
        if old is not None and not old.finished and not replace:
            names = fold_names(old)
            raise Conflict(
                f'A game is still running ({", ".join(names)}): send "replace": true to '
                "replace it; it stays in the history as abandoned.",
                rule="game-running",
                code="lifecycle.game_running",
                params={
                    "game_id": old.game_id,
                    "game": fold_game_name(old),
                    "names": ", ".join(names),
                    "players": names,
                },
            )
        # a pairing belongs to a player of a game: it carries on where the same name sits at
        # the same colour, and ends with the game otherwise
        kept = dict(self.paired) if old is not None else {}
        old_names = dict(zip(fold_colors(old), fold_names(old), strict=False)) if old else {}
        game_id = new_game_id()
        event = self.store.new_game(
            game_id,
            variant=action["variant"],
            mode=action["mode"],
            players=action["players"],
            actor=actor.name,
            action=action,
        )
        self.events = [event]
        self.fold = start_any_fold(event, self.map)
        self.pending = Pending()
        self.paired = {}
        self.marks = {}
        if old is not None:
            for color, name in zip(fold_colors(self.fold), fold_names(self.fold), strict=False):
                token = kept.get(color)
                if token is not None and same_name(old_names.get(color), name):
                    self.store.revoke_tokens(old.game_id, color)
                    self.store.add_token(token, game_id, color)
                    self.paired[color] = token
        self.mark()
        self.refresh()

    def require_game(self) -> AnyFold:
        if self.fold is None:
            raise Conflict("No game is running: start a new game first.", rule="no-game")
        return self.fold

    def require_europe(self) -> GameFold:
        fold = self.require_game()
        if isinstance(fold, OtherFold):
            raise Conflict("This works in Ticket to Ride: Europe games only.", rule="not-europe")
        return fold

    def drop_stale_confirmations(self) -> None:
        self.pending.confirmations = open_confirmations(self.fold, self.pending.confirmations)

    def step_other(self, fold: OtherFold, action: dict[str, Any], actor: Actor) -> None:
        trial = fold.table.copy()
        try:
            tracker = tracker_of(fold)
            if action["type"] == "settle_clash" and tracker is not None:
                check_clash(tracker, action)
            named = getattr(trial, "problem_named", None)  # a game with payment problems
            if action["type"] == "accept_problem" and named is not None:
                # logged with the problem's identity, as Europe's
                action = {**action, "what": named(int(action["problem"]))}
            warnings = apply_other(trial, action)
        except RulesError as exc:
            raise conflict(exc) from None
        was_finished = fold.finished
        event = self.store.append(
            fold.game_id,
            actor.name,
            action,
            finished=True if trial.finished and not was_finished else None,
            winners=trial.winners if trial.finished else None,
        )
        self.events.append(event)
        new = OtherFold(
            fold.game_id,
            fold.game,
            fold.kind,
            trial,
            seq=event.seq,
            steps=[*fold.steps, Step(event.seq, actor.name, action, dict(action))],
            warnings=warnings,
            last=last_of(event, fold.kind),
            skipped=fold.skipped,
            series=list(fold.series),
        )
        new.add_point()
        self.fold = new
        self.stepped(warnings, action, fold)

    def stepped(self, warnings: Sequence[str], action: Mapping[str, Any], fold: AnyFold) -> None:
        """After a step from ``fold``: mark the turn, refresh, tell warnings and announcement."""
        self.mark()
        self.refresh()
        self.warn(warnings, action)
        self.announce(fold)

    def step(self, action: dict[str, Any], actor: Actor) -> None:
        self.telling_clashes(self._step, action, actor)

    def telling_clashes(self, change: Change, action: dict[str, Any], actor: Actor) -> None:
        """``change`` the game with ``action``; a clash it opens is told (:meth:`tell_clashes`)."""
        before = fold_holders(self.fold)
        change(action, actor)
        self.tell_clashes(before)

    def _step(self, action: dict[str, Any], actor: Actor) -> None:
        fold0 = self.require_game()
        if isinstance(fold0, OtherFold):
            self.step_other(fold0, action, actor)
            return
        fold = fold0
        action = dict(action)
        if action["type"] == "accept_problem":
            try:
                check_problem(fold.tracker, int(action["problem"]))
            except RulesError as exc:
                raise conflict(exc) from None
            # logged with the problem's identity: a later correction may renumber the ids
            named = fold.tracker.problems[int(action["problem"])].to_json()
            keys = ("player", "turn", "kind", "place")
            action["what"] = dict(zip(keys, problem_key(named), strict=True))
        if action["type"] == "settle_clash":
            try:
                check_clash(fold.tracker, action)
            except RulesError as exc:
                raise conflict(exc) from None
        used_cards, used_tickets = fill_from_pending(self.pending, action)
        if action["type"] == "keep_tickets" and not action.get("tickets"):
            raise BadRequest(
                "Name the tickets to keep (or tap them on the reader first).",
                code="request.no_tickets",
            )
        trial = fold.copy_with(steps=fold.steps)
        try:
            warnings = apply_step(trial, action)
        except RulesError as exc:
            raise conflict(exc) from None
        was_finished = fold.finished
        if trial.tracker.last_problems and action["type"] not in SERVICE_STEPS:
            # a wrong payment a lenient table accepted: carried in the claim's logged event
            action["problems"] = [pr.to_json() for pr in trial.tracker.last_problems]
        event = self.store.append(
            fold.game_id,
            actor.name,
            action,
            finished=True if trial.finished and not was_finished else None,
            winners=trial.final.winners if trial.final else None,
        )
        self.events.append(event)
        p = self.pending
        if (
            action["type"] == "end_turn"
            and not fold.tracker.acted
            and p.cards
            and p.payment_player == action.get("player")
        ):
            # Ended without an action: these taps may pay for a claim the camera reports late.
            p.ended = (event.seq, str(action["player"]), list(p.cards))
        else:
            p.ended = None
        trial.steps = [*fold.steps, Step(event.seq, actor.name, action, dict(action))]
        trial.seq = event.seq
        trial.warnings = warnings
        trial.last = last_of(event)
        trial.skipped = fold.skipped
        self.fold = trial
        if trial.tracker.current != fold.tracker.current or trial.tracker.over:
            # A new turn: the reader follows the player whose turn it is; stray taps go.
            self.pending.reader_player = None
            self.pending.clear_payment()
        if used_cards:
            self.pending.clear_payment()
        if used_tickets:
            self.pending.clear_tickets()
        self.drop_stale_confirmations()
        self.stepped(warnings, action, fold)

    def correct(self, action: dict[str, Any], actor: Actor) -> None:
        self.telling_clashes(self._correct, action, actor)

    def _correct(self, action: dict[str, Any], actor: Actor) -> None:
        fold = self.require_game()
        kind = action["type"]
        seq = action.get("seq")
        check_own_undo(action, actor, own_undo(fold))  # a phone: only its own last move
        if kind == "undo" and seq is None:
            live = [s for s in fold.steps if s.effective is not None]
            if not live:
                raise Conflict("There is nothing to undo in this game.", rule="nothing-to-undo")
            seq = live[-1].seq
            action = {**action, "seq": seq}
        target = fold.step(int(seq or 0))
        if target is None:
            raise NotFound(
                f"This game has no step #{seq} to {kind}.",
                code="request.no_step",
                params={"seq": seq, "type": kind},
            )
        if kind == "undo" and target.effective is None:
            raise Conflict(
                f"Step #{seq} is already undone.", rule="already-undone", params={"seq": seq}
            )
        if kind == "redo" and target.effective is not None:
            raise Conflict(f"Step #{seq} is not undone.", rule="not-undone", params={"seq": seq})
        # Try the whole game with the correction; every later step must stay legal.
        probe = Event(0, fold.game_id, 0.0, actor.name, action)
        trial_events = [*self.events, probe]
        try:
            trial = strict_fold(trial_events, self.map)
        except RulesError as exc:
            raise conflict(exc) from None
        event = self.store.append(
            fold.game_id,
            actor.name,
            action,
            finished=trial.finished if trial.finished != fold.finished else None,
            winners=fold_winners(trial),
        )
        self.events.append(event)
        self.fold = fold_game(self.events, self.map)
        self.drop_stale_confirmations()
        self.mark()
        self.refresh(rebuild=True)  # no reconnecting guest is replayed an undone state

    def append_all(self, game_id: str, entries: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Log several (actor, action) events at once and fold the game again."""
        for actor_name, a in entries:
            self.events.append(self.store.append(game_id, actor_name, a))
        self.fold = fold_game(self.events, self.map)
        self.mark()


def same_name(a: str | None, b: str | None) -> bool:
    """The same player's name (spaces and letter case aside), for a pairing to carry on."""
    if a is None or b is None:
        return False
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()
