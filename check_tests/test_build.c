/* SPDX-License-Identifier: MIT */
/*
 * test_build: the encoders and the table builder (core/walk/build.c;
 * issue #25 item 4).
 *
 * - roundtrip: encode(decode(x)) == x for every format that has an
 *   encoder, at every level, over every 8/16-byte word of every memory
 *   blob of the committed fixtures and over random words (a fixed seed):
 *   an encoder is the decoder's inverse, field by field.  Entries the
 *   decoder calls unsupported are left out (their bits belong to no
 *   layout).
 * - builder: pages as large as the alignment allows, tables shared, a
 *   dual entry with both halves, overlaps and misalignment refused, and
 *   each built entry decodes back to its request.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_build.h"
#include "pt_capture.h"
#include "pt_mem.h"
#include "pt_walk.h"
#include "testutil.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic, so a failure names a reproducible value */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

/* Decodes RAW at LEVEL, encodes the result, and checks the bytes come back; false if skipped. */
static bool roundtrip_one(const struct pt_format *fmt, unsigned level, const uint8_t *raw)
{
	const struct pt_level *l = &fmt->levels[level];
	unsigned shift = l->bits ? l->va_shift : 12;
	struct pt_entry e;
	uint8_t out[16] = { 0 };
	char err[256] = "";

	if (fmt->decode(level, shift, raw, 0, &e) != PT_OK || e.state == PT_ST_UNSUPPORTED)
		return false;
	ck_assert_msg(fmt->encode(level, &e, out, err, sizeof err) == PT_OK,
		      "%s %s: encode failed: %s", fmt->name, l->name, err);
	if (memcmp(out, raw, l->entry_size) != 0) {
		uint64_t a[2] = { 0 }, b[2] = { 0 };

		memcpy(a, raw, l->entry_size);
		memcpy(b, out, l->entry_size);
		ck_abort_msg("%s %s: 0x%016llx%016llx encodes back as 0x%016llx%016llx (state %s)",
			     fmt->name, l->name, (unsigned long long)a[1], (unsigned long long)a[0],
			     (unsigned long long)b[1], (unsigned long long)b[0], pt_state_name(e.state));
	}
	return true;
}

START_TEST(test_roundtrip_random)
{
	unsigned checked = 0;

	for (unsigned f = 0; pt_format_at(f); f++) {
		const struct pt_format *fmt = pt_format_at(f);

		if (!fmt->encode)
			continue;
		for (unsigned level = 0; fmt->levels[level].name; level++)
			for (unsigned i = 0; i < 20000; i++) {
				uint64_t v[2] = { rnd(), rnd() };

				/* Sparse values too: most entries have few bits set. */
				if (i & 1) {
					v[0] &= rnd() & rnd();
					v[1] &= rnd() & rnd() & rnd();
				}
				if (i & 2)
					v[0] |= 1;
				checked += roundtrip_one(fmt, level, (const uint8_t *)v);
			}
	}
	ck_assert_uint_gt(checked, 100000);
}
END_TEST

/* Every word of every memory blob of FIXTURE, at every level of its contexts' formats. */
static unsigned roundtrip_fixture(const char *fixture)
{
	struct pt_capture *cap = pt_capture_new();
	unsigned checked = 0;

	ck_assert_msg(pt_capture_load(cap, tu_fixture(fixture)) == PT_OK, "%s: %s", fixture,
		      pt_capture_error(cap));
	for (size_t c = 0; c < pt_capture_context_count(cap); c++) {
		const struct pt_context *ctx = pt_capture_context(cap, c);

		if (!ctx->fmt->encode)
			continue;
		for (size_t r = 0; r < pt_capture_region_count(cap); r++) {
			const struct pt_region_info *ri = pt_capture_region(cap, r);
			/* single-format fixtures: the region's space id is the context's */
			int sp = (int)ri->space;

			for (uint64_t off = 0; sp >= 0 && off + 16 <= ri->size && off < (1u << 22); off += 8) {
				uint8_t raw[16];

				if (!pt_mem_read(ctx->mem, (unsigned)sp, ri->base + off, raw, 16))
					continue;
				if (!memcmp(raw, (uint8_t[16]){ 0 }, 16))
					continue;
				for (unsigned level = 0; ctx->fmt->levels[level].name; level++)
					if (ctx->fmt->levels[level].entry_size == 8 || off % 16 == 0)
						checked += roundtrip_one(ctx->fmt, level, raw);
			}
		}
	}
	pt_capture_free(cap);
	return checked;
}

START_TEST(test_roundtrip_fixtures)
{
	static const char *const fixtures[] = {
		"turing-mixed.tar.gz", "turing-mixed-after.tar.gz", "turing-mixed-relocated.tar.gz",
		"hopper-mixed.tar.gz", "gart-cosim.tar.gz", "gart-umr-kat.tar.gz",
	};
	unsigned checked = 0;

	for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++)
		checked += roundtrip_fixture(fixtures[i]);
	ck_assert_uint_gt(checked, 1000);
}
END_TEST

/* A context of FORMAT from capture.ini KEYS, set up with no memory (its geometry only). */
static struct pt_capture *geometry(const char *ini, char **dir)
{
	struct pt_capture *cap = pt_capture_new();

	*dir = tu_mkdtemp();
	tu_write(*dir, "capture.ini", ini, strlen(ini));
	ck_assert_msg(pt_capture_load(cap, *dir) == PT_OK, "%s", pt_capture_error(cap));
	return cap;
}

START_TEST(test_builder_ver2)
{
	char *dir, err[256] = "";
	struct pt_capture *cap = geometry("[capture]\nversion = 1\nformat = nv-gmmu-ver2\n"
					  "[pdb p]\nspace = vidmem\naddress = 0\n", &dir);
	const struct pt_context *ctx = pt_capture_context(cap, 0);
	struct pt_build *b = pt_build_new();
	const char *ro[] = { "read_only" }, *bad[] = { "writable" };
	uint64_t root;
	unsigned id;

	ck_assert_int_eq(pt_build_space(b, "vidmem", 0x100000), PT_OK);
	ck_assert_int_eq(pt_build_context(b, ctx, &root, &id, err, sizeof err), PT_OK);
	ck_assert_uint_eq(root, 0x100000);
	/* 2 MiB + 64 KiB + 4 KiB: one dual PDE0 slot holds both a big and a small table. */
	ck_assert_int_eq(pt_build_map(b, id, 0x200000, 0x200000, "vidmem", 0x40000000, ro, 1,
				      err, sizeof err), PT_OK);
	ck_assert_int_eq(pt_build_map(b, id, 0x400000, 0x10000, "sysmem", 0x80000000, NULL, 0,
				      err, sizeof err), PT_OK);
	ck_assert_int_eq(pt_build_map(b, id, 0x410000, 0x1000, "vidmem", 0x5000, NULL, 0,
				      err, sizeof err), PT_OK);
	/* Refused: an overlap, a PA not aligned to any page, a space the format lacks. */
	ck_assert_int_eq(pt_build_map(b, id, 0x200000, 0x1000, "vidmem", 0, NULL, 0, err, sizeof err),
			 PT_E_VALUE);
	ck_assert_ptr_nonnull(strstr(err, "already mapped"));
	ck_assert_int_eq(pt_build_map(b, id, 0x800000, 0x1000, "vidmem", 0x123, NULL, 0, err, sizeof err),
			 PT_E_VALUE);
	ck_assert_ptr_nonnull(strstr(err, "aligned to the smallest page"));
	ck_assert_int_eq(pt_build_map(b, id, 0x900000, 0x1000, "vram", 0, NULL, 0, err, sizeof err),
			 PT_E_VALUE);
	ck_assert_int_eq(pt_build_finish(b, err, sizeof err), PT_OK);
	/* pde3 + pde2 + pde1 + pde0 + a big and a small table, each in a page of its own. */
	ck_assert_uint_eq(pt_build_blob_count(b), 1);
	ck_assert_str_eq(pt_build_blob(b, 0)->space, "vidmem");
	ck_assert_uint_eq(pt_build_blob(b, 0)->size, 6 * 4096);
	pt_build_free(b);

	/* A flag that is no one-bit field of the leaf is refused on its map. */
	b = pt_build_new();
	ck_assert_int_eq(pt_build_context(b, ctx, &root, &id, err, sizeof err), PT_OK);
	ck_assert_int_eq(pt_build_map(b, id, 0x1000, 0x1000, "vidmem", 0x1000, bad, 1, err, sizeof err),
			 PT_E_VALUE);
	ck_assert_ptr_nonnull(strstr(err, "'writable' is not a one-bit field"));
	pt_build_free(b);
	pt_capture_free(cap);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(test_builder_gart_flat)
{
	char *dir, err[256] = "";
	struct pt_capture *cap = geometry("[capture]\nversion = 1\nformat = amd-gart\n[gart g]\n"
					  "VM_CONTEXT0_PAGE_TABLE_BASE_ADDR = 1\n"
					  "VM_CONTEXT0_PAGE_TABLE_START_ADDR = 0x100\n"
					  "VM_CONTEXT0_PAGE_TABLE_END_ADDR = 0x1ff\n", &dir);
	const struct pt_context *ctx = pt_capture_context(cap, 0);
	struct pt_build *b = pt_build_new();
	uint64_t root;
	unsigned id;

	ck_assert_int_eq(pt_build_context(b, ctx, &root, &id, err, sizeof err), PT_OK);
	/* 256 entries of a flat table: 2 KiB, one page; a VA below START is outside it. */
	ck_assert_int_eq(pt_build_map(b, id, 0x100000, 0x100000, "sysmem", 0x7000000, NULL, 0,
				      err, sizeof err), PT_OK);
	ck_assert_int_eq(pt_build_map(b, id, 0xff000, 0x1000, "sysmem", 0, NULL, 0, err, sizeof err),
			 PT_E_VALUE);
	ck_assert_ptr_nonnull(strstr(err, "outside"));
	ck_assert_int_eq(pt_build_finish(b, err, sizeof err), PT_OK);
	ck_assert_uint_eq(pt_build_blob(b, 0)->size, 4096);
	pt_build_free(b);
	pt_capture_free(cap);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("build");
	TCase *tc = tcase_create("roundtrip");

	tcase_add_test(tc, test_roundtrip_random);
	tcase_add_test(tc, test_roundtrip_fixtures);
	suite_add_tcase(s, tc);
	tc = tcase_create("builder");
	tcase_add_test(tc, test_builder_ver2);
	tcase_add_test(tc, test_builder_gart_flat);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
