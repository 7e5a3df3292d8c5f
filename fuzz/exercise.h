/*
 * exercise.h — what the fuzz targets do with a context once they have one:
 * walk some VAs, list the root, stream pages, scan it and render maps and
 * info, each tree-wide pass within a bounded amount of work.  Shared by the
 * targets that build contexts (static functions: one copy per target).
 *
 * Bounds (why): a hostile capture can alias tables so that the tree holds
 * ~1e11 pages or table visits, and a GART can span 2^36 mostly uncaptured
 * entries (fuzz/README.md, "Known slow inputs").  Those are slow, not
 * memory-unsafe; and every pass over a tree costs the fuzzer executions.
 * So each target passes its bounds explicitly (struct fz_bounds), and each
 * tree-wide pass (the root listing, the page stream, the scan, maps, info)
 * gets its own read control of FZ_BOUNDS.work units (pt_readctl_init(),
 * the core's own bound: one unit per table entry read, zeros passed over
 * included), so the passes run on every tree and stop where the work runs
 * out (the cut paths are fuzzed too).  Until 2026-12-02 a memoised
 * pre-count of the tree's entries decided whether they ran at all; it
 * counted neither a table's trailing zeros nor the stage-2 walk of every
 * read of a translated table, so trees it called small cost up to 40 ms
 * (fuzz/README.md).  The walker always runs, since every walk is bounded by
 * PT_MAX_DEPTH.
 */
#ifndef FUZZ_EXERCISE_H
#define FUZZ_EXERCISE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt_capture.h"
#include "pt_render.h"
#include "pt_walk.h"

/* The work one input may cost (each target passes its own to fz_context()). */
struct fz_bounds {
	uint64_t work;      /* read units (table entries, zeros passed over included) of each tree-wide pass */
	uint64_t pages;     /* pages streamed (and checked against the scan when the tree has fewer) */
	unsigned walks;     /* streamed pages walked again */
	unsigned xlate;     /* divides .work in a capture with a translated space */
};

/* The targets' bounds, aiming at >= 1000 inputs a second under ASan + UBSan (fuzz/README.md: the figures). */
#define FZ_BOUNDS ((struct fz_bounds){.work = 64, .pages = 16, .walks = 2, .xlate = 4})

/*
 * What one input renders (fz_context_out()): PT_OUT_TEXT, PT_OUT_JSON, or
 * FZ_OUT_BOTH, every render in both forms (fz_context(), what every target
 * did before; fuzz/README.md).  A target that lets an input bit choose the
 * form renders half as much per input, and the fuzzer keeps inputs of both
 * forms in its corpus because each reaches code the other does not.
 */
#define FZ_OUT_BOTH 2

static void fz_render_walk(struct pt_buf *b, const struct pt_context *ctx, const struct pt_walk *w,
			   int out)
{
	if (out != PT_OUT_JSON) {
		pt_buf_reset(b);
		(void)pt_render_walk(b, ctx, w, PT_OUT_TEXT);
	}
	if (out != PT_OUT_TEXT) {
		pt_buf_reset(b);
		(void)pt_render_walk(b, ctx, w, PT_OUT_JSON);
	}
}

static void fz_walk(const struct pt_context *ctx, uint64_t va, struct pt_buf *b, int out)
{
	struct pt_walk w;

	if (pt_walk_va(ctx, va, &w) != PT_OK)
		abort();
	if (w.nsteps > PT_MAX_DEPTH + 1)
		abort();
	/* the page holds the VA (its untagged form where the format ignores a top byte) */
	if (w.fault == PT_FAULT_NONE &&
	    (w.page_size == 0 || pt_va_untag(ctx->fmt, va) - w.page_va >= w.page_size))
		abort();
	fz_render_walk(b, ctx, &w, out);
	/* the leaf's node resolves back to an entry */
	if (w.fault == PT_FAULT_NONE) {
		struct pt_loc loc;

		if (pt_node_resolve(&w.node, &loc) != PT_OK)
			abort();
		pt_buf_reset(b);
		(void)pt_render_entry(b, &loc.table, loc.index, &loc.entry,
				      out == PT_OUT_JSON ? PT_OUT_JSON : PT_OUT_TEXT);
		{
			char path[512];

			(void)pt_node_path(&w.node, path, sizeof path);
		}
	}
}

/*
 * A fresh read control of BD's work for one tree-wide pass over CTX.  In a
 * capture with a translated space every table read may be a stage-2 walk
 * of up to PT_MAX_DEPTH reads (and zeros are read one by one there:
 * pt_wk_next_nonzero()), so such a context gets .work / .xlate units.
 */
static void fz_rc(struct pt_readctl *rc, const struct pt_context *ctx, const struct fz_bounds *bd)
{
	uint64_t w = ctx->xlate ? bd->work / bd->xlate : bd->work;

	pt_readctl_init(rc, NULL, NULL, w ? w : 1);
}

static void fz_context_out(const struct pt_context *ctx, const uint64_t *vas, size_t nvas,
			   const struct fz_bounds *bd, int out)
{
	struct pt_buf b;
	struct pt_readctl rc;
	struct pt_page_iter it;
	struct pt_page pg;
	struct pt_table root;
	struct pt_entry e;
	struct pt_stats st;
	uint64_t n = 0, last = 0;
	bool ended;

	pt_buf_init(&b);
	for (size_t i = 0; i < nvas; i++)
		fz_walk(ctx, vas[i], &b, out);
	pt_table_root(ctx, &root);
	/* list the root the way readdir does, render each entry */
	fz_rc(&rc, ctx, bd);
	for (uint64_t i = 0, k = 0; k < bd->pages && pt_table_next(&root, &i, false, 0, &e, &rc); i++, k++) {
		pt_buf_reset(&b);
		(void)pt_render_entry(&b, &root, i, &e, out == PT_OUT_TEXT ? PT_OUT_TEXT : PT_OUT_JSON);
	}
	fz_rc(&rc, ctx, bd);
	pt_pages_init(&it, ctx, 0, &rc);
	while (n < bd->pages && pt_pages_next(&it, &pg)) {
		/* VA order, and each page is what the walker says */
		if (n && pg.va < last)
			abort();
		last = pg.va;
		if (n < bd->walks)
			fz_walk(ctx, pg.va + pg.size / 2, &b, out);
		n++;
	}
	/* the iterator saw the whole tree: neither the page bound nor the work bound stopped it */
	ended = n < bd->pages && !rc.cut;
	fz_rc(&rc, ctx, bd);
	if (pt_context_scan(ctx, &st, NULL, NULL, &rc) == PT_OK && ended && !rc.cut &&
	    !st.pages_truncated && !st.tables_truncated && st.pages != n)
		abort();
	if (out != PT_OUT_JSON) {
		fz_rc(&rc, ctx, bd);
		pt_buf_reset(&b);
		(void)pt_render_maps(&b, ctx, PT_OUT_TEXT, &rc);
		fz_rc(&rc, ctx, bd);
		pt_buf_reset(&b);
		(void)pt_render_info(&b, ctx, PT_OUT_TEXT, &rc);
	}
	if (out != PT_OUT_TEXT) {
		fz_rc(&rc, ctx, bd);
		pt_buf_reset(&b);
		(void)pt_render_maps(&b, ctx, PT_OUT_JSON, &rc);
		fz_rc(&rc, ctx, bd);
		pt_buf_reset(&b);
		(void)pt_render_info(&b, ctx, PT_OUT_JSON, &rc);
	}
	pt_buf_free(&b);
}

/* Every render in both forms: what the targets did before fz_context_out(). */
static inline void fz_context(const struct pt_context *ctx, const uint64_t *vas, size_t nvas,
			      const struct fz_bounds *bd)
{
	fz_context_out(ctx, vas, nvas, bd, FZ_OUT_BOTH);
}

#endif
