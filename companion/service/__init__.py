"""The one loop that owns the game state, as a package.

Commands (actions from the web, observations from the camera, the card reader and the buttons)
go through one queue to one thread. For each: check its shape, try it with the rules, append
the event to the log (committed and synced), keep the new fold, publish the new public state.
Pending taps and camera questions are not in the log: a restart forgets them.

The modules, lowest first (each imports only those above it; * marks the pure ones, which
know no thread, no store and no Flask):

- errors*    refusals: ServiceError and one subclass per HTTP status (400/403/404/409/503)
- shapes*    incoming JSON -> checked, normalised actions and observations (every 400 is here)
- describe*  one short line per action; actions as everyone may see them (ticket ids hidden)
- auth*      who asks (Actor) and what each may do (authorize: 403)
- fold*      events -> game: steps, undo/redo/replace, replay (fold_game, apply_step, strict_fold)
- pending*   pending taps and camera questions (Pending, Confirmation) and their pure helpers
- views*     public state, ticket progress, missing routes, the history's event list
- camera*    camera decisions: observation -> apply / confirm / veto / late / tap (reconcile)
- streams    the public-state snapshot, SSE subscribers, in-process listeners, SSE lines
- loop       the one thread: call (wait) and post (queue)
- photos     photo jobs, read on a worker thread of their own
- ledger     the current game on the loop thread: try a step or correction, log it, keep it
- observe    what the camera, reader and buttons report: apply, ask, tap, press, confirm
- facade     Service: the thin object the web app, the commands and the devices call

Names are loaded on first use, so importing a pure module does not load the loop or the store.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

_HOME = {
    "Actor": "auth",
    "BadRequest": "errors",
    "Conflict": "errors",
    "Decision": "camera",
    "Forbidden": "errors",
    "GameFold": "fold",
    "NotFound": "errors",
    "Pending": "pending",
    "Service": "facade",
    "ServiceError": "errors",
    "Subscription": "streams",
    "Unavailable": "errors",
    "fold_game": "fold",
    "iter_sse": "streams",
    "missing_routes": "views",
    "public_state": "views",
    "reconcile": "camera",
    "ticket_progress": "views",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


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
