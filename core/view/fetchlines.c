/* SPDX-License-Identifier: MIT */
/*
 * fetchlines.c — stale-fetch hazards (pt_fetchlines.h): the tables of one
 * context in two captures, matched by address, compared 128-byte line by
 * line.
 *
 * Each tree's tables are collected once (deduplicated by space name, level
 * and address, so aliased tables are read once and the walk ends), then
 * every table of A that B's tree also holds at the same place is read in
 * both, entry by entry in index order, and cut into lines.  Spaces are
 * matched by name, so two captures whose space ids differ still compare.
 * O(tables + entries read) time, O(tables) memory.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pt_fetchlines.h"
#include "pt_vec.h"

/* The tables of one tree, and a hash of their places (slot: index + 1, 0 empty). */
struct tabs {
	struct pt_table *t;
	size_t n, cap;
	uint32_t *slot;
	size_t nslots;       /* a power of two, at least twice PT_FETCH_TABLES_MAX */
	uint64_t reads;      /* entries read while collecting */
	const char *over;    /* set: why the collection stopped */
};

static const char *space_of(const struct pt_table *t)
{
	return t->ctx->fmt->spaces[t->space];
}

static uint64_t place_hash(const char *space, int level, uint64_t addr)
{
	uint64_t h = 1469598103934665603ull;

	for (const char *p = space; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	h = (h ^ (uint64_t)(uint8_t)level) * 1099511628211ull;
	h = (h ^ addr) * 1099511628211ull;
	return h ^ h >> 29;
}

static bool same_place(const struct pt_table *t, const char *space, int level, uint64_t addr)
{
	return t->addr == addr && t->level == level && !strcmp(space_of(t), space);
}

/* The slot of a place: where it is, or the empty slot where it goes. */
static size_t tabs_slot(const struct tabs *s, const char *space, int level, uint64_t addr)
{
	size_t i = (size_t)place_hash(space, level, addr) & (s->nslots - 1);

	while (s->slot[i] && !same_place(&s->t[s->slot[i] - 1], space, level, addr))
		i = (i + 1) & (s->nslots - 1);
	return i;
}

static const struct pt_table *tabs_find(const struct tabs *s, const struct pt_table *t)
{
	size_t i = tabs_slot(s, space_of(t), t->level, t->addr);

	return s->slot[i] ? &s->t[s->slot[i] - 1] : NULL;
}

static void tabs_walk(struct tabs *s, const struct pt_table *t, unsigned depth,
		      struct pt_readctl *rc)
{
	struct pt_table tt = *t;
	struct pt_entry e;
	uint64_t idx = 0;
	size_t i;

	if (s->over || tt.cover == PT_COVER_NONE)
		return;
	i = tabs_slot(s, space_of(&tt), tt.level, tt.addr);
	if (s->slot[i])
		return;   /* seen: an aliased table is compared once, through its first path */
	if (s->n == PT_FETCH_TABLES_MAX) {
		s->over = "tables";
		return;
	}
	if (!pt_vec_reserve(&s->t, &s->cap, s->n + 1, sizeof *s->t)) {
		s->over = "memory";
		return;
	}
	pt_table_direct(&tt);
	s->t[s->n++] = tt;
	s->slot[i] = (uint32_t)s->n;
	if (depth >= PT_MAX_DEPTH)
		return;
	for (; pt_table_next(&tt, &idx, false, PT_DECODE_SUMMARY, &e, rc); idx++) {
		if (++s->reads > PT_SCAN_ENTRIES_MAX) {
			s->over = "entries";
			return;
		}
		if (e.state != PT_ST_POINTER)
			continue;
		for (unsigned w = 0; w < 2; w++) {
			struct pt_table child;

			if (pt_table_child(&tt, idx, &e, w, &child))
				tabs_walk(s, &child, depth + 1, rc);
		}
	}
}

static pt_err tabs_collect(struct tabs *s, const struct pt_context *ctx, struct pt_readctl *rc)
{
	struct pt_table root;

	memset(s, 0, sizeof *s);
	s->nslots = 2 * (size_t)PT_FETCH_TABLES_MAX;
	s->slot = calloc(s->nslots, sizeof *s->slot);
	if (!s->slot)
		return PT_E_NOMEM;
	pt_table_root(ctx, &root);
	tabs_walk(s, &root, 0, rc);
	if (s->over && !strcmp(s->over, "memory"))
		return PT_E_NOMEM;
	return s->over ? PT_E_UNSUPPORTED : PT_OK;
}

static void tabs_free(struct tabs *s)
{
	free(s->t);
	free(s->slot);
}

/* An entry the walker goes through: the engine fetched its line. */
static bool in_use(const struct pt_entry *e)
{
	return e->state == PT_ST_MAPPED || e->state == PT_ST_POINTER || e->state == PT_ST_REPLICA;
}

/* ---- one table pair, line by line --------------------------------------- */

struct pair {
	const struct pt_table *ta, *tb;
	unsigned esz;
	struct pt_fetch_line l;
	bool open;
	pt_fetch_fn fn;
	void *ud;
	int stop;
};

static void line_start(struct pair *p, uint64_t line)
{
	uint64_t lo = line > p->ta->addr ? (line - p->ta->addr) / p->esz : 0;
	uint64_t hi = (line + PT_FETCH_LINE_BYTES - p->ta->addr + p->esz - 1) / p->esz;

	memset(&p->l, 0, sizeof p->l);
	p->l.level = p->ta->ctx->fmt->levels[p->ta->level].name;
	p->l.space = space_of(p->ta);
	p->l.pa = line;
	p->l.entry_size = p->esz;
	if (hi > p->ta->entries)
		hi = p->ta->entries;
	p->l.entries = (unsigned)(hi - lo);
	p->open = true;
}

static void line_flush(struct pair *p)
{
	if (p->open && !p->stop && p->l.n && p->l.in_use)
		p->stop = p->fn(p->ud, &p->l);
	p->open = false;
}

/* Entry I of T: LE when LISTED (pt_table_next gave it), else read; false when not captured. */
static bool entry_at(const struct pt_table *t, uint64_t i, bool listed, const struct pt_entry *le,
		     struct pt_entry *out)
{
	if (listed) {
		*out = *le;
		return true;
	}
	return pt_table_read(t, i, out);
}

static void pair_compare(struct pair *p, struct pt_readctl *rc)
{
	struct pt_entry ea, eb, a, b;
	uint64_t ia = 0, ib = 0;
	bool ha = pt_table_next(p->ta, &ia, false, PT_DECODE_SUMMARY, &ea, rc);
	bool hb = pt_table_next(p->tb, &ib, false, PT_DECODE_SUMMARY, &eb, rc);

	while ((ha || hb) && !p->stop) {
		uint64_t i = ha && (!hb || ia <= ib) ? ia : ib;
		bool ca = entry_at(p->ta, i, ha && ia == i, &ea, &a);
		bool cb = i < p->tb->entries && entry_at(p->tb, i, hb && ib == i, &eb, &b);
		uint64_t line = pt_table_entry_pa(p->ta, i) & ~(uint64_t)(PT_FETCH_LINE_BYTES - 1);

		if (!p->open || line != p->l.pa) {
			line_flush(p);
			line_start(p, line);
		}
		if (ca && in_use(&a))
			p->l.in_use++;
		if (ca && cb && (a.raw[0] != b.raw[0] || a.raw[1] != b.raw[1]) &&
		    p->l.n < sizeof p->l.e / sizeof p->l.e[0]) {
			struct pt_fetch_entry *fe = &p->l.e[p->l.n++];

			fe->index = i;
			fe->old_raw[0] = a.raw[0];
			fe->old_raw[1] = a.raw[1];
			fe->new_raw[0] = b.raw[0];
			fe->new_raw[1] = b.raw[1];
			fe->va_a = pt_table_entry_va(p->ta, i);
			fe->va_b = pt_table_entry_va(p->tb, i);
		}
		if (ha && ia == i) {
			ia++;
			ha = pt_table_next(p->ta, &ia, false, PT_DECODE_SUMMARY, &ea, rc);
		}
		if (hb && ib == i) {
			ib++;
			hb = pt_table_next(p->tb, &ib, false, PT_DECODE_SUMMARY, &eb, rc);
		}
	}
	line_flush(p);
}

pt_err pt_fetch_lines(const struct pt_context *a, const struct pt_context *b, pt_fetch_fn fn,
		      void *ud, const char **why, struct pt_readctl *rc)
{
	struct tabs sa, sb;
	pt_err err;

	*why = NULL;
	err = tabs_collect(&sa, a, rc);
	if (err == PT_OK)
		err = tabs_collect(&sb, b, rc);
	else
		memset(&sb, 0, sizeof sb);
	if (err == PT_E_UNSUPPORTED)
		*why = sa.over ? sa.over : sb.over;
	for (size_t k = 0; err == PT_OK && k < sa.n; k++) {
		const struct pt_table *tb = tabs_find(&sb, &sa.t[k]);
		struct pair p = {.ta = &sa.t[k], .tb = tb, .fn = fn, .ud = ud};

		if (!tb)
			continue;   /* moved or gone: fetched afresh, no stale line */
		p.esz = a->fmt->levels[sa.t[k].level].entry_size;
		pair_compare(&p, rc);
		if (p.stop)
			break;
	}
	tabs_free(&sa);
	tabs_free(&sb);
	return err;
}

/* ---- rendering ----------------------------------------------------------- */

static void raw_hex(struct pt_buf *b, const uint64_t raw[2], unsigned esz)
{
	if (esz > 8)
		pt_buf_printf(b, "0x%016" PRIx64 "%016" PRIx64, raw[1], raw[0]);
	else
		pt_buf_printf(b, "0x%016" PRIx64, raw[0]);
}

static void side_json(struct pt_jobj *o, const char *key, const uint64_t raw[2], unsigned esz,
		      uint64_t va)
{
	struct pt_jobj j = {0};
	struct pt_buf s;

	pt_buf_init(&s);
	raw_hex(&s, raw, esz);
	pt_jobj_str(&j, "raw", s.data ? s.data : "");
	pt_jobj_hex(&j, "va", va);
	pt_jobj_obj(o, key, &j);
	pt_buf_free(&s);
}

void pt_render_fetch_line(struct pt_buf *b, const char *context, const struct pt_fetch_line *l,
			  unsigned va_digits, enum pt_out out)
{
	int d = (int)va_digits;

	if (out == PT_OUT_JSON) {
		struct pt_jobj o = {0};
		struct pt_jarr arr = {0};

		for (unsigned k = 0; k < l->n; k++) {
			struct pt_jobj e = {0};

			pt_jobj_u(&e, "index", l->e[k].index);
			side_json(&e, "new", l->e[k].new_raw, l->entry_size, l->e[k].va_b);
			side_json(&e, "old", l->e[k].old_raw, l->entry_size, l->e[k].va_a);
			pt_jarr_obj(&arr, &e);
		}
		pt_jobj_str(&o, "change", "fetch_line");
		pt_jobj_str(&o, "context", context);
		pt_jobj_arr(&o, "changed", &arr);
		pt_jobj_u(&o, "entries", l->entries);
		pt_jobj_u(&o, "in_use_in_a", l->in_use);
		pt_jobj_str(&o, "level", l->level);
		pt_jobj_hex(&o, "pa", l->pa);
		pt_jobj_str(&o, "space", l->space);
		pt_jobj_finish(&o, b);
		pt_buf_puts(b, "\n");
		return;
	}
	pt_buf_puts(b, context);
	pt_buf_printf(b, " %s:0x%016" PRIx64 " %s: %u rewritten of %u entries, %u in use in A\n",
		      l->space, l->pa, l->level, l->n, l->entries, l->in_use);
	for (unsigned k = 0; k < l->n; k++) {
		pt_buf_printf(b, "  entry %" PRIu64 ": ", l->e[k].index);
		raw_hex(b, l->e[k].old_raw, l->entry_size);
		pt_buf_puts(b, " -> ");
		raw_hex(b, l->e[k].new_raw, l->entry_size);
		pt_buf_printf(b, " va A 0x%0*" PRIx64 " B 0x%0*" PRIx64 "\n", d, l->e[k].va_a, d,
			      l->e[k].va_b);
	}
}
