#!/usr/bin/env bash
# Install the companion as a systemd service on Raspberry Pi OS 64-bit (Bookworm or Trixie).
#
#   sudo scripts/install.sh              install (or update) and start it
#   scripts/install.sh --dry-run         print every step, change nothing
#   scripts/install.sh --prefix DIR      stage the files under DIR (no apt, no users, no systemctl)
#
# Options:
#   --dry-run      print the steps instead of running them
#   --prefix DIR   install the files under DIR instead of /; steps that change the running system
#                  (apt, the user, systemctl, udevadm) are listed but skipped
#   --force        install on a machine that is not a 64-bit Raspberry Pi OS Bookworm/Trixie
#                  (e.g. a Debian laptop with a USB camera: the Pi-only packages are left out)
#   --no-start     enable the service but do not (re)start it now
#   --skip-pip     do not install Python packages into the venv (for staging checks)
#   --keep-hostname  do not name the machine "companion" (phones then find it at HOSTNAME.local,
#                  not companion.local)
#   --no-network   leave the network alone: no NetworkManager/Avahi packages, no boot-time
#                  companion-network.service, no polkit rule, no new host name, no
#                  companion-firewall.service (the table that stops the box routing)
#
# Running it again updates the code and restarts the service; it never overwrites
# /etc/companion/companion.toml or companion.env once they exist.
#
# Test hooks (environment): COMPANION_OS_RELEASE (file read instead of /etc/os-release),
# COMPANION_MODEL_FILE (instead of /proc/device-tree/model), COMPANION_ARCH (instead of
# `dpkg --print-architecture`), COMPANION_SYSTEM_PYTHON (instead of /usr/bin/python3),
# COMPANION_ACCOUNTS (a directory whose passwd and group files are read instead of getent),
# COMPANION_DEV (a directory looked in instead of /dev, for the camera),
# COMPANION_MODULES (a file of kernel module names that exist, instead of asking modinfo).
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
APP_DIR=/opt/companion
VENV=$APP_DIR/venv
ETC_DIR=/etc/companion
STATE_DIR=/var/lib/companion
UNIT_DIR=/etc/systemd/system
UDEV_DIR=/etc/udev/rules.d
SERVICE=companion.service
USER_NAME=companion
GROUPS_WANTED=(video gpio dialout)
APT_COMMON=(python3 python3-venv python3-pip python3-numpy)
APT_PI=(python3-picamera2 python3-libcamera python3-lgpio)
# the box's own network: NetworkManager (its shared mode needs dnsmasq-base for DHCP and DNS and
# nftables for its forwarding and masquerading rules; Wi-Fi needs wpasupplicant, and
# wireless-regdb for the country's channels and power: without it the kernel keeps the most
# restrictive "world" rules; --no-install-recommends would leave all four out) and Avahi, which
# answers for companion.local
APT_NETWORK=(network-manager dnsmasq-base nftables wpasupplicant wireless-regdb avahi-daemon
    libnss-mdns)
NETWORK_SERVICE=companion-network.service
# the box routes nothing: an nftables table of its own (a forward chain, policy drop) loaded at
# boot, and a NetworkManager dispatcher script that turns IPv4 forwarding off again after the
# box's own network (NetworkManager's shared mode turns it on and never off)
FIREWALL_SERVICE=companion-firewall.service
FIREWALL_RULES=companion-firewall.nft
DISPATCHER_DIR=/etc/NetworkManager/dispatcher.d
DISPATCHER=90-companion-no-forward
POLKIT_DIR=/etc/polkit-1/rules.d
POLKIT_RULE=50-companion-network.rules
HOST_NAME=companion
SYSTEM_PYTHON=${COMPANION_SYSTEM_PYTHON:-/usr/bin/python3}
OS_RELEASE=${COMPANION_OS_RELEASE:-/etc/os-release}
MODEL_FILE=${COMPANION_MODEL_FILE:-/proc/device-tree/model}
DEV_DIR=${COMPANION_DEV:-/dev}
MODULES_DIR=/etc/modules-load.d
# the card reader's drivers: loaded at boot so that the unit's DeviceAllow=char-ttyACM/ttyUSB
# find their device numbers when it starts, even with no reader plugged in yet
READER_MODULES=(cdc_acm usbserial)

DRY=0
FORCE=0
START=1
SKIP_PIP=0
NETWORK=1
KEEP_HOSTNAME=0
PREFIX=""
ARGS="$*"

say() { printf '==> %s\n' "$*"; }

# has_account passwd|group NAME: does this user or group exist?
has_account() {
    if [ -n "${COMPANION_ACCOUNTS:-}" ]; then
        grep -q "^$2:" "$COMPANION_ACCOUNTS/$1" 2>/dev/null
    else
        getent "$1" "$2" >/dev/null 2>&1
    fi
}

# module_exists NAME: is there such a kernel module (or is it built in)?
module_exists() {
    if [ -n "${COMPANION_MODULES:-}" ]; then
        grep -qx "$1" "$COMPANION_MODULES" 2>/dev/null
    else
        modinfo "$1" >/dev/null 2>&1
    fi
}
note() { printf '    %s\n' "$*"; }
die() {
    printf 'install.sh: %s\n' "$*" >&2
    exit 2
}

usage() {
    sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) DRY=1 ;;
        --prefix)
            [ $# -ge 2 ] || die "--prefix needs a directory"
            PREFIX=$2
            shift
            ;;
        --prefix=*) PREFIX=${1#--prefix=} ;;
        --force) FORCE=1 ;;
        --no-start) START=0 ;;
        --skip-pip) SKIP_PIP=1 ;;
        --no-network) NETWORK=0 ;;
        --keep-hostname) KEEP_HOSTNAME=1 ;;
        -h | --help)
            usage
            exit 0
            ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
    shift
done

if [ -n "$PREFIX" ]; then
    case "$PREFIX" in
        /*) ;;
        *) PREFIX=$(pwd)/$PREFIX ;;
    esac
    PREFIX=${PREFIX%/}
    [ "$PREFIX" != "" ] || die "--prefix / is the real system: leave --prefix out instead"
fi
R=$PREFIX # every installed path is "$R/..."

# show CMD...: print a command as a shell would read it back.
show() {
    printf '+'
    printf ' %q' "$@"
    printf '\n'
}

# run CMD...: a step inside the install tree (printed on a dry run).
run() {
    if [ "$DRY" = 1 ]; then
        show "$@"
    else
        "$@"
    fi
}

# system CMD...: a step that changes the running system (skipped when staging).
system() {
    if [ "$DRY" = 1 ]; then
        show "$@"
    elif [ -n "$PREFIX" ]; then
        printf '  (staging, skipped)'
        printf ' %q' "$@"
        printf '\n'
    else
        "$@"
    fi
}

# write_file DEST MODE: standard input to DEST (printed on a dry run).
write_file() {
    if [ "$DRY" = 1 ]; then
        printf '+ write %s (mode %s):\n' "$1" "$2"
        sed 's/^/|   /'
    else
        local tmp
        tmp=$(mktemp "$1.XXXXXX")
        cat >"$tmp"
        chmod "$2" "$tmp"
        mv -f "$tmp" "$1"
    fi
}

# ---------------------------------------------------------------------------------------------
say "checking this machine"
os_id="" os_codename="" os_name="unknown system"
if [ -r "$OS_RELEASE" ]; then
    # shellcheck disable=SC1090 # os-release is a shell fragment by definition
    os_id=$(. "$OS_RELEASE" && printf '%s' "${ID:-}")
    # shellcheck disable=SC1090
    os_codename=$(. "$OS_RELEASE" && printf '%s' "${VERSION_CODENAME:-}")
    # shellcheck disable=SC1090
    os_name=$(. "$OS_RELEASE" && printf '%s' "${PRETTY_NAME:-${ID:-unknown}}")
fi
arch=${COMPANION_ARCH:-$(dpkg --print-architecture 2>/dev/null || uname -m)}
model=""
if [ -r "$MODEL_FILE" ]; then
    model=$(tr -d '\0' <"$MODEL_FILE")
fi
note "system: $os_name ($arch)"
note "board:  ${model:-unknown (no $MODEL_FILE)}"

problems=()
on_pi=0
case "$model" in
    *"Raspberry Pi"*) on_pi=1 ;;
    *) problems+=("this is not a Raspberry Pi (no \"Raspberry Pi\" in $MODEL_FILE)") ;;
esac
case "$os_id" in
    debian | raspbian) ;;
    *) problems+=("this is $os_name, not Raspberry Pi OS (Debian)") ;;
esac
case "$os_codename" in
    bookworm | trixie) ;;
    *) problems+=("Raspberry Pi OS ${os_codename:-of this release} is not supported (Bookworm or Trixie are)") ;;
esac
case "$arch" in
    arm64 | aarch64) ;;
    *) problems+=("the architecture is $arch, not 64-bit ARM (use the 64-bit Raspberry Pi OS)") ;;
esac

if [ ${#problems[@]} -gt 0 ]; then
    for p in "${problems[@]}"; do note "note: $p"; done
    if [ "$DRY" = 1 ] || [ -n "$PREFIX" ]; then
        note "continuing anyway: this run does not change the system"
    elif [ "$FORCE" = 1 ]; then
        note "continuing anyway (--force)"
    else
        die "${problems[0]}; run with --dry-run to see the steps, or --force to install anyway"
    fi
fi

if [ "$DRY" = 0 ] && [ -z "$PREFIX" ] && [ "$(id -u)" != 0 ]; then
    die "installing needs root: run sudo $0 $ARGS"
fi

py_ok=$("$SYSTEM_PYTHON" -c 'import sys; print(int(sys.version_info >= (3, 11)))' 2>/dev/null || echo missing)
if [ "$py_ok" = missing ] && { [ "$DRY" = 1 ] || [ -n "$PREFIX" ]; }; then
    note "note: $SYSTEM_PYTHON is not installed yet (apt installs it)"
elif [ "$py_ok" = 0 ]; then
    die "$SYSTEM_PYTHON is older than Python 3.11; Raspberry Pi OS Bookworm or newer is needed"
fi

# ---------------------------------------------------------------------------------------------
say "installing Debian packages"
packages=("${APT_COMMON[@]}")
if [ "$on_pi" = 1 ]; then
    packages+=("${APT_PI[@]}")
else
    note "not a Raspberry Pi: leaving out ${APT_PI[*]} (the camera is then a USB one: [camera] backend = \"v4l2\")"
fi
if [ "$NETWORK" = 1 ]; then
    packages+=("${APT_NETWORK[@]}")
else
    note "--no-network: leaving out ${APT_NETWORK[*]}"
fi
# sudo drops DEBIAN_FRONTEND from the caller's environment: set it on the commands themselves
system env DEBIAN_FRONTEND=noninteractive apt-get update
system env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${packages[@]}"

# ---------------------------------------------------------------------------------------------
say "service user $USER_NAME"
groups=()
for g in "${GROUPS_WANTED[@]}"; do
    if has_account group "$g"; then
        groups+=("$g")
    else
        note "group $g does not exist here (it does on Raspberry Pi OS): skipped"
    fi
done
if has_account passwd "$USER_NAME"; then
    note "user $USER_NAME exists"
else
    system useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home \
        --shell /usr/sbin/nologin --comment "Ticket to Ride companion" "$USER_NAME"
fi
if [ ${#groups[@]} -gt 0 ]; then
    system usermod --append --groups "$(
        IFS=,
        printf '%s' "${groups[*]}"
    )" "$USER_NAME"
fi

# ---------------------------------------------------------------------------------------------
say "Python environment $VENV (with the system's site-packages, for apt's picamera2)"
run install -d -m 0755 "$R$APP_DIR"
venv_ok=0
if [ -f "$R$VENV/pyvenv.cfg" ] && grep -qi '^include-system-site-packages *= *true' "$R$VENV/pyvenv.cfg"; then
    venv_ok=1
    note "venv exists"
fi
if [ "$venv_ok" = 0 ]; then
    venv_args=(--system-site-packages)
    [ -e "$R$VENV" ] && venv_args+=(--clear) # an old venv without system site-packages
    [ "$SKIP_PIP" = 1 ] && venv_args+=(--without-pip)
    run "$SYSTEM_PYTHON" -m venv "${venv_args[@]}" "$R$VENV"
fi

# numpy: keep the one apt installed for picamera2 (a pip numpy in the venv would shadow it and
# break picamera2/simplejpeg, which are built against apt's numpy).
system_numpy=$("$SYSTEM_PYTHON" -c 'import numpy; print(numpy.__version__)' 2>/dev/null || true)
{
    echo "# written by scripts/install.sh: keep the system's numpy (apt's picamera2 is built on it)"
    if [ -n "$system_numpy" ]; then
        echo "numpy==$system_numpy"
    elif [ "$DRY" = 1 ]; then
        echo "numpy==<the version of python3-numpy, read after apt has installed it>"
    fi
} | write_file "$R$APP_DIR/constraints.txt" 0644
if [ -n "$system_numpy" ]; then
    note "numpy pinned to the system's $system_numpy"
fi

if [ "$SKIP_PIP" = 1 ]; then
    note "--skip-pip: Python packages not installed"
else
    # pip builds a local project in place (build/, companion.egg-info): as root in the user's
    # checkout those would stay behind root-owned. Build from a copy of what the package needs.
    build_src=$APP_DIR/build-src
    run rm -rf "$R$build_src"
    run install -d -m 0755 "$R$build_src"
    run cp -R "$SRC/pyproject.toml" "$SRC/README.md" "$SRC/companion" "$SRC/web" "$R$build_src/"
    run find "$R$build_src" -depth \( -name __pycache__ -o -name '*.egg-info' \) -exec rm -rf {} +
    run "$R$VENV/bin/python" -m pip install --quiet --no-cache-dir --upgrade \
        --upgrade-strategy only-if-needed --constraint "$R$APP_DIR/constraints.txt" "$R$build_src"
    run rm -rf "$R$build_src"
    if [ "$DRY" = 0 ] && [ -n "$system_numpy" ]; then
        venv_numpy=$("$R$VENV/bin/python" -c 'import numpy; print(numpy.__version__)')
        [ "$venv_numpy" = "$system_numpy" ] ||
            die "the venv sees numpy $venv_numpy, not the system's $system_numpy; picamera2 would break"
    fi
    if [ "$DRY" = 0 ] && [ "$on_pi" = 1 ]; then
        "$R$VENV/bin/python" -c 'import picamera2' 2>/dev/null ||
            note "warning: picamera2 does not import in the venv; the camera backend will say why"
    fi
fi

# ---------------------------------------------------------------------------------------------
say "configuration $ETC_DIR"
fresh_toml=0
run install -d -m 0755 "$R$ETC_DIR"
for pair in companion.toml:companion.toml.example companion.env:companion.env.example; do
    name=${pair%%:*}
    example=${pair#*:}
    if [ -e "$R$ETC_DIR/$name" ]; then
        note "kept your $ETC_DIR/$name"
    else
        run install -m 0644 "$SRC/systemd/$example" "$R$ETC_DIR/$name"
        if [ "$name" = companion.toml ]; then fresh_toml=1; fi
    fi
done

# The camera backend of a new companion.toml: picamera2 on a Pi; elsewhere apt's picamera2 is
# not there, so a USB camera (v4l2) if one is plugged in, else none (the game runs without one).
if [ "$fresh_toml" = 1 ] && [ "$on_pi" = 0 ]; then
    if [ -e "$DEV_DIR/video0" ]; then backend=v4l2; else backend=none; fi
    note "camera: [camera] backend = \"$backend\" (not a Raspberry Pi; change it in $ETC_DIR/companion.toml)"
    if [ "$DRY" = 1 ]; then
        show sed -i "s/^backend = \"picamera2\"/backend = \"$backend\"/" "$R$ETC_DIR/companion.toml"
    else
        sed -i "s/^backend = \"picamera2\"/backend = \"$backend\"/" "$R$ETC_DIR/companion.toml"
    fi
fi

say "systemd unit and udev rule"
run install -d -m 0755 "$R$UNIT_DIR" "$R$UDEV_DIR"
run install -m 0644 "$SRC/systemd/$SERVICE" "$R$UNIT_DIR/$SERVICE"
run install -m 0644 "$SRC/systemd/99-ttr-reader.rules" "$R$UDEV_DIR/99-ttr-reader.rules"
run install -m 0755 "$SRC/scripts/lan-ipv6-allow" "$R$APP_DIR/lan-ipv6-allow"
modules=()
for m in "${READER_MODULES[@]}"; do
    if module_exists "$m"; then modules+=("$m"); else note "kernel module $m not found: skipped"; fi
done
if [ ${#modules[@]} -gt 0 ]; then
    run install -d -m 0755 "$R$MODULES_DIR"
    {
        echo "# written by scripts/install.sh: the card reader's drivers, loaded before companion.service"
        printf '%s\n' "${modules[@]}"
    } | write_file "$R$MODULES_DIR/companion.conf" 0644
    for m in "${modules[@]}"; do system modprobe "$m" || note "could not load $m now"; done
fi

if [ "$NETWORK" = 1 ]; then
    say "the box's own network ($NETWORK_SERVICE) and the polkit rule for it"
    # at boot: a known Wi-Fi within 45 s, else the box's own network (companion network auto)
    run install -m 0644 "$SRC/systemd/$NETWORK_SERVICE" "$R$UNIT_DIR/$NETWORK_SERVICE"
    # the service user may ask NetworkManager (over D-Bus) to scan, open the box's network and
    # join a Wi-Fi, and nothing else
    run install -d -m 0755 "$R$POLKIT_DIR"
    run install -m 0644 "$SRC/systemd/companion-network.rules" "$R$POLKIT_DIR/$POLKIT_RULE"
    say "the box routes nothing ($FIREWALL_SERVICE, table inet companion)"
    # neither between the phones on its own network and any other network, nor as a client
    run install -m 0644 "$SRC/systemd/$FIREWALL_RULES" "$R$APP_DIR/$FIREWALL_RULES"
    run install -m 0644 "$SRC/systemd/$FIREWALL_SERVICE" "$R$UNIT_DIR/$FIREWALL_SERVICE"
    run install -d -m 0755 "$R$DISPATCHER_DIR"
    run install -m 0755 "$SRC/systemd/companion-no-forward.dispatcher" "$R$DISPATCHER_DIR/$DISPATCHER"
    if [ "$KEEP_HOSTNAME" = 1 ]; then
        note "--keep-hostname: phones find the box at $(hostname).local"
    elif [ "$(hostname)" = "$HOST_NAME" ]; then
        note "the host name is already $HOST_NAME ($HOST_NAME.local)"
    else
        # Avahi answers for the host name: phones find the box at companion.local
        system hostnamectl set-hostname "$HOST_NAME"
        system sed -i -E "s/^127\.0\.1\.1([[:space:]].*)?\$/127.0.1.1\t$HOST_NAME/" /etc/hosts
    fi
    system systemctl enable NetworkManager.service NetworkManager-dispatcher.service \
        avahi-daemon.service
    system systemctl restart avahi-daemon.service
fi
system systemctl daemon-reload
system udevadm control --reload-rules
system udevadm trigger --subsystem-match=tty --action=add
system systemctl enable "$SERVICE"
if [ "$NETWORK" = 1 ]; then
    # loaded now and at every boot (before NetworkManager): it only stops the box routing
    system systemctl enable "$FIREWALL_SERVICE"
    system systemctl restart "$FIREWALL_SERVICE" ||
        note "warning: $FIREWALL_SERVICE did not load its table now (a kernel without nftables?): sudo systemctl status $FIREWALL_SERVICE"
    # forwarding off now too (the dispatcher script does it whenever the box's own network goes up
    # or down): running the installer again is all the set-up check's advice asks
    system sysctl -q -w net.ipv4.ip_forward=0 ||
        note "warning: IPv4 forwarding could not be turned off now: sudo sysctl -w net.ipv4.ip_forward=0"
    # not started now (it may switch the Wi-Fi under this session): at the next boot
    system systemctl enable "$NETWORK_SERVICE"
    note "at each boot the box joins a known Wi-Fi, else opens its own (now: sudo $VENV/bin/companion network auto)"
    note "the box's own network needs the Wi-Fi country set once (sudo raspi-config, Localisation Options)"
fi
if [ "$START" = 1 ]; then
    system systemctl restart "$SERVICE"
else
    note "--no-start: start it with: sudo systemctl start $SERVICE"
fi

# ---------------------------------------------------------------------------------------------
say "dashboard"
port=8080
if [ -f "$R$ETC_DIR/companion.toml" ] && [ "$py_ok" = 1 ]; then
    port=$(PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$SRC "$SYSTEM_PYTHON" -c '
import sys
from companion.config import ConfigError, load_config
try:
    print(load_config(sys.argv[1], env={}).server.port)
except ConfigError as exc:
    print(exc, file=sys.stderr)
    print(8080)
' "$R$ETC_DIR/companion.toml")
fi
address=$(hostname -I 2>/dev/null | awk '{print $1}')
url="http://${address:-$(hostname).local}:$port/"
note "open $url on a phone on the same network (also http://$(hostname).local:$port/)"
note "the host link (with its QR code): sudo -u $USER_NAME $VENV/bin/companion serve --state-dir $STATE_DIR --host-link"
note "(the journal never shows the token: journalctl -u $SERVICE | grep -i 'host link' prints this command)"
if [ "$DRY" = 1 ]; then
    printf '+ %s\n' "print a QR code of $url"
elif "$R$VENV/bin/python" -c 'import segno' 2>/dev/null; then
    "$R$VENV/bin/python" -c 'import segno, sys; segno.make(sys.argv[1]).terminal(compact=True)' "$url"
else
    note "(no segno in the venv yet: no QR code)"
fi
say "done"
