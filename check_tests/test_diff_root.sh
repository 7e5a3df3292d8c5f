#!/bin/bash
# test_diff_root.sh — ptfs-tool diff of two captures whose context has its
# root elsewhere (issue #39 item 8): two snapshots of a vCPU that ran two
# processes.  Built here with ptfs-tool build, then copied with only a CR3
# changed:
#   - moved: B has cpu1's root page at another address (the same tables):
#     one line says the root moved and the mappings are the same, exit 0;
#   - other: B's cpu1 CR3 is cpu0's root (another address space): the root
#     line comes first, then the changes, exit 1; --json carries it as a
#     "root" record (info's root_address/root_space keys, old and new);
#   - --same-root-only: cpu1 is not compared (its root line says so, exit
#     1), cpu0 still is.
# Environment (check_tests/meson.build): PTFS_TOOL.
set -u
export LC_ALL=C
TOOL=${PTFS_TOOL:?PTFS_TOOL is not set}
. "$(dirname "$0")/mount_lib.sh"
ml_tmpdir diff_root
. "$(dirname "$0")/cli_lib.sh"
cd "$TMP" || exit 1

printf '[capture]\nversion = 1\nformat = x86-64\n\n[cpu cpu1]\nmap = 0x400000 8K sysmem 0x10000 writable\nmap = 0x7f0000000000 4K sysmem 0x20000\n\n[cpu cpu0]\nmap = 0x400000 4K sysmem 0x30000\n' >spec.ini
rc "build A" 0 "$TOOL" build spec.ini A
root1=$(sed -n '/^\[cpu cpu1\]/,/^$/s/^cr3 = //p' A/capture.ini)
root0=$(sed -n '/^\[cpu cpu0\]/,/^$/s/^cr3 = //p' A/capture.ini)
base=$(sed -n 's/^base = //p' A/capture.ini)
size=$(stat -c %s A/mem/sysmem.bin)
[ -n "$root1" ] && [ -n "$root0" ] && [ "$root1" != "$root0" ] && ok || bad "A: two roots ($root1, $root0)"

# moved: cpu1's root page copied to the end of the memory, its CR3 there
cp -r A moved
off=$((root1 - base))
dd if=A/mem/sysmem.bin of=moved/mem/sysmem.bin bs=4096 skip=$((off / 4096)) count=1 seek=$((size / 4096)) conv=notrunc status=none
new=$(printf '0x%x' $((base + size)))
sed -i "/^\[cpu cpu1\]/,/^$/s/^cr3 = .*/cr3 = $new/" moved/capture.ini
run "$TOOL" diff A moved
if [ "$RC" = 0 ] && [ "$(sed -n 1p "$TMP/out")" = "cpu1 root A sysmem:$root1 B sysmem:$new: the same mappings (the tables moved)" ] &&
	! grep -qE ' (added|removed|remapped|changed) ' "$TMP/out"; then ok; else bad "diff, root moved: one line, exit 0: rc $RC $OUT"; fi
hasnt "diff, root moved: cpu0 has no root line" '^cpu0 root'

# other: cpu1's CR3 is cpu0's root
cp -r A other
sed -i "/^\[cpu cpu1\]/,/^$/s/^cr3 = .*/cr3 = $root0/" other/capture.ini
run "$TOOL" diff A other
if [ "$RC" = 1 ] && [ "$(sed -n 1p "$TMP/out")" = "cpu1 root A sysmem:$root1 B sysmem:$root0: different address spaces" ] &&
	[ "$(sed -n '2,$p' "$TMP/out" | grep -c '^cpu1 0x')" -ge 2 ]; then ok; else bad "diff, other address space: the root line first, then the changes, exit 1: rc $RC $OUT"; fi
hasnt "diff, other address space: cpu0 unchanged" '^cpu0 (root|0x)'
run "$TOOL" diff --json A other
js "diff --json: the root record first, then the changes" \
	"j[0]=={'change': 'root', 'compared': True, 'context': 'cpu1', 'new': {'root_address': '$root0', 'root_space': 'sysmem'}, 'old': {'root_address': '$root1', 'root_space': 'sysmem'}, 'same_mappings': False} and [r['change'] for r in j[1:]].count('removed')>=1"
run "$TOOL" diff A other cpu1
if [ "$RC" = 1 ] && [ "$(sed -n 1p "$TMP/out")" = "cpu1 root A sysmem:$root1 B sysmem:$root0: different address spaces" ]; then ok; else bad "diff CONTEXT: the root line too: rc $RC $OUT"; fi

# --same-root-only: cpu1 skipped, cpu0 compared
run "$TOOL" diff --same-root-only A other
if [ "$RC" = 1 ] && [ "$OUT" = "cpu1 root A sysmem:$root1 B sysmem:$root0: different roots: not compared (--same-root-only)" ]; then ok; else bad "diff --same-root-only: one line, exit 1: rc $RC $OUT"; fi
run "$TOOL" diff --same-root-only --json A other
# one line: js reads it as one object
js "diff --same-root-only --json: compared false, same_mappings null" \
	"j['change']=='root' and j['context']=='cpu1' and j['compared'] is False and j['same_mappings'] is None"
rc "diff --same-root-only of one context whose root is the same" 0 "$TOOL" diff --same-root-only A other cpu0
if [ ! -s "$TMP/out" ]; then ok; else bad "diff --same-root-only cpu0: nothing: $OUT"; fi
rc "diff --same-root-only --fetch-lines: the context is skipped" 0 "$TOOL" diff --same-root-only --fetch-lines A other
if [ ! -s "$TMP/out" ]; then ok; else bad "diff --same-root-only --fetch-lines: nothing: $OUT"; fi
rc "diff --same-root-only of two equal captures" 0 "$TOOL" diff --same-root-only A A

report
