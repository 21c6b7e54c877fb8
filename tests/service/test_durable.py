"""One writer of small files for the state directory (companion.durable.write_atomic): whole or
not at all, exactly the mode asked, and given to the directory's owner when root writes it.
Its users: the token files, the network's saved password and scan, the last backup, the camera's
table profile and board calibration."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from companion import backup, durable
from companion.backup import LAST_BACKUP, Backup, write_last
from companion.network import saved
from companion.network.model import WifiNetwork
from companion.vision.decide import profile
from companion.vision.locate import calibration


class Chowns:
    """os.fchown and os.geteuid stand-ins: who would have been given what."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, euid: int) -> None:
        self.calls: list[tuple[int, int, int]] = []
        monkeypatch.setattr(os, "geteuid", lambda: euid)
        monkeypatch.setattr(os, "fchown", lambda fd, uid, gid: self.calls.append((fd, uid, gid)))


def test_the_mode_is_exact_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o077)
    try:
        durable.write_atomic(tmp_path / "a.json", b"{}", mode=0o644)
    finally:
        os.umask(old)
    old = os.umask(0)
    try:
        durable.write_atomic(tmp_path / "b", b"secret")  # (private unless told otherwise)
    finally:
        os.umask(old)
    assert (tmp_path / "a.json").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "b").stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b"]  # no temporary left


def test_root_gives_the_file_to_the_directory_owner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chowns = Chowns(monkeypatch, euid=0)
    st = tmp_path.stat()
    durable.write_atomic(tmp_path / "f", b"x", owner_of=tmp_path)
    assert [(uid, gid) for _, uid, gid in chowns.calls] == [(st.st_uid, st.st_gid)]
    durable.write_atomic(tmp_path / "g", b"x")  # no owner named: left as it is
    assert len(chowns.calls) == 1


def test_another_user_changes_no_owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    chowns = Chowns(monkeypatch, euid=1000)
    durable.write_atomic(tmp_path / "f", b"x", owner_of=tmp_path)
    assert chowns.calls == [] and (tmp_path / "f").read_bytes() == b"x"


def test_a_failed_write_leaves_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "f"
    durable.write_atomic(path, b"old")

    def refuse(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="No space"):
        durable.write_atomic(path, b"new")
    assert path.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["f"]


def test_the_network_files_are_private_and_the_owners(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chowns = Chowns(monkeypatch, euid=0)
    state = tmp_path / "state"
    saved.save_password(state, "secret-pass")  # (the folder is made when missing)
    saved.save_scan(state, [WifiNetwork("Library", 40, "open", False)], now=5)
    for name in (saved.PASSWORD_FILE, saved.SCAN_FILE):
        assert (state / name).stat().st_mode & 0o777 == 0o600
    st = state.stat()
    assert [(uid, gid) for _, uid, gid in chowns.calls] == [(st.st_uid, st.st_gid)] * 2
    assert saved.read_password(state) == "secret-pass"
    assert saved.read_scan(state) == ([WifiNetwork("Library", 40, "open", False)], 5)


def test_the_last_backup_record_is_the_owners(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chowns = Chowns(monkeypatch, euid=0)
    write_last(tmp_path, Backup(path=tmp_path / "copy.sqlite3", events=7, time=9.5))
    record = json.loads((tmp_path / LAST_BACKUP).read_text())
    assert record == {"time": 9, "dest": str(tmp_path / "copy.sqlite3"), "events": 7}
    assert (tmp_path / LAST_BACKUP).stat().st_mode & 0o777 == 0o644
    assert [(uid, gid) for _, uid, gid in chowns.calls] == [
        (tmp_path.stat().st_uid, tmp_path.stat().st_gid)
    ]
    assert backup.read_last(tmp_path) == record


def _camera_files(state: Path, corner: float) -> None:
    """The two camera files as the service and ``companion vision calibrate`` write them."""
    look = np.full((3, 8), corner)
    profile.save(profile.TableProfile("cam0", look, look * look, 1), state / "profile.json")
    corners = ((corner, 0.0), (100.0, 0.0), (100.0, 50.0), (0.0, 50.0))
    calibration.save(calibration.Calibration(corners, (120, 60), "manual", 0.5), state / "cal.json")


def test_the_camera_files_are_synced_before_the_rename_and_the_owners(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chowns = Chowns(monkeypatch, euid=0)
    state = tmp_path / "state"
    order: list[str] = []
    fsync, replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (order.append("fsync"), fsync(fd))[1])
    monkeypatch.setattr(os, "replace", lambda a, b: (order.append("rename"), replace(a, b))[1])
    old = os.umask(0o077)
    try:
        _camera_files(state, 1.0)  # (the folder is made when missing)
    finally:
        os.umask(old)
    # each: the file's data synced, renamed into place, then the folder synced
    assert order == ["fsync", "rename", "fsync"] * 2
    assert sorted(p.name for p in state.iterdir()) == ["cal.json", "profile.json"]
    for name in ("cal.json", "profile.json"):
        assert (state / name).stat().st_mode & 0o777 == 0o644  # (whatever the umask)
    st = state.stat()
    assert [(uid, gid) for _, uid, gid in chowns.calls] == [(st.st_uid, st.st_gid)] * 2
    assert profile.load(state / "profile.json").empty_count == 1
    assert np.allclose(profile.load(state / "profile.json").empty, 1.0)
    cal = calibration.load(state / "cal.json")
    assert cal.corners[0] == (1.0, 0.0) and cal.image_size == (120, 60) and cal.method == "manual"


def test_a_camera_file_not_written_leaves_the_old_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _camera_files(tmp_path, 1.0)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def crash(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="No space"):
        _camera_files(tmp_path, 2.0)
    with pytest.raises(OSError, match="No space"):
        calibration.save(
            calibration.manual([[2, 0], [9, 0], [9, 5], [0, 5]], (12, 6)), tmp_path / "cal.json"
        )
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # no temporary left
