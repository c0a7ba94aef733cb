#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# man-examples.sh - every EXAMPLE of a libsnode man page (libsnode/man/*.3)
# compiles warning-free against <libsnode.h> and links against the built
# library, as a newcomer would paste it: the page's text, troff escapes
# undone, is the body of a function that has the objects a page's example
# starts from (ctx, dev, imp) as parameters. Running an example needs a NIC
# and is left to the VM suites. One TAP line per page.
#
# Usage: man-examples.sh LIBSNODE_SO FIRST_TESTNO [ CC ]

set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
so=$1
n=${2:-1}
cc=${3:-${CC:-cc}}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0

for page in "$TOP"/libsnode/man/*.3; do
	grep -q '^\.SH EXAMPLE' "$page" || continue
	name=$(basename "$page")
	# the .nf/.fi or .EX/.EE block of the EXAMPLE section, unescaped
	awk '/^\.SH EXAMPLE/ { ex = 1; next }
	     ex && /^\.SH/ { exit }
	     ex && /^\.(nf|EX)/ { code = 1; next }
	     ex && /^\.(fi|EE)/ { code = 0; next }
	     ex && code' "$page" |
		sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/\\(dq/"/g' \
		    -e "s/\\\\(aq/'/g" -e 's/\\&//g' >"$tmp/body"
	if [ ! -s "$tmp/body" ]; then
		echo "not ok $n - $name: EXAMPLE has no .nf/.EX block"
		rc=1
		n=$((n + 1))
		continue
	fi
	# "return;" in the example: a void function; else int
	type=int
	grep -q 'return;' "$tmp/body" && type=void
	{
		printf '#include <poll.h>\n#include <stdio.h>\n#include <string.h>\n'
		printf '#include <libsnode.h>\n\n'
		printf '%s example(struct snode_ctx *ctx, struct snode_dev *dev,\n' "$type"
		printf '\t\tstruct snode_import *imp);\n'
		printf '%s example(struct snode_ctx *ctx, struct snode_dev *dev,\n' "$type"
		printf '\t\tstruct snode_import *imp)\n{\n'
		# the examples that assign ret without declaring it
		grep -qE '(^|[^a-z_])ret = ' "$tmp/body" &&
			! grep -qE 'int( [a-z_]+,)* ret' "$tmp/body" &&
			printf '\tint ret;\n\n'
		cat "$tmp/body"
		[ "$type" = int ] && printf '\treturn 0;\n'
		# linked, not run: an example needs a NIC
		printf '}\n\nint main(int argc, char **argv)\n{\n'
		printf '\tif (argc > 1 && !strcmp(argv[1], "run"))\n'
		printf '\t\texample(NULL, NULL, NULL);\n\treturn 0;\n}\n'
	} >"$tmp/ex.c"
	if $cc -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter \
		-Wno-unused-variable -Wno-unused-but-set-variable \
		-I"$TOP/libsnode" -I"$TOP/uapi" -o "$tmp/ex" "$tmp/ex.c" \
		"$so" >"$tmp/log" 2>&1; then
		echo "ok $n - $name: its EXAMPLE compiles and links"
	else
		echo "not ok $n - $name: its EXAMPLE does not compile"
		sed 's/^/# /' "$tmp/log" | head -20
		nl -ba "$tmp/ex.c" | sed 's/^/# /'
		rc=1
	fi
	n=$((n + 1))
done
exit $rc
