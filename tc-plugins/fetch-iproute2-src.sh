#!/bin/sh
# Fetch and unpack the Debian source of the INSTALLED iproute2, for the tc
# plugin's headers (struct qdisc_util, utils.h, json_print.h, ...). There is
# no iproute2 -dev package, and a plugin must be compiled against the
# headers of the tc that loads it. Never committed: it lives in the build dir.
#
# usage: fetch-iproute2-src.sh DEST SRC_PACKAGE SRC_VERSION STAMP [CACHE_DIR]
#   DEST         e.g. <build>/iproute2-src; the tree goes to DEST/tree
#   SRC_PACKAGE  source package of the installed iproute2 (dpkg-query
#                ${source:Package}), SRC_VERSION its ${source:Version}
#   STAMP        touched on success; the build runs this only without it
#   CACHE_DIR    optional: keeps the .dsc and tarballs, so later clean
#                builds unpack from it without the network
#
# Idempotent: a tree already unpacked at the right version is kept.
set -eu

die() {
	echo "fetch-iproute2-src: error: $*" >&2
	exit 1
}

[ $# -ge 4 ] || die "usage: $0 DEST SRC_PACKAGE SRC_VERSION STAMP [CACHE_DIR]"
dest=$1
pkg=$2
want=$3
stamp=$4
cache=${5:-}

command -v dpkg-query >/dev/null || die "dpkg-query not found (Debian/Ubuntu only)"
command -v dpkg-source >/dev/null || die "dpkg-source not found: apt-get install dpkg-dev"

# The installed package may have changed since cmake ran.
now=$(dpkg-query -W -f='${source:Version}' iproute2 2>/dev/null) ||
	die "iproute2 is not installed (tc comes from it): apt-get install iproute2"
[ "$now" = "$want" ] ||
	die "installed iproute2 source version is $now but the build was configured for $want: re-run cmake"

tree=$dest/tree
upstream_nv=${want#*:}	# file names carry no epoch
dsc=${pkg}_${upstream_nv}.dsc

tree_version() {
	dpkg-parsechangelog -l "$tree/debian/changelog" -S Version 2>/dev/null
}

if [ -f "$tree/tc/tc_util.h" ] && [ "$(tree_version)" = "$want" ]; then
	echo "fetch-iproute2-src: $pkg $want already unpacked in $tree"
	touch "$stamp"
	exit 0
fi

mkdir -p "$dest"
dl=$dest/download
rm -rf "$dl" "$tree"
mkdir -p "$dl"

if [ -n "$cache" ] && [ -f "$cache/$dsc" ]; then
	echo "fetch-iproute2-src: using cached $cache/$dsc"
	# The .dsc names its tarballs; copy it and every file it lists.
	cp "$cache/$dsc" "$dl/"
	for f in $(awk '/^Files:/{f=1;next} /^[^ ]/{f=0} f{print $3}' "$cache/$dsc"); do
		cp "$cache/$f" "$dl/" || die "cache $cache lacks $f (listed in $dsc)"
	done
else
	echo "fetch-iproute2-src: apt-get source --download-only $pkg=$want"
	if ! (cd "$dl" && apt-get source --download-only -q "$pkg=$want") >"$dest/apt.log" 2>&1; then
		cat "$dest/apt.log" >&2
		die "could not download the source of $pkg $want.
  - apt needs a deb-src entry for the archive that has $want (scripts/setup.sh adds one), then apt-get update;
  - the archive must be reachable (or pass -DIPROUTE2_SOURCE_CACHE=<dir> holding ${dsc} and its tarballs,
    or -DIPROUTE2_SOURCE_DIR=<unpacked tree of $pkg $want>);
  - if $want is no longer in the archive, upgrade iproute2 first."
	fi
	[ -f "$dl/$dsc" ] || die "apt-get source did not produce $dsc (see $dest/apt.log)"
	if [ -n "$cache" ]; then
		mkdir -p "$cache"
		cp "$dl"/* "$cache/"
	fi
fi

# apt checked the files against the signed Sources index; dpkg-source
# checks them against the .dsc (it cannot check the maintainer's signature
# without debian-keyring, and says so) and applies the Debian patches, as
# in the installed binary.
dpkg-source -x "$dl/$dsc" "$tree" >"$dest/dpkg-source.log" 2>&1 || {
	cat "$dest/dpkg-source.log" >&2
	die "dpkg-source -x $dsc failed"
}

got=$(tree_version)
[ "$got" = "$want" ] ||
	die "unpacked iproute2 source is version '$got', installed is '$want'"
for h in tc/tc_util.h tc/tc_common.h include/utils.h include/json_print.h include/uapi/linux/pkt_sched.h; do
	[ -f "$tree/$h" ] || die "unpacked source lacks $h"
done

rm -rf "$dl"
echo "fetch-iproute2-src: $pkg $want unpacked in $tree"
touch "$stamp"
