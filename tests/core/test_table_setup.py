"""Setup and turns at a real table (the Europe tracker): first tickets are kept at the same
time, out of turn, while the first player may already play; a turn needs an action."""

from __future__ import annotations

import pytest

from companion.core.actions import Action, ClaimRoute, DrewCards, EndTurn, KeepTickets
from companion.core.board import GameMap
from companion.core.errors import IllegalActionError
from companion.core.tracker import TableTracker

LONG = ("brest-petrograd", "danzig-lisboa", "moskva-palermo")
REG = ("angora-athina", "budapest-sofia", "erzurum-rostov", "frankfurt-kobenhavn", "smyrna-sofia")


def table(emap: GameMap, n: int = 3, variant: str = "europe", **flags: bool) -> TableTracker:
    colors = ["red", "blue", "green", "yellow", "black"][:n]
    flags = {"tickets_tracked": True, "turn_needs_action": True, **flags}
    return TableTracker(emap, [(c.title(), c) for c in colors], variant=variant, **flags)


def refused(t: TableTracker, action: Action, rule: str) -> IllegalActionError:
    before = t.to_json()
    with pytest.raises(IllegalActionError) as err:
        t.apply(action)
    assert err.value.rule == rule and err.value.code.startswith("rule.")
    assert t.to_json() == before  # a refusal changes nothing
    return err.value


def test_a_players_first_turn_action_waits_until_that_player_kept_first_tickets(
    emap: GameMap,
) -> None:
    t = table(emap)
    err = refused(t, ClaimRoute("red", "berlin-wien"), "first-tickets")
    assert err.code == "rule.first-tickets" and err.params == {"color": "red"}
    refused(t, DrewCards("red"), "first-tickets")
    refused(t, EndTurn("red"), "first-tickets")
    t.apply(KeepTickets("red", REG[:2]))
    t.apply(ClaimRoute("red", "berlin-wien"))  # blue and green have not kept yet: red plays
    assert t.route_owner == {"berlin-wien": "red"}
    t.apply(EndTurn("red"))
    refused(t, DrewCards("blue"), "first-tickets")


def test_without_ticket_tracking_turns_never_wait_for_tickets(emap: GameMap) -> None:
    t = table(emap, tickets_tracked=False)
    t.apply(ClaimRoute("red", "berlin-wien"))
    t.apply(EndTurn("red"))
    t.apply(DrewCards("blue"))
    assert t.current_player.color == "blue" and not t.players[0].ready


def test_first_tickets_are_kept_out_of_turn_and_after_others_have_played(
    emap: GameMap,
) -> None:
    t = table(emap)
    t.apply(KeepTickets("red", REG[:2]))
    t.apply(DrewCards("red"))
    t.apply(EndTurn("red"))
    # green keeps during blue's turn: the first keep, judged by the setup rule, not a turn
    refused(t, KeepTickets("green", (REG[2],)), "keep-minimum")  # keep at least 2
    t.apply(KeepTickets("green", (LONG[0], REG[2], REG[3])))
    assert t.current_player.color == "blue" and not t.acted and t.turn == 1
    t.apply(KeepTickets("blue", (REG[4], LONG[1])))
    t.apply(ClaimRoute("blue", "essen-frankfurt"))
    assert t.players[1].tickets == [REG[4], LONG[1]]


def test_a_later_keep_is_a_ticket_draw_again(emap: GameMap) -> None:
    t = table(emap, 2)
    t.apply(KeepTickets("red", REG[:2]))
    t.apply(KeepTickets("blue", REG[2:4]))
    refused(t, KeepTickets("red", (LONG[0],)), "long-ticket")  # long ones only at the start
    t.apply(KeepTickets("red", (REG[4],)))  # a turn's draw: 1 to 3 kept
    assert t.acted


@pytest.mark.parametrize(
    ("variant", "red", "too_few", "enough"),
    [
        ("europe", REG[:2], LONG[:1], (LONG[0], "paris-wien")),
        ("1912", ("london-paris", "roma-wien"), ("berlin-wien",), ("angora-essen", "berlin-wien")),
        (
            "big_cities",
            ("edinburgh-paris", "berlin-bucuresti"),
            ("berlin-london",),
            ("berlin-london", "paris-zagrab"),
        ),
        ("mega_europe", REG[2:5], (LONG[0], REG[0]), (LONG[0], REG[0], REG[1])),
    ],
)
def test_keep_at_least_the_first_tickets_the_variant_asks_for(
    emap: GameMap,
    variant: str,
    red: tuple[str, ...],
    too_few: tuple[str, ...],
    enough: tuple[str, ...],
) -> None:
    t = table(emap, 2, variant)
    t.apply(KeepTickets("red", red))
    t.apply(DrewCards("red"))
    t.apply(EndTurn("red"))
    refused(t, KeepTickets("blue", too_few), "keep-minimum")
    t.apply(KeepTickets("blue", enough))  # late, after red played: still the first keep
    assert t.players[1].ready and t.players[1].tickets == list(enough)
    assert not t.acted  # and not blue's turn action


def test_mega_europe_keeps_at_most_one_long_ticket_first(emap: GameMap) -> None:
    t = table(emap, 2, "mega_europe")
    refused(t, KeepTickets("red", (LONG[0], LONG[1], REG[0])), "keep-long-maximum")


def test_a_turn_needs_an_action_so_a_double_end_turn_ends_one_turn(emap: GameMap) -> None:
    t = table(emap, 2)
    t.apply(KeepTickets("red", REG[:2]))
    t.apply(KeepTickets("blue", REG[2:4]))
    err = refused(t, EndTurn("red"), "turn-needs-action")
    assert err.params == {"color": "red"}
    t.apply(DrewCards("red"))
    t.apply(EndTurn("red"))
    refused(t, EndTurn("blue"), "turn-needs-action")  # the second tap
    assert t.current_player.color == "blue" and t.turn == 1


def test_the_next_player_does_not_end_the_turn_of_a_player_without_first_tickets(
    emap: GameMap,
) -> None:
    t = table(emap, 2)
    t.apply(KeepTickets("blue", REG[:2]))
    refused(t, DrewCards("blue"), "not-your-turn")  # red has not even kept tickets
    t.apply(KeepTickets("red", REG[2:4]))
    t.apply(DrewCards("blue"))  # the table moved on: red's turn is ended for red
    assert t.current_player.color == "blue" and t.turn == 1


def test_a_ticket_someone_holds_is_not_available_and_nobody_is_named(emap: GameMap) -> None:
    t = table(emap, 2)
    t.apply(KeepTickets("red", REG[:2]))
    err = refused(t, KeepTickets("blue", (REG[0], REG[2])), "ticket-held")
    assert str(err) == "that ticket is not available"
    assert err.code == "rule.ticket-unavailable" and err.params == {"ticket": REG[0]}
    assert "red" not in str(err) and "red" not in err.params.values()


def test_the_flags_survive_the_json_form(emap: GameMap) -> None:
    t = table(emap, 2, turn_needs_action=False)
    back = TableTracker.from_json(t.to_json(), emap)
    assert (back.tickets_tracked, back.turn_needs_action) == (True, False)
    old = t.to_json()
    del old["tickets_tracked"], old["turn_needs_action"]  # a state saved before the flags
    assert not TableTracker.from_json(old, emap).tickets_tracked
