/* SPDX-License-Identifier: MIT */
/*
 * runs.c — maps runs as a stream, with filters and the not-mapped ranges,
 * and the maps file rendered from it.
 *
 * The one place of the merge rule, of the bounds of a maps list (entries
 * read, pages, runs, bytes, walks) and of its `# truncated` line: the maps
 * file, ptfs-tool maps, diff and pa all take their runs from here.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pt_runs.h"

void pt_runs_filter_init(struct pt_runs_filter *f)
{
	memset(f, 0, sizeof *f);
	f->space = -1;
	f->kind_num = -1;
	f->va_hi = UINT64_MAX;
}

void pt_runs_init(struct pt_runs_iter *it, const struct pt_context *ctx,
		  const struct pt_runs_filter *f, struct pt_readctl *rc)
{
	struct pt_table root;
	struct pt_walk w;
	uint64_t from = f->va_lo, lo, end;

	memset(it, 0, sizeof *it);
	it->ctx = ctx;
	it->f = *f;
	it->rc = rc;
	/*
	 * A page that starts below va_lo but reaches into it is kept: start the
	 * page stream at the page holding va_lo, as the walker finds it.
	 */
	if (from && pt_walk_va(ctx, from, &w) == PT_OK && w.fault == PT_FAULT_NONE)
		from = w.page_va;
	pt_pages_init(&it->pages, ctx, from, rc);
	it->pages.budget = PT_SCAN_ENTRIES_MAX;   /* bounded by entries read, like maps (aliased tables) */

	/* The VA space is the root table's span (a canonical one ends at the top: 0). */
	pt_table_root(ctx, &root);
	lo = pt_table_entry_va(&root, 0);
	end = root.page_shift < 64 && root.entries > 0 &&
	      root.entries <= (UINT64_MAX >> root.page_shift) ?
	      pt_table_entry_va_end(&root, root.entries - 1) : 0;
	it->va_limit = end <= lo ? UINT64_MAX : end;
	it->cursor = f->va_lo > lo ? f->va_lo : lo;
	if (f->va_hi != UINT64_MAX && f->va_hi + 1 < it->va_limit)
		it->va_limit = f->va_hi + 1;
	it->cursor_end = it->cursor >= it->va_limit;
}

/* Marks IT cut at VA by LIMIT of WHAT (the first bound hit is the one reported). */
static void runs_cut(struct pt_runs_iter *it, uint64_t va, uint64_t limit, const char *what)
{
	if (it->truncated)
		return;
	it->truncated = true;
	it->cut_va = va;
	it->cut_limit = limit;
	it->cut_what = what;
}

static bool page_keep(const struct pt_runs_iter *it, const struct pt_page *pg,
		      const char *kind)
{
	const struct pt_runs_filter *f = &it->f;

	if (f->state && strcmp(f->state, "mapped") != 0)
		return false;
	/* read-only in every format's words: read_only set, or writeable clear */
	if (f->read_only && !(pg->leaf.perm & (PT_PERM_READ_ONLY | PT_PERM_NO_WRITE)))
		return false;
	if (f->space >= 0 && pt_context_space(it->ctx, pg->space) != (unsigned)f->space)
		return false;
	if (f->kind && strcmp(f->kind, kind) != 0)
		return false;
	if (f->kind_num >= 0 && pg->leaf.kind != f->kind_num)
		return false;
	if (f->page_size && pg->size != f->page_size)
		return false;
	if (pg->va + (pg->size - 1) < f->va_lo)
		return false;
	return true;
}

/*
 * Where the byte at OFF of page PG lands through the translation of its
 * space, into X; false: not translated.  *LEN: the bytes from OFF that
 * translation holds for, at most the rest of the page.  A stage-1 page may
 * lie over several stage-2 pages, not contiguous, some faulting, so maps
 * cuts it into those pieces (as crosscheck does, xcheck.c side_final()): a
 * piece that faults spans to the next 4 KiB boundary, the smallest page of
 * every translating format (a walk tells no fault's extent).
 */
static bool page_final(const struct pt_runs_iter *it, const struct pt_page *pg, uint64_t off,
		       struct pt_xlate *x, uint64_t *len)
{
	unsigned id = pt_context_space(it->ctx, pg->space);
	uint64_t in = pg->pa + off, span;

	*len = pg->size - off;
	if (!pt_context_xlate(it->ctx, id))
		return false;
	span = pt_xlate_addr(it->ctx, id, in, x) ? x->avail : 0x1000 - (in & 0xfff);
	if (span < *len)
		*len = span;
	return true;
}

/* Whether page PG (translated as X, when TR) continues run R's final addresses. */
static bool final_joins(const struct pt_run *r, bool tr, const struct pt_xlate *x)
{
	if (tr != r->translated)
		return false;
	if (!tr)
		return true;
	if (x->fault != PT_FAULT_NONE || r->final_fault != PT_FAULT_NONE)
		return x->fault == r->final_fault;   /* pieces faulting alike are one run */
	return x->space == r->final_space && x->pa == r->final_next;
}

/* R's final columns from its newest piece, LEN bytes (translated as X, when TR). */
static void final_set(struct pt_run *r, uint64_t len, bool tr, const struct pt_xlate *x, bool first)
{
	r->translated = tr;
	if (!tr)
		return;
	if (first) {
		r->final_fault = x->fault;
		r->final_space = x->space;
		r->final_pa = x->pa;
	}
	/* a piece ends where its translation stops holding (page_final()): the next may join */
	r->final_next = x->fault == PT_FAULT_NONE ? x->pa + len : UINT64_MAX;
}

/*
 * The next mapped run (maps's merge over the kept pages).  The unit merged
 * is a piece: a whole page, or, in a translated space, the part of a page
 * one stage-2 translation holds for (page_final()); the rest of the page
 * stays pending at it->pend_off.
 */
static bool mapped_next(struct pt_runs_iter *it, struct pt_run *r)
{
	const struct pt_format *fmt = it->ctx->fmt;
	bool open = false;

	while (!it->pages_done) {
		struct pt_page pg;
		char flags[PT_FLAGS_LEN], kind[64];
		bool fresh = !it->have_pend, tr = false;
		struct pt_xlate x;
		uint64_t off = 0, len, pva, ppa;

		if (it->have_pend) {
			pg = it->pend;
			off = it->pend_off;
			it->have_pend = false;
		} else if (!pt_pages_next(&it->pages, &pg)) {
			it->pages_done = true;
			if (it->pages.cut)
				runs_cut(it, it->pages.cut_va, PT_SCAN_ENTRIES_MAX, "entries read");
			break;
		}
		if (pg.va > it->f.va_hi) {
			it->pages_done = true;
			break;
		}
		/*
		 * Pages read, kept or not, each once (a pending page was counted
		 * when it was read): a bound on work like the entries read.  The
		 * cut names the first page not looked at.  Every page costs an
		 * entry read, so while PT_SCAN_PAGES_MAX >= PT_SCAN_ENTRIES_MAX the
		 * entries cut comes first; kept so that a larger entries budget
		 * cannot leave the pages unbounded.
		 */
		if (fresh && ++it->npages > PT_SCAN_PAGES_MAX) {
			runs_cut(it, pg.va, PT_SCAN_PAGES_MAX, "pages");
			it->pages_done = true;
			break;
		}
		pt_format_flags(fmt, &pg.leaf, flags, sizeof flags);
		pt_format_kind(fmt, &pg.leaf, kind, sizeof kind);
		if (!page_keep(it, &pg, kind))
			continue;
		len = pg.size - off;
		if (it->ctx->xlate)
			tr = page_final(it, &pg, off, &x, &len);
		pva = pg.va + off;
		ppa = pg.pa + off;
		if (open && pva == r->end && pg.space == r->space && pg.size == r->page_size &&
		    ppa == r->pa + (r->end - r->va) && !strcmp(flags, r->flags) &&
		    !strcmp(kind, r->kind) && final_joins(r, tr, &x)) {
			r->end += len;
			final_set(r, len, tr, &x, false);
			if (off + len < pg.size) {
				it->pend = pg;
				it->pend_off = off + len;
				it->have_pend = true;
			}
			continue;
		}
		if (open) {
			it->pend = pg;
			it->pend_off = off;
			it->have_pend = true;
			return true;
		}
		if (++it->nruns > PT_MAPS_RUNS_MAX) {
			runs_cut(it, pva, PT_MAPS_RUNS_MAX, "runs");
			it->pages_done = true;
			it->done = true;
			return false;
		}
		memset(r, 0, sizeof *r);
		open = true;
		r->state = "mapped";
		r->mapped = true;
		r->va = pva;
		r->end = pva + len;
		r->pa = ppa;
		r->page_size = pg.size;
		r->space = pg.space;
		r->perm = pg.leaf.perm;
		r->kind_id = pg.leaf.kind;
		snprintf(r->flags, sizeof r->flags, "%s", flags);
		snprintf(r->kind, sizeof r->kind, "%s", kind);
		final_set(r, len, tr, &x, true);
		if (off + len < pg.size) {
			it->pend = pg;
			it->pend_off = off + len;
			it->have_pend = true;
		}
	}
	return open;
}

/*
 * The range from it->cursor that one walk settles: up to the end of the
 * entry the walk stopped at (a whole table when none of it is captured),
 * or of the page it reached.  *STATE: the fault name, NULL for a page or
 * for plain `unmapped`.
 */
static uint64_t gap_piece(struct pt_runs_iter *it, uint64_t limit, const char **state)
{
	struct pt_walk w;
	uint64_t va = it->cursor, end = limit;

	*state = NULL;
	it->gap_walks++;
	if (pt_walk_va(it->ctx, va, &w) != PT_OK)
		return limit;
	if (w.fault == PT_FAULT_NONE) {
		end = w.page_va + w.page_size;
	} else if (w.fault_step >= 0 && (unsigned)w.fault_step < w.nsteps) {
		const struct pt_walk_step *s = &w.steps[w.fault_step];
		const struct pt_table *t = &s->table;

		uint64_t next = s->index;
		struct pt_entry e;

		if (!s->captured && t->cover == PT_COVER_NONE)
			end = pt_table_entry_va_end(t, t->entries - 1);
		else if (!s->captured)
			/* a partly captured table: the hole ends at the next captured entry */
			end = pt_table_next(t, &next, true, 0, &e, it->rc) ? pt_table_entry_va(t, next) :
			      pt_table_entry_va_end(t, t->entries - 1);
		else
			end = pt_table_entry_va_end(t, s->index);
		if (w.fault != PT_FAULT_UNMAPPED)
			*state = pt_fault_name(w.fault);
	} else if (w.fault == PT_FAULT_NONCANONICAL) {
		/* the hole of a canonical space ends where its high half starts */
		end = pt_va_at(it->ctx->fmt, pt_va_slot(it->ctx->fmt, va));
		*state = pt_fault_name(w.fault);
	}
	if (end <= va || end > limit)
		end = limit;   /* also the end of the top entry, which wraps to 0 */
	return end;
}

bool pt_runs_next(struct pt_runs_iter *it, struct pt_run *out)
{
	if (it->done)
		return false;
	if (!it->have_held && !it->mapped_done) {
		if (mapped_next(it, &it->held))
			it->have_held = true;
		else
			it->mapped_done = true;
	}
	if (it->truncated && !it->have_held)
		return false;
	if (it->f.all && !it->cursor_end) {
		uint64_t gap_end = it->have_held && it->held.va < it->va_limit ?
				   it->held.va : it->va_limit;

		while (it->cursor < gap_end) {
			const char *st;
			uint64_t end, start = it->cursor;

			if (it->gap_walks >= PT_RUNS_GAP_WALKS_MAX) {
				/* Fail closed: say the list stops here rather than go on unbounded. */
				runs_cut(it, start, PT_RUNS_GAP_WALKS_MAX, "walks");
				it->done = true;
				if (it->have_gap) {
					*out = it->gap;
					it->have_gap = false;
					return true;
				}
				return false;
			}
			end = gap_piece(it, gap_end, &st);
			it->cursor = end;
			if (st && it->f.state && strcmp(it->f.state, st) != 0)
				st = NULL;
			if (!st)
				continue;
			if (it->have_gap && it->gap.end == start && !strcmp(it->gap.state, st)) {
				it->gap.end = end;
				continue;
			}
			if (it->have_gap)
				*out = it->gap;
			memset(&it->gap, 0, sizeof it->gap);
			it->gap.state = st;
			it->gap.va = start;
			it->gap.end = end;
			it->gap.kind_id = -1;
			if (it->have_gap)
				return true;
			it->have_gap = true;
		}
		if (it->have_gap) {
			*out = it->gap;
			it->have_gap = false;
			return true;
		}
		if (it->cursor >= it->va_limit)
			it->cursor_end = true;
	}
	if (!it->have_held)
		return false;
	*out = it->held;
	it->have_held = false;
	if (it->f.all) {
		if (out->end == 0 || out->end >= it->va_limit)
			it->cursor_end = true;
		else if (out->end > it->cursor)
			it->cursor = out->end;
	}
	return true;
}

/* ---- rendering ----------------------------------------------------------- */

void pt_render_run(struct pt_buf *b, const struct pt_context *ctx, const struct pt_run *r,
		   const char *context, enum pt_out out)
{
	const struct pt_format *fmt = ctx->fmt;
	int d = (int)fmt->va_digits;
	char size[24], page[24];

	pt_size_str(r->end - r->va, size, sizeof size);
	pt_size_str(r->page_size, page, sizeof page);
	if (out == PT_OUT_JSON) {
		struct pt_jobj o = {0};

		if (context)
			pt_jobj_str(&o, "context", context);
		if (r->mapped) {
			/* the KIND column's key is the format's (mtype for AMD) */
			pt_jobj_flags(&o, "flags", r->flags);
			char key[PT_KIND_KEY_LEN];

			pt_format_kind_key(fmt, key, sizeof key);
			pt_jobj_str(&o, key, r->kind);
			pt_jobj_hex(&o, "pa", r->pa);
			pt_jobj_hex(&o, "page_size", r->page_size);
			pt_jobj_str(&o, "space", pt_context_space_name(ctx, r->space));
			if (r->translated && r->final_fault == PT_FAULT_NONE) {
				pt_jobj_hex(&o, "final_pa", r->final_pa);
				pt_jobj_str(&o, "final_space", pt_capture_space_name(ctx->cap, r->final_space));
			} else if (r->translated) {
				pt_jobj_str(&o, "final_fault", pt_fault_name(r->final_fault));
			}
		} else {
			pt_jobj_str(&o, "state", r->state);
		}
		pt_jobj_hex(&o, "size", r->end - r->va);
		pt_jobj_hex(&o, "va_end", r->end);
		pt_jobj_hex(&o, "va_start", r->va);
		pt_jobj_finish(&o, b);   /* keys sorted, as every ptfs JSON object */
		pt_buf_puts(b, "\n");
		return;
	}
	if (context)
		pt_buf_printf(b, "%s ", context);
	if (!r->mapped) {
		pt_buf_printf(b, "0x%0*" PRIx64 "-0x%0*" PRIx64 " %6s %4s %s\n",
			      d, r->va, d, r->end, size, "-", r->state);
		return;
	}
	pt_buf_printf(b, "0x%0*" PRIx64 "-0x%0*" PRIx64 " %6s %4s %-7s 0x%016" PRIx64 " %s %s",
		      d, r->va, d, r->end, size, page, pt_context_space_name(ctx, r->space), r->pa,
		      r->flags, r->kind);
	/*
	 * FINAL, last (FLAGS stays the sixth column), where the space is
	 * translated: SPACE:0xADDR of the run's first byte, or stage2:FAULT.
	 */
	if (r->translated && r->final_fault == PT_FAULT_NONE)
		pt_buf_printf(b, " %s:0x%016" PRIx64, pt_capture_space_name(ctx->cap, r->final_space),
			      r->final_pa);
	else if (r->translated)
		pt_buf_printf(b, " stage2:%s", pt_fault_name(r->final_fault));
	pt_buf_puts(b, "\n");
}

void pt_render_runs_truncated(struct pt_buf *b, const struct pt_runs_iter *it, enum pt_out out)
{
	int d = (int)it->ctx->fmt->va_digits;

	if (out == PT_OUT_JSON)
		pt_buf_printf(b, "{\"truncated_at_va\": \"0x%0*" PRIx64 "\", \"more_than\": %" PRIu64
			      ", \"of\": \"%s\"}\n", d, it->cut_va, it->cut_limit, it->cut_what);
	else
		pt_buf_printf(b, "# truncated at VA 0x%0*" PRIx64 ": more than %" PRIu64 " %s\n",
			      d, it->cut_va, it->cut_limit, it->cut_what);
}

pt_err pt_render_maps(struct pt_buf *b, const struct pt_context *ctx, enum pt_out out,
		      struct pt_readctl *rc)
{
	struct pt_runs_filter f;
	struct pt_runs_iter it;
	struct pt_run r;
	size_t start = b->len;

	pt_runs_filter_init(&f);
	pt_runs_init(&it, ctx, &f, rc);
	while (pt_runs_next(&it, &r)) {
		/* The render is cached for the life of the mount: bounded in bytes too. */
		if (b->len - start >= PT_MAPS_BYTES_MAX) {
			/*
			 * R comes before any cut the stream made while reading past
			 * it, so the bytes are what stopped the list, and the line
			 * says so rather than the stream's later bound.
			 */
			it.truncated = false;
			runs_cut(&it, r.va, PT_MAPS_BYTES_MAX, "bytes");
			break;
		}
		pt_render_run(b, ctx, &r, NULL, out);
	}
	if (it.truncated)
		pt_render_runs_truncated(b, &it, out);
	return pt_buf_status(b);
}
