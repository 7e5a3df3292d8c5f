/* SPDX-License-Identifier: MIT */
/*
 * test_pasid: VT-d scalable-mode PASID entries as contexts (issue #23
 * item 3; VT-d spec §9.6 as Linux drivers/iommu/intel/pasid.h and QEMU
 * hw/i386/intel_iommu_internal.h lay it out): every field decoded from a
 * word with only that field set, the second-level table of PGTT 2/3 as an
 * intel-vtd context, the first-level table of PGTT 1/3 as an x86-64 one,
 * and the entries that give no table refused on one line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt_ctx.h"
#include "pt_capture.h"
#include "pt_walk.h"
#include "testutil.h"

#define BIT(n) (1ull << (n))

static struct pt_pasid parse(const char *value)
{
	char err[256] = "";
	struct pt_ctx_key k = {.key = "pasid_entry", .value = value, .line = 3,
			       .label = "[vtd d]", .err = err, .errlen = sizeof err};
	struct pt_pasid pe;

	ck_assert_msg(pt_fmt_pasid_key(&k, &pe) == PT_OK, "%s: %s", value, err);
	return pe;
}

/* Each field alone, at the bits the layout gives (QW0, QW1, QW2). */
START_TEST(fields)
{
	struct pt_pasid pe;
	char v[128];

	pe = parse("0x1");
	ck_assert_uint_eq(pe.p, 1);
	ck_assert_uint_eq(pe.nqw, 1);
	ck_assert_uint_eq(parse("0x2").fpd, 1);
	ck_assert_uint_eq(parse("0x2").p, 0);
	ck_assert_uint_eq(parse("0x1c").aw, 7);             /* 4:2 */
	ck_assert_uint_eq(parse("0x8").aw, 2);
	ck_assert_uint_eq(parse("0x1c0").pgtt, 7);          /* 8:6 */
	ck_assert_uint_eq(parse("0x40").pgtt, 1);
	ck_assert_uint_eq(parse("0x200").slade, 1);          /* 9 */
	ck_assert_uint_eq(parse("0xfffffffffffff000").slptptr, 0xfffffffffffff000ull);   /* 63:12 */
	ck_assert_uint_eq(parse("0xfff").slptptr, 0);
	ck_assert_uint_eq(parse("0 0xffff").did, 0xffff);    /* QW1 15:0 */
	ck_assert_uint_eq(parse("0 0x10000").did, 0);
	ck_assert_uint_eq(parse("0 0x800000").pwsnp, 1);     /* QW1 23 */
	ck_assert_uint_eq(parse("0 0x1000000").pgsnp, 1);    /* QW1 24 */
	ck_assert_uint_eq(parse("0 0 0x1").sre, 1);          /* QW2 0 */
	ck_assert_uint_eq(parse("0 0 0xc").flpm, 3);         /* QW2 3:2 */
	ck_assert_uint_eq(parse("0 0 0x4").flpm, 1);
	ck_assert_uint_eq(parse("0 0 0x10").wpe, 1);         /* QW2 4 */
	ck_assert_uint_eq(parse("0 0 0x80").eafe, 1);        /* QW2 7 */
	ck_assert_uint_eq(parse("0 0 0xabcd000").flptr, 0xabcd000ull);   /* QW2 63:12 */
	ck_assert_uint_eq(parse("0 0 0xfff").flptr, 0);
	/* D13: P; AW 2; PGTT 2 (second level); SLPTPTR 0x12348000 */
	pe = parse("0x0000000012348089");
	ck_assert_uint_eq(pe.p, 1);
	ck_assert_uint_eq(pe.aw, 2);
	ck_assert_uint_eq(pe.pgtt, PT_PGTT_SECOND);
	ck_assert_uint_eq(pe.slptptr, 0x12348000ull);
	ck_assert_uint_eq(pe.fpd | pe.slade, 0);
	/* eight words; decimal too */
	pe = parse("1 2 3 4 5 6 7 8");
	ck_assert_uint_eq(pe.nqw, 8);
	ck_assert_uint_eq(pe.qw[7], 8);
	ck_assert_str_eq(pt_fmt_pgtt_name(3), "nested");
	ck_assert_str_eq(pt_fmt_pgtt_name(4), "pass-through");
	ck_assert_str_eq(pt_fmt_pgtt_name(5), "reserved");
	snprintf(v, sizeof v, "%s", "1 2 3 4 5 6 7 8 9");
	{
		char err[256] = "";
		struct pt_ctx_key k = {.key = "pasid_entry", .value = v, .line = 3, .label = "[vtd d]",
				       .err = err, .errlen = sizeof err};

		ck_assert_int_eq(pt_fmt_pasid_key(&k, &pe), PT_E_VALUE);
		ck_assert_ptr_nonnull(strstr(err, "more than 8 words"));
		k.value = "0x1 zz";
		ck_assert_int_eq(pt_fmt_pasid_key(&k, &pe), PT_E_VALUE);
		ck_assert_ptr_nonnull(strstr(err, "bad word 'zz'"));
		ck_assert_ptr_nonnull(strstr(err, "capture.ini:3:"));
		k.value = "";
		ck_assert_int_eq(pt_fmt_pasid_key(&k, &pe), PT_E_VALUE);
	}
}
END_TEST

/* ---- contexts ------------------------------------------------------------- */

#define MEMSZ 0x8000
static uint8_t mem[MEMSZ];

static void put(uint64_t pa, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		mem[pa + (uint64_t)i] = (uint8_t)(v >> (8 * i));
}

struct cap {
	char *dir;
	struct pt_capture *c;
	pt_err rc;
};

/* A capture of SECTIONS in one format: intel-vtd for [vtd], x86-64 for [cpu], intel-ept for [ept]. */
static struct cap load(const char *sections)
{
	struct cap k = {0};
	char ini[2048];
	const char *fmt = !strncmp(sections, "[cpu", 4) ? "x86-64" :
			  !strncmp(sections, "[ept", 4) ? "intel-ept" : "intel-vtd";

	k.dir = tu_mkdtemp();
	snprintf(ini, sizeof ini, "[capture]\nversion = 1\nformat = %s\n"
		 "[memory m]\nspace = sysmem\nbase = 0\nfile = mem/sys.bin\n%s", fmt, sections);
	tu_write(k.dir, "capture.ini", ini, strlen(ini));
	tu_write(k.dir, "mem/sys.bin", mem, sizeof mem);
	k.c = pt_capture_new();
	k.rc = pt_capture_load(k.c, k.dir);
	return k;
}

static void unload(struct cap *k)
{
	pt_capture_free(k->c);
	tu_rmtree(k->dir);
	free(k->dir);
}

/*
 * Second level, 3 levels (AW 1): pdpt 0x1000 → pd 0x2000 → pt 0x3000,
 * IOVA 0x1000 → 0x87654000.  First level, 4-level: pml4 0x4000 → pdpt
 * 0x5000 → pd 0x6000, a 2 MiB page at VA 0x200000 → 0x80200000 (present,
 * writable, user, PS).
 */
static void tables(void)
{
	memset(mem, 0, sizeof mem);
	put(0x1000, 0x2000 | 3);
	put(0x2000, 0x3000 | 3);
	put(0x3000 + 8, 0x87654000ull | 3);
	put(0x4000, 0x5000 | 7);
	put(0x5000, 0x6000 | 7);
	put(0x6000 + 8, 0x80200000ull | 0x87);
}

static void mapped(const struct pt_context *ctx, uint64_t va, uint64_t pa, const char *fmt,
		   const char *root)
{
	struct pt_walk w;

	ck_assert_str_eq(ctx->fmt->name, fmt);
	ck_assert_str_eq(ctx->fmt->levels[0].name, root);
	ck_assert_int_eq(pt_walk_va(ctx, va, &w), PT_OK);
	ck_assert_msg(w.fault == PT_FAULT_NONE, "0x%" PRIx64 ": %s", va, pt_fault_name(w.fault));
	ck_assert_uint_eq(w.pa, pa);
}

START_TEST(contexts)
{
	struct cap k;

	tables();
	/* PGTT 2, AW 1 (3 levels), SLPTPTR 0x1000; DID 5 */
	k = load("[vtd d]\npasid_entry = 0x1085 0x5\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	mapped(pt_capture_context(k.c, 0), 0x1234, 0x87654234ull, "intel-vtd", "pdpt");
	unload(&k);
	/* PGTT 3 (nested): its second stage as [vtd], its first stage as [cpu] (an x86-64 capture) */
	k = load("[vtd s2]\npasid_entry = 0x10c5 0 0x4000\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	mapped(pt_capture_context(k.c, 0), 0x1000, 0x87654000ull, "intel-vtd", "pdpt");
	unload(&k);
	k = load("[cpu s1]\npasid_entry = 0x10c5 0 0x4000\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	mapped(pt_capture_context(k.c, 0), 0x200123, 0x80200123ull, "x86-64", "pml4");
	unload(&k);
	/* PGTT 1: the first-level table only, FLPM 0 (4-level) and 1 (5-level) */
	k = load("[cpu s1]\npasid_entry = 0x41 0 0x4000\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	mapped(pt_capture_context(k.c, 0), 0x200000, 0x80200000ull, "x86-64", "pml4");
	unload(&k);
	k = load("[cpu s1]\npasid_entry = 0x41 0 0x4004\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ck_assert_str_eq(pt_capture_context(k.c, 0)->fmt->levels[0].name, "pml5");
	unload(&k);
	/* PGTT 4, AW 2: pass-through (§9.6), every address below 2^48 is its own output */
	k = load("[vtd d]\npasid_entry = 0x1109\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	{
		struct pt_walk w;

		ck_assert_int_eq(pt_walk_va(pt_capture_context(k.c, 0), 0x123456789ull, &w), PT_OK);
		ck_assert(pt_walk_aperture_hit(&w));
		ck_assert_str_eq(w.aperture.name, "pass-through");
		ck_assert_uint_eq(w.aperture.pa, 0x123456789ull);
	}
	unload(&k);
}
END_TEST

static void refused(const char *sections, const char *msg)
{
	struct cap k = load(sections);

	ck_assert_msg(k.rc != PT_OK, "%s loaded", sections);
	ck_assert_msg(strstr(pt_capture_error(k.c), msg) != NULL, "'%s' not in '%s'", msg,
		      pt_capture_error(k.c));
	ck_assert_ptr_null(strchr(pt_capture_error(k.c), '\n'));
	unload(&k);
}

START_TEST(refusals)
{
	tables();
	refused("[vtd d]\npasid_entry = 0x1084\n", "is not present (P=0)");
	refused("[vtd d]\npasid_entry = 0x1045\n", "PGTT 1 is first-level only");
	refused("[vtd d]\npasid_entry = 0x1145\n", "PGTT 5 is reserved");
	refused("[vtd d]\npasid_entry = 0x1081\n", "AW 0 is not supported");
	refused("[vtd d]\npasid_entry = 0x1085\naw = 39\n", "both given");
	refused("[cpu c]\npasid_entry = 0x1085 0 0x4000\n", "PGTT 2 (second-level) has no first-level");
	refused("[cpu c]\npasid_entry = 0x41 0 0x4008\n", "FLPM 2 is reserved");
	refused("[cpu c]\npasid_entry = 0x41 0 0x4000\ncr3 = 0x4000\n", "both given");
	refused("[cpu c]\npasid_entry = 0x41 0 0x4000\nla57 = 1\n", "disagrees with pasid_entry FLPM 0");
	refused("[cpu c]\nefer = 0\n", "cr3 (or pasid_entry)");
	refused("[ept e]\npasid_entry = 0x1085\n", "pasid_entry");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pasid");
	TCase *tc = tcase_create("pasid");

	tcase_add_test(tc, fields);
	tcase_add_test(tc, contexts);
	tcase_add_test(tc, refusals);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
