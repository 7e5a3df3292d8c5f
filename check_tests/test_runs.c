/*
 * test_runs: the run builder (core/runs.c).  With no filter its runs are
 * the lines of pt_render_maps() for every context of every fixture; filters
 * act on pages before merging; --all finds the sparse and not-captured
 * ranges of turing-mixed.
 */
#include <stdlib.h>
#include <string.h>

#include "pt_capture.h"
#include "pt_runs.h"
#include "testutil.h"

static const char *const fixtures[] = {
	"turing-mixed.tar.gz", "turing-mixed-after.tar.gz", "turing-mixed-relocated.tar.gz",
	"gart-cosim.tar.gz", "gart-umr-kat.tar.gz",
};

static struct pt_capture *load(const char *name)
{
	struct pt_capture *cap = pt_capture_new();

	ck_assert_ptr_nonnull(cap);
	ck_assert_msg(pt_capture_load(cap, tu_fixture(name)) == PT_OK, "%s: %s", name,
		      pt_capture_error(cap));
	return cap;
}

/* All runs of CTX under F, rendered. */
static void render_runs(struct pt_buf *b, const struct pt_context *ctx,
			const struct pt_runs_filter *f, enum pt_out out)
{
	struct pt_runs_iter it;
	struct pt_run r;

	pt_runs_init(&it, ctx, f, NULL);
	while (pt_runs_next(&it, &r))
		pt_render_run(b, ctx, &r, NULL, out);
	if (it.truncated)
		pt_render_runs_truncated(b, &it, out);
}

START_TEST(test_unfiltered_equals_maps)
{
	for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
		struct pt_capture *cap = load(fixtures[i]);

		for (size_t c = 0; c < pt_capture_context_count(cap); c++) {
			const struct pt_context *ctx = pt_capture_context(cap, c);
			struct pt_runs_filter f;

			pt_runs_filter_init(&f);
			for (int o = 0; o < 2; o++) {
				struct pt_buf a, b;

				pt_buf_init(&a);
				pt_buf_init(&b);
				ck_assert_int_eq(pt_render_maps(&a, ctx, o ? PT_OUT_JSON : PT_OUT_TEXT, NULL), PT_OK);
				render_runs(&b, ctx, &f, o ? PT_OUT_JSON : PT_OUT_TEXT);
				ck_assert_uint_gt(a.len, 0);
				ck_assert_msg(a.len == b.len && !memcmp(a.data, b.data, a.len),
					      "%s %s: maps\n%s\nruns\n%s", fixtures[i], ctx->name,
					      a.data, b.data ? b.data : "");
				pt_buf_free(&a);
				pt_buf_free(&b);
			}
		}
		pt_capture_free(cap);
	}
}
END_TEST

static char *filtered(const char *fix, const char *cname, const struct pt_runs_filter *f)
{
	struct pt_capture *cap = load(fix);
	const struct pt_context *ctx = pt_capture_context_find(cap, cname);
	struct pt_buf b;
	char *s;

	ck_assert_ptr_nonnull(ctx);
	pt_buf_init(&b);
	render_runs(&b, ctx, f, PT_OUT_TEXT);
	s = strdup(b.data ? b.data : "");
	pt_buf_free(&b);
	pt_capture_free(cap);
	return s;
}

/* In turing-mixed-after the first of a 4-page run is read_only: --ro splits it before merging. */
START_TEST(test_filter_before_merge)
{
	struct pt_runs_filter f;
	char *s;

	pt_runs_filter_init(&f);
	f.read_only = true;
	f.va_lo = 0x40c000;
	f.va_hi = 0x40ffff;
	s = filtered("turing-mixed-after.tar.gz", "pdb0", &f);
	ck_assert_str_eq(s, "0x000000040c000-0x000000040d000     4K   4K vidmem  0x0000000010010000 read_only GENERIC_MEMORY\n");
	free(s);
	f.read_only = false;
	s = filtered("turing-mixed-after.tar.gz", "pdb0", &f);
	ck_assert_str_eq(s,
		"0x000000040c000-0x000000040d000     4K   4K vidmem  0x0000000010010000 read_only GENERIC_MEMORY\n"
		"0x000000040d000-0x0000000410000    12K   4K vidmem  0x0000000010011000 - GENERIC_MEMORY\n");
	free(s);
}
END_TEST

START_TEST(test_filter_space_size_kind_range)
{
	struct pt_runs_filter f;
	char *s;

	/* A 2M page that starts below the range but reaches into it is kept. */
	pt_runs_filter_init(&f);
	f.va_lo = 0x300000;
	f.va_hi = 0x300fff;
	s = filtered("turing-mixed.tar.gz", "pdb0", &f);
	ck_assert_str_eq(s, "0x0000000200000-0x0000000400000     2M   2M vidmem  0x0000000040000000 - GENERIC_MEMORY\n");
	free(s);
	pt_runs_filter_init(&f);
	f.page_size = 65536;
	f.space = 1;   /* sysmem */
	s = filtered("turing-mixed.tar.gz", "pdb0", &f);
	ck_assert_ptr_nonnull(strstr(s, "0x0000000240000000 read_only"));
	ck_assert_ptr_null(strstr(s, "vidmem"));
	ck_assert_ptr_null(strstr(s, "   4K sysmem"));
	free(s);
	pt_runs_filter_init(&f);
	f.kind = "GENERIC_MEMORY_COMPRESSIBLE";
	s = filtered("turing-mixed.tar.gz", "pdb0", &f);
	ck_assert_ptr_nonnull(strstr(s, "GENERIC_MEMORY_COMPRESSIBLE"));
	for (char *p = s; (p = strstr(p, "GENERIC_MEMORY")); p += 14)
		ck_assert_msg(!strncmp(p, "GENERIC_MEMORY_COMPRESSIBLE", 27), "%s", s);
	free(s);
}
END_TEST

START_TEST(test_all_gaps)
{
	struct pt_runs_filter f;
	char *s;

	pt_runs_filter_init(&f);
	f.all = true;
	s = filtered("turing-mixed.tar.gz", "pdb0", &f);
	/* PD3 entry 2 is a sparse PDE: 2^47 bytes from 2^48. */
	ck_assert_msg(strstr(s, "0x1000000000000-0x1800000000000   128T    - sparse\n") != NULL, "%s", s);
	/* PD2 entry 2 points at a PD1 the capture does not hold. */
	ck_assert_msg(strstr(s, "0x0008000000000-0x000c000000000   256G    - not_captured\n") != NULL, "%s", s);
	/* The small PTE 6 of SPT1 is sparse. */
	ck_assert_msg(strstr(s, "0x0000000406000-0x0000000407000     4K    - sparse\n") != NULL, "%s", s);
	free(s);
	/* Only one state. */
	f.state = "not_captured";
	s = filtered("turing-mixed.tar.gz", "pdb0", &f);
	ck_assert_ptr_null(strstr(s, "sparse"));
	ck_assert_ptr_null(strstr(s, "vidmem"));
	ck_assert_ptr_nonnull(strstr(s, "not_captured"));
	free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("runs");
	TCase *tc = tcase_create("maps");

	tcase_add_test(tc, test_unfiltered_equals_maps);
	suite_add_tcase(s, tc);
	tc = tcase_create("filters");
	tcase_add_test(tc, test_filter_before_merge);
	tcase_add_test(tc, test_filter_space_size_kind_range);
	suite_add_tcase(s, tc);
	tc = tcase_create("all");
	tcase_add_test(tc, test_all_gaps);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
