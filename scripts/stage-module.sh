#!/usr/bin/env bash
# Copies the module's sources into DIR, ready for Kbuild (make -C KDIR
# M=DIR): Kbuild, the qdisc's sources, core/ and uapi/, and no build
# output. The DKMS package (scripts/dkms.sh) and the debug kernel's build
# (scripts/kdebug.sh) build from such a copy, so kernel/ keeps the module
# for the VM's stock kernel.
#
#   scripts/stage-module.sh DIR
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dst=$1
rm -rf "$dst"
mkdir -p "$dst/core" "$dst/uapi"
cp "$top/kernel/Kbuild" "$top"/kernel/*.[ch] "$dst/"
cp "$top"/kernel/core/*.[ch] "$dst/core/"
cp "$top"/kernel/uapi/*.h "$dst/uapi/"
chmod -R u+rwX,go+rX,go-w "$dst"
