/* SPDX-License-Identifier: MIT */
/*
 * walk.c — tables and the walker (tree nodes and VA names are node.c,
 * the page iterator pages.c, the anomaly scan scan.c).  Driven only by the format's level table: no
 * chip is named.
 *
 * One rule is shared by the walker and the iterator, so that `va/` lists
 * exactly the pages `walk/` resolves: an entry is followed only when it is
 * captured, has no reserved bit set and is a pointer or a leaf; below a dual
 * entry the big entry decides first (leaf, fault, or "defer" to the small
 * table), see pt_wk_big_verdict().
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_num.h"
#include "pt_walk.h"
#include "walk_int.h"

static const struct pt_level *lvl(const struct pt_table *t)
{
	return &t->ctx->fmt->levels[t->level];
}

/* Sets T's cover from its place (space, addr, entries, level); no direct pointer yet. */
static void table_place(struct pt_table *t)
{
	t->cover = pt_wk_mem_cover(t, t->entries * lvl(t)->entry_size);
	t->direct = NULL;
}

void pt_table_direct(struct pt_table *t)
{
	unsigned sz = lvl(t)->entry_size;

	t->direct = NULL;
	if (t->cover == PT_COVER_FULL && t->entries <= UINT64_MAX / 16)
		t->direct = pt_wk_mem_direct(t, t->entries * sz);
}

void pt_table_root(const struct pt_context *ctx, struct pt_table *out)
{
	const struct pt_level *l = &ctx->fmt->levels[0];

	out->ctx = ctx;
	out->level = 0;
	out->space = ctx->root_space;
	out->addr = ctx->root_addr;
	out->entries = ctx->root_entries;
	out->va_base = ctx->va_base;
	/* A flat table (bits 0) takes its page size from the context. */
	out->page_shift = l->bits ? l->va_shift : ctx->root_page_shift;
	table_place(out);
	out->rel_children = false;
	out->big.present = false;
	out->reserved_above = false;
	out->perm_set = ctx->perm_set & ctx->fmt->perm_or_down;
	out->perm_clear = 0;
}

uint64_t pt_table_entry_pa(const struct pt_table *t, uint64_t index)
{
	return t->addr + index * lvl(t)->entry_size;
}

/* The slot (pt_va_slot()) of entry INDEX's first VA: what the walker's arithmetic uses. */
uint64_t pt_wk_slot(const struct pt_table *t, uint64_t index)
{
	return t->va_base + (index << t->page_shift);
}

uint64_t pt_table_entry_va(const struct pt_table *t, uint64_t index)
{
	return pt_va_at(t->ctx->fmt, pt_wk_slot(t, index));
}

uint64_t pt_table_entry_va_end(const struct pt_table *t, uint64_t index)
{
	/* the last VA + 1, so that the end of the low half is not the high half's start */
	return pt_va_at(t->ctx->fmt, pt_wk_slot(t, index) + ((UINT64_C(1) << t->page_shift) - 1)) + 1;
}

bool pt_table_child(const struct pt_table *parent, uint64_t index, const struct pt_entry *e,
		    unsigned which, struct pt_table *out)
{
	const struct pt_format *fmt = parent->ctx->fmt;
	const struct pt_level *l;
	int li;

	if (which > 1 || !e->target[which].present)
		return false;
	li = e->target[which].level;
	if (li < 0 || (unsigned)li >= pt_format_nlevels(fmt))
		return false;
	l = &fmt->levels[li];
	/* Levels only go down: this is what makes every path finite. */
	if (l->depth <= lvl(parent)->depth || l->bits == 0)
		return false;
	out->ctx = parent->ctx;
	out->level = (int8_t)li;
	out->space = e->target[which].space;
	out->addr = e->target[which].addr;
	out->entries = (uint64_t)1 << l->bits;
	out->va_base = pt_wk_slot(parent, index);
	out->page_shift = l->va_shift;
	/* An entry that sizes its own child table: never wider than the level (inode paths). */
	if (e->target[which].shift) {
		if (e->target[which].bits > l->bits)
			return false;
		out->entries = (uint64_t)1 << e->target[which].bits;
		out->page_shift = e->target[which].shift;
	}
	table_place(out);
	out->rel_children = e->target[which].rel_children;
	out->big.present = false;
	if (which == 1 && e->target[0].present)
		out->big = e->target[0];
	/* The walker stops at a pointer with reserved bits (pt_wk_entry_fault()). */
	out->reserved_above = parent->reserved_above || e->reserved_mask[0] || e->reserved_mask[1];
	/* the rights this pointer passes down, with those it inherited */
	out->perm_set = parent->perm_set | (e->perm & fmt->perm_or_down);
	out->perm_clear = parent->perm_clear | (~e->perm & fmt->perm_and_down);
	return true;
}


/*
 * The raw bytes of entry INDEX of T into RAW (16 bytes, zero-filled past the
 * entry size); false where they are not captured.  Loops that skip zero
 * entries test these bytes before paying for a decode.
 */
bool pt_wk_raw(const struct pt_table *t, uint64_t index, uint8_t raw[16])
{
	unsigned sz = lvl(t)->entry_size;

	if (index >= t->entries || sz > 16)
		return false;
	if (sz < 16)
		memset(raw + sz, 0, 16 - sz);
	if (t->direct) {
		memcpy(raw, t->direct + index * sz, sz);
		return true;
	}
	return pt_wk_mem_read(t, pt_table_entry_pa(t, index), raw, sz);
}

bool pt_wk_raw_zero(const uint8_t raw[16])
{
	return pt_le64_load(raw) == 0 && pt_le64_load(raw + 8) == 0;
}

bool pt_table_read(const struct pt_table *t, uint64_t index, struct pt_entry *e)
{
	uint8_t raw[16];

	return pt_wk_raw(t, index, raw) && pt_wk_decode(t, raw, 0, e);
}

/* pt_table_read() with decode FLAGS (PT_DECODE_*). */
bool pt_wk_read_flags(const struct pt_table *t, uint64_t index, unsigned flags, struct pt_entry *e)
{
	uint8_t raw[16];

	return pt_wk_raw(t, index, raw) && pt_wk_decode(t, raw, flags, e);
}

/* Decodes RAW, an entry of T, as pt_table_read() (false: not decodable). */
bool pt_wk_decode(const struct pt_table *t, const uint8_t raw[16], unsigned flags,
			 struct pt_entry *e)
{
	if (t->ctx->fmt->decode((unsigned)t->level, t->page_shift, raw, flags, e) != PT_OK)
		return false;
	/*
	 * The decoder has no context: a page written as a bus address (offset +
	 * the context's space_bias) becomes its offset here, once, so that
	 * walk/, va/, maps and audit agree.  An address below the bias is not
	 * in that space at all: unsupported, never a guessed page.
	 */
	if (e->state == PT_ST_MAPPED && e->space < PT_CONTEXT_SPACES &&
	    t->ctx->space_bias[e->space]) {
		uint64_t bias = t->ctx->space_bias[e->space];

		if (e->pa < bias) {
			e->state = PT_ST_UNSUPPORTED;
			e->leaf = false;
			e->pa = 0;
		} else {
			e->pa -= bias;
		}
	}
	/* A table pointer is a bus address too (umr subtracts FB_OFFSET from a PDE's PBA). */
	for (unsigned w = 0; e->state == PT_ST_POINTER && w < 2; w++) {
		struct pt_target *tg = &e->target[w];

		if (tg->present && t->rel_children) {
			/* Relative to this table, no bias (umr read_vram.c, tfs_addr). */
			tg->addr += t->addr;
			continue;
		}

		if (!tg->present || tg->space >= PT_CONTEXT_SPACES || !t->ctx->space_bias[tg->space])
			continue;
		if (tg->addr < t->ctx->space_bias[tg->space]) {
			e->state = PT_ST_UNSUPPORTED;
			e->target[0].present = e->target[1].present = false;
			break;
		}
		tg->addr -= t->ctx->space_bias[tg->space];
	}
	/* A leaf's rights are what the path leaves it (pt_format.perm_or_down). */
	if (e->state == PT_ST_MAPPED)
		e->perm = (e->perm | t->perm_set) & ~t->perm_clear;
	return true;
}

/*
 * After entry I of T turned out not captured: the next index worth reading,
 * the one holding the first captured byte past I's start (or t->entries).
 * A huge, mostly uncaptured table (e.g. a flat table of 2^27 entries with a
 * few captured pages) is then listed in time proportional to what is captured.
 */
uint64_t pt_wk_next_captured(const struct pt_table *t, uint64_t i)
{
	uint64_t pa = pt_table_entry_pa(t, i), next, j;

	/* a translated space has no map of what is captured: the next entry */
	if (pt_wk_translated(t))
		return i + 1;
	if (pa == UINT64_MAX || !pt_mem_next(t->ctx->mem, pt_context_space(t->ctx, t->space), pa + 1, &next))
		return t->entries;
	j = (next - t->addr) / lvl(t)->entry_size;
	return j > i ? j : i + 1;
}


/*
 * A leaf larger than its entry's span is written into every slot of its
 * page (AMD-Vi Next Level 7, reference: Linux PAGE_SIZE_PTE_COUNT): true
 * for the slots after the first, where the page is not listed again.  The
 * page starts at a multiple of its size from the table's first VA.
 */
bool pt_wk_leaf_replica(const struct pt_table *t, uint64_t index, const struct pt_entry *e)
{
	if (t->page_shift >= 64 || e->page_size <= ((uint64_t)1 << t->page_shift))
		return false;
	return ((index << t->page_shift) & (e->page_size - 1)) != 0;
}


/*
 * The states that depend on where entry INDEX of T sits, not on its bits:
 * a valid leaf the walker never reaches is not `mapped`, so that `state:
 * mapped` counts exactly the pages of va/ and info.  A leaf with reserved
 * bits, or below a pointer with reserved bits: reserved_bits (the walk
 * faults there).  A small-page leaf whose range the big entry of its dual
 * entry decides (a valid big leaf maps it; a no_valid_4k, sparse, reserved
 * or uncaptured big entry faults it): shadowed.
 */
void pt_wk_place_state(const struct pt_table *t, uint64_t index, struct pt_entry *e)
{
	const struct pt_format *fmt = t->ctx->fmt;
	const struct pt_level *bl;
	struct pt_table big;
	struct pt_entry be;
	enum pt_fault f;
	const char *v;
	unsigned sh;

	if (e->state != PT_ST_MAPPED)
		return;
	if (t->reserved_above || e->reserved_mask[0] || e->reserved_mask[1]) {
		e->state = PT_ST_RESERVED_BITS;
		return;
	}
	if (pt_wk_leaf_replica(t, index, e)) {
		e->state = PT_ST_REPLICA;
		return;
	}
	if (!t->big.present || t->big.level < 0 ||
	    (unsigned)t->big.level >= pt_format_nlevels(fmt))
		return;
	bl = &fmt->levels[t->big.level];
	if (bl->bits == 0 || bl->va_shift < t->page_shift)
		return;
	big.ctx = t->ctx;
	big.level = t->big.level;
	big.space = t->big.space;
	big.addr = t->big.addr;
	big.entries = (uint64_t)1 << bl->bits;
	big.va_base = t->va_base;
	big.page_shift = bl->va_shift;
	big.big.present = false;
	big.reserved_above = false;
	big.perm_set = t->perm_set;
	big.perm_clear = t->perm_clear;
	big.rel_children = false;
	table_place(&big);
	sh = big.page_shift - t->page_shift;
	if (pt_wk_big_verdict(pt_table_read(&big, index >> sh, &be), &be, &f, &v) != BIG_DEFER)
		e->state = PT_ST_SHADOWED;
}

/* ---- read control -------------------------------------------------------- */

void pt_readctl_init(struct pt_readctl *rc, pt_cancel_fn cancel, void *cancel_ud, uint64_t work)
{
	rc->cancel = cancel;
	rc->cancel_ud = cancel_ud;
	rc->work_left = work ? work : UINT64_MAX;
	rc->polls = 0;
	rc->cut = false;
	rc->cancelled = false;
}

bool pt_readctl_cancelled(const struct pt_readctl *rc)
{
	return rc && rc->cancelled;
}

bool pt_readctl_poll(struct pt_readctl *rc)
{
	if (!rc)
		return false;
	if (rc->cancelled || rc->cut)
		return true;
	if (rc->work_left != UINT64_MAX) {
		if (rc->work_left == 0) {
			rc->cut = true;
			return true;
		}
		rc->work_left--;
	}
	/* The check may take a lock (fuse_req_interrupted): ask it rarely. */
	if (!rc->cancel || (++rc->polls & 4095) != 0)
		return false;
	rc->cancelled = rc->cancel(rc->cancel_ud);
	return rc->cancelled;
}

/*
 * After entry I of T read as zero: the next index whose bytes may be
 * non-zero (or t->entries).  A zero entry maps nothing and points nowhere,
 * and the memory model knows which captured chunks are zero, so a flat
 * table of 2^36 captured zero entries is passed in O(stored chunks).
 */
/*
 * 1 KiB reads a call of pt_wk_next_nonzero(): one, so that the entries it
 * passes stay within a small multiple of those its caller counts against
 * its bound (PT_SCAN_ENTRIES_MAX is counted per entry read one by one: 16
 * counted, then at most 128 passed).
 */
#define WK_ZERO_SCAN 1u

uint64_t pt_wk_next_nonzero(const struct pt_table *t, uint64_t i)
{
	uint64_t sz = lvl(t)->entry_size;
	uint64_t pa = pt_table_entry_pa(t, i), next, j, buf[128];

	if (pt_wk_translated(t))
		return i + 1;
	if (pa > UINT64_MAX - sz || !pt_mem_next_nonzero(t->ctx->mem, pt_context_space(t->ctx, t->space), pa + sz, &next) ||
	    next < t->addr)
		return t->entries;
	/*
	 * NEXT ends a hole, not a zero run (a mapped dump's table is data where
	 * zero): 1 KiB a read, at most WK_ZERO_SCAN reads a call, so that a
	 * table of 2^30 zero entries still comes back to the caller, whose
	 * bounds and cancel (pt_readctl) apply between calls
	 * (check_tests/test_mount_more.sh, "2^30 mapped zero entries").
	 */
	unsigned reads = 0;

	for (j = (next - t->addr) / sz > i ? (next - t->addr) / sz : i + 1; j < t->entries && reads++ < WK_ZERO_SCAN;
	     j += sizeof buf / sz) {
		uint64_t n = t->entries - j < sizeof buf / sz ? t->entries - j : sizeof buf / sz, k = 0;

		if (!pt_wk_mem_read(t, pt_table_entry_pa(t, j), buf, (size_t)(n * sz)))
			return j;    /* the caller reads entry J and sees why */
		while (k < n * sz / 8 && !buf[k])
			k++;
		if (k < n * sz / 8 || n * sz % 8)
			return j + k * 8 / sz;    /* the entry holding the first non-zero word */
	}
	return j < t->entries ? j : t->entries;   /* J: a zero entry, the caller goes on from it */
}

bool pt_table_next(const struct pt_table *t, uint64_t *index, bool all_entries, unsigned flags,
		   struct pt_entry *e, struct pt_readctl *rc)
{
	unsigned zeros = 0;

	for (uint64_t i = *index; i < t->entries; i++) {
		uint8_t raw[16];

		if (pt_readctl_poll(rc))
			return false;
		if (!pt_wk_raw(t, i, raw)) {
			i = pt_wk_next_captured(t, i) - 1;
			continue;
		}
		/* a zero entry is skipped undecoded: most of a sparse table is zeros */
		if (!all_entries && pt_wk_raw_zero(raw)) {
			if (++zeros >= ZERO_RUN_SKIP) {
				zeros = 0;
				i = pt_wk_next_nonzero(t, i) - 1;
			}
			continue;
		}
		if (!pt_wk_decode(t, raw, flags, e)) {
			i = pt_wk_next_captured(t, i) - 1;
			continue;
		}
		pt_wk_place_state(t, i, e);
		*index = i;
		return true;
	}
	return false;
}

const char *pt_cover_name(enum pt_cover c)
{
	switch (c) {
	case PT_COVER_FULL:
		return "yes";
	case PT_COVER_PARTIAL:
		return "partial";
	case PT_COVER_NONE:
		break;
	}
	return "no";
}

const char *pt_fault_name(enum pt_fault f)
{
	static const char *const names[] = {
		[PT_FAULT_NONE] = "none",
		[PT_FAULT_UNMAPPED] = "unmapped",
		[PT_FAULT_SPARSE] = "sparse",
		[PT_FAULT_NOT_CAPTURED] = "not_captured",
		[PT_FAULT_RESERVED_BITS] = "reserved_bits",
		[PT_FAULT_UNSUPPORTED] = "unsupported",
		[PT_FAULT_OUT_OF_RANGE] = "out_of_range",
		[PT_FAULT_NONCANONICAL] = "noncanonical",
		[PT_FAULT_RIGHTS] = "rights",
		[PT_FAULT_STAGE2] = "stage2",
		[PT_FAULT_UNREADABLE] = "unreadable",
	};
	if ((unsigned)f < sizeof names / sizeof names[0])
		return names[f];
	return "unknown";
}

/*
 * What one captured entry means for a walk: the fault it ends in (NONE for a
 * leaf or a pointer) and the verdict printed in the trace.
 */
enum pt_fault pt_wk_entry_fault(const struct pt_entry *e, const char **verdict)
{
	if (e->reserved_mask[0] || e->reserved_mask[1]) {
		*verdict = "reserved_bits";
		return PT_FAULT_RESERVED_BITS;
	}
	switch (e->state) {
	case PT_ST_MAPPED:
		*verdict = "mapped";
		return PT_FAULT_NONE;
	case PT_ST_POINTER:
		*verdict = "pointer";
		return PT_FAULT_NONE;
	case PT_ST_SPARSE:
		*verdict = "sparse";
		return PT_FAULT_SPARSE;
	case PT_ST_UNSUPPORTED:
		*verdict = "unsupported";
		return PT_FAULT_UNSUPPORTED;
	case PT_ST_NO_VALID_4K:
		*verdict = "no_valid_4k";
		return PT_FAULT_UNMAPPED;
	case PT_ST_INVALID:
		*verdict = "invalid";
		return PT_FAULT_UNMAPPED;
	case PT_ST_SHADOWED:
	case PT_ST_RESERVED_BITS:
	case PT_ST_REPLICA:
		/* Place states: the walker's own reads (pt_table_read()) never give them. */
		*verdict = pt_state_name(e->state);
		return PT_FAULT_UNMAPPED;
	case PT_ST_UNMAPPED:
		break;
	}
	*verdict = "unmapped";
	return PT_FAULT_UNMAPPED;
}

/*
 * The dual-entry rule of docs/design.md §2.1 for the big entry of one big page's
 * range: a valid big leaf maps and shadows the small leaves; no_valid_4k
 * and sparse fault (as does anything the walker cannot read or trust); any
 * other big entry — zero or invalid — lets the small table decide.
 */
enum big_verdict pt_wk_big_verdict(bool captured, const struct pt_entry *e,
				    enum pt_fault *fault, const char **verdict)
{
	if (!captured) {
		*verdict = "not_captured";
		*fault = PT_FAULT_NOT_CAPTURED;
		return BIG_FAULT;
	}
	*fault = pt_wk_entry_fault(e, verdict);
	if (*fault == PT_FAULT_NONE)
		return e->state == PT_ST_MAPPED ? BIG_LEAF : BIG_DEFER;
	if (e->state == PT_ST_UNMAPPED || e->state == PT_ST_INVALID) {
		*verdict = e->state == PT_ST_INVALID ? "invalid: small table decides"
						     : "unmapped: small table decides";
		*fault = PT_FAULT_NONE;
		return BIG_DEFER;
	}
	return BIG_FAULT;
}

uint64_t pt_wk_leaf_page_size(const struct pt_table *t, const struct pt_entry *e)
{
	return e->page_size ? e->page_size : (uint64_t)1 << t->page_shift;
}

/*
 * The part of the SIZE-byte page at PAGE_VA that is inside the context's VA
 * range (ctx->va_last).  A range can end inside a page where the format's
 * range register is finer than its page (a GART's END is in 4 KiB units,
 * its page 4 KiB << block fragment size), and the hardware checks the
 * range before it reads the table (umr: START <= addr <= END << 12 | 0xfff):
 * the last entry's page is mapped only up to there.
 */
uint64_t pt_wk_page_extent(const struct pt_context *ctx, uint64_t page_va, uint64_t size)
{
	if (ctx->va_last && page_va <= ctx->va_last && ctx->va_last - page_va < size - 1)
		return ctx->va_last - page_va + 1;
	return size;
}

/* Appends the step for entry IDX of T to W; false when it is not captured. */
static struct pt_walk_step *walk_step(struct pt_walk *w, const struct pt_table *t, uint64_t idx)
{
	struct pt_walk_step *s = &w->steps[w->nsteps++];

	s->table = *t;
	s->index = idx;
	s->entry_pa = pt_table_entry_pa(t, idx);
	s->captured = pt_table_read(t, idx, &s->entry);
	s->verdict = s->captured ? "" : "not_captured";
	w->node.s[w->node.n].level = t->level;
	w->node.s[w->node.n].index = idx;
	w->node.n++;
	return s;
}

static void walk_fault(struct pt_walk *w, enum pt_fault f)
{
	w->fault = f;
	w->fault_step = (int)w->nsteps - 1;
}

/*
 * An entry of step S that was not read: where its table's space is
 * translated and the translation faults, that is the walk's fault
 * (stage2); where the source holds the page but cannot read it (a
 * corrupt kdump page), "unreadable"; else "not captured".
 */
static void walk_unread(struct pt_walk *w, struct pt_walk_step *s)
{
	unsigned id = pt_context_space(s->table.ctx, s->table.space);
	struct pt_xlate r;

	if (pt_context_xlate(s->table.ctx, id) && !pt_xlate_addr(s->table.ctx, id, s->entry_pa, &r)) {
		s->verdict = "stage2";
		walk_fault(w, PT_FAULT_STAGE2);
		w->s2.fault = r.fault;
		w->s2.ctx = r.stage;
		w->s2.addr = r.in;
		w->s2.space = r.in_space;
		return;
	}
	if (pt_wk_unreadable(&s->table, s->entry_pa, s->table.ctx->fmt->levels[s->table.level].entry_size,
			     NULL, NULL, 0)) {
		s->verdict = "unreadable";
		walk_fault(w, PT_FAULT_UNREADABLE);
		return;
	}
	walk_fault(w, PT_FAULT_NOT_CAPTURED);
}

/* The page W resolved to, through the translations of its space. */
static void walk_final(struct pt_walk *w, const struct pt_context *ctx)
{
	unsigned id = pt_context_space(ctx, w->space);
	struct pt_xlate r;

	if (!pt_context_xlate(ctx, id))
		return;
	w->translated = true;
	if (pt_xlate_addr(ctx, id, w->pa, &r)) {
		w->final_space = r.space;
		w->final_pa = r.pa;
		return;
	}
	w->fault = PT_FAULT_STAGE2;
	w->fault_step = w->leaf_step;
	w->s2.fault = r.fault;
	w->s2.ctx = r.stage;
	w->s2.addr = r.in;
	w->s2.space = r.in_space;
}

/* The leaf of step S for the VA whose slot is SVA. */
static void walk_leaf(struct pt_walk *w, const struct pt_walk_step *s, uint64_t sva)
{
	uint64_t base = pt_wk_slot(&s->table, s->index), page;

	w->fault = PT_FAULT_NONE;
	w->leaf_step = (int)(s - w->steps);
	w->page_size = pt_wk_leaf_page_size(&s->table, &s->entry);
	/*
	 * A page starts where its entry's span starts, not at a multiple of
	 * its size: a GART's entry N maps (START << 12) + N * page size
	 * (umr subtracts START before indexing), and START need not be a
	 * multiple of a block-fragment page.  Masking the VA would name a
	 * page va/ does not list and shift its PA (issue #16.5).
	 */
	page = base + ((sva - base) & ~(w->page_size - 1));
	/*
	 * A page larger than the entry's span (its replicas fill the span's
	 * neighbours) starts at a multiple of its size from the table's start,
	 * and its tree path is its first slot, where va/ lists it (a lookup of
	 * any VA in the page names the same link).
	 */
	if (w->page_size > ((uint64_t)1 << s->table.page_shift)) {
		page = s->table.va_base + ((sva - s->table.va_base) & ~(w->page_size - 1));
		w->node.s[w->node.n - 1].index = (page - s->table.va_base) >> s->table.page_shift;
	}
	w->page_size = pt_wk_page_extent(s->table.ctx, page, w->page_size);
	w->page_va = pt_va_at(s->table.ctx->fmt, page);
	w->space = s->entry.space;
	w->pa = s->entry.pa + (sva - page);
	w->perm = s->entry.perm;
}

pt_err pt_walk_va(const struct pt_context *ctx, uint64_t va, struct pt_walk *w)
{
	const struct pt_format *fmt = ctx->fmt;
	struct pt_table t;
	uint64_t sva;

	w->va = va;
	va = pt_va_untag(fmt, va);   /* TBI: the tag byte is not part of the address */
	sva = pt_va_slot(fmt, va);
	w->nsteps = 0;
	w->fault = PT_FAULT_NONE;
	w->fault_step = -1;
	w->leaf_step = -1;
	w->space = 0;
	w->pa = w->page_va = w->page_size = 0;
	w->perm = 0;
	w->node.ctx = ctx;
	w->node.n = 0;
	memset(&w->aperture, 0, sizeof w->aperture);
	w->translated = false;
	w->final_space = 0;
	w->final_pa = 0;
	memset(&w->s2, 0, sizeof w->s2);

	pt_table_root(ctx, &t);
	if (fmt->va_canonical && !pt_va_in_space(fmt, va)) {
		/* the CPU faults it before it reads a table (SDM vol. 3A §6.15, #GP) */
		w->fault = PT_FAULT_NONCANONICAL;
		return PT_OK;
	}
	if (!pt_va_in_space(fmt, va) || sva < t.va_base ||
	    ((sva - t.va_base) >> t.page_shift) >= t.entries ||
	    (ctx->va_last && sva > ctx->va_last)) {
		w->fault = PT_FAULT_OUT_OF_RANGE;
		if (fmt->out_of_range)
			fmt->out_of_range(ctx, va, &w->aperture);
		return PT_OK;
	}

	while (w->nsteps < PT_MAX_DEPTH) {
		uint64_t idx = (sva - t.va_base) >> t.page_shift;
		struct pt_walk_step *s;
		struct pt_table big, small;
		enum pt_fault f;
		bool has_big, has_small;

		if (idx >= t.entries && w->nsteps > 0) {
			/*
			 * A pointer that skips levels (pt_format.skips_levels): its
			 * table covers the VAs whose skipped index bits are zero; this
			 * VA's are not, and the IOMMU faults it (AMD-Vi spec §2.2.3).
			 */
			w->steps[w->nsteps - 1].verdict = "pointer: skipped levels' VA bits not zero";
			walk_fault(w, PT_FAULT_UNMAPPED);
			return PT_OK;
		}
		s = walk_step(w, &t, idx);

		if (!s->captured) {
			walk_unread(w, s);
			return PT_OK;
		}
		f = pt_wk_entry_fault(&s->entry, &s->verdict);
		if (f != PT_FAULT_NONE) {
			walk_fault(w, f);
			return PT_OK;
		}
		if (s->entry.state == PT_ST_MAPPED) {
			walk_leaf(w, s, sva);
			if (ctx->xlate)
				walk_final(w, ctx);
			return PT_OK;
		}
		has_big = pt_table_child(&t, idx, &s->entry, 0, &big);
		has_small = pt_table_child(&t, idx, &s->entry, 1, &small);
		if (has_big && has_small) {
			/* Dual PDE: the big entry decides first. */
			uint64_t bidx = (sva - big.va_base) >> big.page_shift;
			struct pt_walk_step *b;

			s->verdict = "pointer (big and small)";
			b = walk_step(w, &big, bidx);
			switch (pt_wk_big_verdict(b->captured, &b->entry, &f, &b->verdict)) {
			case BIG_LEAF:
				walk_leaf(w, b, sva);
				if (ctx->xlate)
					walk_final(w, ctx);
				return PT_OK;
			case BIG_FAULT:
				walk_fault(w, f);
				return PT_OK;
			case BIG_DEFER:
				break;
			}
			/* The big step is not on the small page's tree path. */
			w->node.n--;
			t = small;
		} else if (has_big || has_small) {
			t = has_big ? big : small;
		} else {
			/* A pointer to nothing walkable: a level the format cannot follow. */
			s->verdict = "unsupported";
			walk_fault(w, PT_FAULT_UNSUPPORTED);
			return PT_OK;
		}
	}
	walk_fault(w, PT_FAULT_UNSUPPORTED);
	return PT_OK;
}
