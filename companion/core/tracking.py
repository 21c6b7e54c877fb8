"""The machinery every board's table tracker shares.

A tracker never sees hands or decks: it follows claims, card taps, ticket scans and turn ends.
:class:`Tracked` is a player as the table shows it; :class:`Tracker` holds whose turn it is,
the routes taken, the payment mode (``strict``: cards must be tapped and pay exactly;
``lenient``: tapped cards are checked and a wrong payment is accepted with a warning; ``off``),
the ticket checks, the final round, all-or-nothing ``apply`` and the JSON form. Europe
(:mod:`companion.core.tracker`) adds tunnels, stations and variants; London its ticket keeps.

Setup and turns, as a real table plays them:

- A player's first keep is judged by the board's setup rule (Europe: the variant's) whenever
  it comes: out of turn, and after others have played. It is not a turn action.
- ``tickets_tracked`` (the game tracks tickets from the start): a player's first turn action
  (a claim, a draw, an end of turn, a later keep) is refused (``first-tickets``) until that
  player has kept first tickets; nor does the next player's action end the turn of a player
  who has not. Off (a game started without ticket tracking, and the default for the trackers
  a service builds today), turns never wait for tickets.
- ``turn_needs_action``: ending a turn in which the player did nothing is refused
  (``turn-needs-action``), so a second tap on "end turn" does not end the next player's turn.
  Off (the default for the trackers a service builds today: its late camera claims go into a
  turn ended early), such a turn ends as before.
- Keeps answer a deal, and nothing a player is told depends on what another player holds.
  A keep is taken only as the answer to a deal: the first tickets (the setup rule), tickets
  drawn as a turn's action (``draw_tickets``; the keep may come later, out of turn) or tickets
  to enter again after the host settled a clash. A keep with no deal open (``no-ticket-deal``)
  or of the wrong number of tickets is refused before any ticket it names is looked at; the
  other refusals look only at the map and the player's own tickets. A keep naming a ticket
  another player holds is kept like any other: the ticket then has two holders, a *clash*
  (:meth:`Tracker.clashes`) that only the host is told of and that stays until the host
  settles it (:meth:`Tracker.settle_clash`: whose keep stands; the others enter another
  ticket) or a correction takes one of the keeps away. A game with a clash open cannot be
  scored.
- ``auto_end``: a turn is one action in the rulebook, so it ends by itself once its action is
  complete (a claim with its payment - a tunnel once settled -, a station, cards drawn, tickets
  drawn: their keep answers the deal later, out of turn). ``ended_by`` remembers whose turn
  just ended so, until the next player acts; that player's own "end turn" then changes nothing
  (:meth:`Tracker.ended_already`).

A lenient table accepts a wrong tapped payment and records it as a :class:`PaymentProblem` on
the claim (``problems``, in the JSON form; ``last_problems``: those of the latest ``apply``), so
a service can mark the claim until the host accepts it (:meth:`Tracker.accept_problem`) or
corrects it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, Generic, Self, TypeVar

from .actions import Action, DrawTickets, DrewCards, EndTurn, KeepTickets
from .board import MapLookups, RouteBasics
from .cards import TrainCard
from .errors import IllegalActionError, InvalidStateError
from .networks import Link
from .records import fields_json
from .rules import FinalRound, TurnRules, check_draw_keep, lookup_route
from .seats import Seat, TurnOrder

PAYMENT_MODES = ("strict", "lenient", "off")

C = TypeVar("C", bound=TrainCard)
R = TypeVar("R", bound=Link)
RB = TypeVar("RB", bound=RouteBasics[Any])


@dataclass
class Tracked(Seat):
    """A player as the table shows it; each board names its pieces and adds its own fields."""

    def _body_json(self) -> dict[str, Any]:
        return {"routes": list(self.routes), **self._extra_json(), "tickets": list(self.tickets)}

    @classmethod
    def _body_from_json(cls, d: Mapping[str, Any]) -> dict[str, Any]:
        routes, tickets = list(d["routes"]), list(d["tickets"])
        return {"routes": routes, **cls._extra_from_json(d), "tickets": tickets}


T = TypeVar("T", bound=Tracked)


def check_new_tickets(
    p: Seat,
    tickets: Sequence[str],
    known: Mapping[str, Any],
    ticket_id: str = "ticket id",
    check: Callable[[str], None] | None = None,
) -> None:
    """Tickets ``p`` keeps: each named once, known, (``check``: the board's own check of a
    known ticket), not already ``p``'s own."""
    twice = [t for i, t in enumerate(tickets) if t in tickets[:i]]
    if twice:
        raise IllegalActionError(
            f"ticket {twice[0]} is named twice", rule="ticket-twice", params={"ticket": twice[0]}
        )
    for t in tickets:
        if t not in known:
            raise IllegalActionError(
                f"unknown {ticket_id} {t!r}", rule="unknown-ticket", params={"ticket": t}
            )
        if check is not None:
            check(t)
        if t in p.tickets:
            raise IllegalActionError(
                f"{p.color} already holds {t}",
                rule="ticket-held",
                code="rule.ticket-own",
                params={"color": p.color, "ticket": t},
            )


def ticket_clashes(players: Sequence[Seat]) -> dict[str, list[str]]:
    """Tickets held by two or more players -> their holders (seat order), in the order of the
    first holders' tickets."""
    seen: dict[str, list[str]] = {}
    for p in players:
        for t in p.tickets:
            seen.setdefault(t, []).append(p.color)
    return {t: holders for t, holders in seen.items() if len(holders) > 1}


def check_no_clash(players: Sequence[Seat]) -> None:
    """Refuse scoring while two players hold the same ticket (the host settles it first)."""
    if ticket_clashes(players):
        raise IllegalActionError(
            "two players hold the same ticket: settle it first", rule="ticket-clash-open"
        )


def judge_payment(
    mode: str,
    check: Callable[[Sequence[C]], object],
    cards: Sequence[C] | None,
    what: str,
    where: tuple[str, str],
    need: Mapping[str, Any] | None = None,
) -> IllegalActionError | None:
    """Tapped ``cards`` as the payment mode says: ``off`` takes anything; ``strict`` raises
    for a wrong payment or none (``need``: ``need`` cards of ``need_card``, for the words);
    ``lenient`` returns what is wrong (no cards entered: ``no-cards-entered``) for the record,
    or None. ``where``: (the route or city, the colour of who pays)."""
    if mode == "off":
        return None
    if cards is None:
        if mode == "strict":
            raise IllegalActionError(
                f"tap the cards that pay for {what} (payments are checked strictly)",
                rule="no-cards-given",
                params={"place": where[0], "color": where[1], **(need or {})},
            )
        # lenient: taken without a payment, and marked for the host like a wrong one
        return IllegalActionError(
            f"no cards were entered for {what}", rule="no-cards-entered", params=dict(need or {})
        )
    try:
        check(cards)
    except IllegalActionError as exc:
        if mode == "strict":
            raise
        return exc
    return None


@dataclass
class PaymentProblem:
    """A wrong payment a lenient table accepted: who paid what for which claim, and why it is
    wrong (the refusal a strict table would have given: sentence, rule, code and params)."""

    id: int  # its place in the tracker's ``problems``
    player: str
    turn: int
    kind: str  # "claim", "tunnel" (the surcharge) or "station"
    place: str  # the route (a tunnel's route) or the city
    cards: tuple[str, ...]
    error: str
    rule: str
    code: str
    params: dict[str, Any] = field(default_factory=dict)
    accepted: bool = False

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)

    @classmethod
    def of(
        cls,
        at: tuple[int, int],
        color: str,
        kind: str,
        place: str,
        cards: tuple[str, ...],
        exc: IllegalActionError,
    ) -> PaymentProblem:
        """The problem ``exc`` of a payment: ``at`` (its id, the turn), who, what, the cards."""
        return cls(
            id=at[0],
            player=color,
            turn=at[1],
            kind=kind,
            place=place,
            cards=cards,
            error=str(exc),
            rule=exc.rule,
            code=exc.code,
            params={"place": place, "color": color, **exc.params},
        )

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> PaymentProblem:
        return cls(
            id=int(d["id"]),
            player=str(d["player"]),
            turn=int(d["turn"]),
            kind=str(d["kind"]),
            place=str(d["place"]),
            cards=tuple(str(c) for c in d["cards"]),
            error=str(d["error"]),
            rule=str(d["rule"]),
            code=str(d["code"]),
            params=dict(d["params"]),
            accepted=bool(d["accepted"]),
        )


# the turn's attributes its JSON form keeps as they are, first (the rest are built)
_TURN_AS_IS: Final = (
    "payment_mode",
    "tickets_tracked",
    "turn_needs_action",
    "auto_end",
    "ended_by",
    "phase",
    "current",
    "acted",
    "turn",
)


class Tracker(TurnOrder[T], Generic[T, R]):
    """Follows a real table. ``apply`` raises IllegalActionError and changes nothing if refused."""

    map: MapLookups[R, Any]  # each board's class names its map type

    # action type -> the name of the method that handles it (actor, action)
    HANDLERS: ClassVar[Mapping[type[Action], str]] = {
        DrawTickets: "_draw_tickets",
        DrewCards: "_drew",
    }
    TICKET_ID: ClassVar[str] = "ticket id"  # "unknown <TICKET_ID> 'x'"

    def __init__(
        self,
        game_map: MapLookups[R, Any],
        rules: TurnRules,
        players: list[T],
        payment_mode: str,
        *,
        tickets_tracked: bool = False,
        turn_needs_action: bool = False,
    ) -> None:
        if payment_mode not in PAYMENT_MODES:
            raise InvalidStateError(
                f"payment mode must be one of {', '.join(PAYMENT_MODES)}, not {payment_mode!r}"
            )
        super().__init__(players, rules)
        self.map = game_map
        self.payment_mode = payment_mode
        self.route_owner: dict[str, str] = {}
        self.phase = "setup"  # setup -> playing -> over
        self.acted = False
        self.warnings: list[str] = []
        self.problems: list[PaymentProblem] = []
        self.last_problems: list[PaymentProblem] = []
        self.tickets_tracked = tickets_tracked
        self.turn_needs_action = turn_needs_action
        self.dealt: dict[str, int] = {}  # colour -> tickets drawn in a turn, not kept yet
        self.reenter: dict[str, int] = {}  # colour -> tickets to enter again (a clash settled)
        self.auto_end = False  # the turn ends by itself after its action (set per game)
        self.ended_by: int | None = None  # whose turn just ended by itself (seat index)

    def _shared(self) -> tuple[object, ...]:
        """Immutable objects a copy shares (the map; Europe's variant too)."""
        return (self.map,)

    # --- queries ----------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.phase == "over"

    def ticket_holders(self, ticket: str) -> list[str]:
        """Who holds ``ticket`` (more than one: a clash), in seat order."""
        return [p.color for p in self.players if ticket in p.tickets]

    def clashes(self) -> dict[str, list[str]]:
        """The open clashes: ticket -> its holders (two or more)."""
        return ticket_clashes(self.players)

    def deal_of(self, color: str) -> tuple[str, int] | None:
        """The deal a keep answers now: ("setup" | "draw" | "reenter", tickets), or None."""
        p = self.player(color)
        if not p.ready and self._first_keep_now():
            return ("setup", self._setup_dealt())
        if color in self.dealt:
            return ("draw", self.dealt[color])
        if color in self.reenter:
            return ("reenter", self.reenter[color])
        return None

    def ended_already(self, color: str) -> bool:
        """Did ``color``'s turn just end by itself, the next player not having acted yet? Then
        that player's own "end turn" is nothing to do."""
        if self.ended_by is None or not 0 <= self.ended_by < self.n_players:
            return False
        return self.players[self.ended_by].color == color and (self.over or not self.acted)

    # --- applying ---------------------------------------------------------------------
    def apply(self, action: Action) -> list[str]:
        """Apply an action; returns the warnings it raised (lenient payments: each is also a
        :class:`PaymentProblem` in ``problems`` and ``last_problems``)."""
        before, problems_before = len(self.warnings), len(self.problems)
        trial = self.copy()
        trial._apply(action)
        trial.last_problems = trial.problems[problems_before:]
        self.__dict__.update(trial.__dict__)
        return self.warnings[before:]

    def open_problems(self) -> list[PaymentProblem]:
        """The wrong payments the host has not accepted yet."""
        return [p for p in self.problems if not p.accepted]

    def accept_problem(self, problem_id: int) -> PaymentProblem:
        """The host accepts a wrong payment as it was: its mark goes away."""
        if not 0 <= problem_id < len(self.problems):
            raise IllegalActionError(
                f"there is no payment problem {problem_id}",
                rule="no-payment-problem",
                params={"id": problem_id},
            )
        problem = self.problems[problem_id]
        problem.accepted = True
        return problem

    def _apply(self, action: Action) -> None:
        if isinstance(action, EndTurn) and self.ended_already(action.player):
            return  # that turn ended by itself already
        actor = self.player(action.player)
        if isinstance(action, KeepTickets):
            self._keep(actor, action)  # the answer to a deal, not a turn's action
            return
        if self.over:
            raise IllegalActionError("the game is over", rule="game-over")
        if self.tickets_tracked and not actor.ready:
            raise IllegalActionError(
                f"{actor.color} first keeps the tickets dealt at the start",
                rule="first-tickets",
                params={"color": actor.color},
            )
        if self.phase == "setup":
            self.phase = "playing"
        self._turn_check(actor, action)
        self._check_pending(action)
        self.ended_by = None
        if isinstance(action, EndTurn):
            self._end_turn()
            return
        if self._settle(actor, action):
            self._end_if_complete()
            return
        if self.acted:
            raise IllegalActionError(
                f"{actor.color} already took this turn's action; end the turn first",
                rule="one-action-per-turn",
            )
        name = self.HANDLERS.get(type(action))
        if name is None:
            raise IllegalActionError(
                f"{action.TYPE} is a simulation action; the table tracker does not see it",
                rule="not-tracked",
            )
        handler: Callable[[T, Any], None] = getattr(self, name)
        handler(actor, action)
        self._end_if_complete()

    def _end_if_complete(self) -> None:
        """With ``auto_end``: the turn's action is complete (nothing left to settle), so the
        turn ends now; ``ended_by`` says whose it was."""
        if self.auto_end and self.acted and self._may_end_for_them():
            seat = self.current
            self._next_turn_over()
            self.ended_by = seat

    def _first_keep_now(self) -> bool:
        """Is a keep by a player who has not kept yet that player's first keep?"""
        return True

    def _check_pending(self, action: Action) -> None:
        """Refuse ``action`` while something else must be settled first (a tunnel)."""

    def _settle(self, actor: T, action: Action) -> bool:
        """Handle a step of something the turn's action started (a tunnel); True if it was."""
        return False

    def _may_end_for_them(self) -> bool:
        """May the turn end because the next player acts (not in the middle of a tunnel)?"""
        return True

    def _turn_check(self, actor: T, action: Action) -> None:
        if actor is self.current_player:
            return
        nxt = self.players[(self.current + 1) % self.n_players]
        cur = self.current_player
        # (two players: who just ended a turn with its action is also the next one; acting again
        # before the current player has is a second action, not the end of an empty turn)
        again = self.ended_by is not None and self.players[self.ended_by] is actor
        if (
            actor is nxt
            and not again
            and self._may_end_for_them()
            and not isinstance(action, EndTurn)
            and (cur.ready or not self.tickets_tracked)
        ):
            # The table moved on without pressing "end turn": end it for them (they drew).
            self._next_turn_over()
            if self.over:
                raise IllegalActionError("the game is over", rule="game-over")
            return
        raise IllegalActionError(
            f"it is {cur.color}'s turn, not {actor.color}'s",
            rule="not-your-turn",
            params={"color": actor.color, "current": cur.color},
        )

    def _check_cards(
        self,
        check: Callable[[Sequence[C]], object],
        cards: Sequence[C] | None,
        what: str,
        paid: tuple[T, str, str],
        need: Mapping[str, Any] | None = None,
    ) -> None:
        """Check tapped ``cards`` as the payment mode says (:func:`judge_payment`); a wrong or
        missing payment a lenient table takes is a warning and a :class:`PaymentProblem`.
        ``paid``: (who pays, the kind of claim, its route or city)."""
        p, kind, place = paid
        exc = judge_payment(self.payment_mode, check, cards, what, (place, p.color), need)
        if exc is None:
            return
        self.warnings.append(str(exc))
        paid_cards = tuple(c.value for c in cards or ())
        at = (len(self.problems), self.turn)
        self.problems.append(PaymentProblem.of(at, p.color, kind, place, paid_cards, exc))

    def _route(self, route_id: str) -> R:
        return lookup_route(self.map.route, route_id)

    def _check_route_claim(
        self,
        p: T,
        route: RB,
        cards: Sequence[C] | None,
        check: Callable[[RB, Sequence[C]], object],
    ) -> None:
        """Raise unless ``p`` may claim ``route`` now; ``cards`` checked as the payment mode says
        against the board's ``check`` of a route's payment."""
        self._check_claim(route, p)
        need = {"need": route.length, "need_card": route.color_name}
        self._check_cards(lambda c: check(route, c), cards, route.id, (p, "claim", route.id), need)

    def _place_route(self, p: T, route_id: str, length: int, points: int) -> None:
        self.route_owner[route_id] = p.color
        p.routes.append(route_id)
        p.pieces -= length
        p.score += points
        self.acted = True

    def _drew(self, p: T, action: DrewCards) -> None:
        self.acted = True

    # --- tickets: deals and keeps ----------------------------------------------------------
    def _draw_tickets(self, p: T, action: DrawTickets) -> None:
        """The turn's action: ``p`` takes tickets from the deck; a keep answers it."""
        if p.color in self.dealt:
            raise IllegalActionError(
                f"{p.color} first keeps the tickets drawn before",
                rule="tickets-drawn",
                params={"color": p.color},
            )
        drawn = self._draw_count()
        if drawn < 1:
            raise IllegalActionError("no tickets are left to draw", rule="no-tickets-left")
        self.dealt[p.color] = drawn
        self.acted = True

    def _keep(self, p: T, action: KeepTickets) -> None:
        """A keep: the deal first, then its count, then the tickets named (the map and the
        player's own tickets only: a ticket another player holds is kept, a clash)."""
        deal = self.deal_of(p.color)
        if deal is None:
            raise IllegalActionError(
                f"{p.color} has no tickets to keep: draw tickets first",
                rule="no-ticket-deal",
                params={"color": p.color},
            )
        kind, n = deal
        tickets = action.tickets
        if kind == "setup":
            self._setup_count(tickets)
        elif kind == "draw":
            self._draw_keep_count(tickets, n)
        elif len(tickets) != n:
            raise IllegalActionError(
                f"enter {n} ticket{'s' if n != 1 else ''} again, not {len(tickets)}",
                rule="keep-reenter",
                params={"n": n},
            )
        self._check_tickets(p, tickets)
        if kind == "setup":
            self._setup_tickets(tickets)
            self._kept_first(p, tickets)
            return
        if kind == "draw":
            self._drawn_tickets(tickets)
            del self.dealt[p.color]
        else:
            del self.reenter[p.color]
        p.tickets.extend(tickets)

    def _check_tickets(self, p: T, tickets: Sequence[str]) -> None:
        """Each ticket named once, known, of this game, not already the player's own."""
        check_new_tickets(p, tickets, self.map.tickets, self.TICKET_ID, self._check_ticket)

    def settle_clash(self, ticket: str, keeps: str | None) -> list[str]:
        """The host settles a clash: ``keeps`` (one of its holders) keeps the ticket, or None:
        nobody does. Every other holder gives it up and enters one ticket again (a keep of
        exactly that many). Returns those players' colours."""
        holders = self.clashes().get(ticket)
        if holders is None:
            raise IllegalActionError(
                f"no two players hold {ticket}",
                rule="no-ticket-clash",
                params={"ticket": ticket},
            )
        if keeps is not None and keeps not in holders:
            raise IllegalActionError(
                f"{keeps} does not hold {ticket}",
                rule="clash-player",
                params={"ticket": ticket, "color": keeps},
            )
        losers = [c for c in holders if c != keeps]
        for color in losers:
            self.player(color).tickets.remove(ticket)
            self.reenter[color] = self.reenter.get(color, 0) + 1
        return losers

    def _check_ticket(self, ticket: str) -> None:
        """The board's own check of a known ticket (Europe: of the variant played)."""

    def _setup_dealt(self) -> int:
        """How many first tickets are dealt."""
        raise NotImplementedError

    def _setup_count(self, tickets: Sequence[str]) -> None:
        """The setup rule's numbers, from the count alone."""
        raise NotImplementedError

    def _setup_tickets(self, tickets: Sequence[str]) -> None:
        """The setup rule on the tickets themselves (known ids; e.g. long ones capped)."""

    def _draw_count(self) -> int:
        """How many tickets a draw takes."""
        raise NotImplementedError

    def _draw_keep_count(self, tickets: Sequence[str], drawn: int) -> None:
        """Keep at least the rule's minimum of the ``drawn`` tickets, at most all of them."""
        check_draw_keep(tickets, drawn, self.rules.tickets_draw_keep_min)

    def _drawn_tickets(self, tickets: Sequence[str]) -> None:
        """A board's rule on the drawn tickets themselves (Europe: long ones)."""

    def _kept_first(self, p: T, tickets: Sequence[str]) -> None:
        p.tickets.extend(tickets)
        p.ready = True
        if all(q.ready for q in self.players):
            self.phase = "playing"

    def _end_turn(self) -> None:
        """The current player ends the turn: refused if nothing was done in it."""
        if self.turn_needs_action and not self.acted:
            p = self.current_player
            raise IllegalActionError(
                f"{p.color} has done nothing this turn: a turn needs an action (a claim, a draw "
                "or tickets) before it ends",
                rule="turn-needs-action",
                params={"color": p.color},
            )
        self._next_turn_over()

    def _next_turn_over(self) -> None:
        if self._next_turn():
            self.phase = "over"
        self.acted = False

    # --- forms ------------------------------------------------------------------------
    def _turn_json(self) -> dict[str, Any]:
        return {
            **fields_json(self, _TURN_AS_IS),
            "final_trigger": self.final.trigger,
            "turns_left": self.final.turns_left,
            "players": [p.to_json() for p in self.players],
            "route_owner": dict(self.route_owner),
            "problems": [p.to_json() for p in self.problems],
            "dealt": dict(self.dealt),
            "reenter": dict(self.reenter),
        }

    def _load_turn(self, data: Mapping[str, Any], players: list[T]) -> None:
        """The inverse of :meth:`_turn_json` (``payment_mode`` goes to the constructor)."""
        self.players = players
        self.tickets_tracked = bool(data.get("tickets_tracked", False))
        self.turn_needs_action = bool(data.get("turn_needs_action", False))
        self.auto_end = bool(data.get("auto_end", False))
        ended = data.get("ended_by")
        self.ended_by = None if ended is None else int(ended)
        self.phase = data["phase"]
        self.current = int(data["current"])
        self.acted = bool(data["acted"])
        self.turn = int(data["turn"])
        self.final = FinalRound(data["final_trigger"], data["turns_left"])
        self.route_owner = dict(data["route_owner"])
        self.problems = [PaymentProblem.from_json(p) for p in data.get("problems", [])]
        self.dealt = {str(k): int(v) for k, v in data.get("dealt", {}).items()}
        self.reenter = {str(k): int(v) for k, v in data.get("reenter", {}).items()}

    def copy(self) -> Self:
        return copy.deepcopy(self, {id(x): x for x in (self.rules, *self._shared())})
