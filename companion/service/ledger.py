"""The current game, changed only on the loop thread: its events, its fold, the pending taps and
the pairings. A step or a correction is tried on a copy, appended to the log (committed), then
kept; every change refreshes the public state on the event streams."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from companion.core.board import GameMap
from companion.core.errors import RulesError
from companion.games import GameKind
from companion.service.auth import Actor
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
    apply_step,
    fold_game,
    fold_winners,
    last_of,
    start_any_fold,
    strict_fold,
)
from companion.service.pending import Pending, fill_from_pending, open_confirmations
from companion.service.shapes import CORRECTIONS
from companion.service.streams import Streams
from companion.service.views import announcement_of, public_state
from companion.store import Event, EventStore


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
        self.seen: set[str] = set()  # pairing tokens a phone has opened (not just made)

    def load(self) -> None:
        """The current game of the log, as a restart finds it (pending taps forgotten)."""
        game_id = self.store.current_game_id()
        if game_id is not None:
            self.events = self.store.events(game_id)
            self.fold = fold_game(self.events, self.map)
            self.paired = self.store.tokens_of(game_id)
        self.refresh(publish=False)

    @property
    def seq(self) -> int:
        return self.fold.seq if self.fold else self.store.last_seq()

    def refresh(self, *, publish: bool = True, pending_only: bool = False) -> None:
        snap = public_state(self.fold, self.pending, self.paired, seq=self.seq, seen=self.seen)
        self.streams.publish(snap, publish=publish, pending_only=pending_only)

    def announce(self, before: AnyFold) -> None:
        """The final round's announcement, when this change began it."""
        new = self.fold
        ann: tuple[str, str, dict[str, Any]] | None = None
        if isinstance(before, OtherFold) and isinstance(new, OtherFold):
            if new.table.public()["final_round"] and not before.table.public()["final_round"]:
                ann = new.table.announcement()
        elif (
            isinstance(before, GameFold)
            and isinstance(new, GameFold)
            and new.tracker.final_round
            and not before.tracker.final_round
        ):
            ann = announcement_of(new)
        if ann:
            self.streams.notice(ann[0], "info", code=ann[1], params=ann[2])

    def warn(self, warnings: Sequence[str], action: Mapping[str, Any]) -> None:
        tracker = getattr(self.fold, "tracker", None)
        problems = list(getattr(tracker, "last_problems", None) or [])
        for i, w in enumerate(warnings):
            player = action.get("player")
            params: dict[str, Any] = {"player": player, "text": sentence(w)}
            if i < len(problems):  # the wrong payment with its code, for the page's language
                pr = problems[i]
                params["reason"] = {"code": pr.code, "params": pr.params, "text": sentence(w)}
                self.streams.notice(w, "warning", player, code="payment.problem", params=params)
                continue
            self.streams.notice(w, "warning", player, code="payment.warning", params=params)

    # --- actions ----------------------------------------------------------------------
    def act(
        self, action: dict[str, Any], actor: Actor, game: GameKind | None = None
    ) -> dict[str, Any]:
        # A player's pairing must belong to the game being played now.
        if actor.role == "player" and (
            self.fold is None or self.paired.get(actor.color or "") is None
        ):
            raise Forbidden("This phone's pairing is for another game.", code="auth.stale_pairing")
        kind = action["type"]
        now = self.fold.kind if isinstance(self.fold, OtherFold) else None
        if kind != "new_game" and now is not game:
            raise Conflict("A new game was started meanwhile: look again.", rule="game-changed")
        if kind == "new_game":
            self.new_game(action, actor)
        elif kind in CORRECTIONS:
            self.correct(action, actor)
        else:
            self.step(action, actor)
        return self.streams.snapshot

    def new_game(self, action: dict[str, Any], actor: Actor) -> None:
        game_id = "g" + secrets.token_hex(5)
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
            warnings = trial.apply(action)
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
        self.refresh()
        self.warn(warnings, action)
        self.announce(fold)

    def step(self, action: dict[str, Any], actor: Actor) -> None:
        fold0 = self.require_game()
        if isinstance(fold0, OtherFold):
            self.step_other(fold0, action, actor)
            return
        fold = fold0
        action = dict(action)
        used_cards, used_tickets = fill_from_pending(self.pending, action)
        if action["type"] == "keep_tickets" and not action.get("tickets"):
            raise BadRequest(
                "Name the tickets to keep (or tap them on the reader first).",
                code="request.no_tickets",
            )
        trial = GameFold(
            fold.game_id,
            fold.mode,
            fold.variant,
            fold.tracker.copy(),
            seq=fold.seq,
            steps=fold.steps,
            final=fold.final,
        )
        try:
            warnings = apply_step(trial, action)
        except RulesError as exc:
            raise conflict(exc) from None
        was_finished = fold.finished
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
        self.refresh()
        self.warn(warnings, action)
        self.announce(fold)

    def correct(self, action: dict[str, Any], actor: Actor) -> None:
        fold = self.require_game()
        kind = action["type"]
        seq = action.get("seq")
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
        self.refresh()

    def append_all(self, game_id: str, entries: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Log several (actor, action) events at once and fold the game again."""
        for actor_name, a in entries:
            self.events.append(self.store.append(game_id, actor_name, a))
        self.fold = fold_game(self.events, self.map)
