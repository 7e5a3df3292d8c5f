/* SPDX-License-Identifier: MIT */
/*
 * xlate.c — reads in translated spaces (docs/design.md §2.8): an address of
 * a space that `[space NAME] translate = CTX` names is an input address of
 * CTX, and every read there (a stage-1 table entry as well as the final
 * page) goes through CTX's walk, as a nested hardware walk does.  The load
 * layer only binds and checks the translation (load/spaces.c); walking it
 * is this layer's, so that the include rule holds.  A read that fails
 * is asked here whether its source holds the page but cannot read it
 * (pt_wk_unreadable(): a corrupt kdump page is "unreadable", not "not
 * captured").
 *
 * A capture without translated spaces has ctx->xlate NULL: every reader
 * here is then one test and the plain memory call.
 */
#include <string.h>

#include "pt_walk.h"
#include "walk_int.h"

bool pt_xlate_addr(const struct pt_context *ctx, unsigned id, uint64_t addr, struct pt_xlate *r)
{
	const struct pt_context *t;
	struct pt_walk w;

	memset(r, 0, sizeof *r);
	r->space = id;
	r->pa = addr;
	r->avail = UINT64_MAX;
	/* at most three stages: load/spaces.c refused cycles and longer chains */
	for (unsigned n = 0; (t = pt_context_xlate(ctx, r->space)) != NULL && n < 3; n++) {
		uint64_t left;

		r->stages++;
		pt_walk_va(t, r->pa, &w);
		if (w.fault == PT_FAULT_NONE && (w.perm & PT_PERM_NO_READ))
			w.fault = PT_FAULT_RIGHTS;   /* a stage-2 page the device may not read */
		if (w.fault != PT_FAULT_NONE) {
			/* a fault of a deeper stage is reported as it was, naming that stage */
			if (w.fault == PT_FAULT_STAGE2) {
				r->fault = w.s2.fault;
				r->stage = w.s2.ctx;
				r->in = w.s2.addr;
				r->in_space = w.s2.space;
			} else {
				r->fault = w.fault;
				r->stage = t;
				r->in = r->pa;
				r->in_space = r->space;
			}
			return false;
		}
		left = w.page_va + w.page_size - w.va;
		if (left && left < r->avail)
			r->avail = left;
		r->space = pt_context_space(t, w.space);
		r->pa = w.pa;
		/* a final address that is itself translated: its walk ran through it already */
		if (w.translated) {
			r->space = w.final_space;
			r->pa = w.final_pa;
		}
	}
	return true;
}

bool pt_wk_mem_read_xlate(const struct pt_table *t, uint64_t pa, void *buf, size_t len)
{
	unsigned id = pt_context_space(t->ctx, t->space);
	struct pt_xlate r;

	if (!pt_context_xlate(t->ctx, id))
		return pt_mem_read(t->ctx->mem, id, pa, buf, len);
	if (!pt_xlate_addr(t->ctx, id, pa, &r) || r.avail < len)
		return false;
	return pt_mem_read(t->ctx->mem, r.space, r.pa, buf, len);
}

enum pt_cover pt_wk_mem_cover(const struct pt_table *t, uint64_t len)
{
	unsigned id = pt_context_space(t->ctx, t->space);
	struct pt_xlate r;
	enum pt_cover c;

	if (!pt_context_xlate(t->ctx, id))
		return pt_mem_cover(t->ctx->mem, id, t->addr, len);
	/* a table across stage-2 pages is partial: its entries are translated one by one */
	if (!pt_xlate_addr(t->ctx, id, t->addr, &r))
		return len <= 4096 ? PT_COVER_NONE : PT_COVER_PARTIAL;
	c = pt_mem_cover(t->ctx->mem, r.space, r.pa, len < r.avail ? len : r.avail);
	return len > r.avail ? PT_COVER_PARTIAL : c;
}

const uint8_t *pt_wk_mem_direct(const struct pt_table *t, uint64_t len)
{
	unsigned id = pt_context_space(t->ctx, t->space);
	struct pt_xlate r;

	if (!pt_context_xlate(t->ctx, id))
		return pt_mem_direct(t->ctx->mem, id, t->addr, len);
	if (!pt_xlate_addr(t->ctx, id, t->addr, &r) || r.avail < len)
		return NULL;
	return pt_mem_direct(t->ctx->mem, r.space, r.pa, len);
}

bool pt_wk_unreadable(const struct pt_table *t, uint64_t pa, uint64_t len, uint64_t *bad,
		      char *why, size_t wlen)
{
	unsigned id = pt_context_space(t->ctx, t->space);
	struct pt_xlate r;
	uint64_t b;

	if (!pt_context_xlate(t->ctx, id))
		return pt_mem_unreadable(t->ctx->mem, id, pa, len, bad, why, wlen);
	if (!pt_xlate_addr(t->ctx, id, pa, &r))
		return false;
	if (!pt_mem_unreadable(t->ctx->mem, r.space, r.pa, len < r.avail ? len : r.avail, &b, why, wlen))
		return false;
	if (bad)
		*bad = pa + (b - r.pa);
	return true;
}

bool pt_walk_unreadable(const struct pt_walk *w, uint64_t *bad, char *why, size_t wlen)
{
	const struct pt_walk_step *s;

	if (w->fault != PT_FAULT_UNREADABLE || w->fault_step < 0)
		return false;
	s = &w->steps[w->fault_step];
	return pt_wk_unreadable(&s->table, s->entry_pa, s->table.ctx->fmt->levels[s->table.level].entry_size,
				bad, why, wlen);
}
