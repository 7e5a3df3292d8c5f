#!/bin/bash
# test_live_iommu.sh — a live guest's IOMMUs from their registers (issue #33
# item 3) without QEMU: fake_qmp.py shows q35's MMIO window of an IOMMU in
# `info mtree -f` and answers HMP `xp` of its registers; the RAM file this
# script writes holds its tables.  Checked: an IOMMU the guest turned on is
# an [iommu] section whose devices are contexts and walk live memory (a
# table changed under the mount is seen by the next walk); one it has not
# turned on is a warning and no context; an `xp` answer that is no value,
# and two windows of one kind, are one line and nothing mounted.
#
# RAM (1 MiB): the vCPU's x86-64 tables as test_live.sh's (VA 0x400000 ->
# 0x5000); VT-d legacy root table 0x10000: bus 0 -> context table 0x11000,
# 00:03.0 (devfn 0x18) translated, AW 39 (3 levels), DID 5, second level
# 0x12000 -> 0x13000 -> 0x14000: IOVA 0 -> 0x20000, 0x1000 -> 0x21000
# (read-only); 00:04.0 pass-through, DID 6.  AMD-Vi device table 0x30000
# (one page): DTE 0x18 (00:03.0) V, TV, Mode 3, root 0x40000 -> 0x41000 ->
# 0x42000: IOVA 0 -> 0x50000; domain 7.
set -u
export LC_ALL=C
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/mount_lib.sh"
. "$HERE/live_lib.sh"
live_setup live-iommu

live_ram "$TMP/ram" <<'EOF'
# the vCPU (CR3 0x1000)
put(0x1000, 0x2000 | 7); put(0x2000, 0x3000 | 7); put(0x3000 + 2 * 8, 0x4000 | 7); put(0x4000, 0x5000 | 7)
# VT-d legacy (VT-d spec 9.1, 9.3): root entry P bit 0, CTP 63:12; context
# entry lo: P 0, TT 3:2, SLPTPTR 63:12; hi: AW 2:0 (1: 39-bit), DID 23:8
put(0x10000, 0x11000 | 1)
put(0x11000 + 0x18 * 16, 0x12000 | 1); put(0x11000 + 0x18 * 16 + 8, 1 | 5 << 8)
put(0x11000 + 0x20 * 16, 2 << 2 | 1); put(0x11000 + 0x20 * 16 + 8, 1 | 6 << 8)
# second level: R 0, W 1
put(0x12000, 0x13000 | 3); put(0x13000, 0x14000 | 3); put(0x14000, 0x20000 | 3); put(0x14008, 0x21000 | 1)
# AMD-Vi (AMD IOMMU spec 2.2.2, 2.2.3): DTE qword 0 V 0, TV 1, Mode 11:9,
# root 51:12, IR 61, IW 62; qword 1 DomainID 15:0; PDE/PTE PR 0, Next
# Level 11:9, address 51:12, IR 61, IW 62
RW = 3 << 61
put(0x30000 + 0x18 * 32, 0x40000 | 3 << 9 | 3 | RW); put(0x30000 + 0x18 * 32 + 8, 7)
put(0x40000, 0x41000 | 2 << 9 | 1 | RW); put(0x41000, 0x42000 | 1 << 9 | 1 | RW); put(0x42000, 0x50000 | 1 | RW)
# Linux marks every other DTE valid, translation blocked (V, TV alone: drivers/iommu/amd/init.c)
for d in (0x20, 0x28): put(0x30000 + d * 32, 3)
EOF


# ---- VT-d: the registers read live, every device a context ----
serve vtd
expect "VT-d: the guest's IOMMU is a section from its registers" 0 \
	"^iommu: vtd0\$" "$TOOL" info "$TMP/vtd.sock" vtd0.00:03.0
expect "VT-d: its device entry is read from the root table the register names" 0 \
	"^iommu_entry_address: 0x11180\$" "$TOOL" info "$TMP/vtd.sock" vtd0.00:03.0
expect "VT-d: its translated device is a context" 0 "^# vtd0\\.00:03\\.0" "$TOOL" info "$TMP/vtd.sock"
expect "VT-d: and its pass-through device" 0 "^# vtd0\\.00:04\\.0" "$TOOL" info "$TMP/vtd.sock"
expect "VT-d: the cpu0 context stays" 0 "^# cpu0" "$TOOL" info "$TMP/vtd.sock"
expect "VT-d: IOVA 0 walks to 0x20000" 0 "result: mapped pa=sysmem:0x20000 " \
	"$TOOL" walk "$TMP/vtd.sock" vtd0.00:03.0 0x0
expect "VT-d: IOVA 0x1000 is read-only" 0 "result: mapped pa=sysmem:0x21000 page=4K flags=r " \
	"$TOOL" walk "$TMP/vtd.sock" vtd0.00:03.0 0x1000
expect "VT-d: IOVA 0x2000 faults" 0 "result: fault" "$TOOL" walk "$TMP/vtd.sock" vtd0.00:03.0 0x2000
mnt=$TMP/mnt
start_fg "$TMP/vtd.sock" "$mnt" || bad "ptfs mounts the fake guest with its IOMMU"
expect "mount: the device's walk/ reads the tables" 0 "result: mapped pa=sysmem:0x20000 " \
	cat "$mnt/vtd0.00:03.0/walk/0x0"
# the guest's driver maps IOVA 0x2000: the next walk sees it (walk/ is never cached)
python3 -c "
import os, struct
fd = os.open('$TMP/ram', os.O_WRONLY); os.pwrite(fd, struct.pack('<Q', 0x22000 | 3), 0x14010); os.close(fd)"
expect "mount: a page the guest maps under the mount walks at once" 0 "result: mapped pa=sysmem:0x22000 " \
	cat "$mnt/vtd0.00:03.0/walk/0x2000"
live_umount "$mnt"
# a snapshot keeps the IOMMU: its section and its own tables, its devices found again from them
expect "snapshot of a guest with its IOMMU" 0 "3 contexts, 9 table pages" \
	"$TOOL" snapshot "$TMP/vtd.sock" "$TMP/snap.tar.gz"
check "the snapshot holds the [iommu] section, not one per device" \
	sh -c "tar -xzOf '$TMP/snap.tar.gz' capture.ini | grep -q '^\[iommu vtd0\]' &&
	       ! tar -xzOf '$TMP/snap.tar.gz' capture.ini | grep -q '^\[vtd '"
expect "the snapshot's device walks as the live one" 0 "result: mapped pa=sysmem:0x22000 " \
	"$TOOL" walk "$TMP/snap.tar.gz" vtd0.00:03.0 0x2000
"$TOOL" export "$TMP/snap.tar.gz" "$TMP/ex-snap" 2>/dev/null
"$TOOL" export "$TMP/vtd.sock" "$TMP/ex-live" 2>/dev/null
check "the snapshot's IOMMU tree is the live one's" diff -r "$TMP/ex-snap/vtd0" "$TMP/ex-live/vtd0"
stop_srv

# ---- PCI functions by name: QMP query-pci (issue 40 item 5) ----
serve vtdpci
expect "query-pci: a devices line gains the function's ids and names, its driver not known" 0 \
	"^00:03.0 context=vtd0.00:03.0 translation=second-level domain=5 levels=3 pages=3 root=sysmem:0x12000 vendor=0x1b36 device=0x0010 class=0x0108 driver=\\? name=\"Non-Volatile memory controller: Red Hat, Inc. QEMU NVM Express Controller\"\$" \
	"$TOOL" devices "$TMP/vtdpci.sock" vtd0
expect "query-pci: --json too" 0 '"vendor": "0x1af4"' "$TOOL" devices --json "$TMP/vtdpci.sock" vtd0
expect "query-pci: the device context's info" 0 "^pci_driver: not known \(QMP query-pci names none\)\$" \
	"$TOOL" info "$TMP/vtdpci.sock" vtd0.00:03.0
expect "query-pci: ptfs-tool pci lists a function behind a bridge, untranslated" 0 \
	"^0000:01:00.0 0x0200 8086:10d3 \\? +- +Ethernet controller: Intel Corporation 82574L Gigabit Network Connection\$" \
	"$TOOL" pci "$TMP/vtdpci.sock"
expect "query-pci: ... and the translated one with its context" 0 "^0000:00:04.0 0x0200 1af4:1000 \\? +vtd0.00:04.0 " \
	"$TOOL" pci "$TMP/vtdpci.sock"
start_fg "$TMP/vtdpci.sock" "$mnt" || bad "ptfs mounts the guest whose query-pci answers"
check "mount: the pci file is ptfs-tool pci's" cmp "$mnt/pci" <("$TOOL" pci "$TMP/vtdpci.sock" 2>/dev/null)
live_umount "$mnt"
stop_srv
# a QEMU that names none (vtd: query-pci answered CommandNotFound): devices as before, no pci file
serve vtd
expect "no query-pci: the devices line as before" 0 \
	"^00:03.0 context=vtd0.00:03.0 translation=second-level domain=5 levels=3 pages=3 root=sysmem:0x12000\$" \
	"$TOOL" devices "$TMP/vtd.sock" vtd0
expect "no query-pci: ptfs-tool pci says so" 2 "no PCI function known" "$TOOL" pci "$TMP/vtd.sock"
stop_srv

# ---- AMD-Vi ----
serve amdvi
expect "AMD-Vi: the guest's IOMMU is a section from its registers" 0 \
	"^iommu_entry_address: 0x30300\$" "$TOOL" info "$TMP/amdvi.sock" amdvi0.00:03.0
expect "AMD-Vi: IOVA 0 of 00:03.0 walks to 0x50000" 0 "result: mapped pa=sysmem:0x50000 " \
	"$TOOL" walk "$TMP/amdvi.sock" amdvi0.00:03.0 0x0
# issue #39 item 5: the live source's [iommu] sections follow the same rule
expect "AMD-Vi: a blocked DTE is no context" 0 "^# amdvi0\\.00:03\\.0\$" "$TOOL" info "$TMP/amdvi.sock"
check "AMD-Vi: ... only the translated device is" \
	test "$("$TOOL" info "$TMP/amdvi.sock" 2>/dev/null | grep -c '^# amdvi0')" = 1
expect "AMD-Vi: the IOMMU's info counts the blocked DTEs" 0 "^blocked: 2 " \
	"$TOOL" info "$TMP/amdvi.sock" amdvi0
expect "AMD-Vi: devices: one line, the device set up" 0 \
	"^00:03.0 context=amdvi0.00:03.0 translation=host domain=7 levels=3 pages=1 root=sysmem:0x40000\$" \
	"$TOOL" devices "$TMP/amdvi.sock" amdvi0
check "AMD-Vi: --all-entries makes the blocked DTEs contexts" \
	test "$("$TOOL" info --all-entries "$TMP/amdvi.sock" 2>/dev/null | grep -c '^# amdvi0')" = 3
expect "AMD-Vi: a pasted 0000: name walks the device" 0 "result: mapped pa=sysmem:0x50000 " \
	"$TOOL" walk "$TMP/amdvi.sock" amdvi0.0000:00:03.0 0x0
stop_srv

# ---- an IOMMU the guest has not turned on: a warning, no context ----
serve vtdoff
expect "VT-d off: the warning says why" 0 "has not turned the intel-vtd on \\(GSTS.TES \\(bit 31\\) clear\\): no context vtd0" \
	"$TOOL" info "$TMP/vtdoff.sock"
expect "VT-d off: no device context" 2 "no context 'vtd0.00:03.0' in .*; it has cpu0\$" \
	"$TOOL" walk "$TMP/vtdoff.sock" vtd0.00:03.0 0x0
stop_srv

# ---- hostile: one line, nothing mounted ----
for t in "vtdbadxp|xp of 0xfed9001c answered 'Cannot access memory.*', not '00000000fed9001c: 0xVALUE'" \
	 "twovtd|two MMIO windows 'intel_iommu'"; do
	s=${t%%|*} re=${t#*|}
	serve "$s"
	fails "$s: ptfs-tool says one line" "$re" "$TOOL" info "$TMP/$s.sock"
	mkdir -p "$TMP/m-$s"
	timeout 30 "$PTFS" "$TMP/$s.sock" "$TMP/m-$s" 2>"$TMP/m-$s.err"
	rc=$?
	[ $rc != 0 ] && not_mounted "$TMP/m-$s" && [ "$(wc -l <"$TMP/m-$s.err")" = 1 ] &&
		ok "$s: ptfs mounts nothing, one line" || bad "$s: ptfs exit $rc: $(cat "$TMP/m-$s.err")"
	stop_srv
done
report
