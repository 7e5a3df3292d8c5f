#!/bin/sh
# test_fixtures.sh MKFIXTURES FIXDIR
#
# The committed fixtures must be exactly what the generator writes: every file
# mkfixtures produces is compared byte for byte (cmp) with the committed one,
# every committed generated file must still be produced, and the expectation
# table embedded in fixtures/README.md must equal turing-mixed.expect.
# Exit status: 0 when everything matches, 1 otherwise.
set -u

if [ $# -ne 2 ]; then
	echo "usage: $0 MKFIXTURES FIXDIR" >&2
	exit 2
fi
mk=$1
fix=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

if ! "$mk" "$tmp/out"; then
	echo "FAIL: mkfixtures exited non-zero"
	exit 1
fi

# Generated -> committed.
(cd "$tmp/out" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) >"$tmp/generated"
while IFS= read -r f; do
	if [ ! -f "$fix/$f" ]; then
		bad "$f: generated but not committed"
	elif cmp -s "$tmp/out/$f" "$fix/$f"; then
		ok
	else
		bad "$f: differs from the generator's output"
	fi
done <"$tmp/generated"

# Committed -> generated: a stale fixture the generator no longer writes.
(cd "$fix" && find . -type f \( -name '*.tar' -o -name '*.tar.*' -o -name '*.zip' \
	-o -name '*.expect' -o -path './*.d/*' \) | sed 's|^\./||' | LC_ALL=C sort) >"$tmp/committed"
while IFS= read -r f; do
	if [ -f "$tmp/out/$f" ]; then
		ok
	else
		bad "$f: committed but no longer generated"
	fi
done <"$tmp/committed"

# README's table (between the markers, fences dropped) = the expect file without its header.
sed -n '/^<!-- BEGIN turing-mixed.expect -->$/,/^<!-- END turing-mixed.expect -->$/p' \
	"$fix/README.md" | grep -v -e '^<!--' -e '^```' >"$tmp/readme-table"
grep -v '^#' "$fix/turing-mixed.expect" >"$tmp/expect-table"
if [ -s "$tmp/expect-table" ] && cmp -s "$tmp/readme-table" "$tmp/expect-table"; then
	ok
else
	bad "README.md table differs from turing-mixed.expect"
	diff "$tmp/expect-table" "$tmp/readme-table" | head -20
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
