"""Playing a seeded bot game while checking it after every action: shared by the Europe and
London property tests (each brings its invariants, its notation and its table mirror)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from companion.core.actions import Action


class Mirror(Protocol):
    def feed(self, g: Any, action: Action, turn_before: int) -> None: ...


def play_checked(
    g: Any,
    bot: Any,
    mirror: Mirror,
    max_actions: int,
    check_invariants: Callable[[Any], None],
    check_notation: Callable[[Action], None],
    reload: Callable[[dict[str, Any]], Any],
    reload_every: int,
) -> list[Action]:
    """Let ``bot`` play ``g``; after each action check the invariants and the action's forms,
    feed the table mirror, and every ``reload_every`` actions check the JSON form round-trips."""
    actions: list[Action] = []
    check_invariants(g)
    while not g.over and len(actions) < max_actions:
        action = bot.choose(g)
        turn_before = g.turn
        g.apply(action)
        actions.append(action)
        check_invariants(g)
        check_notation(action)
        mirror.feed(g, action, turn_before)
        if len(actions) % reload_every == 0:
            data = g.to_json()
            assert reload(data).to_json() == data
    return actions
