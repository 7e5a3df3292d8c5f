/*
 * test_ver3_walk.c — the constructed VER3 walk level by level, and a loaded
 * capture through pt_walk_va() with its context keys.  Part of test_ver3.c
 * (shared: ver3_util.h).
 */
#include "ver3_util.h"

/* ---- §V.A5: the constructed walk, level by level ------------------------- */
static const struct {
	uint64_t addr, value;
} a5_mem[] = {
	{0x100000, 0x10100A}, {0x101000, 0x10200A}, {0x102240, 0x10300A}, {0x102248, 0x8},
	{0x103D10, 0x10400A}, {0x103D18, 0x20000601}, {0x104B30, 0x10500A},
	{0x104B38, 0x10600A}, {0x104B40, 0x400200601}, {0x104B48, 0}, {0x105000, 0},
	{0x105010, 0x800000605}, {0x105020, 0x18}, {0x106008, 0x765432601},
	{0x106208, 0x111111601},
};

/* VID memory of §V.A5: unlisted words read 0 (the example's tables are otherwise empty). */
static uint64_t a5_read(uint64_t addr)
{
	for (size_t i = 0; i < sizeof a5_mem / sizeof a5_mem[0]; i++)
		if (a5_mem[i].addr == addr)
			return a5_mem[i].value;
	return 0;
}

struct a5_result {
	enum pt_state st;     /* of the deciding entry */
	unsigned level;       /* where it sits */
	uint64_t pa, page_size;
	const char *space;
	uint64_t small_read;  /* address of the small PTE read, 0 if none */
};

static struct pt_entry a5_entry(unsigned level, uint64_t table, uint64_t va)
{
	uint64_t ea = table + level_index(level, va) * pt_format_ver3.levels[level].entry_size;

	return decode(level, pt_format_ver3.levels[level].va_shift, a5_read(ea),
		      pt_format_ver3.levels[level].entry_size == 16 ? a5_read(ea + 8) : 0);
}

/* A.7 driven only by the decoder's outputs: state, targets, pa, page_size. */
static struct a5_result a5_walk(uint64_t va)
{
	struct a5_result r = {0};
	uint64_t table = 0x100000;
	unsigned level = PDE4;

	for (;;) {
		struct pt_entry e = a5_entry(level, table, va);

		r.st = e.state;
		r.level = level;
		if (e.state == PT_ST_MAPPED) {
			r.page_size = e.page_size;
			r.pa = e.pa + (va & (e.page_size - 1));
			r.space = pt_format_ver3.spaces[e.space];
			return r;
		}
		if (e.state != PT_ST_POINTER)
			return r;
		/* Every table of the example is in vidmem. */
		ck_assert_str_eq(pt_format_ver3.spaces[e.target[0].present ? e.target[0].space
									 : e.target[1].space],
				 "vidmem");
		if (pt_format_ver3.levels[level].role != PT_ROLE_DUAL) {
			table = e.target[0].addr;
			level = (unsigned)e.target[0].level;
			continue;
		}
		/* 3a: the big entry first; only INVALID/zero lets the small table decide. */
		if (e.target[0].present) {
			struct pt_entry b = a5_entry(PTE_BIG, e.target[0].addr, va);

			if (b.state != PT_ST_INVALID && b.state != PT_ST_UNMAPPED) {
				r.st = b.state;
				r.level = PTE_BIG;
				if (b.state == PT_ST_MAPPED) {
					r.page_size = b.page_size;
					r.pa = b.pa + (va & (b.page_size - 1));
					r.space = pt_format_ver3.spaces[b.space];
				}
				return r;
			}
		}
		/* 3b / 3c */
		if (!e.target[1].present) {
			r.st = PT_ST_INVALID;
			return r;
		}
		r.small_read = e.target[1].addr + level_index(PTE_SMALL, va) * 8;
		table = e.target[1].addr;
		level = PTE_SMALL;
	}
}

START_TEST(test_walk_a5)
{
	struct a5_result r;

	/* The memory rows are themselves §V.A2/A.5 encodings: compose two of them. */
	ck_assert_uint_eq(PDE(1, 1, 0x101000), 0x10100A);
	ck_assert_uint_eq(PTE(1, 0, 0, 6, 0x765432000, 0), 0x765432601);

	r = a5_walk(0x123456601234);
	ck_assert_int_eq(r.st, PT_ST_MAPPED);
	ck_assert_uint_eq(r.level, PTE_SMALL);
	ck_assert_uint_eq(r.page_size, 0x1000);
	ck_assert_uint_eq(r.pa, 0x765432234);
	ck_assert_str_eq(r.space, "vidmem");
	ck_assert_uint_eq(r.small_read, 0x106008);

	r = a5_walk(0x123456621234);
	ck_assert_int_eq(r.st, PT_ST_MAPPED);
	ck_assert_uint_eq(r.level, PTE_BIG);
	ck_assert_uint_eq(r.page_size, 0x10000);
	ck_assert_uint_eq(r.pa, 0x800001234);
	ck_assert_str_eq(r.space, "sysmem");

	/* NO_VALID_4KB_PAGE stops the walk: small PT[0x41] (0x111111601) is never read. */
	r = a5_walk(0x123456641234);
	ck_assert_int_eq(r.st, PT_ST_NO_VALID_4K);
	ck_assert_uint_eq(r.level, PTE_BIG);
	ck_assert_uint_eq(r.small_read, 0);
	ck_assert_uint_eq(a5_read(0x106000 + 0x41 * 8), 0x111111601);

	r = a5_walk(0x123456801234);
	ck_assert_int_eq(r.st, PT_ST_MAPPED);
	ck_assert_uint_eq(r.level, PDE0);
	ck_assert_uint_eq(r.page_size, 0x200000);
	ck_assert_uint_eq(r.pa, 0x400201234);
	ck_assert_str_eq(r.space, "vidmem");

	r = a5_walk(0x123476601234);
	ck_assert_int_eq(r.st, PT_ST_MAPPED);
	ck_assert_uint_eq(r.level, PDE1);
	ck_assert_uint_eq(r.page_size, 0x20000000);
	ck_assert_uint_eq(r.pa, 0x36601234);
	ck_assert_str_eq(r.space, "vidmem");

	r = a5_walk(0x127456601234);
	ck_assert_int_eq(r.st, PT_ST_SPARSE);
	ck_assert_uint_eq(r.level, PDE2);
}
END_TEST

/* ---- a loaded capture: §V.A5 through pt_walk_va, the context keys -------- */

#define A5_BASE 0x100000u
#define A5_SIZE 0x7000u

/*
 * A capture directory holding §V.A5's memory as one vidmem region and one
 * [pdb a5] section with KEYS (after a "space = vidmem" and "address =
 * 0x100000" unless KEYS replaces them: NOBASE).  Loads it into *CAP.
 */
static pt_err a5_load_patched(const char *keys, bool nobase, uint64_t paddr, uint64_t pval,
			      struct pt_capture **cap, char **dir)
{
	static uint8_t img[A5_SIZE];
	char ini[1024];

	memset(img, 0, sizeof img);
	for (size_t i = 0; i < sizeof a5_mem / sizeof a5_mem[0]; i++)
		for (unsigned b = 0; b < 8; b++)
			img[a5_mem[i].addr - A5_BASE + b] = (uint8_t)(a5_mem[i].value >> (8 * b));
	/* PADDR != 0: the word there reads PVAL instead. */
	for (unsigned b = 0; paddr && b < 8; b++)
		img[paddr - A5_BASE + b] = (uint8_t)(pval >> (8 * b));
	snprintf(ini, sizeof ini,
		 "[capture]\nversion = 1\nformat = nv-gmmu-ver3\n"
		 "[memory vid]\nspace = vidmem\nbase = 0x100000\nfile = vid.bin\n"
		 "[pdb a5]\n%s%s",
		 nobase ? "" : "space = vidmem\naddress = 0x100000\n", keys);
	*dir = tu_mkdtemp();
	tu_write(*dir, "capture.ini", ini, strlen(ini));
	tu_write(*dir, "vid.bin", img, sizeof img);
	*cap = pt_capture_new();
	ck_assert_ptr_nonnull(*cap);
	return pt_capture_load(*cap, *dir);
}

static pt_err a5_load(const char *keys, bool nobase, struct pt_capture **cap, char **dir)
{
	return a5_load_patched(keys, nobase, 0, 0, cap, dir);
}

static void a5_unload(struct pt_capture *cap, char *dir)
{
	pt_capture_free(cap);
	tu_rmtree(dir);
	free(dir);
}

static void walk_mapped(const struct pt_context *c, uint64_t va, const char *space, uint64_t pa,
			uint64_t size, unsigned nsteps)
{
	struct pt_walk w;

	ck_assert_int_eq(pt_walk_va(c, va, &w), PT_OK);
	ck_assert_msg(w.fault == PT_FAULT_NONE, "va 0x%llx: fault %s", (unsigned long long)va,
		      pt_fault_name(w.fault));
	ck_assert_str_eq(c->fmt->spaces[w.space], space);
	ck_assert_uint_eq(w.pa, pa);
	ck_assert_uint_eq(w.page_size, size);
	ck_assert_uint_eq(w.nsteps, nsteps);
}

static void walk_fault(const struct pt_context *c, uint64_t va, enum pt_fault f, const char *level)
{
	struct pt_walk w;

	ck_assert_int_eq(pt_walk_va(c, va, &w), PT_OK);
	ck_assert_msg(w.fault == f, "va 0x%llx: fault %s", (unsigned long long)va,
		      pt_fault_name(w.fault));
	if (level)
		ck_assert_str_eq(c->fmt->levels[w.steps[w.fault_step].table.level].name, level);
}

/* §V.A5's table of walks, by the core's walker on a loaded Hopper capture. */
START_TEST(test_capture_a5)
{
	struct pt_capture *cap;
	const struct pt_context *c;
	char *dir;
	struct pt_walk w;

	ck_assert_int_eq(a5_load("chip = gh100\n", false, &cap, &dir), PT_OK);
	c = pt_capture_context_find(cap, "a5");
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->fmt->name, "nv-gmmu-ver3");
	ck_assert_uint_eq(c->root_entries, 2);
	/* 4K through a dual PDE0 with both halves: PD4..PD0, big, small = 7 steps (PT_MAX_DEPTH). */
	walk_mapped(c, 0x123456601234, "vidmem", 0x765432234, 0x1000, 7);
	ck_assert_uint_eq(PT_MAX_DEPTH, 7);
	walk_mapped(c, 0x123456621234, "sysmem", 0x800001234, 0x10000, 6);
	/* NO_VALID_4KB_PAGE: unmapped at the big PT, small PT[0x41] never used. */
	walk_fault(c, 0x123456641234, PT_FAULT_UNMAPPED, "pte_big");
	ck_assert_int_eq(pt_walk_va(c, 0x123456641234, &w), PT_OK);
	ck_assert_str_eq(w.steps[w.fault_step].verdict, "no_valid_4k");
	walk_mapped(c, 0x123456801234, "vidmem", 0x400201234, 0x200000, 5);
	walk_mapped(c, 0x123476601234, "vidmem", 0x36601234, 0x20000000, 4);
	walk_fault(c, 0x127456601234, PT_FAULT_SPARSE, "pde2");
	/* 57 bits: PD4[1] is zero; 2^57 is outside. */
	walk_fault(c, UINT64_C(1) << 56, PT_FAULT_UNMAPPED, "pde4");
	walk_fault(c, UINT64_C(1) << 57, PT_FAULT_OUT_OF_RANGE, NULL);
	a5_unload(cap, dir);
}
END_TEST

/*
 * The same raw 256 GiB PTE (IS_PTE at PD2) on each chip: Blackwell maps
 * it, Hopper has no PD2 leaf (unsupported: walk fault, state, no reserved bits).
 */
START_TEST(test_capture_family)
{
	static const struct {
		const char *chip, *family;
		bool maps;
	} chips[] = {
		{"gh100", "hopper", false}, {"gb100", "blackwell", true}, {"gb10b", "blackwell", true},
		{"gb20x", "blackwell", true}, {"gb20b", "blackwell", true},
	};
	/* PD2[0x49] of §V.A5 (0x102248) becomes a valid 256 GiB video PTE at 0x4000000000. */
	const uint64_t leaf = PTE(1, 0, 0, 6, UINT64_C(0x4000000000), 0);

	for (size_t i = 0; i < sizeof chips / sizeof chips[0]; i++) {
		struct pt_capture *cap;
		const struct pt_context *c;
		char *dir, keys[64];
		struct pt_buf b;
		struct pt_walk w;
		uint64_t va = 0x127456601234;

		snprintf(keys, sizeof keys, "chip = %s\n", chips[i].chip);
		ck_assert_int_eq(a5_load_patched(keys, false, 0x102248, leaf, &cap, &dir), PT_OK);
		c = pt_capture_context_find(cap, "a5");
		ck_assert_int_eq(pt_walk_va(c, va, &w), PT_OK);
		if (chips[i].maps) {
			ck_assert_int_eq(w.fault, PT_FAULT_NONE);
			ck_assert_uint_eq(w.page_size, UINT64_C(1) << 38);
			ck_assert_uint_eq(w.pa, UINT64_C(0x4000000000) + (va & ((UINT64_C(1) << 38) - 1)));
		} else {
			ck_assert_int_eq(w.fault, PT_FAULT_UNSUPPORTED);
			ck_assert_int_eq(w.steps[w.fault_step].entry.state, PT_ST_UNSUPPORTED);
			ck_assert_uint_eq(w.steps[w.fault_step].entry.reserved_mask[0], 0);
			ck_assert_str_eq(c->fmt->levels[w.steps[w.fault_step].table.level].name, "pde2");
			/* Hopper's own level table has no PD2 page size. */
			ck_assert_uint_eq(c->fmt->levels[L_PDE2].leaf_shift, 0);
		}
		/* Info: chip, family, big_page_size (the 64K default). */
		pt_buf_init(&b);
		ck_assert_int_eq(pt_render_info(&b, c, PT_OUT_TEXT, NULL), PT_OK);
		snprintf(keys, sizeof keys, "\nchip: %s\nfamily: %s\nbig_page_size: 64K\n",
			 chips[i].chip, chips[i].family);
		ck_assert_msg(b.data && strstr(b.data, keys), "info lacks %s", keys);
		pt_buf_reset(&b);
		ck_assert_int_eq(pt_render_info(&b, c, PT_OUT_JSON, NULL), PT_OK);
		snprintf(keys, sizeof keys, "\"family\": \"%s\"", chips[i].family);
		ck_assert_msg(b.data && strstr(b.data, keys), "info JSON lacks %s: %s", keys, b.data);
		pt_buf_free(&b);
		a5_unload(cap, dir);
	}
	/* Without a context (ptfs-tool decode) the superset decodes it as a leaf. */
	{
		struct pt_entry e = decode(PDE2, 38, leaf, 0);

		ck_assert_int_eq(e.state, PT_ST_MAPPED);
	}
}
END_TEST

/* Every [pdb] key error of a VER3 capture, with its message. */
START_TEST(test_capture_keys)
{
	static const struct {
		const char *keys;
		bool nobase;
		pt_err rc;
		const char *msg;
	} cases[] = {
		{"", false, PT_E_VALUE, "capture.ini:8: missing key 'chip' in [pdb a5]"},
		{"chip = gh100\n", true, PT_E_VALUE, "capture.ini:8: missing key 'space' in [pdb a5]"},
		{"space = vidmem\nchip = gh100\n", true, PT_E_VALUE,
		 "capture.ini:8: missing key 'address' in [pdb a5]"},
		{"chip = gh200\n", false, PT_E_VALUE,
		 "capture.ini:11: chip 'gh200' in [pdb a5] is not a VER3 chip (gh100, gb100, gb10b, gb20x, gb20b)"},
		{"chip = GH100\n", false, PT_E_VALUE,
		 "capture.ini:11: chip 'GH100' in [pdb a5] is not a VER3 chip (gh100, gb100, gb10b, gb20x, gb20b)"},
		{"chip = gh100\nbig_page_size = 128K\n", false, PT_E_VALUE,
		 "capture.ini:12: big_page_size '128K' in [pdb a5] is not a VER3 big page size (64K)"},
		{"chip = gh100\nbig_page_size = 4K\n", false, PT_E_VALUE,
		 "capture.ini:12: big_page_size '4K' in [pdb a5] is not a VER3 big page size (64K)"},
		{"chip = gh100\nbig_page_size = big\n", false, PT_E_VALUE, NULL},
		{"space = peer0\naddress = 0x100000\nchip = gh100\n", true, PT_E_VALUE,
		 "capture.ini:9: space 'peer0' in [pdb a5] is not valid for a page directory base (vidmem, sysmem)"},
		{"space = vidmem\naddress = 0x100800\nchip = gh100\n", true, PT_E_VALUE,
		 "capture.ini:10: address 0x100800 in [pdb a5] is not 4 KiB aligned"},
		{"chip = gh100\nformat = ver3\n", false, PT_E_VALUE,
		 "capture.ini:12: unknown key 'format' in [pdb a5]"},
		{"chip = gh100\nchip = gb100\n", false, PT_E_VALUE,
		 "capture.ini:12: duplicate key 'chip' in [pdb a5] (first at line 11)"},
		{"chip = gb20b\nbig_page_size = 64K\nx-note = fine\n", false, PT_OK, NULL},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct pt_capture *cap;
		char *dir;
		pt_err rc = a5_load(cases[i].keys, cases[i].nobase, &cap, &dir);

		ck_assert_msg(rc == cases[i].rc, "case %zu: rc %d (%s)", i, rc, pt_capture_error(cap));
		if (cases[i].msg)
			ck_assert_str_eq(pt_capture_error(cap), cases[i].msg);
		a5_unload(cap, dir);
	}
}
END_TEST

/* Audit reasons name VER3's own PTE fields. */
START_TEST(test_perm_names)
{
	const struct pt_perm_name *p = pt_format_ver3.perm_names;

	ck_assert_uint_eq(p[0].perm, PT_PERM_READ_ONLY);
	ck_assert_str_eq(p[0].name, "read_only");
	ck_assert_uint_eq(p[1].perm, PT_PERM_ATOMIC_DISABLE);
	ck_assert_str_eq(p[1].name, "no_atomic");
	ck_assert_uint_eq(p[2].perm, PT_PERM_PRIVILEGE);
	ck_assert_str_eq(p[2].name, "privileged");
	/* the field behind PT_PERM_VOLATILE, for diff (issue #34 item 4) */
	ck_assert_uint_eq(p[3].perm, PT_PERM_VOLATILE);
	ck_assert_str_eq(p[3].name, "uncached=1");
	ck_assert_uint_eq(p[4].perm, 0);
	/* Each name is a field of the decoded PTE. */
	{
		struct pt_entry e = decode(PTE_SMALL, 12, PTE(1, 0, 0xe, 6, 0x1000, 0), 0);

		for (unsigned k = 0; k < 3; k++) {
			bool found = false;

			for (unsigned f = 0; f < e.nfields; f++)
				found |= !strcmp(e.fields[f].key, p[k].name) && e.fields[f].v == 1;
			ck_assert_msg(found, "%s", p[k].name);
		}
	}
}
END_TEST

void ver3_add_walk(Suite *s)
{
	TCase *tc;

	tc = tcase_create("walk");
	tcase_add_test(tc, test_walk_a5);
	suite_add_tcase(s, tc);

	tc = tcase_create("capture");
	tcase_add_test(tc, test_capture_a5);
	tcase_add_test(tc, test_capture_family);
	tcase_add_test(tc, test_capture_keys);
	tcase_add_test(tc, test_perm_names);
	suite_add_tcase(s, tc);
}
