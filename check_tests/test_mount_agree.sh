#!/usr/bin/env bash
# test_mount_agree.sh — readdir and lookup agree on every node of every
# fixture the suites mount (issue #34 item 1): each capture is mounted
# twice; tree_agree.py lists every directory of one mount and resolves
# every name it listed in the other (where nothing was listed, so each
# component is a real FUSE lookup), readlink of every link and stat of
# every link's target.
#
# Environment: PTFS (the ptfs binary), PTFS_FIXTURES (the fixtures directory).
PTFS=${PTFS:?PTFS must name the ptfs binary}
FIX=${PTFS_FIXTURES:?PTFS_FIXTURES must name the fixtures directory}
PTFS=$(readlink -f "$PTFS")
FIX=$(readlink -f "$FIX")
HERE=$(dirname "$(readlink -f "$0")")

. "$HERE/mount_lib.sh"

need_fuse
ml_tmpdir agree

# Every kind of capture the fixtures hold: archives of every container, a
# directory, a gem5 checkpoint, umr logs, an ELF core.
shopt -s nullglob
CAPTURES=()
for c in "$FIX"/*.tar.gz "$FIX"/*.tar "$FIX"/*.tar.zst "$FIX"/*.zip "$FIX"/*.d \
	 "$FIX"/gem5-m5out/cpt.* "$FIX"/*.envdef "$FIX"/*.log "$FIX"/*.elf; do
	CAPTURES+=("$c")
done
[ ${#CAPTURES[@]} -ge 30 ] || bad "only ${#CAPTURES[@]} fixtures found in $FIX"

n=0
for cap in "${CAPTURES[@]}"; do
	name=$(basename "$cap")
	n=$((n + 1))
	a="$TMP/a$n" b="$TMP/b$n"
	if ! do_mount "$cap" "$a" || ! do_mount "$cap" "$b"; then
		bad "$name: mounts twice"
		continue
	fi
	if python3 "$HERE/tree_agree.py" "$a" "$b" >"$TMP/agree.out" 2>&1; then
		ok "$name: readdir and lookup agree ($(tail -n 1 "$TMP/agree.out"))"
	else
		bad "$name: readdir and lookup disagree"
		sed 's/^/    /' "$TMP/agree.out"
	fi
	do_umount "$a"
	do_umount "$b"
done

report
