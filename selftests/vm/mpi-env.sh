# SPDX-License-Identifier: GPL-2.0-or-later
#
# mpi-env.sh - Debian's OpenMPI over snode in the emulated nodes, sourced
# by selftests/vm/mpi.sh and tools/snode-perf/bench-mpi.sh (decision 0032,
# Documentation/admin-guide/mpi.rst): what is staged into the guests, how a
# node is set up, and mpirun's command line. Needs BUILD set.

# shellcheck shell=bash disable=SC2034

MPI_OFI=/usr/lib/snode/ofi
MPI_TEST=/usr/lib/snode/mpi/mpi_test
# snode-vm up options: openmpi-bin (mpirun, orted); libopenmpi3, its
# components (dlopen()ed, so no soname pulls them in); libpmix2, PMIx's own
# components; openmpi-common, the help texts; dropbear-bin (dropbear,
# dbclient); and mpi_test (make mpi)
MPI_STAGE=()
for _p in openmpi-bin libopenmpi3 libpmix2 openmpi-common dropbear-bin; do
	MPI_STAGE+=(--package "$_p")
done
unset _p
MPI_STAGE+=(--add "$BUILD/mpi/mpi_test:$MPI_TEST")

mpi_ip() { echo "10.78.0.$(($1 + 1))"; }
# mpi_hosts N: mpirun's --host for nodes 0..N-1, one rank each
mpi_hosts() {
	local i h=''
	for ((i = 0; i < $1; i++)); do h=$h${h:+,}$(mpi_ip "$i"); done
	echo "$h"
}

# mpi_node_setup NODE: the guest command that loads the driver, gives
# snode0 its address and starts dropbear. TCP gives up on a connection
# whose data goes unanswered after 5 retransmissions (~13 s, not the
# default 15: ~15 minutes), so that mpirun learns of a dead node's daemon
# while it has data queued to it.
mpi_node_setup() {
	echo "insmod /lib/snode/snode.ko && ip link set lo up &&
		echo 5 >/proc/sys/net/ipv4/tcp_retries2 &&
		ip link set dev snode0 up && ip addr add $(mpi_ip "$1")/24 dev snode0 &&
		mkdir -p /etc/dropbear /root/.ssh && chmod 700 /root/.ssh &&
		dropbear -R -p 22 2>/tmp/dropbear.log"
}

# mpi_keys EXEC NODE...: a key for this run only, made in node 0 by
# dropbearkey; its public half into each NODE's authorized_keys. EXEC
# NODE COMMAND runs a guest command. Prints the public key.
mpi_keys() {
	local exec=$1 pub node
	shift
	pub=$("$exec" 0 "dropbearkey -t ed25519 -f /root/.ssh/id_dropbear >/dev/null 2>&1 &&
		dropbearkey -y -f /root/.ssh/id_dropbear | grep '^ssh-ed25519 '")
	for node in "$@"; do
		"$exec" "$node" "umask 077 && echo '$pub' >/root/.ssh/authorized_keys" >/dev/null
	done
	echo "$pub"
}

MPI_AGENT="dbclient -y -y -i /root/.ssh/id_dropbear"
# Every transport but the provider is switched off: pml cm with mtl ofi
# restricted to snode, btl self only (pml cm needs no other), oob over
# snode0; TCP keepalives on idle oob connections after 5 s. One line: it
# goes into a guest's shell command.
MPI_MCA="--allow-run-as-root --mca plm_rsh_agent '$MPI_AGENT' --mca plm_rsh_no_tree_spawn 1 \
--mca oob_tcp_if_include snode0 --mca oob_tcp_keepalive_time 5 \
--mca oob_tcp_keepalive_intvl 2 --mca oob_tcp_keepalive_probes 3 \
--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include snode --mca btl self"

# mpi_cmd N VAR=VALUE|- ARGS...: the command line, on node 0, of a job of
# N ranks running mpi_test ARGS; VAR is set for mpirun and passed on to
# the ranks (-x), as FI_PROVIDER_PATH (which the caller exports) is
mpi_cmd() {
	local np=$1 env='' x=''
	case "$2" in
	*=*) env="env $2" x="-x ${2%%=*}" ;;
	esac
	shift 2
	echo "$env mpirun.openmpi $MPI_MCA --host $(mpi_hosts "$np") -np $np -x FI_PROVIDER_PATH $x $MPI_TEST $*"
}
