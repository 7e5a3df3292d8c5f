/* SPDX-License-Identifier: MIT */
/*
 * test_nested_arm64.c — the arm64-guest fixture (fixtures/mkf_a64guest.c):
 * an arm64 stage-1 context whose tables and output are in `ipa`, and
 * `[space ipa] translate = vm`, an arm64 stage-2 context in `pa`.
 *
 * Every VA of arm64-guest.expect is walked through both stages and checked
 * twice: against the .expect line the encoder wrote, and against the
 * composition of two one-stage walks done here by hand.  For the latter
 * the guest's IPA memory is laid out flat in a capture of its own, one
 * [memory] window per IPA page the stage-2 context alone maps readably
 * (its bytes read from the fixture's pa memory at that walk's result):
 * the guest walked there, then the stage-2 context at its result.  Also:
 * every stage-2 fault kind at a table read and at the final page, maps'
 * FINAL column, pa/ at a final address, and crosscheck of a stage-1 block
 * that spans stage-2 pages (final addresses compared piece by piece).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_buf.h"
#include "pt_capture.h"
#include "pt_mem.h"
#include "pt_pa.h"
#include "pt_render.h"
#include "pt_runs.h"
#include "pt_walk.h"
#include "pt_xcheck.h"
#include "testutil.h"

#define IPA_LEN 0x400000u        /* IPA 0..4M: the stage-2 pages and the 2 MiB block */
/* The guest's [arm64] keys as the fixture writes them (mkf_a64guest.c TCR) */
#define GUEST_KEYS "ttbr = 0x1000\nhalf = lower\ntcr = 0x580100019\nspace = ipa\n"

static struct pt_capture *load_fixture(void)
{
	struct pt_capture *c = pt_capture_new();

	ck_assert_msg(pt_capture_load(c, tu_fixture("arm64-guest.tar.gz")) == PT_OK, "%s",
		      pt_capture_error(c));
	return c;
}

static const struct pt_context *ctx(const struct pt_capture *c, const char *name)
{
	const struct pt_context *x = pt_capture_context_find(c, name);

	ck_assert_msg(x != NULL, "no context %s", name);
	return x;
}

struct flat {
	char *dir;
	struct pt_capture *c;
	unsigned pages;     /* IPA pages laid out */
};

/* The guest alone, its IPA memory what stage 2 alone maps readably (see the top comment). */
static struct flat flat_build(const struct pt_capture *nest)
{
	const struct pt_context *vm = ctx(nest, "vm");
	uint8_t *ipa = calloc(1, IPA_LEN);
	struct pt_buf ini;
	struct flat fl = {0};

	ck_assert_ptr_nonnull(ipa);
	pt_buf_init(&ini);
	pt_buf_puts(&ini, "[capture]\nversion = 1\nformat = arm64\n\n");
	for (uint64_t a = 0; a < IPA_LEN; a += 0x1000) {
		struct pt_walk w;

		pt_walk_va(vm, a, &w);
		if (w.fault != PT_FAULT_NONE || (w.perm & PT_PERM_NO_READ))
			continue;
		if (!pt_mem_read(pt_capture_mem(nest), pt_context_space(vm, w.space), w.pa, ipa + a, 0x1000))
			continue;   /* a stage-2 page whose host bytes are not captured */
		pt_buf_printf(&ini, "[memory p%" PRIx64 "]\nspace = ipa\nbase = 0x%" PRIx64
			      "\nfile = mem/ipa.bin\noffset = 0x%" PRIx64 "\nlength = 0x1000\n\n", a, a, a);
		fl.pages++;
	}
	pt_buf_puts(&ini, "[arm64 guest]\n" GUEST_KEYS);
	fl.dir = tu_mkdtemp();
	tu_write(fl.dir, "capture.ini", ini.data, ini.len);
	tu_write(fl.dir, "mem/ipa.bin", ipa, IPA_LEN);
	fl.c = pt_capture_new();
	ck_assert_msg(pt_capture_load(fl.c, fl.dir) == PT_OK, "%s", pt_capture_error(fl.c));
	pt_buf_free(&ini);
	free(ipa);
	return fl;
}

static void flat_free(struct flat *fl)
{
	pt_capture_free(fl->c);
	tu_rmtree(fl->dir);
	free(fl->dir);
}

/* One `guest` line of arm64-guest.expect. */
struct eline {
	uint64_t va;
	char what[16];          /* mapped / fault */
	char a[32], b[32];      /* mapped: space, IPA; fault: stage2:KIND or KIND, level */
	char size[8];
	char fspace[8];
	uint64_t fpa;
};

static unsigned read_expect(struct eline *e, unsigned max)
{
	FILE *f = fopen(tu_fixture("arm64-guest.expect"), "r");
	char line[512];
	unsigned n = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof line, f)) {
		struct eline *l = &e[n];

		if (strncmp(line, "guest ", 6) != 0)
			continue;
		ck_assert_uint_lt(n, max);
		memset(l, 0, sizeof *l);
		ck_assert_int_ge(sscanf(line, "guest %" SCNx64 " %15s %31s %31s %7s final %7s %" SCNx64, &l->va,
					l->what, l->a, l->b, l->size, l->fspace, &l->fpa), 4);
		n++;
	}
	fclose(f);
	return n;
}

/* The line's fault word as the walk gives it: KIND, or stage2:KIND. */
static void fault_word(const struct pt_walk *w, char *buf, size_t len)
{
	if (w->fault == PT_FAULT_STAGE2)
		snprintf(buf, len, "stage2:%s", pt_fault_name(w->s2.fault));
	else
		snprintf(buf, len, "%s", pt_fault_name(w->fault));
}

static const char *level_of(const struct pt_context *g, const struct pt_walk *w)
{
	return g->fmt->levels[w->steps[w->fault_step].table.level].name;
}

/* The kinds of stage-2 fault seen at a table read and at the final page. */
struct seen {
	unsigned table, page;   /* bit per enum pt_fault */
};

/*
 * VA's two-stage walk against the .expect line L and against the guest
 * walked flat (S1) then stage 2 at its result (S2).
 */
static void check_line(const struct pt_capture *nest, const struct flat *fl, const struct eline *l,
		       struct seen *seen)
{
	const struct pt_context *g = ctx(nest, "guest"), *vm = ctx(nest, "vm");
	struct pt_walk w, s1, s2;
	char fw[48];

	pt_walk_va(g, l->va, &w);
	pt_walk_va(ctx(fl->c, "guest"), l->va, &s1);
	if (!strcmp(l->what, "mapped")) {
		ck_assert_msg(w.fault == PT_FAULT_NONE, "va 0x%" PRIx64 ": %s", l->va, pt_fault_name(w.fault));
		ck_assert(w.translated);
		ck_assert_str_eq(pt_context_space_name(g, w.space), l->a);
		ck_assert_uint_eq(w.pa, strtoull(l->b, NULL, 16));
		ck_assert_str_eq(pt_capture_space_name(nest, w.final_space), l->fspace);
		ck_assert_uint_eq(w.final_pa, l->fpa);
		/* by hand: stage 1 alone, then stage 2 alone at its result */
		ck_assert_int_eq(s1.fault, PT_FAULT_NONE);
		ck_assert_uint_eq(s1.pa, w.pa);
		ck_assert_uint_eq(s1.page_size, w.page_size);
		pt_walk_va(vm, s1.pa, &s2);
		ck_assert_int_eq(s2.fault, PT_FAULT_NONE);
		ck_assert(!(s2.perm & PT_PERM_NO_READ));
		ck_assert_uint_eq(s2.pa, w.final_pa);
		ck_assert_str_eq(pt_context_space_name(vm, s2.space), l->fspace);
		return;
	}
	fault_word(&w, fw, sizeof fw);
	ck_assert_msg(!strcmp(fw, l->a), "va 0x%" PRIx64 ": %s, .expect %s", l->va, fw, l->a);
	ck_assert_str_eq(level_of(g, &w), l->b);
	if (w.fault != PT_FAULT_STAGE2) {
		/* a stage-1 fault: the flat walk faults the same way there */
		ck_assert_int_eq(s1.fault, w.fault);
		return;
	}
	ck_assert_ptr_eq(w.s2.ctx, vm);
	if (s1.fault == PT_FAULT_NONE) {
		/* the final page: stage 1 resolved, stage 2 refuses its result */
		ck_assert_int_eq(w.fault_step, w.leaf_step);
		ck_assert_uint_eq(w.s2.addr, s1.pa);
		pt_walk_va(vm, s1.pa, &s2);
		ck_assert_int_eq(w.s2.fault, s2.fault == PT_FAULT_NONE ? PT_FAULT_RIGHTS : s2.fault);
		seen->page |= 1u << w.s2.fault;
		return;
	}
	/* a table read: the flat capture lacks that IPA, stage 2 faults at the entry's address */
	ck_assert_int_eq(s1.fault, PT_FAULT_NOT_CAPTURED);
	ck_assert_int_eq(w.fault_step, s1.fault_step);
	ck_assert_uint_eq(w.s2.addr, s1.steps[s1.fault_step].entry_pa);
	pt_walk_va(vm, w.s2.addr, &s2);
	ck_assert_int_eq(w.s2.fault, s2.fault == PT_FAULT_NONE ? PT_FAULT_RIGHTS : s2.fault);
	seen->table |= 1u << w.s2.fault;
}

START_TEST(composed_walks)
{
	struct pt_capture *nest = load_fixture();
	struct flat fl = flat_build(nest);
	struct eline e[64];
	struct seen seen = {0};
	unsigned n = read_expect(e, 64), mapped = 0;
	/* every fault the arm64 walker gives at stage 2 (fmt_arm64.c), and rights (S2AP[0] clear) */
	const unsigned all = 1u << PT_FAULT_UNMAPPED | 1u << PT_FAULT_RIGHTS | 1u << PT_FAULT_UNSUPPORTED |
			     1u << PT_FAULT_NOT_CAPTURED | 1u << PT_FAULT_RESERVED_BITS |
			     1u << PT_FAULT_OUT_OF_RANGE;

	/* the 16 IPA pages, the block's two captured pages; never S2AP 00's */
	ck_assert_uint_eq(fl.pages, 18);
	ck_assert_uint_ge(n, 20);
	ck_assert_ptr_eq(pt_capture_space_translate(nest, (unsigned)pt_capture_space_find(nest, "ipa")),
			 ctx(nest, "vm"));
	for (unsigned i = 0; i < n; i++) {
		check_line(nest, &fl, &e[i], &seen);
		mapped += !strcmp(e[i].what, "mapped");
	}
	ck_assert_uint_ge(mapped, 6);
	ck_assert_msg(seen.table == all, "stage-2 kinds at a table read: 0x%x", seen.table);
	ck_assert_msg(seen.page == all, "stage-2 kinds at the final page: 0x%x", seen.page);
	flat_free(&fl);
	pt_capture_free(nest);
}
END_TEST

/* The stage-1 tables read through a stage-2 page and through the stage-2 block. */
START_TEST(table_reads_through_stage2)
{
	struct pt_capture *c = load_fixture();
	const struct pt_context *g = ctx(c, "guest");
	struct pt_walk w;
	struct pt_buf b;

	/* VA 1G: l1[1] -> l2 table at IPA 0x201000, inside the stage-2 2 MiB block */
	pt_walk_va(g, 0x40001234, &w);
	ck_assert_int_eq(w.fault, PT_FAULT_NONE);
	ck_assert_uint_eq(w.steps[1].table.addr, 0x201000);
	pt_buf_init(&b);
	ck_assert_int_eq(pt_render_walk(&b, g, &w, PT_OUT_TEXT), PT_OK);
	ck_assert_msg(strstr(b.data, "l2[0] ipa:0x201000 raw="), "%s", b.data);
	ck_assert_msg(strstr(b.data, "  context: vm va: 0x0000201000\n"), "%s", b.data);
	ck_assert_msg(strstr(b.data, "  result: mapped pa=pa:0x40201000 page=2M"), "%s", b.data);
	ck_assert_msg(strstr(b.data, "\nresult: mapped pa=ipa:0x201234 final=pa:0x40201234 page=2M"), "%s", b.data);
	pt_buf_free(&b);
	/* VA 0: l3 table at IPA 0x3000, a stage-2 page (pa 0x40013000) */
	pt_walk_va(g, 0x0, &w);
	pt_buf_init(&b);
	ck_assert_int_eq(pt_render_walk(&b, g, &w, PT_OUT_TEXT), PT_OK);
	ck_assert_msg(strstr(b.data, "  l3[3] pa:0x40002018 raw="), "%s", b.data);
	ck_assert_msg(strstr(b.data, "  result: mapped pa=pa:0x40013000 page=4K"), "%s", b.data);
	pt_buf_free(&b);
	pt_capture_free(c);
}
END_TEST

/* ---- maps FINAL, pa/ and crosscheck through the stack ------------------------ */

START_TEST(maps_final)
{
	struct pt_capture *c = load_fixture();
	const struct pt_context *g = ctx(c, "guest");
	struct pt_runs_filter f;
	struct pt_runs_iter it;
	struct pt_run r;
	struct pt_buf b;
	unsigned n = 0, faults = 0;

	pt_runs_filter_init(&f);
	pt_runs_init(&it, g, &f, NULL);
	pt_buf_init(&b);
	while (pt_runs_next(&it, &r)) {
		ck_assert(r.translated);
		faults += r.final_fault != PT_FAULT_NONE;
		pt_render_run(&b, g, &r, NULL, PT_OUT_TEXT);
		n++;
	}
	ck_assert_msg(strstr(b.data, "0x0000000000000000-0x0000000000001000     4K   4K ipa     "
			       "0x0000000000005000 ap_user,pxn 0 pa:0x0000000040015000\n"), "%s", b.data);
	ck_assert_msg(strstr(b.data, "0x0000000040000000-0x0000000040200000     2M   2M ipa     "
			       "0x0000000000200000 ap_user,pxn 0 pa:0x0000000040200000\n"), "%s", b.data);
	ck_assert_msg(strstr(b.data, " 0x0000008000000000 ap_user,pxn 0 stage2:out_of_range\n"), "%s", b.data);
	ck_assert_msg(strstr(b.data, " 0x0000000000011000 ap_user,pxn 0 stage2:rights\n"), "%s", b.data);
	/*
	 * The 2M block at VA 0x200000 (IPA 0) lies over stage-2 pages: cut
	 * into the pieces stage 2 gives it, IPA pages 0-15 contiguous, 16-18
	 * one fault each, page 19 away from the others, the rest unmapped.
	 */
	{
		static const char *const block[] = {
			"0x0000000000200000-0x0000000000210000    64K   2M ipa     0x0000000000000000 ap_user,pxn 0 pa:0x0000000040010000\n",
			"0x0000000000210000-0x0000000000211000     4K   2M ipa     0x0000000000010000 ap_user,pxn 0 stage2:unmapped\n",
			"0x0000000000211000-0x0000000000212000     4K   2M ipa     0x0000000000011000 ap_user,pxn 0 stage2:rights\n",
			"0x0000000000212000-0x0000000000213000     4K   2M ipa     0x0000000000012000 ap_user,pxn 0 stage2:unsupported\n",
			"0x0000000000213000-0x0000000000214000     4K   2M ipa     0x0000000000013000 ap_user,pxn 0 pa:0x0000000040030000\n",
			"0x0000000000214000-0x0000000000400000  1968K   2M ipa     0x0000000000014000 ap_user,pxn 0 stage2:unmapped\n",
		};
		const char *at = strstr(b.data, block[0]);

		for (size_t i = 0; i < sizeof block / sizeof block[0]; i++) {
			ck_assert_msg(at && !strncmp(at, block[i], strlen(block[i])), "block piece %zu: %s", i, b.data);
			at += strlen(block[i]);
		}
	}
	/*
	 * Six pages whose final page faults, one per stage-2 kind, and six
	 * that land; the block's pieces add four faulting runs and one more
	 * that lands.
	 */
	ck_assert_uint_eq(faults, 6 + 4);
	ck_assert_uint_eq(n, 12 + 5);
	pt_buf_free(&b);
	/* the stage-2 context's own runs are in pa, untranslated */
	pt_runs_init(&it, ctx(c, "vm"), &f, NULL);
	ck_assert(pt_runs_next(&it, &r));
	ck_assert(!r.translated);
	pt_capture_free(c);
}
END_TEST

START_TEST(pa_final)
{
	struct pt_capture *c = load_fixture();
	struct pt_pa_index *ix = pt_pa_index_new(c);
	struct pt_buf b;
	size_t found = 0;

	/* pa 0x40015123: the guest's page at VA 0 and its 2 MiB block at 2M (both IPA 0x5123), and vm's IPA */
	pt_buf_init(&b);
	ck_assert_int_eq(pt_render_pa(&b, ix, (unsigned)pt_capture_space_find(c, "pa"), 0x40015123,
				      PT_OUT_TEXT, &found), PT_OK);
	ck_assert_uint_eq(found, 3);
	ck_assert_msg(strstr(b.data, "guest 0x0000000000000123 l1/0/l2/0/l3/0 ap_user,pxn\n"), "%s", b.data);
	ck_assert_msg(strstr(b.data, "guest 0x0000000000205123 l1/0/l2/1 ap_user,pxn\n"), "%s", b.data);
	ck_assert_msg(strstr(b.data, "vm 0x0000005123 l1/0/l2/0/l3/5 "), "%s", b.data);
	pt_buf_free(&b);
	/*
	 * pa 0x40030000: IPA page 19, away from pages 0..15: the block at VA
	 * 2M lands there at 0x213000, not where its first byte's final
	 * address carried on would put it (0x220000, whose IPA faults)
	 */
	pt_buf_init(&b);
	ck_assert_int_eq(pt_render_pa(&b, ix, (unsigned)pt_capture_space_find(c, "pa"), 0x40030000,
				      PT_OUT_TEXT, &found), PT_OK);
	ck_assert_uint_eq(found, 2);
	ck_assert_msg(strstr(b.data, "guest 0x0000000000213000 l1/0/l2/1 ap_user,pxn\n"), "%s", b.data);
	ck_assert_msg(strstr(b.data, "vm 0x0000013000 l1/0/l2/0/l3/19 "), "%s", b.data);
	pt_buf_free(&b);
	/* pa 0x40020000: where the block would land if stage 2 were linear; IPA 0x10000 faults */
	pt_buf_init(&b);
	ck_assert_int_eq(pt_render_pa(&b, ix, (unsigned)pt_capture_space_find(c, "pa"), 0x40020000,
				      PT_OUT_TEXT, &found), PT_OK);
	ck_assert_uint_eq(found, 0);
	pt_buf_free(&b);
	pt_pa_index_free(ix);
	pt_capture_free(c);
}
END_TEST

struct lines {
	struct pt_xcheck_line l[16];
	unsigned n;
};

static int collect(void *ud, const struct pt_xcheck_line *l)
{
	struct lines *g = ud;

	ck_assert_uint_lt(g->n, 16);
	g->l[g->n++] = *l;
	return 0;
}

/*
 * The guest against itself over its 2 MiB block at VA 2M (IPA 0..2M):
 * stage 2 maps IPA 0..64K as 16 pages, then faults but for page 19, at
 * pa 0x40030000.  The final addresses compared are those of each stage-2
 * piece, not the block's first byte carried on: one same line of 64K,
 * one of page 19 at its own final address, nothing else.
 */
START_TEST(xcheck_block_over_stage2_pages)
{
	struct pt_capture *c = load_fixture();
	const struct pt_context *g = ctx(c, "guest");
	struct pt_xcheck_opts o;
	struct pt_xcheck_result res;
	struct lines got = {0};

	pt_xcheck_opts_init(&o);
	o.va_lo = 0x200000;
	o.va_hi = 0x3fffff;
	ck_assert_int_eq(pt_xcheck_run(g, g, &o, collect, &got, &res, NULL), PT_OK);
	ck_assert_uint_eq(got.n, 2);
	ck_assert_int_eq(got.l[0].verdict, PT_XC_SAME);
	ck_assert_uint_eq(got.l[0].va, 0x200000);
	ck_assert_uint_eq(got.l[0].last, 0x20ffff);
	ck_assert_str_eq(got.l[0].a.space, "pa");
	ck_assert_uint_eq(got.l[0].a.pa, 0x40010000);
	ck_assert_int_eq(got.l[1].verdict, PT_XC_SAME);
	ck_assert_uint_eq(got.l[1].va, 0x213000);
	ck_assert_uint_eq(got.l[1].last, 0x213fff);
	ck_assert_uint_eq(got.l[1].a.pa, 0x40030000);
	pt_capture_free(c);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("nested_arm64");
	TCase *tc = tcase_create("arm64-guest");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, composed_walks);
	tcase_add_test(tc, table_reads_through_stage2);
	tcase_add_test(tc, maps_final);
	tcase_add_test(tc, pa_final);
	tcase_add_test(tc, xcheck_block_over_stage2_pages);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
