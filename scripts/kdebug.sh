#!/usr/bin/env bash
# make kdebug: the debug kernel for the VM (docs/RELIABILITY.md, "The debug
# kernel"). Builds Debian's linux-source-6.1 with vm-images/kdebug.config
# (KASAN, lockdep, atomic-sleep checks, kmemleak, UBSAN, KFENCE; everything
# the VM needs built in), then sch_lossless.ko against it.
#
#   scripts/kdebug.sh DIR     build into DIR (make kdebug: build/kdebug)
#
# DIR/obj      the kernel's build tree (O=); KDIR for the module
# DIR/root     boot/vmlinuz-KVER, boot/config-KVER, lib/modules/KVER: what
#              vm-images/run-vm --kernel-root boots
# DIR/module   sch_lossless.ko built against DIR/obj (run-all.sh loads it
#              when LL_MODULE_KO names it)
# DIR/kver     the kernel's release string
#
# Cached: the source is unpacked once per linux-source tarball, the kernel
# rebuilt only when the tarball or the configuration fragment changed (make
# then rebuilds what changed); the module every time (seconds). JOBS make
# jobs (default: one per CPU).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "kdebug.sh: $*" >&2; exit 1; }
[ $# -eq 1 ] || die "usage: $0 DIR"
dir=$1
case $dir in /*) ;; *) dir=$PWD/$dir ;; esac
jobs=${JOBS:-$(nproc)}
tarball=/usr/src/linux-source-6.1.tar.xz
fragment=$top/vm-images/kdebug.config

missing=()
[ -f "$tarball" ] || missing+=(linux-source-6.1)
command -v flex >/dev/null || missing+=(flex)
command -v bison >/dev/null || missing+=(bison)
if [ ${#missing[@]} -gt 0 ]; then
	die "missing ${missing[*]}: run scripts/setup.sh --kdebug as root (Debian packages)"
fi

mkdir -p "$dir"
t0=$(date +%s)
stamp="$(stat -c '%s %Y' "$tarball")"
if [ "$(cat "$dir/src.stamp" 2>/dev/null)" != "$stamp" ]; then
	echo "kdebug.sh: unpacking $tarball into $dir/src"
	rm -rf "$dir/src" "$dir/obj" "$dir/src.stamp"
	mkdir -p "$dir/src"
	tar -xf "$tarball" -C "$dir/src" --strip-components=1
	echo "$stamp" >"$dir/src.stamp"
fi
kmake=(make -C "$dir/src" O="$dir/obj" -j "$jobs")

# The configuration: defconfig, the fragment merged, olddefconfig; then
# every line of the fragment must hold in the result.
cfg_key=$(sha256sum <"$fragment" | cut -c1-16)
cfg_key="$cfg_key $stamp"
if [ "$(cat "$dir/config.stamp" 2>/dev/null)" != "$cfg_key" ] || [ ! -f "$dir/obj/.config" ]; then
	mkdir -p "$dir/obj"
	"${kmake[@]}" -s x86_64_defconfig
	KCONFIG_CONFIG="$dir/obj/.config" "$dir/src/scripts/kconfig/merge_config.sh" -m -O "$dir/obj" \
		"$dir/obj/.config" "$fragment" >"$dir/merge.log"
	"${kmake[@]}" -s olddefconfig
	bad=()
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) grep -qxF -- "$line" "$dir/obj/.config" || bad+=("$line") ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }; opt=${opt%% *}
			! grep -q "^$opt=" "$dir/obj/.config" || bad+=("$line") ;;
		esac
	done <"$fragment"
	if [ ${#bad[@]} -gt 0 ]; then
		printf '  %s\n' "${bad[@]}" >&2
		die "these lines of $fragment do not hold after olddefconfig (a dependency missing?)"
	fi
	echo "$cfg_key" >"$dir/config.stamp"
fi

"${kmake[@]}" bzImage modules
kver=$("${kmake[@]}" -s kernelrelease)
rm -rf "$dir/root"
mkdir -p "$dir/root/boot"
"${kmake[@]}" -s INSTALL_MOD_PATH="$dir/root" modules_install
cp "$dir/obj/arch/x86/boot/bzImage" "$dir/root/boot/vmlinuz-$kver"
cp "$dir/obj/.config" "$dir/root/boot/config-$kver"
echo "$kver" >"$dir/kver"
t1=$(date +%s)
echo "kdebug.sh: kernel $kver built in $((t1 - t0)) s"

# Our module, from the same staged sources as the DKMS package.
"$top/scripts/stage-module.sh" "$dir/module"
make -C "$dir/obj" M="$dir/module" -j "$jobs" modules
modinfo -F vermagic "$dir/module/sch_lossless.ko" | grep -q "^$kver " ||
	die "$dir/module/sch_lossless.ko: vermagic $(modinfo -F vermagic "$dir/module/sch_lossless.ko"), not $kver"
echo "kdebug.sh: $dir/module/sch_lossless.ko for $kver ($(($(date +%s) - t1)) s)"
