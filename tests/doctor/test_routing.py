"""Does the box route? Its firewall's unit, IPv4 forwarding and (as root) its nftables table,
through :class:`SystemRouting` with a fake ``run`` and temporary files, judged by
:func:`routing_check` (hardware/README.md, "The box's own network")."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from companion.doctor.checks import CODES, FIREWALL_UNIT, RoutingFacts, routing_check
from companion.doctor.probes import FakeRouting, SystemRouting
from companion.doctor.runner import Setup, run
from companion.doctor.words import told

SHOW = ["systemctl", "show", "-p", "ActiveState", "-p", "UnitFileState", FIREWALL_UNIT]
NFT = ["nft", "list", "table", "inet", "companion"]
NO_TABLE = "Error: No such file or directory\nlist table inet companion\n"


class System:
    """systemctl and nft as they answer, and what was asked of them."""

    def __init__(self, show: str = "", code: int = 0, nft: tuple[int, str] = (0, "")) -> None:
        self.show, self.code, self.nft = show, code, nft
        self.asked: list[list[str]] = []

    def __call__(self, args: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        self.asked.append(args)
        assert kw["timeout"] > 0 and kw["check"] is False
        if args == SHOW:
            return subprocess.CompletedProcess(args, self.code, stdout=self.show, stderr="")
        if args == NFT:
            code, err = self.nft
            return subprocess.CompletedProcess(args, code, stdout="", stderr=err)
        raise AssertionError(f"unexpected command {args}")


def box(
    tmp_path: Path,
    system: System,
    forward: str | None = "0\n",
    *,
    installed: bool = True,
    root: bool = False,
) -> SystemRouting:
    """A machine of its own in a new folder under ``tmp_path``."""
    here = tmp_path / str(len(list(tmp_path.iterdir())))
    here.mkdir()
    unit = here / FIREWALL_UNIT
    if installed:
        unit.write_text("[Unit]\n", encoding="ascii")
    switch = here / "ip_forward"
    if forward is not None:
        switch.write_text(forward, encoding="ascii")
    return SystemRouting(system, (here / "none" / FIREWALL_UNIT, unit), switch, lambda: root)


ACTIVE = "ActiveState=active\nUnitFileState=enabled\n"


def test_an_installed_box_asks_systemd_and_reads_the_switch(tmp_path: Path) -> None:
    system = System(ACTIVE)
    facts = box(tmp_path, system).facts()
    assert facts == RoutingFacts(True, "active", "enabled", False, None)
    assert system.asked == [SHOW]  # not root: the table is not looked at
    on = box(tmp_path, System("UnitFileState=disabled\nActiveState=failed\n"), "1\n").facts()
    assert (on.active, on.enabled, on.forwarding) == ("failed", "disabled", True)


def test_only_root_looks_at_the_table(tmp_path: Path) -> None:
    system = System(ACTIVE)
    assert box(tmp_path, system, root=True).facts().table is True
    assert system.asked == [SHOW, NFT]
    assert box(tmp_path, System(ACTIVE, nft=(1, NO_TABLE)), root=True).facts().table is False
    # nft failing for another reason, or not there at all: not known
    assert box(tmp_path, System(ACTIVE, nft=(1, "netlink: Error"))).facts().table is None
    unknown = box(tmp_path, System(ACTIVE, nft=(1, "netlink: Error")), root=True).facts()
    assert unknown.table is None


def test_a_machine_without_the_unit_asks_nothing(tmp_path: Path) -> None:
    system = System(ACTIVE)
    facts = box(tmp_path, system, "1\n", installed=False, root=True).facts()
    assert not facts.installed and facts.forwarding is True and system.asked == []
    line = routing_check(facts)
    assert (line.status, line.code) == ("ok", "doctor.network.routing_not_installed")


def test_what_cannot_be_asked_or_read_is_not_known(tmp_path: Path) -> None:
    def missing(*a: Any, **k: Any) -> Any:
        raise FileNotFoundError("systemctl")

    assert box(tmp_path, System(ACTIVE, code=1)).facts().active is None
    gone = box(tmp_path, missing, root=True).facts()  # type: ignore[arg-type]
    assert (gone.active, gone.enabled, gone.table) == (None, None, None)
    assert box(tmp_path, System(ACTIVE), None).facts().forwarding is None
    assert box(tmp_path, System(ACTIVE), "2\n").facts().forwarding is None
    assert routing_check(gone).code == "doctor.network.routing_unknown"


@pytest.mark.parametrize(
    ("facts", "name"),
    [
        (RoutingFacts(True, "active", "enabled", False), "routing_ok"),
        (RoutingFacts(True, "active", "enabled", False, table=True), "routing_ok"),
        (RoutingFacts(True, "active", None, False), "routing_ok"),
        (RoutingFacts(True, "reloading", "enabled", False), "routing_ok"),
        (RoutingFacts(True, "inactive", "enabled", True), "routing_open"),
        (RoutingFacts(True, "failed", "enabled", False), "routing_firewall_off"),
        (RoutingFacts(True, "inactive", "disabled", False), "routing_firewall_off"),
        (RoutingFacts(True, "active", "enabled", True, table=False), "routing_table_missing"),
        (RoutingFacts(True, "active", "enabled", True), "routing_forwarding_on"),
        (RoutingFacts(True, "active", "disabled", False), "routing_not_at_boot"),
        (RoutingFacts(True, None, None, False), "routing_unknown"),
        (RoutingFacts(True, "active", "enabled", None), "routing_unknown"),
        (RoutingFacts(False, None, None, True), "routing_not_installed"),
    ],
)
def test_each_state_is_its_own_line(facts: RoutingFacts, name: str) -> None:
    line = routing_check(facts)
    assert line.id == "network.routing" and line.code == f"doctor.network.{name}"
    assert line.status == ("ok" if name in ("routing_ok", "routing_not_installed") else "warn")
    if line.status == "warn":  # the terminal is told how (the page says it in words)
        assert "sudo scripts/install.sh" in line.params["detail"]
    else:
        assert "detail" not in line.params


def test_the_terminal_names_the_units_state_and_the_switch() -> None:
    off = routing_check(RoutingFacts(True, "failed", "enabled", True))
    text = told(off.code, off.params)
    assert text.startswith("The box passes traffic on") and f"{FIREWALL_UNIT} is failed" in text
    on = routing_check(RoutingFacts(True, "active", "enabled", True))
    assert "sysctl -w net.ipv4.ip_forward=0" in on.params["detail"]


def test_the_runner_judges_the_routing_probe(tmp_path: Path) -> None:
    from companion.doctor.probes import FakeClock

    facts = RoutingFacts(True, "inactive", "enabled", True)
    lines = run(Setup(tmp_path, clock=FakeClock(True), routing=FakeRouting(facts)))
    (line,) = [c for c in lines if c.id == "network.routing"]
    assert (line.status, line.code) == ("warn", "doctor.network.routing_open")
    assert [c.id for c in lines].index("network.routing") == [c.id for c in lines].index(
        "clock.sync"
    ) - 1


def test_the_running_service_checks_routing_too(tmp_path: Path) -> None:
    from companion.doctor.live import Devices
    from companion.doctor.probes import FakeClock

    facts = RoutingFacts(True, "active", "enabled", True)
    lines = Devices(tmp_path, clock=FakeClock(True), routing=FakeRouting(facts)).checks()
    assert lines is not None
    by = {c.id: c for c in lines}
    assert by["network.routing"].code == "doctor.network.routing_forwarding_on"


def test_the_japanese_words_have_no_latin_letters() -> None:
    """The host page in Japanese shows no Latin words (no IPv4, no unit name)."""
    ja = json.loads(
        Path(__file__).resolve().parents[2].joinpath("web/static/i18n/ja.json").read_text("utf-8")
    )
    keys = ["doctor.label.network.routing"]
    keys += [f"doctor.network.{name}" for name in CODES["network.routing"]]
    assert len(keys) == 9 and [k for k in keys if re.search("[A-Za-z]", ja[k])] == []
