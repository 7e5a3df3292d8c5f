#!/bin/bash
# test_mount_nested.sh — the real ptfs mounted over a two-stage capture
# (fixtures/nested-ept: a guest's x86-64 tables in gpa behind its EPT,
# docs/design.md §2.8): walk/ holds the nested trace and both addresses,
# maps the FINAL column, pa/hpa/ finds the guest's VA through the stack,
# va/ links go to the stage-1 leaf, a stage-2 fault reads as one; the same
# for arm64-guest (an arm64 guest behind its stage 2); and a [space] cycle
# is refused with nothing mounted.  Then fixtures/gpu-vtd, a GPU behind
# VT-d: walk/ through the IOMMU, va/, maps and pa/hpa/.
#
# Environment and exit status as test_mount.sh (check_tests/meson.build sets
# them): 77 (skip) without /dev/fuse unless CI=true.  Readiness is polled and
# every mount undone by the EXIT trap (mount_lib.sh).

set -u
export LC_ALL=C

PTFS=${PTFS:?PTFS must name the ptfs binary}
FIX=${PTFS_FIXTURES:?PTFS_FIXTURES must name the fixtures directory}
PTFS=$(readlink -f "$PTFS")
FIX=$(readlink -f "$FIX")

. "$(dirname "$0")/mount_lib.sh"

need_fuse
ml_tmpdir mount_nested

M="$TMP/mnt"
if do_mount "$FIX/nested-ept.tar.gz" "$M"; then
	W=$(cat "$M/guest/walk/0x5123")
	check "walk/: the result names the intermediate and the final address" \
		grep -qx 'result: mapped pa=gpa:0x5123 final=hpa:0x20d123 page=4K flags=writable,user kind=- leaf=pml4/0/pdpt/0/pd/0/pt/5' <<<"$W"
	check "walk/: the EPT's walk of the guest's pml4 entry is indented under it" \
		bash -c 'grep -A1 "^pml4\[0\] gpa:0x1000 " <<<"$1" | grep -qx "  context: ept0 va: 0x000000001000"' _ "$W"
	check "walk/: the final page's stage-2 result" grep -qx '  result: mapped pa=hpa:0x20d123 page=4K flags=read,write,execute memory_type=WB leaf=pml4/0/pdpt/0/pd/0/pt/5' <<<"$W"
	check "walk/: a stage-2 fault at the final page" \
		grep -q '^result: fault=stage2:rights at=gpa:0xb000 stage=ept0 level=pt index=8 ' "$M/guest/walk/0x8000"
	check "walk/: a stage-2 fault at a stage-1 table read" \
		grep -q '^result: fault=stage2:unmapped at=gpa:0x9000 stage=ept0 level=pt index=0 ' "$M/guest/walk/0x200000"
	check "maps: the FINAL column" \
		grep -qx '0x0000000000005000-0x0000000000006000     4K   4K gpa     0x0000000000005000 writable,user - hpa:0x000000000020d000' "$M/guest/maps"
	check "maps: stage2:KIND where the translation faults" \
		grep -q ' 0x0000000000009000 writable,user - stage2:unmapped$' "$M/guest/maps"
	check "pa/hpa/: the guest's VA through the stack, and the EPT's own" \
		bash -c 'grep -q "^guest 0x0000000000005123 pml4/0/pdpt/0/pd/0/pt/5 writable,user$" "$1" && grep -q "^ept0 0x000000005123 " "$1"' _ "$M/pa/hpa/0x20d123"
	check "pa/gpa/: the intermediate address" grep -q '^guest 0x0000000000005123 ' "$M/pa/gpa/0x5123"
	check "va/: the link goes to the stage-1 leaf" test "$(readlink "$M/guest/va/0x0000000000005000")" = ../pml4/0/pdpt/0/pd/0/pt/5
	check "capture: every space of the capture under pa/" test "$(ls "$M/pa" | tr "\n" " ")" = "gpa hpa sysmem "
	do_umount "$M"
else
	bad "nested-ept: mounts"
fi

# arm64-guest: an arm64 guest's stage 1 in ipa behind its stage 2 in pa
if do_mount "$FIX/arm64-guest.tar.gz" "$M"; then
	W=$(cat "$M/guest/walk/0x40001234")
	check "arm64 walk/: a block whose l2 table and page are in a stage-2 block" \
		grep -qx 'result: mapped pa=ipa:0x201234 final=pa:0x40201234 page=2M flags=ap_user,pxn attr_index=0 leaf=l1/1/l2/0' <<<"$W"
	check "arm64 walk/: the stage-2 walk of the l2 table read" \
		bash -c 'grep -A4 "^l2\[0\] ipa:0x201000 " <<<"$1" | grep -qx "  result: mapped pa=pa:0x40201000 page=2M flags=s2ap_read,s2ap_write mem_attr=15 leaf=l1/0/l2/1"' _ "$W"
	check "arm64 walk/: S2AP 00 under a table read is stage2:rights" \
		grep -q '^result: fault=stage2:rights at=ipa:0x11000 stage=vm level=l3 index=0 ' "$M/guest/walk/0x600000"
	check "arm64 maps: the FINAL column" \
		grep -qx '0x0000000000000000-0x0000000000001000     4K   4K ipa     0x0000000000005000 ap_user,pxn 0 pa:0x0000000040015000' "$M/guest/maps"
	check "arm64 pa/pa/: a stage-2 page away from the block's others finds its VA" \
		bash -c 'grep -qx "guest 0x0000000000213000 l1/0/l2/1 ap_user,pxn" "$1" && grep -q "^vm 0x0000013000 " "$1"' _ "$M/pa/pa/0x40030000"
	do_umount "$M"
else
	bad "arm64-guest: mounts"
fi

# a GPU behind an IOMMU (fixtures/gpu-vtd: VER2 tables, sysmem an IOVA space behind VT-d)
if do_mount "$FIX/gpu-vtd.tar.gz" "$M"; then
	W=$(cat "$M/gpu0/walk/0x1123")
	check "gpu-vtd walk/: the result names the IOVA and the host address" \
		grep -qx 'result: mapped pa=sysmem:0x8123 final=hpa:0x87654123 page=4K flags=- kind=GENERIC_MEMORY leaf=pde3/0/pde2/0/pde1/0/pde0/0/pte_small/1' <<<"$W"
	check "gpu-vtd walk/: VT-d's walk of the page, indented under the PTE" \
		bash -c 'grep -A1 "^pte_small\[1\] vidmem:0x204008 " <<<"$1" | grep -qx "  context: iommu0 va: 0x0000008123"' _ "$W"
	check "gpu-vtd walk/: a GPU PT in sysmem is read through VT-d" \
		bash -c 'grep -A1 "^pte_small\[0\] sysmem:0x2000 " "$1" | grep -qx "  context: iommu0 va: 0x0000002000"' _ "$M/gpu0/walk/0x400000"
	check "gpu-vtd walk/: a vidmem page is not translated" \
		grep -q '^result: mapped pa=vidmem:0x10000000 page=4K ' "$M/gpu0/walk/0x0"
	check "gpu-vtd walk/: a stage-2 fault at the final page" \
		grep -q '^result: fault=stage2:rights at=sysmem:0xa000 stage=iommu0 level=pte_small index=6 ' "$M/gpu0/walk/0x6000"
	check "gpu-vtd walk/: a stage-2 fault at a GPU PT read" \
		grep -q '^result: fault=stage2:not_captured at=sysmem:0x600000 stage=iommu0 level=pte_small index=0 ' "$M/gpu0/walk/0xe00000"
	check "gpu-vtd va/: the link goes to the GPU's leaf" \
		test "$(readlink "$M/gpu0/va/0x0000000001000")" = ../pde3/0/pde2/0/pde1/0/pde0/0/pte_small/1
	check "gpu-vtd va/: the 2 MiB page through the IOMMU's 2 MiB page" \
		test "$(readlink "$M/gpu0/va/0x0000000200000")" = ../pde3/0/pde2/0/pde1/0/pde0/1
	check "gpu-vtd maps: the FINAL column" \
		grep -qx '0x0000000001000-0x0000000002000     4K   4K sysmem  0x0000000000008000 - GENERIC_MEMORY hpa:0x0000000087654000' "$M/gpu0/maps"
	check "gpu-vtd pa/hpa/: the GPU VAs through the stack, and VT-d's own" \
		bash -c 'grep -q "^gpu0 0x0000000001123 " "$1" && grep -q "^gpu0 0x0000000400123 " "$1" && grep -q "^iommu0 0x0000008123 " "$1"' _ "$M/pa/hpa/0x87654123"
	do_umount "$M"
else
	bad "gpu-vtd: mounts"
fi

# a cycle of translated spaces: one line naming the sections, exit 2, nothing mounted
mkdir -p "$TMP/cyc" "$M"
printf '[capture]\nversion = 1\nformat = x86-64\n[cpu g]\ncr3 = 0x1000\nspace = gpa\n[ept e]\neptp = 0x1e\nspace = gpa\noutput_space = hpa\n[space gpa]\ntranslate = e\n' >"$TMP/cyc/capture.ini"
"$PTFS" "$TMP/cyc" "$M" 2>"$TMP/cyc.err"
rc=$?
check "a cycle: exits 2" test $rc = 2
check "a cycle: one line naming the sections" \
	bash -c '[ "$(wc -l <"$1")" = 1 ] && grep -q "capture.ini:12: \[space gpa\] translate = e: a cycle of translated spaces (\[space gpa\] -> \[ept e\] -> \[space gpa\])" "$1"' _ "$TMP/cyc.err"
check "a cycle: nothing mounted" not_mounted "$M"

report
