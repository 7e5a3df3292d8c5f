/* SPDX-License-Identifier: MIT */
/*
 * test_vtd.c — intel-vtd and intel-ept (docs/design.md §2.7): the VT-d vectors
 * (docs/design.md §2.6-§2.7 and their sources (§7)) and the EPT vectors (§V.F), each
 * composed field by field from the bit tables of §D.2 / §F (Linux
 * drivers/iommu/intel/iommu.h, generic_pt/fmt/vtdss.h, QEMU
 * hw/i386/intel_iommu_internal.h; Intel SDM Vol. 3C "EPT translation
 * mechanism", Linux arch/x86/include/asm/vmx.h), a constructed walk per page
 * size (4K, 2M, 1G) at the §V.D index example, the roots AW and the EPTP
 * walk length choose, the legacy context entry, and every [vtd]/[ept] key
 * error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_capture.h"
#include "pt_walk.h"
#include "testutil.h"

#define BIT(n) (1ull << (n))

/* VT-d second-level entry fields (§D.2). */
#define R    BIT(0)
#define W    BIT(1)
#define X    BIT(2)
#define EMT(m) ((uint64_t)(m) << 3)
#define IPAT BIT(6)
#define PS   BIT(7)
#define A    BIT(8)
#define D    BIT(9)
#define SNP  BIT(11)
#define TM   BIT(62)
/* EPT (§F): R W X as VT-d, memory type 5:3, ignore-PAT 6, PS 7, A 8, D 9, user-execute 10, SVE 63. */
#define UX   BIT(10)
#define SVE  BIT(63)

/* Rows of the 5-level table a format decodes without a context: pml5 pml4 pdpt pd pt. */
enum { PML5, PML4, PDPT, PD, PT };
static const unsigned row_shift[] = {48, 39, 30, 21, 12};

static struct pt_entry dec(const char *fmt, unsigned row, uint64_t raw)
{
	const struct pt_format *f = pt_format_find(fmt);
	struct pt_entry e;
	uint8_t b[8];

	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(raw >> (8 * i));
	ck_assert_int_eq(f->decode(row, row_shift[row], b, 0, &e), PT_OK);
	return e;
}


static bool has(const struct pt_entry *e, const char *key)
{
	return pt_entry_field(e, key) != NULL;
}

/* ---- §V.D VT-d vectors ------------------------------------------------------ */

START_TEST(vd_entries)
{
	struct pt_entry e;

	/* D04: 4 KiB page 0x87654000, R W */
	e = dec("intel-vtd", PT, 0x87654000ull | R | W);
	ck_assert_uint_eq(e.raw[0], 0x0000000087654003ull);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert_uint_eq(e.pa, 0x87654000ull);
	ck_assert_uint_eq(e.page_size, 4096);
	ck_assert_uint_eq(tu_field(&e, "r"), 1);
	ck_assert_uint_eq(tu_field(&e, "w"), 1);
	ck_assert_uint_eq(tu_field(&e, "x"), 0);
	ck_assert_uint_eq(e.perm, 0);
	ck_assert(!has(&e, "ps"));   /* bit 7 of a PTE is not interpreted */
	/* D05: PDE → table 0x12346000 */
	e = dec("intel-vtd", PD, 0x12346000ull | R | W);
	ck_assert_uint_eq(e.raw[0], 0x0000000012346003ull);
	ck_assert_int_eq(e.state, PT_ST_POINTER);
	ck_assert(e.target[0].present);
	ck_assert_int_eq(e.target[0].level, PD + 1);
	ck_assert_uint_eq(e.target[0].addr, 0x12346000ull);
	ck_assert(!has(&e, "emt") && !has(&e, "snp") && !has(&e, "d"));
	ck_assert_uint_eq(e.perm, 0);
	/* a read-only directory entry passes down no-write (the AND of R/W along the path) */
	ck_assert_uint_eq(dec("intel-vtd", PML4, 0x12346000ull | R).perm, PT_PERM_NO_WRITE);
	/* D06: 2 MiB page 0x80200000 */
	e = dec("intel-vtd", PD, 0x80200000ull | PS | R | W);
	ck_assert_uint_eq(e.raw[0], 0x0000000080200083ull);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert_uint_eq(e.pa, 0x80200000ull);
	ck_assert_uint_eq(e.page_size, 2u << 20);
	ck_assert_uint_eq(tu_field(&e, "ps"), 1);
	/* D07: 1 GiB page 0xC0000000 with SNP (a leaf field: snooped) */
	e = dec("intel-vtd", PDPT, 0xC0000000ull | SNP | PS | R | W);
	ck_assert_uint_eq(e.raw[0], 0x00000000C0000883ull);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert_uint_eq(e.page_size, 1u << 30);
	ck_assert_uint_eq(tu_field(&e, "snp"), 1);
	ck_assert_uint_eq(e.reserved_mask[0], 0);
	ck_assert(e.perm & PT_PERM_SNOOPED);
	/* D08: R = W = 0: not present (Linux dma_pte_present), other bits unchecked */
	e = dec("intel-vtd", PT, 0x87654000ull);
	ck_assert_int_eq(e.state, PT_ST_INVALID);
	ck_assert_uint_eq(e.reserved_mask[0], 0);
	/* D09: PS with bit 12 set: 20:12 of a 2 MiB leaf are reserved */
	e = dec("intel-vtd", PD, 0x80201000ull | PS | R | W);
	ck_assert_uint_eq(e.raw[0], 0x0000000080201083ull);
	ck_assert_uint_eq(e.reserved_mask[0], BIT(12));
	ck_assert_uint_eq(tu_field(&e, "reserved_bits"), 1);
	/* 29:12 of a 1 GiB leaf */
	e = dec("intel-vtd", PDPT, 0xC0000000ull | BIT(29) | PS | R);
	ck_assert_uint_eq(e.reserved_mask[0], BIT(29));
	/* D10: PS in a PML4E is reserved */
	e = dec("intel-vtd", PML4, 0x12347000ull | PS | R | W);
	ck_assert_uint_eq(e.raw[0], 0x0000000012347083ull);
	ck_assert_uint_eq(e.reserved_mask[0], PS);
	ck_assert(!has(&e, "ps"));
	e = dec("intel-vtd", PML5, 0x12347000ull | PS | R);
	ck_assert_uint_eq(e.reserved_mask[0], PS);
	/* D11: TM 62 on a leaf */
	e = dec("intel-vtd", PT, 0x87654000ull | TM | R | W);
	ck_assert_uint_eq(e.raw[0], 0x4000000087654003ull);
	ck_assert_uint_eq(tu_field(&e, "tm"), 1);
	ck_assert_uint_eq(e.reserved_mask[0], 0);
	/* ... and reserved on a directory entry, as SNP is */
	e = dec("intel-vtd", PD, 0x12346000ull | TM | SNP | R | W);
	ck_assert_uint_eq(e.reserved_mask[0], TM | SNP);
	/* D12: bit 52 ignored: the mapping of D04, shown as ignored */
	e = dec("intel-vtd", PT, 0x87654000ull | BIT(52) | R | W);
	ck_assert_uint_eq(e.raw[0], 0x0010000087654003ull);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert_uint_eq(e.pa, 0x87654000ull);
	ck_assert_uint_eq(e.reserved_mask[0], 0);
	ck_assert_uint_eq(tu_field(&e, "ignored"), BIT(52));
	/* bits 63 and 61:52 ignored everywhere; bit 10 on a leaf; 6:3 and 10:9 on a directory */
	e = dec("intel-vtd", PML4, 0x12346000ull | BIT(63) | BIT(61) | BIT(9) | BIT(3) | R);
	ck_assert_uint_eq(tu_field(&e, "ignored"), BIT(63) | BIT(61) | BIT(9) | BIT(3));
	ck_assert_uint_eq(e.reserved_mask[0], 0);
}
END_TEST

START_TEST(vd_leaf_fields)
{
	/* Every leaf field at its own bit: X 2, EMT 5:3 (WB 6), IPAT 6, A 8, D 9 (§D.2). */
	struct pt_entry e = dec("intel-vtd", PT, 0x1000ull | R | X | EMT(6) | IPAT | A | D);

	ck_assert_uint_eq(tu_field(&e, "r"), 1);
	ck_assert_uint_eq(tu_field(&e, "w"), 0);
	ck_assert_uint_eq(tu_field(&e, "x"), 1);
	ck_assert_uint_eq(tu_field(&e, "emt"), 6);
	ck_assert_str_eq(pt_entry_field(&e, "emt_name")->s, "WB");
	ck_assert_uint_eq(tu_field(&e, "ipat"), 1);
	ck_assert_uint_eq(tu_field(&e, "a"), 1);
	ck_assert_uint_eq(tu_field(&e, "d"), 1);
	ck_assert_uint_eq(tu_field(&e, "snp"), 0);
	ck_assert_uint_eq(e.perm, PT_PERM_NO_WRITE | PT_PERM_EXEC);
	/* write-only: present (R|W), a read is denied */
	e = dec("intel-vtd", PT, 0x1000ull | W);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert_uint_eq(e.perm, PT_PERM_NO_READ);
	/* EMT without a name (2) */
	e = dec("intel-vtd", PT, 0x1000ull | R | EMT(2));
	ck_assert_ptr_null(pt_entry_field(&e, "emt_name")->s);
	/* zero is unmapped */
	e = dec("intel-vtd", PT, 0);
	ck_assert_int_eq(e.state, PT_ST_UNMAPPED);
}
END_TEST

/* ---- §V.F EPT vectors ------------------------------------------------------- */

START_TEST(vf_entries)
{
	struct pt_entry e;

	/* F03: PML4E RWX → 0x12346000 */
	e = dec("intel-ept", PML4, 0x12346000ull | R | W | X);
	ck_assert_uint_eq(e.raw[0], 0x0000000012346007ull);
	ck_assert_int_eq(e.state, PT_ST_POINTER);
	ck_assert_uint_eq(e.target[0].addr, 0x12346000ull);
	/* F04: 4 KiB WB IPAT RWX */
	e = dec("intel-ept", PT, 0x87654000ull | EMT(6) | IPAT | R | W | X);
	ck_assert_uint_eq(e.raw[0], 0x0000000087654077ull);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert_uint_eq(tu_field(&e, "memory_type"), 6);
	ck_assert_uint_eq(tu_field(&e, "ignore_pat"), 1);
	ck_assert_uint_eq(tu_field(&e, "execute"), 1);
	ck_assert_uint_eq(e.perm, PT_PERM_EXEC);
	/* F05: 2 MiB */
	e = dec("intel-ept", PD, 0x80200000ull | PS | EMT(6) | IPAT | R | W | X);
	ck_assert_uint_eq(e.raw[0], 0x00000000802000F7ull);
	ck_assert_uint_eq(e.page_size, 2u << 20);
	ck_assert_uint_eq(e.pa, 0x80200000ull);
	/* F06: 1 GiB, A, D */
	e = dec("intel-ept", PDPT, 0xC0000000ull | D | A | PS | EMT(6) | IPAT | R | W | X);
	ck_assert_uint_eq(e.raw[0], 0x00000000C00003F7ull);
	ck_assert_uint_eq(e.page_size, 1u << 30);
	ck_assert_uint_eq(tu_field(&e, "accessed"), 1);
	ck_assert_uint_eq(tu_field(&e, "dirty"), 1);
	/* F07: write-only: misconfiguration */
	e = dec("intel-ept", PT, 0x87654000ull | W);
	ck_assert_int_eq(e.state, PT_ST_UNSUPPORTED);
	ck_assert_uint_eq(tu_field(&e, "misconfigured"), 1);
	/* F08: execute-only: mapped, no read, no write */
	e = dec("intel-ept", PT, 0x87654000ull | X | EMT(6));
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert_uint_eq(e.perm, PT_PERM_NO_READ | PT_PERM_NO_WRITE | PT_PERM_EXEC);
	/* F09: memory type 2 in a leaf (also 3 and 7) */
	e = dec("intel-ept", PT, 0x87654000ull | EMT(2) | R | W | X);
	ck_assert_uint_eq(e.raw[0], 0x0000000087654017ull);
	ck_assert_int_eq(e.state, PT_ST_UNSUPPORTED);
	e = dec("intel-ept", PT, 0x87654000ull | EMT(3) | R);
	ck_assert_int_eq(e.state, PT_ST_UNSUPPORTED);
	e = dec("intel-ept", PT, 0x87654000ull | EMT(7) | R);
	ck_assert_int_eq(e.state, PT_ST_UNSUPPORTED);
	/* F10: bit 7 in a PML4E (7:3 reserved) */
	e = dec("intel-ept", PML4, 0x12346000ull | PS | R | W | X);
	ck_assert_uint_eq(e.raw[0], 0x0000000012346087ull);
	ck_assert_uint_eq(e.reserved_mask[0], PS);
	ck_assert_uint_eq(tu_field(&e, "misconfigured"), 1);
	/* 6:3 of a directory PDE */
	e = dec("intel-ept", PD, 0x12346000ull | EMT(1) | R);
	ck_assert_uint_eq(e.reserved_mask[0], EMT(1));
	/* F11: not present with suppress-#VE */
	e = dec("intel-ept", PT, SVE);
	ck_assert_uint_eq(e.raw[0], 0x8000000000000000ull);
	ck_assert_int_eq(e.state, PT_ST_INVALID);
	ck_assert_uint_eq(tu_field(&e, "suppress_ve"), 1);
	/* F12: W+X, R = 0 (KVM's MMIO SPTE) */
	e = dec("intel-ept", PT, W | X);
	ck_assert_uint_eq(e.raw[0], 0x6);
	ck_assert_int_eq(e.state, PT_ST_UNSUPPORTED);
	/* user-execute 10 on leaf and directory; 2M reserved 20:12 */
	e = dec("intel-ept", PT, 0x1000ull | UX | R | EMT(6));
	ck_assert_uint_eq(tu_field(&e, "user_execute"), 1);
	e = dec("intel-ept", PML4, 0x1000ull | UX | R);
	ck_assert_uint_eq(tu_field(&e, "user_execute"), 1);
	e = dec("intel-ept", PD, 0x80200000ull | BIT(20) | PS | R | EMT(6));
	ck_assert_uint_eq(e.reserved_mask[0], BIT(20));
}
END_TEST

/* ---- captures ----------------------------------------------------------------- */

#define MEMSZ 0x8000
static uint8_t mem[MEMSZ];

static void put(uint64_t pa, uint64_t v)
{
	tu_put64(mem, sizeof mem, pa, v);
}

static struct tu_cap load(const char *fmt, const char *sections)
{
	return tu_cap_load(fmt, 0, mem, sizeof mem, sections);
}


/*
 * The §V.D index example: IOVA 0x7F1234567000 = PML4 0xFE, PDPT 0x48, PD
 * 0x1A2, PT 0x167.  Root 0x1000 → 0x2000 → 0x3000 → 0x4000; a 1 GiB leaf
 * at PDPT 0x49 and 2 MiB leaves at PD 0x1A3 and 0x1A4 (EPT: the EPT bits).
 */
static void build_tables(bool ept)
{
	uint64_t dir = ept ? R | W | X : R | W, leaf = ept ? R | W | EMT(6) : R | W;

	memset(mem, 0, sizeof mem);
	put(0x1000 + 8 * 0xfe, 0x2000 | dir);
	put(0x2000 + 8 * 0x48, 0x3000 | dir);
	put(0x2000 + 8 * 0x49, 0xC0000000ull | PS | leaf);
	put(0x3000 + 8 * 0x1a2, 0x4000 | dir);
	put(0x3000 + 8 * 0x1a3, 0x80200000ull | PS | leaf);
	put(0x3000 + 8 * 0x1a4, 0x40000000ull | PS | leaf);
	put(0x4000 + 8 * 0x167, 0x87654000ull | leaf);
	put(0x4000 + 8 * 0x168, 0x87655000ull | R);
}

static void walk_ok(const struct pt_context *ctx, uint64_t va, uint64_t pa, uint64_t size,
		    unsigned steps, const char *leaf_level)
{
	struct pt_walk w;

	ck_assert_int_eq(pt_walk_va(ctx, va, &w), PT_OK);
	ck_assert_msg(w.fault == PT_FAULT_NONE, "va 0x%" PRIx64 ": fault %s", va,
		      pt_fault_name(w.fault));
	ck_assert_uint_eq(w.pa, pa);
	ck_assert_uint_eq(w.page_size, size);
	ck_assert_uint_eq(w.nsteps, steps);
	ck_assert_str_eq(ctx->fmt->levels[w.steps[w.leaf_step].table.level].name, leaf_level);
}

#define VA_BASE ((0xfeull << 39) | (0x48ull << 30))

START_TEST(vd_walks)
{
	struct tu_cap k;
	const struct pt_context *ctx;
	struct pt_walk w;

	build_tables(false);
	k = load("intel-vtd", "[vtd d0]\nslptptr = 0x1000\naw = 48\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ctx = pt_capture_context(k.c, 0);
	ck_assert_str_eq(ctx->fmt->levels[0].name, "pml4");
	ck_assert_uint_eq(ctx->fmt->va_bits, 48);
	/* 4K: the index example */
	walk_ok(ctx, 0x00007F1234567abcull, 0x87654abcull, 4096, 4, "pt");
	ck_assert_int_eq(pt_walk_va(ctx, 0x00007F1234567000ull, &w), PT_OK);
	ck_assert_uint_eq(w.steps[0].index, 0xfe);
	ck_assert_uint_eq(w.steps[1].index, 0x48);
	ck_assert_uint_eq(w.steps[2].index, 0x1a2);
	ck_assert_uint_eq(w.steps[3].index, 0x167);
	ck_assert_uint_eq(w.steps[3].entry_pa, 0x4000 + 8 * 0x167);
	/* read-only page: a write is denied */
	ck_assert_int_eq(pt_walk_va(ctx, 0x00007F1234568000ull, &w), PT_OK);
	ck_assert_uint_eq(w.perm, PT_PERM_NO_WRITE);
	/* 2M */
	walk_ok(ctx, VA_BASE | (0x1a3ull << 21) | 0x12345, 0x80212345ull, 2u << 20, 3, "pd");
	/* 1G */
	walk_ok(ctx, (0xfeull << 39) | (0x49ull << 30) | 0x1234567, 0xC1234567ull, 1u << 30, 2,
		"pdpt");
	/* zero entry, and an IOVA wider than AW */
	ck_assert_int_eq(pt_walk_va(ctx, 0x1000, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_UNMAPPED);
	ck_assert_int_eq(pt_walk_va(ctx, 1ull << 48, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_OUT_OF_RANGE);
	tu_cap_free(&k);

	/* D02: the legacy context entry: P, TT 0, SLPTPTR 0x1000 (here), AW 2 → 4 levels, DID 1 */
	k = load("intel-vtd", "[vtd d0]\ncontext = 0x00000000000001020000000000001001\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ctx = pt_capture_context(k.c, 0);
	ck_assert_str_eq(ctx->fmt->levels[0].name, "pml4");
	ck_assert_uint_eq(ctx->root_addr, 0x1000);
	walk_ok(ctx, 0x00007F1234567abcull, 0x87654abcull, 4096, 4, "pt");
	tu_cap_free(&k);

	/* AW 39: 3 levels from pdpt (the same tables: pdpt at 0x2000) */
	k = load("intel-vtd", "[vtd d0]\nslptptr = 0x2000\naw = 39\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ctx = pt_capture_context(k.c, 0);
	ck_assert_str_eq(ctx->fmt->levels[0].name, "pdpt");
	ck_assert_uint_eq(ctx->fmt->va_digits, 10);
	walk_ok(ctx, (0x48ull << 30) | (0x1a2ull << 21) | (0x167ull << 12), 0x87654000ull, 4096, 3,
		"pt");
	tu_cap_free(&k);

	/* AW 57: 5 levels from pml5 (the same tables one level down: pml5 at 0x1000 → ...) */
	k = load("intel-vtd", "[vtd d0]\nslptptr = 0x1000\naw = 57\noutput_space = hpa\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ctx = pt_capture_context(k.c, 0);
	ck_assert_str_eq(ctx->fmt->levels[0].name, "pml5");
	ck_assert_uint_eq(ctx->fmt->va_bits, 57);
	/* pml5[0xfe] → 0x2000 read as a pml4, whose 0x49 entry has PS: reserved there */
	ck_assert_int_eq(pt_walk_va(ctx, (0xfeull << 48) | (0x49ull << 39), &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_RESERVED_BITS);
	/* ... 0x3000 as a pdpt: 0x1a3 (2M-aligned only) has reserved 29:12, 0x1a4 is a 1 GiB page */
	ck_assert_int_eq(pt_walk_va(ctx, (0xfeull << 48) | (0x48ull << 39) | (0x1a3ull << 30), &w),
			 PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_RESERVED_BITS);
	ck_assert_int_eq(pt_walk_va(ctx, (0xfeull << 48) | (0x48ull << 39) | (0x1a4ull << 30), &w),
			 PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_NONE);
	ck_assert_uint_eq(w.pa, 0x40000000ull);
	ck_assert_uint_eq(w.page_size, 1u << 30);
	ck_assert_str_eq(ctx->fmt->spaces[w.space], "hpa");
	tu_cap_free(&k);
}
END_TEST

START_TEST(vf_walks)
{
	struct tu_cap k;
	const struct pt_context *ctx;
	struct pt_walk w;

	build_tables(true);
	/* F01: WB, 4-level, A/D off, root 0x1000 */
	k = load("intel-ept", "[ept g0]\neptp = 0x000000000000101E\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ctx = pt_capture_context(k.c, 0);
	ck_assert_str_eq(ctx->fmt->levels[0].name, "pml4");
	ck_assert_uint_eq(ctx->root_addr, 0x1000);
	walk_ok(ctx, 0x00007F1234567abcull, 0x87654abcull, 4096, 4, "pt");
	walk_ok(ctx, VA_BASE | (0x1a3ull << 21), 0x80200000ull, 2u << 20, 3, "pd");
	walk_ok(ctx, (0xfeull << 39) | (0x49ull << 30), 0xC0000000ull, 1u << 30, 2, "pdpt");
	/* the R-only page of build_tables has memory type 0 (UC): mapped, read-only */
	ck_assert_int_eq(pt_walk_va(ctx, 0x00007F1234568000ull, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_NONE);
	ck_assert_uint_eq(w.perm, PT_PERM_NO_WRITE);
	tu_cap_free(&k);
	/* F02: + A/D; and 5-level */
	k = load("intel-ept", "[ept g0]\neptp = 0x000000000000105E\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	tu_cap_free(&k);
	k = load("intel-ept", "[ept g0]\neptp = 0x0000000000001026\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ctx = pt_capture_context(k.c, 0);
	ck_assert_str_eq(ctx->fmt->levels[0].name, "pml5");
	tu_cap_free(&k);
}
END_TEST

/*
 * Rights are the AND along the path (VT-d spec §9.8; SDM "EPT Translation
 * Mechanism"): a PDPTE without W makes every page below it read-only, one
 * without R unreadable, whatever the leaves say; the walk's flags are the
 * effective rights, the entry keeps its own bits.
 */
START_TEST(vd_rights)
{
	struct tu_cap k;
	const struct pt_context *ctx;
	struct pt_walk w;
	char flags[PT_FLAGS_LEN];
	const uint64_t va4k = 0x00007F1234567000ull, va2m = VA_BASE | (0x1a3ull << 21);

	build_tables(false);
	put(0x2000 + 8 * 0x48, 0x3000 | R);            /* PDPTE: R, no W */
	k = load("intel-vtd", "[vtd d0]\nslptptr = 0x1000\naw = 48\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ctx = pt_capture_context(k.c, 0);
	ck_assert_int_eq(pt_walk_va(ctx, va4k, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_NONE);
	ck_assert_uint_eq(w.perm, PT_PERM_NO_WRITE);
	/* the leaf says R|W: the path removed W */
	ck_assert_uint_eq(tu_field(&w.steps[3].entry, "w"), 1);
	pt_format_flags(ctx->fmt, &w.steps[3].entry, flags, sizeof flags);
	ck_assert_str_eq(flags, "r");
	ck_assert_int_eq(pt_walk_va(ctx, va2m, &w), PT_OK);
	ck_assert_uint_eq(w.perm, PT_PERM_NO_WRITE);
	/* a sibling PDPTE's 1 GiB page keeps R|W */
	ck_assert_int_eq(pt_walk_va(ctx, (0xfeull << 39) | (0x49ull << 30), &w), PT_OK);
	ck_assert_uint_eq(w.perm, 0);
	tu_cap_free(&k);

	/* W without R on the PML4E: nothing below is readable; X on a pointer is not ANDed */
	build_tables(false);
	put(0x1000 + 8 * 0xfe, 0x2000 | W);
	put(0x4000 + 8 * 0x167, 0x87654000ull | R | W | X);
	k = load("intel-vtd", "[vtd d0]\nslptptr = 0x1000\naw = 48\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ctx = pt_capture_context(k.c, 0);
	ck_assert_int_eq(pt_walk_va(ctx, va4k, &w), PT_OK);
	ck_assert_uint_eq(w.perm, PT_PERM_NO_READ | PT_PERM_EXEC);
	pt_format_flags(ctx->fmt, &w.steps[3].entry, flags, sizeof flags);
	ck_assert_str_eq(flags, "w,x");
	tu_cap_free(&k);

	/* EPT: read, write and execute are all ANDed */
	build_tables(true);
	put(0x4000 + 8 * 0x167, 0x87654000ull | R | W | X | EMT(6));
	put(0x2000 + 8 * 0x48, 0x3000 | R | W);        /* PDPTE without execute */
	k = load("intel-ept", "[ept g0]\neptp = 0x000000000000101E\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ctx = pt_capture_context(k.c, 0);
	ck_assert_int_eq(pt_walk_va(ctx, va4k, &w), PT_OK);
	ck_assert_uint_eq(w.perm, 0);
	pt_format_flags(ctx->fmt, &w.steps[3].entry, flags, sizeof flags);
	ck_assert_str_eq(flags, "read,write");
	put(0x2000 + 8 * 0x48, 0x3000 | R | X);        /* without write */
	tu_cap_free(&k);
	k = load("intel-ept", "[ept g0]\neptp = 0x000000000000101E\n");
	ctx = pt_capture_context(k.c, 0);
	ck_assert_int_eq(pt_walk_va(ctx, va4k, &w), PT_OK);
	ck_assert_uint_eq(w.perm, PT_PERM_NO_WRITE | PT_PERM_EXEC);
	tu_cap_free(&k);
}
END_TEST

static void key_err(const char *fmt, const char *body, pt_err want, const char *msg)
{
	struct tu_cap k = load(fmt, body);

	tu_cap_refused(&k, body, want, msg);
}

/*
 * D03: TT 10 is pass-through (VT-d spec §9.3): no table, every address
 * below 2^AW is its own output, the rest faults (Linux writes the
 * hardware's largest AGAW there).
 */
START_TEST(vd_pass)
{
	struct tu_cap k;
	struct pt_walk w;
	const struct pt_context *ctx;

	k = load("intel-vtd", "[vtd d0]\ncontext = 0x00000000000001020000000012345009\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ctx = pt_capture_context(k.c, 0);
	ck_assert_int_eq(pt_walk_va(ctx, 0xabcdef12345ull, &w), PT_OK);
	ck_assert(pt_walk_aperture_hit(&w));
	ck_assert_str_eq(w.aperture.name, "pass-through");
	ck_assert_uint_eq(w.aperture.pa, 0xabcdef12345ull);
	ck_assert_int_eq(pt_walk_va(ctx, 1ull << 48, &w), PT_OK);
	ck_assert(!pt_walk_aperture_hit(&w));
	ck_assert_int_eq(w.fault, PT_FAULT_OUT_OF_RANGE);
	tu_cap_free(&k);
}
END_TEST

START_TEST(key_errors)
{
	memset(mem, 0, sizeof mem);
	key_err("intel-vtd", "[vtd d]\n", PT_E_VALUE, "missing key 'context, pasid_entry (or slptptr and aw)'");
	key_err("intel-vtd", "[vtd d]\nslptptr = 0x1000\n", PT_E_VALUE, "missing key 'aw'");
	key_err("intel-vtd", "[vtd d]\nslptptr = 0x1000\naw = 40\n", PT_E_VALUE,
		"aw 40 in [vtd d]: the adjusted guest address width is 39, 48 or 57");
	key_err("intel-vtd", "[vtd d]\nslptptr = 0x1001\naw = 48\n", PT_E_VALUE,
		"slptptr 0x1001 is not 4 KiB aligned");
	key_err("intel-vtd", "[vtd d]\nslptptr = 0x10000000000000\naw = 48\n", PT_E_VALUE,
		"wider than 52 bits");
	key_err("intel-vtd", "[vtd d]\nslptptr = 0x1000\naw = 48\nspace = vram\n", PT_E_VALUE,
		"space 'vram' in [vtd d] is not a space of intel-vtd (sysmem, hpa, gpa)");
	key_err("intel-vtd", "[vtd d]\nslptptr = 0x1000\naw = 48\nbogus = 1\n", PT_E_VALUE,
		"unknown key 'bogus' in [vtd d]");
	key_err("intel-vtd", "[vtd d]\ncontext = 12345\n", PT_E_VALUE,
		"bad value '12345' for 'context'");
	key_err("intel-vtd", "[vtd d]\ncontext = 0x1000000000000000000000000000000001\n", PT_E_VALUE,
		"up to 32 hex digits");
	key_err("intel-vtd", "[vtd d]\ncontext = 0x00000000000001020000000000001000\n", PT_E_VALUE,
		"is not present (P=0)");
	key_err("intel-vtd", "[vtd d]\ncontext = 0x0000000000000102000000001234500d\n",
		PT_E_UNSUPPORTED, "TT 3 is reserved");
	key_err("intel-vtd", "[vtd d]\ncontext = 0x00000000000001000000000012345001\n",
		PT_E_UNSUPPORTED, "AW 0 is not supported");
	key_err("intel-vtd", "[vtd d]\ncontext = 0x00000000000001020000000012345011\n", PT_E_VALUE,
		"has reserved bits set");
	key_err("intel-vtd", "[vtd d]\ncontext = 0x00000001000001020000000012345001\n", PT_E_VALUE,
		"has reserved bits set");
	key_err("intel-vtd", "[vtd d]\ncontext = 0x00000000000001020000000012345001\naw = 48\n",
		PT_E_VALUE, "context and slptptr/aw both given");
	key_err("intel-ept", "[ept g]\n", PT_E_VALUE, "missing key 'eptp'");
	key_err("intel-ept", "[ept g]\neptp = 0x101b\n", PT_E_VALUE, "memory type 3 is not UC");
	key_err("intel-ept", "[ept g]\neptp = 0x1016\n", PT_E_UNSUPPORTED, "page-walk length 3");
	key_err("intel-ept", "[ept g]\neptp = 0x111e\n", PT_E_VALUE, "has reserved bits set");
	key_err("intel-ept", "[ept g]\neptp = 0x101e\nslptptr = 0x1000\n", PT_E_VALUE,
		"unknown key 'slptptr' in [ept g]");
	key_err("intel-ept", "[ept g]\neptp = 0x101e\noutput_space = peer0\n", PT_E_VALUE,
		"output_space 'peer0' in [ept g]");
}
END_TEST


/*
 * The traversal alone (pt_iommu_format.h "The traversal and its
 * visitors"): a visitor of its own, memory a few pages in this file.  The
 * walk reads only through on_table, flags a context table at the root
 * table as a loop, goes on past a table not there, follows only the root
 * entry halves on_entry returns, and stops when the visitor says so.
 */
struct tv_page {
	uint64_t addr;
	uint8_t b[4096];
};

struct tv {
	struct tv_page *pg;
	unsigned npg, tables, loops, missing, devices;
	uint64_t dev[8];
	bool stop_at_first;
};

static int tv_table(struct pt_iommu_visitor *v, const struct pt_iommu_node *n, void *buf)
{
	struct tv *t = v->opaque;

	t->tables++;
	if (n->loop) {
		t->loops++;
		return PT_IOV_REFUSED;
	}
	for (unsigned i = 0; i < t->npg; i++)
		if (n->addr >= t->pg[i].addr && n->addr + n->len <= t->pg[i].addr + 4096) {
			memcpy(buf, t->pg[i].b + (n->addr - t->pg[i].addr), n->len);
			return PT_IOV_OK;
		}
	t->missing++;
	return PT_IOV_MISSING;
}

static unsigned tv_entry(struct pt_iommu_visitor *v, const struct pt_iommu_node *n)
{
	(void)v;
	return n->kind == PT_IN_VTD_ROOT ? n->half : n->present;
}

static pt_err tv_device(struct pt_iommu_visitor *v, const struct pt_iommu_node *n, bool *descend)
{
	struct tv *t = v->opaque;

	(void)descend;
	ck_assert_int_eq(n->kind, PT_IN_VTD_CTX);
	if (t->devices < 8)
		t->dev[t->devices] = n->id;
	t->devices++;
	v->stop = t->stop_at_first;
	return PT_OK;
}

static void tv_put(uint8_t *p, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

START_TEST(traversal_visitor)
{
	static struct tv_page pg[2];
	struct tv t = {.pg = pg, .npg = 2};
	struct pt_iommu_visitor v = {.opaque = &t, .on_table = tv_table, .on_entry = tv_entry,
				     .on_device = tv_device};
	uint64_t reg[PT_IK__COUNT] = {0};

	memset(pg, 0, sizeof pg);
	pg[0].addr = 0x1000;   /* the root table */
	pg[1].addr = 0x2000;   /* bus 0's context table */
	tv_put(pg[0].b + 16 * 0, 0x2000 | 1);
	tv_put(pg[0].b + 16 * 1, 0x1000 | 1);   /* bus 1: the root table again, a loop */
	tv_put(pg[0].b + 16 * 2, 0x9000 | 1);   /* bus 2: a table not captured */
	tv_put(pg[0].b + 16 * 3, 0x2000);       /* bus 3: not present */
	tv_put(pg[1].b + 16 * 8, 0x3000 | 1);   /* 00:01.0 */
	tv_put(pg[1].b + 16 * 0x21, 0x4000 | 1);/* 00:04.1 */
	reg[PT_IK_RTADDR] = 0x1000;
	ck_assert_int_eq(pt_iommu_vtd_format.walk(&v, reg), PT_OK);
	ck_assert_uint_eq(t.tables, 4);   /* root, bus 0, the loop, bus 2 */
	ck_assert_uint_eq(t.loops, 1);
	ck_assert_uint_eq(t.missing, 1);
	ck_assert_uint_eq(t.devices, 2);
	ck_assert_uint_eq(t.dev[0], 0x0008);
	ck_assert_uint_eq(t.dev[1], 0x0021);

	/* the visitor's stop: nothing more is read after the first device */
	t = (struct tv){.pg = pg, .npg = 2, .stop_at_first = true};
	v.stop = false;
	ck_assert_int_eq(pt_iommu_vtd_format.walk(&v, reg), PT_OK);
	ck_assert_uint_eq(t.devices, 1);
	ck_assert_uint_eq(t.tables, 2);

	/* the root table not there: PT_E_CAPTURE */
	t = (struct tv){.pg = pg + 1, .npg = 1};
	v.stop = false;
	ck_assert_int_eq(pt_iommu_vtd_format.walk(&v, reg), PT_E_CAPTURE);
	ck_assert_uint_eq(t.devices, 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("vtd");
	TCase *tc;

	tc = tcase_create("entries");
	tcase_add_test(tc, vd_entries);
	tcase_add_test(tc, vd_leaf_fields);
	tcase_add_test(tc, vf_entries);
	suite_add_tcase(s, tc);

	tc = tcase_create("walk");
	tcase_add_test(tc, vd_walks);
	tcase_add_test(tc, vf_walks);
	tcase_add_test(tc, vd_rights);
	tcase_add_test(tc, vd_pass);
	tcase_add_test(tc, traversal_visitor);
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
