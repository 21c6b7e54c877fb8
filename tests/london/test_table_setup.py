"""Setup and turns at a real London table: first tickets (keep at least 1 of the 2 dealt)
kept out of turn, turns that wait for them, a turn that needs an action."""

from __future__ import annotations

import pytest

from companion.core.errors import IllegalActionError
from companion.london.actions import Action, ClaimRoute, DrewCards, EndTurn, KeepTickets
from companion.london.board import LondonMap
from companion.london.tracker import TableTracker

T = (
    "british-museum--piccadilly-circus",
    "covent-garden--hyde-park",
    "piccadilly-circus--waterloo",
    "brick-lane--globe-theatre",
    "british-museum--st-pauls",
)


def table(lmap: LondonMap, n: int = 3, **flags: bool) -> TableTracker:
    colors = ["red", "blue", "green", "yellow"][:n]
    flags = {"tickets_tracked": True, "turn_needs_action": True, **flags}
    return TableTracker(lmap, [(c.title(), c) for c in colors], **flags)


def refused(t: TableTracker, action: Action, rule: str) -> IllegalActionError:
    before = t.to_json()
    with pytest.raises(IllegalActionError) as err:
        t.apply(action)
    assert err.value.rule == rule
    assert t.to_json() == before
    return err.value


def test_a_players_first_turn_action_waits_until_that_player_kept_first_tickets(
    lmap: LondonMap,
) -> None:
    t = table(lmap)
    refused(t, ClaimRoute("red", "st-pauls--tower-of-london-1"), "first-tickets")
    t.apply(KeepTickets("red", (T[0],)))
    t.apply(ClaimRoute("red", "st-pauls--tower-of-london-1"))
    assert t.route_owner == {"st-pauls--tower-of-london-1": "red"}


def test_first_tickets_kept_out_of_turn_keep_1_or_2_of_the_2_dealt(lmap: LondonMap) -> None:
    t = table(lmap)
    t.apply(KeepTickets("red", (T[0],)))
    t.apply(DrewCards("red"))
    t.apply(EndTurn("red"))
    refused(t, KeepTickets("green", ()), "keep-minimum")
    refused(t, KeepTickets("green", T[1:4]), "keep-maximum")  # only 2 are dealt
    t.apply(KeepTickets("green", T[1:3]))  # during blue's turn: not a turn action
    assert t.current_player.color == "blue" and not t.acted


def test_a_turn_needs_an_action_so_a_double_end_turn_ends_one_turn(lmap: LondonMap) -> None:
    t = table(lmap, 2)
    t.apply(KeepTickets("red", (T[0],)))
    t.apply(KeepTickets("blue", (T[1],)))
    refused(t, EndTurn("red"), "turn-needs-action")
    t.apply(DrewCards("red"))
    t.apply(EndTurn("red"))
    refused(t, EndTurn("blue"), "turn-needs-action")
    assert t.current_player.color == "blue"


def test_a_ticket_someone_holds_is_kept_as_a_clash_for_the_host(lmap: LondonMap) -> None:
    t = table(lmap, 2)
    t.apply(KeepTickets("red", (T[0],)))
    refused(t, KeepTickets("blue", T[:3]), "keep-maximum")  # the count first
    t.apply(KeepTickets("blue", (T[0],)))  # kept like any other keep
    assert t.clashes() == {T[0]: ["red", "blue"]}
    assert t.settle_clash(T[0], "blue") == ["red"] and t.deal_of("red") == ("reenter", 1)
    back = TableTracker.from_json(t.to_json(), lmap)
    assert (back.tickets_tracked, back.turn_needs_action) == (True, True)
