#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# install-test.sh - "make install" as a user runs it (host only, no device,
# no kernel tree): builds in its own build directory, installs into a
# DESTDIR, compiles the README's example program (and a file including only
# <libsnode.h>) as C and C++ against the installed tree with pkg-config,
# dynamically and with --static, runs them, checks the default hardening
# flags and that CFLAGS, CPPFLAGS and LDFLAGS replace them, that the .pc
# follows PREFIX, that the sysusers.d entry creates the group the udev rule
# names, that the weekly link record's systemd units are installed (not
# enabled) and name the installed snodectl, and that "make uninstall"
# leaves no file behind. TAP output.
#
# Usage: tools/testing/install-test.sh

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
T=$TOP/build/install-test
B=$T/build		# the test's own make BUILD directory
D=$T/dest		# DESTDIR of the default install
P=/usr/local
LOG=$T/log
MAKE_ARGS=(-C "$TOP" --no-print-directory BUILD="$B" KDIR=/nonexistent/kernel)
VERSION=$(sed -n 's/^SNODE_VERSION *:= *//p' "$TOP/libsnode/libsnode.mk")
# no device on the host, even if snode.ko happens to be loaded
export SNODE_SYSFS=/nonexistent/snode-class
unset CFLAGS CPPFLAGS LDFLAGS PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

# shellcheck source=tools/testing/pkg-lib.sh
. "$TOP/tools/testing/pkg-lib.sh"

rm -rf "$T"
mkdir -p "$T"

# --- install -----------------------------------------------------------------
check "make install without a kernel tree (DESTDIR, PREFIX=$P)" \
	make "${MAKE_ARGS[@]}" install DESTDIR="$D"

missing=()
want=(bin/snodectl bin/snode-perf lib/libsnode.so.1 lib/libsnode.so lib/libsnode.a
	lib/pkgconfig/libsnode.pc include/libsnode.h include/linux/snode.h include/linux/snode_nl.h
	share/man/man8/snodectl.8 share/bash-completion/completions/snodectl
	lib/udev/rules.d/60-snode.rules lib/sysusers.d/snode.conf
	lib/systemd/system/snode-link-record.service
	lib/systemd/system/snode-link-record.timer)
for m in "$TOP"/libsnode/man/*.3; do want+=("share/man/man3/${m##*/}"); done
for f in "${want[@]}"; do
	[ -e "$D$P/$f" ] || missing+=("$f")
done
if [ ${#missing[@]} -eq 0 ]; then
	ok "installed the userspace (${#want[@]} files)"
else
	echo "missing: ${missing[*]}" >"$LOG"
	not_ok "installed the userspace (${#missing[@]} of ${#want[@]} files missing)"
fi
if [ -z "$(find "$D" -name '*.ko*' -print -quit)" ]; then
	ok "make install installs no kernel module"
else
	find "$D" -name '*.ko*' >"$LOG"; not_ok "make install installs no kernel module"
fi

# The weekly link record: installed, names the installed snodectl, and
# nothing enables it (no .wants/ link).
U=$D$P/lib/systemd/system
if grep -qx "ExecStart=$P/bin/snodectl link diag record /var/lib/snode/link-history.jsonl" \
		"$U/snode-link-record.service" 2>/dev/null &&
	grep -qx 'OnCalendar=weekly' "$U/snode-link-record.timer" 2>/dev/null &&
	grep -qx 'Persistent=true' "$U/snode-link-record.timer" &&
	[ -z "$(find "$D" -name '*.wants' -print -quit)" ]; then
	ok "systemd units: the service runs $P/bin/snodectl, the weekly timer is not enabled"
else
	cat "$U/snode-link-record.service" "$U/snode-link-record.timer" >"$LOG" 2>&1
	not_ok "systemd units: the service runs $P/bin/snodectl, the weekly timer is not enabled"
fi
if command -v systemd-analyze >/dev/null; then
	# verify wants the ExecStart binary: check a copy that names the DESTDIR one
	mkdir -p "$T/units"
	sed "s|^ExecStart=$P|ExecStart=$D$P|" "$U/snode-link-record.service" \
		>"$T/units/snode-link-record.service"
	cp "$U/snode-link-record.timer" "$T/units/"
	check "systemd-analyze verify accepts the units" \
		systemd-analyze verify --man=no "$T/units/snode-link-record.service" \
		"$T/units/snode-link-record.timer"
else
	skip "systemd-analyze verify accepts the units" "no systemd-analyze"
fi

# --- pkg-config, header, example program -------------------------------------
pc() { PKG_CONFIG_PATH=$D$P/lib/pkgconfig pkg-config --define-variable=prefix="$D$P" "$@"; }
if pc --static --libs libsnode >"$LOG" 2>&1 && grep -q -- -lnl-genl-3 "$LOG"; then
	ok "libsnode.pc: Requires.private libnl-genl-3.0"
else
	not_ok "libsnode.pc: Requires.private libnl-genl-3.0"
fi
CF=$(pc --cflags libsnode)
LIBS=$(pc --libs libsnode)
SLIBS=$(pc --static --libs libsnode)

printf '#include <libsnode.h>\n' >"$T/only.c"
cp "$T/only.c" "$T/only.cc"
# shellcheck disable=SC2086
check "<libsnode.h> compiles first in a C file (c99 -pedantic -Werror)" \
	gcc -std=c99 -Wall -Wextra -pedantic -Werror $CF -c -o /dev/null "$T/only.c"
# shellcheck disable=SC2086
check "<libsnode.h> compiles first in a C++ file (c++11 -pedantic -Werror)" \
	g++ -std=c++11 -Wall -Wextra -pedantic -Werror $CF -c -o /dev/null "$T/only.cc"
# shellcheck disable=SC2086
if gcc $CF -M "$T/only.c" >"$LOG" 2>&1 && grep -q "$D$P/include/linux/snode.h" "$LOG"; then
	ok "<linux/snode.h> comes from the installed tree"
else
	not_ok "<linux/snode.h> comes from the installed tree"
fi

# The README's example, exactly as printed there.
readme_example "$T/snode-hello.c"
if [ "$(grep -c . "$T/snode-hello.c")" -gt 10 ]; then
	ok "README has the snode-hello.c example ($(wc -l <"$T/snode-hello.c") lines)"
else
	not_ok "README has the snode-hello.c example"
fi

# shellcheck disable=SC2086
check "example compiles and links as C: cc \$(pkg-config --cflags --libs libsnode)" \
	gcc -Wall -Wextra -Werror $CF -o "$T/hello-c" "$T/snode-hello.c" $LIBS
run_hello "example (C, shared libsnode)" "$T/hello-c" "$D$P/lib"
if LD_LIBRARY_PATH=$D$P/lib ldd "$T/hello-c" 2>&1 | grep -q "libsnode.so.1 => $D$P/lib/libsnode.so.1"; then
	ok "example uses the installed libsnode.so.1"
else
	LD_LIBRARY_PATH=$D$P/lib ldd "$T/hello-c" >"$LOG" 2>&1
	not_ok "example uses the installed libsnode.so.1"
fi
# shellcheck disable=SC2086
check "example compiles and links as C++" \
	g++ -Wall -Wextra -Werror $CF -x c++ -o "$T/hello-cxx" "$T/snode-hello.c" -x none $LIBS
run_hello "example (C++)" "$T/hello-cxx" "$D$P/lib"
# shellcheck disable=SC2086
check "example links statically: cc -static \$(pkg-config --static --cflags --libs libsnode)" \
	gcc -static $CF -o "$T/hello-static" "$T/snode-hello.c" $SLIBS
# static: no program interpreter, no libsnode.so.1 needed
if [ -x "$T/hello-static" ] && ! readelf -l "$T/hello-static" | grep -q INTERP; then
	run_hello "example (static)" "$T/hello-static" /nonexistent
else
	readelf -ld "$T/hello-static" >"$LOG" 2>&1; not_ok "example (static) is statically linked"
fi

# --- installed tools ------------------------------------------------------
out=$(LD_LIBRARY_PATH=$D$P/lib "$D$P/bin/snodectl" -V 2>&1)
if [ "$out" = "snodectl $VERSION" ] &&
	LD_LIBRARY_PATH=$D$P/lib ldd "$D$P/bin/snodectl" | grep -q "$D$P/lib/libsnode.so.1"; then
	ok "installed snodectl runs on the installed libsnode ($out)"
else
	echo "$out" >"$LOG"; not_ok "installed snodectl runs on the installed libsnode"
fi
if LD_LIBRARY_PATH=$D$P/lib "$D$P/bin/snode-perf" -h >"$LOG" 2>&1 && grep -q '^Usage: snode-perf' "$LOG"; then
	ok "installed snode-perf runs (-h)"
else
	not_ok "installed snode-perf runs (-h)"
fi
check "bash completion defines snodectl's" \
	bash -c "source '$D$P/share/bash-completion/completions/snodectl' && complete -p snodectl"

# The group the udev rule gives the device to is the one sysusers.d creates.
group=$(sed -n 's/.*GROUP="\([^"]*\)".*/\1/p' "$D$P/lib/udev/rules.d/60-snode.rules")
R=$T/sysroot
mkdir -p "$R/etc"
: >"$R/etc/group"; : >"$R/etc/passwd"; : >"$R/etc/shadow"; : >"$R/etc/gshadow"
if command -v systemd-sysusers >/dev/null; then
	if systemd-sysusers --root="$R" "$D$P/lib/sysusers.d/snode.conf" >"$LOG" 2>&1 &&
		[ -n "$group" ] && grep -q "^$group:x:[0-9]*:" "$R/etc/group"; then
		ok "sysusers.d/snode.conf creates group '$group' of the udev rule"
	else
		cat "$R/etc/group" >>"$LOG"; not_ok "sysusers.d/snode.conf creates group '$group' of the udev rule"
	fi
else
	skip "sysusers.d/snode.conf creates the udev rule's group" "no systemd-sysusers"
fi

# --- flags -----------------------------------------------------------------
so=$B/libsnode/libsnode.so.1
producer() { readelf --debug-dump=info "$1" 2>/dev/null | grep -m1 DW_AT_producer; }
if producer "$so" | grep -q -- ' -O2 .*-fstack-protector-strong' &&
	nm -D "$D$P/bin/snodectl" | grep -q '__[a-z]*_chk@' &&
	readelf -d "$D$P/bin/snodectl" | grep -q BIND_NOW; then
	ok "default flags harden (-O2, stack protector, _FORTIFY_SOURCE, -z now)"
else
	{ producer "$so"; nm -D "$D$P/bin/snodectl" | grep _chk; readelf -d "$D$P/bin/snodectl" | grep FLAGS; } >"$LOG"
	not_ok "default flags harden (-O2, stack protector, _FORTIFY_SOURCE, -z now)"
fi

printf 'static const char snode_cppflags_probe[] __attribute__((used)) = "snode-cppflags-probe";\n' \
	>"$T/probe.h"
check "make userspace with the user's CFLAGS, CPPFLAGS, LDFLAGS (same build dir)" \
	make "${MAKE_ARGS[@]}" userspace CFLAGS="-O1 -g -fno-omit-frame-pointer" \
	CPPFLAGS="-include $T/probe.h" LDFLAGS="-Wl,-rpath,/snode-ldflags-probe"
if producer "$so" | grep -q -- ' -O1 .*-fno-omit-frame-pointer' &&
	! producer "$so" | grep -q -- '-fstack-protector-strong' &&
	grep -q snode-cppflags-probe "$so" && grep -q snode-cppflags-probe "$B/install/bin/snodectl" &&
	readelf -d "$so" | grep -q '/snode-ldflags-probe' &&
	readelf -d "$B/install/bin/snodectl" | grep -q '/snode-ldflags-probe'; then
	ok "CFLAGS, CPPFLAGS and LDFLAGS replace the defaults and rebuild"
else
	{ producer "$so"; readelf -d "$so" | grep -i path; } >"$LOG"
	not_ok "CFLAGS, CPPFLAGS and LDFLAGS replace the defaults and rebuild"
fi

# --- PREFIX and uninstall ---------------------------------------------------
D2=$T/dest-opt
check "make install PREFIX=/opt/snode (same build dir)" \
	make "${MAKE_ARGS[@]}" install DESTDIR="$D2" PREFIX=/opt/snode
if grep -q '^ExecStart=/opt/snode/bin/snodectl ' \
	"$D2/opt/snode/lib/systemd/system/snode-link-record.service" 2>/dev/null; then
	ok "snode-link-record.service follows PREFIX (same build dir)"
else
	cat "$D2/opt/snode/lib/systemd/system/snode-link-record.service" >"$LOG" 2>&1
	not_ok "snode-link-record.service follows PREFIX (same build dir)"
fi
if grep -qx 'prefix=/opt/snode' "$D2/opt/snode/lib/pkgconfig/libsnode.pc" 2>/dev/null &&
	[ -x "$D2/opt/snode/bin/snodectl" ]; then
	ok "libsnode.pc is rebuilt when PREFIX changes"
else
	cat "$D2/opt/snode/lib/pkgconfig/libsnode.pc" >"$LOG" 2>&1
	not_ok "libsnode.pc is rebuilt when PREFIX changes"
fi

# --- the libfabric provider: where libfabric looks, and uninstalled ---------
D3=$T/dest-ofi
ofilib=$(pkg-config --variable=libdir libfabric 2>/dev/null)
if [ -z "$ofilib" ]; then
	skip "make ofi-install into libfabric's provider directory" "no libfabric.pc (libfabric-dev)"
elif make "${MAKE_ARGS[@]}" ofi-install DESTDIR="$D3" >"$LOG" 2>&1 &&
	[ -x "$D3$ofilib/libfabric/libsnode-fi.so" ] && [ -f "$D3$P/share/man/man7/fi_snode.7" ] &&
	[ -f "$D3$P/include/rdma/fi_ext_snode.h" ] &&
	[ "$(find "$D3" ! -type d | wc -l)" = 3 ]; then
	ok "make ofi-install: libsnode-fi.so into $ofilib/libfabric (pkg-config's), fi_snode.7 and <rdma/fi_ext_snode.h> under PREFIX"
else
	find "$D3" ! -type d >>"$LOG" 2>&1
	not_ok "make ofi-install: libsnode-fi.so into $ofilib/libfabric (pkg-config's), fi_snode.7 and <rdma/fi_ext_snode.h> under PREFIX"
fi
# a libfabric program reading the provider's counters, with the installed
# header found through PREFIX's include directory only (C and C++)
if [ -n "$ofilib" ]; then
	# shellcheck disable=SC2046
	if gcc -Wall -Wextra -Werror -I"$D3$P/include" -o "$T/fi-ext" \
		"$TOP/tools/testing/fi-ext-snode-example.c" $(pkg-config --cflags --libs libfabric) >"$LOG" 2>&1 &&
		g++ -Wall -Wextra -Werror -I"$D3$P/include" -x c++ -fsyntax-only \
			"$TOP/tools/testing/fi-ext-snode-example.c" $(pkg-config --cflags libfabric) >>"$LOG" 2>&1 &&
		[ "$("$T/fi-ext")" = "snode_stats 56" ]; then
		ok "a program including the installed <rdma/fi_ext_snode.h> builds (C, C++) and runs"
	else
		not_ok "a program including the installed <rdma/fi_ext_snode.h> builds (C, C++) and runs"
	fi
fi
if [ -n "$ofilib" ]; then
	if make "${MAKE_ARGS[@]}" uninstall DESTDIR="$D3" >"$LOG" 2>&1 &&
		left=$(find "$D3" ! -type d) && [ -z "$left" ]; then
		ok "make uninstall removes the provider, fi_snode.7 and fi_ext_snode.h as well"
	else
		echo "left: ${left:-}" >>"$LOG"
		not_ok "make uninstall removes the provider, fi_snode.7 and fi_ext_snode.h as well"
	fi
fi

for d in "$D:$P" "$D2:/opt/snode"; do
	dest=${d%%:*} prefix=${d#*:}
	if make "${MAKE_ARGS[@]}" uninstall DESTDIR="$dest" PREFIX="$prefix" >"$LOG" 2>&1 &&
		left=$(find "$dest" ! -type d) && [ -z "$left" ]; then
		ok "make uninstall (PREFIX=$prefix) leaves no file"
	else
		echo "left: ${left:-}" >>"$LOG"
		not_ok "make uninstall (PREFIX=$prefix) leaves no file"
	fi
done

finish
