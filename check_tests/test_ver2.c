/*
 * test_ver2: the NVIDIA GMMU VER2 format (docs/design.md §2.1) field by field, the
 * format helpers of core/fmt.c, and the TU10x kind table.
 *
 * Every raw vector is built by shifting values into the bit positions of
 * docs/design.md §2.1 and its sources (§7) (tables 1a-1c), with macros local to this file,
 * and every expected value is written out literally, so a decoder bug can
 * not hide behind a shared encoder.
 */
#include "ver2_util.h"
/* ---- PTE vectors ------------------------------------------------------- */
static const struct pte_vec pte_vecs[] = {
	{.name = "pte zero", .level = PTE_SMALL, .shift = 12, .raw = 0,
	 .st = PT_ST_UNMAPPED, .kname = "PITCH", .known = true, .native = true, .psize = 0x1000},
	{.name = "pte video", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_AP(0) | P_ADDR(0x12345) | P_KIND(0x06),
	 .st = PT_ST_MAPPED, .valid = 1, .asys = 0x12345, .avid = 0x12345, .kind = 0x06,
	 .kname = "GENERIC_MEMORY", .known = true, .native = true, .addr = 0x12345000,
	 .complete = false, .psize = 0x1000, .space = "vidmem"},
	{.name = "pte peer 5", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_AP(1) | P_ADDR(0x1) | P_PEER(5) | P_KIND(0x06),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 1, .asys = 0xa000001, .avid = 0x1, .peer = 5,
	 .kind = 0x06, .kname = "GENERIC_MEMORY", .known = true, .native = true,
	 .addr = 0x1000, .complete = true, .psize = 0x1000, .space = "peer5"},
	{.name = "pte peer 7", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_AP(1) | P_ADDR(0x1ffffff) | P_PEER(7),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 1, .asys = 0xfffffff, .avid = 0x1ffffff, .peer = 7,
	 .kname = "PITCH", .known = true, .native = true,
	 .addr = 0x1ffffff000, .complete = true, .psize = 0x1000, .space = "peer7"},
	/*
	 * Turing peer PTE: ADDRESS_VID 32:8 is PA[36:12] and COMPTAGLINE 55:36
	 * the bits above it (RM kgmmuFmtInitPeerPteFld_TU10X):
	 * address = ((comptagline << 25) | address_vid) << 12, complete.
	 * 0x060000240000010b: valid, peer, vol, address_vid 1, peer 2,
	 * comptagline 2, kind 0x06 -> peer2 PA 0x4000001000.
	 */
	{.name = "pte peer comptagline", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_AP(1) | P_VOL | P_ADDR(0x1) | P_PEER(2) | P_CTL(2) | P_KIND(0x06),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 1, .vol = 1, .asys = 0x24000001, .avid = 0x1,
	 .peer = 2, .ctl = 0x2, .kind = 0x06, .kname = "GENERIC_MEMORY", .known = true,
	 .native = true, .addr = 0x4000001000, .complete = true, .psize = 0x1000,
	 .space = "peer2", .perm = PT_PERM_VOLATILE},
	{.name = "pte peer address max", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_AP(1) | P_ADDR(0x1ffffff) | P_CTL(0xfffff),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 1, .asys = 0x3ffff1ffffff, .avid = 0x1ffffff,
	 .ctl = 0xfffff, .kname = "PITCH", .known = true, .native = true,
	 .addr = 0x1fffffffffff000, .complete = true, .psize = 0x1000, .space = "peer0"},
	/* A big peer PTE: the same rule in a 64 KiB table. */
	{.name = "pte big peer comptagline", .level = PTE_BIG, .shift = 16,
	 .raw = P_VALID | P_AP(1) | P_ADDR(0x10) | P_PEER(0) | P_CTL(0x1),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 1, .asys = 0x10000010, .avid = 0x10,
	 .ctl = 0x1, .kname = "PITCH", .known = true, .native = true,
	 .addr = 0x2000010000, .complete = true, .psize = 0x10000, .space = "peer0"},
	{.name = "pte sys coherent", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_AP(2) | P_ADDR(0x123456789) | P_KIND(0x06),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 2, .asys = 0x123456789, .avid = 0x1456789,
	 .peer = 1, .ctl = 0x12, .kind = 0x06, .kname = "GENERIC_MEMORY", .known = true,
	 .native = true, .addr = 0x123456789000, .complete = true, .psize = 0x1000,
	 .space = "sysmem"},
	{.name = "pte sys noncoherent", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_AP(3) | P_ADDR(0x42),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 3, .asys = 0x42, .avid = 0x42,
	 .kname = "PITCH", .known = true, .native = true, .addr = 0x42000, .complete = true,
	 .psize = 0x1000, .space = "sysmem"},
	{.name = "pte volatile", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_AP(2) | P_VOL | P_ADDR(0x10),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 2, .vol = 1, .asys = 0x10, .avid = 0x10,
	 .kname = "PITCH", .known = true, .native = true, .addr = 0x10000, .complete = true,
	 .psize = 0x1000, .space = "sysmem", .perm = PT_PERM_VOLATILE},
	{.name = "pte encrypted", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_ENC | P_ADDR(0x10),
	 .st = PT_ST_MAPPED, .valid = 1, .enc = 1, .asys = 0x10, .avid = 0x10,
	 .kname = "PITCH", .known = true, .native = true, .addr = 0x10000, .psize = 0x1000,
	 .space = "vidmem", .perm = PT_PERM_ENCRYPTED, .anomaly = true},
	{.name = "pte privilege", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_PRIV | P_ADDR(0x10),
	 .st = PT_ST_MAPPED, .valid = 1, .priv = 1, .asys = 0x10, .avid = 0x10,
	 .kname = "PITCH", .known = true, .native = true, .addr = 0x10000, .psize = 0x1000,
	 .space = "vidmem", .perm = PT_PERM_PRIVILEGE},
	{.name = "pte read_only", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_RO | P_ADDR(0x10),
	 .st = PT_ST_MAPPED, .valid = 1, .ro = 1, .asys = 0x10, .avid = 0x10,
	 .kname = "PITCH", .known = true, .native = true, .addr = 0x10000, .psize = 0x1000,
	 .space = "vidmem", .perm = PT_PERM_READ_ONLY},
	{.name = "pte atomic_disable", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_ATOM | P_ADDR(0x10),
	 .st = PT_ST_MAPPED, .valid = 1, .atom = 1, .asys = 0x10, .avid = 0x10,
	 .kname = "PITCH", .known = true, .native = true, .addr = 0x10000, .psize = 0x1000,
	 .space = "vidmem", .perm = PT_PERM_ATOMIC_DISABLE},
	/* COMPTAGLINE 55:36 overlaps ADDRESS_SYS 53:36; a video address ignores both. */
	{.name = "pte comptagline", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_CTL(0xfffff) | P_ADDR(0x1abcd) | P_KIND(0x08),
	 .st = PT_ST_MAPPED, .valid = 1, .asys = 0x3ffff001abcd, .avid = 0x1abcd,
	 .ctl = 0xfffff, .kind = 0x08, .kname = "GENERIC_MEMORY_COMPRESSIBLE", .known = true,
	 .native = true, .addr = 0x1abcd000, .psize = 0x1000, .space = "vidmem"},
	{.name = "pte kind native 0x0f", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_KIND(0x0f),
	 .st = PT_ST_MAPPED, .valid = 1, .kind = 0x0f, .kname = "SMSKED_MESSAGE", .known = true,
	 .native = true, .psize = 0x1000, .space = "vidmem"},
	{.name = "pte kind known non-native 0xfe", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_KIND(0xfe),
	 .st = PT_ST_MAPPED, .valid = 1, .kind = 0xfe, .kname = "GENERIC_16BX2", .known = true,
	 .native = false, .psize = 0x1000, .space = "vidmem", .anomaly = true},
	{.name = "pte kind known non-native 0x10", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_KIND(0x10),
	 .st = PT_ST_MAPPED, .valid = 1, .kind = 0x10, .kname = "Z16_MS2_2Z", .known = true,
	 .native = false, .psize = 0x1000, .space = "vidmem", .anomaly = true},
	{.name = "pte kind unknown 0x6d", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_KIND(0x6d),
	 .st = PT_ST_MAPPED, .valid = 1, .kind = 0x6d, .kname = NULL, .known = false,
	 .native = false, .psize = 0x1000, .space = "vidmem", .anomaly = true},
	/* The kind of an invalid PTE is ignored by the MMU: no anomaly. */
	{.name = "pte invalid kind unknown", .level = PTE_SMALL, .shift = 12,
	 .raw = P_KIND(0xff),
	 .st = PT_ST_INVALID, .kind = 0xff, .kname = NULL, .psize = 0x1000},
	{.name = "pte sys address max", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_AP(2) | P_ADDR(0x3fffffffffff),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 2, .asys = 0x3fffffffffff, .avid = 0x1ffffff,
	 .peer = 7, .ctl = 0x3ffff, .kname = "PITCH", .known = true, .native = true,
	 .addr = 0x3fffffffffff000, .complete = true, .psize = 0x1000, .space = "sysmem"},
	{.name = "pte vid address max", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_ADDR(0x1ffffff),
	 .st = PT_ST_MAPPED, .valid = 1, .asys = 0x1ffffff, .avid = 0x1ffffff,
	 .kname = "PITCH", .known = true, .native = true, .addr = 0x1ffffff000,
	 .psize = 0x1000, .space = "vidmem"},
	{.name = "pte sys address min", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_AP(2),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 2, .kname = "PITCH", .known = true, .native = true,
	 .addr = 0, .complete = true, .psize = 0x1000, .space = "sysmem"},
	{.name = "pte small sparse", .level = PTE_SMALL, .shift = 12, .raw = P_VOL,
	 .st = PT_ST_SPARSE, .vol = 1, .kname = "PITCH", .known = true, .native = true,
	 .psize = 0x1000, .perm = PT_PERM_VOLATILE},
	/* no_valid_4k exists only in the big table. */
	{.name = "pte small priv invalid", .level = PTE_SMALL, .shift = 12, .raw = P_PRIV,
	 .st = PT_ST_INVALID, .priv = 1, .kname = "PITCH", .known = true, .native = true,
	 .psize = 0x1000, .perm = PT_PERM_PRIVILEGE},
	{.name = "pte small invalid", .level = PTE_SMALL, .shift = 12,
	 .raw = P_AP(2) | P_ADDR(5),
	 .st = PT_ST_INVALID, .ap = 2, .asys = 5, .avid = 5, .kname = "PITCH", .known = true,
	 .native = true, .addr = 0x5000, .complete = true, .psize = 0x1000},
	{.name = "pte loose page_shift 0", .level = PTE_SMALL, .shift = 0,
	 .raw = P_VALID | P_AP(2) | P_ADDR(7),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 2, .asys = 7, .avid = 7, .kname = "PITCH",
	 .known = true, .native = true, .addr = 0x7000, .complete = true, .psize = 0,
	 .space = "sysmem"},
	{.name = "pte all ones", .level = PTE_SMALL, .shift = 12, .raw = ~0ull,
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 3, .vol = 1, .enc = 1, .priv = 1, .ro = 1,
	 .atom = 1, .asys = 0x3fffffffffff, .avid = 0x1ffffff, .peer = 7, .ctl = 0xfffff,
	 .kind = 0xff, .kname = NULL, .known = false, .native = false,
	 .addr = 0x3fffffffffff000, .complete = true, .psize = 0x1000, .space = "sysmem",
	 .perm = PERM_ALL, .anomaly = true},
	{.name = "pte big video", .level = PTE_BIG, .shift = 16,
	 .raw = P_VALID | P_ADDR(0x210) | P_KIND(0x06),
	 .st = PT_ST_MAPPED, .valid = 1, .asys = 0x210, .avid = 0x210, .kind = 0x06,
	 .kname = "GENERIC_MEMORY", .known = true, .native = true, .addr = 0x210000,
	 .psize = 0x10000, .space = "vidmem"},
	{.name = "pte big no_valid_4k", .level = PTE_BIG, .shift = 16, .raw = P_PRIV,
	 .st = PT_ST_NO_VALID_4K, .priv = 1, .kname = "PITCH", .known = true, .native = true,
	 .psize = 0x10000, .perm = PT_PERM_PRIVILEGE},
	/* VOL wins over PRIV: VALID=0, VOL=1 is sparse (UVM keeps VOL 0 for no_valid_4k). */
	{.name = "pte big sparse priv", .level = PTE_BIG, .shift = 16, .raw = P_VOL | P_PRIV,
	 .st = PT_ST_SPARSE, .vol = 1, .priv = 1, .kname = "PITCH", .known = true,
	 .native = true, .psize = 0x10000, .perm = PT_PERM_VOLATILE | PT_PERM_PRIVILEGE},
	{.name = "pte big sparse", .level = PTE_BIG, .shift = 16, .raw = P_VOL,
	 .st = PT_ST_SPARSE, .vol = 1, .kname = "PITCH", .known = true, .native = true,
	 .psize = 0x10000, .perm = PT_PERM_VOLATILE},
	{.name = "pte big invalid", .level = PTE_BIG, .shift = 16, .raw = P_AP(2),
	 .st = PT_ST_INVALID, .ap = 2, .kname = "PITCH", .known = true, .native = true,
	 .complete = true, .psize = 0x10000},
	{.name = "pte big zero", .level = PTE_BIG, .shift = 16, .raw = 0,
	 .st = PT_ST_UNMAPPED, .kname = "PITCH", .known = true, .native = true,
	 .psize = 0x10000},
};

/* The peer vector, as written above field by field. */
_Static_assert((P_VALID | P_AP(1) | P_VOL | P_ADDR(0x1) | P_PEER(2) | P_CTL(2) | P_KIND(0x06)) ==
	       0x060000240000010bull, "peer vector");

START_TEST(pte_vectors)
{
	const struct pte_vec *v = &pte_vecs[_i];
	struct pt_entry e = decode(v->level, v->shift, v->raw, 0);
	struct xlist l = {0};

	ck_assert_uint_eq(e.size, 8);
	ck_assert_uint_eq(e.raw[0], v->raw);
	ck_assert_uint_eq(e.raw[1], 0);
	ck_assert_uint_eq(e.reserved_mask[0], 0);
	ck_assert_uint_eq(e.reserved_mask[1], 0);
	x_pte(&l, v);
	x_reserved(&l, 0, 0, false);
	check_fields(v->name, &e, &l);
	check_pte_semantics(v, &e);
}
END_TEST

START_TEST(level_outside_table)
{
	uint8_t raw[16] = {1};
	struct pt_entry e;

	for (unsigned lv = 6; lv < 10; lv++)
		ck_assert_int_eq(pt_format_ver2.decode(lv, 12, raw, 0, &e), PT_E_UNSUPPORTED);
	ck_assert_int_eq(pt_format_ver2.decode(255, 12, raw, 0, &e), PT_E_UNSUPPORTED);
	ck_assert_int_eq(pt_format_ver2.decode(~0u, 12, raw, 0, &e), PT_E_UNSUPPORTED);
	ck_assert_uint_eq(e.nfields, 0);
	ck_assert_int_eq(e.state, PT_ST_UNSUPPORTED);
	ck_assert(!e.leaf && !e.target[0].present);
}
END_TEST

/* Every state VER2 can produce, one representative each. */
START_TEST(every_state)
{
	static const struct {
		unsigned level;
		uint64_t lo, hi;
		enum pt_state st;
		const char *name;
	} s[] = {
		{PTE_SMALL, 0, 0, PT_ST_UNMAPPED, "unmapped"},
		{PTE_SMALL, P_AP(3), 0, PT_ST_INVALID, "invalid"},
		{PTE_SMALL, P_VOL, 0, PT_ST_SPARSE, "sparse"},
		{PTE_BIG, P_PRIV, 0, PT_ST_NO_VALID_4K, "no_valid_4k"},
		{PDE3, D_AP(1), 0, PT_ST_POINTER, "pointer"},
		{PTE_SMALL, P_VALID, 0, PT_ST_MAPPED, "mapped"},
		{PDE1, D_IS_PTE, 0, PT_ST_UNSUPPORTED, "unsupported"},
	};

	for (unsigned i = 0; i < sizeof s / sizeof s[0]; i++) {
		struct pt_entry e = decode(s[i].level, 12, s[i].lo, s[i].hi);

		ck_assert_int_eq(e.state, s[i].st);
		ck_assert_str_eq(pt_state_name(e.state), s[i].name);
	}
	ck_assert_str_eq(pt_state_name((enum pt_state)99), "unknown");
}
END_TEST

/* ---- format table, helpers --------------------------------------------- */
START_TEST(level_table)
{
	static const struct {
		const char *name;
		unsigned depth, va_shift, bits, size, role, leaf_shift;
		int c0, c1;
	} want[] = {
		{"pde3", 0, 47, 2, 8, PT_ROLE_DIR, 0, 1, -1},
		{"pde2", 1, 38, 9, 8, PT_ROLE_DIR, 0, 2, -1},
		{"pde1", 2, 29, 9, 8, PT_ROLE_DIR, 0, 3, -1},
		{"pde0", 3, 21, 8, 16, PT_ROLE_DUAL, 21, 4, 5},
		{"pte_big", 4, 16, 5, 8, PT_ROLE_LEAF, 0, -1, -1},
		{"pte_small", 4, 12, 9, 8, PT_ROLE_LEAF, 0, -1, -1},
	};
	const struct pt_format *f = pt_format_find("nv-gmmu-ver2");

	ck_assert_ptr_eq(f, &pt_format_ver2);
	ck_assert_str_eq(f->name, "nv-gmmu-ver2");
	ck_assert_uint_eq(pt_format_nlevels(f), 6);
	ck_assert_uint_eq(f->va_bits, 49);
	ck_assert_uint_eq(f->va_digits, 13);
	for (unsigned i = 0; i < 6; i++) {
		const struct pt_level *l = &f->levels[i];

		ck_assert_str_eq(l->name, want[i].name);
		ck_assert_uint_eq(l->depth, want[i].depth);
		ck_assert_uint_eq(l->va_shift, want[i].va_shift);
		ck_assert_uint_eq(l->bits, want[i].bits);
		ck_assert_uint_eq(l->entry_size, want[i].size);
		ck_assert_uint_eq(l->role, want[i].role);
		ck_assert_uint_eq(l->leaf_shift, want[i].leaf_shift);
		ck_assert_int_eq(l->child[0], want[i].c0);
		ck_assert_int_eq(l->child[1], want[i].c1);
	}
	ck_assert_ptr_null(f->levels[6].name);
	/* 49-bit VA: the root's va_shift plus its bits, and each level tiles the one above. */
	ck_assert_uint_eq(f->levels[0].va_shift + f->levels[0].bits, 49);
	for (unsigned i = 1; i < 4; i++)
		ck_assert_uint_eq(f->levels[i].va_shift + f->levels[i].bits, f->levels[i - 1].va_shift);
	ck_assert_uint_eq(f->levels[4].va_shift + f->levels[4].bits, 21);
	ck_assert_uint_eq(f->levels[5].va_shift + f->levels[5].bits, 21);
}
END_TEST

START_TEST(spaces)
{
	const struct pt_format *f = &pt_format_ver2;
	static const char *const want[] = {"vidmem", "sysmem", "peer0", "peer1", "peer2", "peer3",
					   "peer4", "peer5", "peer6", "peer7"};
	char name[8];

	for (int i = 0; i < 10; i++) {
		ck_assert_str_eq(f->spaces[i], want[i]);
		ck_assert_int_eq(pt_format_space(f, want[i]), i);
	}
	ck_assert_ptr_null(f->spaces[10]);
	ck_assert_int_eq(pt_format_space(f, "peer8"), -1);
	ck_assert_int_eq(pt_format_space(f, "vram"), -1);
	ck_assert_int_eq(pt_format_space(f, ""), -1);
	ck_assert_int_eq(pt_format_space(f, NULL), -1);
	/* A peer PTE's space id is peer0 + PEER_ID. */
	for (unsigned p = 0; p < 8; p++) {
		struct pt_entry e = decode(PTE_SMALL, 12, P_VALID | P_AP(1) | P_PEER(p), 0);

		snprintf(name, sizeof name, "peer%u", p);
		ck_assert_uint_eq(e.space, (unsigned)pt_format_space(f, name));
	}
}
END_TEST

START_TEST(format_find)
{
	ck_assert_ptr_eq(pt_format_find("amd-gart"), &pt_format_gart);
	ck_assert_ptr_eq(pt_format_find("nv-gmmu-ver3"), &pt_format_ver3);
	ck_assert_ptr_null(pt_format_find("nv-gmmu-ver9"));
	ck_assert_ptr_null(pt_format_find("NV-GMMU-VER2"));
	ck_assert_ptr_null(pt_format_find(""));
	ck_assert_ptr_null(pt_format_find(NULL));
}
END_TEST

/* The format table: order (the first is the default), sections, --kind names, lists. */
START_TEST(format_table)
{
	char buf[128];

	ck_assert_ptr_eq(pt_format_at(0), &pt_format_ver2);
	ck_assert_ptr_eq(pt_format_at(1), &pt_format_gart);
	ck_assert_ptr_eq(pt_format_at(2), &pt_format_ver3);
	ck_assert_ptr_eq(pt_format_at(3), pt_format_find("amd-gpuvm"));
	ck_assert_ptr_eq(pt_format_at(4), pt_format_find("x86-64"));
	ck_assert_ptr_eq(pt_format_at(5), pt_format_find("intel-vtd"));
	ck_assert_ptr_eq(pt_format_at(6), pt_format_find("intel-ept"));
	ck_assert_ptr_eq(pt_format_at(7), pt_format_find("amd-vi"));
	ck_assert_ptr_eq(pt_format_at(8), pt_format_find("arm64"));
	ck_assert_ptr_eq(pt_format_at(9), pt_format_find("arm-smmuv3"));
	ck_assert_ptr_null(pt_format_at(10));
	/* VER3 shares [pdb]: the section names the first format with it (the capture's own wins). */
	ck_assert_ptr_eq(pt_format_by_section("pdb"), &pt_format_ver2);
	ck_assert_ptr_eq(pt_format_by_section("gart"), &pt_format_gart);
	ck_assert_ptr_null(pt_format_by_section("memory"));
	ck_assert_ptr_null(pt_format_by_section("capture"));
	ck_assert_ptr_null(pt_format_by_section(NULL));
	pt_format_list(buf, sizeof buf, ", ", " or ");
	ck_assert_str_eq(buf, "nv-gmmu-ver2, amd-gart, nv-gmmu-ver3, amd-gpuvm, x86-64, intel-vtd, intel-ept, amd-vi, arm64 or arm-smmuv3");
	pt_format_list(buf, 5, ", ", " or ");
	ck_assert_str_eq(buf, "nv-g");
	ck_assert_str_eq(pt_format_ver2.blob_kinds[0].name, "ver2");
	ck_assert_uint_eq(pt_format_ver2.blob_kinds[0].entry_size, 8);
	ck_assert_str_eq(pt_format_ver2.blob_kinds[1].name, "ver2_dual");
	ck_assert_uint_eq(pt_format_ver2.blob_kinds[1].entry_size, 16);
	ck_assert_ptr_null(pt_format_ver2.blob_kinds[2].name);
	ck_assert_str_eq(pt_format_gart.blob_kinds[0].name, "gart");
	ck_assert_ptr_null(pt_format_gart.blob_kinds[1].name);
	ck_assert_str_eq(pt_format_ver3.blob_kinds[0].name, "ver3");
	ck_assert_uint_eq(pt_format_ver3.blob_kinds[0].entry_size, 8);
	ck_assert_str_eq(pt_format_ver3.blob_kinds[1].name, "ver3_dual");
	ck_assert_uint_eq(pt_format_ver3.blob_kinds[1].entry_size, 16);
	ck_assert_ptr_null(pt_format_ver3.blob_kinds[2].name);
	ck_assert_ptr_null(pt_format_ver3.out_of_range);
	/* A format without an out-of-range rule: the walk prints no aperture. */
	ck_assert_ptr_null(pt_format_ver2.out_of_range);
	ck_assert_ptr_nonnull(pt_format_gart.out_of_range);
}
END_TEST

/*
 * The decoder marks what the scan reports: a set "set to 0" bit in any
 * state, and an unnamed or non-native kind in any PTE, valid or not.
 */
START_TEST(entry_anomalies)
{
	static const struct { uint64_t raw; uint32_t want; } v[] = {
		{0, 0},
		{0x1ull | 6ull << 56, 0},                         /* valid, kind 0x06: native */
		{0x1ull | 1ull << 4, PT_EA_ZERO_BITS},            /* encrypted */
		{1ull << 4, PT_EA_ZERO_BITS},                      /* encrypted, not valid */
		{0x1ull | 0x6dull << 56, PT_EA_KIND_UNKNOWN},      /* unnamed kind */
		{0x6dull << 56, PT_EA_KIND_UNKNOWN},               /* unnamed kind, invalid */
		{0x1ull | 0xfeull << 56, PT_EA_KIND_NON_NATIVE},   /* GENERIC_16BX2 */
	};
	struct pt_entry e;
	uint8_t raw[8];

	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		for (int b = 0; b < 8; b++)
			raw[b] = (uint8_t)(v[i].raw >> (8 * b));
		ck_assert_int_eq(pt_format_ver2.decode(5, 12, raw, 0, &e), PT_OK);
		ck_assert_msg(e.anomalies == v[i].want, "vector %zu: 0x%x", i, e.anomalies);
	}
	memset(raw, 0xff, sizeof raw);
	ck_assert_int_eq(pt_format_gart.decode(0, 12, raw, 0, &e), PT_OK);
	ck_assert_uint_eq(e.anomalies, 0);
}
END_TEST

START_TEST(entry_helpers)
{
	static const uint8_t raw[16] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88,
					0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x98};
	struct pt_entry e;
	char key[PT_MAX_FIELDS + 1][8];

	memset(&e, 0x5a, sizeof e);
	pt_entry_reset(&e, 16, raw, 0);
	ck_assert_uint_eq(e.size, 16);
	ck_assert_uint_eq(e.raw[0], 0x8807060504030201ull);
	ck_assert_uint_eq(e.raw[1], 0x9817161514131211ull);
	ck_assert_uint_eq(e.nfields, 0);
	ck_assert_int_eq(e.state, PT_ST_UNMAPPED);
	ck_assert_int_eq(e.kind, -1);
	ck_assert(!e.leaf && !e.anomaly && !e.target[0].present && !e.target[1].present);
	ck_assert_uint_eq(e.reserved_mask[0] | e.reserved_mask[1] | e.pa | e.perm, 0);

	pt_entry_reset(&e, 8, raw, 0);
	ck_assert_uint_eq(e.raw[0], 0x8807060504030201ull);
	ck_assert_uint_eq(e.raw[1], 0);

	pt_entry_add(&e, "a", PT_FK_HEX, 0x1234);
	pt_entry_add_str(&e, "b", "text");
	pt_entry_add_str(&e, "c", NULL);
	pt_entry_add_flags(&e, "d", PT_FK_BIT, 1, PT_FF_JSON_ONLY);
	ck_assert_uint_eq(e.nfields, 4);
	ck_assert_uint_eq(pt_entry_field(&e, "a")->v, 0x1234);
	ck_assert_uint_eq(pt_entry_field(&e, "a")->kind, PT_FK_HEX);
	ck_assert_uint_eq(pt_entry_field(&e, "a")->flags, 0);
	ck_assert_str_eq(pt_entry_field(&e, "b")->s, "text");
	ck_assert_uint_eq(pt_entry_field(&e, "b")->kind, PT_FK_STR);
	ck_assert_ptr_null(pt_entry_field(&e, "c")->s);
	ck_assert_uint_eq(pt_entry_field(&e, "d")->flags, PT_FF_JSON_ONLY);
	ck_assert_ptr_null(pt_entry_field(&e, "e"));

	/* Fill up to the limit exactly (past it asserts in debug builds). */
	pt_entry_reset(&e, 8, raw, 0);
	for (unsigned i = 0; i < PT_MAX_FIELDS; i++) {
		snprintf(key[i], sizeof key[i], "k%u", i);
		pt_entry_add(&e, key[i], PT_FK_UINT, i);
	}
	ck_assert_uint_eq(e.nfields, PT_MAX_FIELDS);
	ck_assert_uint_eq(pt_entry_field(&e, "k47")->v, 47);
}
END_TEST

START_TEST(state_names)
{
	ck_assert_str_eq(pt_state_name(PT_ST_UNMAPPED), "unmapped");
	ck_assert_str_eq(pt_state_name(PT_ST_INVALID), "invalid");
	ck_assert_str_eq(pt_state_name(PT_ST_SPARSE), "sparse");
	ck_assert_str_eq(pt_state_name(PT_ST_NO_VALID_4K), "no_valid_4k");
	ck_assert_str_eq(pt_state_name(PT_ST_POINTER), "pointer");
	ck_assert_str_eq(pt_state_name(PT_ST_MAPPED), "mapped");
	ck_assert_str_eq(pt_state_name(PT_ST_UNSUPPORTED), "unsupported");
	ck_assert_str_eq(pt_state_name((enum pt_state)-1), "unknown");
}
END_TEST

START_TEST(maps_columns)
{
	struct pt_entry e;
	char buf[64];

	e = decode(PTE_SMALL, 12, P_VALID | P_KIND(0x06), 0);
	pt_format_ver2.flags(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "-");
	pt_format_ver2.kind_name(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "GENERIC_MEMORY");

	e = decode(PTE_SMALL, 12, ~0ull, 0);
	pt_format_ver2.flags(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "read_only,atomic_disable,privilege,volatile,encrypted");
	pt_format_ver2.kind_name(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "0xff");

	e = decode(PTE_SMALL, 12, P_VALID | P_RO | P_KIND(0x6d), 0);
	pt_format_ver2.flags(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "read_only");
	pt_format_ver2.kind_name(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "0x6d");

	e = decode(PTE_SMALL, 12, P_VALID | P_ATOM | P_PRIV | P_KIND(0x00), 0);
	pt_format_ver2.flags(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "atomic_disable,privilege");
	pt_format_ver2.kind_name(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "PITCH");

	/* Flag words are the entry files' field names (docs/design.md §4). */
	e = decode(PTE_SMALL, 12, P_VALID | P_VOL | P_ENC, 0);
	pt_format_ver2.flags(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "volatile,encrypted");
	ck_assert_ptr_nonnull(pt_entry_field(&e, "volatile"));
	ck_assert_ptr_nonnull(pt_entry_field(&e, "encrypted"));

	/* A directory entry has no kind. */
	e = decode(PDE3, 0, D_AP(1), 0);
	pt_format_ver2.kind_name(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "-");
}
END_TEST

/* ---- kinds ------------------------------------------------------------- */
START_TEST(kinds_count)
{
	static const unsigned unnamed[] = {0x6d, 0x6e, 0x93, 0x94, 0x95, 0x96, 0xaf, 0xb0,
					   0xb1, 0xb2, 0xc9, 0xca, 0xff};
	unsigned named = 0, u = 0;

	for (unsigned k = 0; k < 256; k++) {
		if (pt_ver2_kind_name(k)) {
			named++;
		} else {
			ck_assert_uint_lt(u, 13);
			ck_assert_msg(k == unnamed[u], "0x%02x has no name", k);
			u++;
		}
		ck_assert_int_eq(pt_ver2_kind_native(k), k <= 0x0f);
	}
	ck_assert_uint_eq(named, 243);
	ck_assert_uint_eq(u, 13);
	ck_assert_ptr_null(pt_ver2_kind_name(256));
	ck_assert_ptr_null(pt_ver2_kind_name(~0u));
	ck_assert(!pt_ver2_kind_native(256));
	/* Spot checks from docs/design.md §2.1 and its sources (§7) */
	ck_assert_str_eq(pt_ver2_kind_name(0x00), "PITCH");
	ck_assert_str_eq(pt_ver2_kind_name(0x07), "INVALID");
	ck_assert_str_eq(pt_ver2_kind_name(0x0f), "SMSKED_MESSAGE");
	ck_assert_str_eq(pt_ver2_kind_name(0x2a), "Z16_2C");
	ck_assert_str_eq(pt_ver2_kind_name(0xfe), "GENERIC_16BX2");
}
END_TEST

START_TEST(kinds_match_tsv)
{
	const char *src = getenv("PTFS_SRCDIR");
	char path[4096], line[256];
	unsigned n = 0, prev = 0;
	FILE *f;

	/* The TSV is part of the repository: a missing one fails, never skips. */
	snprintf(path, sizeof path, "%s/core/formats/kinds_tu104.tsv", src ? src : ".");
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof line, f)) {
		unsigned id;
		char name[128], want[160];

		if (line[0] == '#')   /* the header naming the sources */
			continue;
		ck_assert_msg(sscanf(line, "0x%x\t%127s", &id, name) == 2, "bad line: %s", line);
		/* The file format itself: "0x%02x<TAB>NAME\n", ids strictly ascending. */
		snprintf(want, sizeof want, "0x%02x\t%s\n", id, name);
		ck_assert_str_eq(line, want);
		ck_assert(n == 0 || id > prev);
		ck_assert_msg(pt_ver2_kind_name(id) != NULL, "0x%02x missing", id);
		ck_assert_str_eq(pt_ver2_kind_name(id), name);
		prev = id;
		n++;
	}
	fclose(f);
	ck_assert_uint_eq(n, 243);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("ver2");
	TCase *tc;

	tc = tcase_create("pte");
	tcase_add_loop_test(tc, pte_vectors, 0, sizeof pte_vecs / sizeof pte_vecs[0]);
	suite_add_tcase(s, tc);

	ver2_add_pde(s);

	tc = tcase_create("states");
	tcase_add_test(tc, every_state);
	tcase_add_test(tc, level_outside_table);
	tcase_add_test(tc, state_names);
	suite_add_tcase(s, tc);

	tc = tcase_create("format");
	tcase_add_test(tc, level_table);
	tcase_add_test(tc, spaces);
	tcase_add_test(tc, format_find);
	tcase_add_test(tc, format_table);
	tcase_add_test(tc, entry_anomalies);
	tcase_add_test(tc, entry_helpers);
	tcase_add_test(tc, maps_columns);
	suite_add_tcase(s, tc);

	tc = tcase_create("kinds");
	tcase_add_test(tc, kinds_count);
	tcase_add_test(tc, kinds_match_tsv);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
