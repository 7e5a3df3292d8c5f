#!/bin/bash
# test_cli.sh — ptfs-tool end to end, part 1 (test_cli_more.sh is the rest:
# maps, info, pa, diff and the formats and sources after VER2): every
# subcommand, every error path, the JSON field names, blob decoding of field vectors built with printf, walks of
# the fixture VAs against the fixtures' .expect files, audit verdicts, check
# exit codes, export of every fixture (and, when FUSE is usable and
# test_mount.sh does not already do it, `diff -r` of an export against a mount).
#
# Environment (set by check_tests/meson.build):
#   PTFS_TOOL      the ptfs-tool binary
#   PTFS_FIXTURES  the committed fixtures directory
#   PTFS_CLI_DATA  check_tests/cli_data (legs files)
#   PTFS_BIN       the ptfs binary (optional: the mount comparison)
# Prints `N passed, M failed`; exits 1 on any failure.
set -u
export LC_ALL=C

TOOL=${PTFS_TOOL:?PTFS_TOOL is not set}
FIX=${PTFS_FIXTURES:?PTFS_FIXTURES is not set}
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=${PTFS_CLI_DATA:-$HERE/cli_data}

# ok / bad / report, the scratch directory and the mount helpers of the
# export-vs-mount comparison at the end
. "$(dirname "$0")/mount_lib.sh"
ml_tmpdir cli

# run, rc, err, has, js, decoded, walk_expect, export_ok
. "$(dirname "$0")/cli_lib.sh"

# ---- general -------------------------------------------------------------------

rc "--version" 0 "$TOOL" --version
has "--version" '^ptfs-tool [0-9]+\.[0-9]+'
rc "-V" 0 "$TOOL" -V
rc "--help" 0 "$TOOL" --help
for c in decode walk audit check export; do
	has "--help lists $c" "^  $c "
done
for c in decode walk audit check export; do
	rc "$c --help" 0 "$TOOL" "$c" --help
	has "$c --help" "^Usage: ptfs-tool $c"
	rc "$c -h" 0 "$TOOL" "$c" -h
done
# decode --help lists every format, level and --kind from the format table.
"$TOOL" decode --help >"$TMP/decode-help" 2>&1
for w in 'nv-gmmu-ver2, amd-gart, nv-gmmu-ver3, amd-gpuvm, x86-64, intel-vtd, intel-ept, amd-vi, arm64 or arm-smmuv3' '\[--kind ver2\|ver2_dual\|gart\|ver3\|ver3_dual\|gpuvm\|x86\|vtd\|ept\|amdvi\|arm64\]' \
	'x86-64: depths 0-4, levels pml5 pml4 pdpt pd pt' \
	'nv-gmmu-ver2: depths 0-4, levels pde3 pde2 pde1 pde0 pte_big pte_small' 'amd-gart: depth 0, level pte$' \
	'nv-gmmu-ver3: depths 0-5, levels pde4 pde3 pde2 pde1 pde0 pte_big pte_small' \
	'ver2_dual \(nv-gmmu-ver2, 16-byte entries\)' 'gart \(amd-gart, 8-byte entries\)' \
	'ver3_dual \(nv-gmmu-ver3, 16-byte entries\)'; do
	if grep -Eq -- "$w" "$TMP/decode-help"; then ok "decode --help: $w"; else bad "decode --help: $w"; fi
done
# maps, pa and audit --help: the spaces and the format's own reason names come from the format table.
"$TOOL" maps --help >"$TMP/maps-help" 2>&1
"$TOOL" pa --help >"$TMP/pa-help" 2>&1
"$TOOL" audit --help >"$TMP/audit-help" 2>&1
for w in 'maps-help:^ {19}nv-gmmu-ver2, nv-gmmu-ver3: vidmem, sysmem, peer0\.\.peer7$' \
	'maps-help:^ {19}amd-gart, amd-gpuvm: vram, sysmem$' \
	'pa-help:^  nv-gmmu-ver2, nv-gmmu-ver3: vidmem, sysmem, peer0\.\.peer7$' 'pa-help:^  amd-gart, amd-gpuvm: vram, sysmem$' \
	'audit-help:^  no_atomic \(atomic_disable\), privileged \(privilege\) in nv-gmmu-ver3$'; do
	if grep -Eq -- "${w#*:}" "$TMP/${w%%:*}"; then ok "--help: $w"; else bad "--help: $w"; fi
done
err "no command" E_USAGE "$TOOL"
err "unknown command" E_USAGE "$TOOL" frobnicate
err "unknown global option" E_USAGE "$TOOL" --frob
for c in decode walk audit check export; do
	err "$c unknown option" E_USAGE "$TOOL" "$c" --no-such-option
done

# ---- decode --value: VER2 ------------------------------------------------------

# A 4K PTE: valid, video aperture, address field 0x10000 (PA 0x10000000), kind 0x06.
V=$(printf '0x%016x' $(( (0x06 << 56) | (0x10000 << 8) | 1 )))
run "$TOOL" decode --value "$V" --level pte_small --json
js "PTE json keys" 'all(k in j for k in ("valid","aperture","aperture_name","kind_name","kind_known","kind_native","address","address_complete","reserved_bits","reserved_mask","volatile","privilege","read_only","atomic_disable","encrypted","kind","page_size","state","raw","level","format"))'
js "PTE fields" 'j["valid"]==1 and j["aperture"]==0 and j["aperture_name"]=="video" and h(j["address"])==0x10000000 and j["address_complete"] is False'
js "PTE kind" 'h(j["kind"])==6 and j["kind_name"]=="GENERIC_MEMORY" and j["kind_known"] is True and j["kind_native"] is True'
js "PTE state, level, page size" 'j["state"]=="mapped" and j["level"]=="pte_small" and h(j["page_size"])==0x1000 and j["format"]=="nv-gmmu-ver2"'
js "PTE 64-bit values are 0x strings" 'isinstance(j["raw"],str) and j["raw"].startswith("0x") and j["reserved_mask"].startswith("0x") and j["reserved_bits"] is False'
js "PTE has no entry_address without --base-pa" '"entry_address" not in j'
run "$TOOL" decode --value "$V" --level pte_small
has "PTE text" '^aperture_name: video$'
has "PTE text address" '^address: 0x10000000$'
has "PTE text bit field 0/1" '^valid: 1$'
has "PTE text derived flag true/false" '^kind_known: true$'
has "PTE text state" '^state: mapped$'

# System coherent, read_only, atomic_disable, privilege, volatile.
V=$(printf '0x%016x' $(( (0x234567 << 8) | 0x80 | 0x40 | 0x20 | 0x08 | (2 << 1) | 1 )))
run "$TOOL" decode --value "$V" --level pte_small --json
js "sys PTE" 'j["aperture"]==2 and j["aperture_name"]=="sys_coherent" and h(j["address"])==0x234567000 and j["address_complete"] is True'
js "sys PTE permission bits" 'j["read_only"]==1 and j["atomic_disable"]==1 and j["privilege"]==1 and j["volatile"]==1'

# Peer aperture with peer_id 3: the Turing peer address is complete (COMPTAGLINE = bits above 36).
V=$(printf '0x%016x' $(( (3 << 33) | (0x50000 << 8) | (1 << 1) | 1 )))
decoded "peer PTE" 'j["aperture"]==1 and j["peer_id"]==3 and j["address_complete"] is True' \
	--value "$V" --level pte_small
decoded "peer PTE with comptagline" 'j["peer_id"]==2 and h(j["address"])==0x4000001000 and j["address_complete"] is True' \
	--value 0x060000240000010b --level pte_small

# Unknown kind 0x6d: reported raw, never named.
decoded "unknown kind" 'h(j["kind"])==0x6d and j["kind_known"] is False and j["kind_name"] is None' \
	--value 0x6d00000000010001 --level pte_small
rc "unknown kind, text" 0 "$TOOL" decode --value 0x6d00000000010001 --level pte_small
has "unknown kind: kind_name is unknown in text, never empty" '^kind_name: unknown$'
# 0xfe: named but not a native Turing kind.
decoded "non-native kind" 'j["kind_known"] is True and j["kind_native"] is False' \
	--value 0xfe00000000010001 --level pte_small
# Encrypted bit 4 set.
decoded "encrypted" 'j["encrypted"]==1' --value 0x0600000000010011 --level pte_small

# Invalid states.
decoded "sparse PTE" 'j["state"]=="sparse"' --value 0x8 --level pte_small
decoded "no_valid_4k big PTE" 'j["state"]=="no_valid_4k" and h(j["page_size"])==0x10000' --value 0x20 --level pte_big
decoded "zero PTE" 'j["state"]=="unmapped"' --value 0x0 --level pte_small
decoded "invalid PTE" 'j["state"]=="invalid"' --value 0x40 --level pte_small

# Depth 4 with --role pte: 64K or 4K is open; page size unknown.
decoded "depth 4 pte" 'j["level"] is None and j["level_candidates"]==["pte_big","pte_small"] and h(j["page_size"])==0' \
	--value 0x0600000000010001 --role pte --level 4
run "$TOOL" decode --value 0x0600000000010001 --role pte --level 4
has "depth 4 text candidates" '^level_candidates: pte_big pte_small$'

# PDE (depths 0-2): pointer to a video table; is_pde_pointer only in JSON.
V=$(printf '0x%016x' $(( (0x201 << 8) | (1 << 1) )))
run "$TOOL" decode --value "$V" --role pde --level 1 --json
js "PDE json keys" 'all(k in j for k in ("is_pte","is_leaf","is_pde_pointer","aperture","aperture_name","volatile","no_ats","address","reserved_bits","reserved_mask","state"))'
js "PDE fields" 'j["is_pte"]==0 and j["is_leaf"]==0 and j["is_pde_pointer"]==0 and j["aperture_name"]=="video" and h(j["address"])==0x201000 and j["state"]=="pointer" and j["level"]=="pde2"'
run "$TOOL" decode --value "$V" --role pde --level 1
hasnt "is_pde_pointer is JSON only" '^is_pde_pointer:'
has "PDE text is_pte" '^is_pte: 0$'
# PDE aperture 0 + volatile: sparse.  Reserved bit 4: reported.
decoded "sparse PDE" 'j["state"]=="sparse"' --value 0x8 --level pde1
V=$(printf '0x%016x' $(( (0x201 << 8) | 0x10 | (1 << 1) )))
decoded "PDE reserved bit 4" 'j["reserved_bits"] is True and h(j["reserved_mask"])==0x10' --value "$V" --level 2
# A PTE where VER2 allows none (bit 0 at PD1).
decoded "PTE at PD1 unsupported" 'j["state"]=="unsupported"' --value 0x201001 --level pde1

# Dual PDE0: big half video 0x200000 (addr>>8 at bit 4), small half sys 0x201000.
decoded "dual PDE" 'j["level"]=="pde0" and j["state"]=="pointer" and h(j["address_big"])==0x200000 and h(j["address_small"])==0x201000 and j["aperture_small_name"]=="sys_coherent"' \
	--value 0x00000000000201040000000000020002 --role dual
decoded "128-bit value: pde0 is the only 16-byte level" 'j["level"]=="pde0" and "level_candidates" not in j' \
	--value 0x00000000000201040000000000020002
decoded "128-bit value, explicit auto" 'j["level"] is None and j["level_candidates"]==["pde0"]' \
	--value 0x00000000000201040000000000020002 --role auto
# Dual PDE0 reserved bits 54-64 and 118-127.
decoded "dual reserved bits" 'j["reserved_bits"] is True' --value 0x80000000000000000040000000000000 --level 3
# 2 MiB PTE in a PD0 slot.
decoded "2M PTE at pde0" 'j["state"]=="mapped" and h(j["page_size"])==0x200000 and h(j["address"])==0x40000000' \
	--value 0x0600000004000001 --level 3

# --role auto: bit 0 picks leaf vs directory, level null + candidates.
decoded "auto leaf" 'j["level"] is None and "pte_small" in j["level_candidates"] and "pde2" not in j["level_candidates"] and j["state"]=="mapped"' \
	--value 0x0600000000010001 --role auto
decoded "auto directory" 'j["level"] is None and j["level_candidates"]==["pde3","pde2","pde1"] and j["state"]=="pointer"' \
	--value 0x20102 --role auto
run "$TOOL" decode --value 0x20102
has "auto text" '^level: unknown$'
has "auto text candidates" '^level_candidates: pde3 pde2 pde1$'

# ---- decode --value: amd-gart --------------------------------------------------

decoded "GART KAT" 'j["valid"]==1 and j["system"]==1 and j["snooped"]==1 and j["executable"]==1 and j["readable"]==1 and j["writeable"]==1 and j["mtype_name"]=="UC" and h(j["address"])==0x223886000 and j["state"]=="mapped" and j["level"]=="pte"' \
	--format amd-gart --value 0x0600000223886077
decoded "GART zero PTE" 'j["state"]=="unmapped"' --format amd-gart --value 0
V=$(printf '0x%016x' $(( (1 << 49) | (0x1000 << 12) | 0x61 )))
decoded "GART reserved 50:48" 'j["reserved_bits"] is True and h(j["reserved_mask"])==(1<<49)' \
	--format amd-gart --value "$V"
decoded "GART explicit auto" 'j["level"] is None and j["level_candidates"]==["pte"]' \
	--format amd-gart --value 0x0600000223886077 --role auto

# ---- decode errors -------------------------------------------------------------

err "bad hex value" E_VALUE "$TOOL" decode --value 0xzz
err "bare hex value" E_VALUE "$TOOL" decode --value ff
err "negative value" E_VALUE "$TOOL" decode --value -1
err "value over 128 bits" E_VALUE "$TOOL" decode --value 0x1000000000000000000000000000000000
err "128-bit value at an 8-byte level" E_VALUE "$TOOL" decode --value 0x10000000000000001 --level 1
err "level outside VER2" E_UNSUPPORTED "$TOOL" decode --value 1 --level 5
err "level outside GART" E_UNSUPPORTED "$TOOL" decode --format amd-gart --value 1 --level 1
err "negative level" E_UNSUPPORTED "$TOOL" decode --value 1 --level -1
err "malformed level" E_VALUE "$TOOL" decode --value 1 --level x1
err "pde at depth 4" E_UNSUPPORTED "$TOOL" decode --value 1 --role pde --level 4
err "pte at depth 1" E_UNSUPPORTED "$TOOL" decode --value 1 --role pte --level 1
err "GART has no pde" E_UNSUPPORTED "$TOOL" decode --format amd-gart --value 1 --role pde
err "unknown format" E_UNSUPPORTED "$TOOL" decode --format nv-gmmu-ver9 --value 1
err "bad role" E_USAGE "$TOOL" decode --value 1 --role leaf
err "no value" E_USAGE "$TOOL" decode
err "value and blob" E_USAGE "$TOOL" decode --value 1 --blob /dev/null --base-pa 0
err "missing option value" E_USAGE "$TOOL" decode --value
err "stray argument" E_USAGE "$TOOL" decode --value 1 extra
err "entry size with value" E_USAGE "$TOOL" decode --value 1 --entry-size 8

# ---- decode --blob ---------------------------------------------------------------

# le64 VALUE: 8 little-endian bytes.
le64() {
	local v=$1 i s=
	for i in 0 1 2 3 4 5 6 7; do
		s="$s$(printf '\\%03o' $(( (v >> (8 * i)) & 0xff )))"
	done
	printf "$s"
}
{
	le64 $(( (0x06 << 56) | (0x10000 << 8) | 1 ))   # video 4K PTE
	le64 $(( (0x201 << 8) | (1 << 1) ))              # PDE to video 0x201000
	le64 0                                           # zero
} >"$TMP/ver2.bin"
# --levels: the blob is a run of entries of those levels, not a whole table
run "$TOOL" decode --blob "$TMP/ver2.bin" --base-pa 0x200000 --levels 0,1,2,4 --json
js "blob: one object per entry" 'isinstance(j["entries"],list) and len(j["entries"])==3 and j["levels_fit"] is None'
js "blob: entry addresses" '[h(e["entry_address"]) for e in j["entries"]]==[0x200000,0x200008,0x200010]'
js "blob: auto per entry" 'j["entries"][0]["state"]=="mapped" and j["entries"][1]["state"]=="pointer" and j["entries"][2]["state"]=="unmapped" and all(e["level"] is None for e in j["entries"])'
decoded "blob --levels name" 'all(e["level"]=="pte_small" for e in j["entries"]) and j["entries"][1]["state"]!="pointer"' \
	--blob "$TMP/ver2.bin" --base-pa 0x200000 --levels pte_small
decoded "blob --levels A,B" 'j["entries"][1]["level_candidates"]==["pde3","pde1"]' \
	--blob "$TMP/ver2.bin" --base-pa 0x200000 --levels 0,2
run "$TOOL" decode --blob "$TMP/ver2.bin" --base-pa 0x200000 --kind ver2 --levels 1
has "blob text entry_address" '^entry_address: 0x200008$'
has "blob text level" '^level: pde2$'
if [ "$(grep -c '^raw:' "$TMP/out")" = 3 ]; then ok; else bad "blob text: three entries"; fi
{
	le64 $(( (0x20 << 4) | (1 << 1) )); le64 $(( (0x201 << 8) | (2 << 1) ))   # dual: big vid 0x2000, small sys 0x201000
	le64 $(( (0x06 << 56) | (0x400 << 8) | 1 )); le64 0                               # 2 MiB PTE
} >"$TMP/pd0.bin"
decoded "dual blob" 'len(j["entries"])==2 and h(j["entries"][1]["entry_address"])==0x1010 and j["entries"][0]["state"]=="pointer" and h(j["entries"][0]["address_big"])==0x2000 and h(j["entries"][0]["address_small"])==0x201000 and j["entries"][1]["state"]=="mapped" and h(j["entries"][1]["page_size"])==0x200000' \
	--blob "$TMP/pd0.bin" --base-pa 0x1000 --kind ver2_dual --levels pde0
decoded "dual blob by entry size and level" 'len(j["entries"])==2 and j["entries"][0]["level"]=="pde0"' \
	--blob "$TMP/pd0.bin" --base-pa 0x1000 --entry-size 16 --levels 3
decoded "dual blob: the level gives the size" 'len(j["entries"])==2' --blob "$TMP/pd0.bin" --base-pa 0x1000 --levels 3
{ le64 0x0600000223886077; le64 0; } >"$TMP/gart.bin"
decoded "GART blob" 'len(j["entries"])==2 and h(j["entries"][0]["address"])==0x223886000 and h(j["entries"][1]["entry_address"])==0x902228 and j["entries"][1]["state"]=="unmapped" and j["levels_fit"]==["pte"] and j["entries"][0]["level"]=="pte"' \
	--blob "$TMP/gart.bin" --base-pa 0x902220 --kind gart
: >"$TMP/empty.bin"
run "$TOOL" decode --blob "$TMP/empty.bin" --base-pa 0 --kind gart --json
if [ "$RC" = 0 ] && [ "$OUT" = '{"entries": [], "levels_fit": ["pte"]}' ]; then ok; else bad "empty blob: '$OUT' rc $RC"; fi
rc "empty blob text" 0 "$TOOL" decode --blob "$TMP/empty.bin" --base-pa 0 --levels 0
if [ ! -s "$TMP/out" ]; then ok; else bad "empty blob text prints nothing"; fi
printf 'abcdefghijk' >"$TMP/short.bin"
err "truncated blob" E_TRUNCATED "$TOOL" decode --blob "$TMP/short.bin" --base-pa 0
err "blob 24 bytes as 16-byte entries" E_TRUNCATED "$TOOL" decode --blob "$TMP/ver2.bin" --base-pa 0 --kind ver2_dual
err "blob missing" E_IO "$TOOL" decode --blob "$TMP/nonexistent" --base-pa 0
err "blob without base" E_USAGE "$TOOL" decode --blob "$TMP/ver2.bin"
err "bad base" E_VALUE "$TOOL" decode --blob "$TMP/ver2.bin" --base-pa 0xg
err "base wraps" E_VALUE "$TOOL" decode --blob "$TMP/ver2.bin" --base-pa 0xfffffffffffffff8
err "entry size 12" E_UNSUPPORTED "$TOOL" decode --blob "$TMP/ver2.bin" --base-pa 0 --entry-size 12
err "entry size junk" E_VALUE "$TOOL" decode --blob "$TMP/ver2.bin" --base-pa 0 --entry-size eight
err "kind vs entry size" E_USAGE "$TOOL" decode --blob "$TMP/ver2.bin" --base-pa 0 --kind ver2 --entry-size 16
err "kind vs format" E_USAGE "$TOOL" decode --blob "$TMP/ver2.bin" --base-pa 0 --kind ver2 --format amd-gart
err "unknown kind" E_UNSUPPORTED "$TOOL" decode --blob "$TMP/ver2.bin" --base-pa 0 --kind ver9
err "bad level list" E_VALUE "$TOOL" decode --blob "$TMP/ver2.bin" --base-pa 0 --levels 1,,2
err "8-byte entries at pde0" E_USAGE "$TOOL" decode --blob "$TMP/ver2.bin" --base-pa 0 --entry-size 8 --levels 3

# ---- walk against the fixtures' expectations ----------------------------------------


for e in "$FIX"/*.expect; do
	base=${e%.expect}
	if [ -e "$base.tar.gz" ]; then
		walk_expect "$base.tar.gz" "$e"
	elif [ -e "$base.elf" ]; then           # an ELF core read natively (docs/design.md §3.2)
		walk_expect "$base.elf" "$e"
	elif [ -e "$base.envdef" ]; then        # a umr log read natively (docs/design.md §3.1)
		walk_expect "$base.envdef" "$e"
	elif [ -e "$base.log" ]; then           # a umr test log
		walk_expect "$base.log" "$e"
	elif [ -d "$base" ] && [ -f "$(echo "$base"/cpt.*/m5.cpt | cut -d' ' -f1)" ]; then   # a gem5 checkpoint
		walk_expect "$(dirname "$(echo "$base"/cpt.*/m5.cpt | cut -d' ' -f1)")" "$e"
	else
		bad "$(basename "$e") has no $base.tar.gz"
	fi
done
TM=$FIX/turing-mixed.tar.gz
# Every container of turing-mixed walks the same.
run "$TOOL" walk "$TM" pdb0 0x401000 0x610000 0x40000000
cp "$TMP/out" "$TMP/walk.ref"
for c in "$FIX"/turing-mixed.tar "$FIX"/turing-mixed.tar.zst "$FIX"/turing-mixed.zip "$FIX"/turing-mixed.d; do
	[ -e "$c" ] || continue
	run "$TOOL" walk "$c" pdb0 0x401000 0x610000 0x40000000
	if [ "$RC" = 0 ] && cmp -s "$TMP/out" "$TMP/walk.ref"; then ok; else bad "walk of $(basename "$c") differs from the .tar.gz"; fi
done
run "$TOOL" walk "$TM" pdb0 0x401000
has "walk text: one line per level" '^pde3\[0\] '
has "walk text: result" '^result: mapped pa=vidmem:0x10001000 page=4K'
run "$TOOL" walk "$TM" pdb0 4198400
has "walk VA in decimal (0x401000)" '^result: mapped pa=vidmem:0x10001000'
run "$TOOL" walk "$TM" pdb0 0x406000
has "walk text: fault" '^result: fault=sparse level=pte_small'
run "$TOOL" walk "$TM" pdb0 0x401000 0x406000
if [ "$(grep -c '^result:' "$TMP/out")" = 2 ] && grep -q '^$' "$TMP/out"; then ok; else bad "walk of two VAs: two traces, a blank line between"; fi
run "$TOOL" walk --json "$TM" pdb0 0x401000
js "walk json: one VA is one object" 'isinstance(j,dict) and j["context"]=="pdb0" and h(j["va"])==0x401000 and j["result"]["status"]=="mapped" and len(j["steps"])==5'
js "walk json step keys" 'all(set(("level","index","space","entry_address","captured","raw","state","verdict"))<=set(s) for s in j["steps"])'
run "$TOOL" walk --json "$TM" pdb0 0x401000 0x0
js "walk json: several VAs are JSON Lines, one object each" 'isinstance(j,list) and len(j)==2 and j[1]["result"]["status"]=="fault" and len(open(sys.argv[2]).read().splitlines())==2'
rc "walk of a fault exits 0" 0 "$TOOL" walk "$TM" pdb0 0x2000000000000
err "walk bad VA" E_VALUE "$TOOL" walk "$TM" pdb0 0xnope
err "walk unknown context" E_NOTFOUND "$TOOL" walk "$TM" nosuch 0x0
err "walk missing capture" 'E_[A-Z]+' "$TOOL" walk "$TMP/nonexistent.tar.gz" pdb0 0x0
err "walk without VA" E_USAGE "$TOOL" walk "$TM" pdb0

# ---- audit ------------------------------------------------------------------------

run "$TOOL" audit --json "$TM" pdb0 "$DATA/turing.legs"
if [ "$RC" = 1 ]; then ok; else bad "audit turing.legs: exit $RC, want 1 ($ERR)"; fi
js "audit record keys" 'all(set(p)=={"access","expected_pa","leg_line","pa","page_size","page_va","reason","space","va","verdict"} for p in j["results"])'
# verdicts LINE: the verdicts of the pages of the leg on line LINE of the legs file.
V='lambda n: [p["verdict"] for p in j["results"] if p["leg_line"]==n]'
R='lambda n: [p["reason"] for p in j["results"] if p["leg_line"]==n]'
js "audit: rw ok with the expected PA" "($V)(3)==['ok']"
js "audit: write to read_only" "($V)(4)==['access_denied'] and 'read_only' in ($R)(4)[0]"
js "audit: read of read_only" "($V)(5)==['ok']"
js "audit: atomic vs atomic_disable" "($V)(6)==['access_denied'] and 'atomic_disable' in ($R)(6)[0]"
js "audit: privilege page, non-privileged access" "($V)(7)==['access_denied'] and ($R)(7)==['privilege']"
js "audit: sparse" "($V)(8)==['unmapped'] and 'sparse' in ($R)(8)[0]"
js "audit: a 16K run, every page ok" "($V)(9)==['ok']*4"
js "audit: a 16K run at the wrong PA" "($V)(10)==['pa_mismatch']*4"
js "audit: 128K over a 64K page and a no_valid_4k big PTE" "($V)(11)==['ok','unmapped'] and [h(p['page_size']) for p in j['results'] if p['leg_line']==11]==[0x10000,0x10000]"
js "audit: 2M page, mid-page start, expected PA" "($V)(12)==['ok'] and [h(p['pa']) for p in j['results'] if p['leg_line']==12]==[0x40012345]"
js "audit: size suffix M over unmapped PD1 entry" "($V)(13)==['unmapped'] and [h(p['page_size']) for p in j['results'] if p['leg_line']==13]==[1<<29]"
js "audit: not captured" "($V)(14)==['unmapped'] and 'not_captured' in ($R)(14)[0]"
js "audit: out of range" "($V)(15)==['unmapped'] and 'out_of_range' in ($R)(15)[0]"
js "audit summary" 'j["summary"]["pages"]==len(j["results"]) and j["summary"]["ok"]+j["summary"]["pa_mismatch"]+j["summary"]["unmapped"]+j["summary"]["access_denied"]==len(j["results"])'
run "$TOOL" audit --json --privileged "$TM" pdb0 "$DATA/turing.legs"
js "audit --privileged" "($V)(7)==['ok']"
run "$TOOL" audit "$TM" pdb0 "$DATA/turing.legs"
has "audit text line" "turing.legs:4 0x0000000401000 4K w access_denied vidmem 0x10001000 read_only$"
has "audit text total" '^total: [0-9]+ pages: '
rc "audit all ok" 0 "$TOOL" audit "$TM" pdb0 "$DATA/turing-ok.legs"
run "$TOOL" audit --json "$FIX/gart-cosim.tar.gz" gart0 "$DATA/gart.legs"
js "GART audit: read ok" "($V)(2)==['ok']"
js "GART audit: write with writeable=0" "($V)(3)==['access_denied'] and 'writeable=0' in ($R)(3)[0]"
js "GART audit: zero PTE" "($V)(4)==['unmapped']"
js "GART audit: readable only, rw" "($V)(5)==['access_denied']"
js "GART audit: expected PA" "($V)(6)==['ok','ok']"
js "GART audit: below START in FB: translated by the FB aperture" "($V)(7)==['ok'] and ($R)(7)[0]=='aperture fb'"
# Issue #16.5: 64 KiB GART pages (BFS 4 in BASE 63:59) and START 0x7FFF00001,
# 4 KiB past a 64 KiB boundary.  Entry N maps (START << 12) + N * 64K: entry 0
# (vram 0x40000000) is the page at 0x7fff00001000, entry 1 (zero) the one at
# 0x7fff00011000, entry 2 (vram 0x50000000) the one at 0x7fff00021000.
G=$TMP/gart-unaligned
mkdir -p "$G/mem"
printf '[capture]\nversion = 1\nformat = amd-gart\n[memory t]\nspace = vram\nbase = 0x200000\nfile = mem/t.bin\n[gart gart0]\nVM_CONTEXT0_PAGE_TABLE_BASE_ADDR = 0x2000000000200001\nVM_CONTEXT0_PAGE_TABLE_START_ADDR = 0x7FFF00001\nVM_CONTEXT0_PAGE_TABLE_END_ADDR = 0x7FFF00030\n' >"$G/capture.ini"
{ le64 0x40000061; le64 0; le64 0x50000061; } >"$G/mem/t.bin"
run "$TOOL" walk --json "$G" gart0 0x7fff00001000 0x7fff00010fff 0x7fff00021000 0x7fff00000fff
js "GART unaligned START: walk pages start at START + N * 64K" '[(h(w["result"]["page_va"]), h(w["result"]["pa"])) for w in j[:3]]==[(0x7fff00001000, 0x40000000), (0x7fff00001000, 0x4000ffff), (0x7fff00021000, 0x50000000)] and j[3]["result"]["fault"]=="out_of_range"'
printf '0x7fff00011000 128K r\n' >"$TMP/gu.legs"
run "$TOOL" audit --json "$G" gart0 "$TMP/gu.legs"
js "GART unaligned START: audit spans are the entries' pages" "($V)(1)==['unmapped','ok'] and [h(p['page_va']) for p in j['results']]==[0x7fff00011000, 0x7fff00021000]"
# Legs syntax errors name LEGS:LINE.
printf '0x1000 4K r\n0x2000 4X r\n' >"$TMP/bad1.legs"
err "legs: bad size" E_VALUE "$TOOL" audit "$TM" pdb0 "$TMP/bad1.legs"
if grep -q "bad1.legs:2:" "$TMP/err"; then ok; else bad "legs error names LEGS:LINE: $ERR"; fi
printf '# comment\n\n0x1000 4K x\n' >"$TMP/bad2.legs"
err "legs: bad access" E_VALUE "$TOOL" audit "$TM" pdb0 "$TMP/bad2.legs"
if grep -q "bad2.legs:3:" "$TMP/err"; then ok; else bad "legs error line 3: $ERR"; fi
printf '0x1000 4K\n' >"$TMP/bad3.legs"
err "legs: missing field" E_VALUE "$TOOL" audit "$TM" pdb0 "$TMP/bad3.legs"
printf '0x1000 4K r 0x0 extra\n' >"$TMP/bad4.legs"
err "legs: extra field" E_VALUE "$TOOL" audit "$TM" pdb0 "$TMP/bad4.legs"
printf '0x1000 0 r\n' >"$TMP/bad5.legs"
err "legs: zero size" E_VALUE "$TOOL" audit "$TM" pdb0 "$TMP/bad5.legs"
printf 'zz 4K r\n' >"$TMP/bad6.legs"
err "legs: bad VA" E_VALUE "$TOOL" audit "$TM" pdb0 "$TMP/bad6.legs"
printf '0xfffffffffffff000 8K r\n' >"$TMP/bad7.legs"
err "legs: VA + SIZE wraps" E_VALUE "$TOOL" audit "$TM" pdb0 "$TMP/bad7.legs"
printf '0x400000 4K r 0xq\n' >"$TMP/bad8.legs"
err "legs: bad expected PA" E_VALUE "$TOOL" audit "$TM" pdb0 "$TMP/bad8.legs"
: >"$TMP/empty.legs"
rc "audit: empty legs file" 0 "$TOOL" audit "$TM" pdb0 "$TMP/empty.legs"
err "audit: legs missing" E_IO "$TOOL" audit "$TM" pdb0 "$TMP/nonexistent.legs"
err "audit: unknown context" E_NOTFOUND "$TOOL" audit "$TM" nosuch "$DATA/turing.legs"
err "audit: arguments" E_USAGE "$TOOL" audit "$TM" pdb0

# ---- one vocabulary: walk flag words are entry field names ----------------------------

run "$TOOL" walk "$TM" pdb0 0x410000
has "walk: flags are field names" ' flags=read_only,atomic_disable,privilege kind=GENERIC_MEMORY '
run "$TOOL" walk --json "$TM" pdb0 0x400000
js "walk json: no flag set is an empty array" 'j["result"]["flags"]==[]'

# ---- check -------------------------------------------------------------------------

run "$TOOL" check "$TM"
if [ "$RC" = 1 ]; then ok; else bad "check turing-mixed: exit $RC, want 1 ($ERR)"; fi
has "check: reserved bits" '^pdb0 [^ ]+ reserved_bits '
has "check: encrypted" '^pdb0 [^ ]+ encrypted'
has "check: unknown kind" ' kind_unknown'
has "check: non-native kind" ' kind_non_native'
has "check: not captured" ' not_captured'
has "check: summary" "^$TM: 2 contexts, [0-9]+ anomalies, 0 warnings$"
run "$TOOL" check --json "$TM"
js "check json" 'len(j["anomalies"])>0 and [c["context"] for c in j["contexts"]]==["pdb0","pdb1"] and sum(c["anomaly_count"] for c in j["contexts"])==len(j["anomalies"]) and j["warnings"]==[]'
js "check json anomaly keys" 'all(set(a)=={"anomaly","context","detail","path"} for a in j["anomalies"])'
for f in "$FIX"/*.tar.gz; do
	run "$TOOL" check "$f"
	if [ "$RC" = 0 ] || [ "$RC" = 1 ]; then ok; else bad "check $(basename "$f"): exit $RC: $ERR"; fi
	if grep -q ' 0 anomalies' "$TMP/out"; then want=0; else want=1; fi
	[ "$RC" = "$want" ] && ok || bad "check $(basename "$f"): exit $RC vs its count: $(tail -1 "$TMP/out")"
done
rc "check a clean capture" 0 "$TOOL" check "$FIX/gart-umr-kat.tar.gz"
# One JSON escaper for every program (issue #11.4): a capture path with TAB,
# DEL and a newline is spelled as walk --json and the mount spell it
# (\u00XX), never as a raw DEL byte or a \n the other JSON never writes.
CTL=$(printf '%s/c\tx\177y\nz.tar.gz' "$TMP")
cp "$FIX/gart-umr-kat.tar.gz" "$CTL"
run "$TOOL" check --json "$CTL"
grep -qF '"capture": "'"$TMP"'/c\u0009x\u007fy\u000az.tar.gz", ' "$TMP/out" && ok ||
	bad "check --json: control bytes of the capture path not as \\u00XX: $(od -c "$TMP/out" | head -5)"
rm -f "$CTL"
# A root table with no captured byte: every VA is not_captured, so not clean.
mkdir -p "$TMP/noroot/mem"
head -c 4096 /dev/zero >"$TMP/noroot/mem/v.bin"
printf '[capture]\nversion = 1\nformat = nv-gmmu-ver2\n[memory v]\nspace = vidmem\nbase = 0x200000\nfile = mem/v.bin\n[pdb pdb0]\nspace = vidmem\naddress = 0x900000\nbig_page_size = 64K\n' >"$TMP/noroot/capture.ini"
rc "check: a root not captured is an anomaly (exit 1)" 1 "$TOOL" check "$TMP/noroot"
has "check: root_not_captured named" '^pdb0 - root_not_captured pde3 table vidmem:0x900000 root_captured: no$'
has "check: root_not_captured counted" ': 1 context, 1 anomaly, 0 warnings$'
rc "export of a capture whose root is not captured" 0 "$TOOL" export "$TMP/noroot" "$TMP/noroot.x"
if grep -qx 'anomaly: pdb0 - root_not_captured pde3 table vidmem:0x900000 root_captured: no' "$TMP/noroot.x/pdb0/info"; then
	ok; else bad "info lists root_not_captured: $(cat "$TMP/noroot.x/pdb0/info")"; fi
# Unusable captures: exit 2 with the loader's error.
mkdir -p "$TMP/badcap/mem"
printf '[capture]\nversion = 1\nformat = nv-gmmu-ver2\nbogus = 1\n' >"$TMP/badcap/capture.ini"
err "check: unknown key" 'E_[A-Z]+' "$TOOL" check "$TMP/badcap"
if grep -q 'capture.ini:4' "$TMP/err"; then ok; else bad "check names capture.ini:LINE: $ERR"; fi
printf '[capture]\nversion = 1\nformat = nv-gmmu-ver9\n' >"$TMP/badcap/capture.ini"
err "check: unsupported format" E_UNSUPPORTED "$TOOL" check "$TMP/badcap"
printf 'not an archive' >"$TMP/junk.tar.gz"
err "check: not an archive" 'E_[A-Z]+' "$TOOL" check "$TMP/junk.tar.gz"
err "check: missing" 'E_[A-Z]+' "$TOOL" check "$TMP/nonexistent"
err "check: arguments" E_USAGE "$TOOL" check
# A warning (a symlink member is ignored) is printed but is not an anomaly.
mkdir -p "$TMP/warncap"
(cd "$TMP/warncap" && tar xzf "$FIX/gart-umr-kat.tar.gz" && ln -s capture.ini link.ini &&
	tar czf "$TMP/warn.tar.gz" .)
run "$TOOL" check "$TMP/warn.tar.gz"
if [ "$RC" = 0 ] && grep -q '^warning: ' "$TMP/out" && grep -q ' 1 warning$' "$TMP/out"; then ok; else bad "check with a warning: exit $RC: $OUT $ERR"; fi

# ---- export ------------------------------------------------------------------------


for f in "$FIX"/*.tar.gz; do
	name=$(basename "$f" .tar.gz)
	rc "export $name" 0 "$TOOL" export "$f" "$TMP/exp-$name"
	export_ok "export $name" "$TMP/exp-$name"
done
E=$TMP/exp-turing-mixed
# The mapped pages of the expectations are links named by their page VA.
for va in 0x0000000400000 0x0000000200000 0x0000000600000 0x0000020000000; do
	[ -L "$E/pdb0/va/$va" ] && ok || bad "export: no link va/$va"
done
readlink "$E/pdb0/va/0x0000000401000" >"$TMP/out"
has "export: relative link into the table tree" '^\.\./pde3/0/pde2/0/pde1/0/pde0/2/pte_small/1$'
[ ! -e "$E/pdb0/va/0x0000000406000" ] && ok || bad "export: a sparse page has a link"
[ ! -e "$E/pdb0/va/0x0000000601000" ] && ok || bad "export: a page inside a 64K page has its own link"
[ -d "$E/pdb0/pde3/0/pde2/0/pde1/0/pde0/3/pte_big" ] && ok || bad "export: dual PDE0 with a big table"
[ -f "$E/pdb0/pde3/0/entry" ] && ok || bad "export: pointer entry directory holds entry"
[ -f "$E/pdb0/pde3/0/pde2/0/pde1/0/pde0/1" ] && ok || bad "export: a 2 MiB PTE is a file"
[ ! -e "$E/pdb0/pde3/1" ] && ok || bad "export: a zero entry is listed"
grep -q '^state: pointer$' "$E/pdb0/pde3/0/entry" && ok || bad "export: entry file content"
# The PD2 pointer at an uncaptured table is a directory with only its entry.
n=$(grep -rl '^target_captured: no$' "$E/pdb0" | head -1)
if [ -n "$n" ] && [ "$(ls "$(dirname "$n")")" = entry ]; then ok; else bad "export: uncaptured target holds only entry ($n)"; fi
run "$TOOL" walk "$TM" pdb0 0x401000
# The files are the renderer's bytes: info holds the anomalies check lists.
run "$TOOL" check "$TM"
n=$(grep -c ' reserved_bits ' "$TMP/out")
m=$(grep -c 'reserved_bits' "$E/pdb0/info" "$E/pdb1/info" | awk -F: '{s += $2} END {print s}')
[ "$n" -gt 0 ] && [ "$m" -ge "$n" ] && ok || bad "export: info lists the anomalies check finds ($n vs $m)"
# Deterministic: the same capture in another container gives the same tree (but its source).
for c in "$FIX"/turing-mixed.d "$FIX"/turing-mixed.zip "$FIX"/turing-mixed.tar.zst; do
	[ -e "$c" ] || continue
	rc "export $(basename "$c")" 0 "$TOOL" export "$c" "$TMP/exp-$(basename "$c")"
	if diff -r --no-dereference -x capture "$E" "$TMP/exp-$(basename "$c")" >"$TMP/d" 2>&1; then ok; else bad "export of $(basename "$c") differs: $(head -5 "$TMP/d")"; fi
done
rc "export again" 0 "$TOOL" export "$TM" "$TMP/exp-again"
if diff -r --no-dereference "$E" "$TMP/exp-again" >/dev/null 2>&1; then ok; else bad "export is not deterministic"; fi
mkdir "$TMP/emptydir"
rc "export into an empty directory" 0 "$TOOL" export "$TM" "$TMP/emptydir"
rc "export --all-entries" 0 "$TOOL" export --all-entries "$TM" "$TMP/exp-all"
export_ok "export --all-entries" "$TMP/exp-all"
[ -f "$TMP/exp-all/pdb0/pde3/1" ] && ok || bad "export --all-entries lists the zero entry pde3/1"
a=$(find "$E" | wc -l)
b=$(find "$TMP/exp-all" | wc -l)
[ "$b" -gt "$a" ] && ok || bad "export --all-entries lists more ($b vs $a)"
err "export into a non-empty directory" E_USAGE "$TOOL" export "$TM" "$E"
: >"$TMP/afile"
err "export onto a file" E_USAGE "$TOOL" export "$TM" "$TMP/afile"
err "export: bad capture, nothing created" 'E_[A-Z]+' "$TOOL" export "$TMP/junk.tar.gz" "$TMP/exp-junk"
[ ! -e "$TMP/exp-junk" ] && ok || bad "export of a bad capture created its directory"
err "export: no parent" E_IO "$TOOL" export "$TM" "$TMP/no/such/dir"
err "export: arguments" E_USAGE "$TOOL" export "$TM"

# ---- export vs a mount -------------------------------------------------------------

if cat "$HERE/test_mount.sh" "$HERE/test_mount_more.sh" 2>/dev/null |
	grep -q 'ptfs-tool.*export\|PTFS_TOOL.*export'; then
	echo "SKIP: export vs mount (test_mount.sh compares them)"
elif [ ! -c /dev/fuse ] || ! command -v fusermount3 >/dev/null || [ -z "${PTFS_BIN:-}" ] || [ ! -x "${PTFS_BIN:-}" ]; then
	echo "SKIP: export vs mount (no /dev/fuse, fusermount3 or ptfs binary)"
else
	PTFS=$PTFS_BIN
	for f in "$FIX"/*.tar.gz; do
		name=$(basename "$f" .tar.gz)
		MNT=$TMP/mnt-$name
		if ! do_mount "$f" "$MNT"; then
			echo "SKIP: export vs mount of $name (mount failed: $(head -1 "$MNT.err"))"
			continue
		fi
		if diff -r --no-dereference -x walk "$MNT" "$TMP/exp-$name" >"$TMP/d" 2>&1; then
			ok
		else
			bad "export of $name differs from its mount: $(head -10 "$TMP/d")"
		fi
		do_umount "$MNT" || bad "unmount $MNT"
	done
fi

# ---- decode --blob as one table (levels_fit, index, --skip-zero) ---------------------

# A 4 KiB VER2 table of 8-byte entries: a 4K PTE at 1, a PDE at 5, the rest zero.
{
	le64 0
	le64 $(( (0x06 << 56) | (0x10000 << 8) | 1 ))
	le64 0; le64 0; le64 0
	le64 $(( (0x201 << 8) | (1 << 1) ))
	head -c $(( 4096 - 48 )) /dev/zero
} >"$TMP/t4k.bin"
run "$TOOL" decode --blob "$TMP/t4k.bin" --base-pa 0x200000
if [ "$RC" = 0 ] && [ "$(head -1 "$TMP/out")" = "levels_fit: pde2 pde1 pte_small" ]; then ok; else bad "table: levels_fit first: $(head -1 "$TMP/out") rc $RC"; fi
if [ "$(grep -c '^index: ' "$TMP/out")" = 512 ] && grep -qx 'index: 511' "$TMP/out"; then ok; else bad "table text: every entry with its index"; fi
decoded "table: zero entries are pde2/pde1 candidates only" 'j["levels_fit"]==["pde2","pde1","pte_small"] and len(j["entries"])==512 and j["entries"][0]["level_candidates"]==["pde2","pde1"] and [e["index"] for e in j["entries"]]==list(range(512))' \
	--blob "$TMP/t4k.bin" --base-pa 0x200000
decoded "table --skip-zero: only the non-zero entries, with their index" '[e["index"] for e in j["entries"]]==[1,5] and j["entries"][0]["level"]=="pte_small" and j["entries"][1]["level_candidates"]==["pde2","pde1"]' \
	--blob "$TMP/t4k.bin" --base-pa 0x200000 --skip-zero
run "$TOOL" decode --blob "$TMP/t4k.bin" --base-pa 0x200000 --skip-zero
if [ "$(grep -c '^index: ' "$TMP/out")" = 2 ] && grep -qx 'index: 5' "$TMP/out"; then ok; else bad "table text --skip-zero: $OUT"; fi
# 256 bytes at a 256-byte boundary: only the 64K page table fits; decoded at it
{ le64 0; le64 $(( (0x06 << 56) | (0x10 << 8) | 1 )); head -c 240 /dev/zero; } >"$TMP/t256.bin"
decoded "table: one level fits, every entry decoded at it" 'j["levels_fit"]==["pte_big"] and all(e["level"]=="pte_big" for e in j["entries"]) and h(j["entries"][1]["page_size"])==0x10000' \
	--blob "$TMP/t256.bin" --base-pa 0x200100
run "$TOOL" decode --blob "$TMP/t256.bin" --base-pa 0x200100
if [ "$(head -1 "$TMP/out")" = "levels_fit: pte_big" ]; then ok; else bad "table text: one level: $(head -1 "$TMP/out")"; fi
decoded "table: 16-byte entries fit pde0" 'j["levels_fit"]==["pde0"] and len(j["entries"])==256 and j["entries"][0]["level"]=="pde0"' \
	--blob "$TMP/t4k.bin" --base-pa 0x200000 --kind ver2_dual
decoded "table: --role auto still says what fits" 'j["levels_fit"]==["pde2","pde1","pte_small"] and j["entries"][1]["level"] is None' \
	--blob "$TMP/t4k.bin" --base-pa 0x200000 --role auto
err "table: misaligned base fits nothing" E_VALUE "$TOOL" decode --blob "$TMP/t256.bin" --base-pa 0x200108
if grep -q '256 bytes' "$TMP/err"; then ok; else bad "table: the error names the blob size: $ERR"; fi
err "table: 24 bytes fit no VER2 level" E_VALUE "$TOOL" decode --blob "$TMP/ver2.bin" --base-pa 0x200000
err "--skip-zero with --value" E_USAGE "$TOOL" decode --value 1 --skip-zero

# ---- capture.ini passed as the capture ------------------------------------------------

mkdir -p "$TMP/iniarg"
(cd "$TMP/iniarg" && tar xzf "$FIX/gart-umr-kat.tar.gz")
err "check capture.ini itself" E_USAGE "$TOOL" check "$TMP/iniarg/capture.ini"
if grep -q 'is a capture.ini, not a capture: pass the directory holding it' "$TMP/err"; then ok; else bad "capture.ini: says what to pass: $ERR"; fi
cp "$TMP/iniarg/capture.ini" "$TMP/manifest.txt"
err "a capture.ini under another name" E_USAGE "$TOOL" check "$TMP/manifest.txt"

# ---- a blob that is not whole entries: a warning, not an anomaly ---------------------

cp -r "$TMP/iniarg" "$TMP/oddblob"
printf 'abc' >>"$TMP/oddblob/mem/vram-902000.bin"
run "$TOOL" check "$TMP/oddblob"
if [ "$RC" = 0 ] && grep -q "^warning: \[memory vram0\] (mem/vram-902000.bin): [0-9]* bytes is not a multiple of the 8-byte entry size" "$TMP/out"; then ok; else bad "odd blob: warning, exit 0: rc $RC $OUT"; fi
run "$TOOL" walk "$TMP/oddblob" gart0 0x444000
if grep -q 'warning: .*not a multiple of the 8-byte entry size' "$TMP/err"; then ok; else bad "odd blob: other commands warn on stderr: $ERR"; fi

# ---- a [memory] base off a 4 KiB page: a warning (a hex base typed without 0x) -------

cp -r "$TMP/iniarg" "$TMP/nox"
sed -i 's/^base = 0x\([0-9]*\)$/base = \1/' "$TMP/nox/capture.ini"
run "$TOOL" check "$TMP/nox"
if grep -Eq "^warning: capture.ini:[0-9]+: \[memory [a-z0-9]+\] base [0-9]+ \(0x[0-9a-f]+\) is not 4 KiB aligned.*needs 0x" "$TMP/out"; then ok; else bad "base without 0x: a warning naming the line: rc $RC $OUT"; fi
run "$TOOL" check "$TMP/iniarg"
if ! grep -q "aligned" "$TMP/out"; then ok; else bad "aligned bases: no warning: $OUT"; fi

# ---- untrusted names are shown escaped ------------------------------------------------

ESC=$(printf '\033') BEL=$(printf '\007')
EDIR="$TMP/cap${ESC}[31m${BEL}x"
cp -r "$TMP/iniarg" "$EDIR"
run "$TOOL" check "$EDIR"
if [ "$RC" = 0 ] && grep -qF 'cap\x1b[31m\x07x: 1 context' "$TMP/out" && ! grep -q "$ESC\|$BEL" "$TMP/out"; then ok; else bad "check summary escapes the path: $(od -c "$TMP/out" | head -3)"; fi
err "a missing capture with ESC in its name" E_IO "$TOOL" check "$EDIR/missing"
if grep -qF 'cap\x1b[31m\x07x/missing' "$TMP/err" && ! grep -q "$ESC\|$BEL" "$TMP/err" &&
	[ "$(grep -o 'x1b' "$TMP/err" | wc -l)" = 1 ]; then ok; else bad "error prefix escapes the path once: $(od -c "$TMP/err" | head -3)"; fi
printf 'abc' >>"$EDIR/mem/vram-902000.bin"
run "$TOOL" walk "$EDIR" gart0 0x444000
if grep -qF 'warning: ' "$TMP/err" && grep -qF 'cap\x1b[31m\x07x' "$TMP/err" && ! grep -q "$ESC\|$BEL" "$TMP/err"; then ok; else bad "warning prefix escapes the path: $(od -c "$TMP/err" | head -3)"; fi
err "decode: a missing blob with ESC in its name" E_IO "$TOOL" decode --blob "$EDIR/nope" --base-pa 0
if ! grep -q "$ESC\|$BEL" "$TMP/err"; then ok; else bad "decode error escapes the path"; fi

report
