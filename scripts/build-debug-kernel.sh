#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the debug guest kernel (KASAN, UBSAN, lockdep, kmemleak, fault
# injection...) from Debian's linux-source-6.12 (bookworm-backports) with
# allnoconfig + tools/emu/vm/debug.config, into build/kernels/debug/.
#
# Usage: scripts/build-debug-kernel.sh [--refresh]
#
#   --refresh   ask the archive for a newer linux-source-6.12 (otherwise the
#               extracted tree is used as long as it exists)
#
# The result is keyed by the source package version, the config fragment,
# this script and the compiler: with nothing changed a re-run only compares
# the key and exits. A changed fragment reuses the object tree, so kbuild
# rebuilds what the changed options touch; a new source version starts over.
#
# Result (snode-vm --kernel debug and driver/driver.mk use these):
#   build/kernels/debug/vmlinux   uncompressed ELF, booted through PVH
#   build/kernels/debug/headers   -> obj, KDIR for out-of-tree modules:
#                                    make -C build/kernels/debug/headers M=$PWD modules
#   build/kernels/debug/modules   -> root/lib/modules/<kver> (modules.dep, builtin lists)
#   build/kernels/debug/kver, config, System.map, build.log, stamp
#
# Any option of the fragment that olddefconfig drops or changes fails the
# build and is named: the fragment must say what the kernel really has.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${SNODE_BUILD:-$ROOT/build}
APT=$ROOT/scripts/apt-private.sh
FRAG=$ROOT/tools/emu/vm/debug.config
PKG=linux-source-6.12
JOBS=${SNODE_KERNEL_JOBS:-2}

refresh=
case "${1:-}" in
--refresh) refresh=1 ;;
"") ;;
*) echo "usage: $0 [--refresh]" >&2; exit 2 ;;
esac

K=$BUILD/kernels/debug
SRC=$K/src
OBJ=$K/obj
SRCSTAMP=$K/src.stamp

mkdir -p "$K"
# build/kernels may be shared by several work trees: one build at a time,
# the others wait and then find it done
exec 9>"$K/.lock"
flock 9

# --- the source tree ----------------------------------------------------------
pkgver=
if [ -z "$refresh" ] && [ -f "$SRCSTAMP" ] && [ -f "$SRC/Makefile" ]; then
	pkgver=$(sed -n "s/^$PKG=//p" "$SRCSTAMP")
fi
if [ -z "$pkgver" ]; then
	"$APT" setup
	export APT_CONFIG=$BUILD/apt/apt.conf
	pkgver=$(apt-cache policy "$PKG" | sed -n 's/^ *Candidate: //p')
	if [ -z "$pkgver" ] || [ "$pkgver" = "(none)" ]; then
		echo "build-debug-kernel: $PKG not found in the archive" >&2
		exit 1
	fi
fi

if [ "$(cat "$SRCSTAMP" 2>/dev/null)" != "$PKG=$pkgver" ] || [ ! -f "$SRC/Makefile" ]; then
	echo "build-debug-kernel: extracting $PKG=$pkgver into $SRC"
	export APT_CONFIG=$BUILD/apt/apt.conf
	tmp=$(mktemp -d "$K/.src.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && apt-get -q download "$PKG=$pkgver")
	mkdir "$tmp/out"
	dpkg-deb --fsys-tarfile "$tmp"/*.deb |
		tar -xO "./usr/src/$PKG.tar.xz" | xz -dc -T2 | tar -x -C "$tmp/out"
	rm -rf "$SRC" "$OBJ" "$K/stamp"
	mv "$tmp/out/$PKG" "$SRC"
	rm -rf "$tmp"
	trap - EXIT
	echo "$PKG=$pkgver" > "$SRCSTAMP"
fi

# --- the cache key -------------------------------------------------------------
key=$( { echo "$PKG=$pkgver"; gcc --version | head -n1; sha256sum < "$FRAG";
	sha256sum < "${BASH_SOURCE[0]}"; } | sha256sum | cut -c1-16)
if [ "$(cat "$K/stamp" 2>/dev/null)" = "$key" ] && [ -s "$OBJ/vmlinux" ] &&
   [ -f "$K/kver" ] && [ -f "$K/modules/modules.dep" ] && [ -f "$OBJ/Module.symvers" ]; then
	exit 0
fi

# --- configure -----------------------------------------------------------------
start=$SECONDS
mkdir -p "$OBJ"
echo "build-debug-kernel: $PKG=$pkgver, config $FRAG (key $key)"
kmake() { nice make -C "$SRC" O="$OBJ" ARCH=x86_64 "$@"; }
kmake -s KCONFIG_ALLCONFIG="$FRAG" allnoconfig >"$K/config.log" 2>&1 ||
	{ cat "$K/config.log" >&2; exit 1; }
kmake -s olddefconfig >>"$K/config.log" 2>&1 || { cat "$K/config.log" >&2; exit 1; }

bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*) ;;
	*) continue ;;
	esac
	if ! grep -qxF -- "$line" "$OBJ/.config"; then
		sym=${line%%=*}
		got=$(grep -E "^$sym=|^# $sym is not set" "$OBJ/.config" || echo "absent")
		echo "build-debug-kernel: $FRAG asks for $line, olddefconfig gave: $got" >&2
		bad=1
	fi
done < "$FRAG"
if [ "$bad" != 0 ]; then
	echo "build-debug-kernel: the config fragment does not hold (dependencies missing?)" >&2
	exit 1
fi

# --- build ---------------------------------------------------------------------
echo "build-debug-kernel: building with -j$JOBS (log: $K/build.log)"
if ! kmake -j"$JOBS" vmlinux modules >"$K/build.log" 2>&1; then
	tail -n 40 "$K/build.log" >&2
	echo "build-debug-kernel: build failed (log: $K/build.log)" >&2
	exit 1
fi
# Read the release from the file kbuild wrote rather than asking make for it:
# under a parent make (make check) a sub-make prints "Entering directory"
# lines into anything it is asked to echo.
kver=$(cat "$OBJ/include/config/kernel.release")
case "$kver" in
"" | *[!A-Za-z0-9.+_-]*)
	echo "build-debug-kernel: bad kernel release '$kver'" >&2
	exit 1
	;;
esac
rm -rf "$K/root"
kmake -s INSTALL_MOD_PATH="$K/root" modules_install >>"$K/build.log" 2>&1
# modules_install leaves build pointing at the object tree by absolute path;
# nothing here relies on it.
rm -f "$K/root/lib/modules/$kver/build"
depmod -b "$K/root" "$kver"
ln -sfn obj "$K/headers"
ln -sfn obj/vmlinux "$K/vmlinux"
ln -sfn obj/.config "$K/config"
ln -sfn obj/System.map "$K/System.map"
ln -sfn "root/lib/modules/$kver" "$K/modules"
echo "$kver" > "$K/kver"
echo "$key" > "$K/stamp"
echo "build-debug-kernel: $K ready ($kver) in $((SECONDS - start)) s"
