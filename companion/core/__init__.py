"""The rules of Ticket to Ride: Europe: pure Python, standard library only, no I/O.

Value types (cards, routes, tickets, actions), the full simulation (:class:`Game`), the table
tracker (:class:`TableTracker`) and final scoring (:func:`score_final`). Illegal actions raise
:class:`IllegalActionError` naming the rule.

The machinery every board shares lives here too, parametrised by the board's cards and numbers
(London, :mod:`companion.london`, is built on it): ``cards.CardSet``, ``payment.check_payment``,
``seats``, ``simulation.Simulation``, ``tracking.Tracker``, ``networks``, ``bot_base`` and the
shared pieces of ``rules``, ``board``, ``actions``, ``scoring`` and ``notation``.
"""

from .actions import Action, action_from_json, parse_action
from .board import City, GameMap, Route, Ticket, Variant
from .cards import COLORS, LOCO, PLAYER_COLORS, Card, parse_card, parse_cards
from .errors import IllegalActionError, InvalidStateError, NotationError, RulesError
from .game import Game, Phase
from .longest import Trail, longest_trail
from .scoring import FinalScore, PlayerEnd, PlayerScore, score_final, validate_end_state
from .tracker import TableTracker

__all__ = [
    "COLORS",
    "LOCO",
    "PLAYER_COLORS",
    "Action",
    "Card",
    "City",
    "FinalScore",
    "Game",
    "GameMap",
    "IllegalActionError",
    "InvalidStateError",
    "NotationError",
    "Phase",
    "PlayerEnd",
    "PlayerScore",
    "Route",
    "RulesError",
    "TableTracker",
    "Ticket",
    "Trail",
    "Variant",
    "action_from_json",
    "longest_trail",
    "parse_action",
    "parse_card",
    "parse_cards",
    "score_final",
    "validate_end_state",
]
