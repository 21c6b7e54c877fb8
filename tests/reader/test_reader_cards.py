"""Payload <-> card identity, the card event's JSON, the registry and payments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.core.cards import Card
from companion.core.errors import NotationError
from companion.reader.cards import CardCatalog, CardEvent, TicketCard, TrainCard
from companion.reader.payment import Payment, TapResult
from companion.reader.registry import Registry, default_path, default_state_dir, identify


def test_every_card_payload_round_trips(catalog: CardCatalog) -> None:
    cards = [TrainCard(c) for c in Card] + [TicketCard(t) for t in sorted(catalog.ticket_ids)]
    assert len(catalog.ticket_ids) == 101  # Europe 2005, 1912 and Big Cities decks
    for card in cards:
        assert catalog.from_payload(card.payload()) == card
        assert catalog.parse(card.payload()) == card


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ("ttr:eu:train:red", TrainCard(Card.RED)),
        ("ttr:eu:train:locomotive", TrainCard(Card.LOCOMOTIVE)),
        ("ttr:eu:train:loco", TrainCard(Card.LOCOMOTIVE)),
        ("ttr:eu:train:purple", TrainCard(Card.PINK)),
        ("ttr:eu:ticket:paris-wien", TicketCard("paris-wien")),
        ("ttr:eu:ticket:nowhere-somewhere", None),
        ("ttr:eu:train:grey", None),
        ("ttr:london:train:red", None),
        ("ttr:eu:boat:red", None),
        ("TTR:EU:TRAIN:RED", None),
        ("red", None),
        ("", None),
        (None, None),
    ],
)
def test_from_payload(catalog: CardCatalog, payload: str | None, expected: object) -> None:
    assert catalog.from_payload(payload) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("red", TrainCard(Card.RED)),
        (" Loco ", TrainCard(Card.LOCOMOTIVE)),
        ("purple", TrainCard(Card.PINK)),
        ("locomotive", TrainCard(Card.LOCOMOTIVE)),
        ("ticket paris-wien", TicketCard("paris-wien")),
        ("ticket:paris-wien", TicketCard("paris-wien")),
        ("paris-wien", TicketCard("paris-wien")),
        ("ttr:eu:train:white", TrainCard(Card.WHITE)),
    ],
)
def test_parse_typed_cards(catalog: CardCatalog, text: str, expected: object) -> None:
    assert catalog.parse(text) == expected


@pytest.mark.parametrize("text", ["", "grey", "ticket nowhere", "ttr:london:train:red"])
def test_parse_refuses_with_a_sentence(catalog: CardCatalog, text: str) -> None:
    with pytest.raises(NotationError, match=r"card"):
        catalog.parse(text)


def test_event_json_is_exactly_the_cli_contract() -> None:
    red = CardEvent("04A224B2C15E80", TrainCard(Card.RED), "ttr:eu:train:red", 1.0)
    assert json.dumps(red.to_json()) == (
        '{"uid": "04A224B2C15E80", "card": {"kind": "train", "color": "red"}}'
    )
    loco = CardEvent("1A2B3C4D", TrainCard(Card.LOCOMOTIVE), None, 1.0)
    assert loco.to_json()["card"] == {"kind": "train", "color": "locomotive"}
    ticket = CardEvent("1A2B3C4D", TicketCard("paris-wien"), None, 1.0)
    assert ticket.to_json()["card"] == {"kind": "ticket", "id": "paris-wien"}
    unknown = CardEvent("1A2B3C4D", None, None, 1.0)
    assert json.dumps(unknown.to_json()) == '{"uid": "1A2B3C4D", "card": null}'
    assert unknown.describe() == "1A2B3C4D unknown"
    assert red.describe() == "04A224B2C15E80 train red"


def test_registry_round_trip_and_persistence(catalog: CardCatalog, tmp_path: Path) -> None:
    path = tmp_path / "deep" / "reg.sqlite"
    with Registry(path, catalog) as reg:
        assert reg.get("1A2B3C4D") is None
        reg.put("1A2B3C4D", TrainCard(Card.RED))
        reg.put("04A224B2C15E80", TicketCard("paris-wien"))
        reg.put("1A2B3C4D", TrainCard(Card.GREEN))  # re-enrolment replaces
        assert len(reg) == 2
    with Registry(path, catalog) as reg:
        assert reg.get("1A2B3C4D") == TrainCard(Card.GREEN)
        assert reg.items() == [
            ("04A224B2C15E80", TicketCard("paris-wien")),
            ("1A2B3C4D", TrainCard(Card.GREEN)),
        ]
        assert reg.remove("1A2B3C4D") is True
        assert reg.remove("1A2B3C4D") is False
        assert reg.get("1A2B3C4D") is None


def test_payload_wins_over_registry(catalog: CardCatalog, tmp_path: Path) -> None:
    with Registry(tmp_path / "r.sqlite", catalog) as reg:
        reg.put("1A2B3C4D", TrainCard(Card.BLUE))
        assert identify("1A2B3C4D", "ttr:eu:train:red", catalog, reg) == TrainCard(Card.RED)
        assert identify("1A2B3C4D", None, catalog, reg) == TrainCard(Card.BLUE)
        assert identify("1A2B3C4D", "ttr:london:x:y", catalog, reg) == TrainCard(Card.BLUE)
        assert identify("0A0B0C0D", None, catalog, reg) is None
        assert identify("0A0B0C0D", None, catalog, None) is None


def test_default_registry_path() -> None:
    assert default_state_dir({"COMPANION_STATE_DIR": "/x/y"}) == Path("/x/y")
    assert default_state_dir({"STATE_DIRECTORY": "/var/lib/companion"}) == Path(
        "/var/lib/companion"
    )
    assert default_state_dir({"XDG_STATE_HOME": "/s"}) == Path("/s/companion")
    assert default_state_dir({}) == Path.home() / ".local" / "state" / "companion"
    assert default_path({"COMPANION_STATE_DIR": "/x"}).parent == Path("/x")


def tap(uid: str, card: TrainCard | TicketCard | None) -> CardEvent:
    return CardEvent(uid, card, None, 0.0)


def test_payment_counts_each_card_once_and_flags_the_rest() -> None:
    pay = Payment()
    assert pay.add(tap("A1A1A1A1", TrainCard(Card.RED))) is TapResult.ADDED
    assert pay.add(tap("B2B2B2B2", TrainCard(Card.RED))) is TapResult.ADDED
    assert pay.add(tap("A1A1A1A1", TrainCard(Card.RED))) is TapResult.DUPLICATE
    assert pay.add(tap("C3C3C3C3", TrainCard(Card.LOCOMOTIVE))) is TapResult.ADDED
    assert pay.add(tap("D4D4D4D4", None)) is TapResult.UNKNOWN
    assert pay.add(tap("E5E5E5E5", TicketCard("paris-wien"))) is TapResult.NOT_A_TRAIN_CARD
    assert pay.cards == [Card.RED, Card.RED, Card.LOCOMOTIVE]
    assert pay.counts() == {Card.RED: 2, Card.LOCOMOTIVE: 1}
    assert pay.uids == ["A1A1A1A1", "B2B2B2B2", "C3C3C3C3"]
    assert pay.duplicates == ["A1A1A1A1"]
    assert [f.result for f in pay.flags] == [
        TapResult.DUPLICATE,
        TapResult.UNKNOWN,
        TapResult.NOT_A_TRAIN_CARD,
    ]
    assert len(pay) == 3
    pay.clear()
    assert len(pay) == 0 and not pay.flags
