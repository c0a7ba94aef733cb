#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# host-check.sh - the provider as built, on the build host (suite ofi-host):
# libfabric loads it from FI_PROVIDER_PATH, it exports nothing but
# fi_prov_ini, and it offers no fabric where there is no snode NIC.
#
# Usage: ofi/host-check.sh build/ofi/libsnode-fi.so build/ofi/ofi_test

set -u
PROV=$1
TEST=$2
DIR=$(dirname "$PROV")
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name"; fi; }

syms=$(nm -D --defined-only "$PROV" | awk '{ print $3 }' | tr '\n' ' ')
check "libsnode-fi.so exports only fi_prov_ini (exports: ${syms% })" \
	[ "$syms" = "fi_prov_ini " ]
check "libsnode-fi.so resolves every symbol (ldd -r)" \
	bash -c "! ldd -r '$PROV' 2>&1 | grep -q 'undefined symbol'"
if ! command -v fi_info >/dev/null; then
	skip "fi_info -l lists snode" "no fi_info on this host (libfabric-bin)"
else
	out=$(FI_PROVIDER_PATH=$DIR fi_info -l 2>&1)
	check "libfabric loads the provider: fi_info -l lists snode 0.1" \
		bash -c "grep -A1 '^snode:' | grep -q 'version: 0.1'" <<<"$out"
	if ls /dev/snode* >/dev/null 2>&1; then
		skip "fi_info -p snode without a NIC: -FI_ENODATA" "this host has an snode NIC"
	else
		out=$(FI_PROVIDER_PATH=$DIR fi_info -p snode 2>&1)
		check "fi_info -p snode without a NIC: -FI_ENODATA ($out)" \
			grep -q -- '-61' <<<"$out"
	fi
fi
# runtime parameters out of range: refused with a warning naming them
if command -v fi_info >/dev/null; then
	warns() {	# warns VAR=VALUE: the provider's warnings when it loads
		env "$1" FI_LOG_LEVEL=warn FI_PROVIDER_PATH="$DIR" fi_info -l 2>&1 |
			grep 'snode:core:sfi_param_get'
	}
	out=$(warns FI_SNODE_RX_ENTRIES=3)
	check "FI_SNODE_RX_ENTRIES=3 refused with a warning ($out)" \
		grep -q 'FI_SNODE_RX_ENTRIES: 3 is not a power of two in 2..4096; 4096 kept' <<<"$out"
	out=$(warns FI_SNODE_RDV_POOL=4294967296)
	check "FI_SNODE_RDV_POOL=4 GiB refused with a warning ($out)" \
		grep -q 'FI_SNODE_RDV_POOL: 4294967296 is not in 1..2147483648' <<<"$out"
	out=$(warns FI_SNODE_SEND_TIMEOUT_MS=-1)
	check "FI_SNODE_SEND_TIMEOUT_MS=-1 refused with a warning ($out)" \
		grep -q 'FI_SNODE_SEND_TIMEOUT_MS: -1 is not in 1' <<<"$out"
	out=$(warns FI_SNODE_RX_ENTRIES=64)
	check "FI_SNODE_RX_ENTRIES=64 taken without a warning ($out)" [ -z "$out" ]
else
	skip "runtime parameters out of range warn" "no fi_info on this host (libfabric-bin)"
fi
out=$("$TEST" 2>&1)
check "ofi_test without arguments: usage, exit status 2" \
	bash -c "'$TEST' >/dev/null 2>&1; [ \$? -eq 2 ]"
echo "1..$n"
[ "$failed" -eq 0 ]
