"""The service facade: the one loop that owns the game state.

Commands (actions from the web, observations from the camera, the card reader and the buttons)
go through one queue to one thread. For each: validate with the rules (``TableTracker``), append
the event to the log (committed and synced), update the state, publish the new public state to
the subscribers (server-sent events).
"""

from __future__ import annotations

import json
import logging
import queue
import secrets
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from companion.core.board import GameMap
from companion.core.errors import IllegalActionError, RulesError
from companion.games import EUROPE, GameKind, game_kind
from companion.service.auth import Actor, authorize
from companion.service.camera import Decision, reconcile
from companion.service.describe import describe, describe_in
from companion.service.errors import (
    BadRequest,
    Conflict,
    Forbidden,
    NotFound,
    ServiceError,
    Unavailable,
    conflict,
    sentence,
)
from companion.service.fold import (
    AnyFold,
    GameFold,
    OtherFold,
    Step,
    apply_step,
    effective_steps,
    fold_colors,
    fold_game,
    fold_winners,
    last_of,
    start_any_fold,
)
from companion.service.pending import Confirmation, Pending
from companion.service.shapes import CORRECTIONS, card_list, check_action_shape, check_observation
from companion.service.views import announcement_of, public_state, ticket_progress
from companion.store import Event, EventStore

log = logging.getLogger(__name__)

T = TypeVar("T")


# --- subscribers ----------------------------------------------------------------------------


class Subscription:
    """One server-sent-events client: a bounded queue of (event, id, data)."""

    def __init__(self, service: Service, maxsize: int = 256) -> None:
        self._service = service
        self.queue: queue.Queue[tuple[str | None, int | None, str] | None] = queue.Queue(maxsize)
        self.closed = False

    def put(self, item: tuple[str | None, int | None, str] | None) -> None:
        if self.closed:
            return
        try:
            self.queue.put_nowait(item)
        except queue.Full:
            # A client that does not read: drop it; it reconnects with Last-Event-ID.
            self.closed = True

    def get(self, timeout: float) -> tuple[str | None, int | None, str] | None:
        """The next message; raises queue.Empty on timeout, None when closed."""
        if self.closed and self.queue.empty():
            return None
        return self.queue.get(timeout=timeout)

    def close(self) -> None:
        self.closed = True
        self._service.unsubscribe(self)


# --- the service ----------------------------------------------------------------------------


@dataclass
class PhotoJob:
    id: str
    status: str = "reading"  # reading | done | failed
    error: str | None = None
    reading: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"job": self.id, "status": self.status, "error": self.error, "reading": self.reading}


class Service:
    """Owns the current game. Every change runs on the loop thread, in arrival order."""

    def __init__(
        self,
        store: EventStore,
        game_map: GameMap | None = None,
        *,
        history: int = 256,
        photo_reader: Callable[[bytes], dict[str, Any]] | None = None,
    ) -> None:
        if game_map is None:
            from companion.data import europe_map

            game_map = europe_map()
        self.store = store
        self.map = game_map
        self._queue: queue.Queue[tuple[Callable[[], Any], Future[Any]] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()  # subscribers, recent, snapshot
        self._subs: set[Subscription] = set()
        self._recent: deque[tuple[int, str]] = deque(maxlen=history)
        self.fold: AnyFold | None = None
        self.events: list[Event] = []
        self.pending = Pending()
        self.paired: dict[str, str] = {}
        self._snapshot: dict[str, Any] = {}
        self._snapshot_json = ""
        self._photo_reader = photo_reader
        self._photo_pool: ThreadPoolExecutor | None = None
        self._photo_jobs: dict[str, PhotoJob] = {}
        self.listeners: list[Callable[[str, dict[str, Any]], None]] = []
        self._closing = False
        self._load()

    # --- lifecycle ------------------------------------------------------------------
    def _load(self) -> None:
        game_id = self.store.current_game_id()
        if game_id is not None:
            self.events = self.store.events(game_id)
            self.fold = fold_game(self.events, self.map)
            self.paired = self.store.tokens_of(game_id)
        self._refresh(publish=False)

    def start(self) -> Service:
        self._closing = False
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="companion-loop", daemon=True)
            self._thread.start()
        return self

    def close_streams(self) -> None:
        """End every server-sent-event stream now and refuse new ones (the server is stopping):
        the web threads finish their responses while the server can still send them."""
        with self._lock:
            self._closing = True
            subs = list(self._subs)
        for s in subs:
            s.put(None)

    def stop(self, timeout: float = 5.0) -> None:
        self.close_streams()
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join(timeout)
            self._thread = None
        if self._photo_pool is not None:
            self._photo_pool.shutdown(wait=False, cancel_futures=True)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            fn, fut = item
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                fut.set_result(self._run_one(fn))
            except BaseException as exc:
                if not isinstance(exc, ServiceError):
                    log.exception("the game loop failed on a command")
                fut.set_exception(exc)

    def _run_one(self, fn: Callable[[], T]) -> T:
        """Run one command; a refusal by the rules (409) is told to the listeners."""
        try:
            return fn()
        except Conflict as exc:
            self._tell("refused", exc.to_json())
            raise

    def call(self, fn: Callable[[], T], timeout: float = 15.0) -> T:
        """Run ``fn`` on the loop thread and wait for its result (or its ServiceError)."""
        if self._thread is None:
            return self._run_one(fn)
        if threading.current_thread() is self._thread:
            return fn()
        fut: Future[T] = Future()
        self._queue.put((fn, fut))
        try:
            return fut.result(timeout)
        except TimeoutError:
            raise Unavailable("The game loop is busy; try again in a moment.") from None

    def post(self, fn: Callable[[], Any]) -> Future[Any]:
        """Queue ``fn`` for the loop thread without waiting."""
        fut: Future[Any] = Future()
        if self._thread is None:
            try:
                fut.set_result(self._run_one(fn))
            except BaseException as exc:
                fut.set_exception(exc)
            return fut
        self._queue.put((fn, fut))
        return fut

    # --- snapshots and publishing ------------------------------------------------------
    @property
    def seq(self) -> int:
        return self.fold.seq if self.fold else self.store.last_seq()

    def state(self) -> dict[str, Any]:
        with self._lock:
            return self._snapshot

    def state_json(self) -> str:
        with self._lock:
            return self._snapshot_json

    def _refresh(self, *, publish: bool = True, pending_only: bool = False) -> None:
        snap = public_state(self.fold, self.pending, self.paired, seq=self.seq)
        text = json.dumps(snap, separators=(",", ":"))
        with self._lock:
            self._snapshot = snap
            self._snapshot_json = text
            seq = int(snap["seq"])
            if not pending_only and (not self._recent or self._recent[-1][0] != seq):
                self._recent.append((seq, text))
            elif self._recent and self._recent[-1][0] == seq:
                self._recent[-1] = (seq, text)
            if publish:
                if pending_only:
                    msg: tuple[str | None, int | None, str] = (
                        "pending",
                        None,
                        json.dumps(snap["pending"], separators=(",", ":")),
                    )
                else:
                    msg = (None, seq, text)
                for s in list(self._subs):
                    s.put(msg)
        self._tell("pending" if pending_only else "state", snap)

    def notice(
        self,
        text: str,
        level: str = "info",
        color: str | None = None,
        *,
        code: str = "message",
        params: Mapping[str, Any] | None = None,
    ) -> None:
        """Tell every screen. ``code`` + ``params``: the same message for the dashboard to
        translate (codes in API.md; ``message``: only the English ``text``)."""
        payload = {
            "level": level,
            "text": sentence(text),
            "color": color,
            "code": code,
            "params": dict(params or {}),
        }
        data = json.dumps(payload, separators=(",", ":"))
        log.info("notice: %s", text)
        with self._lock:
            for s in list(self._subs):
                s.put(("notice", None, data))
        self._tell("notice", payload)

    def _tell(self, kind: str, data: dict[str, Any]) -> None:
        """Call the in-process listeners (e.g. the buttons' LED and buzzer).

        ``kind``: "state", "pending", "notice", "refused" (a 409: ``{"error", "rule"}``) or
        "vetoed" (a camera sighting that cannot be: ``{"text", "color"}``, and for a claim or
        station ``"kind"`` "claim"/"station", ``"key"`` its route/city, ``"owner"`` its owner if
        any) or "rejected" (a camera question answered no: ``{"kind", "key", "color"}``; the
        camera's watcher forgets that sighting). Listeners run on
        the loop thread (or the caller's for a refusal outside it): they must only queue.
        """
        for fn in list(self.listeners):
            try:
                fn(kind, data)
            except Exception:
                log.exception("a state listener failed")

    def subscribe(self, last_event_id: int | None = None) -> Subscription:
        """A new subscriber with its backlog queued (no gap, no duplicate)."""
        sub = Subscription(self)
        with self._lock:
            if self._closing:
                sub.closed = True  # shutting down: the stream ends at once
                return sub
            current = (self._snapshot["seq"], self._snapshot_json)
            if last_event_id is None or last_event_id > current[0]:
                backlog = [current]
            elif last_event_id == current[0]:
                backlog = []
            else:
                seqs = [s for s, _ in self._recent]
                if last_event_id in seqs:
                    backlog = [(s, j) for s, j in self._recent if s > last_event_id]
                else:
                    backlog = [current]
            for seq, text in backlog:
                sub.put((None, seq, text))
            self._subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._subs.discard(sub)

    @property
    def subscriber_count(self) -> int:
        with self._lock:
            return len(self._subs)

    # --- actions --------------------------------------------------------------------
    def act(self, data: Any, actor: Actor) -> dict[str, Any]:
        """Validate, log and apply one action; returns the new public state."""
        fold = self.fold
        game = fold.kind if isinstance(fold, OtherFold) else None
        action = check_action_shape(data, self.map, game)
        authorize(action, actor)
        return self.call(lambda: self._act(action, actor, game))

    def _act(
        self, action: dict[str, Any], actor: Actor, game: GameKind | None = None
    ) -> dict[str, Any]:
        # A player's pairing must belong to the game being played now.
        if actor.role == "player" and (
            self.fold is None or self.paired.get(actor.color or "") is None
        ):
            raise Forbidden("This phone's pairing is for another game.")
        kind = action["type"]
        now = self.fold.kind if isinstance(self.fold, OtherFold) else None
        if kind != "new_game" and now is not game:
            raise Conflict("A new game was started meanwhile: look again.", "game-changed")
        if kind == "new_game":
            self._new_game(action, actor)
        elif kind in CORRECTIONS:
            self._correct(action, actor)
        else:
            self._step(action, actor)
        return self._snapshot

    def _new_game(self, action: dict[str, Any], actor: Actor) -> None:
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
        self._refresh()

    def _require_game(self) -> AnyFold:
        if self.fold is None:
            raise Conflict("No game is running: start a new game first.", "no-game")
        return self.fold

    def _require_europe(self) -> GameFold:
        fold = self._require_game()
        if isinstance(fold, OtherFold):
            raise Conflict("This works in Ticket to Ride: Europe games only.", "not-europe")
        return fold

    def _fill_from_pending(self, action: dict[str, Any]) -> tuple[bool, bool]:
        """Use tapped cards/tickets for an action that names none. (used cards, used tickets)"""
        kind = action["type"]
        player = action.get("player")
        used_cards = used_tickets = False
        if (
            kind in ("claim", "build_station", "tunnel_pay")
            and "cards" not in action
            and self.pending.payment_player == player
            and self.pending.cards
        ):
            action["cards"] = list(self.pending.cards)
            used_cards = True
        if kind in ("claim", "build_station", "tunnel_pay") and "cards" in action:
            used_cards = used_cards or self.pending.payment_player == player
        if (
            kind == "keep_tickets"
            and not action.get("tickets")
            and self.pending.tickets_player == player
            and self.pending.tickets
        ):
            action["tickets"] = list(self.pending.tickets)
            used_tickets = True
        return used_cards, used_tickets

    def _step_other(self, fold: OtherFold, action: dict[str, Any], actor: Actor) -> None:
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
        self._refresh()
        for w in warnings:
            player = action.get("player")
            params = {"player": player, "text": sentence(w)}
            self.notice(w, "warning", player, code="payment.warning", params=params)
        before = fold.table.public()["final_round"]
        if new.table.public()["final_round"] and not before:
            ann = new.table.announcement()
            if ann:
                self.notice(ann[0], "info", code=ann[1], params=ann[2])

    def _step(self, action: dict[str, Any], actor: Actor) -> None:
        fold0 = self._require_game()
        if isinstance(fold0, OtherFold):
            self._step_other(fold0, action, actor)
            return
        fold = fold0
        action = dict(action)
        used_cards, used_tickets = self._fill_from_pending(action)
        if action["type"] == "keep_tickets" and not action.get("tickets"):
            raise BadRequest("Name the tickets to keep (or tap them on the reader first).")
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
        self._drop_stale_confirmations()
        self._refresh()
        for w in warnings:
            player = action.get("player")
            params = {"player": player, "text": sentence(w)}
            self.notice(w, "warning", player, code="payment.warning", params=params)
        if trial.tracker.final_round and not fold.tracker.final_round:
            ann = announcement_of(trial)
            if ann:
                self.notice(ann[0], "info", code=ann[1], params=ann[2])

    def _correct(self, action: dict[str, Any], actor: Actor) -> None:
        fold = self._require_game()
        kind = action["type"]
        seq = action.get("seq")
        if kind == "undo" and seq is None:
            live = [s for s in fold.steps if s.effective is not None]
            if not live:
                raise Conflict("There is nothing to undo in this game.", "nothing-to-undo")
            seq = live[-1].seq
            action = {**action, "seq": seq}
        target = fold.step(int(seq or 0))
        if target is None:
            raise NotFound(f"This game has no step #{seq} to {kind}.")
        if kind == "undo" and target.effective is None:
            raise Conflict(f"Step #{seq} is already undone.", "already-undone")
        if kind == "redo" and target.effective is not None:
            raise Conflict(f"Step #{seq} is not undone.", "not-undone")
        # Try the whole game with the correction; every later step must stay legal.
        probe = Event(0, fold.game_id, 0.0, actor.name, action)
        trial_events = [*self.events, probe]
        try:
            trial = self._strict_fold(trial_events)
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
        self._drop_stale_confirmations()
        self._refresh()

    def _strict_fold(self, events: Sequence[Event]) -> AnyFold:
        """Fold, raising IllegalActionError naming the first step that no longer applies."""
        fold = start_any_fold(events[0], self.map)
        kind = fold.kind if isinstance(fold, OtherFold) else None
        steps, _ = effective_steps(events)
        for s in steps:
            if s.effective is None:
                continue
            try:
                if isinstance(fold, OtherFold):
                    fold.table.apply(s.effective)
                else:
                    apply_step(fold, s.effective)
            except RulesError as exc:
                text = describe_in(kind, s.effective)
                raise IllegalActionError(
                    f"that would make step #{s.seq} ({text}) illegal: {exc}",
                    rule=getattr(exc, "rule", "illegal"),
                ) from None
        return fold

    # --- observations ---------------------------------------------------------------
    def observe(self, data: Any, actor: Actor | None = None) -> dict[str, Any]:
        obs = check_observation(data)
        who = actor or Actor.host()
        return self.call(lambda: self._observe(obs, who))

    def observe_nowait(self, data: Mapping[str, Any], actor: Actor | None = None) -> Future[Any]:
        """For devices in the process: queue an observation (bad ones are logged)."""
        obs = check_observation(data)
        who = actor or Actor.device("camera")
        return self.post(lambda: self._observe(obs, who))

    def _observe(self, obs: dict[str, Any], actor: Actor, late: bool = True) -> dict[str, Any]:
        decision = reconcile(self.fold, self.pending, obs, late=late)
        seq = self.seq
        if decision.kind == "ignore":
            return {"result": "ignored", "text": sentence(decision.reason), "seq": seq}
        if decision.kind == "veto":
            told: dict[str, Any] = {"text": sentence(decision.reason), "color": obs.get("color")}
            if obs["kind"] in ("claim_seen", "station_seen"):
                told["kind"] = "claim" if obs["kind"] == "claim_seen" else "station"
                told["key"] = obs.get("route") or obs.get("city")
                told["owner"] = decision.params.get("owner")
            self._tell("vetoed", told)
            self.notice(
                decision.reason,
                "warning",
                obs.get("color"),
                code=decision.code or "message",
                params=decision.params,
            )
            return {"result": "vetoed", "text": sentence(decision.reason), "seq": seq}
        if decision.kind == "tap":
            text = self._tap(obs)
            return {"result": "pending", "text": text, "seq": seq}
        if decision.kind == "button":
            return self._button(obs["name"], actor)
        assert decision.action is not None
        device = Actor("device", None, actor.name if actor.role == "device" else "camera")
        if decision.kind == "late":
            try:
                return self._late(decision, device)
            except ServiceError:
                # That turn already had its action (or the claim cannot be): as before.
                return self._observe(obs, actor, late=False)
        if decision.kind == "confirm":
            return self._ask(obs, decision)
        try:
            self._step(decision.action, device)
        except ServiceError as exc:
            # The loop state moved between the decision and the step: ask instead.
            params = {"color": obs.get("color"), "text": sentence(exc.message)}
            code = f"rule.{exc.rule}" if exc.rule else "message"
            again = Decision("confirm", exc.message, decision.action, code, params)
            return self._ask(obs, again)
        return {"result": "applied", "text": sentence(describe(decision.action)), "seq": self.seq}

    def _late(self, decision: Decision, device: Actor) -> dict[str, Any]:
        """A claim/station seen after its player ended a turn without an action, nobody having
        acted since: put it into that turn. Logged as two events, ``replace`` of the end_turn
        by the claim, then the end_turn again, so that replaying the log gives this state."""
        fold = self._require_europe()
        assert decision.action is not None
        action = dict(decision.action)
        seq = int(decision.params["seq"])
        end = fold.step(seq)
        if end is None or end.effective is None:
            raise Conflict("That turn is no longer the last one.", "late-claim")
        fix = {"type": "replace", "seq": seq, "action": action}
        again = dict(end.effective)
        probe = [
            Event(0, fold.game_id, 0.0, device.name, fix),
            Event(0, fold.game_id, 0.0, end.actor, again),
        ]
        try:
            trial = self._strict_fold([*self.events, *probe])
        except RulesError as exc:
            raise conflict(exc) from None
        assert isinstance(trial, GameFold)
        for actor_name, a in ((device.name, fix), (end.actor, again)):
            self.events.append(self.store.append(fold.game_id, actor_name, a))
        self.fold = fold_game(self.events, self.map)
        if self.pending.ended is not None and self.pending.ended[0] == seq:
            self.pending.ended = None
        self._drop_stale_confirmations()
        self._refresh()
        color = str(action.get("player"))
        where: dict[str, Any] = {k: action[k] for k in ("route", "city") if k in action}
        text = f"{describe(action)}: seen after {color}'s turn ended, entered into that turn"
        self.notice(text, "info", color, code="camera.late_claim", params={"color": color, **where})
        new = self.fold
        if isinstance(new, GameFold) and new.tracker.final_round and not fold.tracker.final_round:
            ann = announcement_of(new)
            if ann:
                self.notice(ann[0], "info", code=ann[1], params=ann[2])
        return {"result": "applied", "text": sentence(text), "seq": self.seq}

    def _ask(self, obs: Mapping[str, Any], decision: Decision) -> dict[str, Any]:
        assert decision.action is not None
        kind = "claim" if obs["kind"] == "claim_seen" else "station"
        key = obs.get("route") or obs.get("city") or ""
        for c in self.pending.confirmations:
            if c.kind == kind and c.key == key and c.color == obs["color"]:
                return {"result": "pending", "text": sentence(c.reason), "seq": self.seq}
        self.pending.counter += 1
        reason: dict[str, Any] = {
            "code": decision.code or "message",
            "params": decision.params,
            "text": sentence(decision.reason),
        }
        conf = Confirmation(
            f"c{self.pending.counter}",
            kind,
            key,
            obs["color"],
            decision.reason,
            decision.action,
            decision.code or "message",
            decision.params,
        )
        self.pending.confirmations.append(conf)
        self._refresh(pending_only=True)
        where = {"route": key} if kind == "claim" else {"city": key}
        self.notice(
            f"Please confirm: {describe(decision.action)}? {decision.reason}",
            "warning",
            code=f"camera.confirm_{kind}",
            params={"color": obs["color"], **where, "reason": reason},
        )
        return {"result": "pending", "text": sentence(decision.reason), "seq": self.seq}

    def _tap(self, obs: Mapping[str, Any]) -> str:
        fold = self._require_europe()
        t = fold.tracker
        kind = obs["kind"]
        if kind == "reader_player":
            player = obs["player"]
            if player not in {p.color for p in t.players}:
                raise Conflict(f"No player plays {player} in this game.", "unknown-player")
            self.pending.reader_player = player
            self._refresh(pending_only=True)
            return f"The reader now takes {player}'s cards."
        who = self.pending.reader_player or t.current_player.color
        if kind == "card_tapped":
            if self.pending.payment_player != who:
                self.pending.clear_payment()
                self.pending.payment_player = who
            uid = obs.get("uid")
            if uid and uid in self.pending.uids:
                self.pending.duplicates += 1
                self._refresh(pending_only=True)
                self.notice(
                    f"That card was already tapped for this payment ({obs['card']}); "
                    "it counts once",
                    "warning",
                    who,
                    code="reader.duplicate_card",
                    params={"card": obs["card"], "player": who},
                )
                return "Duplicate card: it counts once."
            self.pending.cards.append(obs["card"])
            if uid:
                self.pending.uids.append(uid)
            self._refresh(pending_only=True)
            return f"{obs['card']} added to {who}'s payment ({len(self.pending.cards)} cards)."
        ticket = obs["ticket"]
        if ticket not in t.map.tickets:
            raise Conflict(f"Unknown ticket id {ticket!r}.", "unknown-ticket")
        if self.pending.tickets_player != who:
            self.pending.clear_tickets()
            self.pending.tickets_player = who
        if ticket in self.pending.tickets:
            return "That ticket was already tapped."
        holder = t.ticket_holder(ticket)
        if holder is not None:
            self.notice(
                "that ticket is already held by another player",
                "warning",
                who,
                code="reader.ticket_held",
                params={"player": who},
            )
            return "That ticket is already held."
        self.pending.tickets.append(ticket)
        self._refresh(pending_only=True)
        return f"Ticket added for {who} ({len(self.pending.tickets)} tapped)."

    def _button(self, name: str, actor: Actor) -> dict[str, Any]:
        fold = self._require_game()
        if isinstance(fold, OtherFold):
            return self._button_other(fold, name)
        if name == "end_turn":
            if fold.finished or fold.tracker.over:
                return {"result": "ignored", "text": "The game is over.", "seq": self.seq}
            color = fold.tracker.current_player.color
            self._step({"type": "end_turn", "player": color}, Actor.device("button"))
            return {"result": "applied", "text": f"{color}'s turn ended.", "seq": self.seq}
        if name == "undo":
            self._correct({"type": "undo"}, Actor.device("button"))
            return {"result": "applied", "text": "Undone.", "seq": self.seq}
        if not self.pending.confirmations:
            if name == "confirm":
                return self._confirm_taps(fold)
            return {"result": "ignored", "text": "Nothing to reject.", "seq": self.seq}
        cid = self.pending.confirmations[0].id
        self._confirm(cid, name == "confirm", Actor.device("button"), None)
        return {"result": "applied", "text": "Done.", "seq": self.seq}

    def _button_other(self, fold: OtherFold, name: str) -> dict[str, Any]:
        """Buttons in another game: undo, and end turn when the game follows turns."""
        if name == "undo":
            self._correct({"type": "undo"}, Actor.device("button"))
            return {"result": "applied", "text": "Undone.", "seq": self.seq}
        color = fold.table.current_color()
        if name == "end_turn" and color is not None:
            self._step({"type": "end_turn", "player": color}, Actor.device("button"))
            return {"result": "applied", "text": f"{color}'s turn ended.", "seq": self.seq}
        return {
            "result": "ignored",
            "text": f"Nothing to {name.replace('_', ' ')}.",
            "seq": self.seq,
        }

    def _confirm_taps(self, fold: GameFold) -> dict[str, Any]:
        """The confirm button with no camera question: settle what was tapped on the reader.

        A tunnel being built: its three revealed cards (tapped), then its surcharge (tapped
        cards, or none). Otherwise tapped tickets: keep them.
        """
        t = fold.tracker
        button = Actor.device("button")
        p = self.pending
        if fold.finished or fold.mode != "table":
            return {"result": "ignored", "text": "Nothing to confirm.", "seq": self.seq}
        if t.tunnel is not None:
            color = t.current_player.color
            tapped = list(p.cards) if p.payment_player == color else []
            if t.tunnel.revealed is None:
                if not tapped:
                    return {
                        "result": "ignored",
                        "text": "Tap the tunnel's revealed cards first.",
                        "seq": self.seq,
                    }
                self._step({"type": "tunnel_reveal", "player": color, "cards": tapped}, button)
                p.clear_payment()
                self._refresh(pending_only=True)
                return {"result": "applied", "text": "Tunnel cards revealed.", "seq": self.seq}
            self._step({"type": "tunnel_pay", "player": color}, button)
            return {"result": "applied", "text": f"{color} paid the tunnel.", "seq": self.seq}
        if p.tickets_player is not None and p.tickets:
            color = p.tickets_player
            self._step({"type": "keep_tickets", "player": color}, button)
            text = f"{color} kept the tapped tickets."
            return {"result": "applied", "text": text, "seq": self.seq}
        return {"result": "ignored", "text": "Nothing to confirm.", "seq": self.seq}

    def _drop_stale_confirmations(self) -> None:
        fold = self.fold
        if fold is None or isinstance(fold, OtherFold):
            self.pending.confirmations = [] if fold is not None else self.pending.confirmations
            return
        t = fold.tracker
        keep = []
        for c in self.pending.confirmations:
            taken = (t.route_owner if c.kind == "claim" else t.station_owner).get(c.key)
            if taken is None and not fold.finished:
                keep.append(c)
        self.pending.confirmations = keep

    # --- confirmations, pending, pairing ----------------------------------------------
    def confirm(
        self, cid: str, accept: bool, actor: Actor, cards: list[str] | None = None
    ) -> dict[str, Any]:
        return self.call(lambda: self._confirm(cid, accept, actor, cards))

    def _confirm(
        self, cid: str, accept: bool, actor: Actor, cards: list[str] | None
    ) -> dict[str, Any]:
        conf = next((c for c in self.pending.confirmations if c.id == cid), None)
        if conf is None:
            raise NotFound(f"There is no open question {cid!r}.")
        if actor.role == "player" and actor.color != conf.color:
            raise Forbidden(f"Only the host or {conf.color} can answer this question.")
        if accept:
            action = dict(conf.action)
            if cards is not None:
                action["cards"] = [c.value for c in card_list(cards, '"cards"')]
            self._step(action, actor if actor.role != "player" else Actor.player(conf.color))
        self.pending.confirmations = [c for c in self.pending.confirmations if c.id != cid]
        self._refresh(pending_only=not accept)
        if not accept:
            self._tell("rejected", {"kind": conf.kind, "key": conf.key, "color": conf.color})
        return self._snapshot

    def clear_pending(self, actor: Actor) -> dict[str, Any]:
        def run() -> dict[str, Any]:
            p = self.pending
            if actor.role == "player" and actor.color not in (p.payment_player, p.tickets_player):
                raise Forbidden("Only the host can clear another player's taps.")
            p.clear_payment()
            p.clear_tickets()
            self._refresh(pending_only=True)
            return {"cleared": True}

        return self.call(run)

    def tickets(self, color: str) -> dict[str, Any]:
        def run() -> dict[str, Any]:
            fold = self.fold
            if fold is None or color not in fold_colors(fold):
                raise NotFound(f"No player plays {color} in the current game.")
            if isinstance(fold, OtherFold):
                return {
                    "game": fold.game,
                    "game_id": fold.game_id,
                    "pending": [],
                    **fold.table.private(color),
                }
            pend = self.pending.tickets if self.pending.tickets_player == color else []
            return ticket_progress(fold, color, pend)

        return self.call(run)

    def pair(self, color: str, rotate: bool = False) -> str:
        """The pairing token of a colour in the current game (created on first use)."""

        def run() -> str:
            fold = self.fold
            if fold is None or color not in fold_colors(fold):
                raise NotFound(f"No player plays {color} in the current game.")
            token = self.paired.get(color)
            if token is None or rotate:
                if rotate:
                    self.store.revoke_tokens(fold.game_id, color)
                token = secrets.token_urlsafe(24)
                self.store.add_token(token, fold.game_id, color)
                self.paired[color] = token
                self._refresh()
            return token

        return self.call(run)

    def player_of_token(self, token: str) -> str | None:
        """The colour a player token acts for in the current game (None if not valid now)."""
        fold = self.fold
        if fold is None:
            return None
        found = self.store.token(token)
        if found is None or found[0] != fold.game_id:
            return None
        if self.paired.get(found[1]) != token:
            return None
        return found[1]

    def token_owner(self, token: str) -> tuple[str, str] | None:
        return self.store.token(token)

    # --- history ------------------------------------------------------------------------
    def game_state(self, game_id: str, upto: int | None = None) -> dict[str, Any]:
        events = self.store.events(game_id, upto=upto)
        if not events:
            if self.store.game(game_id) is None:
                raise NotFound(f"There is no game {game_id!r}.")
            raise NotFound(f"Game {game_id} has no events up to #{upto}.")
        fold = fold_game(events, self.map)
        return public_state(fold, None, self.store.tokens_of(game_id))

    def game_events(self, game_id: str, *, reveal: bool) -> dict[str, Any]:
        game = self.store.game(game_id)
        if game is None:
            raise NotFound(f"There is no game {game_id!r}.")
        events = self.store.events(game_id)
        steps, _ = effective_steps(events)
        undone = {s.seq for s in steps if s.effective is None}
        first = events[0].action if events else {}
        kind = None if first.get("game", EUROPE) == EUROPE else game_kind(first["game"])
        hide = not reveal and game.finished is None
        out = []
        for e in events:
            action = dict(e.action)
            if hide and action.get("type") == "keep_tickets":
                action["tickets"] = len(action.get("tickets", []))
            if hide and action.get("type") == "replace":
                inner = dict(action.get("action", {}))
                if inner.get("type") == "keep_tickets":
                    inner["tickets"] = len(inner.get("tickets", []))
                action["action"] = inner
            if hide and action.get("type") == "set_board" and "tickets" in action:
                action["tickets"] = {c: len(v) for c, v in action["tickets"].items()}
            out.append(
                {
                    "seq": e.seq,
                    "ts": e.ts,
                    "actor": e.actor,
                    "action": action,
                    "undone": e.seq in undone,
                    "text": describe_in(kind, e.action, secret=hide),
                }
            )
        return {"game_id": game_id, "events": out}

    def games(self) -> dict[str, Any]:
        out = []
        current = self.fold.game_id if self.fold else None
        for g in self.store.games():
            d = g.to_json()
            if g.id == current and self.fold is not None:
                d["phase"] = self._snapshot.get("phase")
            else:
                d["phase"] = "finished" if g.finished is not None else "abandoned"
            out.append(d)
        return {"games": out}

    # --- photo mode -----------------------------------------------------------------------
    def read_photo(self, data: bytes) -> PhotoJob:
        with self._lock:
            if self._photo_pool is None:
                self._photo_pool = ThreadPoolExecutor(1, thread_name_prefix="companion-photo")
            job = PhotoJob(f"p{len(self._photo_jobs) + 1}")
            self._photo_jobs[job.id] = job
            pool = self._photo_pool
        reader = self._photo_reader or read_photo_bytes
        pool.submit(self._photo_run, job, reader, data)
        return job

    def _photo_run(
        self, job: PhotoJob, reader: Callable[[bytes], dict[str, Any]], data: bytes
    ) -> None:
        try:
            reading = reader(data)
        except ValueError as exc:
            job.error = sentence(str(exc))
            job.status = "failed"
            self.notice(
                f"The photo could not be read: {exc}",
                "error",
                code="photo.failed",
                params={"error": sentence(str(exc))},
            )
            return
        except Exception as exc:
            log.exception("reading a photo failed")
            job.error = sentence(f"the photo could not be read ({type(exc).__name__})")
            job.status = "failed"
            self.notice(
                job.error, "error", code="photo.failed", params={"error": type(exc).__name__}
            )
            return
        job.reading = reading
        job.status = "done"
        n = sum(1 for v in reading.get("routes", {}).values() if v)
        self.notice(
            f"The photo is read: {n} routes with trains. Check them on the map.",
            code="photo.read",
            params={"n": n},
        )

    def photo_job(self, job_id: str) -> PhotoJob:
        with self._lock:
            job = self._photo_jobs.get(job_id)
        if job is None:
            raise NotFound(f"There is no photo job {job_id!r}.")
        return job


def read_photo_bytes(data: bytes) -> dict[str, Any]:
    """Decode an uploaded image and read the board (ValueError with a sentence if not)."""
    import cv2
    import numpy as np

    from companion.vision.read import read_board

    image = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError("the upload is not a JPEG or PNG image")
    reading = read_board(np.asarray(image, dtype=np.uint8))
    out = reading.to_json()
    return {
        "routes": out["routes"],
        "stations": out["stations"],
        "confidence": out["confidence"],
    }


def iter_sse(sub: Subscription, keepalive: float, lifetime: float | None = None) -> Iterator[str]:
    """Server-sent-event lines for one subscriber (ends when closed or after ``lifetime``)."""
    import time

    start = time.monotonic()
    try:
        yield "retry: 2000\n\n"
        while True:
            if lifetime is not None and time.monotonic() - start > lifetime:
                return
            try:
                item = sub.get(timeout=keepalive)
            except queue.Empty:
                yield ": keep-alive\n\n"
                continue
            if item is None:
                return
            event, seq, data = item
            lines = []
            if event is not None:
                lines.append(f"event: {event}")
            if seq is not None:
                lines.append(f"id: {seq}")
            lines.append(f"data: {data}")
            yield "\n".join(lines) + "\n\n"
    finally:
        sub.close()
