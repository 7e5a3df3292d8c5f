/* SPDX-License-Identifier: MIT */
/*
 * pt_fetchlines.h — stale-fetch hazards between two captures of one
 * context (ptfs-tool diff --fetch-lines).
 *
 * A GMMU reads page-table entries in 128-byte lines and keeps them, with no
 * invalidate path for a line (TU104, as observed by the project ptfs was
 * started from: ptfs-tool(1), "diff --fetch-lines").  An entry rewritten in
 * place inside a line the engine already walked is then invisible to it:
 * the engine goes on using the line's old bytes.  This lists, for two
 * captures A (before) and B (after), the lines where that can happen: a
 * table at the same address (space, address, level) in both trees, an
 * entry of it whose bytes differ, and some entry of the same line that was
 * in use in A (mapped, or a pointer the walker follows), so the line was
 * walked.  A table that moved is never listed (its new address is fetched
 * fresh), nor a line no entry of which was in use in A (never fetched).
 *
 * Generic over formats: the level table gives entry sizes, the decoder the
 * states; the line size is one constant for every format (a hazard listing:
 * where a cache of that line size would go stale, not a claim that every
 * engine has one).
 */
#ifndef PT_FETCHLINES_H
#define PT_FETCHLINES_H

/* The include rule (HACKING.md, "Layers"): the view layer's, never included below it. */
#if defined(PT_LAYER_UTIL) || defined(PT_LAYER_FORMATS) || defined(PT_LAYER_LOAD) || defined(PT_LAYER_SOURCES) || defined(PT_LAYER_WALK) || defined(PT_LAYER_LINUX)
#error "pt_fetchlines.h belongs to core/view: a lower layer must not include it (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stdint.h>

#include "pt_buf.h"
#include "pt_capture.h"
#include "pt_error.h"
#include "pt_render.h"
#include "pt_walk.h"

/* Bytes of one PTE fetch line (the GMMU's; the same for every format). */
#define PT_FETCH_LINE_BYTES 128u
/* Tables compared per context; past it the comparison fails (PT_E_UNSUPPORTED). */
#define PT_FETCH_TABLES_MAX 65536u

/* One entry of a line whose bytes differ between A and B. */
struct pt_fetch_entry {
	uint64_t index;             /* in its table */
	uint64_t old_raw[2], new_raw[2];
	uint64_t va_a, va_b;        /* the first VA it covers in A's tree and in B's */
};

/* One line with a rewrite in place while it was in use in A. */
struct pt_fetch_line {
	const char *level;          /* the level name of the table */
	const char *space;          /* the table's space name */
	uint64_t pa;                /* the line's address (a multiple of PT_FETCH_LINE_BYTES) */
	unsigned entry_size;        /* 8 or 16 */
	unsigned entries;           /* entries of the table inside the line */
	unsigned in_use;            /* of them, in use in A */
	unsigned n;                 /* changed entries, e[0..n) in index order */
	struct pt_fetch_entry e[PT_FETCH_LINE_BYTES / 8];
};

/* Gets each line in tree order of A's tables; a non-zero return stops. */
typedef int (*pt_fetch_fn)(void *ud, const struct pt_fetch_line *l);

/*
 * Compares the tables of A and B (one context in two captures; the same
 * format) and hands FN every hazardous line.  PT_E_UNSUPPORTED when a tree
 * has more than PT_FETCH_TABLES_MAX tables or a side read more than
 * PT_SCAN_ENTRIES_MAX entries (fail closed: a cut listing would hide
 * hazards; *WHY then says which); PT_E_NOMEM.  RC (may be NULL) bounds and
 * cancels the reads.
 */
pt_err pt_fetch_lines(const struct pt_context *a, const struct pt_context *b, pt_fetch_fn fn,
		      void *ud, const char **why, struct pt_readctl *rc);

/*
 * One line as ptfs-tool diff --fetch-lines prints it.  Text:
 *   CONTEXT SPACE:LINE LEVEL: N rewritten of M entries, K in use in A
 *     entry INDEX: OLD -> NEW va A VA_A B VA_B
 * JSON: one object (ptfs-tool(1) JSON).  VA_DIGITS: hex digits of the VAs.
 */
void pt_render_fetch_line(struct pt_buf *b, const char *context, const struct pt_fetch_line *l,
			  unsigned va_digits, enum pt_out out);

#endif
