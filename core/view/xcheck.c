/* SPDX-License-Identifier: MIT */
/*
 * xcheck.c — two contexts compared VA by VA (ptfs-tool crosscheck): the
 * maps runs of both, read in lockstep, cut where either side's run ends,
 * each piece given a verdict, and pieces that continue one another merged
 * back into one line.  O(runs of both), two iterators of memory.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_xcheck.h"

static const char *const verdict_names[PT_XC__COUNT] = {
	"same", "pa_differs", "perm_differs", "only_a", "only_b",
};

const char *pt_xcheck_verdict_name(enum pt_xcheck_verdict v)
{
	return (unsigned)v < PT_XC__COUNT ? verdict_names[v] : "?";
}

unsigned pt_xcheck_rights(uint32_t perm)
{
	unsigned r = 0;

	/* read-only in every format's words: read_only set, or writeable clear (as maps --ro) */
	if (!(perm & (PT_PERM_READ_ONLY | PT_PERM_NO_WRITE)))
		r |= PT_XC_WRITABLE;
	if (!(perm & PT_PERM_PRIVILEGE))
		r |= PT_XC_USER;
	if (perm & PT_PERM_EXEC)
		r |= PT_XC_EXECUTABLE;
	return r;
}

unsigned pt_xcheck_rights_diff(uint32_t perm_a, uint32_t perm_b, unsigned compare)
{
	return (pt_xcheck_rights(perm_a) ^ pt_xcheck_rights(perm_b)) & compare & PT_XC_RIGHTS_ALL;
}

const char *pt_xcheck_right_name(unsigned right)
{
	switch (right) {
	case PT_XC_WRITABLE: return "writable";
	case PT_XC_USER: return "user";
	case PT_XC_EXECUTABLE: return "executable";
	default: return NULL;
	}
}

void pt_xcheck_opts_init(struct pt_xcheck_opts *o)
{
	o->va_lo = 0;
	o->va_hi = UINT64_MAX;
	o->rights = PT_XC_RIGHTS_ALL;
}

/* One context's runs, with the run at or after the cursor. */
struct xside {
	const struct pt_context *ctx;
	struct pt_runs_iter it;
	struct pt_run r;
	bool have;
};

static uint64_t run_last(const struct pt_run *r)
{
	return r->end - 1;   /* a run ending at the top of the space has end 0: last 2^64-1 */
}

static void side_fetch(struct xside *s)
{
	s->have = pt_runs_next(&s->it, &s->r);
}

/* Drops the runs of S that end before CUR. */
static void side_advance(struct xside *s, uint64_t cur)
{
	while (s->have && run_last(&s->r) < cur)
		side_fetch(s);
}

/* What S has at CUR (its run covers CUR: COVERS). */
static void side_at(const struct xside *s, bool covers, uint64_t cur, struct pt_xcheck_side *o)
{
	memset(o, 0, sizeof *o);
	if (!covers) {
		o->state = "unmapped";
		return;
	}
	o->state = s->r.state;
	if (!s->r.mapped)
		return;
	/* a page whose translation faults is not mapped in the end (docs/design.md §2.8) */
	if (s->r.translated && s->r.final_fault != PT_FAULT_NONE) {
		o->state = "stage2";
		return;
	}
	o->mapped = true;
	o->space = pt_context_space_name(s->ctx, s->r.space);
	o->pa = s->r.pa + (cur - s->r.va);
	/*
	 * The final physical address after translated spaces is what the two
	 * must agree on.  A maps run ends where a stage-2 translation stops
	 * holding (runs.c cuts a stage-1 page into its stage-2 pieces), so its
	 * FINAL carries on over the whole run.
	 */
	if (s->r.translated) {
		o->space = pt_capture_space_name(s->ctx->cap, s->r.final_space);
		o->pa = s->r.final_pa + (cur - s->r.va);
	}
	o->page_size = s->r.page_size;
	o->perm = s->r.perm;
	snprintf(o->flags, sizeof o->flags, "%s", s->r.flags);
	snprintf(o->kind, sizeof o->kind, "%s", s->r.kind);
	pt_format_kind_key(s->ctx->fmt, o->kind_key, sizeof o->kind_key);
}

static void classify(struct pt_xcheck_line *l, unsigned compare)
{
	l->rights = 0;
	if (!l->b.mapped) {
		l->verdict = PT_XC_ONLY_A;
		return;
	}
	if (!l->a.mapped) {
		l->verdict = PT_XC_ONLY_B;
		return;
	}
	if (strcmp(l->a.space, l->b.space) || l->a.pa != l->b.pa) {
		l->verdict = PT_XC_PA_DIFFERS;
		return;
	}
	l->rights = pt_xcheck_rights_diff(l->a.perm, l->b.perm, compare);
	l->verdict = l->rights ? PT_XC_PERM_DIFFERS : PT_XC_SAME;
}

/* Whether side N continues side P, OFF bytes of VA later. */
static bool side_joins(const struct pt_xcheck_side *p, const struct pt_xcheck_side *n, uint64_t off)
{
	if (p->mapped != n->mapped || strcmp(p->state, n->state))
		return false;
	if (!p->mapped)
		return true;
	return !strcmp(p->space, n->space) && p->pa + off == n->pa && p->page_size == n->page_size &&
	       p->perm == n->perm && !strcmp(p->flags, n->flags) && !strcmp(p->kind, n->kind);
}

static bool line_joins(const struct pt_xcheck_line *p, const struct pt_xcheck_line *n)
{
	uint64_t off = n->va - p->va;

	return p->last != UINT64_MAX && p->last + 1 == n->va && p->verdict == n->verdict &&
	       p->rights == n->rights && side_joins(&p->a, &n->a, off) && side_joins(&p->b, &n->b, off);
}

struct xrun {
	pt_xcheck_fn fn;
	void *ud;
	struct pt_xcheck_result *res;
	struct pt_xcheck_line pend;
	bool have_pend;
	int stop;
};

static void emit_pending(struct xrun *x)
{
	if (!x->have_pend || x->stop)
		return;
	x->have_pend = false;
	x->res->lines[x->pend.verdict]++;
	x->res->bytes[x->pend.verdict] += x->pend.last - x->pend.va + 1;
	x->stop = x->fn(x->ud, &x->pend);
}

static void add_piece(struct xrun *x, const struct pt_xcheck_line *l)
{
	if (x->have_pend && line_joins(&x->pend, l)) {
		x->pend.last = l->last;
		return;
	}
	emit_pending(x);
	x->pend = *l;
	x->have_pend = true;
}

/* A side whose stream ended cut short: nothing past here can be compared. */
static bool side_cut(const struct xside *s, char name, uint64_t cur, struct pt_xcheck_result *res)
{
	if (s->have || !s->it.truncated)
		return false;
	res->truncated = true;
	res->cut_side = name;
	res->cut_va = cur;
	res->cut_limit = s->it.cut_limit;
	res->cut_what = s->it.cut_what;
	return true;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

pt_err pt_xcheck_run(const struct pt_context *a, const struct pt_context *b,
		     const struct pt_xcheck_opts *o, pt_xcheck_fn fn, void *ud,
		     struct pt_xcheck_result *res, struct pt_readctl *rc)
{
	/* large (two page iterators, a frame per level each): not on the stack */
	struct xside *s[2] = {calloc(1, sizeof **s), calloc(1, sizeof **s)};
	struct pt_runs_filter f;
	struct xrun x = {.fn = fn, .ud = ud, .res = res};
	uint64_t cur = o->va_lo, hi = o->va_hi;

	memset(res, 0, sizeof *res);
	if (!s[0] || !s[1]) {
		free(s[0]);
		free(s[1]);
		return PT_E_NOMEM;
	}
	pt_runs_filter_init(&f);
	f.va_lo = o->va_lo;
	f.va_hi = o->va_hi;
	f.all = true;   /* the ranges not captured on one side are shown as such */
	for (int i = 0; i < 2; i++) {
		s[i]->ctx = i ? b : a;
		pt_runs_init(&s[i]->it, s[i]->ctx, &f, rc);
		side_fetch(s[i]);
	}
	while (!x.stop) {
		struct pt_xcheck_line l;
		bool cov[2];
		uint64_t last = hi;

		side_advance(s[0], cur);
		side_advance(s[1], cur);
		if (side_cut(s[0], 'a', cur, res) || side_cut(s[1], 'b', cur, res))
			break;
		for (int i = 0; i < 2; i++)
			cov[i] = s[i]->have && s[i]->r.va <= cur;
		if (!cov[0] && !cov[1]) {
			/* nothing here on either side: on to the next run of either */
			uint64_t next = UINT64_MAX;
			bool any = false;

			for (int i = 0; i < 2; i++)
				if (s[i]->have) {
					next = any ? min_u64(next, s[i]->r.va) : s[i]->r.va;
					any = true;
				}
			if (!any || next > hi)
				break;
			cur = next;
			continue;
		}
		for (int i = 0; i < 2; i++)
			if (cov[i])
				last = min_u64(last, run_last(&s[i]->r));
			else if (s[i]->have)
				last = min_u64(last, s[i]->r.va - 1);
		memset(&l, 0, sizeof l);
		l.va = cur;
		l.last = last;
		side_at(s[0], cov[0], cur, &l.a);
		side_at(s[1], cov[1], cur, &l.b);
		/* "Not mapped" on both sides (a hole not captured in either) is no line. */
		if (l.a.mapped || l.b.mapped) {
			classify(&l, o->rights);
			add_piece(&x, &l);
		}
		if (last >= hi)
			break;
		cur = last + 1;
	}
	emit_pending(&x);
	res->stopped = x.stop;
	free(s[0]);
	free(s[1]);
	return PT_OK;
}

/* ---- rendering ----------------------------------------------------------- */

static void rights_words(struct pt_buf *b, unsigned rights)
{
	bool first = true;

	for (unsigned bit = 1; bit & PT_XC_RIGHTS_ALL; bit <<= 1)
		if (rights & bit) {
			pt_buf_printf(b, "%s%s", first ? "" : ",", pt_xcheck_right_name(bit));
			first = false;
		}
}

static void side_text(struct pt_buf *b, const struct pt_xcheck_side *s)
{
	char page[24];

	if (!s->mapped) {
		pt_buf_printf(b, " - - %s", s->state);
		return;
	}
	pt_size_str(s->page_size, page, sizeof page);
	pt_buf_printf(b, " %s:0x%016" PRIx64 " %s %s", s->space, s->pa, page, s->flags);
}

static void side_json(struct pt_jobj *o, const char *key, const struct pt_xcheck_side *s)
{
	struct pt_jobj j = {0};

	pt_jobj_str(&j, "state", s->state);
	if (s->mapped) {
		pt_jobj_flags(&j, "flags", s->flags);
		pt_jobj_str(&j, s->kind_key, s->kind);   /* the KIND column under the format's key, as maps */
		pt_jobj_hex(&j, "pa", s->pa);
		pt_jobj_hex(&j, "page_size", s->page_size);
		pt_jobj_str(&j, "space", s->space);
	}
	pt_jobj_obj(o, key, &j);
}

void pt_render_xcheck_line(struct pt_buf *b, const struct pt_xcheck_line *l, unsigned va_digits,
			   enum pt_out out)
{
	int d = (int)va_digits;
	uint64_t end = l->last + 1, size = l->last - l->va + 1;   /* 0 for the whole 2^64 */
	char sz[24];

	if (out == PT_OUT_JSON) {
		struct pt_jobj o = {0};
		struct pt_jarr r = {0};

		side_json(&o, "side_a", &l->a);   /* not "a": amd-vi decode has a one-bit field "a" (one type per key) */
		side_json(&o, "side_b", &l->b);
		for (unsigned bit = 1; bit & PT_XC_RIGHTS_ALL; bit <<= 1)
			if (l->rights & bit)
				pt_jarr_str(&r, pt_xcheck_right_name(bit));
		pt_jobj_arr(&o, "rights", &r);
		pt_jobj_hex(&o, "size", size);
		pt_jobj_hex(&o, "va_end", end);
		pt_jobj_hex(&o, "va_start", l->va);
		pt_jobj_str(&o, "verdict", pt_xcheck_verdict_name(l->verdict));
		pt_jobj_finish(&o, b);
		pt_buf_puts(b, "\n");
		return;
	}
	if (size)
		pt_size_str(size, sz, sizeof sz);
	else
		snprintf(sz, sizeof sz, "16E");
	pt_buf_printf(b, "0x%0*" PRIx64 "-0x%0*" PRIx64 " %6s %-12s", d, l->va, d, end, sz,
		      pt_xcheck_verdict_name(l->verdict));
	side_text(b, &l->a);
	side_text(b, &l->b);
	if (l->rights) {
		pt_buf_puts(b, " differs=");
		rights_words(b, l->rights);
	}
	pt_buf_puts(b, "\n");
}

void pt_render_xcheck_summary(struct pt_buf *b, const struct pt_xcheck_result *r, enum pt_out out)
{
	if (out == PT_OUT_JSON) {
		struct pt_jobj o = {0}, c = {0};

		for (unsigned v = 0; v < PT_XC__COUNT; v++)
			pt_jobj_u(&c, verdict_names[v], r->lines[v]);
		pt_jobj_obj(&o, "summary", &c);
		pt_jobj_finish(&o, b);
		pt_buf_puts(b, "\n");
		return;
	}
	pt_buf_puts(b, "# summary:");
	for (unsigned v = 0; v < PT_XC__COUNT; v++)
		pt_buf_printf(b, "%s %s %" PRIu64, v ? "," : "", verdict_names[v], r->lines[v]);
	pt_buf_puts(b, "\n");
}

/* ---- the whole file (CTX_A/vs/CTX_B) -------------------------------------- */

struct xfile {
	struct pt_buf *b;
	size_t start;
	unsigned va_digits;
	enum pt_out out;
	uint64_t next_va;       /* the VA just past the last line given */
};

static int xfile_line(void *ud, const struct pt_xcheck_line *l)
{
	struct xfile *x = ud;

	if (x->b->len - x->start >= PT_MAPS_BYTES_MAX)
		return 1;   /* held in memory: bounded as maps is */
	pt_render_xcheck_line(x->b, l, x->va_digits, x->out);
	x->next_va = l->last + 1;
	return 0;
}

static void xfile_truncated(struct pt_buf *b, const char *ctx, uint64_t va, uint64_t limit,
			    const char *what, unsigned va_digits, enum pt_out out)
{
	if (out == PT_OUT_JSON) {
		struct pt_jobj o = {0};

		pt_jobj_str(&o, "context", ctx);
		pt_jobj_u(&o, "more_than", limit);
		pt_jobj_hex(&o, "truncated_at_va", va);
		pt_jobj_str(&o, "what", what);
		pt_jobj_finish(&o, b);
		pt_buf_puts(b, "\n");
		return;
	}
	pt_buf_printf(b, "# truncated at VA 0x%0*" PRIx64 ": %s: more than %" PRIu64 " %s\n",
		      (int)va_digits, va, ctx, limit, what);
}

pt_err pt_render_xcheck(struct pt_buf *b, const struct pt_context *a, const struct pt_context *bctx,
			enum pt_out out, struct pt_readctl *rc)
{
	struct xfile x = {.b = b, .start = b->len, .out = out};
	struct pt_xcheck_opts o;
	struct pt_xcheck_result res;
	pt_err err;

	pt_xcheck_opts_init(&o);
	x.va_digits = a->fmt->va_digits > bctx->fmt->va_digits ? a->fmt->va_digits : bctx->fmt->va_digits;
	err = pt_xcheck_run(a, bctx, &o, xfile_line, &x, &res, rc);
	if (err != PT_OK)
		return err;
	if (res.truncated)
		xfile_truncated(b, res.cut_side == 'a' ? a->name : bctx->name, res.cut_va, res.cut_limit,
				res.cut_what, x.va_digits, out);
	else if (res.stopped)
		xfile_truncated(b, a->name, x.next_va, PT_MAPS_BYTES_MAX, "bytes", x.va_digits, out);
	else
		pt_render_xcheck_summary(b, &res, out);
	return pt_buf_status(b);
}
