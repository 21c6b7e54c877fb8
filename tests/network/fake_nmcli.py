"""A stand-in for NetworkManager's ``nmcli``, run as an executable on PATH by the tests.

It keeps a small world in the JSON file named by ``FAKE_NMCLI_WORLD`` (devices, connection
profiles, which profile is up on which device, the networks in range, the radio) and appends
each argv it was called with to ``FAKE_NMCLI_LOG`` (one JSON list a line). It answers the
commands companion.network.nmcli sends in nmcli 1.42's terse formats (``-t``: ``:`` between
fields, ``\\:`` and ``\\\\`` inside values of tabular output; ``-e no -m multiline``:
``NAME:value`` lines) and exits with nmcli's statuses (4 activation failed, 8 NetworkManager not
running, 10 no such connection). Anything it does not know is exit 2, as nmcli's "invalid input".

A secret on its command line (``password``, ``...psk``) is refused (exit 2): secrets come in a
``passwd-file`` (``connection up ... passwd-file FILE``), read as nmcli 1.42 reads it
(``setting.property:secret`` lines, backslash escapes, unescaped spaces around the secret
stripped); what it found there (the file's and its folder's modes, the secrets) is kept in the
file ``passwd-files.jsonl`` beside the world (one JSON object a line, written at once: also
when the activation then fails).
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any, NoReturn


def esc(value: str) -> str:
    return value.replace("\\", "\\\\").replace(":", "\\:")


def fail(status: int, text: str) -> NoReturn:
    print(f"Error: {text}", file=sys.stderr)
    sys.exit(status)


def profile_of(world: dict[str, Any], name: str) -> dict[str, Any]:
    prof = world["profiles"].get(name)
    if prof is None:
        fail(10, f"{name} - no such connection profile.")
    return dict(prof)


def addresses(world: dict[str, Any], device: str) -> list[str]:
    name = world["active"].get(device)
    if not name:
        return []
    prof = world["profiles"][name]
    if prof.get("type") == "802-3-ethernet":
        return list(prof.get("addresses", []))
    if prof.get("mode") == "ap":
        return [prof.get("ipv4.addresses", "10.42.0.1/24"), "fe80::1/64"]
    near = next((a for a in world["around"] if a["ssid"] == prof["ssid"]), None)
    return [near["address"], "fe80::2/64", "2001:db8::5/64"] if near else []


def state_of(world: dict[str, Any], device: dict[str, Any]) -> str:
    if device["type"] == "loopback":
        return "connected (externally)"
    if world["active"].get(device["name"]):
        return "connected"
    return "unavailable" if device["type"] == "ethernet" else "disconnected"


SECRET_WORDS = ("password", "psk", "802-11-wireless-security.psk", "wifi-sec.psk")


def unescape(value: str) -> str:
    """A passwd-file secret as nmcli reads it: backslash escapes (``\\\\``, ``\\ooo``, ``\\n``
    ...), unescaped blanks around it stripped."""
    value = value.lstrip(" \t")
    out: list[tuple[str, bool]] = []  # (character, was escaped)
    i = 0
    while i < len(value):
        c = value[i]
        if c != "\\" or i + 1 == len(value):
            out.append((c, False))
            i += 1
            continue
        nxt = value[i + 1]
        if nxt.isdigit():
            code, j = int(nxt), i + 2
            while j < len(value) and j < i + 4 and value[j] in "01234567":
                code, j = code * 8 + int(value[j]), j + 1
            out.append((chr(code & 0xFF), True))
            i = j
            continue
        out.append(({"n": "\n", "t": "\t", "r": "\r"}.get(nxt, nxt), True))
        i += 2
    while out and out[-1][1] is False and out[-1][0] in " \t":
        out.pop()
    return "".join(c for c, _ in out)


def read_passwd_file(world_path: Path, path: str) -> dict[str, str]:
    file = Path(path)
    st = file.stat()
    secrets = {}
    for line in file.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cut = min(i for i in (line.find(":"), line.find("="), len(line)) if i >= 0)
        if cut == len(line):
            fail(2, 'missing colon for "<setting>.<property>:<secret>" format')
        key = line[:cut].strip().replace("wifi-sec.", "802-11-wireless-security.")
        secrets[key] = unescape(line[cut + 1 :])
    seen = {
        "path": path,
        "mode": stat.S_IMODE(st.st_mode),
        "folder_mode": stat.S_IMODE(file.parent.stat().st_mode),
        "owner": st.st_uid == os.getuid(),
        "secrets": secrets,
    }
    with open(world_path.with_name("passwd-files.jsonl"), "a", encoding="utf-8") as out:
        out.write(json.dumps(seen) + "\n")
    return secrets


def main(argv: list[str]) -> int:
    world_path = Path(os.environ["FAKE_NMCLI_WORLD"])
    with open(os.environ["FAKE_NMCLI_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps(argv) + "\n")
    # one nmcli at a time, like NetworkManager answering one call after another (the service
    # asks for the status while a change runs)
    lock = open(str(world_path) + ".lock", "w")  # noqa: SIM115 (held until the process ends)
    fcntl.flock(lock, fcntl.LOCK_EX)
    world: dict[str, Any] = json.loads(world_path.read_text(encoding="utf-8"))
    if any(a in SECRET_WORDS for a in argv):
        fail(2, "a secret on the command line: any local user may read it in /proc")
    if not world.get("running", True):
        fail(8, "NetworkManager is not running.")
    opts: dict[str, str] = {}
    args = list(argv)
    while args and args[0].startswith("-"):
        flag = args.pop(0)
        if flag in ("-t", "--terse"):
            opts["terse"] = "yes"
        elif flag in ("-f", "-e", "-m", "--wait", "-w"):
            opts[flag] = args.pop(0)
        else:
            fail(2, f"Option '{flag}' is unknown.")
    if opts.get("terse") != "yes" and args[:1] not in (["radio"], ["connection"], ["device"]):
        fail(2, "expected terse output")
    out = run(world, opts, args, world_path)
    tmp = world_path.with_suffix(".tmp")
    tmp.write_text(json.dumps(world), encoding="utf-8")
    os.replace(tmp, world_path)
    if out:
        sys.stdout.write(out)
    return 0


def run(world: dict[str, Any], opts: dict[str, str], args: list[str], world_path: Path) -> str:
    fields = opts.get("-f", "").split(",") if "-f" in opts else []
    if args == ["device", "status"] and fields == ["DEVICE", "TYPE", "STATE", "CONNECTION"]:
        return "".join(
            f"{esc(d['name'])}:{d['type']}:{state_of(world, d)}:"
            f"{esc(world['active'].get(d['name'], ''))}\n"
            for d in world["devices"]
        )
    if args[:2] == ["device", "show"] and opts.get("-e") == "no":
        device = args[2]
        if not any(d["name"] == device for d in world["devices"]):
            fail(10, f"Device '{device}' not found.")
        lines: list[str] = []
        for addr in addresses(world, device):
            key = "IP6.ADDRESS" if ":" in addr else "IP4.ADDRESS"
            n = sum(1 for line in lines if line.startswith(key)) + 1
            lines.append(f"{key}[{n}]:{addr}")
        return "".join(line + "\n" for line in lines if line.split("[")[0] in fields)
    if args == ["connection", "show"] and fields == ["NAME", "TYPE", "AUTOCONNECT"]:
        return "".join(
            f"{esc(name)}:{p['type']}:{p.get('autoconnect', 'yes')}\n"
            for name, p in world["profiles"].items()
        )
    if args[:3] == ["connection", "show", "id"] and opts.get("-e") == "no":
        prof = profile_of(world, args[3])
        values = {
            "802-11-wireless.ssid": prof.get("ssid", ""),
            "802-11-wireless.mode": prof.get("mode", "infrastructure"),
            "802-11-wireless-security.key-mgmt": prof.get("key-mgmt", ""),
        }
        return "".join(f"{f}:{values[f]}\n" for f in fields)
    if args[:4] == ["device", "wifi", "list", "--rescan"] and args[5:6] == ["ifname"]:
        device = args[6]
        if args[4] == "yes" and world.get("scan_busy"):
            fail(1, "Scanning not allowed while already scanning.")
        name = world["active"].get(device)
        if name and world["profiles"][name].get("mode") == "ap":
            return ""  # a radio serving its own network lists nothing
        current = world["profiles"][name]["ssid"] if name else None
        return "".join(
            f"{'*' if a['ssid'] == current else ' '}:{esc(a['ssid'])}:{a['signal']}:"
            f"{a['security']}\n"
            for a in world["around"]
        )
    if args == ["radio", "wifi"]:
        return str(world.get("radio", "enabled")) + "\n"
    if args == ["radio", "wifi", "on"]:
        world["radio"] = "enabled"
        return ""
    if args[:3] == ["connection", "delete", "id"]:
        profile_of(world, args[3])
        del world["profiles"][args[3]]
        for dev, name in list(world["active"].items()):
            if name == args[3]:
                del world["active"][dev]
        return f"Connection '{args[3]}' successfully deleted.\n"
    if args[:4] == ["connection", "add", "type", "wifi"]:
        rest = args[4:]
        pairs = dict(zip(rest[::2], rest[1::2], strict=True))
        name = pairs.pop("con-name")
        prof = {
            "type": "802-11-wireless",
            "ifname": pairs.pop("ifname"),
            "autoconnect": pairs.pop("autoconnect"),
            "ssid": pairs.pop("ssid"),
            "mode": pairs.pop("802-11-wireless.mode", "infrastructure"),
            "key-mgmt": pairs.pop("802-11-wireless-security.key-mgmt", ""),
        }
        prof.update(pairs)
        world["profiles"][name] = prof
        return f"Connection '{name}' successfully added.\n"
    if args[:3] == ["connection", "up", "id"]:
        name = args[3]
        prof = profile_of(world, name)
        opts_up = dict(zip(args[4::2], args[5::2], strict=True))
        secrets = (
            read_passwd_file(world_path, opts_up["passwd-file"]) if "passwd-file" in opts_up else {}
        )
        if world.get("radio", "enabled") != "enabled":
            fail(4, "Connection activation failed: No suitable device found.")
        device = opts_up.get("ifname", prof["ifname"])
        psk = secrets.get("802-11-wireless-security.psk", prof.get("psk"))
        no_secret = "Connection activation failed: Secrets were required, but not provided."
        if prof.get("mode") == "ap":
            if prof.get("key-mgmt") and (psk is None or not 8 <= len(psk) <= 63):
                fail(4, no_secret)
        elif prof["type"] == "802-11-wireless":
            near = next((a for a in world["around"] if a["ssid"] == prof["ssid"]), None)
            serving = world["active"].get(device)
            if near is None or (serving and world["profiles"][serving].get("mode") == "ap"):
                fail(10, f"No network with SSID '{prof['ssid']}' found.")  # (an AP has not scanned)
            world["active"].pop(device, None)  # the radio leaves what it served
            wanted = "sae" if near["security"] == "WPA3" else "wpa-psk"
            if near.get("password") is None and prof.get("key-mgmt"):
                fail(4, "Connection activation failed: the network is open.")
            if near.get("password") is not None and (
                prof.get("key-mgmt") != wanted or psk != near["password"]
            ):
                fail(4, no_secret)
        if psk is not None:
            prof["psk"] = psk  # NetworkManager keeps the secret an agent gave
        world["profiles"][name] = prof
        world["active"][device] = name
        return "Connection successfully activated (D-Bus active path: /org/freedesktop/1)\n"
    if args[:3] == ["connection", "down", "id"]:
        profile_of(world, args[3])
        if args[3] not in world["active"].values():
            fail(10, f"'{args[3]}' is not an active connection.")
        world["active"] = {d: n for d, n in world["active"].items() if n != args[3]}
        return f"Connection '{args[3]}' successfully deactivated.\n"
    if args[:3] == ["connection", "modify", "id"]:
        prof = world["profiles"].get(args[3])
        if prof is None:
            fail(10, f"unknown connection '{args[3]}'.")
        prof.update(dict(zip(args[4::2], args[5::2], strict=True)))
        return ""
    fail(2, f"the fake does not know: {' '.join(args)}")
    return ""


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
