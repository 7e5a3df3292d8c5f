#!/bin/bash
# test_golden.sh — the mounted tree of every fixture, byte for byte, against
# a stored listing (check_tests/golden/NAME.tree).
#
# The tree is produced by `ptfs-tool export` (whose output test_mount.sh and
# test_cli.sh prove equal to a real mount); the listing holds every path with
# its type and mode, the sha256 of every file and the target of every link,
# in sorted order.  A refactoring must leave every listing unchanged; a change
# of behaviour regenerates them on purpose with
#   PTFS_GOLDEN_UPDATE=1 meson test -C build golden
# and the diff of the listing shows exactly which files changed.
#
# Environment (check_tests/meson.build): PTFS_TOOL, PTFS_FIXTURES,
# PTFS_GOLDEN (the directory of the stored listings).
# Prints `N passed, M failed`; exits 1 on any failure.
set -u
export LC_ALL=C

TOOL=${PTFS_TOOL:?PTFS_TOOL is not set}
FIX=${PTFS_FIXTURES:?PTFS_FIXTURES is not set}
GOLD=${PTFS_GOLDEN:?PTFS_GOLDEN is not set}

. "$(dirname "$0")/mount_lib.sh"
ml_tmpdir golden

# listing DIR: one line per node, sorted: TYPE MODE PATH [sha256 | -> target].
# Files are hashed in one sha256sum run and joined back by path (a fork per
# file made this suite the slowest under ASan); paths hold no blanks.
listing() {
	(cd "$1" && {
		find . -mindepth 1 ! -type f ! -type l -printf '%y %m %p\n'
		find . -mindepth 1 -type l -printf 'l %m %p -> %l\n'
		join <(find . -mindepth 1 -type f -printf '%p %m\n' | sort) \
			<(find . -mindepth 1 -type f -print0 | xargs -0 -r sha256sum |
				awk '{ print $2, $1 }' | sort) |
			awk '{ print "f", $2, $1, $3 }'
	} | sort -k3)
}

# fixture_name CAP: the name of a fixture's listing: NAME.tar.gz, NAME.envdef
# (a umr log) and NAME/cpt.N (a gem5 checkpoint) are NAME.
fixture_name() {
	case $1 in
	*.tar.gz) basename "$1" .tar.gz ;;
	*.envdef) basename "$1" .envdef ;;
	*.log) basename "$1" .log ;;
	*) basename "$(dirname "$1")" ;;
	esac
}

n=0
for cap in "$FIX"/*.tar.gz "$FIX"/*.envdef "$FIX"/*.log "$FIX"/*/cpt.*; do
	[ -e "$cap" ] || continue
	name=$(fixture_name "$cap")
	out="$TMP/$name"
	if ! "$TOOL" export "$cap" "$out" >/dev/null 2>"$TMP/err"; then
		bad "$name: export failed: $(cat "$TMP/err")"
		continue
	fi
	listing "$out" >"$TMP/$name.tree"
	# The JSON side of the same capture: the walk of every VA its .expect
	# file names, text and JSON, and each context's info as JSON
	# (--all-entries: the blocked IOMMU devices the expect files walk are
	# contexts only then, docs/design.md §2.7).
	if [ -f "$FIX/$name.expect" ]; then
		grep -v '^#' "$FIX/$name.expect" | while read -r ctx va _; do
			echo "walk $ctx $va"
			"$TOOL" walk --all-entries "$cap" "$ctx" "$va" 2>&1
			"$TOOL" walk --all-entries --json "$cap" "$ctx" "$va" 2>&1
		done | sed "s|$FIX/|FIXTURES/|g" >>"$TMP/$name.tree"   # warnings name the capture: no checkout path
	fi
	n=$((n + 1))
	if [ "${PTFS_GOLDEN_UPDATE:-}" = 1 ]; then
		cp "$TMP/$name.tree" "$GOLD/$name.tree"
		ok
	elif [ ! -f "$GOLD/$name.tree" ]; then
		bad "$name: no stored listing $GOLD/$name.tree (PTFS_GOLDEN_UPDATE=1 makes it)"
	else
		same "$GOLD/$name.tree" "$TMP/$name.tree" "$name: the exported tree equals the stored listing"
	fi
done
# Every stored listing belongs to a fixture (a renamed fixture must not leave
# a listing nobody checks).
for g in "$GOLD"/*.tree; do
	b=$FIX/$(basename "$g" .tree)
	{ [ -f "$b.tar.gz" ] || [ -f "$b.envdef" ] || [ -f "$b.log" ] || [ -d "$b" ]; } && ok || bad "$g: no fixture of that name"
done
[ "$n" -gt 0 ] && ok || bad "no fixture found in $FIX"
report
