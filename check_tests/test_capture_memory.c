/*
 * test_capture_memory.c — what a loaded capture costs in memory, its
 * contexts, misuse and bad input, and hostile member lists.  Part of
 * test_capture.c (shared: capture_util.h).
 */
#include "capture_util.h"

/* ---- memory cost ---- */

START_TEST(zero_chunks)
{
	/* 8 MiB of zeros with one non-zero page in the middle: one 4 KiB chunk. */
	static const char ini[] =
		"[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
		"[memory a]\nspace = vidmem\nbase = 0\nfile = a.bin\n"
		"[pdb p]\nspace = vidmem\naddress = 0x400000\n";
	size_t len = 8u << 20;
	uint8_t *d = calloc(1, len), buf[8];
	struct mspec m[] = {
		{"a.bin", 'f', d, len, 0, NULL},
		INI(ini),
	};

	memset(d + 0x400000, 0xee, 4096);
	for (int f = A_TAR; f < A__COUNT; f++) {
		char *path = make_capture((enum afmt)f, m, 2);
		struct pt_capture *cap = load(path, PT_OK, "");
		const struct pt_mem *mem = pt_capture_mem(cap);

		ck_assert_uint_eq(pt_mem_resident(mem), (f == A_TAR || f == A_DIR) ? 0 : 4096);
		ck_assert(pt_mem_read(mem, 0, 0x400ff8, buf, 8));
		for (int i = 0; i < 8; i++)
			ck_assert_uint_eq(buf[i], 0xee);
		ck_assert(pt_mem_read(mem, 0, 0x401000, buf, 8));
		ck_assert_uint_eq(buf[0], 0);
		ck_assert(pt_mem_read(mem, 0, len - 8, buf, 8));
		ck_assert_uint_eq(buf[7], 0);
		done(path, cap);
	}
	free(d);
}
END_TEST

START_TEST(scattered_pages)
{
	/*
	 * Scale (issue #15 item 5): table pages scattered through a large,
	 * mostly zero dump, one 4 KiB page every 128 KiB.  A copied member
	 * costs its non-zero pages, not a 64 KiB block around each of them
	 * (16x: 2 GiB of RSS for the 128 MiB of tables of a 10^7-entry capture).
	 */
	static const char ini[] =
		"[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
		"[memory a]\nspace = vidmem\nbase = 0\nfile = a.bin\n"
		"[pdb p]\nspace = vidmem\naddress = 0x20000\n";
	size_t len = 8u << 20, npages = 0;
	uint8_t *d = calloc(1, len), buf[8];
	struct mspec m[] = {
		{"a.bin", 'f', d, len, 0, NULL},
		INI(ini),
	};

	ck_assert_ptr_nonnull(d);
	for (size_t off = 0x20000; off < len; off += 0x20000, npages++)
		memset(d + off, (int)(0x11 + npages % 200), 4096);
	for (int f = A_TGZ; f < A__COUNT; f++) {
		char *path = make_capture((enum afmt)f, m, 2);
		struct pt_capture *cap = load(path, PT_OK, "");
		const struct pt_mem *mem = pt_capture_mem(cap);

		if (f != A_DIR)
			ck_assert_msg(pt_mem_resident(mem) == npages * 4096, "%s: %llu bytes resident for %zu pages",
				      afmt_name[f], (unsigned long long)pt_mem_resident(mem), npages);
		ck_assert(pt_mem_read(mem, 0, 0x40ffc, buf, 8));    /* the end of page 2, then zeros */
		ck_assert_uint_eq(buf[3], 0x12);
		ck_assert_uint_eq(buf[4], 0);
		ck_assert(pt_mem_read(mem, 0, len - 0x20000 + 4092, buf, 8));
		ck_assert_uint_eq(buf[3], 0x11 + (npages - 1) % 200);
		ck_assert_uint_eq(buf[4], 0);
		done(path, cap);
	}
	free(d);
}
END_TEST

START_TEST(sparse_tar_copied)
{
	/*
	 * A GNU sparse member of an uncompressed tar is not stored verbatim:
	 * it is copied (holes stay unallocated), never read in place.
	 */
	static const char ini[] =
		"[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
		"[memory a]\nspace = vidmem\nbase = 0\nfile = mem/sparse.bin\n"
		"[memory b]\nspace = sysmem\nbase = 0\nfile = mem/dense.bin\n"
		"[pdb p]\nspace = vidmem\naddress = 0x80000\n";
	char *dir = tu_mkdtemp(), *src, *cmd, *tarpath;
	struct pt_capture *cap;
	uint8_t buf[16];
	int fd;

	fill();
	ck_assert_int_ge(asprintf(&src, "%s/src", dir), 0);
	ck_assert_int_ge(asprintf(&tarpath, "%s/cap.tar", dir), 0);
	ck_assert_int_eq(mkdir(src, 0755), 0);
	tu_write(src, "capture.ini", ini, sizeof ini - 1);
	tu_write(src, "mem/dense.bin", vid, sizeof vid);
	tu_write(src, "mem/sparse.bin", "", 0);
	{
		char p[4200];

		snprintf(p, sizeof p, "%s/mem/sparse.bin", src);
		fd = open(p, O_WRONLY);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(ftruncate(fd, 4 << 20), 0);
		ck_assert_int_eq(pwrite(fd, vid, sizeof vid, 0x200000), (ssize_t)sizeof vid);
		close(fd);
	}
	ck_assert_int_ge(asprintf(&cmd, "tar -C '%s' --format=gnu -cSf '%s' . 2>/dev/null", src, tarpath), 0);
	ck_assert_int_eq(system(cmd), 0);
	cap = load(tarpath, PT_OK, "");
	ck_assert_uint_eq(pt_capture_region(cap, 0)->size, 4 << 20);
	ck_assert(!pt_capture_region(cap, 0)->in_place);
	ck_assert(pt_capture_region(cap, 1)->in_place);    /* the dense member still is */
	ck_assert(pt_mem_read(pt_capture_mem(cap), 0, 0x200000 + 0x3ff0, buf, 16));
	ck_assert_mem_eq(buf, vid + 0x3ff0, 16);
	ck_assert(pt_mem_read(pt_capture_mem(cap), 0, 0x100000, buf, 16));
	ck_assert_uint_eq(buf[0], 0);
	ck_assert_uint_eq(pt_mem_resident(pt_capture_mem(cap)), sizeof vid);   /* its pages */
	pt_capture_free(cap);
	free(cmd);
	free(src);
	free(tarpath);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(zero_4g_targz)
{
	/* 4 GiB of zeros inside a .tar.gz (18 MiB at gzip level 1) loads in < 100 MiB. */
	static const char ini[] =
		"[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
		"[memory big]\nspace = vidmem\nbase = 0x100000000\nfile = big.bin\n"
		"[pdb p]\nspace = vidmem\naddress = 0x100000000\n";
	struct mspec m[] = {
		INI(ini),
		{"big.bin", 'f', NULL, 0, 4ull << 30, NULL},
	};
	char *path = make_capture(A_TGZ, m, 2);
	struct pt_capture *cap;
	long before, after;
	uint8_t buf[16];
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_lt(st.st_size, 32 << 20);
	before = au_maxrss_kib();
	cap = load(path, PT_OK, "");
	after = au_maxrss_kib();
	ck_assert_msg(after - before < 100 * 1024, "grew %ld KiB", after - before);
	ck_assert_uint_eq(pt_mem_resident(pt_capture_mem(cap)), 0);
	ck_assert_uint_eq(pt_capture_region(cap, 0)->size, 4ull << 30);
	ck_assert(pt_mem_read(pt_capture_mem(cap), 0, 0x100000000ull + (4ull << 30) - 16, buf, 16));
	ck_assert_uint_eq(buf[15], 0);
	done(path, cap);
}
END_TEST

/* ---- contexts ---- */

START_TEST(gart_context)
{
	/* docs/design.md §2.2 worked check: 131072 entries, table at vram 0x3EE600000. */
	static const char ini[] =
		"[capture]\nversion = 1\nformat = amd-gart\n"
		"[memory t]\nspace = vram\nbase = 0x3EE600000\nfile = t.bin\n"
		"[gart gart0]\n"
		"VM_CONTEXT0_PAGE_TABLE_BASE_ADDR = 0x3EE600001\n"
		"VM_CONTEXT0_PAGE_TABLE_START_ADDR = 0x7FFF00000\n"
		"VM_CONTEXT0_PAGE_TABLE_END_ADDR = 0x7FFF1FFFF\n"
		"x-vmid = 0\n";
	struct mspec m[] = {
		BLOB("t.bin", vid),
		INI(ini),
	};
	char *path;
	struct pt_capture *cap;
	const struct pt_context *c;

	path = make_capture(A_ZIP, m, 2);
	cap = load(path, PT_OK, "");
	ck_assert_ptr_eq(pt_capture_format(cap), &pt_format_gart);
	c = pt_capture_context_find(cap, "gart0");
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_eq(c->fmt, &pt_format_gart);
	ck_assert_uint_eq(c->root_space, (unsigned)pt_format_space(&pt_format_gart, "vram"));
	ck_assert_uint_eq(c->root_addr, 0x3EE600000ull);
	ck_assert_uint_eq(c->root_entries, 131072);
	ck_assert_uint_eq(c->root_page_shift, 12);
	ck_assert_uint_eq(c->va_base, 0x7FFF00000000ull);
	ck_assert_uint_eq(pt_gart_of(c)->va_end, 0x7FFF1FFFFFFFull);
	ck_assert(pt_gart_of(c)->has[PT_GR_PT_END]);
	ck_assert_uint_eq(c->ini_line, 8);
	ck_assert_uint_eq(c->nannotations, 1);
	ck_assert_uint_eq(pt_mem_cover(c->mem, c->root_space, c->root_addr, c->root_entries * 8),
			  PT_COVER_PARTIAL);
	done(path, cap);
}
END_TEST

START_TEST(gart_decode_error)
{
	/* START after END: the register decoder's message, at the section's line. */
	static const char ini[] =
		"[capture]\nversion = 1\nformat = amd-gart\n"
		"[gart g]\n"
		"VM_CONTEXT0_PAGE_TABLE_BASE_ADDR = 0x1001\n"
		"VM_CONTEXT0_PAGE_TABLE_START_ADDR = 0x200\n"
		"VM_CONTEXT0_PAGE_TABLE_END_ADDR = 0x100\n";
	struct mspec m[] = {INI(ini)};
	char *path = make_capture(A_TAR, m, 1);
	struct pt_capture *cap = load(path, PT_E_VALUE, NULL);

	ck_assert_msg(strncmp(pt_capture_error(cap), "capture.ini:4: [gart g]: ", 25) == 0, "%s",
		      pt_capture_error(cap));
	done(path, cap);
}
END_TEST

START_TEST(ini_error_through_load)
{
	static const char ini[] =
		"[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
		"[pdb pdb0]\nspace = vidmem\nadress = 0x1000\n";
	struct mspec m[] = {{"cap/capture.ini", 'f', ini, sizeof ini - 1, 0, NULL}};

	for (int f = 0; f < A__COUNT; f++)
		load_fails((enum afmt)f, m, 1, PT_E_VALUE, "capture.ini:6: unknown key 'adress' in [pdb pdb0]");
}
END_TEST

START_TEST(ini_too_big)
{
	size_t n = (16u << 20) + 1;
	char *ini = malloc(n);
	struct mspec m[] = {{"capture.ini", 'f', ini, n, 0, NULL}};

	memset(ini, '\n', n);
	capture_fails(A_TGZ, m, 1, PT_E_CAPTURE, "'capture.ini' is larger than 16 MiB");
	free(ini);
}
END_TEST

/* ---- misuse and bad input ---- */

START_TEST(not_an_archive)
{
	char *dir = tu_mkdtemp(), *path, msg[4200];
	struct pt_capture *cap;

	ck_assert_int_ge(asprintf(&path, "%s/junk.bin", dir), 0);
	tu_write(dir, "junk.bin", "this is not an archive at all, just some text\n", 46);
	cap = load(path, PT_E_ARCHIVE, NULL);
	snprintf(msg, sizeof msg, "%s: ", path);
	ck_assert(strncmp(pt_capture_error(cap), msg, strlen(msg)) == 0);
	pt_capture_free(cap);
	free(path);

	ck_assert_int_ge(asprintf(&path, "%s/nothing-here", dir), 0);
	snprintf(msg, sizeof msg, "%s: No such file or directory", path);
	cap = load(path, PT_E_IO, msg);
	pt_capture_free(cap);
	free(path);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(truncated_archive)
{
	struct mspec m[] = {
		INI(ini_nv),
		BLOB("mem/vid.bin", vid),
		BLOB("mem/sys.bin", sys_),
	};
	char *path = make_capture(A_TGZ, m, 3);
	struct stat st;
	struct pt_capture *cap;

	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(truncate(path, st.st_size / 2), 0);
	cap = load(path, PT_E_ARCHIVE, NULL);
	ck_assert(strncmp(pt_capture_error(cap), path, strlen(path)) == 0);
	done(path, cap);
}
END_TEST

START_TEST(load_twice)
{
	struct mspec m[] = {
		INI(ini_nv),
		BLOB("mem/vid.bin", vid),
		BLOB("mem/sys.bin", sys_),
	};
	char *path = make_capture(A_TAR, m, 3);
	struct pt_capture *cap = load(path, PT_OK, "");

	ck_assert_int_eq(pt_capture_load(cap, path), PT_E_USAGE);
	/* The first load stands. */
	ck_assert_uint_eq(pt_capture_context_count(cap), 2);
	done(path, cap);
	ck_assert_int_eq(pt_capture_load(NULL, "x"), PT_E_USAGE);
	pt_capture_free(NULL);
}
END_TEST

struct prog {
	unsigned calls;
	uint64_t last_done, total;
	bool monotonic;
};

static void on_progress(void *ud, uint64_t d, uint64_t t)
{
	struct prog *p = ud;

	if (p->calls && d < p->last_done)
		p->monotonic = false;
	p->calls++;
	p->last_done = d;
	p->total = t;
}

START_TEST(progress)
{
	struct mspec m[] = {
		INI(ini_nv),
		BLOB("mem/vid.bin", vid),
		BLOB("mem/sys.bin", sys_),
	};
	char *path = make_capture(A_TXZ, m, 3);
	struct pt_capture *cap = pt_capture_new();
	struct prog p = {.monotonic = true};
	struct stat st;

	pt_capture_set_progress(cap, on_progress, &p);
	ck_assert_int_eq(pt_capture_load(cap, path), PT_OK);
	ck_assert_int_eq(stat(path, &st), 0);
	/* A fast load: the final call only. */
	ck_assert_uint_ge(p.calls, 1);
	ck_assert_uint_le(p.calls, 2);
	ck_assert(p.monotonic);
	ck_assert_uint_eq(p.total, (uint64_t)st.st_size);
	ck_assert_uint_eq(p.last_done, (uint64_t)st.st_size);
	done(path, cap);
}
END_TEST

/* ---- hostile input ---- */

START_TEST(many_members)
{
	/* 100 000 members, half of them symbolic links; capture.ini last. */
	enum { N = 100000 };
	struct mspec *m = calloc(N + 3, sizeof *m);
	char (*names)[32] = calloc(N, sizeof *names);
	char *path;
	struct pt_capture *cap;
	static const uint8_t one = 1;

	fill();
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof names[i], "junk/%d", i);
		m[i].name = names[i];
		if (i % 2) {
			m[i].type = 'l';
			m[i].target = "x";
		} else {
			m[i].type = 'f';
			m[i].data = &one;
			m[i].len = 1;
		}
	}
	m[N] = (struct mspec)BLOB("mem/vid.bin", vid);
	m[N + 1] = (struct mspec)BLOB("mem/sys.bin", sys_);
	m[N + 2] = (struct mspec)INI(ini_nv);
	path = make_capture(A_TGZ, m, N + 3);
	cap = load(path, PT_OK, "");
	check_std(cap, false, path);
	/* Warnings are capped: 99 kept and one that counts the rest. */
	ck_assert_uint_eq(pt_capture_warning_count(cap), 100);
	ck_assert_str_eq(pt_capture_warning(cap, 99), "49901 more warnings not shown");
	done(path, cap);
	free(m);
	free(names);
}
END_TEST

START_TEST(long_names)
{
	/* A deeply nested member is fine; a name over 4096 bytes is ignored. */
	char deep[4097], *deeper = malloc(9000);
	char *ini = malloc(8192);
	struct mspec m[4];
	char *path;
	struct pt_capture *cap;
	uint8_t buf[16];
	int n;

	fill();
	for (n = 0; n + 2 <= 4000; n += 2)
		memcpy(deep + n, "d/", 2);
	strcpy(deep + n, "v.bin");
	for (n = 0; n + 2 <= 8000; n += 2)
		memcpy(deeper + n, "e/", 2);
	strcpy(deeper + n, "v.bin");
	snprintf(ini, 8192,
		 "[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
		 "[memory a]\nspace = vidmem\nbase = 0\nfile = %s\n"
		 "[pdb p]\nspace = vidmem\naddress = 0\n", deep);
	m[0] = (struct mspec){deep, 'f', vid, sizeof vid, 0, NULL};
	m[1] = (struct mspec){deeper, 'f', vid, sizeof vid, 0, NULL};
	m[2] = (struct mspec){"capture.ini", 'f', ini, strlen(ini), 0, NULL};
	path = make_capture(A_TAR, m, 3);
	cap = load(path, PT_OK, "");
	ck_assert(au_warned(cap, "has a name longer than 4096 bytes: ignored"));
	ck_assert_uint_eq(pt_capture_region(cap, 0)->size, sizeof vid);
	/* After a pax header with the long name, the data offset is still found. */
	ck_assert(pt_capture_region(cap, 0)->in_place);
	ck_assert(pt_mem_read(pt_capture_mem(cap), 0, 0x3ff0, buf, 16));
	ck_assert_mem_eq(buf, vid + 0x3ff0, 16);
	done(path, cap);
	free(deeper);
	free(ini);
}
END_TEST

void capture_add_memory(Suite *s)
{
	TCase *tc;

	tc = tcase_create("memory");
	tcase_add_test(tc, zero_chunks);
	tcase_add_test(tc, scattered_pages);
	tcase_add_test(tc, zero_4g_targz);
	tcase_add_test(tc, sparse_tar_copied);
	tcase_set_timeout(tc, 240);
	suite_add_tcase(s, tc);

	tc = tcase_create("contexts");
	tcase_add_test(tc, gart_context);
	tcase_add_test(tc, gart_decode_error);
	tcase_add_test(tc, ini_error_through_load);
	tcase_add_test(tc, ini_too_big);
	suite_add_tcase(s, tc);

	tc = tcase_create("misuse");
	tcase_add_test(tc, not_an_archive);
	tcase_add_test(tc, truncated_archive);
	tcase_add_test(tc, load_twice);
	tcase_add_test(tc, progress);
	suite_add_tcase(s, tc);

	tc = tcase_create("hostile");
	tcase_add_test(tc, many_members);
	tcase_add_test(tc, long_names);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
}
