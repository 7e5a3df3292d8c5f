#!/bin/bash
# test_fetchlines.sh — ptfs-tool diff --fetch-lines (issue #24 item 4): the
# 128-byte table lines rewritten in place while an entry of the line was in
# use in A.  On fetch-before/fetch-after (x86-64) against the answer
# fixtures/mkfixtures composed from the plants (fixtures/fetch-after.fetchlines):
# a rewrite in a walked line is listed, one in a line never walked is not, a
# moved table's entries are not (the pointer rewritten to move it is); on the
# GMMU pairs turing-mixed/-after (rewrites in walked lines, 16-byte PDE0s)
# and turing-mixed/-relocated (every table moved: nothing).  Exact text and
# JSON, exit codes, bad arguments.
#
# Environment (check_tests/meson.build): PTFS_TOOL, PTFS_FIXTURES.
set -u
TOOL=${PTFS_TOOL:?}
FIX=${PTFS_FIXTURES:?}
. "$(dirname "$0")/mount_lib.sh"
ml_tmpdir fetchlines
A=$FIX/fetch-before.tar.gz
B=$FIX/fetch-after.tar.gz
T=$FIX/turing-mixed.tar.gz

# run DESCRIPTION STATUS COMMAND...: stdout to $TMP/got, stderr must be empty.
run() {
	local d=$1 want=$2 rc
	shift 2
	"$@" >"$TMP/got" 2>"$TMP/err"
	rc=$?
	if [ "$rc" = "$want" ] && [ ! -s "$TMP/err" ]; then ok "$d: exit $want"; else bad "$d: exit $rc ($(head -c 300 "$TMP/err"))"; fi
}

# The planted pair, against the composed answer.
run "planted pair" 1 "$TOOL" diff --fetch-lines "$A" "$B"
grep -v '^#' "$FIX/fetch-after.fetchlines" >"$TMP/want"
same "$TMP/want" "$TMP/got" "fetch-before -> fetch-after gives the composed answer of fetch-after.fetchlines"
if grep -q 'entry 33:\|0x0000000000103100' "$TMP/got"; then bad "a rewrite in a line never walked is listed"; else ok "a line none of whose entries was in use in A: not listed"; fi
if grep -q 'sysmem:0x000000000010[45]' "$TMP/got"; then bad "a moved table's entries are listed"; else ok "moved table: its entries not listed"; fi
if grep -q '^proc sysmem:0x0000000000102000 pd: ' "$TMP/got"; then ok "the pointer rewritten to move a table: listed"; else bad "the repointed PD line is missing"; fi
# the context named gives the same; one that does not exist is an error
run "context named" 1 "$TOOL" diff --fetch-lines "$A" "$B" proc
same "$TMP/want" "$TMP/got" "diff --fetch-lines A B proc: the same lines"
# no change: nothing, exit 0
run "a capture against itself" 0 "$TOOL" diff --fetch-lines "$A" "$A"
if [ ! -s "$TMP/got" ]; then ok "a capture against itself: no line"; else bad "self diff printed $(head -c 200 "$TMP/got")"; fi
# B -> A: the lines in use in B's predecessor are others: PT[1]'s line is still the one
run "reversed" 1 "$TOOL" diff --fetch-lines "$B" "$A"
if grep -q '^proc sysmem:0x0000000000103000 pt: 2 rewritten of 16 entries, 3 in use in A$' "$TMP/got"; then ok "reversed: in-use count is A's (PT[0..2] mapped in fetch-after)"; else bad "reversed: $(cat "$TMP/got")"; fi

# JSON: one object per line, exactly.
run "planted pair --json" 1 "$TOOL" diff --fetch-lines --json "$A" "$B"
cat >"$TMP/wantj" <<'J'
{"change": "fetch_line", "changed": [{"index": 1, "new": {"raw": "0x0000000000105067", "va": "0x200000"}, "old": {"raw": "0x0000000000104067", "va": "0x200000"}}], "context": "proc", "entries": 16, "in_use_in_a": 2, "level": "pd", "pa": "0x102000", "space": "sysmem"}
{"change": "fetch_line", "changed": [{"index": 1, "new": {"raw": "0x0000000000201067", "va": "0x1000"}, "old": {"raw": "0x0000000000000000", "va": "0x1000"}}, {"index": 2, "new": {"raw": "0x0000000000302067", "va": "0x2000"}, "old": {"raw": "0x0000000000202067", "va": "0x2000"}}], "context": "proc", "entries": 16, "in_use_in_a": 2, "level": "pt", "pa": "0x103000", "space": "sysmem"}
J
same "$TMP/wantj" "$TMP/got" "--json: the exact objects"
if python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$TMP/got"; then ok "--json: every line parses"; else bad "--json: not JSON Lines"; fi

# The GMMU pair: rewrites in walked lines, a 16-byte dual PDE0 shown as 32 hex digits.
run "turing-mixed -> after" 1 "$TOOL" diff --fetch-lines "$T" "$FIX/turing-mixed-after.tar.gz" pdb0
cat >"$TMP/want" <<'W'
pdb0 vidmem:0x0000000000203000 pde0: 1 rewritten of 8 entries, 7 in use in A
  entry 1: 0x00000000000000000600000004000001 -> 0x00000000000000000600000004040001 va A 0x0000000200000 B 0x0000000200000
pdb0 vidmem:0x0000000000204000 pte_small: 2 rewritten of 16 entries, 13 in use in A
  entry 0: 0x0600000001000001 -> 0x0000000000000000 va A 0x0000000400000 B 0x0000000400000
  entry 12: 0x0600000001001001 -> 0x0600000001001041 va A 0x000000040c000 B 0x000000040c000
pdb0 vidmem:0x0000000000205100 pte_big: 1 rewritten of 16 entries, 5 in use in A
  entry 6: 0x0000000000000000 -> 0x0600000002120001 va A 0x0000000860000 B 0x0000000860000
W
same "$TMP/want" "$TMP/got" "turing-mixed -> after pdb0: the walked lines rewritten in place"
run "turing-mixed -> relocated" 0 "$TOOL" diff --fetch-lines "$T" "$FIX/turing-mixed-relocated.tar.gz"
if [ ! -s "$TMP/got" ]; then ok "every table moved (root included): no line"; else bad "relocated: $(head -c 200 "$TMP/got")"; fi
# the plain diff is unchanged by the option's existence
expect "plain diff still lists mappings" 1 "remapped sysmem 0x0000000000202000 -> sysmem 0x0000000000302000" \
	"$TOOL" diff "$A" "$B"

# Another format, and aliasing: one amd-gpuvm table that points at itself
# at every level (2^36 VAs through 512 entries) is read once per level, not
# once per path; one entry zeroed in place is listed at each level the
# table is walked as, with the VA it covers there.
for d in sa sb; do
	mkdir -p "$TMP/$d/mem"
	printf '[capture]\nversion = 1\nformat = amd-gpuvm\n\n[memory t]\nspace = vram\nbase = 0x100000\nfile = mem/t.bin\n\n[vm v1]\ngfx = 9\npage_table_base_addr = 0x80100001\npage_table_end_addr = 0xfffffffff\ncntl = 0x7\nfb_offset = 0x80\n' >"$TMP/$d/capture.ini"
	for i in $(seq 0 511); do
		if [ "$d" = sb ] && [ "$i" = 5 ]; then printf '\0\0\0\0\0\0\0\0'; else printf '\x01\x00\x10\x80\x00\x00\x00\x00'; fi
	done >"$TMP/$d/mem/t.bin"
done
run "self-pointing amd-gpuvm table, one entry zeroed" 1 "$TOOL" diff --fetch-lines "$TMP/sa" "$TMP/sb"
cat >"$TMP/want" <<'W'
v1 vram:0x0000000000100000 pdb2: 1 rewritten of 16 entries, 16 in use in A
  entry 5: 0x0000000080100001 -> 0x0000000000000000 va A 0x028000000000 B 0x028000000000
v1 vram:0x0000000000100000 pdb1: 1 rewritten of 16 entries, 16 in use in A
  entry 5: 0x0000000080100001 -> 0x0000000000000000 va A 0x000140000000 B 0x000140000000
v1 vram:0x0000000000100000 pdb0: 1 rewritten of 16 entries, 16 in use in A
  entry 5: 0x0000000080100001 -> 0x0000000000000000 va A 0x000000a00000 B 0x000000a00000
v1 vram:0x0000000000100000 ptb: 1 rewritten of 16 entries, 16 in use in A
  entry 5: 0x0000000080100001 -> 0x0000000000000000 va A 0x000000005000 B 0x000000005000
W
same "$TMP/want" "$TMP/got" "self-pointing table: the line once per level it is walked as"

# Bad arguments.
expect "one capture" 2 "^ptfs-tool: E_USAGE: diff: needs CAPTURE_A CAPTURE_B" "$TOOL" diff --fetch-lines "$A"
expect "four arguments" 2 "^ptfs-tool: E_USAGE: diff: needs CAPTURE_A CAPTURE_B" "$TOOL" diff --fetch-lines "$A" "$B" proc x
expect "no such context" 2 "^ptfs-tool: E_NOTFOUND: diff: no context 'gpu' in either capture" \
	"$TOOL" diff --fetch-lines "$A" "$B" gpu
expect "unknown option" 2 "^ptfs-tool: E_USAGE: diff: unknown option '--nope'" \
	"$TOOL" diff --fetch-lines --nope "$A" "$B"
expect "missing capture" 2 '^ptfs-tool: E_[A-Z]+: ' "$TOOL" diff --fetch-lines "$TMP/none.tar.gz" "$B"
expect "--help names it" 0 "--fetch-lines" "$TOOL" diff --help
report
