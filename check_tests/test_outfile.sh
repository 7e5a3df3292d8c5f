#!/bin/bash
# test_outfile.sh — what build, snapshot and export do with the OUT a user
# names (issue #39 item 3; ptfs-tool(1) OUTPUT FILES): an existing file is
# refused (one line naming it, exit 2) unless --force, which replaces it
# whole; a symbolic link at OUT is refused and what it names is untouched;
# a read-only OUT is untouched when the write fails; a failed write (a
# file size limit, RLIMIT_FSIZE) leaves neither OUT nor a temporary; OUT in
# a missing directory is one line; a non-empty directory is refused even
# with --force; an export killed while it writes leaves nothing.  snapshot
# runs on check_tests/fake_qmp.py's guest (live_lib.sh), no FUSE needed.
#
# Environment (check_tests/meson.build): PTFS_TOOL, PTFS_FIXTURES.
set -u
export LC_ALL=C
HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/mount_lib.sh"
. "$HERE/live_lib.sh"
TOOL=$(readlink -f "${PTFS_TOOL:?}")
FIX=${PTFS_FIXTURES:?}
ml_tmpdir outfile
mkdir "$TMP/w" && cd "$TMP/w" || exit 1   # TMP holds the checks' own files (fo, fe)

# nothing but NAMES in the scratch directory: no temporary (.OUT.XXXXXX) is left
only() {
	local want got
	want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	got=$(ls -A | sort | tr '\n' ' ')
	[ "$got" = "$want" ] || { echo "    left: $got (want $want)"; return 1; }
}
# limited KIB FILE CMD...: CMD with a file size limit of KIB KiB (SIGXFSZ ignored: a write
# past it fails with EFBIG); its stdout and stderr into FILE through a pipe, which the
# limit does not cut
limited() {
	local k=$1 f=$2
	shift 2
	{ (trap '' XFSZ; ulimit -f "$k"; exec "$@") 2>&1; echo "exit $?"; } | cat >"$f"
}

# A spec whose archive is over 1 KiB: 128 page tables, one entry each.
{
	printf '[capture]\nversion = 1\nformat = x86-64\n\n[cpu proc]\n'
	for i in $(seq 1 128); do
		printf 'map = 0x%x 4K sysmem 0x%x writable\n' $((i * 0x200000 + 0x40000000)) $((i * 0x13000 + 0x8000000))
	done
} >spec.ini
printf '[capture]\nversion = 1\nformat = x86-64\n\n[cpu proc]\nmap = 0x400000 8K sysmem 0x10000 writable\n' >small.ini
BASE=(spec.ini small.ini)

# ---- build: a new file, then the same OUT again ----
expect "build writes a new archive" 0 "^a.tar.gz: 1 contexts" "$TOOL" build small.ini a.tar.gz
cp a.tar.gz a.orig
fails "build onto an existing file: refused, one line naming it" \
	"^ptfs-tool: E_USAGE: build: a.tar.gz exists \(--force replaces it\)$" "$TOOL" build spec.ini a.tar.gz
check "and the file is untouched" cmp -s a.tar.gz a.orig
ino=$(stat -c %i a.tar.gz)
expect "build --force replaces it" 0 "^a.tar.gz: 1 contexts, 128 maps" "$TOOL" build --force spec.ini a.tar.gz
check "by a rename: a new file, the old one never opened for writing" test "$(stat -c %i a.tar.gz)" != "$ino"
expect "the new archive is the one built" 0 "0x0000000040200000-0x0000000040201000" "$TOOL" maps a.tar.gz
check "no temporary is left" only "${BASE[@]}" a.tar.gz a.orig
rm -f a.tar.gz a.orig

# ---- a symbolic link at OUT ----
echo precious >precious.tar.gz
ln -s precious.tar.gz link.tar.gz
fails "build onto a symbolic link: refused" "E_USAGE: build: link.tar.gz is a symbolic link: not followed" \
	"$TOOL" build small.ini link.tar.gz
fails "build --force onto a symbolic link: refused too" "E_USAGE: build: link.tar.gz is a symbolic link" \
	"$TOOL" build --force small.ini link.tar.gz
check "what it names is untouched" test "$(cat precious.tar.gz)" = precious
check "and the link is still a link" test -L link.tar.gz
ln -s nowhere.tar.gz dangling.tar.gz
fails "build onto a dangling link: refused, nothing made where it points" "E_USAGE: build: dangling.tar.gz is a symbolic link" \
	"$TOOL" build small.ini dangling.tar.gz
check "nowhere.tar.gz is not made" test ! -e nowhere.tar.gz
mkdir realdir
ln -s realdir linkdir
fails "build into a link to a directory: refused" "E_USAGE: build: linkdir is a symbolic link" \
	"$TOOL" build small.ini linkdir
fails "export into a link to a directory: refused" "E_USAGE: export: linkdir/ is a symbolic link" \
	"$TOOL" export "$FIX/turing-mixed.tar.gz" linkdir/
check "the directory stays empty" test -z "$(ls -A realdir)"
check "no temporary is left" only "${BASE[@]}" precious.tar.gz link.tar.gz dangling.tar.gz realdir linkdir
rm -rf precious.tar.gz link.tar.gz dangling.tar.gz realdir linkdir

# ---- a read-only OUT, and writes that fail ----
echo keep >keep.tar.gz
chmod 0444 keep.tar.gz
fails "build onto a read-only file: refused" "E_USAGE: build: keep.tar.gz exists" "$TOOL" build spec.ini keep.tar.gz
limited 1 out "$TOOL" build --force spec.ini keep.tar.gz
check "build --force whose write fails: one line, exit 2" \
	grep -qx "ptfs-tool: E_IO: build: keep.tar.gz: .*
exit 2" <(cat out; echo)
check "the read-only OUT is untouched (not deleted, not truncated)" test "$(cat keep.tar.gz)" = keep
check "and keeps its mode" test "$(stat -c %a keep.tar.gz)" = 444
check "no temporary is left" only "${BASE[@]}" keep.tar.gz out
limited 1 out "$TOOL" build spec.ini new.tar.gz
check "a failed archive write: one line naming OUT, exit 2" \
	test "$(sed -n 's/^ptfs-tool: E_IO: build: new.tar.gz: .*/line/p; s/^exit //p' out | tr '\n' ' ')" = "line 2 "
check "leaves no OUT and no temporary" only "${BASE[@]}" keep.tar.gz out
limited 1 out "$TOOL" build spec.ini newdir
check "a failed directory write: one line naming OUT, exit 2" \
	test "$(sed -n 's/^ptfs-tool: E_IO: build: newdir\/.*/line/p; s/^exit //p' out | tr '\n' ' ')" = "line 2 "
check "leaves no OUT and no temporary" only "${BASE[@]}" keep.tar.gz out
limited 1 out "$TOOL" export "$FIX/turing-mixed.tar.gz" exp
check "a failed export: one line naming a file under DIR, exit 2" \
	test "$(sed -n 's/^ptfs-tool: E_IO: exp\/.*File too large$/line/p; s/^exit //p' out | tr '\n' ' ')" = "line 2 "
check "leaves no DIR and no temporary" only "${BASE[@]}" keep.tar.gz out
chmod 0644 keep.tar.gz
expect "build --force replaces a read-only file when it can write" 0 "^keep.tar.gz: " \
	"$TOOL" build --force small.ini keep.tar.gz
rm -f keep.tar.gz out

# ---- OUT in a missing directory, and directories ----
fails "build into a missing directory: one line" "^ptfs-tool: E_IO: build: no/such/x.tar.gz: its directory no/such does not exist$" \
	"$TOOL" build small.ini no/such/x.tar.gz
fails "export into a missing directory: one line" "^ptfs-tool: E_IO: export: no/such: its directory no does not exist$" \
	"$TOOL" export "$FIX/turing-mixed.tar.gz" no/such
expect "build into a new directory" 0 "^d1: 1 contexts" "$TOOL" build small.ini d1
cp d1/capture.ini d1.ini
fails "build into a non-empty directory: refused" "E_USAGE: build: d1 is not empty" "$TOOL" build small.ini d1
fails "build --force into a non-empty directory: refused too" "E_USAGE: build: d1 is not empty" \
	"$TOOL" build --force small.ini d1
check "its files are untouched" cmp -s d1/capture.ini d1.ini
mkdir d2
expect "build into an empty directory" 0 "^d2: " "$TOOL" build small.ini d2
check "fills it" test -s d2/capture.ini -a -s d2/mem/sysmem.bin
echo x >afile
fails "a file OUT for a directory: refused" "E_USAGE: build: afile exists and is not a directory" \
	"$TOOL" build --force small.ini afile
mkdir d3.tar.gz
fails "a directory where an archive is named: refused" "E_USAGE: build: d3.tar.gz is a directory, not an archive" \
	"$TOOL" build --force small.ini d3.tar.gz
check "export into a new directory" "$TOOL" export "$FIX/turing-mixed.tar.gz" e1
check "DIR is the mount's 0555 tree" test "$(stat -c %a e1)" = 555 -a -f e1/pdb0/maps
fails "export into a non-empty directory: refused" "E_USAGE: export: e1 is not empty" \
	"$TOOL" export "$FIX/turing-mixed.tar.gz" e1
mkdir e2
check "export into an empty directory" "$TOOL" export "$FIX/turing-mixed.tar.gz" e2/
check "fills it" test -f e2/pdb0/maps
mkdir e3
fails "export into '.': one line (it cannot be renamed into place)" "E_USAGE: export: '.' names no file or directory" \
	bash -c 'cd e3 && exec "$1" export "$2" .' _ "$TOOL" "$FIX/turing-mixed.tar.gz"
rmdir e3
check "no temporary is left" only "${BASE[@]}" d1.ini d1 d2 afile d3.tar.gz e1 e2
chmod -R u+w e1 e2
rm -rf d1.ini d1 d2 afile d3.tar.gz e1 e2

# ---- export interrupted: ^C (SIGINT) or SIGTERM while entries streams ----
# A self-pointing amd-gpuvm table (test_bounds.sh): entries runs to 2^25 lines.
mkdir -p self/mem
printf '[capture]\nversion = 1\nformat = amd-gpuvm\n\n[memory t]\nspace = vram\nbase = 0x100000\nfile = mem/t.bin\n\n[vm v1]\ngfx = 9\npage_table_base_addr = 0x80100001\npage_table_end_addr = 0xfffffffff\ncntl = 0x7\nfb_offset = 0x80\n' >self/capture.ini
for i in $(seq 1 512); do printf '\x01\x00\x10\x80\x00\x00\x00\x00'; done >self/mem/t.bin
for sig in INT TERM; do
	# a background job of a script ignores SIGINT, and an ignored signal stays so (nohup)
	env --default-signal="$sig" "$TOOL" export self big 2>err &
	pid=$!
	PIDS+=("$pid")
	growing() { compgen -G '.big.*/v1/entries' >/dev/null && [ "$(stat -c %s .big.*/v1/entries)" -gt 1000000 ]; }
	check "SIG$sig: the export writes under a temporary name beside DIR" poll_until 30 growing
	kill -s "$sig" "$pid"
	wait "$pid"
	st=$?
	check "SIG$sig: it ends by the signal (exit $st)" test "$st" -gt 128
	check "SIG$sig: and leaves neither DIR nor its temporary" only "${BASE[@]}" self err
	check "SIG$sig: a signal is no error: nothing said" test ! -s err
done
rm -rf self err

# ---- snapshot (the fake QMP guest of test_live.sh) ----
command -v python3 >/dev/null || { echo "SKIP: snapshot (python3 is missing)"; report; exit; }
python3 - "$TMP/ram" <<'EOF'
import struct, sys
m = bytearray(1 << 20)
def put(a, v): m[a:a + 8] = struct.pack('<Q', v)
put(0x1000, 0x2000 | 7); put(0x2000, 0x3000 | 7); put(0x3000 + 2 * 8, 0x4000 | 7); put(0x4000, 0x5000 | 7)
open(sys.argv[1], 'wb').write(m)
EOF
serve good
expect "snapshot writes a new archive" 0 "^s.tar.gz: 1 contexts, 4 table pages" "$TOOL" snapshot "$TMP/good.sock" s.tar.gz
cp s.tar.gz orig.tar.gz
echo other >s.tar.gz
fails "snapshot onto an existing file: refused, one line naming it" \
	"^ptfs-tool: E_USAGE: snapshot: s.tar.gz exists \(--force replaces it\)$" "$TOOL" snapshot "$TMP/good.sock" s.tar.gz
check "the file is untouched" test "$(cat s.tar.gz)" = other
: >"$TMP/good.sock.log"
ln -s s.tar.gz link.tar.gz
fails "snapshot onto a symbolic link: refused" "E_USAGE: snapshot: link.tar.gz is a symbolic link" \
	"$TOOL" snapshot --force "$TMP/good.sock" link.tar.gz
check "what it names is untouched" test "$(cat s.tar.gz)" = other
check "and the guest was not even asked (OUT is checked first)" test ! -s "$TMP/good.sock.log"
rm -f link.tar.gz
expect "snapshot --force replaces it" 0 "^s.tar.gz: 1 contexts, 4 table pages" "$TOOL" snapshot --force "$TMP/good.sock" s.tar.gz
check "with the same bytes as the first (the same guest state)" cmp -s s.tar.gz orig.tar.gz
chmod 0444 orig.tar.gz
limited 0 out "$TOOL" snapshot --force "$TMP/good.sock" orig.tar.gz
check "snapshot --force onto a read-only file whose write fails: one line, exit 2" \
	test "$(sed -n 's/^ptfs-tool: E_IO: snapshot: orig.tar.gz: .*/line/p; s/^exit //p' out | tr '\n' ' ')" = "line 2 "
check "the read-only OUT is untouched" cmp -s orig.tar.gz s.tar.gz
limited 0 out "$TOOL" snapshot "$TMP/good.sock" snapdir
check "a failed snapshot into a directory: one line, exit 2" \
	test "$(sed -n 's/^ptfs-tool: E_IO: snapshot: snapdir\/.*/line/p; s/^exit //p' out | tr '\n' ' ')" = "line 2 "
check "leaves no OUT and no temporary" only "${BASE[@]}" s.tar.gz orig.tar.gz out
fails "snapshot into a missing directory: one line" "^ptfs-tool: E_IO: snapshot: no/s.tar.gz: its directory no does not exist$" \
	"$TOOL" snapshot "$TMP/good.sock" no/s.tar.gz
stop_srv
report
