#!/bin/sh
# Runs inside the guest, chrooted into the overlay of the host root, started
# by the initramfs /init with a clean environment (HOME, TERM, USER, LOGNAME).
# It loads the --module files, enters the host's cwd and becomes COMMAND.
# Exit status: COMMAND's, or 125 when the harness could not start it.
#
# POSIX sh on purpose: it runs under the host's /bin/sh (dash on Debian).
# run-vm copies it into the per-run control dir, mounted at /run/ll-vm.

ctl=/run/ll-vm

fail() {
	echo "run-vm: $*" >&2
	echo "$*" >"$ctl/error"
	exit 125
}

# job.sh is written by run-vm: the exported environment (PATH, LL_*), the
# LL_VM_* job variables and, last, `set -- COMMAND ARGS...`.
# shellcheck disable=SC1091
. "$ctl/job.sh" || fail "cannot read $ctl/job.sh"

# Some paths exist only on the host's side of a guest mount (/run is a fresh
# tmpfs here); the raw host root is always visible under /run/ll-host.
host_path() {
	if [ -e "$1" ]; then echo "$1"; else echo "/run/ll-host$1"; fi
}

i=0
while [ "$i" -lt "${LL_VM_NMOD:-0}" ]; do
	eval "ko=\$LL_VM_MOD_$i"
	ko=$(host_path "$ko")
	# A module's own depends= lists the in-tree modules it needs (say
	# cls_bpf); insmod does not resolve them, so modprobe them first.
	deps=$(modinfo -F depends "$ko" 2>&1) || fail "modinfo $ko failed: $deps"
	for dep in $(echo "$deps" | tr ',' ' '); do
		modprobe "$dep" || fail "modprobe $dep (needed by $ko) failed"
	done
	if ! msg=$(insmod "$ko" 2>&1); then
		echo "run-vm: last kernel messages:" >&2
		dmesg | tail -n 5 >&2
		fail "insmod $ko failed: $msg"
	fi
	i=$((i + 1))
done

if [ -n "${LL_VM_ROWS:-}" ] && [ -n "${LL_VM_COLS:-}" ]; then
	# A serial line has no window size; take the host terminal's.
	stty rows "$LL_VM_ROWS" cols "$LL_VM_COLS" 2>/dev/null
fi
unset LL_VM_NMOD LL_VM_ROWS LL_VM_COLS i ko deps dep msg

cd "$LL_VM_CWD" 2>/dev/null || cd "/run/ll-host$LL_VM_CWD" 2>/dev/null ||
	fail "cannot enter the host's working directory $LL_VM_CWD in the guest"
exec "$@"
