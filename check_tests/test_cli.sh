#!/bin/bash
# test_cli.sh — ptfs-tool end to end: every subcommand, every error path, the
# JSON field names, blob decoding of field vectors built with printf, walks of
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

# run CMD...: OUT, ERR, RC of the command.
run() {
	"$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
}

# rc NAME WANT CMD...: the exit status is WANT.
rc() {
	local name=$1 want=$2
	shift 2
	run "$@"
	if [ "$RC" = "$want" ]; then ok; else bad "$name: exit $RC, want $want; stderr: $ERR"; fi
}

# err NAME CODE CMD...: exit 2, nothing on stdout, exactly one line
# `ptfs-tool: CODE: ...` on stderr.
err() {
	local name=$1 code=$2
	shift 2
	run "$@"
	if [ "$RC" = 2 ] && [ ! -s "$TMP/out" ] && [ "$(wc -l <"$TMP/err")" = 1 ] &&
		grep -qE "^ptfs-tool: $code: ." "$TMP/err"; then
		ok
	else
		bad "$name: exit $RC, stderr '$ERR', want exit 2 with $code"
	fi
}

# has NAME REGEX: the last output matches REGEX (grep -E, per line).
has() {
	if grep -qE -- "$2" "$TMP/out"; then ok; else bad "$1: no line matching '$2' in: $(head -c 600 "$TMP/out")"; fi
}
hasnt() {
	if grep -qE -- "$2" "$TMP/out"; then bad "$1: a line matches '$2'"; else ok; fi
}

# js NAME PYEXPR: the last output is JSON whose keys are sorted at every level
# and for which PYEXPR (with j = the parsed value) is true.
js() {
	if python3 - "$2" "$TMP/out" >"$TMP/py" 2>&1 <<'EOF'; then ok; else bad "$1: $2 -- $(head -c 300 "$TMP/py") -- $(head -c 600 "$TMP/out")"; fi
import json, sys
expr, path = sys.argv[1], sys.argv[2]
def pairs(kv):
    keys = [k for k, _ in kv]
    if keys != sorted(keys):
        raise SystemExit("keys not sorted: %s" % keys)
    return dict(kv)
# one document, or JSON Lines (a stream: one object per line) read as a list
text = open(path).read()
try:
    j = json.loads(text, object_pairs_hook=pairs)
except ValueError:
    j = [json.loads(l, object_pairs_hook=pairs) for l in text.split("\n") if l]
h = lambda s: int(s, 16)
if not eval(expr):
    raise SystemExit("false")
EOF
}

# decoded NAME PYEXPR DECODE-ARGS...: `ptfs-tool decode DECODE-ARGS --json`, then js NAME PYEXPR.
decoded() {
	local name=$1 expr=$2
	shift 2
	run "$TOOL" decode "$@" --json
	js "$name" "$expr"
}

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
for w in 'nv-gmmu-ver2, amd-gart, nv-gmmu-ver3, amd-gpuvm, x86-64, intel-vtd, intel-ept, amd-vi or arm64' '\[--kind ver2\|ver2_dual\|gart\|ver3\|ver3_dual\|gpuvm\|x86\|vtd\|ept\|amdvi\|arm64\]' \
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

# walk_expect CAPTURE EXPECT: every line of EXPECT (CONTEXT VA mapped SPACE PA
# SIZE ... | CONTEXT VA fault FAULT LEVEL [APERTURE [SPACE PA]]) matches a
# --json walk of its VA.
walk_expect() {
	local cap=$1 expect=$2 ctx vas
	for ctx in $(grep -v '^#' "$expect" | awk '{print $1}' | sort -u); do
		vas=$(grep -v '^#' "$expect" | awk -v c="$ctx" '$1 == c {print $2}')
		# shellcheck disable=SC2086
		run "$TOOL" walk --json "$cap" "$ctx" $vas
		if [ "$RC" != 0 ]; then
			bad "walk $cap $ctx: exit $RC: $ERR"
			continue
		fi
		if python3 - "$expect" "$ctx" "$TMP/out" >"$TMP/py" 2>&1 <<'EOF'; then ok; else bad "walk $(basename "$cap") $ctx vs $(basename "$expect"): $(head -c 1500 "$TMP/py")"; fi
import json, sys
expect, ctx, path = sys.argv[1:4]
walks = [json.loads(l) for l in open(path) if l.strip()]   # JSON Lines
units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
def size(s):
    return int(s[:-1]) * units[s[-1]] if s[-1] in units else int(s)
lines = [l.split("#")[0].split() for l in open(expect) if not l.startswith("#")]
lines = [l for l in lines if l and l[0] == ctx]
errors = []
if len(lines) != len(walks):
    errors.append("%d expectations, %d walks" % (len(lines), len(walks)))
for l, w in zip(lines, walks):
    r = w["result"]
    va = int(l[1], 16)
    if int(w["va"], 16) != va:
        errors.append("%s: walk of va %s" % (l[1], w["va"]))
    if l[2] == "mapped":
        got = (r.get("status"), r.get("space"), int(r.get("pa", "0x0"), 16), int(r.get("page_size", "0x0"), 16))
        want = ("mapped", l[3], int(l[4], 16), size(l[5]))
    elif l[2] == "aperture":
        # outside the table, translated by the memory controller: a result (docs/design.md §2.2)
        got = (r.get("status"), r.get("aperture_name"), r.get("space"), int(r.get("pa", "0x0"), 16), r.get("fault"))
        want = ("aperture", l[3], l[4], int(l[5], 16), None)
    else:
        got = [r.get("status"), r.get("fault"), r.get("level", "-")]
        want = ["fault", l[3], l[4]]
        if len(l) > 5:
            got.append(r.get("aperture_name"))
            want.append(l[5])
    if got != want:
        errors.append("%s: got %s, want %s" % (l[1], got, want))
if errors:
    raise SystemExit("\n".join(errors[:20]))
EOF
	done
}

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
run "$TOOL" walk "$TM" pdb0 401000
has "walk VA without 0x" '^result: mapped pa=vidmem:0x10001000'
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
js "walk json: no flag set is -" 'j["result"]["flags"]=="-"'

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
js "check json" 'len(j["anomalies"])>0 and [c["name"] for c in j["contexts"]]==["pdb0","pdb1"] and sum(c["anomalies"] for c in j["contexts"])==len(j["anomalies"]) and j["warnings"]==[]'
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

# export_ok NAME DIR: modes, relative va/ links that resolve, empty walk/.
export_ok() {
	local name=$1 d=$2 n
	n=$(find "$d" -type f ! -perm 444 | wc -l)
	[ "$n" = 0 ] && ok || bad "$name: $n files not 0444"
	n=$(find "$d" -type d ! -perm 555 | wc -l)
	[ "$n" = 0 ] && ok || bad "$name: $n directories not 0555"
	n=$(find "$d" -xtype l | wc -l)
	[ "$n" = 0 ] && ok || bad "$name: $n dangling va/ links"
	n=$(find "$d" -type l -lname '/*' | wc -l)
	[ "$n" = 0 ] && ok || bad "$name: $n absolute links"
	n=$(find "$d" -type l ! -path '*/va/*' | wc -l)
	[ "$n" = 0 ] && ok || bad "$name: links outside va/"
	[ -f "$d/capture" ] && ok || bad "$name: no capture file"
	# pa/ holds one empty directory per space (lookup-only, like walk/)
	[ -d "$d/pa/sysmem" ] && [ -z "$(find "$d/pa" -mindepth 2)" ] && ok || bad "$name: pa/ is not empty space directories"
	for c in "$d"/*/; do
		[ "$c" = "$d/pa/" ] && continue
		[ -f "$c/info" ] && [ -f "$c/maps" ] && [ -d "$c/va" ] && [ -d "$c/walk" ] && ok ||
			bad "$name: $c lacks info, maps, va/ or walk/"
		[ -z "$(ls -A "$c/walk")" ] && ok || bad "$name: $c/walk is not empty"
		# Every link target is a leaf entry file that says mapped.
		n=$(find "$c/va" -type l | head -50 | while read -r l; do grep -L '^state: mapped$' "$l"; done | wc -l)
		[ "$n" = 0 ] && ok || bad "$name: $n va/ links to entries that are not mapped"
	done
}

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

if grep -q 'ptfs-tool.*export\|PTFS_TOOL.*export' "$HERE/test_mount.sh" 2>/dev/null; then
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
js "pa --json" 'j["complete"] is True and j["space"]=="sysmem" and [(m["context"],h(m["va"])) for m in j["mappings"]]==[("pdb0",0x641000),("pdb1",0x20641000)] and j["mappings"][0]["leaf"]=="pde3/0/pde2/0/pde1/0/pde0/3/pte_big/4"'
rc "pa: nothing maps it" 1 "$TOOL" pa "$TM" vidmem:0x10002000
if [ ! -s "$TMP/out" ]; then ok; else bad "pa: no output when nothing maps it: $OUT"; fi
rc "pa: gart sysmem" 0 "$TOOL" pa "$FIX/gart-umr-kat.tar.gz" sysmem:0x223886000
err "pa: no space" E_VALUE "$TOOL" pa "$TM" vram:0x1000
err "pa: bad address" E_VALUE "$TOOL" pa "$TM" vidmem
err "pa: usage" E_USAGE "$TOOL" pa "$TM"

# diff: relocated tables are no mapping change; the four documented changes.
run "$TOOL" diff "$TM" "$TR"
if [ "$RC" = 0 ] && [ "$(sed -n 1p "$TMP/out")" = "# tables" ] && ! grep -qE ' (added|removed|remapped|changed) ' "$TMP/out"; then ok; else bad "diff relocated: no mapping change, exit 0: rc $RC $OUT"; fi
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
jsl "diff --json" '[r["change"] for r in j]==["remapped","removed","changed","added","tables","tables","tables"] and j[2]["fields"]==["read_only"] and h(j[2]["va_start"])==0x40c000 and h(j[0]["old"]["pa_start"])==0x40000000 and h(j[0]["new"]["pa_start"])==0x40400000'
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
	js "check --json $n" '[c["name"] for c in j["contexts"]]==["vmid0"]'
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
decoded "amd-vi: l4 skipping pointer unsupported (E10)" 'j["state"]=="unsupported"' \
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
has "amdvi-v1: a level-skipping PDE" '^ssd0 l4/1 unsupported raw: 0x6000000000305401$'
run "$TOOL" walk "$FIX/amdvi-v1.tar.gz" gpu0 0xd040
has "amd-vi walk through an NL 7 replica" '^result: mapped pa=sysmem:0x45040 page=32K flags=ir,iw,fc kind=- leaf=l3/0/l2/0/l1/8$'

report
