#!/bin/bash
# test_live_arm64.sh — a live aarch64 guest (issue #33 item 1) without QEMU:
# fake_qmp.py answers QMP and, for QEMU 7.2 shows an aarch64 vCPU's
# translation registers nowhere else, serves a gdbstub (its socket named by
# query-chardev, as `-gdb unix:PATH,server=on` makes it) with QEMU's target
# description and registers.  Checked: each vCPU with its MMU on is two
# contexts (cpuN.ttbr0, cpuN.ttbr1) that walk the RAM file; one with it off
# is a warning; a guest that ran is continued after the gdbstub stopped it,
# a stopped one is not; no gdbstub, or a bad packet from it, is one line
# and nothing mounted.
#
# RAM (1 MiB, 4K granule, 39-bit halves: TCR T0SZ = T1SZ = 25): TTBR1
# 0x10000 -> 0x11000 -> 0x12000: VA 0xffffff8000000000 -> 0x20000; TTBR0
# 0x13000 -> 0x14000 -> 0x15000: VA 0x1000 -> 0x30000 (EL0 read/write).
set -u
export LC_ALL=C
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/mount_lib.sh"
. "$HERE/live_lib.sh"
live_setup live-arm64

live_ram "$TMP/ram" <<'EOF'
# Arm ARM D8.3 (VMSAv8-64 descriptors): table 0b11, page 0b11 at level 3,
# AF bit 10, AP[1] bit 6 (EL0 access)
put(0x10000, 0x11000 | 3); put(0x11000, 0x12000 | 3); put(0x12000, 0x20000 | 3 | 1 << 10)
put(0x13000, 0x14000 | 3); put(0x14000, 0x15000 | 3); put(0x15000 + 8, 0x30000 | 3 | 1 << 10 | 1 << 6)
EOF


serve armgdb
expect "the upper half of CPU#0 walks (TTBR1_EL1 from the gdbstub)" 0 "result: mapped pa=sysmem:0x20000 " \
	"$TOOL" walk "$TMP/armgdb.sock" cpu0.ttbr1 0xffffff8000000000
expect "the lower half too (TTBR0_EL1)" 0 "result: mapped pa=sysmem:0x30000 " \
	"$TOOL" walk "$TMP/armgdb.sock" cpu0.ttbr0 0x1000
expect "its registers are shown with their source" 0 "x-source: ttbr, tcr: TTBR1_EL1 and TCR_EL1 of CPU#0 from QEMU's gdbstub" \
	"$TOOL" info "$TMP/armgdb.sock" cpu0.ttbr1
expect "TCR_EL1 as read" 0 "^tcr: 0x$(printf %x $((25 | 25 << 16 | 2 << 30 | 2 << 32))) " \
	"$TOOL" info "$TMP/armgdb.sock" cpu0.ttbr1
expect "a vCPU with its MMU off is a warning" 0 "gdbstub CPU#1: the MMU is off \\(SCTLR_EL1.M clear\\): no context cpu1" \
	"$TOOL" info "$TMP/armgdb.sock" cpu0.ttbr1
expect "an SMMUv3 the guest has not turned on is a warning" 0 \
	"info mtree -f:[0-9]+ \\(arm-smmuv3\\): the guest has not turned the arm-smmuv3 on \\(CR0.SMMUEN \\(bit 0\\) clear\\): no context smmu0" \
	"$TOOL" info "$TMP/armgdb.sock" cpu0.ttbr1
check "its CR0 was read through its window" grep -q 'xp /1wx 0x9050020' "$TMP/armgdb.sock.log"
check "the guest, stopped by the gdbstub, was continued" grep -q '"execute": "cont"' "$TMP/armgdb.sock.log"
mnt=$TMP/mnt
start_fg "$TMP/armgdb.sock" "$mnt" || bad "ptfs mounts the fake aarch64 guest"
expect "mount: cpu0.ttbr1/walk/ reads the tables" 0 "result: mapped pa=sysmem:0x20000 " \
	cat "$mnt/cpu0.ttbr1/walk/0xffffff8000000000"
expect "mount: both halves and no cpu1" 0 "^cpu0.ttbr0 cpu0.ttbr1 $" sh -c "ls '$mnt' | grep cpu | tr '\n' ' '"
live_umount "$mnt"
stop_srv

serve armgdbstopped
expect "a stopped guest: read" 0 "result: mapped pa=sysmem:0x20000 " \
	"$TOOL" walk "$TMP/armgdbstopped.sock" cpu0.ttbr1 0xffffff8000000000
check "a guest the user stopped is not continued" sh -c "! grep -q '\"cont\"' '$TMP/armgdbstopped.sock.log'"
stop_srv

serve armgdbbad
fails "a gdbstub packet with a bad checksum: one line" "armgdbbad.sock.gdb: a gdbstub packet with a bad checksum" \
	"$TOOL" info "$TMP/armgdbbad.sock"
check "the guest was continued all the same" grep -q '"execute": "cont"' "$TMP/armgdbbad.sock.log"
mkdir -p "$TMP/m-bad"
timeout 30 "$PTFS" "$TMP/armgdbbad.sock" "$TMP/m-bad" 2>"$TMP/m-bad.err"
rc=$?
[ $rc != 0 ] && not_mounted "$TMP/m-bad" && [ "$(wc -l <"$TMP/m-bad.err")" = 1 ] &&
	ok "bad gdbstub: ptfs mounts nothing, one line" || bad "bad gdbstub: ptfs exit $rc: $(cat "$TMP/m-bad.err")"
stop_srv

# a stub that never answers (issue #39 item 2): one line, and the guest it stopped runs again
serve armgdbsilent
fails "a gdbstub that never answers: one line" "armgdbsilent.sock.gdb: gdbstub: no answer to 'qSupported:multiprocess\\+' within 3000 ms" \
	timeout 30 "$TOOL" info "$TMP/armgdbsilent.sock"
check "the guest the gdbstub stopped runs again" test "$(cat "$TMP/armgdbsilent.sock.state")" = running
stop_srv

# a guest whose vCPUs all have their MMU off (held at reset, issue #39 item 6): the line says each one's state
serve armgdbreset
"$TOOL" info "$TMP/armgdbreset.sock" >"$TMP/fo" 2>"$TMP/fe"
check "MMU off everywhere: exactly one line saying so" test $? = 2 -a "$(cat "$TMP/fe")" = \
	"ptfs-tool: E_CAPTURE: $TMP/armgdbreset.sock: no vCPU runs at EL1 or EL0 with its MMU on: CPU#0 has its MMU off (SCTLR_EL1.M clear), CPU#1 has its MMU off (SCTLR_EL1.M clear); a guest held at reset (-S) or still in its firmware has no page tables yet: mount it once it has booted"
check "and the guest runs again" test "$(cat "$TMP/armgdbreset.sock.state")" = running
stop_srv
report
