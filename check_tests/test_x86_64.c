/* SPDX-License-Identifier: MIT */
/*
 * test_x86_64.c — x86-64 (docs/design.md §2.5): the formats-next §V.C
 * vectors and more, every field built field by field from the bit tables
 * of Intel SDM vol. 3A §4.5 (tables 4-13 PML4E/PML5E, 4-15 1G PDPTE, 4-17
 * 2M PDE, 4-18 PDE, 4-19 PTE) and Linux arch/x86/include/asm/
 * pgtable_types.h; every reserved rule; the [cpu] keys and their messages;
 * LA57; PCID masking; effective rights; non-canonical VAs; walks through
 * the fixtures.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_capture.h"
#include "pt_walk.h"
#include "testutil.h"

#define BIT(n) (1ull << (n))

/* ---- capture helpers ----------------------------------------------------- */

/* A directory capture: SECTIONS after [capture] and sysmem MEM at BASE. */
static struct tu_cap load_at(const char *sections, uint64_t base, const void *mem, size_t memlen)
{
	return tu_cap_load("x86-64", base, mem, memlen, sections);
}


static uint8_t zero_page[4096];

/* Loads SECTIONS and expects RC with WANT in the message. */
static void key_err(const char *sections, pt_err rc, const char *want)
{
	struct tu_cap k = load_at(sections, 0x1000, zero_page, sizeof zero_page);

	tu_cap_refused(&k, sections, rc, want);
}

/*
 * Decodes RAW at level NAME of a context with efer EFER (NULL: absent) and
 * maxphyaddr M (0: absent), 5-level so that every level exists.
 */
static struct pt_entry dec_ctx(const char *efer, unsigned m, const char *level, uint64_t raw)
{
	char s[256];
	struct tu_cap k;
	const struct pt_context *ctx;
	const struct pt_level *l = NULL;
	struct pt_entry e;
	uint8_t b[8];
	unsigned i;

	snprintf(s, sizeof s, "[cpu c]\ncr3 = 0x1000\nla57 = 1\n%s%s%s", efer ? "efer = " : "",
		 efer ? efer : "", efer ? "\n" : "");
	if (m)
		snprintf(s + strlen(s), sizeof s - strlen(s), "maxphyaddr = %u\n", m);
	k = load_at(s, 0x1000, zero_page, sizeof zero_page);
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ctx = pt_capture_context(k.c, 0);
	for (i = 0; ctx->fmt->levels[i].name; i++)
		if (!strcmp(ctx->fmt->levels[i].name, level))
			l = &ctx->fmt->levels[i];
	ck_assert_ptr_nonnull(l);
	for (int j = 0; j < 8; j++)
		b[j] = (uint8_t)(raw >> (8 * j));
	ck_assert_int_eq(ctx->fmt->decode((unsigned)(l - ctx->fmt->levels), l->va_shift, b, 0, &e), PT_OK);
	tu_cap_free(&k);
	return e;
}

/* The default context: EFER with NXE (0xd01), MAXPHYADDR 52 (formats-next §V.C: M = 52, NXE = 1). */
static struct pt_entry dec(const char *level, uint64_t raw)
{
	return dec_ctx("0xd01", 0, level, raw);
}


static void no_field(const struct pt_entry *e, const char *key)
{
	ck_assert_msg(pt_entry_field(e, key) == NULL, "field %s should not exist", key);
}

/* ---- §V.C vectors ------------------------------------------------------- */

START_TEST(vc_vectors)
{
	struct pt_entry e;

	/* X01: L1 zero: not present */
	e = dec("pt", 0);
	ck_assert_int_eq(e.state, PT_ST_UNMAPPED);
	ck_assert_uint_eq(tu_field(&e, "present"), 0);
	/* X02: L4 0x12345067: P RW US A, bit 6 ignored -> next table 0x12345000 */
	e = dec("pml4", 0x0000000012345067ull);
	ck_assert_int_eq(e.state, PT_ST_POINTER);
	ck_assert_uint_eq(e.target[0].addr, 0x12345000);
	ck_assert_uint_eq(tu_field(&e, "ignored"), BIT(6));
	ck_assert_uint_eq(e.reserved_mask[0], 0);
	/* X03: L3 1 GiB, XD, PAT(12) 0 */
	e = dec("pdpt", 0x80000000C00000E3ull);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert_uint_eq(e.pa, 0xC0000000);
	ck_assert_uint_eq(e.page_size, 1ull << 30);
	ck_assert_uint_eq(tu_field(&e, "xd"), 1);
	ck_assert_uint_eq(tu_field(&e, "pat_large"), 0);
	ck_assert_uint_eq(tu_field(&e, "ps"), 1);
	ck_assert(!(e.perm & PT_PERM_EXEC));
	/* X04: L2 2 MiB global */
	e = dec("pd", 0x00000000002001E3ull);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert_uint_eq(e.pa, 0x200000);
	ck_assert_uint_eq(e.page_size, 2u << 20);
	ck_assert_uint_eq(tu_field(&e, "global"), 1);
	ck_assert_uint_eq(tu_field(&e, "dirty"), 1);
	/* X05: __PAGE_KERNEL */
	e = dec("pt", 0x8000000000001163ull);
	ck_assert_uint_eq(e.pa, 0x1000);
	ck_assert_uint_eq(tu_field(&e, "global"), 1);
	ck_assert_uint_eq(tu_field(&e, "xd"), 1);
	ck_assert(e.perm & PT_PERM_PRIVILEGE);
	ck_assert(!(e.perm & PT_PERM_NO_WRITE));
	/* X06: PAGE_READONLY user */
	e = dec("pt", 0x80000000ABCDE025ull);
	ck_assert_uint_eq(e.pa, 0xABCDE000);
	ck_assert_uint_eq(tu_field(&e, "writable"), 0);
	ck_assert_uint_eq(tu_field(&e, "user"), 1);
	ck_assert(e.perm & PT_PERM_NO_WRITE);
	ck_assert(!(e.perm & PT_PERM_PRIVILEGE));
	/* X07: PAT(7) in a PTE */
	e = dec("pt", 0x0000000000005083ull);
	ck_assert_uint_eq(e.pa, 0x5000);
	ck_assert_uint_eq(tu_field(&e, "pat"), 1);
	no_field(&e, "ps");
	/* X08: PAT(12) in a 2 MiB leaf: not address */
	e = dec("pd", 0x0000000000401083ull);
	ck_assert_uint_eq(e.pa, 0x400000);
	ck_assert_uint_eq(tu_field(&e, "pat_large"), 1);
	ck_assert_uint_eq(tu_field(&e, "address"), 0x400000);
	/* X09: PKEY 5 */
	e = dec("pt", 0x2800000000007007ull);
	ck_assert_uint_eq(e.pa, 0x7000);
	ck_assert_uint_eq(tu_field(&e, "protection_key"), 5);
	/* X10: P=0 with bit 8 (Linux PROT_NONE): not present, raw kept, nothing decoded */
	e = dec("pt", 0x0000000012345120ull);
	ck_assert_int_eq(e.state, PT_ST_INVALID);
	ck_assert_uint_eq(e.raw[0], 0x12345120);
	ck_assert_uint_eq(e.reserved_mask[0], 0);
	no_field(&e, "address");
	no_field(&e, "global");
	/* X11: 1G with bit 13: reserved */
	e = dec("pdpt", 0x00000000C00020E3ull);
	ck_assert_uint_eq(e.reserved_mask[0], BIT(13));
	/* X12: PS in a PML4E: reserved */
	e = dec("pml4", 0x0000000012345087ull);
	ck_assert_uint_eq(e.reserved_mask[0], BIT(7));
	/* X13: L5 pointer to 0x1000000 */
	e = dec("pml5", 0x0000000001000003ull);
	ck_assert_int_eq(e.state, PT_ST_POINTER);
	ck_assert_uint_eq(e.target[0].addr, 0x1000000);
	/* X14: PWT PCD XD */
	e = dec("pt", 0x8000000000FED01Bull);
	ck_assert_uint_eq(e.pa, 0xFED000);
	ck_assert_uint_eq(tu_field(&e, "pwt"), 1);
	ck_assert_uint_eq(tu_field(&e, "pcd"), 1);
	ck_assert_uint_eq(tu_field(&e, "pat"), 0);
	/* X15: L2 PS = 0: pointer to a PT */
	e = dec("pd", 0x0000000012345067ull);
	ck_assert_int_eq(e.state, PT_ST_POINTER);
	ck_assert_uint_eq(e.target[0].addr, 0x12345000);
	ck_assert_uint_eq(tu_field(&e, "ps"), 0);
}
END_TEST

/* Every field, one bit at a time, at its SDM position (tables 4-13..4-19). */
START_TEST(fields_one_by_one)
{
	static const struct {
		const char *key;
		unsigned bit;
	} low[] = {
		{"present", 0}, {"writable", 1}, {"user", 2}, {"pwt", 3}, {"pcd", 4}, {"accessed", 5},
	};
	static const char *const levels[] = {"pml5", "pml4", "pdpt", "pd", "pt"};
	struct pt_entry e;

	for (size_t l = 0; l < 5; l++)
		for (size_t i = 0; i < sizeof low / sizeof low[0]; i++) {
			e = dec(levels[l], 0x1000 | 1 | BIT(low[i].bit));
			for (size_t j = 0; j < sizeof low / sizeof low[0]; j++)
				ck_assert_uint_eq(tu_field(&e, low[j].key), j == i || j == 0);
			ck_assert_uint_eq(e.reserved_mask[0], 0);
		}
	/* a PTE: dirty 6, pat 7, global 8, sw 11:9, address, sw_high 58:52, pkey 62:59, xd 63 */
	e = dec("pt", 1 | BIT(6));
	ck_assert_uint_eq(tu_field(&e, "dirty"), 1);
	e = dec("pt", 1 | BIT(8));
	ck_assert_uint_eq(tu_field(&e, "global"), 1);
	e = dec("pt", 1 | (5ull << 9));
	ck_assert_uint_eq(tu_field(&e, "sw"), 5);
	e = dec("pt", 1 | 0x000ffffffffff000ull);
	ck_assert_uint_eq(tu_field(&e, "address"), 0x000ffffffffff000ull);
	ck_assert_uint_eq(e.reserved_mask[0], 0);
	e = dec("pt", 1 | (0x55ull << 52));
	ck_assert_uint_eq(tu_field(&e, "sw_high"), 0x55);
	e = dec("pt", 1 | (0xfull << 59));
	ck_assert_uint_eq(tu_field(&e, "protection_key"), 15);
	ck_assert_uint_eq(tu_field(&e, "sw_high"), 0);
	e = dec("pt", 1 | BIT(63));
	ck_assert_uint_eq(tu_field(&e, "xd"), 1);
	/* a 2 MiB leaf: address 51:21, pat_large 12 */
	e = dec("pd", 1 | BIT(7) | 0x000fffffffe00000ull | BIT(12));
	ck_assert_uint_eq(tu_field(&e, "address"), 0x000fffffffe00000ull);
	ck_assert_uint_eq(tu_field(&e, "pat_large"), 1);
	ck_assert_uint_eq(e.reserved_mask[0], 0);
	/* a 1 GiB leaf: address 51:30 */
	e = dec("pdpt", 1 | BIT(7) | 0x000fffffc0000000ull);
	ck_assert_uint_eq(tu_field(&e, "address"), 0x000fffffc0000000ull);
	ck_assert_uint_eq(e.page_size, 1ull << 30);
	/* a pointer: bits 6 and 8 ignored, 62:52 ignored (sw_high), no dirty/global/pkey */
	e = dec("pdpt", 1 | BIT(6) | BIT(8) | (0x7ffull << 52) | 0x5000);
	ck_assert_int_eq(e.state, PT_ST_POINTER);
	ck_assert_uint_eq(tu_field(&e, "ignored"), BIT(6) | BIT(8));
	ck_assert_uint_eq(tu_field(&e, "sw_high"), 0x7ff);
	ck_assert_uint_eq(e.reserved_mask[0], 0);
	no_field(&e, "dirty");
	no_field(&e, "global");
	no_field(&e, "protection_key");
	e = dec("pml4", 1 | (7ull << 9) | 0x5000);
	ck_assert_uint_eq(tu_field(&e, "sw"), 7);
	no_field(&e, "ps");   /* bit 7 of a PML4E is reserved, not a field */
}
END_TEST

/* Every reserved rule (SDM tables 4-13..4-19; MAXPHYADDR §4.1.4; NXE §4.6). */
START_TEST(reserved_rules)
{
	struct pt_entry e;

	/* bits 51:M with M = 40 */
	e = dec_ctx("0xd01", 40, "pt", 1 | BIT(40) | 0x1000);
	ck_assert_uint_eq(e.reserved_mask[0], BIT(40));
	e = dec_ctx("0xd01", 40, "pt", 1 | BIT(39) | 0x1000);
	ck_assert_uint_eq(e.reserved_mask[0], 0);
	e = dec_ctx("0xd01", 40, "pml4", 1 | BIT(51) | 0x1000);
	ck_assert_uint_eq(e.reserved_mask[0], BIT(51));
	e = dec_ctx("0xd01", 40, "pd", 1 | BIT(7) | BIT(45) | 0x200000);
	ck_assert_uint_eq(e.reserved_mask[0], BIT(45));
	/* bit 7 of PML4E and PML5E */
	e = dec("pml5", 1 | BIT(7) | 0x1000);
	ck_assert_uint_eq(e.reserved_mask[0], BIT(7));
	e = dec("pml4", 1 | BIT(7) | 0x1000);
	ck_assert_uint_eq(e.reserved_mask[0], BIT(7));
	/* 20:13 of a 2M leaf, 29:13 of a 1G leaf; bit 12 is PAT in both */
	for (unsigned b = 13; b <= 20; b++) {
		e = dec("pd", 1 | BIT(7) | BIT(b));
		ck_assert_uint_eq(e.reserved_mask[0], BIT(b));
	}
	e = dec("pd", 1 | BIT(7) | BIT(21));
	ck_assert_uint_eq(e.reserved_mask[0], 0);
	for (unsigned b = 13; b <= 29; b++) {
		e = dec("pdpt", 1 | BIT(7) | BIT(b));
		ck_assert_uint_eq(e.reserved_mask[0], BIT(b));
	}
	e = dec("pdpt", 1 | BIT(7) | BIT(12) | BIT(30));
	ck_assert_uint_eq(e.reserved_mask[0], 0);
	/* not in a 4K PTE or a pointer: 13..20 are address bits there */
	e = dec("pt", 1 | BIT(13));
	ck_assert_uint_eq(e.reserved_mask[0], 0);
	e = dec("pd", 1 | BIT(13));
	ck_assert_uint_eq(e.reserved_mask[0], 0);
	/* bit 63 without NXE: reserved, at every level, and no xd field */
	e = dec_ctx("0x501", 0, "pt", 1 | BIT(63));
	ck_assert_uint_eq(e.reserved_mask[0], BIT(63));
	no_field(&e, "xd");
	ck_assert(e.perm & PT_PERM_EXEC);
	e = dec_ctx("0x501", 0, "pml5", 1 | BIT(63) | 0x1000);
	ck_assert_uint_eq(e.reserved_mask[0], BIT(63));
	e = dec_ctx("0x501", 0, "pd", 1 | BIT(7) | BIT(63));
	ck_assert_uint_eq(e.reserved_mask[0], BIT(63));
	/* EFER absent: NXE taken as 1 */
	e = dec_ctx(NULL, 0, "pt", 1 | BIT(63));
	ck_assert_uint_eq(e.reserved_mask[0], 0);
	ck_assert_uint_eq(tu_field(&e, "xd"), 1);
	/* not present: nothing is reserved, whatever is set */
	e = dec_ctx("0x501", 40, "pml4", ~1ull);
	ck_assert_int_eq(e.state, PT_ST_INVALID);
	ck_assert_uint_eq(e.reserved_mask[0], 0);
}
END_TEST

START_TEST(key_errors)
{
	key_err("[cpu c]\ncr4 = 0\n", PT_E_VALUE, "cr3");
	key_err("[cpu c]\ncr3 = 0x1000\nla57 = 2\n", PT_E_VALUE, "la57 2 in [cpu c] is not 0 or 1");
	key_err("[cpu c]\ncr3 = 0x1000\nmaxphyaddr = 53\n", PT_E_VALUE,
		"maxphyaddr 53 in [cpu c] is outside 32..52");
	key_err("[cpu c]\ncr3 = 0x1000\nmaxphyaddr = 31\n", PT_E_VALUE, "outside 32..52");
	key_err("[cpu c]\ncr3 = 0x1000\ncr4 = 0x1000\nla57 = 0\n", PT_E_VALUE,
		"la57 0 disagrees with cr4 0x1000 (LA57, bit 12, is 1)");
	key_err("[cpu c]\ncr3 = 0x10000000000\nmaxphyaddr = 40\n", PT_E_VALUE,
		"cr3 0x10000000000 sets bits 51:40, above MAXPHYADDR 40");
	key_err("[cpu c]\ncr3 = 0x1000\nspace = gpa\n", PT_E_VALUE,
		"space 'gpa' in [cpu c] is not a space of x86-64 (sysmem)");
	key_err("[cpu c]\ncr3 = zz\n", PT_E_VALUE, "capture.ini:");
	key_err("[cpu c]\ncr3 = 0x1000\ncr5 = 1\n", PT_E_VALUE, "cr5");
}
END_TEST

/* The context: LA57 from CR4 or la57, PCID masked with CR4.PCIDE, CR3 63:52 ignored. */
START_TEST(context_registers)
{
	static const struct {
		const char *keys;
		uint64_t root;
		const char *root_level;
		unsigned va_bits;
	} cases[] = {
		{"cr3 = 0x1000\n", 0x1000, "pml4", 48},
		{"cr3 = 0x1000\nla57 = 1\n", 0x1000, "pml5", 57},
		{"cr3 = 0x1000\ncr4 = 0x1000\n", 0x1000, "pml5", 57},
		{"cr3 = 0x1000\ncr4 = 0x10a0\nla57 = 1\n", 0x1000, "pml5", 57},
		/* PCIDE: 11:0 is the PCID, masked out */
		{"cr3 = 0x1fff\ncr4 = 0x20000\n", 0x1000, "pml4", 48},
		/* no PCIDE: 11:0 are PWT/PCD and ignored bits: not the root either */
		{"cr3 = 0x1018\n", 0x1000, "pml4", 48},
		/* NOFLUSH (63) and LAM (62:61): not the root (Linux CR3_ADDR_MASK) */
		{"cr3 = 0xe000000000001000\n", 0x1000, "pml4", 48},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char s[256];
		struct tu_cap k;
		const struct pt_context *ctx;

		snprintf(s, sizeof s, "[cpu c]\n%s", cases[i].keys);
		k = load_at(s, 0x1000, zero_page, sizeof zero_page);
		ck_assert_msg(k.rc == PT_OK, "%s: %s", cases[i].keys, pt_capture_error(k.c));
		ctx = pt_capture_context(k.c, 0);
		ck_assert_uint_eq(ctx->root_addr, cases[i].root);
		ck_assert_str_eq(ctx->fmt->levels[0].name, cases[i].root_level);
		ck_assert_uint_eq(ctx->fmt->va_bits, cases[i].va_bits);
		ck_assert(ctx->fmt->va_canonical);
		ck_assert_uint_eq(ctx->fmt->va_digits, 16);
		tu_cap_free(&k);
	}
}
END_TEST

/* A small image at 0x1000: tables written entry by entry (SDM layout). */
static uint8_t img[0x8000];

static void put(uint64_t pa, uint64_t v)
{
	tu_put64(img, sizeof img, pa - 0x1000, v);
}

/*
 * Effective rights (SDM §4.6: R/W and U/S ANDed, XD ORed along the path):
 * PML4 0x1000 -> [0] PDPT 0x2000 (RW=0) -> [0] PD 0x3000 -> [0] PT 0x4000 (US=0)
 * -> [0] a RW US leaf; PML4[1] (XD) -> PDPT 0x5000 -> [0] 1 GiB RW US leaf.
 */
START_TEST(effective_rights)
{
	struct tu_cap k;
	const struct pt_context *ctx;
	struct pt_walk w;
	struct pt_page_iter it;
	struct pt_page pg;
	char flags[PT_FLAGS_LEN];

	memset(img, 0, sizeof img);
	put(0x1000, 0x2000 | 0x25);        /* P US A, RW=0 */
	put(0x2000, 0x3000 | 0x27);
	put(0x3000, 0x4000 | 0x23);        /* P RW A, US=0 */
	put(0x4000, 0x100000 | 0x67);      /* P RW US A D */
	put(0x1008, 0x5000 | 0x27 | BIT(63));
	put(0x5000, 0x40000000 | 0xe7);    /* 1G P RW US A D PS */
	k = load_at("[cpu c]\ncr3 = 0x1000\nefer = 0xd01\n", 0x1000, img, sizeof img);
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ctx = pt_capture_context(k.c, 0);
	pt_walk_va(ctx, 0x123, &w);
	ck_assert_int_eq(w.fault, PT_FAULT_NONE);
	ck_assert_uint_eq(w.pa, 0x100123);
	ck_assert(w.perm & PT_PERM_NO_WRITE);
	ck_assert(w.perm & PT_PERM_PRIVILEGE);
	ck_assert(w.perm & PT_PERM_EXEC);
	pt_format_flags(ctx->fmt, &w.steps[w.leaf_step].entry, flags, sizeof flags);
	ck_assert_str_eq(flags, "-");
	/* the leaf's own fields stay its own */
	ck_assert_uint_eq(tu_field(&w.steps[w.leaf_step].entry, "writable"), 1);
	pt_walk_va(ctx, 0x8000001234ull, &w);
	ck_assert_int_eq(w.fault, PT_FAULT_NONE);
	ck_assert_uint_eq(w.pa, 0x40001234);
	ck_assert(!(w.perm & PT_PERM_EXEC));
	ck_assert(!(w.perm & (PT_PERM_NO_WRITE | PT_PERM_PRIVILEGE)));
	pt_format_flags(ctx->fmt, &w.steps[w.leaf_step].entry, flags, sizeof flags);
	ck_assert_str_eq(flags, "writable,user,xd");
	/* the page iterator (va/, maps) gives the same rights */
	pt_pages_init(&it, ctx, 0, NULL);
	ck_assert(pt_pages_next(&it, &pg));
	ck_assert_uint_eq(pg.va, 0);
	ck_assert(pg.leaf.perm & PT_PERM_NO_WRITE);
	ck_assert(pg.leaf.perm & PT_PERM_PRIVILEGE);
	ck_assert(pt_pages_next(&it, &pg));
	ck_assert_uint_eq(pg.va, 0x8000000000ull);
	ck_assert(!(pg.leaf.perm & PT_PERM_EXEC));
	tu_cap_free(&k);
}
END_TEST

/* Index arithmetic (formats-next §V.C) and non-canonical VAs, 4- and 5-level. */
START_TEST(indices_and_canonical)
{
	static const struct {
		const char *keys;
		uint64_t va;
		unsigned n;
		uint64_t idx[5];
	} cases[] = {
		{"la57 = 0\n", 0xffff888012345678ull, 4, {0x111, 0, 0x91, 0x145}},
		{"la57 = 1\n", 0xff11000012345678ull, 5, {0x111, 0, 0, 0x91, 0x145}},
		{"la57 = 0\n", 0x00007fffdeadbeefull, 4, {0xff, 0x1ff, 0xf5, 0xdb}},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char s[128];
		struct tu_cap k;
		struct pt_walk w;

		/* a chain of pointers at the vector's indices, the leaf at 0x12345000 */
		memset(img, 0, sizeof img);
		for (unsigned l = 0; l < cases[i].n; l++) {
			uint64_t next = l + 1 < cases[i].n ? 0x2000 + 0x1000ull * l : 0x12345000;

			put(0x1000 + 0x1000ull * l + 8 * cases[i].idx[l], next | 0x67);
		}
		snprintf(s, sizeof s, "[cpu c]\ncr3 = 0x1000\n%s", cases[i].keys);
		k = load_at(s, 0x1000, img, sizeof img);
		ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
		pt_walk_va(pt_capture_context(k.c, 0), cases[i].va, &w);
		ck_assert_int_eq(w.fault, PT_FAULT_NONE);
		ck_assert_uint_eq(w.nsteps, cases[i].n);
		for (unsigned l = 0; l < cases[i].n; l++)
			ck_assert_uint_eq(w.steps[l].index, cases[i].idx[l]);
		ck_assert_uint_eq(w.pa, 0x12345000 | (cases[i].va & 0xfff));
		tu_cap_free(&k);
	}
	/* non-canonical: 63:47 (4-level) / 63:56 (5-level) not all equal; no table read */
	{
		struct tu_cap k4 = load_at("[cpu c]\ncr3 = 0x1000\n", 0x1000, zero_page, sizeof zero_page);
		struct tu_cap k5 = load_at("[cpu c]\ncr3 = 0x1000\nla57 = 1\n", 0x1000, zero_page,
					sizeof zero_page);
		struct pt_walk w;

		pt_walk_va(pt_capture_context(k4.c, 0), 0x0000800000000000ull, &w);
		ck_assert_int_eq(w.fault, PT_FAULT_NONCANONICAL);
		ck_assert_uint_eq(w.nsteps, 0);
		pt_walk_va(pt_capture_context(k4.c, 0), 0xffff800000000000ull, &w);
		ck_assert_int_eq(w.fault, PT_FAULT_UNMAPPED);
		pt_walk_va(pt_capture_context(k5.c, 0), 0x0000800000000000ull, &w);
		ck_assert_int_eq(w.fault, PT_FAULT_UNMAPPED);
		pt_walk_va(pt_capture_context(k5.c, 0), 0x0100000000000000ull, &w);
		ck_assert_int_eq(w.fault, PT_FAULT_NONCANONICAL);
		pt_walk_va(pt_capture_context(k5.c, 0), 0xff00000000000000ull, &w);
		ck_assert_int_eq(w.fault, PT_FAULT_UNMAPPED);
		tu_cap_free(&k4);
		tu_cap_free(&k5);
	}
}
END_TEST

/* The fixtures: a few walks of each (all of them: test_cli.sh against the .expect files). */
START_TEST(fixture_walks)
{
	struct pt_capture *c = pt_capture_new();
	const struct pt_context *ctx;
	struct pt_walk w;

	ck_assert_int_eq(pt_capture_load(c, tu_fixture("x86-64-4level.tar.gz")), PT_OK);
	ctx = pt_capture_context_find(c, "cpu0");
	ck_assert_ptr_nonnull(ctx);
	ck_assert_uint_eq(ctx->root_addr, 0x100000);   /* CR3 0x100005: PCID 5 masked */
	pt_walk_va(ctx, 0xffff888040201000ull, &w);
	ck_assert_int_eq(w.fault, PT_FAULT_NONE);
	ck_assert_uint_eq(w.pa, 0xfed000);
	ck_assert_uint_eq(w.page_va, 0xffff888040201000ull);
	pt_walk_va(ctx, 0x6000, &w);   /* address bit 47 above MAXPHYADDR 46 */
	ck_assert_int_eq(w.fault, PT_FAULT_RESERVED_BITS);
	ctx = pt_capture_context_find(c, "nonx");
	pt_walk_va(ctx, 0xffff888000000000ull, &w);
	ck_assert_int_eq(w.fault, PT_FAULT_RESERVED_BITS);
	pt_capture_free(c);
	c = pt_capture_new();
	ck_assert_int_eq(pt_capture_load(c, tu_fixture("x86-64-5level.tar.gz")), PT_OK);
	ctx = pt_capture_context(c, 0);
	ck_assert_str_eq(ctx->fmt->levels[0].name, "pml5");
	pt_walk_va(ctx, 0xff11000012345678ull, &w);
	ck_assert_int_eq(w.fault, PT_FAULT_NONE);
	ck_assert_uint_eq(w.pa, 0x12345678);
	pt_capture_free(c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("x86_64");
	TCase *tc = tcase_create("entries");

	tcase_add_test(tc, vc_vectors);
	tcase_add_test(tc, fields_one_by_one);
	tcase_add_test(tc, reserved_rules);
	suite_add_tcase(s, tc);
	tc = tcase_create("context");
	tcase_add_test(tc, key_errors);
	tcase_add_test(tc, context_registers);
	suite_add_tcase(s, tc);
	tc = tcase_create("walk");
	tcase_add_test(tc, effective_rights);
	tcase_add_test(tc, indices_and_canonical);
	tcase_add_test(tc, fixture_walks);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
