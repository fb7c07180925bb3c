#!/usr/bin/env bash
# Self-test of vm-images/run-vm: boots the guest a few times and checks what
# the project's VM tests rely on (kernel version, bpffs, modprobe, netns +
# veth, netem, a writable root, result files, exit status, timeout, panic).
# Prints one "ok"/"not ok" line per check; exits non-zero if any failed.
# Takes about a minute on 2 cores (the timeout check alone waits 20 s).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
run_vm=$here/run-vm
n=0
failed=0

check() { # check DESCRIPTION COMMAND... : one numbered TAP line
	local desc=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		failed=$((failed + 1))
	fi
}

out=$(mktemp -d "${TMPDIR:-/tmp}/ll-vm-selftest.XXXXXX")
trap 'rm -rf -- "$out"' EXIT

# 1. Boot time: the command must start well within 15 s of invocation.
start=$(date +%s%N)
"$run_vm" -- true
boot_ms=$((($(date +%s%N) - start) / 1000000))
echo "# run-vm -- true took $((boot_ms / 1000)).$(printf '%03d' $((boot_ms % 1000))) s"
check "run-vm -- true finishes within 15 s" test "$boot_ms" -lt 15000

# 2. One guest run for everything checked from inside; it writes one line per
# check into $LL_VM_OUT, which is the host's $out.
kver=$(find /boot -maxdepth 1 -name 'vmlinuz-*' -printf '%f\n' | sed 's/^vmlinuz-//' | sort -V | tail -n 1)
bridge_ko=$(modinfo -k "$kver" -n bridge 2>/dev/null || echo "/lib/modules/$kver/kernel/net/bridge/bridge.ko")
guest_rc=0
# shellcheck disable=SC2016  # expanded in the guest
LL_SELFTEST=passed-through LL_SELFTEST_CWD=$PWD "$run_vm" --out "$out" --module "$bridge_ko" -- bash -c '
	r=$LL_VM_OUT/guest
	t() { local d=$1; shift; if "$@" >>"$LL_VM_OUT/log" 2>&1; then echo "ok $d"; else echo "FAIL $d"; fi >>"$r"; }
	t "guest runs kernel 6.1 ($(uname -r))" sh -c "uname -r | grep -q ^6\\.1\\."
	t "/sys/fs/bpf is a bpffs" sh -c "grep -q \" /sys/fs/bpf bpf \" /proc/mounts"
	t "cwd is the host cwd" test "$PWD" = "$LL_SELFTEST_CWD"
	t "LL_* variables pass through" test "$LL_SELFTEST" = passed-through
	t "--module loaded bridge.ko and its deps (stp, llc)" sh -c "grep -q ^bridge /proc/modules && grep -q ^stp /proc/modules"
	for m in veth sch_netem cls_bpf sch_ingress; do t "modprobe $m" modprobe $m; done
	t "netns + veth pair" sh -c "ip netns add st && ip link add st0 type veth peer name st1 netns st &&
		ip link set st0 up && ip -n st link set st1 up && ip -n st link show st1 >/dev/null"
	t "tc netem delay 1ms" sh -c "tc qdisc add dev st0 root netem delay 1ms && tc qdisc show dev st0 | grep -q netem"
	t "clsact qdisc" sh -c "tc qdisc add dev st0 clsact && tc qdisc show dev st0 | grep -q clsact"
	t "the root is writable (overlay)" sh -c "echo x >/ll-selftest && echo y >/usr/ll-selftest && grep -q x /ll-selftest"
	t "/tmp and /run are writable" sh -c "touch /tmp/ll-selftest /run/ll-selftest"
	t "bpftool works" sh -c "bpftool prog list >/dev/null"
' || guest_rc=$?
check "guest checks ran (exit 0)" test "$guest_rc" -eq 0
if [ -f "$out/guest" ]; then
	while read -r verdict desc; do
		check "guest: $desc" test "$verdict" = ok
	done <"$out/guest"
else
	check "guest wrote its results to LL_VM_OUT" false
fi
check "host sees no guest writes to / (read-only share)" test ! -e /ll-selftest

# 3. Host-side behaviour.
rc=0
"$run_vm" -- sh -c 'exit 7' || rc=$?
check "exit status propagates (exit 7 -> $rc)" test "$rc" -eq 7

streams=$("$run_vm" -- sh -c 'echo to-stdout; echo to-stderr >&2' 2>/dev/null)
check "guest stdout -> stdout, stderr kept apart" test "$streams" = to-stdout

rc=0
start=$(date +%s)
"$run_vm" --timeout 20 -- sleep 1000 2>/dev/null || rc=$?
took=$(($(date +%s) - start))
check "timeout: --timeout 20 -- sleep 1000 returns 124 (got $rc after $took s)" \
	test "$rc" -eq 124 -a "$took" -le 25

rc=0
"$run_vm" -- sh -c 'echo c >/proc/sysrq-trigger' >/dev/null 2>&1 || rc=$?
check "kernel panic ends the run with 125 (got $rc)" test "$rc" -eq 125

# 4. An out-of-tree module that WARNs on load: --module loads it, run-vm
# reports the taint, --fail-on-warn turns it into 125.  Needs the headers
# and a compiler (scripts/setup.sh installs both).
kdir=/usr/src/linux-headers-$kver
if [ -d "$kdir" ] && command -v make >/dev/null && command -v gcc >/dev/null; then
	mkdir -p "$out/warnmod"
	cat >"$out/warnmod/warnmod.c" <<'EOF_C'
#include <linux/module.h>
static int __init warnmod_init(void) { WARN(1, "run-vm selftest warning"); return 0; }
static void __exit warnmod_exit(void) {}
module_init(warnmod_init);
module_exit(warnmod_exit);
MODULE_LICENSE("GPL");
EOF_C
	echo 'obj-m := warnmod.o' >"$out/warnmod/Kbuild"
	if make -s -C "$kdir" M="$out/warnmod" modules >"$out/warnmod/build.log" 2>&1; then
		rc=0
		msg=$("$run_vm" --module "$out/warnmod/warnmod.ko" -- true 2>&1) || rc=$?
		check "out-of-tree --module loads; a WARN is reported (rc $rc)" \
			grep -q "selftest warning" <<<"$msg"
		rc=0
		"$run_vm" --fail-on-warn --module "$out/warnmod/warnmod.ko" -- true >/dev/null 2>&1 || rc=$?
		check "--fail-on-warn turns the WARN into 125 (got $rc)" test "$rc" -eq 125
	else
		check "build the WARN test module (see $out/warnmod/build.log)" false
	fi
else
	echo "ok $((n += 1)) - out-of-tree module checks # SKIP no $kdir or no compiler"
fi

echo "1..$n"
if [ "$failed" -ne 0 ]; then
	echo "# $failed of $n checks failed; guest log: see $out/log (kept)" >&2
	trap - EXIT
	exit 1
fi
echo "# all $n checks passed"
