#!/bin/bash
# test_live_tasks.sh — a live Linux guest's processes (issue #40 item 4)
# without QEMU: fake_qmp.py's `linux` scenario serves the RAM of
# mklinuxram's synthetic guest (linux_util.c: VMCOREINFO in a RAM page
# naming kallsyms, BTF, init pid 1, kthreadd, a worker pid 50 with two
# threads), read in place as a live source reads a guest's shared RAM file.
# Checked on real mounts: the task list is read at mount (pid1, pid50,
# tasks); -o task=50 mounts pid50 alone (ptfs-tool --task too); and once
# the guest's memory says pid 50 exited (kthreadd's tasks.next skips it) or
# that pid 50 is another address space (its mm changed), the next refresh
# takes pid50 out of the listing (tasks lists the new pid 50 without
# pages: it has no directory), its names read ENOENT and a
# file of it opened before ESTALE, while pid1 stays.  A process started
# after the mount (pid 60) is a pidN after the next refresh, and leaves
# again when it exits.  An arm64 guest (fake_qmp.py's armgdblinux:
# mklinuxram's arm64 RAM, registers from a gdbstub) has its pidN too, found
# through cpu0's SP_EL0.
set -u
export LC_ALL=C
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/mount_lib.sh"
. "$HERE/live_lib.sh"
live_setup live-tasks
"${PTFS_MKLINUXRAM:?}" "$TMP/ram" || { echo "not ok - mklinuxram writes the guest"; exit 1; }
cp "$TMP/ram" "$TMP/ram.orig"

# poke OFFSET VALUE: 8 bytes of the guest's RAM file (hex), as the guest would write them
poke() {
	python3 -c 'import sys, os
fd = os.open(sys.argv[1], os.O_RDWR)
os.pwrite(fd, int(sys.argv[3], 16).to_bytes(8, "little"), int(sys.argv[2], 16))
os.close(fd)' "$TMP/ram" "$1" "$2" || bad "poke $1 $2"
}
# linux_util.c's layout: the direct map at 0xffff888000000000, task_struct.tasks
# at 0x100 and .mm at 0x120; init_task 0x20000, kthreadd 0x22000, pid 50 0x23000,
# init's mm 0x40000
top() { ls "$1" | grep '^pid' | tr '\n' ' '; }
rows() { grep -v '^#' "$1/tasks" | awk 'NR > 1 { print $1 }' | tr '\n' ' '; }

serve linux
mnt=$TMP/mnt
start_fg "$TMP/linux.sock" "$mnt" -- -o refresh=0.2 || bad "ptfs mounts the live Linux guest"
expect "at mount: a directory per process" 0 "^pid1 pid50 $" top "$mnt"
expect "at mount: tasks lists them" 0 "^1 50 $" rows "$mnt"
expect "pid50 walks its page" 0 "result: mapped pa=sysmem:0x832000" cat "$mnt/pid50/walk/0x400000"
# pid 50 is now another address space (init's mm): its pidN must not show those tables.
# Its info, opened before, is read after the refresh (ls of the top asks for it).
held() {
	python3 -c 'import errno, os, sys, time
f = os.open(sys.argv[1] + "/pid50/info", os.O_RDONLY)
fd = os.open(sys.argv[2], os.O_RDWR)
os.pwrite(fd, (0xffff888000040000).to_bytes(8, "little"), 0x23120)   # pid 50 mm: init s
os.close(fd)
time.sleep(0.3)
os.listdir(sys.argv[1])
try:
    os.read(f, 4096)
    print("read")
except OSError as e:
    print(errno.errorcode[e.errno])' "$mnt" "$TMP/ram"
}
expect "a file of it opened before reads ESTALE after the refresh" 0 "^ESTALE$" held
expect "pid 50 of another mm: out of the listing after a refresh" 0 "^pid1 $" top "$mnt"
expect "and out of tasks (one process without a directory counted)" 0 \
	"# 1 processes started since the mount have no pidN directory: remount to see them" cat "$mnt/tasks"
expect "the new pid 50 is a row of tasks without pages (no directory)" 0 \
	"^ +50 +1 worker +2 +- 0x100000 +-$" cat "$mnt/tasks"
expect "its directory reads ENOENT" 1 "No such file or directory" cat "$mnt/pid50/info"
expect "pid1 stays" 0 "result: mapped pa=sysmem:0x801005" cat "$mnt/pid1/walk/0x400005"
live_umount "$mnt"
check "it unmounts cleanly" test "$ST" = 0

# pid 50 exits: kthreadd's tasks.next is init_task's again
cp "$TMP/ram.orig" "$TMP/ram"
start_fg "$TMP/linux.sock" "$mnt" -- -o refresh=0.2 || bad "ptfs mounts the live Linux guest again"
expect "again: both processes" 0 "^pid1 pid50 $" top "$mnt"
poke 0x22100 0xffff888000020100   # kthreadd's tasks.next: init_task's tasks
sleep 0.3
expect "pid 50 exited: out of the listing after a refresh" 0 "^pid1 $" top "$mnt"
expect "and out of tasks, nothing unseen" 0 "^1 $" rows "$mnt"
expect "its name reads ENOENT" 2 "No such file or directory" ls "$mnt/pid50"
live_umount "$mnt"

# A process started after the mount (pid 60, init's copy with its own mm,
# signal and comm, linked after init): its pidN after the next refresh.
spawn() {
	python3 -c 'import sys, os
DM = 0xffff888000000000
T, SIG, MM = 0x25000, 0x32000, 0x43000
fd = os.open(sys.argv[1], os.O_RDWR)
put = lambda at, v: os.pwrite(fd, v.to_bytes(8, "little"), at)
os.pwrite(fd, os.pread(fd, 0x1000, 0x21000), T)          # init_task 1 (task_struct)
os.pwrite(fd, os.pread(fd, 0x1000, 0x40000), MM)         # its mm: the same pgd
os.pwrite(fd, (60).to_bytes(4, "little") * 2, T + 0x140) # pid, tgid
put(T + 0x148, DM + T)                                   # group_leader
os.pwrite(fd, b"late".ljust(16, b"\0"), T + 0x160)       # comm
put(T + 0x180, DM + SIG)                                 # signal
put(T + 0x190, DM + SIG + 16)                            # thread_node -> signal.thread_head
put(SIG + 16, DM + T + 0x190)
put(T + 0x120, DM + MM)                                  # mm
os.fsync(fd)
put(0x21100, DM + T + 0x100)                             # init tasks.next: the new task (last)
os.close(fd)' "$TMP/ram" || bad "spawn pid 60"
}
cp "$TMP/ram.orig" "$TMP/ram"
start_fg "$TMP/linux.sock" "$mnt" -- -o refresh=0.2 || bad "ptfs mounts the live Linux guest a third time"
expect "before: no pid60" 0 "^pid1 pid50 $" top "$mnt"
spawn
sleep 0.3
expect "a process started after the mount: pid60 listed after a refresh" 0 "^pid1 pid50 pid60 $" top "$mnt"
expect "tasks lists it, nothing unseen" 0 "^1 50 60 $" rows "$mnt"
check "tasks has no 'remount to see them' line" sh -c "! grep -q 'remount' '$mnt/tasks'"
expect "its info names it" 0 "^x-comm: late$" cat "$mnt/pid60/info"
expect "it walks its page (init's tables)" 0 "result: mapped pa=sysmem:0x801000" cat "$mnt/pid60/walk/0x400000"
expect "its maps read" 0 "0x0000000000400000-0x0000000000401000" cat "$mnt/pid60/maps"
expect "pid50 still walks its own" 0 "result: mapped pa=sysmem:0x832000" cat "$mnt/pid50/walk/0x400000"
# it exits again: out of the listing
poke 0x21100 0xffff888000022100
sleep 0.3
expect "pid 60 exited: out of the listing" 0 "^pid1 pid50 $" top "$mnt"
expect "its name reads ENOENT" 2 "No such file or directory" ls "$mnt/pid60"
fusermount3 -u "$mnt"
wait_exit "$FG_PID" 10
check "it unmounts cleanly" test "$ST" = 0

# -o task=50 / --task 50: that process alone
cp "$TMP/ram.orig" "$TMP/ram"
start_fg "$TMP/linux.sock" "$mnt" -- -o task=50 || bad "ptfs mounts one process (-o task=50)"
expect "-o task=50: pid50 alone" 0 "^pid50 $" top "$mnt"
live_umount "$mnt"
expect "--task 50: ptfs-tool walks pid50" 0 "result: mapped pa=sysmem:0x832000" \
	"$TOOL" walk --task 50 "$TMP/linux.sock" pid50 0x400000
expect "--task 50: pid1 is no context" 2 "pid1" "$TOOL" walk --task 50 "$TMP/linux.sock" pid1 0x400000
expect "-o task=x: one line, nothing mounted" 2 "^ptfs: E_USAGE: -o task=x: not a process id" \
	"$PTFS" "$TMP/linux.sock" "$mnt" -o task=x
stop_srv

# An arm64 guest (issue #40): its vCPUs' registers from the gdbstub, SP_EL0
# at EL1 its running task (route b); each pidN a TTBR0 context
"${PTFS_MKLINUXRAM:?}" "$TMP/ram64" arm64 || bad "mklinuxram writes the arm64 guest"
serve armgdblinux "$TMP/ram64"
start_fg "$TMP/armgdblinux.sock" "$mnt" || bad "ptfs mounts the live arm64 Linux guest"
expect "arm64: a directory per process" 0 "^pid1 pid50 $" top "$mnt"
expect "arm64: the route is cpu0's SP_EL0" 0 "^x-route: the current task of cpu0 .SP_EL0 at EL1 from the gdbstub.: 0xffff000000024000$" \
	grep '^x-route:' "$mnt/pid50/info"
expect "arm64: pid50 is a TTBR0 context" 0 "^half: lower .TTBR0.$" grep '^half:' "$mnt/pid50/info"
expect "arm64: pid50 runs on cpu0" 0 "^x-cpu: cpu0$" grep '^x-cpu:' "$mnt/pid50/info"
expect "arm64: cpu0's halves name the task it runs" 0 "^x-task: pid 51 .worker., thread of process pid50$" \
	grep '^x-task:' "$mnt/cpu0.ttbr1/info"
expect "arm64: pid50 walks its page" 0 "result: mapped pa=sysmem:0x832000" cat "$mnt/pid50/walk/0x400000"
expect "arm64: pid1 walks its page" 0 "result: mapped pa=sysmem:0x801000" cat "$mnt/pid1/walk/0x400000"
live_umount "$mnt"
stop_srv
report
