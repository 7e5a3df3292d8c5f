#!/bin/bash
# test_roots.sh — ptfs-tool roots (issue #24 item 3) on the x86-roots
# fixture, against the roots fixtures/mkfixtures planted there
# (fixtures/x86-roots.expect, `# root` lines): exactly those candidates, with
# their kinds and PTI twins, none of the decoys; the order (score, then
# address); the counts behind a score; every pasted section loads and walks
# as the context it stands for; --format, --space, --min-score, --json;
# --iommu TYPE (an IOMMU's own tables, issue #32 item 4); and bad arguments
# (one line, exit 2).
#
# Environment (check_tests/meson.build): PTFS_TOOL, PTFS_FIXTURES.
set -u
export LC_ALL=C
TOOL=${PTFS_TOOL:?}
FIX=${PTFS_FIXTURES:?}
. "$(dirname "$0")/mount_lib.sh"
ml_tmpdir roots
X=$FIX/x86-roots.tar.gz

# word FILE KEY: the value of KEY=VALUE words of each candidate line of FILE.
word() {
	awk -v k="$2" '/^# score=/ { v = "-"; for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) v = substr($i, length(k) + 2); print v }' "$1"
}
# brief FILE: "ROOT KIND [twin TWIN]" per candidate, sorted
brief() {
	grep '^# score=' "$1" | sed -E 's/.* kind=([^ ]*) .* root=([^ ]*) .*/\2 \1/' >"$TMP/b1"
	grep '^# score=' "$1" | sed -E 's/.* twin=([^ ]*).*/twin \1/; t; s/.*//' >"$TMP/b2"
	paste -d' ' "$TMP/b1" "$TMP/b2" | sed 's/ *$//' | sort
}

# ---- the planted roots -------------------------------------------------------
"$TOOL" roots "$X" >"$TMP/text" 2>"$TMP/err"
rc=$?
if [ "$rc" = 0 ]; then ok "roots: exit 0"; else bad "roots: exit $rc ($(cat "$TMP/err"))"; fi
if [ ! -s "$TMP/err" ]; then ok "no warnings, no progress off a terminal"; else bad "stderr: $(cat "$TMP/err")"; fi
sed -n 's/^# root //p' "$FIX/x86-roots.expect" | sort >"$TMP/want"
brief "$TMP/text" >"$TMP/got"
same "$TMP/want" "$TMP/got" "roots finds exactly the roots x86-roots.expect plants (kinds, PTI twins)"
check "a dozen process tables (kernel copies and PTI user copies)" \
	test "$(grep -cE '^# score=[0-9]+ format=x86-64 kind=process(_user)? ' "$TMP/text")" = 15
for d in $(sed -n 's/^# not roots: //p' "$FIX/x86-roots.expect" | grep -oE '0x[0-9a-f]+'); do
	if grep -q " root=$d " "$TMP/text"; then bad "decoy $d listed"; else ok "decoy $d not listed"; fi
done
"$TOOL" roots --min-score 0 "$X" >"$TMP/all"
for d in $(sed -n 's/^# not roots: //p' "$FIX/x86-roots.expect" | grep -oE '0x[0-9a-f]+'); do
	if grep -q " root=$d " "$TMP/all"; then bad "decoy $d listed with --min-score 0"; else ok "decoy $d not listed with --min-score 0"; fi
done
grep -q 'root=0x110000 .*root_of=cpu0' "$TMP/text" && ok "cpu0's CR3 table is named root_of=cpu0" || bad "no root_of=cpu0"
grep -q 'kind=process_user .*root=0x11f000 .*ref=cpu1 root_of=cpu1 twin=0x11e000' "$TMP/text" &&
	ok "cpu1's CR3, a PTI user copy: process_user, its kernel copy the twin" || bad "cpu1's user copy"
grep -q 'kind=kernel_only .*root=0x100000 .*root_of=kernel' "$TMP/text" &&
	ok "the kernel's own table: kernel_only" || bad "kernel_only"

# ---- order and the counts behind the score ----------------------------------------
word "$TMP/text" score >"$TMP/scores"
word "$TMP/text" root >"$TMP/addrs"
paste "$TMP/scores" "$TMP/addrs" | awk '{ h = sprintf("%16s", substr($2, 3)); gsub(/ /, "0", h); printf "%03d %s\n", 100 - $1, h }' >"$TMP/order"
sort -c "$TMP/order" 2>/dev/null && ok "ordered by score, then address" || bad "order: $(cat "$TMP/order")"
check "scores differ (100 and below)" test "$(sort -u "$TMP/scores" | wc -l)" -ge 2
for r in 0x122000 0x124000 0x126000; do
	check "$r: one pointer into uncaptured memory, a lower score" \
		grep -qE "^# score=(9[0-9]|[1-8][0-9]) format=x86-64 kind=process space=sysmem root=$r .* uncaptured=1 " "$TMP/text"
done
check "the others: levels 4/4, nothing uncaptured, score 100" \
	test "$(grep -cE '^# score=100 .* levels=4/4 .* uncaptured=0( |$)' "$TMP/text")" = 13
check "a process table: 4 valid entries (its PDPT and the kernel half's three)" \
	grep -qE 'root=0x114000 valid=4 levels=4/4 ' "$TMP/text"

# ---- every pasted section loads and walks as the context it stands for --------------
mkdir -p "$TMP/cap"
tar xzf "$X" -C "$TMP/cap"
cat "$TMP/text" >>"$TMP/cap/capture.ini"
if "$TOOL" info "$TMP/cap" >"$TMP/info" 2>"$TMP/ierr"; then
	ok "the whole listing pasted into capture.ini loads ($(grep -c '^context:' "$TMP/info") contexts)"
else
	bad "pasted listing does not load: $(cat "$TMP/ierr")"
fi
K=0xffff800000201234
for r in $(word "$TMP/text" root); do
	n=root-${r#0x}
	kind=$(grep " root=$r " "$TMP/text" | sed -E 's/.* kind=([^ ]*) .*/\1/')
	"$TOOL" walk "$TMP/cap" "$n" $K >"$TMP/w" 2>&1
	case $kind in
	process_user) want='fault=unmapped level=pml4 index=256' ;;
	*) want='result: mapped pa=sysmem:0x201234 page=2M' ;;
	esac
	check "walk $n $K ($kind): $want" grep -q "$want" "$TMP/w"
done
for pair in cpu0:root-110000 cpu1:root-11f000 kernel:root-100000; do
	a=${pair%%:*} b=${pair#*:}
	for va in 0x10 0x1010 0xffffff0000000010 $K; do
		"$TOOL" walk "$X" "$a" $va | grep '^result' >"$TMP/wa"
		"$TOOL" walk "$TMP/cap" "$b" $va | grep '^result' >"$TMP/wb"
		same "$TMP/wa" "$TMP/wb" "walk $b $va = walk $a $va"
	done
done

# ---- a table that is a candidate of two formats (issue #39 item 9) ------------------
# A [vtd] context beside the [cpu] ones: every x86-64 table also decodes as a
# clean 3-level VT-d table (R, W, X where P, RW, US are).  Each is listed once,
# under the format its context walks it with (or its kernel half relates it
# to, else the CPU's), and the line names the format.
mkdir -p "$TMP/vtd"
tar xzf "$X" -C "$TMP/vtd"
printf '\n[vtd dev]\nslptptr = 0x130000\naw = 39\n' >>"$TMP/vtd/capture.ini"
"$TOOL" roots "$TMP/vtd" >"$TMP/vtext" 2>"$TMP/verr"
check "roots of a capture with a [vtd] context: exit 0" test $? = 0
check "every candidate line names its format" \
	test "$(grep -c '^# score=' "$TMP/vtext")" = "$(grep -cE '^# score=[0-9]+ format=(x86-64|intel-vtd) ' "$TMP/vtext")"
check "no table is listed twice" test -z "$(word "$TMP/vtext" root | sort | uniq -d)"
check "the x86-64 listing is unchanged but for the VT-d device's root" \
	test "$(grep '^# score=' "$TMP/vtext" | grep -v 'root_of=dev$')" = "$(grep '^# score=' "$TMP/text")"
check "the process tables: format=x86-64, not [vtd]" \
	test "$(grep -cE '^# score=[0-9]+ format=x86-64 kind=process(_user)? ' "$TMP/vtext")" = 15
grep -A1 -E '^# score=100 format=intel-vtd kind=table space=sysmem root=0x130000 .* root_of=dev$' "$TMP/vtext" >"$TMP/vdev"
check "the VT-d device's root (a PDPT of cpu0's tree): format=intel-vtd, root_of=dev, a [vtd] section" \
	test "$(sed -n 2p "$TMP/vdev")" = "[vtd root-130000]"
check "one [vtd] section in all" test "$(grep -c '^\[vtd ' "$TMP/vtext")" = 1

# ---- filters ----------------------------------------------------------------------
"$TOOL" roots --format x86-64 "$X" >"$TMP/fx"
same "$TMP/text" "$TMP/fx" "--format x86-64 (the capture's): the same listing"
"$TOOL" roots --space sysmem "$X" >"$TMP/fs"
same "$TMP/text" "$TMP/fs" "--space sysmem (its only space): the same listing"
# --format of another format: its own geometry (no context of it), its lines only.
"$TOOL" roots --json --min-score 0 --format arm64 "$X" >"$TMP/ja"
fmts() { grep -o '"format": "[^"]*"' "$1" | sort -u | tr '\n' ' '; }
check "--format arm64: arm64 lines only ($(fmts "$TMP/ja"))" \
	test -z "$(fmts "$TMP/ja" | sed 's/"format": "arm64" //')"
check "--format arm64: the format's own geometry" grep -q '"geometries": 1,' "$TMP/ja"
check "--format arm64: no x86-64 rule (no process kind)" test "$(grep -c '"root_kind": "process' "$TMP/ja")" = 0
"$TOOL" roots --json --format x86-64 "$X" >"$TMP/jx"
check "--format x86-64: x86-64 lines only" test "$(fmts "$TMP/jx")" = '"format": "x86-64" '
check "--min-score 0 lists at least what the default lists" \
	test "$(grep -c '^# score' "$TMP/all")" -ge "$(grep -c '^# score' "$TMP/text")"

# ---- JSON ---------------------------------------------------------------------------
"$TOOL" roots --json "$X" >"$TMP/json"
if python3 - "$TMP/json" "$TMP/text" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
text = [l for l in open(sys.argv[2]) if l.startswith("# score=")]
objs = [json.loads(l, object_pairs_hook=lambda kv: (
    [k for k, _ in kv] == sorted(k for k, _ in kv) or sys.exit("keys not sorted: %s" % kv), dict(kv))[1])
    for l in lines]
assert len(objs) == len(text) + 1, (len(objs), len(text))
assert "summary" in objs[-1] and objs[-1]["summary"]["candidates"] == len(text)
for o, t in zip(objs, text):
    assert ("root=%s " % o["pa"]) in t and ("score=%d " % o["score"]) in t, (o, t)
    assert o["section"].startswith("[cpu root-%s]\n" % o["pa"][2:]), o
    assert ("kind=%s " % o["root_kind"]) in t and ("valid=%d " % o["valid_entries"]) in t, (o, t)
    assert isinstance(o["uncaptured"], int) and isinstance(o["levels_clean"], int)
EOF
then ok "--json: one sorted object per candidate, as the text, then the summary"; else bad "--json"; fi

# ---- --iommu TYPE (issue #32 item 4) ---------------------------------------------------
"$TOOL" roots --iommu intel-vtd "$FIX/iommu-vtd.tar.gz" >"$TMP/io" 2>/dev/null
check "--iommu intel-vtd: the root table of iommu-vtd, legacy, root_of its [iommu] section" \
	grep -q '^# score=[0-9]* type=intel-vtd mode=legacy space=sysmem table=0x100000 devices=6 .* root_of=dmar0$' "$TMP/io"
check "--iommu intel-vtd: the section to paste" grep -qx 'rtaddr = 0x100000' "$TMP/io"
"$TOOL" roots --iommu amd-vi "$X" >"$TMP/io" 2>&1
check "--iommu on x86-64 page tables: no candidate" grep -qx '# summary: 0 amd-vi table candidates; [0-9]* pages decoded' "$TMP/io"
"$TOOL" roots --json --iommu arm-smmuv3 "$FIX/iommu-smmu.tar.gz" 2>/dev/null >"$TMP/io.json"
if python3 - "$TMP/io.json" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
c, s = rows[0], rows[-1]["summary"]
assert c["type"] == "arm-smmuv3" and c["mode"] == "2-level" and c["strtab_base_cfg"] == "0x1020b", c
assert c["root_of"] == "smmu0" and c["section"].startswith("[iommu root-300000]\ntype = arm-smmuv3\n"), c
assert s == {"candidates": 1, "pages": s["pages"], "type": "arm-smmuv3"}, s
EOF
then ok "--iommu --json: registers, root_of, the section, the summary"; else bad "--iommu --json"; fi

"$TOOL" roots --format amd-vi "$FIX/iommu-amdvi.tar.gz" >"$TMP/io" 2>/dev/null
check "--format amd-vi: its last line points at --iommu amd-vi" \
	test "$(tail -n1 "$TMP/io")" = "# (these are amd-vi page tables; the IOMMU's own tables: --iommu amd-vi)"
# hostile: 65,536 DTEs, each its own domain with a root outside memory: bounded work (IO_MAX_DOMS)
mkdir -p "$TMP/dte"
python3 - "$TMP/dte" <<'EOF'
import struct, sys
mem = bytearray(2 << 20)
for i in range(65536):   # V, TV, Mode 1, a root per device past the capture
    struct.pack_into('<Q', mem, 32 * i, 3 | 1 << 9 | (0x100000000 + i * 0x1000))
open(sys.argv[1] + "/mem.bin", "wb").write(mem)
open(sys.argv[1] + "/capture.ini", "w").write("[capture]\nversion = 1\nformat = x86-64\n\n[memory m]\n"
    "space = sysmem\nbase = 0x0\nfile = mem.bin\n\n[cpu a]\ncr3 = 0x1000\n")
EOF
timeout 60 "$TOOL" roots --iommu amd-vi --min-score 0 "$TMP/dte" >"$TMP/io" 2>/dev/null
check "--iommu amd-vi: 65,536 domains outside memory end, bounded, with no candidate" \
	grep -qx '# summary: 0 amd-vi table candidates; 1 pages decoded' "$TMP/io"

# ---- memory alone: roots loads a capture with no context (pt_load_opts memory_only) ----
# A dump with no page-table root of its own (an arm64 guest without
# VMCOREINFO) is what roots is for; every other command still refuses it.
mkdir -p "$TMP/memonly"
cp "$TMP/dte/mem.bin" "$TMP/memonly/"
printf '[capture]\nversion = 1\nformat = x86-64\n\n[memory m]\nspace = sysmem\nbase = 0x0\nfile = mem.bin\n' \
	>"$TMP/memonly/capture.ini"
fails "info on [memory] alone: no context" 'capture.ini:1: no context: an x86-64 capture needs at least one \[cpu NAME\]' \
	"$TOOL" info "$TMP/memonly"
timeout 60 "$TOOL" roots --iommu amd-vi --min-score 0 "$TMP/memonly" >"$TMP/io" 2>"$TMP/io.err"
check "roots loads [memory] alone and scans it" \
	grep -qx '# summary: 0 amd-vi table candidates; 1 pages decoded' "$TMP/io"

# ---- bad arguments --------------------------------------------------------------------
fails "no CAPTURE" 'E_USAGE: roots: needs CAPTURE' "$TOOL" roots
fails "two captures" 'E_USAGE: roots: needs CAPTURE' "$TOOL" roots "$X" "$X"
fails "unknown option" 'E_USAGE' "$TOOL" roots --bogus "$X"
fails "--format missing its value" 'E_USAGE' "$TOOL" roots "$X" --format
fails "unknown --format" "E_VALUE: roots: unknown --format 'nope' \(nv-gmmu-ver2, " "$TOOL" roots --format nope "$X"
fails "--space the format lacks" "E_NOTFOUND: roots: no space 'vidmem' in x86-64" "$TOOL" roots --space vidmem "$X"
fails "--min-score 101" "E_VALUE: roots: bad --min-score '101' \(0 to 100\)" "$TOOL" roots --min-score 101 "$X"
fails "--min-score bare hex" "E_VALUE: roots: bad --min-score '1a'.*0x" "$TOOL" roots --min-score 1a "$X"
fails "unknown --iommu" "E_VALUE: roots: unknown --iommu 'nope' \(intel-vtd, amd-vi or arm-smmuv3\)" "$TOOL" roots --iommu nope "$X"
fails "--iommu with --format" "E_USAGE: roots: --iommu and --format are two scans" "$TOOL" roots --iommu intel-vtd --format intel-vtd "$X"
fails "a capture that does not exist" 'E_' "$TOOL" roots "$TMP/nothing"
expect "--help" 0 'Usage: ptfs-tool roots' "$TOOL" roots --help

report
exit $?
