/* SPDX-License-Identifier: MIT */
/*
 * test_nested.c — translated spaces (docs/design.md §2.8): a guest's x86-64
 * tables in `gpa` behind an EPT in `hpa`, built entry by entry from the
 * Intel SDM vol. 3C §29.3.2 layouts (EPT: R bit 0, W 1, X 2, memory type
 * 5:3, PS 7; x86-64: P 0, R/W 1, U/S 2, PS 7).
 *
 * The two-stage walks are checked against the composition of two one-stage
 * walks done here by hand: the guest walked in a capture where its gpa
 * memory is plain captured memory (the bytes the EPT maps, laid out flat),
 * then the EPT walked at that result.  Also every stage-2 fault kind, the
 * load errors (cycle, a fourth stage, unknown context, memory in a
 * translated space), maps' FINAL column and pa/ at the final address.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_capture.h"
#include "pt_pa.h"
#include "pt_render.h"
#include "pt_runs.h"
#include "pt_walk.h"
#include "testutil.h"

#define BIT(n) (1ull << (n))
/* EPT (SDM vol. 3C Table 29-6): read, write, execute, memory type 5:3, PS */
#define E_R BIT(0)
#define E_W BIT(1)
#define E_X BIT(2)
#define E_RWX (E_R | E_W | E_X)
#define E_MT(m) ((uint64_t)(m) << 3)
#define E_PS BIT(7)
/* x86-64 (SDM vol. 3A Table 4-19/20): P, R/W, U/S */
#define X_PRU (BIT(0) | BIT(1) | BIT(2))

#define HPA 0x200000u            /* the one captured region, in hpa */
#define HLEN 0x10000u
#define GPA_HOST 0x208000u       /* gpa page k lands at GPA_HOST + k * 4K, k = 0..7 */

static uint8_t hpa[HLEN];

static void put(uint64_t pa, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		hpa[pa - HPA + (uint64_t)i] = (uint8_t)(v >> (8 * i));
}

/* The guest's entry at gpa GPA (its page is in hpa through the EPT's identity-offset leaves). */
static void gput(uint64_t gpa, uint64_t v)
{
	put(GPA_HOST + gpa, v);
}

static void build(void)
{
	memset(hpa, 0, sizeof hpa);
	/* EPT: pml4 0x200000 -> pdpt 0x201000 -> pd 0x202000 -> pt 0x203000 */
	put(0x200000, 0x201000 | E_RWX);
	put(0x201000, 0x202000 | E_RWX);
	put(0x202000, 0x203000 | E_RWX);
	for (unsigned k = 0; k < 8; k++)
		put(0x203000 + 8 * k, (GPA_HOST + k * 0x1000ull) | E_MT(6) | E_RWX);
	/* gpa 0x9000: EPT pt[9] zero (unmapped) */
	put(0x203000 + 8 * 10, 0x20e000 | E_MT(2) | E_RWX);     /* memory type 2: unsupported */
	put(0x203000 + 8 * 11, 0x20f000 | E_MT(6) | E_X);       /* execute-only: no read (rights) */
	put(0x202000 + 8 * 1, 0x500000 | E_RWX);                /* gpa 2M..4M: its table not captured */
	/* gpa 4M..6M: a 2 MiB leaf with bit 13 set, reserved in a 2M leaf (SDM Table 29-4) */
	put(0x202000 + 8 * 2, 0x400000 | BIT(13) | E_PS | E_MT(6) | E_RWX);

	/* guest: cr3 gpa 0x1000 -> pdpt 0x2000 -> pd 0x3000 -> pt 0x4000 */
	gput(0x1000, 0x2000 | X_PRU);
	gput(0x2000, 0x3000 | X_PRU);
	gput(0x3000, 0x4000 | X_PRU);
	gput(0x3000 + 8, 0x9000 | X_PRU);        /* va 2M..4M: its pt at gpa 0x9000, unmapped in the EPT */
	gput(0x4000 + 8 * 1, 0x6000 | X_PRU);
	gput(0x4000 + 8 * 2, 0x7000 | X_PRU);
	gput(0x4000 + 8 * 5, 0x5000 | X_PRU);
	gput(0x4000 + 8 * 6, 0x9000 | X_PRU);     /* stage 2: unmapped */
	gput(0x4000 + 8 * 7, 0xa000 | X_PRU);     /* stage 2: unsupported */
	gput(0x4000 + 8 * 8, 0xb000 | X_PRU);     /* stage 2: rights */
	gput(0x4000 + 8 * 9, 0x200000 | X_PRU);   /* stage 2: not captured */
	gput(0x4000 + 8 * 10, 0x400000 | X_PRU);  /* stage 2: reserved bits */
}

#define HEAD "[capture]\nversion = 1\nformat = x86-64\n\n" \
	"[memory host]\nspace = hpa\nbase = 0x200000\nfile = mem/hpa.bin\n\n"
#define GUEST "[cpu guest]\ncr3 = 0x1000\nspace = gpa\n\n"
#define EPT "[ept ept0]\neptp = 0x20001e\nspace = hpa\noutput_space = hpa\n\n"
#define XLATE "[space gpa]\ntranslate = ept0\n"

struct cap {
	char *dir;
	struct pt_capture *c;
	pt_err rc;
};

/* Loads capture.ini INI over the hpa image (and, FLAT, the guest's gpa memory as captured bytes). */
static struct cap load(const char *ini, bool flat)
{
	struct cap k;

	k.dir = tu_mkdtemp();
	tu_write(k.dir, "capture.ini", ini, strlen(ini));
	tu_write(k.dir, "mem/hpa.bin", hpa, sizeof hpa);
	if (flat)
		tu_write(k.dir, "mem/gpa.bin", hpa + (GPA_HOST - HPA), HLEN - (GPA_HOST - HPA));
	k.c = pt_capture_new();
	k.rc = pt_capture_load(k.c, k.dir);
	return k;
}

static void unload(struct cap *k)
{
	pt_capture_free(k->c);
	tu_rmtree(k->dir);
	free(k->dir);
}

static const struct pt_context *ctx(const struct cap *k, const char *name)
{
	const struct pt_context *c = pt_capture_context_find(k->c, name);

	ck_assert_msg(c != NULL, "no context %s", name);
	return c;
}

/* ---- step 1: one namespace of spaces ------------------------------------- */

START_TEST(mixed_namespace)
{
	struct cap k;

	build();
	/* x86-64 (sysmem) and intel-ept (sysmem, hpa, gpa): two formats, one capture */
	k = load(HEAD GUEST EPT, false);
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ck_assert_uint_eq(pt_capture_space_count(k.c), 3);
	ck_assert_str_eq(pt_capture_space_name(k.c, 0), "sysmem");   /* the [capture] format's first */
	ck_assert_int_ge(pt_capture_space_find(k.c, "gpa"), 0);
	ck_assert_int_ge(pt_capture_space_find(k.c, "hpa"), 0);
	/* the guest's one space is named gpa here: the same id as the EPT format's gpa */
	ck_assert_str_eq(pt_context_space_name(ctx(&k, "guest"), 0), "gpa");
	ck_assert_uint_eq(pt_context_space(ctx(&k, "guest"), 0),
			  (unsigned)pt_capture_space_find(k.c, "gpa"));
	ck_assert_ptr_null(pt_capture_space_translate(k.c, (unsigned)pt_capture_space_find(k.c, "gpa")));
	unload(&k);
}
END_TEST

/* ---- composed walks --------------------------------------------------------- */

/*
 * The stage-1 walk of VA in the flat capture, then the EPT's walk of its
 * result, against the two-stage walk of the translated capture.
 */
static void check_composed(const struct cap *nest, const struct cap *flat, uint64_t va)
{
	const struct pt_context *g = ctx(nest, "guest"), *e = ctx(nest, "ept0");
	struct pt_walk w, s1, s2;

	pt_walk_va(g, va, &w);
	pt_walk_va(ctx(flat, "guest"), va, &s1);
	if (s1.fault == PT_FAULT_NONE) {
		/* the final page: stage 1 resolved, stage 2 decides */
		ck_assert_str_eq(pt_context_space_name(g, w.space), "gpa");
		ck_assert_uint_eq(w.pa, s1.pa);
		ck_assert(w.translated);
		pt_walk_va(e, s1.pa, &s2);
		if (s2.fault == PT_FAULT_NONE && !(s2.perm & PT_PERM_NO_READ)) {
			ck_assert_msg(w.fault == PT_FAULT_NONE, "va 0x%" PRIx64 ": %s", va,
				      pt_fault_name(w.fault));
			ck_assert_str_eq(pt_capture_space_name(nest->c, w.final_space), "hpa");
			ck_assert_uint_eq(w.final_pa, s2.pa);
			ck_assert_uint_eq(w.page_size, s1.page_size);
		} else {
			ck_assert_int_eq(w.fault, PT_FAULT_STAGE2);
			ck_assert_int_eq(w.s2.fault, s2.fault == PT_FAULT_NONE ? PT_FAULT_RIGHTS : s2.fault);
			ck_assert_ptr_eq(w.s2.ctx, e);
			ck_assert_uint_eq(w.s2.addr, s1.pa);
			ck_assert_int_eq(w.fault_step, w.leaf_step);
		}
		return;
	}
	/* a stage-1 table read the flat capture does not have: the EPT faults at that entry */
	ck_assert_int_eq(s1.fault, PT_FAULT_NOT_CAPTURED);
	ck_assert_int_eq(w.fault, PT_FAULT_STAGE2);
	ck_assert_int_eq(w.fault_step, s1.fault_step);
	pt_walk_va(e, s1.steps[s1.fault_step].entry_pa, &s2);
	ck_assert_int_ne(s2.fault, PT_FAULT_NONE);
	ck_assert_int_eq(w.s2.fault, s2.fault);
	ck_assert_uint_eq(w.s2.addr, s1.steps[s1.fault_step].entry_pa);
}

START_TEST(composed_walks)
{
	static const uint64_t vas[] = {
		0x1000, 0x1ff8, 0x2000, 0x5000, 0x5123, 0x6000, 0x7000, 0x8000, 0x9000, 0xa000,
		0x200000, 0x201234,
	};
	struct cap nest, flat;
	/* the flat capture: the same guest, its gpa memory captured as is, nothing translated */
	const char *flat_ini = HEAD "[memory g]\nspace = gpa\nbase = 0\nfile = mem/gpa.bin\n\n" GUEST EPT;

	build();
	nest = load(HEAD GUEST EPT XLATE, false);
	flat = load(flat_ini, true);
	ck_assert_msg(nest.rc == PT_OK, "%s", pt_capture_error(nest.c));
	ck_assert_msg(flat.rc == PT_OK, "%s", pt_capture_error(flat.c));
	ck_assert_ptr_eq(pt_capture_space_translate(nest.c, (unsigned)pt_capture_space_find(nest.c, "gpa")),
			 ctx(&nest, "ept0"));
	for (size_t i = 0; i < sizeof vas / sizeof vas[0]; i++)
		check_composed(&nest, &flat, vas[i]);
	unload(&nest);
	unload(&flat);
}
END_TEST

/* ---- every stage-2 fault kind ----------------------------------------------- */

START_TEST(stage2_faults)
{
	static const struct {
		uint64_t va;
		enum pt_fault s2;
		uint64_t at;          /* the gpa the EPT was asked for */
		const char *level;    /* the stage-1 step it served */
	} rows[] = {
		{0x6000, PT_FAULT_UNMAPPED, 0x9000, "pt"},
		{0x7000, PT_FAULT_UNSUPPORTED, 0xa000, "pt"},
		{0x8000, PT_FAULT_RIGHTS, 0xb000, "pt"},
		{0x9000, PT_FAULT_NOT_CAPTURED, 0x200000, "pt"},
		{0xa000, PT_FAULT_RESERVED_BITS, 0x400000, "pt"},
		/* a stage-1 table in gpa the EPT does not map: the fault is at the table read */
		{0x200000, PT_FAULT_UNMAPPED, 0x9000, "pt"},
	};
	struct cap k;
	struct pt_buf b;

	build();
	k = load(HEAD GUEST EPT XLATE, false);
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const struct pt_context *g = ctx(&k, "guest");
		struct pt_walk w;
		char want[128];

		pt_walk_va(g, rows[i].va, &w);
		ck_assert_msg(w.fault == PT_FAULT_STAGE2, "va 0x%" PRIx64 ": %s", rows[i].va,
			      pt_fault_name(w.fault));
		ck_assert_msg(w.s2.fault == rows[i].s2, "va 0x%" PRIx64 ": stage2 %s", rows[i].va,
			      pt_fault_name(w.s2.fault));
		ck_assert_uint_eq(w.s2.addr, rows[i].at);
		ck_assert_str_eq(w.s2.ctx->name, "ept0");
		ck_assert_str_eq(g->fmt->levels[w.steps[w.fault_step].table.level].name, rows[i].level);
		pt_buf_init(&b);
		ck_assert_int_eq(pt_render_walk(&b, g, &w, PT_OUT_TEXT), PT_OK);
		snprintf(want, sizeof want, "result: fault=stage2:%s at=gpa:0x%" PRIx64 " stage=ept0 level=%s",
			 pt_fault_name(rows[i].s2), rows[i].at, rows[i].level);
		ck_assert_msg(strstr(b.data, want), "'%s' not in:\n%s", want, b.data);
		pt_buf_free(&b);
		/* a stage-1 fault stays a stage-1 fault in the flat words: never "stage2" */
		ck_assert_str_ne(pt_fault_name(w.s2.fault), "stage2");
	}
	unload(&k);
}
END_TEST

/* The nested trace: each stage-2 walk indented under the stage-1 step it serves. */
START_TEST(nested_trace)
{
	struct cap k;
	struct pt_walk w;
	struct pt_buf b;
	const char *t;

	build();
	k = load(HEAD GUEST EPT XLATE, false);
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	pt_walk_va(ctx(&k, "guest"), 0x5123, &w);
	ck_assert_int_eq(w.fault, PT_FAULT_NONE);
	ck_assert_uint_eq(w.final_pa, GPA_HOST + 0x5123);
	pt_buf_init(&b);
	pt_render_walk(&b, ctx(&k, "guest"), &w, PT_OUT_TEXT);
	t = b.data;
	/* the guest's pml4 entry at gpa 0x1000, then the EPT's walk of that address */
	ck_assert_msg(strstr(t, "pml4[0] gpa:0x1000 raw=0x0000000000002007 pointer\n"
			       "  context: ept0 va: 0x000000001000\n"
			       "  pml4[0] hpa:0x200000 raw="), "%s", t);
	ck_assert_msg(strstr(t, "  result: mapped pa=hpa:0x209000 page=4K"), "%s", t);
	/* the final page's own stage-2 walk, then the result with both addresses */
	ck_assert_msg(strstr(t, "  context: ept0 va: 0x000000005123\n"), "%s", t);
	ck_assert_msg(strstr(t, "\nresult: mapped pa=gpa:0x5123 final=hpa:0x20d123 page=4K"), "%s", t);
	pt_buf_free(&b);
	pt_buf_init(&b);
	pt_render_walk(&b, ctx(&k, "guest"), &w, PT_OUT_JSON);
	ck_assert_msg(strstr(b.data, "\"final_pa\": \"0x20d123\", \"final_space\": \"hpa\""), "%s", b.data);
	ck_assert_msg(strstr(b.data, "\"nested\": {\"context\": \"ept0\""), "%s", b.data);
	pt_buf_free(&b);
	unload(&k);
}
END_TEST

/* ---- maps FINAL and pa/ through the stack ----------------------------------- */

START_TEST(maps_final_and_pa)
{
	struct cap k;
	struct pt_runs_filter f;
	struct pt_runs_iter it;
	struct pt_run r;
	struct pt_buf b;
	struct pt_pa_index *ix;
	size_t found = 0;
	unsigned n = 0;

	build();
	k = load(HEAD GUEST EPT XLATE, false);
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	pt_runs_filter_init(&f);
	pt_runs_init(&it, ctx(&k, "guest"), &f, NULL);
	pt_buf_init(&b);
	while (pt_runs_next(&it, &r)) {
		ck_assert(r.translated);
		pt_render_run(&b, ctx(&k, "guest"), &r, NULL, PT_OUT_TEXT);
		n++;
	}
	/* va 0x1000-0x3000 (gpa 0x6000, 0x7000 -> hpa 0x20e000, 0x20f000: contiguous), 0x5000, and five faults */
	ck_assert_msg(strstr(b.data, "0x0000000000001000-0x0000000000003000     8K   4K gpa     "
			       "0x0000000000006000 writable,user - hpa:0x000000000020e000\n"), "%s", b.data);
	ck_assert_msg(strstr(b.data, "0x0000000000006000-0x0000000000007000     4K   4K gpa     "
			       "0x0000000000009000 writable,user - stage2:unmapped\n"), "%s", b.data);
	ck_assert_msg(strstr(b.data, "stage2:rights"), "%s", b.data);
	ck_assert_msg(strstr(b.data, "stage2:reserved_bits"), "%s", b.data);
	ck_assert_uint_eq(n, 7);
	pt_buf_free(&b);
	/* the EPT's own runs are in hpa, untranslated: no FINAL column */
	pt_runs_init(&it, ctx(&k, "ept0"), &f, NULL);
	ck_assert(pt_runs_next(&it, &r));
	ck_assert(!r.translated);

	/* pa/hpa/0x20d123: the guest's VA (through the stack) and the EPT's own */
	ix = pt_pa_index_new(k.c);
	pt_buf_init(&b);
	ck_assert_int_eq(pt_render_pa(&b, ix, (unsigned)pt_capture_space_find(k.c, "hpa"), 0x20d123,
				      PT_OUT_TEXT, &found), PT_OK);
	ck_assert_uint_eq(found, 2);
	ck_assert_msg(strstr(b.data, "guest 0x0000000000005123 pml4/0/pdpt/0/pd/0/pt/5 writable,user"), "%s", b.data);
	ck_assert_msg(strstr(b.data, "ept0 0x000000005123 "), "%s", b.data);
	pt_buf_free(&b);
	/* pa/gpa/0x5123: the intermediate address finds the guest's VA too */
	pt_buf_init(&b);
	ck_assert_int_eq(pt_render_pa(&b, ix, (unsigned)pt_capture_space_find(k.c, "gpa"), 0x5123,
				      PT_OUT_TEXT, &found), PT_OK);
	ck_assert_uint_eq(found, 1);
	pt_buf_free(&b);
	pt_pa_index_free(ix);
	unload(&k);
}
END_TEST

/* ---- load errors ------------------------------------------------------------ */

static void load_err(const char *ini, const char *want)
{
	struct cap k = load(ini, false);

	ck_assert_msg(k.rc != PT_OK, "loaded: %s", ini);
	ck_assert_msg(strstr(pt_capture_error(k.c), want), "'%s' not in '%s'", want,
		      pt_capture_error(k.c));
	ck_assert_uint_eq(pt_capture_context_count(k.c), 0);
	unload(&k);
}

START_TEST(load_errors)
{
	struct cap k;

	build();
	/* a cycle: the EPT's own tables in the space it translates */
	load_err(HEAD GUEST "[ept ept0]\neptp = 0x20001e\nspace = gpa\noutput_space = hpa\n\n" XLATE,
		 "capture.ini:20: [space gpa] translate = ept0: a cycle of translated spaces "
		 "([space gpa] -> [ept ept0] -> [space gpa])");
	load_err(HEAD GUEST EPT "[space gpa]\ntranslate = ept9\n",
		 "capture.ini:20: [space gpa] translate = ept9: no context section is named 'ept9'");
	load_err(HEAD GUEST EPT "[space gpa]\ntranslat = ept0\n", "capture.ini:20: unknown key 'translat' in [space gpa]");
	load_err(HEAD GUEST EPT "[space hpa]\ntranslate = ept0\n",
		 "capture.ini:5: [memory host] is in space hpa, which [space hpa] (line 19) translates"
		 " through ept0: a translated space holds no captured memory");
	/* four stages: gpa -> e1 (in hpa) -> e2 (in sysmem) -> c3 (in mem4) */
	load_err("[capture]\nversion = 1\nformat = x86-64\n\n"
		 "[memory m]\nspace = mem4\nbase = 0x200000\nfile = mem/hpa.bin\n\n"
		 GUEST
		 "[ept e1]\neptp = 0x20001e\nspace = hpa\noutput_space = hpa\n\n"
		 "[ept e2]\neptp = 0x20001e\nspace = sysmem\noutput_space = sysmem\n\n"
		 "[cpu c3]\ncr3 = 0x200000\nspace = mem4\n\n"
		 "[space gpa]\ntranslate = e1\n"
		 "[space hpa]\ntranslate = e2\n"
		 "[space sysmem]\ntranslate = c3\n",
		 "[space gpa] translate = e1: more than three stages ([space gpa] -> [ept e1] -> "
		 "[space hpa] -> [ept e2] -> [space sysmem] -> [cpu c3])");
	/* three stages load */
	k = load("[capture]\nversion = 1\nformat = x86-64\n\n"
		 "[memory m]\nspace = sysmem\nbase = 0x200000\nfile = mem/hpa.bin\n\n"
		 GUEST
		 "[ept e1]\neptp = 0x20001e\nspace = hpa\noutput_space = hpa\n\n"
		 "[ept e2]\neptp = 0x20001e\nspace = sysmem\noutput_space = sysmem\n\n"
		 "[space gpa]\ntranslate = e1\n"
		 "[space hpa]\ntranslate = e2\n", false);
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	{
		/*
		 * The guest's pml4 at gpa 0x1000 goes through e1, whose own pml4
		 * at hpa 0x200000 goes through e2: e2 maps only 0..32K, its pd[1]
		 * table is not captured, so the third stage faults and the fault
		 * names e2 and the hpa address it was asked for.
		 */
		struct pt_walk w;

		pt_walk_va(ctx(&k, "guest"), 0x5000, &w);
		ck_assert_int_eq(w.fault, PT_FAULT_STAGE2);
		ck_assert_int_eq(w.s2.fault, PT_FAULT_NOT_CAPTURED);
		ck_assert_str_eq(w.s2.ctx->name, "e2");
		ck_assert_uint_eq(w.s2.addr, 0x200000);
		ck_assert_str_eq(pt_capture_space_name(k.c, w.s2.space), "hpa");
	}
	unload(&k);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("nested");
	TCase *tc;

	tc = tcase_create("namespace");
	tcase_add_test(tc, mixed_namespace);
	suite_add_tcase(s, tc);
	tc = tcase_create("walks");
	tcase_add_test(tc, composed_walks);
	tcase_add_test(tc, stage2_faults);
	tcase_add_test(tc, nested_trace);
	tcase_add_test(tc, maps_final_and_pa);
	suite_add_tcase(s, tc);
	tc = tcase_create("load");
	tcase_add_test(tc, load_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
