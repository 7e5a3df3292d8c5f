#!/bin/bash
# test_cli_more.sh — ptfs-tool end to end, part 2 (test_cli.sh is part 1):
# maps, info, pa and diff (issue 14), amd-gpuvm, the sources read natively
# (umr logs, gem5 checkpoints), nv-gmmu-ver3 and hopper-mixed, decode
# --oneline, x86-64 and the IOMMU formats.  Same environment and output as
# test_cli.sh (check_tests/meson.build sets it).
set -u
export LC_ALL=C

TOOL=${PTFS_TOOL:?PTFS_TOOL is not set}
FIX=${PTFS_FIXTURES:?PTFS_FIXTURES is not set}
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=${PTFS_CLI_DATA:-$HERE/cli_data}

# ok / bad / report and the scratch directory
. "$(dirname "$0")/mount_lib.sh"
ml_tmpdir cli_more

# run, rc, err, has, js, decoded, walk_expect, export_ok
. "$(dirname "$0")/cli_lib.sh"

# ---- maps, info, pa, diff (issue 14) ----------------------------------------------

# jsl NAME PYEXPR: the last output is JSON lines (keys sorted at every level); j = the list.
jsl() {
	if python3 - "$2" "$TMP/out" >"$TMP/py" 2>&1 <<'EOF'; then ok; else bad "$1: $2 -- $(head -c 300 "$TMP/py") -- $(head -c 600 "$TMP/out")"; fi
import json, sys
expr, path = sys.argv[1], sys.argv[2]
def pairs(kv):
    keys = [k for k, _ in kv]
    if keys != sorted(keys):
        raise SystemExit("keys not sorted: %s" % keys)
    return dict(kv)
j = [json.loads(l, object_pairs_hook=pairs) for l in open(path)]
h = lambda s: int(s, 16)
if not eval(expr):
    raise SystemExit("false")
EOF
}

for c in maps info pa diff; do
	rc "$c --help" 0 "$TOOL" "$c" --help
	run "$TOOL" --help
	has "--help lists $c" "^  $c "
done
TM="$FIX/turing-mixed.tar.gz"
TA="$FIX/turing-mixed-after.tar.gz"
TR="$FIX/turing-mixed-relocated.tar.gz"

# Unfiltered maps and info are the exported (= mounted) files, byte for byte.
for f in "$FIX"/*.tar.gz; do
	name=$(basename "$f" .tar.gz)
	rm -rf "$TMP/mx"
	"$TOOL" export "$f" "$TMP/mx" >/dev/null 2>&1
	for d in "$TMP"/mx/*/; do
		ctx=$(basename "$d")
		[ -f "$d/maps" ] || continue
		"$TOOL" maps "$f" "$ctx" >"$TMP/m1" 2>/dev/null
		if cmp -s "$TMP/m1" "$d/maps"; then ok; else bad "maps $name $ctx differs from the exported maps"; fi
		"$TOOL" info "$f" "$ctx" >"$TMP/i1" 2>/dev/null
		if cmp -s "$TMP/i1" "$d/info"; then ok; else bad "info $name $ctx differs from the exported info"; fi
	done
done

run "$TOOL" maps "$TM" pdb0 --ro
if [ "$RC" = 0 ] && [ "$(wc -l <"$TMP/out")" = 5 ] && ! grep -vq ' read_only' "$TMP/out"; then ok; else bad "maps --ro: $OUT"; fi
run "$TOOL" maps "$TA" pdb0 --ro --range 0x40c000-0x40ffff
if [ "$OUT" = "0x000000040c000-0x000000040d000     4K   4K vidmem  0x0000000010010000 read_only GENERIC_MEMORY" ]; then ok; else bad "maps --ro --range splits the run before merging: $OUT"; fi
run "$TOOL" maps "$TM" pdb0 --ro --space sysmem
if [ "$OUT" = "0x0000000640000-0x0000000650000    64K  64K sysmem  0x0000000240000000 read_only GENERIC_MEMORY" ]; then ok; else bad "maps --ro --space sysmem: $OUT"; fi
run "$TOOL" maps "$TM" pdb0 --page-size 2M --kind GENERIC_MEMORY_COMPRESSIBLE
if [ "$OUT" = "0x0000001000000-0x0000001200000     2M   2M vidmem  0x0000000040200000 read_only GENERIC_MEMORY_COMPRESSIBLE" ]; then ok; else bad "maps --page-size --kind: $OUT"; fi
run "$TOOL" maps "$TM" pdb0 --state not_captured
if [ "$OUT" = "0x0000000a00000-0x0000000c00000     2M    - not_captured
0x0008000000000-0x000c000000000   256G    - not_captured" ]; then ok; else bad "maps --state not_captured: $OUT"; fi
run "$TOOL" maps "$TM" pdb0 --all
has "maps --all: sparse PTE" '^0x0000000406000-0x0000000407000     4K    - sparse$'
has "maps --all: reserved-bit PDE" '^0x0000040000000-0x0000060000000   512M    - reserved_bits$'
has "maps --all: mapped runs kept" '^0x0000000200000-0x0000000400000     2M   2M vidmem '
run "$TOOL" maps "$TM"
has "maps without CONTEXT: context column" '^pdb1 0x0000000000000-0x0000000200000 '
run "$TOOL" maps --json "$TM" pdb0 --ro
jsl "maps --json" 'len(j)==5 and all("read_only" in r["flags"] for r in j) and h(j[0]["va_start"])==0x401000'
err "maps: bad state" E_VALUE "$TOOL" maps "$TM" pdb0 --state mapd
err "maps: bad range" E_VALUE "$TOOL" maps "$TM" pdb0 --range 0x2000-0x1000
err "maps: unknown space" E_VALUE "$TOOL" maps "$TM" pdb0 --space vram
err "maps: unknown context" E_NOTFOUND "$TOOL" maps "$TM" pdb9
run "$TOOL" info "$TM"
if [ "$RC" = 0 ] && grep -q '^# pdb0$' "$TMP/out" && grep -q '^# pdb1$' "$TMP/out"; then ok; else bad "info without CONTEXT: $OUT"; fi
run "$TOOL" info --json "$TM"
jsl "info --json: one object per context" 'len(j)==2'

# pa: aliases within a context and across contexts.
run "$TOOL" pa "$TM" vidmem:0x10001234
if [ "$RC" = 0 ] && [ "$OUT" = "pdb0 0x0000000401234 pde3/0/pde2/0/pde1/0/pde0/2/pte_small/1 read_only
pdb1 0x0000000201234 pde3/0/pde2/0/pde1/0/pde0/1/pte_small/1 read_only
pdb1 0x0000020401234 pde3/0/pde2/0/pde1/1/pde0/2/pte_small/1 read_only" ]; then ok; else bad "pa: three mappings: rc $RC $OUT"; fi
run "$TOOL" pa --json "$TM" sysmem:0x240001000
js "pa --json" 'j["complete"] is True and j["space"]=="sysmem" and [(m["context"],h(m["va"])) for m in j["mappings"]]==[("pdb0",0x641000),("pdb1",0x20641000)] and j["mappings"][0]["path"]=="pde3/0/pde2/0/pde1/0/pde0/3/pte_big/4"'
rc "pa: nothing maps it" 1 "$TOOL" pa "$TM" vidmem:0x10002000
if [ ! -s "$TMP/out" ]; then ok; else bad "pa: no output when nothing maps it: $OUT"; fi
rc "pa: gart sysmem" 0 "$TOOL" pa "$FIX/gart-umr-kat.tar.gz" sysmem:0x223886000
err "pa: no space" E_VALUE "$TOOL" pa "$TM" vram:0x1000
err "pa: bad address" E_VALUE "$TOOL" pa "$TM" vidmem
err "pa: usage" E_USAGE "$TOOL" pa "$TM"

# diff: relocated tables are no mapping change (the roots moved too: a line each says
# so, issue #39 item 8); the four documented changes.
run "$TOOL" diff "$TM" "$TR"
if [ "$RC" = 0 ] && [ "$(sed -n 1,3p "$TMP/out")" = "pdb0 root A vidmem:0x200000 B vidmem:0x300000: the same mappings (the tables moved)
pdb1 root A sysmem:0x100004000 B sysmem:0x110004000: the same mappings (the tables moved)
# tables" ] && ! grep -qE ' (added|removed|remapped|changed) ' "$TMP/out"; then ok; else bad "diff relocated: no mapping change, exit 0: rc $RC $OUT"; fi
has "diff relocated: tables moved" '^pdb0 tables pde3: 1 only in A, 1 only in B, 0 rewritten in place$'
rc "diff of a capture with itself" 0 "$TOOL" diff "$TM" "$TM"
if [ ! -s "$TMP/out" ]; then ok; else bad "diff itself: empty: $OUT"; fi
rc "diff across sources (tar.gz vs directory)" 0 "$TOOL" diff "$TM" "$FIX/turing-mixed.d"
rc "diff across sources (zip)" 0 "$TOOL" diff "$FIX/turing-mixed.zip" "$TM"
run "$TOOL" diff "$TM" "$TA" pdb0
if [ "$RC" = 1 ] && [ "$OUT" = "pdb0 0x0000000200000-0x0000000400000     2M remapped vidmem 0x0000000040000000 -> vidmem 0x0000000040400000
pdb0 0x0000000400000-0x0000000401000     4K removed vidmem 0x0000000010000000 4K - GENERIC_MEMORY
pdb0 0x000000040c000-0x000000040d000     4K changed read_only: 0 -> 1
pdb0 0x0000000860000-0x0000000870000    64K added vidmem 0x0000000021200000 64K - GENERIC_MEMORY
# tables
pdb0 tables pde0: 0 only in A, 0 only in B, 1 rewritten in place
pdb0 tables pte_big: 0 only in A, 0 only in B, 1 rewritten in place
pdb0 tables pte_small: 0 only in A, 0 only in B, 1 rewritten in place" ]; then ok; else bad "diff turing-mixed -> after: rc $RC $OUT"; fi
run "$TOOL" diff "$TM" "$TA"
if [ "$RC" = 1 ] && [ "$(grep -c '^pdb1 0x' "$TMP/out")" = 6 ]; then ok; else bad "diff: pdb1 sees the shared changes twice: $OUT"; fi
run "$TOOL" diff --json "$TM" "$TA" pdb0
jsl "diff --json" '[r["change"] for r in j]==["remapped","removed","changed","added","tables","tables","tables"] and j[2]["fields"]==["read_only"] and h(j[2]["va_start"])==0x40c000 and h(j[0]["old"]["pa"])==0x40000000 and h(j[0]["new"]["pa"])==0x40400000'
"$TOOL" diff --json "$TM" "$TA" >"$TMP/d1"; "$TOOL" diff --json "$TM" "$TA" >"$TMP/d2"
if cmp -s "$TMP/d1" "$TMP/d2"; then ok; else bad "diff --json is deterministic"; fi
# One flipped read_only bit (SPT3[0], only in pdb0): one change naming its VA and the field.
rm -rf "$TMP/flip" && mkdir -p "$TMP/flip" && (cd "$TMP/flip" && tar xzf "$TM")
python3 - "$TMP/flip/mem/sysmem-100000000.bin" <<'EOF'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[0x2000] ^= 0x40   # SPT3 entry 0, bit 6: read_only (dev_mmu.ref.txt NV_MMU_VER2_PTE_READ_ONLY)
open(p, "wb").write(b)
EOF
run "$TOOL" diff "$TM" "$TMP/flip"
if [ "$RC" = 1 ] && [ "$OUT" = "pdb0 0x0000020000000-0x0000020001000     4K changed read_only: 0 -> 1
# tables
pdb0 tables pte_small: 0 only in A, 0 only in B, 1 rewritten in place" ]; then ok; else bad "diff one flipped read_only: rc $RC $OUT"; fi
run "$TOOL" diff "$TM" "$FIX/gart-umr-kat.tar.gz"
if [ "$RC" = 1 ] && grep -q '^pdb0 only in A$' "$TMP/out" && grep -q '^gart0 only in B$' "$TMP/out"; then ok; else bad "diff: contexts only in one: rc $RC $OUT"; fi
err "diff: no such context" E_NOTFOUND "$TOOL" diff "$TM" "$TA" pdb9
err "diff: usage" E_USAGE "$TOOL" diff "$TM"

# ---- amd-gpuvm: decode with roles and levels, walk, audit, check, export ---------------

G9=$FIX/amd-gfx9-vm.tar.gz
decoded "gpuvm: PDE0 with BFS 9 at pdb0 (B-E04)" \
	'j["state"]=="pointer" and j["block_fragment_size"]==9 and j["address"]=="0x7fea04000"' \
	--format amd-gpuvm --value 0x48000007fea04001 --level pdb0
decoded "gpuvm: PDE-as-PTE at pdb0 (B-E10)" \
	'j["state"]=="mapped" and j["pte"]==1 and j["writeable"]==0' \
	--format amd-gpuvm --value 0x00400000bda004b1 --level pdb0
decoded "gpuvm: ptb leaf (B-E06)" \
	'j["state"]=="mapped" and j["mtype_name"]=="UC"' \
	--format amd-gpuvm --value 0x0600000ec9cb0077 --level ptb
decoded "gpuvm: ptb_further by depth 4" 'j["state"]=="mapped"' \
	--format amd-gpuvm --value 0x0600000ec9cb0077 --level 4
decoded "gpuvm: --role pte" 'j["state"]=="mapped"' \
	--format amd-gpuvm --value 0x0600000ec9cb0077 --role pte
decoded "gpuvm: --role pde" 'j["state"] in ("pointer","mapped","unsupported")' \
	--format amd-gpuvm --value 0x0000000000101001 --role pde
decoded "gpuvm: zero" 'j["state"]=="unmapped"' --format amd-gpuvm --value 0 --level ptb
err "gpuvm: no dual role" E_UNSUPPORTED "$TOOL" decode --format amd-gpuvm --value 1 --role dual
run "$TOOL" walk "$G9" gfx.2 0x200020
if [ "$RC" = 0 ] && grep -q '^ptb_further\[0\]' "$TMP/out" &&
	grep -q 'result: mapped pa=sysmem:0xec9cb0020 page=4K' "$TMP/out"; then ok; else bad "gpuvm walk through translate_further: $OUT"; fi
run "$TOOL" walk --json "$G9" gfx.1 0x201234
js "gpuvm walk --json: 2 MiB PDE-as-PTE less FB_OFFSET" 'j["result"]["pa"]=="0x201234" and j["result"]["space"]=="vram"'
run "$TOOL" check "$G9"
# ptb/7, 8, 10 (unsupported, reserved bits), ptb/11 (unusual, its table not captured) and the uncaptured PTB: exit 1.
if [ "$RC" = 1 ] && grep -q '2 contexts, 6 anomalies, 0 warnings' "$TMP/out"; then ok; else bad "gpuvm check: rc $RC $OUT"; fi
printf '0x200000 8K rw 0xec9cb0000\n0x0 2M r\n' >"$TMP/g.legs"
run "$TOOL" audit "$G9" gfx.2 "$TMP/g.legs"
if [ "$RC" = 0 ]; then ok; else bad "gpuvm audit: rc $RC $OUT $ERR"; fi
run "$TOOL" export "$FIX/amd-gfx12-vm.tar.gz" "$TMP/g12"
if [ "$RC" = 0 ] && grep -q '^mtype: 3$' "$TMP/g12/gfx.1/pdb2/0/pdb1/0/pdb0/0/ptb/0" &&
	[ -L "$TMP/g12/gfx.1/va/0x000000410000" ]; then ok; else bad "gpuvm export gfx12: rc $RC $ERR"; fi
# ---- sources read natively: umr logs, gem5 checkpoints (issue #13) --------------------

UMR=$FIX/umr-gfx9-gart.envdef
CPT=$FIX/gem5-m5out/cpt.1234
for src in "$UMR" "$CPT"; do
	n=$(basename "$src")
	rc "check $n" 0 "$TOOL" check "$src"
	has "check $n: one context" ": 1 context, 0 anomalies"
	run "$TOOL" check --json "$src"
	js "check --json $n" '[c["context"] for c in j["contexts"]]==["vmid0"]'
	rc "walk $n" 0 "$TOOL" walk "$src" vmid0 0x1000
	has "walk $n: context vmid0" '^context: vmid0$'
	rc "export $n" 0 "$TOOL" export "$src" "$TMP/exp-src-$n"
	if grep -q '^source_kind: ' "$TMP/exp-src-$n/capture"; then ok; else bad "export $n: capture has no source_kind"; fi
	printf '0x1000 1 r\n' >"$TMP/src.legs"
	run "$TOOL" audit "$src" vmid0 "$TMP/src.legs"
	if [ "$RC" = 0 ] || [ "$RC" = 1 ]; then ok; else bad "audit $n: exit $RC: $ERR"; fi
	rc "--gfx 9 accepted by walk on $n" 0 "$TOOL" walk --gfx 9 "$src" vmid0 0x1000
done
grep -q '^source_kind: umr log$' "$TMP/exp-src-umr-gfx9-gart.envdef/capture" && ok || bad "umr: source_kind: umr log"
grep -q '^source_kind: gem5 checkpoint$' "$TMP/exp-src-cpt.1234/capture" && ok || bad "gem5: source_kind: gem5 checkpoint"
grep -q '^x-from-VM_CONTEXT0_PAGE_TABLE_BASE_ADDR: umr-gfx9-gart.envdef:7+8$' "$TMP/exp-src-umr-gfx9-gart.envdef/vmid0/info" &&
	ok || bad "umr info: BASE comes from lines 7+8: $(grep x-from "$TMP/exp-src-umr-gfx9-gart.envdef/vmid0/info")"
grep -q '^x-from-VM_CONTEXT0_PAGE_TABLE_END_ADDR: not in the log' "$TMP/exp-src-umr-gfx9-gart.envdef/vmid0/info" &&
	ok || bad "umr info: the missing END is said"
run "$TOOL" check "$UMR"
cat "$TMP/out" "$TMP/err" | grep -q 'warning: .*VM_CONTEXT0_PAGE_TABLE_END_ADDR not in the log' && ok || bad "umr: missing END warned: $ERR"
err "--gfx 13" E_USAGE "$TOOL" check --gfx 13 "$UMR"
err "--gfx without a value" E_USAGE "$TOOL" check "$UMR" --gfx
# A log whose names do not tell the generation, with a VMID >= 1: --gfx is needed (or the format is missing).
printf 'MMIO@0xa3c4={0x80100001}\nMMIO@0xa3c8={0x0}\nMMIO@0xa444={0x0}\nMMIO@0xa448={0x0}\nMMIO@0xa20c={0x7ffe07}\n' >"$TMP/noname.log"
err "umr registers without names need --gfx" E_USAGE "$TOOL" check "$TMP/noname.log"
if grep -q 'noname.log: MMIO names do not tell the GFX generation: pass -o gfx=9|10|11|12' "$TMP/err"; then ok; else bad "noname.log: $ERR"; fi
# With the generation the addresses are known; END is missing: that VMID is reported, not guessed.
err "noname.log --gfx 9: no readable context" E_CAPTURE "$TOOL" check --gfx 9 "$TMP/noname.log"
if grep -q 'vmid3: page table END registers not in the log' "$TMP/err"; then ok; else bad "noname.log --gfx 9: $ERR"; fi
# GCVM_ names say "gfx10 or later"; their addresses are gfx10's, so they tell it; --gfx /
# --asic say it outright (docs/design.md §3.1).  An incomplete MM hub VMID is a warning.
SRCD=$HERE/src_data
for how in "" "--gfx 10" "--asic navi10" "--asic=sienna_cichlid"; do
	# shellcheck disable=SC2086
	run "$TOOL" check $how "$SRCD/gfx10-vmid1.log"
	if [ "$RC" = 1 ] && grep -q 'mmhub.vmid1: page table START registers not in the log: no context' "$TMP/out" &&
		grep -q ': 1 context, ' "$TMP/out"; then ok; else bad "gfx10 log $how: rc $RC $OUT $ERR"; fi
done
err "--asic of no umr ASIC" E_USAGE "$TOOL" check --asic navi99 "$SRCD/gfx10-vmid1.log"
err "--asic of a gfx8 ASIC" E_USAGE "$TOOL" check --asic polaris11 "$SRCD/gfx10-vmid1.log"
err "--asic disagreeing with --gfx" E_USAGE "$TOOL" check --gfx 9 --asic navi10 "$SRCD/gfx10-vmid1.log"
# An archive of a checkpoint directory is a gem5 checkpoint too.
tar -C "$FIX/gem5-m5out" -czf "$TMP/cpt.tar.gz" cpt.1234
rc "gem5 checkpoint in a .tar.gz: walk" 0 "$TOOL" walk "$TMP/cpt.tar.gz" vmid0 0x1000
has "gem5 archive: the vram page" '^result: mapped pa=vram:0x123000 '
rc "gem5 checkpoint in a .tar.gz: export" 0 "$TOOL" export "$TMP/cpt.tar.gz" "$TMP/exp-cpt-tgz"
grep -q '^source_kind: gem5 checkpoint$' "$TMP/exp-cpt-tgz/capture" && ok || bad "gem5 archive: source_kind"
# Recognised by content, not by name.
cp "$UMR" "$TMP/capture.tar.gz"
rc "a umr log named .tar.gz is still a umr log" 0 "$TOOL" walk "$TMP/capture.tar.gz" vmid0 0x444000
# Disagreeing re-reads are an error naming both lines.
{ cat "$UMR"; printf 'VRAM@0x902220={0000000000000000}\n'; } >"$TMP/conflict.envdef"
err "umr: conflicting re-read" 'E_[A-Z]+' "$TOOL" check "$TMP/conflict.envdef"

# ---- decode --value: nv-gmmu-ver3 (formats-next.md §V.A) ----------------------------

# N-P06: valid, sys_coherent, PCF 0x11, kind 6, address 0x9999999999000 (composed from its fields).
V=$(printf '0x%016x' $(( 0x9999999999000 | (6 << 8) | (0x11 << 3) | (2 << 1) | 1 )))
[ "$V" = 0x000999999999968d ] && ok || bad "ver3: N-P06 composes to $V"
decoded "ver3 PTE N-P06" 'j["format"]=="nv-gmmu-ver3" and j["level"]=="pte_small" and j["state"]=="mapped" and j["aperture_name"]=="sys_coherent" and h(j["pcf"])==0x11 and j["pcf_name"]=="REGULAR_RW_ATOMIC_UNCACHED_ACD" and j["uncached"]==1 and j["access_counting_disabled"]==1 and j["read_only"]==0 and j["no_atomic"]==0 and j["privileged"]==0 and j["kind_name"]=="GENERIC_MEMORY" and h(j["address"])==0x9999999999000 and h(j["page_size"])==0x1000' \
	--value "$V" --format nv-gmmu-ver3 --level pte_small
# N-P14 (UVM poison): all five PCF meanings; text rendering.
run "$TOOL" decode --value 0x0000002BAD0006F9 --format nv-gmmu-ver3 --level pte_small
has "ver3 text pcf_name" '^pcf_name: PRIVILEGE_RO_NO_ATOMIC_UNCACHED_ACD$'
has "ver3 text privileged" '^privileged: 1$'
has "ver3 text address" '^address: 0x2bad000000$'
# N-P03 in a 64K table: no_valid_4k; N-P04: MAPPING_NOWHERE is unsupported.
decoded "ver3 big PTE N-P03" 'j["state"]=="no_valid_4k" and j["pcf_name"]=="NO_VALID_4KB_PAGE" and h(j["page_size"])==0x10000' \
	--value 0x18 --format nv-gmmu-ver3 --level pte_big
decoded "ver3 PTE N-P04" 'j["state"]=="unsupported" and j["pcf_name"]=="MAPPING_NOWHERE"' \
	--value 0x10 --format nv-gmmu-ver3 --level pte_small
# N-P12: peer 1.
decoded "ver3 PTE N-P12 peer" 'j["aperture_name"]=="peer" and j["peer_id"]==1 and h(j["address"])==0xbbbbbbb000 and j["read_only"]==1' \
	--value 0x200000BBBBBBB663 --format nv-gmmu-ver3 --role pte --level pte_small
# N-D11 at pde1: a 512 MiB leaf; at pde3: unsupported.
decoded "ver3 PD1 leaf N-D11" 'j["level"]=="pde1" and j["is_pte"]==1 and j["state"]=="mapped" and h(j["page_size"])==0x20000000 and h(j["address"])==0x20000000' \
	--value 0x20000601 --format nv-gmmu-ver3 --level pde1
decoded "ver3 PD3 IS_PTE N-D11" 'j["level"]=="pde3" and j["state"]=="unsupported"' \
	--value 0x20000601 --format nv-gmmu-ver3 --level pde3
# N-D02 at pde2: sparse PDE; N-D07 with --role pde at depth 1 (pde3): a video pointer.
decoded "ver3 PDE N-D02 sparse" 'j["state"]=="sparse" and j["pcf_name"]=="SPARSE_ATS_ALLOWED"' \
	--value 0x8 --format nv-gmmu-ver3 --role pde --level pde2
decoded "ver3 PDE N-D07 pointer" 'j["level"]=="pde3" and j["state"]=="pointer" and j["aperture_name"]=="video" and j["pcf_name"]=="VALID_CACHED_ATS_NOT_ALLOWED" and j["no_ats"]==1 and h(j["address"])==0x7ff000' \
	--value 0x00000000007FF012 --format nv-gmmu-ver3 --role pde --level 1
# N-Q03 as a dual PDE: both halves.
decoded "ver3 dual N-Q03" 'j["level"]=="pde0" and j["state"]=="pointer" and j["aperture_big_name"]=="sys_coherent" and h(j["address_big"])==0x9999999999900 and j["aperture_small_name"]=="video" and h(j["address_small"])==0xbbbbbbb000 and j["pcf_small_name"]=="VALID_UNCACHED_ATS_ALLOWED"' \
	--value 0x000000BBBBBBB00A000999999999990C --format nv-gmmu-ver3 --role dual
# N-Q08: the 2 MiB PTE of a PD0 slot.
decoded "ver3 PD0 leaf N-Q08" 'j["level"]=="pde0" and j["state"]=="mapped" and h(j["page_size"])==0x200000 and h(j["address"])==0x400200000' \
	--value 0x0000000400200601 --format nv-gmmu-ver3 --level pde0
# Levels by depth: 0-5; 6 is outside.
err "ver3 depth 6 is outside" E_UNSUPPORTED "$TOOL" decode --value 1 --format nv-gmmu-ver3 --level 6
if grep -q 'depth 0-5' "$TMP/err"; then ok; else bad "ver3: depth range in the error: $ERR"; fi


# ---- hopper-mixed (nv-gmmu-ver3): walk, decode, audit, check, export -------------
# (every VA of hopper-mixed.expect is walked above; these are the VER3 specifics)
HM=$FIX/hopper-mixed.tar.gz
rc "walk hopper-mixed 57-bit VA" 0 "$TOOL" walk "$HM" hopper0 0x100000000005123
has "ver3 walk: 15-digit VA" '^va: 0x100000000005123$'
has "ver3 walk: 6 tables through a sysmem PD3..PT" '^result: mapped pa=vidmem:0x10300123 page=4K flags=- kind=GENERIC_MEMORY leaf=pde4/1/pde3/0/pde2/0/pde1/0/pde0/0/pte_small/5$'
rc "walk: all five PCF words fit the FLAGS column" 0 "$TOOL" walk "$HM" hopper0 0x5ff000
has "ver3 walk: every flag word" 'flags=read_only,no_atomic,privileged,uncached,access_counting_disabled '
rc "walk hopper0 256G" 0 "$TOOL" walk --json "$HM" hopper0 0x4000000000
js "gh100: a 256 GiB PTE at PD2 is unsupported" 'j["result"]["fault"]=="unsupported" and j["result"]["level"]=="pde2"'
rc "walk blackwell0 256G" 0 "$TOOL" walk --json "$HM" blackwell0 0x4123456789
js "gb100: the same raw entry maps 256 GiB" 'j["result"]["status"]=="mapped" and h(j["result"]["page_size"])==1<<38 and h(j["result"]["pa"])==0x4123456789'
rc "walk hopper0 past 57 bits" 0 "$TOOL" walk "$HM" hopper0 0x200000000000000
has "ver3: 2^57 is out of range" '^result: fault=out_of_range'
decoded "ver3 256G leaf without a context: the superset maps it" 'j["state"]=="mapped" and h(j["page_size"])==1<<38' \
	--format nv-gmmu-ver3 --value 0x4000000601 --level pde2
printf '0x44a000 4K atomic\n0x44a000 4K w\n0x444000 4K w\n0x442000 4K r\n0x448000 4K atomic\n0x40200000 4K rw 0x40600000\n0x4000000000 4K r\n' >"$TMP/hm.legs"
run "$TOOL" audit "$HM" hopper0 "$TMP/hm.legs"
if [ "$RC" = 1 ]; then ok; else bad "audit hopper-mixed: exit $RC, want 1 ($ERR)"; fi
has "ver3 audit: atomic on a no_atomic privileged page" ':1 0x00000000044a000 4K atomic access_denied vidmem 0x1000a000 no_atomic,privileged$'
has "ver3 audit: write to a privileged page" ':2 0x00000000044a000 4K w access_denied vidmem 0x1000a000 privileged$'
has "ver3 audit: read_only" ':3 0x000000000444000 4K w access_denied vidmem 0x10004000 read_only$'
has "ver3 audit: atomic on no_atomic" ':5 0x000000000448000 4K atomic access_denied vidmem 0x10008000 no_atomic$'
has "ver3 audit: 2M page, expected PA" ':6 0x000000040200000 2M rw ok vidmem 0x40600000$'
has "ver3 audit: Hopper 256G" ':7 0x000004000000000 256G r unmapped - - unsupported '
hasnt "ver3 audit: no VER2 reason names" 'atomic_disable|privilege$|privilege,'
rc "ver3 audit --privileged" 1 "$TOOL" audit --privileged "$HM" hopper0 "$TMP/hm.legs"
has "ver3 audit --privileged: write ok" ':2 0x00000000044a000 4K w ok '
run "$TOOL" check "$HM"
if [ "$RC" = 1 ]; then ok; else bad "check hopper-mixed: exit $RC, want 1 ($ERR)"; fi
has "ver3 check: Hopper's 256G leaf" '^hopper0 pde4/0/pde3/0/pde2/1 unsupported '
hasnt "ver3 check: Blackwell's is none" '^blackwell0 .*pde2/1 '
has "ver3 check: MAPPING_NOWHERE" '^hopper0 pde4/0/pde3/0/pde2/0/pde1/0/pde0/2/pte_small/98 unsupported '
has "ver3 check: reserved bit of a PTE" '^hopper0 [^ ]+/pte_small/101 reserved_bits '
has "ver3 check: summary" "^$HM: 2 contexts, 6 anomalies, 0 warnings$"
rc "export hopper-mixed" 0 "$TOOL" export "$HM" "$TMP/hm.x"
if [ -L "$TMP/hm.x/hopper0/va/0x100000000005000" ] && [ -L "$TMP/hm.x/blackwell0/va/0x000004000000000" ]; then ok; else bad "ver3 export: va/ links of 15 digits: $(ls "$TMP/hm.x/hopper0/va" | tail -3)"; fi
if ls "$TMP/hm.x/hopper0/va" | grep -qvE '^0x[0-9a-f]{15}$'; then bad "ver3 export: a va/ name not 15 hex digits"; else ok; fi
if grep -qx 'family: hopper' "$TMP/hm.x/hopper0/info" && grep -qx 'chip: gb100' "$TMP/hm.x/blackwell0/info"; then ok; else bad "ver3 export: info chip/family: $(cat "$TMP/hm.x/hopper0/info")"; fi

# ---- gem5: a VMID > 0 root in ptBase makes an amd-gpuvm context (issue 13) ----
# gem5 saves only the root of such a VM: the context takes gem5's model
# (4 levels over the 48-bit VA, block size 0) and says so in info.
cp -r "$FIX/gem5-m5out" "$TMP/g5vm"
sed -i 's/^ptBase=.*/ptBase=0 1048577 0 0 0 0 0 0 0 0 0 0 0 0 0 0/' "$TMP/g5vm/cpt.1234/m5.cpt"
rc "gem5 ptBase[1]: loads (check exits 0 or 1, not 2)" 1 "$TOOL" check "$TMP/g5vm/cpt.1234"
run "$TOOL" info "$TMP/g5vm/cpt.1234" vmid1
has "gem5 ptBase[1]: an amd-gpuvm context" '^format: amd-gpuvm$'
has "gem5 ptBase[1]: gem5's depth" '^page_table_depth: 3$'
has "gem5 ptBase[1]: the root from ptBase" '^root: vram:0x100000$'
has "gem5 ptBase[1]: info says where the geometry comes from" '^x-geometry: gem5 model'

# decode has no context to carry --gfx: refused, never ignored.
err "decode --gfx: refused" E_UNSUPPORTED "$TOOL" decode --gfx 12 --format amd-gpuvm --level ptb --value 0x00C0000123456077
# ---- decode --oneline (issue #15.4) --------------------------------------------
# Every table of turing-mixed (found through export's entry files), cut out of
# the fixture's memory files: the --oneline columns equal the full decode's
# fields for every entry, and --json --oneline is the full JSON's entries, one
# per line, byte for byte.
rc "oneline: export turing-mixed" 0 "$TOOL" export "$FIX/turing-mixed.tar" "$TMP/ol.x"
python3 - "$TOOL" "$FIX/turing-mixed.d" "$TMP/ol.x" "$TMP" >"$TMP/ol.out" 2>&1 <<'EOF2'
import json, os, re, subprocess, sys
tool, capdir, xdir, tmp = sys.argv[1:5]
size = {"pde3": 8, "pde2": 8, "pde1": 8, "pde0": 16, "pte_big": 8, "pte_small": 8}
count = {"pde3": 4, "pde2": 512, "pde1": 512, "pde0": 256, "pte_big": 32, "pte_small": 512}
mem, sec = [], {}
for line in open(os.path.join(capdir, "capture.ini")):
    line = line.strip()
    if line.startswith("["):
        sec = {"name": line}
        if line.startswith("[memory"):
            mem.append(sec)
    elif "=" in line:
        k, v = [x.strip() for x in line.split("=", 1)]
        sec[k] = v
tables = set()
for root, dirs, files in os.walk(xdir):
    for f in files:
        p = os.path.join(root, f)
        if os.path.islink(p) or not (f == "entry" or f.isdigit()):
            continue
        kv = dict(l.split(": ", 1) for l in open(p).read().splitlines() if ": " in l)
        if kv.get("level") in size:
            lv = kv["level"]
            base = int(kv["entry_address"], 16) - int(kv["index"]) * size[lv]
            tables.add((lv, kv["entry_space"], base))
def blob(space, base, n):
    for m in mem:
        b = int(m["base"], 16)
        if m["space"] == space and b <= base and base + n <= b + os.path.getsize(os.path.join(capdir, m["file"])):
            with open(os.path.join(capdir, m["file"]), "rb") as fh:
                fh.seek(base - b)
                return fh.read(n)
    raise SystemExit("no memory for %s 0x%x" % (space, base))
def space_of(ap_name, peer):
    return {"video": "vidmem", "peer": "peer%d" % peer}.get(ap_name, "sysmem")
bad, seen = 0, 0
for lv, space, base in sorted(tables):
    path = os.path.join(tmp, "ol.bin")
    open(path, "wb").write(blob(space, base, size[lv] * count[lv]))
    args = [tool, "decode", "--blob", path, "--base-pa", hex(base), "--level", lv]
    full = subprocess.run(args + ["--json"], capture_output=True, text=True, check=True).stdout
    ents = json.loads(full)["entries"]
    lines = subprocess.run(args + ["--oneline"], capture_output=True, text=True, check=True).stdout.splitlines()
    jl = subprocess.run(args + ["--oneline", "--json"], capture_output=True, text=True, check=True).stdout
    body = full[len('{"entries": ['):full.rindex('], "levels_fit"')]
    if jl != body.replace("},\n{", "}\n{") + "\n":
        print("%s 0x%x: JSON lines differ from the full decode's entries" % (lv, base)); bad += 1
    if len(lines) != len(ents):
        print("%s 0x%x: %d lines for %d entries" % (lv, base, len(lines), len(ents))); bad += 1
    for line, j in zip(lines, ents):
        seen += 1
        c = line.split(" ")
        want = [str(j["index"]), j["raw"], j["state"]]
        if j["state"] == "mapped":
            flags = [w for w in ("read_only", "atomic_disable", "privilege", "volatile", "encrypted") if j.get(w) == 1]
            want += [space_of(j["aperture_name"], j["peer_id"]) + ":" + j["address"], j["page_size"],
                     ",".join(flags) or "-", j["kind_name"] or "0x%02x" % int(j["kind"], 16)]
        elif j["state"] == "pointer":
            if "address_big" in j:
                t = [space_of(j[a + "_name"], 0) + ":" + j[x] if j[a] else "-"
                     for a, x in (("aperture_big", "address_big"), ("aperture_small", "address_small"))]
                want += [",".join(t)]
            else:
                want += [space_of(j["aperture_name"], 0) + ":" + j["address"]]
            want += ["-", "-", "-"]
        else:
            want += ["-"] * 4
        if c != want:
            print("%s 0x%x: %r, want %r" % (lv, base, line, " ".join(want))); bad += 1
print("tables=%d entries=%d bad=%d" % (len(tables), seen, bad))
EOF2
if grep -q ' bad=0$' "$TMP/ol.out" && ! grep -q 'tables=0 ' "$TMP/ol.out"; then ok; else bad "decode --oneline vs the full decode: $(head -c 1500 "$TMP/ol.out")"; fi
rc "oneline needs a blob" 2 "$TOOL" decode --value 0x1 --oneline
rc "oneline: a blob that is no whole table" 2 "$TOOL" decode --blob "$TMP/ol.bin" --base-pa 0x1008 --oneline

# Every word of a walk trace is a field name: an AMD KIND is its mtype.
run "$TOOL" walk "$FIX/umr-gfx9-vmid3.log" vmid3 0x800000abc
has "amd walk: the kind is labelled mtype=" ' mtype=UC leaf='

# ---- x86-64 (docs/design.md §2.5): every level decodes, canonical VAs, effective rights --------
X4=$FIX/x86-64-4level.tar.gz
X5=$FIX/x86-64-5level.tar.gz
for lv in pml5:0x0000000001000003:pointer pml4:0x0000000012345067:pointer pdpt:0x80000000c00000e3:mapped \
	pd:0x00000000002001e3:mapped pt:0x8000000000001163:mapped pt:0x0000000012345120:invalid; do
	IFS=: read -r l v st <<<"$lv"
	run "$TOOL" decode --format x86-64 --level "$l" --value "$v"
	has "x86 decode $l $v" "^state: $st$"
done
run "$TOOL" decode --format x86-64 --level pml4 --value 0x0000000012345087
has "x86 decode: PS in a PML4E is reserved" '^reserved_mask: 0x80$'
run "$TOOL" walk --json "$X4" cpu0 0x0000800000000000 0xffff888040201abc
js "x86 walk: non-canonical faults before any read, a kernel VA maps" 'j[0]["result"]["fault"]=="noncanonical" and j[0]["steps"]==[] and h(j[1]["result"]["pa"])==0xfedabc and j[1]["result"]["flags"]==["writable","pwt","pcd","xd"]'
run "$TOOL" walk "$X5" cpu0 0xff11000012345678
has "x86 5-level walk: the V.C index vector" '^pml5\[273\] .*pointer$'
has "x86 5-level walk: PA" '^result: mapped pa=sysmem:0x12345678 page=4K '
run "$TOOL" maps "$X4" cpu0 --ro
has "x86 maps --ro: effective read-only (RW=1 leaf under a RW=0 PDE)" '^0x0000000000800000-0x0000000000801000 +4K +4K sysmem +0x0000000000300000 user -$'
hasnt "x86 maps --ro: writable pages left out" 'writable'
run "$TOOL" maps "$X4" cpu0
has "x86 maps: unsigned order, the top page's end wraps" '^0xfffffffffffff000-0x0000000000000000 '
has "x86 maps: effective xd from the PML4E" '^0x00007fffffe00000-0x0000800000000000 .* writable,user,xd -$'
printf '0x800000 4K w\n0x1000 4K w 0x200000\n0xffff888040200000 4K r\n0x0000800000000000 4K r\n' >"$TMP/x86.legs"
rc "x86 audit: denied, ok, kernel, non-canonical" 1 "$TOOL" audit --json "$X4" cpu0 "$TMP/x86.legs"
js "x86 audit verdicts" '[p["verdict"] for p in j["results"]]==["access_denied","ok","access_denied","unmapped"] and j["results"][0]["reason"]=="writable=0" and j["results"][2]["reason"]=="user=0" and j["results"][3]["reason"]=="noncanonical"'
rc "x86 audit --privileged: the kernel page reads" 1 "$TOOL" audit --json --privileged "$X4" cpu0 "$TMP/x86.legs"
js "x86 audit --privileged verdicts" '[p["verdict"] for p in j["results"]][:3]==["access_denied","ok","ok"]'
rc "x86 check: reserved bits are anomalies" 1 "$TOOL" check "$X4"
has "x86 check: above MAXPHYADDR" '^cpu0 pml4/0/pdpt/0/pd/0/pt/6 reserved_bits reserved_mask: 0x800000000000$'
has "x86 check: XD without NXE" '^nonx pml4/273/pdpt/0 reserved_bits reserved_mask: 0x8000000000000000$'
run "$TOOL" info --json "$X5" cpu0
js "x86 info: LA57, NXE taken as 1" 'j["paging"]=="5-level" and j["la57"] is True and j["nxe"] is True and j["nxe_assumed"] is True and j["efer"] is None'
run "$TOOL" info "$X4" cpu0
has "x86 info: PCID masked out of CR3" '^pcid: 0x5$'
has "x86 info: root" '^root: sysmem:0x100000$'
run "$TOOL" pa "$X4" sysmem:0x200345
has "x86 pa: the shared kernel page in all three contexts" '^nonx 0xffff888040000345 '
has "x86 pa: cpu0" '^cpu0 0xffff888040000345 pml4/273/pdpt/1/pd/0 '
rc "x86 diff: a capture against itself" 0 "$TOOL" diff "$X4" "$X4"

# export goes on where a listing call stopped: one call of a huge va/ reads a
# bounded number of entries (as one FUSE readdir); 70000 pages need two calls.
if [ -x "${PTFS_MKBIG:-}" ]; then
	"$PTFS_MKBIG" --entries 70000 --contexts 1 --mix 4k:100 "$TMP/big.tar" >"$TMP/big.kv"
	rm -rf "$TMP/bigx"
	rc "export of a 70000-page capture" 0 "$TOOL" export "$TMP/big.tar" "$TMP/bigx"
	n=$(ls -f "$TMP/bigx/pdb0/va" | grep -c '^0x')
	want=$(sed -n 's/^leaf_entries=//p' "$TMP/big.kv")
	if [ "$n" = "$want" ] && [ "$n" -gt 65536 ]; then ok; else bad "export of a 70000-page va/: $n links, want $want"; fi
	rm -rf "$TMP/bigx" "$TMP/big.tar"
else
	bad "PTFS_MKBIG is not set: the large export is not tested"
fi


# ---- intel-vtd, intel-ept, amd-vi: decode at every level (reference §V.D-§V.F) ---------------
for l in pml5 pml4; do
	decoded "vtd: $l pointer (D05 shape)" 'j["state"]=="pointer" and j["address"]=="0x12346000"' \
		--format intel-vtd --value 0x0000000012346003 --level $l
done
decoded "vtd: pdpt 1G with SNP (D07)" 'j["state"]=="mapped" and j["snp"]==1 and j["page_size"]=="0x40000000"' \
	--format intel-vtd --value 0x00000000C0000883 --level pdpt
decoded "vtd: pd 2M (D06)" 'j["state"]=="mapped" and j["ps"]==1 and j["page_size"]=="0x200000"' \
	--format intel-vtd --value 0x0000000080200083 --level pd
decoded "vtd: pt 4K (D04)" 'j["state"]=="mapped" and j["address"]=="0x87654000"' \
	--format intel-vtd --value 0x0000000087654003 --level pt
decoded "vtd: PS in pml4 reserved (D10)" 'j["reserved_mask"]=="0x80"' \
	--format intel-vtd --value 0x0000000012347083 --level pml4
for l in pml5 pml4 pdpt pd; do
	decoded "ept: $l pointer (F03 shape)" 'j["state"]=="pointer"' \
		--format intel-ept --value 0x0000000012346007 --level $l
done
decoded "ept: pt 4K WB IPAT (F04)" 'j["state"]=="mapped" and j["memory_type_name"]=="WB" and j["ignore_pat"]==1' \
	--format intel-ept --value 0x0000000087654077 --level pt
decoded "ept: pd 2M (F05)" 'j["page_size"]=="0x200000"' --format intel-ept --value 0x00000000802000F7 --level pd
decoded "ept: pdpt 1G A D (F06)" 'j["accessed"]==1 and j["dirty"]==1' \
	--format intel-ept --value 0x00000000C00003F7 --level pdpt
decoded "ept: write-only misconfigured (F07)" 'j["state"]=="unsupported" and j["misconfigured"]' \
	--format intel-ept --value 0x0000000087654002 --level pt
decoded "amd-vi: l6 pointer" 'j["state"]=="pointer" and j["next_level"]==5' \
	--format amd-vi --value 0x6000000012341a01 --level l6
decoded "amd-vi: l5 pointer" 'j["state"]=="pointer"' --format amd-vi --value 0x6000000012341801 --level l5
decoded "amd-vi: l4 pointer skipping l3 (E10)" 'j["state"]=="pointer" and j["skipped_levels"]==1 and j["next_level"]==2' \
	--format amd-vi --value 0x6000000012342401 --level l4
decoded "amd-vi: l3 pointer (E04)" 'j["state"]=="pointer" and j["address"]=="0x12341000"' \
	--format amd-vi --value 0x6000000012341401 --level l3
decoded "amd-vi: l2 NL 7 4M (E09)" 'j["state"]=="mapped" and j["page_size"]=="0x400000" and j["address"]=="0x400000"' \
	--format amd-vi --value 0x70000000005FFE01 --level l2
decoded "amd-vi: l1 4K FC (E05)" 'j["state"]=="mapped" and j["fc"]==1 and j["ir"]==1 and j["iw"]==1' \
	--format amd-vi --value 0x7000000087654001 --level l1
# check: the fixtures' deliberate anomalies, one line each (exit 1)
rc "vtd-sl: check reports its anomalies" 1 "$TOOL" check "$FIX/vtd-sl.tar.gz"
has "vtd-sl: PS in a PML4E" '^gpu0 pml4/1 reserved_bits reserved_mask: 0x80$'
rc "ept-guest: check reports its anomalies" 1 "$TOOL" check "$FIX/ept-guest.tar.gz"
has "ept-guest: write-only is a misconfiguration" '^vm0 pml4/0/pdpt/0/pd/0/pt/1 unsupported raw: 0x87655002$'
rc "amdvi-v1: check reports its anomalies" 1 "$TOOL" check "$FIX/amdvi-v1.tar.gz"
run "$TOOL" walk "$FIX/amdvi-v1.tar.gz" ssd0 0x8040000000
has "amdvi-v1: a level-skipping PDE faults an IOVA whose skipped bits are not 0" "^l4\\[1\\] sysmem:0x303008 raw=0x6000000000306401 pointer: skipped levels' VA bits not zero$"
run "$TOOL" walk "$FIX/amdvi-v1.tar.gz" gpu0 0xd040
has "amd-vi walk through an NL 7 replica" '^result: mapped pa=sysmem:0x45040 page=32K flags=ir,iw,fc kind=- leaf=l3/0/l2/0/l1/8$'

# arm-smmuv3 (issue #23 item 2): the arm64 descriptors at every level, alone; the fixture's streams
decoded "arm-smmuv3: l0 table" 'j["state"]=="pointer" and j["address"]=="0x101000"' \
	--format arm-smmuv3 --value 0x0000000000101003 --level l0
decoded "arm-smmuv3: l1 1G block" 'j["state"]=="mapped" and j["address"]=="0xc0000000" and j["attr_index"]==1' \
	--format arm-smmuv3 --value 0x00000000c0000f45 --level l1
decoded "arm-smmuv3: l2 2M block" 'j["state"]=="mapped" and j["address"]=="0x40200000"' \
	--format arm-smmuv3 --value 0x0000000040200f45 --level l2
decoded "arm-smmuv3: l3 page (V.C C10)" 'j["state"]=="mapped" and j["pxn"]==1 and j["uxn"]==1 and j["ap_user"]==1 and j["ng"]==1' \
	--format arm-smmuv3 --value 0x0060000012345F47 --level l3
decoded "arm-smmuv3: l3 01 is reserved" 'j["state"]=="unsupported"' --format arm-smmuv3 --value 0x12347401 --level l3
rc "smmu-v3: check reports its anomalies" 1 "$TOOL" check "$FIX/smmu-v3.tar.gz"
has "smmu-v3: 01 at level 3" '^dma1 l0/1/l1/2/l2/3/l3/7 unsupported raw: 0x12347401$'
run "$TOOL" walk "$FIX/smmu-v3.tar.gz" pass 0x1234
has "smmu-v3: a bypass stream maps an address to itself" '^result: aperture=bypass pa=sysmem:0x1234$'
run "$TOOL" info --json "$FIX/smmu-v3.tar.gz" dma1
js "smmu-v3: info JSON names the CD fields" 'j["cd_asid"]==5 and j["cd_t0sz"]==16 and j["cd_ttb0"]=="0x100000" and j["config_name"]=="stage1" and j["half"]=="lower"'
run "$TOOL" info --json "$FIX/smmu-v3.tar.gz" vm1
js "smmu-v3: info JSON names the STE fields" 'j["ste_s2vmid"]==1 and j["ste_s2t0sz"]==24 and j["ste_s2sl0"]==1 and j["ste_s2ttb"]=="0x104000" and j["root_index_bits"]==10'


# [iommu] registers that point at the wrong page (issue #39 item 4): no device is an
# anomaly of check (exit 1) and of info's IOMMU block, and a load warning that says
# what was read and points at roots --iommu; the IOMMU's own tables are none.
rm -rf "$TMP/io1" && mkdir -p "$TMP/io1" && tar -C "$TMP/io1" -xzf "$FIX/iommu-vtd.tar.gz"
rc "iommu-vtd: its own tables: check is clean" 0 "$TOOL" check "$TMP/io1"
hasnt "iommu-vtd: no IOMMU anomaly" 'iommu_(no_device|malformed)'
run "$TOOL" info "$TMP/io1"
has "info: the IOMMU's block" '^## \[iommu dmar0\]$'
has "info: its devices" '^devices: 6$'
has "info: its contexts" '^contexts: 5$'
hasnt "info: no anomaly in the block" '^anomaly: dmar0 '
sed -i 's/^rtaddr = 0x100000$/rtaddr = 0x101000/' "$TMP/io1/capture.ini"
rc "rtaddr one page off: check finds an anomaly" 1 "$TOOL" check "$TMP/io1"
has "rtaddr one page off: the anomaly line" '^dmar0 - iommu_no_device \[iommu dmar0\] \(capture.ini:12\): its tables yield no device \(256 entries read, 5 present, 5 malformed, 0 tables not captured\): rtaddr 0x101000; .*ptfs-tool roots --iommu intel-vtd'
has "rtaddr one page off: one anomaly" ': 0 contexts, 1 anomaly, 6 warnings$'
run "$TOOL" check --json "$TMP/io1"
js "check --json: the IOMMU's anomaly" 'j["anomalies"]==[{"anomaly":"iommu_no_device","detail":j["anomalies"][0]["detail"],"iommu":"dmar0","path":""}] and "256 entries read" in j["anomalies"][0]["detail"]'
run "$TOOL" info "$TMP/io1"
has "rtaddr one page off: info's anomaly line" '^anomaly: dmar0 - iommu_no_device its tables yield no device \(256 entries read, 5 present, 5 malformed'
has "rtaddr one page off: info's counts" '^entries_present: 5$'
run "$TOOL" info "$TMP/io1" dmar0
has "rtaddr one page off: the IOMMU's info file (mnt/dmar0/info) says it" '^anomaly: dmar0 - iommu_no_device its tables yield no device'
run "$TOOL" info --json "$TMP/io1" dmar0
js "rtaddr one page off: and in JSON" 'j["anomaly"]=="iommu_no_device" and j["devices"]==0 and j["entries"]==256'
if grep -q "capture.ini:12: \[iommu dmar0\]: its tables yield no device (256 entries read, 5 present.*roots --iommu intel-vtd" "$TMP/err"; then ok; else bad "rtaddr one page off: no load warning in: $ERR"; fi
sed -i 's/^type = intel-vtd$/type = amd-vi/; s/^rtaddr = 0x101000$/dev_table_base = 0x100000/' "$TMP/io1/capture.ini"
rc "amd-vi at a VT-d root table: check finds an anomaly" 1 "$TOOL" check "$TMP/io1"
has "amd-vi at a VT-d root table: the anomaly line" '^dmar0 - iommu_no_device .*\(128 entries read, 3 present, 0 malformed, 0 tables not captured\): dev_table_base 0x100000;'

# ---- issue #39 item 5: IOMMU listings a user can read ----
AV=$FIX/iommu-amdvi.tar.gz
rc "a blocked DTE is no context without --all-entries" 2 "$TOOL" walk "$AV" ivhd0.00:05.0 0x1000
case $ERR in *"E_NOTFOUND: no context 'ivhd0.00:05.0'"*) ok ;; *) bad "blocked DTE: $ERR" ;; esac
rc "--all-entries (a load option, anywhere) makes it one" 0 "$TOOL" walk "$AV" --all-entries ivhd0.00:05.0 0x1000
has "... that refuses every address" 'blocked'
run "$TOOL" maps --all-entries "$AV" ivhd0.00:05.0
[ "$RC" = 0 ] && ok || bad "maps --all-entries: exit $RC: $ERR"
err "decode refuses --all-entries" E_USAGE "$TOOL" decode --all-entries --value 0x1 --format amd-vi
run "$TOOL" devices --json "$AV"
js "devices --json: JSON Lines, one per device context, in BDF order" \
   '[(o["iommu"], o["bdf"]) for o in j] == [("ivhd0","00:02.0"),("ivhd0","00:03.0"),("ivhd0","00:04.0"),("ivhd0","00:10.0"),("ivhd1","0001:00:02.0"),("ivhd1","0001:00:03.0"),("ivhd1","0001:00:04.0"),("ivhd1","0001:00:10.0")] and j[0]["pages"]==2 and j[0]["levels"]==3 and j[0]["root_address"]=="0x202000" and j[2]["translation"]=="pass-through" and "pages" not in j[2]'
run "$TOOL" devices --all-entries "$AV" ivhd0
has "devices --all-entries: the blocked DTE is a line" '^00:05.0 context=ivhd0.00:05.0 translation=blocked domain=0$'
rc "devices: an unknown IOMMU" 2 "$TOOL" devices "$AV" nope
case $ERR in *"E_NOTFOUND: devices: no IOMMU 'nope'"*) ok ;; *) bad "devices nope: $ERR" ;; esac
run "$TOOL" info --json "$AV" ivhd0
js "info CAPTURE IOMMU: its counts" 'j["blocked"]==1 and j["contexts"]==4 and j["all_entries"] is False and j["dev_table_base"]=="0x200001"'
run "$TOOL" walk "$FIX/iommu-vtd.tar.gz" dmar0.0000:00:03.00 0x0
has "a pasted name (segment 0 given, QEMU's function) walks the device" '^result: mapped pa=sysmem:0x87654000 '
run "$TOOL" info "$FIX/iommu-smmu.tar.gz" smmu0.sid=0x201.ssid3
has "a StreamID as a number names the context" '^context: smmu0.sid513.ssid3$'

report
