#!/usr/bin/env bash
# Which kernel `make module` builds for (kernel/Makefile), on a fake /boot,
# /lib/modules and /usr/src: the running kernel when its headers are
# installed, else the newest /boot/vmlinuz-* that has headers (said so);
# KVER and KDIR override; no headers at all is an error naming the package.
# Then on this machine: what it picks has headers (the fallback is what CI
# and the build machines use: their running kernel has none).
#
#   tests/install/test_kver.sh SOURCE_DIR
set -uo pipefail
src=${1:?usage: $0 SOURCE_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # NAME WANT GOT
	if [ "$2" = "$3" ]; then echo "ok: $1: $3"; else echo "FAIL: $1: got '$3', want '$2'"; fail=1; fi
}
contains() { # NAME TEXT WORDS
	case $2 in *"$3"*) echo "ok: $1" ;; *) echo "FAIL: $1: '$2' lacks '$3'"; fail=1 ;; esac
}
mk() { make -s --no-print-directory -C "$src/kernel" BOOT_DIR="$tmp/boot" \
	MODULES_DIR="$tmp/lib/modules" HEADERS_DIR="$tmp/usr/src" "$@" 2>&1; }

mkdir -p "$tmp/boot" "$tmp/lib/modules" "$tmp/usr/src"
for v in 5.10.0-1-amd64 6.1.0-9-amd64 6.1.0-10-amd64 6.2.0-1-amd64; do touch "$tmp/boot/vmlinuz-$v"; done
# Headers: 5.10 and 6.1.0-9 as Debian installs them (/usr/src, linked
# from /lib/modules/V/build), 6.1.0-10 in /usr/src only; 6.2 none.
for v in 5.10.0-1-amd64 6.1.0-9-amd64 6.1.0-10-amd64; do
	mkdir -p "$tmp/usr/src/linux-headers-$v" && touch "$tmp/usr/src/linux-headers-$v/Makefile"
done
for v in 5.10.0-1-amd64 6.1.0-9-amd64; do
	mkdir -p "$tmp/lib/modules/$v" && ln -s "$tmp/usr/src/linux-headers-$v" "$tmp/lib/modules/$v/build"
done

check "running kernel with headers (not the newest)" 5.10.0-1-amd64 "$(mk kver RUNNING_KVER=5.10.0-1-amd64)"
check "running kernel without headers: newest /boot with headers (sort -V: 6.1.0-10 > 6.1.0-9, 6.2 has none)" \
	6.1.0-10-amd64 "$(mk kver RUNNING_KVER=6.18.0-host)"
contains "the build says why it picked the fallback" \
	"$(mk -n modules RUNNING_KVER=6.18.0-host)" \
	"building sch_lossless.ko for 6.1.0-10-amd64 (the running kernel 6.18.0-host has no headers: the newest /boot/vmlinuz-* with headers), headers $tmp/usr/src/linux-headers-6.1.0-10-amd64"
contains "and that it picked the running kernel" \
	"$(mk -n modules RUNNING_KVER=6.1.0-9-amd64)" \
	"building sch_lossless.ko for 6.1.0-9-amd64 (the running kernel), headers $tmp/lib/modules/6.1.0-9-amd64/build"
check "KVER overrides" 6.1.0-9-amd64 "$(mk kver RUNNING_KVER=5.10.0-1-amd64 KVER=6.1.0-9-amd64)"
contains "KDIR overrides" "$(mk -n modules RUNNING_KVER=5.10.0-1-amd64 KDIR=/some/tree)" \
	"make -C /some/tree M=$src/kernel modules"
out=$(mk modules RUNNING_KVER=5.10.0-1-amd64 KVER=6.2.0-1-amd64); rc=$?
[ "$rc" -ne 0 ] && contains "KVER without headers fails, naming the package" "$out" "install linux-headers-6.2.0-1-amd64" ||
	{ echo "FAIL: KVER without headers: exit $rc: $out"; fail=1; }
rm -rf "$tmp/usr/src"/* "$tmp/lib/modules"/*
out=$(mk modules RUNNING_KVER=6.18.0-host); rc=$?
[ "$rc" -ne 0 ] && contains "no headers anywhere fails" "$out" "no kernel headers for the running kernel 6.18.0-host nor any /boot/vmlinuz-*" ||
	{ echo "FAIL: no headers anywhere: exit $rc: $out"; fail=1; }

# This machine.
real=$(make -s --no-print-directory -C "$src/kernel" kver)
if [ -n "$real" ] && { [ -f "/lib/modules/$real/build/Makefile" ] || [ -f "/usr/src/linux-headers-$real/Makefile" ]; }; then
	echo "ok: here make module builds for $real ($( [ "$real" = "$(uname -r)" ] && echo the running kernel || echo "the fallback: $(uname -r) has no headers"))"
else
	echo "FAIL: here make module picks '$real', which has no headers"; fail=1
fi
exit "$fail"
