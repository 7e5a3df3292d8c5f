/* SPDX-License-Identifier: MIT */
/*
 * roots.c — candidate root tables found by scanning captured memory
 * (pt_roots.h, ptfs-tool roots).
 *
 * One pass over each space's captured pages: a page is decoded as a root
 * table of the geometry and followed down (roots_eval.c: each table once,
 * through the memo); then the inner tables are dropped, the format's rule
 * names what the others are, and each gets its capture.ini section.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_buf.h"
#include "pt_vec.h"
#include "roots_int.h"

/* ---- the pass over one space ------------------------------------------------ */

/* Bytes of one root table of the geometry: a flat level is read a page at a time. */
static size_t root_bytes(const struct pt_format *fmt, uint64_t *entries)
{
	const struct pt_level *l = &fmt->levels[0];

	*entries = l->bits ? (uint64_t)1 << l->bits : PAGE / l->entry_size;
	return (size_t)(*entries * l->entry_size);
}

static bool all_zero(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

struct progress {
	pt_progress_fn fn;
	void *ud;
	uint64_t done, total;
};

static pt_err add_cand(struct pt_roots *r, const struct pt_rscan *s, unsigned space, uint64_t addr,
		       const struct pt_rsub *v)
{
	struct pt_root_cand *c;

	if (!pt_vec_reserve(&r->c, &r->cap, r->n + 1, sizeof *r->c))
		return PT_E_NOMEM;
	c = &r->c[r->n++];
	memset(c, 0, sizeof *c);
	c->fmt = s->fmt;
	c->geom = s->geom;
	c->geometry = s->geometry;
	c->space = space;
	c->addr = addr;
	c->valid = v->valid;
	c->levels = v->levels;
	c->nlevels = pt_format_nlevels(s->fmt);
	c->tables = v->tables;
	c->bad_tables = v->bad_tables;
	c->bad_entries = v->bad_entries;
	c->leaves = v->leaves;
	c->uncaptured = v->uncaptured;
	c->kind = "table";
	return PT_OK;
}

/*
 * The capture memory's id of FMT's space SP, by name: memory is numbered by
 * the capture's space namespace, one name one id whatever the formats
 * (pt_capture_space_find); -1 where the capture has no such space.
 */
static int mem_space(const struct pt_capture *cap, const struct pt_format *fmt, unsigned sp)
{
	return pt_capture_space_find(cap, fmt->spaces[sp]);
}

/* Where SPACE's captured bytes begin and end (for the progress total). */
static bool space_span(const struct pt_capture *cap, const struct pt_mem *mem, int space,
		       uint64_t *lo, uint64_t *hi)
{
	*hi = 0;
	if (space < 0 || !pt_mem_next(mem, (unsigned)space, 0, lo))
		return false;
	for (size_t i = 0; i < pt_capture_region_count(cap); i++) {
		const struct pt_region_info *ri = pt_capture_region(cap, i);

		if ((int)ri->space == space && ri->base + ri->size > *hi)
			*hi = ri->base + ri->size;
	}
	return *hi > *lo;
}

/* Every captured page of SPACE decoded as a root table; the clean ones into R. */
static pt_err scan_space(struct pt_rscan *s, unsigned space, struct pt_roots *r, struct progress *pg,
			 uint64_t lo)
{
	uint64_t entries, pa = lo & ~(uint64_t)(PAGE - 1), nx, last = 0;
	const struct pt_level *l0 = &s->fmt->levels[0];
	unsigned shift = l0->bits ? l0->va_shift : (s->geom && s->geom->root_page_shift ? s->geom->root_page_shift : 12);
	size_t len = root_bytes(s->fmt, &entries);
	uint8_t *raw = pt_rscan_buf(s, 0, len);
	pt_err err;

	if (!raw)
		return PT_E_NOMEM;
	while (pt_mem_next_nonzero(s->mem, (unsigned)s->memsp[space], pa, &nx)) {
		struct pt_rsub v;
		uint64_t page = nx & ~(uint64_t)(PAGE - 1);

		if (page < pa)
			page = pa;
		if (pt_readctl_poll(s->rc)) {
			r->cut = true;
			break;
		}
		if (pg->fn && page - last >= (64u << 20)) {
			pg->fn(pg->ud, pg->done + (page - lo), pg->total);
			last = page;
		}
		if (pt_rscan_read(s, space, page, raw, len) && !all_zero(raw, len)) {
			r->pages++;
			pt_rscan_table(s, raw, 0, entries, shift, 0, &v);
			if (s->nomem)
				return PT_E_NOMEM;
			if (!v.bad && v.levels >= (pt_format_nlevels(s->fmt) > 1 ? 2u : 1u) &&
			    (err = add_cand(r, s, space, page, &v)))
				return err;
		}
		if (page + PAGE < page)
			break;
		pa = page + PAGE;
	}
	return PT_OK;
}

/* ---- inner tables, the format's rule, order ---------------------------------- */

/* Marks every table below the table in RAW (of LEVEL) as inner, each once. */
static void mark_inner(struct pt_rscan *s, const uint8_t *raw, int level, uint64_t entries,
		       unsigned shift, uint64_t self)
{
	const struct pt_level *l = &s->fmt->levels[level];
	struct pt_entry e;

	for (uint64_t i = 0; i < entries && !s->nomem; i++) {
		uint8_t tmp[16] = {0};

		memcpy(tmp, raw + i * l->entry_size, l->entry_size);
		if (s->fmt->decode((unsigned)level, shift, tmp, PT_DECODE_SUMMARY, &e) != PT_OK ||
		    e.state != PT_ST_POINTER)
			continue;
		for (unsigned w = 0; w < 2; w++) {
			const struct pt_target *tg = &e.target[w];
			const struct pt_level *cl;
			uint64_t addr = tg->addr, n;
			struct pt_rmemo *m;
			uint8_t *craw;
			size_t len;

			if (!tg->present || !pt_rscan_unbias(s, tg->space, &addr) || addr == self ||
			    !(m = pt_rscan_memo_find(s, tg->space, addr, tg->level)) || m->inner || m->bad)
				continue;
			m->inner = true;
			cl = &s->fmt->levels[tg->level];
			n = tg->shift ? (uint64_t)1 << tg->bits : (uint64_t)1 << cl->bits;
			len = (size_t)(n * cl->entry_size);
			if ((craw = pt_rscan_buf(s, cl->depth, len)) &&
			    pt_rscan_read(s, tg->space, addr, craw, len))
				mark_inner(s, craw, tg->level, n, tg->shift ? tg->shift : cl->va_shift, self);
		}
	}
}

/* Whether some table of a clean candidate's tree points at C (another candidate's root). */
static bool is_inner(const struct pt_rscan *s, const struct pt_root_cand *c)
{
	for (unsigned lv = 1; lv < c->nlevels; lv++) {
		const struct pt_rmemo *m = pt_rscan_memo_find(s, c->space, c->addr, (int)lv);

		if (m && m->inner)
			return true;
	}
	return false;
}

/*
 * Drops the candidates [FROM, r->n) a clean candidate's tree points at (an
 * inner table decodes as a root too), unless the format's rule named them.
 */
static bool same_geom(const struct pt_format *a, const struct pt_format *b);

static void drop_inner(struct pt_rscan *s, struct pt_roots *r, size_t from)
{
	uint64_t entries;
	size_t len = root_bytes(s->fmt, &entries), k = from;
	const struct pt_level *l0 = &s->fmt->levels[0];
	uint8_t *raw = pt_rscan_buf(s, 0, len);

	for (size_t i = from; raw && i < r->n; i++) {
		struct pt_root_cand *c = &r->c[i];

		if (c->bad_tables || c->bad_entries || !pt_rscan_read(s, c->space, c->addr, raw, len))
			continue;
		/* its own root is not inner to itself (a self-map entry) */
		mark_inner(s, raw, 0, entries, l0->bits ? l0->va_shift : 12, c->addr);
	}
	for (size_t i = from; i < r->n; i++)
		if (!is_inner(s, &r->c[i]) || strcmp(r->c[i].kind, "table"))
			r->c[k++] = r->c[i];
	r->n = k;
}

/* The reference roots: the root tables of the contexts of the geometry's format. */
struct refs {
	const struct pt_context **ctx;
	uint8_t *bytes;   /* n tables of LEN bytes */
	size_t n;
};

static pt_err refs_get(const struct pt_capture *cap, const struct pt_format *fmt, size_t len,
		       struct refs *rf)
{
	size_t nc = pt_capture_context_count(cap);

	memset(rf, 0, sizeof *rf);
	if (!fmt->root_rule || !nc)
		return PT_OK;
	rf->ctx = calloc(nc, sizeof *rf->ctx);
	rf->bytes = malloc(nc * len);
	if (!rf->ctx || !rf->bytes)
		return PT_E_NOMEM;
	for (size_t i = 0; i < nc; i++) {
		const struct pt_context *x = pt_capture_context(cap, i);

		if (strcmp(x->fmt->name, fmt->name) ||
		    !pt_mem_read(x->mem, x->root_space, x->root_addr, rf->bytes + rf->n * len, len))
			continue;
		rf->ctx[rf->n++] = x;
	}
	return PT_OK;
}

static int by_addr(const void *a, const void *b)
{
	const struct pt_root_cand *x = a, *y = b;

	if (x->space != y->space)
		return x->space < y->space ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The format's rule over candidates [FROM, r->n) (sorted by address), against every reference. */
static void classify(struct pt_rscan *s, const struct refs *rf, struct pt_roots *r, size_t from)
{
	uint64_t entries;
	size_t len = root_bytes(s->fmt, &entries);
	uint8_t *cand = pt_rscan_buf(s, 0, len), *other = pt_rscan_buf(s, 1, len);

	for (size_t i = from; cand && other && i < r->n; i++) {
		struct pt_root_cand *c = &r->c[i], key, *tw;
		bool has_other;

		if (!pt_rscan_read(s, c->space, c->addr, cand, len))
			continue;
		has_other = pt_rscan_read(s, c->space, c->addr ^ len, other, len);
		for (size_t k = 0; k < rf->n; k++) {
			struct pt_root_rel rel;

			if (rf->ctx[k]->root_space != c->space)
				continue;
			s->fmt->root_rule(rf->bytes + k * len, rf->ctx[k]->root_addr, cand, c->addr,
					  has_other ? other : NULL, &rel);
			if (!rel.kind)
				continue;
			c->kind = rel.kind;
			c->ref = rf->ctx[k];
			if (!rel.twin_kind)
				break;
			c->has_twin = true;
			c->twin = c->addr ^ len;
			key.space = c->space;
			key.addr = c->twin;
			tw = bsearch(&key, r->c + from, r->n - from, sizeof key, by_addr);
			if (tw && !strcmp(tw->kind, "table")) {
				tw->kind = rel.twin_kind;
				tw->ref = c->ref;
				tw->has_twin = true;
				tw->twin = c->addr;
			}
			break;
		}
	}
}

static bool same_geom(const struct pt_format *a, const struct pt_format *b);

/*
 * Which contexts' roots the candidates are: a context's root table decoded
 * in that context's geometry (the same table read with another context's
 * registers is not what the context walks: issue #34 item 3).
 */
static void roots_of(const struct pt_capture *cap, struct pt_roots *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct pt_root_cand *c = &r->c[i];

		for (size_t k = 0; k < pt_capture_context_count(cap) && !c->root_of; k++) {
			const struct pt_context *x = pt_capture_context(cap, k);

			if (same_geom(x->fmt, c->fmt) && x->root_space == c->space && x->root_addr == c->addr)
				c->root_of = x;
		}
	}
}

/* ---- geometries and the whole scan --------------------------------------------- */

struct geom {
	const struct pt_format *fmt;
	const struct pt_context *ctx;
};

static bool same_geom(const struct pt_format *a, const struct pt_format *b)
{
	return !strcmp(a->name, b->name) && a->levels == b->levels && a->decode == b->decode;
}

/* The geometries to scan: each distinct one of the contexts (of FORMAT), else the format's own. */
static pt_err geoms_get(const struct pt_capture *cap, const char *format, struct geom *g,
			unsigned *n, char *err, size_t errlen)
{
	const struct pt_format *f = format ? pt_format_find(format) : NULL;

	*n = 0;
	if (format && !f) {
		char list[512];

		pt_format_list(list, sizeof list, ", ", " or ");
		snprintf(err, errlen, "unknown format '%s' (%s)", format, list);
		return PT_E_NOTFOUND;
	}
	for (size_t i = 0; i < pt_capture_context_count(cap) && *n < 16; i++) {
		const struct pt_context *x = pt_capture_context(cap, i);
		bool seen = false;

		if (format && strcmp(x->fmt->name, format))
			continue;
		for (unsigned k = 0; k < *n && !seen; k++)
			seen = same_geom(g[k].fmt, x->fmt);
		if (!seen)
			g[(*n)++] = (struct geom){x->fmt, x};
	}
	if (!*n && (f || (f = pt_capture_format(cap))))
		g[(*n)++] = (struct geom){f, NULL};
	return PT_OK;
}

static int by_score(const void *a, const void *b)
{
	const struct pt_root_cand *x = a, *y = b;
	int k;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	if ((k = strcmp(x->fmt->name, y->fmt->name)))
		return k;
	if ((k = by_addr(a, b)))
		return k;
	return x->geometry < y->geometry ? -1 : x->geometry > y->geometry;
}

/*
 * One line per table (R sorted by by_score): the geometry of the context
 * whose root it is, else the geometry it scores best in; then sorted again.
 */
static void dedup(struct pt_roots *r)
{
	size_t k = 0;

	for (size_t i = 0; i < r->n; i++) {
		bool seen = false;

		for (size_t j = 0; j < k && !seen; j++) {
			seen = r->c[j].addr == r->c[i].addr && r->c[j].space == r->c[i].space &&
			       !strcmp(r->c[j].fmt->name, r->c[i].fmt->name);
			if (seen && !r->c[j].root_of && r->c[i].root_of)
				r->c[j] = r->c[i];
		}
		if (!seen)
			r->c[k++] = r->c[i];
	}
	r->n = k;
	if (k)
		qsort(r->c, k, sizeof *r->c, by_score);
}

static pt_err scan_geom(const struct pt_capture *cap, struct pt_rscan *s, const struct pt_roots_opts *o,
			struct pt_roots *r, struct progress *pg, bool *space_seen)
{
	uint64_t entries;
	size_t len = root_bytes(s->fmt, &entries);
	struct refs rf;
	pt_err err = refs_get(cap, s->fmt, len, &rf);

	for (unsigned sp = 0; !err && s->fmt->spaces[sp] && !r->cut; sp++) {
		size_t from = r->n;
		uint64_t lo, hi;

		if (o->space && strcmp(o->space, s->fmt->spaces[sp]))
			continue;
		*space_seen = true;
		if (!space_span(cap, s->mem, sp < PT_CONTEXT_SPACES ? s->memsp[sp] : -1, &lo, &hi))
			continue;
		err = scan_space(s, sp, r, pg, lo);
		pg->done += hi - lo;
		if (err)
			break;
		if (r->n > from)   /* qsort(NULL, 0) is undefined: a space with no candidate */
			qsort(r->c + from, r->n - from, sizeof *r->c, by_addr);
		if (rf.n)
			classify(s, &rf, r, from);
		drop_inner(s, r, from);
		if (s->nomem)
			err = PT_E_NOMEM;
	}
	free(rf.ctx);
	free(rf.bytes);
	return err;
}

pt_err pt_roots_scan(const struct pt_capture *cap, const struct pt_roots_opts *o,
		     struct pt_roots *out, struct pt_readctl *rc, char *err, size_t errlen)
{
	struct geom g[16];
	unsigned ng;
	struct progress pg = {o->progress, o->progress_ud, 0, 0};
	bool space_seen = false;
	pt_err e;

	memset(out, 0, sizeof *out);
	err[0] = 0;
	if ((e = geoms_get(cap, o->format, g, &ng, err, errlen)))
		return e;
	for (unsigned i = 0; i < ng; i++)
		for (unsigned sp = 0; g[i].fmt->spaces[sp]; sp++) {
			uint64_t lo, hi;

			if ((!o->space || !strcmp(o->space, g[i].fmt->spaces[sp])) &&
			    space_span(cap, pt_capture_mem(cap), mem_space(cap, g[i].fmt, sp), &lo, &hi))
				pg.total += hi - lo;
		}
	for (unsigned i = 0; i < ng && !out->cut; i++) {
		struct pt_rscan s = {.mem = pt_capture_mem(cap), .fmt = g[i].fmt, .geom = g[i].ctx,
				 .geometry = i, .rc = rc};

		for (unsigned sp = 0; sp < PT_CONTEXT_SPACES; sp++)
			s.memsp[sp] = -1;
		for (unsigned sp = 0; sp < PT_CONTEXT_SPACES && g[i].fmt->spaces[sp]; sp++)
			s.memsp[sp] = mem_space(cap, g[i].fmt, sp);
		e = scan_geom(cap, &s, o, out, &pg, &space_seen);
		out->decoded += s.memo_n;
		pt_rscan_free(&s);
		if (e) {
			pt_roots_free(out);
			return e;
		}
	}
	out->geometries = ng;
	if (o->space && !space_seen && ng) {
		snprintf(err, errlen, "no space '%s' in %s (its spaces: %s%s)", o->space,
			 g[0].fmt->name, g[0].fmt->spaces[0], g[0].fmt->spaces[1] ? ", ..." : "");
		pt_roots_free(out);
		return PT_E_NOTFOUND;
	}
	roots_of(cap, out);
	/* a context's root is kept whatever its score: what it walks like is the question */
	for (size_t i = 0, k = 0; i < out->n; i++) {
		out->c[i].score = pt_roots_score(&out->c[i]);
		if (out->c[i].score >= o->min_score || strcmp(out->c[i].kind, "table") || out->c[i].root_of)
			out->c[k++] = out->c[i];
		if (i + 1 == out->n)
			out->n = k;
	}
	if (out->n)   /* nothing found: out->c may be NULL */
		qsort(out->c, out->n, sizeof *out->c, by_score);
	dedup(out);
	if (pg.fn)
		pg.fn(pg.ud, pg.total, pg.total);
	return PT_OK;
}

void pt_roots_free(struct pt_roots *r)
{
	free(r->c);
	memset(r, 0, sizeof *r);
}

/* The spec has no keys: the builder's defaults for a root at an address. */
static const char *no_key(void *ud, const char *key)
{
	(void)ud;
	(void)key;
	return NULL;
}

const char *pt_roots_space_name(const struct pt_root_cand *c)
{
	return c->geom ? pt_context_space_name(c->geom, c->space) : c->fmt->spaces[c->space];
}

bool pt_roots_section(const struct pt_root_cand *c, struct pt_buf *b)
{
	const struct pt_format *by = pt_format_by_section(c->fmt->ctx_section);
	const char *sp = pt_roots_space_name(c);
	struct pt_build_keys k = {.space = c->space, .root = c->addr, .get = no_key};
	unsigned vb = c->fmt->va_canonical ? c->fmt->va_bits - 1 : c->fmt->va_bits;

	if (!c->fmt->build_keys || !c->fmt->ctx_section)
		return false;
	k.va_hi = vb >= 64 ? UINT64_MAX : (UINT64_C(1) << vb) - 1;
	if (c->space)
		pt_buf_printf(b, "[%s root-%s-%" PRIx64 "]\n", c->fmt->ctx_section, sp, c->addr);
	else
		pt_buf_printf(b, "[%s root-%" PRIx64 "]\n", c->fmt->ctx_section, c->addr);
	/* a [pdb] section's format is the capture's (docs/design.md §3): no key of the section */
	if (!by || strcmp(by->name, c->fmt->name))
		pt_buf_printf(b, "; needs [capture] format = %s\n", c->fmt->name);
	/*
	 * Decoded in a context's geometry: that context's keys (the one whose
	 * root it is, where it is one: its range and rights too) with this root,
	 * so that the section walks as the candidate was scored (issue #34:
	 * a 3-level VT-d context's aw, its spaces); else the format's own.
	 */
	if (c->geom && c->fmt->geom_keys)
		c->fmt->geom_keys(c->root_of ? c->root_of : c->geom, c->space, c->addr, b);
	else
		c->fmt->build_keys(&k, b);
	return true;
}
