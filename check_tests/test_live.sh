#!/bin/bash
# test_live.sh — the live source without QEMU (issue #33): fake_qmp.py serves
# canned QMP answers over a UNIX socket for a "guest" whose RAM file this
# script writes (x86-64 tables: CR3 0x1000 -> 0x2000 -> 0x3000 -> PT 0x4000,
# VA 0x400000 -> PA 0x5000).  Checked:
#   - hostile answers (no greeting, a line that is no greeting, garbage after
#     the greeting, a message that never ends, a greeting a byte a second,
#     RAM past the file, a 17-digit CR3, share=off, no backend file, no
#     backend, an aarch64 target, a vCPU without paging, answers without
#     the command's id): one line, exit 2, within the QMP time bound, and
#     `ptfs` mounts nothing;
#   - error lines that say what to do, each exactly (issue #39 item 6):
#     QEMU's own RAM for -m alone, a QMP failure on the first qom-get, a
#     size that is no byte count, a vCPU held at reset;
#   - a live mount reads the file as it is now: walk/ at once, the cached
#     maps after -o refresh; -o pause stops a running guest for a render and
#     continues it, and leaves a stopped one stopped; QEMU going away makes
#     reads fail with EIO and one log line; -o refresh on a file capture is
#     refused;
#   - ptfs-tool snapshot: a snapshot taken before the guest maps its second
#     page does not map it while the live guest does, `diff` of two snapshots
#     is exactly that page, the archive holds the four table pages and
#     nothing else, two snapshots of one state are the same bytes, a running
#     guest is stopped for the copy and continued, a stopped one left alone;
#     a bad OUT or a capture of a file is one line;
#   - -o pause when QEMU answers a stop or cont late, not at all, twice, or
#     after a stale answer: each command takes its own answer, the guest
#     runs after each render and after the unmount (issue #39 item 2);
#   - a vCPU's CR3 changed by the fake server is read again at refresh
#     (maps, info, walk/ follow it), and a root page overwritten with
#     garbage gives '# root ... no longer holds a page table' in maps and
#     info (issue #39 item 7);
#   - a whole-context file rendered while a table changes under it (a
#     writer flipping one entry of a guest of 32 page tables) ends in
#     `# changed while read`; one rendered while nothing changes, or under
#     -o pause, does not.
set -u
export LC_ALL=C
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/mount_lib.sh"
. "$HERE/live_lib.sh"
FIX=${PTFS_FIXTURES:?}
live_setup live

# The RAM file: 1 MiB, 4-level tables, one 4 KiB page.
live_ram "$TMP/ram" <<'EOF'
put(0x1000, 0x2000 | 7); put(0x2000, 0x3000 | 7); put(0x3000 + 2 * 8, 0x4000 | 7); put(0x4000, 0x5000 | 7)
EOF


# ---- hostile answers: one line, bounded, nothing mounted ----
for t in "silent|no QMP greeting within 3000 ms" \
	 "nogreet|not a QMP message" \
	 "garbage|not a QMP message \\(JSON object\\)" \
	 "endless|no answer within|longer than" \
	 "slow|no answer within|no QMP greeting" \
	 "mtree_past|info mtree -f:[0-9]+: RAM 0x100000000-0x1000fffff @0x80000 lies past the backend's 0x100000 bytes" \
	 "hugereg|CPU#0 CR3 is not a hex value of at most 16 digits" \
	 "noshare|is not shared \\(share=off\\)" \
	 "nofile|has no file \\(not a memory-backend-file\\)" \
	 "nobackend|the guest's RAM is not a memory backend" \
	 "arm|an aarch64 guest's TTBR0_EL1, TTBR1_EL1 and TCR_EL1 come from QEMU's gdbstub" \
	 "nopaging|no vCPU is in 64-bit mode with paging" \
	 "noid|QMP: a QMP answer without the command's \"id\": '\\{\"return\": \\{\\}\\}'$"; do
	s=${t%%|*} re=${t#*|}
	serve "$s"
	start=$SECONDS
	fails "$s: ptfs-tool says one line" "$re" timeout 30 "$TOOL" info "$TMP/$s.sock" cpu0
	[ $((SECONDS - start)) -le 8 ] && ok "$s: answered within the QMP bound" ||
		bad "$s: took $((SECONDS - start)) s"
	mkdir -p "$TMP/m-$s"
	timeout 30 "$PTFS" "$TMP/$s.sock" "$TMP/m-$s" 2>"$TMP/m-$s.err"
	rc=$?
	[ $rc != 0 ] && not_mounted "$TMP/m-$s" && [ "$(wc -l <"$TMP/m-$s.err")" = 1 ] &&
		ok "$s: ptfs mounts nothing, one line" || bad "$s: ptfs exit $rc: $(cat "$TMP/m-$s.err")"
	stop_srv
done

# ---- error lines that say what to do (issue #39 item 6): each exactly ----
E="ptfs-tool: E_CAPTURE: "
MB="-object memory-backend-file,id=ram,mem-path=FILE,share=on,size=SIZE -machine memory-backend=ram"
SZ="not a number of bytes from 1 to 2^64-1"
for t in "implicit|RAM backend /objects/pc.ram is anonymous memory, not a file (QEMU makes it so for -m alone, and share=on cannot be added to it): start QEMU with $MB" \
	 "qomclose|QMP: qom-get /machine memory-backend: the socket was closed (QEMU exited?)" \
	 "qomsilent|QMP: qom-get /machine memory-backend: no answer within 3000 ms" \
	 "qomjson|QMP: qom-get /machine memory-backend: not a QMP message (JSON object): '{\"return\": /objects/ram}'" \
	 "sizeneg|RAM backend /objects/ram: its size is -1, $SZ" \
	 "sizestr|RAM backend /objects/ram: its size is \"1M\", $SZ" \
	 "sizefloat|RAM backend /objects/ram: its size is 1.5, $SZ" \
	 "sizehuge|RAM backend /objects/ram: its size is 18446744073709551616, $SZ" \
	 "atreset|no vCPU is in 64-bit mode with paging: CPU#0 is in real mode (CR0.PE clear); a guest held at reset (-S) or still in its firmware has no page tables yet: mount it once it has booted"; do
	s=${t%%|*} line=${t#*|}
	serve "$s"
	"$TOOL" info "$TMP/$s.sock" cpu0 >"$TMP/fo" 2>"$TMP/fe"
	rc=$?
	[ $rc = 2 ] && [ ! -s "$TMP/fo" ] && [ "$(cat "$TMP/fe")" = "$E$TMP/$s.sock: $line" ] &&
		ok "$s: the line says what to do" || bad "$s: exit $rc: $(cat "$TMP/fe")"
	stop_srv
done

# ---- a live mount ----
serve good
mnt=$TMP/mnt
start_fg "$TMP/good.sock" "$mnt" -- -o refresh=0.5 || bad "ptfs mounts the fake guest"
expect "walk/ reads the tables" 0 "result: mapped pa=sysmem:0x5000 " cat "$mnt/cpu0/walk/0x400000"
expect "capture says the source is live" 0 "x-live: QEMU 7.2.0 over QMP" cat "$mnt/capture"
expect "walk/ of the next page faults" 0 "result: fault=" cat "$mnt/cpu0/walk/0x401000"
cat "$mnt/cpu0/maps" >"$TMP/maps0"
grep -q 0x401000 "$TMP/maps0" && bad "maps before the change has no 0x401000" || ok "maps before the change has no 0x401000"
cat "$mnt/pa/sysmem/0x6000" >"$TMP/pa0" 2>&1
grep -q 0x401000 "$TMP/pa0" && bad "pa/sysmem/0x6000 before the change names no VA" || ok "pa/sysmem/0x6000 before the change names no VA"
# the reverse index is kept while the tables are unchanged (issue #39 item 10): a second address
expect "pa/sysmem/0x5008 names the VA of the first page" 0 "cpu0 0x0*400008 " cat "$mnt/pa/sysmem/0x5008"
# snapshots before the change: the same state gives the same bytes
: >"$TMP/good.sock.log"
expect "snapshot of the stopped guest" 0 "snap1.tar.gz: 1 contexts, 4 table pages \\(16384 bytes\\) copied .*it was stopped already, and is left so" \
	"$TOOL" snapshot "$TMP/good.sock" "$TMP/snap1.tar.gz"
check "snapshot: a guest the user stopped is neither stopped nor continued" \
	test "$(grep -c '"stop"\|"cont"' "$TMP/good.sock.log")" = 0
"$TOOL" snapshot "$TMP/good.sock" "$TMP/snap1b.tar.gz" >/dev/null
check "two snapshots of one state are the same bytes" cmp -s "$TMP/snap1.tar.gz" "$TMP/snap1b.tar.gz"
check "the archive holds capture.ini and the table pages, nothing else" \
	test "$(tar tzvf "$TMP/snap1.tar.gz" | awk '{print $3, $6}' | tr '\n' ' ')" = "$(printf '%s ' \
	"$(tar xzOf "$TMP/snap1.tar.gz" capture.ini | wc -c) capture.ini" "16384 mem/sysmem.bin")"
tar xzOf "$TMP/snap1.tar.gz" mem/sysmem.bin >"$TMP/snap1.bin"
check "its pages are the four tables 0x1000-0x4fff of the RAM file" cmp -s "$TMP/snap1.bin" \
	<(dd if="$TMP/ram" bs=4096 skip=1 count=4 status=none)
expect "its [memory] is the one run of table pages" 0 "^length = 0x4000$" tar xzOf "$TMP/snap1.tar.gz" capture.ini
expect "info of the snapshot counts one table per level" 0 "level.pt: tables 1 entries 1 mapped 1" \
	"$TOOL" info "$TMP/snap1.tar.gz" cpu0
"$TOOL" snapshot "$TMP/good.sock" "$TMP/snapdir" >/dev/null
check "a snapshot into a new directory" test -s "$TMP/snapdir/capture.ini" -a -s "$TMP/snapdir/mem/sysmem.bin"
fails "snapshot into a non-empty directory: one line" "E_USAGE: snapshot: .*snapdir is not empty" \
	"$TOOL" snapshot "$TMP/good.sock" "$TMP/snapdir"
fails "snapshot of a capture of a file: one line" "E_USAGE: snapshot: .* is a capture of a file, not a live guest" \
	"$TOOL" snapshot "$FIX/x86-64-4level.tar.gz" "$TMP/snapx.tar.gz"
check "and writes nothing" test ! -e "$TMP/snapx.tar.gz"
# the guest maps a second page: PT[1] -> 0x6000
python3 -c "
import os, struct
fd = os.open('$TMP/ram', os.O_WRONLY); os.pwrite(fd, struct.pack('<Q', 0x6000 | 7), 0x4008); os.close(fd)"
expect "walk/ sees the change at once" 0 "result: mapped pa=sysmem:0x6000 " cat "$mnt/cpu0/walk/0x401000"
expect "va/ lists the new page" 0 "0x0000000000401000" ls "$mnt/cpu0/va"
# pa/sysmem/0x6000 was looked up (and not found) above: the kernel keeps
# that answer for the refresh time, as ptfs(1) -o refresh says
sleep 0.6
expect "pa/ finds the new page after -o refresh=0.5 (its index is built again on a live mount)" 0 \
	"cpu0.*0x0*401000" cat "$mnt/pa/sysmem/0x6000"
# an address never looked up (nothing the kernel keeps): the daemon's own index saw the change
expect "pa/sysmem/0x6010, looked up for the first time: the kept index was built again" 0 \
	"^cpu0 0x0*401010 " cat "$mnt/pa/sysmem/0x6010"
expect "maps shows it after -o refresh=0.5" 0 "0x0*400000-0x0*402000 +8K" cat "$mnt/cpu0/maps"
"$TOOL" snapshot "$TMP/good.sock" "$TMP/snap2.tar.gz" >/dev/null
expect "the snapshot taken before does not map the new page" 0 "result: fault=unmapped" \
	"$TOOL" walk "$TMP/snap1.tar.gz" cpu0 0x401000
expect "the one taken after does, as the live guest" 0 "result: mapped pa=sysmem:0x6000 " \
	"$TOOL" walk "$TMP/snap2.tar.gz" cpu0 0x401000
"$TOOL" diff "$TMP/snap1.tar.gz" "$TMP/snap2.tar.gz" >"$TMP/snapdiff"
check "diff of the two snapshots: exactly the new page (exit 1)" test $? = 1 -a \
	"$(cat "$TMP/snapdiff")" = "cpu0 0x0000000000401000-0x0000000000402000     4K added sysmem 0x0000000000006000 4K writable,user -"
expect "diff of the first snapshot and the live guest: the same page" 1 "0x0000000000401000-0x0000000000402000 +4K added" \
	"$TOOL" diff "$TMP/snap1.tar.gz" "$TMP/good.sock"
# ---- the vCPU runs another task, whose tables then are freed (issue #39 item 7) ----
# a second tree at root 0x7000: VA 0x400000 -> PA 0xc000
python3 -c "
import os, struct
fd = os.open('$TMP/ram', os.O_WRONLY)
for a, v in ((0x7000, 0x9000 | 7), (0x9000, 0xa000 | 7), (0xa000 + 2 * 8, 0xb000 | 7), (0xb000, 0xc000 | 7)):
    os.pwrite(fd, struct.pack('<Q', v), a)
os.close(fd)"
: >"$TMP/good.sock.log"
echo 0000000000007000 >"$TMP/good.sock.cr3"
sleep 0.6
expect "a new CR3 is read again at -o refresh: maps follows it" 0 "^0x0*400000-0x0*401000 +4K +4K sysmem +0x0*c000 " \
	cat "$mnt/cpu0/maps"
expect "info shows the CR3 read again" 0 "^cr3: 0x7000$" cat "$mnt/cpu0/info"
expect "walk/ reads the new tables" 0 "result: mapped pa=sysmem:0xc000 " cat "$mnt/cpu0/walk/0x400000"
check "the registers were asked for again" grep -q '"command-line": "info registers -a"' "$TMP/good.sock.log"
check "the context says where its registers come from" grep -q "cr3 read again at each -o refresh" "$mnt/cpu0/info"
# the task exits: its root page is reused for data (Linux's slab poison, 0x6b)
python3 -c "
import os
fd = os.open('$TMP/ram', os.O_WRONLY); os.pwrite(fd, b'\x6b' * 4096, 0x7000); os.close(fd)"
sleep 0.6
ROOT="# root 0x7000 no longer holds a page table: the process on this vCPU exited; remount or see tasks"
check "maps says the root no longer holds a page table" grep -qxF "$ROOT" "$mnt/cpu0/maps"
check "so does info" grep -qxF "$ROOT" "$mnt/cpu0/info"
check "info still counts the anomalies" grep -q "^anomalies: 512$" "$mnt/cpu0/info"
echo 0000000000001000 >"$TMP/good.sock.cr3"
sleep 0.6
check "back on a live root: no such line" sh -c "! grep -q '^# root' '$mnt/cpu0/maps'"
# QEMU goes away: reads fail with EIO, one line in the log, the daemon stays
stop_srv
expect "a read after QEMU exited fails with EIO" 1 "Input/output error" cat "$mnt/cpu0/walk/0x400000"
expect "so does a listing" 2 "Input/output error" ls "$mnt/cpu0"
check "the daemon is still there" kill -0 "$FG_PID"
check "its log says why, once" test "$(grep -c 'the QMP socket was closed: QEMU exited' "$mnt.err")" = 1
live_umount "$mnt"
check "it unmounts cleanly" test "$ST" = 0

# ---- -o pause ----
serve running
start_fg "$TMP/running.sock" "$mnt" -- -o pause || bad "ptfs mounts with -o pause"
: >"$TMP/running.sock.log"
cat "$mnt/cpu0/maps" >/dev/null
# (the registers read again at a refresh, HMP info registers -a, may come between)
check "-o pause: a running guest is stopped for maps and continued" \
	test "$(grep -o '"execute": "[a-z-]*"' "$TMP/running.sock.log" | grep -v human-monitor | tr '\n' ' ')" = \
	'"execute": "query-status" "execute": "stop" "execute": "cont" '
: >"$TMP/running.sock.log"
cat "$mnt/cpu0/walk/0x400000" >/dev/null
check "-o pause: a walk file stops nothing" test ! -s "$TMP/running.sock.log"
live_umount "$mnt"
: >"$TMP/running.sock.log"
expect "snapshot of a running guest" 0 "1 contexts, 4 table pages .*copied with the guest stopped; every context maps" \
	"$TOOL" snapshot "$TMP/running.sock" "$TMP/snap-run.tar.gz"
check "snapshot: a running guest is stopped for the copy and continued" \
	test "$(grep -o '"execute": "[a-z-]*"' "$TMP/running.sock.log" | tail -3 | tr '\n' ' ')" = \
	'"execute": "query-status" "execute": "stop" "execute": "cont" '
stop_srv
serve good   # a stopped guest
start_fg "$TMP/good.sock" "$mnt" -- -o pause || bad "ptfs mounts a stopped guest with -o pause"
: >"$TMP/good.sock.log"
cat "$mnt/cpu0/info" >/dev/null
check "-o pause: a guest the user stopped is neither stopped nor continued" \
	test "$(grep -c '"stop"\|"cont"' "$TMP/good.sock.log")" = 0
live_umount "$mnt"
stop_srv

# ---- -o pause when QEMU answers out of turn (issue #39 item 2) ----
# cmds: the commands the fake server received since its log was emptied, in order
# but the registers read again at a refresh (HMP info registers -a)
cmds() { grep -o '"execute": "[a-z-]*"' "$TMP/$1.sock.log" | grep -v human-monitor | sed 's/"execute": //; s/"//g' | tr '\n' ' '; }
# (a read of maps renders it more than once: each open, and the size)
for t in "latestop|query-status stop query-status cont " "latecont|query-status stop cont query-status " \
	 "nostop|query-status stop query-status cont " "twice|query-status stop cont " \
	 "stale|query-status stop cont "; do
	s=${t%%|*} want=${t#*|}
	serve "$s"
	start_fg "$TMP/$s.sock" "$mnt" -- -o pause || bad "$s: ptfs mounts with -o pause"
	: >"$TMP/$s.sock.log"
	expect "$s: maps renders the guest's mapping" 0 "^0x0*400000-0x0*402000 +8K " cat "$mnt/cpu0/maps"
	check "$s: the guest runs after the render" test "$(cat "$TMP/$s.sock.state")" = running
	sleep 1.1   # -o refresh's 1 s: the next read renders again
	cat "$mnt/cpu0/maps" >/dev/null
	check "$s: each answer is its command's: ($want)..." grep -Eqx "($want)+" <(cmds "$s")
	check "$s: no warning that the guest was not stopped" sh -c "! grep -q 'rendered without stopping' '$mnt.err'"
	live_umount "$mnt"
	check "$s: the guest runs after the unmount" test "$(cat "$TMP/$s.sock.state")" = running
	stop_srv
done

# ---- # changed while read ----
# A guest of 32 page tables (16384 pages: a render long enough to change under)
live_ram "$TMP/ram2" <<'EOF'
put(0x1000, 0x2000 | 7); put(0x2000, 0x3000 | 7)
for i in range(32):
    put(0x3000 + i * 8, (0x10000 + i * 0x1000) | 7)
    for j in range(512):
        put(0x10000 + i * 0x1000 + j * 8, (0x100000000 + (i * 512 + j) * 0x1000) | 7)
EOF
# big SCENARIO OPTION...: the fake server of that scenario on the big guest, mounted with the options
big() {
	serve "$1" "$TMP/ram2" big
	shift
	start_fg "$TMP/big.sock" "$mnt" -- "$@" || bad "ptfs mounts the big guest $*"
}
# changed FILE LINE [N]: whether one of N (400) renders of FILE ends in LINE (refresh=0: every open
# renders; it returns at the first, and a loaded machine gives the writer few turns per render)
changed() {
	local i
	for i in $(seq "${3:-400}"); do
		[ "$(tail -n 1 "$1")" = "$2" ] && return 0
	done
	return 1
}
# unchanged FILE LINE: none of 5 renders does
unchanged() { ! changed "$1" "$2" 5; }
CW='# changed while read'
big good -o refresh=0
check "maps of a guest that changes nothing has no '$CW'" unchanged "$mnt/cpu0/maps" "$CW"
expect "it is one run" 0 "^0x0000000000000000-0x0000000004000000 +64M " cat "$mnt/cpu0/maps"
# the guest flips the writable bit of one entry, as fast as it can
python3 -c "
import os, struct, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
a, b = struct.pack('<Q', 0x100000000 | 7), struct.pack('<Q', 0x100000000 | 5)
while True:
    os.pwrite(fd, a, 0x10000); os.pwrite(fd, b, 0x10000)
" "$TMP/ram2" &
W=$!
PIDS+=("$W")
check "maps rendered while a table changes ends in '$CW'" changed "$mnt/cpu0/maps" "$CW"
check "so does info" changed "$mnt/cpu0/info" "$CW"
check "map.svg says it in an XML comment after its root element" changed "$mnt/cpu0/map.svg" "<!-- $CW -->"
live_umount "$mnt"
stop_srv
big running -o refresh=0,pause
check "under -o pause the guest is stopped for the render: no '$CW'" unchanged "$mnt/cpu0/maps" "$CW"
live_umount "$mnt"
kill "$W" "$SRV"
wait "$W" "$SRV" 2>/dev/null

# ---- the backend file truncated under the mount (issue #39 item 12) ----
# Bytes the mapping no longer holds read as not captured, and info counts
# them: a table's bytes gone is a not_captured anomaly (root_not_captured
# for the root), as a pointer to a table outside the capture is.
cp "$TMP/ram" "$TMP/ram3"
serve good "$TMP/ram3"
start_fg "$TMP/good.sock" "$mnt" -- -o refresh=0 || bad "ptfs mounts the guest whose file will shrink"
expect "info before: no anomaly" 0 "^anomalies: 0$" cat "$mnt/cpu0/info"
truncate -s 8192 "$TMP/ram3"   # the PML4 at 0x1000 stays, its PDPT at 0x2000 goes
expect "a walk through the lost PDPT reads not_captured" 0 "result: fault=not_captured" cat "$mnt/cpu0/walk/0x400000"
expect "info counts the lost table" 0 "^anomalies: 1$" cat "$mnt/cpu0/info"
expect "and names it not_captured" 0 \
	"^anomaly: cpu0 pml4/0 not_captured pdpt table sysmem:0x2000 target_captured: no \\(its bytes no longer read" \
	cat "$mnt/cpu0/info"
truncate -s 0 "$TMP/ram3"
expect "the root gone too: root_not_captured" 0 "^anomaly: cpu0 - root_not_captured pml4 table sysmem:0x1000 root_captured: no" \
	cat "$mnt/cpu0/info"
expect "counted once" 0 "^anomalies: 1$" cat "$mnt/cpu0/info"
check "the daemon is still there" kill -0 "$FG_PID"
live_umount "$mnt"
stop_srv

# ---- the options on a capture of a file, and malformed ----
mkdir -p "$TMP/m-x"
fails "-o refresh on a file capture is refused" "-o refresh: .* is a capture of a file" \
	"$PTFS" "$FIX/x86-64-4level.tar.gz" "$TMP/m-x" -o refresh=2
serve good
fails "-o refresh=abc is refused" "-o refresh=abc: not a number of seconds" \
	"$PTFS" "$TMP/good.sock" "$TMP/m-x" -o refresh=abc
check "nothing mounted" not_mounted "$TMP/m-x"
report
