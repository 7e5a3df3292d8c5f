/*
 * test_ver3_pde.c — VER3 PDE and dual PDE vectors, field by field from the
 * bit positions (ver3_util.h).  Part of test_ver3.c (shared: ver3_util.h).
 */
#include "ver3_util.h"

/* ---- PDE (§V.A2) -------------------------------------------------------- */
struct pde_vec {
	const char *name;
	uint64_t raw, doc;
	enum pt_state st;
	unsigned ap, pcf;
	uint64_t addr;
	const char *pcf_name;
	const char *tspace;   /* pointer only */
};

#define PDE(a, p, pa) (D_AP(a) | D_PCF(p) | D_ADDR(pa))

static const struct pde_vec pde_vecs[] = {
	{"N-D01", PDE(0, 0, 0), 0x0000000000000000, PT_ST_UNMAPPED, 0, 0, 0,
	 "INVALID_ATS_ALLOWED", NULL},
	{"N-D02", PDE(0, 1, 0), 0x0000000000000008, PT_ST_SPARSE, 0, 1, 0,
	 "SPARSE_ATS_ALLOWED", NULL},
	{"N-D03", PDE(0, 2, 0), 0x0000000000000010, PT_ST_INVALID, 0, 2, 0,
	 "INVALID_ATS_NOT_ALLOWED", NULL},
	{"N-D04", PDE(0, 3, 0), 0x0000000000000018, PT_ST_SPARSE, 0, 3, 0,
	 "SPARSE_ATS_NOT_ALLOWED", NULL},
	{"N-D05", PDE(2, 1, 0x9999999999000), 0x000999999999900C, PT_ST_POINTER, 2, 1,
	 0x9999999999000, "VALID_UNCACHED_ATS_ALLOWED", "sysmem"},
	{"N-D06", PDE(1, 1, 0xBBBBBBB000), 0x000000BBBBBBB00A, PT_ST_POINTER, 1, 1,
	 0xBBBBBBB000, "VALID_UNCACHED_ATS_ALLOWED", "vidmem"},
	{"N-D07", PDE(1, 2, 0x7FF000), 0x00000000007FF012, PT_ST_POINTER, 1, 2, 0x7FF000,
	 "VALID_CACHED_ATS_NOT_ALLOWED", "vidmem"},
	{"N-D08", PDE(2, 1, 0x123456000), 0x000000012345600C, PT_ST_POINTER, 2, 1, 0x123456000,
	 "VALID_UNCACHED_ATS_ALLOWED", "sysmem"},
	{"N-D09", PDE(1, 3, 0x200000), 0x000000000020001A, PT_ST_POINTER, 1, 3, 0x200000,
	 "VALID_UNCACHED_ATS_NOT_ALLOWED", "vidmem"},
	{"N-D10", PDE(3, 0, 0xFFFFF000), 0x00000000FFFFF006, PT_ST_POINTER, 3, 0, 0xFFFFF000,
	 "VALID_CACHED_ATS_ALLOWED", "sysmem"},
	/* Not in §V: the undefined PCF values 4..7 (RM: NOT_SUPPORTED) fail closed. */
	{"pde pcf 4 valid", PDE(1, 4, 0x1000), 0x0000000000001022, PT_ST_UNSUPPORTED, 1, 4,
	 0x1000, NULL, NULL},
	{"pde pcf 7 invalid", PDE(0, 7, 0), 0x0000000000000038, PT_ST_UNSUPPORTED, 0, 7, 0,
	 NULL, NULL},
};

static void check_pde(const struct pde_vec *v, unsigned level, uint64_t raw, uint64_t reserved)
{
	struct pt_entry e = decode(level, 0, raw, 0);
	struct xlist l = {0};

	x(&l, "is_pte", PT_FK_BIT, 0);
	x(&l, "is_leaf", PT_FK_BIT, 0);
	x(&l, "aperture", PT_FK_UINT, v->ap);
	xs(&l, "aperture_name", pde_ap_names[v->ap]);
	x(&l, "pcf", PT_FK_HEX, v->pcf);
	xs(&l, "pcf_name", v->pcf_name);
	x(&l, "uncached", PT_FK_BIT, v->ap != 0 && (v->pcf & 1));
	x(&l, "no_ats", PT_FK_BIT, (v->pcf & 2) != 0);
	x(&l, "address", PT_FK_HEX, v->addr);
	x_reserved(&l, reserved, 0, false);
	check_fields(v->name, &e, &l);
	ck_assert_msg(e.state == v->st, "%s at %s: state %s", v->name,
		      pt_format_ver3.levels[level].name, pt_state_name(e.state));
	ck_assert(!e.leaf);
	ck_assert_int_eq(e.size, 8);
	ck_assert_uint_eq(e.reserved_mask[0], reserved);
	ck_assert(!e.target[1].present);
	ck_assert_int_eq(e.target[0].present, v->st == PT_ST_POINTER);
	if (v->st == PT_ST_POINTER) {
		ck_assert_int_eq(e.target[0].level, (int)level + 1);
		ck_assert_str_eq(pt_format_ver3.spaces[e.target[0].space], v->tspace);
		ck_assert_uint_eq(e.target[0].addr, v->addr);
	}
}

/* Every §V.A2 pointer/invalid/sparse row at each of PD4, PD3, PD2, PD1. */
START_TEST(test_pde_vectors)
{
	const struct pde_vec *v = &pde_vecs[_i];

	ck_assert_msg(v->raw == v->doc, "%s: composed 0x%016llx, documented 0x%016llx", v->name,
		      (unsigned long long)v->raw, (unsigned long long)v->doc);
	for (unsigned level = PDE4; level <= PDE1; level++)
		check_pde(v, level, v->raw, 0);
}
END_TEST

/* Bits 11:6 and 63:52 have no name in a PDE. */
START_TEST(test_pde_reserved)
{
	const struct pde_vec *v = &pde_vecs[5];   /* N-D06, a pointer */

	check_pde(v, PDE3, v->raw | B(1, 6), B(1, 6));
	check_pde(v, PDE1, v->raw | B(0x3f, 6) | B(0xfff, 52), 0xfff0000000000fc0);
}
END_TEST

/*
 * N-D11: IS_PTE at PD1 is a 512 MiB PTE; at PD2 a 256 GiB PTE (the superset:
 * Blackwell only, see test_family); at PD4 and PD3 unsupported.
 */
START_TEST(test_pde_leaf)
{
	const uint64_t raw = D_IS_PTE | T_AP(0) | T_PCF(0) | T_KIND(6) | T_ADDR(0x20000000);
	struct pte_vec v = {.name = "N-D11 pde1", .raw = raw, .st = PT_ST_MAPPED, .valid = 1,
			    .kind = 6, .addr = 0x20000000,
			    .pcf_name = "REGULAR_RW_ATOMIC_CACHED_ACE", .kname = "GENERIC_MEMORY",
			    .psize = 0x20000000, .space = "vidmem"};
	struct xlist l = {0};
	struct pt_entry e;

	ck_assert_uint_eq(raw, 0x0000000020000601);
	e = decode(PDE1, 0, raw, 0);
	x(&l, "is_pte", PT_FK_BIT, 1);
	x(&l, "is_leaf", PT_FK_BIT, 1);
	x_pte(&l, &v);
	x_reserved(&l, 0, 0, false);
	check_fields(v.name, &e, &l);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert(e.leaf);
	ck_assert_uint_eq(e.pa, 0x20000000);
	ck_assert_uint_eq(e.page_size, 1ull << 29);
	ck_assert_str_eq(pt_format_ver3.spaces[e.space], "vidmem");

	e = decode(PDE2, 0, raw, 0);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert_uint_eq(e.page_size, 1ull << 38);
	ck_assert_uint_eq(e.pa, 0x20000000);

	/* A PDE leaf's bits 60:52 are reserved as in any PTE. */
	e = decode(PDE1, 0, raw | B(1, 60), 0);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert_uint_eq(e.reserved_mask[0], B(1, 60));

	for (unsigned level = PDE4; level <= PDE3; level++) {
		e = decode(level, 0, raw, 0);
		ck_assert_int_eq(e.state, PT_ST_UNSUPPORTED);
		ck_assert(!e.leaf && !e.target[0].present);
		ck_assert_uint_eq(pt_entry_field(&e, "is_pte")->v, 1);
		ck_assert_ptr_nonnull(pt_entry_field(&e, "pcf_name"));
		ck_assert_ptr_null(pt_entry_field(&e, "kind"));
	}
}
END_TEST

/* ---- dual PDE (§V.A3) --------------------------------------------------- */
struct dual_vec {
	const char *name;
	uint64_t lo, hi, doc_lo, doc_hi;
	enum pt_state st;
	unsigned apb, pcfb, aps, pcfs;
	uint64_t big, small;
	const char *pcfb_name, *pcfs_name;
	uint64_t res_lo, res_hi;
};

#define QLO(a, p, pa) (Q_AP_BIG(a) | Q_PCF_BIG(p) | Q_ADDR_BIG(pa))
#define QHI(a, p, pa) (Q_AP_SMALL(a) | Q_PCF_SMALL(p) | Q_ADDR_SMALL(pa))

static const struct dual_vec dual_vecs[] = {
	{"N-Q01", QLO(0, 0, 0), QHI(0, 0, 0), 0, 0, PT_ST_UNMAPPED, 0, 0, 0, 0, 0, 0,
	 "INVALID_ATS_ALLOWED", "INVALID_ATS_ALLOWED", 0, 0},
	{"N-Q02", QLO(0, 1, 0), QHI(0, 0, 0), 0x8, 0, PT_ST_SPARSE, 0, 1, 0, 0, 0, 0,
	 "SPARSE_ATS_ALLOWED", "INVALID_ATS_ALLOWED", 0, 0},
	{"N-Q03", QLO(2, 1, 0x9999999999900), QHI(1, 1, 0xBBBBBBB000),
	 0x000999999999990C, 0x000000BBBBBBB00A, PT_ST_POINTER, 2, 1, 1, 1,
	 0x9999999999900, 0xBBBBBBB000, "VALID_UNCACHED_ATS_ALLOWED",
	 "VALID_UNCACHED_ATS_ALLOWED", 0, 0},
	{"N-Q04", QLO(2, 3, 0x9999999999900), QHI(1, 3, 0xBBBBBBB000),
	 0x000999999999991C, 0x000000BBBBBBB01A, PT_ST_POINTER, 2, 3, 1, 3,
	 0x9999999999900, 0xBBBBBBB000, "VALID_UNCACHED_ATS_NOT_ALLOWED",
	 "VALID_UNCACHED_ATS_NOT_ALLOWED", 0, 0},
	{"N-Q05", QLO(1, 1, 0xBBBBBBBB00), QHI(2, 1, 0x9999999999000),
	 0x000000BBBBBBBB0A, 0x000999999999900C, PT_ST_POINTER, 1, 1, 2, 1,
	 0xBBBBBBBB00, 0x9999999999000, "VALID_UNCACHED_ATS_ALLOWED",
	 "VALID_UNCACHED_ATS_ALLOWED", 0, 0},
	{"N-Q06", QLO(0, 0, 0), QHI(2, 1, 0x300000000), 0, 0x000000030000000C, PT_ST_POINTER,
	 0, 0, 2, 1, 0, 0x300000000, "INVALID_ATS_ALLOWED", "VALID_UNCACHED_ATS_ALLOWED", 0, 0},
	{"N-Q07", QLO(1, 2, 0x7FF00), QHI(0, 0, 0), 0x000000000007FF12, 0, PT_ST_POINTER,
	 1, 2, 0, 0, 0x7FF00, 0, "VALID_CACHED_ATS_NOT_ALLOWED", "INVALID_ATS_ALLOWED", 0, 0},
	/* Not in §V: both apertures invalid, PCF 2 (ATS not allowed, no sparse bit): invalid. */
	{"dual invalid ats", QLO(0, 2, 0), QHI(0, 2, 0), 0x10, 0x10, PT_ST_INVALID,
	 0, 2, 0, 2, 0, 0, "INVALID_ATS_NOT_ALLOWED", "INVALID_ATS_NOT_ALLOWED", 0, 0},
	/* PCF_SMALL's bit 0 does not make the slot sparse (RM sets only PCF_BIG's). */
	{"dual small sparse bit", QLO(0, 0, 0), QHI(0, 1, 0), 0, 0x8, PT_ST_INVALID,
	 0, 0, 0, 1, 0, 0, "INVALID_ATS_ALLOWED", "SPARSE_ATS_ALLOWED", 0, 0},
	/* An undefined PCF (4..7) in a half: unsupported. */
	{"dual pcf_big 5", QLO(1, 5, 0x1000), QHI(1, 0, 0x2000), 0x102A, 0x2002,
	 PT_ST_UNSUPPORTED, 1, 5, 1, 0, 0x1000, 0x2000, NULL, "VALID_CACHED_ATS_ALLOWED", 0, 0},
	{"dual pcf_small 6 invalid", QLO(0, 1, 0), QHI(0, 6, 0), 0x8, 0x30, PT_ST_UNSUPPORTED,
	 0, 1, 0, 6, 0, 0, "SPARSE_ATS_ALLOWED", NULL, 0, 0},
	/* Unnamed bits: 7:6, 63:52 (lo); 64, 75:70, 127:116 (hi). */
	{"dual reserved", QLO(1, 0, 0x100) | B(3, 6) | B(0xfff, 52),
	 QHI(1, 0, 0x1000) | B(1, 0) | B(0x3f, 6) | B(0xfff, 52),
	 0xfff00000000001c2, 0xfff0000000001fc3, PT_ST_POINTER, 1, 0, 1, 0, 0x100, 0x1000,
	 "VALID_CACHED_ATS_ALLOWED", "VALID_CACHED_ATS_ALLOWED",
	 0xfff00000000000c0, 0xfff0000000000fc1},
};

START_TEST(test_dual_vectors)
{
	const struct dual_vec *v = &dual_vecs[_i];
	struct pt_entry e;
	struct xlist l = {0};

	ck_assert_msg(v->lo == v->doc_lo && v->hi == v->doc_hi, "%s: composed 0x%016llx:0x%016llx",
		      v->name, (unsigned long long)v->hi, (unsigned long long)v->lo);
	e = decode(PDE0, 0, v->lo, v->hi);
	x(&l, "is_pte", PT_FK_BIT, 0);
	x(&l, "is_leaf", PT_FK_BIT, 0);
	x(&l, "aperture_big", PT_FK_UINT, v->apb);
	xs(&l, "aperture_big_name", pde_ap_names[v->apb]);
	x(&l, "pcf_big", PT_FK_HEX, v->pcfb);
	xs(&l, "pcf_big_name", v->pcfb_name);
	x(&l, "uncached_big", PT_FK_BIT, v->apb != 0 && (v->pcfb & 1));
	x(&l, "no_ats_big", PT_FK_BIT, (v->pcfb & 2) != 0);
	x(&l, "address_big", PT_FK_HEX, v->big);
	x(&l, "aperture_small", PT_FK_UINT, v->aps);
	xs(&l, "aperture_small_name", pde_ap_names[v->aps]);
	x(&l, "pcf_small", PT_FK_HEX, v->pcfs);
	xs(&l, "pcf_small_name", v->pcfs_name);
	x(&l, "uncached_small", PT_FK_BIT, v->aps != 0 && (v->pcfs & 1));
	x(&l, "no_ats_small", PT_FK_BIT, (v->pcfs & 2) != 0);
	x(&l, "address_small", PT_FK_HEX, v->small);
	x_reserved(&l, v->res_lo, v->res_hi, true);
	check_fields(v->name, &e, &l);
	ck_assert_msg(e.state == v->st, "%s: state %s", v->name, pt_state_name(e.state));
	ck_assert_int_eq(e.size, 16);
	ck_assert_uint_eq(e.raw[0], v->lo);
	ck_assert_uint_eq(e.raw[1], v->hi);
	ck_assert(!e.leaf);
	ck_assert_int_eq(e.target[0].present, v->st == PT_ST_POINTER && v->apb != 0);
	ck_assert_int_eq(e.target[1].present, v->st == PT_ST_POINTER && v->aps != 0);
	if (e.target[0].present) {
		ck_assert_int_eq(e.target[0].level, PTE_BIG);
		ck_assert_uint_eq(e.target[0].addr, v->big);
		ck_assert_str_eq(pt_format_ver3.spaces[e.target[0].space],
				 v->apb == 1 ? "vidmem" : "sysmem");
	}
	if (e.target[1].present) {
		ck_assert_int_eq(e.target[1].level, PTE_SMALL);
		ck_assert_uint_eq(e.target[1].addr, v->small);
		ck_assert_str_eq(pt_format_ver3.spaces[e.target[1].space],
				 v->aps == 1 ? "vidmem" : "sysmem");
	}
}
END_TEST

/* N-Q08: lo bit 0 = 1 makes the whole slot a 2 MiB PTE; the high half must be 0. */
START_TEST(test_dual_leaf)
{
	const uint64_t lo = T_VALID | T_AP(0) | T_PCF(0) | T_KIND(6) | T_ADDR(0x400200000);
	struct pte_vec v = {.name = "N-Q08", .raw = lo, .st = PT_ST_MAPPED, .valid = 1, .kind = 6,
			    .addr = 0x400200000, .pcf_name = "REGULAR_RW_ATOMIC_CACHED_ACE",
			    .kname = "GENERIC_MEMORY", .psize = 0x200000, .space = "vidmem"};
	struct xlist l = {0};
	struct pt_entry e;

	ck_assert_uint_eq(lo, 0x0000000400200601);
	e = decode(PDE0, 0, lo, 0);
	x(&l, "is_pte", PT_FK_BIT, 1);
	x(&l, "is_leaf", PT_FK_BIT, 1);
	x_pte(&l, &v);
	x_reserved(&l, 0, 0, true);
	check_fields(v.name, &e, &l);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert(e.leaf);
	ck_assert_uint_eq(e.pa, 0x400200000);
	ck_assert_uint_eq(e.page_size, 0x200000);
	ck_assert(!e.target[0].present && !e.target[1].present);

	/* Any high bit, and bits 60:52 of the low half, are reserved. */
	e = decode(PDE0, 0, lo | B(1, 55), 0x10);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert_uint_eq(e.reserved_mask[0], B(1, 55));
	ck_assert_uint_eq(e.reserved_mask[1], 0x10);
	ck_assert_uint_eq(pt_entry_field(&e, "reserved_bits")->v, 1);
}
END_TEST

void ver3_add_pde(Suite *s)
{
	TCase *tc;

	tc = tcase_create("pde");
	tcase_add_loop_test(tc, test_pde_vectors, 0, (int)(sizeof pde_vecs / sizeof pde_vecs[0]));
	tcase_add_test(tc, test_pde_reserved);
	tcase_add_test(tc, test_pde_leaf);
	suite_add_tcase(s, tc);

	tc = tcase_create("dual");
	tcase_add_loop_test(tc, test_dual_vectors, 0,
			    (int)(sizeof dual_vecs / sizeof dual_vecs[0]));
	tcase_add_test(tc, test_dual_leaf);
	suite_add_tcase(s, tc);
}
