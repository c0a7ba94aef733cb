#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A private apt configuration under build/apt, used to fetch Debian kernel,
# linux-source and QEMU source packages without installing anything on the
# host and without touching /etc/apt.
#
# Usage:
#   scripts/apt-private.sh setup              create build/apt, refresh lists if stale
#   scripts/apt-private.sh update             force a refresh of the package lists
#   scripts/apt-private.sh download PKG...    apt-get download into the current dir
#   scripts/apt-private.sh source PKG...      apt-get source --download-only into cwd
#   scripts/apt-private.sh cache ARGS...      apt-cache with the private config
#   scripts/apt-private.sh get ARGS...        apt-get with the private config
#   scripts/apt-private.sh env                print "export APT_CONFIG=..."
#
# Environment: SNODE_BUILD (default <repo>/build), APT_MAX_AGE (seconds a
# package list may be old before "setup" refreshes it, default 6 h).

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${SNODE_BUILD:-$ROOT/build}
APTDIR=$BUILD/apt
APT_MAX_AGE=${APT_MAX_AGE:-21600}
MIRROR=http://deb.debian.org/debian
SECURITY=http://deb.debian.org/debian-security

write_config()
{
	mkdir -p "$APTDIR"/{state/lists/partial,cache/archives/partial,etc/preferences.d,etc/apt.conf.d}
	local sources="$APTDIR/etc/sources.list" tmp
	tmp=$(mktemp "$APTDIR/.sources.XXXXXX")
	cat > "$tmp" <<EOS
deb $MIRROR bookworm main
deb-src $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb-src $MIRROR bookworm-updates main
deb $SECURITY bookworm-security main
deb-src $SECURITY bookworm-security main
deb $MIRROR bookworm-backports main
deb-src $MIRROR bookworm-backports main
EOS
	if cmp -s "$tmp" "$sources"; then rm -f "$tmp"; else mv "$tmp" "$sources"; fi

	tmp=$(mktemp "$APTDIR/.conf.XXXXXX")
	# Empty status file: the private apt must not think the host's installed
	# packages satisfy anything, and must never install or remove anything.
	cat > "$tmp" <<EOS
Dir::State "$APTDIR/state";
Dir::State::status "$APTDIR/state/status";
Dir::Cache "$APTDIR/cache";
Dir::Etc::SourceList "$APTDIR/etc/sources.list";
Dir::Etc::SourceParts "$APTDIR/etc/sources.list.d";
Dir::Etc::Preferences "$APTDIR/etc/preferences";
Dir::Etc::PreferencesParts "$APTDIR/etc/preferences.d";
Dir::Etc::Parts "$APTDIR/etc/apt.conf.d";
Dir::Etc::TrustedParts "/etc/apt/trusted.gpg.d";
Dir::Etc::Trusted "$APTDIR/etc/trusted.gpg";
Debug::NoLocking "true";
APT::Sandbox::User "root";
APT::Get::AllowUnauthenticated "false";
Acquire::Languages "none";
Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled "false";
Acquire::Retries "3";
Acquire::http::Timeout "30";
APT::Install-Recommends "false";
EOS
	if cmp -s "$tmp" "$APTDIR/apt.conf"; then rm -f "$tmp"; else mv "$tmp" "$APTDIR/apt.conf"; fi
	mkdir -p "$APTDIR/etc/sources.list.d"
	[ -e "$APTDIR/state/status" ] || : > "$APTDIR/state/status"
}

export APT_CONFIG=$APTDIR/apt.conf

do_update()
{
	echo "apt-private: refreshing package lists in $APTDIR" >&2
	apt-get -q update >"$APTDIR/update.log" 2>&1 || {
		cat "$APTDIR/update.log" >&2
		echo "apt-private: apt-get update failed" >&2
		exit 1
	}
	touch "$APTDIR/lists.stamp"
}

# lock_lists: held until this script exits. make check-build fetches
# kernels, sources and QEMU's at once: one of them refreshes the lists,
# the others wait for it (apt itself does not lock here: Debug::NoLocking)
lock_lists()
{
	mkdir -p "$APTDIR"
	exec 8>"$APTDIR/.setup.lock"
	flock 8
}

setup()
{
	lock_lists
	write_config
	local stamp=$APTDIR/lists.stamp now age
	if [ -e "$stamp" ]; then
		now=$(date +%s)
		age=$(( now - $(stat -c %Y "$stamp") ))
		[ "$age" -lt "$APT_MAX_AGE" ] && return 0
	fi
	do_update
}

# Run as root (we are root in CI), but apt's sandbox user "_apt" cannot write
# into build/; APT::Sandbox::User=root above avoids the warning and failure.
cmd=${1:-setup}
[ $# -gt 0 ] && shift
case "$cmd" in
setup)
	setup
	;;
update)
	lock_lists
	write_config
	do_update
	;;
download)
	setup
	apt-get -q download "$@"
	;;
source)
	setup
	apt-get -q source --download-only "$@"
	;;
cache)
	setup
	apt-cache "$@"
	;;
get)
	setup
	apt-get "$@"
	;;
env)
	echo "export APT_CONFIG=$APT_CONFIG"
	;;
*)
	echo "usage: $0 setup|update|download PKG...|source PKG...|cache ARGS...|get ARGS...|env" >&2
	exit 2
	;;
esac
