# mount_lib.sh — shared by the scripts that mount the real ptfs
# (test_mount.sh, test_load.sh, test_cli.sh).  Sourced, never run:
#
#     . "$(dirname "$0")/mount_lib.sh"
#
# It gives them one way to count checks (ok / bad / check / same / expect /
# fails, then
# `report` prints "N passed, M failed" and sets the exit status), one FUSE
# precondition (need_fuse: exit 77 to skip without /dev/fuse, a failure
# under CI=true), readiness by polling with a deadline (never by sleeping
# for a fixed time), and one EXIT trap that kills the daemons, undoes every
# mount and removes the scratch directory, even when a check fails.
# bash only (arrays, $SECONDS).

PASS=0
FAIL=0
MOUNTS=()   # mount points to undo at exit
PIDS=()     # background daemons to kill at exit
TMP=        # the scratch directory (ml_tmpdir)

# ok [DESCRIPTION] / bad DESCRIPTION: one check passed / failed.  A bare ok
# (test_cli.sh's style: only failures are worth a line) prints nothing.
ok() {
	PASS=$((PASS + 1))
	[ $# = 0 ] || echo "ok - $*"
}
bad() {
	FAIL=$((FAIL + 1))
	echo "not ok - $*"
}
# check DESCRIPTION COMMAND...: passes when COMMAND succeeds
check() {
	local d=$1
	shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}
# same FILE_A FILE_B DESCRIPTION: passes when the files are identical (diff shown otherwise)
same() {
	if diff -u "$1" "$2" >"$TMP/same.diff" 2>&1; then
		ok "$3"
	else
		bad "$3"
		head -40 "$TMP/same.diff" | sed 's/^/    /'
	fi
}
# expect DESCRIPTION STATUS REGEX COMMAND...: COMMAND exits STATUS and its
# output (stdout and stderr together, in $TMP/out) matches REGEX.
expect() {
	local d=$1 want=$2 re=$3 rc
	shift 3
	"$@" >"$TMP/out" 2>&1
	rc=$?
	if [ "$rc" = "$want" ] && grep -Eq -- "$re" "$TMP/out"; then
		ok "$d"
	else
		bad "$d: exit $rc, $(head -c 300 "$TMP/out")"
	fi
}
# fails DESCRIPTION REGEX COMMAND...: exit 2 with exactly one line on stderr,
# matching REGEX, nothing on stdout (bad input gets one line naming the problem: docs/design.md §1).
fails() {
	local d=$1 re=$2 rc
	shift 2
	"$@" >"$TMP/fo" 2>"$TMP/fe"
	rc=$?
	if [ "$rc" = 2 ] && [ ! -s "$TMP/fo" ] && [ "$(wc -l <"$TMP/fe")" = 1 ] && grep -Eq -- "$re" "$TMP/fe"; then
		ok "$d"
	else
		bad "$d: exit $rc, stdout $(head -c 100 "$TMP/fo"), stderr $(head -c 300 "$TMP/fe")"
	fi
}
# report: the summary line; the status is 0 when nothing failed
report() {
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" = 0 ]
}

# need_fuse: /dev/fuse and fusermount3 or nothing to test.  Without
# /dev/fuse: skip (exit 77), except under CI=true where it is a failure.
need_fuse() {
	if [ ! -c /dev/fuse ]; then
		if [ "${CI:-}" = true ]; then
			echo "FAIL (CI=true, no skipping): /dev/fuse is missing"
			bad "/dev/fuse is missing"
			report
			exit 1
		fi
		echo "SKIP: /dev/fuse is missing"
		exit 77
	fi
	if ! command -v fusermount3 >/dev/null; then
		bad "fusermount3 is not installed"
		report
		exit 1
	fi
}

# ml_cleanup: kills the daemons, undoes the mounts, removes TMP (the EXIT trap)
ml_cleanup() {
	local m p
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	for m in "${MOUNTS[@]}"; do
		if mountpoint -q "$m" 2>/dev/null; then
			fusermount3 -u "$m" 2>/dev/null || fusermount3 -uz "$m" 2>/dev/null
		fi
	done
	if [ -n "$TMP" ]; then
		chmod -R u+w "$TMP" 2>/dev/null   # exported trees are 0555
		rm -rf "$TMP"
	fi
}

# ml_tmpdir NAME: TMP = a fresh $TMPDIR/ptfs-NAME.XXXXXX, cleaned up at exit
ml_tmpdir() {
	TMP=$(mktemp -d "${TMPDIR:-/tmp}/ptfs-$1.XXXXXX") || exit 1
	trap ml_cleanup EXIT
	trap 'exit 1' INT TERM
}

# poll_until SECONDS COMMAND...: polls COMMAND until it succeeds or the deadline passes
poll_until() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep 0.02
	done
}
is_mounted() { mountpoint -q "$1" 2>/dev/null; }
not_mounted() { ! mountpoint -q "$1" 2>/dev/null; }
gone() { ! kill -0 "$1" 2>/dev/null; }

# wait_mounted MNT [SECONDS]: polls until MNT is a mount point (default 10 s)
wait_mounted() {
	poll_until "${2:-10}" is_mounted "$1"
}

# do_mount CAPTURE MNT [ARGS...]: mounts with "$PTFS" (daemonized) and waits;
# stderr goes to MNT.err, and is shown when the mount fails
do_mount() {
	local cap=$1 mnt=$2
	shift 2
	mkdir -p "$mnt"
	if ! "$PTFS" "$cap" "$mnt" "$@" 2>"$mnt.err"; then
		sed 's/^/    /' "$mnt.err"
		return 1
	fi
	MOUNTS+=("$mnt")
	wait_mounted "$mnt"
}

do_umount() {
	fusermount3 -u "$1"
}

# start_fg CAPTURE MNT [PREFIX...] -- [ARGS...]: runs `PREFIX $PTFS -f CAPTURE MNT ARGS`
# in the background with SIGINT/SIGTERM at their defaults (a background job of
# a script starts with SIGINT ignored, and libfuse only hooks signals left at
# SIG_DFL).  Sets FG_PID; stderr goes to MNT.err.  Waits for the mount (120 s:
# valgrind is slow to start).
start_fg() {
	local cap=$1 mnt=$2 pre=() args=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do pre+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	args=("$@")
	mkdir -p "$mnt"
	env --default-signal=INT,TERM "${pre[@]}" "$PTFS" -f "$cap" "$mnt" "${args[@]}" 2>"$mnt.err" &
	FG_PID=$!
	PIDS+=("$FG_PID")
	MOUNTS+=("$mnt")
	if ! wait_mounted "$mnt" 120; then
		sed 's/^/    /' "$mnt.err"
		return 1
	fi
}

# wait_exit PID SECONDS: waits for PID (a child) to exit; its status in ST (124 on timeout)
wait_exit() {
	if poll_until "$2" gone "$1"; then
		wait "$1" 2>/dev/null
		ST=$?
	else
		ST=124
	fi
}
