"""JSON forms of end states (the `companion score` input).

``state_object``, ``player_entries`` and ``id_list`` read the parts every board's end state
shares (London's reads its own on top of them).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .errors import NotationError
from .scoring import PlayerEnd


def id_list(value: Any, what: str) -> tuple[str, ...]:
    """A list of ids (absent: empty), stripped and lower-cased."""
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise NotationError(f"{what} must be a list of ids (strings)")
    return tuple(v.strip().lower() for v in value)


def state_object(data: Any) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise NotationError('the state must be a JSON object with "map" and "players"')
    return data


def player_entries(state: Mapping[str, Any]) -> Iterator[tuple[str, str, str, Mapping[str, Any]]]:
    """(colour, name, "player i (colour)", the object) of each player, checked one by one."""
    raw_players = state.get("players")
    if not isinstance(raw_players, list):
        raise NotationError('"players" must be a list of player objects')
    for i, p in enumerate(raw_players, start=1):
        if not isinstance(p, Mapping):
            raise NotationError(f"player {i} must be a JSON object")
        color = p.get("color")
        if not isinstance(color, str):
            raise NotationError(f'player {i} has no "color" (blue, red, green, yellow or black)')
        name = p.get("name", "")
        if not isinstance(name, str):
            raise NotationError(f'player {i}\'s "name" must be a string')
        yield color.strip().lower(), name, f"player {i} ({color})", p


def end_state_from_json(data: Any) -> tuple[str, list[PlayerEnd]]:
    """Parse ``{"map": "europe", "players": [...]}`` into (map id, players)."""
    state = state_object(data)
    map_id = state.get("map", "europe")
    if not isinstance(map_id, str):
        raise NotationError('"map" must be a string such as "europe"')
    players = [
        PlayerEnd(
            color=color,
            name=name,
            routes=id_list(p.get("routes"), f'{who}: "routes"'),
            stations=id_list(p.get("stations"), f'{who}: "stations"'),
            tickets=id_list(p.get("tickets"), f'{who}: "tickets"'),
        )
        for color, name, who, p in player_entries(state)
    ]
    return map_id.strip().lower(), players


def end_state_to_json(map_id: str, players: list[PlayerEnd]) -> dict[str, Any]:
    return {"map": map_id, "players": [p.to_json() for p in players]}
