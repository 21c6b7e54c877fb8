"""Trambahn (路面電車): a scoring assistant for the two-player card game.

Lines of stops with trams (x2/x3/x4), conductors, terminal scorings at the 4th passenger, the
one-off extra run at a line's 8th card, ten terminal scorings to a game. Pure Python, standard
library only.
"""

from .model import COLORS, TRAMS, Line, card_counts, stop_points
from .scoring import LineScore, Scoring, Session
from .table import Table

__all__ = [
    "COLORS",
    "TRAMS",
    "Line",
    "LineScore",
    "Scoring",
    "Session",
    "Table",
    "card_counts",
    "stop_points",
]
