/* SPDX-License-Identifier: MIT */
/*
 * roots_eval.c — a candidate table and everything below it decoded once
 * (roots_int.h), for the roots scans (roots.c, roots_iommu.c) and the
 * score of what it decodes to (pt_roots_score()).
 *
 * A table is decoded entry by entry and given up at the first entry the
 * hardware would refuse beyond TOLERATED_BAD, so that a data page costs a
 * few decodes.  A table that passes is followed down: every table it
 * points at is decoded once per level and remembered (the memo), so the
 * tables many roots share (the kernel half of every Linux process) are
 * read once for all of them, and the whole scan is linear in what is
 * captured.  Levels only go down, as in the walker (pt_table_child()), so
 * every descent ends.
 */
#include <stdlib.h>
#include <string.h>

#include "pt_vec.h"
#include "roots_int.h"

static uint32_t sat32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static void memo_get(const struct pt_rmemo *m, struct pt_rsub *s)
{
	*s = (struct pt_rsub){.levels = m->levels, .bad = m->bad, .valid = m->valid,
			  .bad_entries = m->bad_entries, .tables = m->tables, .bad_tables = m->bad_tables,
			  .leaves = m->leaves, .uncaptured = m->uncaptured};
}


bool pt_rscan_read(const struct pt_rscan *s, unsigned space, uint64_t pa, void *out, size_t len)
{
	return space < PT_CONTEXT_SPACES && s->memsp[space] >= 0 &&
	       pt_mem_read(s->mem, (unsigned)s->memsp[space], pa, out, len);
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static size_t memo_slot(const struct pt_rscan *s, uint64_t addr, uint32_t key)
{
	size_t m = s->memo_cap - 1, i = (size_t)mix(addr ^ ((uint64_t)key << 52)) & m;

	while (s->memo[i].key && (s->memo[i].key != key || s->memo[i].addr != addr))
		i = (i + 1) & m;
	return i;
}

struct pt_rmemo *pt_rscan_memo_find(const struct pt_rscan *s, unsigned space, uint64_t addr, int level)
{
	uint32_t key = ((uint32_t)space << 8 | (uint32_t)level) + 1;
	size_t i;

	if (!s->memo_cap)
		return NULL;
	i = memo_slot(s, addr, key);
	return s->memo[i].key ? &s->memo[i] : NULL;
}

static bool memo_grow(struct pt_rscan *s)
{
	size_t cap = s->memo_cap ? s->memo_cap * 2 : 4096;
	struct pt_rmemo *old = s->memo, *nw = calloc(cap, sizeof *nw);
	size_t oldcap = s->memo_cap;

	if (!nw)
		return false;
	s->memo = nw;
	s->memo_cap = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].key)
			s->memo[memo_slot(s, old[i].addr, old[i].key)] = old[i];
	free(old);
	return true;
}

static void memo_put(struct pt_rscan *s, unsigned space, uint64_t addr, int level, const struct pt_rsub *v)
{
	uint32_t key = ((uint32_t)space << 8 | (uint32_t)level) + 1;
	size_t i;

	/* linear probing at up to 3/4 full */
	if ((s->memo_n + 1) * 4 > s->memo_cap * 3 && !memo_grow(s)) {
		s->nomem = true;
		return;
	}
	i = memo_slot(s, addr, key);
	if (!s->memo[i].key)
		s->memo_n++;
	s->memo[i].addr = addr;
	s->memo[i].key = key;
	s->memo[i].levels = (uint8_t)v->levels;
	s->memo[i].bad = v->bad;
	s->memo[i].valid = v->valid;
	s->memo[i].bad_entries = sat32(v->bad_entries);
	s->memo[i].tables = sat32(v->tables);
	s->memo[i].bad_tables = sat32(v->bad_tables);
	s->memo[i].leaves = sat32(v->leaves);
	s->memo[i].uncaptured = sat32(v->uncaptured);
}

uint8_t *pt_rscan_buf(struct pt_rscan *s, unsigned depth, size_t len)
{
	if (s->buf_len[depth] < len) {
		if (!pt_vec_resize(&s->buf[depth], len, 1)) {
			s->nomem = true;
			return NULL;
		}
		s->buf_len[depth] = len;
	}
	return s->buf[depth];
}

/* An entry the hardware would refuse: the scan's only reason to give a table up. */
static bool entry_bad(const struct pt_entry *e)
{
	return e->state == PT_ST_UNSUPPORTED || e->reserved_mask[0] || e->reserved_mask[1];
}

/* Adds what pointer target TG leads to into OUT. */
static void follow(struct pt_rscan *s, const struct pt_target *tg, unsigned pdepth, struct pt_rsub *out,
		   unsigned *best)
{
	struct pt_rsub c;

	if (!pt_rscan_child(s, tg, pdepth, &c)) {
		out->uncaptured++;
		return;
	}
	out->tables += 1 + c.tables;
	out->bad_tables += c.bad_tables;
	out->bad_entries += c.bad ? 0 : c.bad_entries;
	out->leaves += c.leaves;
	out->uncaptured += c.uncaptured;
	if (c.levels > *best)
		*best = c.levels;
}


static bool too_bad(unsigned bad, unsigned valid)
{
	return bad > TOLERATED_BAD || bad * 3 > valid;
}

bool pt_rscan_zero(struct pt_rscan *s, const uint8_t *raw, int level, unsigned shift)
{
	unsigned es = s->fmt->levels[level].entry_size;
	struct pt_entry e;
	uint8_t zero[16] = {0};

	for (unsigned b = 0; b < es; b++)
		if (raw[b])
			return false;
	if ((unsigned)level >= PT_MAX_LEVELS)
		return false;
	if (!s->zero_known[level] || s->zero_shift[level] != shift) {
		s->zero_skip[level] = s->fmt->decode((unsigned)level, shift, zero, PT_DECODE_SUMMARY, &e) == PT_OK &&
				      !entry_bad(&e) && e.state != PT_ST_MAPPED && e.state != PT_ST_POINTER;
		s->zero_shift[level] = shift;
		s->zero_known[level] = true;
	}
	return s->zero_skip[level];
}

void pt_rscan_table(struct pt_rscan *s, const uint8_t *raw, int level, uint64_t entries,
		       unsigned shift, unsigned depth, struct pt_rsub *out)
{
	const struct pt_level *l = &s->fmt->levels[level];
	struct pt_entry e;
	unsigned best = 0, bad = 0;
	bool leaf = false;

	memset(out, 0, sizeof *out);
	for (uint64_t i = 0; i < entries && bad <= TOLERATED_BAD; i++) {
		uint8_t tmp[16] = {0};

		if (pt_rscan_zero(s, raw + i * l->entry_size, level, shift))
			continue;
		memcpy(tmp, raw + i * l->entry_size, l->entry_size);
		if (s->fmt->decode((unsigned)level, shift, tmp, PT_DECODE_SUMMARY, &e) != PT_OK ||
		    entry_bad(&e)) {
			bad++;
		} else if (e.state == PT_ST_MAPPED) {
			out->valid++;
			out->leaves++;
			leaf = true;
		} else if (e.state == PT_ST_POINTER) {
			out->valid++;
		}
	}
	out->bad_entries = bad;
	if (too_bad(bad, out->valid)) {
		out->bad = true;
		out->bad_tables = 1;
		return;
	}
	/* Followed only once the table passed: a refused table is not read below. */
	for (uint64_t i = 0; i < entries && !s->nomem; i++) {
		uint8_t tmp[16] = {0};

		if (pt_rscan_zero(s, raw + i * l->entry_size, level, shift))
			continue;
		memcpy(tmp, raw + i * l->entry_size, l->entry_size);
		if (s->fmt->decode((unsigned)level, shift, tmp, PT_DECODE_SUMMARY, &e) != PT_OK ||
		    e.state != PT_ST_POINTER || entry_bad(&e))
			continue;
		for (unsigned w = 0; w < 2; w++)
			if (e.target[w].present)
				follow(s, &e.target[w], depth, out, &best);
	}
	if (best || leaf)
		out->levels = 1 + best;
}

bool pt_rscan_unbias(const struct pt_rscan *s, unsigned space, uint64_t *addr)
{
	uint64_t b;

	if (!s->geom || space >= PT_CONTEXT_SPACES || !(b = s->geom->space_bias[space]))
		return true;
	if (*addr < b)
		return false;
	*addr -= b;
	return true;
}

bool pt_rscan_child(struct pt_rscan *s, const struct pt_target *tg, unsigned pdepth,
		       struct pt_rsub *out)
{
	const struct pt_level *l;
	struct pt_rmemo *m;
	uint64_t entries, addr = tg->addr;
	unsigned shift;
	size_t len;
	uint8_t *raw;

	if (tg->level < 0 || (unsigned)tg->level >= pt_format_nlevels(s->fmt) || pdepth + 1 > PT_MAX_LEVELS)
		return false;
	l = &s->fmt->levels[tg->level];
	if (l->depth <= pdepth || l->bits == 0 || !pt_rscan_unbias(s, tg->space, &addr))
		return false;
	entries = (uint64_t)1 << l->bits;
	shift = l->va_shift;
	if (tg->shift) {
		if (tg->bits > l->bits)
			return false;
		entries = (uint64_t)1 << tg->bits;
		shift = tg->shift;
	}
	m = pt_rscan_memo_find(s, tg->space, addr, tg->level);
	if (m) {
		memo_get(m, out);
		return !(m->bad && m->bad_tables == 0);   /* bad, no bad_tables: not captured */
	}
	len = (size_t)(entries * l->entry_size);
	pt_readctl_poll(s->rc);
	if (len > MAX_TABLE_BYTES || !(raw = pt_rscan_buf(s, l->depth, len)) ||
	    !pt_rscan_read(s, tg->space, addr, raw, len)) {
		struct pt_rsub none = {.bad = true};

		memo_put(s, tg->space, addr, tg->level, &none);
		return false;
	}
	pt_rscan_table(s, raw, tg->level, entries, shift, l->depth, out);
	memo_put(s, tg->space, addr, tg->level, out);
	return true;
}

unsigned pt_roots_score(const struct pt_root_cand *c)
{
	uint64_t good = 1 + c->tables - c->bad_tables;
	uint64_t all = 1 + c->tables + c->uncaptured + c->bad_entries;

	if (!c->nlevels || c->tables < c->bad_tables)
		return 0;
	return (unsigned)((100 * (uint64_t)c->levels * good) / ((uint64_t)c->nlevels * all));
}

void pt_rscan_free(struct pt_rscan *s)
{
	free(s->memo);
	for (unsigned i = 0; i <= PT_MAX_LEVELS; i++)
		free(s->buf[i]);
}
