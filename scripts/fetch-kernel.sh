#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch a Debian kernel (image, modules, headers, kbuild) into
# build/kernels/<ver>/ without installing anything on the host.
#
# Usage: scripts/fetch-kernel.sh [--refresh] 6.1|6.12
#
#   6.1   newest 6.1 linux-image-amd64 from bookworm / bookworm-security
#   6.12  newest 6.12 linux-image-amd64 from bookworm-backports
#
# The ABI (6.1.0-N, 6.12.x+deb12) is resolved through the meta packages, never
# hard-coded. Once build/kernels/<ver>/stamp exists this does no network work;
# --refresh resolves again and re-extracts only if the versions changed.
#
# Result:
#   build/kernels/<ver>/vmlinuz   kernel image (bzImage)
#   build/kernels/<ver>/vmlinux   the same, uncompressed ELF (PVH boot, faster)
#   build/kernels/<ver>/modules   -> root/lib/modules/<kver>
#   build/kernels/<ver>/headers   -> arch headers dir; KDIR for out-of-tree builds:
#                                    make -C build/kernels/<ver>/headers M=$PWD modules
#   build/kernels/<ver>/kver      the kernel release string (uname -r)
#
# Compiler: both kernels are built by Debian with gcc-12 (CONFIG_CC_VERSION_TEXT
# in the 6.12 backport says x86_64-linux-gnu-gcc-12 12.2.0, the bookworm gcc), and
# the headers' .kernelvariables select gcc-12 themselves, so the host's gcc-12
# builds modules for both without a version mismatch.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${SNODE_BUILD:-$ROOT/build}
APT=$ROOT/scripts/apt-private.sh

refresh=
if [ "${1:-}" = "--refresh" ]; then
	refresh=1
	shift
fi
ver=${1:-}
case "$ver" in
6.1|6.12) ;;
*) echo "usage: $0 [--refresh] 6.1|6.12" >&2; exit 2 ;;
esac

K=$BUILD/kernels/$ver
STAMP=$K/stamp

# "make M=<dir> clean" deletes every *.ko/*.o/*.a below <dir>: a clean with
# M=<top of the tree> wipes build/kernels/*/root/lib/modules as well. Count
# the modules so that such damage is repaired by re-extracting.
ko_count()
{
	find "$K/modules/kernel" -name '*.ko*' 2>/dev/null | wc -l
}

complete()
{
	[ -f "$STAMP" ] && [ -f "$K/kver" ] && [ -e "$K/vmlinuz" ] &&
		[ -e "$K/headers/Makefile" ] && [ -f "$K/ko-count" ] &&
		[ "$(ko_count)" = "$(cat "$K/ko-count")" ]
}

# Booting the bzImage under TCG spends 13+ s in the xz decompressor (6.1);
# both Debian kernels have CONFIG_PVH, so QEMU can load the uncompressed ELF
# directly. Extract it the way scripts/extract-vmlinux does.
extract_vmlinux()
{
	local img=$1 out=$2 magic tool off
	for magic in $'\xfd7zXZ:xz' $'(\xb5/\xfd:zstd' $'\x1f\x8b\x08:gzip' \
		     $'\x02!L\x18:lz4'; do
		tool=${magic##*:}
		for off in $(LC_ALL=C grep -abo "${magic%:*}" "$img" 2>/dev/null | cut -d: -f1); do
			tail -c +$((off + 1)) "$img" | $tool -dc > "$out.tmp" 2>/dev/null || true
			if [ "$(head -c4 "$out.tmp" | od -An -c | tr -d ' ')" = '177ELF' ]; then
				mv "$out.tmp" "$out"
				return 0
			fi
		done
	done
	rm -f "$out.tmp"
	return 1
}

# Debian generates modules.dep at install time (postinst); we never install,
# so run depmod on the extracted tree. snode-vm resolves dependencies with it.
ensure_depmod()
{
	[ -s "$K/modules/modules.dep" ] && [ "$(wc -l < "$K/modules/modules.dep")" -gt 100 ] && return 0
	depmod -b "$K/root" "$(cat "$K/kver")"
}

ensure_vmlinux()
{
	[ -s "$K/vmlinux" ] && return 0
	extract_vmlinux "$K/vmlinuz" "$K/vmlinux" ||
		echo "fetch-kernel: cannot extract vmlinux from $K/vmlinuz (boots slower)" >&2
}

if [ -z "$refresh" ] && complete; then
	ensure_vmlinux
	ensure_depmod
	exit 0
fi

"$APT" setup
export APT_CONFIG=$BUILD/apt/apt.conf

# First package name of a Depends: alternative list that matches a pattern.
dep_of()
{
	local pkg=$1 pattern=$2
	apt-cache show --no-all-versions "$pkg" |
		sed -n 's/^Depends: //p' | tr ',|' '\n\n' |
		sed 's/^ *//; s/ .*//' | grep -E -m1 "$pattern" || true
}

# Newest version of the meta package within the requested series.
# madison lists versions newest first.
metaver=$(apt-cache madison linux-image-amd64 | awk -F' *\\| *' '{print $2}' |
	grep -E "^${ver//./\\.}\." | head -n1 || true)
if [ -z "$metaver" ]; then
	echo "fetch-kernel: no linux-image-amd64 $ver.x in the archive" >&2
	exit 1
fi

img=$(dep_of "linux-image-amd64=$metaver" '^linux-image-')
hdr=$(dep_of "linux-headers-amd64=$metaver" '^linux-headers-')
common=$(dep_of "$hdr=$metaver" '^linux-headers-.*-common')
kbuild=$(dep_of "$hdr=$metaver" '^linux-kbuild-')
kver=${img#linux-image-}
kver=${kver%-unsigned}
if [ -z "$img" ] || [ -z "$hdr" ] || [ -z "$common" ] || [ -z "$kbuild" ]; then
	echo "fetch-kernel: cannot resolve packages for linux-image-amd64=$metaver" \
		"(image '$img' headers '$hdr' common '$common' kbuild '$kbuild')" >&2
	exit 1
fi

# All four come from the same source upload, so they share $metaver (kbuild
# may be >=, take its candidate from the same suite via the exact version).
want=$(printf '%s=%s\n' "$img" "$metaver" "$hdr" "$metaver" "$common" "$metaver" \
	"$kbuild" "$metaver"; echo "kver=$kver")

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && complete; then
	touch "$STAMP"
	ensure_vmlinux
	ensure_depmod
	exit 0
fi

echo "fetch-kernel: $ver -> $kver ($metaver)"
mkdir -p "$K"
tmp=$(mktemp -d "$K/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/debs" "$tmp/root"
(cd "$tmp/debs" && apt-get -q download \
	"$img=$metaver" "$hdr=$metaver" "$common=$metaver" "$kbuild=$metaver")
for deb in "$tmp"/debs/*.deb; do
	dpkg-deb -x "$deb" "$tmp/root"
done

R=$tmp/root
hdir=$R/usr/src/linux-headers-$kver
[ -f "$hdir/Makefile" ] || { echo "fetch-kernel: $hdir/Makefile missing" >&2; exit 1; }
[ -f "$R/boot/vmlinuz-$kver" ] || { echo "fetch-kernel: vmlinuz-$kver missing" >&2; exit 1; }

# The arch Makefile includes the common one by absolute /usr/src path; make it
# relative to its own location so the tree works wherever build/ lives.
# scripts/ and tools/ are already relative symlinks into usr/lib/linux-kbuild-*.
commondir=${common#linux-headers-}
cat > "$hdir/Makefile" <<EOM
# Rewritten by scripts/fetch-kernel.sh: was include /usr/src/linux-headers-$commondir/Makefile
include \$(abspath \$(dir \$(lastword \$(MAKEFILE_LIST)))/../linux-headers-$commondir/Makefile)
EOM
# lib/modules/<kver>/{build,source} point to /usr/src on the host.
ln -sfn "../../../usr/src/linux-headers-$kver" "$R/lib/modules/$kver/build"
ln -sfn "../../../usr/src/linux-headers-$commondir" "$R/lib/modules/$kver/source"
for l in "$hdir/scripts" "$hdir/tools" "$R/usr/src/linux-headers-$commondir/scripts"; do
	[ -e "$l" ] || { echo "fetch-kernel: dangling $l -> $(readlink "$l")" >&2; exit 1; }
done

# Replace the previous tree atomically enough for a build directory.
rm -rf "$K/root" "$K/debs" "$K/vmlinux"
mv "$R" "$K/root"
ln -sfn "root/usr/src/linux-headers-$kver" "$K/headers"
ln -sfn "root/boot/vmlinuz-$kver" "$K/vmlinuz"
ln -sfn "root/lib/modules/$kver" "$K/modules"
ln -sfn "root/boot/System.map-$kver" "$K/System.map"
ln -sfn "root/boot/config-$kver" "$K/config"
echo "$kver" > "$K/kver"
ko_count > "$K/ko-count"
ensure_vmlinux
ensure_depmod
echo "$want" > "$STAMP"
echo "fetch-kernel: $K ready (KDIR=$K/headers)"
