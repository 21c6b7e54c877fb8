"""Setup and turns at a real table (the Europe tracker): first tickets are kept at the same
time, out of turn, while the first player may already play; a turn needs an action."""

from __future__ import annotations

import pytest

from companion.core.actions import (
    Action,
    ClaimRoute,
    DrawTickets,
    DrewCards,
    EndTurn,
    KeepTickets,
)
from companion.core.board import GameMap
from companion.core.errors import IllegalActionError
from companion.core.tracker import TableTracker
from companion.core.tracking import check_no_clash

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


def test_a_later_keep_answers_a_draw_of_tickets(emap: GameMap) -> None:
    t = table(emap, 2)
    t.apply(KeepTickets("red", REG[:2]))
    t.apply(KeepTickets("blue", REG[2:4]))
    refused(t, KeepTickets("red", (REG[4],)), "no-ticket-deal")  # nothing drawn
    t.apply(DrawTickets("red"))  # the turn's action
    assert t.acted and t.dealt == {"red": 3}
    refused(t, DrawTickets("red"), "one-action-per-turn")
    refused(t, KeepTickets("red", ()), "keep-minimum")
    refused(t, KeepTickets("red", (*REG[4:], *LONG)), "keep-maximum")
    refused(t, KeepTickets("red", (LONG[0],)), "long-ticket")  # long ones only at the start
    t.apply(EndTurn("red"))
    t.apply(KeepTickets("red", (REG[4],)))  # the answer may come late, out of turn
    assert t.dealt == {} and REG[4] in t.players[0].tickets
    refused(t, KeepTickets("red", ("paris-wien",)), "no-ticket-deal")  # answered once


def test_a_keep_is_refused_by_its_deal_and_count_before_any_ticket_it_names(
    emap: GameMap,
) -> None:
    t = table(emap, 2)
    t.apply(KeepTickets("blue", REG[:2]))
    # the same refusal whether a ticket named is blue's, free, unknown or named twice
    for named in (REG[:1], REG[2:3], ("nowhere-else",), ()):
        assert refused(t, KeepTickets("red", named), "keep-minimum").params == {"need": 2}
    for named in (REG[:5], (*REG[2:5], "nowhere-else", LONG[0]), (REG[2],) * 5):
        assert refused(t, KeepTickets("red", named), "keep-maximum").params == {"most": 4}
    t.apply(KeepTickets("red", REG[2:4]))
    for named in (REG[:1], REG[4:5], ("nowhere-else",)):
        err = refused(t, KeepTickets("red", named), "no-ticket-deal")
        assert err.params == {"color": "red"}


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


def test_a_ticket_someone_holds_is_kept_as_a_clash_the_host_settles(emap: GameMap) -> None:
    t = table(emap, 3)
    t.apply(KeepTickets("red", REG[:2]))
    t.apply(KeepTickets("blue", (REG[0], REG[2])))  # kept like any other keep
    assert t.clashes() == {REG[0]: ["red", "blue"]}
    assert TableTracker.from_json(t.to_json(), emap).clashes() == t.clashes()
    refused(t, KeepTickets("blue", (REG[3],)), "no-ticket-deal")
    assert refused(t, KeepTickets("green", (REG[1],)), "keep-minimum")  # the count first
    refused_settle = t.copy()
    with pytest.raises(IllegalActionError) as err:
        refused_settle.settle_clash(REG[1], "red")
    assert err.value.rule == "no-ticket-clash"
    with pytest.raises(IllegalActionError) as err:
        refused_settle.settle_clash(REG[0], "green")
    assert err.value.rule == "clash-player"
    with pytest.raises(IllegalActionError) as err:
        check_no_clash(t.players)
    assert err.value.rule == "ticket-clash-open"
    assert t.settle_clash(REG[0], "red") == ["blue"]  # red's keep stands
    assert t.clashes() == {} and t.players[1].tickets == [REG[2]]
    assert t.deal_of("blue") == ("reenter", 1)  # blue enters the ticket really held
    refused(t, KeepTickets("blue", REG[3:5]), "keep-reenter")
    t.apply(KeepTickets("blue", (REG[3],)))
    assert t.players[1].tickets == [REG[2], REG[3]] and t.deal_of("blue") is None
    check_no_clash(t.players)


def test_a_clash_nobody_keeps_sends_every_holder_to_enter_a_ticket_again(emap: GameMap) -> None:
    t = table(emap, 3)
    for color in ("red", "blue", "green"):
        t.apply(KeepTickets(color, (REG[0], REG[1 + "rbg".index(color[0])])))
    assert t.clashes() == {REG[0]: ["red", "blue", "green"]}
    assert t.settle_clash(REG[0], None) == ["red", "blue", "green"]
    assert all(t.deal_of(c) == ("reenter", 1) for c in ("red", "blue", "green"))


def test_the_flags_survive_the_json_form(emap: GameMap) -> None:
    t = table(emap, 2, turn_needs_action=False)
    back = TableTracker.from_json(t.to_json(), emap)
    assert (back.tickets_tracked, back.turn_needs_action) == (True, False)
    old = t.to_json()
    del old["tickets_tracked"], old["turn_needs_action"]  # a state saved before the flags
    assert not TableTracker.from_json(old, emap).tickets_tracked


def test_a_refused_keep_names_the_ticket_it_cannot_take(emap: GameMap) -> None:
    """Which ticket: the long one drawn later, the one named twice, the player's own (the map
    and the player's own tickets only: nothing another player holds)."""
    t = table(emap, 2)
    t.apply(KeepTickets("red", REG[:2]))
    t.apply(KeepTickets("blue", REG[2:4]))
    t.apply(DrawTickets("red"))
    err = refused(t, KeepTickets("red", (REG[4], LONG[1])), "long-ticket")
    assert err.params == {"ticket": LONG[1]}
    err = refused(t, KeepTickets("red", (REG[4], REG[4])), "ticket-twice")
    assert err.params == {"ticket": REG[4]}
    err = refused(t, KeepTickets("red", (REG[4], REG[0])), "ticket-held")
    assert err.code == "rule.ticket-own" and err.params == {"color": "red", "ticket": REG[0]}
