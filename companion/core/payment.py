"""Paying for routes, tunnels and stations: which exact sets of cards are legal.

The route payment rules (one colour, the board's wild card standing in for any; grey routes take
any one colour) are written once over a :class:`~companion.core.cards.CardSet`, so London uses
them with its buses: ``paying_color_in``, ``check_payment``, ``payment_choices``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from .board import Route
from .cards import COLORS, EUROPE_CARDS, LOCO, Card, CardSet, TrainCard
from .errors import IllegalActionError
from .networks import BoardRoute

C = TypeVar("C", bound=TrainCard)


class PaidRoute(BoardRoute, Protocol):
    """What paying for a route needs to know of it: its colour besides (None: grey)."""

    @property
    def color(self) -> TrainCard | None: ...


def describe(cards: Sequence[TrainCard]) -> str:
    if not cards:
        return "no cards"
    counts = Counter(cards)
    return ", ".join(
        f"{n} {c.value}" for c, n in sorted(counts.items(), key=lambda kv: kv[0].value)
    )


def paying_color_in(cards: Iterable[C], card_set: CardSet[C]) -> C:
    """The colour a set of cards pays as: its one colour besides the wild card, else the wild."""
    wild = card_set.wild
    colors = {c for c in cards if c is not wild}
    if len(colors) > 1:
        names = ", ".join(sorted(c.value for c in colors))
        raise IllegalActionError(
            f"cards must be of one colour (plus {card_set.wild_plural}), got {names}",
            rule="one-colour",
        )
    return next(iter(colors)) if colors else wild


def check_payment(
    route: PaidRoute, cards: Sequence[C], card_set: CardSet[C], min_wild: int = 0
) -> C:
    """Raise IllegalActionError unless ``cards`` exactly pay for ``route``; return the colour.

    ``min_wild``: the wild cards the route needs at least (a ferry's locomotives).
    """
    if len(cards) != route.length:
        raise IllegalActionError(
            f"{route.id} is {route.length} long and needs exactly {route.length} cards, "
            f"got {len(cards)} ({describe(cards)})",
            rule="payment-count",
            params={"need": route.length, "got": len(cards)},
        )
    wild = card_set.wild
    if min_wild:
        wilds = sum(1 for c in cards if c is wild)
        if wilds < min_wild:
            raise IllegalActionError(
                f"{route.id} is a ferry and needs at least {min_wild} locomotive"
                f"{'s' if min_wild > 1 else ''}, got {wilds}",
                rule="ferry-locomotives",
                params={"need": min_wild, "got": wilds},
            )
    color = paying_color_in(cards, card_set)
    if route.color is not None and color is not wild and color is not route.color:
        raise IllegalActionError(
            f"{route.id} is {route.color.value}: pay with {route.color.value} cards or "
            f"{card_set.wild_plural}, not {color.value}",
            rule="payment-colour",
            params={"need_card": route.color.value, "paid_card": color.value},
        )
    return color


def payment_choices(
    route: PaidRoute,
    route_color: C | None,
    hand: Counter[C],
    card_set: CardSet[C],
    min_wild: int = 0,
) -> Iterator[list[C]]:
    """Every distinct legal payment for ``route`` that ``hand`` can afford (fewest wild cards
    first, the all-wild payment last). ``route_color`` is ``route.color``, typed."""
    wild = card_set.wild
    colors: Sequence[C] = card_set.colors if route_color is None else (route_color,)
    length = route.length
    have_wild = hand[wild]
    for color in colors:
        for wilds in range(min_wild, min(have_wild, length) + 1):
            plain = length - wilds
            if plain == 0:
                continue  # all-wild payments are yielded once, below
            if hand[color] >= plain:
                yield [color] * plain + [wild] * wilds
    if have_wild >= length:
        yield [wild] * length


def has_cards(hand: Counter[C], cards: Sequence[C]) -> bool:
    need = Counter(cards)
    return all(hand[c] >= n for c, n in need.items())


def paying_color(cards: Iterable[Card]) -> Card:
    """The colour a set of cards pays as: its one non-locomotive colour, or LOCOMOTIVE."""
    return paying_color_in(cards, EUROPE_CARDS)


def check_route_payment(route: Route, cards: Sequence[Card]) -> Card:
    """Raise IllegalActionError unless ``cards`` exactly pay for ``route``.

    Returns the colour paid (LOCOMOTIVE when only locomotives were played). For a tunnel this is
    the initial payment, before any surcharge.
    """
    return check_payment(route, cards, EUROPE_CARDS, route.locomotives)


def payment_verdict(
    route: PaidRoute, cards: Sequence[C], check: Callable[[Any, Sequence[C]], object]
) -> tuple[bool, str]:
    """(legal?, why) of paying ``route`` with ``cards``, ``check`` being the board's check."""
    try:
        check(route, cards)
    except IllegalActionError as exc:
        return False, str(exc)
    return True, f"{describe(cards)} pays for {route.id}"


def is_legal_payment(route: Route, cards: Sequence[Card]) -> tuple[bool, str]:
    return payment_verdict(route, cards, check_route_payment)


@dataclass(frozen=True, slots=True)
class Surcharge:
    """What a tunnel costs on top of the initial payment."""

    extra: int
    color: Card  # the colour the extra cards must be (locomotives always allowed unless LOCO)

    def accepts(self, card: Card) -> bool:
        return card is LOCO or (self.color is not LOCO and card is self.color)


def tunnel_color(route: Route, played: Sequence[Card]) -> Card:
    """The colour a tunnel was paid as, even when the payment was wrong (a lenient table).

    A legal payment's colour; a coloured tunnel paid in another colour or in mixed colours goes
    by its own colour; a grey one paid in mixed colours by the colour played most (the first in
    card order on a tie); only locomotives: locomotives.
    """
    try:
        color = paying_color(played)
    except IllegalActionError:
        if route.color is not None:
            return route.color
        counts = Counter(c for c in played if c is not LOCO)
        return max(COLORS, key=lambda c: (counts[c], -COLORS.index(c)))
    if route.color is not None and color is not LOCO and color is not route.color:
        return route.color
    return color


def tunnel_surcharge(
    played: Sequence[Card], revealed: Sequence[Card], color: Card | None = None
) -> Surcharge:
    """Count the revealed cards that match the played ones (``color``: what they were paid as,
    by default the played cards' one colour, see :func:`tunnel_color`).

    A revealed locomotive always matches. If only locomotives were played, only revealed
    locomotives count and the extra cards must be locomotives.
    """
    if len(revealed) > 3:
        raise IllegalActionError(
            f"a tunnel reveals at most 3 cards, got {len(revealed)}", rule="tunnel-reveal"
        )
    if color is None:
        color = paying_color(played)
    if color is LOCO:
        extra = sum(1 for c in revealed if c is LOCO)
    else:
        extra = sum(1 for c in revealed if c is LOCO or c is color)
    return Surcharge(extra=extra, color=color)


def check_surcharge_payment(surcharge: Surcharge, cards: Sequence[Card]) -> None:
    if len(cards) != surcharge.extra:
        raise IllegalActionError(
            f"the tunnel needs exactly {surcharge.extra} more card"
            f"{'s' if surcharge.extra != 1 else ''}, got {len(cards)}",
            rule="tunnel-extra-count",
            params={"need": surcharge.extra},
        )
    wrong = [c for c in cards if not surcharge.accepts(c)]
    if wrong:
        need = (
            "locomotives"
            if surcharge.color is LOCO
            else f"{surcharge.color.value} cards or locomotives"
        )
        raise IllegalActionError(
            f"the tunnel surcharge must be paid with {need}, not {describe(wrong)}",
            rule="tunnel-extra-colour",
        )


def station_cost(stations_built: int, costs: Sequence[int] = (1, 2, 3)) -> int:
    """Cards needed for the next station when ``stations_built`` are already on the board."""
    if stations_built >= len(costs):
        raise IllegalActionError(
            f"every player has only {len(costs)} stations and all are built", rule="no-stations"
        )
    return costs[stations_built]


def check_station_payment(
    stations_built: int, cards: Sequence[Card], costs: Sequence[int] = (1, 2, 3)
) -> Card:
    need = station_cost(stations_built, costs)
    ordinal = {1: "first", 2: "second", 3: "third"}.get(stations_built + 1, "next")
    if len(cards) != need:
        raise IllegalActionError(
            f"the {ordinal} station costs {need} card{'s' if need > 1 else ''} of one colour, "
            f"got {len(cards)}",
            rule="station-cost",
            params={"need": need, "got": len(cards)},
        )
    return paying_color(cards)


def payment_options(route: Route, hand: Counter[Card]) -> Iterator[list[Card]]:
    """Every distinct legal payment for ``route`` that ``hand`` can afford (fewest locos first)."""
    return payment_choices(route, route.color, hand, EUROPE_CARDS, route.locomotives)


def surcharge_options(surcharge: Surcharge, hand: Counter[Card]) -> Iterator[list[Card]]:
    """Every way ``hand`` can pay a tunnel surcharge (fewest locomotives first)."""
    n = surcharge.extra
    if surcharge.color is LOCO:
        if hand[LOCO] >= n:
            yield [LOCO] * n
        return
    for locos in range(0, min(hand[LOCO], n) + 1):
        if hand[surcharge.color] >= n - locos:
            yield [surcharge.color] * (n - locos) + [LOCO] * locos


def station_options(
    stations_built: int, hand: Counter[Card], costs: Sequence[int]
) -> Iterator[list[Card]]:
    need = costs[stations_built]
    for color in COLORS:
        for locos in range(0, min(hand[LOCO], need) + 1):
            if locos < need and hand[color] >= need - locos:
                yield [color] * (need - locos) + [LOCO] * locos
    if hand[LOCO] >= need:
        yield [LOCO] * need
