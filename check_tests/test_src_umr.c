/*
 * test_src_umr: umr test logs and envdefs (core/pt_src_umr.h).  The data
 * files are in check_tests/src_data/; hostile variants are
 * inline, each with its whole message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_capture.h"
#include "pt_src_umr.h"
#include "testutil.h"

/* The text of check_tests/src_data/NAME (free it). */
static char *slurp(const char *name, size_t *len)
{
	const char *src = getenv("PTFS_SRCDIR");
	char path[4096];
	FILE *f;
	char *buf;
	long n;

	ck_assert_ptr_nonnull(src);
	snprintf(path, sizeof path, "%s/check_tests/src_data/%s", src, name);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "%s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static struct pt_umr_log *parse_file(const char *name, unsigned gfx)
{
	struct pt_umr_log *log = NULL;
	char err[512] = "";
	size_t len;
	char *t = slurp(name, &len);

	ck_assert_msg(pt_umr_parse(t, len, name, gfx, &log, err, sizeof err) == PT_OK, "%s", err);
	free(t);
	return log;
}

/* TEXT must fail with RC and exactly MSG. */
static void bad(const char *text, unsigned gfx, pt_err rc, const char *msg)
{
	struct pt_umr_log *log = (void *)1;
	char err[512] = "";

	ck_assert_int_eq(pt_umr_parse(text, strlen(text), "run.envdef", gfx, &log, err, sizeof err), rc);
	ck_assert_ptr_null(log);
	ck_assert_str_eq(err, msg);
}

/* ---- registers ---- */

START_TEST(gfx9_gart)
{
	struct pt_umr_log *log = parse_file("gfx9-gart.envdef", 0);
	const struct pt_umr_ctx *c;

	ck_assert_uint_eq(log->gfx, 9);
	ck_assert_uint_eq(log->gfx_names, 9);
	ck_assert_uint_eq(log->nmmio, 10);
	ck_assert_uint_eq(log->nctx, 1);
	c = pt_umr_ctx_find(log, PT_UMR_GFX, 0);
	ck_assert_ptr_nonnull(c);
	ck_assert(c->base.has);
	ck_assert_uint_eq(c->base.value, 0x40900001);
	ck_assert(c->start.has);
	ck_assert_uint_eq(c->start.value, 0);
	/* END is absent (as in umr's envdef): absent, never invented */
	ck_assert(!c->end.has);
	ck_assert(!c->reg[PT_UMR_END_LO].has);
	ck_assert_uint_eq(c->reg[PT_UMR_BASE_LO].line, 13);
	ck_assert(c->reg[PT_UMR_BASE_LO].by_name);
	ck_assert_uint_eq(c->depth, 0);
	ck_assert(log->hub[PT_UMR_GFX][PT_UMR_FB_OFFSET].has);
	ck_assert_uint_eq(log->hub[PT_UMR_GFX][PT_UMR_FB_OFFSET].value, 0x40);
	ck_assert_uint_eq(log->hub[PT_UMR_GFX][PT_UMR_FB_TOP].value, 0xf47f);
	ck_assert_uint_eq(log->hub[PT_UMR_GFX][PT_UMR_SYS_HIGH].value, 0x3fffffff);
	ck_assert_uint_eq(log->hub[PT_UMR_GFX][PT_UMR_SYS_LOW].line, 6);
	ck_assert(!log->hub[PT_UMR_GFX][PT_UMR_AGP_BASE].has);
	ck_assert(!log->hub[PT_UMR_MMHUB][PT_UMR_FB_OFFSET].has);
	/* the PTE of VA 0x444000 and the page it maps */
	ck_assert_uint_eq(log->nmem, 2);
	ck_assert_uint_eq(log->mem[0].space, PT_UMR_VRAM);
	ck_assert_uint_eq(log->mem[0].addr, 0x902220);
	ck_assert_uint_eq(log->mem[0].len, 8);
	ck_assert_uint_eq(log->mem[0].line, 15);
	ck_assert_mem_eq(log->mem[0].data, "\x77\x60\x88\x23\x02\x00\x00\x06", 8);
	ck_assert_uint_eq(log->mem[1].space, PT_UMR_SYSMEM);
	ck_assert_uint_eq(log->mem[1].addr, 0x223886000);
	ck_assert_mem_eq(log->mem[1].data, "\x00\x01\x02\x03\x04\x05\x06\x07", 8);
	pt_umr_free(log);
}
END_TEST

START_TEST(gfx9_depth3)
{
	struct pt_umr_log *log = parse_file("gfx9-vmid3.log", 0);
	const struct pt_umr_ctx *c = pt_umr_ctx_find(log, PT_UMR_GFX, 3);

	ck_assert_uint_eq(log->nctx, 1);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->base.value, 0x80100001);
	ck_assert_uint_eq(c->end.value, 0xfffffffff);
	ck_assert(c->end.has);
	ck_assert_uint_eq(c->depth, 3);
	ck_assert_uint_eq(c->block_size, 0);
	/* the first read wins the line; the re-read on line 17 agrees */
	ck_assert_uint_eq(c->reg[PT_UMR_BASE_LO].line, 8);
	ck_assert_uint_eq(log->hub[PT_UMR_GFX][PT_UMR_FB_OFFSET].value, 0x80);
	/* 0x100000 read twice and once more overlapping: one region of 12 bytes */
	ck_assert_uint_eq(log->nmem, 5);
	ck_assert_uint_eq(log->mem[0].addr, 0x100000);
	ck_assert_uint_eq(log->mem[0].len, 12);
	ck_assert_uint_eq(log->mem[0].line, 12);
	ck_assert_mem_eq(log->mem[0].data, "\x01\x10\x10\x80\0\0\0\0\x01\x20\x10\x80", 12);
	ck_assert_uint_eq(log->mem[3].addr, 0x103000);
	ck_assert_uint_eq(log->mem[4].space, PT_UMR_SYSMEM);
	ck_assert_mem_eq(log->mem[4].data, "\x00\x11\x22\x33\x44\x55\x66\x77", 8);
	pt_umr_free(log);
}
END_TEST

START_TEST(gfx10_names)
{
	struct pt_umr_log *log = parse_file("gfx10-vmid1.log", 0);
	const struct pt_umr_ctx *c;

	/* GCVM_ names say "10 or later"; their addresses are gfx10's (gc_10_1_0_offset.h) */
	ck_assert_uint_eq(log->gfx_names, 10);
	ck_assert_uint_eq(log->gfx, 10);
	ck_assert_uint_eq(log->nwarn, 0);
	ck_assert_uint_eq(log->nctx, 2);
	ck_assert_uint_eq(log->ctx[0].hub, PT_UMR_GFX);
	ck_assert_uint_eq(log->ctx[1].hub, PT_UMR_MMHUB);
	c = pt_umr_ctx_find(log, PT_UMR_GFX, 1);
	ck_assert_uint_eq(c->base.value, 0x200001);
	ck_assert_uint_eq(c->depth, 2);
	c = pt_umr_ctx_find(log, PT_UMR_MMHUB, 1);
	ck_assert_uint_eq(c->base.value, 0x300001);
	ck_assert(!c->reg[PT_UMR_CNTL].has);
	ck_assert_uint_eq(log->hub[PT_UMR_GFX][PT_UMR_FB_BASE].value, 0x8000);
	pt_umr_free(log);
	/* Given gfx 11, the same addresses are no gfx11 VM registers: warned, ignored. */
	log = parse_file("gfx10-vmid1.log", 11);
	ck_assert_uint_eq(log->gfx, 11);
	ck_assert_ptr_null(pt_umr_ctx_find(log, PT_UMR_GFX, 1));
	ck_assert_uint_gt(log->nwarn, 0);
	ck_assert_ptr_nonnull(strstr(log->warn[0], "gfx10-vmid1.log:1: the comment names MC_VM_FB_OFFSET, but"
				     " MMIO@0xa5ac is "));
	pt_umr_free(log);
}
END_TEST

START_TEST(by_address)
{
	const char *t = "MMIO@0xA3C4 = { 0x1001 }\nMMIO@0xA3C8 = { 0x0 }\nMMIO@0xA20C = { 0x5 } ; read twice\n"
			"MMIO@0xA5AC = { 0x40 }\nMMIO@0xA4C8 = { 0x1 }\nMMIO@0xA618 = { 0x7 }\n";
	struct pt_umr_log *log = NULL;
	const struct pt_umr_ctx *c;
	char err[256];

	/* No names: the gfx9 table only when the caller says gfx 9. */
	ck_assert_int_eq(pt_umr_parse(t, strlen(t), "x", 0, &log, err, sizeof err), PT_OK);
	ck_assert_uint_eq(log->nctx, 0);
	ck_assert(!log->hub[PT_UMR_GFX][PT_UMR_FB_OFFSET].has);
	pt_umr_free(log);
	ck_assert_int_eq(pt_umr_parse(t, strlen(t), "x", 9, &log, err, sizeof err), PT_OK);
	c = pt_umr_ctx_find(log, PT_UMR_GFX, 3);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->base.value, 0x1001);
	ck_assert(!c->reg[PT_UMR_BASE_LO].by_name);
	ck_assert_uint_eq(c->reg[PT_UMR_CNTL].value, 5);
	ck_assert_uint_eq(c->reg[PT_UMR_END_HI].value, 1);
	ck_assert(!c->end.has);
	ck_assert_uint_eq(log->hub[PT_UMR_GFX][PT_UMR_FB_OFFSET].value, 0x40);
	ck_assert_uint_eq(log->hub[PT_UMR_GFX][PT_UMR_SYS_HIGH].value, 7);
	pt_umr_free(log);
	/* the address wins over a comment naming another register (umr ignores comments) */
	t = "MMIO@0xA3AC = { 0x1 } ; gfx900.mmSOMETHING_ELSE\n";
	ck_assert_int_eq(pt_umr_parse(t, strlen(t), "x", 9, &log, err, sizeof err), PT_OK);
	ck_assert_uint_eq(log->nctx, 1);
	ck_assert_uint_eq(log->nwarn, 1);
	ck_assert_str_eq(log->warn[0], "x:1: the comment names gfx900.mmSOMETHING_ELSE, but MMIO@0xa3ac is"
			 " VM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32 on gfx9: read as VM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32");
	pt_umr_free(log);
	/* a gfx9 mmhub name: the IP prefix tells the hub */
	t = "MMIO@0x6a3ac = { 0x1 } ; mmhub190.mmVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32\n";
	ck_assert_int_eq(pt_umr_parse(t, strlen(t), "x", 0, &log, err, sizeof err), PT_OK);
	ck_assert_ptr_nonnull(pt_umr_ctx_find(log, PT_UMR_MMHUB, 0));
	pt_umr_free(log);
}
END_TEST

/*
 * The shapes of umr's own test/vm envdefs (src/test/test_vm.c), written here
 * by hand: navi10 files name registers mmGCVM_CONTEXT0_... and mmVM_... in
 * one file and call 0xA608 AGP_BASE (gc_10_1_0_offset.h: AGP_TOP); END_HI32
 * is all ones.  The address decides; each disagreeing name is a warning.
 */
START_TEST(umr_shapes)
{
	const char *t =
		"MMIO@0xA42C={0xff7d800}  ; mmGCVM_CONTEXT0_PAGE_TABLE_START_ADDR_LO32\n"
		"MMIO@0xA430={0}          ; mmGCVM_CONTEXT0_PAGE_TABLE_START_ADDR_HI32\n"
		"MMIO@0xA4AC={0xffffe10}  ; mmGCVM_CONTEXT0_PAGE_TABLE_END_ADDR_LO32\n"
		"MMIO@0xA4B0={0xffffffff} ; mmVM_CONTEXT0_PAGE_TABLE_END_ADDR_HI32\n"
		"MMIO@0xA3AC={0xfbeb001}  ; mmVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32\n"
		"MMIO@0xA3B0={0}          ; mmGCVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_HI32\n"
		"MMIO@0xA600={0x8000}     ; mmGCMC_VM_FB_LOCATION_BASE\n"
		"MMIO@0xA604={0x81ff}     ; mmGCMC_VM_FB_LOCATION_TOP\n"
		"MMIO@0xA608={0}          ; mmGCMC_VM_AGP_BASE\n"
		"MMIO@0xA610={0}          ; mmGCMC_VM_AGP_TOP\n"
		"VRAM@0x1000={0001020304050607}\n";
	struct pt_umr_log *log = NULL;
	const struct pt_umr_ctx *c;
	char err[256];

	ck_assert_int_eq(pt_umr_parse(t, strlen(t), "navi.envdef", 10, &log, err, sizeof err), PT_OK);
	ck_assert_uint_eq(log->gfx, 10);
	c = pt_umr_ctx_find(log, PT_UMR_GFX, 0);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->end.value, 0xffffffff0ffffe10ull);   /* the format masks it (fmt_gart.c) */
	ck_assert_uint_eq(c->base.value, 0xfbeb001);
	ck_assert(log->hub[PT_UMR_GFX][PT_UMR_AGP_TOP].has);
	ck_assert_uint_eq(log->hub[PT_UMR_GFX][PT_UMR_AGP_TOP].line, 9);
	ck_assert_uint_eq(log->hub[PT_UMR_GFX][PT_UMR_AGP_BASE].line, 10);
	ck_assert_uint_eq(log->nwarn, 2);
	ck_assert_str_eq(log->warn[0], "navi.envdef:9: the comment names MC_VM_AGP_BASE, but MMIO@0xa608 is"
			 " MC_VM_AGP_TOP on gfx10: read as MC_VM_AGP_TOP");
	pt_umr_free(log);
	/* Without a generation the names' addresses tell it: gfx10 (GCVM_ style breaks the gfx9 tie). */
	ck_assert_int_eq(pt_umr_parse(t, strlen(t), "navi.envdef", 0, &log, err, sizeof err), PT_OK);
	ck_assert_uint_eq(log->gfx, 10);
	pt_umr_free(log);
	/* A gfx9 name where gfx11 has another register: read as gfx11's, warned. */
	t = "MMIO@0xA3A0={0x7} ; mmVM_CONTEXT0_CNTL\nMMIO@0xA200={0x7} ; mmVM_CONTEXT0_CNTL\n";
	ck_assert_int_eq(pt_umr_parse(t, strlen(t), "x", 11, &log, err, sizeof err), PT_OK);
	ck_assert_uint_eq(log->nwarn, 1);
	ck_assert_str_eq(log->warn[0], "x:2: the comment names VM_CONTEXT0_CNTL, but MMIO@0xa200 is no VM"
			 " register on gfx11: ignored (umr reads registers by address)");
	ck_assert_ptr_nonnull(pt_umr_ctx_find(log, PT_UMR_GFX, 0));
	pt_umr_free(log);
}
END_TEST

/*
 * Records merge into regions (issue #26.3): adjacent and overlapping reads of
 * one space are one region whatever their order in the file; a gap of one
 * byte keeps two regions (the byte between was never read: not captured).
 */
START_TEST(merge_regions)
{
	struct pt_umr_log *log = NULL;
	char err[256], *t;
	size_t n = 0, cap = 64 * 4096;

	t = malloc(cap);
	ck_assert_ptr_nonnull(t);
	/* 4096 two-byte records, written from the top down: one 8 KiB region */
	for (int i = 4095; i >= 0; i--)
		n += (size_t)snprintf(t + n, cap - n, "VRAM@0x%x={%02x%02x}\n", 0x10000 + 2 * i, i & 0xff, 0xa5);
	/* overlapping re-read that agrees, and a one-byte record past a one-byte gap */
	n += (size_t)snprintf(t + n, cap - n, "VRAM@0x10001={a501}\nVRAM@0x12001={77}\n");
	ck_assert_int_eq(pt_umr_parse(t, n, "m.log", 9, &log, err, sizeof err), PT_OK);
	ck_assert_uint_eq(log->nmem, 2);
	ck_assert_uint_eq(log->mem[0].addr, 0x10000);
	ck_assert_uint_eq(log->mem[0].len, 8192);
	ck_assert_uint_eq(log->mem[0].line, 1);             /* the region names its first line in the file */
	ck_assert_uint_eq(log->mem[0].data[2 * 300], 300 & 0xff);
	ck_assert_uint_eq(log->mem[0].data[2 * 300 + 1], 0xa5);
	ck_assert_uint_eq(log->mem[1].addr, 0x12001);
	ck_assert_uint_eq(log->mem[1].len, 1);
	pt_umr_free(log);
	free(t);
}
END_TEST

/* umr ASIC names and their generations (umr database/NAME.asic: its gc_X_Y_Z.reg). */
START_TEST(asic_names)
{
	ck_assert_uint_eq(pt_umr_asic_gfx("raven1"), 9);
	ck_assert_uint_eq(pt_umr_asic_gfx("aldebaran"), 9);
	ck_assert_uint_eq(pt_umr_asic_gfx("navi10"), 10);
	ck_assert_uint_eq(pt_umr_asic_gfx("sienna_cichlid"), 10);
	ck_assert_uint_eq(pt_umr_asic_gfx("gfx11_vm_test"), 11);
	ck_assert_uint_eq(pt_umr_asic_gfx("gfx1100"), 11);
	ck_assert_uint_eq(pt_umr_asic_gfx("gfx1201"), 12);
	ck_assert_uint_eq(pt_umr_asic_gfx("gfx942"), 9);
	ck_assert_uint_eq(pt_umr_asic_gfx("polaris11"), 8);
	ck_assert_uint_eq(pt_umr_asic_gfx("navi99"), 0);
	ck_assert_uint_eq(pt_umr_asic_gfx("gfx13000"), 0);
}
END_TEST

/* ---- hostile input: one message each ---- */

static const struct {
	const char *text;
	unsigned gfx;
	pt_err rc;
	const char *msg;
} bad_cases[] = {
	{ "VRAM@0x1000 = {0102030}\n", 0, PT_E_TRUNCATED,
	  "run.envdef:1: VRAM@0x1000: odd number of hex digits (truncated byte)" },
	{ "; c\nVRAM@0x1000 = {0102\n", 0, PT_E_TRUNCATED, "run.envdef:2: VRAM@0x1000: record not closed by '}'" },
	{ "MMIO@0xa3ac = { 0x1\n", 0, PT_E_TRUNCATED, "run.envdef:1: MMIO@0xa3ac: record not closed by '}'" },
	{ "VRAM@0x1000 = {0x01}\n", 0, PT_E_SYNTAX,
	  "run.envdef:1: VRAM@0x1000: 0x prefix inside a byte list (bytes are bare hex pairs)" },
	{ "VRAM@0x1000 = {01 ; 02}\n", 0, PT_E_SYNTAX, "run.envdef:1: VRAM@0x1000: ';' inside a byte list" },
	{ "VRAM@0x1000 = {}\n", 0, PT_E_VALUE, "run.envdef:1: VRAM@0x1000: empty record" },
	{ "VRAM@0xfffffffffffc = {0102030405}\n", 0, PT_E_VALUE,
	  "run.envdef:1: VRAM@0xfffffffffffc: 5 bytes run past 2^48" },
	{ "SYSRAM@0x1000000000000 = {01}\n", 0, PT_E_VALUE,
	  "run.envdef:1: SYSRAM@0x1000000000000: 1 bytes run past 2^48" },
	{ "VRAM@0x10000000000000000 = {01}\n", 0, PT_E_VALUE, "run.envdef:1: VRAM@ address wider than 64 bits" },
	{ "MMIO@0xa3ac = { 0x100000000 }\n", 0, PT_E_VALUE, "run.envdef:1: MMIO@0xa3ac: value wider than 32 bits" },
	{ "MMIO@0xa3ac = { 0x1 0x2 }\n", 0, PT_E_SYNTAX, "run.envdef:1: MMIO@0xa3ac: expected ',' or '}'" },
	{ "MMIO@0xa3ac = { }\n", 0, PT_E_SYNTAX, "run.envdef:1: MMIO@0xa3ac: expected a hex value" },
	{ "MMIO = { 1 }\n", 0, PT_E_SYNTAX, "run.envdef:1: MMIO without @ADDRESS" },
	{ "MMIO@0xa3ac { 1 }\n", 0, PT_E_SYNTAX, "run.envdef:1: MMIO: expected '='" },
	{ "[capture]\nversion = 1\n", 0, PT_E_SYNTAX,
	  "run.envdef:1: expected a umr record (MMIO@, VRAM@, SYSRAM@, ...)" },
	{ "\nFOO@1 = {1}\n", 0, PT_E_SYNTAX, "run.envdef:2: unknown record FOO" },
	/* duplicate reads that disagree, in memory and in registers */
	{ "VRAM@0x1000 = {0102030405060708}\n\nVRAM@0x1004 = {0506070900}\n", 0, PT_E_VALUE,
	  "run.envdef:3: VRAM@0x1004 conflicts with line 1 at 0x1007" },
	{ "SYSRAM@0x10 = {00}\nVRAM@0x10 = {01}\nSYSRAM@0xf = {0001}\n", 0, PT_E_VALUE,
	  "run.envdef:3: SYSRAM@0xf conflicts with line 1 at 0x10" },
	{ "MMIO@0xa5ac = { 0x40 } ; mmMC_VM_FB_OFFSET\nMMIO@0xa5ac = { 0x41 } ; mmMC_VM_FB_OFFSET\n", 0,
	  PT_E_VALUE, "run.envdef:2: MC_VM_FB_OFFSET reads 0x41 here but 0x40 on line 1" },
	{ "MMIO@0xa20c = { 0x7, 0x5 } ; gfx930.mmVM_CONTEXT3_CNTL\n", 0, PT_E_VALUE,
	  "run.envdef:1: VM_CONTEXT3_CNTL reads 0x5 here but 0x7 on line 1" },
	{ "MMIO@0xa20c = { 0x7 }\nMMIO@0xa20c = { 0x5 }\n", 9, PT_E_VALUE,
	  "run.envdef:2: VM_CONTEXT3_CNTL reads 0x5 here but 0x7 on line 1" },
	{ "MMIO@0x1 = { 0x7 }\n", 8, PT_E_USAGE, "run.envdef:1: gfx 8 is not 9, 10, 11 or 12" },
};

START_TEST(hostile)
{
	bad(bad_cases[_i].text, bad_cases[_i].gfx, bad_cases[_i].rc, bad_cases[_i].msg);
}
END_TEST

START_TEST(nul_byte)
{
	struct pt_umr_log *log = NULL;
	char err[256];
	static const char t[] = "MMIO@0x1 = { 1 }\nVRAM@0\0 = {00}\n";

	ck_assert_int_eq(pt_umr_parse(t, sizeof t - 1, "run.envdef", 0, &log, err, sizeof err), PT_E_SYNTAX);
	ck_assert_str_eq(err, "run.envdef:2: NUL byte: not a umr log");
}
END_TEST

START_TEST(other_records)
{
	const char *t = "DISCOVERY = { 0102 }\nRINGDATA = { 0x1, 0x2 }\nSQ@0x10 = { 0x1 }\n"
			"VRAM@0 = { 01_02 03,04\n 05 } ; wraps\nMMIO@0x1 = {0x2}";
	struct pt_umr_log *log = NULL;
	char err[256];

	ck_assert_int_eq(pt_umr_parse(t, strlen(t), "x", 0, &log, err, sizeof err), PT_OK);
	ck_assert_uint_eq(log->nmem, 1);
	ck_assert_uint_eq(log->mem[0].len, 5);
	ck_assert_uint_eq(log->mem[0].line, 4);
	ck_assert_uint_eq(log->nmmio, 1);
	pt_umr_free(log);
	/* adjacent records of one space join; the spaces stay apart */
	t = "VRAM@0x10 = {01}\nVRAM@0x11 = {02}\nSYSRAM@0x12 = {03}\nVRAM@0x13 = {04}\n";
	ck_assert_int_eq(pt_umr_parse(t, strlen(t), "x", 0, &log, err, sizeof err), PT_OK);
	ck_assert_uint_eq(log->nmem, 3);
	ck_assert_uint_eq(log->mem[0].len, 2);
	ck_assert_uint_eq(log->mem[1].addr, 0x13);
	ck_assert_uint_eq(log->mem[2].space, PT_UMR_SYSMEM);
	pt_umr_free(log);
	/* an empty log is a log of nothing */
	ck_assert_int_eq(pt_umr_parse("; nothing\n", 10, "x", 0, &log, err, sizeof err), PT_OK);
	ck_assert_uint_eq(log->nctx + log->nmem, 0);
	pt_umr_free(log);
}
END_TEST

/* ---- recognition ---- */

START_TEST(detect)
{
	size_t len;
	char *t = slurp("gfx9-gart.envdef", &len);

	ck_assert(pt_umr_detect(t, len));
	free(t);
	t = slurp("gfx9-vmid3.log", &len);
	ck_assert(pt_umr_detect(t, len));
	free(t);
	ck_assert(pt_umr_detect("DISCOVERY = {00}", 16));
	ck_assert(!pt_umr_detect("[capture]\nversion = 1\nformat = amd-gart\n", 39));
	ck_assert(!pt_umr_detect("MMIO is a bus\n", 14));
	ck_assert(!pt_umr_detect("VRAM@0x10 is where\n", 19));
	ck_assert(!pt_umr_detect("; only a comment\n", 17));
	ck_assert(!pt_umr_detect("", 0));
	ck_assert(!pt_umr_detect("MMIO@0x1 = {\0", 13));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("src_umr");
	TCase *tc;

	tc = tcase_create("registers");
	tcase_add_test(tc, gfx9_gart);
	tcase_add_test(tc, gfx9_depth3);
	tcase_add_test(tc, gfx10_names);
	tcase_add_test(tc, by_address);
	tcase_add_test(tc, umr_shapes);
	tcase_add_test(tc, asic_names);
	tcase_add_test(tc, merge_regions);
	suite_add_tcase(s, tc);

	tc = tcase_create("records");
	tcase_add_test(tc, other_records);
	suite_add_tcase(s, tc);

	tc = tcase_create("hostile");
	tcase_add_loop_test(tc, hostile, 0, (int)(sizeof bad_cases / sizeof bad_cases[0]));
	tcase_add_test(tc, nul_byte);
	suite_add_tcase(s, tc);

	tc = tcase_create("detect");
	tcase_add_test(tc, detect);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
