#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# version-check.sh - the version macros of <libsnode.h>, the library's
# snode_version() and SNODE_VERSION of libsnode/libsnode.mk (the one the
# package, pkg-config file and dkms.conf carry) are the same version. One
# TAP line.
#
# Usage: version-check.sh LIBSNODE_SO TESTNO [ CC ]

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
so=$1
n=${2:-1}
cc=${3:-${CC:-cc}}
name="LIBSNODE_VERSION, snode_version() and libsnode.mk's SNODE_VERSION agree"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
want=$(sed -n 's/^SNODE_VERSION *:= *//p' "$TOP/libsnode/libsnode.mk")
cat >"$tmp/v.c" <<'EOC'
#include <stdio.h>
#include <libsnode.h>

int main(void)
{
	unsigned int v = snode_version();

	printf("%u.%u.%u %u.%u.%u\n", LIBSNODE_VERSION_MAJOR,
	       LIBSNODE_VERSION_MINOR, LIBSNODE_VERSION_MICRO,
	       v >> 16, (v >> 8) & 0xff, v & 0xff);
	return v == LIBSNODE_VERSION ? 0 : 1;
}
EOC
if ! $cc -Wall -Werror -I"$TOP/libsnode" -I"$TOP/uapi" -o "$tmp/v" "$tmp/v.c" "$so" \
	>"$tmp/log" 2>&1; then
	sed 's/^/# /' "$tmp/log"
	echo "not ok $n - $name"
	exit 1
fi
got=$(LD_LIBRARY_PATH=$(dirname "$so") "$tmp/v")
if [ "$got" = "$want $want" ]; then
	echo "ok $n - $name ($want)"
else
	echo "# header, library: $got; libsnode.mk: $want"
	echo "not ok $n - $name"
	exit 1
fi
