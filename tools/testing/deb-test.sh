#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# deb-test.sh - "make deb" and what its packages give a user. Builds the
# seven packages, checks lintian found no error and what each ships, unpacks
# them into a root directory (dpkg -x: the maintainer scripts of
# snode-common and snode-dkms act on the running system, so they are not run
# here), runs the packaged snodectl, the README's example program built
# against libsnode-dev with pkg-config and the packaged kselftest runner's
# listing (snode-selftests), Debian's libfabric finding the provider
# (libfabric-snode) in its own provider directory; builds snode.ko with the real dkms
# from snode-dkms's source (private trees, as dkms-test.sh), and, when the
# emulator is built, boots one emulated node with only the packaged files
# and that module staged and runs snodectl, the example and Debian's fi_info
# on the packaged provider there. TAP.
#
# Usage: tools/testing/deb-test.sh [KERNEL]   (guest kernel, default 6.12)

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
T=$TOP/build/deb-test
R=$T/root
LOG=$T/log
KERNEL=${1:-6.12}
VERSION=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version)
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
ARCH=$(dpkg-architecture -qDEB_HOST_ARCH)
export SNODE_SYSFS=/nonexistent/snode-class	# no device on the host
unset CFLAGS CPPFLAGS LDFLAGS PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

# shellcheck source=tools/testing/pkg-lib.sh
. "$TOP/tools/testing/pkg-lib.sh"

rm -rf "$T"
mkdir -p "$T"
: >"$LOG"

if ! command -v dh >/dev/null || ! command -v dh_dkms >/dev/null; then
	skip "make deb" "debhelper or dh-dkms missing (scripts/install-deps.sh)"
	finish
fi
t0=$SECONDS
# nocheck: the package build's test (debian/rules: install-test.sh) is the
# install suite of make check, which runs it from the same sources; here it
# would run a second time (about 30 s). make deb alone still runs it.
if DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:+$DEB_BUILD_OPTIONS }nocheck" \
	make -C "$TOP" --no-print-directory deb >"$T/make-deb.log" 2>&1; then
	ok "make deb ($((SECONDS - t0)) s)"
else
	tail -n 40 "$T/make-deb.log" >"$LOG"; not_ok "make deb"; finish
fi
DEB=$TOP/build/deb
deb() { echo "$DEB/${1}_${VERSION}_$2.deb"; }
missing=()
PKGS=("snode-common all" "snode-dkms all" "libsnode1 $ARCH" "libsnode-dev $ARCH" "snode-tools $ARCH"
	"snode-selftests $ARCH" "libfabric-snode $ARCH" "libfabric-snode-dev all")
for p in "${PKGS[@]}"; do
	# shellcheck disable=SC2086
	[ -f "$(deb $p)" ] || missing+=("${p% *}")
done
if [ ${#missing[@]} -eq 0 ]; then
	ok "make deb built snode-common, snode-dkms, libsnode1, libsnode-dev, snode-tools, snode-selftests, libfabric-snode, libfabric-snode-dev in build/deb/"
else
	ls "$DEB" >"$LOG" 2>&1; not_ok "packages missing: ${missing[*]}"; finish
fi
# What dpkg's tools warn of, they adjust silently: a substitution variable
# used but never defined (${shlibs:Depends} of a package without ELF
# dependencies), a symbols file that does not match the library (versions
# above the package's lowered, symbols added)
if grep -E '^(dpkg-[a-z]+|dh_[a-z_]+): warning' "$T/make-deb.log" >"$LOG"; then
	not_ok "make deb: no warning from dpkg-gencontrol, dpkg-gensymbols, dpkg-shlibdeps or debhelper"
else
	ok "make deb: no warning from dpkg-gencontrol, dpkg-gensymbols, dpkg-shlibdeps or debhelper"
fi
if [ -s "$DEB/lintian.log" ] && ! grep -Eq '^[EW]:' "$DEB/lintian.log"; then
	ok "lintian: no errors or warnings ($(grep -c '^[IP]:' "$DEB/lintian.log") notes)"
elif [ ! -s "$DEB/lintian.log" ] && ! command -v lintian >/dev/null; then
	skip "lintian: no errors or warnings" "lintian is not installed"
else
	grep -E '^[EW]:' "$DEB/lintian.log" >"$LOG"; not_ok "lintian: no errors or warnings"
fi

# The changelog's entry for this version names every binary package of
# debian/control (it once listed four of six)
unnamed=()
changes=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Changes | tr -s ' \n' ' ')
while read -r p; do
	grep -Eq "(^|[ ,])$p([ ,.]|$)" <<<"$changes" || unnamed+=("$p")
done < <(sed -n 's/^Package: //p' "$TOP/debian/control")
if [ ${#unnamed[@]} -eq 0 ]; then
	ok "debian/changelog's $VERSION entry names every package of debian/control"
else
	echo "$changes" >"$LOG"
	not_ok "debian/changelog's $VERSION entry names every package of debian/control (not: ${unnamed[*]})"
fi

# contents PACKAGE PATH...: each PATH is in the package
contents() {
	local p=$1 f list; shift
	list=$(dpkg-deb -c "$(deb "$p" "$ARCH_OF")" | awk '{ print $6 }' | sed 's|^\./|/|')
	for f in "$@"; do
		grep -qx -- "$f" <<<"$list" || { echo "$p lacks $f" >"$LOG"; return 1; }
	done
}
ARCH_OF=$ARCH
# udev's and systemd's own directories (udev.pc, systemd.pc), where
# debian/rules installs the rule and the units: /lib/... on bookworm,
# /usr/lib/... after the usr-merge
UDEVDIR=$(pkg-config --variable=udevdir udev 2>/dev/null)
UNITDIR=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
RULE=$UDEVDIR/rules.d/60-snode.rules
SYSUSERS=/usr/lib/sysusers.d/snode.conf
if [ -n "$UDEVDIR" ] && [ -n "$UNITDIR" ]; then
	ok "pkg-config gives udevdir $UDEVDIR and systemdsystemunitdir $UNITDIR"
else
	: >"$LOG"; not_ok "pkg-config gives udevdir and systemdsystemunitdir (udev.pc, systemd.pc)"
fi
check_contents() { if contents "$@"; then ok "$1 ships $(($# - 1)) expected files"; else not_ok "$1 contents"; fi; }
check_contents libsnode1 "/usr/lib/$MA/libsnode.so.1"
check_contents libsnode-dev /usr/include/libsnode.h /usr/include/linux/snode.h /usr/include/linux/snode_nl.h \
	"/usr/lib/$MA/libsnode.so" "/usr/lib/$MA/libsnode.a" "/usr/lib/$MA/pkgconfig/libsnode.pc" \
	/usr/share/man/man3/snode_new.3.gz /usr/share/man/man7/libsnode.7.gz
OFIDIR=/usr/lib/$MA/libfabric
check_contents libfabric-snode "$OFIDIR/libsnode-fi.so" /usr/share/man/man7/fi_snode.7.gz
ARCH_OF=all check_contents libfabric-snode-dev /usr/include/rdma/fi_ext_snode.h
check_contents snode-tools /usr/bin/snodectl /usr/bin/snode-perf \
	/usr/share/bash-completion/completions/snodectl \
	/usr/share/man/man8/snodectl.8.gz "$UNITDIR/snode-link-record.service" \
	"$UNITDIR/snode-link-record.timer"
# The weekly link record is installed, never enabled or started by the
# package. dh_installsystemd --no-enable still re-enables on upgrade what
# the administrator enabled, inside "if deb-systemd-helper
# debian-installed" (false on a first install); its default instead
# enables on first install ("was-enabled defaults to true").
if dpkg-deb -I "$(deb snode-tools "$ARCH")" postinst >"$LOG" 2>&1 &&
	grep -q "deb-systemd-helper debian-installed 'snode-link-record.timer'" "$LOG" &&
	! grep -q 'was-enabled defaults to true' "$LOG" &&
	! grep -Eq 'deb-systemd-invoke|systemctl .*(enable|start)' "$LOG"; then
	ok "snode-tools's postinst neither enables nor starts snode-link-record.timer"
else
	not_ok "snode-tools's postinst neither enables nor starts snode-link-record.timer"
fi
KSFT=/usr/lib/snode/selftests
check_contents snode-selftests $KSFT/run_kselftest.sh $KSFT/kselftest-list.txt \
	$KSFT/snode/core_test $KSFT/snode/mem_test $KSFT/snode/netlink_test \
	$KSFT/snode/mem_peer $KSFT/snode/config $KSFT/snode/settings
ARCH_OF=all
check_contents snode-common "$RULE" "$SYSUSERS"
# Every user of /dev/snodeN gets the group and the rule through snode-common:
# no other package ships them (they moved there from snode-tools)
shipped=
for p in "${PKGS[@]}"; do
	[ "${p% *}" = snode-common ] && continue
	# shellcheck disable=SC2086
	dpkg-deb -c "$(deb $p)" | grep -Eq '/60-snode\.rules$|/sysusers\.d/snode\.conf$' && shipped+=" ${p% *}"
done
if [ -z "$shipped" ]; then
	ok "only snode-common ships the udev rule and sysusers.d/snode.conf"
else
	: >"$LOG"; not_ok "only snode-common ships the udev rule and sysusers.d/snode.conf (also:$shipped)"
fi
for p in "snode-dkms all" "libsnode1 $ARCH" "libfabric-snode $ARCH" "snode-tools $ARCH"; do
	# shellcheck disable=SC2086
	if dpkg-deb -f "$(deb $p)" Depends | tee "$LOG" | grep -q 'snode-common (>= '; then
		ok "${p% *} depends on snode-common"
	else
		not_ok "${p% *} depends on snode-common"
	fi
done
# the group comes from dh_installsysusers's systemd-sysusers call, not a
# hand-written addgroup (snode-tools's postinst once had one)
scripts=$T/maint-scripts
mkdir -p "$scripts"
for p in "${PKGS[@]}"; do
	# shellcheck disable=SC2086
	(cd "$scripts" && dpkg-deb -e "$(deb $p)" "${p% *}")
done
if grep -q 'systemd-sysusers .*snode\.conf' "$scripts/snode-common/postinst" 2>"$LOG" &&
	! grep -rlE 'addgroup|groupadd' "$scripts" >"$LOG" 2>&1; then
	ok "snode-common's postinst creates the group with systemd-sysusers; no package runs addgroup"
else
	not_ok "snode-common's postinst creates the group with systemd-sysusers; no package runs addgroup"
fi
check_contents snode-dkms "/usr/src/snode-$VERSION/dkms.conf" "/usr/src/snode-$VERSION/Kbuild" \
	"/usr/src/snode-$VERSION/driver/Kbuild" "/usr/src/snode-$VERSION/uapi/linux/snode.h" \
	"/usr/src/snode-$VERSION/uapi/linux/snode_nl.h"

if dpkg-deb -I "$(deb libsnode1 "$ARCH")" symbols >"$LOG" 2>&1 &&
	grep -q "^ snode_new@LIBSNODE_1 " "$LOG"; then
	ok "libsnode1 has a symbols file ($(grep -c '@LIBSNODE_1 ' "$LOG") symbols)"
else
	not_ok "libsnode1 has a symbols file"
fi
# the package's symbols are the committed file's (debian/libsnode1.symbols)
if diff <(awk '/^ / { print $1 }' "$LOG" | sort) \
	<(awk '/^ / { print $1 }' "$TOP/debian/libsnode1.symbols" | sort) >"$LOG.diff"; then
	ok "libsnode1's symbols are those of debian/libsnode1.symbols"
else
	not_ok "libsnode1's symbols are those of debian/libsnode1.symbols ($(grep -c '^[<>]' "$LOG.diff") differ)"
fi
if dpkg-deb -f "$(deb snode-tools "$ARCH")" Depends | tee "$LOG" | grep -q 'libsnode1 (>= '; then
	ok "snode-tools depends on libsnode1"
else
	not_ok "snode-tools depends on libsnode1"
fi
# libsnode is linked into the provider (its symbols hidden): it needs
# libfabric1, not libsnode1
deps=$(dpkg-deb -f "$(deb libfabric-snode "$ARCH")" Depends)
if grep -q 'libfabric1 (>= ' <<<"$deps" && ! grep -q libsnode1 <<<"$deps"; then
	ok "libfabric-snode depends on libfabric1, not on libsnode1 ($deps)"
else
	echo "$deps" >"$LOG"; not_ok "libfabric-snode depends on libfabric1, not on libsnode1"
fi
if dpkg-deb -I "$(deb snode-dkms all)" postinst 2>&1 | tee "$LOG" | grep -q 'DKMS_NAME=snode'; then
	ok "snode-dkms's postinst hands the module to dkms"
else
	not_ok "snode-dkms's postinst hands the module to dkms"
fi

# --- unpacked ----------------------------------------------------------------
for p in "${PKGS[@]}"; do
	# shellcheck disable=SC2086
	dpkg -x "$(deb $p)" "$R"
done
L=$R/usr/lib/$MA
out=$(LD_LIBRARY_PATH=$L "$R/usr/bin/snodectl" -V 2>&1)
if [ "$out" = "snodectl ${VERSION%%-*}" ] &&
	LD_LIBRARY_PATH=$L ldd "$R/usr/bin/snodectl" | grep -q "libsnode.so.1 => $L/libsnode.so.1"; then
	ok "packaged snodectl runs on the packaged libsnode1 ($out)"
else
	echo "$out" >"$LOG"; not_ok "packaged snodectl runs on the packaged libsnode1"
fi
out=$(LD_LIBRARY_PATH=$L "$R/usr/bin/snodectl" help 2>&1)
if grep -q '^Usage: snodectl' <<<"$out"; then
	ok "packaged snodectl prints its help"
else
	echo "$out" >"$LOG"; not_ok "packaged snodectl prints its help"
fi

if ! command -v fi_info >/dev/null; then
	skip "Debian's libfabric loads the packaged provider" "no fi_info on this host (libfabric-bin)"
else
	out=$(FI_PROVIDER_PATH=$R$OFIDIR fi_info -l 2>&1)
	if grep -qx 'snode:' <<<"$out"; then
		ok "Debian's libfabric loads the packaged provider (fi_info -l lists snode)"
	else
		echo "$out" >"$LOG"; not_ok "Debian's libfabric loads the packaged provider"
	fi
fi

readme_example "$T/snode-hello.c"
pc() { PKG_CONFIG_PATH=$L/pkgconfig pkg-config --define-variable=prefix="$R/usr" "$@"; }
# shellcheck disable=SC2046
if gcc -Wall -Wextra -Werror -o "$T/snode-hello" "$T/snode-hello.c" \
	$(pc --cflags --libs libsnode) >"$LOG" 2>&1; then
	ok "example builds against libsnode-dev with pkg-config"
else
	not_ok "example builds against libsnode-dev with pkg-config"
fi
run_hello "example on the packaged libsnode1" "$T/snode-hello" "$L"

# the packaged runner lists the packaged list, core_test among them
out=$("$R$KSFT/run_kselftest.sh" -l 2>&1)
if [ "$out" = "$(cat "$R$KSFT/kselftest-list.txt")" ] && grep -qx 'snode:core_test' <<<"$out"; then
	ok "packaged run_kselftest.sh -l lists the collection ($(wc -l <<<"$out") tests)"
else
	echo "$out" >"$LOG"; not_ok "packaged run_kselftest.sh -l lists the collection"
fi

KDIR=$TOP/build/kernels/$KERNEL

# --- installed with dpkg -i ---------------------------------------------------
# A real installation, maintainer scripts included, in a chroot whose root is
# an overlay of this host's own root (the upper layer under build/, in a
# private mount namespace): the host's files, dpkg database, groups and
# /var/lib/dkms are never written. DKMS builds for KERNEL, whose headers
# become /lib/modules/KVER/build in the chroot.
O=$T/overlay
chroot_install() {
	local kver=$1 headers=$2 debs=() p
	for p in libsnode1 libsnode-dev snode-tools snode-selftests libfabric-snode; do
		debs+=("$(deb "$p" "$ARCH")")
	done
	debs+=("$(deb snode-dkms all)" "$(deb snode-common all)" "$(deb libfabric-snode-dev all)")
	# paths quoted for the script (%q): the checkout's path may hold a space
	cat >"$T/inside.sh" <<EOF
#!/bin/bash
# run in the chroot: prints "ok - ..." or "not ok - ..." per check
res() { if [ "\$1" -eq 0 ]; then echo "ok - \$2"; else echo "not ok - \$2"; fi; }
export DEBIAN_FRONTEND=noninteractive PATH=/usr/sbin:/usr/bin:/sbin:/bin
# A compute node: the provider and what it depends on, no snode-tools. The
# group must come from this install, whatever the host's /etc/group holds.
! getent group snode >/dev/null || groupdel snode
dpkg -i $(printf '%q ' "$(deb libfabric-snode "$ARCH")" "$(deb snode-common all)") >/tmp/dpkg.log 2>&1
res \$? "dpkg -i of libfabric-snode and its dependency snode-common alone"
gid=\$(getent group snode | cut -d: -f3)
[ -n "\$gid" ] && [ "\$gid" -lt 1000 ] && ! dpkg -s snode-tools >/dev/null 2>&1
res \$? "libfabric-snode alone yields system group snode (gid \$gid) by systemd-sysusers"
[ "\$(dpkg -S $RULE 2>/dev/null)" = "snode-common: $RULE" ] &&
	grep -q 'GROUP="snode"' $RULE
res \$? "libfabric-snode alone yields the udev rule in udev's directory ($RULE, snode-common's)"
dpkg -i $(printf '%q ' "${debs[@]}") >>/tmp/dpkg.log 2>&1
res \$? "dpkg -i of the eight packages (maintainer scripts run)"
getent group snode >/dev/null; res \$? "group snode still there with every package"
[ "\$(snodectl -V)" = "snodectl ${VERSION%%-*}" ]; res \$? "snodectl from /usr/bin runs"
$KSFT/run_kselftest.sh -l | grep -qx 'snode:core_test'; res \$? "$KSFT/run_kselftest.sh -l lists snode:core_test"
cc -Wall -Werror -o /tmp/snode-hello $(printf '%q' "$T/snode-hello.c") \$(pkg-config --cflags --libs libsnode) &&
	SNODE_SYSFS=/nonexistent /tmp/snode-hello 2>&1 | grep -q 'no snode device'
res \$? "the example builds with pkg-config from /usr and runs"
cc -Wall -Werror -o /tmp/snode-stats $(printf '%q' "$TOP/tools/testing/fi-ext-snode-example.c") \$(pkg-config --cflags --libs libfabric) &&
	/tmp/snode-stats | grep -qx 'snode_stats 56'
res \$? "a program including <rdma/fi_ext_snode.h> (libfabric-snode-dev) builds with libfabric's pkg-config and runs"
# no FI_PROVIDER_PATH: libfabric's own directory
fi_info -l 2>&1 | grep -qx 'snode:'
res \$? "fi_info -l finds the installed provider without FI_PROVIDER_PATH"
mkdir -p /lib/modules/$kver && ln -sfn $(printf '%q' "$headers") /lib/modules/$kver/build
dkms autoinstall -k $kver >/tmp/dkms.log 2>&1
dkms status -k $kver | tee -a /tmp/dkms.log | grep -q '^snode/${VERSION%%-*}, $kver, [^:]*: installed'
res \$? "dkms autoinstall: dkms status shows snode installed for $kver"
[ "\$(modinfo -F vermagic -k $kver snode 2>/dev/null | cut -d' ' -f1)" = "$kver" ]
res \$? "modinfo -k $kver snode finds the DKMS module"
dpkg --purge snode-dkms snode-selftests snode-tools libsnode-dev libsnode1 libfabric-snode-dev \
	libfabric-snode snode-common >>/tmp/dpkg.log 2>&1 &&
	[ ! -e /usr/src/snode-${VERSION%%-*} ] && [ ! -e /usr/bin/snodectl ] && [ ! -e $KSFT ] &&
	[ ! -e $OFIDIR/libsnode-fi.so ] && [ ! -e /usr/include/rdma/fi_ext_snode.h ] && [ ! -e $RULE ] &&
	[ -z "\$(find /lib/modules/$kver -name 'snode.ko*')" ]
res \$? "dpkg --purge removes the packages and the DKMS module"
for f in /tmp/dpkg.log /tmp/dkms.log; do sed "s|^|# \${f##*/}: |" "\$f" | tail -n 15; done
EOF
	overlay_chroot "$O" "$T/inside.sh"
}
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null || ! command -v dkms >/dev/null ||
	[ ! -f "$KDIR/kver" ]; then
	skip "dpkg -i in an overlay chroot of this host" "needs root, unshare, dkms and build/kernels/$KERNEL"
else
	chroot_install "$(cat "$KDIR/kver")" "$(readlink -f "$KDIR/headers")" >"$T/chroot.log" 2>&1
	cp "$T/chroot.log" "$LOG"
	relay_tap "$T/chroot.log" 13
	rm -rf "$O"
fi

# --- DKMS from the package ----------------------------------------------------
ko=
if ! command -v dkms >/dev/null || [ ! -f "$KDIR/kver" ]; then
	skip "dkms builds snode-dkms's source for $KERNEL" "no dkms or no build/kernels/$KERNEL (make kernels)"
else
	kver=$(cat "$KDIR/kver")
	mkdir -p "$T/dkms"
	DKMS=(dkms --sourcetree "$R/usr/src" --dkmstree "$T/dkms" --installtree "$T/modules")
	if (cd "$T" && "${DKMS[@]}" add -m snode -v "${VERSION%%-*}" &&
		nice "${DKMS[@]}" build -m snode -v "${VERSION%%-*}" -k "$kver" \
			--kernelsourcedir "$KDIR/headers") >"$LOG" 2>&1; then
		ko=$(find "$T/dkms/snode" -name snode.ko | head -n 1)
	fi
	if [ -n "$ko" ] && [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$kver" ]; then
		ok "dkms builds snode-dkms's source for $KERNEL ($kver)"
	else
		cat "$T/dkms/snode/${VERSION%%-*}/build/make.log" >>"$LOG" 2>/dev/null
		not_ok "dkms builds snode-dkms's source for $KERNEL"
		ko=
	fi
fi

# --- in an emulated node ------------------------------------------------------
if [ -z "$ko" ] || [ ! -x "$TOP/build/qemu/qemu-system-x86_64" ]; then
	skip "packaged snodectl and example in an emulated node" "no DKMS module or no build/qemu (make qemu)"
	finish
fi
if ! make -C "$TOP" --no-print-directory -s fm >"$LOG" 2>&1; then
	not_ok "build snode-fm for the emulated node"; finish
fi
# A build directory for snode-vm whose stage holds only the packages' files,
# the example and the DKMS-built module; kernels and QEMU are the tree's.
V=$T/vm-build
mkdir -p "$V/tools" "$V/stage/common" "$V/stage/k$KERNEL/lib/snode"
ln -s "$TOP/build/kernels" "$V/kernels"
ln -s "$TOP/build/qemu" "$V/qemu"
for p in "libsnode1 $ARCH" "snode-tools $ARCH" "libfabric-snode $ARCH" "snode-common all"; do
	# shellcheck disable=SC2086
	dpkg -x "$(deb $p)" "$V/stage/common"
done
rm -rf "$V/stage/common/usr/share"
install -D -m 0755 "$T/snode-hello" "$V/stage/common/usr/local/bin/snode-hello"
# The node's busybox has neither systemd-sysusers nor udev: this does what
# they do on a Debian node with snode-common's two files, and nothing
# else gives the group access. The image's own group snode goes first.
cat >"$V/stage/common/usr/local/bin/snode-pkg-access" <<'EOF_ACCESS'
#!/bin/sh
set -eu
conf=/usr/lib/sysusers.d/snode.conf
rule=$(ls /lib/udev/rules.d/60-snode.rules /usr/lib/udev/rules.d/60-snode.rules 2>/dev/null | head -n 1)
sed -i '/^snode:/d' /etc/group
# systemd-sysusers: "g NAME ID"; "-" is a free system gid of its choosing
while read -r type name id rest; do
	[ "$type" = g ] || continue
	[ "$id" = - ] && id=991
	echo "$name:x:$id:user" >>/etc/group
done <"$conf"
# udev: the device rule's GROUP and MODE, and the module rule's RUN ($$ is
# $), which calls glibc's getent (busybox has none: this one reads
# /etc/group as getent group NAME does)
if ! command -v getent >/dev/null; then
	printf '#!/bin/sh\n[ "$1" = group ] && grep "^$2:" /etc/group\n' >/usr/local/bin/getent
	chmod 0755 /usr/local/bin/getent
fi
grp=$(sed -n 's/^KERNEL=="snode\[0-9\]\*".*GROUP="\([^"]*\)".*/\1/p' "$rule")
mode=$(sed -n 's/^KERNEL=="snode\[0-9\]\*".*MODE="\([0-7]*\)".*/\1/p' "$rule")
for d in /dev/snode[0-9]*; do
	chgrp "$grp" "$d" && chmod "$mode" "$d"
done
run=$(sed -n 's/^ACTION=="add", SUBSYSTEM=="module", KERNEL=="snode", RUN+="\(.*\)"$/\1/p' "$rule" |
	sed 's/\$\$/$/g')
sh -c "$run"
echo "access: group $(grep '^snode:' /etc/group), rule group $grp mode $mode, read_gid $(cat /sys/module/snode/parameters/read_gid)"
ls -ln /dev/snode0
EOF_ACCESS
chmod 0755 "$V/stage/common/usr/local/bin/snode-pkg-access"
cp "$ko" "$V/stage/k$KERNEL/lib/snode/snode.ko"
# Debian's libfabric-bin staged by snode-vm, from the tree's package cache
mkdir -p "$V/vm" "$TOP/build/vm/debs"
ln -s "$TOP/build/vm/debs" "$V/vm/debs"
# The fm's 3 s heartbeat allowance of the VM suites (selftests/vm/lib.sh):
# at the 1 s default a loaded host once starved QEMU's main loop past it
# in early boot, and the node ran detached (fi_info found no NIC).
SNODE_FM_DEAD_MS=${SNODE_FM_DEAD_MS:-3000} \
SNODE_BUILD=$V SNODE_FM=$TOP/build/tools/snode-fm timeout 900 \
	bash "$TOP/tools/emu/vm/snode-vm" run --nodes 1 --kernel "$KERNEL" --timeout 600 \
	--package libfabric-bin -- \
	'insmod /lib/snode/snode.ko && snodectl -V && snodectl dev show && snode-hello; echo "snode-hello exit $?"
	fi_info -p snode -t FI_EP_RDM; echo "fi_info exit $?"
	snode-pkg-access; echo "access exit $?"
	su user -c "id; fi_info -p snode -t FI_EP_RDM >/dev/null; echo member-fi_info-status \$?
		(fi_pingpong -p snode -e rdm -m tagged -I 10 -S 64 >/tmp/pp-server 2>&1; echo member-pp-status \$? >>/tmp/pp-server) &
		sleep 2
		fi_pingpong -p snode -e rdm -m tagged -I 10 -S 64 127.0.0.1; echo member-pp-status \$?
		sleep 1; cat /tmp/pp-server"
	su -s /bin/sh nobody -c "timeout 60 fi_pingpong -p snode -e rdm -m tagged -I 10 -S 64; echo outsider-pp-status \$?"' \
	>"$T/vm.log" 2>&1
cp "$T/vm.log" "$LOG"
if grep -q "snodectl ${VERSION%%-*}" "$T/vm.log" && grep -q 'snode0' "$T/vm.log"; then
	ok "packaged snodectl runs in an emulated node ($KERNEL) with the DKMS-built snode.ko"
else
	not_ok "packaged snodectl runs in an emulated node ($KERNEL) with the DKMS-built snode.ko"
fi
if grep -q 'snode0: wrote "hello from snode0" at pool offset' "$T/vm.log" &&
	grep -q 'snode-hello exit 0' "$T/vm.log"; then
	ok "the example maps and writes fabric memory there on the packaged libsnode1"
else
	not_ok "the example maps and writes fabric memory there on the packaged libsnode1"
fi
if grep -q 'provider: snode' "$T/vm.log" && grep -q 'fi_info exit 0' "$T/vm.log"; then
	ok "Debian's fi_info there finds the packaged provider and the NIC (fi_info -p snode)"
else
	not_ok "Debian's fi_info there finds the packaged provider and the NIC (fi_info -p snode)"
fi
# A compute node's user: a member of group snode, not root, with the group
# and the device's access made from snode-common's files alone; an
# outsider cannot open the device, so the provider gives it no endpoint
# (its fi_info still lists the NIC: that reads sysfs only).
out=$T/vm.out	# the node's lines without snode-vm's "[node0] " prefix
sed -n 's/^\[node0\] //p' "$T/vm.log" >"$out"
gid=$(sed -n 's/^access: group snode:x:\([0-9]*\):user, .*/\1/p' "$out")
if [ -n "$gid" ] && grep -q "^access: group snode:x:$gid:user, rule group snode mode 0660, read_gid $gid\$" "$out" &&
	grep -Eq "^crw-rw---- +1 +0 +$gid .*/dev/snode0\$" "$out" && grep -q '^access exit 0$' "$out"; then
	ok "snode-common's sysusers.d entry and udev rule, applied there, give group snode (gid $gid) /dev/snode0 (0660) and read_gid"
else
	not_ok "snode-common's sysusers.d entry and udev rule, applied there, give group snode /dev/snode0 (0660) and read_gid"
fi
if grep -q '^uid=1000(user) .*groups=.*(snode)' "$out" && grep -q '^member-fi_info-status 0$' "$out" &&
	[ "$(grep -c -E '^64 +10 +=10 ' "$out")" -eq 2 ] && [ "$(grep -c '^member-pp-status 0$' "$out")" -eq 2 ]; then
	ok "a non-root member of group snode runs fi_pingpong over the packaged provider there (10 round trips, both sides exit 0)"
else
	not_ok "a non-root member of group snode runs fi_pingpong over the packaged provider there"
fi
# fails at once: not 0 (it ran), not 124 or 143 (it waited for a client)
st=$(sed -n 's/^outsider-pp-status //p' "$out")
if [ -n "$st" ] && [ "$st" -ne 0 ] && [ "$st" -ne 124 ] && [ "$st" -ne 143 ]; then
	ok "a user outside group snode gets no endpoint from the provider there (fi_pingpong exit $st)"
else
	not_ok "a user outside group snode gets no endpoint from the provider there (fi_pingpong exit ${st:-none})"
fi
# run-all.sh scans build/vm only: this node's console log is checked here
splat='Oops|BUG:|WARNING:|Kernel panic|general protection fault|Call Trace:|UBSAN:|KASAN:'
mapfile -t logs < <(find "$V/vm" -name 'node*.log')
if [ ${#logs[@]} -gt 0 ] && ! grep -a -E -- "$splat" "${logs[@]}" >"$LOG" 2>&1; then
	ok "guest kernel log clean"
else
	not_ok "guest kernel log clean"
fi
finish
