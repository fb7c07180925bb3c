#!/usr/bin/env bash
# The debug kernel's verdict on a run (make check-kdebug): counts, in the
# guest's whole kernel log, the reports of each checker the kernel has
# (vm-images/kdebug.config) and fails if any is not zero. run-all.sh fails
# the test during which one appeared; this is the run's summary, boot and
# tear-down included.
#
#   scripts/kdebug-report.sh DMESG
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 DMESG" >&2; exit 2; }
log=$1
[ -s "$log" ] || { echo "kdebug-report.sh: $log is missing or empty (did the VM boot?)" >&2; exit 1; }
total=0
printf '%-34s %s\n' "kernel log: lines" "$(wc -l <"$log")"
while IFS='|' read -r what re; do
	n=$(grep -cE "$re" "$log" || true)
	total=$((total + n))
	printf '%-34s %s\n' "$what" "$n"
done <<'PATTERNS'
KASAN reports|BUG: KASAN:
KFENCE reports|BUG: KFENCE:
UBSAN reports|UBSAN:
lockdep reports|possible recursive locking|possible circular locking|inconsistent lock state|suspicious RCU usage|lock held when returning|bad unlock balance
sleeping in atomic context|sleeping function called from invalid context|scheduling while atomic
other BUG / WARNING / oops|BUG: (unable|kernel NULL|soft lockup|workqueue lockup)|WARNING: CPU:|Oops:|general protection fault|hung_task|blocked for more than
kmemleak: objects of ours|kmemleak: .*sch_lossless
PATTERNS
# Zero reports mean something only from a kernel whose checkers ran: each
# must have announced itself at boot.
missing=0
while IFS='|' read -r what re; do
	if grep -qiE "$re" "$log"; then
		printf '%-34s %s\n' "$what" yes
	else
		printf '%-34s %s\n' "$what" "NO (not the debug kernel?)"
		missing=$((missing + 1))
	fi
done <<'BANNERS'
KASAN active|KernelAddressSanitizer initialized
lockdep active|Lock dependency validator
kmemleak active|kmemleak: Kernel memory leak detector initialized
KFENCE active|kfence: initialized
BANNERS
if [ "$missing" -ne 0 ]; then
	echo "kdebug-report.sh: $missing checker(s) did not start in $log: its zero reports prove nothing" >&2
	exit 1
fi
if [ "$total" -ne 0 ]; then
	echo "kdebug-report.sh: $total report(s) in $log" >&2
	exit 1
fi
echo "kdebug-report.sh: no report in $log"
