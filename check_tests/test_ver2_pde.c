/*
 * test_ver2_pde.c — VER2 8-byte PDE, dual PDE0 and 2 MiB PTE-in-PD0 vectors,
 * field by field from the bit positions (ver2_util.h).  Part of test_ver2.c
 * (shared: ver2_util.h).
 */
#include "ver2_util.h"

/* ---- 8-byte PDE vectors ------------------------------------------------ */
struct pde_vec {
	const char *name;
	unsigned level;
	uint64_t raw;
	enum pt_state st;
	uint64_t is_pte, ap, vol, no_ats, asys, avid, peer, addr, rmask;
	const char *tspace;   /* pointer: target space */
	int tlevel;
};

static const struct pde_vec pde_vecs[] = {
	{.name = "pde3 zero", .level = PDE3, .raw = 0, .st = PT_ST_UNMAPPED},
	{.name = "pde3 video", .level = PDE3, .raw = D_AP(1) | D_ADDR(0x201),
	 .st = PT_ST_POINTER, .ap = 1, .asys = 0x201, .avid = 0x201, .addr = 0x201000,
	 .tspace = "vidmem", .tlevel = PDE2},
	{.name = "pde2 sys coherent vol", .level = PDE2,
	 .raw = D_AP(2) | D_VOL | D_ADDR(0x123456789),
	 .st = PT_ST_POINTER, .ap = 2, .vol = 1, .asys = 0x123456789, .avid = 0x1456789,
	 .peer = 1, .addr = 0x123456789000, .tspace = "sysmem", .tlevel = PDE1},
	{.name = "pde1 sys noncoherent no_ats", .level = PDE1,
	 .raw = D_AP(3) | D_NO_ATS | D_ADDR(0x3fffffffffff),
	 .st = PT_ST_POINTER, .ap = 3, .no_ats = 1, .asys = 0x3fffffffffff, .avid = 0x1ffffff,
	 .peer = 7, .addr = 0x3fffffffffff000, .tspace = "sysmem", .tlevel = PDE0},
	/* A video pointer's address is ADDRESS_VID only: PEER bits do not move it. */
	{.name = "pde2 video peer bits", .level = PDE2, .raw = D_AP(1) | D_ADDR(0x5) | D_PEER(3),
	 .st = PT_ST_POINTER, .ap = 1, .asys = 0x6000005, .avid = 0x5, .peer = 3, .addr = 0x5000,
	 .tspace = "vidmem", .tlevel = PDE1},
	{.name = "pde2 sparse", .level = PDE2, .raw = D_VOL, .st = PT_ST_SPARSE, .vol = 1},
	{.name = "pde1 invalid no_ats", .level = PDE1, .raw = D_NO_ATS, .st = PT_ST_INVALID,
	 .no_ats = 1},
	{.name = "pde3 invalid address", .level = PDE3, .raw = D_ADDR(0x77), .st = PT_ST_INVALID,
	 .asys = 0x77, .avid = 0x77},
	/* VER2 allows a PTE only in PD0. */
	{.name = "pde2 is_pte unsupported", .level = PDE2, .raw = D_IS_PTE | D_AP(1) | D_ADDR(0x9),
	 .st = PT_ST_UNSUPPORTED, .is_pte = 1, .ap = 1, .asys = 9, .avid = 9, .addr = 0x9000},
	{.name = "pde3 is_pte unsupported", .level = PDE3, .raw = D_IS_PTE,
	 .st = PT_ST_UNSUPPORTED, .is_pte = 1},
	{.name = "pde1 is_pte unsupported", .level = PDE1, .raw = D_IS_PTE | D_VOL,
	 .st = PT_ST_UNSUPPORTED, .is_pte = 1, .vol = 1},
	{.name = "pde3 reserved bit 4", .level = PDE3, .raw = D_AP(1) | B(1, 4) | D_ADDR(1),
	 .st = PT_ST_POINTER, .ap = 1, .asys = 1, .avid = 1, .addr = 0x1000, .rmask = 0x10,
	 .tspace = "vidmem", .tlevel = PDE2},
	{.name = "pde1 reserved 63:54", .level = PDE1, .raw = D_AP(1) | B(0x3ff, 54) | D_ADDR(1),
	 .st = PT_ST_POINTER, .ap = 1, .asys = 1, .avid = 1, .addr = 0x1000,
	 .rmask = 0xffc0000000000000ull, .tspace = "vidmem", .tlevel = PDE0},
	{.name = "pde2 reserved bit 54 only", .level = PDE2, .raw = B(1, 54),
	 .st = PT_ST_INVALID, .rmask = 1ull << 54},
	/* Bits 7:6 have no official name (DOC-TU104: only 5 is NO_ATS). */
	{.name = "pde2 reserved bits 7:6", .level = PDE2, .raw = D_AP(1) | B(3, 6) | D_ADDR(1),
	 .st = PT_ST_POINTER, .ap = 1, .asys = 1, .avid = 1, .addr = 0x1000, .rmask = 0xc0,
	 .tspace = "vidmem", .tlevel = PDE1},
	{.name = "pde1 reserved bit 6 only", .level = PDE1, .raw = B(1, 6),
	 .st = PT_ST_INVALID, .rmask = 0x40},
	{.name = "pde3 reserved bit 7 sparse", .level = PDE3, .raw = D_VOL | B(1, 7),
	 .st = PT_ST_SPARSE, .vol = 1, .rmask = 0x80},
	/* Every unnamed bit at once: 4, 7:6, 63:54; NO_ATS (5) is named. */
	{.name = "pde1 every unnamed bit", .level = PDE1,
	 .raw = D_AP(2) | B(1, 4) | D_NO_ATS | B(3, 6) | B(0x3ff, 54) | D_ADDR(0x77),
	 .st = PT_ST_POINTER, .ap = 2, .no_ats = 1, .asys = 0x77, .avid = 0x77, .addr = 0x77000,
	 .rmask = 0xffc00000000000d0ull, .tspace = "sysmem", .tlevel = PDE0},
};

START_TEST(pde_vectors)
{
	const struct pde_vec *v = &pde_vecs[_i];
	struct pt_entry e = decode(v->level, 0, v->raw, 0);
	struct xlist l = {0};

	ck_assert_uint_eq(e.size, 8);
	ck_assert_uint_eq(e.raw[0], v->raw);
	x_is_pte(&l, v->is_pte);
	x(&l, "aperture", PT_FK_UINT, v->ap);
	xs(&l, "aperture_name", pde_ap_names[v->ap]);
	x(&l, "volatile", PT_FK_BIT, v->vol);
	x(&l, "no_ats", PT_FK_BIT, v->no_ats);
	x(&l, "address_sys", PT_FK_HEX, v->asys);
	l.f[l.n - 1].flags = PT_FF_JSON_ONLY;
	x(&l, "address_vid", PT_FK_HEX, v->avid);
	l.f[l.n - 1].flags = PT_FF_JSON_ONLY;
	x(&l, "peer_id", PT_FK_UINT, v->peer);
	x(&l, "address", PT_FK_HEX, v->addr);
	x_reserved(&l, v->rmask, 0, false);
	check_fields(v->name, &e, &l);

	ck_assert_msg(e.state == v->st, "%s: state %s", v->name, pt_state_name(e.state));
	ck_assert_uint_eq(e.reserved_mask[0], v->rmask);
	ck_assert_uint_eq(e.reserved_mask[1], 0);
	ck_assert(!e.leaf);
	ck_assert_int_eq(e.kind, -1);
	ck_assert(!e.target[1].present);
	ck_assert_int_eq(e.target[0].present, v->st == PT_ST_POINTER);
	if (v->st == PT_ST_POINTER) {
		ck_assert_int_eq(e.target[0].level, v->tlevel);
		ck_assert_str_eq(pt_format_ver2.spaces[e.target[0].space], v->tspace);
		ck_assert_uint_eq(e.target[0].addr, v->addr);
	}
}
END_TEST

/* ---- dual PDE0 vectors ------------------------------------------------- */
struct dual_vec {
	const char *name;
	uint64_t lo, hi;
	enum pt_state st;
	uint64_t apb, volb, no_ats, absys, abvid, peerb, big;
	uint64_t aps, vols, assys, asvid, peers, small;
	uint64_t rlo, rhi;
	const char *big_space, *small_space;   /* targets, NULL when absent */
};

static const struct dual_vec dual_vecs[] = {
	{.name = "pd0 zero", .st = PT_ST_UNMAPPED},
	{.name = "pd0 big only video", .lo = DL_AP_BIG(1) | DL_ADDR_BIG(0x2010),
	 .st = PT_ST_POINTER, .apb = 1, .absys = 0x2010, .abvid = 0x2010, .big = 0x201000,
	 .big_space = "vidmem"},
	{.name = "pd0 small only sys coherent", .hi = DH_AP_SMALL(2) | DH_ADDR_SMALL(0x345),
	 .st = PT_ST_POINTER, .aps = 2, .assys = 0x345, .asvid = 0x345, .small = 0x345000,
	 .small_space = "sysmem"},
	{.name = "pd0 both", .lo = DL_AP_BIG(3) | DL_ADDR_BIG(0x123456789ab),
	 .hi = DH_AP_SMALL(1) | DH_VOL_SMALL | DH_ADDR_SMALL(0x1ffffff),
	 .st = PT_ST_POINTER, .apb = 3, .no_ats = 1, .absys = 0x123456789ab, .abvid = 0x56789ab,
	 .peerb = 2, .big = 0x123456789ab00,
	 .aps = 1, .vols = 1, .assys = 0x1ffffff, .asvid = 0x1ffffff, .small = 0x1ffffff000,
	 .big_space = "sysmem", .small_space = "vidmem"},
	{.name = "pd0 big sys max", .lo = DL_AP_BIG(2) | DL_ADDR_BIG(0x3ffffffffffff),
	 .st = PT_ST_POINTER, .apb = 2, .no_ats = 1, .absys = 0x3ffffffffffff, .abvid = 0x1fffffff,
	 .peerb = 7, .big = 0x3ffffffffffff00, .big_space = "sysmem"},
	{.name = "pd0 small sys max", .hi = DH_AP_SMALL(3) | DH_ADDR_SMALL(0x3fffffffffff),
	 .st = PT_ST_POINTER, .aps = 3, .assys = 0x3fffffffffff, .asvid = 0x1ffffff,
	 .peers = 7, .small = 0x3fffffffffff000, .small_space = "sysmem"},
	{.name = "pd0 sparse", .lo = DL_VOL_BIG, .st = PT_ST_SPARSE, .volb = 1},
	{.name = "pd0 invalid vol_small", .hi = DH_VOL_SMALL, .st = PT_ST_INVALID, .vols = 1},
	{.name = "pd0 invalid no_ats", .lo = DL_NO_ATS, .st = PT_ST_INVALID, .no_ats = 1,
	 .absys = 0x2, .abvid = 0x2},
	/*
	 * Raw bit 5 is NO_ATS and also address bit 9 (field bit 1): reported as
	 * no_ats and kept in the address.  nouveau packs 256-byte big tables in
	 * 0x100 slots of a page, so tables at page+0x200 / +0x300 set it.
	 */
	{.name = "pd0 big at page+0x200 keeps bit 9", .lo = DL_AP_BIG(1) | DL_ADDR_BIG(0x52),
	 .st = PT_ST_POINTER, .apb = 1, .no_ats = 1, .absys = 0x52, .abvid = 0x52,
	 .big = 0x5200, .big_space = "vidmem"},
	{.name = "pd0 big at page+0x300 keeps bit 9", .lo = DL_AP_BIG(2) | DL_ADDR_BIG(0x1000053),
	 .st = PT_ST_POINTER, .apb = 2, .no_ats = 1, .absys = 0x1000053, .abvid = 0x1000053,
	 .big = 0x100005300, .big_space = "sysmem"},
	{.name = "pd0 no_ats is address bit 9", .lo = DL_AP_BIG(1) | DL_NO_ATS | DL_ADDR_BIG(0x2010),
	 .st = PT_ST_POINTER, .apb = 1, .no_ats = 1, .absys = 0x2012, .abvid = 0x2012,
	 .big = 0x201200, .big_space = "vidmem"},
	/* In the dual PDE bits 4, 7:6 are address bits 8, 11:10, not reserved. */
	{.name = "pd0 bits 7:4 are address", .lo = DL_AP_BIG(1) | B(0xd, 4),
	 .st = PT_ST_POINTER, .apb = 1, .absys = 0xd, .abvid = 0xd, .big = 0xd00,
	 .big_space = "vidmem"},
	/* The 64K table needs only 256-byte alignment: field bit 0 is address bit 8. */
	{.name = "pd0 big 256B aligned", .lo = DL_AP_BIG(1) | DL_ADDR_BIG(0x2011),
	 .st = PT_ST_POINTER, .apb = 1, .absys = 0x2011, .abvid = 0x2011, .big = 0x201100,
	 .big_space = "vidmem"},
	{.name = "pd0 peer ids", .lo = DL_AP_BIG(1) | DL_ADDR_BIG(0x10) | DL_PEER_BIG(2),
	 .hi = DH_AP_SMALL(1) | DH_ADDR_SMALL(0x20) | DH_PEER_SMALL(6),
	 .st = PT_ST_POINTER, .apb = 1, .absys = 0x40000010, .abvid = 0x10, .peerb = 2,
	 .big = 0x1000, .aps = 1, .assys = 0xc000020, .asvid = 0x20, .peers = 6,
	 .small = 0x20000, .big_space = "vidmem", .small_space = "vidmem"},
	{.name = "pd0 reserved 63:54", .lo = DL_AP_BIG(1) | DL_ADDR_BIG(0x10) | B(0x3ff, 54),
	 .st = PT_ST_POINTER, .apb = 1, .absys = 0x10, .abvid = 0x10, .big = 0x1000,
	 .rlo = 0xffc0000000000000ull, .big_space = "vidmem"},
	{.name = "pd0 reserved 64", .hi = B(1, 64 - 64), .st = PT_ST_INVALID, .rhi = 0x1},
	{.name = "pd0 reserved 71:68", .hi = DH_AP_SMALL(2) | DH_ADDR_SMALL(1) | B(0xf, 68 - 64),
	 .st = PT_ST_POINTER, .aps = 2, .assys = 1, .asvid = 1, .small = 0x1000, .rhi = 0xf0,
	 .small_space = "sysmem"},
	{.name = "pd0 reserved 127:118", .hi = DH_AP_SMALL(2) | DH_ADDR_SMALL(1) | B(0x3ff, 118 - 64),
	 .st = PT_ST_POINTER, .aps = 2, .assys = 1, .asvid = 1, .small = 0x1000,
	 .rhi = 0xffc0000000000000ull, .small_space = "sysmem"},
	{.name = "pd0 reserved sparse", .lo = DL_VOL_BIG | B(1, 60), .st = PT_ST_SPARSE,
	 .volb = 1, .rlo = 1ull << 60},
	/* Every unnamed bit at once (docs/design.md §2.1): 54-64, 68-71, 118-127. */
	{.name = "pd0 every unnamed bit", .lo = DL_AP_BIG(1) | DL_ADDR_BIG(0x10) | B(0x3ff, 54),
	 .hi = DH_AP_SMALL(1) | DH_ADDR_SMALL(0x20) | B(1, 64 - 64) | B(0xf, 68 - 64) |
	       B(0x3ff, 118 - 64),
	 .st = PT_ST_POINTER, .apb = 1, .absys = 0x10, .abvid = 0x10, .big = 0x1000,
	 .aps = 1, .assys = 0x20, .asvid = 0x20, .small = 0x20000,
	 .rlo = 0xffc0000000000000ull, .rhi = 0xffc00000000000f1ull,
	 .big_space = "vidmem", .small_space = "vidmem"},
};

START_TEST(dual_vectors)
{
	const struct dual_vec *v = &dual_vecs[_i];
	struct pt_entry e = decode(PDE0, 0, v->lo, v->hi);
	struct xlist l = {0};

	ck_assert_uint_eq(e.size, 16);
	ck_assert_uint_eq(e.raw[0], v->lo);
	ck_assert_uint_eq(e.raw[1], v->hi);
	x_is_pte(&l, 0);
	x(&l, "aperture_big", PT_FK_UINT, v->apb);
	xs(&l, "aperture_big_name", pde_ap_names[v->apb]);
	x(&l, "volatile_big", PT_FK_BIT, v->volb);
	x(&l, "no_ats", PT_FK_BIT, v->no_ats);
	x(&l, "address_big_sys", PT_FK_HEX, v->absys);
	l.f[l.n - 1].flags = PT_FF_JSON_ONLY;
	x(&l, "address_big_vid", PT_FK_HEX, v->abvid);
	l.f[l.n - 1].flags = PT_FF_JSON_ONLY;
	x(&l, "peer_id_big", PT_FK_UINT, v->peerb);
	x(&l, "address_big", PT_FK_HEX, v->big);
	x(&l, "aperture_small", PT_FK_UINT, v->aps);
	xs(&l, "aperture_small_name", pde_ap_names[v->aps]);
	x(&l, "volatile_small", PT_FK_BIT, v->vols);
	x(&l, "address_small_sys", PT_FK_HEX, v->assys);
	l.f[l.n - 1].flags = PT_FF_JSON_ONLY;
	x(&l, "address_small_vid", PT_FK_HEX, v->asvid);
	l.f[l.n - 1].flags = PT_FF_JSON_ONLY;
	x(&l, "peer_id_small", PT_FK_UINT, v->peers);
	x(&l, "address_small", PT_FK_HEX, v->small);
	x_reserved(&l, v->rlo, v->rhi, true);
	check_fields(v->name, &e, &l);

	ck_assert_msg(e.state == v->st, "%s: state %s", v->name, pt_state_name(e.state));
	ck_assert_uint_eq(e.reserved_mask[0], v->rlo);
	ck_assert_uint_eq(e.reserved_mask[1], v->rhi);
	ck_assert(!e.leaf);
	ck_assert_int_eq(e.target[0].present, v->big_space != NULL);
	ck_assert_int_eq(e.target[1].present, v->small_space != NULL);
	if (v->big_space) {
		ck_assert_int_eq(e.target[0].level, PTE_BIG);
		ck_assert_str_eq(pt_format_ver2.spaces[e.target[0].space], v->big_space);
		ck_assert_uint_eq(e.target[0].addr, v->big);
	}
	if (v->small_space) {
		ck_assert_int_eq(e.target[1].level, PTE_SMALL);
		ck_assert_str_eq(pt_format_ver2.spaces[e.target[1].space], v->small_space);
		ck_assert_uint_eq(e.target[1].addr, v->small);
	}
}
END_TEST

/* ---- 2 MiB PTE in a PD0 slot ------------------------------------------- */
static const struct pte_vec pd0_pte_vecs[] = {
	{.name = "pd0 2M sys", .raw = P_VALID | P_AP(2) | P_ADDR(0x400) | P_KIND(0x06),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 2, .asys = 0x400, .avid = 0x400, .kind = 0x06,
	 .kname = "GENERIC_MEMORY", .known = true, .native = true, .addr = 0x400000,
	 .complete = true, .psize = 0x200000, .space = "sysmem"},
	{.name = "pd0 2M video ro atomic", .raw = P_VALID | P_RO | P_ATOM | P_ADDR(0x1200),
	 .st = PT_ST_MAPPED, .valid = 1, .ro = 1, .atom = 1, .asys = 0x1200, .avid = 0x1200,
	 .kname = "PITCH", .known = true, .native = true, .addr = 0x1200000,
	 .psize = 0x200000, .space = "vidmem",
	 .perm = PT_PERM_READ_ONLY | PT_PERM_ATOMIC_DISABLE},
	{.name = "pd0 2M peer", .raw = P_VALID | P_AP(1) | P_PEER(2) | P_ADDR(0x600),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 1, .asys = 0x4000600, .avid = 0x600, .peer = 2,
	 .kname = "PITCH", .known = true, .native = true, .addr = 0x600000, .complete = true,
	 .psize = 0x200000, .space = "peer2"},
	/* The peer rule in a 2 MiB PTE: COMPTAGLINE 3 is PA[56:37] = 3. */
	{.name = "pd0 2M peer comptagline", .raw = P_VALID | P_AP(1) | P_PEER(1) | P_CTL(3) |
	 P_ADDR(0x600),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 1, .asys = 0x32000600, .avid = 0x600, .peer = 1,
	 .ctl = 0x3, .kname = "PITCH", .known = true, .native = true, .addr = 0x6000600000,
	 .complete = true, .psize = 0x200000, .space = "peer1"},
};
/* High words for the 2 MiB vectors: any set bit there is reserved. */
static const uint64_t pd0_pte_hi[] = {0, 0x1, 0x8000000000000000ull};

START_TEST(pd0_pte_vectors)
{
	for (unsigned h = 0; h < sizeof pd0_pte_hi / sizeof pd0_pte_hi[0]; h++) {
		const struct pte_vec *v = &pd0_pte_vecs[_i];
		struct pt_entry e = decode(PDE0, 0, v->raw, pd0_pte_hi[h]);
		struct xlist l = {0};

		ck_assert_uint_eq(e.size, 16);
		x_is_pte(&l, 1);
		x_pte(&l, v);
		x_reserved(&l, 0, pd0_pte_hi[h], true);
		check_fields(v->name, &e, &l);
		check_pte_semantics(v, &e);
		ck_assert_uint_eq(e.reserved_mask[0], 0);
		ck_assert_uint_eq(e.reserved_mask[1], pd0_pte_hi[h]);
	}
}
END_TEST

void ver2_add_pde(Suite *s)
{
	TCase *tc;

	tc = tcase_create("pde");
	tcase_add_loop_test(tc, pde_vectors, 0, sizeof pde_vecs / sizeof pde_vecs[0]);
	suite_add_tcase(s, tc);

	tc = tcase_create("dual");
	tcase_add_loop_test(tc, dual_vectors, 0, sizeof dual_vecs / sizeof dual_vecs[0]);
	tcase_add_loop_test(tc, pd0_pte_vectors, 0, sizeof pd0_pte_vecs / sizeof pd0_pte_vecs[0]);
	suite_add_tcase(s, tc);
}
