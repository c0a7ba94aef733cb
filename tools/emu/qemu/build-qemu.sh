#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a minimal x86_64-softmmu QEMU with the snode-nic device model from
# Debian's own qemu source package (bookworm, 7.2).
#
#   build/qemu/src/                 dpkg-source tree (Debian patches applied,
#                                   then ours: tools/emu/qemu/patches/)
#   build/qemu/src/hw/misc/snode/   our device, copied from tools/emu/qemu/snode/
#   build/qemu/build/               meson/ninja build directory
#   build/qemu/firmware/            SeaBIOS and option ROMs (from Debian's
#                                   seabios and qemu-system-data packages)
#   build/qemu/qemu-system-x86_64   stable path of the binary
#
# Usage: tools/emu/qemu/build-qemu.sh [--refresh]
#   --refresh  re-resolve the qemu source version in the archive (otherwise
#              the tree already unpacked is kept and no apt work is done)
#
# Environment:
#   SNODE_NIC_SRC  directory holding the device model: its *.c and *.h
#                  files and trace-events (default tools/emu/qemu/snode);
#                  for testing the pipeline with another device.
#   SNODE_FM_PROTO protocol header (default tools/emu/fm/snode-fm-proto.h)
#
# Incremental: device files are copied only when their content changed, so a
# rebuild with unchanged inputs is a ninja no-op; the generated meson.build
# lists every .c file of the device, so adding or removing one re-runs meson.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
BUILD=${SNODE_BUILD:-$ROOT/build}
APT=$ROOT/scripts/apt-private.sh
# canonical: a git worktree's build/qemu may be a link to the main
# checkout's, and the configuration (its paths included) must not differ
# between the two, or a worktree's build wipes the main one's (stop 41)
mkdir -p "$BUILD"
Q=$(readlink -f "$BUILD/qemu")
SRC=$Q/src
OUT=$Q/build
FW=$Q/firmware
NIC_SRC=${SNODE_NIC_SRC:-$ROOT/tools/emu/qemu/snode}
FM_PROTO=${SNODE_FM_PROTO:-$ROOT/tools/emu/fm/snode-fm-proto.h}

refresh=
[ "${1:-}" = "--refresh" ] && refresh=1

log() { echo "build-qemu: $*" >&2; }

# Highest 7.2 source version in bookworm / bookworm-security: the backports
# qemu (10.x) is a different code base we do not target.
resolve_version()
{
	APT_CONFIG=$BUILD/apt/apt.conf apt-cache showsrc qemu |
		sed -n 's/^Version: //p' | grep -E '^1:7\.2\+' |
		sort -V | tail -n1
}

# --- 1. source tree ---------------------------------------------------------
srcver=
[ -f "$SRC/.snode-srcver" ] && srcver=$(cat "$SRC/.snode-srcver")
if [ -z "$srcver" ] || [ -n "$refresh" ]; then
	"$APT" setup
	want=$(resolve_version)
	[ -n "$want" ] || { log "no qemu 7.2 source package found"; exit 1; }
	if [ "$want" != "$srcver" ]; then
		log "fetching qemu source $want"
		tmp=$(mktemp -d "$BUILD/.qemu-src.XXXXXX")
		trap 'rm -rf "$tmp"' EXIT
		(cd "$tmp" && APT_CONFIG=$BUILD/apt/apt.conf \
			apt-get -q source --download-only "qemu=$want" >/dev/null)
		# No signature check: the .dsc came through apt's signed Sources.
		dpkg-source --no-check -x "$tmp"/qemu_*.dsc "$tmp/src" >/dev/null
		echo "$want" > "$tmp/src/.snode-srcver"
		rm -rf "$SRC" "$OUT"
		mkdir -p "$Q"
		mv "$tmp/src" "$SRC"
		rm -rf "$tmp"
		trap - EXIT
		srcver=$want
	fi
fi

# --- 1b. our patches to QEMU itself -----------------------------------------
# tools/emu/qemu/patches/*.patch, in name order (-p1 against the source
# tree). The tree keeps a copy of what it carries in .snode-patches/: when
# the set changes, the old ones are taken back out (in reverse order) and
# the new ones put in, without fetching the source again.
PATCHES=$ROOT/tools/emu/qemu/patches
applied=$SRC/.snode-patches
if ! diff -rq "$PATCHES" "$applied" >/dev/null 2>&1; then
	if [ -d "$applied" ]; then
		while IFS= read -r p; do
			log "taking out $(basename "$p")"
			patch -s -p1 -R -d "$SRC" < "$p" ||
				{ log "cannot take out $p; remove $SRC and run again"; exit 1; }
		done < <(ls -1r "$applied"/*.patch 2>/dev/null)
	fi
	rm -rf "$applied"
	mkdir -p "$applied"
	for p in "$PATCHES"/*.patch; do
		[ -f "$p" ] || continue
		log "applying $(basename "$p")"
		patch -s -p1 --forward -d "$SRC" < "$p" ||
			{ log "$p does not apply to qemu $srcver"; rm -rf "$applied"; exit 1; }
		cp "$p" "$applied/"
	done
fi

# --- 2. firmware ------------------------------------------------------------
# The dfsg tarball carries no binary ROMs; q35 needs bios-256k.bin and
# -kernel needs linuxboot_dma.bin / kvmvapic.bin.
if [ ! -f "$FW/.stamp" ] || [ -n "$refresh" ]; then
	"$APT" setup
	tmp=$(mktemp -d "$BUILD/.qemu-fw.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	datav=$(APT_CONFIG=$BUILD/apt/apt.conf apt-cache madison qemu-system-data |
		awk -F' *\\| *' '{print $2}' | grep -E '^1:7\.2\+' | sort -V | tail -n1)
	(cd "$tmp" && APT_CONFIG=$BUILD/apt/apt.conf apt-get -q download \
		seabios "qemu-system-data=$datav" >/dev/null)
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$tmp/root"
	done
	rm -rf "$FW"
	mkdir -p "$FW"
	# One flat directory: SeaBIOS (bios-256k.bin, which the qemu-system-x86
	# package would symlink) plus QEMU's option ROMs.
	cp -L "$tmp"/root/usr/share/seabios/*.bin "$FW"/
	cp -L "$tmp"/root/usr/share/qemu/*.bin "$tmp"/root/usr/share/qemu/*.rom "$FW"/ 2>/dev/null || true
	cp -rL "$tmp"/root/usr/share/qemu/keymaps "$FW"/ 2>/dev/null || true
	[ -f "$FW/bios-256k.bin" ] || { log "bios-256k.bin missing from firmware"; exit 1; }
	echo "seabios qemu-system-data=$datav" > "$FW/.stamp"
	rm -rf "$tmp"
	trap - EXIT
fi

# --- 3. inject the device ---------------------------------------------------
D=$SRC/hw/misc/snode
mkdir -p "$D"

# Write stdin to $1 only if the content differs (keeps mtimes for ninja).
put()
{
	local dst=$1 tmp
	tmp=$(mktemp "$dst.XXXXXX")
	cat > "$tmp"
	if cmp -s "$tmp" "$dst"; then rm -f "$tmp"; else mv "$tmp" "$dst"; fi
}

# The device's files: every .c and .h in $NIC_SRC, and its trace-events.
nic_files=()
if [ -d "$NIC_SRC" ]; then
	while IFS= read -r f; do
		nic_files+=("$f")
	done < <(cd "$NIC_SRC" && ls -1 -- *.c *.h trace-events 2>/dev/null | LC_ALL=C sort)
fi
nic_c=()
for f in "${nic_files[@]}"; do
	case $f in *.c) nic_c+=("$f") ;; esac
done

# Generated here, not copied: never removed as stale.
generated="meson.build Kconfig trace.h snode-fm-proto.h"
have_nic=
if [ ${#nic_c[@]} -gt 0 ]; then
	have_nic=1
	for f in "${nic_files[@]}"; do
		put "$D/$f" < "$NIC_SRC/$f"
	done
	if [ -f "$FM_PROTO" ]; then
		put "$D/snode-fm-proto.h" < "$FM_PROTO"
	fi
else
	log "WARNING: no device sources in $NIC_SRC, building QEMU without snode-nic"
	rm -f "$D/snode-fm-proto.h"
fi
# Files of an earlier layout (the single snode-nic.c) or since deleted.
for f in "$D"/*; do
	b=${f##*/}
	case " $generated ${nic_files[*]} " in
	*" $b "*) ;;
	*) rm -f "$f" ;;
	esac
done
[ -f "$D/trace-events" ] || : | put "$D/trace-events"

if [ -n "$have_nic" ]; then
	{
		echo "# SPDX-License-Identifier: GPL-2.0"
		echo "# Generated by tools/emu/qemu/build-qemu.sh"
		echo "softmmu_ss.add(when: 'CONFIG_SNODE_NIC', if_true: files("
		for f in "${nic_c[@]}"; do
			echo "  '$f',"
		done
		echo "))"
	} | put "$D/meson.build"
else
	put "$D/meson.build" <<'EOM'
# SPDX-License-Identifier: GPL-2.0
# Generated by tools/emu/qemu/build-qemu.sh (no device sources)
EOM
fi
put "$D/Kconfig" <<'EOM'
# SPDX-License-Identifier: GPL-2.0
# Generated by tools/emu/qemu/build-qemu.sh
config SNODE_NIC
    bool
    default y if PCI_DEVICES
    depends on PCI && MSI_NONBROKEN
EOM
# QEMU's per-directory trace header: "trace.h" includes the generated one.
echo '#include "trace/trace-hw_misc_snode.h"' | put "$D/trace.h"

# Hooks into the QEMU tree, each applied once.
grep -q "^subdir('snode')" "$SRC/hw/misc/meson.build" ||
	echo "subdir('snode')" >> "$SRC/hw/misc/meson.build"
grep -q "^source snode/Kconfig" "$SRC/hw/misc/Kconfig" ||
	printf '\nsource snode/Kconfig\n' >> "$SRC/hw/misc/Kconfig"
grep -q "'hw/misc/snode'," "$SRC/meson.build" ||
	sed -i "s|^    'hw/misc/macio',|&\n    'hw/misc/snode',|" "$SRC/meson.build"
grep -q "'hw/misc/snode'," "$SRC/meson.build" ||
	{ log "could not register hw/misc/snode in trace_events_subdirs"; exit 1; }

# --- 4. configure -----------------------------------------------------------
# Everything optional off (--without-default-features), then the few we use.
# Warnings stay visible but do not fail the build (--disable-werror): the
# device engineer builds with -Werror in their own checks.
CONFIGURE_ARGS=(
	--target-list=x86_64-softmmu
	--without-default-features
	--disable-docs
	--disable-werror
	--disable-install-blobs
	--disable-user
	--enable-tcg
	--enable-trace-backends=log
	--firmwarepath="$FW"
	--prefix="$Q/install"
)
cfg_id=$(printf '%s\n' "$srcver" "${CONFIGURE_ARGS[@]}" | sha256sum | cut -c1-16)
if [ ! -f "$OUT/build.ninja" ] || [ "$(cat "$OUT/.snode-cfg" 2>/dev/null)" != "$cfg_id" ]; then
	log "configuring ($srcver)"
	rm -rf "$OUT"
	mkdir -p "$OUT"
	(cd "$OUT" && "$SRC/configure" "${CONFIGURE_ARGS[@]}" > configure.log 2>&1) || {
		tail -n 40 "$OUT/configure.log" >&2
		log "configure failed, see $OUT/configure.log"
		exit 1
	}
	echo "$cfg_id" > "$OUT/.snode-cfg"
fi

# --- 5. build ---------------------------------------------------------------
# ninja re-runs meson itself when a meson.build/Kconfig changed.
ninja -C "$OUT" ${NINJA_JOBS:+-j "$NINJA_JOBS"} qemu-system-x86_64 |
	{ grep -v '^ninja: Entering directory' || true; }
[ "${PIPESTATUS[0]}" -eq 0 ] || exit 1
ln -sfn build/qemu-system-x86_64 "$Q/qemu-system-x86_64"
if [ -n "$have_nic" ] && ! "$Q/qemu-system-x86_64" -device help 2>/dev/null | grep -q '"snode-nic"'; then
	log "WARNING: qemu built but has no snode-nic device"
fi
