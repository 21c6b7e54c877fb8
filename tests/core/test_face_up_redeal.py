"""The face-up row's redeal, one rule for every board: three wild cards face up, the row is
discarded and dealt again until it is legal, and it stays only when no legal row can be dealt
from the cards left (draw pile, discards and the row itself)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from companion.core import game as europe
from companion.core.actions import DrawFaceUp, KeepTickets
from companion.core.board import GameMap
from companion.core.rules import legal_row_exists, row_is_legal
from companion.london import actions as london_actions
from companion.london import game as london
from companion.london.board import LondonMap, london_map


def test_a_legal_row_exists_only_with_enough_plain_cards() -> None:
    assert legal_row_exists({"w": 14, "a": 3}, "w", slots=5, limit=3)  # 3 plain + 2 wild
    assert not legal_row_exists({"w": 14, "a": 2}, "w", slots=5, limit=3)
    assert legal_row_exists({"w": 2, "a": 1}, "w", slots=5, limit=3)  # a short row: all 3 cards
    assert not legal_row_exists({"w": 3, "a": 1}, "w", slots=5, limit=3)
    assert legal_row_exists({}, "w", slots=5, limit=3)  # an empty row holds no wild card
    assert row_is_legal(["w", "w", None, "a", "a"], "w", 3)
    assert not row_is_legal(["w", "w", "w", None, None], "w", 3)


def europe_game(emap: GameMap, seed: int) -> Any:
    g = europe.Game.new(emap, [("Red", "red"), ("Blue", "blue")], seed=seed)
    for p in g.players:
        g.apply(KeepTickets(p.color, tuple(p.offered)))
    return g, DrawFaceUp


def london_game(lmap: LondonMap, seed: int) -> Any:
    g = london.Game.new(lmap, [("Red", "red"), ("Blue", "blue")], seed=seed)
    for p in g.players:
        g.apply(london_actions.KeepTickets(p.color, tuple(p.offered)))
    return g, london_actions.DrawFaceUp


@pytest.fixture(params=["europe", "london"])
def board(request: pytest.FixtureRequest, emap: GameMap) -> Any:
    if request.param == "europe":
        return lambda seed: europe_game(emap, seed)
    lmap = london_map()
    return lambda seed: london_game(lmap, seed)


def starve(g: Any, plain_in_pile: int) -> None:
    """The row holds two wild cards and three colours; the draw pile every other wild card
    (one on top) and ``plain_in_pile`` colour cards; no discards; blue holds the rest."""
    wild, colors = g.cards.wild, g.cards.colors
    total = g.all_cards()
    for p in g.players:
        p.hand.clear()
    g.face_up = [wild, wild, colors[0], colors[1], colors[2]]
    g.deck = [colors[3]] * plain_in_pile + [wild] * (total[wild] - 2)
    g.discard = []
    rest = total - Counter(g.face_up) - Counter(g.deck)
    g.player("blue").hand.update(rest)
    assert g.all_cards() == total


@pytest.mark.parametrize("seed", range(50))
def test_a_card_starved_but_legal_position_always_ends_with_a_legal_row(
    board: Any, seed: int
) -> None:
    g, draw_face_up = board(0)
    starve(g, plain_in_pile=1)  # with the row's last two colours: three, just enough
    total = g.all_cards()
    g.rng = random.Random(seed)
    g.apply(draw_face_up("red", g.cards.colors[0]))  # the wild card on top fills the slot
    wild = g.cards.wild
    assert g.face_up.count(wild) == 2 and None not in g.face_up
    assert g.all_cards() == total


def test_a_row_no_deal_can_make_legal_stays_as_it_is(board: Any) -> None:
    g, draw_face_up = board(0)
    starve(g, plain_in_pile=0)  # two colours left outside the hands: every row has 3 wilds
    pile = list(g.deck)
    g.apply(draw_face_up("red", g.cards.colors[0]))
    wild, colors = g.cards.wild, g.cards.colors
    assert g.face_up == [wild, wild, wild, colors[1], colors[2]]  # not redealt, not looping
    assert g.deck == pile[:-1] and g.discard == []
