#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ynl-stage.sh OUTDIR SPEC YNL_DIR - a minimal python3 and the kernel's YNL
# client for the guests, which run busybox and have no python.
#
# OUTDIR gets python3 (the host's Debian interpreter; the VM runner adds
# its shared libraries), lib/python3.11/ with only the modules that YNL's
# cli.py imports (found by running it on the host and listing
# sys.modules), PyYAML, YNL's cli.py and lib/ (from Debian's
# linux-source-6.12, as scripts/fetch-linux-source.sh extracted it) and the
# spec. In the guest:
#
#   cd OUTDIR/ynl && ../python3 cli.py --spec ../snode.yaml --no-schema ...
#
# The client knows nothing of snode but what the spec says.

set -euo pipefail

OUT=$1 SPEC=$2 YNL=$3
PY=/usr/bin/python3	# Debian's, whose libraries the guest can get

[ -x "$PY" ] || { echo "ynl-stage: $PY missing" >&2; exit 1; }
[ -f "$YNL/cli.py" ] || { echo "ynl-stage: no $YNL/cli.py (make linux-source)" >&2; exit 1; }
"$PY" -c 'import yaml' || { echo "ynl-stage: $PY has no yaml (python3-yaml)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/ynl"
cp -r "$YNL/cli.py" "$YNL/lib" "$tmp/ynl/"
cp "$SPEC" "$tmp/snode.yaml"

# Every module file cli.py loads to parse the spec and build requests.
"$PY" -S - "$tmp/ynl" "$tmp/snode.yaml" >"$tmp/modules" <<'PYEOF'
import os, runpy, sys
ynl, spec = sys.argv[1:3]
sys.path.insert(0, ynl)
sys.path.append("/usr/lib/python3/dist-packages")
os.chdir(ynl)
sys.argv = ["cli.py", "--spec", spec, "--no-schema", "--list-ops"]
out = sys.stdout
sys.stdout = open(os.devnull, "w")
try:
    runpy.run_path("cli.py", run_name="__main__")
except (SystemExit, Exception):  # no snode family on the host
    pass
import encodings.utf_8, encodings.latin_1, encodings.ascii, site  # noqa: E401
for m in list(sys.modules.values()):
    f = getattr(m, "__file__", None)
    if f:
        print(os.path.realpath(f), file=out)
PYEOF

stdlib=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
ver=$(basename "$stdlib")
dest=$tmp/lib/$ver
mkdir -p "$dest/lib-dynload" "$dest/site-packages"
install -m 0755 "$(readlink -f "$PY")" "$tmp/python3"
# the prefix landmark python looks for
cp "$stdlib/os.py" "$dest/"
while read -r f; do
	case "$f" in
	"$stdlib"/*)
		rel=${f#"$stdlib"/}
		mkdir -p "$dest/$(dirname "$rel")"
		cp "$f" "$dest/$rel" ;;
	*/dist-packages/*)
		rel=${f#*/dist-packages/}
		mkdir -p "$dest/site-packages/$(dirname "$rel")"
		cp "$f" "$dest/site-packages/$rel" ;;
	esac
done <"$tmp/modules"
rm -f "$tmp/modules"

cat >"$tmp/ynl-cli" <<WRAP
#!/bin/sh
# cli.py of the kernel's YNL on the snode spec; arguments as cli.py's.
d=\$(cd "\$(dirname "\$0")" && pwd)
cd "\$d/ynl" && PYTHONHOME=\$d PYTHONPATH=\$d/lib/$ver/site-packages \\
	exec "\$d/python3" cli.py --spec "\$d/snode.yaml" --no-schema "\$@"
WRAP
chmod 0755 "$tmp/ynl-cli"

rm -rf "$OUT"
mkdir -p "$(dirname "$OUT")"
mv "$tmp" "$OUT"
chmod 0755 "$OUT"
trap - EXIT
echo "ynl-stage: $OUT ($(du -sh "$OUT" | cut -f1))"
