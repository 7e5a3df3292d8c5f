/* SPDX-License-Identifier: MIT */
/*
 * walk_int.h — what the walker (walk.c) shares with the page iterator
 * (pages.c): the one rule by which an entry is followed, so that `va/`
 * lists exactly the pages `walk/` resolves.  Internal to core/walk.
 */
#ifndef PT_WALK_INT_H
#define PT_WALK_INT_H

#if !defined(PT_LAYER_WALK) && !defined(PT_TESTING)
#error "walk_int.h is internal to core/walk (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stdint.h>

#include "pt_walk.h"

/* Zero entries in a row before asking the memory model where data resumes. */
#define ZERO_RUN_SKIP 16

/* How the big entry of a dual PDE decides: a page, a fault, or the small table. */
enum big_verdict { BIG_LEAF, BIG_FAULT, BIG_DEFER };

/* pt_mem_read() of T's space through its translation (xlate.c): the slow path. */
bool pt_wk_mem_read_xlate(const struct pt_table *t, uint64_t pa, void *buf, size_t len);
/* pt_mem_read() of T's space, through its translation; a capture without one pays one test. */
static inline bool pt_wk_mem_read(const struct pt_table *t, uint64_t pa, void *buf, size_t len)
{
	if (!t->ctx->xlate)
		return pt_mem_read(t->ctx->mem, pt_context_space(t->ctx, t->space), pa, buf, len);
	return pt_wk_mem_read_xlate(t, pa, buf, len);
}
/* pt_mem_cover() / pt_mem_direct() of LEN bytes of T from its start, through its translation. */
enum pt_cover pt_wk_mem_cover(const struct pt_table *t, uint64_t len);
const uint8_t *pt_wk_mem_direct(const struct pt_table *t, uint64_t len);
/*
 * pt_mem_unreadable() of LEN bytes at PA of T's space, through its
 * translation: the first unreadable address in *BAD (its own space's),
 * the source's reason in WHY.
 */
bool pt_wk_unreadable(const struct pt_table *t, uint64_t pa, uint64_t len, uint64_t *bad,
		      char *why, size_t wlen);
/* Whether T's space is translated (its reads go through another context). */
static inline bool pt_wk_translated(const struct pt_table *t)
{
	return t->ctx->xlate && pt_context_xlate(t->ctx, pt_context_space(t->ctx, t->space));
}

/* The first VA slot entry INDEX of T covers (slots: core/walk/va.c). */
uint64_t pt_wk_slot(const struct pt_table *t, uint64_t index);
/* The raw bytes of entry INDEX of T into RAW (16 bytes); false where not captured. */
bool pt_wk_raw(const struct pt_table *t, uint64_t index, uint8_t raw[16]);
/* Both 8-byte halves of RAW are zero. */
bool pt_wk_raw_zero(const uint8_t raw[16]);
/* Decodes RAW, an entry of T (the context's biases applied); false: not decodable. */
bool pt_wk_decode(const struct pt_table *t, const uint8_t raw[16], unsigned flags,
		  struct pt_entry *e);
/* pt_table_read() with decode FLAGS (PT_DECODE_*). */
bool pt_wk_read_flags(const struct pt_table *t, uint64_t index, unsigned flags, struct pt_entry *e);
/*
 * The states of entry E at INDEX of T that depend on where it sits, not on
 * its bits (reserved_bits below a reserved pointer, shadowed, a leaf the
 * walker never reaches not mapped): walk.c.
 */
void pt_wk_place_state(const struct pt_table *t, uint64_t index, struct pt_entry *e);
/* The first index >= I of T that is captured (T's entries if none). */
uint64_t pt_wk_next_captured(const struct pt_table *t, uint64_t i);
/* The first index >= I of T whose raw bytes are not zero. */
uint64_t pt_wk_next_nonzero(const struct pt_table *t, uint64_t i);
/* The fault entry E makes the walk stop with (PT_FAULT_NONE: go on); its verdict word. */
enum pt_fault pt_wk_entry_fault(const struct pt_entry *e, const char **verdict);
/* Whether E at INDEX of T is a replica of a page listed at an earlier slot. */
bool pt_wk_leaf_replica(const struct pt_table *t, uint64_t index, const struct pt_entry *e);
/* The dual-PDE rule: what the big entry E says. */
enum big_verdict pt_wk_big_verdict(bool captured, const struct pt_entry *e,
				   enum pt_fault *fault, const char **verdict);
/* The page size of leaf E in T. */
uint64_t pt_wk_leaf_page_size(const struct pt_table *t, const struct pt_entry *e);
/* SIZE cut at the context's last VA for a page at PAGE_VA. */
uint64_t pt_wk_page_extent(const struct pt_context *ctx, uint64_t page_va, uint64_t size);

#endif
