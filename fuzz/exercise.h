/*
 * exercise.h — what the fuzz targets do with a context once they have one:
 * walk some VAs, stream pages, and, when the tree is small enough to finish
 * quickly, scan it and render everything.  Shared by fuzz_capture.c and
 * fuzz_decode_walk.c (static functions: one copy per target).
 *
 * Bounds (why): a hostile capture can alias tables so that the tree holds
 * ~1e11 pages or table visits, and a GART can span 2^36 mostly uncaptured
 * entries (fuzz/README.md, "Known slow inputs").  Those are slow, not
 * memory-unsafe; and every pass over a tree (pages, scan, maps, info,
 * text and JSON) costs the fuzzer executions: with no bound per input the
 * targets ran 34-108 inputs a second.  So each target passes its bounds to
 * fz_context() explicitly (struct fz_bounds): the tree-wide passes run
 * only on trees whose table entries, counted first by a memoised pass that
 * itself stops at the bound, fit FZ_BOUNDS.entries, and only while the
 * pages streamed fit .pages; the walker always runs, since every walk is
 * bounded by PT_MAX_DEPTH.
 */
#ifndef FUZZ_EXERCISE_H
#define FUZZ_EXERCISE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt_capture.h"
#include "pt_render.h"
#include "pt_walk.h"

#define FZ_MAX_FLAT (1ull << 16)   /* flat (GART) root entries we are willing to list */

/* The work one input may cost (each target passes its own to fz_context()). */
struct fz_bounds {
	uint64_t entries;   /* table entries a tree-wide pass reads (zeros passed over and aliases included) */
	uint64_t pages;     /* pages streamed before scan, maps and info are left out */
	unsigned walks;     /* streamed pages walked again */
	uint64_t json;      /* entries up to which maps and info are also rendered as JSON */
};

/* The targets' bounds, aiming at >= 1000 inputs a second under ASan + UBSan (fuzz/README.md: the figures). */
#define FZ_BOUNDS ((struct fz_bounds){.entries = 256, .pages = 16, .walks = 2, .json = 16})

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
	if (w.fault == PT_FAULT_NONE && (w.page_size == 0 || va - w.page_va >= w.page_size))
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
 * Table entries the page iterator would read under T (T included: the
 * listed ones and the zero ones between them), at most MAX + 1: a memoised walk over distinct (space, addr, level), so it reads
 * each distinct table once however the tables alias, and stops as soon as
 * the count passes MAX.  A child is always one level down, so this ends.
 */
#define FZ_MEMO 256

struct fz_memo {
	struct {
		uint64_t addr, entries;
		unsigned space;
		int level;
	} m[FZ_MEMO];
	unsigned n;
};

static uint64_t fz_entries(const struct pt_table *t, struct fz_memo *memo, uint64_t max)
{
	struct pt_entry e;
	uint64_t v = 0;

	for (unsigned k = 0; k < memo->n; k++)
		if (memo->m[k].addr == t->addr && memo->m[k].space == t->space &&
		    memo->m[k].level == t->level)
			return memo->m[k].entries;
	if (memo->n == FZ_MEMO)
		return max + 1;
	for (uint64_t i = 0, from = 0; v <= max && pt_table_next(t, &i, false, 0, &e, NULL); from = ++i) {
		/* the zero entries passed over were read too (unless known zero) */
		v += i - from + 1;
		if (e.state != PT_ST_POINTER)
			continue;
		for (unsigned w = 0; w < 2 && v <= max; w++) {
			struct pt_table c;

			if (pt_table_child(t, i, &e, w, &c) && c.cover != PT_COVER_NONE)
				v += fz_entries(&c, memo, max - v);
		}
	}
	if (v > max)
		return max + 1;   /* not memoised: a partial count */
	memo->m[memo->n].addr = t->addr;
	memo->m[memo->n].space = t->space;
	memo->m[memo->n].level = t->level;
	memo->m[memo->n].entries = v;
	memo->n++;
	return v;
}

static void fz_context_out(const struct pt_context *ctx, const uint64_t *vas, size_t nvas,
			   const struct fz_bounds *bd, int out)
{
	struct pt_buf b;
	struct pt_page_iter it;
	struct pt_page pg;
	struct pt_table root;
	struct pt_entry e;
	uint64_t n = 0, last = 0, size = 0;
	bool small;

	pt_buf_init(&b);
	for (size_t i = 0; i < nvas; i++)
		fz_walk(ctx, vas[i], &b, out);
	pt_table_root(ctx, &root);
	small = root.entries <= FZ_MAX_FLAT;
	if (small) {
		static struct fz_memo memo;

		memo.n = 0;
		size = fz_entries(&root, &memo, bd->entries);
		small = size <= bd->entries;
	}
	if (small) {
		/* list the root the way readdir does, render each entry */
		for (uint64_t i = 0; pt_table_next(&root, &i, false, 0, &e, NULL) && i < 64; i++) {
			pt_buf_reset(&b);
			(void)pt_render_entry(&b, &root, i, &e, out == PT_OUT_TEXT ? PT_OUT_TEXT : PT_OUT_JSON);
		}
		pt_pages_init(&it, ctx, 0, NULL);
		while (n < bd->pages && pt_pages_next(&it, &pg)) {
			/* VA order, and each page is what the walker says */
			if (n && pg.va < last)
				abort();
			last = pg.va;
			if (n < bd->walks)
				fz_walk(ctx, pg.va + pg.size / 2, &b, out);
			n++;
		}
		if (n < bd->pages) {
			struct pt_stats st;

			if (pt_context_scan(ctx, &st, NULL, NULL, NULL) == PT_OK && st.pages != n)
				abort();
			/* JSON only for small trees: a JSON-only input of a larger one renders text */
			if (out != PT_OUT_JSON || size > bd->json) {
				pt_buf_reset(&b);
				(void)pt_render_maps(&b, ctx, PT_OUT_TEXT, NULL);
				pt_buf_reset(&b);
				(void)pt_render_info(&b, ctx, PT_OUT_TEXT, NULL);
			}
			if (out != PT_OUT_TEXT && size <= bd->json) {
				pt_buf_reset(&b);
				(void)pt_render_maps(&b, ctx, PT_OUT_JSON, NULL);
				pt_buf_reset(&b);
				(void)pt_render_info(&b, ctx, PT_OUT_JSON, NULL);
			}
		}
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
