#!/usr/bin/env bash
# test_mount_agree.sh — readdir and lookup agree on every node of every
# fixture the suites mount (issue #34 item 1): each capture is mounted
# twice; tree_agree.py lists every directory of one mount and resolves
# every name it listed in the other (where nothing was listed, so each
# component is a real FUSE lookup), readlink of every link and stat of
# every link's target.  The iommu-* fixtures' IOMMU trees (NAME/root/...,
# dte/, l1/.../ste/.../cd/) are walked the same way (issue #32 item 2).
#
# Then the mount's walk/ answers what ptfs-tool walk answers, for every
# 64-bit VA (issue #34 item 5), past the inode's bits too.
#
# Environment: PTFS (the ptfs binary), PTFS_TOOL (ptfs-tool), PTFS_FIXTURES
# (the fixtures directory).
PTFS=${PTFS:?PTFS must name the ptfs binary}
TOOL=$(readlink -f "${PTFS_TOOL:?PTFS_TOOL must name ptfs-tool}")
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

# ---- walk/ of any VA = ptfs-tool walk -------------------------------------
# Non-canonical (x86-64, arm64: Linux's LIST_POISON1 among them), past a
# GPU format's VA space, and the top of the canonical high half, in a
# capture of one context (C = 2: VAs past 2^60 take a walk slot) and of
# several.  Read, dropped from the kernel's caches (FORGET gives the slots
# back), then read again: the same trace each time.
VAS=(0x1000000000000000 0x7fffffffffffffff 0x8000000000000000 0xdead000000000100
     0xffffffffffffffff 0xfffffffffffff123 0x0fffffffffffffff 0x201234 0x800000000000)
walk_same() {   # CAP CTX MNT: every VA of VAS, twice in a row
	local v
	for v in "${VAS[@]}"; do
		"$TOOL" walk "$1" "$2" "$v" >"$TMP/cli.txt" 2>&1 || return 1
		cat "$3/$2/walk/$v" >"$TMP/mnt.txt" 2>&1 || true
		cmp -s "$TMP/cli.txt" "$TMP/mnt.txt" || {
			echo "    $2 walk/$v differs (- ptfs-tool walk, + the mount):"
			diff -u "$TMP/cli.txt" "$TMP/mnt.txt" | head -n 20 | sed 's/^/      /'
			return 1
		}
	done
}
for pair in x86-64-4level.tar.gz:cpu0 arm64-4k.tar.gz: turing-mixed.tar.gz:pdb0 \
	    amd-gfx9-vm.tar.gz: smmu-v3.tar.gz:; do
	cap="$FIX/${pair%%:*}" ctx=${pair#*:}
	m="$TMP/w$((++n))"
	do_mount "$cap" "$m" || { bad "${pair%%:*}: mounts"; continue; }
	[ -n "$ctx" ] || ctx=$(ls "$m" | grep -vx -e capture -e pa | head -n 1)
	check "$(basename "$cap") $ctx: walk/ of ${#VAS[@]} VAs (past the inode bits too) = ptfs-tool walk" \
		walk_same "$cap" "$ctx" "$m"
	# FORGET: the kernel drops its dentries and inodes (root only; a user run skips it)
	[ "$(id -u)" = 0 ] && sync && echo 2 >/proc/sys/vm/drop_caches 2>/dev/null
	check "$(basename "$cap") $ctx: the same after the kernel forgot them" walk_same "$cap" "$ctx" "$m"
	do_umount "$m"
done

# ---- a walk slot handed to another VA after FORGET ------------------------
# One thread (-s), so the thread that rendered walk/A for its LOOKUP is the
# one that serves the next.  Once the kernel forgets walk/A its slot, the
# inode number, is the free one the next VA past the inode's bits takes:
# walk/B must then be B's trace, not A's kept under the same number (the
# per-thread memo of fs/state.c was keyed by the inode alone).
slot_reuse() {   # CAP CTX MNT
	local a=0x1000000000000000 b=0xdead000000000100
	cat "$3/$2/walk/$a" >/dev/null || return 1
	sync && echo 2 >/proc/sys/vm/drop_caches || return 1
	"$TOOL" walk "$1" "$2" "$b" >"$TMP/cli.txt" 2>&1 || return 1
	cat "$3/$2/walk/$b" >"$TMP/mnt.txt" 2>&1 || true
	cmp -s "$TMP/cli.txt" "$TMP/mnt.txt" && return 0
	echo "    walk/$b after walk/$a was forgotten (- ptfs-tool walk, + the mount):"
	diff -u "$TMP/cli.txt" "$TMP/mnt.txt" | head -n 20 | sed 's/^/      /'
	return 1
}
if [ "$(id -u)" = 0 ]; then
	cap="$FIX/x86-64-4level.tar.gz" m="$TMP/w$((++n))"
	if do_mount "$cap" "$m" -s; then
		check "x86-64-4level.tar.gz cpu0: a walk slot forgotten and taken by another VA reads that VA's trace" \
			slot_reuse "$cap" cpu0 "$m"
		do_umount "$m"
	else
		bad "x86-64-4level.tar.gz: mounts with -s"
	fi
else
	echo "ok - # SKIP a walk slot taken by another VA: dropping the kernel's caches needs root"
fi

report
