#!/bin/bash
# test_dumpmem.sh — a capture.ini whose memory is a dump (man/ptfs-capture.5,
# "Memory from a dump"; issue #32 item 3), through ptfs-tool and a mount:
# a small x86-64 guest as an ELF core and as a kdump file (mkdumpmem,
# check_tests/dumpmem_util.h) beside a capture.ini with an [iommu] section
# whose tables are in the dump.
#   1. the device's IOVA walks through the dump to the byte the CPU's VA reaches;
#   2. everything the dump shows alone is in the capture unchanged (ptfs-tool
#      export of both: only the capture summary differs, by capture.ini's
#      lines), and capture.ini's contexts are added;
#   3. the mount serves the same walk; a capture.ini naming a missing dump
#      mounts nothing and says one line.
# Environment (check_tests/meson.build): PTFS_TOOL, PTFS_MKDUMPMEM, PTFS_FIXTURES, optional
# PTFS (the mount part; skipped without it or without /dev/fuse unless CI=true).
set -u
export LC_ALL=C
TOOL=$(readlink -f "${PTFS_TOOL:?PTFS_TOOL must name ptfs-tool}")
MK=$(readlink -f "${PTFS_MKDUMPMEM:?PTFS_MKDUMPMEM must name mkdumpmem}")
FIX=$(readlink -f "${PTFS_FIXTURES:?PTFS_FIXTURES must name the fixtures directory}")
. "$(dirname "$0")/mount_lib.sh"
ml_tmpdir dumpmem
PASS=0 FAIL=0

for kind in elf kdump; do
	cap=$TMP/cap-$kind dump=guest.$kind
	mkdir -p "$cap" && "$MK" "$cap" "$kind" || { bad "mkdumpmem $kind"; continue; }
	expect "$kind: a device's IOVA walks through the dump's memory" 0 \
		'result: mapped pa=sysmem:0x8234 page=4K' "$TOOL" walk "$cap" dmar0.00:03.0 0x1234
	expect "$kind: the CPU's VA reaches the same byte" 0 'result: mapped pa=sysmem:0x8234 page=4K' \
		"$TOOL" walk "$cap" cpu0 0x234
	expect "$kind: pass-through: the IOVA is its own output" 0 'aperture=pass-through pa=sysmem:0x8234' \
		"$TOOL" walk "$cap" dmar0.00:04.0 0x8234
	"$TOOL" export "$cap/$dump" "$TMP/alone-$kind" 2>/dev/null
	"$TOOL" export "$cap" "$TMP/both-$kind" 2>/dev/null
	# the dump alone's tree, file by file, in the capture's (but the summary, which names the capture)
	(cd "$TMP/alone-$kind" && find . -type f ! -path ./capture | sort) >"$TMP/files-$kind"
	check "$kind: the dump's tree is whole ($(wc -l <"$TMP/files-$kind") files)" test -s "$TMP/files-$kind"
	n=0
	while read -r f; do
		cmp -s "$TMP/alone-$kind/$f" "$TMP/both-$kind/$f" || { n=$((n + 1)); echo "    differs: $f"; }
	done <"$TMP/files-$kind"
	check "$kind: every file of the dump alone is the same beside capture.ini" test $n = 0
	check "$kind: capture.ini's devices are added" test -d "$TMP/both-$kind/dmar0.00:03.0" -a \
		-d "$TMP/both-$kind/dmar0.00:04.0"
	# the summary: the dump's lines, then capture.ini's description and its device contexts
	diff "$TMP/alone-$kind/capture" "$TMP/both-$kind/capture" | grep '^[<>]' >"$TMP/summary-$kind"
	printf '%s\n' "< source: $dump" "> source: cap-$kind" \
		"> description: a guest dump with its IOMMU's registers" \
		'> context: dmar0.00:03.0 sysmem:0x12000 intel-vtd' '> context: dmar0.00:04.0 sysmem:0x0 intel-vtd' \
		>"$TMP/summary-want"
	same "$TMP/summary-want" "$TMP/summary-$kind" "$kind: the summary is the dump's plus capture.ini's lines"
done

# VMCOREINFO's kernel context and the vCPUs' (fixtures/qemu-x86.elf: cpu0, cpu1,
# kernel) as alone, beside a context capture.ini adds
vi=$TMP/cap-vmcoreinfo
mkdir -p "$vi" && cp "$FIX/qemu-x86.elf" "$vi/guest.elf"
printf '[capture]\nversion = 1\n[memory g]\ndump = guest.elf\n[vtd dev0]\nslptptr = 0x1000\naw = 48\n' >"$vi/capture.ini"
"$TOOL" export "$vi/guest.elf" "$TMP/alone-vi" 2>/dev/null
"$TOOL" export "$vi" "$TMP/both-vi" 2>/dev/null
(cd "$TMP/alone-vi" && find . -type f ! -path ./capture | sort) >"$TMP/files-vi"
check "qemu-x86.elf alone has its kernel context from VMCOREINFO" grep -q '^./kernel/info$' "$TMP/files-vi"
n=0
while read -r f; do
	cmp -s "$TMP/alone-vi/$f" "$TMP/both-vi/$f" || { n=$((n + 1)); echo "    differs: $f"; }
done <"$TMP/files-vi"
check "qemu-x86.elf: cpu0, cpu1 and kernel (VMCOREINFO) the same beside capture.ini" test $n = 0
check "qemu-x86.elf: capture.ini's [vtd dev0] is added" test -f "$TMP/both-vi/dev0/info"
check "qemu-x86.elf: the VMCOREINFO line of the summary is the dump's" \
	grep -q '^x-root-kernel: cr3: VMCOREINFO SYMBOL(init_top_pgt)=' "$TMP/both-vi/capture"

# Bad capture.ini: one line naming its line, exit 2 (ptfs-tool) ...
bad=$TMP/bad
mkdir -p "$bad" && "$MK" "$bad" elf
printf '[capture]\nversion = 1\n[memory g]\ndump = gone.elf\n' >"$bad/capture.ini"
fails "a missing dump is one line naming capture.ini's line" \
	"capture.ini:4: dump 'gone.elf' of \[memory g\] is not in capture.ini's directory" "$TOOL" info "$bad"

# ... and the mount
if [ -z "${PTFS:-}" ] || [ ! -c /dev/fuse ]; then
	[ "${CI:-}" = true ] && bad "CI=true: the mount part needs PTFS and /dev/fuse"
	echo "# the mount part skipped (no ptfs or /dev/fuse)"
	report
	exit $?
fi
PTFS=$(readlink -f "$PTFS")
mnt=$TMP/mnt
if do_mount "$TMP/cap-elf" "$mnt"; then
	ok "the capture directory mounts"
	expect "the mount walks the device's IOVA through the dump" 0 'result: mapped pa=sysmem:0x8234' \
		cat "$mnt/dmar0.00:03.0/walk/0x1234"
	expect "the mount lists the dump's and capture.ini's contexts, and the IOMMU's tree" 0 '^cpu0 dmar0 dmar0.00:03.0 dmar0.00:04.0 pa $' \
		sh -c "ls '$mnt' | grep -v capture | tr '\n' ' '"
	do_umount "$mnt"
else
	bad "the capture directory mounts"
fi
mkdir -p "$TMP/mnt2"
"$PTFS" "$bad" "$TMP/mnt2" >"$TMP/m.out" 2>&1
rc=$?
check "a missing dump: ptfs fails, mounts nothing" test $rc != 0 -a "$(mountpoint -q "$TMP/mnt2" && echo m)" = ""
check "... with one line naming capture.ini's line" \
	test "$(wc -l <"$TMP/m.out")" = 1 -a -n "$(grep "capture.ini:4: dump 'gone.elf'" "$TMP/m.out")"
report
