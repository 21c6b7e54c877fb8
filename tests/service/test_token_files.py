"""Token files are written atomically (temporary file, fsync, rename); an empty or unreadable
host-token file is replaced with one log line instead of stopping every later start."""

from __future__ import annotations

import errno
import logging
import os
from pathlib import Path

import pytest

from companion import statedir
from companion.statedir import TOKEN_FILE, read_or_create_token, write_atomic


def test_a_first_start_writes_a_token_of_mode_0600(tmp_path: Path) -> None:
    token, created = read_or_create_token(tmp_path)
    assert created and len(token) >= 40
    path = tmp_path / TOKEN_FILE
    assert path.read_text() == token + "\n" and path.stat().st_mode & 0o777 == 0o600
    assert read_or_create_token(tmp_path) == (token, False)
    assert [p.name for p in tmp_path.iterdir()] == [TOKEN_FILE]  # no temporary file left


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"", "empty"),
        (b"\n  \n", "empty"),
        (b"\xff\xfe\x00garbage", "not text"),
        (b"short", "not a host token"),
    ],
)
def test_an_empty_or_damaged_token_file_is_replaced_with_one_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, content: bytes, why: str
) -> None:
    (tmp_path / TOKEN_FILE).write_bytes(content)
    with caplog.at_level(logging.WARNING, logger="companion.statedir"):
        token, created = read_or_create_token(tmp_path)
    assert created and (tmp_path / TOKEN_FILE).read_text().strip() == token
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and why in lines[0] and "a new host token was written" in lines[0]
    assert read_or_create_token(tmp_path) == (token, False)


def test_an_unreadable_token_file_is_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / TOKEN_FILE).write_text("x" * 43)
    real = Path.read_bytes

    def refuse(self: Path) -> bytes:
        if self.name == TOKEN_FILE:
            raise PermissionError(errno.EACCES, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", refuse)
    with caplog.at_level(logging.WARNING, logger="companion.statedir"):
        token, created = read_or_create_token(tmp_path)
    monkeypatch.undo()
    assert created and token != "x" * 43 and read_or_create_token(tmp_path) == (token, False)
    assert "Permission denied" in caplog.records[0].getMessage()


def test_a_full_disk_leaves_the_old_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token, _ = read_or_create_token(tmp_path)

    def full(fd: int) -> None:  # the data never reaches the disk
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError, match="No space"):
        statedir.replace_token(tmp_path)
    monkeypatch.undo()
    assert (tmp_path / TOKEN_FILE).read_text().strip() == token
    assert [p.name for p in tmp_path.iterdir()] == [TOKEN_FILE]


def test_write_atomic_replaces_whole_files(tmp_path: Path) -> None:
    path = tmp_path / "host-sessions.json"
    write_atomic(path, b"one")
    write_atomic(path, b"two, longer")
    assert path.read_bytes() == b"two, longer" and path.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == [path.name]
