# SPDX-License-Identifier: MIT
#
# bench/run_lib.sh — bench/run's measuring helpers: clocks, mounting ptfs and
# its baselines (archivemount, squashfuse_ll, the kernel's squashfs), timed
# runs warm and cold, the table rows, and the self-check of the harness.
# Sourced by bench/run (which sets WORK, PTFS, REPS, ... first), never run.

now() {
	if [[ -n ${EPOCHREALTIME:-} ]]; then
		NOW=$EPOCHREALTIME
	else
		NOW=$(date +%s.%N)
	fi
}

fsub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", a - b }'; }

# fs_mount KIND SOURCE MNT [OPTIONS...]: KIND ptfs, archivemount, squashfuse_ll
# or ksquashfs (the kernel's squashfs on a loop device: no daemon).  Sets
# MOUNT_S (seconds from start to `mountpoint -q` success).  Returns 1 when the
# daemon exits first or the deadline passes.
fs_mount() {
	local kind=$1 src=$2 mnt=$3 pid s deadline rc
	shift 3
	mkdir -p "$mnt"
	now; s=$NOW
	if [[ $kind == ksquashfs ]]; then
		if ! mount -o loop,ro -t squashfs "$@" "$src" "$mnt" >>"$LOG" 2>&1; then
			[[ -n $ROW_FAIL ]] || ROW_FAIL="FAIL (mount -t squashfs)"
			return 1
		fi
		MNT_PID[$mnt]=kernel
		MNT_KIND[$mnt]=$kind
		now
		MOUNT_S=$(fsub "$NOW" "$s")
		return 0
	fi
	case $kind in
	ptfs) "$PTFS" -f "$@" "$src" "$mnt" </dev/null >>"$LOG" 2>&1 & ;;
	squashfuse_ll) squashfuse_ll -f "$@" "$src" "$mnt" </dev/null >>"$LOG" 2>&1 & ;;
	*) archivemount -f -o readonly "$@" "$src" "$mnt" </dev/null >>"$LOG" 2>&1 & ;;
	esac
	pid=$!
	MNT_PID[$mnt]=$pid
	MNT_KIND[$mnt]=$kind
	deadline=$((SECONDS + MOUNT_TIMEOUT))
	# No sleep between polls: the poll interval would be part of the figure.
	until mountpoint -q "$mnt"; do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid"
			rc=$?
			echo "bench/run: $kind exited before mounting $src (log: $LOG)" >&2
			[[ -n $ROW_FAIL ]] || ROW_FAIL="FAIL ($kind exit $rc, no mount)"
			unset "MNT_PID[$mnt]"
			return 1
		fi
		if ((SECONDS > deadline)); then
			echo "bench/run: $kind did not mount $src within ${MOUNT_TIMEOUT}s" >&2
			[[ -n $ROW_FAIL ]] || ROW_FAIL="FAIL ($kind: no mount in ${MOUNT_TIMEOUT}s)"
			return 1
		fi
	done
	now
	MOUNT_S=$(fsub "$NOW" "$s")
}

fs_umount() {
	local mnt=$1 pid=${MNT_PID[$1]:-} kb
	[[ -n $pid ]] || return 0
	if [[ ${MNT_KIND[$mnt]} == ksquashfs ]]; then
		# the loop device goes with the mount (mount -o loop sets autoclear)
		umount "$mnt" || { sleep 0.2; umount "$mnt"; }
		unset "MNT_PID[$mnt]"
		return 0
	fi
	if [[ ${MNT_KIND[$mnt]} == ptfs ]]; then
		kb=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
		((${kb:-0} > HWM_KB)) && HWM_KB=$kb
	fi
	fusermount3 -u "$mnt" || { sleep 0.2; fusermount3 -u "$mnt"; }
	wait "$pid" 2>/dev/null
	unset "MNT_PID[$mnt]"
}

# ------------------------------------------------------------------
# Timing.  Every function leaves its figure (seconds) in T.

# Exit statuses.  Every timed command has a list of the statuses it accepts,
# ACCEPT (comma separated, "0" unless the row says otherwise): `ok 0,1 warm ...
# grep ...` states it for one call (bash's dynamic scope hands the local to
# every function below).  A command that exits otherwise is logged, its figure
# is dropped (T="") and ROW_FAIL makes the next row print FAIL and the status
# in its result column: a figure that timed an error is worse than none
# (decode rows once timed an E_VALUE exit at 87 Me/s under `hyperfine -i`).
ACCEPT=0
ROW_FAIL=""
ok() { local ACCEPT=$1; shift; "$@"; }
rc_ok() { [[ $1 =~ ^[0-9]+$ && ,$ACCEPT, == *,$1,* ]]; }

# cmd_failed STATUS CMD...: note a command that exited with an unaccepted
# STATUS (the first failure since the last row is the one shown).
cmd_failed() {
	local rc=$1
	shift
	echo "bench/run: exit $rc (accepted: $ACCEPT): $*" >>"$LOG"
	[[ -n $ROW_FAIL ]] || ROW_FAIL="FAIL (${1##*/} exit $rc)"
	T=""
}

# run_once CMD...: one timed run, output discarded, status checked (ACCEPT).
run_once() {
	local s rc
	now; s=$NOW
	"$@" >/dev/null 2>>"$LOG"
	rc=$?
	now
	T=$(fsub "$NOW" "$s")
	if ! rc_ok "$rc"; then
		cmd_failed "$rc" "$@"
		return 1
	fi
}

tmin() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a + 0 < b + 0) ? a : b }'; }

# warm N CMD...: best of N runs of a repeatable command (hyperfine if installed).
# hyperfine runs with -i (grep and diff exit 1 by design) and the status of
# every run is checked against ACCEPT from its JSON (exit_codes); a hyperfine
# without exit_codes gets one more, un-timed, checked run.
warm() {
	local n=$1 best="" i
	shift
	if command -v hyperfine >/dev/null && ((!NO_HYPERFINE)); then
		local q="" a codes c
		for a in "$@"; do q+="$(printf '%q' "$a") "; done
		rm -f "$WORK/hf.json"
		if hyperfine -N -i --runs "$n" --export-json "$WORK/hf.json" -- "$q" \
			>>"$LOG" 2>&1; then
			codes=$(tr -d ' \n' <"$WORK/hf.json" | grep -o '"exit_codes":\[[^]]*\]' | head -1)
			if [[ -n $codes ]]; then
				codes=${codes#*[}
				IFS=, read -ra a <<<"${codes%]*}"
				for c in "${a[@]}"; do
					rc_ok "$c" || { cmd_failed "$c" "$@"; return 1; }
				done
			else
				run_once "$@" || return 1
			fi
			T=$(grep -o '"min": *[0-9.e+-]*' "$WORK/hf.json" | head -1 | awk '{ print $2 + 0 }')
			[[ -n $T ]] && return 0
		fi
	fi
	for ((i = 0; i < n; i++)); do
		run_once "$@" || return 1
		best=$(tmin "$T" "$best")
	done
	T=$best
}

# mount_time N SOURCE [OPTIONS...]: best time to mount (ptfs).
mount_time() {
	local n=$1 src=$2 best="" i
	shift 2
	for ((i = 0; i < n; i++)); do
		fs_mount ptfs "$src" "$WORK/m1" "$@" || { T=""; return 1; }
		best=$(tmin "$MOUNT_S" "$best")
		fs_umount "$WORK/m1"
	done
	T=$best
}

# cold N KIND SOURCE MOUNTOPTS -- CMD...: best time of CMD run right after a
# fresh mount of SOURCE at $WORK/m1 (the first read of everything).
cold() {
	local n=$1 kind=$2 src=$3 best="" i opts=()
	shift 3
	while [[ $1 != -- ]]; do opts+=("$1"); shift; done
	shift
	for ((i = 0; i < n; i++)); do
		fs_mount "$kind" "$src" "$WORK/m1" "${opts[@]}" || { T=""; return 1; }
		run_once "$@" || { fs_umount "$WORK/m1"; return 1; }
		best=$(tmin "$T" "$best")
		fs_umount "$WORK/m1"
	done
	T=$best
}

# CPU time instead of wall time, for rows whose goal (10%) the load of other
# jobs on a shared machine hides in wall time: what the work costs, not when
# it ran.  cpu_warm N CMD...: least CPU time of N runs (cpu_run).  cpu_cold N SOURCE -- CMD...: least CPU of a fresh ptfs mount of
# SOURCE (the daemon: every thread's run time from /proc/PID/task/*/schedstat,
# in ns, just before unmounting; the load is in it) plus CMD's own.  T in s.
# CMD's CPU: perf stat's task-clock (scheduler run time, ns) where perf
# works, else getrusage (tick-based here: 4 ms steps).
HAVE_PERF=-1
cpu_run() {
	local TIMEFORMAT='%3U %3S' out rc
	if ((HAVE_PERF < 0)); then
		HAVE_PERF=0
		perf stat -x, -e task-clock -o "$WORK/perf.txt" true 2>/dev/null &&
			grep -q task-clock "$WORK/perf.txt" && HAVE_PERF=1
	fi
	if ((HAVE_PERF)); then
		perf stat -x, -e task-clock -o "$WORK/perf.txt" "$@" >/dev/null 2>>"$LOG"
		rc=$?
		out=$(awk -F, '$3 == "task-clock" { print $1 / 1000 }' "$WORK/perf.txt")
	else
		out=$({ time "$@" >/dev/null 2>>"$LOG"; } 2>&1)
		rc=$?
		out=$(awk '{ print $1 + $2 }' <<<"${out##*$'\n'}")
	fi
	if ! rc_ok "$rc"; then
		cmd_failed "$rc" "$@"
		return 1
	fi
	T=$out
}

cpu_warm() {
	local n=$1 best="" i
	shift
	for ((i = 0; i < n; i++)); do
		cpu_run "$@" || { T=""; return 1; }
		best=$(tmin "$T" "$best")
	done
	T=$best
}

daemon_cpu() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ ns += $1 } END { printf "%.6f", ns / 1e9 }'
}

cpu_cold() {
	local n=$1 src=$2 best="" i c d
	shift 3
	for ((i = 0; i < n; i++)); do
		fs_mount ptfs "$src" "$WORK/m1" || { T=""; return 1; }
		cpu_run "$@" || { fs_umount "$WORK/m1"; T=""; return 1; }
		c=$T
		d=$(daemon_cpu "${MNT_PID[$WORK/m1]}")
		fs_umount "$WORK/m1"
		best=$(tmin "$(awk -v a="$c" -v b="$d" 'BEGIN { print a + b }')" "$best")
	done
	T=$best
}

# Instructions (valgrind's callgrind: deterministic, blind to the load; only
# where valgrind is installed).  T is in millions.  insn_cmd CMD...: the
# instructions of CMD.  insn_mount SOURCE CMD...: the daemon's (`ptfs -f -s`
# under callgrind) from its start to its unmount, CMD run on the fresh mount.
insn_cmd() {
	local out
	out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null)
	T=$(grep -o 'Collected : [0-9]*' <<<"$out" | awk '{ printf "%.1f", $3 / 1e6 }')
	[[ -n $T ]] || { echo "bench/run: no callgrind count: $*" >>"$LOG"; return 1; }
}

insn_mount() {
	local src=$1 m=$WORK/m1 pid deadline
	shift
	mkdir -p "$m"
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$PTFS" -f -s "$src" "$m" \
		</dev/null >/dev/null 2>"$WORK/cg.err" &
	pid=$!
	deadline=$((SECONDS + MOUNT_TIMEOUT))
	until mountpoint -q "$m"; do
		if ! kill -0 "$pid" 2>/dev/null || ((SECONDS > deadline)); then
			kill "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			T=""
			return 1
		fi
		sleep 0.05
	done
	"$@" >/dev/null 2>>"$LOG"
	fusermount3 -u "$m" || { sleep 0.2; fusermount3 -u "$m"; }
	wait "$pid"
	T=$(grep -o 'Collected : [0-9]*' "$WORK/cg.err" | awk '{ printf "%.1f", $3 / 1e6 }')
	[[ -n $T ]]
}

# ------------------------------------------------------------------
# The table.

# row SCALE NAME PTFS BASELINE UNIT GOAL: figures in UNIT-less numbers
# (seconds unless UNIT says otherwise); GOAL "<=X" compares the ratio
# ptfs/baseline, "" means no goal (info).  PTFS "" means n/a; so does a goal
# without a baseline (no ratio to compare).  A command of the row that exited
# with a status it does not accept (ROW_FAIL) makes the result FAIL.
row() {
	local scale=$1 name=$2 a=$3 b=$4 unit=$5 goal=$6
	awk -v s="$scale" -v n="$name" -v a="$a" -v b="$b" -v u="$unit" -v g="$goal" \
		-v f="$ROW_FAIL" '
	function fmt(x) {
		if (x == "") return "n/a"
		if (u == "s") {
			if (x < 0.001) return sprintf("%.0f us", x * 1e6)
			if (x < 1) return sprintf("%.1f ms", x * 1e3)
			return sprintf("%.2f s", x)
		}
		if (u == "us") return sprintf("%.1f us", x)
		if (u == "MiB") return sprintf("%.1f MiB", x)
		if (u == "e/s") return sprintf("%.2f Me/s", x / 1e6)
		return x
	}
	BEGIN {
		r = (a == "" || b == "" || b + 0 == 0) ? "" : a / b
		v = "info"
		if (a == "") v = "n/a"
		else if (g ~ /^<=/ && r == "") v = "n/a"
		else if (g ~ /^<=/) { lim = substr(g, 3) + 0; v = (r <= lim) ? "PASS" : "MISS" }
		if (f != "") v = f
		printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s, n, fmt(a), fmt(b),
			(r == "" ? "-" : sprintf("%.2fx", r)), (g == "" ? "-" : g "x"), v
	}' >>"$TABLE"
	ROW_FAIL=""
	tail -1 "$TABLE" | awk -F'\t' '{ printf "  %-6s %-44s %-11s %-11s %-8s %-8s %s\n", $1, $2, $3, $4, $5, $6, $7 }' >&2
}

# A row with a verdict decided by the caller (throughput, memory, scaling);
# FAIL replaces it as in row().
row_custom() {
	local c=("$@")
	[[ -n $ROW_FAIL ]] && c[6]=$ROW_FAIL
	ROW_FAIL=""
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${c[@]}" >>"$TABLE"
	printf '  %-6s %-44s %-11s %-11s %-8s %-8s %s\n' "${c[@]}" >&2
}

# ------------------------------------------------------------------
# --self-check: the exit-status checks above, in seconds and without
# captures.  Every row's name says what it expects; the mode fails unless
# exactly the rows that say "expect FAIL" print FAIL.  The cold rows mount a
# fixture with the built ptfs (skipped without a build or /dev/fuse).

self_check() {
	local m=$WORK/m1 fx=$ROOT/fixtures/turing-mixed.tar.gz x hf how bad=0
	for hf in 0 1; do
		NO_HYPERFINE=$hf
		how="shell loop"
		((!hf)) && command -v hyperfine >/dev/null && how=hyperfine
		# without hyperfine both rounds would be the shell loop
		((hf)) && ! command -v hyperfine >/dev/null && continue
		warm 2 true && x=$T || x=""
		row self "warm true, $how, expect ok" "$x" "$x" s ""
		ok 0,1 warm 2 grep -q no-such-line /dev/null && x=$T || x=""
		row self "warm grep exit 1, accepts 0,1, $how, expect ok" "$x" "$x" s "<=1"
		warm 2 grep -q no-such-line /dev/null && x=$T || x=""
		row self "warm grep exit 1, accepts 0, $how, expect FAIL" "$x" "$x" s "<=1"
		ok 0,1 warm 2 sh -c 'exit 2' && x=$T || x=""
		row self "warm exit 2, accepts 0,1, $how, expect FAIL" "$x" "$x" s ""
	done
	NO_HYPERFINE=0
	run_once sh -c 'exit 3'
	row_custom self "run_once exit 3, row_custom, expect FAIL" "-" "-" - - info
	warm 1 true; x=$T
	ok 0,1 run_once sh -c 'exit 5'
	row self "ok figure, then a failed command, expect FAIL" "$x" "$x" s ""
	if [[ -x $PTFS && -e /dev/fuse ]] && command -v fusermount3 >/dev/null; then
		cold 1 ptfs "$fx" -- ls -R "$m" && x=$T || x=""
		row self "cold ls -R of a fixture mount, expect ok" "$x" "$x" s ""
		cold 1 ptfs "$fx" -- cat "$m/no-such-file" && x=$T || x=""
		row self "cold cat of a missing file, expect FAIL" "$x" "$x" s ""
		cold 1 ptfs "$WORK/no-such-capture.tar.gz" -- true && x=$T || x=""
		row self "cold after a mount that fails, expect FAIL" "$x" "$x" s ""
	else
		echo "bench/run: no $PTFS or no FUSE: the cold (mount) rows are skipped" >&2
	fi
	echo
	echo "| scale | figure | ptfs | baseline | ratio | goal | result |"
	echo "|---|---|---|---|---|---|---|"
	awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7 }' "$TABLE"
	awk -F'\t' '($2 ~ /expect FAIL$/) != ($7 ~ /^FAIL/) {
		print "bench/run: self-check: wrong result: " $2 ": " $7; bad = 1 }
		END { exit bad }' "$TABLE" >&2 || bad=1
	if ((bad)); then
		echo "bench/run: self-check FAILED (log: $LOG)" >&2
		return 1
	fi
	echo "bench/run: self-check passed: $(wc -l <"$TABLE") rows" >&2
}
