#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest half of the emulator test, run on one emulated host before any
# driver is loaded: the NICs are on the PCI bus with the placeholder IDs and
# their identity registers read back as Documentation/hw/snode-nic.rst says,
# with the values the fabric manager configured.
#
# Usage: guest-emu.sh NODE_IDS FABRIC_ID NPORTS POOL_SIZE
#   NODE_IDS: comma-separated fabric node ids of this host's NICs
# Prints TAP.

set -u
EXPECT_NODES=$1
EXPECT_FABRIC=$2
EXPECT_PORTS=$3
EXPECT_POOL=$4
PEEK=/usr/lib/snode/selftests/emu/bar_peek
n=0
fails=0

ok() {
	n=$((n + 1))
	echo "ok $n - $*"
}

not_ok() {
	n=$((n + 1))
	fails=$((fails + 1))
	echo "not ok $n - $*"
}

check() {	# check NAME GOT WANT
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1: got $2, want $3"
	fi
}

reg() {		# reg BDF BAR OFFSET -> decimal value
	v=$($PEEK "$1" "$2" "$3" | awk '{print $2}')
	printf '%u' "$v"
}

want_count=$(echo "$EXPECT_NODES" | tr ',' '\n' | grep -c .)
bdfs=$(lspci -Dn -d 1b36:0110 | awk '{print $1}')
count=$(echo "$bdfs" | grep -c .)
check "lspci -n shows $want_count NIC(s) with ID 1b36:0110 on node $SNODE_NODE" \
	"$count" "$want_count"

seen=,
for bdf in $bdfs; do
	id=$(reg "$bdf" 0 0x010)
	check "$bdf MAGIC is SNOD" "$(reg "$bdf" 0 0x000)" $((0x534e4f44))
	check "$bdf VERSION is 1.0" "$(reg "$bdf" 0 0x004)" $((0x00010000))
	check "$bdf STATUS.ATTACHED set" $(( $(reg "$bdf" 0 0x044) >> 1 & 1 )) 1
	case ",$EXPECT_NODES," in
	*",$id,"*) ok "$bdf NODE_ID $id is one of this host's nodes ($EXPECT_NODES)" ;;
	*) not_ok "$bdf NODE_ID $id is not one of $EXPECT_NODES" ;;
	esac
	case "$seen" in
	*",$id,"*) not_ok "$bdf NODE_ID $id seen twice" ;;
	esac
	seen="$seen$id,"
	check "$bdf FABRIC_ID" "$(reg "$bdf" 0 0x014)" "$EXPECT_FABRIC"
	l0=$(reg "$bdf" 0 0x018)
	check "$bdf LIMITS0 ports" $((l0 & 0xff)) "$EXPECT_PORTS"
	check "$bdf LIMITS0 max nodes" $((l0 >> 16)) 1024
	l1=$(reg "$bdf" 0 0x01c)
	check "$bdf LIMITS1 ATT entries" $((l1 & 0xffff)) 256
	check "$bdf LIMITS1 export entries" $((l1 >> 16)) 256
	pool=$(( $(reg "$bdf" 0 0x02c) << 32 | $(reg "$bdf" 0 0x028) ))
	check "$bdf POOL_SIZE" "$pool" "$EXPECT_POOL"
	ap=$(( $(reg "$bdf" 0 0x024) << 32 | $(reg "$bdf" 0 0x020) ))
	check "$bdf APERTURE_SIZE is 4 GiB" "$ap" $((4 << 30))
	check "$bdf SCRATCH resets to 0" "$(reg "$bdf" 0 0x030)" 0
	check "$bdf CTRL resets to 0" "$(reg "$bdf" 0 0x040)" 0
	check "$bdf TEMP_MAX resets to 85000" "$(reg "$bdf" 0 0x104)" 85000
	check "$bdf an unmapped aperture word reads all-ones" \
		"$(reg "$bdf" 2 0x0)" $((0xffffffff))
	check "$bdf BAR4 is the pool" \
		"$(stat -c %s /sys/bus/pci/devices/"$bdf"/resource4)" "$EXPECT_POOL"
done
[ "$fails" -eq 0 ]
