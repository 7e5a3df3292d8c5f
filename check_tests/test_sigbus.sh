#!/bin/bash
# test_sigbus.sh — a capture file that shrinks under the daemon (issue #16.3).
#
# ptfs serves uncompressed archives and directory captures from an mmap of
# their files, under a read lease that makes a private copy when a writer
# opens the file.  Two ways remain for a writer to shrink a mapped file
# anyway, and touching a lost page is SIGBUS; the daemon must live:
#
#  a. a directory capture whose daemon is stopped (SIGSTOP) while a blob is
#     truncated: the kernel revokes the lease after lease-break-time, the
#     truncation proceeds, and on SIGCONT the lease-break handler finds the
#     file already short;
#  b. a 1 GiB uncompressed tar mounted under an address-space limit
#     (prlimit --as), so the private copy cannot be mapped: the lease is
#     kept until the kernel revokes it, then the truncation proceeds.
#
# In both the daemon lives, the lost bytes read as not captured (walk/ says
# not_captured; files built from them are ENOENT), what is left is still
# served, and the unmount is clean (exit 0).
#
# /proc/sys/fs/lease-break-time is lowered to 1 s for the test and restored.
# Environment (check_tests/meson.build): PTFS, PTFS_FIXTURES.
# Exit: 0 all passed; 1 any failure; 77 when /dev/fuse is missing (not under
# CI=true) or the lease-break time cannot be changed (not root).

set -u
set -o pipefail
export LC_ALL=C

PTFS=$(readlink -f "${PTFS:?PTFS must name the ptfs binary}")
FIX=$(readlink -f "${PTFS_FIXTURES:?PTFS_FIXTURES must name the fixtures directory}")
LBT=/proc/sys/fs/lease-break-time

. "$(dirname "$0")/mount_lib.sh"

need_fuse
ml_tmpdir sigbus

OLD_LBT=$(cat "$LBT" 2>/dev/null) || OLD_LBT=
if [ -z "$OLD_LBT" ] || ! echo 1 >"$LBT" 2>/dev/null; then
	echo "SKIP: cannot lower $LBT (needs root)"
	exit 77
fi
restore_lbt() { echo "$OLD_LBT" >"$LBT"; }
trap 'restore_lbt; ml_cleanup' EXIT

# alive PID WHAT: the daemon still runs
alive() {
	if kill -0 "$1" 2>/dev/null; then ok "$2: the daemon lives"; else bad "$2: the daemon died"; fi
}

# read_all MNT WHAT: reads everything a user would; every failure must be
# ENOENT or EIO (a clean "not there"), never a dead mount (ENOTCONN)
read_all() {
	local m=$1 err=$TMP/read.err
	{
		grep -r "" "$m" >/dev/null
		ls -l "$m"/*/va >/dev/null
		for c in "$m"/pdb*/; do
			cat "$c/maps" "$c/info" "$c/walk/0x200000" "$c/walk/0x212345" >/dev/null
		done
	} 2>"$err"
	if grep -v -e 'No such file or directory' -e 'Input/output error' "$err" | grep -q .; then
		bad "$2: a read failed other than ENOENT/EIO"
		sed 's/^/    /' "$err" | head -10
	else
		ok "$2: every read served or failed cleanly ($(wc -l <"$err") ENOENT/EIO)"
	fi
}

# unmount_clean MNT PID WHAT: fusermount3 -u, and the daemon exits 0
unmount_clean() {
	if do_umount "$1"; then ok "$3: unmounted"; else bad "$3: fusermount3 -u failed"; fi
	wait_exit "$2" 20
	if [ "$ST" = 0 ]; then ok "$3: the daemon exited 0"; else bad "$3: the daemon exited $ST"; fi
}

# ---- a. directory capture, daemon stopped while a blob is truncated ----------

DIR=$TMP/dir
cp -r "$FIX/turing-mixed.d" "$DIR" || { bad "copy the directory fixture"; report; exit 1; }
BLOB=$DIR/mem/vidmem-200000.bin   # pdb0's root table and most of its tree
MA=$TMP/mnt_a
if start_fg "$DIR" "$MA"; then
	PID=$FG_PID
	kill -STOP "$PID"
	# The open for writing waits for the stopped lease holder, then the kernel
	# revokes the lease.  (truncate(1) opens O_NONBLOCK and gets EAGAIN; dd
	# truncates at its seek offset with a blocking open.)
	timeout 60 dd if=/dev/null of="$BLOB" bs=1 seek=0 status=none
	check "a: the blob is truncated (size 0)" test "$(stat -c %s "$BLOB")" = 0
	kill -CONT "$PID"
	read_all "$MA" a
	alive "$PID" a
	if grep -q 'not_captured' "$MA/pdb0/walk/0x200000" 2>/dev/null; then
		ok "a: walk/ of a lost table says not_captured"
	else
		bad "a: walk/ of a lost table does not say not_captured"
		sed 's/^/    /' "$MA/pdb0/walk/0x200000" 2>&1 | head -5
	fi
	check "a: what is left (pdb1's sysmem root) is still served" test -e "$MA/pdb1/pde3/0/entry"
	alive "$PID" a
	unmount_clean "$MA" "$PID" a
else
	bad "a: mount the directory capture"
fi

# ---- b. 1 GiB tar in place, no memory for the private copy -------------------

if grep -q __asan_init "$PTFS" 2>/dev/null; then
	# ASan reserves terabytes of shadow address space: no address-space limit fits.
	echo "SKIP b: $PTFS is built with AddressSanitizer"
	report
	exit
fi

# The sysmem blob grows to 1 GiB of zeros (a sparse file, and a sparse tar):
# the whole archive is one 1 GiB mapping, and a copy of it does not fit in
# the address space left under the limit.
BIG=$TMP/big
cp -r "$FIX/turing-mixed.d" "$BIG" && truncate -s 1G "$BIG/mem/sysmem-100000000.bin" &&
	(cd "$BIG" && tar cf - capture.ini mem/vidmem-200000.bin mem/vidmem-205000.bin \
		mem/sysmem-100000000.bin) | dd of="$TMP/big.tar" bs=1M conv=sparse status=none
check "b: a 1 GiB uncompressed tar" test "$(stat -c %s "$TMP/big.tar")" -gt 1073741824
rm -rf "$BIG"
MB=$TMP/mnt_b
# 1 GiB mapped + the daemon's own few hundred MiB fit in 1.5 GiB; a second GiB does not.
if start_fg "$TMP/big.tar" "$MB" prlimit --as=1610612736 --; then
	PID=$FG_PID
	timeout 60 dd if=/dev/null of="$TMP/big.tar" bs=1 seek=4096 status=none
	check "b: the tar is truncated (size 4096)" test "$(stat -c %s "$TMP/big.tar")" = 4096
	read_all "$MB" b
	alive "$PID" b
	if grep -q 'not_captured' "$MB/pdb1/walk/0x200000" 2>/dev/null; then
		ok "b: walk/ of a lost table says not_captured"
	else
		bad "b: walk/ of a lost table does not say not_captured"
		sed 's/^/    /' "$MB/pdb1/walk/0x200000" 2>&1 | head -5
	fi
	unmount_clean "$MB" "$PID" b
else
	bad "b: mount the tar under prlimit --as"
fi

report
