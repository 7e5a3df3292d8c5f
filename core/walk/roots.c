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
#include "pt_num.h"
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

/*
 * The non-zero pages of one memory space, as the first geometry to pass
 * over it found them: the next geometries decode those pages only, not
 * read every page again (a live VT-d guest is scanned as x86-64 and as
 * intel-vtd: issue #39 item 9).  DONE once a pass completed.
 */
struct pagelist {
	int sp;
	bool done, off;       /* OFF: out of memory, every geometry reads every page */
	uint64_t *page;
	size_t n, cap;
};

struct pagelists {
	struct pagelist l[16];
	unsigned n;
};

/* The list of memory space SP (NULL past 16 spaces: read every page). */
static struct pagelist *pagelist_of(struct pagelists *pls, int sp)
{
	for (unsigned i = 0; i < pls->n; i++)
		if (pls->l[i].sp == sp)
			return &pls->l[i];
	if (pls->n == 16)
		return NULL;
	pls->l[pls->n] = (struct pagelist){.sp = sp};
	return &pls->l[pls->n++];
}

static void pagelists_free(struct pagelists *pls)
{
	for (unsigned i = 0; i < pls->n; i++)
		free(pls->l[i].page);
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

/*
 * The next page of SPACE from PA on that may be non-zero (PL's list once
 * done, else the memory's own skip of zero chunks), into *PAGE; *AT is
 * PL's place.  False past the last.
 */
static bool next_page(const struct pt_rscan *s, unsigned space, const struct pagelist *pl, size_t *at,
		      uint64_t pa, uint64_t *page)
{
	uint64_t nx;

	if (pl && pl->done) {
		if (*at >= pl->n)
			return false;
		*page = pl->page[(*at)++];
		return true;
	}
	if (!pt_mem_next_nonzero(s->mem, (unsigned)s->memsp[space], pa, &nx))
		return false;
	*page = nx & ~(uint64_t)(PAGE - 1);
	if (*page < pa)
		*page = pa;
	return true;
}

/*
 * Every captured page of SPACE decoded as a root table; the clean ones into
 * R.  PL (may be NULL): the space's non-zero pages, used once done, else
 * written (a root table of one page reads each page whole).
 */
static pt_err scan_space(struct pt_rscan *s, unsigned space, struct pt_roots *r, struct progress *pg,
			 uint64_t lo, struct pagelist *pl)
{
	uint64_t entries, pa = lo & ~(uint64_t)(PAGE - 1), page, last = 0;
	const struct pt_level *l0 = &s->fmt->levels[0];
	unsigned shift = l0->bits ? l0->va_shift : (s->geom && s->geom->root_page_shift ? s->geom->root_page_shift : 12);
	size_t len = root_bytes(s->fmt, &entries), at = 0;
	uint8_t *raw = pt_rscan_buf(s, 0, len);
	bool record;
	pt_err err;

	if (!raw)
		return PT_E_NOMEM;
	if (pl && (pl->off || (pl->done && len > PAGE)))
		pl = NULL;   /* a root wider than a page: a zero page may begin one */
	record = pl && !pl->done && len == PAGE;
	while (next_page(s, space, pl, &at, pa, &page)) {
		struct pt_rsub v;

		if (pt_readctl_poll(s->rc)) {
			r->cut = true;
			return PT_OK;
		}
		if (pg->fn && page - last >= (64u << 20)) {
			pg->fn(pg->ud, pg->done + (page - lo), pg->total);
			last = page;
		}
		if (pt_rscan_read(s, space, page, raw, len) && !pt_bytes_zero(raw, len)) {
			if (record && !pt_vec_reserve(&pl->page, &pl->cap, pl->n + 1, sizeof *pl->page))
				record = false, pl->off = true;
			if (record)
				pl->page[pl->n++] = page;
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
	if (record)
		pl->done = true;
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

		if (pt_rscan_zero(s, raw + i * l->entry_size, level, shift))
			continue;
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
 * inner table decodes as a root too), unless the format's rule named them
 * or a context's root is the table: Linux's intel-iommu points a context
 * entry of a narrower width below the top of its domain's table
 * (drivers/iommu/intel/iommu.c, domain_context_mapping_one()), an inner
 * table that is the device's root all the same.
 */
static const struct pt_context *root_ctx(const struct pt_capture *cap, const struct pt_root_cand *c);
static bool same_geom(const struct pt_format *a, const struct pt_context *x, const struct pt_format *b,
		      const struct pt_context *y);

static void drop_inner(const struct pt_capture *cap, struct pt_rscan *s, struct pt_roots *r, size_t from)
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
		if (!is_inner(s, &r->c[i]) || strcmp(r->c[i].kind, "table") || root_ctx(cap, &r->c[i]))
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

/*
 * The context whose root candidate C is: a context's root table decoded in
 * that context's geometry (the same table read with another context's
 * registers is not what the context walks: issue #34 item 3); NULL: none.
 */
static const struct pt_context *root_ctx(const struct pt_capture *cap, const struct pt_root_cand *c)
{
	for (size_t k = 0; k < pt_capture_context_count(cap); k++) {
		const struct pt_context *x = pt_capture_context(cap, k);

		if (same_geom(x->fmt, x, c->fmt, c->geom) && x->root_space == c->space && x->root_addr == c->addr)
			return x;
	}
	return NULL;
}

/*
 * The process whose tables candidate C is: a context pidN (x-pid) whose
 * root is C, or, with PTI (x-pti "yes": its root is the user copy at
 * pgd + 4 KiB, arch/x86/include/asm/pgtable.h kernel_to_user_pgdp()), whose
 * kernel copy at pgd is C.  A vCPU's CR3 in kernel mode is that kernel copy.
 */
static const struct pt_context *proc_ctx(const struct pt_capture *cap, const struct pt_root_cand *c)
{
	for (size_t k = 0; k < pt_capture_context_count(cap); k++) {
		const struct pt_context *x = pt_capture_context(cap, k);
		const char *pti = pt_context_annotation(x, "x-pti");
		bool user_copy = pti && !strncmp(pti, "yes", 3) && x->root_addr >= 0x1000;

		if (!pt_context_annotation(x, "x-pid") || x->root_space != c->space || !same_geom(x->fmt, x, c->fmt, c->geom))
			continue;
		if (x->root_addr == c->addr || (user_copy && x->root_addr - 0x1000 == c->addr))
			return x;
	}
	return NULL;
}

static void roots_of(const struct pt_capture *cap, struct pt_roots *r)
{
	for (size_t i = 0; i < r->n; i++) {
		r->c[i].root_of = root_ctx(cap, &r->c[i]);
		r->c[i].proc = proc_ctx(cap, &r->c[i]);
	}
}

/* ---- geometries and the whole scan --------------------------------------------- */

struct geom {
	const struct pt_format *fmt;
	const struct pt_context *ctx;
};

static bool same_levels(const struct pt_level *a, const struct pt_level *b)
{
	for (; a->name && b->name; a++, b++)
		if (strcmp(a->name, b->name) || a->depth != b->depth || a->va_shift != b->va_shift ||
		    a->bits != b->bits || a->entry_size != b->entry_size || a->role != b->role ||
		    a->leaf_shift != b->leaf_shift || a->child[0] != b->child[0] || a->child[1] != b->child[1])
			return false;
	return !a->name && !b->name;
}

/*
 * Whether format A as context X has it and B as Y decode every table alike
 * (X or Y NULL: the format's own): one level table, or equal ones with the
 * same page shift, biases and space names.  By content too: each
 * context a VT-d unit makes holds its own copy of the level table (its
 * aw), and six devices of one domain width are one geometry, scanned once
 * (issue #39 item 9: they were six passes over a live guest's RAM).
 */
static bool same_geom(const struct pt_format *a, const struct pt_context *x, const struct pt_format *b,
		      const struct pt_context *y)
{
	if (strcmp(a->name, b->name) || a->decode != b->decode)
		return false;
	if (a->levels == b->levels)
		return true;
	if (a->va_bits != b->va_bits || !same_levels(a->levels, b->levels))
		return false;
	if (!x || !y)
		return true;
	if (x->root_page_shift != y->root_page_shift || memcmp(x->space_bias, y->space_bias, sizeof x->space_bias))
		return false;
	for (unsigned i = 0; i < PT_CONTEXT_SPACES; i++)
		if ((x->space_names[i] || y->space_names[i]) &&
		    (!x->space_names[i] || !y->space_names[i] || strcmp(x->space_names[i], y->space_names[i])))
			return false;
	return true;
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
			seen = same_geom(g[k].fmt, g[k].ctx, x->fmt, x);
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

/* An IOMMU's device page-table format (pt_iommu_format.h): not the CPU's. */
static bool iommu_fmt(const struct pt_format *f)
{
	for (unsigned t = 0; pt_iommu_format_list[t]; t++)
		if (!strcmp(f->name, pt_iommu_format_list[t]->device_format))
			return true;
	return false;
}

/*
 * Of two candidates of one table, whether B is the one to list rather than
 * A (A came first: it scores at least as well).  The geometry of the
 * context whose root it is first; across formats (an x86-64 process table
 * also decodes as a clean 3-level VT-d table, issue #39 item 9), the
 * format whose rule related it to a context (its kernel half is that
 * context's), then the CPU's format over an IOMMU's.
 */
static bool prefer(const struct pt_root_cand *a, const struct pt_root_cand *b)
{
	if (a->root_of || b->root_of)
		return !a->root_of;
	if (!strcmp(a->fmt->name, b->fmt->name))
		return false;
	if (!strcmp(a->kind, "table") != !strcmp(b->kind, "table"))
		return strcmp(b->kind, "table") != 0;
	return iommu_fmt(a->fmt) && !iommu_fmt(b->fmt);
}

/* A candidate's place for dedup(): its memory space, address and rank by score. */
struct dkey {
	int sp;
	uint64_t addr;
	size_t i;
};

static int by_place(const void *a, const void *b)
{
	const struct dkey *x = a, *y = b;

	if (x->sp != y->sp)
		return x->sp < y->sp ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * One line per table (R sorted by by_score): of the candidates at one
 * address of one memory space, whatever their format or geometry, the one
 * prefer() picks, the best scoring first; then sorted again.  Sorted by
 * place, not compared pairwise: a dump may have thousands of candidates.
 */
static pt_err dedup(const struct pt_capture *cap, struct pt_roots *r)
{
	struct dkey *d;
	struct pt_root_cand *out;
	size_t k = 0;

	if (r->n < 2)
		return PT_OK;
	d = malloc(r->n * sizeof *d);
	out = malloc(r->n * sizeof *out);
	if (!d || !out) {
		free(d);
		free(out);
		return PT_E_NOMEM;
	}
	for (size_t i = 0; i < r->n; i++)
		d[i] = (struct dkey){mem_space(cap, r->c[i].fmt, r->c[i].space), r->c[i].addr, i};
	qsort(d, r->n, sizeof *d, by_place);
	for (size_t i = 0; i < r->n; i++) {
		if (i && d[i].sp == d[i - 1].sp && d[i].addr == d[i - 1].addr) {
			if (prefer(&out[k - 1], &r->c[d[i].i]))
				out[k - 1] = r->c[d[i].i];
			continue;
		}
		out[k++] = r->c[d[i].i];
	}
	free(d);
	free(r->c);
	r->c = out;
	r->n = k;
	r->cap = r->n;
	qsort(r->c, k, sizeof *r->c, by_score);
	return PT_OK;
}

static pt_err scan_geom(const struct pt_capture *cap, struct pt_rscan *s, const struct pt_roots_opts *o,
			struct pt_roots *r, struct progress *pg, bool *space_seen, struct pagelists *pls)
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
		err = scan_space(s, sp, r, pg, lo, pagelist_of(pls, s->memsp[sp]));
		pg->done += hi - lo;
		if (err)
			break;
		if (r->n > from)   /* qsort(NULL, 0) is undefined: a space with no candidate */
			qsort(r->c + from, r->n - from, sizeof *r->c, by_addr);
		if (rf.n)
			classify(s, &rf, r, from);
		drop_inner(cap, s, r, from);
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
	struct pagelists pls = {0};
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
		e = scan_geom(cap, &s, o, out, &pg, &space_seen, &pls);
		out->decoded += s.memo_n;
		pt_rscan_free(&s);
		if (e) {
			pagelists_free(&pls);
			pt_roots_free(out);
			return e;
		}
	}
	pagelists_free(&pls);
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
	if ((e = dedup(cap, out))) {
		pt_roots_free(out);
		return e;
	}
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
