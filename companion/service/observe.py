"""What the camera, the card reader and the buttons report, handled on the loop thread.

Each observation is decided by :func:`~companion.service.camera.reconcile`, then applied (a
step), asked (a question for the host, kept in the pending state), vetoed, collected as a tap
into the pending payment or tickets, or pressed (a button).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.core.errors import RulesError
from companion.service.auth import Actor
from companion.service.camera import Decision, reconcile
from companion.service.describe import describe
from companion.service.errors import (
    Conflict,
    Forbidden,
    NotFound,
    ServiceError,
    conflict,
    sentence,
)
from companion.service.fold import GameFold, OtherFold, fold_tracker, strict_fold
from companion.service.ledger import Ledger
from companion.service.pending import Confirmation, Pending, max_payment, max_tickets
from companion.service.shapes import card_list
from companion.store import Event


class Observations:
    """The observation handlers; they change the game only through the :class:`Ledger`."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.streams = ledger.streams

    @property
    def pending(self) -> Pending:
        return self.ledger.pending

    @property
    def seq(self) -> int:
        return self.ledger.seq

    def observe(self, obs: dict[str, Any], actor: Actor, late: bool = True) -> dict[str, Any]:
        decision = reconcile(self.ledger.fold, self.pending, obs, late=late)
        seq = self.seq
        if decision.kind == "ignore":
            return {"result": "ignored", "text": sentence(decision.reason), "seq": seq}
        if decision.kind == "veto":
            told: dict[str, Any] = {"text": sentence(decision.reason), "color": obs.get("color")}
            if obs["kind"] in ("claim_seen", "station_seen"):
                told["kind"] = "claim" if obs["kind"] == "claim_seen" else "station"
                told["key"] = obs.get("route") or obs.get("city")
                told["owner"] = decision.params.get("owner")
            self.streams.tell("vetoed", told)
            self.streams.notice(
                decision.reason,
                "warning",
                obs.get("color"),
                code=decision.code or "message",
                params=decision.params,
            )
            return {"result": "vetoed", "text": sentence(decision.reason), "seq": seq}
        if decision.kind == "tap":
            text = self.tap(obs)
            return {"result": "pending", "text": text, "seq": seq}
        if decision.kind == "button":
            return self.button(obs["name"], actor)
        assert decision.action is not None
        device = Actor("device", None, actor.name if actor.role == "device" else "camera")
        if decision.kind == "late":
            try:
                return self.late(decision, device)
            except ServiceError:
                # That turn already had its action (or the claim cannot be): as before.
                return self.observe(obs, actor, late=False)
        if decision.kind == "confirm":
            return self.ask(obs, decision)
        try:
            self.ledger.step(decision.action, device)
        except ServiceError as exc:
            # The loop state moved between the decision and the step: ask instead.
            params = {"color": obs.get("color"), "text": sentence(exc.message)}
            code = f"rule.{exc.rule}" if exc.rule else "message"
            again = Decision("confirm", exc.message, decision.action, code, params)
            return self.ask(obs, again)
        return {"result": "applied", "text": sentence(describe(decision.action)), "seq": self.seq}

    def late(self, decision: Decision, device: Actor) -> dict[str, Any]:
        """A claim/station seen after its player ended a turn without an action, nobody having
        acted since: put it into that turn. Logged as two events, ``replace`` of the end_turn
        by the claim, then the end_turn again, so that replaying the log gives this state."""
        fold = self.ledger.require_europe()
        assert decision.action is not None
        action = dict(decision.action)
        seq = int(decision.params["seq"])
        end = fold.step(seq)
        if end is None or end.effective is None:
            raise Conflict("That turn is no longer the last one.", rule="late-claim")
        fix = {"type": "replace", "seq": seq, "action": action}
        again = dict(end.effective)
        probe = [
            Event(0, fold.game_id, 0.0, device.name, fix),
            Event(0, fold.game_id, 0.0, end.actor, again),
        ]
        try:
            trial = strict_fold([*self.ledger.events, *probe], self.ledger.map)
        except RulesError as exc:
            raise conflict(exc) from None
        assert isinstance(trial, GameFold)
        self.ledger.append_all(fold.game_id, [(device.name, fix), (end.actor, again)])
        if self.pending.ended is not None and self.pending.ended[0] == seq:
            self.pending.ended = None
        self.ledger.drop_stale_confirmations()
        self.ledger.refresh()
        color = str(action.get("player"))
        where: dict[str, Any] = {k: action[k] for k in ("route", "city") if k in action}
        text = f"{describe(action)}: seen after {color}'s turn ended, entered into that turn"
        self.streams.notice(
            text, "info", color, code="camera.late_claim", params={"color": color, **where}
        )
        self.ledger.announce(fold)
        return {"result": "applied", "text": sentence(text), "seq": self.seq}

    def ask(self, obs: Mapping[str, Any], decision: Decision) -> dict[str, Any]:
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
        self.ledger.refresh(pending_only=True)
        where = {"route": key} if kind == "claim" else {"city": key}
        self.streams.notice(
            f"Please confirm: {describe(decision.action)}? {decision.reason}",
            "warning",
            code=f"camera.confirm_{kind}",
            params={"color": obs["color"], **where, "reason": reason},
        )
        return {"result": "pending", "text": sentence(decision.reason), "seq": self.seq}

    def tap(self, obs: Mapping[str, Any]) -> str:
        fold = self.ledger.require_europe()
        t = fold.tracker
        kind = obs["kind"]
        if kind == "reader_player":
            player = obs["player"]
            if player not in {p.color for p in t.players}:
                raise Conflict(
                    f"No player plays {player} in this game.",
                    rule="unknown-player",
                    params={"color": player},
                )
            self.pending.reader_player = player
            self.ledger.refresh(pending_only=True)
            return f"The reader now takes {player}'s cards."
        who = self.pending.reader_player or t.current_player.color
        if kind == "card_tapped":
            if self.pending.payment_player != who:
                self.pending.clear_payment()
                self.pending.payment_player = who
            uid = obs.get("uid")
            if uid and uid in self.pending.uids:
                self.pending.duplicates += 1
                self.ledger.refresh(pending_only=True)
                self.streams.notice(
                    f"That card was already tapped for this payment ({obs['card']}); "
                    "it counts once",
                    "warning",
                    who,
                    code="reader.duplicate_card",
                    params={"card": obs["card"], "player": who},
                )
                return "Duplicate card: it counts once."
            most = max_payment(t.map)
            if len(self.pending.cards) >= most:
                self.streams.notice(
                    f"{who}'s payment already has {most} cards, as many as a route can take; "
                    "clear it to start again",
                    "warning",
                    who,
                    code="reader.payment_full",
                    params={"player": who, "most": most},
                )
                return f"The payment is full ({most} cards)."
            self.pending.cards.append(obs["card"])
            if uid:
                self.pending.uids.append(uid)
            self.ledger.refresh(pending_only=True)
            return f"{obs['card']} added to {who}'s payment ({len(self.pending.cards)} cards)."
        ticket = obs["ticket"]
        if ticket not in t.map.tickets:
            raise Conflict(
                f"Unknown ticket id {ticket!r}.", rule="unknown-ticket", params={"ticket": ticket}
            )
        if self.pending.tickets_player != who:
            self.pending.clear_tickets()
            self.pending.tickets_player = who
        if ticket in self.pending.tickets:
            return "That ticket was already tapped."
        if len(self.pending.tickets) >= max_tickets(t.map):
            return "As many tickets are tapped as a player can be dealt."
        # a ticket another player holds is taken like any other (its keep is a clash the host
        # hears of): nothing here tells what anyone else holds
        self.pending.tickets.append(ticket)
        self.ledger.refresh(pending_only=True)
        return f"Ticket added for {who} ({len(self.pending.tickets)} tapped)."

    def button(self, name: str, actor: Actor) -> dict[str, Any]:
        fold = self.ledger.require_game()
        if isinstance(fold, OtherFold):
            return self.button_other(fold, name)
        if name == "end_turn":
            if fold.finished or fold.tracker.over:
                return {"result": "ignored", "text": "The game is over.", "seq": self.seq}
            t = fold.tracker
            if t.ended_by is not None and not t.acted:
                return self.ended_already(t.players[t.ended_by].color)
            color = t.current_player.color
            end: dict[str, Any] = {"type": "end_turn", "player": color}
            if not t.acted and t.tunnel is None and fold.mode == "table":
                # pressed before the camera read the turn's trains: the turn may end empty (a
                # claim seen late goes into it); a screen's end turn needs an action
                end["early"] = True
            self.ledger.step(end, Actor.device("button"))
            return {"result": "applied", "text": f"{color}'s turn ended.", "seq": self.seq}
        if name == "undo":
            self.ledger.correct({"type": "undo"}, Actor.device("button"))
            return {"result": "applied", "text": "Undone.", "seq": self.seq}
        if not self.pending.confirmations:
            if name == "confirm":
                return self.confirm_taps(fold)
            return {"result": "ignored", "text": "Nothing to reject.", "seq": self.seq}
        cid = self.pending.confirmations[0].id
        self.confirm(cid, name == "confirm", Actor.device("button"), None)
        return {"result": "applied", "text": "Done.", "seq": self.seq}

    def button_other(self, fold: OtherFold, name: str) -> dict[str, Any]:
        """Buttons in another game: undo, and end turn when the game follows turns."""
        if name == "undo":
            self.ledger.correct({"type": "undo"}, Actor.device("button"))
            return {"result": "applied", "text": "Undone.", "seq": self.seq}
        color = fold.table.current_color()
        tracker = fold_tracker(fold)
        ended = tracker.ended_by if tracker is not None else None
        if name == "end_turn" and tracker is not None and ended is not None and not tracker.acted:
            return self.ended_already(tracker.players[ended].color)
        if name == "end_turn" and color is not None:
            # pressed on the table: may end a turn the screens have not seen an action in
            end = {"type": "end_turn", "player": color, "early": True}
            self.ledger.step(end, Actor.device("button"))
            return {"result": "applied", "text": f"{color}'s turn ended.", "seq": self.seq}
        return {
            "result": "ignored",
            "text": f"Nothing to {name.replace('_', ' ')}.",
            "seq": self.seq,
        }

    def ended_already(self, color: str) -> dict[str, Any]:
        """The end-turn button pressed after a turn ended by itself (its action complete), the
        next player not having acted: a habit, not an empty turn for the next player."""
        return {
            "result": "ignored",
            "text": f"{color}'s turn already ended with its action.",
            "seq": self.seq,
        }

    def confirm_taps(self, fold: GameFold) -> dict[str, Any]:
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
                self.ledger.step(
                    {"type": "tunnel_reveal", "player": color, "cards": tapped}, button
                )
                p.clear_payment()
                self.ledger.refresh(pending_only=True)
                return {"result": "applied", "text": "Tunnel cards revealed.", "seq": self.seq}
            self.ledger.step({"type": "tunnel_pay", "player": color}, button)
            return {"result": "applied", "text": f"{color} paid the tunnel.", "seq": self.seq}
        if p.tickets_player is not None and p.tickets:
            color = p.tickets_player
            if t.deal_of(color) is None:
                # tickets tapped with no deal open: the player drew them (the turn's action)
                self.ledger.step({"type": "draw_tickets", "player": color}, button)
            self.ledger.step({"type": "keep_tickets", "player": color}, button)
            text = f"{color} kept the tapped tickets."
            return {"result": "applied", "text": text, "seq": self.seq}
        return {"result": "ignored", "text": "Nothing to confirm.", "seq": self.seq}

    def confirm(
        self, cid: str, accept: bool, actor: Actor, cards: list[str] | None
    ) -> dict[str, Any]:
        conf = next((c for c in self.pending.confirmations if c.id == cid), None)
        if conf is None:
            raise NotFound(
                f"There is no open question {cid!r}.", code="camera.no_question", params={"id": cid}
            )
        if actor.role == "player" and actor.color != conf.color:
            raise Forbidden(
                f"Only the host or {conf.color} can answer this question.",
                code="auth.not_your_question",
                params={"color": conf.color},
            )
        if accept:
            action = dict(conf.action)
            if cards is not None:
                action["cards"] = [c.value for c in card_list(cards, '"cards"')]
            self.ledger.step(action, actor if actor.role != "player" else Actor.player(conf.color))
        self.pending.confirmations = [c for c in self.pending.confirmations if c.id != cid]
        self.ledger.refresh(pending_only=not accept)
        if not accept:
            self.streams.tell("rejected", {"kind": conf.kind, "key": conf.key, "color": conf.color})
        return self.streams.snapshot

    def clear(self, actor: Actor) -> dict[str, Any]:
        """Forget the tapped cards and tickets (a player only their own)."""
        p = self.pending
        mine_cards = actor.role != "player" or p.payment_player == actor.color
        mine_tickets = actor.role != "player" or p.tickets_player == actor.color
        if not (mine_cards or mine_tickets):
            raise Forbidden(
                "Only the host can clear another player's taps.", code="auth.not_your_taps"
            )
        if mine_cards:  # a player clears their own taps only, never another's beside them
            p.clear_payment()
        if mine_tickets:
            p.clear_tickets()
        self.ledger.refresh(pending_only=True)
        return {"cleared": True}
