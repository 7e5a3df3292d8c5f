/* SPDX-License-Identifier: MIT */
/*
 * test_arm64.c — the arm64 format (docs/design.md §2.6): every descriptor
 * field composed bit by bit from the Arm ARM D8.2 descriptor layouts as
 * Linux arch/arm64/include/asm/pgtable-hwdef.h and kvm_pgtable.h name them
 * (PTE_ATTRINDX 4:2, PTE_NS 5, PTE_USER 6, PTE_RDONLY 7, PTE_SHARED 9:8,
 * PTE_AF 10, PTE_NG 11, PTE_GP 50, PTE_DBM 51, PTE_CONT 52, PTE_PXN 53,
 * PTE_UXN 54; PMD_TABLE_PXN 59, _UXN 60, _AP 62:61, _NS 63; stage 2
 * MemAttr 5:2, S2AP 7:6, XN 54:53), the special encodings (a level-3
 * 01, a block the granule has none of, the LPA and LPA2 high address
 * bits, an output above the output size), a constructed walk per granule
 * and page size (4K: 4K/2M/1G, 16K: 16K/32M, 64K: 64K/512M, 64K LPA,
 * 4K LPA2 52-bit with its level -1 and 512G block), TTBR1's canonical
 * names, the hierarchical controls (APTable, PXNTable, UXNTable, NSTable,
 * TCR.HPD), stage 2 with concatenated start tables (QEMU target/arm/ptw.c
 * check_s2_mmu_setup) and every [arm64] key error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_capture.h"
#include "pt_walk.h"
#include "testutil.h"

#define BIT(n) ((uint64_t)1 << (n))

/* Stage-1 descriptor fields (Arm ARM D8.2; pgtable-hwdef.h). */
#define VALID     BIT(0)
#define TYPE      BIT(1)               /* table (levels 0-2) or page (level 3) */
#define ATTR(n)   ((uint64_t)(n) << 2)
#define NS        BIT(5)
#define AP(n)     ((uint64_t)(n) << 6) /* AP[2:1] */
#define SH(n)     ((uint64_t)(n) << 8)
#define AF        BIT(10)
#define NG        BIT(11)
#define GP        BIT(50)
#define DBM       BIT(51)
#define CONT      BIT(52)
#define PXN       BIT(53)
#define UXN       BIT(54)
#define SW(n)     ((uint64_t)(n) << 55)
#define PXNT      BIT(59)
#define UXNT      BIT(60)
#define APT(n)    ((uint64_t)(n) << 61)
#define NST       BIT(63)
/* Stage 2 (kvm_pgtable.h KVM_PTE_LEAF_ATTR_*) */
#define MEMATTR(n) ((uint64_t)(n) << 2)
#define S2AP(n)   ((uint64_t)(n) << 6)
#define XN(n)     ((uint64_t)(n) << 53)

#define PAGE  (VALID | TYPE)
#define BLOCK VALID
#define TABLE (VALID | TYPE)

/* The default decoder's rows: l0 l1 l2 l3 (4 KiB granule, 48-bit). */
enum { L0, L1, L2, L3 };
static const unsigned row_shift[] = {39, 30, 21, 12};

static struct pt_entry dec_with(const struct pt_format *f, unsigned row, unsigned shift,
				uint64_t raw)
{
	struct pt_entry e;
	uint8_t b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(raw >> (8 * i));
	ck_assert_int_eq(f->decode(row, shift, b, 0, &e), PT_OK);
	return e;
}

static struct pt_entry dec(unsigned row, uint64_t raw)
{
	const struct pt_format *f = pt_format_find("arm64");

	ck_assert_ptr_nonnull(f);
	return dec_with(f, row, row_shift[row], raw);
}


/* ---- vectors (the §V.A table of the reference, composed from the fields) ---- */

START_TEST(s1_vectors)
{
	struct pt_entry e;

	/* A01: page 0x41234000, AttrIndx 0, AP 00, SH 11, AF, DBM, PXN, UXN, sw bit 55 */
	e = dec(L3, 0x41234000ull | PAGE | SH(3) | AF | DBM | PXN | UXN | SW(1));
	ck_assert_uint_eq(e.raw[0], 0x00E8000041234703ull);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert_uint_eq(e.pa, 0x41234000ull);
	ck_assert_uint_eq(e.page_size, 4096);
	ck_assert_uint_eq(tu_field(&e, "valid"), 1);
	ck_assert_uint_eq(tu_field(&e, "table"), 1);
	ck_assert_uint_eq(tu_field(&e, "attr_index"), 0);
	ck_assert_uint_eq(tu_field(&e, "ap_user"), 0);
	ck_assert_uint_eq(tu_field(&e, "ap_rdonly"), 0);
	ck_assert_uint_eq(tu_field(&e, "sh"), 3);
	ck_assert_uint_eq(tu_field(&e, "af"), 1);
	ck_assert_uint_eq(tu_field(&e, "ng"), 0);
	ck_assert_uint_eq(tu_field(&e, "dbm"), 1);
	ck_assert_uint_eq(tu_field(&e, "pxn"), 1);
	ck_assert_uint_eq(tu_field(&e, "uxn"), 1);
	ck_assert_uint_eq(tu_field(&e, "sw"), 1);
	ck_assert_uint_eq(e.reserved_mask[0], 0);
	/* AP 00: EL1 read-write, no EL0 access */
	ck_assert_uint_eq(e.perm, PT_PERM_PRIVILEGE | PT_PERM_PXN | PT_PERM_UXN);
	ck_assert_int_eq(e.kind, 0);

	/* A02: AP 11 (read-only at EL0 and EL1) + DBM, nG, PXN, UXN, AttrIndx 0 */
	e = dec(L3, 0x7F001000ull | PAGE | AP(3) | SH(3) | AF | NG | DBM | PXN | UXN);
	ck_assert_uint_eq(e.raw[0], 0x006800007F001FC3ull);
	ck_assert_uint_eq(e.pa, 0x7F001000ull);
	ck_assert_uint_eq(tu_field(&e, "ap_user"), 1);
	ck_assert_uint_eq(tu_field(&e, "ap_rdonly"), 1);
	ck_assert_uint_eq(tu_field(&e, "ng"), 1);
	ck_assert_uint_eq(e.perm, PT_PERM_NO_WRITE | PT_PERM_PXN | PT_PERM_UXN);

	/* A03: a 2 MiB block, UXN only: EL1-executable */
	e = dec(L2, 0x80200000ull | BLOCK | SH(3) | AF | UXN);
	ck_assert_uint_eq(e.raw[0], 0x0040000080200701ull);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert_uint_eq(e.page_size, 2u << 20);
	ck_assert_uint_eq(tu_field(&e, "table"), 0);
	ck_assert_uint_eq(e.perm, PT_PERM_PRIVILEGE | PT_PERM_UXN);

	/* A04: a 1 GiB block, AttrIndx 1, SH 00, PXN, UXN */
	e = dec(L1, 0xC0000000ull | BLOCK | ATTR(1) | AF | PXN | UXN);
	ck_assert_uint_eq(e.raw[0], 0x00600000C0000405ull);
	ck_assert_uint_eq(e.page_size, 1u << 30);
	ck_assert_uint_eq(tu_field(&e, "attr_index"), 1);
	ck_assert_int_eq(e.kind, 1);

	/* A05: a table at every level but 3 */
	for (unsigned l = L0; l <= L2; l++) {
		e = dec(l, 0x41000000ull | TABLE);
		ck_assert_int_eq(e.state, PT_ST_POINTER);
		ck_assert_uint_eq(e.target[0].addr, 0x41000000ull);
		ck_assert_uint_eq(e.perm, 0);
	}

	/* A06: NSTable, APTable 01 (no EL0 below), PXNTable */
	e = dec(L1, 0x41001000ull | TABLE | NST | APT(1) | PXNT);
	ck_assert_uint_eq(e.raw[0], 0xA800000041001003ull);
	ck_assert_uint_eq(tu_field(&e, "ns_table"), 1);
	ck_assert_uint_eq(tu_field(&e, "ap_table"), 1);
	ck_assert_uint_eq(tu_field(&e, "pxn_table"), 1);
	ck_assert_uint_eq(tu_field(&e, "uxn_table"), 0);
	ck_assert_uint_eq(e.perm, PT_PERM_NS | PT_PERM_PRIVILEGE | PT_PERM_PXN);
	e = dec(L1, 0x41001000ull | TABLE | UXNT | APT(2));
	ck_assert_uint_eq(e.perm, PT_PERM_UXN | PT_PERM_NO_WRITE);

	/* A07: 01 at level 3 is reserved; A08: a block at level 0 without DS */
	e = dec(L3, 0x41234000ull | BLOCK);
	ck_assert_uint_eq(e.raw[0], 0x0000000041234001ull);
	ck_assert_int_eq(e.state, PT_ST_UNSUPPORTED);
	e = dec(L0, 0x8000000000ull | BLOCK | AF);
	ck_assert_uint_eq(e.raw[0], 0x0000008000000401ull);
	ck_assert_int_eq(e.state, PT_ST_UNSUPPORTED);

	/* A10: Contiguous */
	e = dec(L3, 0x41230000ull | PAGE | SH(3) | AF | CONT);
	ck_assert_uint_eq(e.raw[0], 0x0010000041230703ull);
	ck_assert_uint_eq(tu_field(&e, "contiguous"), 1);

	/* A13-A15: bit 0 clear is invalid whatever else is set (Linux PROT_NONE, swap) */
	e = dec(L3, 0x0060000041234F82ull);
	ck_assert_int_eq(e.state, PT_ST_INVALID);
	ck_assert_uint_eq(tu_field(&e, "valid"), 0);
	e = dec(L3, 0x0460000041234F82ull);
	ck_assert_int_eq(e.state, PT_ST_INVALID);
	e = dec(L3, 0x0000000001234080ull);
	ck_assert_int_eq(e.state, PT_ST_INVALID);
	e = dec(L3, 0);
	ck_assert_int_eq(e.state, PT_ST_UNMAPPED);
}
END_TEST

START_TEST(s1_fields)
{
	struct pt_entry e;

	/* each leaf field alone, at its bits */
	e = dec(L3, PAGE | ATTR(7) | NS | AP(2) | GP | SW(0xf) | (0xfull << 59) | BIT(63));
	ck_assert_uint_eq(tu_field(&e, "attr_index"), 7);
	ck_assert_uint_eq(tu_field(&e, "ns"), 1);
	ck_assert_uint_eq(tu_field(&e, "ap_user"), 0);
	ck_assert_uint_eq(tu_field(&e, "ap_rdonly"), 1);
	ck_assert_uint_eq(tu_field(&e, "gp"), 1);
	ck_assert_uint_eq(tu_field(&e, "sw"), 0xf);
	ck_assert_uint_eq(tu_field(&e, "pbha"), 0xf);
	ck_assert_uint_eq(tu_field(&e, "ignored"), BIT(63));
	ck_assert_uint_eq(e.reserved_mask[0], 0);
	ck_assert_uint_eq(e.perm, PT_PERM_NO_WRITE | PT_PERM_PRIVILEGE | PT_PERM_NS);
	/* AP 01: EL0 read-write, so never EL1-executable (Arm ARM D8.4.1; QEMU get_S1prot) */
	e = dec(L3, PAGE | AP(1));
	ck_assert_uint_eq(e.perm, PT_PERM_PXN);
	/* OA bits 49:48 without DS are not address (QEMU: 47:grain): reserved */
	e = dec(L3, PAGE | BIT(48));
	ck_assert_uint_eq(e.reserved_mask[0], BIT(48));
	/* a block's bits below its size are RES0: a 2 MiB block with bit 12 */
	e = dec(L2, BLOCK | 0x80201000ull);
	ck_assert_uint_eq(e.reserved_mask[0], BIT(12));
	ck_assert_uint_eq(e.pa, 0x80200000ull);
	/* table: ignored 11:2 and 58:51, RES0 50:48 */
	e = dec(L1, TABLE | 0xffcull | 0x41000000ull);
	ck_assert_uint_eq(tu_field(&e, "ignored"), 0xffcull);
	ck_assert_uint_eq(e.reserved_mask[0], 0);
	e = dec(L1, TABLE | (0xffull << 51));
	ck_assert_uint_eq(tu_field(&e, "ignored_high"), 0xffull << 51);
	ck_assert_uint_eq(e.reserved_mask[0], 0);
	e = dec(L1, TABLE | BIT(50));
	ck_assert_uint_eq(e.reserved_mask[0], BIT(50));
}
END_TEST

/* ---- captures --------------------------------------------------------------- */

#define MEMSZ 0x400000
static uint8_t mem[MEMSZ];

static void put(uint64_t pa, uint64_t v)
{
	tu_put64(mem, sizeof mem, pa, v);
}

static struct tu_cap load(const char *sections)
{
	return tu_cap_load("arm64", 0, mem, sizeof mem, sections);
}

static const struct pt_context *ctx_of(struct tu_cap *k)
{
	ck_assert_msg(k->rc == PT_OK, "%s", pt_capture_error(k->c));
	return pt_capture_context(k->c, 0);
}


static struct pt_walk walk_ok(const struct pt_context *ctx, uint64_t va, uint64_t pa,
			      uint64_t size, unsigned steps, const char *leaf_level)
{
	struct pt_walk w;

	ck_assert_int_eq(pt_walk_va(ctx, va, &w), PT_OK);
	ck_assert_msg(w.fault == PT_FAULT_NONE, "va 0x%" PRIx64 ": fault %s", va,
		      pt_fault_name(w.fault));
	ck_assert_uint_eq(w.pa, pa);
	ck_assert_uint_eq(w.page_size, size);
	ck_assert_uint_eq(w.nsteps, steps);
	ck_assert_str_eq(ctx->fmt->levels[w.steps[w.leaf_step].table.level].name, leaf_level);
	return w;
}

static void walk_fault(const struct pt_context *ctx, uint64_t va, enum pt_fault want)
{
	struct pt_walk w;

	ck_assert_int_eq(pt_walk_va(ctx, va, &w), PT_OK);
	ck_assert_msg(w.fault == want, "va 0x%" PRIx64 ": fault %s, want %s", va,
		      pt_fault_name(w.fault), pt_fault_name(want));
}

/*
 * TCR_EL1 (pgtable-hwdef.h): T0SZ 5:0, TG0 15:14 (0 4K, 1 64K, 2 16K),
 * T1SZ 21:16, TG1 31:30 (1 16K, 2 4K, 3 64K), IPS 34:32, HPD1 42, DS 59.
 */
#define T0SZ(n) ((uint64_t)(n))
#define TG0(n)  ((uint64_t)(n) << 14)
#define T1SZ(n) ((uint64_t)(n) << 16)
#define TG1(n)  ((uint64_t)(n) << 30)
#define IPS(n)  ((uint64_t)(n) << 32)
#define HPD1    BIT(42)
#define EPD1    BIT(23)
#define DS      BIT(59)

/*
 * The §V.A index example, TTBR1, 4K, 48-bit: VA 0xFFFF800012345678 is L0
 * 0x100, L1 0x000, L2 0x091, L3 0x145.  Root 0x1000 → 0x2000 → 0x3000 →
 * 0x4000; a 2 MiB block at L2 0x092, a 1 GiB block at L1 0x001; and
 * through L0 0x101 tables with hierarchical controls.
 */
static void build_4k(void)
{
	memset(mem, 0, sizeof mem);
	put(0x1000 + 8 * 0x100, 0x2000 | TABLE);
	put(0x2000 + 8 * 0x000, 0x3000 | TABLE);
	put(0x2000 + 8 * 0x001, 0xC0000000ull | BLOCK | ATTR(1) | AF | PXN | UXN);
	put(0x3000 + 8 * 0x091, 0x4000 | TABLE);
	put(0x3000 + 8 * 0x092, 0x80200000ull | BLOCK | SH(3) | AF | UXN);
	put(0x4000 + 8 * 0x145, 0x41234000ull | PAGE | SH(3) | AF | DBM | PXN | UXN | SW(1));
	put(0x4000 + 8 * 0x146, 0x41235000ull | BLOCK | AF);          /* A07 */
	/* hierarchical: L0 0x101 (APTable 10: read-only, NSTable) → L1 0 (UXNTable) → 2M EL0 RW */
	put(0x1000 + 8 * 0x101, 0x5000 | TABLE | APT(2) | NST);
	put(0x5000, 0x6000 | TABLE | UXNT);
	put(0x6000, 0x40000000ull | BLOCK | AP(1) | AF);
	put(0x6000 + 8, 0x40200000ull | BLOCK | AF);
}

#define K4 (0xFFFF000000000000ull | (0x100ull << 39))

START_TEST(walk_4k)
{
	char ini[256];
	struct tu_cap k;
	const struct pt_context *ctx;
	struct pt_walk w;

	build_4k();
	snprintf(ini, sizeof ini, "[arm64 k]\nttbr = 0x0001000000001000\nhalf = upper\n"
		 "tcr = 0x%" PRIx64 "\n", T1SZ(16) | TG1(2) | IPS(5) | T0SZ(16));
	k = load(ini);
	ctx = ctx_of(&k);
	ck_assert_str_eq(ctx->fmt->levels[0].name, "l0");
	ck_assert_uint_eq(ctx->root_addr, 0x1000);
	ck_assert_uint_eq(ctx->fmt->va_digits, 16);
	w = walk_ok(ctx, 0xFFFF800012345678ull, 0x41234678ull, 4096, 4, "l3");
	ck_assert_uint_eq(w.steps[0].index, 0x100);
	ck_assert_uint_eq(w.steps[1].index, 0x000);
	ck_assert_uint_eq(w.steps[2].index, 0x091);
	ck_assert_uint_eq(w.steps[3].index, 0x145);
	ck_assert_uint_eq(w.steps[3].entry_pa, 0x4000 + 8 * 0x145);
	ck_assert_uint_eq(w.page_va, 0xFFFF800012345000ull);
	/* 2M and 1G */
	walk_ok(ctx, K4 | (0x092ull << 21) | 0x1234, 0x80201234ull, 2u << 20, 3, "l2");
	walk_ok(ctx, K4 | (1ull << 30) | 0x123456, 0xC0123456ull, 1u << 30, 2, "l1");
	/* A07 on a walk; the low half is TTBR0's; the gap is noncanonical */
	walk_fault(ctx, K4 | (0x091ull << 21) | (0x146ull << 12), PT_FAULT_UNSUPPORTED);
	walk_fault(ctx, 0x0000000012345000ull, PT_FAULT_OUT_OF_RANGE);
	walk_fault(ctx, 0xFFFE800012345000ull, PT_FAULT_NONCANONICAL);
	walk_fault(ctx, 0xFFFF000000000000ull, PT_FAULT_UNMAPPED);
	/* hierarchical controls: APTable[1] read-only, NSTable, UXNTable; AP 01 implies PXN */
	w = walk_ok(ctx, K4 + (1ull << 39), 0x40000000ull, 2u << 20, 3, "l2");
	ck_assert_uint_eq(w.perm, PT_PERM_NO_WRITE | PT_PERM_NS | PT_PERM_UXN | PT_PERM_PXN);
	w = walk_ok(ctx, K4 + (1ull << 39) + (2u << 20), 0x40200000ull, 2u << 20, 3, "l2");
	ck_assert_uint_eq(w.perm, PT_PERM_NO_WRITE | PT_PERM_NS | PT_PERM_UXN | PT_PERM_PRIVILEGE);
	tu_cap_free(&k);

	/* TCR.HPD1: the table controls but NSTable are off */
	snprintf(ini, sizeof ini, "[arm64 k]\nttbr = 0x1000\nhalf = upper\ntcr = 0x%" PRIx64 "\n",
		 T1SZ(16) | TG1(2) | IPS(5) | HPD1);
	k = load(ini);
	ctx = ctx_of(&k);
	w = walk_ok(ctx, K4 + (1ull << 39) + (2u << 20), 0x40200000ull, 2u << 20, 3, "l2");
	ck_assert_uint_eq(w.perm, PT_PERM_NS | PT_PERM_PRIVILEGE);
	tu_cap_free(&k);

	/* TTBR0, 39 bits (T0SZ 25): start level 1, the L1 table at 0x2000 as root */
	snprintf(ini, sizeof ini, "[arm64 u]\nttbr = 0x2000\nhalf = lower\ntcr = 0x%" PRIx64 "\n",
		 T0SZ(25) | TG0(0) | IPS(2));
	k = load(ini);
	ctx = ctx_of(&k);
	ck_assert_str_eq(ctx->fmt->levels[0].name, "l1");
	ck_assert_uint_eq(ctx->root_entries, 512);
	walk_ok(ctx, 0x12345678ull, 0x41234678ull, 4096, 3, "l3");
	walk_ok(ctx, (1ull << 30) | 5, 0xC0000005ull, 1u << 30, 1, "l1");
	walk_fault(ctx, 1ull << 39, PT_FAULT_NONCANONICAL);
	walk_fault(ctx, 0xFFFFFF8000000000ull, PT_FAULT_OUT_OF_RANGE);
	tu_cap_free(&k);

	/* the same tables by explicit keys; A09: IPS 40 makes OA 0x800000000000 reserved */
	put(0x4000 + 8 * 0x147, 0x800000000000ull | PAGE | AF);
	k = load("[arm64 k]\nttbr = 0x1000\nhalf = upper\ngranule = 4096\nva_bits = 48\n"
		 "pa_bits = 40\n");
	ctx = ctx_of(&k);
	walk_ok(ctx, 0xFFFF800012345678ull, 0x41234678ull, 4096, 4, "l3");
	walk_fault(ctx, K4 | (0x091ull << 21) | (0x147ull << 12), PT_FAULT_RESERVED_BITS);
	tu_cap_free(&k);
}
END_TEST

/*
 * TBI (TCR_EL1.TBI0 bit 37, TBI1 bit 38; Linux pgtable-hwdef.h TCR_TBI0/1;
 * Arm ARM D8.8): a VA's bits 63:56 are ignored, it walks as bits 55:0 with
 * bit 55 copied up, and only bits 55..VA size must equal bit 55.  Without
 * TBI the same tagged VA is noncanonical.
 */
START_TEST(walk_tbi)
{
	static const uint64_t TBI0 = BIT(37), TBI1 = BIT(38);
	const uint64_t up = T1SZ(16) | TG1(2) | IPS(5), lo = T0SZ(25) | TG0(0) | IPS(2);
	char ini[256];
	struct tu_cap k;
	const struct pt_context *ctx;
	struct pt_walk w;

	build_4k();
	/* the upper half with TBI1: a tag 0x5a over 0xFFFF8000_12345678 walks as the untagged VA */
	snprintf(ini, sizeof ini, "[arm64 k]\nttbr = 0x1000\nhalf = upper\ntcr = 0x%" PRIx64 "\n",
		 up | TBI1);
	k = load(ini);
	ctx = ctx_of(&k);
	ck_assert(ctx->fmt->va_tbi);
	w = walk_ok(ctx, 0x5AFF800012345678ull, 0x41234678ull, 4096, 4, "l3");
	ck_assert_uint_eq(w.va, 0x5AFF800012345678ull);          /* the VA as asked */
	ck_assert_uint_eq(w.page_va, 0xFFFF800012345000ull);     /* the page by its canonical name */
	walk_fault(ctx, 0x5A00000012345000ull, PT_FAULT_OUT_OF_RANGE);   /* bit 55 0: TTBR0's half */
	walk_fault(ctx, 0x00FE800012345000ull, PT_FAULT_NONCANONICAL);   /* bit 48 != bit 55 */
	tu_cap_free(&k);
	/* TBI0 is the other half's: the upper half still checks the top byte */
	snprintf(ini, sizeof ini, "[arm64 k]\nttbr = 0x1000\nhalf = upper\ntcr = 0x%" PRIx64 "\n",
		 up | TBI0);
	k = load(ini);
	ctx = ctx_of(&k);
	ck_assert(!ctx->fmt->va_tbi);
	walk_fault(ctx, 0x5AFF800012345000ull, PT_FAULT_NONCANONICAL);
	walk_ok(ctx, 0xFFFF800012345678ull, 0x41234678ull, 4096, 4, "l3");
	tu_cap_free(&k);
	/* the lower half, 39 bits, TBI0: bits 55:39 must be 0, 63:56 anything */
	snprintf(ini, sizeof ini, "[arm64 u]\nttbr = 0x2000\nhalf = lower\ntcr = 0x%" PRIx64 "\n",
		 lo | TBI0);
	k = load(ini);
	ctx = ctx_of(&k);
	walk_ok(ctx, 0xF000000012345678ull, 0x41234678ull, 4096, 3, "l3");
	walk_fault(ctx, 0xF000008000000000ull, PT_FAULT_NONCANONICAL);   /* bit 39 */
	walk_fault(ctx, 0x00FFFFFF80000000ull, PT_FAULT_OUT_OF_RANGE);   /* bit 55: the upper half */
	tu_cap_free(&k);
	snprintf(ini, sizeof ini, "[arm64 u]\nttbr = 0x2000\nhalf = lower\ntcr = 0x%" PRIx64 "\n", lo);
	k = load(ini);
	walk_fault(ctx_of(&k), 0xF000000012345000ull, PT_FAULT_NONCANONICAL);
	tu_cap_free(&k);
}
END_TEST

/*
 * 16K, 48-bit TTBR0 (T0SZ 16, TG0 2): start level 0 with 2 entries (bit
 * 47), then L1 46:36, L2 35:25, L3 24:14 (reference §A.1).  VA = L1 1, L2
 * 2, L3 3 → a 16 KiB page; L2 4 → a 32 MiB block.
 */
START_TEST(walk_16k)
{
	struct tu_cap k;
	const struct pt_context *ctx;
	char ini[256];

	memset(mem, 0, sizeof mem);
	put(0x10000, 0x20000 | TABLE);
	put(0x20000 + 8 * 1, 0x24000 | TABLE);
	put(0x24000 + 8 * 2, 0x28000 | TABLE);
	put(0x24000 + 8 * 4, 0x42000000ull | BLOCK | AF);
	put(0x24000 + 8 * 5, 0x42004000ull | BLOCK | AF);    /* RES0 bit 14 in a 32M block */
	put(0x28000 + 8 * 3, 0x40004000ull | PAGE | AF);
	put(0x20000 + 8 * 2, 0x1000000000ull | BLOCK | AF);   /* a 64 GiB block needs DS */
	snprintf(ini, sizeof ini, "[arm64 u]\nttbr = 0x10000\nhalf = lower\ntcr = 0x%" PRIx64 "\n",
		 T0SZ(16) | TG0(2) | IPS(5));
	k = load(ini);
	ctx = ctx_of(&k);
	ck_assert_str_eq(ctx->fmt->levels[0].name, "l0");
	ck_assert_uint_eq(ctx->root_entries, 2);
	ck_assert_uint_eq(ctx->fmt->levels[1].va_shift, 36);
	ck_assert_uint_eq(ctx->fmt->levels[3].va_shift, 14);
	walk_ok(ctx, (1ull << 36) | (2ull << 25) | (3ull << 14) | 0x1abc, 0x40005abcull, 16384, 4,
		"l3");
	walk_ok(ctx, (1ull << 36) | (4ull << 25) | 0x123456, 0x42123456ull, 32u << 20, 3, "l2");
	walk_fault(ctx, (1ull << 36) | (5ull << 25), PT_FAULT_RESERVED_BITS);
	walk_fault(ctx, 2ull << 36, PT_FAULT_UNSUPPORTED);
	tu_cap_free(&k);
}
END_TEST

/*
 * 64K, 48-bit (T0SZ 16, TG0 1): start level 1 with 64 entries (47:42), L2
 * 41:29, L3 28:16: a 64 KiB page and a 512 MiB block.  Then 64K with a
 * 52-bit VA and output (FEAT_LVA/LPA): the §V.A example VA
 * 0x000F123456789ABC is L1 0x3C4, L2 0x11A2, L3 0x1678, and A11's page
 * carries OA[51:48] in bits 15:12.
 */
START_TEST(walk_64k)
{
	struct tu_cap k;
	const struct pt_context *ctx;
	char ini[256];
	struct pt_walk w;

	memset(mem, 0, sizeof mem);
	put(0x100000 + 8 * 1, 0x110000 | TABLE);
	put(0x110000 + 8 * 2, 0x120000 | TABLE);
	put(0x110000 + 8 * 3, 0x60000000ull | BLOCK | AF);
	put(0x120000 + 8 * 1, 0x40010000ull | PAGE | AF);
	put(0x120000 + 8 * 2, 0x40020000ull | PAGE | AF | BIT(12)); /* 15:12 RES0 without LPA */
	snprintf(ini, sizeof ini, "[arm64 u]\nttbr = 0x100000\nhalf = lower\ntcr = 0x%" PRIx64 "\n",
		 T0SZ(16) | TG0(1) | IPS(5));
	k = load(ini);
	ctx = ctx_of(&k);
	ck_assert_str_eq(ctx->fmt->levels[0].name, "l1");
	ck_assert_uint_eq(ctx->root_entries, 64);
	walk_ok(ctx, (1ull << 42) | (2ull << 29) | (1ull << 16) | 0x1234, 0x40011234ull, 65536, 3,
		"l3");
	walk_ok(ctx, (1ull << 42) | (3ull << 29) | 0x1234567, 0x61234567ull, 512u << 20, 2, "l2");
	walk_fault(ctx, (1ull << 42) | (2ull << 29) | (2ull << 16), PT_FAULT_RESERVED_BITS);
	tu_cap_free(&k);

	memset(mem, 0, sizeof mem);
	put(0x140000 + 8 * 0x3C4, 0x150000 | TABLE);
	put(0x150000 + 8 * 0x11A2, 0x160000 | TABLE);
	put(0x160000 + 8 * 0x1678, 0x000000001234F703ull);
	snprintf(ini, sizeof ini, "[arm64 u]\nttbr = 0x140000\nhalf = lower\ntcr = 0x%" PRIx64 "\n",
		 T0SZ(12) | TG0(1) | IPS(6));
	k = load(ini);
	ctx = ctx_of(&k);
	ck_assert_uint_eq(ctx->root_entries, 1024);
	w = walk_ok(ctx, 0x000F123456789ABCull, 0xF000012349ABCull, 65536, 3, "l3");
	ck_assert_uint_eq(w.steps[0].index, 0x3C4);
	ck_assert_uint_eq(w.steps[1].index, 0x11A2);
	ck_assert_uint_eq(w.steps[2].index, 0x1678);
	ck_assert_uint_eq(tu_field(&w.steps[2].entry, "oa_51_48"), 0xf);
	tu_cap_free(&k);
}
END_TEST

/*
 * 4K with DS = 1 (FEAT_LPA2), 52-bit VA and output: start level -1 with
 * 16 entries (51:48); A12's page has OA[51:50] in bits 9:8 (no SH field),
 * and a level-0 block maps 512 GiB (A08 with DS).
 */
START_TEST(walk_lpa2)
{
	struct tu_cap k;
	const struct pt_context *ctx;
	char ini[256];
	struct pt_walk w;
	uint64_t va = (1ull << 48) | (2ull << 39) | (3ull << 30) | (4ull << 21) | (5ull << 12);

	memset(mem, 0, sizeof mem);
	put(0x180000 + 8 * 1, 0x181000 | TABLE);
	put(0x181000 + 8 * 2, 0x182000 | TABLE);
	put(0x181000 + 8 * 3, 0x0000008000000401ull);
	put(0x182000 + 8 * 3, 0x183000 | TABLE);
	put(0x183000 + 8 * 4, 0x184000 | TABLE);
	put(0x184000 + 8 * 5, 0x0000000041234703ull);
	snprintf(ini, sizeof ini, "[arm64 u]\nttbr = 0x180000\nhalf = lower\ntcr = 0x%" PRIx64 "\n",
		 T0SZ(12) | TG0(0) | IPS(6) | DS);
	k = load(ini);
	ctx = ctx_of(&k);
	ck_assert_str_eq(ctx->fmt->levels[0].name, "l-1");
	ck_assert_uint_eq(ctx->root_entries, 16);
	ck_assert_uint_eq(ctx->fmt->va_bits, 53);
	w = walk_ok(ctx, va | 0x678, 0xC000041234678ull, 4096, 5, "l3");
	ck_assert_uint_eq(tu_field(&w.steps[4].entry, "oa_51_50"), 3);
	ck_assert_ptr_null(pt_entry_field(&w.steps[4].entry, "sh"));
	walk_ok(ctx, (1ull << 48) | (3ull << 39) | 0x12345678, 0x8012345678ull, 1ull << 39, 2, "l0");
	tu_cap_free(&k);
	/* without DS a 52-bit VA needs the 64K granule */
	snprintf(ini, sizeof ini, "[arm64 u]\nttbr = 0x180000\nhalf = lower\ntcr = 0x%" PRIx64 "\n",
		 T0SZ(12) | TG0(0) | IPS(6));
	k = load(ini);
	ck_assert_int_eq(k.rc, PT_E_VALUE);
	ck_assert_ptr_nonnull(strstr(pt_capture_error(k.c), "52-bit VA range is outside 25..48"));
	tu_cap_free(&k);
}
END_TEST

/* ---- stage 2 (§V.B: VTCR_EL2 0x80023558) ------------------------------------ */

START_TEST(s2_walks)
{
	struct tu_cap k;
	const struct pt_context *ctx;
	struct pt_walk w;
	const uint64_t ipa = 0x8040201000ull;

	memset(mem, 0, sizeof mem);
	/* B01: T0SZ 24, SL0 1 → level 1 with 10 index bits: two concatenated 4 KiB tables */
	put(0x200000 + 0x1008, 0x210000 | TABLE);           /* L1 index 0x201 (the second table) */
	put(0x200000 + 8 * 1, 0x40000000ull | 0x7FD);       /* B06: 1 GiB block */
	put(0x210000 + 8 * 1, 0x211000 | TABLE);
	put(0x211000 + 8 * 1, 0x00000000800007FFull);        /* B03 */
	put(0x211000 + 8 * 2, 0x00400000090004C7ull);        /* B04 */
	put(0x211000 + 8 * 3, 0x000000008000177Full);        /* B05 */
	put(0x211000 + 8 * 4, 0x00200000800027FFull);        /* B07 */
	put(0x211000 + 8 * 5, 0x000000008000473Full);        /* B09 */
	k = load("[arm64 g]\nstage = 2\nvttbr = 0x0001000000200000\nvtcr = 0x80023558\n");
	ctx = ctx_of(&k);
	ck_assert_str_eq(ctx->fmt->levels[0].name, "l1");
	ck_assert_uint_eq(ctx->root_entries, 1024);
	ck_assert_uint_eq(ctx->root_addr, 0x200000);
	ck_assert_uint_eq(ctx->fmt->va_bits, 40);
	ck_assert(!ctx->fmt->va_canonical);
	w = walk_ok(ctx, ipa, 0x80000000ull, 4096, 3, "l3");
	ck_assert_uint_eq(w.steps[0].index, 0x201);
	ck_assert_uint_eq(w.steps[0].entry_pa, 0x201008);
	ck_assert_uint_eq(tu_field(&w.steps[2].entry, "mem_attr"), 0xf);
	ck_assert_uint_eq(tu_field(&w.steps[2].entry, "s2ap_read"), 1);
	ck_assert_uint_eq(tu_field(&w.steps[2].entry, "s2ap_write"), 1);
	ck_assert_uint_eq(tu_field(&w.steps[2].entry, "sh"), 3);
	ck_assert_uint_eq(tu_field(&w.steps[2].entry, "xn"), 0);
	ck_assert_uint_eq(tu_field(&w.steps[2].entry, "xn0"), 0);
	ck_assert_uint_eq(w.perm, 0);
	w = walk_ok(ctx, ipa + 0x1000, 0x09000000ull, 4096, 3, "l3");
	ck_assert_uint_eq(tu_field(&w.steps[2].entry, "mem_attr"), 1);
	ck_assert_uint_eq(tu_field(&w.steps[2].entry, "xn"), 1);
	ck_assert_uint_eq(tu_field(&w.steps[2].entry, "xn0"), 0);
	ck_assert_uint_eq(w.perm, PT_PERM_PXN | PT_PERM_UXN);
	w = walk_ok(ctx, ipa + 0x2000, 0x80001000ull, 4096, 3, "l3");
	ck_assert_uint_eq(w.perm, PT_PERM_NO_WRITE);
	/* B07 without FEAT_XNX: bit 54 clear, executable */
	w = walk_ok(ctx, ipa + 0x3000, 0x80002000ull, 4096, 3, "l3");
	ck_assert_uint_eq(w.perm, 0);
	w = walk_ok(ctx, ipa + 0x4000, 0x80004000ull, 4096, 3, "l3");
	ck_assert_uint_eq(w.perm, PT_PERM_NO_READ | PT_PERM_NO_WRITE);
	walk_ok(ctx, (1ull << 30) | 0x1234, 0x40001234ull, 1u << 30, 1, "l1");
	walk_fault(ctx, 1ull << 40, PT_FAULT_OUT_OF_RANGE);
	tu_cap_free(&k);
	/* with xnx = 1: B07's XN 01 is EL0-only execute */
	k = load("[arm64 g]\nvttbr = 0x200000\nvtcr = 0x80023558\nxnx = 1\n");
	ctx = ctx_of(&k);
	w = walk_ok(ctx, ipa + 0x3000, 0x80002000ull, 4096, 3, "l3");
	ck_assert_uint_eq(w.perm, PT_PERM_PXN);
	tu_cap_free(&k);
	/* B10, B11, B12 decode alone at stage 2 (the context's decoder) */
	k = load("[arm64 g]\nvttbr = 0x200000\nvtcr = 0x80023558\n");
	ctx = ctx_of(&k);
	{
		struct pt_entry e = dec_with(ctx->fmt, 2, 12, 0x00000000800057DBull);

		ck_assert_uint_eq(tu_field(&e, "mem_attr"), 6);
		ck_assert_uint_eq(e.pa, 0x80005000ull);
		e = dec_with(ctx->fmt, 2, 12, 4);
		ck_assert_int_eq(e.state, PT_ST_INVALID);
		e = dec_with(ctx->fmt, 2, 12, 0x400);
		ck_assert_int_eq(e.state, PT_ST_INVALID);
	}
	tu_cap_free(&k);
}
END_TEST

/* ---- [arm64] key errors ----------------------------------------------------- */

static void key_err(const char *body, pt_err want, const char *msg)
{
	struct tu_cap k = load(body);

	tu_cap_refused(&k, body, want, msg);
}

START_TEST(key_errors)
{
	memset(mem, 0, sizeof mem);
	key_err("[arm64 k]\nhalf = upper\n", PT_E_VALUE, "missing key 'ttbr'");
	key_err("[arm64 k]\nttbr = 0x1000\n", PT_E_VALUE, "missing key 'half'");
	key_err("[arm64 k]\nttbr = 0x1000\nhalf = top\n", PT_E_VALUE,
		"half 'top' in [arm64 k] is not lower (TTBR0) or upper (TTBR1)");
	key_err("[arm64 k]\nttbr = 0x1000\nhalf = upper\ngranule = 8192\n", PT_E_VALUE,
		"granule 8192 in [arm64 k] is not one of 4096, 16384, 65536");
	key_err("[arm64 k]\nttbr = 0x1000\nhalf = upper\nva_bits = 53\n", PT_E_VALUE,
		"va_bits 53 in [arm64 k] is not one of 25..52");
	key_err("[arm64 k]\nttbr = 0x1000\nhalf = upper\ntcr = 0x80100010\ngranule = 4096\n",
		PT_E_VALUE, "capture.ini:12: granule in [arm64 k]: tcr and granule/va_bits/pa_bits/ds");
	key_err("[arm64 k]\nttbr = 0x1000\nhalf = upper\ntcr = 0x80900010\n", PT_E_UNSUPPORTED,
		"EPD1 is set: walks from TTBR1 are disabled");
	key_err("[arm64 k]\nttbr = 0x1000\nhalf = upper\ntcr = 0x00100010\n", PT_E_VALUE,
		"TG1 0 is reserved");
	key_err("[arm64 k]\nttbr = 0x1000\nhalf = upper\ntcr = 0x780100010\n", PT_E_VALUE,
		"IPS 7 is reserved");
	key_err("[arm64 k]\nttbr = 0x10000000000\nhalf = upper\npa_bits = 40\n", PT_E_VALUE,
		"the table base 0x10000000000 is above the 40-bit output size");
	key_err("[arm64 k]\nttbr = 0x1000\nhalf = upper\nvtcr = 0x80023558\n", PT_E_VALUE,
		"stage-1 keys (ttbr, tcr, half, ...) and stage-2 keys (vttbr, vtcr, xnx) both given");
	key_err("[arm64 k]\nstage = 2\nttbr = 0x1000\nhalf = upper\n", PT_E_VALUE,
		"stage = 2 with stage-1 keys");
	key_err("[arm64 k]\nstage = 3\n", PT_E_VALUE, "stage 3 in [arm64 k] is not one of 1, 2");
	key_err("[arm64 g]\nstage = 2\nvttbr = 0x200000\n", PT_E_VALUE, "missing key 'vtcr'");
	/* SL0 0 (level 2) with a 40-bit IPA would index 19 bits */
	key_err("[arm64 g]\nvttbr = 0x200000\nvtcr = 0x80023518\n", PT_E_VALUE,
		"a 40-bit IPA does not start at level 2 (SL0 0)");
	key_err("[arm64 g]\nvttbr = 0x200000\nvtcr = 0x8002B5D8\n", PT_E_UNSUPPORTED,
		"SL0 3 is reserved for the 16 KiB granule");
	key_err("[arm64 k]\nttbr = 0x1000\nhalf = upper\nspace = ..\n", PT_E_VALUE,
		"bad space name '..' for 'space' in [arm64 k]");
	key_err("[arm64 k]\nttbr = 0x1000\nhalf = upper\nbogus = 1\n", PT_E_VALUE,
		"unknown key 'bogus' in [arm64 k]");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("arm64");
	TCase *tc;

	tc = tcase_create("entries");
	tcase_add_test(tc, s1_vectors);
	tcase_add_test(tc, s1_fields);
	suite_add_tcase(s, tc);

	tc = tcase_create("walk");
	tcase_add_test(tc, walk_4k);
	tcase_add_test(tc, walk_tbi);
	tcase_add_test(tc, walk_16k);
	tcase_add_test(tc, walk_64k);
	tcase_add_test(tc, walk_lpa2);
	tcase_add_test(tc, s2_walks);
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
