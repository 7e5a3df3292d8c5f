/* SPDX-License-Identifier: MIT */
/*
 * roots_iotab.c — one candidate IOMMU table read as an [iommu] section
 * reads it (roots_int.h; the scan over pages is roots_iommu.c, whose
 * comment restates the layouts with their sources): the scan's visitor of
 * the IOMMU's one traversal (pt_iommu_format.walk, core/formats/iommu_*.c;
 * the loader's is core/load/iommu_walk.c).  Every present device entry is
 * handed, decoded as the loader hands it (pt_format.h struct
 * pt_ctx_entry), to its format's ctx_entry / ctx_setup / ctx_memory hooks
 * (pt_context_make()), and the root
 * of a context with tables decoded as the page-table scan decodes one
 * (roots_eval.c), each domain once.
 *
 * Its own choices, where it differs from the loader's, because a page read
 * as a table by guess must show that it is one: a VT-d root entry half
 * with bits 63:52 or 11:1 set, or not present and not zero, and a legacy
 * entry's hi not zero, count against the candidate (pt_vtd_root_half(): no
 * table Linux or QEMU writes has them; the loader reads the pointer 51:12
 * of a register the user gave); an L1STD with no L2Ptr is refused too
 * (pt_smmu_l1_check()); a DTE or STE with V = 1 whose reserved or unused
 * fields are set is refused (pt_amd_dte_bad(), pt_smmu_ste_bad(): a page of
 * page tables read as DTEs or STEs fills them); a table at the candidate's
 * own address is refused, where the loader reads a PASID table there as a
 * table reached again; no GCR3 table is read (the host tables score the
 * DTE); at most IO_MAX_IDS PASIDs and SubstreamIDs per device.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_num.h"
#include "pt_vec.h"
#include "roots_int.h"

uint64_t pt_rio_le64(const uint8_t *p)
{
	return pt_le64_load(p);
}

static bool ioread(struct pt_rio_scan *s, uint64_t addr, void *buf, size_t len)
{
	if (s->reads >= IO_MAX_READS) {
		s->c->cut = true;
		return false;
	}
	s->reads++;
	return pt_mem_read(s->mem, s->space_id, addr, buf, len);
}

/* A table below the candidate, read at ADDR: not a candidate of its own. */
static void reached(struct pt_rio_scan *s, uint64_t addr)
{
	if (!pt_vec_reserve(&s->reached, &s->reachedcap, s->nreached + 1, sizeof *s->reached)) {
		s->nomem = true;
		return;
	}
	s->reached[s->nreached++] = (struct pt_rio_reach){addr, 0, s->c};
}

/* ---- one device context -------------------------------------------------- */

/*
 * The space names of an [iommu] section with `space` and `output_space`
 * both S->space, on device entry E (pt_format.h struct pt_ctx_entry) of
 * KIND, as iommu_walk.c gives them.
 */
static void entry_init(const struct pt_rio_scan *s, struct pt_ctx_entry *e,
		       enum pt_ctx_entry_kind kind, bool output)
{
	bool sys = !strcmp(s->space, "sysmem");

	memset(e, 0, sizeof *e);
	e->kind = kind;
	e->space = sys ? NULL : s->space;
	e->output_space = sys || !output ? NULL : s->space;
	/* line 1: a format may tell a key given by its line (arm-smmuv3 ssid) */
	e->line = 1;
	e->label = "[iommu]";
}

static void note_origin(struct pt_rio_scan *s, uint64_t entry)
{
	size_t lo = 0, hi = s->norg;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->org[mid].addr < entry)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < s->norg && s->org[lo].addr == entry; lo++)
		if (!strcmp(s->org[lo].type, s->c->type) &&
		    (!s->c->root_of || strcmp(s->org[lo].iommu, s->c->root_of) < 0))
			s->c->root_of = s->org[lo].iommu;
}

/* The format's hooks on entry E: CTX set up as pt_iommu_device() sets one up (core/load/iommu.c). */
static bool dev_setup(struct pt_rio_scan *s, const struct pt_format *f, const struct pt_ctx_entry *e,
		      struct pt_context *ctx)
{
	char msg[512] = "";
	struct pt_context_spec spec = {.fmt = f, .line = e->line, .label = e->label, .any_space = true,
				       .entry = e};
	pt_err rc;

	memset(ctx, 0, sizeof *ctx);
	ctx->name = "roots";
	ctx->mem = s->mem;
	rc = pt_context_make(s->cap, &spec, ctx, msg, sizeof msg);
	if (rc == PT_E_NOMEM)
		s->nomem = true;
	return !rc;
}

static void dev_free(const struct pt_format *f, struct pt_context *ctx)
{
	(void)f;
	pt_context_unmake(ctx);
}

/* CTX's root table and everything below it, as the page-table scan decodes a root. */
static void dom_eval(struct pt_rio_scan *s, const struct pt_context *ctx, struct pt_rio_dom *d)
{
	const struct pt_format *f = ctx->fmt;
	const struct pt_level *l0 = &f->levels[0];
	struct pt_rscan r = {.mem = s->mem, .fmt = f, .geom = ctx, .rc = s->rc};
	size_t len = (size_t)(ctx->root_entries * l0->entry_size);
	unsigned shift = l0->bits ? l0->va_shift : (ctx->root_page_shift ? ctx->root_page_shift : 12);
	struct pt_rsub v;
	uint8_t *raw;

	for (unsigned sp = 0; sp < PT_CONTEXT_SPACES; sp++)
		r.memsp[sp] = -1;
	for (unsigned sp = 0; sp < PT_CONTEXT_SPACES && f->spaces[sp]; sp++)
		if (ctx->space_id[sp] != UINT32_MAX)
			r.memsp[sp] = (int)ctx->space_id[sp];
	d->good = d->captured = false;
	if (len <= MAX_TABLE_BYTES && (raw = pt_rscan_buf(&r, 0, len)) &&
	    pt_rscan_read(&r, ctx->root_space, ctx->root_addr, raw, len)) {
		pt_rscan_table(&r, raw, 0, ctx->root_entries, shift, 0, &v);
		d->captured = true;
		d->good = !v.bad;
		d->tables = v.tables;
		d->leaves = v.leaves;
	}
	s->nomem |= r.nomem;
	s->reads += 1 + (r.memo_n > IO_MAX_READS ? IO_MAX_READS : (unsigned)r.memo_n);
	pt_rscan_free(&r);
}

static size_t dom_hash(uint64_t root, unsigned space, unsigned nlevels)
{
	uint64_t h = root ^ (uint64_t)space << 52 ^ (uint64_t)nlevels << 58;

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return (size_t)h;
}

/* The slot of CTX's domain (format, levels, root) in S's hash: its own or the empty one it takes. */
static size_t dom_slot(const struct pt_rio_scan *s, const struct pt_context *ctx)
{
	unsigned nl = pt_format_nlevels(ctx->fmt);
	size_t m = s->domix_cap - 1, i;

	for (i = dom_hash(ctx->root_addr, ctx->root_space, nl) & m; s->domix[i]; i = (i + 1) & m) {
		const struct pt_rio_dom *d = &s->dom[s->domix[i] - 1];

		if (d->root == ctx->root_addr && d->space == ctx->root_space && d->nlevels == nl &&
		    !strcmp(d->fmt, ctx->fmt->name))
			break;
	}
	return i;
}

static struct pt_rio_dom *dom_find(const struct pt_rio_scan *s, const struct pt_context *ctx,
				   size_t *slot)
{
	*slot = 0;
	if (!s->domix_cap)
		return NULL;
	*slot = dom_slot(s, ctx);
	return s->domix[*slot] ? &s->dom[s->domix[*slot] - 1] : NULL;
}

/* A new domain for CTX (SLOT from dom_find(), unless the hash grows); NULL: out of memory. */
static struct pt_rio_dom *dom_add(struct pt_rio_scan *s, const struct pt_context *ctx, size_t slot)
{
	struct pt_rio_dom *d;

	if (s->ndom >= UINT32_MAX - 1 ||
	    !pt_vec_reserve(&s->dom, &s->domcap, s->ndom + 1, sizeof *s->dom))
		return NULL;
	if ((s->ndom + 1) * 2 > s->domix_cap) {
		size_t cap = s->domix_cap ? s->domix_cap * 2 : 256;
		uint32_t *ix = calloc(cap, sizeof *ix);

		if (!ix)
			return NULL;
		free(s->domix);
		s->domix = ix;
		s->domix_cap = cap;
		for (size_t i = 0, j; i < s->ndom; i++) {
			for (j = dom_hash(s->dom[i].root, s->dom[i].space, s->dom[i].nlevels) & (cap - 1);
			     ix[j]; j = (j + 1) & (cap - 1))
				;
			ix[j] = (uint32_t)i + 1;
		}
		slot = dom_slot(s, ctx);
	}
	d = &s->dom[s->ndom++];
	*d = (struct pt_rio_dom){.fmt = ctx->fmt->name, .nlevels = pt_format_nlevels(ctx->fmt),
				 .space = ctx->root_space, .root = ctx->root_addr};
	s->domix[slot] = (uint32_t)s->ndom;
	return d;
}

/* One device context of the candidate from the entry at ENTRY: set up, its tables decoded. */
static void dev_try(struct pt_rio_scan *s, uint64_t entry, const char *format,
		    const struct pt_ctx_entry *k)
{
	const struct pt_format *f = pt_format_find(format);
	struct pt_context ctx;
	struct pt_rio_dom *d;
	size_t slot;

	s->c->contexts++;
	note_origin(s, entry);
	if (!f || !dev_setup(s, f, k, &ctx)) {
		s->c->bad++;
		if (f)
			dev_free(f, &ctx);
		return;
	}
	if (!ctx.root_entries) {   /* pass-through, blocked, bypass, abort: no table */
		s->c->good++;
		dev_free(f, &ctx);
		return;
	}
	d = dom_find(s, &ctx, &slot);
	if (d && d->seen != s->serial) {   /* its tables count once per candidate */
		d->seen = s->serial;
		s->c->tables += d->tables;
		s->c->leaves += d->leaves;
	}
	/* the work bound: IO_MAX_DOMS new domains, each decoded table one of IO_MAX_READS */
	if (!d && (s->cand_doms >= IO_MAX_DOMS || s->reads >= IO_MAX_READS)) {
		s->c->contexts--;
		s->c->cut = true;
		dev_free(f, &ctx);
		return;
	}
	if (!d && (d = dom_add(s, &ctx, slot))) {
		s->cand_doms++;
		dom_eval(s, &ctx, d);
		d->seen = s->serial;
		s->c->tables += d->tables;
		s->c->leaves += d->leaves;
	}
	if (!d)
		s->nomem = true;
	else if (d->good)
		s->c->good++;
	else if (!d->captured)
		s->c->uncaptured++;
	else
		s->c->bad++;
	dev_free(f, &ctx);
}

/* ---- Intel VT-d -------------------------------------------------------------- */

/* The page check: present root entries and refused ones (a data page has many). */
void pt_rio_vtd_count(const uint8_t *rt, bool sm, unsigned *valid, unsigned *bad)
{
	*valid = *bad = 0;
	for (unsigned bus = 0; bus < PT_VTD_BUSES && *bad <= TOLERATED_BAD; bus++) {
		const uint8_t *e = rt + pt_vtd_root_entry(0, bus);
		uint64_t lo = pt_rio_le64(e), hi = pt_rio_le64(e + 8);
		int a = pt_vtd_root_half(lo), b = sm ? pt_vtd_root_half(hi) : (hi ? -1 : 0);

		*valid += (a > 0) + (b > 0);
		*bad += (a < 0) + (b < 0);
	}
}

/* ---- AMD-Vi ---------------------------------------------------------------- */

/*
 * A DTE with V = 1 the scan refuses (pt_amd_pt_amd_dte_bad(), iommu_amdvi.c):
 * reserved bits and Mode, and fields that nothing reads but a page of page
 * tables read as DTEs fills (a root with Mode 0, a GCR3 root with GV = 0).
 */
/*
 * VALID: the DTEs that are contexts (V = 1, TV = 1: Linux writes both in
 * every DTE of its table, amd_iommu_init.c); BAD: those pt_amd_dte_bad() refuses.
 * A page of v1 page tables read as DTEs has PTEs with PR (bit 0) and bit 1
 * clear at its 32-byte stride: not contexts.
 */
void pt_rio_amdvi_count(const uint8_t *pg, unsigned *valid, unsigned *bad)
{
	*valid = *bad = 0;
	for (unsigned i = 0; i < PT_AMD_DTE_PAGE; i++) {
		const uint8_t *e = pg + pt_amd_dte_addr(0, i);
		uint64_t q0 = pt_rio_le64(e);

		if (!pt_amd_dte_valid(q0))
			continue;
		*valid += pt_amd_dte_device(q0);
		*bad += pt_amd_dte_bad(q0, pt_rio_le64(e + 8));
	}
}

/* ---- Arm SMMUv3 ------------------------------------------------------------ */

/* An STE with V = 1 the scan refuses (pt_smmu_ste_bad(), iommu_smmuv3.c): RES0, reserved Config, stages in abort/bypass. */
static bool ste_bad(const uint8_t *ste)
{
	uint64_t w[4] = {pt_rio_le64(ste), pt_rio_le64(ste + 8), pt_rio_le64(ste + 16),
			 pt_rio_le64(ste + 24)};

	return pt_smmu_ste_bad(w);
}

void pt_rio_ste_count(const uint8_t *pg, unsigned *valid, unsigned *bad)
{
	*valid = *bad = 0;
	for (unsigned i = 0; i < 4096 / 64; i++) {
		const uint8_t *e = pg + pt_smmu_entry64(0, i);

		if (!pt_smmu_ste_valid(pt_rio_le64(e)))
			continue;
		(*valid)++;
		*bad += ste_bad(e);
	}
}

int pt_rio_l1std(uint64_t d, unsigned split)
{
	return pt_smmu_l1_check(d, split);
}

void pt_rio_l1_count(const uint8_t *pg, unsigned split, unsigned *valid, unsigned *bad)
{
	*valid = *bad = 0;
	for (unsigned i = 0; i < 4096 / 8; i++) {
		int st = pt_rio_l1std(pt_rio_le64(pg + pt_smmu_l1_addr(0, i)), split);

		*valid += st > 0;
		*bad += st < 0;
	}
}

/* ---- the visitor -------------------------------------------------------- */

struct rio_visit {
	struct pt_iommu_visitor v;
	struct pt_rio_scan *s;
	const struct pt_iommu_format *fam;
	const uint8_t *first;       /* the candidate's first page, read by the scan */
};

static int rio_table(struct pt_iommu_visitor *v, const struct pt_iommu_node *n, void *buf)
{
	struct rio_visit *r = v->opaque;
	struct pt_rio_scan *s = r->s;

	if (n->kind == PT_IN_VTD_ROOT) {
		memcpy(buf, r->first, n->len);
		return PT_IOV_OK;
	}
	/* a context table, PASID directory or table back at the root table is a loop: refused */
	if (n->loop) {
		s->c->bad++;
		return PT_IOV_REFUSED;
	}
	if (!ioread(s, n->addr, buf, n->len)) {
		s->c->uncaptured++;
		v->stop = s->c->cut;
		return PT_IOV_MISSING;
	}
	if (n->kind == PT_IN_VTD_CTX || n->kind == PT_IN_VTD_PASIDDIR || n->kind == PT_IN_VTD_PASID)
		reached(s, n->addr);
	v->stop = s->c->cut;
	return PT_IOV_OK;
}

static unsigned rio_entry(struct pt_iommu_visitor *v, const struct pt_iommu_node *n)
{
	struct rio_visit *r = v->opaque;
	struct pt_rio_scan *s = r->s;
	struct pt_smmu_ste e;
	unsigned halves = 0;
	int st;

	switch (n->kind) {
	case PT_IN_VTD_ROOT:
		for (unsigned h = 0; h < (n->two ? 2u : 1u); h++) {
			st = pt_vtd_root_half(n->w[h]);
			if (!n->two && n->w[1])
				st = -1;   /* legacy: the upper 64 bits are reserved */
			s->c->bad += st < 0;
			halves |= (unsigned)(st > 0) << h;
		}
		return halves;
	case PT_IN_VTD_CTX:
		s->c->devices += n->present;
		return n->present;
	case PT_IN_AMD_DTE:
		/* V = 1, TV = 1: the DTE's translation fields are valid (§2.2.2), a context */
		if (!pt_amd_dte_device(n->w[0]))
			return 0;
		s->c->devices++;
		if (pt_amd_dte_bad(n->w[0], n->w[1])) {
			s->c->bad++;
			return 0;
		}
		return 1;
	case PT_IN_SMMU_L1STD:
		st = pt_rio_l1std(n->w[0], (unsigned)n->count);
		s->c->bad += st < 0;
		if (st <= 0)
			return 0;
		reached(s, pt_smmu_l1_ptr(n->w[0]));
		return 1;
	case PT_IN_SMMU_STE:
		if (!n->present)
			return 0;
		s->c->devices++;
		if (pt_smmu_ste_bad(n->w)) {
			s->c->bad++;
			return 0;
		}
		pt_smmu_ste(n->w, &e);
		if (e.config == PT_SMMU_CFG_S1 && e.s1cdmax)
			reached(s, e.s1ctx & ~0xfffull);   /* the CD table's page */
		return 1;
	case PT_IN_AMD_GCR3:
	case PT_IN_AMD_GCR3_L0:
		return 0;
	default:
		return n->present;
	}
}

/* The entry of an STE device (and SSID of a CD's), as the loader gives it. */
static void smmu_entry(const struct pt_rio_scan *s, const struct pt_iommu_node *n,
		       struct pt_ctx_entry *k)
{
	struct pt_smmu_ste e;

	pt_smmu_ste(n->w, &e);
	entry_init(s, k, PT_CE_SMMU_STE, true);
	for (unsigned i = 0; i < PT_SMMU_STE_WORDS; i++)
		k->w[i] = n->w[i];
	k->stage2 = e.config == PT_SMMU_CFG_NESTED;
	k->has_ssid = n->kind == PT_IN_SMMU_CD || e.config == PT_SMMU_CFG_S1;
	k->ssid = n->kind == PT_IN_SMMU_CD ? n->sub : 0;
}

static pt_err rio_device(struct pt_iommu_visitor *v, const struct pt_iommu_node *n, bool *descend)
{
	struct rio_visit *r = v->opaque;
	struct pt_rio_scan *s = r->s;
	bool first;
	struct pt_ctx_entry k;

	(void)descend;
	switch (n->kind) {
	case PT_IN_VTD_CTX:
		entry_init(s, &k, PT_CE_VTD_CONTEXT, true);
		k.w[0] = n->w[0];
		k.w[1] = n->w[1];
		dev_try(s, n->addr, r->fam->device_format, &k);
		break;
	case PT_IN_VTD_PASID:
		first = pt_vtd_pgtt(n->w[0]) == PT_VTD_PGTT_FIRST;
		entry_init(s, &k, PT_CE_VTD_PASID, !first);
		for (unsigned i = 0; i < 3; i++)
			k.w[i] = n->w[i];
		dev_try(s, n->addr, first ? r->fam->guest_format : r->fam->device_format, &k);
		break;
	case PT_IN_AMD_DTE:
		entry_init(s, &k, PT_CE_AMD_DTE, true);
		k.w[0] = n->w[0];
		dev_try(s, n->addr, r->fam->device_format, &k);
		break;
	case PT_IN_SMMU_STE:
	case PT_IN_SMMU_CD:
		smmu_entry(s, n, &k);
		dev_try(s, n->kind == PT_IN_SMMU_CD ? n->parent : n->addr, r->fam->device_format, &k);
		break;
	default:
		break;
	}
	v->stop = s->c->cut;
	return s->nomem ? PT_E_NOMEM : PT_OK;
}

void pt_rio_read(struct pt_rio_scan *s, const struct pt_iommu_format *fam, const uint64_t *reg,
		 const uint8_t *first)
{
	struct rio_visit r = {.s = s, .fam = fam, .first = first};

	r.v = (struct pt_iommu_visitor){.opaque = &r, .max_ids = IO_MAX_IDS, .on_table = rio_table,
					.on_entry = rio_entry, .on_device = rio_device};
	(void)fam->walk(&r.v, reg);
}
