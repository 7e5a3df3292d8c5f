# live_lib.sh — the fake QMP server of the live source's tests
# (test_live*.sh; sourced after mount_lib.sh, which gives TMP, PIDS and
# poll_until).
#
# serve SCENARIO [RAMFILE]: fake_qmp.py on $TMP/SCENARIO.sock (its command
# log $TMP/SCENARIO.sock.log starts empty) for the guest RAM file RAMFILE
# (default $TMP/ram); its pid in SRV.  stop_srv ends it.
serve() {
	rm -f "$TMP/$1.sock" "$TMP/$1.sock.log"
	python3 "$HERE/fake_qmp.py" "$TMP/$1.sock" "$1" "${2:-$TMP/ram}" &
	SRV=$!
	PIDS+=("$SRV")
	poll_until 10 test -S "$TMP/$1.sock"
}
stop_srv() {
	kill "$SRV" 2>/dev/null
	wait "$SRV" 2>/dev/null
}
