#!/usr/bin/env bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#
# Builds the libFuzzer targets (tests/fuzz/CMakeLists.txt, clang with
# ASan + UBSan) and runs each for a number of executions, starting from its
# seed corpus. Prints, per target, the executions run and the result; exits
# 1 if any target crashed, leaked, tripped a sanitizer or a check, or ran
# fewer executions than asked. See tests/fuzz/README.md.
#
#   tests/fuzz/run-fuzz.sh [--short] [--runs N] [--no-build] [TARGET...]
#
#   --short     10^4 executions per target, a fixed seed and a fresh
#               working corpus: the pass `make check` runs
#   --runs N    N executions per target (default: 10^6 for the frame
#               parsers and the ingress program, 10^5 for config and
#               request)
#   --no-build  run what is built
#   TARGET      e.g. frame_pfc or fuzz_frame_pfc; default: every fuzz_*
#
# Environment: FUZZ_RUNS (as --runs), FUZZ_SEED (libFuzzer -seed),
# LL_BUILD_DIR (the main build, default ./build; the targets go to
# $LL_BUILD_DIR/fuzz and need its BPF skeleton: make userspace first).
#
# Outside the tree: the working corpus (new inputs found, kept between
# runs) in $LL_BUILD_DIR/fuzz/corpus/<target>, logs in .../fuzz/logs, and
# a crashing input in .../fuzz/artifacts/<target>/ (reproduce with
# $LL_BUILD_DIR/fuzz/fuzz_<target> FILE).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${LL_BUILD_DIR:-$root/build}
fbuild=$build/fuzz

short=0
do_build=1
runs=${FUZZ_RUNS:-}
targets=()
while [ $# -gt 0 ]; do
	case "$1" in
	--short) short=1 ;;
	--runs) runs=${2:?--runs needs a number}; shift ;;
	--no-build) do_build=0 ;;
	-h|--help) sed -n '3,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "run-fuzz.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	*) targets+=("${1#fuzz_}") ;;
	esac
	shift
done
if [ -n "$runs" ] && ! [[ "$runs" =~ ^[0-9]+$ && "$runs" -gt 0 ]]; then
	echo "run-fuzz.sh: the number of runs must be a positive integer, not \"$runs\"" >&2
	exit 2
fi

if [ "$do_build" = 1 ]; then
	mkdir -p "$fbuild"
	if ! { cmake -S "$here" -B "$fbuild" -DCMAKE_BUILD_TYPE= \
		-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
		-DLL_MAIN_BUILD_DIR="$build" &&
		cmake --build "$fbuild" -j "$(nproc)"; } >"$fbuild/build.log" 2>&1; then
		tail -n 40 "$fbuild/build.log" >&2
		echo "run-fuzz.sh: building the fuzz targets failed (log: $fbuild/build.log)" >&2
		exit 1
	fi
fi

if [ ${#targets[@]} -eq 0 ]; then
	for b in "$fbuild"/fuzz_*; do
		[ -x "$b" ] && [ -f "$b" ] && targets+=("$(basename "${b#"$fbuild"/fuzz_}")")
	done
fi
if [ ${#targets[@]} -eq 0 ]; then
	echo "run-fuzz.sh: no fuzz targets in $fbuild" >&2
	exit 1
fi

default_runs() {
	case "$1" in
	frame_*|bpf_ingress) echo 1000000 ;;
	*) echo 100000 ;;
	esac
}

max_len() {
	case "$1" in
	frame_*) echo 128 ;;
	bpf_ingress) echo 1602 ;;
	request) echo 1024 ;;
	*) echo 4096 ;;
	esac
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

mkdir -p "$fbuild/logs"
failed=0
summary=()
for t in "${targets[@]}"; do
	bin=$fbuild/fuzz_$t
	if [ ! -x "$bin" ]; then
		echo "fuzz_$t: no such target in $fbuild" >&2
		failed=1
		summary+=("$(printf '%-22s %12s %8s  %s' "fuzz_$t" - - "FAILED: not built")")
		continue
	fi
	n=${runs:-$(default_runs "$t")}
	[ "$short" = 1 ] && [ -z "$runs" ] && n=10000
	seeds=$here/corpus/$t
	if [ "$short" = 1 ]; then
		work=$(mktemp -d "${TMPDIR:-/tmp}/ll-fuzz-$t.XXXXXX")
	else
		work=$fbuild/corpus/$t
		mkdir -p "$work"
	fi
	art=$fbuild/artifacts/$t
	mkdir -p "$art"
	args=(-runs="$n" -max_len="$(max_len "$t")" -timeout=25 -rss_limit_mb=2048
		-error_exitcode=77 -timeout_exitcode=70 -print_final_stats=1
		-artifact_prefix="$art/")
	for d in "$here/dict/$t.dict" "$here/dict/${t%%_*}.dict"; do
		if [ -f "$d" ]; then args+=(-dict="$d"); break; fi
	done
	if [ -n "${FUZZ_SEED:-}" ]; then
		args+=(-seed="$FUZZ_SEED")
	elif [ "$short" = 1 ]; then
		args+=(-seed=1)
	fi
	dirs=("$work")
	[ -d "$seeds" ] && dirs+=("$seeds")
	log=$fbuild/logs/$t.log

	start=$(date +%s.%N)
	set +e
	"$bin" "${args[@]}" "${dirs[@]}" >"$log" 2>&1
	rc=$?
	set -e
	secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	[ "$short" = 1 ] && rm -rf "$work"

	done_runs=$(sed -n 's/^Done \([0-9]*\) runs in .*/\1/p' "$log" | tail -n 1)
	if [ "$rc" = 3 ] && grep -q "skipped" "$log"; then
		result="skipped: $(grep -m1 skipped "$log" | sed 's/^[^:]*: skipped: //')"
		done_runs=0
	elif [ "$rc" = 0 ] && [ -n "$done_runs" ] && [ "$done_runs" -ge "$n" ]; then
		result=ok
	else
		failed=1
		if [ "$rc" = 0 ]; then
			result="FAILED: ${done_runs:-0} of $n executions"
		else
			what=$(grep -m1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|check failed' "$log" || true)
			result="FAILED (exit $rc): ${what:-see the log}"
		fi
		{
			echo "---- fuzz_$t: last lines of $log"
			tail -n 30 "$log"
			echo "---- crashing input(s): $(ls -1 "$art" 2>/dev/null | sed "s|^|$art/|" | tr '\n' ' ')"
			echo "---- reproduce: $bin <input>"
		}
	fi
	line=$(printf '%-22s %12s %8s  %s' "fuzz_$t" "${done_runs:-0}" "${secs}s" "$result")
	echo "$line"
	summary+=("$line")
done

echo
printf '%-22s %12s %8s  %s\n' target executions time result
printf '%s\n' "${summary[@]}"
exit "$failed"
