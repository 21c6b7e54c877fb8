"""The London table tracker: what the table shows, checked in every payment mode."""

from __future__ import annotations

import pytest

from companion.core.errors import IllegalActionError, InvalidStateError, NotationError
from companion.london.actions import (
    ClaimRoute,
    DrawDeck,
    DrawTickets,
    DrewCards,
    EndTurn,
    KeepTickets,
)
from companion.london.board import LondonMap
from companion.london.cards import BUS, Card
from companion.london.tracker import TableTracker

B, Y, G = Card.BLUE, Card.YELLOW, Card.GREEN


def tracker(lmap: LondonMap, n: int = 2, mode: str = "lenient") -> TableTracker:
    colors = ["red", "blue", "green", "yellow"][:n]
    return TableTracker(lmap, [(c.title(), c) for c in colors], payment_mode=mode)


def refused(t: TableTracker, action: object, rule: str) -> None:
    before = t.to_json()
    with pytest.raises(IllegalActionError) as err:
        t.apply(action)  # type: ignore[arg-type]
    assert err.value.rule == rule
    assert t.to_json() == before


def test_players_and_modes(lmap: LondonMap) -> None:
    with pytest.raises(InvalidStateError):
        tracker(lmap, 1)
    with pytest.raises(InvalidStateError):
        TableTracker(lmap, [(c, c) for c in ("red", "blue", "green", "yellow", "black")])
    with pytest.raises(InvalidStateError):
        tracker(lmap, mode="loose")


def test_claims_payment_modes(lmap: LondonMap) -> None:
    t = tracker(lmap)
    t.apply(ClaimRoute("red", "big-ben--elephant-castle"))  # no cards tapped: trusted
    assert t.players[0].buses == 14 and t.players[0].score == 4
    strict = tracker(lmap, mode="strict")
    refused(strict, ClaimRoute("red", "big-ben--elephant-castle"), "no-cards-given")
    refused(strict, ClaimRoute("red", "big-ben--elephant-castle", (B, B, B)), "payment-colour")
    strict.apply(ClaimRoute("red", "big-ben--elephant-castle", (Y, BUS, BUS)))
    assert strict.route_owner == {"big-ben--elephant-castle": "red"}
    lenient = tracker(lmap)
    warnings = lenient.apply(ClaimRoute("red", "big-ben--elephant-castle", (B, B, B)))
    assert len(warnings) == 1 and "yellow" in warnings[0]
    off = tracker(lmap, mode="off")
    assert off.apply(ClaimRoute("red", "big-ben--elephant-castle", (B,))) == []


def test_turns(lmap: LondonMap) -> None:
    t = tracker(lmap, 3)
    t.apply(ClaimRoute("red", "big-ben--waterloo"))
    refused(t, ClaimRoute("red", "big-ben--trafalgar-square"), "one-action-per-turn")
    refused(t, ClaimRoute("green", "big-ben--trafalgar-square"), "not-your-turn")
    t.apply(DrewCards("blue", 2))  # the next player acting ends the forgotten turn
    assert t.current_player.color == "blue" and t.turn == 1
    t.apply(EndTurn("blue"))
    refused(t, DrawDeck("green"), "not-tracked")


def test_doubles(lmap: LondonMap) -> None:
    two = tracker(lmap, 2)
    two.apply(ClaimRoute("red", "st-pauls--tower-of-london-1"))
    refused(two, ClaimRoute("blue", "st-pauls--tower-of-london-2"), "double-closed")
    three = tracker(lmap, 3)
    three.apply(ClaimRoute("red", "st-pauls--tower-of-london-1"))
    three.apply(ClaimRoute("blue", "st-pauls--tower-of-london-2"))
    assert three.route_owner["st-pauls--tower-of-london-2"] == "blue"
    three.apply(EndTurn("blue"))
    three.apply(EndTurn("green"))
    refused(three, ClaimRoute("red", "st-pauls--tower-of-london-2"), "route-taken")
    three.apply(ClaimRoute("red", "hyde-park--piccadilly-circus-1"))
    three.apply(EndTurn("red"))
    three.apply(EndTurn("blue"))
    three.apply(EndTurn("green"))
    refused(three, ClaimRoute("red", "hyde-park--piccadilly-circus-2"), "double-both")


def test_buses_and_the_final_round(lmap: LondonMap) -> None:
    t = tracker(lmap, 2)
    t.players[0].buses = 3
    refused(t, ClaimRoute("red", "baker-street--hyde-park"), "not-enough-buses")
    t.apply(ClaimRoute("red", "big-ben--waterloo"))
    t.apply(EndTurn("red"))
    assert t.final_round and not t.over  # 2 buses left
    t.apply(DrewCards("blue"))
    t.apply(EndTurn("blue"))
    assert not t.over
    t.apply(ClaimRoute("red", "big-ben--trafalgar-square"))
    t.apply(EndTurn("red"))
    assert t.over and t.players[0].buses == 1
    refused(t, DrewCards("blue"), "game-over")
    assert t.final_score().by_color("red").route_points == 2


def test_first_tickets(lmap: LondonMap) -> None:
    t = tracker(lmap, 2)
    refused(t, KeepTickets("red", ()), "keep-minimum")
    # the count first, whatever the tickets named
    refused(
        t,
        KeepTickets(
            "red", ("covent-garden--hyde-park", "hyde-park--st-pauls", "big-ben--waterloo")
        ),
        "keep-maximum",
    )
    refused(
        t, KeepTickets("red", ("covent-garden--hyde-park", "big-ben--waterloo")), "unknown-ticket"
    )
    t.apply(KeepTickets("red", ("covent-garden--hyde-park",)))
    refused(t, KeepTickets("red", ("hyde-park--st-pauls",)), "no-ticket-deal")  # kept already
    assert t.phase == "setup"
    t.apply(KeepTickets("blue", ("hyde-park--st-pauls", "brick-lane--globe-theatre")))
    assert t.phase == "playing" and t.current_player.color == "red"


def test_tickets_drawn_in_play(lmap: LondonMap) -> None:
    t = tracker(lmap, 2)
    ids = list(lmap.tickets)
    t.apply(KeepTickets("red", (ids[0],)))
    t.apply(KeepTickets("blue", (ids[1],)))
    refused(t, KeepTickets("red", tuple(ids[2:4])), "no-ticket-deal")  # nothing drawn yet
    t.apply(DrawTickets("red"))
    refused(t, KeepTickets("red", tuple(ids[2:5])), "keep-maximum")
    t.apply(KeepTickets("red", tuple(ids[2:4])))
    t.apply(EndTurn("red"))
    # with one ticket left in the deck only it can be drawn, and it must be kept
    t.players[1].tickets.extend(ids[4:19])
    t.apply(DrawTickets("blue"))
    refused(t, KeepTickets("blue", ()), "keep-minimum")
    refused(t, KeepTickets("blue", (ids[19], ids[2])), "keep-maximum")  # the count, first
    t.apply(KeepTickets("blue", (ids[19],)))
    assert len(t.players[0].tickets) + len(t.players[1].tickets) == 20


def test_last_ticket_rule_counts_the_deck(lmap: LondonMap) -> None:
    t = tracker(lmap, 2)
    ids = list(lmap.tickets)
    t.apply(KeepTickets("red", tuple(ids[0:2])))
    t.apply(KeepTickets("blue", tuple(ids[2:4])))
    t.players[1].tickets.extend(ids[4:18])  # 18 held: two left in the deck
    t.apply(DrawTickets("red"))
    t.apply(KeepTickets("red", (ids[18], ids[19])))
    assert len(t.players[0].tickets) == 4


def test_json_round_trip(lmap: LondonMap) -> None:
    t = tracker(lmap, 3, mode="strict")
    t.apply(ClaimRoute("red", "kings-cross--regents-park", (G, G, BUS)))
    data = t.to_json()
    assert TableTracker.from_json(data, lmap).to_json() == data
    with pytest.raises(NotationError):
        TableTracker.from_json({"map": "london"}, lmap)
    with pytest.raises(NotationError):
        TableTracker.from_json({**data, "map": "europe"}, lmap)
