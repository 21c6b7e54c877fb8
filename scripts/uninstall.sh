#!/usr/bin/env bash
# Remove what scripts/install.sh installed.
#
#   sudo scripts/uninstall.sh            stop and remove the service, its unit, udev rule and venv
#   sudo scripts/uninstall.sh --purge    also delete the games (/var/lib/companion), the
#                                        settings (/etc/companion) and the companion user
#
# Options: --dry-run (print the steps), --prefix DIR (remove from a staged tree under DIR; steps
# that change the running system are listed but skipped), --purge.
# Debian packages stay installed: other software may use them.
set -euo pipefail

APP_DIR=/opt/companion
ETC_DIR=/etc/companion
STATE_DIR=/var/lib/companion
UNIT=/etc/systemd/system/companion.service
NETWORK_UNIT=/etc/systemd/system/companion-network.service
POLKIT_RULE=/etc/polkit-1/rules.d/50-companion-network.rules
FIREWALL_UNIT=/etc/systemd/system/companion-firewall.service
DISPATCHER=/etc/NetworkManager/dispatcher.d/90-companion-no-forward
RULE=/etc/udev/rules.d/99-ttr-reader.rules
MODULES=/etc/modules-load.d/companion.conf
SERVICE=companion.service
USER_NAME=companion

DRY=0
PURGE=0
PREFIX=""
ARGS="$*"

say() { printf '==> %s\n' "$*"; }
note() { printf '    %s\n' "$*"; }
die() {
    printf 'uninstall.sh: %s\n' "$*" >&2
    exit 2
}
show() {
    printf '+'
    printf ' %q' "$@"
    printf '\n'
}
run() {
    if [ "$DRY" = 1 ]; then show "$@"; else "$@"; fi
}
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

while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) DRY=1 ;;
        --purge) PURGE=1 ;;
        --prefix)
            [ $# -ge 2 ] || die "--prefix needs a directory"
            PREFIX=$2
            shift
            ;;
        --prefix=*) PREFIX=${1#--prefix=} ;;
        -h | --help)
            sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
    shift
done
if [ -n "$PREFIX" ]; then
    case "$PREFIX" in /*) ;; *) PREFIX=$(pwd)/$PREFIX ;; esac
    PREFIX=${PREFIX%/}
    [ "$PREFIX" != "" ] || die "--prefix / is the real system: leave --prefix out instead"
fi
R=$PREFIX
if [ "$DRY" = 0 ] && [ -z "$PREFIX" ] && [ "$(id -u)" != 0 ]; then
    die "uninstalling needs root: run sudo $0 $ARGS"
fi

say "stopping the service"
if [ -e "$R$UNIT" ] || [ "$DRY" = 1 ]; then
    system systemctl disable --now "$SERVICE"
    if [ -e "$R$NETWORK_UNIT" ] || [ "$DRY" = 1 ]; then
        system systemctl disable companion-network.service
        # the box's own network profile (a venue Wi-Fi the host joined stays known)
        system nmcli connection delete id companion-hotspot || note "no companion-hotspot profile"
    fi
    if [ -e "$R$FIREWALL_UNIT" ] || [ "$DRY" = 1 ]; then
        # stopping it deletes the table inet companion (nothing else of the ruleset)
        system systemctl disable --now companion-firewall.service ||
            note "companion-firewall.service did not stop cleanly (sudo nft delete table inet companion)"
    fi
else
    note "no $UNIT: nothing to stop"
fi

say "removing the unit, the udev rule, the module list and $APP_DIR"
for path in "$R$UNIT" "$R$NETWORK_UNIT" "$R$FIREWALL_UNIT" "$R$DISPATCHER" "$R$POLKIT_RULE" \
    "$R$RULE" "$R$MODULES"; do
    if [ -e "$path" ] || [ "$DRY" = 1 ]; then run rm -f -- "$path"; fi
done
system systemctl daemon-reload
system udevadm control --reload-rules
if [ -e "$R$APP_DIR" ] || [ "$DRY" = 1 ]; then run rm -rf -- "$R$APP_DIR"; fi

if [ "$PURGE" = 1 ]; then
    say "purging games, settings and the $USER_NAME user"
    for path in "$R$STATE_DIR" "$R$ETC_DIR"; do
        if [ -e "$path" ] || [ "$DRY" = 1 ]; then run rm -rf -- "$path"; fi
    done
    if getent passwd "$USER_NAME" >/dev/null 2>&1 || [ "$DRY" = 1 ]; then
        system userdel "$USER_NAME"
    fi
else
    note "kept the games in $STATE_DIR and the settings in $ETC_DIR (--purge removes them)"
fi
say "done"
