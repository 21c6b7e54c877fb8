"""`companion rules pay ...` and `companion rules tunnel ...`: payment verdicts."""

from __future__ import annotations

import argparse
import json
from typing import Any

from companion.cli import command_group
from companion.core.cards import parse_cards
from companion.core.errors import IllegalActionError, NotationError
from companion.core.payment import check_route_payment, tunnel_surcharge


def register(sub: Any) -> None:
    rsub = command_group(sub, "rules", "ask the rules: payments and tunnel surcharges")

    pay = rsub.add_parser("pay", help="is this exact set of cards a legal payment for the route?")
    pay.add_argument("route", help="route id, e.g. paris-wien")
    pay.add_argument(
        "cards", nargs="*", help="cards: pink blue orange white green yellow black red locomotive"
    )
    pay.add_argument("--json", action="store_true")
    pay.set_defaults(func=run_pay)

    tun = rsub.add_parser("tunnel", help="how many more cards a tunnel costs")
    tun.add_argument("route", help="tunnel route id, e.g. marseille-zurich")
    tun.add_argument("--played", nargs="+", required=True, metavar="CARD")
    tun.add_argument("--revealed", nargs="*", default=[], metavar="CARD")
    tun.add_argument("--json", action="store_true")
    tun.set_defaults(func=run_tunnel)


def _route(route_id: str) -> Any:
    from companion.cli import CommandError
    from companion.data import europe_map

    try:
        return europe_map().route(route_id.strip().lower())
    except NotationError as exc:
        raise CommandError(str(exc)) from None


def _cards(texts: list[str]) -> list[Any]:
    from companion.cli import CommandError

    try:
        return parse_cards(texts)
    except NotationError as exc:
        raise CommandError(str(exc)) from None


def run_pay(args: argparse.Namespace) -> int:
    route = _route(args.route)
    cards = _cards(args.cards)
    try:
        color = check_route_payment(route, cards)
        legal, reason = True, f"legal: {len(cards)} cards pay for {route.id} as {color.value}"
    except IllegalActionError as exc:
        legal, reason = False, str(exc)
    if args.json:
        print(json.dumps({"legal": legal, "reason": reason}))
    else:
        print(reason if legal else f"illegal: {reason}")
    return 0 if legal else 1


def run_tunnel(args: argparse.Namespace) -> int:
    from companion.cli import CommandError

    route = _route(args.route)
    if not route.tunnel:
        raise CommandError(f"{route.id} is not a tunnel")
    played = _cards(args.played)
    revealed = _cards(args.revealed)
    if len(revealed) > 3:
        raise CommandError(f"a tunnel reveals at most 3 cards, got {len(revealed)}")
    try:
        check_route_payment(route, played)
    except IllegalActionError as exc:
        if args.json:
            print(json.dumps({"legal": False, "reason": str(exc)}))
        else:
            print(f"illegal: {exc}")
        return 1
    surcharge = tunnel_surcharge(played, revealed)
    out = {"extra": surcharge.extra, "extra_color": surcharge.color.value, "legal": True}
    if args.json:
        print(json.dumps(out))
    elif surcharge.extra:
        print(
            f"pay {surcharge.extra} more {surcharge.color.value} (locomotives count)"
            if surcharge.color.value != "locomotive"
            else f"pay {surcharge.extra} more locomotive{'s' if surcharge.extra > 1 else ''}"
        )
    else:
        print("no extra cards: the tunnel is built")
    return 0
