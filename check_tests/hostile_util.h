/*
 * hostile_util.h — what the parts of test_hostile.c share: its includes,
 * helpers and fixtures, one copy per part (static: each part uses some of
 * them, hence the unused warnings are off here).  The parts are one Check
 * binary; each adds its TCases (hostile_add_*()).
 */
#ifndef HOSTILE_UTIL_H
#define HOSTILE_UTIL_H

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-variable"
#endif
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "archive_util.h"
#include "fmt_gart.h"
#include "ini.h"
#include "pt_capture.h"
#include "pt_render.h"
#include "pt_tree.h"
#include "pt_walk.h"
#include "synth.h"
#include "testutil.h"

/* The amd-gart data (ctx->priv) of the hand-built GART contexts below. */
static struct pt_gart_layout gl;

/* ---- building hostile captures (archive_util.c) ---- */

static char *tmpdir;

/* A fresh temp directory for this test; removed by cleanup(). */
static void setup(void)
{
	tmpdir = tu_mkdtemp();
}

static void cleanup(void)
{
	if (tmpdir) {
		tu_rmtree(tmpdir);
		free(tmpdir);
		tmpdir = NULL;
	}
}

static char *tpath(const char *name)
{
	char *p;

	ck_assert_int_ge(asprintf(&p, "%s/%s", tmpdir, name), 0);
	return p;
}

/* Writes a tar (ustar when USTAR: raw name bytes, else pax) with filter F to NAME in tmpdir. */
static char *make_tar_fmt(const char *name, enum au_filter f, bool ustar, const struct mspec *m, size_t n)
{
	char *path = tpath(name);

	au_write(path, ustar ? AU_USTAR : AU_PAX, f, m, n);
	return path;
}

static char *make_tar(enum au_filter f, const struct mspec *m, size_t n)
{
	char name[32];

	snprintf(name, sizeof name, "cap.%s", au_filter_ext[f]);
	return make_tar_fmt(name, f, false, m, n);
}

/* Compresses LEN raw bytes with F into NAME in tmpdir (no tar around them). */
static char *compress_raw(const char *name, enum au_filter f, const void *data, size_t len)
{
	char *path = tpath(name);

	au_compress_raw(path, f, data, len);
	return path;
}

/* Deterministic pseudo-random bytes (xorshift64*). */
static void random_bytes(uint8_t *p, size_t n, uint64_t seed)
{
	uint64_t x = seed | 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		p[i] = (uint8_t)((x * 0x2545f4914f6cdd1dull) >> 56);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* No byte of S is a control character (messages go to terminals). */
static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/*
 * Loads PATH and expects CODE.  On failure the message must contain NEEDLE
 * (when not NULL), be one printable line, and nothing may be half loaded.
 * Returns the capture (free it).
 */
static struct pt_capture *load(const char *path, pt_err code, const char *needle)
{
	struct pt_capture *cap = pt_capture_new();
	pt_err rc;

	ck_assert_ptr_nonnull(cap);
	rc = pt_capture_load(cap, path);
	ck_assert_msg(rc == code, "load %s: %s (%s), want %s", path, pt_errname(rc),
		      pt_capture_error(cap), pt_errname(code));
	if (needle)
		ck_assert_msg(strstr(pt_capture_error(cap), needle), "error '%s' lacks '%s'",
			      pt_capture_error(cap), needle);
	if (rc) {
		ck_assert_msg(pt_capture_error(cap)[0], "failed without a message");
		ck_assert_uint_eq(pt_capture_context_count(cap), 0);
		ck_assert_ptr_null(pt_capture_mem(cap));
	}
	return cap;
}

static void load_free(const char *path, pt_err code, const char *needle)
{
	pt_capture_free(load(path, code, needle));
}

/* ---- a good capture to start from ---- */

/* A VER2 root table at vidmem 0x200000: pde3[0] -> pde2 at 0x201000 (zeros). */
static uint8_t good_blob[0x2000];

static void good_fill(void)
{
	uint64_t v = ((0x201000ull >> 12) << 8) | (1ull << 1);

	memset(good_blob, 0, sizeof good_blob);
	for (int i = 0; i < 8; i++)
		good_blob[i] = (uint8_t)(v >> (8 * i));
}

#define GOOD_INI                                                        \
	"[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"               \
	"[memory m]\nspace = vidmem\nbase = 0x200000\nfile = a.bin\n"   \
	"[pdb p]\nspace = vidmem\naddress = 0x200000\n"

/* Builds a tar.gz of capture.ini = INI and a.bin = the good blob. */
static char *with_ini(const char *ini)
{
	struct mspec m[] = {
		{"capture.ini", 'f', ini, strlen(ini), 0, NULL},
		BLOB("a.bin", good_blob),
	};

	good_fill();
	return make_tar(AU_GZ, m, 2);
}

/* Writes M as a tar with filter F and loads it as load_free() does. */
static void tar_loads(enum au_filter f, const struct mspec *m, size_t n, pt_err code, const char *needle)
{
	char *p = make_tar(f, m, n);

	load_free(p, code, needle);
	free(p);
}

/* The same for capture.ini = INI next to the good blob (with_ini()). */
static void ini_loads(const char *ini, pt_err code, const char *needle)
{
	char *p = with_ini(ini);

	load_free(p, code, needle);
	free(p);
}


#define CAPH "[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
#define MEMS "[memory m]\nspace = vidmem\nbase = 0x200000\nfile = a.bin\n"
#define PDBS "[pdb p]\nspace = vidmem\naddress = 0x200000\n"

/* pde3[0] -> pde2 -> pde1[0] -> pde0: the path down to PD0 most hostile tables hang from. */
static void chain_to_pd0(void)
{
	put64(PD3, pde_vid(PD2));
	put64(PD2, pde_vid(PD1));
	put64(PD1, pde_vid(PD0));
}

void hostile_add_load(Suite *s);
void hostile_add_bounded(Suite *s);

#endif
