#!/usr/bin/env bash
# Kernel-style check of the module and the core with checkpatch.pl from
# Debian's linux-source-6.1 (fetched once into the build dir, never
# committed). Fails on any ERROR or WARNING; CHECKs that are expected of
# freestanding code (uint*_t in its userspace branch, no BIT() macro) and
# of the qdisc API's own CamelCase names are ignored.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${LL_BUILD_DIR:-$top/build}/linux-source
cp_pl=$cache/linux-source-6.1/scripts/checkpatch.pl

if [ ! -f "$cp_pl" ]; then
	mkdir -p "$cache"
	(
		cd "$cache"
		apt-get download linux-source-6.1 >/dev/null
		dpkg-deb --fsys-tarfile linux-source-6.1_*.deb |
			tar -xO ./usr/src/linux-source-6.1.tar.xz |
			tar -xJ linux-source-6.1/scripts/checkpatch.pl \
				linux-source-6.1/scripts/spelling.txt \
				linux-source-6.1/scripts/const_structs.checkpatch
		rm -f linux-source-6.1_*.deb
	) || { echo "checkpatch.sh: cannot fetch linux-source-6.1 (apt-get download)" >&2; exit 2; }
fi

cd "$top/kernel"
files=(lossless_*.c core/*.c core/*.h uapi/*.h)
# checkpatch.pl writes a CamelCase cache (.checkpatch-camelcase.*) into its
# working directory: run it in the cache directory, never in the tree.
out=$(cd "$cache" && perl "$cp_pl" --no-tree --strict --show-types \
	--ignore SPDX_LICENSE_TAG,PREFER_KERNEL_TYPES,CAMELCASE,BIT_MACRO \
	-f "${files[@]/#/$top/kernel/}" 2>&1 || true)
echo "$out" | grep -E '^(total|ERROR|WARNING|CHECK)' || true
if echo "$out" | grep -qE '^(ERROR|WARNING)'; then
	echo "$out"
	echo "checkpatch.sh: kernel style errors" >&2
	exit 1
fi
echo "checkpatch.sh: clean"
