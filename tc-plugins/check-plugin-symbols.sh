#!/bin/sh
# Check that every undefined symbol of a tc plugin is exported by tc (tc is
# linked -export-dynamic) or versioned from a shared library (glibc).
# usage: check-plugin-symbols.sh PLUGIN.so TC [NM]
set -eu
plugin=$1
tc=$2
nm=${3:-nm}

exported=$("$nm" -D --defined-only "$tc" | awk '{print $NF}' | sed 's/@.*//' | sort -u)
missing=
count=0
# Strong undefined symbols; weak ones (w/v: __gmon_start__, ...) may stay unresolved.
for sym in $("$nm" -D --undefined-only "$plugin" | awk '$1 == "U" {print $2}'); do
	case $sym in
	*@*) continue ;;	# versioned: bound to a library (libc) at link time
	esac
	count=$((count + 1))
	if ! printf '%s\n' "$exported" | grep -qx -- "$sym"; then
		missing="$missing $sym"
	fi
done
if [ -n "$missing" ]; then
	echo "check-plugin-symbols: $plugin needs symbols that $tc does not export:$missing" >&2
	exit 1
fi
echo "check-plugin-symbols: all $count tc symbols of $(basename "$plugin") are exported by $tc"
