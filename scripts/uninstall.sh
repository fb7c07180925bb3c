#!/bin/sh
# make uninstall: removes what `make install` put under DESTDIR and PREFIX,
# as listed by that install's manifest, PREFIX/share/lossless/
# install_manifest.txt (cmake/install-manifest.cmake), then the project's
# own directories (the ones named lossless) that are left empty. Shared
# directories (sbin, lib/systemd/system, tc's plugin directory) stay.
#
#   scripts/uninstall.sh DESTDIR PREFIX      (DESTDIR may be empty)
set -eu

if [ $# -ne 2 ]; then
	echo "usage: $0 DESTDIR PREFIX" >&2
	exit 2
fi
destdir=${1%/}
prefix=$2
case $prefix in
/*) ;;
*) echo "make uninstall: PREFIX must be an absolute path, not '$prefix'" >&2; exit 2 ;;
esac
case $destdir in
'' | /*) ;;
*) echo "make uninstall: DESTDIR must be an absolute path, not '$destdir'" >&2; exit 2 ;;
esac

manifest=$destdir$prefix/share/lossless/install_manifest.txt
if [ ! -f "$manifest" ]; then
	echo "make uninstall: $manifest not found: nothing was installed with" \
	     "PREFIX=$prefix${destdir:+ DESTDIR=$destdir}" >&2
	exit 1
fi

# Every line an absolute path; the manifest itself is the last one.
dirs=
while IFS= read -r f; do
	case $f in
	'') continue ;;
	/*) ;;
	*) echo "make uninstall: $manifest: not an absolute path: '$f'" >&2; exit 1 ;;
	esac
	if [ -e "$destdir$f" ] || [ -L "$destdir$f" ]; then
		rm -f -- "$destdir$f"
		echo "-- Removed: $destdir$f"
	else
		echo "-- Already gone: $destdir$f"
	fi
	dirs="$dirs
${f%/*}"
done <"$manifest"

# The project's directories, deepest first, while empty.
printf '%s\n' "$dirs" | sort -ru | while IFS= read -r d; do
	while :; do
		case /$d/ in
		*/lossless/*) ;;
		*) break ;;
		esac
		rmdir -- "$destdir$d" 2>/dev/null || break
		echo "-- Removed directory: $destdir$d"
		d=${d%/*}
	done
done
