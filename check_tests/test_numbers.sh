#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_numbers.sh — one rule for numbers everywhere (issue #25 item 1):
# ptfs-tool arguments, legs and spec files, capture.ini and the names looked
# up in a mount read decimal, or hex with 0x.  The same string gives the same
# answer on the command line and in the mount; a hex number without its 0x
# ("4198a00") is an error that says to write 0x (in the mount: ENOENT); the
# names the mount lists parse back.
#
# Env: PTFS_TOOL, PTFS_FIXTURES (required), PTFS or PTFS_BIN (the mount
# checks need it and /dev/fuse; under CI=true nothing may skip).
. "$(dirname "$0")/mount_lib.sh"
: "${PTFS_TOOL:?PTFS_TOOL must name ptfs-tool}" "${PTFS_FIXTURES:?PTFS_FIXTURES must name fixtures/}"
TOOL=$PTFS_TOOL
PTFS=${PTFS:-${PTFS_BIN:-}}
TM=$PTFS_FIXTURES/turing-mixed.tar.gz
ml_tmpdir numbers

# run EXPECTED_RC DESCRIPTION ARGS...: ptfs-tool ARGS; stdout in $TMP/out, stderr in $TMP/err
run() {
	local want=$1 name=$2 got
	shift 2
	"$TOOL" "$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	if [ "$got" = "$want" ]; then ok "$name: exit $want"; else
		bad "$name: exit $got, wanted $want"; sed 's/^/    /' "$TMP/err"; fi
}
# err_is DESCRIPTION LINE: stderr is exactly LINE
err_is() {
	if [ "$(cat "$TMP/err")" = "$2" ]; then ok "$1"; else
		bad "$1"; echo "    wanted: $2"; sed 's/^/    got:    /' "$TMP/err"; fi
}

# ---- the command line ----------------------------------------------------
run 0 "walk 0x401000" walk "$TM" pdb0 0x401000
cp "$TMP/out" "$TMP/walk.hex"
run 0 "walk 4198400 (decimal)" walk "$TM" pdb0 4198400
same "$TMP/walk.hex" "$TMP/out" "walk: 4198400 is 0x401000"
run 2 "walk 4198a00" walk "$TM" pdb0 4198a00
err_is "walk: a bare hex VA says to write 0x" \
	"ptfs-tool: E_VALUE: walk: bad VA '4198a00': a hex number needs 0x (write 0x4198a00)"
run 2 "walk 401000abc" walk "$TM" pdb0 401000abc
run 2 "walk 0401000 (a leading zero: octal to some readers)" walk "$TM" pdb0 0401000
err_is "walk: a leading zero is refused with the forms" \
	"ptfs-tool: E_VALUE: walk: bad VA '0401000' (decimal, or hex with 0x)"

run 0 "pa vidmem:0x10001000" pa "$TM" vidmem:0x10001000
cp "$TMP/out" "$TMP/pa.hex"
if [ "$(wc -l <"$TMP/pa.hex")" -ge 3 ]; then ok "pa vidmem:0x10001000 lists its aliases"; else bad "pa vidmem:0x10001000: $(cat "$TMP/pa.hex")"; fi
run 0 "pa vidmem:268439552 (0x10001000 in decimal)" pa "$TM" vidmem:268439552
same "$TMP/pa.hex" "$TMP/out" "pa: decimal and 0x name the same byte"
run 1 "pa vidmem:10001000 is decimal (nothing maps 0x989a68)" pa "$TM" vidmem:10001000
run 2 "pa vidmem:1000100a" pa "$TM" vidmem:1000100a
err_is "pa: a bare hex address says to write 0x" \
	"ptfs-tool: E_VALUE: pa: bad address 'vidmem:1000100a' (SPACE:ADDR; spaces: ptfs-tool pa --help): a hex number needs 0x (write 0x1000100a)"

run 0 "maps --range 0x400000-0x401fff" maps --range 0x400000-0x401fff "$TM" pdb0
cp "$TMP/out" "$TMP/maps.hex"
run 0 "maps --range 4194304-4202495 (decimal)" maps --range 4194304-4202495 "$TM" pdb0
same "$TMP/maps.hex" "$TMP/out" "maps --range: decimal and 0x agree"
run 2 "maps --range 400000-4fffff" maps --range 400000-4fffff "$TM" pdb0
err_is "maps --range: the bare hex half is named" \
	"ptfs-tool: E_VALUE: maps: bad --range '400000-4fffff' (A-B, A <= B): a hex number needs 0x (write 0x4fffff)"

printf '0x401000 4K r\n' >"$TMP/hex.legs"
printf '4198400 4K r\n' >"$TMP/dec.legs"
printf '401abc 4K r\n' >"$TMP/bare.legs"
run 0 "audit a 0x leg" audit "$TM" pdb0 "$TMP/hex.legs"
run 0 "audit the same leg in decimal" audit "$TM" pdb0 "$TMP/dec.legs"
run 2 "audit a bare hex leg" audit "$TM" pdb0 "$TMP/bare.legs"
err_is "audit: a bare hex VA says to write 0x" \
	"ptfs-tool: E_VALUE: $TMP/bare.legs:1: bad VA '401abc': a hex number needs 0x (write 0x401abc)"

run 0 "decode --value 0x1" decode --format nv-gmmu-ver2 --level pte_small --value 0x1
run 2 "decode --value deadbeef" decode --format nv-gmmu-ver2 --level pte_small --value deadbeef
err_is "decode: a bare hex value says to write 0x" \
	"ptfs-tool: E_VALUE: decode: bad --value 'deadbeef' (0x hex, up to 32 digits, or decimal): a hex number needs 0x (write 0xdeadbeef)"

printf '[capture]\nversion = 1\nformat = nv-gmmu-ver2\n[pdb pdb0]\nspace = vidmem\nmap = 20a000 4K vidmem 0x40000000\n' >"$TMP/spec.ini"
run 2 "build: a bare hex VA in a spec" build "$TMP/spec.ini" "$TMP/built.tar.gz"
if grep -q ": a hex number needs 0x (write 0x20a000)$" "$TMP/err"; then ok "build: the spec error says to write 0x"; else
	bad "build: the spec error says to write 0x"; sed 's/^/    /' "$TMP/err"; fi

# ---- capture.ini ---------------------------------------------------------
mkdir -p "$TMP/cap/mem"
head -c 4096 /dev/zero >"$TMP/cap/mem/v.bin"
printf '[capture]\nversion = 1\nformat = nv-gmmu-ver2\n[memory v]\nspace = vidmem\nbase = 20a000\nfile = mem/v.bin\n[pdb pdb0]\nspace = vidmem\naddress = 0x20a000\nbig_page_size = 64K\n' >"$TMP/cap/capture.ini"
run 2 "capture.ini: base = 20a000" info "$TMP/cap"
err_is "capture.ini: a bare hex value says to write 0x" \
	"ptfs-tool: E_VALUE: $TMP/cap: capture.ini:6: bad integer '20a000' for 'base' in [memory v]: a hex number needs 0x (write 0x20a000)"
sed -i 's/^base = 20a000$/base = 2138112/' "$TMP/cap/capture.ini"
run 0 "capture.ini: base = 2138112 (0x20a000 in decimal)" info "$TMP/cap"

# ---- the mount: the same strings, the same answers -----------------------
if [ -z "$PTFS" ] || [ ! -c /dev/fuse ] || ! command -v fusermount3 >/dev/null; then
	if [ "${CI:-}" = true ]; then bad "CI=true: the mount checks need PTFS, /dev/fuse and fusermount3"; else
		echo "# SKIP the mount checks: no ptfs, /dev/fuse or fusermount3"; fi
	report
	exit
fi
M=$TMP/mnt
if ! do_mount "$TM" "$M"; then
	bad "mount turing-mixed"
	report
	exit
fi
P=$M/pdb0
"$TOOL" walk "$TM" pdb0 0x401000 >"$TMP/walk.tool"
check "walk/4198400 (decimal) is the trace of 0x401000" cmp -s "$P/walk/4198400" "$P/walk/0x401000"
same "$TMP/walk.tool" "$P/walk/4198400" "walk/4198400 is ptfs-tool walk 4198400"
check "walk/4198a00 does not exist (ENOENT)" test ! -e "$P/walk/4198a00"
if cat "$P/walk/4198a00" 2>"$TMP/err" >/dev/null; then bad "cat walk/4198a00 succeeded"; else
	check "cat walk/4198a00 says No such file" grep -q "No such file" "$TMP/err"; fi
check "va/4194304 (decimal) is the link of 0x400000" \
	test "$(readlink "$P/va/4194304")" = "$(readlink "$P/va/0x0000000400000")"
check "va/400abc does not exist" test ! -e "$P/va/400abc"
check "pa/vidmem/0x10001000 is ptfs-tool pa vidmem:0x10001000" cmp -s "$M/pa/vidmem/0x10001000" "$TMP/pa.hex"
check "pa/vidmem/268439552 (decimal) is the same file" cmp -s "$M/pa/vidmem/268439552" "$TMP/pa.hex"
# ptfs-tool pa vidmem:10001000 exits 1 (nothing maps it): the mount has no such file
check "pa/vidmem/10001000 is decimal as on the command line (ENOENT)" test ! -e "$M/pa/vidmem/10001000"
check "pa/vidmem/1000100a does not exist" test ! -e "$M/pa/vidmem/1000100a"
# every listed va/ name can be looked up again, in va/ and in walk/
n=0 lost=0
for name in $(ls "$P/va"); do
	n=$((n + 1))
	if [ ! -L "$P/va/$name" ] || [ ! -f "$P/walk/$name" ]; then
		lost=$((lost + 1))
		echo "    $name does not parse back"
	fi
done
if [ "$n" -gt 0 ] && [ "$lost" = 0 ]; then ok "all $n va/ names parse back (va/ and walk/)"; else
	bad "va/ names that do not parse back: $lost of $n"; fi
do_umount "$M"
report
