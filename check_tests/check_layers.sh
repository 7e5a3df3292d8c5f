#!/bin/bash
# check_layers.sh — the include rule of HACKING.md ("Layers") is enforced by
# the build: a file compiled as one layer (-DPT_LAYER_X, as core/meson.build
# compiles each layer's library) that includes an internal header of another
# layer, or a public header of a higher layer, must fail to compile with the
# header's #error; an allowed include must compile.  Uses the project's
# compiler and core's include folders.
#
#   check_layers.sh SRCDIR CC [CC ARGS...]
#
# Prints one line per case and `N passed, M failed`; exits 1 on any failure.
set -u
export LC_ALL=C

SRC=${1:?usage: check_layers.sh SRCDIR CC...}
shift
CC=("$@")
[ ${#CC[@]} -gt 0 ] || { echo "check_layers.sh: no compiler given" >&2; exit 2; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ptfs-layers.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
INC=()
for d in include util formats load sources walk linux view; do
	INC+=("-I$SRC/core/$d")
done
PASS=0
FAIL=0

# compile LAYER HEADER: compiles a file of layer LAYER that includes HEADER; OUT, RC
compile() {
	printf '#include "%s"\nint pt_layers_probe;\n' "$2" >"$TMP/probe.c"
	OUT=$("${CC[@]}" -std=c11 -D_GNU_SOURCE "-DPT_LAYER_$1" "${INC[@]}" -fsyntax-only \
		"$TMP/probe.c" 2>&1)
	RC=$?
}

# refused LAYER HEADER MESSAGE: the compile fails, and with the header's #error MESSAGE
refused() {
	compile "$1" "$2"
	if [ "$RC" != 0 ] && grep -qF -- "$3" <<<"$OUT"; then
		PASS=$((PASS + 1))
		echo "ok - PT_LAYER_$1 including $2 fails: $3"
	else
		FAIL=$((FAIL + 1))
		echo "not ok - PT_LAYER_$1 including $2 should fail with '$3' (exit $RC): $(head -c 400 <<<"$OUT")"
	fi
}

# allowed LAYER HEADER: the compile succeeds
allowed() {
	compile "$1" "$2"
	if [ "$RC" = 0 ]; then
		PASS=$((PASS + 1))
		echo "ok - PT_LAYER_$1 including $2 compiles"
	else
		FAIL=$((FAIL + 1))
		echo "not ok - PT_LAYER_$1 including $2 should compile: $(head -c 400 <<<"$OUT")"
	fi
}

# a format reaches for the walker's and the loader's internals, or the walker itself
refused FORMATS walk_int.h "walk_int.h is internal to core/walk"
refused FORMATS capture_int.h "capture_int.h is internal to core/load"
refused FORMATS pt_walk.h "pt_walk.h belongs to core/walk: a lower layer must not include it"
refused FORMATS pt_render.h "pt_render.h belongs to core/view"
# a source reaches for the loader's own state, a lower layer for a higher one
refused SOURCES capture_int.h "capture_int.h is internal to core/load"
refused LOAD walk_int.h "walk_int.h is internal to core/walk"
refused UTIL pt_format.h "pt_format.h belongs to core/formats"
# what each layer may include
allowed FORMATS pt_format.h
allowed FORMATS pt_buf.h
allowed FORMATS fmt_ver2.h
allowed WALK walk_int.h
allowed WALK pt_walk.h
allowed LOAD capture_int.h
allowed SOURCES pt_source.h
allowed VIEW pt_tree.h
# the linux layer sits above walk, below view
refused WALK pt_linux.h "pt_linux.h belongs to core/linux"
refused LOAD linux_int.h "linux_int.h is internal to core/linux"
refused LINUX pt_tree.h "pt_tree.h belongs to core/view"
refused LINUX capture_int.h "capture_int.h is internal to core/load"
allowed LINUX pt_walk.h
allowed LINUX linux_int.h
allowed LINUX pt_extend.h
allowed VIEW pt_linux.h

echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
