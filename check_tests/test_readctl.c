/*
 * test_readctl: the read control (struct pt_readctl, pt_walk.h) is the
 * caller's, per call.  Two reads on one thread, each with its own work bound
 * or cancel check, interleaved entry by entry, do not affect each other; a
 * read with NULL is never cut; a used struct leaves nothing behind for the
 * next one (issue 21 item 3: no hidden parameters).
 */
#include <stdlib.h>
#include <string.h>

#include "pt_capture.h"
#include "pt_walk.h"
#include "synth.h"
#include "testutil.h"

/* gart-cosim's flat GART root: 1536 captured entries, listed one by one with all_entries. */
static struct pt_capture *cap;
static const struct pt_context *gart;

/*
 * And synth.c's VER2 context with 256 dual PDE0 entries aliasing one small
 * table of 512 mapped PTEs: 131072 pages, more than 4096 units of work,
 * so that a cancel check is asked many times.
 */
#define ALIAS_PAGES (256 * 512)

static void setup(void)
{
	cap = pt_capture_new();
	ck_assert_ptr_nonnull(cap);
	ck_assert_msg(pt_capture_load(cap, tu_fixture("gart-cosim.tar.gz")) == PT_OK, "%s",
		      pt_capture_error(cap));
	gart = pt_capture_context(cap, 0);
	ck_assert_ptr_nonnull(gart);
	build_ver2();
	synth_clear();
	put64(PD3, pde_vid(PD2));
	put64(PD2, pde_vid(PD1));
	put64(PD1, pde_vid(PD0));
	for (int i = 0; i < 256; i++)
		put64(PD0 + 16 * i + 8, dual_small_vid(PTS));
	for (int i = 0; i < 512; i++)
		put64(PTS + 8 * i, pte(2, 0x10000000ull + 0x1000ull * i, 0));
	synth_reload();
}

static void teardown_all(void)
{
	pt_capture_free(cap);
	cap = NULL;
	gart = NULL;
	teardown();
}

/* Entries of the GART root listed (all_entries) under RC, to the end or until RC stops it. */
static uint64_t list_all(struct pt_readctl *rc)
{
	struct pt_table t;
	struct pt_entry e;
	uint64_t n = 0;

	pt_table_root(gart, &t);
	for (uint64_t i = 0; pt_table_next(&t, &i, true, 0, &e, rc); i++)
		n++;
	return n;
}

/* Pages of the aliased synth context under RC. */
static uint64_t pages_all(struct pt_readctl *rc)
{
	struct pt_page_iter it;
	struct pt_page pg;
	uint64_t n = 0;

	pt_pages_init(&it, &ctx, 0, rc);
	while (pt_pages_next(&it, &pg))
		n++;
	return n;
}

/* One step of a listing: false at its end (or when its RC stopped it). */
struct lister {
	struct pt_table t;
	uint64_t i, n;
	bool done;
	struct pt_readctl *rc;
};

static void lister_init(struct lister *l, struct pt_readctl *rc)
{
	pt_table_root(gart, &l->t);
	l->i = l->n = 0;
	l->done = false;
	l->rc = rc;
}

static bool lister_step(struct lister *l)
{
	struct pt_entry e;

	if (l->done || !pt_table_next(&l->t, &l->i, true, 0, &e, l->rc)) {
		l->done = true;
		return false;
	}
	l->i++;
	l->n++;
	return true;
}

START_TEST(test_null_never_stops)
{
	uint64_t all = list_all(NULL);

	ck_assert_uint_eq(all, 1536);
	ck_assert_uint_eq(pages_all(NULL), ALIAS_PAGES);
	ck_assert(!pt_readctl_poll(NULL));
	ck_assert(!pt_readctl_cancelled(NULL));
}
END_TEST

START_TEST(test_budget_per_call)
{
	struct pt_readctl a, b, c;
	struct lister la, lb;
	uint64_t all = list_all(NULL);

	/* A bounded at 100 units, B unbounded, read in turns on this thread. */
	pt_readctl_init(&a, NULL, NULL, 100);
	pt_readctl_init(&b, NULL, NULL, 0);
	lister_init(&la, &a);
	lister_init(&lb, &b);
	while (!la.done || !lb.done) {
		lister_step(&la);
		lister_step(&lb);
	}
	ck_assert_uint_eq(la.n, 100);
	ck_assert(a.cut);
	ck_assert(!a.cancelled);
	ck_assert_uint_eq(lb.n, all);
	ck_assert(!b.cut);
	ck_assert_uint_eq(b.work_left, UINT64_MAX);
	/* A cut read leaves nothing behind: the next read has its own bound. */
	pt_readctl_init(&c, NULL, NULL, 100);
	ck_assert_uint_eq(list_all(&c), 100);
	ck_assert_uint_eq(list_all(NULL), all);
	pt_readctl_init(&c, NULL, NULL, 0);
	ck_assert_uint_eq(list_all(&c), all);
	ck_assert(!c.cut);
}
END_TEST

static unsigned asked_stop, asked_go;

static bool always_stop(void *ud)
{
	ck_assert_ptr_eq(ud, &asked_stop);
	asked_stop++;
	return true;
}

static bool never_stop(void *ud)
{
	ck_assert_ptr_eq(ud, &asked_go);
	asked_go++;
	return false;
}

START_TEST(test_cancel_per_call)
{
	struct pt_readctl a, b;
	struct pt_page_iter ia, ib;
	struct pt_page pg;
	uint64_t na = 0, nb = 0;
	bool more_a = true, more_b = true;

	asked_stop = asked_go = 0;
	pt_readctl_init(&a, always_stop, &asked_stop, 0);
	pt_readctl_init(&b, never_stop, &asked_go, 0);
	pt_pages_init(&ia, &ctx, 0, &a);
	pt_pages_init(&ib, &ctx, 0, &b);
	while (more_a || more_b) {
		if (more_a && (more_a = pt_pages_next(&ia, &pg)))
			na++;
		if (more_b && (more_b = pt_pages_next(&ib, &pg)))
			nb++;
	}
	/* A's check is asked once, at its 4096th unit, and A ends there. */
	ck_assert_uint_eq(asked_stop, 1);
	ck_assert(pt_readctl_cancelled(&a));
	ck_assert_uint_lt(na, 4096);
	/* B is asked every 4096 of its own units, says go, and streams every page. */
	ck_assert_uint_eq(nb, ALIAS_PAGES);
	ck_assert(!pt_readctl_cancelled(&b));
	ck_assert_uint_ge(asked_go, ALIAS_PAGES / 4096);
	/* the cancelled A does not cancel a read that comes after it */
	ck_assert_uint_eq(pages_all(NULL), ALIAS_PAGES);
	pt_readctl_init(&b, never_stop, &asked_go, 0);
	ck_assert_uint_eq(pages_all(&b), ALIAS_PAGES);
}
END_TEST

START_TEST(test_scan_per_call)
{
	struct pt_readctl a, b;
	struct pt_stats st;

	/* the caller's bound applies on top of the scan's own */
	pt_readctl_init(&a, NULL, NULL, 10);
	ck_assert_int_eq(pt_context_scan(gart, &st, NULL, NULL, &a), PT_OK);
	ck_assert(st.tables_truncated);
	ck_assert(a.cut);
	ck_assert_uint_eq(a.work_left, 0);
	/* another read control on the same thread: a whole scan, the caller's RC untouched by the scan's bound */
	pt_readctl_init(&b, NULL, NULL, 0);
	ck_assert_int_eq(pt_context_scan(gart, &st, NULL, NULL, &b), PT_OK);
	ck_assert(!st.tables_truncated);
	ck_assert(!st.pages_truncated);
	ck_assert_uint_eq(st.pages, 389);
	ck_assert(!b.cut);
	ck_assert_uint_eq(b.work_left, UINT64_MAX);
	ck_assert_int_eq(pt_context_scan(gart, &st, NULL, NULL, NULL), PT_OK);
	ck_assert(!st.tables_truncated);
	ck_assert_uint_eq(st.pages, 389);
}
END_TEST

START_TEST(test_pages_per_call)
{
	struct pt_readctl a, b;
	struct pt_page_iter ia, ib;
	struct pt_page pg;
	uint64_t na = 0, nb = 0, all = 0;
	bool more_a = true, more_b = true;

	all = pages_all(NULL);
	ck_assert_uint_eq(all, ALIAS_PAGES);
	pt_readctl_init(&a, NULL, NULL, 5000);
	pt_readctl_init(&b, NULL, NULL, 0);
	pt_pages_init(&ia, &ctx, 0, &a);
	pt_pages_init(&ib, &ctx, 0, &b);
	while (more_a || more_b) {
		if (more_a && (more_a = pt_pages_next(&ia, &pg)))
			na++;
		if (more_b && (more_b = pt_pages_next(&ib, &pg)))
			nb++;
	}
	ck_assert(a.cut);
	ck_assert_uint_gt(na, 4000);
	ck_assert_uint_lt(na, 5000);
	ck_assert(!b.cut);
	ck_assert_uint_eq(nb, all);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("readctl");
	TCase *tc = tcase_create("per_call");

	tcase_add_checked_fixture(tc, setup, teardown_all);
	tcase_add_test(tc, test_null_never_stops);
	tcase_add_test(tc, test_budget_per_call);
	tcase_add_test(tc, test_cancel_per_call);
	tcase_add_test(tc, test_scan_per_call);
	tcase_add_test(tc, test_pages_per_call);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
