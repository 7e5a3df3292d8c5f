#!/bin/bash
# test_linux_cli.sh — a Linux dump's processes by name through ptfs-tool and
# a mount (issue #40 item 3), on ELF cores of linux_util.c's synthetic guest
# (mklinux): cpuN's info says which task it runs; roots marks a process's
# tables root_of=pidN; pa (and mnt/pa/) name the processes that map a page,
# two of them sharing one; diff pairs processes by pid and comm and says
# when it compares two address spaces.  A dump with neither VMCOREINFO nor
# registers: one line saying what was missing (item 6), and the user's
# System.map (--system-map, -o system_map=) as route (c) (item 2).
#
# Environment (check_tests/meson.build): PTFS_TOOL, PTFS_MKLINUX, optional
# PTFS (the mount part; skipped without it or without /dev/fuse unless CI=true).
set -u
export LC_ALL=C
TOOL=${PTFS_TOOL:?}
MK=${PTFS_MKLINUX:?}
. "$(dirname "$0")/mount_lib.sh"
ml_tmpdir linux_cli

"$MK" "$TMP/a.elf" gs shared
"$MK" "$TMP/idle.elf" gs idle
"$MK" "$TMP/pti.elf" note_vi kallsyms pti cr3_50
"$MK" "$TMP/sshd.elf" gs shared comm50=sshd mm50_moved
"$MK" "$TMP/moved.elf" gs shared mm50_moved
"$MK" "$TMP/bare.elf" none sysmap="$TMP/bare.map"
"$MK" "$TMP/kaslr.elf" note_vi kaslr=2bc00000 sysmap="$TMP/kaslr.map"

# ---- route (c): a System.map the user gives ------------------------------------
"$TOOL" check "$TMP/bare.elf" >"$TMP/bare.out" 2>&1
check "no VMCOREINFO, no registers, no map: loads as before, one line saying what would supply a route" \
	sh -c "grep -qx 'warning: linux: no route to the task list: no VMCOREINFO; no vCPU'\''s per-CPU current task is readable; no System.map; no init_task (swapper/0) in RAM: no pidN contexts (-device vmcoreinfo with the guest'\''s qemu_fw_cfg, a QEMU ELF dump'\''s CPU notes, or the kernel'\''s System.map (-o system_map=FILE, --system-map FILE) supply one)' '$TMP/bare.out' &&
	test \$(grep -c 'linux:' '$TMP/bare.out') = 1 && grep -q ': 1 context, ' '$TMP/bare.out'"
expect "--system-map: the processes from its init_task" 0 '^x-route: System.map bare.map \(no VMCOREINFO: not shifted\): init_task 0xffff888000020000$' \
	"$TOOL" info --system-map "$TMP/bare.map" "$TMP/bare.elf" pid50
expect "--system-map=FILE shifted by VMCOREINFO's KERNELOFFSET" 0 '^     50       1 worker +2 cpu0 0x102000 +1$' \
	"$TOOL" tasks --system-map="$TMP/kaslr.map" "$TMP/kaslr.elf"
expect "--system-map of a missing file: a usage error naming it" 2 "^ptfs-tool: E_USAGE: --system-map '$TMP/nope': No such file or directory$" \
	"$TOOL" tasks --system-map "$TMP/nope" "$TMP/bare.elf"

# ---- cpuN/info: the task it runs ---------------------------------------------
expect "cpu0's info: the thread it runs and its process" 0 '^x-task: pid 51 \(worker\), thread of process pid50$' \
	"$TOOL" info "$TMP/a.elf" cpu0
expect "pid50's info: the vCPU running it" 0 '^x-cpu: cpu0$' "$TOOL" info "$TMP/a.elf" pid50
expect "an idle vCPU: its idle task" 0 '^x-task: idle \(pid 0, swapper/0\)$' "$TOOL" info "$TMP/idle.elf" cpu0
"$TOOL" info --no-tasks "$TMP/a.elf" cpu0 >"$TMP/nt" 2>&1
check "--no-tasks: no task list, no x-task" sh -c "! grep -q x-task '$TMP/nt' && grep -q '^context: cpu0' '$TMP/nt'"

# ---- roots: root_of=pidN -------------------------------------------------------
"$TOOL" roots --min-score 0 "$TMP/pti.elf" >"$TMP/roots" 2>"$TMP/roots.err"
check "roots: pid 50's PTI kernel copy, cpu0's CR3: root_of=cpu0 and root_of=pid50" \
	grep -qE '^# score=[0-9]+ format=x86-64 .* root=0x102000 .* root_of=cpu0 root_of=pid50( |$)' "$TMP/roots"
check "roots: its user copy, pid50's root: root_of=pid50 once" \
	grep -qE '^# score=[0-9]+ format=x86-64 .* root=0x103000 .* root_of=pid50( twin=0x[0-9a-f]+)?$' "$TMP/roots"
check "roots: pid 1's PGD: root_of=pid1" grep -qE '^# score=[0-9]+ format=x86-64 .* root=0x100000 .* root_of=pid1( |$)' "$TMP/roots"
check "roots: the kernel's table is no process's" \
	sh -c "grep -E ' root=0x1000 ' '$TMP/roots' | grep -qv 'root_of=pid'"
"$TOOL" roots --json --min-score 0 "$TMP/pti.elf" >"$TMP/roots.json"
check "roots --json: \"process\": \"pid50\" beside \"root_of\": \"cpu0\"" python3 -c '
import json, sys
c = [json.loads(l) for l in open(sys.argv[1]) if "\"pa\"" in l]
k = {x["pa"]: x for x in c if x["format"] == "x86-64"}
assert k["0x102000"]["root_of"] == "cpu0" and k["0x102000"]["process"] == "pid50", k["0x102000"]
assert k["0x103000"]["root_of"] == "pid50" and k["0x103000"]["process"] == "pid50"
assert "process" not in k["0x1000"]
' "$TMP/roots.json"
"$TOOL" roots --no-tasks --min-score 0 "$TMP/pti.elf" >"$TMP/roots.nt"
check "roots --no-tasks: no pidN" sh -c "! grep -q pid '$TMP/roots.nt' && grep -q 'root=0x102000 .*root_of=cpu0' '$TMP/roots.nt'"

# ---- pa: which processes map this page ----------------------------------------------
expect "pa: two processes share the page; a line names them" 0 '^# processes: pid1 \(init\), pid50 \(worker\)$' \
	"$TOOL" pa "$TMP/a.elf" sysmem:0x801005
check "pa: pid 1 at its VA, pid 50 at its own" sh -c "grep -q '^pid1 0x0000000000400005 ' '$TMP/out' &&
	grep -q '^pid50 0x0000000000401005 ' '$TMP/out' && test \$(grep -c '^# processes' '$TMP/out') = 1"
expect "pa: pid 50's own page, pid 50 alone" 0 '^# processes: pid50 \(worker\)$' "$TOOL" pa "$TMP/a.elf" sysmem:0x832000
expect "pa --json: processes, comm and pid" 0 \
	'"processes": \[\{"comm": "init", "context": "pid1", "pid": 1\}, \{"comm": "worker", "context": "pid50", "pid": 50\}\]' \
	"$TOOL" pa --json "$TMP/a.elf" sysmem:0x801005
"$TOOL" pa "$TMP/a.elf" sysmem:0x20000 >"$TMP/kpa"
check "pa: a page only the kernel maps: no processes line" sh -c "grep -q '^cpu0 ' '$TMP/kpa' && ! grep -q processes '$TMP/kpa'"
"$TOOL" pa --no-tasks "$TMP/a.elf" sysmem:0x801005 >"$TMP/ntpa"
check "pa --no-tasks: no processes line" sh -c "! grep -q processes '$TMP/ntpa'"

# ---- diff: processes by pid and comm ----------------------------------------------------
"$TOOL" diff "$TMP/a.elf" "$TMP/sshd.elf" >"$TMP/d1"
rc=$?
check "diff: exit 1 when pid 50 is another program" test "$rc" = 1
check "diff: one line says pid 50 is two address spaces" \
	grep -qx '# pid50: comm worker in A, sshd in B: two different address spaces' "$TMP/d1"
check "diff: processes pair by pid and comm: pid50 only in A and only in B, not compared" \
	sh -c "grep -qx 'pid50 only in A' '$TMP/d1' && grep -qx 'pid50 only in B' '$TMP/d1' && ! grep -q '^pid50 0x' '$TMP/d1'"
check "diff: pid 1, the same in both, no line" sh -c "! grep -q pid1 '$TMP/d1'"
"$TOOL" diff "$TMP/a.elf" "$TMP/sshd.elf" pid50 >"$TMP/d2"
check "diff A B pid50: the line, then compared as named" sh -c "head -1 '$TMP/d2' | grep -qx '# pid50: comm worker in A, sshd in B: two different address spaces' && ! grep -q 'only in' '$TMP/d2'"
"$TOOL" diff "$TMP/a.elf" "$TMP/moved.elf" >"$TMP/d3"
rc=$?
check "diff: one comm, another mm (same tables): the line, compared, exit 0 (no mapping differs)" sh -c "test $rc = 0 &&
	grep -qxE '# pid50: comm worker, mm 0x[0-9a-f]+ in A, 0x[0-9a-f]+ in B: two different address spaces' '$TMP/d3' &&
	! grep -q 'only in' '$TMP/d3'"
"$TOOL" diff --json "$TMP/a.elf" "$TMP/sshd.elf" >"$TMP/d4"
check "diff --json: the process change" python3 -c '
import json, sys
p = [json.loads(l) for l in open(sys.argv[1])]
c = [x for x in p if x["change"] == "process"]
assert len(c) == 1 and c[0]["context"] == "pid50" and c[0]["compared"] is False, c
assert c[0]["old"]["comm"] == "worker" and c[0]["new"]["comm"] == "sshd"
assert c[0]["same_address_space"] is False and c[0]["same_comm"] is False
' "$TMP/d4"
"$TOOL" diff "$TMP/a.elf" "$TMP/a.elf" >"$TMP/d5"
rc=$?
check "diff of one dump with itself: nothing, exit 0" sh -c "test $rc = 0 && test ! -s '$TMP/d5'"

# ---- the mount ---------------------------------------------------------------------------
if [ -z "${PTFS:-}" ] || [ ! -c /dev/fuse ]; then
	[ "${CI:-}" = true ] && bad "CI=true: the mount part needs PTFS and /dev/fuse"
	echo "# the mount part skipped (no ptfs or /dev/fuse)"
	report
	exit $?
fi
PTFS=$(readlink -f "$PTFS")
mnt=$TMP/mnt
if do_mount "$TMP/a.elf" "$mnt"; then
	ok "the dump mounts"
	check "mnt/cpu0/info: the task it runs" grep -qx 'x-task: pid 51 (worker), thread of process pid50' "$mnt/cpu0/info"
	"$TOOL" pa "$TMP/a.elf" sysmem:0x801005 >"$TMP/pa.cli"
	same "$TMP/pa.cli" "$mnt/pa/sysmem/0x801005" "mnt/pa/sysmem/0x801005 is ptfs-tool pa's answer, processes line included"
	do_umount "$mnt"
else
	bad "the dump mounts"
fi
if do_mount "$TMP/bare.elf" "$mnt" -o system_map="$TMP/bare.map"; then
	ok "-o system_map=: the dump mounts"
	check "-o system_map=: mnt/pid50/info names route (c)" \
		grep -qx 'x-route: System.map bare.map (no VMCOREINFO: not shifted): init_task 0xffff888000020000' "$mnt/pid50/info"
	do_umount "$mnt"
else
	bad "-o system_map=: the dump mounts"
fi
if "$PTFS" "$TMP/bare.elf" "$mnt" -o system_map="$TMP/nope" 2>"$TMP/nomap.err"; then
	do_umount "$mnt"
	bad "-o system_map= of a missing file: refused"
else
	check "-o system_map= of a missing file: refused, one line naming it" \
		grep -qx "ptfs: E_USAGE: -o system_map=$TMP/nope: No such file or directory" "$TMP/nomap.err"
fi
report
