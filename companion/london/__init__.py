"""The rules of Ticket to Ride: London: pure Python, standard library only, no I/O.

Same ideas as :mod:`companion.core` (value types, a seeded full simulation, a table tracker,
final scoring, IllegalActionError naming the rule) for the London board: 17 buses each,
44 transportation cards (6 colours x 6 and 8 wild buses), districts scored at the end, no
tunnels, ferries, stations or longest route. See README.md in this folder.
"""

from .actions import ClaimRoute, DrawFaceUp, action_from_json, parse_action
from .board import District, Location, LondonMap, Route, Ticket, london_map
from .cards import BUS, COLORS, Card, parse_card, parse_cards
from .game import Game, Phase
from .scoring import (
    FinalScore,
    PlayerEnd,
    PlayerScore,
    end_state_from_json,
    end_state_to_json,
    score_final,
    validate_end_state,
)
from .tracker import TableTracker

__all__ = [
    "BUS",
    "COLORS",
    "Card",
    "ClaimRoute",
    "District",
    "DrawFaceUp",
    "FinalScore",
    "Game",
    "Location",
    "LondonMap",
    "Phase",
    "PlayerEnd",
    "PlayerScore",
    "Route",
    "TableTracker",
    "Ticket",
    "action_from_json",
    "end_state_from_json",
    "end_state_to_json",
    "london_map",
    "parse_action",
    "parse_card",
    "parse_cards",
    "score_final",
    "validate_end_state",
]
