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
 *    6:2 reserved, Mode 11:9 with 7 reserved; and the fields Linux
 *    leaves zero that page tables read as DTEs fill: roots_iotab.c
 *    dte_bad()): the table runs over the following pages while they
 *    hold DTEs (or zeros), at most 512 pages; the Device Table Base
 *    Address register's Size 8:0 (§3.3.1, 4 KiB pages − 1) reaches the
 *    last page with a valid DTE;
 *  - arm-smmuv3 (IHI 0070 §5.2 STE, 64 B: V 0, Config 3:1 with 001-011
 *    reserved, RES0 words; abort and bypass with no stage field, as Linux
 *    writes them: roots_iotab.c ste_bad()); §5.1 L1STD: Span 4:0, 5 and
 *    63:52 reserved, L2Ptr 51:6, 2^(Span−1) STEs): linear (LOG2SIZE to
 *    the highest valid StreamID) or 2-level, SPLIT the one of 8 (Linux
 *    STRTAB_SPLIT), 6, 10 under which most L1STDs are valid (Span ≤
 *    SPLIT + 1, §6.3.24).
 *
 * A table another candidate reads below it (a context, PASID, L2 or CD
 * table) is not a candidate of its own when that candidate explains at
 * least as many contexts; the pages a multi-page reading covered are not
 * tried again.
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
 * the capture; a domain's decoded page tables count too), IO_MAX_DOMS
 * distinct domains, a PASID directory or CD table read up to IO_MAX_IDS
 * ids; a candidate cut short says so (`cut`).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_buf.h"
#include "pt_vec.h"
#include "roots_int.h"


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

/*
 * GOOD of everything read, halved when no page table below confirms it:
 * a pass-through or blocked entry is one bit pattern (a lone 0x83 PDPTE
 * reads as a blocked DTE), a device's tables that decode are many.
 */
static void cand_score(struct pt_iommu_cand *c)
{
	unsigned all = c->good + c->bad + c->uncaptured;

	c->score = all ? (unsigned)(100ull * c->good / all) : 0;
	if (!c->tables && !c->leaves)
		c->score /= 2;
}

/*
 * Reads candidate C (its registers set: reg, reg2) as its type's tables
 * and scores it; S's per-candidate state reset first.  PAGE: its first page.
 */
static void cand_read(struct pt_rio_scan *s, struct pt_iommu_cand *c, const uint8_t *page)
{
	uint64_t reg[PT_IK__COUNT] = {0};

	/* each IOMMU's traversal reads its own registers: VT-d RTADDR, AMD-Vi DTB, SMMUv3 STRTAB* */
	reg[PT_IK_RTADDR] = reg[PT_IK_DTB] = c->reg;
	reg[PT_IK_STRTAB] = c->addr;
	reg[PT_IK_STRCFG] = c->reg2;
	s->c = c;
	s->reads = 0;
	s->serial++;
	s->cand_doms = 0;
	pt_rio_read(s, pt_iommu_format_find(c->type), reg, page);
	cand_score(c);
	for (size_t i = s->nreached; i-- > 0 && s->reached[i].by == c;) {
		s->reached[i].good = c->good;
		s->reached[i].by = NULL;
	}
}

/* How many pages from ADDR on hold COUNT's entries (or zeros), up to MAX: to the last valid one. */
static unsigned extent(struct pt_rio_scan *s, uint64_t addr, unsigned max, uint8_t *pg,
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
static uint64_t ste_max(struct pt_rio_scan *s, uint64_t addr, unsigned pages, uint8_t *pg)
{
	uint64_t max = 0;

	for (unsigned p = 0; p < pages; p++)
		if (pt_mem_read(s->mem, s->space_id, addr + (uint64_t)4096 * p, pg, 4096))
			for (unsigned i = 0; i < 4096 / 64; i++)
				if (pt_smmu_ste_valid(pt_rio_le64(pg + pt_smmu_entry64(0, i))))
					max = (uint64_t)p * (4096 / 64) + i;
	return max;
}

/* The better of A and B (score, then contexts that decode), into A. */
static void keep_better(struct pt_iommu_cand *a, const struct pt_iommu_cand *b)
{
	if (b->good && (!a->good || b->score > a->score ||
			(b->score == a->score && b->good > a->good)))
		*a = *b;
}

/*
 * The candidates of TYPE whose table starts at ADDR (PAGE its bytes), the
 * best into *BEST; *SPAN the bytes the readings took as one table (the
 * pages after ADDR a multi-page reading covered are not tried again, so
 * that a run of DTE- or STE-like pages costs one reading, not one each).
 */
static void try_page(struct pt_rio_scan *s, const char *type, uint64_t addr, const uint8_t *page,
		     uint64_t *span, struct pt_iommu_cand *best)
{
	struct pt_iommu_cand proto = {.type = type, .space = s->space, .addr = addr, .bytes = 4096}, c;
	uint8_t pg[4096];
	unsigned valid, bad;

	memset(best, 0, sizeof *best);
	*span = 4096;
	enum pt_iommu_kind kind = pt_iommu_format_find(type)->kind;

	if (kind == PT_IOMMU_KIND_VTD) {
		for (unsigned sm = 0; sm < 2; sm++) {
			pt_rio_vtd_count(page, sm, &valid, &bad);
			if (!page_passes(valid, bad))
				continue;
			c = proto;
			c.mode = sm ? "scalable" : "legacy";
			c.reg = addr | (uint64_t)sm << 10;   /* TTM 01: scalable (Linux DMA_RTADDR_SMT) */
			cand_read(s, &c, page);
			keep_better(best, &c);
		}
	} else if (kind == PT_IOMMU_KIND_AMDVI) {
		pt_rio_amdvi_count(page, &valid, &bad);
		if (!page_passes(valid, bad))
			return;
		c = proto;
		c.bytes = (uint64_t)4096 * extent(s, addr, 512, pg, pt_rio_amdvi_count);
		*span = c.bytes;
		c.reg = addr | (c.bytes / 4096 - 1);
		cand_read(s, &c, page);
		keep_better(best, &c);
	} else {
		static const unsigned splits[] = {8, 6, 10};
		unsigned bestv = 0, split = 8;
		uint64_t maxi = 0;

		struct pt_iommu_cand lin = {0};
		bool inside = false;

		pt_rio_ste_count(page, &valid, &bad);
		if (page_passes(valid, bad)) {
			unsigned pages = extent(s, addr, 1024, pg, pt_rio_ste_count);

			lin = proto;
			lin.mode = "linear";
			lin.reg2 = ceil_log2(ste_max(s, addr, pages, pg) + 1);
			lin.bytes = 64ull << lin.reg2;
			*span = (uint64_t)4096 * pages;
			cand_read(s, &lin, page);
		}
		for (unsigned i = 0; i < 3; i++) {
			pt_rio_l1_count(page, splits[i], &valid, &bad);
			if (page_passes(valid, bad) && valid > bestv) {
				bestv = valid;
				split = splits[i];
			}
		}
		if (!bestv) {
			keep_better(best, &lin);
			return;
		}
		for (unsigned i = 0; i < 4096 / 8; i++) {
			uint64_t d = pt_rio_le64(page + pt_smmu_l1_addr(0, i));

			if (d)
				maxi = i;
			inside |= pt_rio_l1std(d, split) > 0 && pt_smmu_l1_ptr(d) > addr &&
				  pt_smmu_l1_ptr(d) < addr + lin.bytes;
		}
		c = proto;
		c.mode = "2-level";
		c.reg2 = 1ull << 16 | (uint64_t)split << 6 | (split + ceil_log2(maxi + 1));
		c.bytes = 8ull << ceil_log2(maxi + 1);
		/* 2^ceil_log2(maxi + 1) L1STDs: LOG2SIZE - SPLIT */
		cand_read(s, &c, page);
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
	const struct pt_rio_reach *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->good > y->good ? -1 : x->good < y->good;
}

/*
 * Whether C's table is one a candidate explaining at least as many
 * contexts reads below it (an L2 stream table read as a linear one, a
 * context table as a root table): then C is that table, not a root.
 */
static bool is_inner(const struct pt_rio_scan *s, const struct pt_iommu_cand *c)
{
	struct pt_rio_reach key = {c->addr, UINT32_MAX, NULL};
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
static pt_err scan_space(struct pt_rio_scan *s, const char *type, struct pt_iommu_roots *r,
			 pt_progress_fn fn, void *ud, uint64_t *done, uint64_t total)
{
	uint64_t pa = 0, nx, lo = 0, last = 0;
	size_t from = r->n, k = from;
	uint8_t page[4096];

	s->nreached = 0;
	s->ndom = 0;   /* domains are of this space's candidates */
	if (s->domix)
		memset(s->domix, 0, s->domix_cap * sizeof *s->domix);
	while (pt_mem_next_nonzero(s->mem, s->space_id, pa, &nx)) {
		uint64_t addr = nx & ~0xfffull;
		struct pt_iommu_cand best;
		uint64_t span;

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
		try_page(s, type, addr, page, &span, &best);
		if (s->nomem)
			return PT_E_NOMEM;
		/* a table's own later pages are not tables of their own */
		if (span > 4096 && addr + span > pa)
			pa = addr + span;
		if (pa <= addr)
			break;
		if (!best.good)
			continue;
		if (!pt_vec_reserve(&r->c, &r->cap, r->n + 1, sizeof *r->c))
			return PT_E_NOMEM;
		r->c[r->n++] = best;
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
	const struct pt_rio_origin *x = a, *y = b;

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
static struct pt_rio_origin *origins(const struct pt_capture *cap, size_t *n)
{
	size_t nc = pt_capture_context_count(cap);
	struct pt_rio_origin *o = calloc(nc ? nc : 1, sizeof *o);

	*n = 0;
	for (size_t i = 0; o && i < nc; i++) {
		const struct pt_context *x = pt_capture_context(cap, i);

		if (x->iommu)
			o[(*n)++] = (struct pt_rio_origin){x->iommu->entry_addr, x->iommu->type, x->iommu->iommu};
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
	struct pt_rio_scan s = {.cap = cap, .mem = mem, .rc = rc};
	uint64_t total = 0, done = 0;
	unsigned t;
	pt_err e = PT_OK;

	memset(out, 0, sizeof *out);
	err[0] = 0;
	for (t = 0; pt_iommu_format_list[t] && strcmp(pt_iommu_format_list[t]->name, o->type); t++)
		;
	if (!pt_iommu_format_list[t]) {
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
		e = scan_space(&s, pt_iommu_format_list[t]->name, out, o->progress, o->progress_ud, &done,
			       total);
	}
	free((void *)s.org);
	free(s.dom);
	free(s.domix);
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
	enum pt_iommu_kind kind = pt_iommu_format_find(c->type)->kind;

	if (kind == PT_IOMMU_KIND_VTD) {
		pt_buf_printf(b, "; RTADDR_REG: root table 0x%" PRIx64 ", TTM %s\n", c->addr,
			      pt_vtd_ttm(c->reg) == PT_VTD_TTM_SCALABLE ? "01 (scalable mode)" :
			      "00 (legacy mode)");
		pt_buf_printf(b, "rtaddr = 0x%" PRIx64 "\n", c->reg);
	} else if (kind == PT_IOMMU_KIND_AMDVI) {
		pt_buf_printf(b, "; Device Table Base Address: base 0x%" PRIx64 ", Size %" PRIu64
			      " (%" PRIu64 " pages: DeviceIDs 0-0x%" PRIx64 ")\n", c->addr,
			      (uint64_t)pt_amd_dtb_pages(c->reg) - 1, (uint64_t)pt_amd_dtb_pages(c->reg),
			      pt_amd_dte_count(c->reg) - 1);
		pt_buf_printf(b, "dev_table_base = 0x%" PRIx64 "\n", c->reg);
	} else {
		pt_buf_printf(b, "; STRTAB_BASE_CFG: LOG2SIZE %" PRIu64 ", SPLIT %" PRIu64 ", FMT %s\n",
			      (uint64_t)pt_smmu_log2size(c->reg2), (uint64_t)pt_smmu_split(c->reg2),
			      pt_smmu_two_level(c->reg2) ? "01 (2-level)" : "00 (linear)");
		pt_buf_printf(b, "strtab_base = 0x%" PRIx64 "\n", c->addr);
		pt_buf_printf(b, "strtab_base_cfg = 0x%" PRIx64 "\n", c->reg2);
	}
	if (kind != PT_IOMMU_KIND_SMMUV3)
		pt_buf_puts(b, "; segment = N: the PCI segment is not in memory (ACPI DMAR DRHD / IVRS IVHD)\n");
	pt_buf_printf(b, "space = %s\noutput_space = %s\n", c->space, c->space);
}
