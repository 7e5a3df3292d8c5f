#!/bin/bash
# test_umr_bounds.sh — a umr log parses within 3x its size + 64 MiB of
# memory (issue #26 item 4), measured as the peak RSS of `ptfs-tool check`
# (getrusage of the child: ru_maxrss) on logs generated here:
#
#  1. 3,000,000 `MMIO@0={0}` records (33 MB): before the fold by address a
#     record cost ~180 bytes (17x the input: 539 MiB here, over the bound);
#     a register needs its first value and the lines of a conflict only
#  2. one VRAM@ record of 48 MiB of bytes on one line (96 MiB of text): the
#     bytes are kept once per stage (the record's, the region's), never per
#     byte (no owner map); before, 4 bytes of owner per byte of region
#     (4x: 389 MiB here, over the bound)
#  3. the same record read again 100,000 times (a log polling one entry):
#     a repeat costs nothing
#
# The loads must also succeed (one context each: the records are real).
# Memory bounds are the plain build's: under AddressSanitizer the quarantine
# and the shadow inflate the peak, so an ASan build reports the bounds as
# not measured (as test_bounds.sh does).
#
# Environment (check_tests/meson.build): PTFS_TOOL.  Exit: 0 all passed, 1 any failure.

set -u
set -o pipefail
export LC_ALL=C

TOOL=$(readlink -f "${PTFS_TOOL:?PTFS_TOOL must name ptfs-tool}")

. "$(dirname "$0")/mount_lib.sh"

ml_tmpdir umrbounds

ASAN=0
grep -q __asan_init "$TOOL" 2>/dev/null && ASAN=1

# The six registers of one gfx9 VMID0 context (BASE, START, END; check_tests/src_data).
regs() {
	printf 'MMIO@0xA3AC={0x1}\nMMIO@0xA3B0={0}\nMMIO@0xA42C={0}\nMMIO@0xA430={0}\n'
	printf 'MMIO@0xA4AC={0xfffff}\nMMIO@0xA4B0={0}\n'
}

# peak LOG: "KIB STATUS" of `ptfs-tool check --gfx 9 LOG` (its output in $TMP/out).
peak() {
	python3 - "$TOOL" "$1" "$TMP/out" <<'PY'
import resource, subprocess, sys
with open(sys.argv[3], "wb") as out:
    rc = subprocess.call([sys.argv[1], "check", "--gfx", "9", sys.argv[2]], stdout=out, stderr=subprocess.STDOUT)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, rc)
PY
}

# bound NAME LOG: the load succeeds (exit 0 or 1: anomalies are findings) and its peak is within the bound.
bound() {
	local name=$1 log=$2 size kib rc limit
	size=$(stat -c %s "$log")
	read -r kib rc < <(peak "$log")
	if [ "$rc" -le 1 ] && grep -q ': 1 context' "$TMP/out"; then
		ok "$name: loads ($(tail -n 1 "$TMP/out"))"
	else
		bad "$name: exit $rc: $(tail -n 2 "$TMP/out")"
	fi
	limit=$(( (3 * size + 64 * 1048576) / 1024 ))
	if [ "$ASAN" = 1 ]; then
		ok "$name: peak RSS (not measured: an ASan build; the plain build checks it)"
	elif [ "$kib" -le "$limit" ]; then
		ok "$name: peak RSS $((kib / 1024)) MiB for $((size / 1048576)) MiB of log, within 3x + 64 MiB ($((limit / 1024)) MiB)"
	else
		bad "$name: peak RSS $((kib / 1024)) MiB for $((size / 1048576)) MiB of log, over 3x + 64 MiB ($((limit / 1024)) MiB)"
	fi
}

# 1. registers read again and again
{ regs; yes 'MMIO@0={0}' | head -n 3000000; } >"$TMP/mmio.log"
bound "3M MMIO@0={0}" "$TMP/mmio.log"

# 2. one long VRAM@ line (zero bytes: invalid entries, no anomalies)
line() {
	printf 'VRAM@0x100000={'
	head -c $((96 << 20)) /dev/zero | tr '\0' '0'
	printf '}\n'
}
{ regs; line; } >"$TMP/vram.log"
bound "one VRAM@ of 48 MiB" "$TMP/vram.log"

# 3. one VRAM@ entry polled
{ regs; yes 'VRAM@0x100000={0110108000000000}' | head -n 100000; } >"$TMP/poll.log"
bound "100k VRAM@ repeats" "$TMP/poll.log"

report
