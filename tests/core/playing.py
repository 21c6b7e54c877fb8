"""The property tests' set-ups, shared by Europe and London: playing a seeded bot game while
checking it after every action (each board brings its invariants and its notation), a table
tracker fed what the table shows, and a table keeping its first tickets out of turn."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from hypothesis import strategies as st

from companion.core.actions import (
    Action,
    DrawDeck,
    DrewCards,
    EndTurn,
    FaceUpDraw,
    KeepTickets,
    Pass,
)
from companion.core.errors import IllegalActionError
from companion.core.rules import legal_row_exists, row_is_legal
from companion.core.simulation import Phase


class Mirror(Protocol):
    def feed(self, g: Any, action: Action, turn_before: int) -> None: ...


def play_checked(
    g: Any,
    bot: Any,
    mirror: Mirror,
    max_actions: int,
    check_invariants: Callable[[Any], None],
    notation: tuple[Callable[[str], Action], Callable[[Any], Action]],
    reload_every: int,
) -> list[Action]:
    """Let ``bot`` play ``g``; after each action check the invariants and that the action's
    text and JSON forms read back (``notation``: the board's parse_action, action_from_json),
    feed the table mirror, and every ``reload_every`` actions check the game's JSON form
    round-trips."""
    parse_action, action_from_json = notation
    actions: list[Action] = []
    check_invariants(g)
    while not g.over and len(actions) < max_actions:
        action = bot.choose(g)
        turn_before = g.turn
        g.apply(action)
        actions.append(action)
        check_invariants(g)
        assert parse_action(action.to_text()) == action
        assert action_from_json(action.to_json()) == action
        mirror.feed(g, action, turn_before)
        if len(actions) % reload_every == 0:
            data = g.to_json()
            assert type(g).from_json(data, g.map).to_json() == data
    return actions


def no_more_shown(g: Any, action: Action) -> list[Action]:
    """What the table shows after an action besides the action itself: nothing (London)."""
    return []


class TableMirror:
    """Feeds a table tracker (any board's) what the table shows of a simulated game: every
    action but the card draws (counted into one "drew") and a pass, what ``shown`` adds after
    it (Europe: a tunnel's revealed cards), and each turn's end."""

    def __init__(
        self, tracker: Any, shown: Callable[[Any, Action], list[Action]] = no_more_shown
    ) -> None:
        self.t = tracker
        self.shown = shown
        self.drawn = 0

    def feed(self, g: Any, action: Action, turn_before: int) -> None:
        t = self.t
        if isinstance(action, DrawDeck | FaceUpDraw):
            self.drawn += 1
        elif not isinstance(action, Pass):
            t.apply(action)
            for extra in self.shown(g, action):
                t.apply(extra)
        if g.turn != turn_before and g.phase is not Phase.SETUP:
            if self.drawn:
                t.apply(DrewCards(action.player, self.drawn))
                self.drawn = 0
            t.apply(EndTurn(action.player))


def check_face_up(g: Any) -> None:
    """The face-up row is legal, or no legal row can be dealt from the cards left (draw pile,
    discards and the row): the redeal rule of every board."""
    wild, limit = g.cards.wild, g.rules.face_up_wild_limit
    if not row_is_legal(g.face_up, wild, limit):
        pool = Counter(g.deck) + Counter(g.discard) + Counter(c for c in g.face_up if c)
        assert not legal_row_exists(pool, wild, len(g.face_up), limit)


def turn_position(x: Any) -> tuple[Any, ...]:
    """Whose turn it is, the turn count, the final round and the end, in a game or a table."""
    return (x.current, x.turn, x.final.trigger, x.final.turns_left, x.over)


def pile_run_out(g: Any, row: list[Any], red: list[Any]) -> None:
    """The draw pile and the discards are empty: the face-up row is ``row``, red holds ``red``
    and blue every other card."""
    total = g.all_cards()
    pool = total - Counter(c for c in row if c is not None) - Counter(red)
    assert total - pool == Counter(c for c in row if c is not None) + Counter(red)
    for p in g.players:
        p.hand.clear()
    g.deck, g.discard, g.face_up = [], [], list(row)
    g.player("red").hand.update(red)
    g.player("blue").hand.update(pool)
    assert g.all_cards() == total


# --- a table that keeps its first tickets out of turn and taps "end turn" twice -------------


@dataclass
class Step:
    action: Action
    after: tuple[Any, ...] | None = None  # an end of turn: the simulation's position then
    tickets: dict[str, list[str]] | None = None  # ... and everyone's tickets


def table_steps(
    g: Any,
    bot: Any,
    position: Callable[[Any], tuple[Any, ...]],
    shown: Callable[[Any, Action], list[Action]] = no_more_shown,
) -> tuple[dict[str, KeepTickets], list[Step]]:
    """Let ``bot`` play ``g`` to the end; the first keeps, and every later thing the table
    shows (``shown`` adds what follows an action), turn by turn."""
    first: dict[str, KeepTickets] = {}
    steps: list[Step] = []
    drawn = 0
    while not g.over and len(steps) < 3000:
        action = bot.choose(g)
        turn_before, setup = g.turn, g.phase is Phase.SETUP
        g.apply(action)
        if setup:
            assert isinstance(action, KeepTickets)
            first[action.player] = action
            continue
        who = action.player
        if isinstance(action, DrawDeck | FaceUpDraw):
            drawn += 1
        elif isinstance(action, Pass):
            steps.append(Step(DrewCards(who, 0)))  # nothing could be taken: "drew 0"
        else:
            steps.append(Step(action))  # a drawing of tickets: the deal the next keep answers
            steps.extend(Step(extra) for extra in shown(g, action))
        if g.turn != turn_before:
            if drawn:
                steps.append(Step(DrewCards(who, drawn)))
                drawn = 0
            tickets = {p.color: list(p.tickets) for p in g.players}
            steps.append(Step(EndTurn(who), position(g), tickets))
    assert g.over
    return first, steps


def refused(t: Any, action: Action) -> str:
    """The rule that refuses ``action``; the refusal changes nothing."""
    before = t.to_json()
    try:
        t.apply(action)
    except IllegalActionError as exc:
        assert t.to_json() == before
        return exc.rule
    raise AssertionError(f"{action.to_text()} was accepted")


def replay_at_table(
    g: Any,
    t: Any,
    first: dict[str, KeepTickets],
    steps: list[Step],
    position: Callable[[Any], tuple[Any, ...]],
    data: Any,
) -> None:
    """Feed the table tracker ``t`` the steps of ``g``'s game as a real table does: each first
    keep at a random moment before that player's first turn action (after others have played),
    now and then a player without first tickets trying to act, "end turn" now and then tapped
    twice. Every extra tap and premature action is refused; after every turn the tracker's
    position is the simulation's, and the game ends with the same final score."""
    keep_at: dict[int, list[str]] = {}
    for color in first:
        mine = next((i for i, s in enumerate(steps) if s.action.player == color), len(steps))
        keep_at.setdefault(data.draw(st.integers(0, mine), label=f"keep {color}"), []).append(color)
    for i, step in enumerate([*steps, None]):
        for color in keep_at.get(i, []):
            waiting = [p.color for p in t.players if not p.ready]
            if data.draw(st.booleans(), label="premature"):
                eager = data.draw(st.sampled_from(waiting), label="who")
                assert refused(t, DrewCards(eager)) == "first-tickets"
            t.apply(first[color])  # the first keep: not a turn action
        if step is None:
            break
        t.apply(step.action)
        if step.after is None:
            continue
        assert position(t) == step.after
        assert step.tickets is not None
        for p in t.players:
            assert p.tickets == (step.tickets[p.color] if p.ready else [])
        if data.draw(st.booleans(), label="double tap"):
            # the host's second tap ends the turn of whoever plays now: nothing done yet
            rule = refused(t, EndTurn(t.current_player.color))
            assert rule in ("turn-needs-action", "first-tickets", "game-over")
            assert refused(t, EndTurn(step.action.player)) in ("not-your-turn", "game-over")
    assert all(p.ready for p in t.players) and t.over
    assert [p.tickets for p in t.players] == [p.tickets for p in g.players]
    assert t.final_score().to_json() == g.final_score().to_json()
    assert type(t).from_json(t.to_json(), t.map).to_json() == t.to_json()


def json_round_trip(g: Any, game_map: Any) -> Any:
    """``g`` written as JSON and read back by its own class on ``game_map``: the copy, whose
    JSON is the same."""
    data = g.to_json()
    again = type(g).from_json(data, game_map)
    assert again.to_json() == data
    return again
