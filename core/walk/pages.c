/* SPDX-License-Identifier: MIT */
/*
 * pages.c — the page iterator: every page a context maps, in VA order,
 * read table by table with the walker's rule (walk_int.h), so that `va/`
 * lists exactly the pages `walk/` resolves.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_num.h"
#include "pt_walk.h"
#include "walk_int.h"

/* ---- page iterator ------------------------------------------------------ */

/* First index of T whose entry can hold a VA >= from. */
static uint64_t first_index(const struct pt_table *t, uint64_t from_va)
{
	uint64_t from = pt_va_slot(t->ctx->fmt, from_va);

	if (from <= t->va_base)
		return 0;
	uint64_t i = (from - t->va_base) >> t->page_shift;
	return i < t->entries ? i : t->entries;
}

static void push_plain(struct pt_page_iter *it, const struct pt_table *t)
{
	struct pt_iter_frame *f = &it->f[it->depth++];

	memset(f, 0, sizeof *f);
	f->table = *t;
	pt_table_direct(&f->table);
	f->next = first_index(t, it->from_va);
	f->end = t->entries;
}

static void push_dual(struct pt_page_iter *it, const struct pt_table *big, bool has_big,
		      const struct pt_table *small, bool has_small)
{
	struct pt_iter_frame *f = &it->f[it->depth++];

	memset(f, 0, sizeof *f);
	f->dual = true;
	f->has_big = has_big;
	f->has_small = has_small;
	if (has_big) {
		f->big = *big;
		pt_table_direct(&f->big);
		f->big_next = first_index(big, it->from_va);
		f->big_end = big->entries;
	}
	if (has_small) {
		f->table = *small;
		pt_table_direct(&f->table);
	}
	if (!has_big) {
		/* No big table: the small table decides everywhere. */
		f->next = first_index(small, it->from_va);
		f->end = small->entries;
	}
}

void pt_pages_init(struct pt_page_iter *it, const struct pt_context *ctx, uint64_t from_va,
		   struct pt_readctl *rc)
{
	struct pt_table root;

	it->ctx = ctx;
	it->from_va = from_va;
	it->depth = 0;
	it->done = false;
	it->budget = 0;
	it->reads = 0;
	it->cut = false;
	it->cut_va = 0;
	it->flags = 0;
	it->rc = rc;
	pt_table_root(ctx, &root);
	push_plain(it, &root);
}

/* The tree path of the frames above the top one, plus (level, index). */
static void iter_node(const struct pt_page_iter *it, int level, uint64_t index, struct pt_node *n)
{
	n->ctx = it->ctx;
	n->n = 0;
	for (unsigned k = 0; k + 1 < it->depth; k++) {
		n->s[n->n].level = it->f[k].table.level;
		n->s[n->n].index = it->f[k].cur;
		n->n++;
	}
	n->s[n->n].level = (int8_t)level;
	n->s[n->n].index = index;
	n->n++;
}

static bool emit(struct pt_page_iter *it, const struct pt_table *t, uint64_t idx,
		 const struct pt_entry *e, struct pt_page *out)
{
	out->va = pt_table_entry_va(t, idx);
	out->size = pt_wk_page_extent(it->ctx, pt_wk_slot(t, idx), pt_wk_leaf_page_size(t, e));
	if (out->va < it->from_va)
		return false;
	out->space = e->space;
	out->pa = e->pa;
	pt_entry_copy(&out->leaf, e);
	iter_node(it, t->level, idx, &out->node);
	return true;
}

/*
 * Counts the read of entry I of T against the budget and the cancel check;
 * false (the iteration ends) when either says stop.
 */
static bool may_read(struct pt_page_iter *it, const struct pt_table *t, uint64_t i)
{
	if (pt_readctl_poll(it->rc)) {
		it->done = true;
		return false;
	}
	if (it->budget && ++it->reads > it->budget) {
		uint64_t va = pt_table_entry_va(t, i);

		it->cut = true;
		it->cut_va = va > it->from_va ? va : it->from_va;
		it->done = true;
		return false;
	}
	return true;
}

/* Zero entries in a row, ZERO_RUN_SKIP, then a jump to where data resumes. */
static uint64_t after_zero(const struct pt_table *t, uint64_t i, unsigned *zeros)
{
	if (++*zeros < ZERO_RUN_SKIP)
		return i + 1;
	*zeros = 0;
	return pt_wk_next_nonzero(t, i);
}

/* Steps the small sub-range of a dual frame; true with a page in OUT. */
static bool small_next(struct pt_page_iter *it, struct pt_iter_frame *f, struct pt_page *out)
{
	struct pt_entry e;
	uint8_t raw[16];
	const char *v;

	unsigned zeros = 0;

	while (f->next < f->end) {
		uint64_t i = f->next++;

		if (!may_read(it, &f->table, i))
			return false;
		if (!pt_wk_raw(&f->table, i, raw))
			continue;
		if (pt_wk_raw_zero(raw)) {
			f->next = after_zero(&f->table, i, &zeros);
			continue;
		}
		if (!pt_wk_decode(&f->table, raw, it->flags, &e))
			continue;
		if (pt_wk_entry_fault(&e, &v) != PT_FAULT_NONE || e.state != PT_ST_MAPPED)
			continue;
		if (emit(it, &f->table, i, &e, out))
			return true;
	}
	return false;
}

bool pt_pages_next(struct pt_page_iter *it, struct pt_page *out)
{
	struct pt_entry e;
	uint8_t raw[16];

	while (!it->done && it->depth > 0) {
		struct pt_iter_frame *f = &it->f[it->depth - 1];
		struct pt_table big, small;
		bool has_big, has_small;
		const char *v;

		if (f->dual) {
			if (f->has_small && small_next(it, f, out))
				return true;
			if (it->done)
				break;
			if (!f->has_big || f->big_next >= f->big_end) {
				it->depth--;
				continue;
			}
			uint64_t b = f->big_next++;

			if (!may_read(it, &f->big, b))
				break;
			bool cap = pt_table_read(&f->big, b, &e);
			enum pt_fault fault;

			switch (pt_wk_big_verdict(cap, &e, &fault, &v)) {
			case BIG_LEAF:
				if (emit(it, &f->big, b, &e, out))
					return true;
				break;
			case BIG_FAULT:
				break;
			case BIG_DEFER:
				if (f->has_small) {
					unsigned sh = f->big.page_shift - f->table.page_shift;
					uint64_t lo = b << sh, hi = (b + 1) << sh;
					uint64_t first = first_index(&f->table, it->from_va);

					f->next = lo > first ? lo : first;
					f->end = hi < f->table.entries ? hi : f->table.entries;
				}
				break;
			}
			continue;
		}

		if (f->next >= f->end) {
			it->depth--;
			continue;
		}
		uint64_t i = f->next++;

		if (!may_read(it, &f->table, i))
			break;
		if (!pt_wk_raw(&f->table, i, raw)) {
			f->next = pt_wk_next_captured(&f->table, i);
			continue;
		}
		if (pt_wk_raw_zero(raw)) {
			/* zero: unmapped, skipped undecoded; after a few, jump to where data resumes */
			if (i + 1 < f->end && (i & (ZERO_RUN_SKIP - 1)) == ZERO_RUN_SKIP - 1)
				f->next = pt_wk_next_nonzero(&f->table, i);
			continue;
		}
		if (!pt_wk_decode(&f->table, raw, it->flags, &e)) {
			f->next = pt_wk_next_captured(&f->table, i);
			continue;
		}
		if (pt_wk_entry_fault(&e, &v) != PT_FAULT_NONE || pt_wk_leaf_replica(&f->table, i, &e))
			continue;
		if (e.state == PT_ST_MAPPED) {
			if (emit(it, &f->table, i, &e, out))
				return true;
			continue;
		}
		if (it->depth >= PT_MAX_DEPTH)
			continue;
		f->cur = i;
		has_big = pt_table_child(&f->table, i, &e, 0, &big);
		has_small = pt_table_child(&f->table, i, &e, 1, &small);
		if (has_big && has_small)
			push_dual(it, &big, true, &small, true);
		else if (has_big)
			push_plain(it, &big);
		else if (has_small)
			push_plain(it, &small);
	}
	it->done = true;
	return false;
}
