#!/bin/bash
# test_mount_iommu.sh — the IOMMU tree in a real mount (issue #32 item 2):
# an [iommu NAME] section's own tables under NAME/ (ptfs(1) "THE IOMMU
# TREE"): VT-d root/BUS/context/DEVFN (scalable: .../pasid/N), AMD-Vi
# dte/DEVID, SMMUv3 l1/N/ste/SID/cd/SSID; grep recipes (pass-through, a
# shared DID), absent entries not listed, each entry's context line names a
# context of the mount; and a generated capture of 65,536 devices behind
# one [iommu] mounts and lists every one (correctness only: its time is
# bench/run's).  Really mounts (ptfs + fusermount3 -u), waits, always
# unmounts.  Tables that fan out (mkiommu_amp.py) mount bounded, and -o
# max_contexts bounds the device contexts.
#
# Environment (check_tests/meson.build): PTFS, PTFS_TOOL, PTFS_FIXTURES.
set -u
PTFS=${PTFS:?}
FIX=${PTFS_FIXTURES:?}
TOOL=$(readlink -f "${PTFS_TOOL:?}")
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/mount_lib.sh"
ml_tmpdir mount-iommu
need_fuse

# ---- VT-d legacy: fixtures/iommu-vtd (mkf_iommutop.c) ----------------------
M=$TMP/vtd
if do_mount "$FIX/iommu-vtd.tar.gz" "$M"; then
	check "dmar0/ is a directory beside the device contexts" test -d "$M/dmar0" -a -d "$M/dmar0.00:02.0"
	check "dmar0/ holds root/, devices and info" test "$(ls "$M/dmar0" | tr "\n" " ")" = "devices info root "
	check "root/ lists the buses whose root entry is present" \
		test "$(ls "$M/dmar0/root" | tr '\n' ' ')" = "0 1 2 3 4 "
	check "root/0/ holds entry and context/" test "$(ls "$M/dmar0/root/0" | tr '\n' ' ')" = "context entry "
	check "root/0/context/ lists the present devfns (decimal)" \
		test "$(ls "$M/dmar0/root/0/context" | tr '\n' ' ')" = "16 24 32 48 49 "
	check "an absent devfn is not listed" bash -c '! ls "$1" | grep -qx 40' _ "$M/dmar0/root/0/context"
	check "grep -rl 'translation: pass-through' finds the pass-through device" \
		test "$(grep -rl 'translation: pass-through' "$M/dmar0")" = "$M/dmar0/root/0/context/32"
	check "grep -r 'did: 0x1\$' finds the devices sharing domain 1" \
		test "$(grep -rlx 'did: 0x1' "$M/dmar0" | wc -l)" -ge 2
	F=$M/dmar0/root/0/context/16
	check "an entry file: its address, raw words, fields, translation, context" \
		bash -c 'grep -qx "address: sysmem 0x101100" "$1" && grep -qx "word0: 0x0000000000103001" "$1" &&
			 grep -qx "slptptr: 0x103000" "$1" && grep -qx "aw: 0x2" "$1" &&
			 grep -qx "translation: second-level" "$1" && grep -qx "context: dmar0.00:02.0" "$1"' _ "$F"
	ctx=$(sed -n 's/^context: //p' "$F")
	check "its context line names a context of the mount" test -d "$M/$ctx" -a -f "$M/$ctx/info"
	check "a context table that is the root table: no context/, a warning line" \
		bash -c 'test ! -e "$1/root/2/context" && grep -q "^warning: its context table is the root table" "$1/root/2/entry"' _ "$M/dmar0"
	check "reserved bits: the root entry says which" grep -q '^reserved: word0 ' "$M/dmar0/root/3/entry"
	check "an absent device still resolves by name (present: 0)" grep -qx 'present: 0' "$M/dmar0/root/0/context/40"
	check "a name past the table is ENOENT" test ! -e "$M/dmar0/root/0/context/256"
	check "a name with a leading zero is ENOENT" test ! -e "$M/dmar0/root/0/context/016"
	i1=$(stat -c %i "$M/dmar0") i2=$(stat -c %i "$F")
	check "inode numbers are distinct" test "$i1" != "$i2"
	check "writes fail" bash -c '! echo x 2>/dev/null >"$1"' _ "$F"
	do_umount "$M"
else
	bad "iommu-vtd mounts"
fi

# ---- scalable mode, AMD-Vi, SMMUv3 ------------------------------------------
M=$TMP/sm
if do_mount "$FIX/iommu-vtd-sm.tar.gz" "$M"; then
	check "scalable mode: context/DEVFN/ holds entry and pasid/" \
		test "$(ls "$M/dmar1/root/0/context/16" | tr '\n' ' ')" = "entry pasid "
	check "pasid/ lists the present PASIDs" test "$(ls "$M/dmar1/root/0/context/16/pasid" | tr '\n' ' ')" = "0 5 9 "
	check "a PASID entry names its context" grep -q '^context: dmar1\.' "$M/dmar1/root/0/context/16/pasid/5"
	do_umount "$M"
else
	bad "iommu-vtd-sm mounts"
fi
M=$TMP/amd
if do_mount "$FIX/iommu-amdvi.tar.gz" "$M"; then
	check "AMD-Vi: dte/ lists the valid DTEs" test "$(ls "$M/ivhd0/dte" | wc -l)" -ge 5
	check "a DTE file names every field" \
		bash -c 'for f in v tv mode host_pt_root domain_id iv int_ctl lint1_pass; do grep -q "^$f: " "$1" || exit 1; done' _ "$M/ivhd0/dte/16"
	check "... and its context" grep -qx 'context: ivhd0.00:02.0' "$M/ivhd0/dte/16"
	# issue #39 item 5: a blocked DTE is in the tree and counted, not a context
	check "a blocked DTE says so" grep -qx 'translation: blocked' "$M/ivhd0/dte/40"
	check "... and is no context" test ! -e "$M/ivhd0.00:05.0"
	check "info counts it" grep -qx 'blocked: 1 (in the tables, not contexts: all_entries makes them contexts)' "$M/ivhd0/info"
	check "devices: one line per device context, in BDF order" \
		test "$(cut -d' ' -f1 "$M/ivhd0/devices" | tr '\n' ' ')" = "00:02.0 00:03.0 00:04.0 00:10.0 "
	check "devices: the same bytes as ptfs-tool devices" \
		bash -c 'cmp -s "$1" <("$2" devices "$3" ivhd0 2>/dev/null)' _ "$M/ivhd0/devices" "$TOOL" "$FIX/iommu-amdvi.tar.gz"
	check "devices: st_size is the bytes read" test "$(stat -c %s "$M/ivhd0/devices")" = "$(wc -c <"$M/ivhd0/devices")"
	check "an alias is a symlink to the canonical context" \
		test "$(readlink "$M/ivhd1.0001:00:02.00")" = "ivhd1.0001:00:02.0"
	check "... which one can walk through" grep -q '^result: mapped' "$M/ivhd0.0000:00:02.0/walk/0x0"
	check "... never listed" bash -c '! ls "$1" | grep -q "0000:00:02"' _ "$M"
	do_umount "$M"
else
	bad "iommu-amdvi mounts"
fi
M=$TMP/amdall
if do_mount "$FIX/iommu-amdvi.tar.gz" "$M" -o all_entries; then
	check "-o all_entries: the blocked DTE is a context" test -d "$M/ivhd0.00:05.0"
	check "-o all_entries: and a device line" grep -q '^00:05.0 context=ivhd0.00:05.0 translation=blocked' "$M/ivhd0/devices"
	do_umount "$M"
else
	bad "iommu-amdvi mounts with -o all_entries"
fi
M=$TMP/smmu
if do_mount "$FIX/iommu-smmu.tar.gz" "$M"; then
	check "SMMUv3 2-level: l1/N/ste/SID/cd/SSID" test -f "$M/smmu0/l1/2/ste/513/cd/3"
	check "a CD names its context" grep -qx 'context: smmu0.sid513.ssid3' "$M/smmu0/l1/2/ste/513/cd/3"
	check "an STE's translation" grep -qx 'translation: stage1' "$M/smmu0/l1/2/ste/513/entry"
	do_umount "$M"
else
	bad "iommu-smmu mounts"
fi

# ---- 65,536 devices behind one [iommu] ----------------------------------------
python3 "$HERE/mkiommu_big.py" "$TMP/big" 65536 iommu
M=$TMP/bigm
if do_mount "$TMP/big" "$M"; then
	check "65,536 device contexts, the IOMMU, capture and pa/ at the root" \
		test "$(ls "$M" | wc -l)" = 65539
	check "root/ lists 256 buses" test "$(ls "$M/big/root" | wc -l)" = 256
	check "ls -R lists 65,536 context entries" \
		test "$(ls -R "$M/big" | grep -cE '^[0-9]+$')" = $((65536 + 256))
	check "the last device's entry names the last context" \
		grep -qx 'context: big.ff:1f.7' "$M/big/root/255/context/255"
	check "function 7 of each device of bus 255 is pass-through: 32 files" \
		test "$(grep -rl 'translation: pass-through' "$M/big/root/255" | wc -l)" = 32
	check "the last context mounts" test -f "$M/big.ff:1f.7/info"
	do_umount "$M"
else
	bad "a capture of 65,536 devices mounts"
fi
# ---- tables that fan out (issue #39 item 1): bounded, one warning; -o max_contexts ----
python3 "$HERE/mkiommu_amp.py" "$TMP/fan" vtd-pasid 8
M=$TMP/fanm
if do_mount "$TMP/fan" "$M"; then
	check "8 devices sharing a PASID directory of 2^14 slots naming one table: 64 contexts" \
		test "$(ls "$M" | grep -c '^io\.')" = 64
	check "one warning at the [iommu] line counts the pointers not followed" \
		grep -q 'capture.ini:10: \[iommu io\]: 16390 table pointers reach a table reached before' "$M.err"
	do_umount "$M"
else
	bad "a PASID directory fan-out mounts"
fi
python3 "$HERE/mkiommu_amp.py" "$TMP/cds" smmu-cd 4
M=$TMP/cdsm
if do_mount "$TMP/cds" "$M" -o max_contexts=10; then
	check "-o max_contexts=10: 10 device contexts" test "$(ls "$M" | grep -c '^io\.')" = 10
	check "-o max_contexts=10: one warning names where the walk stopped" \
		grep -q "\[iommu io\]: 10 device contexts made, all the capture's bound.*io.sid0.ssid10 and" "$M.err"
	do_umount "$M"
else
	bad "-o max_contexts=10 mounts"
fi
report
