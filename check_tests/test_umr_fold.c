/*
 * test_umr_fold: the umr parser folds what it reads (issue #26 items 3, 4;
 * core/sources/src_umr_keys.h, src_umr.c merge_mem) without changing what
 * a log means: MMIO@ records folded by address and comment name still
 * report the first conflict in file order with both lines; VRAM@ regions
 * painted from the last record to the first keep each byte of its first
 * reader and report the first conflicting record and the line that holds
 * the byte; a repeated read costs nothing and changes nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_capture.h"
#include "pt_src_umr.h"
#include "testutil.h"

static void bad(const char *text, unsigned gfx, const char *msg)
{
	struct pt_umr_log *log = NULL;
	char err[512];

	ck_assert_int_eq(pt_umr_parse(text, strlen(text), "run", gfx, &log, err, sizeof err), PT_E_VALUE);
	ck_assert_ptr_null(log);
	ck_assert_str_eq(err, msg);
}

static const struct { const char *text; unsigned gfx; const char *msg; } conflicts[] = {
	/* a register read 1000 times, then once more with another value */
	{ "MMIO@0xa20c = { 0x7 }\n" "MMIO@0xa20c = { 0x7 }\n" "MMIO@0xa20c = { 0x7 }\n" "MMIO@0xa20c = { 0x5 }\n", 9,
	  "run:4: VM_CONTEXT3_CNTL reads 0x5 here but 0x7 on line 1" },
	/* the change inside one record of many values */
	{ "MMIO@0xa20c = { 0x7 }\nMMIO@0xa20c = { 0x7, 0x7, 0x6 }\nMMIO@0xa20c = { 0x5 }\n", 9,
	  "run:2: VM_CONTEXT3_CNTL reads 0x6 here but 0x7 on line 1" },
	/*
	 * one register under two comment names (two keys): the first conflict
	 * in file order is the second key's first record (line 3), not the
	 * first key's later one (line 4)
	 */
	{ "MMIO@0xa20c = { 0x7 } ; a\nMMIO@0xa20c = { 0x7 } ; a\nMMIO@0xa20c = { 0x4 } ; b\n"
	  "MMIO@0xa20c = { 0x5 } ; a\n", 9, "run:3: VM_CONTEXT3_CNTL reads 0x4 here but 0x7 on line 1" },
	/* and the first key's when it comes first */
	{ "MMIO@0xa20c = { 0x7 } ; a\nMMIO@0xa20c = { 0x7 } ; b\nMMIO@0xa20c = { 0x5 } ; a\n"
	  "MMIO@0xa20c = { 0x4 } ; b\n", 9, "run:3: VM_CONTEXT3_CNTL reads 0x5 here but 0x7 on line 1" },
	/* by name alone (no generation): two addresses, one register */
	{ "MMIO@0x10 = { 0x7 } ; mmVM_CONTEXT3_CNTL\nMMIO@0x20 = { 0x9 } ; mmVM_CONTEXT3_CNTL\n", 0,
	  "run:2: VM_CONTEXT3_CNTL reads 0x9 here but 0x7 on line 1" },
	/* a byte is its first reader's: line 3 disagrees with line 1, not with line 2 */
	{ "VRAM@0x1000 = {0102}\nVRAM@0x1001 = {02}\nVRAM@0x1000 = {0103}\n", 0,
	  "run:3: VRAM@0x1000 conflicts with line 1 at 0x1001" },
	/* the later record starts lower: the byte it disagrees on is line 1's */
	{ "VRAM@0x1001 = {05}\nVRAM@0x1000 = {0106}\n", 0, "run:2: VRAM@0x1000 conflicts with line 1 at 0x1001" },
	/* the first conflicting record in file order, whatever the addresses */
	{ "VRAM@0x2000 = {01}\nVRAM@0x1000 = {01}\nVRAM@0x1000 = {02}\nVRAM@0x2000 = {02}\n", 0,
	  "run:3: VRAM@0x1000 conflicts with line 2 at 0x1000" },
	/* repeats folded away: the disagreement still names the first read */
	{ "VRAM@0x1000 = {01}\nVRAM@0x1000 = {01}\nVRAM@0x1000 = {01}\nVRAM@0x1000 = {02}\n", 0,
	  "run:4: VRAM@0x1000 conflicts with line 1 at 0x1000" },
};

START_TEST(conflict)
{
	bad(conflicts[_i].text, conflicts[_i].gfx, conflicts[_i].msg);
}
END_TEST

/* Regions: records that overlap or touch are one, each byte its first reader's; repeats count as records. */
START_TEST(regions)
{
	const char *t = "VRAM@0x1002 = {0304}\nVRAM@0x1000 = {0102}\nVRAM@0x1000 = {0102}\n"
			"VRAM@0x1010 = {aa}\nVRAM@0x1003 = {04}\nSYSRAM@0x1000 = {ff}\n"
			"MMIO@0xa20c = { 0x7 }\nMMIO@0xa20c = { 0x7 }\nMMIO@0x4 = { 0x1 }\n";
	struct pt_umr_log *log = NULL;
	char err[512];

	ck_assert_int_eq(pt_umr_parse(t, strlen(t), "run", 9, &log, err, sizeof err), PT_OK);
	ck_assert_uint_eq(log->nmmio, 3);
	ck_assert_uint_eq(log->nmem, 3);
	ck_assert_uint_eq(log->mem[0].space, PT_UMR_VRAM);
	ck_assert_uint_eq(log->mem[0].addr, 0x1000);
	ck_assert_uint_eq(log->mem[0].len, 4);
	ck_assert_uint_eq(log->mem[0].line, 1);
	ck_assert_mem_eq(log->mem[0].data, "\x01\x02\x03\x04", 4);
	ck_assert_uint_eq(log->mem[1].addr, 0x1010);
	ck_assert_uint_eq(log->mem[1].line, 4);
	ck_assert_uint_eq(log->mem[2].space, PT_UMR_SYSMEM);
	ck_assert_uint_eq(log->mem[2].line, 6);
	ck_assert_uint_eq(log->mem[2].data[0], 0xff);
	pt_umr_free(log);
}
END_TEST

/* A comment name that disagrees, read N times: one warning at its first line, the rest counted. */
START_TEST(warn_once)
{
	const char *t = "MMIO@0xa5ac = { 0x40 } ; mmMC_VM_AGP_TOP\nMMIO@0xa5ac = { 0x40 } ; mmMC_VM_AGP_TOP\n"
			"MMIO@0xa5ac = { 0x40 } ; mmMC_VM_AGP_TOP\nMMIO@0xa608 = { 0x1 } ; mmMC_VM_AGP_BASE\n";
	struct pt_umr_log *log = NULL;
	char err[512];

	ck_assert_int_eq(pt_umr_parse(t, strlen(t), "run", 9, &log, err, sizeof err), PT_OK);
	ck_assert_uint_eq(log->nwarn, 2);
	ck_assert_str_eq(log->warn[0], "run:1: the comment names MC_VM_AGP_TOP, but MMIO@0xa5ac is MC_VM_FB_OFFSET on gfx9:"
			 " read as MC_VM_FB_OFFSET");
	ck_assert_ptr_nonnull(strstr(log->warn[1], "run:4: "));
	ck_assert_uint_eq(log->nwarn_more, 2);
	ck_assert_uint_eq(log->hub[PT_UMR_GFX][PT_UMR_FB_OFFSET].value, 0x40);
	ck_assert_uint_eq(log->hub[PT_UMR_GFX][PT_UMR_FB_OFFSET].line, 1);
	pt_umr_free(log);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("umr_fold");
	TCase *tc = tcase_create("fold");

	tcase_add_loop_test(tc, conflict, 0, sizeof conflicts / sizeof conflicts[0]);
	tcase_add_test(tc, regions);
	tcase_add_test(tc, warn_once);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
