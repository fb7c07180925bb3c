#!/usr/bin/env bash
# The VM suite's time budgets, from tests/vm/budgets (each test's measured
# time on the CI's machine kind): a test's budget is 1.5 x its measured
# time, and at least 45 s (a short test's few seconds of set-up jitter on a
# busy host are a large part of it: test_tc_options took 32 s of 30 beside a
# build, 20 s alone); the suite's is the boot's budget plus the sum of its
# tests' budgets, so no test can run the suite out of time before its own
# budget fails it by name. A test not in the table (not in make check)
# gets 600 s. LL_BUDGET_SCALE_PCT scales every budget (make check-kdebug:
# the debug kernel runs the suite several times slower).
#
#   budget.sh list                       the tests of the check suite
#   budget.sh test NAME                  NAME's budget in seconds
#   budget.sh suite [--repeat N] [NAME...]  the suite's (all tests by default)
#   budget.sh table                      measured and budget, as a table
set -euo pipefail
table=$(dirname "$0")/budgets

# measured NAME: the measured seconds of NAME ("" when not listed).
measured() {
	awk -v n="$1" '$1 == n { print $2 }' "$table"
}

budget_of() {
	local m
	m=$(measured "$1")
	if [ -z "$m" ]; then
		echo "budget.sh: $1 is not in $table: a budget of 600 s" >&2
		echo 600
		return
	fi
	local b=$(((m * 3 + 1) / 2 < 45 ? 45 : (m * 3 + 1) / 2))
	echo $((b * ${LL_BUDGET_SCALE_PCT:-100} / 100))
}

case ${1:-} in
list)
	awk '!/^#/ && NF && $1 != "boot" { print $1 }' "$table"
	;;
test)
	budget_of "$2"
	;;
suite)
	shift
	repeat=1
	if [ "${1:-}" = --repeat ]; then repeat=$2; shift 2; fi
	if [ $# -eq 0 ]; then mapfile -t names < <("$0" list); else names=("$@"); fi
	sum=0
	for n in "${names[@]}"; do sum=$((sum + $(budget_of "$n"))); done
	echo $(($(budget_of boot) + repeat * sum))
	;;
table)
	printf '%-26s %10s %10s\n' test "measured s" "budget s"
	total_m=0 total_b=0
	while read -r n; do
		m=$(measured "$n") b=$(budget_of "$n")
		total_m=$((total_m + m)) total_b=$((total_b + b))
		printf '%-26s %10s %10s\n' "$n" "$m" "$b"
	done < <(echo boot; "$0" list)
	printf '%-26s %10s %10s\n' "suite" "$total_m" "$total_b"
	;;
*)
	sed -n '2,/^set/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
	;;
esac
