/*
 * test_walk: tables, nodes, the walker, the page iterator and the scan, on a
 * synthetic VER2 context built here entry by entry (bit positions from
 * docs/design.md §2.1 and its sources (§7)), and on a flat GART context.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt_gart.h"
#include "fmt_ver2.h"
#include "pt_capture.h"
#include "pt_mem.h"
#include "pt_walk.h"
#include "synth.h"
#include "testutil.h"

/* The amd-gart data (ctx->priv) of the hand-built GART contexts below. */
static struct pt_gart_layout gl;

static void walk_ok(uint64_t va, unsigned space, uint64_t pa, uint64_t size, const char *path)
{
	struct pt_walk w;
	char p[256];

	ck_assert_int_eq(pt_walk_va(&ctx, va, &w), PT_OK);
	ck_assert_msg(w.fault == PT_FAULT_NONE, "va 0x%llx: fault %s", (unsigned long long)va,
		      pt_fault_name(w.fault));
	ck_assert_uint_eq(w.space, space);
	ck_assert_uint_eq(w.pa, pa);
	ck_assert_uint_eq(w.page_size, size);
	ck_assert_uint_eq(w.page_va, va & ~(size - 1));
	pt_node_path(&w.node, p, sizeof p);
	ck_assert_str_eq(p, path);
}

static void walk_fault(uint64_t va, enum pt_fault f, const char *level, uint64_t index)
{
	struct pt_walk w;

	ck_assert_int_eq(pt_walk_va(&ctx, va, &w), PT_OK);
	ck_assert_msg(w.fault == f, "va 0x%llx: fault %s, want %s", (unsigned long long)va,
		      pt_fault_name(w.fault), pt_fault_name(f));
	if (level) {
		ck_assert_int_ge(w.fault_step, 0);
		ck_assert_str_eq(ctx.fmt->levels[w.steps[w.fault_step].table.level].name, level);
		ck_assert_uint_eq(w.steps[w.fault_step].index, index);
	}
}

START_TEST(walk_leaves)
{
	walk_ok(0x1234, VID, 0x40001234, 0x10000, "pde3/0/pde2/0/pde1/0/pde0/0/pte_big/0");
	walk_ok(0x10008, SYS, 0x2000008, 0x1000, "pde3/0/pde2/0/pde1/0/pde0/0/pte_small/16");
	walk_ok(0x200123, SYS, 0x80000123, 0x200000, "pde3/0/pde2/0/pde1/0/pde0/1");
}
END_TEST

START_TEST(walk_faults)
{
	walk_fault(0x11000, PT_FAULT_SPARSE, "pte_small", 17);
	walk_fault(0x12000, PT_FAULT_UNMAPPED, "pte_small", 18);
	walk_fault(0x20000, PT_FAULT_UNMAPPED, "pte_big", 2);  /* no_valid_4k beats small[32] */
	walk_fault(0x30000, PT_FAULT_SPARSE, "pte_big", 3);
	walk_fault(0x400000, PT_FAULT_NOT_CAPTURED, "pte_small", 0);
	walk_fault(0x600000, PT_FAULT_UNMAPPED, "pde0", 3);
	walk_fault(1ull << 29, PT_FAULT_RESERVED_BITS, "pde1", 1);
	walk_fault(1ull << 47, PT_FAULT_UNSUPPORTED, "pde3", 1);
	walk_fault(1ull << 49, PT_FAULT_OUT_OF_RANGE, NULL, 0);
	walk_fault(3ull << 47, PT_FAULT_UNMAPPED, "pde3", 3);
	{
		struct pt_walk w;
		struct pt_format narrow = pt_format_ver2;

		/*
		 * A context's own descriptor (what a set-up does for geometry
		 * its registers choose): the walk follows ctx->fmt.
		 */
		narrow.va_bits = 47;
		ctx.fmt = &narrow;
		walk_fault(1ull << 47, PT_FAULT_OUT_OF_RANGE, NULL, 0);
		ctx.fmt = &pt_format_ver2;

		/* No out-of-range hook: no aperture at all (the trace prints none). */
		ck_assert_int_eq(pt_walk_va(&ctx, 1ull << 49, &w), PT_OK);
		ck_assert_ptr_null(w.aperture.name);
		ck_assert(!w.aperture.hit);
	}
}
END_TEST

/*
 * Issue #10 item 1: nouveau packs 256-byte big tables in 0x100 slots of a
 * page.  PD0[4] (VA 0x800000) points its big half at PTB+0x200, PD0[5]
 * (VA 0xa00000) at PTB+0x300: ADDRESS_BIG (address >> 8 from bit 4) then
 * sets raw bit 5, which is also NO_ATS.  The walk must read the table at
 * +0x200 / +0x300, not at PTB (whose entry 0 maps vidmem 0x40000000).
 */
START_TEST(walk_big_table_bit9)
{
	const uint64_t pd0_4 = ((PTB + 0x200) >> 8) << 4 | 1ull << 1;   /* ADDRESS_BIG_VID, APERTURE_BIG video */
	const uint64_t pd0_5 = ((PTB + 0x300) >> 8) << 4 | 1ull << 1;
	struct pt_walk w;

	ck_assert(pd0_4 & 1ull << 5);
	ck_assert(pd0_5 & 1ull << 5);
	put64(PD0 + 4 * 16, pd0_4);
	put64(PD0 + 5 * 16, pd0_5);
	put64(PTB + 0x200 + 1 * 8, pte(0, 0x50000000ull, 0));   /* VA 0x810000 */
	put64(PTB + 0x300 + 0 * 8, pte(0, 0x60000000ull, PTE_RO));
	synth_reload();
	walk_ok(0x810042, VID, 0x50000042, 0x10000, "pde3/0/pde2/0/pde1/0/pde0/4/pte_big/1");
	walk_ok(0xa00000, VID, 0x60000000, 0x10000, "pde3/0/pde2/0/pde1/0/pde0/5/pte_big/0");
	pt_walk_va(&ctx, 0x810000, &w);
	ck_assert_uint_eq(w.steps[4].entry_pa, PTB + 0x200 + 8);
	ck_assert_uint_eq(pt_entry_field(&w.steps[3].entry, "no_ats")->v, 1);
	ck_assert_uint_eq(pt_entry_field(&w.steps[3].entry, "address_big")->v, PTB + 0x200);
	/* Entry 0 of the +0x200 table is zero and there is no small table. */
	walk_fault(0x800000, PT_FAULT_UNMAPPED, NULL, 0);
}
END_TEST

START_TEST(walk_trace_verdicts)
{
	struct pt_walk w;

	pt_walk_va(&ctx, 0x20000, &w);
	ck_assert_uint_eq(w.nsteps, 5);
	ck_assert_str_eq(w.steps[3].verdict, "pointer (big and small)");
	ck_assert_str_eq(w.steps[4].verdict, "no_valid_4k");
	pt_walk_va(&ctx, 0x10000, &w);
	ck_assert_uint_eq(w.nsteps, 6);
	ck_assert_str_eq(w.steps[4].verdict, "unmapped: small table decides");
	ck_assert_str_eq(w.steps[5].verdict, "mapped");
	ck_assert_uint_eq(w.steps[5].entry_pa, PTS + 16 * 8);
}
END_TEST

START_TEST(pages_in_order)
{
	struct pt_page_iter it;
	struct pt_page pg;
	static const uint64_t want_va[] = {0x0, 0x10000, 0x200000};
	static const uint64_t want_size[] = {0x10000, 0x1000, 0x200000};
	unsigned n = 0;
	char p[256];

	pt_pages_init(&it, &ctx, 0, NULL);
	while (pt_pages_next(&it, &pg)) {
		ck_assert_uint_lt(n, 3);
		ck_assert_uint_eq(pg.va, want_va[n]);
		ck_assert_uint_eq(pg.size, want_size[n]);
		/* every page the iterator lists, the walker resolves to the same leaf */
		struct pt_walk w;
		pt_walk_va(&ctx, pg.va, &w);
		ck_assert_int_eq(w.fault, PT_FAULT_NONE);
		ck_assert_uint_eq(w.pa, pg.pa);
		char q[256];
		pt_node_path(&w.node, q, sizeof q);
		pt_node_path(&pg.node, p, sizeof p);
		ck_assert_str_eq(p, q);
		n++;
	}
	ck_assert_uint_eq(n, 3);

	/* resuming from inside the first page skips it */
	pt_pages_init(&it, &ctx, 0x1, NULL);
	ck_assert(pt_pages_next(&it, &pg));
	ck_assert_uint_eq(pg.va, 0x10000);
	pt_pages_init(&it, &ctx, 0x10001, NULL);
	ck_assert(pt_pages_next(&it, &pg));
	ck_assert_uint_eq(pg.va, 0x200000);
	ck_assert(!pt_pages_next(&it, &pg));
}
END_TEST

START_TEST(node_resolve)
{
	struct pt_node n = {.ctx = &ctx, .n = 6};
	struct pt_loc loc;
	int8_t lv[] = {0, 1, 2, 3, 5};

	for (int i = 0; i < 5; i++)
		n.s[i].level = lv[i], n.s[i].index = 0;
	n.n = 5;
	n.s[3].index = 0;
	n.s[4].index = 16;
	ck_assert_int_eq(pt_node_resolve(&n, &loc), PT_OK);
	ck_assert_int_eq(loc.entry.state, PT_ST_MAPPED);
	ck_assert_uint_eq(loc.entry.pa, 0x2000000);
	/* wrong level under a dual PDE: pte_big index 16 is past its 32? no: index 40 is */
	n.s[4].level = 4;
	n.s[4].index = 40;
	ck_assert_int_eq(pt_node_resolve(&n, &loc), PT_E_NOTFOUND);
	/* a leaf has no children */
	n.s[3].index = 1;
	n.s[4].level = 5;
	n.s[4].index = 0;
	ck_assert_int_eq(pt_node_resolve(&n, &loc), PT_E_NOTFOUND);
	/* a pointer whose table is not captured shows no child */
	n.s[3].index = 2;
	ck_assert_int_eq(pt_node_resolve(&n, &loc), PT_E_NOTFOUND);
	n.n = 4;
	ck_assert_int_eq(pt_node_resolve(&n, &loc), PT_OK);
	ck_assert(pt_entry_is_dir(&loc.entry));
	n.n = 0;
	ck_assert_int_eq(pt_node_resolve(&n, &loc), PT_E_USAGE);
}
END_TEST

START_TEST(table_listing)
{
	struct pt_table root, t;
	struct pt_entry e;
	uint64_t i = 0;

	pt_table_root(&ctx, &root);
	ck_assert_int_eq(root.cover, PT_COVER_FULL);
	ck_assert(pt_table_next(&root, &i, false, 0, &e, NULL));
	ck_assert_uint_eq(i, 0);
	i++;
	ck_assert(pt_table_next(&root, &i, false, 0, &e, NULL));
	ck_assert_uint_eq(i, 1);
	i++;
	ck_assert(!pt_table_next(&root, &i, false, 0, &e, NULL));
	i = 2;
	ck_assert(pt_table_next(&root, &i, true, 0, &e, NULL));   /* zero entries with all_entries */
	ck_assert_uint_eq(i, 2);
	/* PD0[2]'s small table is not captured */
	struct pt_node n = {.ctx = &ctx, .n = 4};
	struct pt_loc loc;
	int8_t lv[] = {0, 1, 2, 3};
	for (int k = 0; k < 4; k++)
		n.s[k].level = lv[k], n.s[k].index = 0;
	n.s[3].index = 2;
	ck_assert_int_eq(pt_node_resolve(&n, &loc), PT_OK);
	ck_assert(pt_table_child(&loc.table, 2, &loc.entry, 1, &t));
	ck_assert_int_eq(t.cover, PT_COVER_NONE);
	ck_assert_str_eq(pt_cover_name(t.cover), "no");
	ck_assert(!pt_table_child(&loc.table, 2, &loc.entry, 0, &t));
}
END_TEST

struct counts {
	unsigned n[16];
};

static void count_an(void *ud, const struct pt_anomaly *a)
{
	((struct counts *)ud)->n[a->kind]++;
}

START_TEST(scan_anomalies)
{
	struct pt_stats st;
	struct counts c = {{0}};

	ck_assert_int_eq(pt_context_scan(&ctx, &st, count_an, &c, NULL), PT_OK);
	ck_assert_uint_eq(c.n[PT_AN_RESERVED_BITS], 1);
	ck_assert_uint_eq(c.n[PT_AN_UNSUPPORTED], 1);
	ck_assert_uint_eq(c.n[PT_AN_NOT_CAPTURED], 1);
	ck_assert_uint_eq(st.pages, 3);
	ck_assert_uint_eq(st.bytes_by_shift[12], 0x1000);
	ck_assert_uint_eq(st.bytes_by_shift[16], 0x10000);
	ck_assert_uint_eq(st.bytes_by_shift[21], 0x200000);
	ck_assert_uint_eq(st.entries[0], 2);
	ck_assert_uint_eq(st.mapped[3], 1);
}
END_TEST

START_TEST(va_names)
{
	uint64_t v;
	char s[32];

	ck_assert(pt_va_parse("0x201234", &v) && v == 0x201234);
	ck_assert(pt_va_parse("0X00000201234", &v) && v == 0x201234);
	/* one rule for numbers (issue #25 item 1): decimal, or hex with 0x */
	ck_assert(!pt_va_parse("ABCdef", &v));
	ck_assert(pt_va_parse("4198400", &v) && v == 4198400);
	ck_assert(!pt_va_parse("0x", &v));
	ck_assert(!pt_va_parse("", &v));
	ck_assert(!pt_va_parse("0x12g", &v));
	ck_assert(!pt_va_parse("0x10000000000000000", &v));
	ck_assert(pt_va_parse("0xffffffffffffffff", &v) && v == UINT64_MAX);
	pt_va_name(&pt_format_ver2, 0x201000, s, sizeof s);
	ck_assert_str_eq(s, "0x0000000201000");
	pt_va_name(&pt_format_gart, 0x7fff00000000ull, s, sizeof s);
	ck_assert_str_eq(s, "0x7fff00000000");
	/* the hand formatter is snprintf("0x%0*" PRIx64): widths, wider values, truncation */
	{
		static const uint64_t vas[] = {0, 1, 0xf, 0x10, 0x201000, 0x1ffffffffffffull,
					       0x2000000000000ull, 0xfedcba9876543210ull, UINT64_MAX};
		char want[40], got[40];
		const struct pt_format *fmt;

		for (unsigned f = 0; (fmt = pt_format_at(f)) != NULL; f++)
			for (unsigned k = 0; k < sizeof vas / sizeof vas[0]; k++)
				for (size_t len = 0; len <= sizeof got; len += (len < 20 ? 1 : 19)) {
					int w = snprintf(want, len ? len : 1, "0x%0*" PRIx64,
							 (int)fmt->va_digits, vas[k]);

					memset(got, 'Z', sizeof got);
					ck_assert_int_eq(pt_va_name(fmt, vas[k], got, len), w);
					if (len)
						ck_assert_str_eq(got, want);
					else
						ck_assert_int_eq(got[0], 'Z');
				}
	}
}
END_TEST

/* pt_context_tables(): what it was handed, in order. */
struct seen_tables {
	uint64_t addr[32];
	int level[32];
	unsigned n;
};

static void note_tab(void *ud, const struct pt_table *t)
{
	struct seen_tables *s = ud;

	ck_assert_int_ne(t->cover, PT_COVER_NONE);
	if (s->n < 32) {
		s->addr[s->n] = t->addr;
		s->level[s->n] = t->level;
	}
	s->n++;
}

/* The scan's table pass alone: each captured table once per level, in tree order, as the scan counts. */
START_TEST(tables_each_once)
{
	static const uint64_t want[] = {PD3, PD2, PD1, PD0, PTB, PTS};
	struct seen_tables s = {{0}, {0}, 0};
	struct pt_stats st;
	uint64_t counted = 0;
	bool cut = true;

	ck_assert_int_eq(pt_context_tables(&ctx, note_tab, &s, NULL, &cut), PT_OK);
	ck_assert(!cut);
	ck_assert_int_eq(pt_context_scan(&ctx, &st, NULL, NULL, NULL), PT_OK);
	for (unsigned l = 0; l < PT_MAX_LEVELS; l++)
		counted += st.tables[l];
	ck_assert_uint_eq(s.n, counted);
	ck_assert_uint_eq(s.n, 6);   /* pde0[2]'s table at 0x900000 is not captured: not handed over */
	for (unsigned i = 0; i < 6; i++) {
		ck_assert_uint_eq(s.addr[i], want[i]);
		ck_assert_int_eq(s.level[i], (int)i);
	}
	/* a table that points at itself is handed over once per level it is read at, and the pass ends */
	synth_clear();
	put64(PD3, pde_vid(PD3));
	synth_reload();
	s.n = 0;
	ck_assert_int_eq(pt_context_tables(&ctx, note_tab, &s, NULL, &cut), PT_OK);
	ck_assert(!cut);
	ck_assert_uint_ge(s.n, 2);
	for (unsigned i = 0; i < s.n && i < 32; i++) {
		ck_assert_uint_eq(s.addr[i], PD3);
		for (unsigned j = 0; j < i; j++)
			ck_assert_int_ne(s.level[j], s.level[i]);
	}
}
END_TEST

/* The sum of a context's tables: the same for the same bytes, another for one entry changed. */
START_TEST(tables_sum_changes)
{
	uint64_t a, b, c, d;

	ck_assert_int_eq(pt_context_tables_sum(&ctx, &a, NULL), PT_OK);
	ck_assert_int_eq(pt_context_tables_sum(&ctx, &b, NULL), PT_OK);
	ck_assert_uint_eq(a, b);
	/* pde0[1]'s 2 MiB page made read-only: a leaf's bits */
	put64(PD0 + 1 * 16, pte(2, 0x80000000ull, PTE_RO));
	synth_reload();
	ck_assert_int_eq(pt_context_tables_sum(&ctx, &c, NULL), PT_OK);
	ck_assert_uint_ne(a, c);
	/* an entry of a table no pointer reaches changes nothing */
	put64(0x10f000, 0x1234);
	synth_reload();
	ck_assert_int_eq(pt_context_tables_sum(&ctx, &d, NULL), PT_OK);
	ck_assert_uint_eq(c, d);
}
END_TEST

/* Every table points at itself: the walk goes level by level and ends. */
START_TEST(self_reference_ends)
{
	struct pt_page_iter it;
	struct pt_page pg;
	struct pt_walk w;
	unsigned n = 0;

	synth_clear();
	put64(PD3, pde_vid(PD3));
	put64(PD3 + 8, dual_small_vid(PD3));
	synth_reload();
	pt_walk_va(&ctx, 0, &w);
	ck_assert_uint_le(w.nsteps, PT_MAX_DEPTH);
	pt_pages_init(&it, &ctx, 0, NULL);
	while (pt_pages_next(&it, &pg))
		n++;
	ck_assert_uint_lt(n, 100000);
	struct pt_stats st;
	ck_assert_int_eq(pt_context_scan(&ctx, &st, NULL, NULL, NULL), PT_OK);
	ck_assert_uint_ge(st.anomalies, 1);   /* one table read at several levels */
}
END_TEST

/* Flat GART: entry N maps START<<12 + N * page; outside: the aperture. */
START_TEST(gart_flat)
{
	static uint8_t tbl[0x1000];
	struct pt_context g;
	struct pt_walk w;
	unsigned id;
	uint64_t p = 0x0600000223886077ull;   /* docs/design.md §2.2 worked check */

	memset(tbl, 0, sizeof tbl);
	for (int i = 0; i < 8; i++)
		tbl[0x220 + i] = (uint8_t)(p >> (8 * i));
	pt_mem_free(mem);
	mem = pt_mem_new(2);
	ck_assert_int_eq(pt_mem_add_built(mem, 0, 0x902000, sizeof tbl, &id), PT_OK);
	pt_mem_region_write(mem, id, 0, tbl, sizeof tbl);
	pt_mem_seal(mem, NULL, NULL);

	memset(&g, 0, sizeof g);
	memset(&gl, 0, sizeof gl);
	g.priv = &gl;
	g.name = "gart0";
	g.fmt = &pt_format_gart;
	g.mem = mem;
	g.root_space = 0;
	g.root_addr = 0x900000;
	g.root_entries = 0x800;
	g.root_page_shift = 12;
	g.va_base = 0;
	gl.page_size = 4096;
	gl.va_end = 0x7fffff;   /* START 0, END 0x7ff: root_entries pages */
	gl.has[PT_GR_FB_BASE] = gl.has[PT_GR_FB_TOP] = true;
	gl.fb_base = 0x8000000000ull;
	gl.fb_top = 0x83ffffffffull;

	ck_assert_int_eq(pt_walk_va(&g, 0x444123, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_NONE);
	ck_assert_uint_eq(w.steps[0].entry_pa, 0x902220);
	ck_assert_uint_eq(w.pa, 0x223886123);
	ck_assert_uint_eq(w.space, 1);
	ck_assert_uint_eq(w.page_size, 4096);
	ck_assert_int_eq(pt_walk_va(&g, 0x1000, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_NOT_CAPTURED);
	ck_assert_int_eq(pt_walk_va(&g, 0x8000001000ull, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_OUT_OF_RANGE);
	ck_assert_str_eq(w.aperture.name, "fb");
	ck_assert_uint_eq(w.aperture.pa, 0x1000);
	ck_assert_int_eq(pt_walk_va(&g, 0x8800000000ull, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_OUT_OF_RANGE);
	ck_assert_str_eq(w.aperture.name, "none");
	ck_assert(!w.aperture.hit);
	/* Without its registers (no layout) the format says nothing. */
	g.priv = NULL;
	ck_assert_int_eq(pt_walk_va(&g, 0x8000001000ull, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_OUT_OF_RANGE);
	ck_assert_ptr_null(w.aperture.name);
}
END_TEST

/*
 * Issue #10 item 4: vram pages in a GART PTE are MC addresses (offset +
 * FB_OFFSET<<24).  Registers as umr's direct_vm_test0 (BASE 0x40900001,
 * FB_OFFSET 0x40): table at vram 0x900000.  Entry 0x445 = 0x40123061 maps
 * VA 0x445000 to vram 0x123000; entry 0x446 = 0x00123061 lies below the
 * bias, so it cannot be in vram: unsupported, never a page.
 */
START_TEST(gart_vram_bias)
{
	static uint8_t tbl[0x1000];
	uint64_t raw[PT_GR__COUNT] = {0};
	bool has[PT_GR__COUNT] = {0};
	const uint64_t in_vram = 1 | 1ull << 5 | 1ull << 6 | 0x40123ull << 12;   /* V R W */
	const uint64_t below = 1 | 1ull << 5 | 1ull << 6 | 0x00123ull << 12;
	struct pt_context g;
	struct pt_walk w;
	struct pt_table t;
	struct pt_entry e;
	struct pt_page_iter it;
	struct pt_page pg;
	struct pt_stats st;
	struct counts c = {{0}};
	unsigned id;

	ck_assert_uint_eq(in_vram, 0x40123061ull);
	memset(tbl, 0, sizeof tbl);
	for (int i = 0; i < 8; i++) {
		tbl[0x228 + i] = (uint8_t)(in_vram >> (8 * i));
		tbl[0x230 + i] = (uint8_t)(below >> (8 * i));
	}
	pt_mem_free(mem);
	mem = pt_mem_new(2);
	ck_assert_int_eq(pt_mem_add_built(mem, 0, 0x902000, sizeof tbl, &id), PT_OK);
	pt_mem_region_write(mem, id, 0, tbl, sizeof tbl);
	pt_mem_seal(mem, NULL, NULL);

	raw[PT_GR_PT_BASE] = 0x40900001;
	raw[PT_GR_PT_END] = 0x7ff;
	raw[PT_GR_FB_OFFSET] = 0x40;
	has[PT_GR_PT_BASE] = has[PT_GR_PT_START] = has[PT_GR_PT_END] = true;
	has[PT_GR_FB_OFFSET] = true;
	memset(&g, 0, sizeof g);
	memset(&gl, 0, sizeof gl);
	g.priv = &gl;
	g.name = "gart0";
	g.fmt = &pt_format_gart;
	g.mem = mem;
	ck_assert_int_eq(pt_gart_layout_decode(raw, has, &gl, NULL, 0), PT_OK);
	/* What the loader does for a [gart] section. */
	g.root_space = gl.table_space;
	g.root_addr = gl.table_addr;
	g.root_entries = gl.entries;
	g.root_page_shift = 12 + gl.bfs;
	g.va_base = gl.va_start;
	pt_gart_space_bias(&gl, g.space_bias);
	ck_assert_uint_eq(g.root_addr, 0x900000);

	ck_assert_int_eq(pt_walk_va(&g, 0x445abc, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_NONE);
	ck_assert_uint_eq(w.steps[0].entry_pa, 0x902228);
	ck_assert_str_eq(g.fmt->spaces[w.space], "vram");
	ck_assert_uint_eq(w.pa, 0x123abc);
	/* The entry's address field keeps the value as written. */
	ck_assert_uint_eq(pt_entry_field(&w.steps[0].entry, "address")->v, 0x40123000);

	ck_assert_int_eq(pt_walk_va(&g, 0x446000, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_UNSUPPORTED);
	ck_assert_int_eq(w.fault_step, 0);
	ck_assert_str_eq(w.steps[0].verdict, "unsupported");
	pt_table_root(&g, &t);
	ck_assert(pt_table_read(&t, 0x446, &e));
	ck_assert_int_eq(e.state, PT_ST_UNSUPPORTED);
	ck_assert(!e.leaf);
	ck_assert_uint_eq(pt_entry_field(&e, "address")->v, 0x123000);

	/* va/, maps and audit see the same: one page, at the vram offset. */
	pt_pages_init(&it, &g, 0, NULL);
	ck_assert(pt_pages_next(&it, &pg));
	ck_assert_uint_eq(pg.va, 0x445000);
	ck_assert_uint_eq(pg.pa, 0x123000);
	ck_assert_uint_eq(pg.leaf.pa, 0x123000);
	ck_assert(!pt_pages_next(&it, &pg));
	ck_assert_int_eq(pt_context_scan(&g, &st, count_an, &c, NULL), PT_OK);
	ck_assert_uint_eq(c.n[PT_AN_UNSUPPORTED], 1);
	ck_assert_uint_eq(st.pages, 1);
}
END_TEST

/* A 2^27-entry GART with two captured table pages far apart lists fast. */
START_TEST(gart_sparse_table)
{
	static uint8_t page_a[0x1000], page_b[0x1000];
	const uint64_t n = 1ull << 27, base = 0x10000000ull;
	const uint64_t ia = 5, ib = n - 3;          /* captured entries */
	uint64_t pte_a = 0x0600000223886077ull, pte_b = 0x0600000100000077ull;
	struct pt_context g;
	struct pt_table t;
	struct pt_entry e;
	struct pt_page_iter it;
	struct pt_page pg;
	uint64_t i = 0, next;
	unsigned id;

	memset(page_a, 0, sizeof page_a);
	memset(page_b, 0, sizeof page_b);
	for (int k = 0; k < 8; k++) {
		page_a[ia * 8 + k] = (uint8_t)(pte_a >> (8 * k));
		page_b[(ib * 8) % 0x1000 + k] = (uint8_t)(pte_b >> (8 * k));
	}
	pt_mem_free(mem);
	mem = pt_mem_new(2);
	pt_mem_add_built(mem, 0, base, 0x1000, &id);
	pt_mem_region_write(mem, id, 0, page_a, sizeof page_a);
	pt_mem_add_built(mem, 0, base + ((ib * 8) & ~0xfffull), 0x1000, &id);
	pt_mem_region_write(mem, id, 0, page_b, sizeof page_b);
	ck_assert_int_eq(pt_mem_seal(mem, NULL, NULL), PT_OK);
	ck_assert(pt_mem_next(mem, 0, base + 0x1000, &next));
	ck_assert_uint_eq(next, base + ((ib * 8) & ~0xfffull));
	ck_assert(pt_mem_next(mem, 0, base + 8, &next) && next == base + 8);
	ck_assert(!pt_mem_next(mem, 0, base + n * 8, &next));
	ck_assert(!pt_mem_next(mem, 1, 0, &next));

	memset(&g, 0, sizeof g);
	g.name = "gart0";
	g.fmt = &pt_format_gart;
	g.mem = mem;
	g.root_addr = base;
	g.root_entries = n;
	g.root_page_shift = 12;
	g.va_base = 0x7fff00000000ull;
	pt_table_root(&g, &t);
	ck_assert_int_eq(t.cover, PT_COVER_PARTIAL);
	ck_assert(pt_table_next(&t, &i, false, 0, &e, NULL));
	ck_assert_uint_eq(i, ia);
	i++;
	ck_assert(pt_table_next(&t, &i, false, 0, &e, NULL));   /* jumps the 2^27-entry hole */
	ck_assert_uint_eq(i, ib);
	i++;
	ck_assert(!pt_table_next(&t, &i, false, 0, &e, NULL));
	i = 0;
	ck_assert(pt_table_next(&t, &i, true, 0, &e, NULL));
	ck_assert_uint_eq(i, 0);                        /* all_entries lists captured zeros */

	pt_pages_init(&it, &g, 0, NULL);
	ck_assert(pt_pages_next(&it, &pg));
	ck_assert_uint_eq(pg.va, g.va_base + ia * 4096);
	ck_assert_uint_eq(pg.pa, 0x223886000ull);
	ck_assert(pt_pages_next(&it, &pg));
	ck_assert_uint_eq(pg.va, g.va_base + ib * 4096);
	ck_assert_uint_eq(pg.pa, 0x100000000ull);
	ck_assert(!pt_pages_next(&it, &pg));
}
END_TEST

/* ---- states that depend on the entry's place (docs/design.md §4) ---------------- */

static void resolve_path(const int8_t *lv, const uint64_t *ix, unsigned n, struct pt_loc *loc)
{
	struct pt_node node = {.ctx = &ctx, .n = n};

	for (unsigned i = 0; i < n; i++) {
		node.s[i].level = lv[i];
		node.s[i].index = ix[i];
	}
	ck_assert_int_eq(pt_node_resolve(&node, loc), PT_OK);
}

/* A small PTE whose 64 KiB range the big entry decides is shadowed, not mapped. */
START_TEST(state_shadowed)
{
	static const int8_t lv[] = {0, 1, 2, 3, 5};
	uint64_t ix[] = {0, 0, 0, 0, 0};
	struct pt_loc loc;
	struct pt_stats st;
	struct pt_entry e;
	uint64_t i = 0;

	ck_assert_str_eq(pt_state_name(PT_ST_SHADOWED), "shadowed");
	resolve_path(lv, ix, 5, &loc);                 /* under the valid big[0] */
	ck_assert_int_eq(loc.entry.state, PT_ST_SHADOWED);
	ix[4] = 32;                                    /* under big[2], no_valid_4k */
	resolve_path(lv, ix, 5, &loc);
	ck_assert_int_eq(loc.entry.state, PT_ST_SHADOWED);
	ix[4] = 16;                                    /* under big[1] = 0: the small PTE decides */
	resolve_path(lv, ix, 5, &loc);
	ck_assert_int_eq(loc.entry.state, PT_ST_MAPPED);
	/* the listing says the same */
	ck_assert(pt_table_next(&loc.table, &i, false, 0, &e, NULL));
	ck_assert_uint_eq(i, 0);
	ck_assert_int_eq(e.state, PT_ST_SHADOWED);
	i++;
	ck_assert(pt_table_next(&loc.table, &i, false, 0, &e, NULL));
	ck_assert_uint_eq(i, 16);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	/* info's counts per level: one mapped small PTE, one mapped big PTE */
	ck_assert_int_eq(pt_context_scan(&ctx, &st, NULL, NULL, NULL), PT_OK);
	ck_assert_uint_eq(st.mapped[5], 1);
	ck_assert_uint_eq(st.mapped[4], 1);
}
END_TEST

/* A leaf below a pointer with reserved bits: the walk faults there, so not mapped. */
START_TEST(state_reserved_above)
{
	static const int8_t lv[] = {0, 1, 2, 3};
	uint64_t ix[] = {0, 0, 1, 1};
	struct pt_loc loc;
	struct pt_walk w;

	ck_assert_str_eq(pt_state_name(PT_ST_RESERVED_BITS), "reserved_bits");
	resolve_path(lv, ix, 4, &loc);                 /* pde1[1] has bit 60 set */
	ck_assert_int_eq(loc.entry.state, PT_ST_RESERVED_BITS);
	pt_walk_va(&ctx, (1ull << 29) + 0x200000, &w);
	ck_assert_int_eq(w.fault, PT_FAULT_RESERVED_BITS);
	ix[2] = 0;                                     /* the same PD0 through pde1[0] */
	resolve_path(lv, ix, 4, &loc);
	ck_assert_int_eq(loc.entry.state, PT_ST_MAPPED);
}
END_TEST

/* Valid leaves in the tree whose state is mapped, through every pointer. */
static uint64_t count_mapped(const struct pt_table *t, unsigned depth)
{
	struct pt_entry e;
	uint64_t n = 0;

	for (uint64_t i = 0; pt_table_next(t, &i, false, 0, &e, NULL); i++) {
		struct pt_table c;

		n += e.state == PT_ST_MAPPED;
		for (unsigned w = 0; w < 2 && depth + 1 < PT_MAX_DEPTH; w++)
			if (pt_table_child(t, i, &e, w, &c) && c.cover != PT_COVER_NONE)
				n += count_mapped(&c, depth + 1);
	}
	return n;
}

/* `grep -rl "state: mapped"` counts exactly the pages of va/ and info. */
START_TEST(state_mapped_is_pages)
{
	struct pt_table root;
	struct pt_stats st;

	pt_table_root(&ctx, &root);
	ck_assert_int_eq(pt_context_scan(&ctx, &st, NULL, NULL, NULL), PT_OK);
	ck_assert_uint_eq(st.pages, 3);
	ck_assert_uint_eq(count_mapped(&root, 0), st.pages);
}
END_TEST

/* A GART PTE with a reserved bit: the walk faults reserved_bits; its state says so. */
START_TEST(state_reserved_leaf)
{
	static uint8_t tbl[0x1000];
	struct pt_context g;
	struct pt_table t;
	struct pt_entry e;
	struct pt_walk w;
	uint64_t i = 0, p = 0x0600000223886077ull | 1ull << 49;
	unsigned id;

	memset(tbl, 0, sizeof tbl);
	for (int k = 0; k < 8; k++)
		tbl[k] = (uint8_t)(p >> (8 * k));
	pt_mem_free(mem);
	mem = pt_mem_new(2);
	ck_assert_int_eq(pt_mem_add_built(mem, 0, 0x900000, sizeof tbl, &id), PT_OK);
	pt_mem_region_write(mem, id, 0, tbl, sizeof tbl);
	pt_mem_seal(mem, NULL, NULL);
	memset(&g, 0, sizeof g);
	g.name = "gart0";
	g.fmt = &pt_format_gart;
	g.mem = mem;
	g.root_addr = 0x900000;
	g.root_entries = 0x200;
	g.root_page_shift = 12;
	pt_table_root(&g, &t);
	ck_assert(pt_table_next(&t, &i, false, 0, &e, NULL));
	ck_assert_int_eq(e.state, PT_ST_RESERVED_BITS);
	pt_walk_va(&g, 0, &w);
	ck_assert_int_eq(w.fault, PT_FAULT_RESERVED_BITS);
}
END_TEST

/* A root with no captured byte is an anomaly; a partly captured one is not. */
START_TEST(scan_root_not_captured)
{
	struct pt_stats st;
	struct counts c = {{0}};

	ck_assert_str_eq(pt_anomaly_name(PT_AN_ROOT_NOT_CAPTURED), "root_not_captured");
	ctx.root_addr = 0x900000;
	ck_assert_int_eq(pt_context_scan(&ctx, &st, count_an, &c, NULL), PT_OK);
	ck_assert_uint_eq(c.n[PT_AN_ROOT_NOT_CAPTURED], 1);
	ck_assert_uint_eq(st.anomalies, 1);
	ck_assert_uint_eq(st.pages, 0);

	/* 16 of the root's 32 bytes at the end of the captured 0x100000..0x10ffff */
	memset(&c, 0, sizeof c);
	ctx.root_addr = 0x10fff0;
	ck_assert_int_eq(pt_context_scan(&ctx, &st, count_an, &c, NULL), PT_OK);
	ck_assert_uint_eq(c.n[PT_AN_ROOT_NOT_CAPTURED], 0);
}
END_TEST

/* The summary of two decodes of one entry is the same (pt_format.h: summary-only decoding). */
static void summary_eq(const struct pt_entry *a, const struct pt_entry *b, const char *what)
{
	ck_assert_msg(a->state == b->state && a->size == b->size && a->raw[0] == b->raw[0] &&
		      a->raw[1] == b->raw[1] && a->reserved_mask[0] == b->reserved_mask[0] &&
		      a->reserved_mask[1] == b->reserved_mask[1] && a->leaf == b->leaf &&
		      a->space == b->space && a->pa == b->pa &&
		      a->address_complete == b->address_complete && a->page_size == b->page_size &&
		      a->perm == b->perm && a->kind == b->kind && a->anomaly == b->anomaly &&
		      a->anomalies == b->anomalies, "%s: summary differs", what);
	for (unsigned w = 0; w < 2; w++)
		ck_assert_msg(a->target[w].present == b->target[w].present &&
			      a->target[w].level == b->target[w].level &&
			      a->target[w].space == b->target[w].space &&
			      a->target[w].addr == b->target[w].addr &&
			      a->target[w].shift == b->target[w].shift &&
			      a->target[w].bits == b->target[w].bits, "%s: target %u differs", what, w);
}

/*
 * Summary-only decoding (table listings, decode --oneline): for every format
 * and level, on raw values with every bit pattern class, the same summary
 * as a full decode and no field; the switch is per thread and restored.
 */
START_TEST(summary_only_decode)
{
	const struct pt_format *f;
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (unsigned fi = 0; (f = pt_format_at(fi)); fi++) {
		unsigned nl = pt_format_nlevels(f);

		for (unsigned l = 0; l < nl; l++) {
			for (unsigned k = 0; k < 1000; k++) {
				struct pt_entry full, sum;
				uint8_t raw[16];
				char what[96];
				pt_err e1, e2;

				/* xorshift; every 4th value sparse in bits, every 8th a pointer-like bit 0 = 0 */
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				for (int b = 0; b < 16; b++)
					raw[b] = (uint8_t)((x >> (8 * (b & 7))) ^ (uint8_t)(b * 37 + k));
				if (k % 4 == 0)
					for (int b = 0; b < 16; b++)
						raw[b] &= (uint8_t)(x >> b);
				if (k % 8 == 1)
					raw[0] &= 0xfe;
				snprintf(what, sizeof what, "%s level %s value %u", f->name, f->levels[l].name, k);
				e1 = f->decode(l, f->levels[l].va_shift, raw, 0, &full);
				e2 = f->decode(l, f->levels[l].va_shift, raw, PT_DECODE_SUMMARY, &sum);
				ck_assert_int_eq(e1, e2);
				if (e1 != PT_OK)
					continue;
				ck_assert_uint_eq(sum.nfields, 0);
				ck_assert_uint_gt(full.nfields, 0);
				summary_eq(&full, &sum, what);
			}
		}
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("walk");
	TCase *tw = tcase_create("walker");
	TCase *tt = tcase_create("tree");
	TCase *ti = tcase_create("iterator");
	TCase *tg = tcase_create("gart");
	TCase *tsum = tcase_create("summary");

	tcase_add_checked_fixture(tw, build_ver2, teardown);
	tcase_add_checked_fixture(tt, build_ver2, teardown);
	tcase_add_checked_fixture(ti, build_ver2, teardown);
	tcase_add_checked_fixture(tg, build_ver2, teardown);
	tcase_add_test(tw, walk_leaves);
	tcase_add_test(tw, walk_faults);
	tcase_add_test(tw, walk_trace_verdicts);
	tcase_add_test(tw, walk_big_table_bit9);
	tcase_add_test(tw, self_reference_ends);
	tcase_add_test(tt, node_resolve);
	tcase_add_test(tt, table_listing);
	tcase_add_test(tt, va_names);
	tcase_add_test(ti, pages_in_order);
	tcase_add_test(ti, scan_anomalies);
	tcase_add_test(tg, gart_flat);
	tcase_add_test(tg, gart_sparse_table);
	tcase_add_test(tg, gart_vram_bias);
	tcase_add_test(tt, state_shadowed);
	tcase_add_test(tt, state_reserved_above);
	tcase_add_test(tt, state_mapped_is_pages);
	tcase_add_test(tg, state_reserved_leaf);
	tcase_add_test(ti, scan_root_not_captured);
	tcase_add_test(ti, tables_each_once);
	tcase_add_test(ti, tables_sum_changes);
	suite_add_tcase(s, tw);
	suite_add_tcase(s, tt);
	suite_add_tcase(s, ti);
	suite_add_tcase(s, tg);
	tcase_add_test(tsum, summary_only_decode);
	suite_add_tcase(s, tsum);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
