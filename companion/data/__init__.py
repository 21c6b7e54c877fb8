"""Map facts shipped with the package (built by tools/build_data.py)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from companion.core.board import GameMap


def load_json(name: str) -> Any:
    """Read one of the package's data files."""
    return json.loads(resources.files(__name__).joinpath(name).read_text(encoding="utf-8"))


@cache
def europe_map() -> GameMap:
    """The Ticket to Ride: Europe map, tickets and variants."""
    return GameMap.from_dict(load_json("europe.json"))


MAPS = {"europe": europe_map}


def load_map(map_id: str) -> GameMap:
    try:
        loader = MAPS[map_id]
    except KeyError:
        raise KeyError(f"unknown map {map_id!r}: expected one of {', '.join(MAPS)}") from None
    return loader()
