/*
 * test_src_gem5: gem5 GPUFS m5.cpt (core/pt_src_gem5.h).  The checkpoint
 * check_tests/src_data/m5.cpt follows the serialize code quoted in
 * docs/design.md §3.1-§3.2 and their sources (§7); hostile variants are built from it by
 * replacing one line, each with its whole message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_src_gem5.h"
#include "testutil.h"

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

/* m5.cpt with the first line starting OLD replaced by NEW ("" drops it). */
static char *variant(const char *old, const char *new)
{
	size_t len;
	char *t = slurp("m5.cpt", &len), *p = strstr(t, old), *eol, *out;

	ck_assert_msg(p != NULL, "%s", old);
	eol = strchr(p, '\n');
	out = malloc(len + strlen(new) + 2);
	ck_assert_ptr_nonnull(out);
	memcpy(out, t, (size_t)(p - t));
	strcpy(out + (p - t), new);
	if (*new)
		strcat(out, "\n");
	strcat(out, eol + 1);
	free(t);
	return out;
}

START_TEST(registers)
{
	struct pt_gem5_cpt *c = NULL;
	char err[512] = "";
	size_t len;
	char *t = slurp("m5.cpt", &len);

	ck_assert_msg(pt_gem5_parse(t, len, "cpt.1/m5.cpt", NULL, NULL, 0, &c, err, sizeof err) == PT_OK, "%s", err);
	ck_assert_str_eq(c->device, "system.pc.south_bridge.gpu");
	ck_assert_uint_eq(c->gpuvm_line, 19);
	/* vm0PTBase with bit 0 clear, as gem5 saves it */
	ck_assert(c->reg[PT_G5_PT_BASE].has);
	ck_assert_uint_eq(c->reg[PT_G5_PT_BASE].raw, 0x100000);
	ck_assert_uint_eq(c->reg[PT_G5_PT_BASE].line, 20);
	ck_assert_uint_eq(c->reg[PT_G5_PT_END].raw, 511);
	/* agpTop 0xffffff (bits 23:0 << 24 | 0xffffff of 0) converts back to 0 */
	ck_assert_uint_eq(c->reg[PT_G5_AGP_TOP].raw, 0);
	ck_assert_uint_eq(c->reg[PT_G5_SYS_HIGH].raw, 0xfff);
	ck_assert_str_eq(c->reg[PT_G5_SYS_HIGH].key, "vmContext0.sysAddrH");
	ck_assert_uint_eq(c->reg[PT_G5_FB_OFFSET].raw, 0);
	/* fbBase = fbTop = 0: FB_LOCATION from the MMHUB preset */
	ck_assert(c->fb_from_mmhub);
	ck_assert_uint_eq(c->reg[PT_G5_FB_BASE].raw, 0x8000);
	ck_assert_uint_eq(c->reg[PT_G5_FB_TOP].raw, 0x83ff);
	ck_assert_str_eq(c->reg[PT_G5_FB_TOP].key, "mmhubTop");
	ck_assert_uint_eq(c->reg[PT_G5_FB_TOP].line, 32);
	ck_assert(c->has_pt_base);
	ck_assert_uint_eq(c->pt_base[1], 0x200001);
	ck_assert_uint_eq(c->pt_base[2], 0);
	ck_assert_uint_eq(c->pt_base_line, 33);
	/* the stores: a 16 GiB VRAM image is only a name here */
	ck_assert(c->has_vram);
	ck_assert_str_eq(c->vram.file, "system.pc.south_bridge.gpu.deviceMem.store0.pmem");
	ck_assert_uint_eq(c->vram.size, 16ull << 30);
	ck_assert_uint_eq(c->vram.base, 0);
	ck_assert_uint_eq(c->vram.line, 14);
	ck_assert_uint_eq(c->nsys, 2);
	ck_assert(c->sys_by_convention);
	ck_assert_str_eq(c->sys[0].file, "system.physmem.store0.pmem");
	ck_assert_uint_eq(c->sys[0].base, 0);
	ck_assert_uint_eq(c->sys[0].size, 3ull << 30);
	ck_assert_str_eq(c->sys[1].section, "system.physmem.store1");
	ck_assert_uint_eq(c->sys[1].base, 4ull << 30);
	ck_assert_uint_eq(c->sys[1].line, 48);
	pt_gem5_free(c);
	free(t);
}
END_TEST

START_TEST(written_fb_and_device)
{
	struct pt_gem5_cpt *c = NULL;
	char err[512] = "";
	char *t = variant("vmContext0.fbTop=", "vmContext0.fbTop=4177526783"), *u;

	/* fbTop written (0xf8 << 24 | 0xffffff): the GFX hub's own value, no MMHUB fallback */
	ck_assert_msg(pt_gem5_parse(t, strlen(t), "m5.cpt", NULL, NULL, 0, &c, err, sizeof err) == PT_OK, "%s", err);
	ck_assert(!c->fb_from_mmhub);
	ck_assert_uint_eq(c->reg[PT_G5_FB_TOP].raw, 0xf8);
	ck_assert_uint_eq(c->reg[PT_G5_FB_BASE].raw, 0);
	pt_gem5_free(c);
	free(t);
	/* a stdlib board name, picked by name; a missing one is named */
	t = slurp("m5.cpt", &(size_t){ 0 });
	u = malloc(strlen(t) + 64);
	strcpy(u, t);
	strcat(u, "\n[board.gpus.device.GPUVM]\nvm0PTBase=4096\n");
	ck_assert_int_eq(pt_gem5_parse(u, strlen(u), "m5.cpt", "board.gpus.device", NULL, 0, &c, err, sizeof err), PT_OK);
	ck_assert_str_eq(c->device, "board.gpus.device");
	ck_assert_uint_eq(c->reg[PT_G5_PT_BASE].raw, 4096);
	ck_assert(!c->has_vram);
	pt_gem5_free(c);
	ck_assert_int_eq(pt_gem5_parse(u, strlen(u), "m5.cpt", "board.gpus0.device", NULL, 0, &c, err, sizeof err),
			 PT_E_NOTFOUND);
	ck_assert_str_eq(err, "m5.cpt:1: no [board.gpus0.device.GPUVM] section");
	free(u);
	free(t);
}
END_TEST

static const struct {
	const char *old, *new;
	pt_err rc;
	const char *msg;
} bad_cases[] = {
	{ "vmContext0.fbBase=", "vmContext0.fbBase=16777217", PT_E_VALUE,
	  "m5.cpt:26: vmContext0.fbBase = 16777217 is not a value gem5 writes (bits 23..0 << 24)" },
	{ "vmContext0.sysAddrL=", "vmContext0.sysAddrL=1", PT_E_VALUE,
	  "m5.cpt:29: vmContext0.sysAddrL = 1 is not a value gem5 writes (bits 29..0 << 18)" },
	{ "vmContext0.fbOffset=", "vmContext0.fbOffset=281474976710656", PT_E_VALUE,
	  "m5.cpt:28: vmContext0.fbOffset = 281474976710656 is not a value gem5 writes (bits 23..0 << 24)" },
	{ "vm0PTBase=", "vm0PTBase=18446744073709551616", PT_E_VALUE,
	  "m5.cpt:20: vm0PTBase: not a decimal number below 2^64" },
	{ "vm0PTEnd=", "vm0PTEnd=0x1ff", PT_E_VALUE, "m5.cpt:22: vm0PTEnd: not a decimal number below 2^64" },
	{ "vm0PTStart=", "vm0PTStart=-1", PT_E_VALUE, "m5.cpt:21: vm0PTStart: not a decimal number below 2^64" },
	{ "ptBase=", "ptBase=0 1 2", PT_E_VALUE, "m5.cpt:33: ptBase holds 3 values, not 16" },
	{ "ptBase=", "ptBase=0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16", PT_E_VALUE,
	  "m5.cpt:33: ptBase: not 16 decimal numbers below 2^64" },
	{ "vmContext0.agpBot=", "vm0PTBase=1", PT_E_VALUE, "m5.cpt:25: vm0PTBase given twice (line 20)" },
	{ "[system.pc.south_bridge.gpu.GPUVM]", "[system.pc.south_bridge.gpu.VM]", PT_E_NOTFOUND,
	  "m5.cpt:1: no [*.GPUVM] section (gem5 before v23.0 saves no GPU VM registers)" },
	{ "used_vmids=", "used_vmids", PT_E_SYNTAX, "m5.cpt:7: not a [section] or key=value line" },
	{ "[root]", "[root", PT_E_SYNTAX, "m5.cpt:3: section header without ']'" },
	{ "filename=system.pc", "filename=../vram.pmem", PT_E_VALUE,
	  "m5.cpt:16: filename is not a file name beside m5.cpt" },
	{ "range_size=17179869184", "range_size=", PT_E_VALUE,
	  "m5.cpt:17: range_size: not a decimal number below 2^64" },
	{ "filename=system.physmem.store0", "", PT_E_NOTFOUND,
	  "m5.cpt:43: [system.physmem.store0] has no filename" },
	{ "nbr_of_stores=1", "nbr_of_stores=2", PT_E_UNSUPPORTED,
	  "m5.cpt:12: device memory in 2 stores (gem5 writes one)" },
	{ "range_size=3221225472", "range_size=4294967296", PT_E_UNSUPPORTED,
	  "m5.cpt:43: store0 holds 4294967296 bytes, more than the 3 GiB below the 4 GiB store1" },
	{ "[system.physmem.store0]", "[system.physmem.store2]", PT_E_VALUE,
	  "m5.cpt:48: host memory store1 without store0" },
};

START_TEST(hostile)
{
	struct pt_gem5_cpt *c = (void *)1;
	char err[512] = "";
	char *t = variant(bad_cases[_i].old, bad_cases[_i].new);

	ck_assert_int_eq(pt_gem5_parse(t, strlen(t), "m5.cpt", NULL, NULL, 0, &c, err, sizeof err), bad_cases[_i].rc);
	ck_assert_ptr_null(c);
	ck_assert_str_eq(err, bad_cases[_i].msg);
	free(t);
}
END_TEST

START_TEST(three_stores)
{
	struct pt_gem5_cpt *c = NULL;
	char err[512] = "";
	size_t len;
	char *t = slurp("m5.cpt", &len), *u = malloc(len + 128);

	strcpy(u, t);
	strcat(u, "\n[system.physmem.store2]\nstore_id=2\nfilename=s2.pmem\nrange_size=4096\n");
	ck_assert_int_eq(pt_gem5_parse(u, strlen(u), "m5.cpt", NULL, NULL, 0, &c, err, sizeof err), PT_E_UNSUPPORTED);
	ck_assert_str_eq(err, "m5.cpt:53: 3 host memory stores: their addresses need config.ini");
	free(u);
	free(t);
}
END_TEST

/* Regression (fuzz_gem5): a host memory without stores sorted a NULL array. */
START_TEST(physmem_without_stores)
{
	struct pt_gem5_cpt *c = NULL;
	char err[512] = "";
	const char *t = "[gpu.GPUVM]\nvm0PTBase=0\n[system.physmem]\nnbr_of_stores=0\n";

	ck_assert_int_eq(pt_gem5_parse(t, strlen(t), "m5.cpt", NULL, NULL, 0, &c, err, sizeof err), PT_OK);
	ck_assert_uint_eq(c->nsys, 0);
	ck_assert(!c->sys_by_convention);
	pt_gem5_free(c);
	t = "[gpu.GPUVM]\n[s.physmem]\n[s.physmem.store0]\nfilename=a\nrange_size=1\n[s.physmem.store0]\nfilename=b\nrange_size=1\n";
	ck_assert_int_eq(pt_gem5_parse(t, strlen(t), "m5.cpt", NULL, NULL, 0, &c, err, sizeof err), PT_E_VALUE);
	ck_assert_str_eq(err, "m5.cpt:6: host memory store0 given twice (line 3)");
}
END_TEST

START_TEST(long_lines_and_crlf)
{
	struct pt_gem5_cpt *c = NULL;
	char err[512] = "";
	size_t n = 200000, len;
	char *t = slurp("m5.cpt", &len), *u = malloc(len + 16 * n + 64), *p;

	/* gartTableKey/Value hold one number per shadowed PTE: lines of MiBs */
	strcpy(u, t);
	p = u + strlen(u);
	p += sprintf(p, "\r\n[system.pc.south_bridge.gpu.GPUVM.extra]\r\ngartTableKey=");
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%zu ", i * 8);
	strcpy(p, "\r\n");
	ck_assert_msg(pt_gem5_parse(u, strlen(u), "m5.cpt", NULL, NULL, 0, &c, err, sizeof err) == PT_OK, "%s", err);
	pt_gem5_free(c);
	free(u);
	free(t);
}
END_TEST

/* config.ini text with the line starting OLD replaced by NEW. */
static char *cfg_variant(const char *old, const char *new)
{
	size_t len;
	char *t = slurp("config.ini", &len), *p = strstr(t, old), *eol, *out;

	ck_assert_msg(p != NULL, "%s", old);
	eol = strchr(p, '\n');
	out = malloc(len + strlen(new) + 2);
	memcpy(out, t, (size_t)(p - t));
	strcpy(out + (p - t), new);
	strcat(out, eol);
	free(t);
	return out;
}

START_TEST(config_ranges)
{
	struct pt_gem5_cpt *c = NULL;
	char err[512] = "";
	size_t len, clen;
	char *t = slurp("m5.cpt", &len), *cfg = slurp("config.ini", &clen);

	/* two interleaved controllers are one store; the ranges say the bases */
	ck_assert_msg(pt_gem5_parse(t, len, "m5.cpt", NULL, cfg, clen, &c, err, sizeof err) == PT_OK, "%s", err);
	ck_assert(!c->sys_by_convention);
	ck_assert_uint_eq(c->sys[0].base, 0);
	ck_assert_uint_eq(c->sys[0].config_line, 18);
	ck_assert_uint_eq(c->sys[1].base, 4ull << 30);
	ck_assert_uint_eq(c->sys[1].config_line, 30);
	pt_gem5_free(c);
	free(cfg);
	/* config.ini outranks the convention */
	cfg = cfg_variant("range=4294967296:", "range=8589934592:9663676416");
	ck_assert_msg(pt_gem5_parse(t, len, "m5.cpt", NULL, cfg, strlen(cfg), &c, err, sizeof err) == PT_OK, "%s", err);
	ck_assert_uint_eq(c->sys[1].base, 8ull << 30);
	pt_gem5_free(c);
	free(cfg);
	/* a memory outside the address map has no store */
	cfg = cfg_variant("range=4294967296:", "range=4294967296:5368709120\nin_addr_map=false");
	ck_assert_int_eq(pt_gem5_parse(t, len, "m5.cpt", NULL, cfg, strlen(cfg), &c, err, sizeof err), PT_E_VALUE);
	ck_assert_str_eq(err, "config.ini:10: 1 memory ranges, but m5.cpt has 2 host memory stores");
	free(cfg);
	cfg = cfg_variant("range=4294967296:", "range=4294967296:4294971392");
	ck_assert_int_eq(pt_gem5_parse(t, len, "m5.cpt", NULL, cfg, strlen(cfg), &c, err, sizeof err), PT_E_VALUE);
	ck_assert_str_eq(err, "config.ini:30: range holds 4096 bytes, but store1's range_size is 1073741824");
	free(cfg);
	cfg = cfg_variant("range=4294967296:", "range=1073741824:2147483648");
	ck_assert_int_eq(pt_gem5_parse(t, len, "m5.cpt", NULL, cfg, strlen(cfg), &c, err, sizeof err), PT_E_VALUE);
	ck_assert_str_eq(err, "config.ini:30: range overlaps the one on line 18");
	free(cfg);
	cfg = cfg_variant("range=4294967296:", "range=4294967296");
	ck_assert_int_eq(pt_gem5_parse(t, len, "m5.cpt", NULL, cfg, strlen(cfg), &c, err, sizeof err), PT_E_VALUE);
	ck_assert_str_eq(err, "config.ini:30: range is not start:end with start < end");
	free(cfg);
	cfg = cfg_variant("memories=", "memories=system.mem_ctrls0.dram system.nothing");
	ck_assert_int_eq(pt_gem5_parse(t, len, "m5.cpt", NULL, cfg, strlen(cfg), &c, err, sizeof err), PT_E_NOTFOUND);
	ck_assert_str_eq(err, "config.ini:10: memories= names system.nothing, which has no section");
	free(cfg);
	cfg = cfg_variant("[system]", "[board]");
	ck_assert_int_eq(pt_gem5_parse(t, len, "m5.cpt", NULL, cfg, strlen(cfg), &c, err, sizeof err), PT_E_NOTFOUND);
	ck_assert_str_eq(err, "config.ini:1: no [system] section for the checkpoint's host memory");
	free(cfg);
	free(t);
}
END_TEST

START_TEST(detect)
{
	const char *yes1[] = { "system.physmem.store0.pmem", "m5.cpt" };
	const char *yes2[] = { "cpt.1234/m5.cpt", "cpt.1234/x.pmem" };
	const char *yes3[] = { "./m5.cpt" };
	const char *no1[] = { "capture.ini", "mem/m5.cpt.bin" };
	const char *no2[] = { "a/b/m5.cpt" };
	size_t len;
	char *t = slurp("m5.cpt", &len);

	ck_assert(pt_gem5_detect_members(yes1, 2));
	ck_assert(pt_gem5_detect_members(yes2, 2));
	ck_assert(pt_gem5_detect_members(yes3, 1));
	ck_assert(!pt_gem5_detect_members(no1, 2));
	ck_assert(!pt_gem5_detect_members(no2, 1));
	ck_assert(!pt_gem5_detect_members(NULL, 0));
	ck_assert(pt_gem5_detect_text(t, len));
	ck_assert(!pt_gem5_detect_text("[capture]\nversion = 1\n", 22));
	ck_assert(!pt_gem5_detect_text("[GPUVM]\n", 8));
	free(t);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("src_gem5");
	TCase *tc;

	tc = tcase_create("registers");
	tcase_add_test(tc, registers);
	tcase_add_test(tc, written_fb_and_device);
	tcase_add_test(tc, config_ranges);
	suite_add_tcase(s, tc);

	tc = tcase_create("hostile");
	tcase_add_loop_test(tc, hostile, 0, (int)(sizeof bad_cases / sizeof bad_cases[0]));
	tcase_add_test(tc, three_stores);
	tcase_add_test(tc, physmem_without_stores);
	tcase_add_test(tc, long_lines_and_crlf);
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
