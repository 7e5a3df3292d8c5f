/*
 * test_dumpmem.c — a capture.ini whose memory is a dump ([memory NAME] dump
 * = FILE; man/ptfs-capture.5, "Memory from a dump"; issue #32 item 3): an
 * ELF core and a kdump file (dumpmem_util.c, written from the gABI and
 * diskdump layouts, never by the reader) beside a capture.ini with an
 * [iommu] section whose tables are in the dump.  The dump's contexts,
 * regions and VMCOREINFO are as when it is loaded alone; capture.ini's
 * sections are added; a device's IOVA walks through the dump.  Hostile
 * capture.ini lines are test_hostile_dump.c's.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dumpmem_util.h"
#include "elf_util.h"
#include "pt_capture.h"
#include "pt_mem.h"
#include "pt_walk.h"
#include "testutil.h"

static char *dir;

static struct pt_capture *load(const char *path)
{
	struct pt_capture *cap = pt_capture_new();

	ck_assert_msg(pt_capture_load(cap, path) == PT_OK, "%s: %s", path, pt_capture_error(cap));
	return cap;
}

/* Walks VA of context NAME: the byte it reaches in sysmem, or UINT64_MAX for a fault. */
static uint64_t walk(const struct pt_capture *cap, const char *name, uint64_t va)
{
	const struct pt_context *ctx = pt_capture_context_find(cap, name);
	struct pt_walk w;

	ck_assert_msg(ctx != NULL, "no context %s", name);
	ck_assert_int_eq(pt_walk_va(ctx, va, &w), PT_OK);
	if (w.fault == PT_FAULT_OUT_OF_RANGE && w.aperture.hit)
		return w.aperture.pa;
	return w.fault == PT_FAULT_NONE ? w.pa : UINT64_MAX;
}

static void both(int kdump)
{
	const char *dump = kdump ? "guest.kdump" : "guest.elf";
	struct pt_capture *cap, *alone;
	char path[4200];
	uint8_t b[sizeof DM_DATA];

	dir = tu_mkdtemp();
	ck_assert(dm_write(dir, dump, kdump));
	cap = load(dir);
	snprintf(path, sizeof path, "%s/%s", dir, dump);
	alone = load(path);
	/* the dump's contexts, as alone, then capture.ini's: the devices its [iommu] section found */
	ck_assert_uint_eq(pt_capture_context_count(alone), 1);
	ck_assert_uint_eq(pt_capture_context_count(cap), 3);
	ck_assert_str_eq(pt_capture_context(cap, 0)->name, "cpu0");
	ck_assert_uint_eq(pt_capture_context(cap, 0)->root_addr, pt_capture_context(alone, 0)->root_addr);
	ck_assert_ptr_nonnull(pt_capture_context_find(cap, "dmar0.00:03.0"));
	ck_assert_ptr_nonnull(pt_capture_context_find(cap, "dmar0.00:04.0"));
	/* the dump's regions, the same names, sizes and files (read in place / on demand, never copied) */
	ck_assert_uint_eq(pt_capture_region_count(cap), pt_capture_region_count(alone));
	for (size_t i = 0; i < pt_capture_region_count(cap); i++) {
		const struct pt_region_info *x = pt_capture_region(cap, i), *y = pt_capture_region(alone, i);

		ck_assert_str_eq(x->name, y->name);
		ck_assert_str_eq(x->file, y->file);
		ck_assert_uint_eq(x->base, y->base);
		ck_assert_uint_eq(x->size, y->size);
		ck_assert_int_eq(x->in_place, y->in_place);
		ck_assert(kdump || x->in_place);
	}
	ck_assert_str_eq(pt_capture_source_kind(cap), kdump ? "kdump file" : "ELF core");
	ck_assert_str_eq(pt_capture_description(cap), "a guest dump with its IOMMU's registers");
	ck_assert_str_eq(pt_capture_format(cap)->name, "x86-64");
	/* the x-dump line of the dump's [capture] */
	ck_assert_uint_eq(pt_capture_annotation_count(cap), pt_capture_annotation_count(alone));
	ck_assert_str_eq(pt_capture_annotation(cap, 0)->key, "x-dump");
	/* the guest's page: the CPU's VA 0x234 and the device's IOVA 0x1234 reach it */
	ck_assert_uint_eq(walk(cap, "cpu0", 0x234), 0x8234);
	ck_assert_uint_eq(walk(cap, "dmar0.00:03.0", 0x1234), 0x8234);
	ck_assert_uint_eq(walk(cap, "dmar0.00:03.0", 0x2234), UINT64_MAX);
	/* pass-through: the IOVA is its own output */
	ck_assert_uint_eq(walk(cap, "dmar0.00:04.0", 0x8234), 0x8234);
	ck_assert(pt_mem_read(pt_capture_mem(cap), 0, 0x8000, b, sizeof b));
	ck_assert_mem_eq(b, DM_DATA, sizeof b);
	pt_capture_free(alone);
	pt_capture_free(cap);
	tu_rmtree(dir);
	free(dir);
}

START_TEST(elf_beside_ini)
{
	both(0);
}
END_TEST

START_TEST(kdump_beside_ini)
{
	both(1);
}
END_TEST

/* The dump in a subdirectory of the capture, capture.ini's [capture] keys after the dump's. */
START_TEST(dump_in_subdir)
{
	static const char ini[] = "[capture]\nversion = 1\nx-who = me\n[memory g]\ndump = ./dumps//guest.elf\n"
				  "[iommu dmar0]\ntype = intel-vtd\nrtaddr = 0x10000\n";
	struct pt_capture *cap;
	char sub[4200];

	dir = tu_mkdtemp();
	snprintf(sub, sizeof sub, "%s/dumps", dir);
	ck_assert(mkdir(sub, 0755) == 0);
	ck_assert(dm_write(sub, "guest.elf", 0));
	snprintf(sub, sizeof sub, "%s/dumps/capture.ini", dir);
	ck_assert(unlink(sub) == 0);
	tu_write(dir, "capture.ini", ini, sizeof ini - 1);
	cap = load(dir);
	ck_assert_uint_eq(walk(cap, "dmar0.00:03.0", 0x1234), 0x8234);
	/* x-dump and x-root-cpu0 of the dump's [capture], then capture.ini's */
	ck_assert_uint_eq(pt_capture_annotation_count(cap), 3);
	ck_assert_str_eq(pt_capture_annotation(cap, 0)->key, "x-dump");
	ck_assert_str_eq(pt_capture_annotation(cap, 1)->key, "x-root-cpu0");
	ck_assert_str_eq(pt_capture_annotation(cap, 2)->key, "x-who");
	pt_capture_free(cap);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* Writes LEN bytes of B as DIR/guest.elf (over dm_write()'s) and frees B. */
static void rewrite_dump(unsigned char *b, unsigned long len)
{
	tu_write(dir, "guest.elf", b, len);
	free(b);
}

/*
 * A dump with no context of its own (no QEMU note, no VMCOREINFO) is
 * refused alone, but is memory for capture.ini's contexts: one warning.
 */
START_TEST(dump_without_contexts)
{
	struct pt_capture *cap = pt_capture_new();
	unsigned long len;
	unsigned char *b;
	char path[4200];
	bool warned = false;

	dir = tu_mkdtemp();
	ck_assert(dm_write(dir, "guest.elf", 0));
	b = dm_dump(0, 0, &len);
	rewrite_dump(b, len);
	snprintf(path, sizeof path, "%s/guest.elf", dir);
	ck_assert_int_eq(pt_capture_load(cap, path), PT_E_CAPTURE);
	ck_assert_msg(strstr(pt_capture_error(cap), "with no page-table root"), "%s", pt_capture_error(cap));
	pt_capture_free(cap);
	cap = load(dir);
	ck_assert_uint_eq(pt_capture_context_count(cap), 2);
	ck_assert_uint_eq(walk(cap, "dmar0.00:03.0", 0x1234), 0x8234);
	for (size_t i = 0; i < pt_capture_warning_count(cap); i++)
		warned |= strstr(pt_capture_warning(cap, i), "guest.elf: no page-table root in the ELF core: its "
				 "memory only (capture.ini's contexts)") != NULL;
	ck_assert(warned);
	pt_capture_free(cap);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* A device entry the format refuses: the [iommu] section's warning names capture.ini's line. */
START_TEST(bad_entry_names_ini_line)
{
	struct pt_capture *cap;
	unsigned long len;
	unsigned char *b;
	bool named = false;

	dir = tu_mkdtemp();
	ck_assert(dm_write(dir, "guest.elf", 0));
	b = dm_dump(0, 1, &len);
	/* 00:05.0 (devfn 0x28): present with reserved bit 5 of its context entry's low word (VT-d §9.3) */
	eu_put64(b + eu_seg_offset(0) + 0x11000 + 16 * 0x28, 0x12000 | 1 << 5 | 1);
	eu_put64(b + eu_seg_offset(0) + 0x11000 + 16 * 0x28 + 8, 2 | 3 << 8);
	rewrite_dump(b, len);
	cap = load(dir);
	ck_assert_ptr_null(pt_capture_context_find(cap, "dmar0.00:05.0"));
	ck_assert_ptr_nonnull(pt_capture_context_find(cap, "dmar0.00:03.0"));
	/* capture.ini (dumpmem_util.c): [iommu dmar0] is its line 9 */
	for (size_t i = 0; i < pt_capture_warning_count(cap); i++)
		named |= !strncmp(pt_capture_warning(cap, i), "capture.ini:9: [iommu dmar0]: ", 30) &&
			 strstr(pt_capture_warning(cap, i), "00:05.0") != NULL;
	for (size_t i = 0; !named && i < pt_capture_warning_count(cap); i++)
		fprintf(stderr, "warning: %s\n", pt_capture_warning(cap, i));
	ck_assert(named);
	pt_capture_free(cap);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dumpmem");
	TCase *tc = tcase_create("dump beside capture.ini");

	tcase_add_test(tc, elf_beside_ini);
	tcase_add_test(tc, kdump_beside_ini);
	tcase_add_test(tc, dump_in_subdir);
	tcase_add_test(tc, dump_without_contexts);
	tcase_add_test(tc, bad_entry_names_ini_line);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
