"""Event lists for the pure service modules' tests: a three-player Europe game, no store; and
the first keeps as a running service takes them."""

from __future__ import annotations

from typing import Any

from companion.core.board import GameMap
from companion.data import europe_map
from companion.service.fold import GameFold, fold_game
from companion.service.shapes import check_action_shape
from companion.store import Event

MAP: GameMap = europe_map()
PLAYERS = [
    {"name": "Aki", "color": "red"},
    {"name": "Ben", "color": "blue"},
    {"name": "Cy", "color": "green"},
]
KEEP = {
    "red": ["brest-marseille", "paris-wien"],
    "blue": ["budapest-zurich", "brindisi-zurich"],
    "green": ["athina-wilno", "barcelona-munchen"],
}


def keep_first_tickets(s: Any, actor: Any, colors: tuple[str, ...] = ("red", "blue")) -> None:
    """Each of ``colors`` keeps its first tickets (``KEEP``) through the service ``s``."""
    for color in colors:
        s.act({"type": "keep_tickets", "player": color, "tickets": KEEP[color]}, actor)


def events(*actions: dict[str, Any], game_id: str = "g1") -> list[Event]:
    """A game's log: new_game, every player keeps their tickets, then ``actions``."""
    # the explicit end-of-turn table (a turn ends with its end_turn or the next player's
    # action); test_auto_end.py plays the turns that end by themselves
    start = check_action_shape({"type": "new_game", "players": PLAYERS, "auto_end": False}, MAP)
    keeps = [{"type": "keep_tickets", "player": c, "tickets": t} for c, t in KEEP.items()]
    out = []
    for seq, a in enumerate([start, *keeps, *actions], start=1):
        logged = check_action_shape(a, MAP)
        if a.get("early"):  # the referee box's button, as the service logs its press
            logged["early"] = True
        out.append(Event(seq, game_id, float(seq), "host", logged))
    return out


def europe(*actions: dict[str, Any]) -> GameFold:
    fold = fold_game(events(*actions), MAP)
    assert isinstance(fold, GameFold)
    return fold


def claim(color: str, route: str) -> dict[str, Any]:
    return {"type": "claim", "player": color, "route": route}


def end_turn(color: str) -> dict[str, Any]:
    """The end-turn button (it may end a turn with no action yet: the camera may be late)."""
    return {"type": "end_turn", "player": color, "early": True}
