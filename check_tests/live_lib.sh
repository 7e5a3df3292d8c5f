# live_lib.sh — the set-up the live source's tests share (test_live*.sh,
# test_outfile.sh's snapshot): the fake QMP server (fake_qmp.py) of a
# scenario, the guest's RAM file it serves, and the mounts of it.  Sourced
# after mount_lib.sh, which gives TMP, PIDS, FG_PID, poll_until, start_fg
# and wait_exit.
#
# live_setup NAME: PTFS and TOOL made absolute, FUSE and python3 there (else
# SKIP, exit 77), TMP made ($TMPDIR/ptfs-NAME.XXXXXX, removed at exit).
live_setup() {
	PTFS=$(readlink -f "${PTFS:?}")
	TOOL=$(readlink -f "${PTFS_TOOL:?}")
	need_fuse
	command -v python3 >/dev/null || { echo "SKIP: python3 is missing"; exit 77; }
	ml_tmpdir "$1"
}

# live_ram FILE: writes the guest's RAM file FILE (1 MiB of zeros) after the
# Python lines on stdin, which set 8-byte little-endian words with
# put(ADDRESS, VALUE) (or write m, the bytearray, directly).
live_ram() {
	python3 -c 'import struct, sys
m = bytearray(1 << 20)
def put(a, v): m[a:a + 8] = struct.pack("<Q", v)
exec(sys.stdin.read())
open(sys.argv[1], "wb").write(m)' "$1"
}

# serve SCENARIO [RAMFILE [SOCK]]: fake_qmp.py on $TMP/SOCK.sock (SOCK
# defaults to SCENARIO; its command log $TMP/SOCK.sock.log starts empty)
# for the guest RAM file RAMFILE (default $TMP/ram); its pid in SRV.
# stop_srv ends it.
serve() {
	local sock=$TMP/${3:-$1}.sock
	rm -f "$sock" "$sock.log"
	python3 "$HERE/fake_qmp.py" "$sock" "$1" "${2:-$TMP/ram}" &
	SRV=$!
	PIDS+=("$SRV")
	poll_until 10 test -S "$sock"
}
stop_srv() {
	kill "$SRV" 2>/dev/null
	wait "$SRV" 2>/dev/null
}

# live_umount MNT: unmounts the start_fg mount MNT and waits (10 s) for its
# daemon; its exit status in ST (124: it did not exit).
live_umount() {
	fusermount3 -u "$1"
	wait_exit "$FG_PID" 10
}
