#!/usr/bin/env bash
# Installs every Debian package lossless needs to build, test and run its demo.
# Idempotent: safe to run again; it only adds what is missing.
#
#   scripts/setup.sh            what make, make check and make demo need
#   scripts/setup.sh --kdebug   also what make kdebug needs to build the
#                               debug kernel (linux-source-6.1: 140 MB, so
#                               not for every CI run; docs/RELIABILITY.md)
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
	echo "setup.sh: must run as root (it installs Debian packages)" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive

kdebug=0
case ${1:-} in
"") ;;
--kdebug) kdebug=1 ;;
*) echo "usage: $0 [--kdebug]" >&2; exit 2 ;;
esac

PACKAGES=(
	# toolchain
	build-essential cmake pkg-config clang llvm lld dpkg-dev libclang-rt-14-dev
	# BPF
	libbpf-dev bpftool libelf-dev zlib1g-dev
	# the kernel the module is built for and booted under QEMU
	linux-image-amd64 linux-headers-amd64 kmod xz-utils
	# make dkms-install, and make check's DKMS build of the module (dkms
	# signs it with a key it makes with openssl, which test_dkms.sh checks)
	dkms openssl
	qemu-system-x86 busybox-static
	# networking userspace
	iproute2 iperf3 ethtool tcpdump tshark python3 python3-scapy
	libnl-3-dev libnl-route-3-dev libnl-genl-3-dev libmnl-dev
	# losslessd's sd_notify (the unit's Type=notify)
	libsystemd-dev
	# C++ libraries and tests
	libboost-dev libboost-program-options-dev libgtest-dev libgmock-dev libbenchmark-dev
	nlohmann-json3-dev libtomlplusplus-dev
	# losslessctl plot
	gnuplot-nox
	# docs/RECIPES.md reads losslessd's Prometheus endpoint with curl
	curl
	# man pages: make install compresses them, make check lints them (groff)
	gzip groff-base
	# style (.clang-format)
	clang-format
)
if [ "$kdebug" = 1 ]; then
	# make kdebug: the kernel's source and what its build needs beyond
	# the toolchain above
	PACKAGES+=(linux-source-6.1 flex bison bc libssl-dev)
fi

missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
	echo "setup.sh: installing ${missing[*]}"
	# wireshark-common asks whether non-root may capture; answer no without a prompt.
	echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
else
	echo "setup.sh: all ${#PACKAGES[@]} packages already installed"
fi

# tc plugin headers come from Debian's own iproute2 source package (never committed):
# make sure a deb-src entry exists next to the deb one.
if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
	src=/etc/apt/sources.list.d/lossless-deb-src.sources
	echo "setup.sh: adding $src for apt-get source"
	cat >"$src" <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	apt-get update -q
fi
echo "setup.sh: done"
