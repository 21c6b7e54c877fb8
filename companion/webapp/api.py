"""The JSON API (see API.md)."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import threading
from collections import OrderedDict
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from companion.core.cards import PLAYER_COLORS, Card
from companion.games import GAMES, all_colors, game_kind
from companion.service import BadRequest, NotFound, Service, Unavailable

from . import sse
from .limits import MAX_BODY, address_key, check_image
from .security import require, resolve_identity, session_csrf

bp = Blueprint("api", __name__, url_prefix="/api")

MAX_JSON = MAX_BODY
GZIP_FROM = 16 * 1024  # bytes from which a cached answer goes gzip'd to a client that takes it
# Whole numbers in a body: none of the API's needs more than 2^53 (a JavaScript number), and a
# sequence number is at most 2^63 - 1 (SQLite's). Python would otherwise read up to 4,300 digits.
MAX_INT = 2**53
MAX_DIGITS = 40


def service() -> Service:
    svc: Service = current_app.extensions["companion.service"]
    return svc


def json_body() -> Any:
    """The request's JSON body, or BadRequest with a plain sentence."""
    raw = request.get_data(cache=True)
    if len(raw) > MAX_JSON:
        raise BadRequest("The request body is too large for an action.", code="request.too_large")
    if not raw.strip():
        raise BadRequest("The request has no body: send one JSON object.", code="request.no_body")
    try:
        return json.loads(raw.decode("utf-8"), parse_int=_whole, parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadRequest(f"The body is not valid JSON ({exc}).", code="request.not_json") from None
    except RecursionError:
        raise BadRequest("The body is nested too deeply.", code="request.not_json") from None


def _whole(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS or abs(value := int(text)) > MAX_INT:
        raise BadRequest(
            "A number in the body is too large (at most 2^53).", code="request.number_too_large"
        )
    return value


def _no_constant(text: str) -> Any:
    raise BadRequest(
        f"The body is not valid JSON ({text} is not a number).", code="request.not_json"
    )


def whole_arg(name: str, raw: str) -> int:
    """A whole-number query argument (a sequence number: 0 .. 2^63 - 1) or BadRequest."""
    raw = raw.strip()
    if not raw or len(raw) > 19 or not raw.lstrip("-").isdigit():
        raise BadRequest(f'"{name}" must be a whole number.')
    value = int(raw)
    if not 0 <= value < 2**63:
        raise BadRequest(f'"{name}" must be between 0 and 2^63 - 1.')
    return value


def state_response(state: Any = None) -> Response:
    if state is None:
        return Response(service().state_json(), mimetype="application/json")
    return jsonify(state)


def json_text(text: str) -> Response:
    """A JSON answer already serialised (a cached history read). A large one carries an ETag
    (a repeated read of an unchanged log is a 304) and goes gzip'd to a client that takes it,
    compressed once per content (a game's log is 1.4 MB at 10,000 events, ~10 times less
    gzip'd: guests reading it over and over cost the server that much less)."""
    raw = text.encode("utf-8")
    if len(raw) < GZIP_FROM:
        return Response(raw, mimetype="application/json")
    tag = hashlib.sha1(raw).hexdigest()[:24]  # a content tag, not a secret
    headers = {"ETag": f'"{tag}"', "Cache-Control": "private, no-cache", "Vary": "Accept-Encoding"}
    if tag in request.if_none_match:
        return Response(status=304, headers=headers)
    if not request.accept_encodings["gzip"]:
        return Response(raw, mimetype="application/json", headers=headers)
    packed: OrderedDict[str, bytes] = current_app.extensions.setdefault(
        "companion.gzipped", OrderedDict()
    )
    with current_app.extensions.setdefault("companion.gzip_lock", threading.Lock()):
        body = packed.get(tag)  # (one request compresses it; the others wait and take it)
        if body is None:
            body = gzip.compress(raw, compresslevel=5)
            packed[tag] = body
            while len(packed) > 16:
                packed.popitem(last=False)
    return Response(
        body, mimetype="application/json", headers={**headers, "Content-Encoding": "gzip"}
    )


def check_color(color: str) -> str:
    color = color.lower()
    if color not in all_colors():
        raise NotFound(
            f"There is no player colour {color!r}.",
            code="request.no_color",
            params={"color": color},
        )
    return color


# --- state and events -----------------------------------------------------------------------


@bp.get("/state")
def state() -> Response:
    return state_response()


@bp.get("/health")
def health() -> Response | tuple[Response, int]:
    svc = service()
    st = svc.state()
    pulse = svc.loop.health()  # the game loop's last turn-around; stuck: 503 (API.md)
    loop = {"waiting": pulse["waiting"], "last_turnaround": pulse["last_turnaround"]}
    body = {"ok": not pulse["stuck"], "seq": st["seq"], "game_id": st["game_id"], "loop": loop}
    if not pulse["stuck"]:
        return jsonify(body)
    seconds = int(pulse["waiting"])
    error = {
        "error": f"The game loop has not turned around for {seconds} s.",
        "code": "health.loop_stuck",
        "params": {"seconds": seconds},
    }
    return jsonify({**error, **body}), 503


@bp.get("/session")
def session() -> Response:
    ident = resolve_identity()
    return jsonify(
        {
            "role": ident.role,
            "color": ident.color,
            "csrf_token": session_csrf(ident),
            "game_id": service().state()["game_id"],
        }
    )


@bp.get("/events")
def events() -> Response:
    svc = service()
    raw = request.headers.get("Last-Event-ID") or request.args.get("last_event_id")
    last: int | None = None
    if raw:
        try:
            last = whole_arg("Last-Event-ID", raw)
        except BadRequest:
            last = None  # a stale or odd id: the stream starts from the current state
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    if request.method == "HEAD":  # the headers only: no slot, no subscription
        return Response(b"", mimetype="text/event-stream", headers=headers)
    host = resolve_identity().role == "host"
    slot = sse_slots().take(address_key(request.remote_addr), host=host)
    if slot is None:
        raise Unavailable(
            "Too many live connections; try again later.", code="service.too_many_streams"
        )
    body = sse.stream(
        svc,
        last,
        current_app.config["SSE_KEEPALIVE"],
        current_app.config["SSE_LIFETIME"],
        request.environ.get("waitress.client_disconnected"),
        # notices with "audience": "host" go to the host's streams only
        host=host,
        slot=slot,
    )
    resp = Response(body, mimetype="text/event-stream", headers=headers)
    resp.call_on_close(slot.give_back)
    return resp


def sse_slots() -> sse.Slots:
    slots: sse.Slots | None = current_app.extensions.get("companion.sse_slots")
    if slots is None:
        cfg = current_app.config
        slots = current_app.extensions.setdefault(
            "companion.sse_slots",
            sse.Slots(cfg["SSE_MAX"], cfg["SSE_PER_ADDRESS"], cfg["SSE_HOST"]),
        )
    return slots


# --- acting ---------------------------------------------------------------------------------


@bp.post("/actions")
@require("player")
def actions() -> Response:
    ident = resolve_identity()
    data = json_body()
    return state_response(service().act(data, ident.actor))


@bp.post("/observations")
@require("host")
def observations() -> Response:
    data = json_body()
    return jsonify(service().observe(data))


@bp.post("/pending/clear")
@require("player")
def pending_clear() -> Response:
    return jsonify(service().clear_pending(resolve_identity().actor))


@bp.post("/confirmations/<cid>")
@require("player")
def confirmation(cid: str) -> Response:
    data = json_body()
    if not isinstance(data, dict) or not isinstance(data.get("accept"), bool):
        raise BadRequest('Answer with {"accept": true} or {"accept": false}.')
    cards = data.get("cards")
    if cards is not None and not isinstance(cards, list):
        raise BadRequest('"cards" must be a list of card names.')
    return state_response(service().confirm(cid, data["accept"], resolve_identity().actor, cards))


# --- players --------------------------------------------------------------------------------


@bp.get("/players/<color>/tickets")
@require("color")
def tickets(color: str) -> Response:
    ident = resolve_identity()
    if ident.role == "player" and ident.pairing:
        service().phone_seen(ident.pairing)  # the phone is there (also after a restart)
    return jsonify(service().tickets(check_color(color)))


def pair_url(token: str) -> str:
    base = current_app.config["PUBLIC_URL"] or request.host_url.rstrip("/")
    return f"{base}/pair/{token}"


def qr_svg(text: str) -> str:
    import segno

    buf = io.BytesIO()
    segno.make(text, error="m").save(buf, kind="svg", scale=4, border=2, xmldecl=False)
    return buf.getvalue().decode("utf-8")


@bp.post("/players/<color>/pair")
@require("host")
def pair(color: str) -> Response:
    color = check_color(color)
    body: Any = {}
    if request.get_data(cache=True).strip():
        body = json_body()
    if not isinstance(body, dict):
        raise BadRequest('Send {} or {"rotate": true}.')
    rotate = body.get("rotate", False)
    if not isinstance(rotate, bool):
        raise BadRequest('"rotate" must be true or false.')
    token = service().pair(color, rotate=rotate, show=True)  # (it opens once more)
    url = pair_url(token)
    return jsonify({"color": color, "url": url, "qr_svg": qr_svg(url)})


@bp.get("/players/<color>/pair.svg")
@require("host")
def pair_svg(color: str) -> Response:
    color = check_color(color)
    url = pair_url(service().pair(color))
    return Response(qr_svg(url), mimetype="image/svg+xml")


# --- map and history ------------------------------------------------------------------------


def build_map_json() -> dict[str, Any]:
    from companion.data import load_json

    svc = service()
    m = svc.map
    board = load_json("europe_board.json")
    cities = {}
    for cid, city in m.cities.items():
        spot = board["cities"].get(cid, {})
        cities[cid] = {"name": city.name, **{k: spot[k] for k in ("x", "y", "w", "h") if k in spot}}
    routes = {}
    for rid, r in m.routes.items():
        routes[rid] = {
            "a": r.a,
            "b": r.b,
            "length": r.length,
            "color": None if r.color is None else r.color.value,
            "tunnel": r.tunnel,
            "locomotives": r.locomotives,
            "ferry": r.ferry,
            "twin": r.twin,
            "points": m.points_for(r),
            "spaces": board["routes"].get(rid, []),
        }
    tickets = {
        tid: {"a": t.a, "b": t.b, "points": t.points, "long": t.long, "decks": list(t.decks)}
        for tid, t in m.tickets.items()
    }
    variants = {}
    for vid, v in m.variants.items():
        longs, regular = m.tickets_of_variant(v)
        variants[vid] = {
            "name": v.name,
            "tickets": sorted(t.id for t in [*longs, *regular]),
            "long_dealt": v.setup.long_dealt,
            "regular_dealt": v.setup.regular_dealt,
            "keep_min": v.setup.keep_min,
            "draw": v.draw,
        }
    return {
        "id": m.id,
        "aspect": board["frame"].get("aspect", 1.5),
        "cities": cities,
        "routes": routes,
        "tickets": tickets,
        "variants": variants,
        "player_colors": list(PLAYER_COLORS),
        "cards": [c.value for c in Card],
        "station_costs": list(m.station_costs),
        "trains_per_player": m.trains_per_player,
        "stations_per_player": m.stations_per_player,
    }


@bp.get("/map")
def map_json() -> Response:
    cached = current_app.extensions.get("companion.map_json")
    if cached is None:
        cached = json.dumps(build_map_json(), separators=(",", ":"))
        current_app.extensions["companion.map_json"] = cached
    resp = Response(cached, mimetype="application/json")
    resp.headers["Cache-Control"] = "public, max-age=3600"
    return resp


@bp.get("/kinds")
def kinds() -> Response:
    """The games a new game can be: players, colours, actions (Europe from its map)."""
    out = [
        {
            "game": "europe",
            "title": "Ticket to Ride: Europe",
            "min_players": 2,
            "max_players": 5,
            "colors": list(PLAYER_COLORS),
        }
    ]
    out += [game_kind(name).to_json() for name in GAMES[1:]]
    return jsonify({"games": out})


@bp.get("/map/<game>")
def game_map_json(game: str) -> Response:
    """The facts of a game's board for the dashboard (London's locations, districts, routes and
    tickets; Trans Europa's cities; Trambahn's colours and trams)."""
    if game == "europe":
        return map_json()
    if game not in GAMES:
        raise NotFound(f"There is no game {game!r}.", code="request.no_game", params={"game": game})
    resp = jsonify(game_kind(game).board_json())
    resp.headers["Cache-Control"] = "public, max-age=3600"
    return resp


@bp.get("/games")
def games() -> Response:
    return jsonify(service().games())


@bp.get("/games/<game_id>")
def game(game_id: str) -> Response:
    return json_text(service().game_state_json(game_id))


@bp.get("/games/<game_id>/state")
def game_state_at(game_id: str) -> Response:
    raw = request.args.get("seq")
    upto = None if raw is None else whole_arg("seq", raw)
    return json_text(service().game_state_json(game_id, upto))


@bp.get("/games/<game_id>/events")
def game_events(game_id: str) -> Response:
    reveal = resolve_identity().role == "host"
    return json_text(service().game_events_json(game_id, reveal=reveal))


# --- photo mode -----------------------------------------------------------------------------


@bp.post("/photo")
@require("host")
def photo() -> tuple[Response, int]:
    upload = request.files.get("photo")
    if upload is not None:
        data = upload.read()
    elif (request.mimetype or "").startswith("image/"):
        data = request.get_data()
    else:
        raise BadRequest('Send the photo as multipart field "photo" or as an image/jpeg body.')
    if not data:
        raise BadRequest("The photo is empty.")
    check_image(data)  # 415 for a non-image, 413 over the pixel limit: before any decoding
    job = service().read_photo(data)
    return jsonify({"job": job.id}), 202


@bp.get("/photo/<job_id>")
@require("host")
def photo_job(job_id: str) -> Response:
    return jsonify(service().photo_job(job_id).to_json())
