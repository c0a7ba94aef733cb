# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# pkg-lib.sh - shared by install-test.sh, dkms-test.sh and deb-test.sh:
# TAP helpers and the README's example program. Sourced; the caller sets
# LOG (the last command's output, shown under a failure).

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"
	[ -s "$LOG" ] && sed 's/^/#   /' "$LOG" | tail -n 25
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
check() {	# check NAME COMMAND...: ok if COMMAND succeeds, output in $LOG
	local name=$1; shift
	if "$@" >"$LOG" 2>&1; then ok "$name"; else not_ok "$name"; fi
}
finish() { echo "1..$n"; [ "$failed" -eq 0 ]; exit; }

# relay_tap FILE WANT: the "ok - "/"not ok - " lines a chroot printed into
# FILE as our checks, and one failure unless there were WANT of them
relay_tap() {
	local line nres=0

	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "${line#ok - }"; nres=$((nres + 1)) ;;
		"not ok - "*) not_ok "${line#not ok - }"; nres=$((nres + 1)) ;;
		esac
	done <"$1"
	[ "$nres" -eq "$2" ] || not_ok "the chroot ran all $2 checks (it ran $nres)"
}

# readme_example FILE: the README's snode-hello.c, exactly as printed there
readme_example() {
	awk '/^<!-- snode-hello.c:/ { f = 1; next } f && /^```c$/ { g = 1; next }
		g && /^```$/ { exit } g' "$TOP/README.md" >"$1"
}

# run_hello NAME BINARY LIBDIR: without a device (SNODE_SYSFS points
# nowhere) the example gets as far as listing devices and reports none.
run_hello() {
	local out rc
	out=$(SNODE_SYSFS=/nonexistent/snode-class LD_LIBRARY_PATH=$3 "$2" 2>&1); rc=$?
	if [ "$rc" -eq 2 ] && [ "$out" = "snode-hello: no snode device (is snode.ko loaded?)" ]; then
		ok "$1 runs and lists devices (none on the host)"
	else
		echo "exit $rc: $out" >"$LOG"; not_ok "$1 runs and lists devices (none on the host)"
	fi
}

# overlay_chroot DIR SCRIPT [ARG...]: run SCRIPT with bash in a chroot whose
# root is an overlay of this host's root (upper layer in DIR, in a private
# mount namespace: the host's files are never written), with /proc, /dev
# and /sys of the host and a fresh tmpfs on /tmp. The checkout ($TOP) is
# bound back at its own path over that tmpfs: a checkout under /tmp (or
# reached through a link there, scripts/path-alias.sh) would be hidden by
# it, and SCRIPT, the packages and the kernel headers live in the
# checkout's build/. Needs root and unshare.
overlay_chroot() {
	local dir=$1
	shift
	mkdir -p "$dir/upper" "$dir/work" "$dir/root"
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare --mount --propagation private bash -c '
		set -e
		o=$1 top=$2
		shift 2
		mount -t overlay overlay -o "lowerdir=/,upperdir=$o/upper,workdir=$o/work" "$o/root"
		for d in /proc /dev /sys; do mount --rbind "$d" "$o/root$d"; done
		mount -t tmpfs tmpfs "$o/root/tmp"
		mkdir -p "$o/root$top"
		mount --bind "$top" "$o/root$top"
		chroot "$o/root" /bin/bash "$@"
	' sh "$dir" "$TOP" "$@"
}

# export_tree DIR: the checkout's files, committed or not, without build/
# and ignored files, into DIR, as make deb (scripts/build-deb.sh) takes them
export_tree() {
	mkdir -p "$1"
	# the inner sh expands $f
	# shellcheck disable=SC2016
	(cd "$TOP" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		tar --null -T - -cf -) | tar -C "$1" -xf -
}

# debian_tarball RELEASE VARIANT TAR: a Debian RELEASE (bookworm, trixie)
# made by mmdebstrap --variant=VARIANT from Debian's archive (main, updates,
# security) as TAR, kept a week; prints why on failure
debian_tarball() {
	local rel=$1 variant=$2 tar=$3 new=${3%.tar}.new.tar
	[ -f "$tar" ] && [ -n "$(find "$tar" -mtime -7)" ] && return 0
	mkdir -p "${tar%/*}"
	rm -rf "$tar" "$new"
	# mmdebstrap picks the format by the name's extension: .tar
	if ! mmdebstrap --variant="$variant" "$rel" "$new" \
		"deb http://deb.debian.org/debian $rel main" \
		"deb http://deb.debian.org/debian $rel-updates main" \
		"deb http://deb.debian.org/debian-security $rel-security main" >"$tar.log" 2>&1; then
		tail -n 20 "$tar.log"
		return 1
	fi
	mv "$new" "$tar"
}

# tarball_ns TAR DIR COMMAND...: unpack TAR into DIR (anew) and run COMMAND
# in a private mount namespace where DIR has the host's /dev, /sys, a /proc,
# a fresh tmpfs on /tmp and the host's resolver (Debian's archive is
# reached from inside); DIR is removed afterwards. Needs root and unshare.
tarball_ns() {
	local tar=$1 dir=$2 rc
	shift 2
	rm -rf "$dir"
	mkdir -p "$dir"
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare --mount --propagation private bash -c '
		set -e
		r=$1 tar=$2
		shift 2
		tar -C "$r" --exclude=./dev -xf "$tar"
		mkdir -p "$r/dev" "$r/proc" "$r/sys" "$r/tmp"
		mount --rbind /dev "$r/dev"
		mount -t proc proc "$r/proc"
		mount --rbind /sys "$r/sys"
		mount -t tmpfs tmpfs "$r/tmp"
		rm -f "$r/etc/resolv.conf"
		cp -L /etc/resolv.conf "$r/etc/resolv.conf"
		"$@"
	' sh "$dir" "$tar" "$@"
	rc=$?
	rm -rf "$dir"
	return $rc
}
