/* SPDX-License-Identifier: MIT */
/*
 * roots_iommu.c — candidate IOMMU tables found by scanning captured memory
 * (pt_roots.h, ptfs-tool roots --iommu TYPE), for a capture whose IOMMU
 * registers are unknown (issue #32 item 4).
 *
 * Each non-zero page of the IOMMU's possible spaces is read as the start
 * of TYPE's table and given up where its entries break the layout (a
 * present entry with reserved bits, beyond the page-table scan's
 * tolerance: TOLERATED_BAD).  A page that passes is read as an [iommu]
 * section would read it (core/load/iommu_walk.c; layouts restated, no code
 * copied):
 *
 *  - intel-vtd (VT-d spec §9.1 root entry: lo P 0, context-table pointer
 *    63:12, lo 11:1 reserved, legacy hi reserved; scalable: hi P 0 and the
 *    upper context table; §9.3/§9.4 context entries; §9.5/§9.6 PASID
 *    directory and table), both modes, the better scoring one kept
 *    (RTADDR_REG TTM 11:10: 00 legacy, 01 scalable, §11.4.5);
 *  - amd-vi (AMD IOMMU spec 48882 §2.2.2 DTE, 32 B by DeviceID: V 0, TV 1,
 *    6:2 reserved, Mode 11:9 with 7 reserved): the table runs over the
 *    following pages while they hold DTEs (or zeros), at most 512 pages;
 *    the Device Table Base Address register's Size 8:0 (§3.3.1, 4 KiB
 *    pages − 1) reaches the last page with a valid DTE;
 *  - arm-smmuv3 (IHI 0070 §5.2 STE, 64 B: V 0, Config 3:1 with 001-011
 *    reserved; §5.1 L1STD: Span 4:0, 5 and 63:52 reserved, L2Ptr 51:6,
 *    2^(Span−1) STEs): linear (LOG2SIZE to the highest valid StreamID) or
 *    2-level, SPLIT the one of 8 (Linux STRTAB_SPLIT), 6, 10 under which
 *    most L1STDs are valid (Span ≤ SPLIT + 1, §6.3.24).
 *
 * Every present device entry is handed, as the key = value lines
 * iommu_walk.c gives it, to its format's own ctx_key / ctx_setup /
 * ctx_memory hooks (the format's checks refuse what the hardware would);
 * a context with tables has its root decoded as the page-table scan decodes
 * one (roots_eval.c), each domain (format, levels, root) once.  The score
 * is the share of contexts that set up and decode among everything read:
 * refused entries and pointers into uncaptured memory count against.
 *
 * Bounds: at most IO_MAX_READS table reads per candidate (loops, sizes past
 * the capture), a PASID directory or CD table read up to IO_MAX_IDS ids.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_buf.h"
#include "pt_num.h"
#include "pt_vec.h"
#include "roots_int.h"

#define MASK(hi, lo) ((~0ull >> (63 - (hi))) & ~((1ull << (lo)) - 1))
#define IO_MAX_READS (1u << 18)
#define IO_MAX_IDS 1024u

const char *const pt_roots_iommu_types[] = {"intel-vtd", "amd-vi", "arm-smmuv3", NULL};

/* A context an [iommu] section made: where its entry is, for root_of. */
struct origin {
	uint64_t addr;
	const char *type, *iommu;
};

/* One domain decoded: a device sharing it costs a lookup. */
struct dom {
	const char *fmt;
	unsigned nlevels, space;
	uint64_t root;
	bool good;
	uint64_t tables, leaves;
};

/* A table read below candidate GOOD contexts strong. */
struct reach {
	uint64_t addr;
	unsigned good;
	struct pt_iommu_cand *by;   /* while the candidate is read; GOOD is set once it is scored */
};

struct ioscan {
	const struct pt_capture *cap;
	const struct pt_mem *mem;
	struct pt_readctl *rc;
	unsigned space_id;
	const char *space;
	const struct origin *org;
	size_t norg;
	struct pt_iommu_cand *c;    /* the candidate being read */
	unsigned reads;
	struct dom *dom;
	size_t ndom, domcap;
	struct reach *reached;      /* tables below the candidates (context, PASID, L2, CD tables) */
	size_t nreached, reachedcap;
	bool nomem;
};

static uint64_t le64(const uint8_t *p)
{
	return pt_le64_load(p);
}

static bool ioread(struct ioscan *s, uint64_t addr, void *buf, size_t len)
{
	if (s->reads >= IO_MAX_READS) {
		s->c->cut = true;
		return false;
	}
	s->reads++;
	return pt_mem_read(s->mem, s->space_id, addr, buf, len);
}

/* A table below the candidate, read at ADDR: not a candidate of its own. */
static void reached(struct ioscan *s, uint64_t addr)
{
	if (!pt_vec_reserve(&s->reached, &s->reachedcap, s->nreached + 1, sizeof *s->reached)) {
		s->nomem = true;
		return;
	}
	s->reached[s->nreached++] = (struct reach){addr, 0, s->c};
}

/* ---- one device context -------------------------------------------------- */

/* The key = value lines of one device entry, as iommu_walk.c gives them to its format. */
struct kvs {
	const char *key[8];
	char val[8][160];
	unsigned n;
};

static void kv(struct kvs *k, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void kv(struct kvs *k, const char *key, const char *fmt, ...)
{
	va_list ap;

	if (k->n == 8)
		return;
	va_start(ap, fmt);
	vsnprintf(k->val[k->n], sizeof k->val[0], fmt, ap);
	va_end(ap);
	k->key[k->n++] = key;
}

/* The space keys of an [iommu] section with `space` and `output_space` both S->space. */
static void kv_spaces(const struct ioscan *s, struct kvs *k, bool output)
{
	k->n = 0;
	if (!strcmp(s->space, "sysmem"))
		return;
	kv(k, "space", "%s", s->space);
	if (output)
		kv(k, "output_space", "%s", s->space);
}

static void note_origin(struct ioscan *s, uint64_t entry)
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

/* The format's hooks on K: CTX set up as pt_iommu_device() sets one up (core/load/iommu.c). */
static bool dev_setup(struct ioscan *s, const struct pt_format *f, const struct kvs *k,
		      struct pt_context *ctx)
{
	char msg[512];

	memset(ctx, 0, sizeof *ctx);
	ctx->name = "roots";
	ctx->cap = s->cap;
	ctx->fmt = f;
	ctx->mem = s->mem;
	if (!(ctx->priv = calloc(1, f->ctx_size ? f->ctx_size : 1))) {
		s->nomem = true;
		return false;
	}
	for (unsigned i = 0; i < k->n; i++) {
		/* line 1: a format may tell a key given by its line (arm-smmuv3 ssid) */
		struct pt_ctx_key key = {k->key[i], k->val[i], 1, "[iommu]", msg, sizeof msg};

		if (f->ctx_key(ctx->priv, &key))
			return false;
	}
	msg[0] = 0;
	if (f->ctx_missing(ctx->priv) || f->ctx_setup(ctx, msg, sizeof msg))
		return false;
	for (unsigned i = 0; i < PT_CONTEXT_SPACES && ctx->fmt->spaces[i]; i++) {
		const char *n = ctx->space_names[i] ? ctx->space_names[i] : ctx->fmt->spaces[i];
		int id = pt_capture_space_find(s->cap, n);

		if (id < 0)
			return false;
		ctx->space_id[i] = (unsigned)id;
	}
	ctx->space_mapped = true;
	return !f->ctx_memory || !f->ctx_memory(ctx, msg, sizeof msg);
}

static void dev_free(const struct pt_format *f, struct pt_context *ctx)
{
	if (ctx->priv && f->ctx_free)
		f->ctx_free(ctx->priv);
	free(ctx->priv);
}

/* CTX's root table and everything below it, as the page-table scan decodes a root. */
static void dom_eval(struct ioscan *s, const struct pt_context *ctx, struct dom *d)
{
	const struct pt_format *f = ctx->fmt;
	const struct pt_level *l0 = &f->levels[0];
	struct pt_rscan r = {.mem = s->mem, .fmt = f, .geom = ctx, .rc = s->rc};
	size_t len = (size_t)(ctx->root_entries * l0->entry_size);
	unsigned shift = l0->bits ? l0->va_shift : (ctx->root_page_shift ? ctx->root_page_shift : 12);
	struct pt_rsub v;
	uint8_t *raw;

	for (unsigned sp = 0; sp < PT_CONTEXT_SPACES; sp++)
		r.memsp[sp] = sp < PT_CONTEXT_SPACES && f->spaces[sp] ? (int)ctx->space_id[sp] : -1;
	d->good = false;
	if (len <= MAX_TABLE_BYTES && (raw = pt_rscan_buf(&r, 0, len)) &&
	    pt_rscan_read(&r, ctx->root_space, ctx->root_addr, raw, len)) {
		pt_rscan_table(&r, raw, 0, ctx->root_entries, shift, 0, &v);
		d->good = !v.bad;
		d->tables = v.tables;
		d->leaves = v.leaves;
	}
	s->nomem |= r.nomem;
	pt_rscan_free(&r);
}

/* One device context of the candidate from the entry at ENTRY: set up, its tables decoded. */
static void dev_try(struct ioscan *s, uint64_t entry, const char *format, const struct kvs *k)
{
	const struct pt_format *f = pt_format_find(format);
	struct pt_context ctx;
	struct dom *d = NULL;

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
	for (size_t i = 0; i < s->ndom && !d; i++)
		if (!strcmp(s->dom[i].fmt, ctx.fmt->name) && s->dom[i].root == ctx.root_addr &&
		    s->dom[i].space == ctx.root_space &&
		    s->dom[i].nlevels == pt_format_nlevels(ctx.fmt))
			d = &s->dom[i];
	if (!d && pt_vec_reserve(&s->dom, &s->domcap, s->ndom + 1, sizeof *s->dom)) {
		d = &s->dom[s->ndom++];
		*d = (struct dom){.fmt = ctx.fmt->name, .nlevels = pt_format_nlevels(ctx.fmt),
				  .space = ctx.root_space, .root = ctx.root_addr};
		dom_eval(s, &ctx, d);
		s->c->tables += d->tables;
		s->c->leaves += d->leaves;
	}
	if (!d)
		s->nomem = true;
	else if (d->good)
		s->c->good++;
	else
		s->c->bad++;
	dev_free(f, &ctx);
}

/* ---- Intel VT-d -------------------------------------------------------------- */

/* Root entry E (one half in scalable mode): 1 present, 0 absent, -1 refused. */
static int vtd_root_entry(uint64_t e)
{
	if (!(e & 1))
		return e ? -1 : 0;
	return (e & (MASK(11, 1) | MASK(63, 52))) ? -1 : 1;
}

/* The page check: present root entries and refused ones (a data page has many). */
static void vtd_count(const uint8_t *rt, bool sm, unsigned *valid, unsigned *bad)
{
	*valid = *bad = 0;
	for (unsigned bus = 0; bus < 256 && *bad <= TOLERATED_BAD; bus++) {
		uint64_t lo = le64(rt + 16 * bus), hi = le64(rt + 16 * bus + 8);
		int a = vtd_root_entry(lo), b = sm ? vtd_root_entry(hi) : (hi ? -1 : 0);

		*valid += (a > 0) + (b > 0);
		*bad += (a < 0) + (b < 0);
	}
}

/* A context table (or PASID directory) pointer back at the root table is a loop: refused. */
static bool vtd_table(struct ioscan *s, uint64_t ptr, uint8_t *buf, size_t len)
{
	if (ptr == s->c->addr) {
		s->c->bad++;
		return false;
	}
	if (!ioread(s, ptr, buf, len)) {
		s->c->uncaptured++;
		return false;
	}
	reached(s, ptr);
	return true;
}

/* Scalable-mode context entry CE of device BDF: its PASID directory, tables and entries. */
static void vtd_sm_device(struct ioscan *s, const uint8_t *ce)
{
	uint8_t dir[4096], tbl[4096];
	uint64_t q0 = le64(ce), dirp = q0 & MASK(51, 12);
	uint64_t n = 1ull << (((q0 >> 9) & 7) + 7);
	struct kvs k;

	if (n > IO_MAX_IDS / 64 * 8)
		n = IO_MAX_IDS / 64 * 8;
	for (uint64_t di = 0; di < n && !s->c->cut; di++) {
		uint64_t de, tp;

		if (di % 512 == 0 && !vtd_table(s, dirp + di * 8, dir, (size_t)(n - di < 512 ? n - di : 512) * 8))
			return;
		de = le64(dir + (di % 512) * 8);
		if (!(de & 1))
			continue;
		tp = de & MASK(51, 12);
		if (!vtd_table(s, tp, tbl, sizeof tbl))
			continue;
		for (unsigned ti = 0; ti < 64; ti++) {
			const uint8_t *pe = tbl + 64 * ti;
			unsigned pgtt = (unsigned)(le64(pe) >> 6) & 7;

			if (!(le64(pe) & 1))
				continue;
			kv_spaces(s, &k, pgtt != 1);
			kv(&k, "pasid_entry", "0x%016" PRIx64 " 0x%016" PRIx64 " 0x%016" PRIx64, le64(pe),
			   le64(pe + 8), le64(pe + 16));
			dev_try(s, tp + 64 * ti, pgtt == 1 ? "x86-64" : "intel-vtd", &k);
		}
	}
}

static void vtd_read(struct ioscan *s, const uint8_t *rt, bool sm)
{
	uint8_t ct[4096];
	struct kvs k;

	for (unsigned bus = 0; bus < 256 && !s->c->cut; bus++) {
		for (unsigned half = 0; half < (sm ? 2u : 1u); half++) {
			uint64_t e = le64(rt + 16 * bus + 8 * half), ctp = e & MASK(51, 12);
			int st = vtd_root_entry(e);

			if (!sm && half == 0 && le64(rt + 16 * bus + 8))
				st = -1;   /* legacy: the upper 64 bits are reserved */
			s->c->bad += st < 0;
			if (st <= 0 || !vtd_table(s, ctp, ct, sizeof ct))
				continue;
			for (unsigned i = 0; i < (sm ? 128u : 256u); i++) {
				const uint8_t *ce = ct + (sm ? 32 : 16) * i;

				if (!(le64(ce) & 1))
					continue;
				s->c->devices++;
				if (sm) {
					vtd_sm_device(s, ce);
					continue;
				}
				kv_spaces(s, &k, true);
				kv(&k, "context", "0x%016" PRIx64 "%016" PRIx64, le64(ce + 8), le64(ce));
				dev_try(s, ctp + 16 * i, "intel-vtd", &k);
			}
		}
	}
}

/* ---- AMD-Vi ---------------------------------------------------------------- */

/*
 * VALID: the DTEs that are contexts (V = 1, TV = 1: Linux writes both in
 * every DTE of its table, amd_iommu_init.c); BAD: V = 1 with 6:2 set or
 * Mode 7 (§2.2.2).  A page of v1 page tables read as DTEs has PTEs with
 * PR (bit 0) and bit 1 clear at its 32-byte stride: not contexts.
 */
static void amdvi_count(const uint8_t *pg, unsigned *valid, unsigned *bad)
{
	*valid = *bad = 0;
	for (unsigned i = 0; i < 128; i++) {
		uint64_t q0 = le64(pg + 32 * i);

		if (!(q0 & 1))
			continue;
		*valid += (q0 & 3) == 3;
		*bad += (q0 & MASK(6, 2)) || ((q0 >> 9) & 7) == 7;
	}
}

static void amdvi_read(struct ioscan *s, unsigned pages)
{
	uint8_t pg[4096];
	struct kvs k;

	for (unsigned p = 0; p < pages && !s->c->cut; p++) {
		uint64_t a = s->c->addr + (uint64_t)4096 * p;

		if (!ioread(s, a, pg, sizeof pg)) {
			s->c->uncaptured++;
			continue;
		}
		for (unsigned i = 0; i < 128; i++) {
			uint64_t q0 = le64(pg + 32 * i);

			/* V = 1, TV = 1: the DTE's translation fields are valid (§2.2.2), a context */
			if ((q0 & 3) != 3)
				continue;
			s->c->devices++;
			if ((q0 & MASK(6, 2))) {
				s->c->bad++;
				continue;
			}
			kv_spaces(s, &k, true);
			kv(&k, "dte", "0x%016" PRIx64, q0);
			dev_try(s, a + 32 * i, "amd-vi", &k);
		}
	}
}

/* ---- Arm SMMUv3 ------------------------------------------------------------ */

static void ste_count(const uint8_t *pg, unsigned *valid, unsigned *bad)
{
	*valid = *bad = 0;
	for (unsigned i = 0; i < 64; i++) {
		uint64_t s0 = le64(pg + 64 * i);
		unsigned cfg = (unsigned)(s0 >> 1) & 7;

		if (!(s0 & 1))
			continue;
		(*valid)++;
		*bad += cfg >= 1 && cfg <= 3;
	}
}

/* L1STD D: 1 valid (under SPLIT), 0 absent, -1 refused. */
static int l1std(uint64_t d, unsigned split)
{
	unsigned span = (unsigned)d & 31;

	if (!span)
		return 0;
	if ((d & (MASK(63, 52) | 1ull << 5)) || !(d & MASK(51, 6)) || span > split + 1)
		return -1;
	return 1;
}

static void l1_count(const uint8_t *pg, unsigned split, unsigned *valid, unsigned *bad)
{
	*valid = *bad = 0;
	for (unsigned i = 0; i < 512; i++) {
		int st = l1std(le64(pg + 8 * i), split);

		*valid += st > 0;
		*bad += st < 0;
	}
}

/* The CDs of stage-1 STE S0/S1 (S1CDMax > 0), as iommu_walk.c's smmu_cds() makes them contexts. */
static void smmu_cds(struct ioscan *s, uint64_t ste_addr, const struct kvs *base, uint64_t s0)
{
	unsigned max = (unsigned)(s0 >> 59), fmt = (unsigned)(s0 >> 4) & 3;
	unsigned split = fmt == 1 ? 6 : 10;
	uint64_t ptr = s0 & MASK(51, 6), n = 1ull << max;
	uint8_t raw[8];
	struct kvs k;

	reached(s, ptr & ~0xfffull);
	for (uint64_t ssid = 0; ssid < n && ssid < IO_MAX_IDS && !s->c->cut; ssid++) {
		uint64_t cd = ptr + ssid * 64;

		if (fmt == 1 || fmt == 2) {
			if (!ioread(s, ptr + (ssid >> split) * 8, raw, 8)) {
				s->c->uncaptured++;
				return;
			}
			if (!(le64(raw) & 1)) {
				ssid |= (1ull << split) - 1;
				continue;
			}
			cd = (le64(raw) & MASK(51, 12)) + (ssid & ((1ull << split) - 1)) * 64;
		}
		if (!ioread(s, cd, raw, 8)) {
			s->c->uncaptured++;
			return;
		}
		if (!(le64(raw) & (1ull << 31)))
			continue;
		k = *base;
		kv(&k, "ssid", "%" PRIu64, ssid);
		dev_try(s, ste_addr, "arm-smmuv3", &k);
	}
}

static void smmu_ste(struct ioscan *s, uint64_t addr, const uint8_t *ste)
{
	static const char *const w[] = {"ste0", "ste1", "ste2", "ste3"};
	uint64_t s0 = le64(ste);
	unsigned cfg = (unsigned)(s0 >> 1) & 7;
	struct kvs k;

	if (!(s0 & 1))
		return;
	s->c->devices++;
	kv_spaces(s, &k, true);
	for (unsigned i = 0; i < 4; i++)
		kv(&k, w[i], "0x%016" PRIx64, le64(ste + 8 * i));
	if (cfg == 7)
		kv(&k, "stage", "2");
	if (cfg == 5 && (s0 >> 59)) {
		smmu_cds(s, addr, &k, s0);
		return;
	}
	if (cfg == 5)
		kv(&k, "ssid", "0");
	dev_try(s, addr, "arm-smmuv3", &k);
}

/* N STEs at ADDR (a linear table or one L2 table). */
static void smmu_stes(struct ioscan *s, uint64_t addr, uint64_t n)
{
	uint8_t ste[64];

	for (uint64_t j = 0; j < n && !s->c->cut; j++) {
		if (!ioread(s, addr + 64 * j, ste, sizeof ste)) {
			s->c->uncaptured++;
			return;
		}
		smmu_ste(s, addr + 64 * j, ste);
	}
}

static void smmu_l1_read(struct ioscan *s, uint64_t nl1, unsigned split)
{
	uint8_t raw[8];

	for (uint64_t i = 0; i < nl1 && !s->c->cut; i++) {
		uint64_t d;
		int st;

		if (!ioread(s, s->c->addr + 8 * i, raw, 8)) {
			s->c->uncaptured++;
			return;
		}
		d = le64(raw);
		st = l1std(d, split);
		s->c->bad += st < 0;
		if (st <= 0)
			continue;
		reached(s, d & MASK(51, 6));
		smmu_stes(s, d & MASK(51, 6), 1ull << ((d & 31) - 1));
	}
}

/* ---- the pass over a space --------------------------------------------------- */

static unsigned ceil_log2(uint64_t n)
{
	unsigned l = 0;

	while (l < 63 && (1ull << l) < n)
		l++;
	return l;
}

static bool page_passes(unsigned valid, unsigned bad)
{
	return valid && !(bad > TOLERATED_BAD || bad * 3 > valid);
}

static void cand_score(struct pt_iommu_cand *c)
{
	unsigned all = c->good + c->bad + c->uncaptured;

	c->score = all ? (unsigned)(100ull * c->good / all) : 0;
}

/* Reads candidate C (its registers set) with READ; S's per-candidate state reset. */
static void cand_read(struct ioscan *s, struct pt_iommu_cand *c, const uint8_t *page, unsigned arg,
		      int kind)
{
	s->c = c;
	s->reads = 0;
	s->ndom = 0;
	if (kind == 0)
		vtd_read(s, page, arg);
	else if (kind == 1)
		amdvi_read(s, arg);
	else if (kind == 2)
		smmu_stes(s, c->addr, 1ull << (c->reg2 & 63));
	else
		smmu_l1_read(s, arg, (unsigned)(c->reg2 >> 6) & 31);
	cand_score(c);
	for (size_t i = s->nreached; i-- > 0 && s->reached[i].by == c;) {
		s->reached[i].good = c->good;
		s->reached[i].by = NULL;
	}
}

/* How many pages from ADDR on hold COUNT's entries (or zeros), up to MAX; the last with a valid one. */
static unsigned extent(struct ioscan *s, uint64_t addr, unsigned max, uint8_t *pg,
		       void (*count)(const uint8_t *, unsigned *, unsigned *))
{
	unsigned last = 0, valid, bad;

	for (unsigned p = 1; p < max; p++) {
		if (!pt_mem_read(s->mem, s->space_id, addr + (uint64_t)4096 * p, pg, 4096))
			break;
		count(pg, &valid, &bad);
		if (bad > TOLERATED_BAD || bad * 3 > valid)
			break;
		if (valid)
			last = p;
	}
	return last + 1;
}

/* The highest valid STE's StreamID in the PAGES pages at ADDR. */
static uint64_t ste_max(struct ioscan *s, uint64_t addr, unsigned pages, uint8_t *pg)
{
	uint64_t max = 0;

	for (unsigned p = 0; p < pages; p++)
		if (pt_mem_read(s->mem, s->space_id, addr + (uint64_t)4096 * p, pg, 4096))
			for (unsigned i = 0; i < 64; i++)
				if (le64(pg + 64 * i) & 1)
					max = (uint64_t)p * 64 + i;
	return max;
}

/* The better of A and B (score, then contexts that decode), into A. */
static void keep_better(struct pt_iommu_cand *a, const struct pt_iommu_cand *b)
{
	if (b->good && (!a->good || b->score > a->score ||
			(b->score == a->score && b->good > a->good)))
		*a = *b;
}

/* The candidates of TYPE whose table starts at ADDR (PAGE its bytes), the best into *BEST. */
static void try_page(struct ioscan *s, const char *type, uint64_t addr, const uint8_t *page,
		     struct pt_iommu_cand *best)
{
	struct pt_iommu_cand proto = {.type = type, .space = s->space, .addr = addr, .bytes = 4096}, c;
	uint8_t pg[4096];
	unsigned valid, bad;

	memset(best, 0, sizeof *best);
	if (!strcmp(type, "intel-vtd")) {
		for (unsigned sm = 0; sm < 2; sm++) {
			vtd_count(page, sm, &valid, &bad);
			if (!page_passes(valid, bad))
				continue;
			c = proto;
			c.mode = sm ? "scalable" : "legacy";
			c.reg = addr | (uint64_t)sm << 10;   /* TTM 01: scalable (Linux DMA_RTADDR_SMT) */
			cand_read(s, &c, page, sm, 0);
			keep_better(best, &c);
		}
	} else if (!strcmp(type, "amd-vi")) {
		amdvi_count(page, &valid, &bad);
		if (!page_passes(valid, bad))
			return;
		c = proto;
		c.bytes = (uint64_t)4096 * extent(s, addr, 512, pg, amdvi_count);
		c.reg = addr | (c.bytes / 4096 - 1);
		cand_read(s, &c, page, (unsigned)(c.bytes / 4096), 1);
		keep_better(best, &c);
	} else {
		static const unsigned splits[] = {8, 6, 10};
		unsigned bestv = 0, split = 8;
		uint64_t maxi = 0;

		struct pt_iommu_cand lin = {0};
		bool inside = false;

		ste_count(page, &valid, &bad);
		if (page_passes(valid, bad)) {
			unsigned pages = extent(s, addr, 1024, pg, ste_count);

			lin = proto;
			lin.mode = "linear";
			lin.reg2 = ceil_log2(ste_max(s, addr, pages, pg) + 1);
			lin.bytes = 64ull << lin.reg2;
			cand_read(s, &lin, page, 0, 2);
		}
		for (unsigned i = 0; i < 3; i++) {
			l1_count(page, splits[i], &valid, &bad);
			if (page_passes(valid, bad) && valid > bestv) {
				bestv = valid;
				split = splits[i];
			}
		}
		if (!bestv) {
			keep_better(best, &lin);
			return;
		}
		for (unsigned i = 0; i < 512; i++) {
			uint64_t d = le64(page + 8 * i);

			if (d)
				maxi = i;
			inside |= l1std(d, split) > 0 && (d & MASK(51, 6)) > addr &&
				  (d & MASK(51, 6)) < addr + lin.bytes;
		}
		c = proto;
		c.mode = "2-level";
		c.reg2 = 1ull << 16 | (uint64_t)split << 6 | (split + ceil_log2(maxi + 1));
		c.bytes = 8ull << ceil_log2(maxi + 1);
		cand_read(s, &c, page, 1u << ceil_log2(maxi + 1), 3);
		/*
		 * An L1 table whose L2 tables follow it reads as a linear table
		 * too (its L1STDs as bypass STEs: V 0, Config from Span): when the
		 * 2-level reading's L2 tables are inside the linear reading, the
		 * linear one is that illusion.
		 */
		if (inside && c.good)
			lin.good = 0;
		keep_better(best, &lin);
		keep_better(best, &c);
	}
}

static int cmp_reach(const void *a, const void *b)
{
	const struct reach *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->good > y->good ? -1 : x->good < y->good;
}

/*
 * Whether C's table is one a candidate explaining at least as many
 * contexts reads below it (an L2 stream table read as a linear one, a
 * context table as a root table): then C is that table, not a root.
 */
static bool is_inner(const struct ioscan *s, const struct pt_iommu_cand *c)
{
	struct reach key = {c->addr, UINT32_MAX, NULL};
	size_t lo = 0, hi = s->nreached;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (cmp_reach(&s->reached[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nreached && s->reached[lo].addr == c->addr && s->reached[lo].good >= c->good;
}

/* Every non-zero page of S's space tried as TYPE's table; candidates into R. */
static pt_err scan_space(struct ioscan *s, const char *type, struct pt_iommu_roots *r,
			 pt_progress_fn fn, void *ud, uint64_t *done, uint64_t total)
{
	uint64_t pa = 0, nx, lo = 0, last = 0;
	size_t from = r->n, k = from;
	uint8_t page[4096];

	s->nreached = 0;
	while (pt_mem_next_nonzero(s->mem, s->space_id, pa, &nx)) {
		uint64_t addr = nx & ~0xfffull;
		struct pt_iommu_cand best;

		if (addr < pa)
			addr = pa;
		if (!lo)
			lo = addr;
		if (pt_readctl_poll(s->rc)) {
			r->cut = true;
			break;
		}
		if (fn && addr - last >= (64u << 20)) {
			fn(ud, *done + (addr - lo), total);
			last = addr;
		}
		pa = addr + 4096;
		if (!pt_mem_read(s->mem, s->space_id, addr, page, sizeof page))
			continue;
		r->pages++;
		try_page(s, type, addr, page, &best);
		if (s->nomem)
			return PT_E_NOMEM;
		if (!best.good)
			continue;
		if (!pt_vec_reserve(&r->c, &r->cap, r->n + 1, sizeof *r->c))
			return PT_E_NOMEM;
		r->c[r->n++] = best;
		/* a table's own later pages are not tables of their own */
		if (best.bytes > 4096 && addr + ((best.bytes + 4095) & ~0xfffull) > pa)
			pa = addr + ((best.bytes + 4095) & ~0xfffull);
		if (pa <= addr)
			break;
	}
	*done += last - lo;
	/* the tables a candidate reads below it (context, PASID, L2, CD tables) are not candidates */
	if (s->nreached)
		qsort(s->reached, s->nreached, sizeof *s->reached, cmp_reach);
	for (size_t i = from; i < r->n; i++)
		if (!is_inner(s, &r->c[i]))
			r->c[k++] = r->c[i];
	r->n = k;
	return PT_OK;
}

/* ---- the whole scan ---------------------------------------------------------- */

static int cmp_origin(const void *a, const void *b)
{
	const struct origin *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->iommu, y->iommu);
}

static int by_score(const void *a, const void *b)
{
	const struct pt_iommu_cand *x = a, *y = b;
	int k;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	if ((k = strcmp(x->space, y->space)))
		return k;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The entries the capture's [iommu] sections made contexts of, by address (for root_of). */
static struct origin *origins(const struct pt_capture *cap, size_t *n)
{
	size_t nc = pt_capture_context_count(cap);
	struct origin *o = calloc(nc ? nc : 1, sizeof *o);

	*n = 0;
	for (size_t i = 0; o && i < nc; i++) {
		const struct pt_context *x = pt_capture_context(cap, i);

		if (x->iommu)
			o[(*n)++] = (struct origin){x->iommu->entry_addr, x->iommu->type, x->iommu->iommu};
	}
	if (o && *n)
		qsort(o, *n, sizeof *o, cmp_origin);
	return o;
}

pt_err pt_roots_iommu_scan(const struct pt_capture *cap, const struct pt_iommu_roots_opts *o,
			   struct pt_iommu_roots *out, struct pt_readctl *rc, char *err, size_t errlen)
{
	static const char *const spaces[] = {"sysmem", "hpa", "gpa"};
	const struct pt_mem *mem = pt_capture_mem(cap);
	struct ioscan s = {.cap = cap, .mem = mem, .rc = rc};
	uint64_t total = 0, done = 0;
	unsigned t;
	pt_err e = PT_OK;

	memset(out, 0, sizeof *out);
	err[0] = 0;
	for (t = 0; pt_roots_iommu_types[t] && strcmp(pt_roots_iommu_types[t], o->type); t++)
		;
	if (!pt_roots_iommu_types[t]) {
		snprintf(err, errlen, "unknown IOMMU type '%s' (intel-vtd, amd-vi or arm-smmuv3)", o->type);
		return PT_E_NOTFOUND;
	}
	if (o->space && pt_capture_space_find(cap, o->space) < 0) {
		snprintf(err, errlen, "no space '%s' in the capture", o->space);
		return PT_E_NOTFOUND;
	}
	if (!(s.org = origins(cap, &s.norg)))
		return PT_E_NOMEM;
	for (unsigned i = 0; i < pt_capture_region_count(cap); i++) {
		const struct pt_region_info *ri = pt_capture_region(cap, i);
		const char *n = pt_capture_space_name(cap, ri->space);

		for (unsigned k = 0; k < 3; k++)
			if (n && !strcmp(n, spaces[k]) && (!o->space || !strcmp(o->space, n)))
				total += ri->size;
	}
	for (unsigned k = 0; k < 3 && !e && !out->cut; k++) {
		int id = pt_capture_space_find(cap, o->space ? o->space : spaces[k]);

		if (id < 0 || (o->space && k))
			continue;
		s.space_id = (unsigned)id;
		s.space = pt_capture_space_name(cap, (unsigned)id);
		e = scan_space(&s, pt_roots_iommu_types[t], out, o->progress, o->progress_ud, &done,
			       total);
	}
	free((void *)s.org);
	free(s.dom);
	free(s.reached);
	if (e) {
		pt_roots_iommu_free(out);
		return e;
	}
	for (size_t i = 0, k = 0; i < out->n; i++) {
		if (out->c[i].score >= o->min_score || out->c[i].root_of)
			out->c[k++] = out->c[i];
		if (i + 1 == out->n)
			out->n = k;
	}
	if (out->n)
		qsort(out->c, out->n, sizeof *out->c, by_score);
	if (o->progress)
		o->progress(o->progress_ud, total, total);
	return PT_OK;
}

void pt_roots_iommu_free(struct pt_iommu_roots *r)
{
	free(r->c);
	memset(r, 0, sizeof *r);
}

void pt_roots_iommu_section(const struct pt_iommu_cand *c, struct pt_buf *b)
{
	if (strcmp(c->space, "sysmem"))
		pt_buf_printf(b, "[iommu root-%s-%" PRIx64 "]\n", c->space, c->addr);
	else
		pt_buf_printf(b, "[iommu root-%" PRIx64 "]\n", c->addr);
	pt_buf_printf(b, "type = %s\n", c->type);
	if (!strcmp(c->type, "intel-vtd")) {
		pt_buf_printf(b, "; RTADDR_REG: root table 0x%" PRIx64 ", TTM %s\n", c->addr,
			      c->reg & (1u << 10) ? "01 (scalable mode)" : "00 (legacy mode)");
		pt_buf_printf(b, "rtaddr = 0x%" PRIx64 "\n", c->reg);
	} else if (!strcmp(c->type, "amd-vi")) {
		pt_buf_printf(b, "; Device Table Base Address: base 0x%" PRIx64 ", Size %" PRIu64
			      " (%" PRIu64 " pages: DeviceIDs 0-0x%" PRIx64 ")\n", c->addr, c->reg & 0x1ff,
			      (c->reg & 0x1ff) + 1, ((c->reg & 0x1ff) + 1) * 128 - 1);
		pt_buf_printf(b, "dev_table_base = 0x%" PRIx64 "\n", c->reg);
	} else {
		pt_buf_printf(b, "; STRTAB_BASE_CFG: LOG2SIZE %" PRIu64 ", SPLIT %" PRIu64 ", FMT %s\n",
			      c->reg2 & 63, (c->reg2 >> 6) & 31,
			      (c->reg2 >> 16) & 3 ? "01 (2-level)" : "00 (linear)");
		pt_buf_printf(b, "strtab_base = 0x%" PRIx64 "\n", c->addr);
		pt_buf_printf(b, "strtab_base_cfg = 0x%" PRIx64 "\n", c->reg2);
	}
	if (strcmp(c->type, "arm-smmuv3"))
		pt_buf_puts(b, "; segment = N: the PCI segment is not in memory (ACPI DMAR DRHD / IVRS IVHD)\n");
	pt_buf_printf(b, "space = %s\noutput_space = %s\n", c->space, c->space);
}
