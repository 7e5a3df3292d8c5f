#!/bin/bash
# mkseeds.sh FIXTURES OUTDIR STAMP — seed corpora for the fuzz targets, made
# from the committed fixtures (never by hand, so they follow the fixtures):
#   OUTDIR/fuzz_ini/          every fixture's capture.ini + a few edge files
#   OUTDIR/fuzz_capture/      every fixture archive as it is
#   OUTDIR/fuzz_decode_walk/  80-byte header + a fixture's table memory
#                             (layout: fuzz_decode_walk.c)
#   OUTDIR/fuzz_umr/, fuzz_gem5/  the hand-written umr logs and m5.cpt of
#                             check_tests/src_data/ (issue 13)
# Needs only bash, tar and gzip.
set -euo pipefail
FIX=$1
OUT=$2
STAMP=$3
rm -rf "$OUT"
mkdir -p "$OUT/fuzz_ini" "$OUT/fuzz_capture" "$OUT/fuzz_decode_walk" "$OUT/fuzz_umr" "$OUT/fuzz_gem5"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ptfs-seeds.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# ---- fuzz_capture: the archives themselves
for f in "$FIX"/*.tar "$FIX"/*.tar.gz "$FIX"/*.tar.zst "$FIX"/*.zip; do
	[ -f "$f" ] && cp "$f" "$OUT/fuzz_capture/"
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

# ---- fuzz_umr, fuzz_gem5: the parsers' test data (not fixtures: not mountable yet)
SRC_DATA=$FIX/../check_tests/src_data
cp "$SRC_DATA"/*.log "$SRC_DATA"/*.envdef "$OUT/fuzz_umr/"
cp "$SRC_DATA/m5.cpt" "$OUT/fuzz_gem5/"
cat "$SRC_DATA/m5.cpt" "$SRC_DATA/config.ini" >"$OUT/fuzz_gem5/m5-config"

touch "$STAMP"
