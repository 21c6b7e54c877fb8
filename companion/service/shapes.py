"""Incoming JSON -> checked, normalised actions and observations.

Every malformed request is a :class:`BadRequest` (400) here; the rules (whose turn, free routes,
...) are the fold's business. Pure: no thread, no store, no Flask.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion.core.actions import action_from_json
from companion.core.board import GameMap
from companion.core.cards import PLAYER_COLORS, Card, parse_card
from companion.core.errors import NotationError
from companion.core.tracker import PAYMENT_MODES
from companion.games import EUROPE, GAMES, GameKind, game_kind
from companion.service.errors import BadRequest, Conflict, sentence

HOST_ONLY = frozenset(
    {
        "new_game",
        "finish",
        "undo",
        "redo",
        "replace",
        "set_payment_mode",
        "set_board",
        "accept_problem",
        "settle_clash",
    }
)
CORRECTIONS = frozenset({"undo", "redo", "replace"})
TABLE_TYPES = frozenset(
    {
        "claim",
        "build_station",
        "keep_tickets",
        "draw_tickets",
        "tunnel_reveal",
        "tunnel_pay",
        "tunnel_withdraw",
        "drew_cards",
        "end_turn",
    }
)
SERVICE_STEPS = frozenset(
    {"finish", "set_payment_mode", "set_board", "accept_problem", "settle_clash"}
)
# A game the service starts plays by the table's setup rules: turns wait for each player's first
# keep (unless started with "tickets_tracked": false) and a turn needs an action before it ends.
SETUP_FLAGS = ("tickets_tracked", "turn_needs_action", "auto_end")
MODES = ("table", "photo")


def _kind_of(name: Any) -> GameKind:
    if not isinstance(name, str) or name not in GAMES:
        raise BadRequest(f"unknown game {name!r}: expected one of {', '.join(GAMES)}.")
    return game_kind(name)


def parse_players(
    data: Mapping[str, Any],
    title: str,
    game: str,
    count: tuple[int, int],
    colors: Sequence[str],
    where: str = "",
) -> list[dict[str, str]]:
    """The ``players`` of a ``new_game`` (any game's): ``count`` (low, high) of them, each with
    a colour of ``colors`` (``where``: " for <title>" in the message) and a name of at most 40
    characters, no colour twice (raises BadRequest / Conflict)."""
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, Mapping) for p in players):
        raise BadRequest('a new_game action needs "players": a list of {"name", "color"}.')
    low, high = count
    if not low <= len(players) <= high:
        n = f"{low}" if low == high else f"{low} to {high}"
        raise Conflict(
            f"{title} is for {n} players, not {len(players)}.",
            rule="player-count",
            params={"game": game, "n": len(players), "low": low, "high": high},
        )
    out_players: list[dict[str, str]] = []
    for p in players:
        color = p.get("color")
        name = p.get("name", color)
        if not isinstance(color, str) or color.strip().lower() not in colors:
            raise BadRequest(
                f"unknown player colour {color!r}{where}: expected one of {', '.join(colors)}."
            )
        if not isinstance(name, str) or len(name) > 40:
            raise BadRequest("a player's name must be a string of at most 40 characters.")
        color = color.strip().lower()
        out_players.append({"name": name.strip() or color, "color": color})
    colors_chosen = [p["color"] for p in out_players]
    if len(set(colors_chosen)) != len(colors_chosen):
        raise Conflict("Two players chose the same colour.", rule="same-colour")
    return out_players


def parse_other_new_game(data: Mapping[str, Any], kind: GameKind) -> dict[str, Any]:
    """Check a ``new_game`` of another game (raises BadRequest / Conflict)."""
    mode = data.get("mode", "table")
    if mode != "table":
        raise BadRequest(f"{kind.title} is played in table mode only (no photo mode).")
    low, high = kind.min_players, kind.max_players
    where = f" for {kind.title}"
    out_players = parse_players(data, kind.title, kind.name, (low, high), kind.colors, where)
    try:
        options = kind.parse_options(data)
    except NotationError as exc:
        raise BadRequest(sentence(str(exc))) from None
    if kind.name == "london":  # London's table tracker follows the same setup rules
        options.update(setup_flags(data, "table"))
    return {
        "type": "new_game",
        "game": kind.name,
        "variant": kind.name,
        "mode": "table",
        **options,
        "players": out_players,
    }


def setup_flags(data: Mapping[str, Any], mode: str) -> dict[str, bool]:
    """``tickets_tracked`` (true unless the new game says false; photo mode enters tickets
    after the game, so never), ``turn_needs_action`` (always, for a table game) and
    ``auto_end`` (a turn ends by itself after its action: true unless the new game says
    false; a table game only)."""
    tracked = data.get("tickets_tracked", True)
    if not isinstance(tracked, bool):
        raise BadRequest('"tickets_tracked" must be true or false.', code="request.invalid")
    auto = data.get("auto_end", True)
    if not isinstance(auto, bool):
        raise BadRequest('"auto_end" must be true or false.', code="request.invalid")
    table = mode == "table"
    return {
        "tickets_tracked": tracked and table,
        "turn_needs_action": table,
        "auto_end": auto and table,
    }


def request_options(data: Any) -> tuple[int | None, bool]:
    """What a request says beside its action: ``after`` (the log position the phone last saw,
    or None) and ``replace`` (a new game may replace an unfinished one)."""
    if not isinstance(data, Mapping):
        return None, False
    after = data.get("after")
    if after is not None and (
        not isinstance(after, int) or isinstance(after, bool) or not 0 <= after < 2**63
    ):
        raise BadRequest('"after" must be a log position (a whole number from 0).')
    replace = data.get("replace", False)
    if not isinstance(replace, bool):
        raise BadRequest('"replace" must be true or false.')
    return after, replace


def parse_new_game(data: Mapping[str, Any], game_map: GameMap) -> dict[str, Any]:
    """Check a ``new_game`` action; returns its normalised form (raises BadRequest)."""
    game = data.get("game", EUROPE)
    if game != EUROPE:
        return parse_other_new_game(data, _kind_of(game))
    variant = data.get("variant", "europe")
    if not isinstance(variant, str) or variant not in game_map.variants:
        raise BadRequest(
            f"unknown variant {variant!r}: expected one of {', '.join(game_map.variants)}."
        )
    mode = data.get("mode", "table")
    if mode not in MODES:
        raise BadRequest(f'"mode" must be one of {", ".join(MODES)}.')
    payment = data.get("payment_mode", "lenient")
    if payment not in PAYMENT_MODES:
        raise BadRequest(f'"payment_mode" must be one of {", ".join(PAYMENT_MODES)}.')
    title = "Ticket to Ride: Europe"
    out_players = parse_players(data, title, EUROPE, (2, 5), PLAYER_COLORS)
    return {
        "type": "new_game",
        "variant": variant,
        "mode": mode,
        "payment_mode": payment,
        **setup_flags(data, mode),
        "players": out_players,
    }


def card_list(value: Any, what: str) -> list[Card]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadRequest(f"{what} must be a list of card names.")
    try:
        return [parse_card(v) for v in value]
    except NotationError as exc:
        raise BadRequest(sentence(str(exc))) from None


def check_action_shape(
    data: Any, game_map: GameMap, game: GameKind | None = None
) -> dict[str, Any]:
    """Validate the JSON shape of a step or correction (400 on any malformation).

    Returns a normalised copy. Rules (whose turn, free routes, ...) are checked by the fold.
    ``game``: the kind of the game being played when it is not Europe.
    """
    if not isinstance(data, Mapping):
        raise BadRequest('An action must be a JSON object with a "type".')
    kind = data.get("type")
    if not isinstance(kind, str):
        raise BadRequest('An action must be a JSON object with a "type" (a word).')
    if kind == "new_game":
        return parse_new_game(data, game_map)
    if game is not None:
        return _check_other_shape(data, game_map, game)
    if kind in TABLE_TYPES:
        if kind == "keep_tickets" and data.get("tickets") is None:
            data = {**data, "tickets": []}  # the tickets tapped on the reader, if any
        try:
            return action_from_json(data).to_json()
        except NotationError as exc:
            raise BadRequest(sentence(str(exc))) from None
    if kind == "finish":
        return {"type": "finish"}
    if kind == "accept_problem":
        return check_accept_problem(data)
    if kind == "settle_clash":
        return check_settle_clash(data)
    if kind == "set_payment_mode":
        mode = data.get("payment_mode")
        if mode not in PAYMENT_MODES:
            raise BadRequest(f'"payment_mode" must be one of {", ".join(PAYMENT_MODES)}.')
        return {"type": "set_payment_mode", "payment_mode": mode}
    if kind in ("undo", "redo", "replace"):
        out = correction_shape(kind, data)
        if kind == "replace":
            inner = check_action_shape(data.get("action"), game_map)
            if inner["type"] not in TABLE_TYPES | SERVICE_STEPS:
                raise BadRequest("only a table action or a service step can replace a step.")
            out["action"] = inner
        return out
    if kind == "set_board":
        return _check_board_shape(data, game_map)
    known = sorted(TABLE_TYPES | HOST_ONLY)
    raise BadRequest(f"unknown action type {kind!r}: expected one of {', '.join(known)}.")


def correction_shape(kind: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """An undo, redo or replace of any game with its ``seq`` checked (an undo may leave it out:
    the latest step); a replace's action is checked by the caller."""
    seq = data.get("seq")
    if kind != "undo" and seq is None:
        raise BadRequest(f'a {kind} action needs "seq" (the event to change).')
    if seq is not None and (not isinstance(seq, int) or isinstance(seq, bool) or seq < 1):
        raise BadRequest('"seq" must be a positive whole number.')
    out: dict[str, Any] = {"type": kind}
    if seq is not None:
        out["seq"] = seq
    return out


def check_accept_problem(data: Mapping[str, Any]) -> dict[str, Any]:
    problem = data.get("problem")
    if not isinstance(problem, int) or isinstance(problem, bool) or problem < 0:
        raise BadRequest('an accept_problem action needs "problem": the id of a payment problem.')
    return {"type": "accept_problem", "problem": problem}


def check_settle_clash(data: Mapping[str, Any]) -> dict[str, Any]:
    """``{"type": "settle_clash", "ticket": id, "keeps": colour | null}`` (the host's)."""
    ticket = data.get("ticket")
    keeps = data.get("keeps")
    if not isinstance(ticket, str) or not ticket:
        raise BadRequest('a settle_clash action needs "ticket": the ticket two players hold.')
    if keeps is not None and keeps not in PLAYER_COLORS:
        raise BadRequest('"keeps" must be the colour of the player who keeps it, or null.')
    return {"type": "settle_clash", "ticket": ticket, "keeps": keeps}


def _check_other_shape(
    data: Mapping[str, Any], game_map: GameMap, game: GameKind
) -> dict[str, Any]:
    kind = data.get("type")
    if kind == "finish":
        return {"type": "finish"}
    if kind == "settle_clash" and kind in game.action_types:
        return check_settle_clash(data)
    if kind == "accept_problem" and kind in game.action_types:
        return check_accept_problem(data)
    if kind in CORRECTIONS:
        out = correction_shape(kind, data)
        if kind == "replace":
            inner = check_action_shape(data.get("action"), game_map, game)
            if inner["type"] not in (*game.action_types, "finish"):
                raise BadRequest(f"only a {game.title} action can replace a step.")
            out["action"] = inner
        return out
    if kind not in game.action_types:
        known = sorted({*game.action_types, "finish", "new_game", *CORRECTIONS})
        raise BadRequest(
            sentence(
                f"unknown {game.title} action type {kind!r}: expected one of {', '.join(known)}"
            )
        )
    try:
        return game.check_action(data)
    except NotationError as exc:
        raise BadRequest(sentence(str(exc))) from None


def _check_board_shape(data: Mapping[str, Any], game_map: GameMap) -> dict[str, Any]:
    def owners(value: Any, what: str, ids: Mapping[str, Any]) -> dict[str, str]:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise BadRequest(f'"{what}" must be an object of id -> player colour.')
        out: dict[str, str] = {}
        for k, v in value.items():
            if v is None:
                continue
            if k not in ids:
                raise BadRequest(f"unknown {what[:-1]} id {k!r}.")
            if not isinstance(v, str) or v not in PLAYER_COLORS:
                raise BadRequest(f"the owner of {k} must be a player colour, not {v!r}.")
            out[str(k)] = v
        return dict(sorted(out.items()))

    routes = owners(data.get("routes"), "routes", game_map.routes)
    stations = owners(data.get("stations"), "cities", game_map.cities)
    out: dict[str, Any] = {"type": "set_board", "routes": routes, "stations": stations}
    tickets = data.get("tickets")
    if tickets is not None:
        if not isinstance(tickets, Mapping):
            raise BadRequest('"tickets" must be an object of colour -> list of ticket ids.')
        norm: dict[str, list[str]] = {}
        for color, ids in tickets.items():
            if color not in PLAYER_COLORS:
                raise BadRequest(f"unknown player colour {color!r}.")
            if not isinstance(ids, list) or not all(isinstance(t, str) for t in ids):
                raise BadRequest('"tickets" must be an object of colour -> list of ticket ids.')
            for t in ids:
                if t not in game_map.tickets:
                    raise BadRequest(f"unknown ticket id {t!r}.")
            norm[str(color)] = list(ids)
        out["tickets"] = norm
    return out


OBSERVATION_KINDS = (
    "claim_seen",
    "station_seen",
    "card_tapped",
    "ticket_tapped",
    "reader_player",
    "button",
)
BUTTONS = ("end_turn", "undo", "confirm", "reject")


def check_observation(data: Any) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        raise BadRequest('An observation must be a JSON object with a "kind".')
    kind = data.get("kind")
    if kind not in OBSERVATION_KINDS:
        raise BadRequest(
            f"unknown observation kind {kind!r}: expected one of {', '.join(OBSERVATION_KINDS)}."
        )

    def text(name: str, optional: bool = False) -> str | None:
        v = data.get(name)
        if v is None and optional:
            return None
        if not isinstance(v, str) or not v.strip():
            raise BadRequest(f'a {kind} observation needs "{name}" (a string).')
        return v.strip().lower()

    out: dict[str, Any] = {"kind": kind}
    if kind == "claim_seen":
        out["route"], out["color"] = text("route"), text("color")
    elif kind == "station_seen":
        out["city"], out["color"] = text("city"), text("color")
    elif kind == "card_tapped":
        card = text("card")
        try:
            out["card"] = parse_card(card or "").value
        except NotationError as exc:
            raise BadRequest(sentence(str(exc))) from None
        out["uid"] = text("uid", optional=True)
    elif kind == "ticket_tapped":
        out["ticket"] = text("ticket")
        out["uid"] = text("uid", optional=True)
    elif kind == "reader_player":
        out["player"] = text("player")
    else:
        name = text("name")
        if name not in BUTTONS:
            raise BadRequest(f"unknown button {name!r}: expected one of {', '.join(BUTTONS)}.")
        out["name"] = name
    for key in ("color", "player"):
        if key in out and out[key] not in PLAYER_COLORS:
            raise BadRequest(f"unknown player colour {out[key]!r}.")
    for flag in ("unsure", "listed"):
        if kind == "claim_seen" and data.get(flag) is not None:
            if not isinstance(data.get(flag), bool):
                raise BadRequest(f'"{flag}" must be true or false.')
            out[flag] = bool(data[flag])
    return out
