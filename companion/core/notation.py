"""JSON forms of end states (the `companion score` input)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import NotationError
from .scoring import PlayerEnd


def _str_list(value: Any, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise NotationError(f"{what} must be a list of ids (strings)")
    return tuple(v.strip().lower() for v in value)


def end_state_from_json(data: Any) -> tuple[str, list[PlayerEnd]]:
    """Parse ``{"map": "europe", "players": [...]}`` into (map id, players)."""
    if not isinstance(data, Mapping):
        raise NotationError('the state must be a JSON object with "map" and "players"')
    map_id = data.get("map", "europe")
    if not isinstance(map_id, str):
        raise NotationError('"map" must be a string such as "europe"')
    raw_players = data.get("players")
    if not isinstance(raw_players, list):
        raise NotationError('"players" must be a list of player objects')
    players = []
    for i, p in enumerate(raw_players, start=1):
        if not isinstance(p, Mapping):
            raise NotationError(f"player {i} must be a JSON object")
        color = p.get("color")
        if not isinstance(color, str):
            raise NotationError(f'player {i} has no "color" (blue, red, green, yellow or black)')
        name = p.get("name", "")
        if not isinstance(name, str):
            raise NotationError(f'player {i}\'s "name" must be a string')
        who = f"player {i} ({color})"
        players.append(
            PlayerEnd(
                color=color.strip().lower(),
                name=name,
                routes=_str_list(p.get("routes"), f'{who}: "routes"'),
                stations=_str_list(p.get("stations"), f'{who}: "stations"'),
                tickets=_str_list(p.get("tickets"), f'{who}: "tickets"'),
            )
        )
    return map_id.strip().lower(), players


def end_state_to_json(map_id: str, players: list[PlayerEnd]) -> dict[str, Any]:
    return {"map": map_id, "players": [p.to_json() for p in players]}
