#!/bin/bash
# test_docs.sh — the user-facing documentation as a first-time user meets it
# (issue #10 item 8): every man page renders without a groff warning, no doc
# sends the reader to files a user of the repository does not have (the
# design notes and the shared fact sheets), no man page has a section twice,
# every `ptfs-tool COMMAND` a doc names exists, every `diff -r` command
# shown carries --no-dereference (without it diff follows the va/ links and
# shows each change twice), every mnt/ path the commands of README.md and
# docs/recipes.md and the man pages' examples name exists in the sample
# capture's tree, every maps or walk line a man page shows is real output of
# the sample captures, and every `$ COMMAND` README.md and docs/recipes.md
# show is run and prints the output they show (check_doc_runs.py).
#
# Environment (set by check_tests/meson.build):
#   PTFS_SRCDIR   the source root
#   PTFS_TOOL     the ptfs-tool binary (its --help lists the commands)
#   PTFS_MKLINUX  check_tests/mklinux: the Linux guest docs/recipes.md runs on (guest.elf)
# Exit: 0 all passed; 1 any failure; 77 (skip) when groff is missing, except
# under CI=true where that is a failure.

set -u
export LC_ALL=C

SRC=${PTFS_SRCDIR:?PTFS_SRCDIR must name the source root}
TOOL=${PTFS_TOOL:?PTFS_TOOL must name the ptfs-tool binary}
TOOL=$(readlink -f "$TOOL")
PASS=0
FAIL=0
ok() { PASS=$((PASS + 1)); echo "ok - $*"; }
bad() { FAIL=$((FAIL + 1)); echo "not ok - $*"; }

cd "$SRC" || exit 1
shopt -s nullglob
PAGES=(man/*.[1-8])
# The docs a user reads; comments in code may cite the design notes.
MDRUN=(README.md docs/recipes.md)   # the docs whose $ commands are run
DOCS=("${MDRUN[@]}" "${PAGES[@]}" fixtures/README.md bench/README.md fuzz/README.md)
for d in "${MDRUN[@]}"; do [ -f "$d" ] || bad "$d exists"; done
[ ${#PAGES[@]} -gt 0 ] || bad "no man pages found in $SRC/man"

if ! command -v groff >/dev/null; then
	if [ "${CI:-}" = true ]; then
		bad "groff is missing (CI=true, no skipping; Debian: groff-base)"
		echo "$PASS passed, $FAIL failed"
		exit 1
	fi
	echo "SKIP: groff is missing (Debian: apt-get install groff-base)"
	exit 77
fi

# groff -ww turns on every warning; -z formats without output, so anything
# on stderr is a warning (or an error) the page would show a reader.
for p in "${PAGES[@]}"; do
	if out=$(groff -t -man -ww -z "$p" 2>&1) && [ -z "$out" ]; then
		ok "$p renders without warnings"
	else
		bad "$p renders without warnings"
		printf '%s\n' "$out" | head -20 | sed 's/^/    /'
	fi
done

for d in "${DOCS[@]}"; do
	[ -f "$d" ] || continue
	if hits=$(grep -nE 'DESIGN|shared/reference' "$d"); then
		bad "$d cites no file a user does not have (DESIGN, shared/reference)"
		printf '%s\n' "$hits" | sed 's/^/    /'
	else
		ok "$d cites no file a user does not have"
	fi
done

# The code cites what a clone has (issue #21 item 6): docs/design.md (by a
# section it has), HACKING.md, or the public upstream source; never the
# design notes or fact sheets the project started from.
if [ -d "$SRC/.git" ] && command -v git >/dev/null; then
	files=$(git -C "$SRC" ls-files -- '*.c' '*.h' '*.sh' '*.py' '*.md' 'meson.build' '*/meson.build' \
		'*.[1-8]' '.ci/run' | grep -v -e '^check_tests/test_docs.sh$')
	hits=$(cd "$SRC" && grep -nE 'DESIGN|shared/|(^|[^a-z_-])reference/' $files)
	if [ -n "$hits" ]; then
		bad "the tree cites no file a clone lacks (DESIGN, shared/, reference/)"
		printf '%s\n' "$hits" | head -20 | sed 's/^/    /'
	else
		ok "the tree cites no file a clone lacks"
	fi
	# Every docs/design.md §N cited is a section of it.
	have=$(sed -n 's/^##* \([0-9][0-9.]*\)\. .*/\1/p; s/^### \([0-9][0-9.]*\) .*/\1/p' "$SRC/docs/design.md" | sort -u)
	cited=$(cd "$SRC" && grep -ohE 'design\.md §[0-9]+(\.[0-9]+)?' $files | sed 's/.*§//' | sort -u)
	missing=$(comm -23 <(printf '%s\n' $cited) <(printf '%s\n' $have))
	if [ -n "$missing" ]; then
		bad "every docs/design.md § cited exists"
		printf '    §%s\n' $missing
	else
		ok "every docs/design.md § cited exists ($(printf '%s\n' $cited | wc -l) sections)"
	fi
fi

for p in "${PAGES[@]}"; do
	if dup=$(grep -E '^\.SH' "$p" | sort | uniq -d) && [ -n "$dup" ]; then
		bad "$p has each section once"
		printf '%s\n' "$dup" | sed 's/^/    /'
	else
		ok "$p has each section once"
	fi
done

# The commands ptfs-tool has are the indented words under "Commands:" in
# its --help; a doc naming another one promises what does not exist.
cmds=$("$TOOL" --help | sed -n '/Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
[ -n "$cmds" ] || bad "ptfs-tool --help lists its commands"
for d in "${DOCS[@]}"; do
	[ -f "$d" ] || continue
	named=$(sed 's/\\-/-/g' "$d" | grep -oE 'ptfs-tool( \\fB| \.B|\*\*)? [a-z][a-z-]+' |
		awk '{print $NF}' | sort -u)
	unknown=$(comm -23 <(printf '%s\n' $named) <(printf '%s\n' $cmds | sort -u))
	if [ -n "$unknown" ]; then
		bad "$d names only existing ptfs-tool commands"
		printf '    ptfs-tool %s\n' $unknown
	else
		ok "$d names only existing ptfs-tool commands"
	fi
done

# A diff -r command line (README code, man page example) without
# --no-dereference prints every change twice.
for d in "${DOCS[@]}"; do
	[ -f "$d" ] || continue
	if hits=$(sed 's/\\-/-/g' "$d" | grep -nE '^[[:space:]]*(\$ )?diff -r' | grep -v -- '--no-dereference'); then
		bad "$d: every diff -r command has --no-dereference"
		printf '%s\n' "$hits" | sed 's/^/    /'
	else
		ok "$d: every diff -r command has --no-dereference"
	fi
done

# Every path under mnt/ that a README.md or docs/recipes.md command (in a
# ```sh block at the margin) or a man page example names
# exists in the tree of the sample capture they use (turing-mixed.tar.gz,
# written by `ptfs-tool export`, which is byte for byte the mount), and what
# `cat` reads is a file: README's first `cat .../pde0/1/entry` (now in
# docs/recipes.md, "The tree, at a glance") named a 2 MiB
# leaf, which is a file.  va/, walk/ and vs/ names are lookups (any VA, any other context),
# not listed entries, so they are left to the mount tests.
EXP=$(mktemp -d "${TMPDIR:-/tmp}/ptfs-docs.XXXXXX") || exit 1
trap 'chmod -R u+w "$EXP" 2>/dev/null; rm -rf "$EXP"' EXIT
if "$TOOL" export "$SRC/fixtures/turing-mixed.tar.gz" "$EXP/mnt" >"$EXP/export.log" 2>&1; then
	for d in "${MDRUN[@]}" "${PAGES[@]}"; do
		case $d in
		*.md) cmdlines=$(awk '/^```sh/ { f = 1; next } /^```/ { f = 0 } f' "$d") ;;
		*) cmdlines=$(sed 's/\\-/-/g' "$d" | sed -n 's/^\$ //p') ;;
		esac
		missing=
		while read -r cmd args; do
			for w in $args; do
				case $w in
				mnt/*/va/* | mnt/*/walk/* | mnt/*/vs/* | mnt/pa/*/* | *'*'*) continue ;;
				mnt/*) ;;
				*) continue ;;
				esac
				f="$EXP/${w%/}"
				if [ ! -e "$f" ] || { [ "$cmd" = cat ] && [ ! -f "$f" ]; }; then
					missing+="$cmd $w"$'\n'
				fi
			done
		done <<<"$cmdlines"
		if [ -n "$missing" ]; then
			bad "$d: every mnt/ path its commands name exists in the sample tree"
			printf '%s' "$missing" | sed 's/^/    /'
		else
			ok "$d: every mnt/ path its commands name exists in the sample tree"
		fi
	done
else
	bad "ptfs-tool export of the sample capture"
	sed 's/^/    /' "$EXP/export.log"
fi

# Every maps line and walk trace line a man page shows is real output of the
# sample captures (turing-mixed.tar.gz, gart-*.tar.gz, nested-ept, gpu-vtd): a change to the
# renderer that leaves a page showing an old form (the flag columns
# rw|----|... went that way) fails here.  The reference is every context's
# maps (from the exports) and the walk of every CONTEXT/walk/VA a page names,
# in every sample that has that context; a shown line must appear verbatim.
REF="$EXP/ref"
: >"$REF"
for cap in turing-mixed gart-umr-kat gart-cosim hopper-mixed x86-64-4level nested-ept gpu-vtd; do
	out="$EXP/ref-$cap"
	if ! "$TOOL" export "$SRC/fixtures/$cap.tar.gz" "$out" >/dev/null 2>&1; then
		bad "ptfs-tool export of fixtures/$cap.tar.gz"
		continue
	fi
	cat "$out"/*/maps >>"$REF"
	for p in "${PAGES[@]}"; do
		sed 's/\\-/-/g' "$p" | grep -oE '[A-Za-z0-9_.-]+/walk/0x[0-9a-fA-F]+'
	done | sort -u | while IFS=/ read -r ctx _ va; do
		[ -d "$out/$ctx" ] && "$TOOL" walk "$SRC/fixtures/$cap.tar.gz" "$ctx" "$va" >>"$REF"
	done
done
# The crosscheck lines a page shows: the output of the crosscheck commands
# it shows (each `$ ptfs-tool crosscheck ARGS` line), run on the fixtures.
for p in "${PAGES[@]}"; do
	sed 's/\\-/-/g' "$p" | sed -n 's/^\$ ptfs-tool crosscheck //p' | while read -ra args; do
		(cd "$SRC/fixtures" && "$TOOL" crosscheck "${args[@]}") >>"$REF" 2>&1
	done
done
# The roots listings a page shows: every candidate, section and summary line
# is the output of the roots commands it shows, run on the fixtures.
for p in "${PAGES[@]}"; do
	: >"$EXP/roots.ref"
	sed 's/\\-/-/g' "$p" | sed -n 's/^\$ ptfs-tool roots //p' | while read -ra args; do
		(cd "$SRC/fixtures" && "$TOOL" roots "${args[@]}") >>"$EXP/roots.ref" 2>&1
	done
	[ -s "$EXP/roots.ref" ] || continue   # a page without a roots command
	shown=$(sed -e 's/\\-/-/g' "$p" | grep -E '^(# score=[0-9]|# summary: [0-9]+ candidates|\[cpu root-)')
	if stale=$(grep -vxF -f "$EXP/roots.ref" <<<"$shown"); then
		bad "$p: every roots line it shows is real output of the fixtures"
		printf '%s\n' "$stale" | head -10 | sed 's/^/    /'
	else
		ok "$p: every roots line it shows is real output of the fixtures"
	fi
done
for p in "${PAGES[@]}"; do
	shown=$(sed -e 's/\\-/-/g' -e 's/\\&//g' "$p" |
		grep -E '^(0x[0-9a-f]+-0x[0-9a-f]+ |(pde[0-3]|pte_big|pte_small|pte)\[[0-9]+\] |result: )')
	[ -n "$shown" ] || continue
	stale=$(grep -vxF -f "$REF" <<<"$shown")
	if [ -n "$stale" ]; then
		bad "$p: every maps and walk line it shows is real output of the samples"
		printf '%s\n' "$stale" | sed 's/^/    /'
	else
		ok "$p: every maps and walk line it shows is real output of the samples"
	fi
done

# The outputs README.md and docs/recipes.md show (issue #41 item 7): every
# `$ COMMAND` line in their sh blocks is run on the fixtures (a mnt/ command
# on the export of the capture it mounts) and prints the lines shown under it.
if out=$(python3 "$SRC/check_tests/check_doc_runs.py" "$SRC" "$TOOL" "${MDRUN[@]}" 2>&1); then
	ok "${MDRUN[*]}: every \$ command prints the output shown ($(tail -n 1 <<<"$out"))"
else
	bad "${MDRUN[*]}: every \$ command prints the output shown"
	grep -v '^ok' <<<"$out" | head -40 | sed 's/^/    /'
fi

# ptfs-formats(7) against the decoders (issue #25 item 3): every documented
# bit range decodes as documented, every field the decoders print is named.
if out=$(python3 "$SRC/check_tests/check_formats_doc.py" "$SRC/man/ptfs-formats.7" "$TOOL" 2>&1); then
	ok "ptfs-formats(7) agrees with the decoders ($(tail -n 1 <<<"$out"))"
else
	bad "ptfs-formats(7) agrees with the decoders"
	grep -v '^ok' <<<"$out" | sed 's/^/    /'
fi

# Every option a --help lists is in its man page and the reverse, and every
# capture-reading ptfs-tool command's --help names the load options
# (issue #25 item 6).
PTFS_BIN=$(dirname "$TOOL")/../fs/ptfs
[ -x "$PTFS_BIN" ] || PTFS_BIN=
if out=$(python3 "$SRC/check_tests/check_options_doc.py" "$SRC" "$TOOL" $PTFS_BIN 2>&1); then
	ok "options: --help and the man pages agree ($(tail -n 1 <<<"$out"))"
else
	bad "options: --help and the man pages agree"
	grep -v '^ok' <<<"$out" | sed 's/^/    /'
fi

# fixtures/README.md's table names every fixture (issue #34 item 7): each
# capture, expect file and composed answer in fixtures/ (not the generator's
# sources) is in a row as `NAME`.
missing=
for f in fixtures/*; do
	n=${f#fixtures/}
	case $n in *.c | *.h | *.tsv | meson.build | README.md) continue ;; esac
	grep -q "^| .*\`$n[\`/]" fixtures/README.md || missing="$missing $n"
done
if [ -z "$missing" ]; then
	ok "fixtures/README.md's table names every fixture"
else
	bad "fixtures/README.md's table lacks:$missing"
fi

# The README's test command runs what CI runs (issue #34 item 6): .ci/run
# calls scripts/test without --quick, and scripts/test then installs the
# qemu suite's packages and kernels itself (a newcomer's green run is CI's).
readme_cmd=$(sed -n 's/^\(scripts\/test\)[[:space:]]*#.*/\1/p' README.md | head -n 1)
ci_cmd=$(grep -oE '(^|[[:space:]])\./scripts/test( [^#]*)?' .ci/run | head -n 1)
if [ "$readme_cmd" = scripts/test ] && [ "$(echo $ci_cmd)" = ./scripts/test ] &&
   (set -u; . scripts/deps.sh; [ ${#PTFS_QEMU_PACKAGES[@]} -gt 0 ]) &&
   grep -q 'ptfs_install_deps "${PTFS_QEMU_PACKAGES\[@\]}"' scripts/test &&
   grep -q '^[[:space:]]*ptfs_fetch_kernels$' scripts/test &&
   ! grep -qE 'qemu-system|fetch_kernel' .ci/run; then
	ok "README's scripts/test is .ci/run's, and installs what the qemu suite needs"
else
	bad "README's scripts/test ($readme_cmd) is .ci/run's ($ci_cmd), and installs what the qemu suite needs"
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
