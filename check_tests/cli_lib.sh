# cli_lib.sh — the checks test_cli.sh and test_cli_more.sh share: run a
# command and keep its output, exit status and stderr (run, rc, err), match
# its output (has, hasnt), check its JSON (js, decoded), walk every line of
# an .expect file (walk_expect) and check an export (export_ok).  Sourced
# after mount_lib.sh (ok, bad, TMP) with TOOL, FIX and DATA set; never run.

# run CMD...: OUT, ERR, RC of the command.
run() {
	"$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	# $(<FILE) is $(cat FILE) without a cat process (two per check add up)
	OUT=$(<"$TMP/out")
	ERR=$(<"$TMP/err")
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

# walk_expect CAPTURE EXPECT: every line of EXPECT (CONTEXT VA mapped SPACE PA
# SIZE ... | CONTEXT VA fault FAULT LEVEL [APERTURE [SPACE PA]]) matches a
# --json walk of its VA.  With --all-entries: a device an [iommu] section's
# table blocks or aborts is a context only then (docs/design.md §2.7), and
# the expect files walk those too.
walk_expect() {
	local cap=$1 expect=$2 ctx vas
	for ctx in $(grep -v '^#' "$expect" | awk '{print $1}' | sort -u); do
		vas=$(grep -v '^#' "$expect" | awk -v c="$ctx" '$1 == c {print $2}')
		# shellcheck disable=SC2086
		run "$TOOL" walk --all-entries --json "$cap" "$ctx" $vas
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
        if "final" in l:
            # two stages: ... final SPACE PA, where the stage-1 result lands (docs/design.md §2.8)
            k = l.index("final")
            got += (r.get("final_space"), int(r.get("final_pa", "0x0"), 16))
            want += (l[k + 1], int(l[k + 2], 16))
    elif l[2] == "aperture":
        # outside the table, translated by the memory controller: a result (docs/design.md §2.2)
        got = (r.get("status"), r.get("aperture_name"), r.get("space"), int(r.get("pa", "0x0"), 16), r.get("fault"))
        want = ("aperture", l[3], l[4], int(l[5], 16), None)
    else:
        fault = r.get("fault")
        if fault == "stage2":
            fault += ":" + r["stage2"]["fault"]   # stage2:KIND, as the text trace
        got = [r.get("status"), fault, r.get("level", "-")]
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
		# an [iommu] section's own tables (ptfs(1), The IOMMU tree): entry files, no context
		if [ ! -e "$c/maps" ] && ls "$c" | grep -qx 'root\|dte\|ste\|l1'; then
			[ -z "$(find "$c" -type l)" ] && ok || bad "$name: $c holds links"
			continue
		fi
		[ -f "$c/info" ] && [ -f "$c/maps" ] && [ -d "$c/va" ] && [ -d "$c/walk" ] && ok ||
			bad "$name: $c lacks info, maps, va/ or walk/"
		[ -z "$(ls -A "$c/walk")" ] && ok || bad "$name: $c/walk is not empty"
		# Every link target is a leaf entry file that says mapped (one grep
		# -L over the first 50 links names each one that does not).
		n=$(find "$c/va" -type l | head -50 | xargs -r -d '\n' grep -L '^state: mapped$' | wc -l)
		[ "$n" = 0 ] && ok || bad "$name: $n va/ links to entries that are not mapped"
	done
}
