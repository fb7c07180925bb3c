#!/usr/bin/env bash
# The module as a DKMS package (Debian's dkms; kernel/dkms.conf.in).
#
#   scripts/dkms.sh install KVER      make dkms-install: the sources to
#                                     /usr/src/lossless-VERSION, then dkms
#                                     add, build and install for KVER
#   scripts/dkms.sh uninstall         make dkms-uninstall: dkms remove
#                                     --all, then the sources
#   scripts/dkms.sh check DIR KVER    make check's DKMS build (make
#                                     dkms-check): the same steps with
#                                     dkms's trees under DIR (--sourcetree,
#                                     --dkmstree, --installtree) and the
#                                     signing key there too; fails if
#                                     /usr/src, /lib/modules or
#                                     /var/lib/dkms changed. Prints the
#                                     build's time. tests/vm/test_dkms.sh
#                                     loads DIR/sch_lossless.ko in the VM.
#
# VERSION is the project's (CMakeLists.txt); JOBS the make jobs (default:
# dkms's, one per CPU).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^project(lossless VERSION \([0-9.]*\).*/\1/p' "$top/CMakeLists.txt")
[ -n "$version" ] || { echo "dkms.sh: no version in $top/CMakeLists.txt" >&2; exit 2; }
name=lossless
jobs=(${JOBS:+-j "$JOBS"})

die() { echo "dkms.sh: $*" >&2; exit 1; }
need_dkms() {
	command -v dkms >/dev/null || die "dkms not found: apt-get install dkms (scripts/setup.sh)"
}

# The package's source tree in $1: the module's sources
# (scripts/stage-module.sh) and dkms.conf.
stage() {
	"$top/scripts/stage-module.sh" "$1"
	sed "s/@VERSION@/$version/" "$top/kernel/dkms.conf.in" >"$1/dkms.conf"
	chmod go+r,go-w "$1/dkms.conf"
}

cmd=${1:-}
case $cmd in
install)
	[ $# -eq 2 ] && [ -n "$2" ] || die "usage: $0 install KVER"
	kver=$2
	need_dkms
	[ "$(id -u)" -eq 0 ] || die "make dkms-install: must run as root"
	src=/usr/src/$name-$version
	if dkms status -m "$name" -v "$version" | grep -q .; then
		echo "dkms.sh: $name/$version already added: replacing it"
		dkms remove -m "$name" -v "$version" --all
	fi
	stage "$src"
	echo "dkms.sh: sources in $src"
	dkms add -m "$name" -v "$version"
	dkms build -m "$name" -v "$version" -k "$kver" "${jobs[@]}"
	dkms install -m "$name" -v "$version" -k "$kver"
	dkms status -m "$name" -v "$version"
	;;
uninstall)
	need_dkms
	[ "$(id -u)" -eq 0 ] || die "make dkms-uninstall: must run as root"
	if dkms status -m "$name" -v "$version" | grep -q .; then
		dkms remove -m "$name" -v "$version" --all
	else
		echo "dkms.sh: $name/$version is not in dkms"
	fi
	rm -rf "/usr/src/$name-$version"
	;;
check)
	[ $# -eq 3 ] || die "usage: $0 check DIR KVER"
	dir=$2 kver=$3
	need_dkms
	case $dir in /*) ;; *) dir=$PWD/$dir ;; esac
	kdir=/usr/src/linux-headers-$kver
	[ -f "$kdir/Makefile" ] || kdir=/lib/modules/$kver/build
	[ -f "$kdir/Makefile" ] || die "no headers for $kver (linux-headers-$kver)"
	# What the host has before: nothing of it may change.
	snapshot() {
		find /usr/src /lib/modules /var/lib/dkms -maxdepth 4 \
			-printf '%p %y %s %T@\n' 2>/dev/null | sort
	}
	before=$(snapshot)
	rm -rf "$dir"
	mkdir -p "$dir/src" "$dir/tree" "$dir/lib/modules/$kver"
	stage "$dir/src/$name-$version"
	trees=(--sourcetree "$dir/src" --dkmstree "$dir/tree" --installtree "$dir/lib/modules"
	       --kernelsourcedir "$kdir")
	# dkms signs with a MOK key it creates in /var/lib/dkms unless told
	# otherwise (framework.conf's variables, read from the environment).
	export mok_signing_key=$dir/mok.key mok_certificate=$dir/mok.pub
	dkms add -m "$name" -v "$version" "${trees[@]}"
	t0=$(date +%s.%N)
	dkms build -m "$name" -v "$version" -k "$kver" "${trees[@]}" "${jobs[@]}"
	t1=$(date +%s.%N)
	built=$dir/tree/$name/$version/$kver/$(uname -m)/module/sch_lossless.ko
	[ -f "$built" ] || die "dkms build made no $built"
	if [ "$(id -u)" -eq 0 ]; then
		dkms install -m "$name" -v "$version" -k "$kver" "${trees[@]}" --no-depmod
		ko=$(find "$dir/lib/modules/$kver" -name 'sch_lossless.ko*' | head -n 1)
		[ -n "$ko" ] || die "dkms install put no sch_lossless.ko under $dir/lib/modules/$kver"
		how="installed by dkms install into ${ko#"$dir"/}"
	else
		ko=$built
		how="built (dkms install needs root: not run)"
	fi
	cp "$ko" "$dir/sch_lossless.ko"
	dkms status -m "$name" -v "$version" "${trees[@]}"
	modinfo -F vermagic "$dir/sch_lossless.ko" | grep -q "^$kver " ||
		die "$dir/sch_lossless.ko: vermagic $(modinfo -F vermagic "$dir/sch_lossless.ko"), not $kver"
	after=$(snapshot)
	if [ "$before" != "$after" ]; then
		diff <(echo "$before") <(echo "$after") >&2 || true
		die "the DKMS build changed /usr/src, /lib/modules or /var/lib/dkms (above)"
	fi
	printf 'dkms.sh: %s/%s for %s: dkms build took %.1f s; %s; /usr/src, /lib/modules and /var/lib/dkms unchanged\n' \
		"$name" "$version" "$kver" "$(awk "BEGIN { print $t1 - $t0 }")" "$how"
	;;
*)
	die "usage: $0 install KVER | uninstall | check DIR KVER"
	;;
esac
