#!/bin/bash
# mkseeds.sh FIXTURES OUTDIR STAMP [MKPCISEED] — seed corpora for the fuzz targets, made
# from the committed fixtures (never by hand, so they follow the fixtures):
#   OUTDIR/fuzz_ini/          every fixture's capture.ini + a few edge files
#   OUTDIR/fuzz_capture/      every fixture archive as it is (but x86-roots)
#   OUTDIR/fuzz_decode_walk/  80-byte header + a fixture's table memory
#                             (layout: fuzz_decode_walk.c)
#   OUTDIR/fuzz_ctx/          format byte, VAs, a context section's keys and
#                             a fixture's memory regions (layout: fuzz_ctx.c)
#                             (these two: each seed also as NAME-json, byte 1 = 1)
#   OUTDIR/fuzz_umr/, fuzz_gem5/  the hand-written umr logs and m5.cpt of
#                             check_tests/src_data/ (issue 13)
#   OUTDIR/fuzz_elf/          the ELF core fixture (qemu-x86.elf) whole and cut
#   OUTDIR/fuzz_armctx/       the arm64 and smmu fixtures' sections and descriptors
#   OUTDIR/fuzz_qmp/          a QMP greeting, HMP text and gdbstub packets, one per selector
#   OUTDIR/fuzz_pci/          the synthetic Linux guest's PCI region, written by MKPCISEED
# Needs only bash, tar and gzip.
set -euo pipefail
FIX=$1
OUT=$2
STAMP=$3
MKPCISEED=${4:-}
rm -rf "$OUT"
mkdir -p "$OUT/fuzz_ini" "$OUT/fuzz_capture" "$OUT/fuzz_decode_walk" "$OUT/fuzz_umr" "$OUT/fuzz_gem5" "$OUT/fuzz_ctx" "$OUT/fuzz_elf" \
	"$OUT/fuzz_btf" "$OUT/fuzz_pci"
[ -z "$MKPCISEED" ] || "$MKPCISEED" "$OUT/fuzz_pci/valid"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ptfs-seeds.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# ---- fuzz_capture: the archives themselves, but x86-roots (448 KiB of
# memory, inflated again by every input made from it: a quarter of the
# target's time; x86-64 is in the x86-64-*level seeds, and its dozen
# contexts are ptfs-tool roots' subject, which fuzz_capture does not run)
for f in "$FIX"/*.tar "$FIX"/*.tar.gz "$FIX"/*.tar.zst "$FIX"/*.zip; do
	[ -f "$f" ] && [ "$(basename "$f")" != x86-roots.tar.gz ] && cp "$f" "$OUT/fuzz_capture/"
done

# ---- fuzz_ini: capture.ini of every .tar.gz fixture, the directory one, edge cases
for f in "$FIX"/*.tar.gz; do
	b=$(basename "$f" .tar.gz)
	tar -xzOf "$f" capture.ini >"$OUT/fuzz_ini/$b.ini"
done
cp "$FIX/turing-mixed.d/capture.ini" "$OUT/fuzz_ini/turing-mixed.d.ini"
printf '[capture]\nversion = 1\nformat = nv-gmmu-ver2\n[memory m]\nspace = vidmem\nbase = 0x200000\nfile = ./a//b/../c\n[pdb p]\nspace = sysmem\naddress = 16G\nbig_page_size = 64k\n' \
	>"$OUT/fuzz_ini/edge-path.ini"
printf '\xef\xbb\xbf; bom\r\n[capture]\r\nversion = 0x1\r\nformat = amd-gart\r\nx-\xc3\xa9 = \xe2\x82\xac\r\n[gart g]\r\nVM_CONTEXT0_PAGE_TABLE_BASE_ADDR = 1\r\nVM_CONTEXT0_PAGE_TABLE_START_ADDR = 0\r\nVM_CONTEXT0_PAGE_TABLE_END_ADDR = 0xFFFFFFFFF' \
	>"$OUT/fuzz_ini/edge-crlf.ini"

# ---- fuzz_decode_walk
# le64 N: the 8 little-endian bytes of N as printf escapes
le64() {
	local n=$(( $1 )) s="" i
	for i in 0 1 2 3 4 5 6 7; do
		s+=$(printf '\\x%02x' $(( (n >> (8 * i)) & 0xff )))
	done
	printf '%s' "$s"
}
# seed NAME SEL BASE ROOT START END FBOFF VA0 VA1 VA2 VA3 IMAGE...
seed() {
	local name=$1 sel=$2 base=$3 root=$4 start=$5 end=$6 fboff=$7 v0=$8 v1=$9 v2=${10} v3=${11}
	shift 11
	{
		printf "$(printf '\\x%02x' "$sel")\\x00\\x00\\x00\\x00\\x00\\x00\\x00"
		printf "$(le64 "$base")$(le64 "$root")$(le64 "$start")$(le64 "$end")$(le64 "$fboff")"
		printf "$(le64 "$v0")$(le64 "$v1")$(le64 "$v2")$(le64 "$v3")"
		cat "$@"
	} >"$OUT/fuzz_decode_walk/$name"
}
for f in turing-mixed turing-mixed-after; do
	mkdir -p "$TMP/$f"
	tar -xzf "$FIX/$f.tar.gz" -C "$TMP/$f"
	m=$TMP/$f/mem
	# vidmem 0x200000 + 0x205000 are adjacent: one image; pdb0's root at 0x200000
	seed "$f-pdb0" 0 0x200000 0x200000 0 0 0 0x200000 0x400000 0x600000 0x601000 \
		"$m/vidmem-200000.bin" "$m/vidmem-205000.bin"
	# pdb1's root is in sysmem (space 1)
	seed "$f-sys" 2 0x100000000 0x100004000 0 0 0 0x200000 0x400000 0x0 0x1ffffffffffff \
		"$m/sysmem-100000000.bin"
done
mkdir -p "$TMP/kat" "$TMP/cosim"
tar -xzf "$FIX/gart-umr-kat.tar.gz" -C "$TMP/kat"
seed gart-umr-kat 1 0x902000 0x40900001 0 0x7ff 0x40 0x444000 0x0 0x7ff000 0x800000 \
	"$TMP/kat/mem/vram-902000.bin"
tar -xzf "$FIX/gart-cosim.tar.gz" -C "$TMP/cosim"
seed gart-cosim 1 0x3ee600000 0x3ee600000 0x7fff00000 0x7fff1ffff 0 \
	0x7fff00000000 0x7fff00001000 0x7fff1ffff000 0x1000 "$TMP/cosim/mem/vram-3ee600000.bin"

# ---- fuzz_ctx
le32() {
	local n=$(( $1 )) s="" i
	for i in 0 1 2 3; do
		s+=$(printf '\\x%02x' $(( (n >> (8 * i)) & 0xff )))
	done
	printf '%s' "$s"
}
# keys INI SECTION: the keys of [SECTION] (x- keys are the core's: left out)
keys() {
	awk -v s="[$2]" '/^\[/ { on = ($0 == s); next } on && /=/ && !/^x-/' "$1"
}
# ctxseed NAME FMTIDX KEYS VA0 VA1 VA2 VA3 -- SPACEID BASE FILE ...
ctxseed() {
	local name=$1 fi=$2 keys=$3 v0=$4 v1=$5 v2=$6 v3=$7
	shift 8
	{
		printf "$(printf '\\x%02x' "$fi")\\x00\\x00\\x00\\x00\\x00\\x00\\x00"
		printf "$(le64 "$v0")$(le64 "$v1")$(le64 "$v2")$(le64 "$v3")"
		printf "$(le64 ${#keys})"
		printf '%s' "$keys"
		while [ $# -ge 3 ]; do
			printf "$(printf '\\x%02x' "$1")$(le64 "$2")$(le32 "$(stat -c %s "$3")")"
			cat "$3"
			shift 3
		done
	} >"$OUT/fuzz_ctx/$name"
}
mkdir -p "$TMP/hop" "$TMP/g9" "$TMP/g12"
tar -xzf "$FIX/hopper-mixed.tar.gz" -C "$TMP/hop"
tar -xzf "$FIX/amd-gfx9-vm.tar.gz" -C "$TMP/g9"
tar -xzf "$FIX/amd-gfx12-vm.tar.gz" -C "$TMP/g12"
for c in hopper0 blackwell0; do
	ctxseed "hopper-mixed-$c" 2 "$(keys "$TMP/hop/capture.ini" "pdb $c")" \
		0x0 0x200000 0x40000000 0x1fffffffffff000 -- \
		0 0x100000 "$TMP/hop/mem/vidmem-100000.bin" 1 0x100000000 "$TMP/hop/mem/sysmem-100000000.bin"
done
for c in gfx.1 gfx.2; do
	ctxseed "amd-gfx9-vm-$c" 3 "$(keys "$TMP/g9/capture.ini" "vm $c")" \
		0x0 0x1000 0x200000 0x7fffff000 -- \
		0 0x100000 "$TMP/g9/mem/vram-100000.bin" 0 0x110000 "$TMP/g9/mem/vram-110000.bin" \
		1 0x7f000000 "$TMP/g9/mem/sysmem-7f000000.bin"
done
ctxseed amd-gfx12-vm 3 "$(keys "$TMP/g12/capture.ini" "vm gfx.1")" \
	0x0 0x1000 0x200000 0x7fffff000 -- 0 0x200000 "$TMP/g12/mem/vram-200000.bin"
# umr-gfx9-vmid3.log: its VMID 3 registers as [vm] keys, each distinct
# VRAM@ADDR={HEX} line as an 8-byte region (umr prints the value most
# significant byte first; memory holds it little-endian)
set --
i=0
while read -r a h; do
	b=""
	for k in 14 12 10 8 6 4 2 0; do
		b+="\\x${h:k:2}"
	done
	printf "$b" >"$TMP/umr-$i.bin"
	set -- "$@" 0 "$a" "$TMP/umr-$i.bin"
	i=$((i + 1))
done < <(sed -n 's/^[[:space:]]*VRAM@\(0x[0-9a-fA-F]*\)={\([0-9a-fA-F]\{16\}\)}.*/\1 \2/p' \
	"$FIX/umr-gfx9-vmid3.log" | sort -u -k1,1)
ctxseed umr-gfx9-vmid3 3 "$(printf 'gfx = 9\npage_table_base_addr = 0x80100001\npage_table_end_addr = 0xfffffffff\ncntl = 0x7ffe07\nfb_offset = 0x80')" \
	0x0 0x1000 0x200000 0x7fffff000 -- "$@"

# ---- fuzz_umr, fuzz_gem5: the parsers' test data (not fixtures: not mountable yet)
SRC_DATA=$FIX/../check_tests/src_data
cp "$SRC_DATA"/*.log "$SRC_DATA"/*.envdef "$OUT/fuzz_umr/"
cp "$SRC_DATA/m5.cpt" "$OUT/fuzz_gem5/"
cat "$SRC_DATA/m5.cpt" "$SRC_DATA/config.ini" >"$OUT/fuzz_gem5/m5-config"

# ---- fuzz_elf: the ELF core fixture, and its first 4 KiB (headers and notes only)
if [ -f "$FIX/qemu-x86.elf" ]; then
	cp "$FIX/qemu-x86.elf" "$OUT/fuzz_elf/"
	head -c 4096 "$FIX/qemu-x86.elf" >"$OUT/fuzz_elf/qemu-x86-head.elf"
fi

# fuzz_decode_walk and fuzz_ctx render an input in the form its byte 1 chooses
# (bit 0: JSON): every seed once more as JSON, so both forms start covered.
for d in fuzz_decode_walk fuzz_ctx; do
	for f in "$OUT/$d"/*; do
		cp "$f" "$f-json"
		printf '\x01' | dd of="$f-json" bs=1 seek=1 conv=notrunc status=none
	done
done

# ---- fuzz_qmp: what QEMU answers (layout: fuzz_qmp.c, selector byte % 4):
# a QMP greeting, `info mtree -f` with RAM and an IOMMU window, `info
# registers -a`, and a gdbstub's packets and target description, as QEMU
# 7.2 printed them (check_tests/fake_qmp.py serves the same)
mkdir -p "$OUT/fuzz_qmp"
printf '\000{"QMP": {"version": {"qemu": {"micro": 0, "minor": 2, "major": 7}, "package": ""}, "capabilities": ["oob"]}}' \
	>"$OUT/fuzz_qmp/greeting"
printf '\001FlatView #0\r\n AS "memory", root: system\r\n Root memory region: system\r\n  0000000000000000-000000000009ffff (prio 0, ram): ram\r\n  00000000fed90000-00000000fed9022f (prio 0, i/o): intel_iommu\r\n' \
	>"$OUT/fuzz_qmp/mtree"
printf '\002CPU#0\r\nRAX=0000000000000000\r\nCR0=80050033 CR2=0000000000000000 CR3=0000000000001000 CR4=00000020\r\nEFER=0000000000000d00\r\n' \
	>"$OUT/fuzz_qmp/regs"
printf '\003+$T02thread:01;#04+$mp01.01,p01.02#1f<reg name="TTBR0_EL1" bitsize="64" regnum="146"/><xi:include href="a.xml"/>' \
	>"$OUT/fuzz_qmp/gdb"

# ---- fuzz_armctx: the [arm64] and [smmu] sections of the arm64 and smmu
# fixtures, a NUL, the base and their non-zero descriptors as (u16 index,
# u64 value) records (layout: fuzz_armctx.c)
mkdir -p "$OUT/fuzz_armctx"
for f in arm64-4k arm64-s2 smmu-v3; do
	mkdir -p "$TMP/a-$f"
	tar -xzf "$FIX/$f.tar.gz" -C "$TMP/a-$f"
	mem=$(ls "$TMP/a-$f"/mem/sysmem-*.bin | head -n 1)
	b=0x$(basename "$mem" .bin | sed 's/^sysmem-//')
	{ awk '/^\[(arm64|smmu) / { on = 1 } /^\[memory / { on = 0 } on' "$TMP/a-$f/capture.ini"
	  printf '\0'; printf "$(le64 "$b")"
	  od -An -v -t x8 -w8 "$mem" | awk '$1 != "0000000000000000" { print NR - 1, $1 }' |
		while read -r i v; do printf "$(printf '\\x%02x\\x%02x' $((i & 255)) $((i >> 8)))$(le64 "0x$v")"; done
	} >"$OUT/fuzz_armctx/$f"
	awk '/^\[(arm64|smmu) / { on = 1 } /^\[memory / { on = 0 } on' "$TMP/a-$f/capture.ini" \
		>"$OUT/fuzz_armctx/$f-keys"
done

touch "$STAMP"
