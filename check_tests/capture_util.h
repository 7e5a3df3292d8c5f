/*
 * capture_util.h — what the parts of test_capture.c share: its includes,
 * helpers and fixtures, one copy per part (static: each part uses some of
 * them, hence the unused warnings are off here).  The parts are one Check
 * binary; each adds its TCases (capture_add_*()).
 */
#ifndef CAPTURE_UTIL_H
#define CAPTURE_UTIL_H

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-variable"
#endif
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


void capture_add_memory(Suite *s);

#endif
