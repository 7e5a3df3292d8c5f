#!/bin/bash
# test_load.sh — load, lifecycle and security of the real ptfs daemon (issue 6).
#
#  1. valgrind memcheck on the daemon for one mount (ls -R, cat, readlink, walk),
#     and for a daemon stopped while a file is still open (no RELEASE comes)
#  2. 16 parallel readers (grep -r, find, readlink va/, cat walk/) for
#     PTFS_LOAD_SECONDS (default 60): no error, identical results every round
#  3. lazy unmount (fusermount3 -u -z) while readers are active: the daemon exits 0
#  4. SIGTERM and SIGINT to a -f daemon: clean unmount, exit 0
#  5. the capture deleted / replaced (rename) / overwritten in place after
#     mounting: the mount keeps serving what it loaded, byte for byte
#  6. security: nothing outside the capture is opened (strace), every write
#     is EROFS and the capture's mtime is unchanged, no allow_other unless
#     asked, no files left in TMPDIR
#
# Environment (check_tests/meson.build): PTFS, PTFS_TOOL, PTFS_FIXTURES;
# PTFS_LOAD_SECONDS shortens step 2 (CI uses 60).
# Exit: 0 all passed; 1 any failure; 77 only when /dev/fuse is missing and
# CI is not "true".  Mounts are polled for (never slept for) and undone by
# the EXIT trap (both from mount_lib.sh).

set -u
set -o pipefail
export LC_ALL=C

PTFS=$(readlink -f "${PTFS:?PTFS must name the ptfs binary}")
TOOL=$(readlink -f "${PTFS_TOOL:?PTFS_TOOL must name ptfs-tool}")
FIX=$(readlink -f "${PTFS_FIXTURES:?PTFS_FIXTURES must name the fixtures directory}")
SECS=${PTFS_LOAD_SECONDS:-60}
READERS=16

. "$(dirname "$0")/mount_lib.sh"

need_fuse
ml_tmpdir load

# signature MNT: everything a reader sees, as one md5 (paths relative to MNT;
# the capture file's source: line names the mounted file, so it and the
# capture file's size are left out)
signature() {
	local m=$1
	{
		grep -r "" "$m" | sed "s|^$m/||" | grep -v '^capture:source: ' | sort
		find "$m" -printf '%P %y %s %m %n\n' | grep -v '^capture f ' | sort
		for l in "$m"/*/va/*; do readlink "$l" || return 1; done
		for c in "$m"/pdb*/; do
			for va in 0x200000 0x212345 0x400000 0x406000 0x600000 0xa00000 0x800000000000; do
				cat "$c/walk/$va" || return 1
			done
		done
	} | md5sum | cut -d' ' -f1
}

CAP_GZ=$FIX/turing-mixed.tar.gz
CAP_AFTER=$FIX/turing-mixed-after.tar.gz
[ -f "$CAP_GZ" ] && [ -f "$CAP_AFTER" ] || { bad "fixtures missing in $FIX"; report; exit 1; }

# ---- 1. valgrind memcheck on the daemon ---------------------------------------

if grep -q __asan_init "$PTFS" 2>/dev/null; then
	# valgrind cannot run an ASan binary; the CI's plain build runs this check
	echo "# SKIP valgrind: $PTFS is built with AddressSanitizer"
elif command -v valgrind >/dev/null; then
	M=$TMP/vg
	if start_fg "$CAP_GZ" "$M" valgrind --error-exitcode=99 --leak-check=full \
		--log-file="$TMP/valgrind.log" --; then
		pid=$FG_PID
		(
			ls -R "$M" >/dev/null &&
				find "$M" -type f -exec cat {} + >/dev/null &&
				for l in "$M"/*/va/*; do readlink "$l" >/dev/null || exit 1; done &&
				cat "$M/pdb0/walk/0x400000" "$M/pdb0/walk/0x406000" "$M/pdb1/walk/0x0" >/dev/null
		)
		check "valgrind: the tree reads under memcheck (ls -R, cat, readlink, walk)" test $? = 0
		fusermount3 -u "$M"
		wait_exit "$pid" 120
		st=$ST
		check "valgrind: daemon exits 0 after unmount, no memcheck error (status $st)" test "$st" = 0
		[ "$st" = 0 ] || grep -A14 -E 'ERROR SUMMARY|definitely lost in|Invalid|uninitialised' "$TMP/valgrind.log" | head -60 | sed 's/^/    /'
	else
		bad "valgrind: ptfs mounts under valgrind"
	fi
	# A file still open when the session ends never gets its RELEASE: its
	# per-open render must be freed all the same (hostile-bugs.md B9; the
	# unmount above only catches that when RELEASE happens to come late).
	M=$TMP/vg-open
	if start_fg "$CAP_GZ" "$M" valgrind --error-exitcode=99 --leak-check=full \
		--log-file="$TMP/valgrind-open.log" --; then
		pid=$FG_PID
		exec 3<"$M/pdb0/walk/0x400000"
		check "valgrind: a walk file held open reads" bash -c 'grep -q "^result: " <&3'
		kill -TERM "$pid"
		wait_exit "$pid" 120
		st=$ST
		exec 3<&-
		check "valgrind: SIGTERM with a file still open, no leak (status $st)" test "$st" = 0
		[ "$st" = 0 ] || grep -A14 -E 'ERROR SUMMARY|definitely lost in|Invalid' "$TMP/valgrind-open.log" | head -40 | sed 's/^/    /'
	else
		bad "valgrind: ptfs mounts under valgrind (file held open)"
	fi
else
	if [ "${CI:-}" = true ]; then bad "valgrind is not installed (CI=true)"; else echo "# SKIP valgrind: not installed"; fi
fi

# ---- 2. 16 parallel readers ---------------------------------------------------

M=$TMP/load
if start_fg "$CAP_GZ" "$M"; then
	pid=$FG_PID
	REF=$(signature "$M")
	check "load: reference signature" test -n "$REF"
	# reader ID END: rounds until END (in $SECONDS); writes rounds or an error
	reader() {
		local id=$1 end=$2 n=0 sig
		while [ $SECONDS -lt "$end" ] || [ $n -eq 0 ]; do
			if ! sig=$(signature "$M"); then
				echo "reader $id round $n: a command failed" >>"$TMP/errors"
				return 1
			fi
			if [ "$sig" != "$REF" ]; then
				echo "reader $id round $n: signature $sig != $REF" >>"$TMP/errors"
				return 1
			fi
			n=$((n + 1))
		done
		echo "$n" >"$TMP/rounds.$id"
	}
	: >"$TMP/errors"
	end=$((SECONDS + SECS))
	rpids=()
	for i in $(seq 1 $READERS); do
		reader "$i" "$end" &
		rpids+=($!)
	done
	rfail=0
	for p in "${rpids[@]}"; do wait "$p" || rfail=$((rfail + 1)); done
	rounds=$(cat "$TMP"/rounds.* 2>/dev/null | awk '{s += $1} END {print s + 0}')
	check "load: $READERS readers x ${SECS}s, $rounds rounds, no error, identical results" \
		test "$rfail" = 0 -a ! -s "$TMP/errors"
	[ -s "$TMP/errors" ] && head -5 "$TMP/errors" | sed 's/^/    /'
	check "load: the daemon is still alive" kill -0 "$pid"

	# ---- 3. lazy unmount while readers are active
	: >"$TMP/stop"
	rm -f "$TMP/stop"
	busy() {
		while [ ! -e "$TMP/stop" ]; do
			grep -r "" "$M" >/dev/null 2>&1
			cat "$M/pdb0/maps" >/dev/null 2>&1
		done
	}
	bpids=()
	for i in 1 2 3 4 5 6 7 8; do busy & bpids+=($!); done
	# wait until the readers are really in the tree (one full read done by someone)
	poll_until 10 bash -c 'grep -rq "" "$1"' _ "$M"
	fusermount3 -u -z "$M"
	check "lazy unmount: the mount point is detached at once" not_mounted "$M"
	wait_exit "$pid" 60
	st=$ST
	: >"$TMP/stop"
	for p in "${bpids[@]}"; do wait "$p" 2>/dev/null; done
	check "lazy unmount with 8 active readers: the daemon exits 0 (status $st)" test "$st" = 0
else
	bad "load: turing-mixed.tar.gz mounts"
fi

# ---- 4. SIGTERM / SIGINT ------------------------------------------------------

for sig in TERM INT; do
	M=$TMP/sig$sig
	if start_fg "$CAP_GZ" "$M"; then
		pid=$FG_PID
		cat "$M/capture" >/dev/null
		kill -s "$sig" "$pid"
		wait_exit "$pid" 30
		st=$ST
		check "SIG$sig to ptfs -f: exits 0 (status $st)" test "$st" = 0
		check "SIG$sig to ptfs -f: unmounted" not_mounted "$M"
		check "SIG$sig to ptfs -f: gone from mountinfo" \
			bash -c '! grep -qF " $1 " /proc/self/mountinfo' _ "$M"
	else
		bad "SIG$sig: mounts"
	fi
done

# ---- 5. the capture deleted / replaced after mounting ---------------------------

mkdir -p "$TMP/src"
gzip -dc "$CAP_GZ" >"$TMP/src/before.tar"
gzip -dc "$CAP_AFTER" >"$TMP/src/after.tar"
mkdir -p "$TMP/src/after.d"
tar -xf "$TMP/src/after.tar" -C "$TMP/src/after.d"

# prepare KIND PATH: a fresh copy of turing-mixed as KIND (tar, tar.gz, d) at PATH
prepare() {
	rm -rf "$2"
	case $1 in
	tar) cp "$TMP/src/before.tar" "$2" ;;
	tar.gz) cp "$CAP_GZ" "$2" ;;
	d) cp -r "$FIX/turing-mixed.d" "$2" ;;
	esac
}
# change HOW KIND PATH: delete, rename a different capture over it, overwrite
# it in place, or truncate it in place
change() {
	case $1 in
	delete) rm -rf "$3" ;;
	rename)
		case $2 in
		tar) cp "$TMP/src/after.tar" "$3.new" ;;
		tar.gz) cp "$CAP_AFTER" "$3.new" ;;
		d) cp -r "$TMP/src/after.d" "$3.new" ;;
		esac
		if [ "$2" = d ]; then rm -rf "$3" && mv "$3.new" "$3"; else mv -f "$3.new" "$3"; fi
		;;
	truncate)
		# the file cut short in place (a copy over it that fails half way).
		# Not with coreutils truncate alone: it opens O_NONBLOCK, which gets
		# EAGAIN while ptfs holds its read lease (pt_capture_guard in
		# core/pt_capture.h), and cuts nothing.  A plain open for writing
		# waits until ptfs has broken the lease (copied the pages): then cut.
		case $2 in
		tar | tar.gz) : >>"$3" && truncate -s 1024 "$3" ;;
		d) for f in "$3"/mem/*; do : >"$f"; done ;;
		esac
		;;
	overwrite)
		# what `cp new old` does: truncate, then write (same inode)
		case $2 in
		tar) cp "$TMP/src/after.tar" "$3" ;;
		tar.gz) cp "$CAP_AFTER" "$3" ;;
		d) for f in "$TMP/src/after.d"/mem/*; do cp "$f" "$3/mem/$(basename "$f")"; done
		   : >"$3/capture.ini" ;;
		esac
		;;
	esac
}

# was_cut KIND PATH: the truncate above really happened (1024 bytes; mem/ files empty)
was_cut() {
	case $1 in
	tar | tar.gz) [ "$(stat -c %s "$2")" = 1024 ] ;;
	d) for f in "$2"/mem/*; do [ "$(stat -c %s "$f")" = 0 ] || return 1; done ;;
	esac
}

# A reference mount of the original, never touched: the changed mounts must
# serve exactly its tree.  Before the change each mount has served only its
# capture file, so everything compared afterwards is read from the daemon
# after the change (not from the kernel's page cache).
R=$TMP/ref
if start_fg "$CAP_GZ" "$R"; then
	REFSIG=$(signature "$R")
	for kind in tar tar.gz d; do
		for how in delete rename overwrite truncate; do
			case $how in
			delete) what="deleted" ;;
			rename) what="replaced by rename" ;;
			overwrite) what="overwritten in place" ;;
			truncate) what="truncated in place" ;;
			esac
			C=$TMP/cap-$how.$kind
			M=$TMP/mnt-$how-$kind
			prepare "$kind" "$C"
			if start_fg "$C" "$M"; then
				pid=$FG_PID
				cat "$M/capture" >/dev/null
				change "$how" "$kind" "$C"
				[ "$how" != truncate ] || check "capture $kind truncated in place: the file is cut" was_cut "$kind" "$C"
				after=$(signature "$M")
				check "capture $kind $what after mounting: the mount serves what it loaded" \
					test -n "$after" -a "$after" = "$REFSIG"
				check "capture $kind $what: the daemon is alive" kill -0 "$pid"
				fusermount3 -u "$M" 2>/dev/null || fusermount3 -u -z "$M"
				wait_exit "$pid" 30
			else
				bad "capture $kind: mounts"
			fi
		done
	done
	fusermount3 -u "$R"
else
	bad "reference mount of turing-mixed.tar.gz"
fi

# ---- 6. security ----------------------------------------------------------------

# 6a. nothing outside the capture is opened through it (strace)
if command -v strace >/dev/null; then
	H=$TMP/hostile
	mkdir -p "$H/root"
	echo "secret" >"$TMP/SECRET"
	# an archive whose members and capture.ini point outside: ../, absolute, symlinks
	(
		cd "$H/root" || exit 1
		mkdir -p mem
		tar -xzf "$CAP_GZ" -C .
		ln -s "$TMP/SECRET" link-abs
		ln -s ../../SECRET link-rel
		ln -s "$TMP" dirlink
		sed -i 's|^file = mem/sysmem-100000000.bin|file = dirlink/SECRET|' capture.ini
	)
	tar -C "$H/root" -cf "$H/cap.tar" . 2>/dev/null
	# add members with absolute and .. names (GNU tar keeps them with -P)
	tar -C / -rPf "$H/cap.tar" "$TMP/SECRET" 2>/dev/null
	tar -C "$H/root" -rPf "$H/cap.tar" "../../SECRET" 2>/dev/null
	for c in "$H/cap.tar" "$H/root"; do
		strace -f -qq -e trace=open,openat,openat2,creat -o "$TMP/strace.out" "$TOOL" check "$c" >/dev/null 2>&1
		# successful opens, minus the loader, libraries, locale and /proc|/sys|/dev
		grep -v ' = -1 ' "$TMP/strace.out" | grep -oE '"[^"]*"' | tr -d '"' |
			grep -Ev '^(/etc/ld\.so\.|/lib|/usr/lib|/usr/share/locale|/proc/|/sys/|/dev/)' |
			grep -vxF "$c" >"$TMP/opened" || true
		# a directory capture opens its own members relative to it (no /, no ..)
		bad_opens=$(grep -E '^/|(^|/)\.\.(/|$)|SECRET|dirlink' "$TMP/opened" || true)
		check "strace: ptfs-tool check $(basename "$c") opens nothing outside the capture" \
			test -z "$bad_opens"
		[ -z "$bad_opens" ] || echo "$bad_opens" | head -5 | sed 's/^/    /'
	done
else
	if [ "${CI:-}" = true ]; then bad "strace is not installed (CI=true)"; else echo "# SKIP strace check: strace not installed"; fi
fi

# 6b. writes are EROFS, the capture's mtime is unchanged, 6c. no allow_other, 6d. no TMPDIR litter
C=$TMP/sec.tar.gz
cp "$CAP_GZ" "$C"
touch -d @1700000000 "$C"
mt0=$(stat -c %Y "$C")
PT=$TMP/ptfs-tmpdir
mkdir -p "$PT"
files0=$(find "$PT" | wc -l)
M=$TMP/sec
if TMPDIR=$PT start_fg "$C" "$M"; then
	pid=$FG_PID
	erofs() {
		local out
		out=$("$@" 2>&1) && return 1
		grep -qi "read-only file system" <<<"$out"
	}
	check "EROFS: create a file" erofs touch "$M/new"
	check "EROFS: write an existing file" erofs bash -c 'echo x >>"$1"' _ "$M/capture"
	check "EROFS: truncate" erofs truncate -s 0 "$M/capture"
	check "EROFS: mkdir" erofs mkdir "$M/pdb0/d"
	check "EROFS: rmdir" erofs rmdir "$M/pdb0/pde3"
	check "EROFS: unlink" erofs rm -f "$M/pdb0/info"
	check "EROFS: rename" erofs mv "$M/pdb0/info" "$M/pdb0/info2"
	check "EROFS: symlink" erofs ln -s x "$M/pdb0/l"
	check "EROFS: hard link" erofs ln "$M/pdb0/info" "$M/pdb0/h"
	check "EROFS: chmod" erofs chmod 0777 "$M/capture"
	check "EROFS: utime" erofs touch -d @0 "$M/capture"
	if command -v setfattr >/dev/null; then
		check "EROFS: setxattr" erofs setfattr -n user.x -v 1 "$M/capture"
	fi
	check "mountinfo: ro" bash -c 'grep -F " $1 " /proc/self/mountinfo | grep -qE " ro[, ]"' _ "$M"
	check "mountinfo: no allow_other by default" \
		bash -c 'grep -F " $1 " /proc/self/mountinfo | grep -q . && ! grep -F " $1 " /proc/self/mountinfo | grep -q allow_other' _ "$M"
	find "$M" -type f -exec cat {} + >/dev/null
	fusermount3 -u "$M"
	wait_exit "$pid" 30
	check "capture mtime unchanged after mount, reads, unmount" test "$(stat -c %Y "$C")" = "$mt0"
	files1=$(find "$PT" | wc -l)
	check "no files left in TMPDIR by a mount + unmount ($files0 -> $files1)" test "$files0" = "$files1"
else
	bad "security: mounts"
fi
# allow_other when asked (positive control: the check above can see it)
M=$TMP/ao
if start_fg "$C" "$M" -- -o allow_other; then
	pid=$FG_PID
	check "mountinfo: allow_other when asked (-o allow_other)" \
		bash -c 'grep -F " $1 " /proc/self/mountinfo | grep -q allow_other' _ "$M"
	fusermount3 -u "$M"
	wait_exit "$pid" 30
else
	bad "-o allow_other mounts"
fi

report
