#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_root.sh — a root table that is not captured is said at load (issue
# #20 item 5): `ptfs` (before it mounts) and every ptfs-tool command that
# reads a capture print one warning per such context on stderr, in the same
# words; `-o strict` / `--strict` refuse instead, and nothing is mounted.
# A size suffix on a hex number (`0x8000000g`) is a capture.ini error.
#
# Env: PTFS_TOOL (required), PTFS or PTFS_BIN (the daemon; the mount checks need it and
# /dev/fuse, and under CI=true nothing may skip).
. "$(dirname "$0")/mount_lib.sh"
: "${PTFS_TOOL:?PTFS_TOOL must name ptfs-tool}"
TOOL=$PTFS_TOOL
PTFS=${PTFS:-${PTFS_BIN:-}}
ml_tmpdir root

# A capture whose one region misses the root (root at 0x900000, memory at
# 0x200000), and one whose blob is empty: both mount an empty pde3/.
mkdir -p "$TMP/noroot/mem" "$TMP/empty/mem" "$TMP/good/mem"
head -c 4096 /dev/zero >"$TMP/noroot/mem/v.bin"
ini() {	# ini BASE ROOT: a one-region, one-context nv-gmmu-ver2 capture.ini
	printf '[capture]\nversion = 1\nformat = nv-gmmu-ver2\n[memory v]\nspace = vidmem\nbase = %s\nfile = mem/v.bin\n[pdb pdb0]\nspace = vidmem\naddress = %s\nbig_page_size = 64K\n' "$1" "$2"
}
ini 0x200000 0x900000 >"$TMP/noroot/capture.ini"
: >"$TMP/empty/mem/v.bin"
ini 0x200000 0x200000 >"$TMP/empty/capture.ini"
head -c 4096 /dev/zero >"$TMP/good/mem/v.bin"
ini 0x200000 0x200000 >"$TMP/good/capture.ini"
printf '0x0 4K r\n' >"$TMP/legs"

WARN_NOROOT="context 'pdb0': its root table (pde3 at vidmem:0x900000) is not captured: every VA of it reads not_captured"
WARN_EMPTY="context 'pdb0': its root table (pde3 at vidmem:0x200000) is not captured: every VA of it reads not_captured"

# run_tool NAME EXPECTED_RC ARGS...: ptfs-tool ARGS, stdout and stderr kept apart
run_tool() {
	local name=$1 want=$2 got
	shift 2
	"$TOOL" "$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	if [ "$got" = "$want" ]; then ok "$name: exit $want"; else
		bad "$name: exit $got, wanted $want"; sed 's/^/    /' "$TMP/err"; fi
}
# err_is DESCRIPTION LINE: stderr is exactly LINE
err_is() {
	if [ "$(cat "$TMP/err")" = "$2" ]; then ok "$1"; else
		bad "$1"; echo "    wanted: $2"; sed 's/^/    got:    /' "$TMP/err"; fi
}

for cap in noroot empty; do
	if [ $cap = noroot ]; then w=$WARN_NOROOT; else w=$WARN_EMPTY; fi
	c=$TMP/$cap
	# every command that reads a capture: one warning, the same words, and its usual result
	run_tool "$cap: walk" 0 walk "$c" pdb0 0x1000
	err_is "$cap: walk warns naming the context and the root" "ptfs-tool: warning: $c: $w"
	run_tool "$cap: info" 0 info "$c" pdb0
	err_is "$cap: info warns" "ptfs-tool: warning: $c: $w"
	run_tool "$cap: maps" 0 maps "$c" pdb0
	err_is "$cap: maps warns" "ptfs-tool: warning: $c: $w"
	run_tool "$cap: map --svg" 0 map --svg "$c" pdb0
	err_is "$cap: map warns" "ptfs-tool: warning: $c: $w"
	run_tool "$cap: pa (nothing maps it)" 1 pa "$c" vidmem:0x200000
	err_is "$cap: pa warns" "ptfs-tool: warning: $c: $w"
	run_tool "$cap: audit (the page is not ok)" 1 audit "$c" pdb0 "$TMP/legs"
	err_is "$cap: audit warns" "ptfs-tool: warning: $c: $w"
	run_tool "$cap: check (an anomaly)" 1 check "$c"
	err_is "$cap: check warns on stderr as well" "ptfs-tool: warning: $c: $w"
	run_tool "$cap: export" 0 export "$c" "$TMP/$cap.x"
	err_is "$cap: export warns" "ptfs-tool: warning: $c: $w"
	run_tool "$cap: diff against a good capture (neither maps a page)" 0 diff "$c" "$TMP/good"
	err_is "$cap: diff warns for the side it concerns" "ptfs-tool: warning: $c: $w"
done

# --strict: refused, exit 2, one E_CAPTURE line, nothing on stdout.
for cap in noroot empty; do
	if [ $cap = noroot ]; then w=$WARN_NOROOT; else w=$WARN_EMPTY; fi
	c=$TMP/$cap
	for cmd in walk info maps map pa audit check export diff; do
		case $cmd in
		walk) args=("$c" pdb0 0x1000) ;;
		info | maps) args=("$c") ;;
		map) args=(--svg "$c" pdb0) ;;
		pa) args=("$c" vidmem:0x0) ;;
		audit) args=("$c" pdb0 "$TMP/legs") ;;
		check) args=("$c") ;;
		export) args=("$c" "$TMP/$cap.strict.x") ;;
		diff) args=("$TMP/good" "$c") ;;
		esac
		run_tool "$cap: $cmd --strict refuses" 2 "$cmd" --strict "${args[@]}"
		err_is "$cap: $cmd --strict says why" "ptfs-tool: E_CAPTURE: $c: $w (--strict)"
		if [ -s "$TMP/out" ]; then bad "$cap: $cmd --strict printed a result"; else ok; fi
	done
	if [ -e "$TMP/$cap.strict.x" ]; then bad "$cap: export --strict wrote a tree"; else ok; fi
done

# A captured root says nothing, with or without --strict.
run_tool "good: info" 0 info "$TMP/good"
err_is "good: no warning" ""
run_tool "good: info --strict" 0 info --strict "$TMP/good"
err_is "good: --strict loads a captured root" ""
run_tool "decode takes no load option" 2 decode --strict --format nv-gmmu-ver2 --level pte 0x1

# A size suffix on a hex number is an error, not 0x8000000 << 30 (where the
# blob then lands at 2^57 and the root is lost).
mkdir -p "$TMP/hexg/mem"
head -c 4096 /dev/zero >"$TMP/hexg/mem/v.bin"
ini 0x8000000g 0x200000 >"$TMP/hexg/capture.ini"
run_tool "base = 0x8000000g is refused" 2 info "$TMP/hexg"
if grep -q '^ptfs-tool: E_VALUE: .*capture.ini:6: .*0x8000000g' "$TMP/err"; then ok "the refusal names the line and the value"; else
	bad "the refusal names the line and the value"; sed 's/^/    /' "$TMP/err"; fi
ini 8g 0x200000 >"$TMP/hexg/capture.ini"
run_tool "base = 8g (a decimal size) is taken" 0 info "$TMP/hexg"

# The mount: the same line before it mounts; -o strict mounts nothing.
if [ -z "${PTFS:-}" ] || [ ! -c /dev/fuse ] || ! command -v fusermount3 >/dev/null; then
	if [ "${CI:-}" = true ]; then bad "CI=true: the mount checks need PTFS, /dev/fuse and fusermount3"; else
		echo "# SKIP the mount checks: no ptfs, /dev/fuse or fusermount3"; fi
else
	for cap in noroot empty; do
		if [ $cap = noroot ]; then w=$WARN_NOROOT; else w=$WARN_EMPTY; fi
		m=$TMP/mnt.$cap
		if do_mount "$TMP/$cap" "$m"; then
			ok "$cap: ptfs mounts (exit 0)"
			if [ "$(cat "$m.err")" = "ptfs: warning: $TMP/$cap: $w" ]; then ok "$cap: ptfs warns before mounting"; else
				bad "$cap: ptfs warns before mounting"; sed 's/^/    got: /' "$m.err"; fi
			if [ -d "$m/pdb0/pde3" ] && [ -z "$(ls "$m/pdb0/pde3")" ]; then ok "$cap: pde3/ is there, empty"; else
				bad "$cap: pde3/ is there, empty"; fi
			do_umount "$m"
		else
			bad "$cap: ptfs mounts"
		fi
		ms=$TMP/mnt.$cap.strict
		mkdir -p "$ms"
		"$PTFS" -o strict "$TMP/$cap" "$ms" 2>"$ms.err"
		st=$?
		if [ $st = 2 ]; then ok "$cap: ptfs -o strict exits 2"; else bad "$cap: ptfs -o strict exits $st"; MOUNTS+=("$ms"); fi
		if [ "$(cat "$ms.err")" = "ptfs: E_CAPTURE: $TMP/$cap: $w (-o strict)" ]; then ok "$cap: -o strict says why"; else
			bad "$cap: -o strict says why"; sed 's/^/    got: /' "$ms.err"; fi
		if not_mounted "$ms"; then ok "$cap: -o strict mounted nothing"; else bad "$cap: -o strict mounted"; MOUNTS+=("$ms"); fi
	done
	m=$TMP/mnt.good
	if do_mount "$TMP/good" "$m" -o strict; then
		ok "good: ptfs -o strict mounts a captured root"
		if [ -s "$m.err" ]; then bad "good: ptfs said something"; sed 's/^/    /' "$m.err"; else ok; fi
		do_umount "$m"
	else
		bad "good: ptfs -o strict mounts a captured root"
	fi
fi
report
