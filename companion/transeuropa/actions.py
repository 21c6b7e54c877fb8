"""Trans Europa actions: value types with a JSON form and a short text form.

Text form, one action per line::

    red start 0906          red track 0906-1005          red track 0906-1005 colored
    red end
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.core.errors import NotationError


@dataclass(frozen=True, slots=True)
class PlaceStart:
    """The first turn of a round: the start marker goes on any node (a city is allowed)."""

    player: str
    node: str

    def to_json(self) -> dict[str, Any]:
        return {"type": "start", "player": self.player, "node": self.node}

    def to_text(self) -> str:
        return f"{self.player} start {self.node}"


@dataclass(frozen=True, slots=True)
class PlaceTrack:
    """One track on a free link connected to the player's network; ``colored``: one of the
    player's own coloured tracks (the coloured-track variant)."""

    player: str
    link: str
    colored: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "track", "player": self.player, "link": self.link}
        if self.colored:
            out["colored"] = True
        return out

    def to_text(self) -> str:
        return f"{self.player} track {self.link}" + (" colored" if self.colored else "")


@dataclass(frozen=True, slots=True)
class EndTurn:
    """Stop after one plain track (or pass when no track can be placed at all)."""

    player: str

    def to_json(self) -> dict[str, Any]:
        return {"type": "end", "player": self.player}

    def to_text(self) -> str:
        return f"{self.player} end"


Action = PlaceStart | PlaceTrack | EndTurn


def action_from_json(data: Any) -> Action:
    if not isinstance(data, Mapping):
        raise NotationError("an action must be a JSON object")
    kind = data.get("type")
    player = data.get("player")
    if not isinstance(player, str) or not player:
        raise NotationError("an action needs a 'player'")
    if kind == "start":
        node = data.get("node")
        if not isinstance(node, str):
            raise NotationError("a start action needs a 'node'")
        return PlaceStart(player, node)
    if kind == "track":
        link = data.get("link")
        colored = data.get("colored", False)
        if not isinstance(link, str):
            raise NotationError("a track action needs a 'link' such as '0500-0601'")
        if not isinstance(colored, bool):
            raise NotationError("'colored' must be true or false")
        return PlaceTrack(player, link, colored)
    if kind == "end":
        return EndTurn(player)
    raise NotationError(f"unknown action type {kind!r}: expected start, track or end")


def parse_action(text: str) -> Action:
    words = text.split()
    if len(words) < 2:
        raise NotationError(f"cannot read the action {text!r}")
    player, verb, args = words[0], words[1], words[2:]
    if verb == "start" and len(args) == 1:
        return PlaceStart(player, args[0])
    if verb == "track" and len(args) == 1:
        return PlaceTrack(player, args[0])
    if verb == "track" and len(args) == 2 and args[1] in ("colored", "coloured"):
        return PlaceTrack(player, args[0], True)
    if verb == "end" and not args:
        return EndTurn(player)
    raise NotationError(f"cannot read the action {text!r}")
