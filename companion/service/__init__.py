"""The one loop that owns the game state, as a package (see facade.py for the loop)."""

from companion.service.auth import Actor
from companion.service.camera import Decision, reconcile
from companion.service.errors import (
    BadRequest,
    Conflict,
    Forbidden,
    NotFound,
    ServiceError,
    Unavailable,
)
from companion.service.facade import Service
from companion.service.fold import GameFold, fold_game
from companion.service.pending import Pending
from companion.service.streams import Subscription, iter_sse
from companion.service.views import missing_routes, public_state, ticket_progress

__all__ = [
    "Actor",
    "BadRequest",
    "Conflict",
    "Decision",
    "Forbidden",
    "GameFold",
    "NotFound",
    "Pending",
    "Service",
    "ServiceError",
    "Subscription",
    "Unavailable",
    "fold_game",
    "iter_sse",
    "missing_routes",
    "public_state",
    "reconcile",
    "ticket_progress",
]
