#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# layering.sh - the fabric manager's domain never calls its device protocol.
#
# proto.c (the device connections) calls into the domain; the domain reaches
# the devices only through struct fm_emit (fm.h), which proto.c implements.
# Fails, naming file and symbol, if any fm source other than proto.c and
# main.c (which wires the two together) includes proto.h or uses a symbol
# that proto.c defines for other files. Comments do not count.
# Usage: layering.sh [FM_DIR]   (default: this script's parent directory)

set -u
FM=${1:-$(cd "$(dirname "$0")/.." && pwd)}

# Strip comments (and nothing else) from a C file.
code() {
	gcc -fpreprocessed -dD -E -P -x c "$1" 2>/dev/null
}

# proto.c's definitions at file scope that are not static: the symbols
# another file could call or name.
syms=$(code "$FM/proto.c" |
	grep -E '^[A-Za-z_]' | grep -vE '^(static|#|typedef|extern)' |
	grep -oE '\bfm_[A-Za-z0-9_]+[[:space:]]*(\(|=|\[|;)' |
	grep -oE '^fm_[A-Za-z0-9_]+' | sort -u)
if [ -z "$syms" ]; then
	echo "layering.sh: found no symbols in $FM/proto.c" >&2
	exit 1
fi

bad=0
for f in "$FM"/*.c; do
	case ${f##*/} in
	proto.c | main.c) continue ;;
	esac
	text=$(code "$f")
	if grep -qE '#[[:space:]]*include[[:space:]]*"proto\.h"' <<<"$text"; then
		echo "${f##*/}: includes proto.h"
		bad=1
	fi
	for s in $syms; do
		if grep -qw -- "$s" <<<"$text"; then
			echo "${f##*/}: uses $s (defined in proto.c)"
			bad=1
		fi
	done
done
exit $bad
