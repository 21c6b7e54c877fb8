#!/usr/bin/env bash
# Run inside a private user and network namespace (unshare -rn) by test_no_forward.py: this
# namespace is "the box", with a phone on its own network (10.42.0.0/24, veth hotspot0) and a
# venue's network (192.0.2.0/24 and 2001:db8::/64, veth venue0), each peer in a namespace of its
# own made here. Nothing leaves these namespaces. Prints "what result" lines.
#   nsforward.sh RULES.nft DISPATCHER PYTHON
set -euo pipefail
RULES=$1 DISPATCHER=$2 PY=$3
WORK=$(mktemp -d)
holder() { unshare -n sleep 60 >/dev/null 2>&1 & echo $!; }
PHONE=$(holder)
VENUE=$(holder)
trap 'kill "$PHONE" "$VENUE" 2>/dev/null; rm -rf "$WORK"' EXIT
in_ns() {
    local pid=$1
    shift
    nsenter -t "$pid" -n "$@"
}
for _ in 1 2 3 4 5 6 7 8 9 10; do
    [ "$(readlink /proc/"$VENUE"/ns/net)" != "$(readlink /proc/self/ns/net)" ] && break
    sleep 0.1
done

# no duplicate address detection anywhere (an address still "tentative" is not used yet), and
# this namespace routes from the start (the table is loaded later)
for ns in self "$PHONE" "$VENUE"; do
    for key in accept_dad dad_transmits; do
        if [ "$ns" = self ]; then
            echo 0 >/proc/sys/net/ipv6/conf/default/$key
        else
            in_ns "$ns" sh -c "echo 0 >/proc/sys/net/ipv6/conf/default/$key"
        fi
    done
done
echo 1 >/proc/sys/net/ipv4/ip_forward
echo 1 >/proc/sys/net/ipv6/conf/all/forwarding
ip link set lo up
ip link add hotspot0 type veth peer name phone0
ip link set phone0 netns "$PHONE"
ip link add venue0 type veth peer name venue1
ip link set venue1 netns "$VENUE"
ip addr add 10.42.0.1/24 dev hotspot0
ip addr add 192.0.2.1/24 dev venue0
ip -6 addr add 2001:db8::1/64 dev venue0 nodad
ip -6 addr add fd42::1/64 dev hotspot0 nodad
ip link set hotspot0 up
ip link set venue0 up
in_ns "$PHONE" ip link set lo up
in_ns "$PHONE" ip addr add 10.42.0.50/24 dev phone0
in_ns "$PHONE" ip -6 addr add fd42::50/64 dev phone0 nodad
in_ns "$PHONE" ip link set phone0 up
in_ns "$PHONE" ip route add default via 10.42.0.1
in_ns "$PHONE" ip -6 route add default via fd42::1
in_ns "$VENUE" ip link set lo up
in_ns "$VENUE" ip addr add 192.0.2.50/24 dev venue1
in_ns "$VENUE" ip -6 addr add 2001:db8::50/64 dev venue1 nodad
in_ns "$VENUE" ip link set venue1 up
in_ns "$VENUE" ip route add default via 192.0.2.1
in_ns "$VENUE" ip -6 route add default via 2001:db8::1

# reach PROTO WHERE ADDRESS PORT [TO]: does the phone's datagram (udp) or connection (tcp) get
# to a listener on ADDRESS:PORT in namespace WHERE (a pid, or "box" for this one), sent to TO
# (default ADDRESS; 255.255.255.255: a broadcast, as a phone's DHCP request)? "yes" or "no"
reach() {
    local proto=$1 where=$2 address=$3 port=$4 to=${5:-$3} listener
    local code="
import socket, sys
proto, address, port, to, ready = sys.argv[1], sys.argv[2], int(sys.argv[3]), *sys.argv[4:6]
family = socket.AF_INET6 if ':' in address else socket.AF_INET
kind = socket.SOCK_DGRAM if proto == 'udp' else socket.SOCK_STREAM
s = socket.socket(family, kind)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((address, port))
if to.startswith('224.'):  # a multicast group (mDNS): joined on the box's own network
    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                 socket.inet_aton(to) + socket.inet_aton('10.42.0.1'))
if proto == 'tcp':
    s.listen(1)
s.settimeout(3.0)
open(ready, 'w').close()  # listening: the phone may send now
try:
    if proto == 'udp':
        s.recv(64)
    else:
        s.accept()
    print('yes')
except socket.timeout:
    print('no')
"
    rm -f "$WORK/ready"
    if [ "$where" = box ]; then
        "$PY" -c "$code" "$proto" "$address" "$port" "$to" "$WORK/ready" >"$WORK/got" &
    else
        in_ns "$where" "$PY" -c "$code" "$proto" "$address" "$port" "$to" "$WORK/ready" >"$WORK/got" &
    fi
    listener=$!
    for _ in $(seq 300); do # up to 30 s on a busy machine
        [ -e "$WORK/ready" ] && break
        sleep 0.1
    done
    in_ns "$PHONE" "$PY" -c "
import socket, sys, time
proto, address, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
family = socket.AF_INET6 if ':' in address else socket.AF_INET
if proto == 'udp':
    s = socket.socket(family, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    for _ in range(3):  # spread out: the first may wait for neighbour discovery
        s.sendto(b'hello', (address, port))
        time.sleep(0.3)
else:
    try:
        socket.create_connection((address, port), timeout=2.0).close()
    except OSError:
        pass
" "$proto" "$to" "$port"
    wait "$listener"
    cat "$WORK/got"
}
forwarded() { nft list chain inet companion forward | sed -n 's/.*counter packets \([0-9]*\).*/\1/p'; }

# every address usable (none tentative) before anything is sent
for _ in $(seq 100); do
    [ -z "$(ip -6 addr show tentative; in_ns "$PHONE" ip -6 addr show tentative; in_ns "$VENUE" ip -6 addr show tentative)" ] && break
    sleep 0.1
done
echo "routes-without-table $(reach udp "$VENUE" 192.0.2.50 5000)"
echo "routes-v6-without-table $(reach udp "$VENUE" 2001:db8::50 5000)"
nft -f "$RULES"
nft -f "$RULES" # loading it again replaces it (one table, one chain)
echo "tables $(nft list tables | tr '\n' ' ')"
echo "routes-udp $(reach udp "$VENUE" 192.0.2.50 5000)"
echo "routes-tcp $(reach tcp "$VENUE" 192.0.2.50 5001)"
echo "routes-v6 $(reach udp "$VENUE" 2001:db8::50 5000)"
echo "dropped $(forwarded)"
echo "box-dns $(reach udp box 10.42.0.1 53)"
echo "box-dhcp $(reach udp box 0.0.0.0 67 255.255.255.255)"
echo "box-mdns $(reach udp box 0.0.0.0 5353 224.0.0.251)"
echo "box-dashboard $(reach tcp box 10.42.0.1 8080)"
echo "box-dashboard-80 $(reach tcp box 10.42.0.1 80)"

# the dispatcher: another connection, another action, then the box's network coming up
CONNECTION_ID=pi-check-venue "$DISPATCHER" venue0 up >/dev/null
echo "forward-after-other $(cat /proc/sys/net/ipv4/ip_forward)"
CONNECTION_ID=companion-hotspot "$DISPATCHER" hotspot0 pre-up >/dev/null
echo "forward-after-pre-up $(cat /proc/sys/net/ipv4/ip_forward)"
CONNECTION_ID=companion-hotspot "$DISPATCHER" hotspot0 up >"$WORK/said"
echo "forward-after-up $(cat /proc/sys/net/ipv4/ip_forward)"
echo "dispatcher-said $(cat "$WORK/said")"
echo 1 >/proc/sys/net/ipv4/ip_forward
CONNECTION_ID=companion-hotspot "$DISPATCHER" hotspot0 down >/dev/null
echo "forward-after-down $(cat /proc/sys/net/ipv4/ip_forward)"
echo "box-dashboard-no-forward $(reach tcp box 10.42.0.1 8080)"
