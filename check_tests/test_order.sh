#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_order.sh — member order does not matter, also in a compressed archive
# (issue #20 item 6).  ptfs keeps at most 64 MiB of data that comes before
# capture.ini; a member over that budget that capture.ini names is read in a
# second pass over the file, so a .tar.gz whose big blob sorts before
# capture.ini loads as its directory does: in ptfs-tool and in a real mount.
# A pipe is still refused (it cannot be read twice).
#
# The archives are built here: a capture from `ptfs-tool build`, its blob
# padded with 68 MiB that hold one non-zero byte per 4 KiB page (every page
# counts against the budget; gzip makes it small and fast).
#
# Env: PTFS_TOOL (required), PTFS or PTFS_BIN (the mount checks need it and
# /dev/fuse; under CI=true nothing may skip).
. "$(dirname "$0")/mount_lib.sh"
: "${PTFS_TOOL:?PTFS_TOOL must name ptfs-tool}"
TOOL=$PTFS_TOOL
PTFS=${PTFS:-${PTFS_BIN:-}}
ml_tmpdir order

# run EXPECTED_RC DESCRIPTION ARGS...: ptfs-tool ARGS; stdout in $TMP/out, stderr in $TMP/err
run() {
	local want=$1 name=$2 got
	shift 2
	"$TOOL" "$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	if [ "$got" = "$want" ]; then ok "$name: exit $want"; else
		bad "$name: exit $got, wanted $want"; sed 's/^/    /' "$TMP/err"; fi
}

# pad FILE MIB: appends MIB MiB, each 4 KiB page starting with byte 0x5a
pad() {
	python3 - "$1" "$2" <<'EOF'
import sys
page = b"\x5a" + bytes(4095)
with open(sys.argv[1], "ab") as f:
    f.write(page * (int(sys.argv[2]) << 8))
EOF
}

D=$TMP/cap
printf '[capture]\nversion = 1\nformat = nv-gmmu-ver2\n[pdb pdb0]\nspace = vidmem\nmap = 0x200000 2M vidmem 0x40000000\nmap = 0x400000 12K sysmem 0x80000000 read_only\n' >"$TMP/spec.ini"
run 0 "build the capture" build "$TMP/spec.ini" "$D"
if [ -f "$D/mem/vidmem.bin" ] && grep -q '^address = 0x100000$' "$D/capture.ini"; then ok "build wrote mem/vidmem.bin, root at 0x100000"; else
	bad "build's layout changed: $(ls -R "$D")"; fi
tables=$(stat -c %s "$D/mem/vidmem.bin")
pad "$D/mem/vidmem.bin" 68
# two more contexts whose roots are the first and the last page of the pad:
# their info shows the pad's bytes were kept (entry 0 = 0x5a, 1 entry)
first=$((0x100000 + tables))
last=$((0x100000 + tables + (68 << 20) - 4096 * 4))
printf '\n[pdb pad_first]\nspace = vidmem\naddress = 0x%x\n\n[pdb pad_last]\nspace = vidmem\naddress = 0x%x\n' \
	"$first" "$last" >>"$D/capture.ini"

# the reference: the directory, read in place
"$TOOL" maps "$D" >"$TMP/maps.dir" 2>&1
for c in pdb0 pad_first pad_last; do "$TOOL" info "$D" "$c" >"$TMP/info.dir.$c" 2>&1; done
"$TOOL" info "$D" >"$TMP/info.dir" 2>&1
"$TOOL" walk "$D" pdb0 0x200000 0x401000 >"$TMP/walk.dir" 2>&1
# the pad's pages are reserved_bits anomalies of pad_first and pad_last: the same ones
"$TOOL" check "$D" | sed '$d' >"$TMP/check.dir"
if grep -q '^level.pde3: tables 1 entries 1 mapped 0$' "$TMP/info.dir.pad_last"; then ok "the reference sees the pad's last page"; else
	bad "the reference does not see the pad: $(cat "$TMP/info.dir.pad_last")"; fi

# same_capture NAME CAPTURE: CAPTURE gives the directory's maps, info and walks
same_capture() {
	run 0 "$1: maps" maps "$2"
	same "$TMP/maps.dir" "$TMP/out" "$1: maps as the directory's"
	if [ -s "$TMP/err" ]; then bad "$1: a warning: $(cat "$TMP/err")"; else ok; fi
	run 0 "$1: info" info "$2"
	same "$TMP/info.dir" "$TMP/out" "$1: info as the directory's"
	run 0 "$1: walk" walk "$2" pdb0 0x200000 0x401000
	same "$TMP/walk.dir" "$TMP/out" "$1: walks as the directory's"
	run 1 "$1: check (the pad's anomalies)" check "$2"
	sed '$d' "$TMP/out" >"$TMP/check.out"
	same "$TMP/check.dir" "$TMP/check.out" "$1: check as the directory's"
}

# 1. the big blob (68 MiB of pages with data) before capture.ini
tar -czf "$TMP/blob-first.tar.gz" -C "$D" mem capture.ini
if [ "$(tar -tzf "$TMP/blob-first.tar.gz" | tr '\n' ' ')" = "mem/ mem/vidmem.bin capture.ini " ]; then
	ok "blob-first.tar.gz: the blob comes first"; else bad "blob-first.tar.gz order: $(tar -tzf "$TMP/blob-first.tar.gz")"; fi
same_capture blob-first "$TMP/blob-first.tar.gz"
# 2. the same inside a top-level directory (capture.ini found as cap/capture.ini)
tar -cJf "$TMP/in-dir.tar.xz" -C "$TMP" cap/mem cap/capture.ini
same_capture in-dir "$TMP/in-dir.tar.xz"
# 3. capture.ini itself past the budget: 16 members of 4 MiB of data fill
# it, then capture.ini and the blob are both read in the second pass
mkdir -p "$D/junk"
for i in $(seq -w 1 16); do : >"$D/junk/$i.bin"; pad "$D/junk/$i.bin" 4; done
tar -czf "$TMP/ini-late.tar.gz" -C "$D" junk capture.ini mem
same_capture ini-late "$TMP/ini-late.tar.gz"
rm -rf "$D/junk"
# 4. a member over the budget that capture.ini does not name costs nothing and is not read again
cp "$D/mem/vidmem.bin" "$TMP/unnamed.bin"
tar -czf "$TMP/unnamed.tar.gz" -C "$TMP" unnamed.bin -C "$D" capture.ini mem
same_capture unnamed "$TMP/unnamed.tar.gz"
# 5. a pipe cannot be read twice: refused, with the message it always had
"$TOOL" info /dev/stdin <"$TMP/blob-first.tar.gz" >/dev/null 2>"$TMP/err.file"
st=$?
if [ $st = 0 ]; then ok "stdin redirected from the file (seekable) loads"; else bad "stdin from the file: exit $st: $(cat "$TMP/err.file")"; fi
cat "$TMP/blob-first.tar.gz" | "$TOOL" info /dev/stdin >/dev/null 2>"$TMP/err"
st=$?
if [ $st = 2 ] && grep -q "ptfs-tool: E_USAGE: /dev/stdin: is a FIFO; ptfs reads a capture from a regular file or a directory" "$TMP/err"; then
	ok "a pipe is refused (exit 2, E_USAGE: is a FIFO)"; else bad "a pipe: exit $st: $(cat "$TMP/err")"; fi

# ---- a real mount of the blob-first archive ------------------------------
if [ -z "$PTFS" ] || [ ! -c /dev/fuse ] || ! command -v fusermount3 >/dev/null; then
	if [ "${CI:-}" = true ]; then bad "CI=true: the mount checks need PTFS, /dev/fuse and fusermount3"; else
		echo "# SKIP the mount checks: no ptfs, /dev/fuse or fusermount3"; fi
	report
	exit
fi
M=$TMP/mnt
if do_mount "$TMP/blob-first.tar.gz" "$M"; then
	ok "ptfs mounts blob-first.tar.gz"
	if [ -s "$M.err" ]; then bad "ptfs said: $(cat "$M.err")"; else ok; fi
	for c in pdb0 pad_first pad_last; do
		sed "s/^/$c /" "$M/$c/maps"
	done | grep -v '^pad_' >"$TMP/maps.mnt"
	same "$TMP/maps.dir" "$TMP/maps.mnt" "mount: maps as the directory's"
	for c in pdb0 pad_first pad_last; do
		same "$TMP/info.dir.$c" "$M/$c/info" "mount: $c/info as the directory's"
	done
	check "mount: walk/0x401000 is mapped" grep -q '^result: mapped pa=sysmem:0x80001000 ' "$M/pdb0/walk/0x401000"
	check "mount: the pad's last page holds its byte (pde3/0 raw 0x5a)" grep -qx 'raw: 0x000000000000005a' "$M/pad_last/pde3/0/entry"
	do_umount "$M"
else
	bad "ptfs mounts blob-first.tar.gz"
fi
report
