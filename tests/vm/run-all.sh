#!/usr/bin/env bash
# Runs the VM test suite inside the guest (started by vm-images/run-vm):
# loads the freshly built module, runs every tests/vm/test_* (or the ones
# named on the command line), unloads the module, prints a summary.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
export LL_BUILD_DIR=${LL_BUILD_DIR:-$top/build}
export TC_LIB_DIR=$LL_BUILD_DIR/tc-plugins
export PATH=$LL_BUILD_DIR/daemon:$LL_BUILD_DIR/tests/tools:$PATH

if [ "$(uname -r)" = "$(cat /proc/sys/kernel/osrelease 2>/dev/null)" ] && [ ! -e /proc/modules ]; then
	echo "run-all.sh: this kernel has no module support; run me through vm-images/run-vm" >&2
	exit 2
fi
for m in veth bridge sch_ingress cls_bpf sch_tbf sch_netem cls_matchall act_mirred; do modprobe "$m" || { echo "run-all.sh: modprobe $m failed" >&2; exit 2; }; done
insmod "$top/kernel/sch_lossless.ko" || { echo "run-all.sh: insmod sch_lossless.ko failed" >&2; exit 2; }

if [ $# -gt 0 ]; then tests=("$@"); else tests=("$here"/test_*); fi
pass=0 fail=0 failed=()
for t in "${tests[@]}"; do
	[ -f "$t" ] || t=$here/$t
	name=$(basename "$t")
	echo "=== $name"
	start=$(date +%s)
	if timeout "${LL_TEST_TIMEOUT:-600}" "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); failed+=("$name"); fi
	echo "=== $name took $(( $(date +%s) - start )) s"
done

if ! rmmod sch_lossless; then
	echo "run-all.sh: rmmod sch_lossless failed (a qdisc left behind?)" >&2
	fail=$((fail + 1)); failed+=("rmmod")
fi
echo "VM tests: $pass passed, $fail failed ${failed[*]:+(${failed[*]})}"
[ "$fail" -eq 0 ]
