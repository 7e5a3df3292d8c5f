/*
 * test_pa: the reverse index (core/pa.c): aliases within and across
 * contexts, a byte nothing maps, the pa/ file, a first use from several
 * threads at once (the FUSE daemon's case), and a live capture's index
 * kept while its tables are unchanged and built again once they change.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "capture_int.h"
#include "pt_capture.h"
#include "pt_mem.h"
#include "pt_pa.h"
#include "pt_walk.h"
#include "testutil.h"

static struct pt_capture *cap;
static struct pt_pa_index *ix;

static void setup(void)
{
	cap = pt_capture_new();
	ck_assert_ptr_nonnull(cap);
	ck_assert_int_eq(pt_capture_load(cap, tu_fixture("turing-mixed.tar.gz")), PT_OK);
	ix = pt_pa_index_new(cap);
	ck_assert_ptr_nonnull(ix);
}

static void teardown(void)
{
	pt_pa_index_free(ix);
	pt_capture_free(cap);
}

START_TEST(test_aliases)
{
	struct pt_pa_hit *h;
	size_t n;
	bool inc = true;

	/* vidmem 0x10001234: SPT1[1], shared by pdb0 (once) and pdb1 (twice). */
	ck_assert_int_eq(pt_pa_lookup(ix, 0, 0x10001234, &h, &n, &inc), PT_OK);
	ck_assert(!inc);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(h[0].ctx->name, "pdb0");
	ck_assert_uint_eq(h[0].va, 0x401234);
	ck_assert_str_eq(h[1].ctx->name, "pdb1");
	ck_assert_uint_eq(h[1].va, 0x201234);
	ck_assert_uint_eq(h[2].va, 0x20401234);
	free(h);
	/* Inside a 2 MiB page. */
	ck_assert_int_eq(pt_pa_lookup(ix, 0, 0x40123456, &h, &n, &inc), PT_OK);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(h[0].va, 0x323456);
	free(h);
}
END_TEST

START_TEST(test_unmapped)
{
	struct pt_pa_hit *h;
	size_t n;
	bool inc;

	ck_assert_int_eq(pt_pa_lookup(ix, 0, 0x10002000, &h, &n, &inc), PT_OK);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(h);
	/* The table memory itself is not mapped by any PTE of the fixture. */
	ck_assert_int_eq(pt_pa_lookup(ix, 0, 0x200000, &h, &n, &inc), PT_OK);
	ck_assert_uint_eq(n, 0);
}
END_TEST

START_TEST(test_render)
{
	struct pt_buf b;
	size_t found = 9;

	pt_buf_init(&b);
	ck_assert_int_eq(pt_render_pa(&b, ix, 1, 0x240000010, PT_OUT_TEXT, &found), PT_OK);
	ck_assert_uint_eq(found, 2);
	ck_assert_str_eq(b.data,
		"pdb0 0x0000000640010 pde3/0/pde2/0/pde1/0/pde0/3/pte_big/4 read_only\n"
		"pdb1 0x0000020640010 pde3/0/pde2/0/pde1/1/pde0/3/pte_big/4 read_only\n");
	pt_buf_reset(&b);
	ck_assert_int_eq(pt_render_pa(&b, ix, 0, 0x10002000, PT_OUT_JSON, &found), PT_OK);
	ck_assert_uint_eq(found, 0);
	ck_assert_str_eq(b.data, "{\"complete\": true, \"mappings\": [], \"pa\": \"0x10002000\", \"space\": \"vidmem\"}\n");
	pt_buf_free(&b);
}
END_TEST

static void *lookup_thread(void *arg)
{
	struct pt_pa_hit *h;
	size_t n = 0;
	bool inc;

	(void)arg;
	if (pt_pa_lookup(ix, 0, 0x10001234, &h, &n, &inc) != PT_OK)
		return (void *)1;
	free(h);
	return n == 3 ? NULL : (void *)1;
}

START_TEST(test_threads)
{
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, lookup_thread, NULL), 0);
	for (int i = 0; i < 4; i++) {
		void *r;

		ck_assert_int_eq(pthread_join(t[i], &r), 0);
		ck_assert_ptr_null(r);
	}
}
END_TEST

/* ---- a live capture (issue #39 item 10) ---- */

static pt_err live_check(void *ud, char *err, size_t errlen)
{
	(void)ud;
	(void)err;
	(void)errlen;
	return PT_OK;
}

static const struct pt_live_ops fake_live = {.check = live_check};

/*
 * A capture made live by hand (what a live source's pt_loader_set_live()
 * does), its memory a built archive region that the test writes as a guest
 * would: the index is built once while the tables stay the same, however
 * many lookups, and again by the first lookup after a table changed, which
 * then finds the new mapping.
 */
START_TEST(test_live_reuse)
{
	struct pt_capture *lc = pt_capture_new();
	struct pt_pa_index *lx;
	const struct pt_context *ctx;
	struct pt_page_iter it;
	struct pt_page pg;
	struct pt_walk w;
	struct pt_pa_hit *h;
	size_t n;
	bool inc;
	uint64_t *pte, old, moved = UINT64_C(0x3456789000);

	ck_assert_int_eq(pt_capture_load(lc, tu_fixture("x86-64-4level.tar.gz")), PT_OK);
	lc->live = &fake_live;
	ck_assert(pt_capture_is_live(lc));
	lx = pt_pa_index_new(lc);
	ctx = pt_capture_context_find(lc, "cpu0");
	pt_pages_init(&it, ctx, 0, NULL);
	ck_assert(pt_pages_next(&it, &pg));
	ck_assert_uint_eq(pg.size, 4096);
	ck_assert_int_eq(pt_pa_lookup(lx, pg.space, pg.pa, &h, &n, &inc), PT_OK);
	ck_assert_uint_ge(n, 1);
	free(h);
	ck_assert_uint_eq(pt_pa_index_builds(lx), 1);
	for (unsigned i = 0; i < 20; i++) {
		ck_assert_int_eq(pt_pa_lookup(lx, pg.space, pg.pa + i * 8, &h, &n, &inc), PT_OK);
		ck_assert_uint_ge(n, 1);
		free(h);
	}
	ck_assert_int_eq(pt_pa_lookup(lx, pg.space, moved, &h, &n, &inc), PT_OK);
	ck_assert_uint_eq(n, 0);
	ck_assert_uint_eq(pt_pa_index_builds(lx), 1);   /* the tables did not change: kept */
	/* the guest moves the page: its PTE (Intel SDM vol. 3A table 4-19, bits 51:12) */
	ck_assert_int_eq(pt_walk_va(ctx, pg.va, &w), PT_OK);
	pte = (uint64_t *)(uintptr_t)pt_mem_direct(pt_capture_mem(lc),
						   pt_context_space(ctx, w.steps[w.leaf_step].table.space),
						   w.steps[w.leaf_step].entry_pa, 8);
	ck_assert_ptr_nonnull(pte);
	old = *pte;
	*pte = (old & ~UINT64_C(0x000ffffffffff000)) | moved;
	ck_assert_int_eq(pt_pa_lookup(lx, pg.space, moved, &h, &n, &inc), PT_OK);
	ck_assert_uint_eq(pt_pa_index_builds(lx), 2);
	ck_assert_uint_ge(n, 1);
	ck_assert_ptr_eq(h[0].ctx, ctx);
	ck_assert_uint_eq(h[0].va, pg.va);
	free(h);
	ck_assert_int_eq(pt_pa_lookup(lx, pg.space, moved + 8, &h, &n, &inc), PT_OK);
	free(h);
	ck_assert_uint_eq(pt_pa_index_builds(lx), 2);
	*pte = old;
	pt_pa_index_free(lx);
	lc->live = NULL;
	pt_capture_free(lc);
}
END_TEST

/* A capture of a file: built once, whatever happens. */
START_TEST(test_file_once)
{
	struct pt_pa_hit *h;
	size_t n;
	bool inc;

	for (unsigned i = 0; i < 5; i++) {
		ck_assert_int_eq(pt_pa_lookup(ix, 0, 0x10001234 + i, &h, &n, &inc), PT_OK);
		free(h);
	}
	ck_assert_uint_eq(pt_pa_index_builds(ix), 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pa");
	TCase *tc = tcase_create("lookup");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_aliases);
	tcase_add_test(tc, test_unmapped);
	tcase_add_test(tc, test_render);
	tcase_add_test(tc, test_threads);
	tcase_add_test(tc, test_file_once);
	tcase_add_test(tc, test_live_reuse);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
