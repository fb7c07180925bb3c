#!/usr/bin/env bash
# Runs the VM test suite inside the guest (started by vm-images/run-vm):
# loads the freshly built module, runs the tests of the check suite (or the
# ones named on the command line), unloads the module, prints a summary.
#
# Every test runs under its own budget from tests/vm/budgets (1.5 x its
# measured time): one over it is killed and fails by name, long before
# run-vm's timeout for the suite (tests/vm/budget.sh suite) kills the VM.
# After each test: its time, its budget and what is left of the suite's.
#
#   run-all.sh [--repeat N] [--log DIR] [TEST...]
#     --repeat N  run the tests N times in this boot (make check-repeat);
#                 tests/vm/repeat-summary.py reads the logs
#     --log DIR   keep each run's output as DIR/TEST.RUN.log
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
export LL_BUILD_DIR=${LL_BUILD_DIR:-$top/build}
export TC_LIB_DIR=$LL_BUILD_DIR/tc-plugins
export PATH=$LL_BUILD_DIR/daemon:$LL_BUILD_DIR/tests/tools:$PATH

repeat=1 logdir=
while [ $# -gt 0 ]; do
	case $1 in
	--repeat) repeat=$2; shift 2 ;;
	--log) logdir=$2; shift 2 ;;
	--) shift; break ;;
	-*) echo "run-all.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[[ $repeat =~ ^[1-9][0-9]*$ ]] || { echo "run-all.sh: --repeat wants a count >= 1, got '$repeat'" >&2; exit 2; }

if [ "$(uname -r)" = "$(cat /proc/sys/kernel/osrelease 2>/dev/null)" ] && [ ! -e /proc/modules ]; then
	echo "run-all.sh: this kernel has no module support; run me through vm-images/run-vm" >&2
	exit 2
fi
for m in veth bridge sch_ingress cls_bpf sch_tbf sch_netem cls_matchall act_mirred sch_fq; do modprobe "$m" || { echo "run-all.sh: modprobe $m failed" >&2; exit 2; }; done
# LL_MODULE_KO: another build of the module (make check-kdebug's)
module_ko=${LL_MODULE_KO:-$top/kernel/sch_lossless.ko}
insmod "$module_ko" || { echo "run-all.sh: insmod $module_ko failed" >&2; exit 2; }

if [ $# -gt 0 ]; then names=("$@"); else mapfile -t names < <("$here/budget.sh" list); fi
tests=()
for t in "${names[@]}"; do
	[ -f "$t" ] || t=$here/$t
	[ -f "$t" ] || { echo "run-all.sh: no test $t" >&2; exit 2; }
	tests+=("$t")
done
# The suite's budget as run-vm's --timeout has it (LL_SUITE_BUDGET_S, set
# by the Makefile), else the sum of these tests' budgets; time counts from
# the guest's boot.
suite_budget=${LL_SUITE_BUDGET_S:-$("$here/budget.sh" suite --repeat "$repeat" "${tests[@]##*/}")}
boot_s=$(cut -d. -f1 /proc/uptime)
echo "run-all.sh: ${#tests[@]} test(s) x $repeat, suite budget $suite_budget s, booted in $boot_s s"

# A test fails if the kernel logged, during it, a report (an oops, a
# WARN, a lockdep or sanitizer splat) or our headroom warning: a port's
# headroom past 90 % means the premise it was sized on nearly failed, and
# only test_headroom_premise.py provokes that on purpose.
kmsg_check() {
	local log bad
	# From the last marker of this test (a suite run twice in one boot has
	# two); no marker means the log cannot be checked, which fails too.
	if ! log=$(dmesg | awk -v m="run-all.sh: start $1" \
		'index($0, m) { b = ""; f = 1; next } f { b = b $0 "\n" } END { printf "%s", b; exit !f }'); then
		echo "=== $1: its start is not in the kernel log (dmesg), which cannot be checked"
		return 1
	fi
	bad=$(grep -E 'BUG:|WARNING:|Oops|Call Trace|UBSAN|KASAN|KFENCE|possible recursive locking|circular locking|sleeping function called' <<<"$log")
	if [ "$2" != test_headroom_premise.py ]; then
		bad+=$'\n'$(grep 'raise sw-delay' <<<"$log")
	fi
	[ -z "${bad//$'\n'/}" ] && return 0
	echo "=== $1: the kernel logged during it:"
	grep -v '^$' <<<"$bad" | head -n 20
	return 1
}

pass=0 fail=0 failed=()
for run in $(seq 1 "$repeat"); do
	for t in "${tests[@]}"; do
		name=$(basename "$t")
		budget=${LL_TEST_TIMEOUT:-$("$here/budget.sh" test "$name")}
		label=$name
		[ "$repeat" -gt 1 ] && label="$name (run $run of $repeat)"
		echo "=== $label"
		# The kernel log from here on is this test's (kmsg_check).
		echo "run-all.sh: start $label" > /dev/kmsg || echo "run-all.sh: cannot write /dev/kmsg" >&2
		start=$(date +%s)
		if [ -n "$logdir" ]; then
			timeout -k 10 "$budget" "$t" 2>&1 | tee "$logdir/$name.$run.log"
			rc=${PIPESTATUS[0]}
		else
			timeout -k 10 "$budget" "$t"
			rc=$?
		fi
		took=$(($(date +%s) - start))
		if [ "$rc" -eq 0 ] && ! kmsg_check "$label" "$name"; then
			rc=1
		fi
		used=$(cut -d. -f1 /proc/uptime)
		if [ "$rc" -eq 0 ]; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1)); failed+=("$label")
			[ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && echo "=== $label FAILED: over its budget of $budget s, killed"
		fi
		echo "=== $label took $took s of its $budget s; suite: $used s of $suite_budget s used, $((suite_budget - used)) s left"
	done
done

# LL_KMEMLEAK=1 (make check-kdebug, a kernel with kmemleak): scan while
# the module is still loaded, so its frames name it, and fail on any
# unreferenced object allocated through it.
if [ "${LL_KMEMLEAK:-0}" = 1 ]; then
	kml=/sys/kernel/debug/kmemleak
	if [ -w "$kml" ]; then
		# Two scans: an object is reported once it stayed unreferenced
		# through a full scan; the second catches the first's candidates.
		echo scan > "$kml"; sleep 5; echo scan > "$kml"
		leaks=$(cat "$kml")
		n_all=$(grep -c '^unreferenced object' <<<"$leaks" || true)
		ours=$(awk '/^unreferenced object/ { if (o) n++; o = 0 } /\[sch_lossless\]/ { o = 1 } END { if (o) n++; print n + 0 }' <<<"$leaks")
		echo "run-all.sh: kmemleak: $n_all unreferenced object(s), $ours allocated through sch_lossless"
		if [ "$ours" -gt 0 ]; then
			grep -B 12 -A 2 '\[sch_lossless\]' <<<"$leaks" | head -n 80
			fail=$((fail + 1)); failed+=("kmemleak")
		fi
	else
		echo "run-all.sh: LL_KMEMLEAK=1 but $kml is not there (a kernel without CONFIG_DEBUG_KMEMLEAK?)" >&2
		fail=$((fail + 1)); failed+=("kmemleak")
	fi
fi

if ! rmmod sch_lossless; then
	echo "run-all.sh: rmmod sch_lossless failed (a qdisc left behind?)" >&2
	fail=$((fail + 1)); failed+=("rmmod")
fi
echo "VM tests: $pass passed, $fail failed ${failed[*]:+(${failed[*]})}"
[ "$fail" -eq 0 ]
