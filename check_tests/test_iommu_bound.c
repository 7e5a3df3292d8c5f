/* SPDX-License-Identifier: MIT */
/*
 * test_iommu_bound.c — the bounds of an [iommu] walk (core/load/iommu_seen.c,
 * issue #39 items 1, 4, 12): tables that fan out (one PASID table named by
 * 2^14 directory slots, a directory shared by devices, a GCR3 L1 naming one
 * L0 or the device table, an L1CD table or a CD table shared by streams) load
 * in bounded time and memory with one warning naming the [iommu] line; the
 * max_contexts key and load option; registers that point at the wrong page;
 * an SMMUv3 L1CD not captured.  Part of test_iommu (its own memory image).
 * Every table is written here from the layouts the specs give (VT-d spec
 * §9.1, §9.3-9.6, §11.4.5; AMD IOMMU spec 48882 §2.2.2, §2.2.6, §3.3.1; Arm
 * IHI 0070 §5.2-5.4, §6.3.23/24), never by the code under test.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "pt_capture.h"
#include "testutil.h"

void iommu_add_bound(Suite *s);

#define BASE 0x100000ull
#define MEMSZ 0x40000
static uint8_t mem[MEMSZ];
/* the [iommu] section's line in tu_cap_load()'s capture.ini: after 7 lines of its own */
#define LINE "capture.ini:8: [iommu io]: "

static void put(uint64_t pa, uint64_t v)
{
	tu_put64(mem, sizeof mem, pa - BASE, v);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static long maxrss_mib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024;
}

/* Loads SECTIONS over mem[] (format FMT) with the capture's bound MAX (0: default). */
static struct tu_cap load_max(const char *fmt, const char *sections, uint64_t max)
{
	struct tu_cap k;
	char ini[1024];
	int n;

	if (!max)
		return tu_cap_load(fmt, BASE, mem, sizeof mem, sections);
	k.dir = tu_mkdtemp();
	n = snprintf(ini, sizeof ini, "[capture]\nversion = 1\nformat = %s\n[memory m]\nspace = sysmem\n"
		     "base = 0x%" PRIx64 "\nfile = mem/sys.bin\n%s", fmt, (uint64_t)BASE, sections);
	ck_assert(n > 0 && (size_t)n < sizeof ini);
	tu_write(k.dir, "capture.ini", ini, strlen(ini));
	tu_write(k.dir, "mem/sys.bin", mem, sizeof mem);
	k.c = pt_capture_new();
	ck_assert_ptr_nonnull(k.c);
	k.rc = pt_capture_load_opts(k.c, k.dir, &(struct pt_load_opts){.max_contexts = max});
	return k;
}

/*
 * Loads; checks the load took under 10 s and 512 MiB (the unbounded walk
 * made 2^20 contexts in 1.8 GB and 34 s), CONTEXTS contexts and exactly one
 * warning, WARNING (its text after the section's line).
 */
static struct tu_cap bounded(const char *fmt, const char *sections, size_t contexts,
			     const char *warning)
{
	double t0 = now_s(), dt;
	struct tu_cap k = tu_cap_load(fmt, BASE, mem, sizeof mem, sections);
	char want[512];

	dt = now_s() - t0;
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ck_assert_msg(dt < 10, "the load took %.1f s", dt);
	ck_assert_int_lt(maxrss_mib(), 512);
	ck_assert_uint_eq(pt_capture_context_count(k.c), contexts);
	ck_assert_uint_eq(pt_capture_warning_count(k.c), 1);
	snprintf(want, sizeof want, LINE "%s", warning);
	ck_assert_str_eq(pt_capture_warning(k.c, 0), want);
	return k;
}

static bool warned(const struct pt_capture *c, const char *what)
{
	for (size_t i = 0; i < pt_capture_warning_count(c); i++)
		if (strstr(pt_capture_warning(c, i), what))
			return true;
	return false;
}

/*
 * VT-d scalable mode (rtaddr TTM 01): root 0x100000, lower context table
 * 0x101000, PASID directory 0x102000 of 2^14 entries (PDTS 7), every entry
 * naming the PASID table 0x122000 of 64 pass-through entries (PGTT 100):
 * 140 KiB that named 2^20 PASIDs per device.  NDEV devices share it.
 */
static void vtd_fanout(unsigned ndev)
{
	memset(mem, 0, sizeof mem);
	put(BASE, 0x101000 | 1);
	for (unsigned d = 0; d < ndev; d++)
		put(0x101000 + 32 * d, 0x102000 | 7 << 9 | 1);
	for (unsigned i = 0; i < 1u << 14; i++)
		put(0x102000 + 8 * i, 0x122000 | 1);
	for (unsigned i = 0; i < 64; i++)
		put(0x122000 + 64 * i, 4 << 6 | 1 << 2 | 1);
}

START_TEST(vtd_pasid_fanout)
{
	struct pt_iommu_counts n;
	struct tu_cap k;

	vtd_fanout(1);
	k = bounded("intel-vtd", "[iommu io]\ntype = intel-vtd\nrtaddr = 0x100400\n", 64,
		    "16383 table pointers reach a table reached before, not followed (the first: the"
		    " PASID table of 00:00.0's PASIDs 0x40-0x7f at sysmem 0x122000): each table is"
		    " read once");
	ck_assert_ptr_nonnull(pt_capture_context_find(k.c, "io.00:00.0"));
	ck_assert_ptr_nonnull(pt_capture_context_find(k.c, "io.00:00.0.pasid63"));
	pt_capture_iommu_counts(k.c, 0, &n);
	ck_assert_uint_eq(n.repeats, 16383);
	ck_assert_uint_eq(n.contexts, 64);
	ck_assert_uint_eq(n.devices, 1);
	ck_assert_ptr_null(n.anomaly);
	tu_cap_free(&k);
	/* eight devices share the directory: it is read once, for the first */
	vtd_fanout(8);
	k = bounded("intel-vtd", "[iommu io]\ntype = intel-vtd\nrtaddr = 0x100400\n", 64,
		    "16390 table pointers reach a table reached before, not followed (the first: the"
		    " PASID table of 00:00.0's PASIDs 0x40-0x7f at sysmem 0x122000): each table is"
		    " read once");
	ck_assert_ptr_null(pt_capture_context_find(k.c, "io.00:00.1"));
	pt_capture_iommu_counts(k.c, 0, &n);
	ck_assert_uint_eq(n.devices, 8);
	tu_cap_free(&k);
	/* the one PASID table not captured: one warning for it, not 2^14 */
	vtd_fanout(1);
	for (unsigned i = 0; i < 1u << 14; i++)
		put(0x102000 + 8 * i, 0x7000000 | 1);
	k = load_max("intel-vtd", "[iommu io]\ntype = intel-vtd\nrtaddr = 0x100400\n", 0);
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ck_assert_uint_eq(pt_capture_warning_count(k.c), 2);
	ck_assert_str_eq(pt_capture_warning(k.c, 0), LINE "00:00.0: the PASID table of PASIDs"
			 " 0x0-0x3f at sysmem 0x7000000 is not captured");
	ck_assert(warned(k.c, LINE "16383 table pointers reach a table reached before"));
	pt_capture_iommu_counts(k.c, 0, &n);
	ck_assert_uint_eq(n.uncaptured, 1);
	tu_cap_free(&k);
}
END_TEST

/*
 * AMD-Vi: NDEV DTEs (V, TV, GIoV, GV, GLX 01: two GCR3 levels, Mode 0)
 * share the GCR3 L1 table 0x101000; its 512 entries all name the L0 table
 * 0x102000 (512 valid entries, guest CR3 0x103000), or, AT_DT, the device
 * table itself (each DTE's first word a valid GCR3 entry).
 */
static void amd_fanout(unsigned ndev, bool at_dt)
{
	uint64_t l1 = 0x101000;
	uint64_t q0 = 3 | 0x103000 | 1ull << 54 | 1ull << 55 | 1ull << 56 | ((l1 >> 12) & 7) << 58;
	uint64_t q1 = ((l1 >> 15) & 0xffff) << 16 | ((l1 >> 31) & 0x1fffff) << 43;

	memset(mem, 0, sizeof mem);
	for (unsigned d = 0; d < ndev; d++) {
		put(BASE + 32 * d, q0);
		put(BASE + 32 * d + 8, q1);
	}
	for (unsigned i = 0; i < 512; i++) {
		put(l1 + 8 * i, (at_dt ? BASE : 0x102000) | 1);
		put(0x102000 + 8 * i, 0x103000 | 1);
	}
}

START_TEST(amdvi_gcr3_fanout)
{
	struct pt_iommu_counts n;
	struct tu_cap k;

	amd_fanout(1, false);
	k = bounded("amd-vi", "[iommu io]\ntype = amd-vi\ndev_table_base = 0x100000\n", 512,
		    "511 table pointers reach a table reached before, not followed (the first: the"
		    " GCR3 table of DeviceID 0x0000's PASIDs 0x200-0x3ff at sysmem 0x102000): each"
		    " table is read once");
	ck_assert_ptr_nonnull(pt_capture_context_find(k.c, "io.00:00.0.pasid511"));
	tu_cap_free(&k);
	/* 128 DTEs whose GCR3 L1 names the device table: 2^23 guests unbounded, none now */
	amd_fanout(128, true);
	k = bounded("amd-vi", "[iommu io]\ntype = amd-vi\ndev_table_base = 0x100000\n", 0,
		    "639 table pointers reach a table reached before, not followed (the first: the"
		    " GCR3 table of DeviceID 0x0000's PASIDs 0x0-0x1ff at sysmem 0x100000): each table"
		    " is read once");
	pt_capture_iommu_counts(k.c, 0, &n);
	ck_assert_uint_eq(n.devices, 128);
	ck_assert_ptr_null(n.anomaly);
	tu_cap_free(&k);
}
END_TEST

#define CD0 (16 | 1ull << 30 | 1ull << 31 | 5ull << 32 | 1ull << 41) /* T0SZ 16, EPD1, V, IPS 5, AA64 */

/*
 * SMMUv3: NSTE stage-1 STEs (Config 101, S1DSS 10) at 0x100000 share the
 * table at 0x110000: with L1, an L1CD table (S1Fmt 01, S1CDMax 20) of 2^14
 * descriptors naming the one leaf 0x130000 of 64 valid CDs; without, a
 * linear table (S1Fmt 00, S1CDMax 10) of 1,024 valid CDs.  TTB0 0x131000.
 */
static void smmu_fanout(unsigned nste, bool l1)
{
	memset(mem, 0, sizeof mem);
	for (unsigned s = 0; s < nste; s++) {
		put(BASE + 64 * s, 1 | 5 << 1 | (l1 ? 1u : 0u) << 4 | 0x110000 |
			(l1 ? 20ull : 10ull) << 59);
		put(BASE + 64 * s + 8, 2);
	}
	for (unsigned i = 0; l1 && i < 1u << 14; i++)
		put(0x110000 + 8 * i, 0x130000 | 1);
	for (unsigned i = 0; i < (l1 ? 64u : 1024u); i++) {
		put((l1 ? 0x130000 : 0x110000) + 64 * i, CD0);
		put((l1 ? 0x130000 : 0x110000) + 64 * i + 8, 0x131000);
	}
}

START_TEST(smmu_cd_fanout)
{
	struct tu_cap k;

	smmu_fanout(1, true);
	k = bounded("arm-smmuv3", "[iommu io]\ntype = arm-smmuv3\nstrtab_base = 0x100000\n"
		    "strtab_base_cfg = 0\n", 64, "16383 table pointers reach a table reached before,"
		    " not followed (the first: sid 0's CD of SSID 64 at sysmem 0x130000): each table"
		    " is read once");
	ck_assert_ptr_nonnull(pt_capture_context_find(k.c, "io.sid0"));
	ck_assert_ptr_nonnull(pt_capture_context_find(k.c, "io.sid0.ssid63"));
	tu_cap_free(&k);
	smmu_fanout(1024, true);
	k = bounded("arm-smmuv3", "[iommu io]\ntype = arm-smmuv3\nstrtab_base = 0x100000\n"
		    "strtab_base_cfg = 10\n", 64, "17406 table pointers reach a table reached before,"
		    " not followed (the first: sid 0's CD of SSID 64 at sysmem 0x130000): each table"
		    " is read once");
	tu_cap_free(&k);
	/* 1,024 streams share a linear CD table of 1,024 CDs: 2^20 contexts unbounded */
	smmu_fanout(1024, false);
	k = bounded("arm-smmuv3", "[iommu io]\ntype = arm-smmuv3\nstrtab_base = 0x100000\n"
		    "strtab_base_cfg = 10\n", 1024, "1023 table pointers reach a table reached before,"
		    " not followed (the first: sid 1's CD of SSID 0 at sysmem 0x110000): each table"
		    " is read once");
	ck_assert_ptr_nonnull(pt_capture_context_find(k.c, "io.sid0.ssid1023"));
	tu_cap_free(&k);
}
END_TEST

/* The section's max_contexts key and the capture's bound (pt_load_opts.max_contexts). */
START_TEST(max_contexts)
{
	static const char two[] = "[iommu io]\ntype = arm-smmuv3\nstrtab_base = 0x100000\n"
				  "strtab_base_cfg = 0\n[iommu jo]\ntype = arm-smmuv3\n"
				  "strtab_base = 0x100000\nstrtab_base_cfg = 0\n";
	struct pt_iommu_counts n;
	struct tu_cap k;

	smmu_fanout(1, false);
	k = load_max("arm-smmuv3", "[iommu io]\ntype = arm-smmuv3\nstrtab_base = 0x100000\n"
		     "strtab_base_cfg = 0\nmax_contexts = 100\n", 0);
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ck_assert_uint_eq(pt_capture_context_count(k.c), 100);
	ck_assert_uint_eq(pt_capture_warning_count(k.c), 1);
	ck_assert_str_eq(pt_capture_warning(k.c, 0), LINE "100 device contexts made, its bound"
			 " (max_contexts = 100): io.sid0.ssid100 and the rest of its tables are not"
			 " read");
	pt_capture_iommu_counts(k.c, 0, &n);
	ck_assert(n.bounded);
	tu_cap_free(&k);
	/* two sections, the capture's bound 1,500: the first makes 1,024, the second the rest */
	k = load_max("arm-smmuv3", two, 1500);
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ck_assert_uint_eq(pt_capture_context_count(k.c), 1500);
	ck_assert_ptr_nonnull(pt_capture_context_find(k.c, "io.sid0.ssid1023"));
	ck_assert_ptr_nonnull(pt_capture_context_find(k.c, "jo.sid0.ssid475"));
	ck_assert_ptr_null(pt_capture_context_find(k.c, "jo.sid0.ssid476"));
	ck_assert_uint_eq(pt_capture_warning_count(k.c), 1);
	ck_assert_str_eq(pt_capture_warning(k.c, 0), "capture.ini:12: [iommu jo]: 476 device"
			 " contexts made, all the capture's bound on device contexts left to it (-o"
			 " max_contexts=, --max-contexts): jo.sid0.ssid476 and the rest of its tables"
			 " are not read");
	tu_cap_free(&k);
	/* the key's range */
	k = load_max("arm-smmuv3", "[iommu io]\ntype = arm-smmuv3\nstrtab_base = 0x100000\n"
		     "strtab_base_cfg = 0\nmax_contexts = 0\n", 0);
	ck_assert_int_eq(k.rc, PT_E_VALUE);
	ck_assert_msg(strstr(pt_capture_error(k.c), "capture.ini:12: max_contexts 0 in [iommu io]"
			     " is not 1 to 16777216"), "%s", pt_capture_error(k.c));
	tu_cap_free(&k);
}
END_TEST

/*
 * Registers that point at the wrong page (issue #39 item 4): rtaddr at a
 * page of zeros, dev_table_base at a VT-d root table, a context table of
 * mostly malformed entries.  The IOMMU's own tables: no anomaly.
 */
START_TEST(wrong_page)
{
	struct pt_iommu_counts n;
	struct tu_cap k;

	memset(mem, 0, sizeof mem);
	put(BASE, 0x101000 | 1);                        /* bus 0 */
	put(0x101000, 0x110000 | 1);                    /* 00:00.0: good (AW 39, DID 1) */
	put(0x101008, 1 | 1 << 8);
	for (unsigned i = 1; i <= 3; i++) {             /* 00:00.1-3: lo bit 5 reserved */
		put(0x101000 + 16 * i, 0x110000 | 1 << 5 | 1);
		put(0x101008 + 16 * i, 1 | 1 << 8);
	}
	k = load_max("intel-vtd", "[iommu io]\ntype = intel-vtd\nrtaddr = 0x100000\n", 0);
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	pt_capture_iommu_counts(k.c, 0, &n);
	ck_assert_uint_eq(n.entries, 512);
	ck_assert_uint_eq(n.present, 5);
	ck_assert_uint_eq(n.malformed, 3);
	ck_assert_uint_eq(n.devices, 4);
	ck_assert_uint_eq(n.contexts, 1);
	ck_assert_str_eq(n.anomaly, "iommu_malformed");
	ck_assert_str_eq(n.detail, "most of its present entries are malformed (512 entries read, 5"
			 " present, 3 malformed, 0 tables not captured): rtaddr 0x100000; do its"
			 " registers point at its tables? (`ptfs-tool roots --iommu intel-vtd` finds"
			 " intel-vtd tables in the capture)");
	ck_assert(warned(k.c, LINE "most of its present entries are malformed (512 entries"));
	tu_cap_free(&k);
	/* one page on: zeros */
	k = load_max("intel-vtd", "[iommu io]\ntype = intel-vtd\nrtaddr = 0x102000\n", 0);
	pt_capture_iommu_counts(k.c, 0, &n);
	ck_assert_str_eq(n.anomaly, "iommu_no_device");
	ck_assert_uint_eq(n.entries, 256);
	ck_assert_uint_eq(n.present, 0);
	ck_assert_str_eq(pt_capture_warning(k.c, 0), LINE "its tables yield no device (256 entries"
			 " read, 0 present, 0 malformed, 0 tables not captured): rtaddr 0x102000; do"
			 " its registers point at its tables? (`ptfs-tool roots --iommu intel-vtd` finds"
			 " intel-vtd tables in the capture)");
	tu_cap_free(&k);
	/* an AMD-Vi device table at the VT-d root table: V without TV is no device */
	k = load_max("amd-vi", "[iommu io]\ntype = amd-vi\ndev_table_base = 0x100000\n", 0);
	pt_capture_iommu_counts(k.c, 0, &n);
	ck_assert_str_eq(n.anomaly, "iommu_no_device");
	ck_assert_uint_eq(n.present, 1);
	tu_cap_free(&k);
	/* the good half alone: no anomaly */
	for (unsigned i = 1; i <= 3; i++)
		put(0x101000 + 16 * i, 0);
	k = load_max("intel-vtd", "[iommu io]\ntype = intel-vtd\nrtaddr = 0x100000\n", 0);
	pt_capture_iommu_counts(k.c, 0, &n);
	ck_assert_ptr_null(n.anomaly);
	ck_assert_uint_eq(pt_capture_warning_count(k.c), 0);
	tu_cap_free(&k);
}
END_TEST

/*
 * SMMUv3 S1Fmt 01 (issue #39 item 12): an L1CD table at 0x13ffc0 of 16
 * descriptors (S1CDMax 10) crosses the capture's end: L1CDs 0-7 captured,
 * L1CD 8 (SSIDs 512-575) at 0x140000 not.  Its walk ends there, with one
 * warning, as a CD not captured ends it.
 */
START_TEST(smmu_l1cd_missing)
{
	struct tu_cap k;

	memset(mem, 0, sizeof mem);
	put(BASE, 1 | 5 << 1 | 1 << 4 | 0x13ffc0 | 10ull << 59);
	put(BASE + 8, 2);
	put(0x13ffc0, 0x130000 | 1);
	put(0x130000, CD0);
	put(0x130008, 0x131000);
	k = load_max("arm-smmuv3", "[iommu io]\ntype = arm-smmuv3\nstrtab_base = 0x100000\n"
		     "strtab_base_cfg = 0\n", 0);
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ck_assert_uint_eq(pt_capture_context_count(k.c), 1);
	ck_assert_ptr_nonnull(pt_capture_context_find(k.c, "io.sid0"));
	ck_assert_uint_eq(pt_capture_warning_count(k.c), 1);
	ck_assert_str_eq(pt_capture_warning(k.c, 0), LINE "sid 0: the L1CD of SSIDs 512-575 at sysmem"
			 " 0x140000 is not captured: its CD table is read up to there");
	tu_cap_free(&k);
}
END_TEST

void iommu_add_bound(Suite *s)
{
	TCase *tc = tcase_create("bound");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, vtd_pasid_fanout);
	tcase_add_test(tc, amdvi_gcr3_fanout);
	tcase_add_test(tc, smmu_cd_fanout);
	tcase_add_test(tc, max_contexts);
	tcase_add_test(tc, wrong_page);
	tcase_add_test(tc, smmu_l1cd_missing);
	suite_add_tcase(s, tc);
}
