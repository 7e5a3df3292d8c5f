#!/bin/bash
# test_bounds.sh — renders within their memory bounds, on captures built here
# whose one table page points at itself, so that a few hundred bytes describe
# a huge tree (issue 26 items 1 and 2, issue 20 item 4):
#
#  0. ptfs-tool export streams CTX/entries (~14 GB of text): its peak RSS stays
#     within one render's bound while it writes, and it shows progress on a
#     terminal (no FUSE needed)
#  1. the renders the daemon keeps (capture, info, maps, entries; fs/state.c):
#     a cut render keeps nothing: `stat` or `head` of CTX/entries (a 2^25-line,
#     ~14 GB text) or `cat` of CTX/maps interrupted by SIGINT leaves no size
#     and no bytes behind; the next access renders again, and a context that
#     was never interrupted over the same table gives the same bytes
#  2. one daemon-wide budget (-o cache_max=SIZE): after every context's maps,
#     entries and info of 16 contexts over one aliased table were read, the
#     daemon's VmHWM stays within the budget plus one render's working set,
#     and files dropped from the budget read back byte for byte; six maps of
#     64 MiB each stay under the default budget (256 MiB here)
#  3. CTX/entries' text is kept from its first pass up to an eighth of the
#     budget (fs/state.c, issue #35): a 9.3 MB text (above the fixed 8 MiB it
#     was kept up to before) grows the daemon's VmHWM by its size under the
#     default budget and not under -o cache_max=16M (2 MiB kept); both read
#     the bytes ptfs-tool export writes
#
# Environment (check_tests/meson.build): PTFS, PTFS_TOOL, PTFS_FIXTURES.
# Exit: 0 all passed; 1 any failure; 77 only when /dev/fuse is missing and
# CI is not "true".  Mounts are polled for (never slept for) and undone by
# the EXIT trap (both from mount_lib.sh).

set -u
set -o pipefail
export LC_ALL=C

PTFS=$(readlink -f "${PTFS:?PTFS must name the ptfs binary}")
TOOL=$(readlink -f "${PTFS_TOOL:?PTFS_TOOL must name ptfs-tool}")
FIX_SMALL=$(readlink -f "${PTFS_FIXTURES:?PTFS_FIXTURES must name the fixtures directory}")/turing-mixed.tar.gz

. "$(dirname "$0")/mount_lib.sh"

ml_tmpdir bounds

# self_capture DIR K N: an amd-gpuvm capture (ptfs-capture(5)) of N gfx9
# contexts v1..vN sharing one 4 KiB table at vram 0x100000 whose first K
# entries are 0x80100001: valid, pointing at MC address 0x80100000, which
# fb_offset 0x80 (16 MiB units: 0x80000000) puts at the table itself.  Every
# level of the depth-3 walk reads the same page again (amdgpu_vm.h
# AMDGPU_PTE_VALID is bit 0, the address bits 47:12), so the tree has K^4
# leaves (K = 512: ~6.9e10, entries stops at 2^25 lines).
self_capture() {
	local d=$1 k=$2 n=$3 i
	mkdir -p "$d/mem"
	{
		printf '[capture]\nversion = 1\nformat = amd-gpuvm\n\n'
		printf '[memory t]\nspace = vram\nbase = 0x100000\nfile = mem/t.bin\n'
		for i in $(seq 1 "$n"); do
			printf '\n[vm v%d]\ngfx = 9\npage_table_base_addr = 0x80100001\n' "$i"
			printf 'page_table_end_addr = 0xfffffffff\ncntl = 0x7\nfb_offset = 0x80\n'
		done
	} >"$d/capture.ini"
	{
		for i in $(seq 1 "$k"); do printf '\x01\x00\x10\x80\x00\x00\x00\x00'; done
		head -c $(( (512 - k) * 8 )) /dev/zero
	} >"$d/mem/t.bin"
}

# Memory bounds are the plain build's: under AddressSanitizer the quarantine
# (256 MiB of freed memory kept) and the shadow inflate every VmHWM, so an
# ASan build runs every other check and reports these as not measured.
ASAN=0
grep -q __asan_init "$PTFS" "$TOOL" 2>/dev/null && ASAN=1
memcheck() {	# DESCRIPTION CMD...: a memory bound, measured only without ASan
	local d=$1
	shift
	if [ "$ASAN" = 1 ]; then ok "$d (not measured: an ASan build; the plain build checks it)"; else check "$d" "$@"; fi
}
hwm_kib() { sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status"; }

S=$TMP/self
self_capture "$S" 512 2
tar -C "$S" -czf "$TMP/self.tar.gz" capture.ini mem

# ---- 0. export streams -------------------------------------------------------------

# The export runs until its v1/entries holds 200 MB (of ~14 GB) or 60 s, while
# VmHWM is sampled; then it is stopped.  Bound: the capture (4 KiB) and one
# render of at most 64 MiB (v1/maps) + 32 MiB for the program: 96 MiB.  It
# reached 6.2 GB before writing any of entries (issue 26 item 2).  The tree
# is written under a temporary name beside X (.export.XXXXXX) and renamed to
# X when complete (issue #39 item 3): it is read there while the export runs,
# and stopping the export removes it.
X=$TMP/export
"$TOOL" export "$TMP/self.tar.gz" "$X" 2>"$TMP/export.err" &
xpid=$!
PIDS+=("$xpid")
hwm=0
XT=
end=$((SECONDS + 60))
while [ $SECONDS -lt $end ] && kill -0 "$xpid" 2>/dev/null; do
	v=$(hwm_kib "$xpid")
	[ -n "$v" ] && hwm=$v
	[ -n "$XT" ] || XT=$(compgen -G "$TMP/.export.*")
	[ -n "$XT" ] && [ "$(stat -c %s "$XT/v1/entries" 2>/dev/null || echo 0)" -gt 200000000 ] && break
	sleep 0.1
done
got=$(stat -c %s "$XT/v1/entries" 2>/dev/null || echo 0)
check "export: v1/entries streamed ($got bytes written in 60 s at most)" test "$got" -gt 200000000
memcheck "export: VmHWM $((hwm / 1024)) MiB while writing, at most 96 MiB" test "$hwm" -le $((96 * 1024))
check "export: v1/maps written whole first (its # truncated line)" \
	bash -c 'tail -n 1 "$1/v1/maps" | grep -q "^# truncated at VA"' _ "$XT"
check "export: the entries written are the mount's lines (PATH key=value)" \
	bash -c 'head -n 1 "$1/v1/entries" | grep -q "^pdb2/0/entry level=pdb2 .* raw=0x0000000080100001 .* state=pointer "' _ "$XT"
kill "$xpid" 2>/dev/null
wait "$xpid" 2>/dev/null
check "export: stopped, it leaves neither its temporary nor $X" test -n "$XT" -a ! -e "$XT" -a ! -e "$X"
# progress on a terminal (script(1) gives stderr one); none otherwise
script -qec "\"$TOOL\" export \"$FIX_SMALL\" \"$TMP/e2\"" /dev/null >"$TMP/tty.out" 2>&1
check "export: progress on a terminal (files and MiB written)" \
	grep -qE 'ptfs-tool export: [0-9]+ files, [0-9]+ MiB written' "$TMP/tty.out"
chmod -R u+w "$TMP/e2"
rm -rf "$TMP/e2"
"$TOOL" export "$FIX_SMALL" "$TMP/e3" 2>"$TMP/e3.err"
check "export: no progress when stderr is no terminal" test ! -s "$TMP/e3.err"
chmod -R u+w "$TMP/e3"
rm -rf "$TMP/e3"

need_fuse

# ---- 1. a cut render keeps nothing ---------------------------------------------

M=$TMP/m1
if start_fg "$TMP/self.tar.gz" "$M"; then
	pid=$FG_PID
	# the first pass over 2^25 lines (~14 GB) takes minutes: 2 s cut it
	out=$(timeout -s INT 2 stat -c %s "$M/v1/entries" 2>/dev/null)
	check "entries: a stat cut by SIGINT gives no size (got '$out')" test -z "$out"
	# today's bug: the cut pass was kept, and this stat answered at once with its size
	out=$(timeout -s INT 2 stat -c %s "$M/v1/entries" 2>/dev/null)
	check "entries: the next stat renders again, no cut size kept (got '$out')" test -z "$out"
	out=$(timeout -s INT 2 head -c 100 "$M/v1/entries" 2>/dev/null | wc -c)
	check "entries: a read cut by SIGINT gives no bytes (got $out)" test "$out" = 0
	out=$(timeout -s INT 2 stat -c %s "$M/v1/entries" 2>/dev/null)
	check "entries: still no size after a cut read (got '$out')" test -z "$out"
	# maps: the render stops at 64 MiB (man/ptfs.1) in a few seconds; cut it after 0.3 s
	timeout -s INT 0.3 cat "$M/v1/maps" >/dev/null 2>&1
	s1=$(stat -c %s "$M/v1/maps")
	s2=$(stat -c %s "$M/v2/maps")
	check "maps: after a cut render the size is the whole file's ($s1 = twin context $s2)" \
		test -n "$s1" -a "$s1" = "$s2" -a "${s1:-0}" -gt 60000000
	check "maps: the bytes are the twin context's, ending in its # truncated line" \
		bash -c 'cmp -s "$1/v1/maps" "$1/v2/maps" && tail -n 1 "$1/v1/maps" | grep -q "^# truncated at VA"' _ "$M"
	check "the daemon is alive and serves info" bash -c 'grep -q "^context: v1" "$1/v1/info"' _ "$M"
	fusermount3 -u "$M"
	wait_exit "$pid" 60
	check "unmounts cleanly after cut renders (exit $ST)" test "$ST" = 0
else
	bad "self-pointing capture mounts"
fi

# ---- 2. one daemon-wide budget --------------------------------------------------

# 16 contexts x (maps 0.7 MB + entries 4.5 MB, kept: under 8 MiB): ~85 MiB
# held without a shared budget; an 8 MiB budget must keep the daemon far below.
A=$TMP/alias
self_capture "$A" 10 16
M=$TMP/m2
if start_fg "$A" "$M" -- -o cache_max=8M; then
	pid=$FG_PID
	h0=$(hwm_kib "$pid")
	for c in "$M"/v*; do
		cat "$c/maps" "$c/entries" | md5sum | cut -d' ' -f1 >>"$TMP/sums"
		cat "$c/info" >/dev/null
	done
	h1=$(hwm_kib "$pid")
	grow=$(( (h1 - h0) / 1024 ))
	# budget 8 MiB + one render's working set (a render grows its buffer by doubling)
	memcheck "16 contexts read: VmHWM grew ${grow} MiB (from $((h0 / 1024)) MiB), at most 8M budget + 16 MiB" \
		test "$grow" -le 24
	check "every context's maps and entries are the same bytes" \
		test "$(sort -u "$TMP/sums" | wc -l)" = 1 -a "$(wc -l <"$TMP/sums")" = 16
	# v1 was dropped long ago: it renders again, byte for byte
	check "a dropped file reads back the same" \
		test "$(cat "$M/v1/maps" "$M/v1/entries" | md5sum | cut -d' ' -f1)" = "$(head -n 1 "$TMP/sums")"
	check "maps as ptfs-tool maps prints it" \
		bash -c 'cmp -s "$1/v3/maps" <("$2" maps "$3" v3)' _ "$M" "$TOOL" "$A"
	check "st_size of a dropped file is its size" \
		test "$(stat -c %s "$M/v2/entries")" = "$(cat "$M/v2/entries" | wc -c)"
	fusermount3 -u "$M"
	wait_exit "$pid" 60
	check "unmounts cleanly (exit $ST)" test "$ST" = 0
else
	bad "16 aliased contexts mount with -o cache_max=8M"
fi
# The default budget (256 MiB for a capture this small) against six maps
# renders of 64 MiB each, the bound of one render: 517 MiB held before.
D=$TMP/alias8
self_capture "$D" 512 6
M=$TMP/m4
if start_fg "$D" "$M"; then
	pid=$FG_PID
	for c in "$M"/v*; do cat "$c/maps" "$c/info" >/dev/null; done
	h1=$(( $(hwm_kib "$pid") / 1024 ))
	memcheck "6 x 64 MiB of maps under the default budget: VmHWM $h1 MiB, at most 256 + 64 + 32 MiB" \
		test "$h1" -le 352
	fusermount3 -u "$M"
	wait_exit "$pid" 60
else
	bad "8 self-pointing contexts mount"
fi

# ---- 3. the entries text kept by the budget ------------------------------------

# K = 12: 12^4 = 20736 leaves, a 9.3 MB entries text.  Kept, the daemon's
# VmHWM grows by at least its size; not kept, by at most 6 MiB: the 2 MiB
# the pass holds before it gives up, the checkpoints and the reads' slices
# (the fixed 8 MiB before grew it 8 MiB either way: a 9.3 MB text dropped).
K=$TMP/keep
self_capture "$K" 12 1
"$TOOL" export "$K" "$TMP/keep.x" >/dev/null 2>&1
ksize=$(stat -c %s "$TMP/keep.x/v1/entries" 2>/dev/null || echo 0)
check "the entries text is above 8 MiB ($ksize bytes)" test "$ksize" -gt $((8 << 20))
for budget in default 16M; do
	M=$TMP/m5
	opts=()
	[ "$budget" = default ] || opts=(-o "cache_max=$budget")
	if start_fg "$K" "$M" -- "${opts[@]}"; then
		pid=$FG_PID
		h0=$(hwm_kib "$pid")
		check "budget $budget: entries reads as ptfs-tool export writes it" \
			cmp -s "$M/v1/entries" "$TMP/keep.x/v1/entries"
		check "budget $budget: a second read gives the same bytes" \
			cmp -s "$M/v1/entries" "$TMP/keep.x/v1/entries"
		grow=$(( $(hwm_kib "$pid") - h0 ))
		if [ "$budget" = default ]; then
			memcheck "default budget: the text is kept (VmHWM grew $grow KiB, at least its $((ksize / 1024)))" \
				test "$grow" -ge $((ksize / 1024))
		else
			# the 2 MiB held while the pass grows the text, then dropped,
			# and each worker thread's read slice and malloc arena (2-4.5
			# MiB measured; the fixed 8 MiB grew it 8 MiB)
			memcheck "cache_max=16M: the text is not kept (VmHWM grew $grow KiB, at most 6144)" \
				test "$grow" -le 6144
		fi
		fusermount3 -u "$M"
		wait_exit "$pid" 60
		check "budget $budget: unmounts cleanly (exit $ST)" test "$ST" = 0
	else
		bad "budget $budget: the 12^4-leaf capture mounts"
	fi
done

M=$TMP/m3
mkdir -p "$M"
for v in 8X 0x 1T ""; do
	"$PTFS" "$A" "$M" -o "cache_max=$v" 2>"$TMP/err" && { fusermount3 -u "$M"; bad "cache_max=$v mounts"; continue; }
	check "-o cache_max=$v: one E_USAGE line, nothing mounted" \
		bash -c 'grep -q "^ptfs: E_USAGE: -o cache_max=" "$1" && [ "$(wc -l <"$1")" = 1 ] && ! mountpoint -q "$2"' _ "$TMP/err" "$M"
done

report
