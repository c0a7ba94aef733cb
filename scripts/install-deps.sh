#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the host packages needed to build and run snode (driver, QEMU
# device model, fabric manager, VM runner, tests) on Debian 12.
#
# Fast path: when every package is already installed this only runs one
# dpkg-query and never touches apt, so it is cheap to call from make.
#
# Usage: scripts/install-deps.sh [--check]
#   --check   only report missing packages (exit 1 if any), install nothing

set -euo pipefail

PACKAGES=(
	abigail-tools
	autopkgtest
	bc
	bison
	build-essential
	busybox-static
	cpio
	debhelper
	dh-dkms
	dkms
	dpkg-dev
	dwarves
	flex
	gzip
	iproute2
	kmod
	libelf-dev
	libfabric-bin
	libfabric-dev
	libfdt-dev
	libglib2.0-dev
	libjson-c-dev
	libnl-3-dev
	libnl-genl-3-dev
	libopenmpi-dev
	libpixman-1-dev
	libsensors-dev
	libssl-dev
	lintian
	linux-source
	lm-sensors
	lz4
	meson
	mmdebstrap
	ninja-build
	patch
	pciutils
	pkg-config
	python3
	python3-venv
	python3-yaml
	socat
	sparse
	udev
	xz-utils
	zlib1g-dev
	zstd
)

missing=()
# One dpkg-query for all packages; unknown packages print nothing on stdout.
declare -A have=()
while read -r name status; do
	[ "$status" = "installed" ] && have[$name]=1
done < <(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${PACKAGES[@]}" 2>/dev/null || true)

for p in "${PACKAGES[@]}"; do
	[ -n "${have[$p]:-}" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

if [ "${1:-}" = "--check" ]; then
	echo "missing packages: ${missing[*]}" >&2
	exit 1
fi

echo "install-deps: installing ${missing[*]}"
SUDO=
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
# Wait for a concurrent apt/dpkg (another engineer's make) instead of failing.
APT_OPTS=(-o DPkg::Lock::Timeout=600 -y --no-install-recommends)
$SUDO apt-get "${APT_OPTS[@]}" update -qq
$SUDO apt-get "${APT_OPTS[@]}" install -qq "${missing[@]}"
