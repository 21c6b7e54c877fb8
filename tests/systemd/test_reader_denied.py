"""The card reader's "permission denied" names the real cause (companion.reader.transport)."""

from __future__ import annotations

import errno
import grp
import os
from pathlib import Path

from companion.reader.transport import denied_why


def test_a_device_policy_refusal_says_restart_not_join_a_group(tmp_path: Path) -> None:
    port = tmp_path / "ttyACM0"
    port.write_bytes(b"")
    why = denied_why(str(port), errno.EPERM)
    assert "device policy" in why
    assert "systemctl restart companion" in why
    assert "group" not in why


def test_a_file_permission_refusal_names_the_devices_group(tmp_path: Path) -> None:
    port = tmp_path / "ttyACM0"
    port.write_bytes(b"")
    mine = os.getegid()
    name = grp.getgrgid(mine).gr_name
    why = denied_why(str(port), errno.EACCES)
    assert why == f"permission denied, although this user is in its group {name}"
    ours = {mine, *os.getgroups()}
    if os.geteuid() == 0:  # a device of a group this process is not in
        foreign = next(g for g in grp.getgrall() if g.gr_gid not in ours)
        os.chown(port, -1, foreign.gr_gid)
    else:  # an unprivileged user cannot give a file away: a system file of such a group
        port = next(
            p
            for p in map(Path, ("/etc/shadow", "/dev/kmsg", "/dev/tty0", "/dev/mem"))
            if p.exists() and p.stat().st_gid not in ours
        )
        foreign = grp.getgrgid(port.stat().st_gid)
    why = denied_why(str(port), errno.EACCES)
    assert f"belongs to the group {foreign.gr_name}, which this user is not in" in why
    assert f"usermod -aG {foreign.gr_name}" in why


def test_a_port_that_went_away_is_plain_permission_denied(tmp_path: Path) -> None:
    assert denied_why(str(tmp_path / "gone"), errno.EACCES) == "permission denied"
