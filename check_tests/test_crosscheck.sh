#!/bin/bash
# test_crosscheck.sh — ptfs-tool crosscheck (issue #24 item 2) on the
# xcheck-mirror fixture and the cross-format xcheck-gpuvm (x86-64 against
# amd-gpuvm) and a built arm64/nv-gmmu-ver3 pair, against the answers fixtures/mkfixtures composed from the
# planted layouts (fixtures/*.crosscheck): every verdict kind,
# the rights that differ, run merging, --range, exit codes, the JSON shape,
# and the errors (a context that does not exist, a bad range, usage).
#
# Environment (check_tests/meson.build): PTFS_TOOL, PTFS_FIXTURES.
set -u
TOOL=${PTFS_TOOL:?}
FIX=${PTFS_FIXTURES:?}
. "$(dirname "$0")/mount_lib.sh"
ml_tmpdir crosscheck
X=$FIX/xcheck-mirror.tar.gz

# brief: a crosscheck text listing as the .crosscheck file states it (each
# side SPACE:PA, or the state of a side without a page; the summary's `# `
# dropped).
brief() {
	awk '$1 == "#" { sub(/^# /, ""); print; next }
	     { a = ($4 == "-") ? $6 : $4; b = ($7 == "-") ? $9 : $7
	       printf "%s %s %s %s %s%s\n", $1, $2, $3, a, b, (NF >= 10 ? " " $10 : "") }' "$1"
}

# The whole answer, line by line.
"$TOOL" crosscheck "$X" proc svm >"$TMP/text" 2>"$TMP/err"
rc=$?
if [ "$rc" = 1 ]; then ok "differences: exit 1"; else bad "differences: exit $rc ($(cat "$TMP/err"))"; fi
if [ ! -s "$TMP/err" ]; then ok "no warnings"; else bad "stderr: $(cat "$TMP/err")"; fi
grep -v '^#' "$FIX/xcheck-mirror.crosscheck" | sed 's/  #.*//' >"$TMP/want"
brief "$TMP/text" >"$TMP/got"
same "$TMP/want" "$TMP/got" "crosscheck proc svm gives the composed answer of xcheck-mirror.crosscheck"
for v in same pa_differs perm_differs only_a only_b; do
	if awk -v v="$v" '$3 == v' "$TMP/text" | grep -q .; then ok "verdict $v planted and found"; else bad "no $v line"; fi
done
for r in writable user executable; do
	if grep -Eq "perm_differs .* differs=$r\$" "$TMP/text"; then ok "perm_differs $r alone"; else bad "no perm_differs of $r alone"; fi
done
# Merging: four same 4K pages are one 16K line, two pa_differs pages one 8K
# line; adjacent same pages whose PAs do not continue stay two lines.
if grep -Eq '^0x0000000000000000-0x0000000000004000 +16K same ' "$TMP/text"; then ok "four same pages: one line"; else bad "same pages not merged"; fi
if grep -Eq '^0x0000000000004000-0x0000000000006000 +8K pa_differs ' "$TMP/text"; then ok "two pa_differs pages: one line"; else bad "pa_differs pages not merged"; fi
if grep -q '^0x000000000000d000-0x000000000000e000 ' "$TMP/text" && grep -q '^0x000000000000e000-0x000000000000f000 ' "$TMP/text"; then
	ok "PAs that do not continue: not merged"
else
	bad "PAs that do not continue: merged"
fi
if grep -Eq '^0x0000000000400000-0x0000000000600000 +2M same +sysmem:0x0000000000a00000 2M .* sysmem:0x0000000000a00000 4K ' "$TMP/text"; then
	ok "one 2M page against 512 4K pages: one same line"
else
	bad "2M against 4K pages"
fi
if grep -Eq ' - - not_captured$' "$TMP/text"; then ok "a side not captured says so"; else bad "not_captured side"; fi
if [ "$(tail -n 1 "$TMP/text")" = "# summary: same 5, pa_differs 1, perm_differs 4, only_a 2, only_b 1" ]; then
	ok "summary line last, counts per verdict"
else
	bad "summary: $(tail -n 1 "$TMP/text")"
fi

# The other way round: only_a and only_b swap, the rest stays.
"$TOOL" crosscheck "$X" svm proc >"$TMP/rev" 2>&1
if [ "$(awk '$3 == "only_b"' "$TMP/rev" | wc -l)" = 2 ] && [ "$(awk '$3 == "only_a"' "$TMP/rev" | wc -l)" = 1 ] &&
	[ "$(tail -n 1 "$TMP/rev")" = "# summary: same 5, pa_differs 1, perm_differs 4, only_a 1, only_b 2" ]; then
	ok "B against A: only_a and only_b swap"
else
	bad "B against A: $(tail -n 1 "$TMP/rev")"
fi

# Exit 0: a context against itself, a window where the mirror agrees.
expect "a context against itself: exit 0" 0 '^# summary: same [1-9][0-9]*, pa_differs 0, perm_differs 0, only_a 0, only_b 0$' \
	"$TOOL" crosscheck "$X" proc proc
expect "--range where both agree: exit 0" 0 '^0x0000000000000000-0x0000000000004000 +16K same ' \
	"$TOOL" crosscheck --range 0x0-0x3fff "$X" proc svm
# --range: lines cut to the window, PAs of its first VA; nothing outside it.
"$TOOL" crosscheck "$X" proc svm --range 0x5000-0x6fff >"$TMP/win" 2>&1
rc=$?
if [ "$rc" = 1 ] && [ "$(grep -vc '^#' "$TMP/win")" = 2 ] &&
	grep -Eq '^0x0000000000005000-0x0000000000006000 +4K pa_differs +sysmem:0x0000000000301000 ' "$TMP/win" &&
	grep -Eq '^0x0000000000006000-0x0000000000007000 +4K perm_differs ' "$TMP/win"; then
	ok "--range cuts lines to the window"
else
	bad "--range: exit $rc, $(head -c 300 "$TMP/win")"
fi
expect "--range nothing maps: exit 0, all counts 0" 0 '^# summary: same 0, pa_differs 0, perm_differs 0, only_a 0, only_b 0$' \
	"$TOOL" crosscheck "$X" proc svm --range 0x100000-0x1fffff
if [ "$(wc -l <"$TMP/out")" = 1 ]; then ok "--range nothing maps: the summary alone"; else bad "empty window: $(cat "$TMP/out")"; fi

# JSON Lines: one object per line, keys sorted, the shape ptfs-tool(1) gives.
"$TOOL" crosscheck --json "$X" proc svm >"$TMP/json" 2>&1
rc=$?
if [ "$rc" = 1 ]; then ok "--json: exit 1"; else bad "--json: exit $rc"; fi
if python3 - "$TMP/json" "$TMP/text" <<'PY'; then ok "--json: JSON Lines, keys sorted, same lines as text, summary last"; else bad "--json shape"; fi
import json, sys
lines = open(sys.argv[1]).read().splitlines()
text = [l for l in open(sys.argv[2]).read().splitlines() if not l.startswith("#")]
objs = [json.loads(l, object_pairs_hook=lambda kv: (
    [k for k, _ in kv] == sorted(k for k, _ in kv) or sys.exit("keys not sorted: %s" % kv)) and dict(kv))
    for l in lines]
*rows, summ = objs
assert list(summ) == ["summary"], summ
assert summ["summary"] == {"same": 5, "pa_differs": 1, "perm_differs": 4, "only_a": 2, "only_b": 1}, summ
assert len(rows) == len(text), (len(rows), len(text))
for r, t in zip(rows, text):
    f = t.split()
    assert set(r) == {"rights", "side_a", "side_b", "size", "va_end", "va_start", "verdict"}, r
    assert f[0] == "%s-%s" % ("0x%016x" % int(r["va_start"], 16), "0x%016x" % int(r["va_end"], 16)), (f, r)
    assert int(r["size"], 16) == int(r["va_end"], 16) - int(r["va_start"], 16)
    assert r["verdict"] == f[2]
    assert isinstance(r["rights"], list)
    assert (r["rights"] != []) == (r["verdict"] == "perm_differs"), r
    if r["rights"]:
        assert f[-1] == "differs=" + ",".join(r["rights"]), (f, r)
    for side, col in (("side_a", 3), ("side_b", 6)):
        s = r[side]
        if s["state"] == "mapped":
            assert set(s) == {"flags", "kind_name", "pa", "page_size", "space", "state"}, s
            assert isinstance(s["flags"], list) and all(isinstance(x, str) for x in s["flags"])
            assert f[col] == "%s:0x%016x" % (s["space"], int(s["pa"], 16)), (f, s)
            assert s["page_size"].startswith("0x")
        else:
            assert set(s) == {"state"} and f[col + 2] == s["state"], (f, s)
PY

# Across formats: xcheck-gpuvm, an x86-64 process and an amd-gpuvm VMID in one
# mixed capture, compared in their common space sysmem (vram pages too), against
# fixtures/xcheck-gpuvm.crosscheck; then B against A, whose answer is the same
# file with the sides and only_a/only_b swapped.
G=$FIX/xcheck-gpuvm.tar.gz
"$TOOL" crosscheck "$G" proc vmid >"$TMP/gtext" 2>"$TMP/gerr"
rc=$?
if [ "$rc" = 1 ] && [ ! -s "$TMP/gerr" ]; then ok "gpuvm: differences, exit 1, no warnings"; else bad "gpuvm: exit $rc ($(cat "$TMP/gerr"))"; fi
grep -v '^#' "$FIX/xcheck-gpuvm.crosscheck" | sed 's/  #.*//' >"$TMP/gwant"
brief "$TMP/gtext" >"$TMP/ggot"
same "$TMP/gwant" "$TMP/ggot" "crosscheck proc vmid gives the composed answer of xcheck-gpuvm.crosscheck"
for v in same pa_differs perm_differs only_a only_b; do
	if awk -v v="$v" '$3 == v' "$TMP/gtext" | grep -q .; then ok "gpuvm: verdict $v planted and found"; else bad "gpuvm: no $v line"; fi
done
for r in writable user executable; do
	if grep -Eq "perm_differs .* differs=$r\$" "$TMP/gtext"; then ok "gpuvm: perm_differs $r alone"; else bad "gpuvm: no perm_differs of $r alone"; fi
done
if grep -Eq '^0x000000000000c000-0x000000000000d000 +4K pa_differs +sysmem:0x0000000000308000 4K .* vram:0x0000000000011000 4K ' "$TMP/gtext"; then
	ok "gpuvm: sysmem against vram is pa_differs"
else
	bad "gpuvm: sysmem against vram"
fi
awk '/^summary:/ { a = $9; sub(/,/, "", a); s = $0; sub(/only_a [0-9]+, only_b [0-9]+/, "only_a " $11 ", only_b " a, s); print s; next }
     { v = $3; if (v == "only_a") v = "only_b"; else if (v == "only_b") v = "only_a"
       printf "%s %s %s %s %s%s\n", $1, $2, v, $5, $4, (NF >= 6 ? " " $6 : "") }' "$TMP/gwant" >"$TMP/grwant"
"$TOOL" crosscheck "$G" vmid proc >"$TMP/grev" 2>&1
brief "$TMP/grev" >"$TMP/grgot"
same "$TMP/grwant" "$TMP/grgot" "crosscheck vmid proc: the same answer, sides and only_a/only_b swapped"
"$TOOL" crosscheck --json "$G" proc vmid >"$TMP/gjson" 2>&1
if python3 - "$TMP/gjson" "$TMP/gtext" <<'PY'; then ok "gpuvm --json: the text's lines, each side's kind under its format's key"; else bad "gpuvm --json"; fi
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1]).read().splitlines()]
text = [l.split() for l in open(sys.argv[2]).read().splitlines() if not l.startswith("#")]
*rows, summ = objs
assert summ == {"summary": {"same": 3, "pa_differs": 2, "perm_differs": 4, "only_a": 2, "only_b": 2}}, summ
assert len(rows) == len(text)
for r, f in zip(rows, text):
    assert r["verdict"] == f[2], (r, f)
    for side, col, key in (("side_a", 3, "kind_name"), ("side_b", 6, "mtype_name")):
        s = r[side]
        if s["state"] == "mapped":
            assert key in s, s
            assert f[col] == "%s:0x%016x" % (s["space"], int(s["pa"], 16)), (f, s)
PY

# Across formats again, the issue's other pair: an arm64 process against an
# nv-gmmu-ver3 GPU mirroring it.  ptfs-tool build writes each side from its
# map lines (its encoders; every page is walked back to its line), the two
# are put in one mixed capture (the capture's format VER3, since [pdb] is
# shared by VER2 and VER3), and the answer is composed from the map lines:
# 16K at the same PAs, one page elsewhere, one read-only on the CPU only,
# one page on either side alone.
mkdir -p "$TMP/a64" && cd "$TMP/a64" || exit 1
printf '[capture]\nversion = 1\nformat = arm64\n[arm64 proc]\nhalf = lower\nspace = sysmem\ntcr = 0x500803510\n%s\n' \
	'map = 0x400000 16K sysmem 0x200000 ap_user
map = 0x404000 4K sysmem 0x300000 ap_user
map = 0x405000 4K sysmem 0x305000 ap_user,ap_rdonly
map = 0x406000 4K sysmem 0x306000 ap_user' >a.ini
printf '[capture]\nversion = 1\nformat = nv-gmmu-ver3\n[pdb gpu]\nchip = gh100\n%s\n' \
	'map = 0x400000 16K sysmem 0x200000
map = 0x404000 4K sysmem 0x301000
map = 0x405000 4K sysmem 0x305000
map = 0x407000 4K sysmem 0x307000' >b.ini
if "$TOOL" build a.ini A >/dev/null && "$TOOL" build b.ini B >/dev/null && mkdir -p C/mem &&
	cp A/mem/* B/mem/* C/mem/ && { cat B/capture.ini; echo; sed -n '/^\[arm64 proc\]/,$p' A/capture.ini; } >C/capture.ini; then
	ok "arm64 + ver3: two built sides, one mixed capture"
else
	bad "arm64 + ver3: building the sides"
fi
cat >want <<'EOF2'
0x0000000000400000-0x0000000000404000 16K same sysmem:0x0000000000200000 sysmem:0x0000000000200000
0x0000000000404000-0x0000000000405000 4K pa_differs sysmem:0x0000000000300000 sysmem:0x0000000000301000
0x0000000000405000-0x0000000000406000 4K perm_differs sysmem:0x0000000000305000 sysmem:0x0000000000305000 differs=writable
0x0000000000406000-0x0000000000407000 4K only_a sysmem:0x0000000000306000 unmapped
0x0000000000407000-0x0000000000408000 4K only_b unmapped sysmem:0x0000000000307000
summary: same 1, pa_differs 1, perm_differs 1, only_a 1, only_b 1
EOF2
"$TOOL" crosscheck C proc gpu >text 2>err
rc=$?
if [ "$rc" = 1 ] && [ ! -s err ]; then ok "arm64 + ver3: differences, exit 1, no warnings"; else bad "arm64 + ver3: exit $rc ($(cat err))"; fi
brief text >got
same want got "crosscheck of an arm64 process against an nv-gmmu-ver3 mirror: the answer composed from the map lines"
cd - >/dev/null || exit 1

# A context against itself, on every fixture: every line same, and one line
# per maps run (the same merge rule), whatever the format.
n=0 fails=
for cap in "$FIX"/*.tar.gz; do
	for ctx in $("$TOOL" info "$cap" 2>/dev/null | sed -n 's/^# //p'); do
		# stdout only: a capture's load warnings (the iommu fixtures' planted bad entries) go to stderr
		"$TOOL" crosscheck "$cap" "$ctx" "$ctx" >"$TMP/self" 2>"$TMP/self.err"
		rc=$?
		# a run whose translation faults (FINAL stage2:KIND) has no final address to compare
		runs=$("$TOOL" maps "$cap" "$ctx" 2>/dev/null | grep -v ' stage2:[a-z_]*$' | grep -vc '^#')
		lines=$(grep -vc '^#' "$TMP/self")
		# translated: a run's stage-2 pieces that do not continue are lines of their own (arm64-guest)
		if tar -xzOf "$cap" capture.ini 2>/dev/null | grep -q '^translate *='; then
			[ "$lines" -ge "$runs" ] && lines=$runs
		fi
		if [ "$rc" != 0 ] || [ "$runs" != "$lines" ] || [ "$(awk '$1 !~ /^#/ && $3 != "same"' "$TMP/self" | wc -l)" != 0 ]; then
			fails="$fails $(basename "$cap"):$ctx(exit $rc, $lines lines, $runs runs)"
		fi
		n=$((n + 1))
	done
done
if [ -z "$fails" ] && [ "$n" -gt 10 ]; then ok "every context of every fixture against itself: same, one line per maps run ($n contexts)"; else bad "self-crosscheck:$fails"; fi

# Errors: exit 2, one E_ line naming what is wrong.
expect "no such context A" 2 "^ptfs-tool: E_NOTFOUND: no context 'gpu' in .*; it has proc, svm$" \
	"$TOOL" crosscheck "$X" gpu svm
expect "no such context B" 2 "^ptfs-tool: E_NOTFOUND: no context 'nosuch' in .*; it has proc, svm$" \
	"$TOOL" crosscheck "$X" proc nosuch
expect "bad --range" 2 "^ptfs-tool: E_VALUE: crosscheck: bad --range '0x9-0x1'" \
	"$TOOL" crosscheck --range 0x9-0x1 "$X" proc svm
expect "--range without a dash" 2 "E_VALUE: crosscheck: bad --range '12'" \
	"$TOOL" crosscheck --range 12 "$X" proc svm
expect "two contexts needed" 2 "^ptfs-tool: E_USAGE: crosscheck: needs CAPTURE CTX_A CTX_B" \
	"$TOOL" crosscheck "$X" proc
expect "unknown option" 2 "^ptfs-tool: E_USAGE: crosscheck: unknown option '--nope'" \
	"$TOOL" crosscheck --nope "$X" proc svm
expect "missing capture" 2 '^ptfs-tool: E_[A-Z]+: ' "$TOOL" crosscheck "$TMP/none.tar.gz" proc svm
expect "--help" 0 "^Usage: ptfs-tool crosscheck " "$TOOL" crosscheck --help
report
