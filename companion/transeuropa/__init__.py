"""Trans Europa: the lattice, the rules of a round, the exact penalty and the game's score track.

Pure Python, standard library only, no I/O but reading the package's data file. Rule breaks
raise :class:`companion.core.errors.IllegalActionError` naming the rule; impossible positions
raise :class:`~companion.core.errors.InvalidStateError`.
"""

from .actions import Action, EndTurn, PlaceStart, PlaceTrack, action_from_json, parse_action
from .game import Match
from .lattice import CITY_COLORS, City, Issue, Lattice, Link, check_lattice_data, trans_europa
from .position import RoundPlayer
from .rules import PlayerPenalty, Round, RoundScore, cities_removed, deal_cities
from .steiner import Connection, connection, steiner_tree

__all__ = [
    "CITY_COLORS",
    "Action",
    "City",
    "Connection",
    "EndTurn",
    "Issue",
    "Lattice",
    "Link",
    "Match",
    "PlaceStart",
    "PlaceTrack",
    "PlayerPenalty",
    "Round",
    "RoundPlayer",
    "RoundScore",
    "action_from_json",
    "check_lattice_data",
    "cities_removed",
    "connection",
    "deal_cities",
    "parse_action",
    "steiner_tree",
    "trans_europa",
]
