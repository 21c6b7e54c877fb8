"""NDEF TLV and Text record parsing/building against the shared vectors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import ndef
import pytest

EUROPE = Path(__file__).resolve().parents[2] / "companion" / "data" / "europe.json"


def test_build_vectors(vectors: dict[str, Any]) -> None:
    for v in vectors["ndef_build"]:
        area = ndef.text_area(v["text"], v["lang"])
        assert area.hex() == v["area_hex"], v["text"]
        assert len(area) % 4 == 0
        assert ndef.text_in_area(area) == v["text"]


def test_parse_vectors(vectors: dict[str, Any]) -> None:
    for v in vectors["ndef_parse"]:
        assert ndef.text_in_area(bytes.fromhex(v["area_hex"])) == v["text"], v["why"]


def test_every_card_payload_fits_an_ntag213() -> None:
    data = json.loads(EUROPE.read_text(encoding="utf-8"))
    payloads = [f"ttr:eu:ticket:{t['id']}" for t in data["tickets"]]
    payloads += [f"ttr:eu:train:{c}" for c in [*data["train_cards"]["colors"], "locomotive"]]
    for p in payloads:
        area = ndef.text_area(p)
        assert len(area) <= ndef.NTAG213_DATA_BYTES, p
        assert ndef.text_in_area(area) == p


def test_longest_text_for_ntag213() -> None:
    n = ndef.max_text_len(ndef.NTAG213_DATA_BYTES)
    assert n == 134
    assert len(ndef.text_area("x" * n)) == ndef.NTAG213_DATA_BYTES
    assert len(ndef.text_area("x" * (n + 1))) > ndef.NTAG213_DATA_BYTES


def test_find_message_asks_for_more_bytes_until_it_can_decide() -> None:
    area = ndef.text_area("ttr:eu:ticket:paris-wien")
    got = 0
    steps = 0
    while True:
        status, value = ndef.find_message(area[:got])
        if status != ndef.NEED:
            break
        assert value > got
        got = ((value + 15) // 16) * 16  # whole READ commands of 16 bytes
        steps += 1
    assert status == ndef.FOUND
    assert ndef.first_text(value) == "ttr:eu:ticket:paris-wien"
    assert steps == 2  # 16 bytes say 33 are needed; 48 hold them


def test_records_reports_chunks_and_truncation() -> None:
    with pytest.raises(ndef.NdefError):
        ndef.records(bytes([0xB1, 1, 3]) + b"Tabc")  # CF set
    with pytest.raises(ndef.NdefError):
        ndef.records(bytes([0xD1, 1, 30]) + b"T\x02en")
    recs = ndef.records(ndef.text_record("hi"))
    assert recs == [(1, b"T", b"\x02enhi")]


def test_text_of_rejects_bad_utf8_and_bad_language_length() -> None:
    assert ndef.text_of(b"\x02en\xff\xfe") is None
    assert ndef.text_of(b"\x3fen") is None
    assert ndef.text_of(b"") is None
    assert ndef.text_of(b"\x02en") == ""


def test_capacity() -> None:
    assert ndef.capacity(ndef.NTAG213_CC) == 144
    assert ndef.capacity(b"\x00\x00\x00\x00") == 0
    assert ndef.capacity(bytes([0xE1, 0x10, 0x3E, 0x00])) == 496
