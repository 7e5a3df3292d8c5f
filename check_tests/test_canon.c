/*
 * test_canon: canonical 64-bit VAs (issue #21 item 4) through a throwaway
 * format defined here and never shipped: 4 levels of 512 8-byte entries,
 * 48 significant VA bits sign-extended to 64 (the shape of x86-64 4-level
 * paging, SDM vol. 3A §4.5, without its bits).  The walker, the page
 * iterator, the runs, the tree (names, order, lookups, cookies) and the
 * inherited rights must all work for it with no format-specific code.
 *
 * The test format's entry: bit 0 valid, bit 1 leaf (directory levels), bit 2
 * read-only, bit 3 no-execute, address 47:12.  Its pointers pass read-only
 * down (ORed) and execute (ANDed): perm_or_down / perm_and_down.
 */
#include <stdio.h>
#include <string.h>

#include "pt_mem.h"
#include "pt_render.h"
#include "pt_runs.h"
#include "pt_tree.h"
#include "pt_walk.h"
#include "testutil.h"

static const struct pt_level canon_levels[] = {
	{"top", 0, 39, 9, 8, PT_ROLE_DIR, 0, {1, -1}},
	{"mid", 1, 30, 9, 8, PT_ROLE_DIR, 30, {2, -1}},
	{"low", 2, 21, 9, 8, PT_ROLE_DIR, 21, {3, -1}},
	{"leaf", 3, 12, 9, 8, PT_ROLE_LEAF, 0, {-1, -1}},
	{NULL, 0, 0, 0, 0, 0, 0, {-1, -1}},
};
static const char *const canon_spaces[] = {"sysmem", NULL};

static pt_err canon_decode(unsigned level, unsigned page_shift, const uint8_t *raw,
			   unsigned flags, struct pt_entry *e)
{
	uint64_t r;

	(void)page_shift;
	if (level > 3)
		return PT_E_UNSUPPORTED;
	pt_entry_reset(e, 8, raw, flags);
	r = e->raw[0];
	pt_entry_add(e, "valid", PT_FK_BIT, r & 1);
	e->perm = (r & 4 ? PT_PERM_NO_WRITE : 0) | (r & 8 ? 0 : PT_PERM_EXEC);
	if (!(r & 1)) {
		e->state = r ? PT_ST_INVALID : PT_ST_UNMAPPED;
		return PT_OK;
	}
	if (level == 3 || (level > 0 && (r & 2))) {
		e->state = PT_ST_MAPPED;
		e->leaf = true;
		e->pa = r & 0x0000fffffffff000ull;
		e->address_complete = true;
		return PT_OK;
	}
	e->state = PT_ST_POINTER;
	e->target[0].present = true;
	e->target[0].level = (int8_t)(level + 1);
	e->target[0].addr = r & 0x0000fffffffff000ull;
	return PT_OK;
}

static void canon_flags(const struct pt_entry *e, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", e->perm & PT_PERM_NO_WRITE ? "ro" : "rw",
		 e->perm & PT_PERM_EXEC ? ",x" : "");
}

static const struct pt_format canon_fmt = {
	.name = "canon48",
	.levels = canon_levels,
	.va_bits = 48,
	.va_digits = 16,
	.va_canonical = true,
	.spaces = canon_spaces,
	.decode = canon_decode,
	.flags = canon_flags,
	.perm_or_down = PT_PERM_NO_WRITE,
	.perm_and_down = PT_PERM_EXEC,
};

/* The same levels, not canonical. */
static const struct pt_format plain48 = {.name = "plain48", .levels = canon_levels, .va_bits = 48};

/*
 * sysmem 0..0x10000: top at 0x1000.
 *   top[0]   -> mid 0x2000 -> low 0x3000 -> leaf 0x4000: [1] = 0x100000 (VA 0x1000)
 *   top[511] (read-only) -> mid 0x5000: [511] -> low 0x6000: [511] 2 MiB leaf 0x40000000
 *            (VA 0xffffffffffe00000, the top page of the space); [0] -> leaf 0x7000:
 *            [2] = 0x200000 no-execute (VA 0xffffffffc0002000)
 *   top[256] -> 0x20000, outside the capture: a not_captured range at the start of
 *            the high half, 0xffff800000000000
 */
static struct pt_mem *mem;
static struct pt_context ctx;
static uint8_t img[0x10000];

static void put(uint64_t pa, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		img[pa + (uint64_t)i] = (uint8_t)(v >> (8 * i));
}

static void build(void)
{
	unsigned id;

	memset(img, 0, sizeof img);
	put(0x1000 + 0 * 8, 0x2000 | 1);
	put(0x2000 + 0 * 8, 0x3000 | 1);
	put(0x3000 + 0 * 8, 0x4000 | 1);
	put(0x4000 + 1 * 8, 0x100000 | 1);
	put(0x1000 + 511 * 8, 0x5000 | 4 | 1);
	put(0x5000 + 511 * 8, 0x6000 | 1);
	put(0x6000 + 511 * 8, 0x40000000 | 2 | 1);
	put(0x6000 + 0 * 8, 0x7000 | 1);
	put(0x7000 + 2 * 8, 0x200000 | 8 | 1);
	put(0x1000 + 256 * 8, 0x20000 | 1);
	mem = pt_mem_new(1);
	ck_assert_int_eq(pt_mem_add_built(mem, 0, 0, sizeof img, &id), PT_OK);
	pt_mem_region_write(mem, id, 0, img, sizeof img);
	ck_assert_int_eq(pt_mem_seal(mem, NULL, NULL), PT_OK);
	memset(&ctx, 0, sizeof ctx);
	ctx.name = "cpu0";
	ctx.fmt = &canon_fmt;
	ctx.mem = mem;
	ctx.root_addr = 0x1000;
	ctx.root_entries = 512;
}

static void teardown(void)
{
	pt_mem_free(mem);
	mem = NULL;
}

START_TEST(va_space)
{
	const struct pt_format *f = &canon_fmt;

	ck_assert(pt_va_in_space(f, 0));
	ck_assert(pt_va_in_space(f, 0x00007fffffffffffull));
	ck_assert(!pt_va_in_space(f, 0x0000800000000000ull));
	ck_assert(!pt_va_in_space(f, 0xffff7fffffffffffull));
	ck_assert(pt_va_in_space(f, 0xffff800000000000ull));
	ck_assert(pt_va_in_space(f, UINT64_MAX));
	ck_assert_uint_eq(pt_va_slot(f, 0xffff888000000000ull), 0x888000000000ull);
	ck_assert_uint_eq(pt_va_at(f, 0x888000000000ull), 0xffff888000000000ull);
	/* the hole orders after the low half: its slot is the high half's first */
	ck_assert_uint_eq(pt_va_slot(f, 0x0000800000000000ull), 0x800000000000ull);
	ck_assert_uint_eq(pt_va_slot(f, 0xffff7fffffffffffull), 0x800000000000ull);
	ck_assert_uint_eq(pt_va_slot_last(f), 0xffffffffffffull);
	/* a plain 48-bit format: slots are VAs, nothing at or above 2^48 */
	ck_assert_uint_eq(pt_va_slot(&plain48, 0xffff888000000000ull), 0xffff888000000000ull);
	ck_assert(pt_va_in_space(&plain48, 0xffffffffffffull));
	ck_assert(!pt_va_in_space(&plain48, 0x1000000000000ull));
}
END_TEST

START_TEST(walk_canonical)
{
	struct pt_walk w;

	build();
	ck_assert_int_eq(pt_walk_va(&ctx, 0x1234, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_NONE);
	ck_assert_uint_eq(w.pa, 0x100234);
	ck_assert_uint_eq(w.page_va, 0x1000);
	/* the 2 MiB top page: indices 511/511/511, VA sign-extended */
	ck_assert_int_eq(pt_walk_va(&ctx, 0xffffffffffe01234ull, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_NONE);
	ck_assert_uint_eq(w.nsteps, 3);
	ck_assert_uint_eq(w.steps[0].index, 511);
	ck_assert_uint_eq(w.page_va, 0xffffffffffe00000ull);
	ck_assert_uint_eq(w.page_size, 0x200000);
	ck_assert_uint_eq(w.pa, 0x40001234);
	/* read-only from the top pointer: the leaf's rights are the path's */
	ck_assert(w.perm & PT_PERM_NO_WRITE);
	ck_assert(w.perm & PT_PERM_EXEC);
	ck_assert_int_eq(pt_walk_va(&ctx, 0xffffffffc0002fffull, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_NONE);
	ck_assert_uint_eq(w.pa, 0x200fff);
	ck_assert(w.perm & PT_PERM_NO_WRITE);
	ck_assert(!(w.perm & PT_PERM_EXEC));
	/* non-canonical: faults before any table is read */
	ck_assert_int_eq(pt_walk_va(&ctx, 0x0000800000000000ull, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_NONCANONICAL);
	ck_assert_uint_eq(w.nsteps, 0);
	ck_assert_int_eq(w.fault_step, -1);
	ck_assert_str_eq(pt_fault_name(w.fault), "noncanonical");
	ck_assert_int_eq(pt_walk_va(&ctx, 0xfffe800000001000ull, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_NONCANONICAL);
	/* the uncaptured table at the start of the high half */
	ck_assert_int_eq(pt_walk_va(&ctx, 0xffff800000000000ull, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_NOT_CAPTURED);
	ck_assert_uint_eq(w.steps[0].index, 256);
}
END_TEST

START_TEST(pages_in_order)
{
	static const uint64_t want[] = {0x1000, 0xffffffffc0002000ull, 0xffffffffffe00000ull};
	struct pt_page_iter it;
	struct pt_page pg;
	size_t n = 0;

	build();
	pt_pages_init(&it, &ctx, 0, NULL);
	while (pt_pages_next(&it, &pg)) {
		ck_assert_uint_lt(n, 3);
		ck_assert_uint_eq(pg.va, want[n]);
		n++;
	}
	ck_assert_uint_eq(n, 3);
	/* from a VA in the hole: the high half's pages */
	pt_pages_init(&it, &ctx, 0x0000900000000000ull, NULL);
	ck_assert(pt_pages_next(&it, &pg));
	ck_assert_uint_eq(pg.va, want[1]);
	ck_assert(!(pg.leaf.perm & PT_PERM_EXEC));
	ck_assert(pg.leaf.perm & PT_PERM_NO_WRITE);
	pt_pages_init(&it, &ctx, 0xffffffffc0003000ull, NULL);
	ck_assert(pt_pages_next(&it, &pg));
	ck_assert_uint_eq(pg.va, want[2]);
	ck_assert(!pt_pages_next(&it, &pg));
}
END_TEST

/* maps: the runs in unsigned order, the hole and the not-captured range named, the top page's end wraps. */
START_TEST(runs_canonical)
{
	struct pt_buf b;
	struct pt_runs_filter f;
	struct pt_runs_iter it;
	struct pt_run r;
	int n = 0;

	build();
	pt_buf_init(&b);
	ck_assert_int_eq(pt_render_maps(&b, &ctx, PT_OUT_TEXT, NULL), PT_OK);
	ck_assert_ptr_nonnull(strstr(b.data, "0x0000000000001000-0x0000000000002000     4K   4K sysmem  "
					     "0x0000000000100000 rw,x -\n"));
	ck_assert_ptr_nonnull(strstr(b.data, "0xffffffffc0002000-0xffffffffc0003000     4K   4K sysmem  "
					     "0x0000000000200000 ro -\n"));
	ck_assert_ptr_nonnull(strstr(b.data, "0xffffffffffe00000-0x0000000000000000     2M   2M sysmem  "
					     "0x0000000040000000 ro,x -\n"));
	pt_buf_free(&b);
	pt_runs_filter_init(&f);
	f.all = true;
	pt_runs_init(&it, &ctx, &f, NULL);
	while (pt_runs_next(&it, &r)) {
		if (!r.mapped && !strcmp(r.state, "noncanonical")) {
			ck_assert_uint_eq(r.va, 0x0000800000000000ull);
			ck_assert_uint_eq(r.end, 0xffff800000000000ull);
			n |= 1;
		}
		if (!r.mapped && !strcmp(r.state, "not_captured")) {
			ck_assert_uint_eq(r.va, 0xffff800000000000ull);
			ck_assert_uint_eq(r.end, 0xffff808000000000ull);
			n |= 2;
		}
	}
	ck_assert_int_eq(n, 3);
}
END_TEST

struct names {
	char name[8][40];
	uint64_t cookie[8];
	int n, stop;
};

static bool collect(void *ud, const char *name, const struct pt_tnode *child, uint64_t next)
{
	struct names *l = ud;

	(void)child;
	snprintf(l->name[l->n], sizeof l->name[0], "%s", name);
	l->cookie[l->n] = next;
	l->n++;
	return l->n != l->stop && l->n < 8;
}

/*
 * The tree over a loaded capture whose context is pointed at the test
 * format: va/ names with 16 digits in unsigned order, resumed from any
 * cookie, lookups of any VA inside a page in any case, walk/ of a
 * non-canonical VA.
 */
START_TEST(tree_canonical)
{
	struct pt_capture *cap = pt_capture_new();
	struct pt_context *c;
	struct pt_tree *tree;
	struct pt_tnode root, cdir, vadir, link, wdir, wfile;
	struct names l = {0};
	struct pt_buf b;
	char target[256];

	build();
	ck_assert_int_eq(pt_capture_load(cap, tu_fixture("turing-mixed.tar.gz")), PT_OK);
	c = (struct pt_context *)pt_capture_context(cap, 0);
	c->fmt = &canon_fmt;
	c->mem = mem;
	c->root_space = 0;
	c->root_addr = 0x1000;
	c->root_entries = 512;
	c->va_base = c->va_last = 0;
	c->serial = 0;   /* no resolve cache: the context changed under the capture */
	ck_assert_int_eq(pt_tree_new(cap, false, &tree), PT_OK);
	pt_tree_root(&root);
	ck_assert_int_eq(pt_tree_lookup(tree, &root, c->name, &cdir), PT_OK);
	ck_assert_int_eq(pt_tree_lookup(tree, &cdir, "va", &vadir), PT_OK);
	ck_assert_int_eq(pt_tree_list(tree, &vadir, 0, collect, &l, NULL), PT_OK);
	ck_assert_int_eq(l.n, 3);
	ck_assert_str_eq(l.name[0], "0x0000000000001000");
	ck_assert_str_eq(l.name[1], "0xffffffffc0002000");
	ck_assert_str_eq(l.name[2], "0xffffffffffe00000");
	/* resumed after each name: the rest, the top page's cookie does not wrap */
	for (int k = 0; k < 3; k++) {
		struct names m = {0};

		ck_assert_int_eq(pt_tree_list(tree, &vadir, l.cookie[k], collect, &m, NULL), PT_OK);
		ck_assert_int_eq(m.n, 2 - k);
		if (m.n)
			ck_assert_str_eq(m.name[0], l.name[k + 1]);
	}
	ck_assert_int_eq(pt_tree_lookup(tree, &vadir, "0xFFFFFFFFC0002ABC", &link), PT_OK);
	ck_assert_uint_eq(link.va, 0xffffffffc0002000ull);
	ck_assert_int_eq(pt_tree_readlink(tree, &link, target, sizeof target), PT_OK);
	ck_assert_str_eq(target, "../top/511/mid/511/low/0/leaf/2");
	ck_assert_int_eq(pt_tree_lookup(tree, &vadir, "ffffffffffffffff", &link), PT_OK);
	ck_assert_uint_eq(link.va, 0xffffffffffe00000ull);
	ck_assert_int_eq(pt_tree_lookup(tree, &vadir, "0x800000000000", &link), PT_E_NOTFOUND);
	ck_assert_int_eq(pt_tree_lookup(tree, &vadir, "0x2000", &link), PT_E_NOTFOUND);
	ck_assert_int_eq(pt_tree_lookup(tree, &cdir, "walk", &wdir), PT_OK);
	ck_assert_int_eq(pt_tree_lookup(tree, &wdir, "0x0000800000000000", &wfile), PT_OK);
	pt_buf_init(&b);
	ck_assert_int_eq(pt_tree_render(tree, &wfile, &b, NULL), PT_OK);
	ck_assert_ptr_nonnull(strstr(b.data, "va: 0x0000800000000000\nresult: fault=noncanonical\n"));
	pt_buf_free(&b);
	pt_tree_free(tree);
	pt_capture_free(cap);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("canon");
	TCase *tc = tcase_create("canonical");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, va_space);
	tcase_add_test(tc, walk_canonical);
	tcase_add_test(tc, pages_in_order);
	tcase_add_test(tc, runs_canonical);
	tcase_add_test(tc, tree_canonical);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
