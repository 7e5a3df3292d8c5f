/*
 * test_capture: loading captures.  Every archive is written at test time
 * with libarchive's write API (or plain files for a directory capture).
 */
#include "capture_util.h"
#include "pt_buf.h"
/* ---- formats ---- */

START_TEST(every_format)
{
	enum afmt f = (enum afmt)_i;
	struct mspec m[] = {
		{"mem", 'd', NULL, 0, 0, NULL},
		BLOB("mem/vid.bin", vid),
		BLOB("mem/sys.bin", sys_),
		INI(ini_nv),
	};
	char *path;
	struct pt_capture *cap;

	fill();
	path = make_capture(f, m, 4);
	cap = load(path, PT_OK, "");
	/* Read in place: an uncompressed tar and a directory; copied: the rest. */
	check_std(cap, f == A_TAR || f == A_DIR, path);
	ck_assert_uint_eq(pt_capture_region(cap, 1)->in_place, f == A_TAR || f == A_DIR);
	ck_assert_uint_eq(pt_capture_warning_count(cap), 0);
	if (f == A_TAR || f == A_DIR)
		ck_assert_uint_eq(pt_mem_resident(pt_capture_mem(cap)), 0);
	else
		ck_assert_uint_eq(pt_mem_resident(pt_capture_mem(cap)), sizeof vid + sizeof sys_);
	done(path, cap);
}
END_TEST

START_TEST(ini_first_or_last)
{
	/* Member order changes nothing; capture.ini first lets the loader drop the rest early. */
	struct mspec first[] = {
		INI(ini_nv),
		BLOB("junk/a.bin", vid),
		BLOB("mem/vid.bin", vid),
		BLOB("junk/b.bin", sys_),
		BLOB("mem/sys.bin", sys_),
	};
	struct mspec last[] = {
		BLOB("mem/sys.bin", sys_),
		BLOB("junk/a.bin", vid),
		BLOB("mem/vid.bin", vid),
		INI(ini_nv),
	};
	char *path;
	struct pt_capture *cap;

	fill();
	path = make_capture(A_TGZ, first, 5);
	cap = load(path, PT_OK, "");
	check_std(cap, false, path);
	ck_assert_uint_eq(pt_mem_resident(pt_capture_mem(cap)), sizeof vid + sizeof sys_);
	done(path, cap);
	loads_std(A_TGZ, last, 4, false);
}
END_TEST

START_TEST(dot_slash_names)
{
	struct mspec m[] = {
		{"./", 'd', NULL, 0, 0, NULL},
		{"./mem/", 'd', NULL, 0, 0, NULL},
		BLOB("./mem/vid.bin", vid),
		BLOB("././mem//sys.bin", sys_),
		INI(ini_nv),
	};

	m[4].name = "./capture.ini";
	loads_std(A_TAR, m, 5, true);
}
END_TEST

START_TEST(only_top_dir)
{
	struct mspec m[] = {
		{"cap-2024/", 'd', NULL, 0, 0, NULL},
		BLOB("cap-2024/mem/vid.bin", vid),
		BLOB("cap-2024/mem/sys.bin", sys_),
		{"cap-2024/capture.ini", 'f', ini_nv, sizeof ini_nv - 1, 0, NULL},
		BLOB("README", sys_),      /* a top-level file is not a directory */
	};

	loads_std(A_TXZ, m, 5, false);
	loads_std(A_DIR, m, 5, true);
	/* Also with ./ names and no directory entry. */
	m[0] = m[4];
	m[1].name = "./cap-2024/mem/vid.bin";
	loads_std(A_TAR, m, 4, true);
}
END_TEST

START_TEST(two_top_dirs)
{
	/* capture.ini in one of two top-level directories is not found. */
	struct mspec m[] = {
		BLOB("a/mem/vid.bin", vid),
		{"a/capture.ini", 'f', ini_nv, sizeof ini_nv - 1, 0, NULL},
		{"b/", 'd', NULL, 0, 0, NULL},
	};

	capture_fails(A_TAR, m, 3, PT_E_CAPTURE,
		      "no capture.ini at the archive root or in its only top-level directory");
	capture_fails(A_DIR, m, 3, PT_E_CAPTURE,
		      "no capture.ini at the directory root or in its only subdirectory");
}
END_TEST

START_TEST(two_ini)
{
	struct mspec m[] = {
		{"cap/capture.ini", 'f', ini_nv, sizeof ini_nv - 1, 0, NULL},
		BLOB("mem/vid.bin", vid),
		BLOB("mem/sys.bin", sys_),
		INI(ini_nv),
	};
	char *path;
	struct pt_capture *cap;

	for (int f = A_TAR; f <= A_DIR; f += A_DIR - A_TAR) {
		/* mem/ is a second top-level directory: cap/capture.ini does not qualify. */
		path = make_capture((enum afmt)f, m, 4);
		cap = load(path, PT_OK, "");
		done(path, cap);
	}
	/* Without mem/, both qualify. */
	m[1].name = "cap/mem/vid.bin";
	m[2].name = "cap/mem/sys.bin";
	capture_fails(A_TZST, m, 4, PT_E_CAPTURE, "two capture.ini: 'capture.ini' and 'cap/capture.ini'");
	path = make_capture(A_DIR, m, 4);
	cap = load(path, PT_E_CAPTURE, NULL);
	ck_assert(strstr(pt_capture_error(cap), ": two capture.ini: 'capture.ini' and 'cap/capture.ini'"));
	done(path, cap);
}
END_TEST

START_TEST(no_ini)
{
	struct mspec m[] = {
		BLOB("mem/vid.bin", vid),
		{"Capture.ini", 'f', ini_nv, sizeof ini_nv - 1, 0, NULL},
	};
	static const char *const none =
		"no capture.ini at the archive root or in its only top-level directory";

	capture_fails(A_ZIP, m, 2, PT_E_CAPTURE, none);
	/* An empty archive. */
	capture_fails(A_TGZ, m, 0, PT_E_CAPTURE, none);
}
END_TEST

START_TEST(ini_twice_same_name)
{
	struct mspec m[] = {
		INI(ini_nv),
		BLOB("mem/vid.bin", vid),
		BLOB("mem/sys.bin", sys_),
		INI(ini_nv),
	};

	capture_fails(A_TAR, m, 4, PT_E_CAPTURE, "'capture.ini' appears 2 times in the archive");
}
END_TEST

START_TEST(ini_symlink_ignored)
{
	/* A capture.ini that is a symbolic link is ignored, and the error says what it is. */
	struct mspec m[] = {
		{"real.ini", 'f', ini_nv, sizeof ini_nv - 1, 0, NULL},
		{"capture.ini", 'l', NULL, 0, 0, "real.ini"},
	};
	static const struct {
		enum afmt f;
		const char *warning;
	} t[] = {
		{A_TAR, "member 'capture.ini' is a symbolic link: ignored"},
		{A_DIR, "capture.ini is not a regular file: ignored"},
	};

	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		char *path = make_capture(t[i].f, m, 2);
		struct pt_capture *cap = load(path, PT_E_CAPTURE, NULL);

		ck_assert(strstr(pt_capture_error(cap), "capture.ini is a symbolic link; ptfs reads only regular files"));
		ck_assert_msg(au_warned(cap, t[i].warning), "%s: no warning '%s'", afmt_name[t[i].f],
			      t[i].warning);
		done(path, cap);
	}
}
END_TEST

/* ---- members ---- */

/* CAP warned exactly the N messages of W, in order. */
static void check_warnings(const struct pt_capture *cap, const char *const *w, size_t n)
{
	ck_assert_uint_eq(pt_capture_warning_count(cap), n);
	for (size_t i = 0; i < n; i++)
		ck_assert_str_eq(pt_capture_warning(cap, i), w[i]);
	ck_assert_ptr_null(pt_capture_warning(cap, n));
}

#define IGNORED ": ignored (only regular files are read)"

START_TEST(links_ignored)
{
	struct mspec m[] = {
		BLOB("mem/vid.bin", vid),
		BLOB("mem/sys.bin", sys_),
		{"mem/alias.bin", 'l', NULL, 0, 0, "vid.bin"},
		{"mem/hard.bin", 'h', NULL, 0, 0, "mem/vid.bin"},
		INI(ini_nv),
	};
	static const char *const want[] = {
		"member 'mem/alias.bin' is a symbolic link" IGNORED,
		"member 'mem/hard.bin' is a hard link" IGNORED,
	};
	char *path;
	struct pt_capture *cap;

	fill();
	path = make_capture(A_TAR, m, 5);
	cap = load(path, PT_OK, "");
	check_std(cap, true, path);
	check_warnings(cap, want, 2);
	done(path, cap);
}
END_TEST

START_TEST(names_escaped)
{
	/* Names from the archive reach a terminal: control bytes and bad UTF-8 are escaped. */
	struct mspec m[] = {
		BLOB("mem/vid.bin", vid),
		BLOB("mem/sys.bin", sys_),
		{"esc\x1b[31m\x9b.lnk", 'l', NULL, 0, 0, "x"},
		{"caf\xc3\xa9\xc2\x9b\nz", 'l', NULL, 0, 0, "x"},
		INI(ini_nv),
	};
	static const char *const want[] = {
		"member 'esc\\x1b[31m\\x9b.lnk' is a symbolic link" IGNORED,
		"member 'caf\xc3\xa9\\xc2\\x9b\\x0az' is a symbolic link" IGNORED,
	};
	char *path;
	struct pt_capture *cap;

	path = make_capture(A_TAR, m, 5);
	cap = load(path, PT_OK, "");
	check_warnings(cap, want, 2);
	done(path, cap);
}
END_TEST

START_TEST(link_named_by_section)
{
	static const char ini[] =
		"[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
		"[memory v]\nspace = vidmem\nbase = 0\nfile = mem/alias.bin\n"
		"[pdb p]\nspace = vidmem\naddress = 0\n";
	struct mspec m[] = {
		BLOB("mem/vid.bin", vid),
		{"mem/alias.bin", 'l', NULL, 0, 0, "vid.bin"},
		INI(ini),
	};
	/* A symbolic link to a directory on the way. */
	struct mspec d[] = {
		BLOB("real/alias.bin", vid),
		{"mem", 'l', NULL, 0, 0, "real"},
		INI(ini),
	};
#define NAMED "capture.ini:7: file 'mem/alias.bin' of [memory v] is "
#define REGULAR " (only regular files are read)"

	load_fails(A_TAR, m, 3, PT_E_CAPTURE, NAMED "a symbolic link in the capture" REGULAR);
	m[1].type = 'h';
	m[1].target = "mem/vid.bin";
	load_fails(A_TAR, m, 3, PT_E_CAPTURE, NAMED "a hard link in the capture" REGULAR);
	m[1].type = 'l';
	m[1].target = "vid.bin";
	load_fails(A_DIR, m, 3, PT_E_CAPTURE, NAMED "a symbolic link or under one" REGULAR);
	load_fails(A_DIR, d, 3, PT_E_CAPTURE, NAMED "a symbolic link or under one" REGULAR);
#undef NAMED
#undef REGULAR
}
END_TEST

START_TEST(unsafe_names_never_used)
{
	/* Members named like the ones the ini wants, but absolute or with "..": never used. */
	static const char ini[] =
		"[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
		"[memory v]\nspace = vidmem\nbase = 0\nfile = mem/vid.bin\n"
		"[pdb p]\nspace = vidmem\naddress = 0\n";
	struct mspec m[] = {
		BLOB("/mem/vid.bin", vid),
		BLOB("x/../mem/vid.bin", vid),
		BLOB("../mem/vid.bin", vid),
		INI(ini),
	};
	char *path;
	struct pt_capture *cap;

	path = make_capture(A_TAR, m, 4);
	cap = load(path, PT_E_CAPTURE, "capture.ini:7: file 'mem/vid.bin' of [memory v] is not in the capture");
	ck_assert(au_warned(cap, "member '/mem/vid.bin' has an absolute name: never used"));
	ck_assert(au_warned(cap, "member 'x/../mem/vid.bin' has a '..' component: never used"));
	ck_assert(au_warned(cap, "member '../mem/vid.bin' has a '..' component: never used"));
	done(path, cap);
}
END_TEST

START_TEST(member_missing)
{
	struct mspec m[] = {
		BLOB("mem/vid.bin", vid),
		INI(ini_nv),
	};

	for (int f = 0; f < A__COUNT; f++)
		load_fails((enum afmt)f, m, 2, PT_E_CAPTURE,
			   "capture.ini:13: file 'mem/sys.bin' of [memory sys0] is not in the capture");
}
END_TEST

START_TEST(member_twice)
{
	struct mspec m[] = {
		BLOB("mem/vid.bin", vid),
		BLOB("mem/sys.bin", sys_),
		BLOB("./mem/vid.bin", vid),
		BLOB("junk", vid),
		BLOB("junk", vid),          /* repeated but unused: fine */
		INI(ini_nv),
	};

	load_fails(A_TGZ, m, 6, PT_E_CAPTURE,
		   "capture.ini:9: file 'mem/vid.bin' of [memory vram0] appears 2 times in the archive");
}
END_TEST

START_TEST(same_file_twice)
{
	/* Two sections may name one member: the data is mapped at both places. */
	static const char ini[] =
		"[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
		"[memory a]\nspace = vidmem\nbase = 0x200000\nfile = v.bin\n"
		"[memory b]\nspace = sysmem\nbase = 0x200000\nfile = v.bin\n"
		"[pdb p]\nspace = vidmem\naddress = 0x201000\n";
	struct mspec m[] = {
		BLOB("v.bin", vid),
		INI(ini),
	};
	uint8_t buf[16];

	fill();
	for (int f = A_TAR; f <= A_TGZ; f++) {
		char *path = make_capture((enum afmt)f, m, 2);
		struct pt_capture *cap = load(path, PT_OK, "");

		ck_assert(pt_mem_read(pt_capture_mem(cap), 0, 0x203ff0, buf, 16));
		ck_assert_mem_eq(buf, vid + 0x3ff0, 16);
		ck_assert(pt_mem_read(pt_capture_mem(cap), 1, 0x203ff0, buf, 16));
		ck_assert_mem_eq(buf, vid + 0x3ff0, 16);
		done(path, cap);
	}
}
END_TEST

START_TEST(overlap)
{
	/* docs/design.md §3.1: overlapping regions are an error only where their bytes differ. */
	static const char ini[] =
		"[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
		"[memory a]\nspace = vidmem\nbase = 0x200000\nfile = a.bin\n"      /* 4-7 */
		"[memory s]\nspace = sysmem\nbase = 0x201000\nfile = a.bin\n"      /* 8-11: other space */
		"[memory b]\nspace = vidmem\nbase = 0x200000\nfile = b.bin\n"      /* 12-15 */
		"[pdb p]\nspace = vidmem\naddress = 0x201000\n";
	/* the same bytes twice, overlapping: they merge */
	static const char same[] =
		"[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
		"[memory a]\nspace = vidmem\nbase = 0x200000\nfile = a.bin\n"
		"[memory b]\nspace = vidmem\nbase = 0x200000\nfile = a.bin\n"
		"[pdb p]\nspace = vidmem\naddress = 0x201000\n";
	struct mspec m[] = {
		BLOB("a.bin", vid),
		BLOB("b.bin", sys_),
		INI(ini),
	};
	struct mspec m2[] = {
		BLOB("a.bin", vid),
		INI(same),
	};
	struct pt_capture *cap;
	char *path;

	fill();
	load_fails(A_TAR, m, 3, PT_E_CAPTURE,
		   "capture.ini:12: [memory b] (vidmem 0x200000-0x200fff) overlaps [memory a] "
		   "(line 4, 0x200000-0x203fff) with different bytes");
	path = make_capture(A_TAR, m2, 2);
	cap = load(path, PT_OK, NULL);
	ck_assert_uint_eq(pt_capture_region_count(cap), 2);
	done(path, cap);
}
END_TEST

START_TEST(memory_window)
{
	/*
	 * [memory] offset/length (docs/design.md §3): a window into a member, read in
	 * place where the member is (uncompressed tar, directory), copied
	 * otherwise; chunk-unaligned offsets work either way.
	 */
	static const char ini[] =
		"[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
		"[memory w]\nspace = vidmem\nbase = 0x300000\nfile = a.bin\noffset = 0x1804\nlength = 0x1000\n" /* 4-9 */
		"[memory rest]\nspace = vidmem\nbase = 0x400000\nfile = a.bin\noffset = 0x3000\n"          /* 10-14 */
		"[memory all]\nspace = vidmem\nbase = 0x200000\nfile = a.bin\n"                            /* 15-18 */
		"[pdb p]\nspace = vidmem\naddress = 0x201000\n";
	static const enum afmt fs[] = {A_TAR, A_TGZ, A_ZIP, A_DIR};
	struct mspec m[] = {BLOB("a.bin", vid), INI(ini)};
	uint8_t buf[0x1000];

	fill();
	for (size_t k = 0; k < sizeof fs / sizeof fs[0]; k++) {
		char *path = make_capture(fs[k], m, 2);
		struct pt_capture *cap = load(path, PT_OK, NULL);
		const struct pt_mem *mem = pt_capture_mem(cap);
		const struct pt_region_info *w = pt_capture_region(cap, 0), *r = pt_capture_region(cap, 1);

		ck_assert_uint_eq(w->size, 0x1000);
		ck_assert_uint_eq(r->size, sizeof vid - 0x3000);
		ck_assert_int_eq(w->in_place, fs[k] == A_TAR || fs[k] == A_DIR);
		ck_assert(pt_mem_read(mem, 0, 0x300000, buf, 0x1000));
		ck_assert_mem_eq(buf, vid + 0x1804, 0x1000);
		ck_assert(pt_mem_read(mem, 0, 0x400000, buf, 0x1000));
		ck_assert_mem_eq(buf, vid + 0x3000, 0x1000);
		/* the byte after each window is not captured */
		ck_assert(!pt_mem_read(mem, 0, 0x300fff, buf, 2));
		ck_assert(!pt_mem_read(mem, 0, 0x400fff, buf, 2));
		/* the whole member beside the windows is unchanged */
		ck_assert(pt_mem_read(mem, 0, 0x201804, buf, 0x1000));
		ck_assert_mem_eq(buf, vid + 0x1804, 0x1000);
		done(path, cap);
	}
}
END_TEST

/* pt_context_section(): a context's section back as text, its keys as given (ptfs-tool snapshot). */
START_TEST(context_section_text)
{
	static const char ini[] =
		"[capture]\nversion = 1\nformat = nv-gmmu-ver2\nx-note = kept\n"
		"[memory all]\nspace = vidmem\nbase = 0x200000\nfile = a.bin\n"
		"[pdb p]\nspace = vidmem\naddress = 0x201000\nx-why = the first\n"
		"[pdb q]\naddress = 0x202000\nspace = vidmem\n";
	struct mspec m[] = {BLOB("a.bin", vid), INI(ini)};
	char *path;
	struct pt_capture *cap;
	struct pt_buf b;

	fill();
	path = make_capture(A_DIR, m, 2);
	cap = load(path, PT_OK, NULL);
	pt_buf_init(&b);
	ck_assert(pt_context_section(pt_capture_context_find(cap, "p"), &b));
	ck_assert(pt_context_section(pt_capture_context_find(cap, "q"), &b));
	ck_assert_str_eq(b.data, "[pdb p]\nspace = vidmem\naddress = 0x201000\nx-why = the first\n"
			 "[pdb q]\naddress = 0x202000\nspace = vidmem\n");
	ck_assert(!pt_context_section(NULL, &b));
	pt_buf_free(&b);
	done(path, cap);
}
END_TEST

START_TEST(memory_window_past_end)
{
	/* A window past the member's end is refused, naming the key's line. */
	static const char off[] =
		"[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
		"[memory w]\nspace = vidmem\nbase = 0x300000\nfile = a.bin\noffset = 0x4001\n"
		"[pdb p]\nspace = vidmem\naddress = 0x201000\n";
	static const char len[] =
		"[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
		"[memory w]\nspace = vidmem\nbase = 0x300000\nfile = a.bin\noffset = 0x1000\nlength = 0x3001\n"
		"[pdb p]\nspace = vidmem\naddress = 0x201000\n";
	static const char huge[] =
		"[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
		"[memory w]\nspace = vidmem\nbase = 0x300000\nfile = a.bin\nlength = 0xffffffffffffffff\noffset = 1\n"
		"[pdb p]\nspace = vidmem\naddress = 0x201000\n";
	static const char bad[] =
		"[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
		"[memory w]\nspace = vidmem\nbase = 0x300000\nfile = a.bin\noffset = -1\n"
		"[pdb p]\nspace = vidmem\naddress = 0x201000\n";
	/* exactly to the end, and an empty window at the end, are fine */
	static const char edge[] =
		"[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
		"[memory w]\nspace = vidmem\nbase = 0x300000\nfile = a.bin\noffset = 0x1000\nlength = 0x3000\n"
		"[memory e]\nspace = vidmem\nbase = 0x500000\nfile = a.bin\noffset = 0x4000\n"
		"[pdb p]\nspace = vidmem\naddress = 0x201000\n";
	struct mspec m1[] = {BLOB("a.bin", vid), INI(off)}, m2[] = {BLOB("a.bin", vid), INI(len)};
	struct mspec m3[] = {BLOB("a.bin", vid), INI(huge)}, m4[] = {BLOB("a.bin", vid), INI(bad)};
	struct mspec m5[] = {BLOB("a.bin", vid), INI(edge)};

	fill();
	for (enum afmt f = A_TAR; f < A__COUNT; f += A_DIR - A_TAR) {
		char *path;
		struct pt_capture *cap;

		load_fails(f, m1, 2, PT_E_CAPTURE, "capture.ini:8: offset 0x4001 in [memory w] is past the end "
			   "of file 'a.bin' (0x4000 bytes)");
		load_fails(f, m2, 2, PT_E_CAPTURE, "capture.ini:9: length 0x3001 from offset 0x1000 in "
			   "[memory w] runs past the end of file 'a.bin' (0x4000 bytes)");
		load_fails(f, m3, 2, PT_E_CAPTURE, "capture.ini:8: length 0xffffffffffffffff from offset 0x1 in "
			   "[memory w] runs past the end of file 'a.bin' (0x4000 bytes)");
		load_fails(f, m4, 2, PT_E_VALUE, "capture.ini:8: bad integer '-1' for 'offset' in [memory w] "
			   "(decimal with an optional K/M/G, or 0x hex, at most 64 bits)");
		path = make_capture(f, m5, 2);
		cap = load(path, PT_OK, NULL);
		ck_assert_uint_eq(pt_capture_region(cap, 0)->size, 0x3000);
		ck_assert_uint_eq(pt_capture_region(cap, 1)->size, 0);
		done(path, cap);
	}
}
END_TEST

START_TEST(adjacent)
{
	/* Two adjacent blobs act as one: a read may span both. */
	static const char ini[] =
		"[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
		"[memory hi]\nspace = vidmem\nbase = 0x204000\nfile = b.bin\n"
		"[memory lo]\nspace = vidmem\nbase = 0x200000\nfile = a.bin\n"
		"[pdb p]\nspace = vidmem\naddress = 0x201000\n";
	struct mspec m[] = {
		BLOB("a.bin", vid),
		BLOB("b.bin", sys_),
		INI(ini),
	};
	uint8_t buf[32];

	fill();
	for (int f = A_TAR; f <= A_TGZ; f++) {
		char *path = make_capture((enum afmt)f, m, 3);
		struct pt_capture *cap = load(path, PT_OK, "");
		const struct pt_mem *mem = pt_capture_mem(cap);

		ck_assert(pt_mem_read(mem, 0, 0x203ff0, buf, 32));
		ck_assert_mem_eq(buf, vid + 0x3ff0, 16);
		ck_assert_mem_eq(buf + 16, sys_, 16);
		ck_assert_int_eq(pt_mem_cover(mem, 0, 0x200000, 0x5000), PT_COVER_FULL);
		/* Partial cover: a table that runs past the captured bytes. */
		ck_assert_int_eq(pt_mem_cover(mem, 0, 0x204000, 0x2000), PT_COVER_PARTIAL);
		ck_assert_int_eq(pt_mem_cover(mem, 0, 0x205000, 0x1000), PT_COVER_NONE);
		ck_assert(!pt_mem_read(mem, 0, 0x204ff8, buf, 16));
		/* Regions are listed in capture.ini order. */
		ck_assert_str_eq(pt_capture_region(cap, 0)->name, "hi");
		ck_assert_str_eq(pt_capture_region(cap, 1)->name, "lo");
		done(path, cap);
	}
}
END_TEST

START_TEST(region_past_top)
{
	static const char ini[] =
		"[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
		"[memory a]\nspace = sysmem\nbase = 0xfffffffffffff000\nfile = a.bin\n"
		"[pdb p]\nspace = vidmem\naddress = 0\n";
	struct mspec m[] = {
		BLOB("a.bin", vid),
		INI(ini),
	};

	load_fails(A_TAR, m, 2, PT_E_VALUE,
		   "capture.ini:4: [memory a] of 0x4000 bytes at 0xfffffffffffff000 ends past 2^64");
}
END_TEST

START_TEST(empty_member)
{
	static const char ini[] =
		"[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
		"[memory a]\nspace = sysmem\nbase = 0x1000\nfile = a.bin\n"
		"[pdb p]\nspace = vidmem\naddress = 0\n";
	struct mspec m[] = {
		{"a.bin", 'f', "", 0, 0, NULL},
		INI(ini),
	};
	uint8_t b;

	for (int f = 0; f < A__COUNT; f++) {
		char *path = make_capture((enum afmt)f, m, 2);
		struct pt_capture *cap = load(path, PT_OK, "");

		ck_assert_uint_eq(pt_capture_region(cap, 0)->size, 0);
		ck_assert(!pt_mem_read(pt_capture_mem(cap), 1, 0x1000, &b, 1));
		done(path, cap);
	}
}
END_TEST

START_TEST(many_regions)
{
	/* 300 blobs, one page each, every other page: a directory and a tar. */
	enum { N = 300 };
	struct mspec m[N + 1];
	char names[N][16], *ini = malloc(N * 80 + 256);
	static uint8_t pages[N][4096];
	size_t n = 0;
	uint8_t buf[8];

	n += (size_t)sprintf(ini, "[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
			     "[pdb p]\nspace = sysmem\naddress = 0\n");
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof names[i], "m/%d.bin", i);
		memset(pages[i], i + 1, sizeof pages[i]);
		m[i] = (struct mspec){names[i], 'f', pages[i], sizeof pages[i], 0, NULL};
		n += (size_t)sprintf(ini + n, "[memory r%d]\nspace = sysmem\nbase = 0x%x\nfile = %s\n",
				     i, i * 0x2000, names[i]);
	}
	m[N] = (struct mspec){"capture.ini", 'f', ini, n, 0, NULL};
	for (int f = A_TAR; f <= A_DIR; f += A_DIR - A_TAR) {
		char *path = make_capture((enum afmt)f, m, N + 1);
		struct pt_capture *cap = load(path, PT_OK, "");

		ck_assert_uint_eq(pt_capture_region_count(cap), N);
		for (int i = 0; i < N; i++) {
			ck_assert(pt_mem_read(pt_capture_mem(cap), 1, (uint64_t)i * 0x2000 + 4088, buf, 8));
			ck_assert_uint_eq(buf[7], (uint8_t)(i + 1));
			ck_assert(!pt_mem_read(pt_capture_mem(cap), 1, (uint64_t)i * 0x2000 + 4092, buf, 8));
			ck_assert(pt_capture_region(cap, (size_t)i)->in_place);
		}
		done(path, cap);
	}
	free(ini);
}
END_TEST

/* ---- guard: a capture rewritten in place while it is served ------------- */

static struct pt_capture *guarded;
static volatile sig_atomic_t breaks;

static void on_break(int sig, siginfo_t *info, void *uc)
{
	(void)sig;
	(void)uc;
	breaks++;
	pt_capture_guard_break(guarded, info->si_fd);
}

/* Everything a context shows: maps and info of every context. */
static char *render_all(const struct pt_capture *cap)
{
	struct pt_buf b;

	pt_buf_init(&b);
	for (size_t i = 0; i < pt_capture_context_count(cap); i++) {
		pt_render_maps(&b, pt_capture_context(cap, i), PT_OUT_TEXT, NULL);
		pt_render_info(&b, pt_capture_context(cap, i), PT_OUT_TEXT, NULL);
	}
	ck_assert(!b.oom);
	return b.data;
}

/* Copies fixture NAME into DIR/cap.tar; returns the path (malloc'd). */
static char *copy_fixture(const char *dir, const char *name)
{
	char *path, cmd[4096];

	ck_assert_int_ge(asprintf(&path, "%s/cap.tar", dir), 0);
	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", tu_fixture(name), path);
	ck_assert_int_eq(system(cmd), 0);
	return path;
}

START_TEST(guard_survives_truncate)
{
	char *dir = tu_mkdtemp(), *path = copy_fixture(dir, "turing-mixed.tar");
	struct sigaction sa;
	char *before, *after;
	pid_t pid;
	int st;

	guarded = pt_capture_new();
	ck_assert_int_eq(pt_capture_load(guarded, path), PT_OK);
	ck_assert(pt_capture_region(guarded, 0)->in_place);
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_break;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGRTMIN + 1, &sa, NULL), 0);
	breaks = 0;
	ck_assert_int_eq(pt_capture_guard(guarded, SIGRTMIN + 1), PT_OK);
	ck_assert_uint_eq(pt_capture_guard_pending(guarded), 1);   /* leased, not copied */
	before = render_all(guarded);

	/* Another process truncates the file and writes junk: its open waits for the copy. */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open(path, O_WRONLY | O_TRUNC);

		_exit(fd >= 0 && write(fd, "junk", 4) == 4 ? 0 : 1);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_int_eq(breaks, 1);
	ck_assert_uint_eq(pt_capture_guard_pending(guarded), 0);
	after = render_all(guarded);   /* would be SIGBUS without the copy */
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
	pt_capture_free(guarded);
	guarded = NULL;
	signal(SIGRTMIN + 1, SIG_DFL);
	free(path);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* Without a signal to use, in-place data is copied at once. */
START_TEST(guard_without_signal_copies)
{
	char *dir = tu_mkdtemp(), *path = copy_fixture(dir, "turing-mixed.tar");
	struct pt_capture *cap = pt_capture_new();
	char *before, *after;

	ck_assert_int_eq(pt_capture_load(cap, path), PT_OK);
	ck_assert_uint_eq(pt_capture_guard_pending(cap), 1);
	before = render_all(cap);
	ck_assert_int_eq(pt_capture_guard(cap, 0), PT_OK);
	ck_assert_uint_eq(pt_capture_guard_pending(cap), 0);
	ck_assert_int_eq(truncate(path, 0), 0);
	after = render_all(cap);
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
	pt_capture_free(cap);
	free(path);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("capture");
	TCase *tc;

	tc = tcase_create("formats");
	tcase_add_loop_test(tc, every_format, 0, A__COUNT);
	tcase_add_test(tc, ini_first_or_last);
	tcase_add_test(tc, dot_slash_names);
	tcase_add_test(tc, only_top_dir);
	tcase_add_test(tc, two_top_dirs);
	tcase_add_test(tc, two_ini);
	tcase_add_test(tc, no_ini);
	tcase_add_test(tc, ini_twice_same_name);
	tcase_add_test(tc, ini_symlink_ignored);
	tcase_add_test(tc, context_section_text);
	suite_add_tcase(s, tc);

	tc = tcase_create("members");
	tcase_add_test(tc, links_ignored);
	tcase_add_test(tc, link_named_by_section);
	tcase_add_test(tc, names_escaped);
	tcase_add_test(tc, unsafe_names_never_used);
	tcase_add_test(tc, member_missing);
	tcase_add_test(tc, member_twice);
	tcase_add_test(tc, same_file_twice);
	tcase_add_test(tc, empty_member);
	suite_add_tcase(s, tc);

	tc = tcase_create("regions");
	tcase_add_test(tc, overlap);
	tcase_add_test(tc, adjacent);
	tcase_add_test(tc, memory_window);
	tcase_add_test(tc, memory_window_past_end);
	tcase_add_test(tc, region_past_top);
	tcase_add_test(tc, many_regions);
	suite_add_tcase(s, tc);

	capture_add_memory(s);

	tc = tcase_create("guard");
	tcase_add_test(tc, guard_survives_truncate);
	tcase_add_test(tc, guard_without_signal_copies);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return tu_run(suite());
}
