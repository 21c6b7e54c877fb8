"""The NetworkManager backend against a fake nmcli on PATH: the exact commands it sends and how
it reads nmcli's terse answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.network import NetworkError, NmcliNetwork, auto, join_or_fall_back
from companion.network.nmcli import (
    multiline_values,
    passwd_line,
    refusal_reason,
    secret_file,
    split_terse,
    wifi_security,
)

from .conftest import FakeNmcli

SSID = "companion-AB12"
SSID_PROFILE = "companion-hotspot"
PSK = "802-11-wireless-security.psk"
HOTSPOT_ADD = [
    "connection", "add", "type", "wifi", "ifname", "wlan0", "con-name", "companion-hotspot",
    "autoconnect", "no", "ssid", SSID, "802-11-wireless.mode", "ap", "802-11-wireless.band", "bg",
    "ipv4.method", "shared", "ipv4.addresses", "10.42.0.1/24", "ipv6.method", "ignore",
]  # fmt: skip
WPA2 = [
    "802-11-wireless-security.key-mgmt", "wpa-psk", "802-11-wireless-security.proto", "rsn",
    "802-11-wireless-security.pairwise", "ccmp", "802-11-wireless-security.group", "ccmp",
    "802-11-wireless-security.pmf", "disable",
]  # fmt: skip


def test_terse_fields_and_escapes() -> None:
    assert split_terse(r"*:Cafe\:2F\\east:71:WPA1 WPA2") == [
        "*",
        "Cafe:2F\\east",
        "71",
        "WPA1 WPA2",
    ]
    assert split_terse("wlan0:wifi:connected:") == ["wlan0", "wifi", "connected", ""]
    values = multiline_values("IP4.ADDRESS[1]:10.42.0.1/24\nIP6.ADDRESS[1]:fe80::1/64\nnoise\n")
    assert values == {"IP4.ADDRESS": ["10.42.0.1/24"], "IP6.ADDRESS": ["fe80::1/64"]}
    assert [wifi_security(s) for s in ("", "--", "WPA2", "WPA1 WPA2", "WPA3", "WPA2 802.1X")] == [
        "open", "open", "wpa2", "wpa2", "wpa3", "other",
    ]  # fmt: skip


def test_a_fresh_box_has_no_network(nmcli: FakeNmcli) -> None:
    st = NmcliNetwork(SSID, mdns=lambda: None).status()
    assert (st.mode, st.ssid, st.security, st.addresses, st.interface) == (
        "none", None, None, (), None,
    )  # fmt: skip
    assert nmcli.calls() == [["-t", "-f", "DEVICE,TYPE,STATE,CONNECTION", "device", "status"]]


def test_open_hotspot_sends_an_explicit_open_access_point_profile(nmcli: FakeNmcli) -> None:
    net = NmcliNetwork(SSID, mdns=lambda: "companion.local")
    st = net.open_hotspot(None)
    calls = nmcli.calls()
    assert ["radio", "wifi"] in calls
    assert ["connection", "delete", "id", "companion-hotspot"] in calls
    assert HOTSPOT_ADD in calls  # no security at all
    assert ["--wait", "30", "connection", "up", "id", "companion-hotspot"] in calls
    up = ["--wait", "30", "connection", "up", "id", "companion-hotspot"]
    delete = ["connection", "delete", "id", "companion-hotspot"]
    order = [calls.index(c) for c in (delete, HOTSPOT_ADD, up)]
    assert order == sorted(order)
    assert st.to_json() == {
        "mode": "hotspot",
        "ssid": SSID,
        "security": "open",
        "addresses": ["10.42.0.1"],  # link-local IPv6 left out
        "mdns": "companion.local",
        "interface": "wlan0",
    }
    assert nmcli.world["profiles"]["companion-hotspot"]["autoconnect"] == "no"


def secret_on_argv(nmcli: FakeNmcli, *secrets: str) -> list[list[str]]:
    """The calls that carried a secret anywhere on their command line."""
    return [c for c in nmcli.calls() if any(s in a for s in secrets for a in c)]


def test_open_hotspot_with_a_password_is_wpa2(nmcli: FakeNmcli) -> None:
    net = NmcliNetwork(SSID, mdns=lambda: None)
    net.open_hotspot(None)
    nmcli.forget_calls()
    password = r" pass word;1\040 "  # blanks around it, a backslash, something like an escape
    st = net.open_hotspot(password)
    calls = nmcli.calls()
    add = [c for c in calls if c[:2] == ["connection", "add"]]
    assert add == [HOTSPOT_ADD + WPA2]  # no secret in the profile's command line ...
    up = [c for c in calls if "up" in c]
    assert len(up) == 1 and up[0][:6] == ["--wait", "30", "connection", "up", "id", SSID_PROFILE]
    assert up[0][6] == "passwd-file"
    assert secret_on_argv(nmcli, password, "pass word") == []
    # ... it came in a file only its owner could read, in a folder of its own, gone afterwards
    (seen,) = nmcli.passwd_files()
    assert seen["path"] == up[0][7]
    assert (seen["mode"], seen["folder_mode"], seen["owner"]) == (0o600, 0o700, True)
    assert seen["secrets"] == {"802-11-wireless-security.psk": password}
    assert not Path(seen["path"]).exists() and not Path(seen["path"]).parent.exists()
    assert (st.mode, st.security) == ("hotspot", "wpa2")
    assert nmcli.world["profiles"]["companion-hotspot"]["psk"] == password


def test_the_secret_file_is_private_and_escaped(tmp_path: Path) -> None:
    assert passwd_line("802-11-wireless-security.psk", r" a\b c ") == (
        "802-11-wireless-security.psk:\\040a\\\\b\\040c\\040\n"
    )
    with secret_file({"802-11-wireless-security.psk": "secret-pass"}) as path:
        file = Path(path)
        assert file.stat().st_mode & 0o777 == 0o600
        assert file.parent.stat().st_mode & 0o777 == 0o700
        assert file.read_text() == "802-11-wireless-security.psk:secret-pass\n"
    assert not file.exists() and not file.parent.exists()
    with pytest.raises(RuntimeError), secret_file({"x.y": "z"}) as path:  # removed on errors too
        raise RuntimeError(path)
    assert not Path(path).parent.exists()


def test_a_blocked_radio_is_switched_on(nmcli: FakeNmcli) -> None:
    nmcli.change(radio="disabled")
    NmcliNetwork(SSID, mdns=lambda: None).open_hotspot(None)
    assert ["radio", "wifi", "on"] in nmcli.calls()


def test_scan_reads_escaped_names_and_security(nmcli: FakeNmcli) -> None:
    w = nmcli.world
    w["around"].append({"ssid": "", "signal": 90, "security": "WPA2", "address": "x"})  # hidden
    w["around"].append({"ssid": "Library", "signal": 55, "security": "", "address": "x"})
    nmcli.world = w
    nets = NmcliNetwork(SSID).scan()
    assert [(n.ssid, n.signal, n.security, n.in_use) for n in nets] == [
        ("Cafe:2F\\east", 71, "wpa2", False),
        ("Library", 55, "open", False),  # the stronger of its two access points
    ]
    assert nmcli.calls()[-1] == [
        "-t", "-f", "IN-USE,SSID,SIGNAL,SECURITY", "device", "wifi", "list", "--rescan", "auto",
        "ifname", "wlan0",
    ]  # fmt: skip


def test_join_connects_and_raises_the_profile_priority(nmcli: FakeNmcli) -> None:
    net = NmcliNetwork(SSID, mdns=lambda: None)
    net.open_hotspot(None)
    nmcli.forget_calls()
    st = net.join("Cafe:2F\\east", "espresso-42")
    calls = nmcli.calls()
    # serving its own network the radio has not scanned: down, look around, then connect
    down = ["connection", "down", "id", "companion-hotspot"]
    look = ["-t", "-f", "IN-USE,SSID,SIGNAL,SECURITY", "device", "wifi", "list", "--rescan",
            "yes", "ifname", "wlan0"]  # fmt: skip
    add = [
        "connection", "add", "type", "wifi", "ifname", "wlan0", "con-name", "Cafe:2F\\east",
        "autoconnect", "yes", "ssid", "Cafe:2F\\east", "connection.autoconnect-priority", "10",
        "802-11-wireless-security.key-mgmt", "wpa-psk",
    ]  # fmt: skip
    (up,) = [c for c in calls if "up" in c]
    assert up[:8] == [
        "--wait", "45", "connection", "up", "id", "Cafe:2F\\east", "ifname", "wlan0",
    ]  # fmt: skip
    assert up[8] == "passwd-file"
    assert calls.index(down) < calls.index(look) < calls.index(add) < calls.index(up)
    assert secret_on_argv(nmcli, "espresso-42") == []
    (seen,) = nmcli.passwd_files()
    assert (seen["mode"], seen["secrets"]) == (0o600, {PSK: "espresso-42"})
    assert not Path(seen["path"]).exists()
    assert (st.mode, st.ssid, st.security, st.interface) == (
        "wifi",
        "Cafe:2F\\east",
        "wpa2",
        "wlan0",
    )
    assert st.addresses == ("192.168.7.31", "2001:db8::5")
    assert net.known_networks() == ["Cafe:2F\\east"]  # the box's own profile is not "known"
    profile = nmcli.world["profiles"]["Cafe:2F\\east"]
    assert (profile["autoconnect"], profile["connection.autoconnect-priority"]) == ("yes", "10")
    assert profile["psk"] == "espresso-42"  # kept by NetworkManager for the next boot


def test_join_a_wpa3_network_and_join_again(nmcli: FakeNmcli) -> None:
    w = nmcli.world
    w["around"].append({"ssid": "Hall", "signal": 60, "security": "WPA3",
                        "password": "sae-pass-99", "address": "10.9.0.4/16"})  # fmt: skip
    nmcli.world = w
    net = NmcliNetwork(SSID, mdns=lambda: None)
    assert net.join("Hall", "sae-pass-99").ssid == "Hall"
    assert nmcli.world["profiles"]["Hall"]["key-mgmt"] == "sae"
    # not serving its own network, the radio has a recent enough scan ("auto")
    assert ["-t", "-f", "IN-USE,SSID,SIGNAL,SECURITY", "device", "wifi", "list", "--rescan",
            "auto", "ifname", "wlan0"] in nmcli.calls()  # fmt: skip
    nmcli.forget_calls()
    net.join("Hall", "sae-pass-99")  # the profile is made anew, not doubled
    assert ["connection", "delete", "id", "Hall"] in nmcli.calls()
    assert list(nmcli.world["profiles"]).count("Hall") == 1
    assert secret_on_argv(nmcli, "sae-pass-99") == []


def test_join_goes_on_when_the_fresh_scan_is_refused(nmcli: FakeNmcli) -> None:
    net = NmcliNetwork(SSID, mdns=lambda: None)
    net.open_hotspot(None)
    nmcli.change(scan_busy=True)
    assert net.join("Library", None).ssid == "Library"


def test_a_failed_join_falls_back_to_the_box_network(nmcli: FakeNmcli) -> None:
    net = NmcliNetwork(SSID, mdns=lambda: None)
    net.open_hotspot("secret-pass")
    nmcli.forget_calls()
    with pytest.raises(NetworkError) as err:
        join_or_fall_back(net, "Cafe:2F\\east", "wrong-password", "secret-pass")
    assert err.value.code == "network.join_failed"
    assert "Secrets were required" in err.value.message
    assert err.value.params["status"] == 4
    add = [c for c in nmcli.calls() if c[:2] == ["connection", "add"] and SSID in c]
    assert add == [HOTSPOT_ADD + WPA2]
    assert secret_on_argv(nmcli, "wrong-password", "secret-pass") == []
    assert [f["secrets"][PSK] for f in nmcli.passwd_files()][-2:] == [
        "wrong-password",
        "secret-pass",
    ]
    # the profile that did not connect is not kept (it would be tried again at every boot)
    assert "Cafe:2F\\east" not in nmcli.world["profiles"]
    assert net.known_networks() == []
    st = net.status()
    assert (st.mode, st.security) == ("hotspot", "wpa2")


def test_the_reason_is_the_error_line_not_the_hint_or_the_warning() -> None:
    answer = (
        "Passwords or encryption keys are required to access the wireless network 'Cafe'.\n"
        "Warning: password for '802-11-wireless-security.psk' not given in 'passwd-file' and "
        "nmcli cannot ask without '--ask' option.\n"
        "Error: Connection activation failed: Secrets were required, but not provided\n"
        "Hint: use 'journalctl -xe NM_CONNECTION=60ca + NM_DEVICE=wlan0' to get more details.\n"
    )
    assert refusal_reason(answer) == (
        "Connection activation failed: Secrets were required, but not provided"
    )
    assert refusal_reason("something odd\nat the end\n") == "at the end"

    def runner(args: object, timeout: float) -> tuple[int, str, str]:
        return 4, "", answer

    with pytest.raises(NetworkError) as err:
        NmcliNetwork(SSID, "wlan0", run=runner).up("Cafe", 45, code="network.join_failed")
    assert err.value.params["reason"].endswith("Secrets were required, but not provided")


def test_wired_and_interface_choice(nmcli: FakeNmcli) -> None:
    w = nmcli.world
    w["profiles"]["Wired connection 1"] = {
        "type": "802-3-ethernet", "autoconnect": "yes", "addresses": ["192.168.1.50/24"],
    }  # fmt: skip
    w["active"]["eth0"] = "Wired connection 1"
    nmcli.world = w
    st = NmcliNetwork(SSID, mdns=lambda: None).status()
    assert (st.mode, st.ssid, st.security, st.addresses, st.interface) == (
        "wired", None, None, ("192.168.1.50",), "eth0",
    )  # fmt: skip
    with pytest.raises(NetworkError) as err:
        NmcliNetwork(SSID, "wlan9").open_hotspot(None)
    assert (err.value.code, err.value.params) == ("network.no_wifi", {"interface": "wlan9"})


def test_networkmanager_not_running_or_not_installed(
    nmcli: FakeNmcli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    nmcli.change(running=False)
    with pytest.raises(NetworkError) as err:
        NmcliNetwork(SSID).status()
    assert err.value.code == "network.unavailable"
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(NetworkError) as err:
        NmcliNetwork(SSID).scan()
    assert err.value.code == "network.unavailable"
    assert "nmcli" in err.value.message


def test_auto_opens_at_once_when_no_wifi_is_known(nmcli: FakeNmcli, tmp_path: Path) -> None:
    naps: list[float] = []
    done, st = auto(NmcliNetwork(SSID), None, wait=45, state_dir=tmp_path, sleep=naps.append)
    assert (done, st.mode, st.security, naps) == ("hotspot", "hotspot", "open", [])
    # the scan it saw before opening is kept for the host's list (the radio cannot scan now)
    assert (tmp_path / "network-scan.json").stat().st_mode & 0o777 == 0o600
    assert "Library" in (tmp_path / "network-scan.json").read_text()


def test_auto_keeps_a_known_wifi(nmcli: FakeNmcli) -> None:
    net = NmcliNetwork(SSID)
    net.join("Library", None)
    nmcli.forget_calls()
    done, st = auto(net, "secret-pass", wait=45, sleep=lambda s: None)
    assert (done, st.mode, st.ssid) == ("wifi", "wifi", "Library")
    assert not [c for c in nmcli.calls() if "add" in c]


def test_auto_waits_for_a_known_wifi_then_opens_wpa2(nmcli: FakeNmcli) -> None:
    w = nmcli.world
    w["profiles"]["Home"] = {"type": "802-11-wireless", "autoconnect": "yes", "ssid": "Home"}
    nmcli.world = w
    now = [0.0]

    def sleep(s: float) -> None:
        now[0] += s

    done, st = auto(NmcliNetwork(SSID), "secret-pass", wait=10, sleep=sleep, clock=lambda: now[0])
    assert (done, st.security) == ("hotspot", "wpa2")
    assert now[0] == pytest.approx(10.0)


def test_which_network_serve_wires(
    nmcli: FakeNmcli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from companion.commands.serve import box_network
    from companion.network import FakeNetwork, default_ssid
    from companion.network.saved import read_scan

    net = box_network(False, tmp_path)
    assert isinstance(net, NmcliNetwork) and net.ssid == default_ssid()
    demo = box_network(True, tmp_path)
    assert isinstance(demo, FakeNetwork) and demo.status().mode == "hotspot"
    assert [n.ssid for n in read_scan(tmp_path)[0]] == ["Cafe Central", "Library"]
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert box_network(False, tmp_path) is None
