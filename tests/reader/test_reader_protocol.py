"""companion.reader.protocol against the shared vectors (tests/vectors/reader_protocol.json)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from companion.reader import protocol as p

MESSAGE_TYPES: dict[str, Any] = {
    "HELLO": p.Hello,
    "TAG": p.Tag,
    "GONE": p.Gone,
    "ACK": p.Ack,
    "NAK": p.Nak,
    "ERR": p.Err,
}
COMMAND_TYPES: dict[str, Any] = {"PING": p.Ping, "BEEP": p.Beep, "LED": p.Led, "WRITE": p.Write}


def as_dict(obj: Any, types: dict[str, Any]) -> dict[str, Any]:
    name = next(k for k, v in types.items() if isinstance(obj, v))
    return {"type": name, **dataclasses.asdict(obj)}


def from_dict(d: dict[str, Any], types: dict[str, Any]) -> Any:
    fields = {k: v for k, v in d.items() if k != "type"}
    return types[d["type"]](**fields)


def raw_of(v: dict[str, Any]) -> bytes:
    return bytes.fromhex(v["raw_hex"]) if "raw_hex" in v else v["raw"].encode("ascii")


def test_checksums(vectors: dict[str, Any]) -> None:
    for v in vectors["checksum"]:
        assert p.checksum(v["body"]) == v["checksum"]
        assert p.checksum(v["body"].encode()) == v["checksum"]


def test_xor_matches_a_plain_loop() -> None:
    for n in range(0, 300):
        data = bytes((i * 37 + n) % 256 for i in range(n))
        x = 0
        for b in data:
            x ^= b
        assert p.xor(data) == x


def test_spec_examples(vectors: dict[str, Any]) -> None:
    got = [p.parse_message(line.encode() + b"\n") for line in vectors["spec_examples"]]
    assert got == [
        p.Hello("1.0", "rc522"),
        p.Tag("04A224B2C15E80", "ttr:eu:train:red"),
        p.Gone("04A224B2C15E80"),
    ]


def test_device_messages(vectors: dict[str, Any]) -> None:
    for v in vectors["device_messages"]:
        for ending in (b"", b"\n", b"\r\n"):
            msg = p.parse_message(v["line"].encode() + ending)
            assert as_dict(msg, MESSAGE_TYPES) == v["message"], v["line"]
        line = p.encode_message(from_dict(v["message"], MESSAGE_TYPES))
        assert line == (v["line"] + "\n").encode()


def test_host_commands(vectors: dict[str, Any]) -> None:
    for v in vectors["host_commands"]:
        cmd = from_dict(v["command"], COMMAND_TYPES)
        assert p.encode_command(cmd) == (v["line"] + "\n").encode()
        assert p.parse_command(v["line"].encode() + b"\r\n") == cmd


def test_rejected_lines(vectors: dict[str, Any]) -> None:
    for v in vectors["rejected_lines"]:
        for parse in (p.parse_message, p.parse_command):
            with pytest.raises(p.LineError) as info:
                parse(raw_of(v) + b"\n")
            assert info.value.reason == v["reason"], v


def test_rejected_messages(vectors: dict[str, Any]) -> None:
    for v in vectors["rejected_messages"]:
        with pytest.raises(p.LineError) as info:
            p.parse_message(v["line"].encode())
        assert info.value.reason == v["reason"], v["why"]


def test_rejected_commands(vectors: dict[str, Any]) -> None:
    for v in vectors["rejected_commands"]:
        with pytest.raises(p.LineError) as info:
            p.parse_command(v["line"].encode())
        assert (info.value.reason, info.value.n) == (v["reason"], v["n"]), v


def test_encoders_refuse_what_the_protocol_cannot_carry() -> None:
    with pytest.raises(ValueError, match="UID"):
        p.encode_message(p.Tag("04a2", "x"))
    with pytest.raises(ValueError, match="spaces"):
        p.encode_message(p.Tag("1A2B3C4D", "two words"))
    with pytest.raises(ValueError, match="over 200"):
        p.encode_message(p.Err("x", "y" * 200))
    with pytest.raises(ValueError, match="chip"):
        p.encode_message(p.Hello("1.0", "nfc9000"))
    with pytest.raises(ValueError, match="65535"):
        p.encode_command(p.Ping(0))
    with pytest.raises(ValueError, match="LED"):
        p.encode_command(p.Led(1, "purple"))
    with pytest.raises(ValueError, match="beep"):
        p.encode_command(p.Beep(1, 10_001))
    with pytest.raises(ValueError, match="spaces"):
        p.encode_command(p.Write(1, "1A2B3C4D", "caf\u00e9"))
