#!/usr/bin/env bash
# The DKMS-built module in the VM (issue 29, "the module where the admin
# is"): make dkms-check (scripts/dkms.sh check) built sch_lossless.ko with
# dkms against the VM kernel's headers and installed it into a tree under
# build/dkms; here that .ko replaces the suite's module, must be the one
# loaded, and must work: a lossless qdisc on a veth carries a ping and
# counts it, is removed, and the module unloads. The suite's module is
# loaded again at the end (run-all.sh unloads it after the suite).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
ko=${LL_BUILD_DIR:-$top/build}/dkms/sch_lossless.ko
suite_ko=$top/kernel/sch_lossless.ko
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }

cleanup() {
	ip netns del lldkms 2>/dev/null
	ip link del lldk0 2>/dev/null
	if ! [ -d /sys/module/sch_lossless ]; then
		insmod "$suite_ko" || echo "FAIL: could not load the suite's module again" >&2
	fi
}
trap cleanup EXIT

[ -f "$ko" ] || { echo "FAIL: $ko missing: run make dkms-check (make check-vm builds it for this test)"; exit 1; }
vermagic=$(modinfo -F vermagic "$ko")
case $vermagic in
"$(uname -r) "*) ok "the DKMS module is built for the VM's kernel ($(uname -r))" ;;
*) bad "$ko: vermagic '$vermagic', the VM runs $(uname -r)" ;;
esac

# The suite's module out (no qdisc of it may be left by earlier tests).
if [ -d /sys/module/sch_lossless ]; then
	rmmod sch_lossless || { echo "FAIL: rmmod of the suite's sch_lossless failed (a qdisc left behind?)"; exit 1; }
fi
[ -d /sys/module/sch_lossless ] && { echo "FAIL: sch_lossless still loaded"; exit 1; }
start=$(date +%s%N)
if insmod "$ko"; then
	ok "insmod of the DKMS-built module ($(( ($(date +%s%N) - start) / 1000000 )) ms)"
else
	echo "FAIL: insmod $ko"
	exit 1
fi
# dkms signed it with its key (build/dkms/mok.key): the .ko is dkms's own
# build, not a copy of kernel/sch_lossless.ko (which make module leaves
# unsigned).
signer=$(modinfo -F signer "$ko")
[ "$signer" = "DKMS module signing key" ] && ok "the .ko is dkms's build (signer: $signer)" ||
	bad "$ko: signer '$signer', not dkms's key"
[ -d /sys/module/sch_lossless ] && ok "sch_lossless loaded" || bad "no /sys/module/sch_lossless after insmod"

ip netns add lldkms
ip link add lldk0 type veth peer name lldk1
ip link set lldk1 netns lldkms
ip addr add 10.231.0.1/24 dev lldk0
ip -n lldkms addr add 10.231.0.2/24 dev lldk1
ip link set lldk0 up
ip -n lldkms link set lldk1 up
ip -n lldkms link set lo up
if tc qdisc add dev lldk0 root lossless rate 100mbit; then
	ok "tc qdisc add dev lldk0 root lossless"
else
	bad "tc qdisc add dev lldk0 root lossless refused"
fi
# Text, not JSON: a python3 start costs ~6 s under TCG.
kind=$(tc qdisc show dev lldk0 | awk 'NR == 1 { print $2 }')
[ "$kind" = lossless ] && ok "tc shows the lossless qdisc" || bad "tc shows '$kind' on lldk0"
qpkts() { tc -s qdisc show dev lldk0 | awk '/ Sent / { print $4; exit }'; }
rx() { ip netns exec lldkms cat /sys/class/net/lldk1/statistics/rx_packets; }
q0=$(qpkts) r0=$(rx)
# 20 UDP datagrams (bash's /dev/udp; the machines have no ping) through
# the qdisc to the peer in its namespace.
for _ in $(seq 20); do echo lossless >/dev/udp/10.231.0.2/9; done
sleep 0.5
q1=$(qpkts) r1=$(rx)
[ $((r1 - r0)) -ge 20 ] && ok "20 datagrams reached the peer ($r0 -> $r1 packets received)" ||
	bad "the peer received $r0 -> $r1 packets, want 20 more"
[ $((q1 - q0)) -ge 20 ] && ok "the qdisc sent them: $q0 -> $q1 packets" ||
	bad "the qdisc counted $q0 -> $q1 packets, want 20 more"
tc qdisc del dev lldk0 root || bad "tc qdisc del"
ip link del lldk0
ip netns del lldkms
if rmmod sch_lossless; then
	ok "rmmod of the DKMS-built module"
else
	bad "rmmod of the DKMS-built module failed"
fi
[ "$fail" -eq 0 ] && echo "test_dkms: all checks passed" || echo "test_dkms: FAILED"
exit "$fail"
