#!/bin/bash
# test_completion.sh — the bash completions (completion/ptfs-tool,
# completion/ptfs; issue #25 item 6) offer what the programs have: the
# subcommands, a subcommand's options, the formats and levels, the contexts
# of the capture on the command line, and ptfs's -o mount options.  Each
# case runs the completion function as bash would (COMP_WORDS/COMP_CWORD)
# and checks that the expected word is offered and a wrong one is not.
#
# Environment (check_tests/meson.build): PTFS_SRCDIR, PTFS_TOOL, PTFS
# (the ptfs binary; the -o cases are left out when FUSE was not built).
set -u
SRC=${PTFS_SRCDIR:?}
TOOL=$(readlink -f "${PTFS_TOOL:?}")
PASS=0 FAIL=0
ok() { PASS=$((PASS + 1)); echo "ok - $*"; }
bad() { FAIL=$((FAIL + 1)); echo "not ok - $*"; }

# shellcheck source=/dev/null
. "$SRC/completion/ptfs-tool"
# shellcheck source=/dev/null
. "$SRC/completion/ptfs"

# offers WANT [NOTWANT] FUNC WORD...: completing the last WORD offers WANT.
offers() {
	local want=$1 notwant=$2 fn=$3
	shift 3
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	"$fn"
	local got=" ${COMPREPLY[*]} "
	if [[ $got == *" $want "* ]] && { [ -z "$notwant" ] || [[ $got != *" $notwant "* ]]; }; then
		ok "${*:2}<TAB> offers $want${notwant:+, not $notwant}"
	else
		bad "${*:2}<TAB> offers $want${notwant:+, not $notwant} (got:$got)"
	fi
}

cd "$SRC/fixtures" || exit 1
offers walk "" _ptfs_tool "$TOOL" ""
offers diff decode _ptfs_tool "$TOOL" di
offers --json "" _ptfs_tool "$TOOL" walk --j
offers --blob "" _ptfs_tool "$TOOL" decode --
offers amd-gart "" _ptfs_tool "$TOOL" decode --format a
offers pte_small "" _ptfs_tool "$TOOL" decode --level pte_s
offers pdb1 "" _ptfs_tool "$TOOL" walk turing-mixed.tar.gz pd
offers gart0 pdb0 _ptfs_tool "$TOOL" maps gart-umr-kat.tar.gz g
offers turing-mixed.tar.gz "" _ptfs_tool "$TOOL" walk turing-mixed.t
offers crosscheck "" _ptfs_tool "$TOOL" cr
offers --range "" _ptfs_tool "$TOOL" crosscheck --r
offers proc "" _ptfs_tool "$TOOL" crosscheck xcheck-mirror.tar.gz p
offers svm "" _ptfs_tool "$TOOL" crosscheck xcheck-mirror.tar.gz proc s
offers roots "" _ptfs_tool "$TOOL" ro
offers snapshot "" _ptfs_tool "$TOOL" sn
offers --min-score "" _ptfs_tool "$TOOL" roots --mi
offers x86-64 "" _ptfs_tool "$TOOL" roots --format x8
offers --iommu "" _ptfs_tool "$TOOL" roots --io
offers amd-vi "" _ptfs_tool "$TOOL" roots --iommu am
offers --force "" _ptfs_tool "$TOOL" build --f
offers --force "" _ptfs_tool "$TOOL" snapshot --f
offers --same-root-only "" _ptfs_tool "$TOOL" diff --s
offers devices "" _ptfs_tool "$TOOL" dev
offers --all-entries "" _ptfs_tool "$TOOL" walk --all
offers ivhd1 ivhd0.00:02.0 _ptfs_tool "$TOOL" devices iommu-amdvi.tar.gz ivhd1
if [ -n "${PTFS:-}" ] && [ -x "$PTFS" ]; then
	P=$(readlink -f "$PTFS")
	offers all_entries "" _ptfs "$P" -o a
	offers ro,all_entries "" _ptfs "$P" -o ro,a
	offers turing-mixed.zip "" _ptfs "$P" turing-mixed.z
fi
echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
