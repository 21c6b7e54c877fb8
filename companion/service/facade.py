"""The service facade: one object the web app, the commands and the devices talk to.

Every change runs on the loop thread (:mod:`.loop`), in arrival order: actions are checked
(:mod:`.shapes`, :mod:`.auth`), tried and logged (:mod:`.ledger`); observations are decided
(:mod:`.camera`) and handled (:mod:`.observe`); each change publishes the new public state
(:mod:`.views`) on the event streams (:mod:`.streams`). Photos are read apart (:mod:`.photos`).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import Any, TypeVar

from companion.core.board import GameMap
from companion.service.auth import Actor, authorize, player_session_nonce
from companion.service.errors import NotFound
from companion.service.fold import AnyFold, OtherFold, fold_colors
from companion.service.history import History
from companion.service.ledger import Ledger
from companion.service.loop import Loop
from companion.service.observe import Observations
from companion.service.pending import Pending
from companion.service.photos import Notify, PhotoJob, PhotoReader, Photos, read_photo_bytes
from companion.service.profile_store import TableProfiles
from companion.service.shapes import check_action_shape, check_observation, request_options
from companion.service.streams import Streams, Subscription
from companion.service.views import open_clashes, ticket_progress
from companion.store import Event, EventStore

T = TypeVar("T")


class Service:
    """Owns the current game. Every change runs on the loop thread, in arrival order."""

    def __init__(
        self,
        store: EventStore,
        game_map: GameMap | None = None,
        *,
        history: int = 256,
        photo_reader: PhotoReader | None = None,
    ) -> None:
        if game_map is None:
            from companion.data import europe_map

            game_map = europe_map()
        self.store = store
        self.map = game_map
        self.streams = Streams(history)
        self.ledger = Ledger(store, game_map, self.streams)
        self.observations = Observations(self.ledger)
        self.loop = Loop(lambda exc: self.streams.tell("refused", exc.to_json()))
        self.photos = Photos(self.streams.notice)
        self.history = History(store, game_map, self._current_log, self._snapshot)
        self._photo_reader = photo_reader
        # the table camera's profile (attach_camera): learnt, kept and used (profile_store)
        self.profiles = TableProfiles(self.streams.notice, getattr(store, "dir", None))
        self.ledger.load()

    # --- the current game (owned by the ledger; read here) ----------------------------
    def _snapshot(self) -> tuple[dict[str, Any], str]:
        text = self.streams.snapshot_json
        return json.loads(text), text

    def _current_log(self) -> tuple[str | None, list[Event]]:
        fold = self.ledger.fold
        return (fold.game_id if fold is not None else None), self.ledger.events

    @property
    def fold(self) -> AnyFold | None:
        return self.ledger.fold

    @property
    def events(self) -> list[Event]:
        return self.ledger.events

    @property
    def pending(self) -> Pending:
        return self.ledger.pending

    @property
    def paired(self) -> dict[str, str]:
        return self.ledger.paired

    @property
    def listeners(self) -> list[Callable[[str, dict[str, Any]], None]]:
        """In-process listeners, called as ``fn(kind, data)`` (see :meth:`Streams.tell`)."""
        return self.streams.listeners

    # --- lifecycle ------------------------------------------------------------------
    def start(self) -> Service:
        self.streams.open()
        self.loop.start()
        return self

    def close_streams(self) -> None:
        """End every server-sent-event stream now and refuse new ones (the server is stopping):
        the web threads finish their responses while the server can still send them."""
        self.streams.close()

    def stop(self, timeout: float = 5.0) -> None:
        self.close_streams()
        self.loop.stop(timeout)
        self.photos.shutdown()
        self.profiles.shutdown()

    def call(self, fn: Callable[[], T], timeout: float | None = None) -> T:
        """Run ``fn`` on the loop thread and wait for its result (or its ServiceError); a 503
        means it was not applied (see :meth:`Loop.call`)."""
        return self.loop.call(fn, timeout)

    def post(self, fn: Callable[[], Any]) -> Future[Any]:
        """Queue ``fn`` for the loop thread without waiting."""
        return self.loop.post(fn)

    # --- snapshots and publishing ------------------------------------------------------
    @property
    def seq(self) -> int:
        return self.ledger.seq

    def state(self) -> dict[str, Any]:
        return self.streams.snapshot

    def state_json(self) -> str:
        return self.streams.snapshot_json

    @property
    def notice(self) -> Notify:
        """Tell every screen (:meth:`Streams.notice`). ``code`` + ``params``: the same message
        for the dashboard to translate (codes in API.md; ``message``: only the English
        ``text``)."""
        return self.streams.notice

    def subscribe(self, last_event_id: int | None = None, *, host: bool = False) -> Subscription:
        """A new subscriber with its backlog queued (no gap, no duplicate). ``host``: the
        host's stream (only it receives the notices with ``"audience": "host"``)."""
        return self.streams.subscribe(last_event_id, host=host)

    def unsubscribe(self, sub: Subscription) -> None:
        self.streams.unsubscribe(sub)

    @property
    def subscriber_count(self) -> int:
        return self.streams.count

    # --- actions and observations -------------------------------------------------------
    def act(self, data: Any, actor: Actor) -> dict[str, Any]:
        """Validate, log and apply one action; returns the new public state."""
        fold = self.fold
        game = fold.kind if isinstance(fold, OtherFold) else None
        action = check_action_shape(data, self.map, game)
        after, replace = request_options(data)
        authorize(action, actor)
        return self.call(lambda: self.ledger.act(action, actor, game, after=after, replace=replace))

    def observe(self, data: Any, actor: Actor | None = None) -> dict[str, Any]:
        obs = check_observation(data)
        who = actor or Actor.host()
        return self.call(lambda: self.observations.observe(obs, who))

    def observe_nowait(self, data: Mapping[str, Any], actor: Actor | None = None) -> Future[Any]:
        """For devices in the process: queue an observation (bad ones are logged)."""
        obs = check_observation(data)
        who = actor or Actor.device("camera")

        def run() -> dict[str, Any]:
            # what the decision was made with, for the black box's replay: the log position
            # before it and the pending payment (public on the dashboard)
            p = self.pending
            made_with = {
                "before": self.seq,
                "pending": {
                    "payment_player": p.payment_player,
                    "cards": list(p.cards),
                    "ended": list(p.ended) if p.ended is not None else None,
                },
            }
            return {**self.observations.observe(obs, who), **made_with}

        return self.post(run)

    def confirm(
        self, cid: str, accept: bool, actor: Actor, cards: list[str] | None = None
    ) -> dict[str, Any]:
        return self.call(lambda: self.observations.confirm(cid, accept, actor, cards))

    def clear_pending(self, actor: Actor) -> dict[str, Any]:
        return self.call(lambda: self.observations.clear(actor))

    def _fold_of(self, color: str) -> AnyFold:
        """The current game's fold, where ``color`` plays (else NotFound)."""
        fold = self.fold
        if fold is None or color not in fold_colors(fold):
            raise NotFound(
                f"No player plays {color} in the current game.",
                code="request.no_player",
                params={"color": color},
            )
        return fold

    def tickets(self, color: str) -> dict[str, Any]:
        def run() -> dict[str, Any]:
            fold = self._fold_of(color)
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

    def clashes(self) -> list[dict[str, Any]]:
        """The open ticket clashes (the host's only): ticket and holders."""
        return self.call(lambda: open_clashes(self.fold))

    # --- pairing ----------------------------------------------------------------------
    def pair(self, color: str, rotate: bool = False, *, show: bool = False) -> str:
        """The pairing token of a colour in the current game (created on first use; ``rotate``:
        a new one, the old stops working). ``show``: the host shows the link (again): it opens
        once more (a link opens once: :meth:`open_link`)."""

        def run() -> str:
            fold = self._fold_of(color)
            token = self.paired.get(color)
            if token is None or rotate:
                if rotate:
                    self.store.revoke_tokens(fold.game_id, color)
                token = secrets.token_urlsafe(24)
                self.store.add_token(token, fold.game_id, color)
                self.paired[color] = token
                self.ledger.refresh()
            elif show:
                self.store.rearm_link(token)
            return token

        return self.call(run)

    def open_link(self, token: str) -> bool:
        """A phone opens a pairing link: True the first time (since the host showed it), False
        after that (the page then says to ask the host) or for a token not valid now."""

        def run() -> bool:
            if self.player_of_token(token) is None:
                return False
            return self.store.open_link(token)

        return self.call(run)

    def phone_seen(self, token: str) -> None:
        """A phone opened its pairing link or its page: its row says "paired", not "waiting"."""

        def run() -> None:
            if token in self.ledger.seen or token not in self.paired.values():
                return
            self.store.mark_seen(token)  # durable first: a restart shows the same state
            self.ledger.seen.add(token)
            self.ledger.refresh()

        self.post(run)

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

    def link_opened(self, token: str) -> bool:
        """Whether a phone opened this pairing link: then its token signs nothing in any more
        (the phone has its own session); the host showing the link again lets it open once
        more."""
        return self.store.link_opened(token)

    def player_of_session(self, value: str) -> tuple[str, str] | None:
        """(colour, pairing token) of a player session cookie valid in the current game."""
        if self.fold is None or not value:
            return None
        for color, token in list(self.paired.items()):
            if player_session_nonce(token, value) is not None:
                return (color, token) if self.player_of_token(token) == color else None
        return None

    def token_owner(self, token: str) -> tuple[str, str] | None:
        return self.store.token(token)

    # --- history ------------------------------------------------------------------------
    def game_state(self, game_id: str, upto: int | None = None) -> dict[str, Any]:
        """A game's public state at log position ``upto`` (the fold of its effective log up to
        there; cached per position: see :mod:`.history`)."""
        return self.history.game_state(game_id, upto)[0]

    def game_state_json(self, game_id: str, upto: int | None = None) -> str:
        return self.history.game_state(game_id, upto)[1]

    def game_events(self, game_id: str, *, reveal: bool) -> dict[str, Any]:
        """A game's log for the history page (cached per log position)."""
        data, text = self.history.game_events(game_id, reveal=reveal)
        return data or dict(json.loads(text))

    def game_events_json(self, game_id: str, *, reveal: bool) -> str:
        return self.history.game_events(game_id, reveal=reveal)[1]

    def games(self) -> dict[str, Any]:
        out = []
        current = self.fold.game_id if self.fold else None
        for g in self.store.games():
            d = g.to_json()
            if g.id == current and self.fold is not None:
                d["phase"] = self.streams.snapshot.get("phase")
            else:
                d["phase"] = "finished" if g.finished is not None else "abandoned"
            out.append(d)
        return {"games": out}

    # --- photo mode -----------------------------------------------------------------------
    def read_photo(self, data: bytes) -> PhotoJob:
        return self.photos.read(data, self._photo_reader or read_photo_bytes)

    def read_camera_photo(self) -> PhotoJob:
        """The table camera's newest clean frame read as a photo, with its table profile."""
        look = self.profiles.newest_look()
        return self.photos.read(b"", lambda _: self.profiles.read_look(look))

    # --- the table camera ---------------------------------------------------------------------
    def attach_camera(self, camera: str) -> TableProfiles:
        """The table's camera is ``camera`` (its id): its profile is loaded and, from now on,
        learnt from the game's claims (see :mod:`.profile_store`)."""
        self.profiles.attach(camera, self.state())
        if self.profiles.heard not in self.streams.listeners:
            self.streams.listeners.append(self.profiles.heard)
        return self.profiles

    def photo_job(self, job_id: str) -> PhotoJob:
        return self.photos.job(job_id)

    @property
    def _photo_jobs(self) -> dict[str, PhotoJob]:
        """The photo jobs by id (kept under this name for the tests that look at it)."""
        return self.photos.jobs
