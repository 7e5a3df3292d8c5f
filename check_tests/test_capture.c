/*
 * test_capture: loading captures.  Every archive is written at test time
 * with libarchive's write API (or plain files for a directory capture).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "archive_util.h"
#include "fmt_gart.h"
#include "fmt_ver2.h"
#include "pt_capture.h"
#include "pt_render.h"
#include "testutil.h"

/* ---- writing captures (archive_util.c) ---- */

enum afmt { A_TAR, A_TGZ, A_TXZ, A_TZST, A_ZIP, A_DIR, A__COUNT };
static const char *const afmt_name[A__COUNT] = {"tar", "tar.gz", "tar.xz", "tar.zst", "zip", "dir"};
/* How each archive format is written (A_DIR: as files). */
static const struct {
	enum au_format fmt;
	enum au_filter filt;
} afmt_how[A__COUNT] = {
	[A_TAR] = {AU_PAX, AU_NONE}, [A_TGZ] = {AU_PAX, AU_GZ}, [A_TXZ] = {AU_PAX, AU_XZ},
	[A_TZST] = {AU_PAX, AU_ZST}, [A_ZIP] = {AU_ZIP, AU_NONE},
};

/* Writes the capture into a fresh temporary directory; returns its path (free with done()). */
static char *tmpdir;

static char *make_capture(enum afmt f, const struct mspec *m, size_t n)
{
	char *path;

	tmpdir = tu_mkdtemp();
	ck_assert_int_ge(asprintf(&path, "%s/cap.%s", tmpdir, afmt_name[f]), 0);
	if (f == A_DIR) {
		ck_assert_int_eq(mkdir(path, 0755), 0);
		au_write_dir(path, m, n);
	} else {
		au_write(path, afmt_how[f].fmt, afmt_how[f].filt, m, n);
	}
	return path;
}

static void done(char *path, struct pt_capture *cap)
{
	pt_capture_free(cap);
	free(path);
	if (tmpdir)
		tu_rmtree(tmpdir);
	free(tmpdir);
	tmpdir = NULL;
}

/* Loads and expects CODE; the error, when any, must equal MSG (if not NULL). */
static struct pt_capture *load(const char *path, pt_err code, const char *msg)
{
	struct pt_capture *cap = pt_capture_new();
	pt_err rc = pt_capture_load(cap, path);

	ck_assert_msg(rc == code, "load: %s (%s), want %s", pt_errname(rc), pt_capture_error(cap),
		      pt_errname(code));
	if (msg)
		ck_assert_str_eq(pt_capture_error(cap), msg);
	if (rc) {
		/* Never half loaded. */
		ck_assert_uint_eq(pt_capture_context_count(cap), 0);
		ck_assert_ptr_null(pt_capture_context(cap, 0));
		ck_assert_ptr_null(pt_capture_mem(cap));
		ck_assert_uint_eq(pt_capture_region_count(cap), 0);
	}
	return cap;
}

/* Writes M as F, loads it expecting CODE and exactly the error MSG, and cleans up. */
static void load_fails(enum afmt f, const struct mspec *m, size_t n, pt_err code, const char *msg)
{
	char *path = make_capture(f, m, n);

	done(path, load(path, code, msg));
}

/* The same for an error about the capture as a whole: "PATH: WHAT". */
static void capture_fails(enum afmt f, const struct mspec *m, size_t n, pt_err code, const char *what)
{
	char *path = make_capture(f, m, n), msg[4200];

	snprintf(msg, sizeof msg, "%s: %s", path, what);
	done(path, load(path, code, msg));
}

/* ---- the standard capture ---- */

static uint8_t pat(uint64_t pa)
{
	return (uint8_t)(pa ^ pa >> 8 ^ pa >> 16 ^ 0x5a);
}

static uint8_t vid[0x4000], sys_[0x1000];

static void fill(void)
{
	for (size_t i = 0; i < sizeof vid; i++)
		vid[i] = pat(0x200000 + i);
	for (size_t i = 0; i < sizeof sys_; i++)
		sys_[i] = pat(0x80000000 + i);
}

static const char ini_nv[] =
	"[capture]\nversion = 1\nformat = nv-gmmu-ver2\ngpu = TU104\nx-tool = test\n"      /* 1-5 */
	"[memory vram0]\nspace = vidmem\nbase = 0x200000\nfile = mem/vid.bin\n"             /* 6-9 */
	"[memory sys0]\nspace = sysmem\nbase = 0x80000000\nfile = mem/sys.bin\n"            /* 10-13 */
	"[pdb pdb0]\nspace = vidmem\naddress = 0x201000\nx-chan = 3\n"                      /* 14-17 */
	"[pdb pdb1]\nspace = sysmem\naddress = 0x80000000\n";                                /* 18-20 */

static void check_std(const struct pt_capture *cap, bool in_place, const char *source)
{
	const struct pt_mem *mem = pt_capture_mem(cap);
	const struct pt_context *c;
	const struct pt_region_info *r;
	uint8_t buf[64];

	ck_assert_ptr_eq(pt_capture_format(cap), &pt_format_ver2);
	ck_assert_uint_eq(pt_capture_version(cap), 1);
	ck_assert_str_eq(pt_capture_source(cap), source);
	ck_assert_str_eq(pt_capture_gpu(cap), "TU104");
	ck_assert_ptr_null(pt_capture_description(cap));
	ck_assert_uint_eq(pt_capture_annotation_count(cap), 1);
	ck_assert_str_eq(pt_capture_annotation(cap, 0)->key, "x-tool");
	ck_assert_str_eq(pt_capture_annotation(cap, 0)->value, "test");
	ck_assert_ptr_null(pt_capture_annotation(cap, 1));

	ck_assert_uint_eq(pt_capture_region_count(cap), 2);
	r = pt_capture_region(cap, 0);
	ck_assert_str_eq(r->name, "vram0");
	ck_assert_str_eq(r->file, "mem/vid.bin");
	ck_assert_uint_eq(r->space, 0);
	ck_assert_uint_eq(r->base, 0x200000);
	ck_assert_uint_eq(r->size, sizeof vid);
	ck_assert_msg(r->in_place == in_place, "in_place %d", r->in_place);
	r = pt_capture_region(cap, 1);
	ck_assert_str_eq(r->name, "sys0");
	ck_assert_uint_eq(r->space, 1);
	ck_assert_uint_eq(r->size, sizeof sys_);
	ck_assert_ptr_null(pt_capture_region(cap, 2));

	ck_assert(pt_mem_read(mem, 0, 0x200000, buf, 64));
	ck_assert_mem_eq(buf, vid, 64);
	ck_assert(pt_mem_read(mem, 0, 0x203fc0, buf, 64));
	ck_assert_mem_eq(buf, vid + 0x3fc0, 64);
	ck_assert(!pt_mem_read(mem, 0, 0x203fc8, buf, 64));   /* runs past the region */
	ck_assert(pt_mem_read(mem, 1, 0x80000ff8, buf, 8));
	ck_assert_mem_eq(buf, sys_ + 0xff8, 8);
	ck_assert(!pt_mem_read(mem, 1, 0x200000, buf, 8));    /* the other space */

	ck_assert_uint_eq(pt_capture_context_count(cap), 2);
	c = pt_capture_context(cap, 0);
	ck_assert_str_eq(c->name, "pdb0");
	ck_assert_uint_eq(c->index, 0);
	ck_assert_ptr_eq(c->cap, cap);
	ck_assert_ptr_eq(c->fmt, &pt_format_ver2);
	ck_assert_ptr_eq(c->mem, mem);
	ck_assert_uint_eq(c->root_space, 0);
	ck_assert_uint_eq(c->root_addr, 0x201000);
	ck_assert_uint_eq(c->root_entries, 4);
	ck_assert_uint_eq(c->root_page_shift, 0);
	ck_assert_uint_eq(c->va_base, 0);
	ck_assert_uint_eq(pt_ver2_of(c)->big_page_size, 65536);
	ck_assert_uint_eq(c->ini_line, 14);
	ck_assert_uint_eq(c->nannotations, 1);
	ck_assert_str_eq(c->annotations[0].key, "x-chan");
	ck_assert_str_eq(c->annotations[0].value, "3");
	c = pt_capture_context(cap, 1);
	ck_assert_str_eq(c->name, "pdb1");
	ck_assert_uint_eq(c->index, 1);
	ck_assert_uint_eq(c->root_space, 1);
	ck_assert_uint_eq(c->nannotations, 0);
	ck_assert_ptr_eq(pt_capture_context_find(cap, "pdb1"), c);
	ck_assert_ptr_eq(pt_capture_context_find(cap, "pdb0"), pt_capture_context(cap, 0));
	ck_assert_ptr_null(pt_capture_context_find(cap, "pdb2"));
	ck_assert_ptr_null(pt_capture_context_find(cap, "capture"));
	ck_assert_ptr_null(pt_capture_context(cap, 2));
}

/* Writes M as F and loads it: the standard capture, read in place or copied. */
static void loads_std(enum afmt f, const struct mspec *m, size_t n, bool in_place)
{
	char *path;
	struct pt_capture *cap;

	fill();
	path = make_capture(f, m, n);
	cap = load(path, PT_OK, "");
	check_std(cap, in_place, path);
	done(path, cap);
}

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

	tc = tcase_create("guard");
	tcase_add_test(tc, guard_survives_truncate);
	tcase_add_test(tc, guard_without_signal_copies);
	suite_add_tcase(s, tc);

	tc = tcase_create("hostile");
	tcase_add_test(tc, many_members);
	tcase_add_test(tc, long_names);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
