"""The fake twin behaves like the box's radio: one network at a time, known networks come back,
no scan while serving, wrong passwords refused."""

from __future__ import annotations

import pytest

from companion.network import (
    Around,
    FakeNetwork,
    NetworkError,
    NetworkStatus,
    auto,
    box_ssid,
    escape_wifi,
    join_or_fall_back,
    join_password_problem,
    password_problem,
    wifi_qr_payload,
)


def venue() -> FakeNetwork:
    return FakeNetwork(
        "companion-F00D",
        [Around("Cafe", 70, "wpa2", "espresso-42", "192.168.7.31"), Around("Library", 30, "open")],
    )


def test_qr_payload_escapes_what_the_format_needs() -> None:
    assert escape_wifi('a\\b;c,d:e"f') == 'a\\\\b\\;c\\,d\\:e\\"f'
    assert wifi_qr_payload("companion-AB12", None) == "WIFI:T:nopass;S:companion-AB12;;"
    assert wifi_qr_payload("My;Net", 'p:w,"x"') == 'WIFI:T:WPA;S:My\\;Net;P:p\\:w\\,\\"x\\";;'


def test_ssid_comes_from_the_machine_id_and_hides_it() -> None:
    mid = "0123456789abcdef0123456789abcdef"
    ssid = box_ssid(mid)
    assert ssid == box_ssid(mid + "\n") and ssid.startswith("companion-") and len(ssid) == 14
    assert ssid != box_ssid("fedcba9876543210fedcba9876543210")
    assert ssid[-4:].lower() not in mid


def test_password_rules() -> None:
    assert password_problem("12345678") is None and password_problem("x" * 63) is None
    assert password_problem("1234567") and password_problem("x" * 64)
    assert password_problem("tab\there!") and password_problem(None)
    assert join_password_problem("ab" * 32) is None and join_password_problem("xy" * 32)
    assert join_password_problem("short") and join_password_problem("12345678") is None


def test_hotspot_join_and_fallback() -> None:
    net = venue()
    assert net.status().mode == "none"
    assert [n.ssid for n in net.scan()] == ["Cafe", "Library"]
    st = net.open_hotspot(None)
    assert (st.mode, st.ssid, st.security, st.addresses) == (
        "hotspot", "companion-F00D", "open", ("10.42.0.1",),
    )  # fmt: skip
    assert net.scan() == []  # serving: no scan
    with pytest.raises(NetworkError):
        join_or_fall_back(net, "Cafe", "wrong-one", "own-pass-1")
    assert (net.status().mode, net.status().security) == ("hotspot", "wpa2")
    st = join_or_fall_back(net, "Cafe", "espresso-42", "own-pass-1")
    assert (st.mode, st.ssid, st.security, st.addresses) == (
        "wifi", "Cafe", "wpa2", ("192.168.7.31",),
    )  # fmt: skip
    assert net.known_networks() == ["Cafe"]
    assert net.scan()[0].in_use


def test_auto_with_the_fake() -> None:
    net = venue()
    net.add_known("Cafe", "espresso-42")
    now = [0.0]

    def sleep(s: float) -> None:
        now[0] += s
        if now[0] >= 4:
            net.connect_known()  # NetworkManager finds it after a few seconds

    assert auto(net, None, wait=45, sleep=sleep, clock=lambda: now[0])[0] == "wifi"
    away = FakeNetwork("companion-F00D", [Around("Library", 30, "open")])
    away.add_known("Cafe", "espresso-42")
    done, st = auto(away, "own-pass-1", wait=6, sleep=sleep, clock=lambda: now[0])
    assert (done, st.security) == ("hotspot", "wpa2")
    assert auto(away, "own-pass-1", wait=6, sleep=sleep, clock=lambda: now[0])[0] == "kept"
    assert auto(away, None, wait=0)[1].security == "open"  # the password was forgotten


def test_broken_and_no_wifi() -> None:
    net = FakeNetwork(has_wifi=False, wired="192.168.1.9")
    assert net.status().mode == "wired"
    with pytest.raises(NetworkError) as err:
        net.open_hotspot(None)
    assert err.value.code == "network.no_wifi"
    net.broken = "network.unavailable"
    with pytest.raises(NetworkError) as err:
        net.status()
    assert err.value.code == "network.unavailable"


def test_auto_tries_again_when_the_radio_is_not_ready() -> None:
    class Slow(FakeNetwork):
        fails = 2

        def open_hotspot(self, password: str | None) -> NetworkStatus:
            if self.fails:
                self.fails -= 1
                raise NetworkError("No suitable device found.", "network.hotspot_failed")
            return super().open_hotspot(password)

    naps: list[float] = []
    done, st = auto(Slow(), None, wait=0, sleep=naps.append)
    assert (done, st.mode, naps) == ("hotspot", "hotspot", [5.0, 5.0])
    never = Slow()
    never.fails = 5
    with pytest.raises(NetworkError):
        auto(never, None, wait=0, sleep=naps.append)
    assert never.fails == 2  # three tries, then the error
