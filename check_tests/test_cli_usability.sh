#!/bin/bash
# test_cli_usability.sh — the small usability fixes of issue #25 item 7, each
# against the real programs: a mistyped context or space lists what there is,
# maps --kind takes a number, a walk fault names the entry's path, info counts
# pages per size, and ptfs says so when its arguments are swapped or the mount
# point is not empty.
#
# Environment (check_tests/meson.build): PTFS_TOOL, PTFS_FIXTURES, PTFS_BIN.
set -u
TOOL=${PTFS_TOOL:?}
FIX=${PTFS_FIXTURES:?}
. "$(dirname "$0")/mount_lib.sh"
ml_tmpdir usability
TM=$FIX/turing-mixed.tar.gz

expect "no such context: the contexts there are" 2 "no context 'pdb9' in .*; it has pdb0, pdb1$" \
	"$TOOL" walk "$TM" pdb9 0x0
expect "no such context (info)" 2 "it has pdb0, pdb1$" "$TOOL" info "$TM" nosuch
expect "pa: no such space: the spaces there are" 2 "no space 'vram' in .*turing-mixed.tar.gz; its spaces: vidmem, sysmem, peer0" \
	"$TOOL" pa "$TM" vram:0x1000
# an address without its space lists the capture's own spaces (issue #34 item 7),
# a mixed capture's too (gpu-vtd: the GPU's and the IOMMU's hpa)
expect "pa: an address without its space: the capture's spaces" 2 \
	"'0x6000' names no space: write SPACE:ADDR, e.g. vidmem:0x6000 \(the spaces of .*gpu-vtd.tar.gz: vidmem, sysmem, .*, hpa" \
	"$TOOL" pa "$FIX/gpu-vtd.tar.gz" 0x6000
# kind 0xfe is planted at pte_small/9 of pdb0 (mkfixtures: kind_non_native)
"$TOOL" maps "$TM" pdb0 --kind 0xfe >"$TMP/hex" 2>&1
"$TOOL" maps "$TM" pdb0 --kind 254 >"$TMP/dec" 2>&1
"$TOOL" maps "$TM" pdb0 --kind "$(awk 'NR==1 {print $NF}' "$TMP/hex")" >"$TMP/name" 2>&1
if [ "$(wc -l <"$TMP/hex")" = 1 ] && cmp -s "$TMP/hex" "$TMP/dec" && cmp -s "$TMP/hex" "$TMP/name"; then
	ok "maps --kind 0xfe = --kind 254 = --kind NAME, one run"
else
	bad "maps --kind by number: $(head -c 300 "$TMP/hex")"
fi
expect "maps --kind: a bad number" 2 "bad --kind '0xzz'" "$TOOL" maps "$TM" pdb0 --kind 0xzz
expect "walk fault names the entry's path" 0 '^result: fault=unmapped level=pde0 index=16 entry=pde3/0/pde2/0/pde1/0/pde0/16$' \
	"$TOOL" walk "$TM" pdb0 0x2000000
"$TOOL" walk --json "$TM" pdb0 0x2000000 >"$TMP/w.json"
if python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["result"]; sys.exit(r["path"]!="pde3/0/pde2/0/pde1/0/pde0/16")' "$TMP/w.json"; then
	ok "walk --json fault: path"
else
	bad "walk --json fault: path: $(cat "$TMP/w.json")"
fi
# pages per size: pages.SIZE * SIZE = mapped_bytes.SIZE, and they add up to pages
"$TOOL" info --json "$TM" pdb0 >"$TMP/i.json"
"$TOOL" info "$TM" pdb0 >"$TMP/i.txt"
if python3 - "$TMP/i.json" "$TMP/i.txt" <<'PY'; then ok "info: pages per size, text and JSON agree with bytes"; else bad "info: pages per size"; fi
import json, sys
j = json.load(open(sys.argv[1]))
txt = dict(l.split(": ", 1) for l in open(sys.argv[2]).read().splitlines() if ": " in l)
units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
def sz(s): return int(s[:-1]) * units[s[-1]] if s[-1] in units else int(s)
pbs, mb = j["pages_by_size"], j["mapped_bytes"]
assert set(pbs) == set(mb) and pbs, (pbs, mb)
for k, n in pbs.items():
    assert n * sz(k) == int(mb[k], 16), (k, n, mb[k])
    assert txt["pages." + k] == str(n), (k, txt.get("pages." + k))
assert sum(pbs.values()) == j["pages"] == int(txt["pages"])
PY

# Load progress on a terminal as ptfs shows it (issue #25 item 6): script(1)
# gives ptfs-tool a pty; into a pipe nothing is shown.
if command -v script >/dev/null; then
	script -qec "$(printf '%q ' "$TOOL" check "$TM")" /dev/null >"$TMP/tty.out" 2>&1
	if grep -aq "ptfs-tool: loading .*turing-mixed.tar.gz: 100%" "$TMP/tty.out"; then
		ok "ptfs-tool shows load progress on a terminal"
	else
		bad "ptfs-tool load progress on a terminal: $(head -c 300 "$TMP/tty.out")"
	fi
	"$TOOL" check "$TM" >/dev/null 2>"$TMP/pipe.err"
	if grep -q "loading" "$TMP/pipe.err"; then bad "progress written into a pipe"; else ok "no progress into a pipe"; fi
elif [ "${CI:-}" = true ]; then
	bad "script(1) is missing (CI=true; Debian: bsdutils)"
fi

PTFS=${PTFS_BIN:-}
if [ -n "$PTFS" ] && [ -c /dev/fuse ]; then
	mkdir -p "$TMP/m"
	expect "ptfs MNT CAPTURE: the arguments are swapped" 2 "the arguments are swapped\? \(usage: ptfs CAPTURE MOUNTPOINT\)" \
		"$PTFS" "$TMP/m" "$TM"
	mountpoint -q "$TMP/m" && bad "swapped arguments mounted something"
	touch "$TMP/m/mine"
	if do_mount "$TM" "$TMP/m"; then
		if grep -q "^ptfs: warning: mount point '.*' is not empty: its files are hidden" "$TMP/m.err" &&
			[ -f "$TMP/m/pdb0/map.svg" ]; then
			ok "non-empty mount point: mounted, with a warning"
		else
			bad "non-empty mount point warning: $(cat "$TMP/m.err")"
		fi
		do_umount "$TMP/m"
	else
		bad "mount over a non-empty directory"
	fi
	mkdir -p "$TMP/e"
	if do_mount "$TM" "$TMP/e"; then
		if [ -s "$TMP/e.err" ]; then bad "empty mount point: no warning ($(cat "$TMP/e.err"))"; else ok "empty mount point: no warning"; fi
		do_umount "$TMP/e"
	else
		bad "mount over an empty directory"
	fi
elif [ "${CI:-}" = true ]; then
	bad "ptfs argument checks: no ptfs or /dev/fuse (CI=true)"
fi
report
