#!/bin/bash
# test_mount_vs.sh — the mount's CTX_A/vs/CTX_B (issue #24 item 2): the same
# bytes as `ptfs-tool crosscheck CAPTURE CTX_A CTX_B`, lookup-only (vs/ lists
# nothing; vs/SELF and unknown names are ENOENT), stable inode numbers,
# and a render cut by SIGINT keeps nothing: the next read gives the whole
# file.  Really mounts (ptfs + fusermount3 -u), waits, always unmounts.
#
# Environment (check_tests/meson.build): PTFS, PTFS_TOOL, PTFS_FIXTURES.
set -u
PTFS=${PTFS:?}
TOOL=${PTFS_TOOL:?}
FIX=${PTFS_FIXTURES:?}
. "$(dirname "$0")/mount_lib.sh"
ml_tmpdir mount-vs
need_fuse
X=$FIX/xcheck-mirror.tar.gz

M=$TMP/m
if do_mount "$X" "$M"; then
	"$TOOL" crosscheck "$X" proc svm >"$TMP/want.ab" 2>/dev/null
	"$TOOL" crosscheck "$X" svm proc >"$TMP/want.ba" 2>/dev/null
	cat "$M/proc/vs/svm" >"$TMP/got.ab"
	check "cat proc/vs/svm is ptfs-tool crosscheck proc svm, byte for byte" cmp "$TMP/want.ab" "$TMP/got.ab"
	check "... and svm/vs/proc is crosscheck svm proc" cmp "$TMP/want.ba" "$M/svm/vs/proc"
	check "the file ends in the summary line" grep -qx '# summary: same 5, pa_differs 1, perm_differs 4, only_a 2, only_b 1' "$M/proc/vs/svm"
	check "st_size is exact" test "$(stat -c %s "$M/proc/vs/svm")" = "$(wc -c <"$TMP/want.ab")"
	check "vs/ is a directory 0555 listed in the context" bash -c 'test "$(stat -c %A "$1/proc/vs")" = dr-xr-xr-x && ls "$1/proc" | grep -qx vs' _ "$M"
	check "the file is 0444" test "$(stat -c %A "$M/proc/vs/svm")" = -r--r--r--
	check "vs/ lists nothing" test -z "$(ls -A "$M/proc/vs")"
	check "vs/SELF is ENOENT" bash -c '! cat "$1/proc/vs/proc" 2>"$2" && grep -q "No such file" "$2"' _ "$M" "$TMP/e1"
	check "an unknown name is ENOENT" bash -c '! stat "$1/proc/vs/nosuch" 2>"$2" && grep -q "No such file" "$2"' _ "$M" "$TMP/e2"
	check "vs/capture (the root's file, no context) is ENOENT" test ! -e "$M/proc/vs/capture"
	check "a vs file is no directory" bash -c '! ls "$1/proc/vs/svm/x" 2>/dev/null' _ "$M"
	check "writes fail" bash -c '! echo x 2>/dev/null >"$1/proc/vs/svm"' _ "$M"
	i1=$(stat -c %i "$M/proc/vs/svm")
	i2=$(stat -c %i "$M/svm/vs/proc")
	iv=$(stat -c %i "$M/proc/vs")
	check "the two files and vs/ have distinct inode numbers" test "$i1" != "$i2" -a "$i1" != "$iv"
	check "ls -R of the mount still works (vs/ empty)" bash -c 'ls -R "$1" >/dev/null' _ "$M"
	do_umount "$M"
	check "unmounted" not_mounted "$M"
	if do_mount "$X" "$M"; then
		check "inode numbers are stable across mounts" \
			test "$(stat -c %i "$M/proc/vs/svm")" = "$i1" -a "$(stat -c %i "$M/svm/vs/proc")" = "$i2" -a "$(stat -c %i "$M/proc/vs")" = "$iv"
		do_umount "$M"
	fi
else
	bad "mount of xcheck-mirror failed"
fi

# Across formats: xcheck-gpuvm's proc (x86-64) against vmid (amd-gpuvm).
G=$FIX/xcheck-gpuvm.tar.gz
if do_mount "$G" "$M"; then
	"$TOOL" crosscheck "$G" proc vmid >"$TMP/gwant.ab" 2>/dev/null
	"$TOOL" crosscheck "$G" vmid proc >"$TMP/gwant.ba" 2>/dev/null
	check "xcheck-gpuvm: proc/vs/vmid is ptfs-tool crosscheck proc vmid, byte for byte" cmp "$TMP/gwant.ab" "$M/proc/vs/vmid"
	check "xcheck-gpuvm: vmid/vs/proc is crosscheck vmid proc" cmp "$TMP/gwant.ba" "$M/vmid/vs/proc"
	do_umount "$M"
else
	bad "mount of xcheck-gpuvm failed"
fi

# A long render cut by SIGINT: three contexts over one self-pointing
# amd-gpuvm table (every VA maps; the render stops at 64 MiB of text, which
# takes seconds).  Cut after 0.3 s, the file must not be kept cut: the next
# read is the whole file, the same bytes as the twin pair's, and its first
# lines are ptfs-tool crosscheck's.
S=$TMP/self
mkdir -p "$S/mem"
{
	printf '[capture]\nversion = 1\nformat = amd-gpuvm\n\n'
	printf '[memory t]\nspace = vram\nbase = 0x100000\nfile = mem/t.bin\n'
	for i in 1 2 3; do
		printf '\n[vm v%d]\ngfx = 9\npage_table_base_addr = 0x80100001\n' "$i"
		printf 'page_table_end_addr = 0xfffffffff\ncntl = 0x7\nfb_offset = 0x80\n'
	done
} >"$S/capture.ini"
for i in $(seq 1 512); do printf '\x01\x00\x10\x80\x00\x00\x00\x00'; done >"$S/mem/t.bin"
M=$TMP/self-m
if start_fg "$S" "$M"; then
	pid=$FG_PID
	timeout -s INT 0.3 cat "$M/v1/vs/v2" >"$TMP/cut" 2>/dev/null
	rc=$?
	check "the first read is cut by SIGINT (timeout exit $rc, $(wc -c <"$TMP/cut") bytes)" test "$rc" = 124 -a ! -s "$TMP/cut"
	cat "$M/v1/vs/v2" >"$TMP/whole"
	cat "$M/v1/vs/v3" >"$TMP/twin"
	sz=$(stat -c %s "$M/v1/vs/v2")
	check "the next read is the whole file ($(wc -c <"$TMP/whole") bytes = st_size $sz)" \
		test "$(wc -c <"$TMP/whole")" = "$sz" -a "$sz" -gt 60000000
	check "... the same bytes as the twin pair v1/vs/v3" cmp -s "$TMP/whole" "$TMP/twin"
	check "... ending in its # truncated line (64 MiB held at most)" \
		bash -c 'tail -n 1 "$1" | grep -q "^# truncated at VA 0x[0-9a-f]*: v1: more than 67108864 bytes$"' _ "$TMP/whole"
	n=$(($(wc -l <"$TMP/whole") - 1))
	"$TOOL" crosscheck "$S" v1 v2 2>/dev/null | head -n "$n" >"$TMP/cli"
	check "... whose lines are ptfs-tool crosscheck's ($n lines)" cmp -s "$TMP/cli" <(head -n "$n" "$TMP/whole")
	fusermount3 -u "$M"
	wait_exit "$pid" 60
	check "unmounts cleanly after a cut render (exit $ST)" test "$ST" = 0
else
	bad "mount of the self-pointing capture failed"
fi
report
