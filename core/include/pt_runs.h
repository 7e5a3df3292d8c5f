/* SPDX-License-Identifier: MIT */
/*
 * pt_runs.h — the runs of `maps` as a stream, with filters.
 *
 * A run is a maximal range of pages contiguous in VA and PA, in one space,
 * of one page size, with equal flag and kind columns: exactly the lines of
 * pt_render_maps().  Filters drop pages BEFORE merging, so `--ro` shows the
 * read-only pages of a run whose other pages are writable.  On request the
 * stream also gives the ranges no page covers that the walker does not call
 * plain `unmapped` (sparse, not_captured, reserved_bits, unsupported), like
 * ptdump's non-present ranges.
 *
 * Memory is that of one pt_page_iter; no list is built.  Thread-safe as the
 * walker is (one iterator per thread).
 */
#ifndef PT_RUNS_H
#define PT_RUNS_H

/* The include rule (HACKING.md, "Layers"): the view layer's, never included below it. */
#if defined(PT_LAYER_UTIL) || defined(PT_LAYER_FORMATS) || defined(PT_LAYER_LOAD) || defined(PT_LAYER_SOURCES) || defined(PT_LAYER_WALK) || defined(PT_LAYER_LINUX)
#error "pt_runs.h belongs to core/view: a lower layer must not include it (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stdint.h>

#include "pt_capture.h"
#include "pt_render.h"
#include "pt_walk.h"

/*
 * Walks spent finding the not-mapped ranges of one stream (--all): each
 * walk settles at least one whole entry, so a context whose gaps need more
 * is cut short with `truncated` set rather than searched without end.
 */
#define PT_RUNS_GAP_WALKS_MAX (UINT64_C(1) << 22)

struct pt_run {
	uint64_t va, end;          /* [va, end) */
	/*
	 * "mapped", or for --all the fault every VA of the range walks to:
	 * "sparse", "not_captured", "reserved_bits", "unsupported".
	 */
	const char *state;
	bool mapped;
	/* mapped runs only */
	unsigned space;
	uint64_t pa;               /* PA of va */
	uint64_t page_size;
	uint32_t perm;             /* PT_PERM_* of the first page */
	int kind_id;               /* kind id of the first page (-1: none) */
	char flags[PT_FLAGS_LEN], kind[64];  /* the maps columns */
	/*
	 * The page's space is translated (docs/design.md §2.8): where the
	 * run's first byte lands at the end of the stack (FINAL_SPACE, a
	 * capture space id, and FINAL_PA), or the stage-2 fault its
	 * translation ends in (FINAL_FAULT not PT_FAULT_NONE).  A run is cut
	 * where the final addresses stop being contiguous.
	 */
	bool translated;
	enum pt_fault final_fault;
	unsigned final_space;
	uint64_t final_pa;
	uint64_t final_next;       /* the final address the next page must have to join (UINT64_MAX: none) */
};

struct pt_runs_filter {
	bool read_only;            /* only pages with read_only */
	int space;                 /* capture space id (pt_capture_space_find()), or -1 for any */
	const char *kind;          /* kind column as maps prints it, or NULL */
	int64_t kind_num;          /* the leaf's kind number (maps --kind 0xfe), or -1: any */
	uint64_t va_lo, va_hi;     /* pages overlapping [va_lo, va_hi] (inclusive); 0, UINT64_MAX: all */
	uint64_t page_size;        /* 0: any */
	const char *state;         /* NULL: mapped (plus the others with `all`); else only this state */
	bool all;                  /* also not-mapped ranges (sparse, not_captured, ...) */
};

/* The filter that keeps everything maps shows. */
void pt_runs_filter_init(struct pt_runs_filter *f);

struct pt_runs_iter {
	const struct pt_context *ctx;
	struct pt_runs_filter f;
	struct pt_page_iter pages;
	struct pt_page pend;       /* a page read but not yet used */
	uint64_t pend_off;         /* bytes of it already in runs (a page over several stage-2 pieces) */
	bool have_pend, pages_done, mapped_done;
	struct pt_run held;        /* the next mapped run, waiting for the gaps before it */
	bool have_held;
	uint64_t cursor;           /* first VA not yet accounted for (--all) */
	bool cursor_end;           /* cursor reached the end of the VA space */
	uint64_t va_limit;         /* end of the context's VA space (exclusive, saturated) */
	struct pt_run gap;         /* a gap range being merged */
	bool have_gap;
	uint64_t nruns, npages, gap_walks;
	/*
	 * Stopped at PT_SCAN_ENTRIES_MAX entries read, PT_SCAN_PAGES_MAX pages
	 * read, PT_MAPS_RUNS_MAX runs or PT_RUNS_GAP_WALKS_MAX walks (and, in
	 * pt_render_maps(), PT_MAPS_BYTES_MAX bytes written).
	 */
	bool truncated;
	uint64_t cut_va;           /* truncated: the first VA not accounted for */
	uint64_t cut_limit;        /* truncated: the bound that was hit ... */
	const char *cut_what;      /* ... and what it counts ("entries read", "pages", "runs", "walks", "bytes") */
	bool done;
	struct pt_readctl *rc;     /* the caller's (pt_walk.h); NULL: never cancelled */
};

/* Starts the runs of CTX that F keeps; RC (may be NULL) counts every entry read. */
void pt_runs_init(struct pt_runs_iter *it, const struct pt_context *ctx,
		  const struct pt_runs_filter *f, struct pt_readctl *rc);
/* Next run in VA order; false at the end (then see it->truncated). */
bool pt_runs_next(struct pt_runs_iter *it, struct pt_run *out);

/*
 * One run as a maps line (text: the columns of docs/design.md §4 `maps`; JSON: one
 * object per line).  Not-mapped runs print `VA_START-VA_END SIZE - STATE`.
 * CONTEXT: NULL, or a name to add (JSON key "context"; text first column).
 */
void pt_render_run(struct pt_buf *b, const struct pt_context *ctx, const struct pt_run *r,
		   const char *context, enum pt_out out);
/* The last line of a cut list: which bound stopped IT and where (as maps says it). */
void pt_render_runs_truncated(struct pt_buf *b, const struct pt_runs_iter *it, enum pt_out out);

#endif
