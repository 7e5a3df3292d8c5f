/* SPDX-License-Identifier: MIT */
/*
 * test_amdvi.c — amd-vi (docs/design.md §2.7): the §V.E vectors of
 * docs/design.md §2.6-§2.7 and their sources (§7) composed field by field from §E.1/§E.2
 * (Linux drivers/iommu/amd/amd_iommu_types.h IOMMU_PTE_*, io_pgtable.c
 * PM_LEVEL_*, PAGE_SIZE_PTE; Xen iommu-defs.h struct amd_iommu_dte/_pte),
 * Next Level 7 page sizes (§E.3, AMD IOMMU spec §2.2.3 Table 14 as
 * generic_pt/fmt/amdv1.h cites it) with their replicas listed once, a
 * constructed walk per page size at the §V.E index example, DTE set-up and
 * every [amdvi] key error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_capture.h"
#include "pt_walk.h"
#include "testutil.h"

#define BIT(n) (1ull << (n))
/* Entry fields (§E.2). */
#define PR   BIT(0)
#define AC   BIT(5)
#define DI   BIT(6)
#define NL(n) ((uint64_t)(n) << 9)
#define U    BIT(59)
#define FC   BIT(60)
#define IR   BIT(61)
#define IW   BIT(62)
/* DTE qword 0 (§E.1): V 0, TV 1, Mode 11:9, root 51:12, IR 61, IW 62. */
#define DTE_V  BIT(0)
#define DTE_TV BIT(1)
#define MODE(m) ((uint64_t)(m) << 9)

/* Rows of the Mode-6 table (no context): l6 .. l1; hardware level L is row 6 - L. */
static const unsigned row_shift[] = {57, 48, 39, 30, 21, 12};
#define ROW(l) (6u - (l))

static struct pt_entry dec(unsigned level, uint64_t raw)
{
	const struct pt_format *f = pt_format_find("amd-vi");
	struct pt_entry e;
	uint8_t b[8];

	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(raw >> (8 * i));
	ck_assert_int_eq(f->decode(ROW(level), row_shift[ROW(level)], b, 0, &e), PT_OK);
	return e;
}


START_TEST(ve_entries)
{
	struct pt_entry e;

	/* E04: L3 PDE, NL 2 → level-2 table 0x12341000, IR IW */
	e = dec(3, 0x12341000ull | IW | IR | NL(2) | PR);
	ck_assert_uint_eq(e.raw[0], 0x6000000012341401ull);
	ck_assert_int_eq(e.state, PT_ST_POINTER);
	ck_assert_int_eq(e.target[0].level, ROW(2));
	ck_assert_uint_eq(e.target[0].addr, 0x12341000ull);
	ck_assert_uint_eq(tu_field(&e, "next_level"), 2);
	ck_assert_uint_eq(tu_field(&e, "ir"), 1);
	ck_assert_uint_eq(tu_field(&e, "iw"), 1);
	/* E05: L1 PTE, 4 KiB 0x87654000, FC IR IW */
	e = dec(1, 0x87654000ull | IW | IR | FC | PR);
	ck_assert_uint_eq(e.raw[0], 0x7000000087654001ull);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert_uint_eq(e.pa, 0x87654000ull);
	ck_assert_uint_eq(e.page_size, 4096);
	ck_assert_uint_eq(tu_field(&e, "fc"), 1);
	ck_assert_uint_eq(e.perm, PT_PERM_SNOOPED);
	/* E06: NL 0 at L2 → 2 MiB */
	e = dec(2, 0x80200000ull | IW | IR | PR);
	ck_assert_uint_eq(e.raw[0], 0x6000000080200001ull);
	ck_assert_uint_eq(e.page_size, 2u << 20);
	ck_assert_uint_eq(e.pa, 0x80200000ull);
	/* NL 0 at L3 → 1 GiB, at L4 → 512 GiB, at L5 → 256 TiB */
	ck_assert_uint_eq(dec(3, 0xC0000000ull | IR | PR).page_size, 1ull << 30);
	ck_assert_uint_eq(dec(4, IR | PR | BIT(39)).page_size, 1ull << 39);
	ck_assert_uint_eq(dec(5, IR | PR | BIT(48)).page_size, 1ull << 48);
	/* E11: L2 PDE NL 1, IW only */
	e = dec(2, 0x12343000ull | IW | NL(1) | PR);
	ck_assert_uint_eq(e.raw[0], 0x4000000012343201ull);
	ck_assert_int_eq(e.state, PT_ST_POINTER);
	ck_assert_uint_eq(tu_field(&e, "ir"), 0);
	ck_assert_uint_eq(tu_field(&e, "iw"), 1);
	ck_assert_uint_eq(e.perm, PT_PERM_NO_READ);   /* what it passes down (AND rule) */
	/* E12: reserved bit 52 */
	e = dec(1, 0x87654000ull | BIT(52) | IW | IR | PR);
	ck_assert_uint_eq(e.raw[0], 0x6010000087654001ull);
	ck_assert_uint_eq(e.reserved_mask[0], BIT(52));
	ck_assert_uint_eq(tu_field(&e, "reserved_bits"), 1);
	/* every other field at its bit: A 5, D 6, U 59; ignored 4:1, 8:7, 63 */
	e = dec(1, 0x1000ull | AC | DI | U | BIT(63) | BIT(8) | BIT(1) | IR | PR);
	ck_assert_uint_eq(tu_field(&e, "a"), 1);
	ck_assert_uint_eq(tu_field(&e, "d"), 1);
	ck_assert_uint_eq(tu_field(&e, "u"), 1);
	ck_assert_uint_eq(tu_field(&e, "ignored"), BIT(63) | BIT(8) | BIT(1));
	ck_assert_uint_eq(e.reserved_mask[0], 0);
	ck_assert_uint_eq(e.perm, PT_PERM_NO_WRITE);
	/* PR = 0: invalid, other bits unchecked; zero: unmapped */
	e = dec(1, 0x87654000ull | BIT(52) | IR);
	ck_assert_int_eq(e.state, PT_ST_INVALID);
	ck_assert_uint_eq(e.reserved_mask[0], 0);
	ck_assert_int_eq(dec(1, 0).state, PT_ST_UNMAPPED);
}
END_TEST

START_TEST(ve_special)
{
	struct pt_entry e;

	/* E07: NL 7, bit 12 = 0 → 8 KiB at 0x10000 */
	e = dec(1, 0x10000ull | FC | IR | IW | NL(7) | PR);
	ck_assert_uint_eq(e.raw[0], 0x7000000000010E01ull);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert_uint_eq(e.page_size, 8192);
	ck_assert_uint_eq(e.pa, 0x10000ull);
	/* E08: bits 13:12 = 11, bit 14 = 0 → 32 KiB at 0x40000 */
	e = dec(1, 0x40000ull | 0x3000 | FC | IR | IW | NL(7) | PR);
	ck_assert_uint_eq(e.raw[0], 0x7000000000043E01ull);
	ck_assert_uint_eq(e.page_size, 32768);
	ck_assert_uint_eq(e.pa, 0x40000ull);
	ck_assert_uint_eq(tu_field(&e, "address"), 0x40000ull);
	/* E09: L2, bits 20:12 ones, 21 zero → 4 MiB at 0x400000 */
	e = dec(2, 0x400000ull | 0x1ff000 | FC | IR | IW | NL(7) | PR);
	ck_assert_uint_eq(e.raw[0], 0x70000000005FFE01ull);
	ck_assert_uint_eq(e.page_size, 4u << 20);
	ck_assert_uint_eq(e.pa, 0x400000ull);
	/* 1 MiB, the largest at L1 (bits 18:12 ones, 19 zero) */
	e = dec(1, 0x7f000ull | IR | NL(7) | PR);
	ck_assert_uint_eq(e.page_size, 1u << 20);
	ck_assert_uint_eq(e.pa, 0);
	/* a size that is not between the level's and the next level's: unsupported */
	ck_assert_int_eq(dec(1, 0xff000ull | IR | NL(7) | PR).state, PT_ST_UNSUPPORTED);   /* 2 MiB at L1 */
	ck_assert_int_eq(dec(2, 0x10000ull | IR | NL(7) | PR).state, PT_ST_UNSUPPORTED);   /* 8 KiB at L2 */
	ck_assert_int_eq(dec(1, 0x000ffffffffff000ull | IR | NL(7) | PR).state, PT_ST_UNSUPPORTED);
	/* no translation entry at l6 (amdv1.h, spec Table 15) */
	ck_assert_int_eq(dec(6, IR | PR).state, PT_ST_UNSUPPORTED);
	ck_assert_int_eq(dec(6, 0x3000ull | IR | NL(7) | PR).state, PT_ST_UNSUPPORTED);
	ck_assert_int_eq(dec(6, 0x3000ull | IR | NL(5) | PR).state, PT_ST_POINTER);
	/* E10: NL 2 at L4 skips L3: a pointer to an L2 table, two rows down, skipped_levels 1 */
	e = dec(4, 0x12342000ull | IW | IR | NL(2) | PR);
	ck_assert_uint_eq(e.raw[0], 0x6000000012342401ull);
	ck_assert_int_eq(e.state, PT_ST_POINTER);
	ck_assert_int_eq(e.target[0].level, ROW(2));
	ck_assert_uint_eq(e.target[0].addr, 0x12342000ull);
	ck_assert_uint_eq(tu_field(&e, "skipped_levels"), 1);
	ck_assert_uint_eq(tu_field(&e, "next_level"), 2);
	/* NL 1 at L5 skips three levels; a pointer one level down has no skipped_levels */
	e = dec(5, 0x3000ull | IR | NL(1) | PR);
	ck_assert_int_eq(e.target[0].level, ROW(1));
	ck_assert_uint_eq(tu_field(&e, "skipped_levels"), 3);
	e = dec(5, 0x3000ull | IR | NL(4) | PR);
	ck_assert_ptr_null(pt_entry_field(&e, "skipped_levels"));
	/* NL pointing up or at its own level */
	ck_assert_int_eq(dec(2, 0x3000ull | IR | NL(2) | PR).state, PT_ST_UNSUPPORTED);
	ck_assert_int_eq(dec(2, 0x3000ull | IR | NL(5) | PR).state, PT_ST_UNSUPPORTED);
}
END_TEST

/* ---- captures ----------------------------------------------------------------- */

#define MEMSZ 0x6000
static uint8_t mem[MEMSZ];

static void put(uint64_t pa, uint64_t v)
{
	tu_put64(mem, sizeof mem, pa, v);
}

static struct tu_cap load(const char *sections)
{
	return tu_cap_load("amd-vi", 0, mem, sizeof mem, sections);
}


/*
 * Mode 3 at the §V.E index example: IOVA 0x4012345000 = L3 0x100, L2 0x091,
 * L1 0x145.  L3 0x1000 → L2 0x2000 → L1 0x3000.  Pages: 4K at L1 0x145,
 * 32K (NL 7) in L1 0x10-0x17, 8K in L1 0x20-0x21, 4M (NL 7) in L2
 * 0x92-0x93, 2M at L2 0x94, 1G at L3 0x101.
 */
static void build_tables(void)
{
	memset(mem, 0, sizeof mem);
	put(0x1000 + 8 * 0x100, 0x2000 | IR | IW | NL(2) | PR);
	put(0x1000 + 8 * 0x101, 0xC0000000ull | IR | IW | PR);
	put(0x2000 + 8 * 0x91, 0x3000 | IR | IW | NL(1) | PR);
	for (unsigned i = 0x92; i <= 0x93; i++)
		put(0x2000 + 8 * i, 0x70000000005FFE01ull);
	put(0x2000 + 8 * 0x94, 0x6000000080200001ull);
	put(0x3000 + 8 * 0x145, 0x7000000087654001ull);
	for (unsigned i = 0x10; i <= 0x17; i++)
		put(0x3000 + 8 * i, 0x7000000000043E01ull);
	for (unsigned i = 0x20; i <= 0x21; i++)
		put(0x3000 + 8 * i, 0x7000000000010E01ull);
}

#define L3I(i) ((uint64_t)(i) << 30)
#define L2I(i) ((uint64_t)(i) << 21)
#define L1I(i) ((uint64_t)(i) << 12)

static void walk_ok(const struct pt_context *ctx, uint64_t va, uint64_t pa, uint64_t page_va,
		    uint64_t size)
{
	struct pt_walk w;

	ck_assert_int_eq(pt_walk_va(ctx, va, &w), PT_OK);
	ck_assert_msg(w.fault == PT_FAULT_NONE, "va 0x%" PRIx64 ": %s", va, pt_fault_name(w.fault));
	ck_assert_uint_eq(w.pa, pa);
	ck_assert_uint_eq(w.page_va, page_va);
	ck_assert_uint_eq(w.page_size, size);
}

START_TEST(ve_walks)
{
	struct tu_cap k;
	const struct pt_context *ctx;
	struct pt_walk w;
	uint64_t base = L3I(0x100) | L2I(0x91);

	build_tables();
	/* E01: V, TV, Mode 3, root (here 0x1000), IR, IW */
	k = load("[amdvi d0]\ndte = 0x6000000000001603\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ctx = pt_capture_context(k.c, 0);
	ck_assert_str_eq(ctx->fmt->levels[0].name, "l3");
	ck_assert_uint_eq(ctx->fmt->va_bits, 39);
	ck_assert_uint_eq(ctx->root_addr, 0x1000);
	/* the index example, 4K */
	ck_assert_int_eq(pt_walk_va(ctx, 0x0000004012345000ull, &w), PT_OK);
	ck_assert_uint_eq(w.nsteps, 3);
	ck_assert_uint_eq(w.steps[0].index, 0x100);
	ck_assert_uint_eq(w.steps[1].index, 0x091);
	ck_assert_uint_eq(w.steps[2].index, 0x145);
	walk_ok(ctx, 0x0000004012345abcull, 0x87654abcull, 0x4012345000ull, 4096);
	/* 32K through its first and its sixth slot */
	walk_ok(ctx, base | L1I(0x10) | 0x10, 0x40010, base | L1I(0x10), 32768);
	walk_ok(ctx, base | L1I(0x15) | 0x123, 0x45123, base | L1I(0x10), 32768);
	/* the hardware reads slot 0x15; the leaf's tree path is the page's first slot (va/ link) */
	ck_assert_int_eq(pt_walk_va(ctx, base | L1I(0x15), &w), PT_OK);
	ck_assert_uint_eq(w.steps[2].index, 0x15);
	ck_assert_uint_eq(w.node.s[2].index, 0x10);
	/* 8K, second slot */
	walk_ok(ctx, base | L1I(0x21) | 0x8, 0x11008, base | L1I(0x20), 8192);
	/* 4M through the second L2 slot; 2M; 1G */
	walk_ok(ctx, L3I(0x100) | L2I(0x93) | 0x5, 0x600005, L3I(0x100) | L2I(0x92), 4u << 20);
	walk_ok(ctx, L3I(0x100) | L2I(0x94) | 0x777, 0x80200777, L3I(0x100) | L2I(0x94), 2u << 20);
	walk_ok(ctx, L3I(0x101) | 0x1234567, 0xC1234567ull, L3I(0x101), 1u << 30);
	/* beyond Mode 3's 39 bits */
	ck_assert_int_eq(pt_walk_va(ctx, 1ull << 39, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_OUT_OF_RANGE);

	/* the page iterator lists each page once, with its size */
	{
		struct pt_page_iter it;
		struct pt_page pg;
		const uint64_t want_va[] = {
			base | L1I(0x10), base | L1I(0x20), base | L1I(0x145),
			L3I(0x100) | L2I(0x92), L3I(0x100) | L2I(0x94), L3I(0x101),
		};
		const uint64_t want_size[] = {32768, 8192, 4096, 4u << 20, 2u << 20, 1u << 30};
		unsigned n = 0;

		pt_pages_init(&it, ctx, 0, NULL);
		while (pt_pages_next(&it, &pg)) {
			ck_assert_uint_lt(n, 6);
			ck_assert_uint_eq(pg.va, want_va[n]);
			ck_assert_uint_eq(pg.size, want_size[n]);
			n++;
		}
		ck_assert_uint_eq(n, 6);
	}
	/* a replica slot reads `replica` in the tree, its first slot `mapped` */
	{
		struct pt_node node = {.ctx = ctx, .n = 3};
		struct pt_loc loc;

		node.s[0].level = 0;
		node.s[0].index = 0x100;
		node.s[1].level = 1;
		node.s[1].index = 0x91;
		node.s[2].level = 2;
		node.s[2].index = 0x13;
		ck_assert_int_eq(pt_node_resolve(&node, &loc), PT_OK);
		ck_assert_int_eq(loc.entry.state, PT_ST_REPLICA);
		node.s[2].index = 0x10;
		ck_assert_int_eq(pt_node_resolve(&node, &loc), PT_OK);
		ck_assert_int_eq(loc.entry.state, PT_ST_MAPPED);
	}
	tu_cap_free(&k);

	/* mode + root: the same tables; Mode 2 roots at the L2 table, 30-bit IOVAs */
	k = load("[amdvi d0]\nmode = 2\nroot = 0x2000\noutput_space = hpa\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ctx = pt_capture_context(k.c, 0);
	ck_assert_str_eq(ctx->fmt->levels[0].name, "l2");
	ck_assert_uint_eq(ctx->fmt->va_digits, 8);
	walk_ok(ctx, L2I(0x91) | L1I(0x145), 0x87654000ull, L2I(0x91) | L1I(0x145), 4096);
	ck_assert_int_eq(pt_walk_va(ctx, L2I(0x94), &w), PT_OK);
	ck_assert_str_eq(ctx->fmt->spaces[w.space], "hpa");
	tu_cap_free(&k);

	/* Mode 6: a 128-entry l6 root */
	k = load("[amdvi d0]\nmode = 6\nroot = 0x4000\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ctx = pt_capture_context(k.c, 0);
	ck_assert_str_eq(ctx->fmt->levels[0].name, "l6");
	ck_assert_uint_eq(ctx->root_entries, 128);
	tu_cap_free(&k);
}
END_TEST

/*
 * Level skipping (spec §2.2.3; E10): a Mode 4 root whose L4 entry 1 has
 * Next Level 2 points straight at an L2 table.  That table covers the
 * IOVAs of L4 entry 1 whose L3 index bits (38:30) are zero; any other IOVA
 * of the entry faults at the pointer.  The tree names the table by its own
 * level: l4/1/l2/5, no l3 directory.
 */
START_TEST(ve_skip)
{
	struct tu_cap k;
	const struct pt_context *ctx;
	struct pt_walk w;
	const uint64_t l4 = 1ull << 39;
	char path[128];

	memset(mem, 0, sizeof mem);
	put(0x1000 + 8 * 1, 0x2000 | IR | IW | NL(2) | PR);      /* L4[1] → L2 table at 0x2000 */
	put(0x2000 + 8 * 5, 0x3000 | IR | IW | NL(1) | PR);      /* L2[5] → L1 table */
	put(0x3000 + 8 * 7, 0x87654000ull | IR | IW | PR);       /* a 4K page */
	put(0x2000 + 8 * 6, 0x80200000ull | IR | PR);            /* a 2M page, read-only */
	k = load("[amdvi d0]\nmode = 4\nroot = 0x1000\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ctx = pt_capture_context(k.c, 0);
	walk_ok(ctx, l4 | L2I(5) | L1I(7) | 0x12, 0x87654012ull, l4 | L2I(5) | L1I(7), 4096);
	ck_assert_int_eq(pt_walk_va(ctx, l4 | L2I(5) | L1I(7), &w), PT_OK);
	ck_assert_uint_eq(w.nsteps, 3);
	ck_assert_str_eq(ctx->fmt->levels[w.steps[1].table.level].name, "l2");
	pt_node_path(&w.node, path, sizeof path);
	ck_assert_str_eq(path, "l4/1/l2/5/l1/7");
	walk_ok(ctx, l4 | L2I(6) | 0x1234, 0x80201234ull, l4 | L2I(6), 2u << 20);
	ck_assert_uint_eq(w.perm & PT_PERM_NO_WRITE, 0);
	ck_assert_int_eq(pt_walk_va(ctx, l4 | L2I(6), &w), PT_OK);
	ck_assert_uint_eq(w.perm & PT_PERM_NO_WRITE, PT_PERM_NO_WRITE);
	/* L3 index bits not zero: the IOMMU faults at the skipping pointer */
	ck_assert_int_eq(pt_walk_va(ctx, l4 | L3I(1) | L2I(5) | L1I(7), &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_UNMAPPED);
	ck_assert_uint_eq(w.nsteps, 1);
	ck_assert_int_eq(w.fault_step, 0);
	ck_assert_ptr_nonnull(strstr(w.steps[0].verdict, "skipped levels"));
	/* the page iterator lists the two pages at their IOVAs */
	{
		struct pt_page_iter it;
		struct pt_page pg;
		unsigned n = 0;

		pt_pages_init(&it, ctx, 0, NULL);
		while (pt_pages_next(&it, &pg)) {
			ck_assert_uint_lt(n, 2);
			ck_assert_uint_eq(pg.va, n == 0 ? (l4 | L2I(5) | L1I(7)) : (l4 | L2I(6)));
			n++;
		}
		ck_assert_uint_eq(n, 2);
	}
	/* the tree path resolves through the skip */
	{
		struct pt_node node = {.ctx = ctx, .n = 3};
		struct pt_loc loc;

		node.s[0].level = 0;
		node.s[0].index = 1;
		node.s[1].level = 2;
		node.s[1].index = 5;
		node.s[2].level = 3;
		node.s[2].index = 7;
		ck_assert_int_eq(pt_node_resolve(&node, &loc), PT_OK);
		ck_assert_int_eq(loc.entry.state, PT_ST_MAPPED);
		ck_assert_uint_eq(loc.entry.pa, 0x87654000ull);
		node.s[1].level = 1;   /* l3: not on this path */
		ck_assert_int_eq(pt_node_resolve(&node, &loc), PT_E_NOTFOUND);
	}
	tu_cap_free(&k);
}
END_TEST

/*
 * IR and IW are ANDed over the path, the DTE's included (spec §2.2.3 via
 * Linux generic_pt/fmt/amdv1.h; QEMU amd_iommu.c).  E11: an L2 PDE with IW
 * only denies reads for the 2 MiB below it, though the leaf sets IR.
 */
START_TEST(ve_rights)
{
	struct tu_cap k;
	const struct pt_context *ctx;
	struct pt_walk w;
	char flags[PT_FLAGS_LEN];
	const uint64_t va = 0x0000004012345000ull;

	build_tables();
	put(0x2000 + 8 * 0x91, 0x4000000000003201ull);   /* E11 with the table at 0x3000 */
	k = load("[amdvi d0]\ndte = 0x6000000000001603\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ctx = pt_capture_context(k.c, 0);
	ck_assert_int_eq(pt_walk_va(ctx, va, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_NONE);
	ck_assert_uint_eq(w.perm & (PT_PERM_NO_READ | PT_PERM_NO_WRITE), PT_PERM_NO_READ);
	pt_format_flags(ctx->fmt, &w.steps[2].entry, flags, sizeof flags);
	ck_assert_str_eq(flags, "iw,fc");
	/* the 2 MiB page beside that PDE keeps IR|IW */
	ck_assert_int_eq(pt_walk_va(ctx, L3I(0x100) | L2I(0x94), &w), PT_OK);
	ck_assert_uint_eq(w.perm & (PT_PERM_NO_READ | PT_PERM_NO_WRITE), 0);
	tu_cap_free(&k);

	/* a DTE without IW (bit 62): every page of the device is read-only */
	build_tables();
	k = load("[amdvi d0]\ndte = 0x2000000000001603\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ctx = pt_capture_context(k.c, 0);
	ck_assert_int_eq(pt_walk_va(ctx, va, &w), PT_OK);
	ck_assert_uint_eq(w.perm & (PT_PERM_NO_READ | PT_PERM_NO_WRITE), PT_PERM_NO_WRITE);
	ck_assert_int_eq(pt_walk_va(ctx, L3I(0x101), &w), PT_OK);
	ck_assert_uint_eq(w.perm & (PT_PERM_NO_READ | PT_PERM_NO_WRITE), PT_PERM_NO_WRITE);
	tu_cap_free(&k);
	/* mode + root: no DTE, nothing denied above the tables */
	k = load("[amdvi d0]\nmode = 3\nroot = 0x1000\n");
	ctx = pt_capture_context(k.c, 0);
	ck_assert_int_eq(pt_walk_va(ctx, va, &w), PT_OK);
	ck_assert_uint_eq(w.perm & (PT_PERM_NO_READ | PT_PERM_NO_WRITE), 0);
	tu_cap_free(&k);
}
END_TEST

/*
 * E02: DTE Mode 0 translates nothing: a pass-through aperture of every
 * address (QEMU amd_iommu.c "no translation"), `blocked` with IR = IW = 0.
 */
START_TEST(ve_pass)
{
	struct tu_cap k;
	const struct pt_context *ctx;
	struct pt_walk w;

	build_tables();
	k = load("[amdvi d0]\ndte = 0x6000000000000003\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ctx = pt_capture_context(k.c, 0);
	ck_assert_int_eq(pt_walk_va(ctx, 0xfedcba987654321ull, &w), PT_OK);
	ck_assert(pt_walk_aperture_hit(&w));
	ck_assert_str_eq(w.aperture.name, "pass-through");
	ck_assert_uint_eq(w.aperture.pa, 0xfedcba987654321ull);
	tu_cap_free(&k);
	k = load("[amdvi d0]\ndte = 0x0000000000000003\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ck_assert_int_eq(pt_walk_va(pt_capture_context(k.c, 0), 0x1000, &w), PT_OK);
	ck_assert(!pt_walk_aperture_hit(&w));
	ck_assert_str_eq(w.aperture.name, "blocked");
	tu_cap_free(&k);
}
END_TEST

static void key_err(const char *body, pt_err want, const char *msg)
{
	struct tu_cap k = load(body);

	tu_cap_refused(&k, body, want, msg);
}

START_TEST(key_errors)
{
	memset(mem, 0, sizeof mem);
	key_err("[amdvi d]\n", PT_E_VALUE, "missing key 'dte (or mode and root)'");
	key_err("[amdvi d]\nmode = 3\n", PT_E_VALUE, "missing key 'root'");
	key_err("[amdvi d]\nmode = 7\nroot = 0x1000\n", PT_E_VALUE,
		"mode 7 in [amdvi d]: the number of levels is 1 to 6");
	key_err("[amdvi d]\nmode = 0\nroot = 0x1000\n", PT_E_VALUE, "mode 0 in [amdvi d]");
	key_err("[amdvi d]\nmode = 3\nroot = 0x1008\n", PT_E_VALUE,
		"root 0x1008 is not a 4 KiB aligned address");
	/* E03: V, TV = 0 */
	key_err("[amdvi d]\ndte = 0x0000000000000001\n", PT_E_VALUE, "has TV=0: no page table");
	key_err("[amdvi d]\ndte = 0x6000000000001602\n", PT_E_VALUE, "is not valid (V=0)");
	key_err("[amdvi d]\ndte = 0x6000000000001e03\n", PT_E_UNSUPPORTED, "Mode 7");
	key_err("[amdvi d]\ndte = 0x6000000000001603\nmode = 3\n", PT_E_VALUE,
		"dte and mode/root both given");
	key_err("[amdvi d]\ndte = 0x6000000000001603\nspace = vidmem\n", PT_E_VALUE,
		"space 'vidmem' in [amdvi d] is not a space of amd-vi (sysmem, hpa, gpa)");
	key_err("[amdvi d]\ndte = 0x6000000000001603\nlevels = 3\n", PT_E_VALUE,
		"unknown key 'levels' in [amdvi d]");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("amdvi");
	TCase *tc;

	tc = tcase_create("entries");
	tcase_add_test(tc, ve_entries);
	tcase_add_test(tc, ve_special);
	suite_add_tcase(s, tc);

	tc = tcase_create("walk");
	tcase_add_test(tc, ve_walks);
	tcase_add_test(tc, ve_rights);
	tcase_add_test(tc, ve_skip);
	tcase_add_test(tc, ve_pass);
	suite_add_tcase(s, tc);

	tc = tcase_create("keys");
	tcase_add_test(tc, key_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
