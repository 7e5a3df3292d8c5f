/* SPDX-License-Identifier: MIT */
/*
 * test_nested_gpu.c — a GPU behind an IOMMU (translated spaces,
 * docs/design.md §2.8) on the fixtures gpu-vtd and gpu-amdvi
 * (fixtures/mkf_gpuiova.c): nv-gmmu-ver2 tables whose sysmem is an IOVA
 * space, `[space sysmem] translate = iommu0`, the IOMMU (intel-vtd,
 * amd-vi) in `hpa`.
 *
 * Every VA of a fixture's .expect is walked in two stages and checked
 * against the composition of two one-stage walks: the GPU walked in a flat
 * capture, whose sysmem holds, as plain captured memory, the bytes of each
 * IOVA page the IOMMU lets the GPU read; then the IOMMU walked at that
 * result (or at the table entry the flat walk could not read).  Also the
 * .expect's composed answer, every stage-2 fault kind at a table read and
 * at the final page, the nested trace, maps' FINAL column and pa/.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_capture.h"
#include "pt_mem.h"
#include "pt_pa.h"
#include "pt_render.h"
#include "pt_runs.h"
#include "pt_walk.h"
#include "testutil.h"

/* The IOVA pages the flat capture looks at: every GPU table of the fixtures is below 16 MiB. */
#define IOVA_END 0x1000000u
#define PAGE 0x1000u

static const char *const fixtures[] = {"gpu-vtd", "gpu-amdvi"};

struct cap {
	char *dir;            /* the flat capture's directory (NULL for a fixture) */
	struct pt_capture *c;
};

static const struct pt_context *ctx(const struct cap *k, const char *name)
{
	const struct pt_context *c = pt_capture_context_find(k->c, name);

	ck_assert_msg(c != NULL, "no context %s", name);
	return c;
}

static struct cap load_fixture(const char *name)
{
	char file[64];
	struct cap k = {NULL, pt_capture_new()};

	snprintf(file, sizeof file, "%s.tar.gz", name);
	ck_assert_msg(pt_capture_load(k.c, tu_fixture(file)) == PT_OK, "%s", pt_capture_error(k.c));
	return k;
}

static void unload(struct cap *k)
{
	pt_capture_free(k->c);
	if (k->dir) {
		tu_rmtree(k->dir);
		free(k->dir);
	}
}

/*
 * The flat capture of fixture N: its vidmem regions as they are, and in
 * sysmem every IOVA page that iommu0 maps readable onto captured hpa, as
 * captured memory; gpu0 as in the fixture (capture.ini there).
 */
static struct cap load_flat(const struct cap *n)
{
	const struct pt_mem *mem = pt_capture_mem(n->c);
	const struct pt_context *io = ctx(n, "iommu0");
	unsigned vid = (unsigned)pt_capture_space_find(n->c, "vidmem");
	unsigned hpa = (unsigned)pt_capture_space_find(n->c, "hpa");
	char *ini = NULL, name[64];
	size_t len = 0, pages = 0;
	FILE *f = open_memstream(&ini, &len);
	struct cap k;

	ck_assert_ptr_nonnull(f);
	k.dir = tu_mkdtemp();
	fputs("[capture]\nversion = 1\nformat = nv-gmmu-ver2\n", f);
	for (size_t i = 0; i < pt_capture_region_count(n->c); i++) {
		const struct pt_region_info *r = pt_capture_region(n->c, i);
		uint8_t *b;

		if (r->space != vid)
			continue;
		b = malloc(r->size);
		ck_assert(b && pt_mem_read(mem, vid, r->base, b, r->size));
		snprintf(name, sizeof name, "mem/v%zu.bin", i);
		tu_write(k.dir, name, b, r->size);
		fprintf(f, "[memory v%zu]\nspace = vidmem\nbase = 0x%" PRIx64 "\nfile = %s\n", i, r->base, name);
		free(b);
	}
	for (uint64_t iova = 0; iova < IOVA_END; iova += PAGE) {
		struct pt_walk w;
		uint8_t b[PAGE];

		pt_walk_va(io, iova, &w);
		if (w.fault != PT_FAULT_NONE || (w.perm & PT_PERM_NO_READ) || !pt_mem_read(mem, hpa, w.pa, b, PAGE))
			continue;
		snprintf(name, sizeof name, "mem/s%" PRIx64 ".bin", iova);
		tu_write(k.dir, name, b, PAGE);
		fprintf(f, "[memory s%" PRIx64 "]\nspace = sysmem\nbase = 0x%" PRIx64 "\nfile = %s\n", iova, iova, name);
		pages++;
	}
	/* the GPU's PD0 B, small PT and big PT: three pages of GPU tables in sysmem */
	ck_assert_uint_eq(pages, 3);
	fputs("[pdb gpu0]\nspace = vidmem\naddress = 0x200000\nbig_page_size = 64K\n", f);
	ck_assert_int_eq(fclose(f), 0);
	tu_write(k.dir, "capture.ini", ini, len);
	free(ini);
	k.c = pt_capture_new();
	ck_assert_msg(pt_capture_load(k.c, k.dir) == PT_OK, "%s", pt_capture_error(k.c));
	return k;
}

/* The IOMMU's answer for ADDR as the stack sees it: a page it may not read is a rights fault. */
static enum pt_fault iommu_fault(const struct pt_context *io, uint64_t addr, struct pt_walk *s2)
{
	pt_walk_va(io, addr, s2);
	if (s2->fault == PT_FAULT_NONE && (s2->perm & PT_PERM_NO_READ))
		return PT_FAULT_RIGHTS;
	return s2->fault;
}

/*
 * The two-stage walk of VA against the flat GPU walk composed with the
 * IOMMU's walk; LINE is VA's .expect line, whose composed answer must agree.
 */
static void check_composed(const struct cap *nest, const struct cap *flat, uint64_t va, const char *line)
{
	const struct pt_context *g = ctx(nest, "gpu0"), *io = ctx(nest, "iommu0");
	const char *fin = strstr(line, " final hpa "), *s2k = strstr(line, "fault stage2:");
	struct pt_walk w, s1, s2;
	enum pt_fault f2;

	pt_walk_va(g, va, &w);
	pt_walk_va(ctx(flat, "gpu0"), va, &s1);
	if (s1.fault == PT_FAULT_NONE && !strcmp(pt_context_space_name(ctx(flat, "gpu0"), s1.space), "vidmem")) {
		/* a vidmem page: nothing translates it */
		ck_assert_msg(w.fault == PT_FAULT_NONE && !w.translated, "va 0x%" PRIx64, va);
		ck_assert_str_eq(pt_context_space_name(g, w.space), "vidmem");
		ck_assert_uint_eq(w.pa, s1.pa);
		ck_assert_uint_eq(w.page_size, s1.page_size);
		ck_assert_ptr_null(fin);
		ck_assert_ptr_null(s2k);
		return;
	}
	if (s1.fault == PT_FAULT_NONE) {
		/* a sysmem page: stage 1 resolved to an IOVA, the IOMMU decides */
		ck_assert_str_eq(pt_context_space_name(g, w.space), "sysmem");
		ck_assert_uint_eq(w.pa, s1.pa);
		ck_assert(w.translated);
		f2 = iommu_fault(io, s1.pa, &s2);
		if (f2 == PT_FAULT_NONE) {
			ck_assert_msg(w.fault == PT_FAULT_NONE, "va 0x%" PRIx64 ": %s", va, pt_fault_name(w.fault));
			ck_assert_str_eq(pt_capture_space_name(nest->c, w.final_space), "hpa");
			ck_assert_uint_eq(w.final_pa, s2.pa);
			ck_assert_uint_eq(w.page_size, s1.page_size);
			ck_assert_msg(fin && strtoull(fin + 11, NULL, 16) == s2.pa, "va 0x%" PRIx64 ": %s", va, line);
			return;
		}
		ck_assert_int_eq(w.fault_step, w.leaf_step);
		ck_assert_uint_eq(w.s2.addr, s1.pa);
	} else {
		/* a GPU table in sysmem the flat capture does not hold: the IOMMU refused its read */
		ck_assert_msg(s1.fault == PT_FAULT_NOT_CAPTURED, "va 0x%" PRIx64 ": %s", va, pt_fault_name(s1.fault));
		ck_assert_int_eq(w.fault_step, s1.fault_step);
		f2 = iommu_fault(io, s1.steps[s1.fault_step].entry_pa, &s2);
		ck_assert_int_ne(f2, PT_FAULT_NONE);
		ck_assert_uint_eq(w.s2.addr, s1.steps[s1.fault_step].entry_pa);
	}
	ck_assert_msg(w.fault == PT_FAULT_STAGE2, "va 0x%" PRIx64 ": %s", va, pt_fault_name(w.fault));
	ck_assert_int_eq(w.s2.fault, f2);
	ck_assert_ptr_eq(w.s2.ctx, io);
	ck_assert_msg(s2k && !strncmp(s2k + 13, pt_fault_name(f2), strlen(pt_fault_name(f2))),
		      "va 0x%" PRIx64 ": %s", va, line);
}

/* ---- composed walks, both fixtures ------------------------------------------ */

START_TEST(composed_walks)
{
	const char *fx = fixtures[_i];
	struct cap nest = load_fixture(fx), flat = load_flat(&nest);
	char file[64], line[256], c[32];
	unsigned n = 0;
	FILE *f;

	ck_assert_ptr_eq(pt_capture_space_translate(nest.c, (unsigned)pt_capture_space_find(nest.c, "sysmem")),
			 ctx(&nest, "iommu0"));
	snprintf(file, sizeof file, "%s.expect", fx);
	f = fopen(tu_fixture(file), "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof line, f)) {
		uint64_t va;

		if (line[0] == '#' || sscanf(line, "%31s 0x%" SCNx64, c, &va) != 2 || strcmp(c, "gpu0"))
			continue;
		check_composed(&nest, &flat, va, line);
		n++;
	}
	fclose(f);
	ck_assert_uint_eq(n, 26);
	unload(&nest);
	unload(&flat);
}
END_TEST

/* ---- every stage-2 fault kind, at a GPU table read and at the final page ------ */

START_TEST(stage2_faults)
{
	static const struct {
		uint64_t va;
		enum pt_fault s2[2];      /* gpu-vtd, gpu-amdvi */
		uint64_t at;              /* the IOVA the IOMMU was asked for */
		bool table;               /* a read of the GPU's small PT, not the page */
		const char *io_level[2];  /* the IOMMU level that faulted */
	} rows[] = {
		{0x5000, {PT_FAULT_UNMAPPED, PT_FAULT_UNMAPPED}, 0x9000, false, {"pt", "l1"}},
		{0x6000, {PT_FAULT_RIGHTS, PT_FAULT_RIGHTS}, 0xa000, false, {"pt", "l1"}},
		{0x7000, {PT_FAULT_RESERVED_BITS, PT_FAULT_RESERVED_BITS}, 0x401000, false, {"pd", "l2"}},
		{0x8000, {PT_FAULT_NOT_CAPTURED, PT_FAULT_NOT_CAPTURED}, 0x601000, false, {"pt", "l1"}},
		{0x9000, {PT_FAULT_UNMAPPED, PT_FAULT_UNSUPPORTED}, 0x801000, false, {"pd", "l2"}},
		{0xa000, {PT_FAULT_UNMAPPED, PT_FAULT_UNMAPPED}, 0x40000000, false, {"pdpt", "l4"}},
		{0x800000, {PT_FAULT_UNMAPPED, PT_FAULT_UNMAPPED}, 0x4000, true, {"pt", "l1"}},
		{0xa00000, {PT_FAULT_RIGHTS, PT_FAULT_RIGHTS}, 0x5000, true, {"pt", "l1"}},
		{0xc00000, {PT_FAULT_RESERVED_BITS, PT_FAULT_RESERVED_BITS}, 0x400000, true, {"pd", "l2"}},
		{0xe00000, {PT_FAULT_NOT_CAPTURED, PT_FAULT_NOT_CAPTURED}, 0x600000, true, {"pt", "l1"}},
		{0x1000000, {PT_FAULT_UNMAPPED, PT_FAULT_UNSUPPORTED}, 0x800000, true, {"pd", "l2"}},
	};
	struct cap k = load_fixture(fixtures[_i]);
	const struct pt_context *g = ctx(&k, "gpu0"), *io = ctx(&k, "iommu0");

	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		struct pt_walk w, s2;
		struct pt_buf b;
		char want[160];

		pt_walk_va(g, rows[i].va, &w);
		ck_assert_msg(w.fault == PT_FAULT_STAGE2, "va 0x%" PRIx64 ": %s", rows[i].va, pt_fault_name(w.fault));
		ck_assert_msg(w.s2.fault == rows[i].s2[_i], "va 0x%" PRIx64 ": stage2 %s", rows[i].va,
			      pt_fault_name(w.s2.fault));
		ck_assert_uint_eq(w.s2.addr, rows[i].at);
		ck_assert_str_eq(pt_capture_space_name(k.c, w.s2.space), "sysmem");
		ck_assert_ptr_eq(w.s2.ctx, io);
		ck_assert_str_eq(g->fmt->levels[w.steps[w.fault_step].table.level].name, "pte_small");
		/* at the page the PTE was read (the leaf step); at a table read, nothing of it was */
		ck_assert_int_eq(w.steps[w.fault_step].captured, !rows[i].table);
		if (!rows[i].table)
			ck_assert_int_eq(w.fault_step, w.leaf_step);
		/* the IOMMU alone faults there, at the level it names (rights: it maps, without read) */
		pt_walk_va(io, rows[i].at, &s2);
		if (rows[i].s2[_i] == PT_FAULT_RIGHTS) {
			ck_assert_int_eq(s2.fault, PT_FAULT_NONE);
			ck_assert(s2.perm & PT_PERM_NO_READ);
		} else {
			ck_assert_int_eq(s2.fault, rows[i].s2[_i]);
			ck_assert_str_eq(io->fmt->levels[s2.steps[s2.fault_step].table.level].name, rows[i].io_level[_i]);
		}
		pt_buf_init(&b);
		ck_assert_int_eq(pt_render_walk(&b, g, &w, PT_OUT_TEXT), PT_OK);
		snprintf(want, sizeof want, "\nresult: fault=stage2:%s at=sysmem:0x%" PRIx64 " stage=iommu0 level=pte_small",
			 pt_fault_name(rows[i].s2[_i]), rows[i].at);
		ck_assert_msg(strstr(b.data, want), "'%s' not in:\n%s", want, b.data);
		pt_buf_free(&b);
	}
	unload(&k);
}
END_TEST

/* The nested trace: the IOMMU's walk of a GPU table entry in sysmem, and of the page. */
START_TEST(nested_trace)
{
	struct cap k = load_fixture("gpu-vtd");
	struct pt_walk w;
	struct pt_buf b;

	pt_walk_va(ctx(&k, "gpu0"), 0x400010, &w);
	ck_assert_int_eq(w.fault, PT_FAULT_NONE);
	pt_buf_init(&b);
	pt_render_walk(&b, ctx(&k, "gpu0"), &w, PT_OUT_TEXT);
	/* the small PT at IOVA 0x2000 is read at hpa 0x109000, where VT-d puts that page */
	ck_assert_msg(strstr(b.data, "pte_small[0] sysmem:0x2000 raw=0x0600000000000805 mapped\n"
				     "  context: iommu0 va: 0x0000002000\n"
				     "  pdpt[0] hpa:0x100000 raw=0x0000000000101003 pointer\n"), "%s", b.data);
	ck_assert_msg(strstr(b.data, "  result: mapped pa=hpa:0x109000 page=4K flags=r,w"), "%s", b.data);
	ck_assert_msg(strstr(b.data, "  context: iommu0 va: 0x0000008010\n"), "%s", b.data);
	ck_assert_msg(strstr(b.data, "\nresult: mapped pa=sysmem:0x8010 final=hpa:0x87654010 page=4K "), "%s", b.data);
	pt_buf_free(&b);
	pt_buf_init(&b);
	pt_render_walk(&b, ctx(&k, "gpu0"), &w, PT_OUT_JSON);
	ck_assert_msg(strstr(b.data, "\"final_pa\": \"0x87654010\", \"final_space\": \"hpa\""), "%s", b.data);
	ck_assert_msg(strstr(b.data, "\"nested\": {\"context\": \"iommu0\""), "%s", b.data);
	pt_buf_free(&b);
	unload(&k);
}
END_TEST

/* ---- maps FINAL and pa/ through the stack ------------------------------------ */

START_TEST(maps_final)
{
	struct cap k = load_fixture(fixtures[_i]);
	struct pt_runs_filter f;
	struct pt_runs_iter it;
	struct pt_run r;
	struct pt_buf b;
	unsigned n = 0, translated = 0;

	pt_runs_filter_init(&f);
	pt_runs_init(&it, ctx(&k, "gpu0"), &f, NULL);
	pt_buf_init(&b);
	while (pt_runs_next(&it, &r)) {
		pt_render_run(&b, ctx(&k, "gpu0"), &r, NULL, PT_OUT_TEXT);
		translated += r.translated;
		n++;
	}
	/* 18 runs, of which the 4 vidmem ones are not translated */
	ck_assert_uint_eq(n, 18);
	ck_assert_uint_eq(translated, 14);
	ck_assert_msg(strstr(b.data, "0x0000000001000-0x0000000002000     4K   4K sysmem  0x0000000000008000 - "
				     "GENERIC_MEMORY hpa:0x0000000087654000\n"), "%s", b.data);
	ck_assert_msg(strstr(b.data, "0x0000000003000-0x0000000004000     4K   4K sysmem  0x0000000000014000 - "
				     "GENERIC_MEMORY hpa:0x0000000000044000\n"), "%s", b.data);
	ck_assert_msg(strstr(b.data, "0x0000000200000-0x0000000400000     2M   2M sysmem  0x0000000000200000 - "
				     "GENERIC_MEMORY hpa:0x0000000080200000\n"), "%s", b.data);
	ck_assert_msg(strstr(b.data, "0x0000000006000-0x0000000007000     4K   4K sysmem  0x000000000000a000 - "
				     "GENERIC_MEMORY stage2:rights\n"), "%s", b.data);
	ck_assert_msg(strstr(b.data, "0x0000000000000-0x0000000001000     4K   4K vidmem  0x0000000010000000 - "
				     "GENERIC_MEMORY\n"), "%s", b.data);
	ck_assert_msg(strstr(b.data, _i ? " stage2:unsupported\n" : " stage2:not_captured\n"), "%s", b.data);
	pt_buf_free(&b);
	unload(&k);
}
END_TEST

START_TEST(pa_lookup)
{
	struct cap k = load_fixture(fixtures[_i]);
	struct pt_pa_index *ix = pt_pa_index_new(k.c);
	unsigned hpa = (unsigned)pt_capture_space_find(k.c, "hpa");
	struct pt_buf b;
	size_t found = 0;

	/* hpa 0x87654123: two GPU VAs through the stack (SPT0[1], the sysmem PT's [0]) and the IOVA */
	pt_buf_init(&b);
	ck_assert_int_eq(pt_render_pa(&b, ix, hpa, 0x87654123, PT_OUT_TEXT, &found), PT_OK);
	ck_assert_uint_eq(found, 3);
	ck_assert_msg(strstr(b.data, "gpu0 0x0000000001123 pde3/0/pde2/0/pde1/0/pde0/0/pte_small/1 -\n"), "%s", b.data);
	ck_assert_msg(strstr(b.data, "gpu0 0x0000000400123 pde3/0/pde2/0/pde1/0/pde0/2/pte_small/0 -\n"), "%s", b.data);
	ck_assert_msg(strstr(b.data, _i ? "iommu0 0x000000008123 " : "iommu0 0x0000008123 "), "%s", b.data);
	pt_buf_free(&b);
	/* hpa 0x80212345: the GPU's two 2 MiB pages on the IOMMU's 2 MiB page, its 64K page, and the IOVA */
	pt_buf_init(&b);
	ck_assert_int_eq(pt_render_pa(&b, ix, hpa, 0x80212345, PT_OUT_TEXT, &found), PT_OK);
	ck_assert_uint_eq(found, 4);
	ck_assert_msg(strstr(b.data, "gpu0 0x0000000212345 pde3/0/pde2/0/pde1/0/pde0/1 -\n"), "%s", b.data);
	ck_assert_msg(strstr(b.data, "gpu0 0x0000000602345 pde3/0/pde2/0/pde1/0/pde0/3/pte_big/0 -\n"), "%s", b.data);
	pt_buf_free(&b);
	/* the IOVA itself: sysmem 0x8123 finds the two GPU VAs */
	pt_buf_init(&b);
	ck_assert_int_eq(pt_render_pa(&b, ix, (unsigned)pt_capture_space_find(k.c, "sysmem"), 0x8123,
				      PT_OUT_TEXT, &found), PT_OK);
	ck_assert_uint_eq(found, 2);
	pt_buf_free(&b);
	/* a host page of a faulting IOVA (write-only 0x8765a000) is reached by no GPU VA */
	pt_buf_init(&b);
	ck_assert_int_eq(pt_render_pa(&b, ix, hpa, 0x8765a000, PT_OUT_TEXT, &found), PT_OK);
	ck_assert_msg(strstr(b.data, "gpu0 ") == NULL, "%s", b.data);
	pt_buf_free(&b);
	pt_pa_index_free(ix);
	unload(&k);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("nested_gpu");
	TCase *tc;

	tc = tcase_create("compose");
	tcase_add_loop_test(tc, composed_walks, 0, 2);
	suite_add_tcase(s, tc);
	tc = tcase_create("stage2");
	tcase_add_loop_test(tc, stage2_faults, 0, 2);
	tcase_add_test(tc, nested_trace);
	suite_add_tcase(s, tc);
	tc = tcase_create("maps_pa");
	tcase_add_loop_test(tc, maps_final, 0, 2);
	tcase_add_loop_test(tc, pa_lookup, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
