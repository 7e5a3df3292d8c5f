#!/bin/bash
# test_svg.sh — the VA-space picture (ptfs-tool map --svg, CTX/map.svg;
# issue #25 item 5): for every context of every fixture it renders with
# rsvg-convert to a non-empty PNG, holds a <title> for each maps line (the
# tooltip is the line itself), is byte-identical on a second run, and stays
# under 512 KiB even for a capture of 10^5 pages (mkbig).
#
# Environment (check_tests/meson.build): PTFS_TOOL, PTFS_FIXTURES, PTFS_MKBIG.
# Exit 77 (skip) without rsvg-convert, except under CI=true (then a failure).
set -u
TOOL=${PTFS_TOOL:?}
FIX=${PTFS_FIXTURES:?}
MKBIG=${PTFS_MKBIG:-}
if ! command -v rsvg-convert >/dev/null; then
	if [ "${CI:-}" = true ]; then
		echo "not ok - rsvg-convert is missing (CI=true; Debian: librsvg2-bin)"
		echo "0 passed, 1 failed"
		exit 1
	fi
	echo "SKIP: rsvg-convert is missing (Debian: apt-get install librsvg2-bin)"
	exit 77
fi
# ok/bad/report, the mount helpers and the EXIT trap that unmounts and
# removes the scratch directory even when a check fails
. "$(dirname "$0")/mount_lib.sh"
ml_tmpdir svg
T=$TMP

check_one() {	# CAPTURE CONTEXT LABEL
	local cap=$1 ctx=$2 label=$3 size lines titles
	if ! "$TOOL" map --svg "$cap" "$ctx" >"$T/a.svg" 2>"$T/err"; then
		bad "$label: map --svg ($(head -c 200 "$T/err"))"
		return
	fi
	"$TOOL" map --svg "$cap" "$ctx" >"$T/b.svg" 2>/dev/null
	cmp -s "$T/a.svg" "$T/b.svg" && ok "$label: byte-identical twice" || bad "$label: byte-identical twice"
	if rsvg-convert "$T/a.svg" -o "$T/a.png" 2>"$T/err" && [ -s "$T/a.png" ]; then
		ok "$label: rsvg-convert renders it to a non-empty PNG"
	else
		bad "$label: rsvg-convert renders it ($(head -c 200 "$T/err"))"
	fi
	size=$(stat -c %s "$T/a.svg")
	[ "$size" -le 524288 ] && ok "$label: $size bytes <= 512 KiB" || bad "$label: $size bytes > 512 KiB"
	# Every maps line is a title, until the picture merges runs (then it says so).
	lines=$("$TOOL" maps "$cap" "$ctx" | grep -vc '^#')
	titles=$(grep -c '<title>0x' "$T/a.svg")
	if grep -q '<title>[0-9]* runs ' "$T/a.svg"; then
		ok "$label: $lines runs drawn as merged segments"
	elif [ "$lines" = "$titles" ] && "$TOOL" maps "$cap" "$ctx" | grep -v '^#' |
		sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g' | while read -r l; do
			grep -qF "<title>$l</title>" "$T/a.svg" || exit 1
		done; then
		ok "$label: each of its $lines maps lines is a <title>"
	else
		bad "$label: each maps line is a <title> ($lines lines, $titles titles)"
	fi
	# issue #39 item 11: an address axis with labelled ticks, each row's VA
	if [ "$lines" -gt 0 ]; then
		if [ "$(grep -c '<text class="tick"[^>]*>0x[0-9a-f]*</text>' "$T/a.svg")" -ge 2 ] &&
			grep -q '<rect class="mark"[^>]*><title>at 0x[0-9a-f]*-0x[0-9a-f]*: [0-9]* runs\{0,1\}, ' "$T/a.svg" &&
			grep -q '<text class="row"[^>]*>0x[0-9a-f]*</text>' "$T/a.svg"; then
			ok "$label: address ticks, marks with their ranges, row addresses"
		else
			bad "$label: address ticks, marks with their ranges, row addresses"
		fi
	fi
}

for cap in "$FIX"/*.tar.gz "$FIX"/umr-*.log "$FIX"/umr-*.envdef; do
	[ -e "$cap" ] || continue
	for ctx in $("$TOOL" info "$cap" 2>/dev/null | sed -n 's/^# //p'); do
		check_one "$cap" "$ctx" "$(basename "$cap") $ctx"
	done
done
# A known capture: iommu-vtd's dmar0.00:02.0 maps 0-0x1000 (4K) and
# 0x200000-0x400000 (2M): ticks every 0x80000 from 0x0 to 0x400000 at
# their place on the 1184 px axis, one mark per run where it lies.
"$TOOL" map --svg "$FIX/iommu-vtd.tar.gz" dmar0.00:02.0 >"$T/k.svg" 2>/dev/null
got=$(sed -n 's/.*<text class="tick" x="\([0-9]*\)"[^>]*>\(0x[0-9a-f]*\)<.*/\1=\2/p' "$T/k.svg" | tr '\n' ' ')
want="8=0x0 156=0x80000 304=0x100000 452=0x180000 600=0x200000 748=0x280000 896=0x300000 1044=0x380000 1192=0x400000 "
[ "$got" = "$want" ] && ok "known capture: the ticks and their places" || bad "known capture: ticks '$got', not '$want'"
got=$(sed -n 's/.*<rect class="mark" x="\([0-9]*\)"[^>]*width="\([0-9]*\)"[^>]*><title>\([^<]*\)<.*/\1+\2 \3/p' "$T/k.svg" | tr '\n' '|')
want="8+1 at 0x000000000000-0x000000001000: 1 run, 4K|600+592 at 0x000000200000-0x000000400000: 1 run, 2M|"
[ "$got" = "$want" ] && ok "known capture: each run's mark where it lies, its range its tooltip" ||
	bad "known capture: marks '$got', not '$want'"
grep -q '<title>gap 2044K 0x000000001000-0x000000200000</title>' "$T/k.svg" &&
	ok "known capture: the gap's tooltip has its range" || bad "known capture: the gap's tooltip has its range"
grep -q '<text class="row" x="100" y="150" [^>]*>0x000000000000</text>' "$T/k.svg" &&
	ok "known capture: the row starts with its VA" || bad "known capture: the row starts with its VA"
# Scattered pages (an IOMMU domain: 64 single pages 1 MiB apart): 64 marks,
# each at its own place on the axis, so one sees where the pages are.
mkdir -p "$T/sc/mem"
python3 - "$T/sc" <<'PY'
import struct, sys
d = sys.argv[1]
m = bytearray(0x8000)
def put(a, v): m[a - 0x100000:a - 0x100000 + 8] = struct.pack('<Q', v)
# VT-d second level, AW 39: pml4 0x101000 -> pdpt 0x102000 -> pd 0x103000 -> 64 PTs? one PT per 2 MiB:
# use 2 MiB leaves every 0x4000000 instead: pd entries 0, 32, 64, ... (PS 7, R, W)
put(0x101000, 0x102000 | 3); put(0x102000, 0x103000 | 3)
for i in range(16):
    put(0x103000 + 8 * 32 * i, (0x40000000 + i * 0x200000) | 1 << 7 | 3)
open(d + '/mem/sys.bin', 'wb').write(m)
open(d + '/capture.ini', 'w').write('[capture]\nversion = 1\nformat = intel-vtd\n'
    '[memory m]\nspace = sysmem\nbase = 0x100000\nfile = mem/sys.bin\n'
    '[vtd dom]\nslptptr = 0x101000\naw = 39\n')
PY
"$TOOL" map --svg "$T/sc" dom >"$T/sc.svg" 2>"$T/err" || bad "scattered: map --svg ($(head -c 200 "$T/err"))"
xs=$(sed -n 's/.*<rect class="mark" x="\([0-9]*\)".*/\1/p' "$T/sc.svg" | tr '\n' ' ')
[ "$(echo $xs | wc -w)" = 16 ] && [ "$(echo $xs | tr ' ' '\n' | sort -un | wc -l)" = 16 ] &&
	ok "scattered pages: 16 marks at 16 places ($xs)" || bad "scattered pages: marks at '$xs'"
if [ -n "$MKBIG" ] && [ -x "$MKBIG" ]; then
	"$MKBIG" --entries 100000 "$T/big.tar" >/dev/null
	check_one "$T/big.tar" pdb0 "mkbig 10^5 pdb0"
fi
# CTX/map.svg in a real mount: the same bytes as map --svg, its st_size
# their length, and it renders (the file is cached like maps: read it twice).
PTFS=${PTFS_BIN:-}
if [ -n "$PTFS" ] && [ -c /dev/fuse ] && command -v fusermount3 >/dev/null; then
	for cap in "$FIX/turing-mixed.tar.gz" "$FIX/amd-gfx9-vm.tar.gz" "$FIX/x86-64-4level.tar.gz"; do
		mnt=$T/mnt-$(basename "$cap" .tar.gz)
		if ! do_mount "$cap" "$mnt"; then
			bad "$(basename "$cap"): mounts"
			continue
		fi
		for ctx in $("$TOOL" info "$cap" 2>/dev/null | sed -n 's/^# //p'); do
			label="$(basename "$cap") $ctx/map.svg"
			"$TOOL" map --svg "$cap" "$ctx" >"$T/tool.svg" 2>/dev/null
			if cmp -s "$mnt/$ctx/map.svg" "$T/tool.svg" && cmp -s "$mnt/$ctx/map.svg" "$T/tool.svg"; then
				ok "$label: the bytes of map --svg, twice"
			else
				bad "$label: the bytes of map --svg"
			fi
			if [ "$(stat -c %s "$mnt/$ctx/map.svg")" = "$(stat -c %s "$T/tool.svg")" ]; then
				ok "$label: st_size is its length"
			else
				bad "$label: st_size $(stat -c %s "$mnt/$ctx/map.svg") vs $(stat -c %s "$T/tool.svg")"
			fi
			if ls "$mnt/$ctx" | grep -qx map.svg && rsvg-convert "$mnt/$ctx/map.svg" -o "$T/m.png" && [ -s "$T/m.png" ]; then
				ok "$label: listed, and renders"
			else
				bad "$label: listed, and renders"
			fi
		done
		do_umount "$mnt" || bad "$(basename "$cap"): unmounts"
	done
elif [ "${CI:-}" = true ]; then
	bad "CTX/map.svg: no ptfs or /dev/fuse to mount with (CI=true)"
else
	echo "# CTX/map.svg in a mount: not tested (no ptfs or /dev/fuse)"
fi
report
