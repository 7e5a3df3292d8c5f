/*
 * test_ver3: the NVIDIA GMMU VER3 format (docs/design.md §2.3) field by field:
 * every hand-checked vector of docs/design.md §2.3 (vectors from its sources, §7), all 32
 * PCF values in valid and invalid PTEs, PDE apertures, the dual PD0 halves,
 * reserved bits, kinds, the level table's index arithmetic, the chip-family
 * leaf rule, and §V.A5's constructed walk done level by level from the
 * decoder's own outputs.
 *
 * Every raw vector is composed from its field values with shift macros local
 * to this file (bit positions of formats-next.md A.3-A.5) and also asserted
 * equal to the documented raw value, so neither a decoder bug nor a typo in
 * a vector can hide behind the other.
 *
 * fmt_ver3.c is compiled into this binary so that its static family rule
 * (pt_ver3_leaf_allowed(), which the context hook will call) is tested where it
 * lives; the library's copy of the object is then never linked in.
 */
#include "ver3_util.h"
/*
 * §V.A1, every row.  A zero PTE (N-P01) is `unmapped` here as in VER2 (raw
 * zero is the tree's "nothing here"); its PCF is still INVALID.
 */
static const struct pte_vec pte_vecs[] = {
	{"N-P01", PTE(0, 0, 0x00, 0, 0, 0), 0x0000000000000000, PTE_SMALL, 12, PT_ST_UNMAPPED,
	 0, 0, 0x00, 0, 0, 0, "INVALID", "PITCH", 0x1000, NULL, 0},
	{"N-P02", PTE(0, 0, 0x01, 0, 0, 0), 0x0000000000000008, PTE_SMALL, 12, PT_ST_SPARSE,
	 0, 0, 0x01, 0, 0, 0, "SPARSE", "PITCH", 0x1000, NULL, 0},
	{"N-P03", PTE(0, 0, 0x03, 0, 0, 0), 0x0000000000000018, PTE_BIG, 16, PT_ST_NO_VALID_4K,
	 0, 0, 0x03, 0, 0, 0, "NO_VALID_4KB_PAGE", "PITCH", 0x10000, NULL, 0},
	{"N-P04", PTE(0, 0, 0x02, 0, 0, 0), 0x0000000000000010, PTE_SMALL, 12, PT_ST_UNSUPPORTED,
	 0, 0, 0x02, 0, 0, 0, "MAPPING_NOWHERE", "PITCH", 0x1000, NULL, 0},
	{"N-P05", PTE(0, 0, 0x04, 0, 0, 0), 0x0000000000000020, PTE_SMALL, 12, PT_ST_UNSUPPORTED,
	 0, 0, 0x04, 0, 0, 0, NULL, "PITCH", 0x1000, NULL, 0},
	{"N-P06", PTE(1, 2, 0x11, 6, 0x9999999999000, 0), 0x000999999999968D, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 2, 0x11, 6, 0, 0x9999999999000, "REGULAR_RW_ATOMIC_UNCACHED_ACD",
	 "GENERIC_MEMORY", 0x1000, "sysmem", 0},
	{"N-P07", PTE(1, 2, 0x10, 6, 0x9999999999000, 0), 0x0009999999999685, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 2, 0x10, 6, 0, 0x9999999999000, "REGULAR_RW_ATOMIC_CACHED_ACD",
	 "GENERIC_MEMORY", 0x1000, "sysmem", 0},
	{"N-P08", PTE(1, 2, 0x00, 6, 0x9999999999000, 0), 0x0009999999999605, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 2, 0x00, 6, 0, 0x9999999999000, "REGULAR_RW_ATOMIC_CACHED_ACE",
	 "GENERIC_MEMORY", 0x1000, "sysmem", 0},
	{"N-P09", PTE(1, 2, 0x08, 6, 0x9999999999000, 0), 0x0009999999999645, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 2, 0x08, 6, 0, 0x9999999999000, "REGULAR_RW_NO_ATOMIC_CACHED_ACE",
	 "GENERIC_MEMORY", 0x1000, "sysmem", 0},
	{"N-P10", PTE(1, 2, 0x0C, 6, 0x9999999999000, 0), 0x0009999999999665, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 2, 0x0C, 6, 0, 0x9999999999000, "REGULAR_RO_NO_ATOMIC_CACHED_ACE",
	 "GENERIC_MEMORY", 0x1000, "sysmem", 0},
	{"N-P11", PTE(1, 0, 0x0C, 6, 0xBBBBBBB000, 0), 0x000000BBBBBBB661, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 0, 0x0C, 6, 0, 0xBBBBBBB000, "REGULAR_RO_NO_ATOMIC_CACHED_ACE",
	 "GENERIC_MEMORY", 0x1000, "vidmem", 0},
	{"N-P12", PTE(1, 1, 0x0C, 6, 0xBBBBBBB000, 1), 0x200000BBBBBBB663, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 1, 0x0C, 6, 1, 0xBBBBBBB000, "REGULAR_RO_NO_ATOMIC_CACHED_ACE",
	 "GENERIC_MEMORY", 0x1000, "peer1", 0},
	{"N-P13", PTE(1, 3, 0x01, 0xF, 0, 0), 0x0000000000000F0F, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 3, 0x01, 0xF, 0, 0, "REGULAR_RW_ATOMIC_UNCACHED_ACE",
	 "SMSKED_MESSAGE", 0x1000, "sysmem", 0},
	{"N-P14", PTE(1, 0, 0x1F, 6, 0x2BAD000000, 0), 0x0000002BAD0006F9, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 0, 0x1F, 6, 0, 0x2BAD000000, "PRIVILEGE_RO_NO_ATOMIC_UNCACHED_ACD",
	 "GENERIC_MEMORY", 0x1000, "vidmem", 0},
	{"N-P15", PTE(1, 0, 0x00, 6, 0x12345000, 0), 0x0000000012345601, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 0, 0x00, 6, 0, 0x12345000, "REGULAR_RW_ATOMIC_CACHED_ACE",
	 "GENERIC_MEMORY", 0x1000, "vidmem", 0},
	{"N-P16", PTE(1, 2, 0x0D, 6, 0x800000000, 0), 0x000000080000066D, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 2, 0x0D, 6, 0, 0x800000000, "REGULAR_RO_NO_ATOMIC_UNCACHED_ACE",
	 "GENERIC_MEMORY", 0x1000, "sysmem", 0},
	{"N-P17", PTE(1, 1, 0x18, 6, 0x123400000, 3), 0x60000001234006C3, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 1, 0x18, 6, 3, 0x123400000, "REGULAR_RW_NO_ATOMIC_CACHED_ACD",
	 "GENERIC_MEMORY", 0x1000, "peer3", 0},
	{"N-P18", PTE(1, 2, 0x17, 0, 0xABCDE000, 0), 0x00000000ABCDE0BD, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 2, 0x17, 0, 0, 0xABCDE000, "PRIVILEGE_RO_ATOMIC_UNCACHED_ACD",
	 "PITCH", 0x1000, "sysmem", 0},
	{"N-P19", PTE(1, 0, 0x06, 6, 0x1000000, 0), 0x0000000001000631, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 0, 0x06, 6, 0, 0x1000000, "PRIVILEGE_RO_ATOMIC_CACHED_ACE",
	 "GENERIC_MEMORY", 0x1000, "vidmem", 0},
	/* Bits 60:52 have no name: reserved (the walker refuses the page). */
	{"N-P20", PTE(1, 0, 0x00, 0, 0, 0) | B(1, 52), 0x0010000000000001, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 0, 0x00, 0, 0, 0, "REGULAR_RW_ATOMIC_CACHED_ACE", "PITCH", 0x1000,
	 "vidmem", B(1, 52)},
	/* Not in §V: every undefined bit at once, and the top PEER_ID and address bits. */
	{"pte reserved 60:52", PTE(1, 1, 0, 0, 0x000FFFFFFFFFF000, 7) | 0x1FF0000000000000,
	 0xFFFFFFFFFFFFF003, PTE_BIG, 16, PT_ST_MAPPED, 1, 1, 0, 0, 7, 0x000FFFFFFFFFF000,
	 "REGULAR_RW_ATOMIC_CACHED_ACE", "PITCH", 0x10000, "peer7", 0x1FF0000000000000},
	/* A loose value (page_shift 0): the table, so the page size, is unknown. */
	{"pte loose", PTE(1, 3, 0x04, 8, 0x5000, 0), 0x0000000000005827, PTE_SMALL, 0,
	 PT_ST_MAPPED, 1, 3, 0x04, 8, 0, 0x5000, "REGULAR_RO_ATOMIC_CACHED_ACE",
	 "GENERIC_MEMORY_COMPRESSIBLE", 0, "sysmem", 0},
	/* PCF INVALID with other bits set: invalid, not unmapped. */
	{"pte invalid nonzero", PTE(0, 2, 0x00, 6, 0x7000, 0), 0x0000000000007604, PTE_SMALL, 12,
	 PT_ST_INVALID, 0, 2, 0x00, 6, 0, 0x7000, "INVALID", "GENERIC_MEMORY", 0x1000, NULL, 0},
	/* NO_VALID_4KB_PAGE is a hardware PCF value, so a small PTE carrying it is no_valid_4k too. */
	{"pte small no_valid_4k", PTE(0, 0, 0x03, 0, 0, 0), 0x0000000000000018, PTE_SMALL, 12,
	 PT_ST_NO_VALID_4K, 0, 0, 0x03, 0, 0, 0, "NO_VALID_4KB_PAGE", "PITCH", 0x1000, NULL, 0},
};

START_TEST(test_pte_vectors)
{
	const struct pte_vec *v = &pte_vecs[_i];
	struct pt_entry e;
	char rule[64];

	ck_assert_msg(v->raw == v->doc, "%s: composed 0x%016llx, documented 0x%016llx", v->name,
		      (unsigned long long)v->raw, (unsigned long long)v->doc);
	if (v->valid) {
		pcf_rule_name(v->pcf, rule, sizeof rule);
		ck_assert_str_eq(v->pcf_name, rule);
	}
	e = decode(v->level, v->shift, v->raw, 0);
	check_pte(v, &e);
}
END_TEST

/* ---- all 32 PCF values -------------------------------------------------- */

START_TEST(test_pcf_valid_all)
{
	unsigned pcf = (unsigned)_i;
	struct pte_vec v = {.name = "pcf valid", .level = PTE_SMALL, .shift = 12,
			    .st = PT_ST_MAPPED, .valid = 1, .ap = 2, .pcf = pcf, .kind = 6,
			    .addr = 0x42000, .kname = "GENERIC_MEMORY", .psize = 0x1000,
			    .space = "sysmem"};
	char rule[64], flags[80], want[80] = "";
	struct pt_entry e;

	v.raw = T_VALID | T_AP(2) | T_PCF(pcf) | T_KIND(6) | T_ADDR(0x42000);
	ck_assert_uint_eq(v.raw, 0x42605u | (uint64_t)pcf << 3);
	pcf_rule_name(pcf, rule, sizeof rule);
	v.pcf_name = rule;
	e = decode(PTE_SMALL, 12, v.raw, 0);
	check_pte(&v, &e);

	/* FLAGS: the meaning fields that are 1, in the documented order. */
	if (pcf & 0x04)
		strcat(want, ",read_only");
	if (pcf & 0x08)
		strcat(want, ",no_atomic");
	if (pcf & 0x02)
		strcat(want, ",privileged");
	if (pcf & 0x01)
		strcat(want, ",uncached");
	if (pcf & 0x10)
		strcat(want, ",access_counting_disabled");
	pt_format_ver3.flags(&e, flags, sizeof flags);
	ck_assert_str_eq(flags, want[0] ? want + 1 : "-");
	/* Every flag word is a field of the entry whose value is 1. */
	for (char *w = strtok(flags, ","); w && strcmp(w, "-"); w = strtok(NULL, ",")) {
		const struct pt_field *f = pt_entry_field(&e, w);

		ck_assert_msg(f && f->kind == PT_FK_BIT && f->v == 1, "flag %s", w);
	}
}
END_TEST

/* A literal spot check of the decoder's table against A.5's printed list. */
START_TEST(test_pcf_names_literal)
{
	static const struct {
		unsigned pcf;
		const char *name;
	} rows[] = {
		{0x00, "REGULAR_RW_ATOMIC_CACHED_ACE"}, {0x03, "PRIVILEGE_RW_ATOMIC_UNCACHED_ACE"},
		{0x06, "PRIVILEGE_RO_ATOMIC_CACHED_ACE"}, {0x0A, "PRIVILEGE_RW_NO_ATOMIC_CACHED_ACE"},
		{0x0F, "PRIVILEGE_RO_NO_ATOMIC_UNCACHED_ACE"}, {0x10, "REGULAR_RW_ATOMIC_CACHED_ACD"},
		{0x15, "REGULAR_RO_ATOMIC_UNCACHED_ACD"}, {0x16, "PRIVILEGE_RO_ATOMIC_CACHED_ACD"},
		{0x1B, "PRIVILEGE_RW_NO_ATOMIC_UNCACHED_ACD"}, {0x1E, "PRIVILEGE_RO_NO_ATOMIC_CACHED_ACD"},
		{0x1F, "PRIVILEGE_RO_NO_ATOMIC_UNCACHED_ACD"},
	};

	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		struct pt_entry e = decode(PTE_SMALL, 12, T_VALID | T_PCF(rows[i].pcf), 0);

		ck_assert_str_eq(pt_entry_field(&e, "pcf_name")->s, rows[i].name);
	}
}
END_TEST

START_TEST(test_pcf_invalid_all)
{
	unsigned pcf = (unsigned)_i;
	static const char *const names[4] = {"INVALID", "SPARSE", "MAPPING_NOWHERE",
					     "NO_VALID_4KB_PAGE"};
	static const enum pt_state states[4] = {PT_ST_INVALID, PT_ST_SPARSE, PT_ST_UNSUPPORTED,
						PT_ST_NO_VALID_4K};
	/* A kind makes PCF 0 non-zero, so it is `invalid`, not the zero `unmapped`. */
	struct pte_vec v = {.name = "pcf invalid", .level = PTE_BIG, .shift = 16,
			    .st = pcf < 4 ? states[pcf] : PT_ST_UNSUPPORTED, .ap = 0, .pcf = pcf,
			    .kind = 6, .pcf_name = pcf < 4 ? names[pcf] : NULL,
			    .kname = "GENERIC_MEMORY", .psize = 0x10000};
	char flags[80];
	struct pt_entry e;

	v.raw = T_PCF(pcf) | T_KIND(6);
	ck_assert_uint_eq(v.raw, 0x600u | (uint64_t)pcf << 3);
	e = decode(PTE_BIG, 16, v.raw, 0);
	check_pte(&v, &e);
	/* VALID=0: the PCF bits are a state, never permissions. */
	pt_format_ver3.flags(&e, flags, sizeof flags);
	ck_assert_str_eq(flags, "-");
}
END_TEST

/* All five words are 64 characters: a shorter buffer gets whole words only. */
START_TEST(test_flags_short_buffer)
{
	struct pt_entry e = decode(PTE_SMALL, 12, T_VALID | T_PCF(0x1F), 0);
	char buf[80];

	pt_format_ver3.flags(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "read_only,no_atomic,privileged,uncached,access_counting_disabled");
	ck_assert_uint_eq(strlen(buf), 64);
	pt_format_ver3.flags(&e, buf, 64);
	ck_assert_str_eq(buf, "read_only,no_atomic,privileged,uncached");
	pt_format_ver3.flags(&e, buf, 48);
	ck_assert_str_eq(buf, "read_only,no_atomic,privileged,uncached");
}
END_TEST

/* ---- kinds -------------------------------------------------------------- */
START_TEST(test_kinds)
{
	for (unsigned k = 0; k < 16; k++) {
		struct pt_entry e = decode(PTE_SMALL, 12, T_VALID | T_KIND(k), 0);
		char buf[64];

		ck_assert_uint_eq(e.raw[0], 1u | k << 8);
		ck_assert_int_eq(e.kind, (int)k);
		ck_assert_str_eq(pt_entry_field(&e, "kind_name")->s, kind_names[k]);
		ck_assert_uint_eq(pt_entry_field(&e, "kind_known")->v, 1);
		ck_assert(!e.anomaly);
		ck_assert_uint_eq(e.reserved_mask[0], 0);
		pt_format_ver3.kind_name(&e, buf, sizeof buf);
		ck_assert_str_eq(buf, kind_names[k]);
	}
}
END_TEST

/* ---- the format and its level table -------------------------------------- */
START_TEST(test_format)
{
	static const struct {
		const char *name;
		unsigned depth, shift, bits, size, role, leaf_shift;
		int c0, c1;
	} rows[] = {
		{"pde4", 0, 56, 1, 8, PT_ROLE_DIR, 0, PDE3, -1},
		{"pde3", 1, 47, 9, 8, PT_ROLE_DIR, 0, PDE2, -1},
		{"pde2", 2, 38, 9, 8, PT_ROLE_DIR, 38, PDE1, -1},
		{"pde1", 3, 29, 9, 8, PT_ROLE_DIR, 29, PDE0, -1},
		{"pde0", 4, 21, 8, 16, PT_ROLE_DUAL, 21, PTE_BIG, PTE_SMALL},
		{"pte_big", 5, 16, 5, 8, PT_ROLE_LEAF, 0, -1, -1},
		{"pte_small", 5, 12, 9, 8, PT_ROLE_LEAF, 0, -1, -1},
	};
	const struct pt_format *f = pt_format_find("nv-gmmu-ver3");
	const char *spaces[] = {"vidmem", "sysmem", "peer0", "peer1", "peer2", "peer3",
				"peer4", "peer5", "peer6", "peer7", NULL};
	struct pt_entry e;
	uint8_t raw[16] = {0};

	ck_assert_ptr_eq(f, &pt_format_ver3);
	ck_assert_str_eq(f->name, "nv-gmmu-ver3");
	ck_assert_uint_eq(f->va_bits, 57);
	ck_assert_uint_eq(f->va_digits, 15);
	ck_assert_uint_eq(pt_format_nlevels(f), 7);
	for (unsigned i = 0; i < 7; i++) {
		const struct pt_level *lv = &f->levels[i];

		ck_assert_str_eq(lv->name, rows[i].name);
		ck_assert_uint_eq(lv->depth, rows[i].depth);
		ck_assert_uint_eq(lv->va_shift, rows[i].shift);
		ck_assert_uint_eq(lv->bits, rows[i].bits);
		ck_assert_uint_eq(lv->entry_size, rows[i].size);
		ck_assert_uint_eq(lv->role, rows[i].role);
		ck_assert_uint_eq(lv->leaf_shift, rows[i].leaf_shift);
		ck_assert_int_eq(lv->child[0], rows[i].c0);
		ck_assert_int_eq(lv->child[1], rows[i].c1);
	}
	ck_assert_ptr_null(f->levels[7].name);
	/* The root covers all 57 bits: its shift plus its index bits. */
	ck_assert_uint_eq(f->levels[0].va_shift + f->levels[0].bits, 57);
	for (unsigned i = 0; spaces[i]; i++)
		ck_assert_int_eq(pt_format_space(f, spaces[i]), (int)i);
	ck_assert_ptr_null(f->spaces[10]);
	ck_assert_int_eq(pt_format_space(f, "vram"), -1);
	ck_assert_int_eq(f->decode(7, 0, raw, 0, &e), PT_E_UNSUPPORTED);
	ck_assert_int_eq(e.state, PT_ST_UNSUPPORTED);
	ck_assert_int_eq(f->decode(0, 0, NULL, 0, &e), PT_E_UNSUPPORTED);
}
END_TEST

/* §V.A4 */
START_TEST(test_index)
{
	const uint64_t va = 0x0000123456601234ull;

	ck_assert_uint_eq(level_index(PDE4, va), 0);
	ck_assert_uint_eq(level_index(PDE3, va), 0);
	ck_assert_uint_eq(level_index(PDE2, va), 0x48);
	ck_assert_uint_eq(level_index(PDE1, va), 0x1A2);
	ck_assert_uint_eq(level_index(PDE0, va), 0xB3);
	ck_assert_uint_eq(level_index(PTE_BIG, va), 0x0);
	ck_assert_uint_eq(level_index(PTE_SMALL, va), 0x1);
	ck_assert_uint_eq(va & 0xfff, 0x234);
	/* Bit 56 is PD4's only index bit. */
	ck_assert_uint_eq(level_index(PDE4, 0x0100000000000000ull), 1);
	ck_assert_uint_eq(level_index(PDE3, 0x0100000000000000ull), 0);
	/* The top VA of 57 bits takes the last entry of every level. */
	ck_assert_uint_eq(level_index(PDE4, 0x01ffffffffffffffull), 1);
	ck_assert_uint_eq(level_index(PDE3, 0x01ffffffffffffffull), 511);
	ck_assert_uint_eq(level_index(PDE0, 0x01ffffffffffffffull), 255);
	ck_assert_uint_eq(level_index(PTE_BIG, 0x01ffffffffffffffull), 31);
	ck_assert_uint_eq(level_index(PTE_SMALL, 0x01ffffffffffffffull), 511);
}
END_TEST

/* ---- the chip-family leaf rule --------------------------------------------- */
START_TEST(test_family)
{
	static const struct {
		unsigned level;
		bool any, hopper, blackwell;
	} rows[] = {
		{PDE4, false, false, false},
		{PDE3, false, false, false},
		{PDE2, true, false, true},   /* 256 GiB: Blackwell only (RM GB10X) */
		{PDE1, true, true, true},    /* 512 MiB */
		{PDE0, true, true, true},    /* 2 MiB */
		{PTE_BIG, true, true, true},
		{PTE_SMALL, true, true, true},
		{7, false, false, false},
	};

	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		ck_assert_int_eq(pt_ver3_leaf_allowed(VER3_FAMILY_ANY, rows[i].level), rows[i].any);
		ck_assert_int_eq(pt_ver3_leaf_allowed(VER3_FAMILY_HOPPER, rows[i].level),
				 rows[i].hopper);
		ck_assert_int_eq(pt_ver3_leaf_allowed(VER3_FAMILY_BLACKWELL, rows[i].level),
				 rows[i].blackwell);
		/* The table's leaf_shift is the superset: non-zero exactly where ANY allows a directory leaf. */
		if (rows[i].level < 7 && pt_format_ver3.levels[rows[i].level].role != PT_ROLE_LEAF)
			ck_assert_int_eq(pt_format_ver3.levels[rows[i].level].leaf_shift != 0,
					 rows[i].any);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("ver3");
	TCase *tc;

	tc = tcase_create("pte");
	tcase_add_loop_test(tc, test_pte_vectors, 0, (int)(sizeof pte_vecs / sizeof pte_vecs[0]));
	suite_add_tcase(s, tc);

	tc = tcase_create("pcf");
	tcase_add_loop_test(tc, test_pcf_valid_all, 0, 32);
	tcase_add_loop_test(tc, test_pcf_invalid_all, 0, 32);
	tcase_add_test(tc, test_pcf_names_literal);
	tcase_add_test(tc, test_flags_short_buffer);
	suite_add_tcase(s, tc);

	ver3_add_pde(s);

	tc = tcase_create("kinds");
	tcase_add_test(tc, test_kinds);
	suite_add_tcase(s, tc);

	tc = tcase_create("format");
	tcase_add_test(tc, test_format);
	tcase_add_test(tc, test_index);
	suite_add_tcase(s, tc);

	tc = tcase_create("family");
	tcase_add_test(tc, test_family);
	suite_add_tcase(s, tc);

	ver3_add_walk(s);

	return s;
}

int main(void)
{
	return tu_run(suite());
}
