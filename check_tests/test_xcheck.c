/* SPDX-License-Identifier: MIT */
/*
 * test_xcheck: the comparison of two contexts (core/view/xcheck.c).  The
 * rights as PT_PERM_* bits give them, across formats (an amd-gpuvm page
 * against x86-64 pages); the verdicts, merging and window of
 * pt_xcheck_run() on xcheck-mirror, whose planted answers are in
 * fixtures/xcheck-mirror.crosscheck (test_crosscheck.sh compares them all);
 * and xcheck-gpuvm, an x86-64 process against an amd-gpuvm VMID in one
 * mixed capture (fixtures/xcheck-gpuvm.crosscheck).
 */
#include <stdlib.h>
#include <string.h>

#include "pt_capture.h"
#include "pt_walk.h"
#include "pt_xcheck.h"
#include "testutil.h"

static struct pt_capture *load(const char *name)
{
	struct pt_capture *cap = pt_capture_new();

	ck_assert_ptr_nonnull(cap);
	ck_assert_msg(pt_capture_load(cap, tu_fixture(name)) == PT_OK, "%s: %s", name,
		      pt_capture_error(cap));
	return cap;
}

/* The PT_PERM_* bits of the page at VA of context NAME (it must be mapped). */
static uint32_t perm_at(const struct pt_capture *cap, const char *name, uint64_t va)
{
	const struct pt_context *ctx = pt_capture_context_find(cap, name);
	struct pt_walk w;

	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_eq(pt_walk_va(ctx, va, &w), PT_OK);
	ck_assert_msg(w.fault == PT_FAULT_NONE, "%s 0x%llx: not mapped", name, (unsigned long long)va);
	return w.perm;
}

START_TEST(test_rights_of_perm_bits)
{
	ck_assert_uint_eq(pt_xcheck_rights(0), PT_XC_WRITABLE | PT_XC_USER);
	ck_assert_uint_eq(pt_xcheck_rights(PT_PERM_EXEC), PT_XC_RIGHTS_ALL);
	/* read-only in either word (VER2/GART read_only, x86/GPUVM writeable=0) */
	ck_assert_uint_eq(pt_xcheck_rights(PT_PERM_READ_ONLY), PT_XC_USER);
	ck_assert_uint_eq(pt_xcheck_rights(PT_PERM_NO_WRITE), PT_XC_USER);
	ck_assert_uint_eq(pt_xcheck_rights(PT_PERM_PRIVILEGE | PT_PERM_EXEC),
			  PT_XC_WRITABLE | PT_XC_EXECUTABLE);
	/* bits that are not rights change nothing */
	ck_assert_uint_eq(pt_xcheck_rights(PT_PERM_SNOOPED | PT_PERM_TMZ | PT_PERM_VOLATILE |
					   PT_PERM_ATOMIC_DISABLE | PT_PERM_ENCRYPTED),
			  PT_XC_WRITABLE | PT_XC_USER);
	ck_assert_uint_eq(pt_xcheck_rights_diff(PT_PERM_READ_ONLY, PT_PERM_NO_WRITE, PT_XC_RIGHTS_ALL), 0);
	ck_assert_uint_eq(pt_xcheck_rights_diff(0, PT_PERM_NO_WRITE | PT_PERM_PRIVILEGE | PT_PERM_EXEC,
						PT_XC_RIGHTS_ALL), PT_XC_RIGHTS_ALL);
	/* only the rights asked for */
	ck_assert_uint_eq(pt_xcheck_rights_diff(0, PT_PERM_NO_WRITE | PT_PERM_EXEC, PT_XC_EXECUTABLE),
			  PT_XC_EXECUTABLE);
	ck_assert_uint_eq(pt_xcheck_rights_diff(0, PT_PERM_PRIVILEGE, PT_XC_WRITABLE), 0);
	ck_assert_str_eq(pt_xcheck_right_name(PT_XC_WRITABLE), "writable");
	ck_assert_str_eq(pt_xcheck_right_name(PT_XC_USER), "user");
	ck_assert_str_eq(pt_xcheck_right_name(PT_XC_EXECUTABLE), "executable");
	ck_assert_ptr_null(pt_xcheck_right_name(PT_XC_WRITABLE | PT_XC_USER));
	ck_assert_str_eq(pt_xcheck_verdict_name(PT_XC_PERM_DIFFERS), "perm_differs");
	ck_assert_str_eq(pt_xcheck_verdict_name(PT_XC_ONLY_B), "only_b");
}
END_TEST

/*
 * Across formats, through the decoders: amd-gfx9-vm gfx.1 0x4000 is an
 * rwx sysmem page (GPUVM readable, writeable, executable bits; no privilege
 * bit), 0x0 an rw- vram page; xcheck-mirror proc 0x8000 is writable, user,
 * executable, svm 0x8000 the same with XD, proc 0x0 writable user XD.
 */
START_TEST(test_rights_across_formats)
{
	struct pt_capture *g = load("amd-gfx9-vm.tar.gz"), *x = load("xcheck-mirror.tar.gz");
	uint32_t rwx = perm_at(g, "gfx.1", 0x4000), rw = perm_at(g, "gfx.1", 0x0);

	ck_assert_uint_eq(pt_xcheck_rights(rwx), PT_XC_RIGHTS_ALL);
	ck_assert_uint_eq(pt_xcheck_rights(rw), PT_XC_WRITABLE | PT_XC_USER);
	ck_assert_uint_eq(pt_xcheck_rights_diff(rwx, perm_at(x, "proc", 0x8000), PT_XC_RIGHTS_ALL), 0);
	ck_assert_uint_eq(pt_xcheck_rights_diff(rwx, perm_at(x, "svm", 0x8000), PT_XC_RIGHTS_ALL),
			  PT_XC_EXECUTABLE);
	ck_assert_uint_eq(pt_xcheck_rights_diff(rw, perm_at(x, "proc", 0x0), PT_XC_RIGHTS_ALL), 0);
	/* the planted perm_differs pages, decoded */
	ck_assert_uint_eq(pt_xcheck_rights_diff(perm_at(x, "proc", 0x6000), perm_at(x, "svm", 0x6000),
						PT_XC_RIGHTS_ALL), PT_XC_WRITABLE);
	ck_assert_uint_eq(pt_xcheck_rights_diff(perm_at(x, "proc", 0x7000), perm_at(x, "svm", 0x7000),
						PT_XC_RIGHTS_ALL), PT_XC_USER);
	ck_assert_uint_eq(pt_xcheck_rights_diff(perm_at(x, "proc", 0xc000), perm_at(x, "svm", 0xc000),
						PT_XC_RIGHTS_ALL), PT_XC_RIGHTS_ALL);
	pt_capture_free(g);
	pt_capture_free(x);
}
END_TEST

struct got {
	struct pt_xcheck_line l[32];
	unsigned n;
	unsigned stop_after;   /* 0: never stop */
};

static int collect(void *ud, const struct pt_xcheck_line *l)
{
	struct got *g = ud;

	ck_assert_uint_lt(g->n, 32);
	g->l[g->n++] = *l;
	return g->stop_after && g->n == g->stop_after ? 7 : 0;
}

static void run(const struct pt_capture *cap, const char *a, const char *b,
		const struct pt_xcheck_opts *o, struct got *g, struct pt_xcheck_result *res)
{
	const struct pt_context *ca = pt_capture_context_find(cap, a), *cb = pt_capture_context_find(cap, b);

	ck_assert_ptr_nonnull(ca);
	ck_assert_ptr_nonnull(cb);
	ck_assert_int_eq(pt_xcheck_run(ca, cb, o, collect, g, res, NULL), PT_OK);
}

START_TEST(test_run_verdicts)
{
	struct pt_capture *cap = load("xcheck-mirror.tar.gz");
	struct pt_xcheck_opts o;
	struct pt_xcheck_result res;
	struct got g = {0};
	static const enum pt_xcheck_verdict want[] = {
		PT_XC_SAME, PT_XC_PA_DIFFERS, PT_XC_PERM_DIFFERS, PT_XC_PERM_DIFFERS, PT_XC_PERM_DIFFERS,
		PT_XC_ONLY_A, PT_XC_ONLY_B, PT_XC_SAME, PT_XC_PERM_DIFFERS, PT_XC_SAME, PT_XC_SAME,
		PT_XC_ONLY_A, PT_XC_SAME,
	};

	pt_xcheck_opts_init(&o);
	run(cap, "proc", "svm", &o, &g, &res);
	ck_assert_uint_eq(g.n, sizeof want / sizeof want[0]);
	for (unsigned i = 0; i < g.n; i++)
		ck_assert_msg(g.l[i].verdict == want[i], "line %u: %s", i, pt_xcheck_verdict_name(g.l[i].verdict));
	/* merged: four same pages, two pa_differs pages with contiguous PAs on both sides */
	ck_assert_uint_eq(g.l[0].va, 0);
	ck_assert_uint_eq(g.l[0].last, 0x3fff);
	ck_assert_uint_eq(g.l[1].last - g.l[1].va + 1, 0x2000);
	ck_assert_uint_eq(g.l[1].a.pa, 0x300000);
	ck_assert_uint_eq(g.l[1].b.pa, 0x400000);
	/* not merged: adjacent same pages whose PAs do not continue */
	ck_assert_uint_eq(g.l[9].last + 1, g.l[10].va);
	/* the side without a page says why */
	ck_assert_str_eq(g.l[5].b.state, "unmapped");
	ck_assert_str_eq(g.l[6].a.state, "unmapped");
	ck_assert_str_eq(g.l[11].b.state, "not_captured");
	ck_assert(!g.l[11].b.mapped);
	/* 2M against 4K pages of the same memory: one same line */
	ck_assert_uint_eq(g.l[12].last - g.l[12].va + 1, 0x200000);
	ck_assert_uint_eq(g.l[12].a.page_size, 0x200000);
	ck_assert_uint_eq(g.l[12].b.page_size, 0x1000);
	ck_assert_uint_eq(g.l[2].rights, PT_XC_WRITABLE);
	ck_assert_uint_eq(g.l[0].rights, 0);
	ck_assert_uint_eq(res.lines[PT_XC_SAME], 5);
	ck_assert_uint_eq(res.lines[PT_XC_PERM_DIFFERS], 4);
	ck_assert_uint_eq(res.lines[PT_XC_ONLY_A], 2);
	ck_assert_uint_eq(res.bytes[PT_XC_PA_DIFFERS], 0x2000);
	ck_assert(!res.truncated);
	ck_assert_int_eq(res.stopped, 0);

	/* a context against itself: everything same, every mapped range once */
	memset(&g, 0, sizeof g);
	run(cap, "svm", "svm", &o, &g, &res);
	for (unsigned v = PT_XC_SAME + 1; v < PT_XC__COUNT; v++)
		ck_assert_uint_eq(res.lines[v], 0);
	ck_assert_uint_gt(res.lines[PT_XC_SAME], 0);

	/* the rights not asked for are not compared */
	memset(&g, 0, sizeof g);
	o.rights = PT_XC_USER;
	run(cap, "proc", "svm", &o, &g, &res);
	ck_assert_uint_eq(res.lines[PT_XC_PERM_DIFFERS], 2);   /* user, and the one where all differ */
	pt_capture_free(cap);
}
END_TEST

START_TEST(test_run_window_and_stop)
{
	struct pt_capture *cap = load("xcheck-mirror.tar.gz");
	struct pt_xcheck_opts o;
	struct pt_xcheck_result res;
	struct got g = {0};

	/* a window inside runs: lines are cut to it */
	pt_xcheck_opts_init(&o);
	o.va_lo = 0x5000;
	o.va_hi = 0x6fff;
	run(cap, "proc", "svm", &o, &g, &res);
	ck_assert_uint_eq(g.n, 2);
	ck_assert_int_eq(g.l[0].verdict, PT_XC_PA_DIFFERS);
	ck_assert_uint_eq(g.l[0].va, 0x5000);
	ck_assert_uint_eq(g.l[0].a.pa, 0x301000);   /* the PA of the window's first VA */
	ck_assert_uint_eq(g.l[1].last, 0x6fff);
	/* a window nothing maps */
	memset(&g, 0, sizeof g);
	o.va_lo = 0x100000;
	o.va_hi = 0x1fffff;
	run(cap, "proc", "svm", &o, &g, &res);
	ck_assert_uint_eq(g.n, 0);
	/* the callback stops it */
	memset(&g, 0, sizeof g);
	g.stop_after = 3;
	pt_xcheck_opts_init(&o);
	run(cap, "proc", "svm", &o, &g, &res);
	ck_assert_uint_eq(g.n, 3);
	ck_assert_int_eq(res.stopped, 7);
	pt_capture_free(cap);
}
END_TEST

START_TEST(test_render)
{
	struct pt_capture *cap = load("xcheck-mirror.tar.gz");
	struct pt_xcheck_opts o;
	struct pt_xcheck_result res;
	struct got g = {0};
	struct pt_buf b;

	pt_xcheck_opts_init(&o);
	run(cap, "proc", "svm", &o, &g, &res);
	pt_buf_init(&b);
	pt_render_xcheck_line(&b, &g.l[8], 16, PT_OUT_TEXT);
	ck_assert_str_eq(b.data, "0x000000000000c000-0x000000000000d000     4K perm_differs "
			 "sysmem:0x0000000000308000 4K writable,user sysmem:0x0000000000308000 4K xd "
			 "differs=writable,user,executable\n");
	pt_buf_reset(&b);
	pt_render_xcheck_line(&b, &g.l[5], 16, PT_OUT_JSON);
	ck_assert_str_eq(b.data, "{\"rights\": [], \"side_a\": {\"flags\": [\"writable\", \"user\", \"xd\"], \"kind_name\": \"-\", \"pa\": \"0x305000\", "
			 "\"page_size\": \"0x1000\", \"space\": \"sysmem\", \"state\": \"mapped\"}, "
			 "\"side_b\": {\"state\": \"unmapped\"}, \"size\": \"0x1000\", "
			 "\"va_end\": \"0xa000\", \"va_start\": \"0x9000\", \"verdict\": \"only_a\"}\n");
	pt_buf_reset(&b);
	pt_render_xcheck_summary(&b, &res, PT_OUT_TEXT);
	ck_assert_str_eq(b.data, "# summary: same 5, pa_differs 1, perm_differs 4, only_a 2, only_b 1\n");
	pt_buf_reset(&b);
	pt_render_xcheck_summary(&b, &res, PT_OUT_JSON);
	ck_assert_str_eq(b.data, "{\"summary\": {\"only_a\": 2, \"only_b\": 1, \"pa_differs\": 1, "
			 "\"perm_differs\": 4, \"same\": 5}}\n");
	pt_buf_free(&b);
	pt_capture_free(cap);
}
END_TEST

/*
 * xcheck-gpuvm: the rights amd-gpuvm decodes (W: writable, X: executable,
 * no privilege bit: always user), the spaces the two formats share by name
 * (sysmem) and the one they do not (vram), pt_xcheck_run across formats.
 */
START_TEST(test_gpuvm_mirror)
{
	struct pt_capture *cap = load("xcheck-gpuvm.tar.gz");
	const struct pt_context *a = pt_capture_context_find(cap, "proc"), *b = pt_capture_context_find(cap, "vmid");
	struct pt_xcheck_opts o;
	struct pt_xcheck_result res;
	struct got g = {0};

	ck_assert_str_ne(a->fmt->name, b->fmt->name);
	ck_assert_uint_eq(pt_xcheck_rights(perm_at(cap, "vmid", 0x0)), PT_XC_WRITABLE | PT_XC_USER);
	ck_assert_uint_eq(pt_xcheck_rights(perm_at(cap, "vmid", 0x6000)), PT_XC_USER);
	ck_assert_uint_eq(pt_xcheck_rights(perm_at(cap, "vmid", 0xe000)), PT_XC_RIGHTS_ALL);
	ck_assert_uint_eq(pt_xcheck_rights(perm_at(cap, "proc", 0x7000)), PT_XC_WRITABLE);
	pt_xcheck_opts_init(&o);
	o.va_lo = 0x6000;
	o.va_hi = 0xcfff;
	run(cap, "proc", "vmid", &o, &g, &res);
	ck_assert_uint_eq(g.n, 7);
	ck_assert_uint_eq(g.l[1].rights, PT_XC_USER);          /* 0x7000: a supervisor page */
	ck_assert_int_eq(g.l[5].verdict, PT_XC_ONLY_B);        /* 0xb000: a vram page alone */
	ck_assert_str_eq(g.l[5].b.space, "vram");
	ck_assert_uint_eq(g.l[5].b.pa, 0x10000);
	ck_assert_int_eq(g.l[6].verdict, PT_XC_PA_DIFFERS);    /* 0xc000: sysmem against vram */
	ck_assert_str_eq(g.l[6].a.space, "sysmem");
	ck_assert_str_eq(g.l[6].b.space, "vram");
	ck_assert_uint_eq(res.lines[PT_XC_ONLY_B], 2);
	pt_capture_free(cap);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("xcheck");
	TCase *t = tcase_create("rights");

	tcase_add_test(t, test_rights_of_perm_bits);
	tcase_add_test(t, test_rights_across_formats);
	suite_add_tcase(s, t);
	t = tcase_create("run");
	tcase_add_test(t, test_run_verdicts);
	tcase_add_test(t, test_run_window_and_stop);
	tcase_add_test(t, test_render);
	tcase_add_test(t, test_gpuvm_mirror);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
