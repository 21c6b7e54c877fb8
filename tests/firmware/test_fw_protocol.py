"""The firmware protocol module against the shared vectors (tests/vectors/reader_protocol.json)."""

from __future__ import annotations

from typing import Any

import pytest
import ttrproto


def raw_of(v: dict[str, Any]) -> bytes:
    return bytes.fromhex(v["raw_hex"]) if "raw_hex" in v else v["raw"].encode("ascii")


def test_checksum_vectors(vectors: dict[str, Any]) -> None:
    for v in vectors["checksum"]:
        assert ttrproto.checksum(v["body"]) == v["checksum"], v
        assert ttrproto.checksum(v["body"].encode()) == v["checksum"], v


def test_spec_examples_unframe(vectors: dict[str, Any]) -> None:
    bodies = [ttrproto.unframe(line.encode() + b"\n") for line in vectors["spec_examples"]]
    assert bodies == [
        "HELLO ttr-reader 1.0 rc522",
        "TAG 04A224B2C15E80 ttr:eu:train:red",
        "GONE 04A224B2C15E80",
    ]


def encode(message: dict[str, Any]) -> str:
    kind = message["type"]
    if kind == "HELLO":
        return str(ttrproto.hello(message["fw_version"], message["chip"]))
    if kind == "TAG":
        return str(ttrproto.tag(message["uid"], message["payload"]))
    if kind == "GONE":
        return str(ttrproto.gone(message["uid"]))
    if kind == "ACK":
        return str(ttrproto.ack(message["n"]))
    if kind == "NAK":
        return str(ttrproto.nak(message["n"], message["reason"]))
    assert kind == "ERR"
    return str(ttrproto.err(message["code"], message["detail"]))


def test_device_lines_are_encoded_exactly(vectors: dict[str, Any]) -> None:
    for v in vectors["device_messages"]:
        assert encode(v["message"]) == v["line"] + "\n", v
        for ending in (b"\n", b"\r\n", b""):
            assert ttrproto.unframe(v["line"].encode() + ending) == v["line"][:-3]


def as_tuple(command: dict[str, Any]) -> tuple[Any, ...]:
    kind = command["type"]
    extra = {
        "PING": (),
        "BEEP": (command.get("ms"),),
        "LED": (command.get("colour"),),
        "WRITE": (command.get("uid"), command.get("payload")),
    }[kind]
    return (kind, command["n"], *extra)


def test_host_commands_parse(vectors: dict[str, Any]) -> None:
    for v in vectors["host_commands"]:
        for ending in (b"\n", b"\r\n"):
            assert ttrproto.parse_command(v["line"].encode() + ending) == as_tuple(v["command"])


def test_rejected_lines(vectors: dict[str, Any]) -> None:
    for v in vectors["rejected_lines"]:
        raw = raw_of(v)
        with pytest.raises(ttrproto.LineError) as info:
            ttrproto.unframe(raw + b"\n")
        assert info.value.reason == v["reason"], v
        with pytest.raises(ttrproto.LineError) as info:
            ttrproto.parse_command(raw)
        assert info.value.reason == v["reason"], v
        assert info.value.n == 0


def test_rejected_commands(vectors: dict[str, Any]) -> None:
    for v in vectors["rejected_commands"]:
        with pytest.raises(ttrproto.LineError) as info:
            ttrproto.parse_command(v["line"].encode() + b"\n")
        assert (info.value.reason, info.value.n) == (v["reason"], v["n"]), v


def test_device_messages_are_not_commands(vectors: dict[str, Any]) -> None:
    for v in vectors["device_messages"]:
        with pytest.raises(ttrproto.LineError):
            ttrproto.parse_command(v["line"].encode())


def test_line_buffer_splits_and_drops_long_lines() -> None:
    buf = ttrproto.LineBuffer()
    assert buf.feed(b"1 PI") == []
    assert buf.feed(b"NG*01\r\n2 LED red") == [b"1 PING*01\r"]
    long = b"x" * 10_000
    assert buf.feed(b"\n" + long) == [b"2 LED red"]
    assert len(buf.buf) <= ttrproto.MAX_LINE + 1
    assert buf.feed(long + b"\n3 PING*03\n") == [b"3 PING*03"]
    assert buf.too_long == 1
    exactly = b"y" * ttrproto.MAX_LINE
    assert buf.feed(exactly + b"\r\n") == [exactly + b"\r"]
    assert buf.too_long == 1
    assert buf.feed(b"partial") == []
    assert buf.reset() is True
    assert buf.feed(b"\n") == [b""]


def test_payload_fits() -> None:
    uid = "04A224B2C15E80"
    assert ttrproto.payload_fits(uid, "ttr:eu:train:red")
    assert not ttrproto.payload_fits(uid, "two words")
    assert not ttrproto.payload_fits(uid, "caf\u00e9")
    assert not ttrproto.payload_fits(uid, "")
    room = ttrproto.MAX_LINE - len("TAG  *HH") - len(uid)
    assert ttrproto.payload_fits(uid, "p" * room)
    assert not ttrproto.payload_fits(uid, "p" * (room + 1))
    assert len(ttrproto.tag(uid, "p" * room)) == ttrproto.MAX_LINE + 1


def test_uid_hex_and_is_uid() -> None:
    assert ttrproto.uid_hex(bytes([0x04, 0xA2, 0x24, 0xB2, 0xC1, 0x5E, 0x80])) == "04A224B2C15E80"
    assert ttrproto.is_uid("1A2B3C4D")
    assert not ttrproto.is_uid("1a2b3c4d")
    assert not ttrproto.is_uid("1A2B3C4D5E")
