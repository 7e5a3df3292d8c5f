/* SPDX-License-Identifier: MIT */
/*
 * test_roots: the root scan (core/walk/roots.c, pt_roots.h) per area: the
 * score from its counts; the scan of a capture built here entry by entry
 * from Intel SDM vol. 3A §4.5 (tables 4-13 PML4E, 4-15 PDPTE, 4-18 PDE,
 * 4-19 PTE) — counts, inner tables dropped, data pages refused, a stray
 * refused entry tolerated; the x86-64 Linux rule (fmt_x86_64.c root_rule:
 * arch/x86/mm/pgtable.c pgd_ctor, arch/x86/mm/pti.c); the pasted section;
 * the read control and progress; IOMMU tables (roots_iommu.c) built here
 * from the VT-d, AMD-Vi and SMMUv3 layouts, with decoys that must not be
 * suggested or must score low.  test_roots.sh checks the CLI on the
 * x86-roots fixture, test_roots_paste.py the pasted sections.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_buf.h"
#include "pt_capture.h"
#include "pt_roots.h"
#include "pt_walk.h"
#include "testutil.h"

#define P (1ull << 0)
#define RW (1ull << 1)
#define US (1ull << 2)
#define PS (1ull << 7)
#define TABLE (P | RW | US)

/* ---- score ------------------------------------------------------------------ */

START_TEST(test_score)
{
	struct pt_root_cand c = {.levels = 4, .nlevels = 4, .tables = 9};

	ck_assert_uint_eq(pt_roots_score(&c), 100);
	c.uncaptured = 1;   /* 10 good of 11 */
	ck_assert_uint_eq(pt_roots_score(&c), 90);
	c.uncaptured = 0;
	c.levels = 3;
	ck_assert_uint_eq(pt_roots_score(&c), 75);
	c.levels = 4;
	c.bad_tables = 1;   /* 9 good of 10 */
	ck_assert_uint_eq(pt_roots_score(&c), 90);
	c.bad_tables = 0;
	c.bad_entries = 10; /* 10 good of 20 */
	ck_assert_uint_eq(pt_roots_score(&c), 50);
	c.nlevels = 0;
	ck_assert_uint_eq(pt_roots_score(&c), 0);
}
END_TEST

/* ---- scan --------------------------------------------------------------------- */

/* sysmem 0x100000..0x10ffff, 16 pages; the pages by index. */
#define BASE 0x100000ull
static uint64_t img[16][512];

static uint64_t pg(unsigned i)
{
	return BASE + 0x1000ull * i;
}

static struct pt_capture *load_img(char **dir, const char *contexts)
{
	struct pt_capture *cap = pt_capture_new();
	char ini[1024];

	*dir = tu_mkdtemp();
	snprintf(ini, sizeof ini, "[capture]\nversion = 1\nformat = x86-64\n\n[memory m]\nspace = sysmem\n"
		 "base = 0x100000\nfile = mem.bin\n\n%s", contexts);
	tu_write(*dir, "capture.ini", ini, strlen(ini));
	tu_write(*dir, "mem.bin", img, sizeof img);
	ck_assert_msg(pt_capture_load(cap, *dir) == PT_OK, "%s", pt_capture_error(cap));
	return cap;
}

static const struct pt_root_cand *find(const struct pt_roots *r, uint64_t addr)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->c[i].addr == addr)
			return &r->c[i];
	return NULL;
}

/*
 * Page 0: a root (PML4[0] -> page 1 PDPT -> page 2 PD -> page 3 PT with
 * three 4K leaves, the first mapping page 3; PML4[1] -> 0x900000, not
 * captured).  Page 4: random
 * qwords.  Page 5: a root with a PDPT 1 GiB leaf under PML4[0] and one
 * entry with reserved bit 7 (PS in a PML4E), tolerated.  Page 6: two
 * refused entries among three, given up.
 */
static void build(void)
{
	uint64_t s = 88172645463325252ull;

	memset(img, 0, sizeof img);
	img[0][0] = pg(1) | TABLE;
	img[0][1] = 0x900000 | TABLE;
	img[1][0] = pg(2) | TABLE;
	img[2][0] = pg(3) | TABLE;
	/* the PT maps itself (as Linux's direct map maps every table): its tables decode as roots */
	img[3][0] = pg(3) | P | RW;
	for (unsigned k = 1; k < 3; k++)
		img[3][k] = (0x40000000ull + 0x1000ull * k) | P | RW | US;
	for (unsigned k = 0; k < 512; k++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		img[4][k] = s;
	}
	img[5][0] = pg(7) | TABLE;
	img[5][1] = pg(7) | TABLE;
	img[5][2] = pg(7) | TABLE;
	img[5][3] = pg(7) | TABLE | PS;      /* reserved in a PML4E */
	img[7][0] = 0x80000000ull | P | RW | PS;   /* a 1 GiB page */
	img[6][0] = pg(7) | TABLE;
	img[6][1] = pg(7) | TABLE | PS;
	img[6][2] = pg(7) | TABLE | PS;
}

START_TEST(test_scan_counts)
{
	struct pt_roots_opts o = {0};
	struct pt_roots r;
	const struct pt_root_cand *c;
	char err[256], *dir;
	struct pt_capture *cap;

	build();
	cap = load_img(&dir, "[cpu a]\ncr3 = 0x100000\nefer = 0xd01\n");
	ck_assert_int_eq(pt_roots_scan(cap, &o, &r, NULL, err, sizeof err), PT_OK);
	c = find(&r, pg(0));
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->valid, 2);
	ck_assert_uint_eq(c->levels, 4);
	ck_assert_uint_eq(c->nlevels, 4);
	ck_assert_uint_eq(c->tables, 3);
	ck_assert_uint_eq(c->leaves, 3);
	ck_assert_uint_eq(c->uncaptured, 1);
	ck_assert_uint_eq(c->bad_tables, 0);
	ck_assert_uint_eq(c->score, 100 * 4 * 4 / (4 * 5));
	ck_assert_ptr_eq(c->root_of, pt_capture_context_find(cap, "a"));
	ck_assert_str_eq(c->kind, "table");   /* the rule needs a kernel half */
	/* the PDPT, PD and PT decode as roots too, but the root above points at them */
	ck_assert_ptr_null(find(&r, pg(1)));
	ck_assert_ptr_null(find(&r, pg(2)));
	ck_assert_ptr_null(find(&r, pg(3)));
	ck_assert_ptr_null(find(&r, pg(4)));   /* random qwords */
	/* one refused entry among three valid: listed, counted */
	c = find(&r, pg(5));
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->valid, 3);
	ck_assert_uint_eq(c->bad_entries, 1);
	ck_assert_uint_eq(c->levels, 2);
	ck_assert_ptr_null(find(&r, pg(6)));   /* two among three: given up */
	ck_assert_uint_eq(r.n, 2);
	/* best first */
	ck_assert_uint_eq(r.c[0].addr, pg(0));
	ck_assert_uint_ge(r.c[0].score, r.c[1].score);
	ck_assert(!r.cut);
	pt_roots_free(&r);
	pt_capture_free(cap);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* The candidates at ADDR (every format and geometry). */
static unsigned count_at(const struct pt_roots *r, uint64_t addr)
{
	unsigned n = 0;

	for (size_t i = 0; i < r->n; i++)
		n += r->c[i].addr == addr;
	return n;
}

/*
 * Issue #39 item 9: x86-64 tables also decode as clean 3-level VT-d second-
 * level tables (R, W, X are P, RW, US), so a capture with a [cpu] and a
 * [vtd] context listed each table twice, once per format.  Each is listed
 * once: a context's root in that context's format (the VT-d device's
 * root below the top of another table: Linux points a narrower context
 * entry there, drivers/iommu/intel/iommu.c), another table in the format
 * of the CPU.  Two devices of one width are one geometry, scanned once.
 */
START_TEST(test_scan_two_formats)
{
	struct pt_roots_opts o = {0};
	struct pt_roots r;
	const struct pt_root_cand *c;
	char err[256], *dir;
	struct pt_capture *cap;

	build();
	memcpy(img[8], img[0], sizeof img[8]);   /* a second process's root, no context's */
	img[8][1] = 0;
	cap = load_img(&dir, "[cpu a]\ncr3 = 0x100000\nefer = 0xd01\n\n"
		       "[vtd v]\nslptptr = 0x101000\naw = 39\n\n[vtd w]\nslptptr = 0x101000\naw = 39\n");
	ck_assert_int_eq(pt_roots_scan(cap, &o, &r, NULL, err, sizeof err), PT_OK);
	ck_assert_uint_eq(r.geometries, 2);
	for (unsigned i = 0; i < 16; i++)
		ck_assert_uint_le(count_at(&r, pg(i)), 1);
	c = find(&r, pg(0));
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->fmt->name, "x86-64");
	ck_assert_ptr_eq(c->root_of, pt_capture_context_find(cap, "a"));
	c = find(&r, pg(8));
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->fmt->name, "x86-64");
	ck_assert_ptr_null(c->root_of);
	ck_assert_uint_eq(c->nlevels, 4);
	c = find(&r, pg(1));
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->fmt->name, "intel-vtd");
	ck_assert_ptr_nonnull(c->root_of);
	ck_assert_str_eq(c->root_of->fmt->name, "intel-vtd");
	pt_roots_free(&r);
	/* --format intel-vtd alone: the VT-d reading is the only one, listed */
	o.format = "intel-vtd";
	ck_assert_int_eq(pt_roots_scan(cap, &o, &r, NULL, err, sizeof err), PT_OK);
	ck_assert_uint_eq(r.geometries, 1);
	c = find(&r, pg(8));
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->fmt->name, "intel-vtd");
	pt_roots_free(&r);
	pt_capture_free(cap);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(test_scan_errors)
{
	struct pt_roots_opts o = {.format = "nope"};
	struct pt_roots r;
	char err[256], *dir;
	struct pt_capture *cap;

	build();
	cap = load_img(&dir, "[cpu a]\ncr3 = 0x100000\n");
	ck_assert_int_eq(pt_roots_scan(cap, &o, &r, NULL, err, sizeof err), PT_E_NOTFOUND);
	ck_assert_ptr_nonnull(strstr(err, "unknown format 'nope'"));
	o.format = NULL;
	o.space = "vram";
	ck_assert_int_eq(pt_roots_scan(cap, &o, &r, NULL, err, sizeof err), PT_E_NOTFOUND);
	ck_assert_ptr_nonnull(strstr(err, "no space 'vram'"));
	ck_assert_uint_eq(r.n, 0);
	pt_capture_free(cap);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

static unsigned calls;
static uint64_t last_done, last_total;

static void on_progress(void *ud, uint64_t done, uint64_t total)
{
	(void)ud;
	calls++;
	last_done = done;
	last_total = total;
}

START_TEST(test_scan_readctl_progress)
{
	struct pt_roots_opts o = {.progress = on_progress};
	struct pt_readctl rc;
	struct pt_roots r;
	char err[256], *dir;
	struct pt_capture *cap;

	build();
	cap = load_img(&dir, "[cpu a]\ncr3 = 0x100000\n");
	calls = 0;
	ck_assert_int_eq(pt_roots_scan(cap, &o, &r, NULL, err, sizeof err), PT_OK);
	ck_assert_uint_ge(calls, 1);
	ck_assert_uint_eq(last_done, last_total);
	ck_assert_uint_eq(last_total, sizeof img);
	pt_roots_free(&r);
	/* a work bound of one unit: cut at once, said so */
	pt_readctl_init(&rc, NULL, NULL, 1);
	ck_assert_int_eq(pt_roots_scan(cap, &o, &r, &rc, err, sizeof err), PT_OK);
	ck_assert(r.cut);
	ck_assert_uint_le(r.pages, 1);
	pt_roots_free(&r);
	pt_capture_free(cap);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/* ---- the x86-64 Linux rule ------------------------------------------------------ */

static uint64_t ref[512], cand[512], other[512];

static void rule(const uint64_t *c, uint64_t addr, const uint64_t *o, struct pt_root_rel *out)
{
	const struct pt_format *f = pt_format_find("x86-64");

	ck_assert_ptr_nonnull(f->root_rule);
	f->root_rule((const uint8_t *)ref, 0x100000, (const uint8_t *)c, addr, (const uint8_t *)o, out);
}

START_TEST(test_rule_x86)
{
	struct pt_root_rel rel;

	memset(ref, 0, sizeof ref);
	memset(cand, 0, sizeof cand);
	memset(other, 0, sizeof other);
	/* a reference without a kernel half relates nothing */
	rule(cand, 0x200000, NULL, &rel);
	ck_assert_ptr_null(rel.kind);
	ref[256] = 0x300000 | P | RW;
	ref[511] = 0x301000 | P | RW;
	/* the same upper half, nothing below: the kernel's own (or an empty process) */
	memcpy(cand + 256, ref + 256, 256 * 8);
	rule(cand, 0x200000, NULL, &rel);
	ck_assert_str_eq(rel.kind, "kernel_only");
	cand[0] = 0x400000 | TABLE;
	rule(cand, 0x200000, NULL, &rel);
	ck_assert_str_eq(rel.kind, "process");
	ck_assert_ptr_null(rel.twin_kind);
	/* one upper entry differs: not of the family */
	cand[300] = 1;
	rule(cand, 0x200000, NULL, &rel);
	ck_assert_ptr_null(rel.kind);
	cand[300] = 0;
	/* PTI: the user copy in the next page has the user entries without NX, its own kernel half */
	cand[0] |= 1ull << 63;
	other[0] = 0x400000 | TABLE;
	other[510] = 0x302000 | P | RW;
	rule(cand, 0x200000, other, &rel);
	ck_assert_str_eq(rel.kind, "process");
	ck_assert_str_eq(rel.twin_kind, "process_user");
	/* seen from the odd page the roles swap */
	rule(cand, 0x201000, other, &rel);
	ck_assert_str_eq(rel.kind, "process_user");
	ck_assert_str_eq(rel.twin_kind, "process");
	/* a neighbour whose user entries differ (another process) is no twin */
	other[0] = 0x500000 | TABLE;
	rule(cand, 0x200000, other, &rel);
	ck_assert_str_eq(rel.kind, "process");
	ck_assert_ptr_null(rel.twin_kind);
}
END_TEST

/* ---- the section to paste ----------------------------------------------------------- */

START_TEST(test_section)
{
	struct pt_root_cand c = {.fmt = pt_format_find("x86-64"), .addr = 0x10e000};
	struct pt_buf b;

	pt_buf_init(&b);
	/* the format's own descriptor is 5-level: la57 = 1 */
	ck_assert(pt_roots_section(&c, &b));
	ck_assert_str_eq(b.data, "[cpu root-10e000]\ncr3 = 0x10e000\nla57 = 1\n");
	pt_buf_reset(&b);
	/* VER3 in sysmem: [pdb] takes the capture's format (no key of the section), so a comment says it */
	c.fmt = pt_format_find("nv-gmmu-ver3");
	c.space = (unsigned)pt_format_space(c.fmt, "sysmem");
	ck_assert(pt_roots_section(&c, &b));
	ck_assert_ptr_nonnull(strstr(b.data, "[pdb root-sysmem-10e000]\n; needs [capture] format = nv-gmmu-ver3\n"));
	ck_assert_ptr_null(strstr(b.data, "\nformat ="));
	pt_buf_free(&b);
}
END_TEST

/* ---- IOMMU tables (roots --iommu, issue #32 item 4) -------------------------------------- */

/* VT-d second-level entries: R 0, W 1 (VT-d spec §9.8); root/context entries P 0 (§9.1, §9.3). */
#define SL_RW 3ull

static void random_page(unsigned i)
{
	uint64_t s = 88172645463325252ull;

	for (unsigned k = 0; k < 512; k++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		img[i][k] = s;
	}
}

/*
 * Page 0: a VT-d root table (legacy): bus 0 -> page 1's context table,
 * devfn 0x10 4-level (AW 2) at page 2 (PML4 2 -> PDPT 3 -> PD 4 -> PT 5, two
 * 4K leaves), devfn 0x11 pass-through (TT 10).  Decoys: page 6 random
 * words; page 7 a root entry with reserved bit 5 set; page 8 a root entry
 * pointing outside memory; page 9 page 0's bus 0 plus a bus pointing
 * outside memory (suggested, scoring lower); page 10 a root table whose
 * only context entry (page 11) has a reserved bit (lo 11:4).
 */
static void build_vtd(void)
{
	memset(img, 0, sizeof img);
	img[0][0] = pg(1) | P;
	img[1][2 * 0x10] = pg(2) | P;
	img[1][2 * 0x10 + 1] = 2 | 1 << 8;          /* AW 2, DID 1 */
	img[1][2 * 0x11] = 2 << 2 | P;              /* TT 10 */
	img[1][2 * 0x11 + 1] = 2 | 2 << 8;
	img[2][0] = pg(3) | SL_RW;
	img[3][0] = pg(4) | SL_RW;
	img[4][0] = pg(5) | SL_RW;
	img[5][0] = 0x40000000ull | SL_RW;
	img[5][1] = 0x40001000ull | SL_RW;
	random_page(6);
	img[7][0] = pg(1) | P | 1 << 5;
	img[8][0] = 0x900000 | P;
	img[9][0] = pg(1) | P;
	img[9][2] = 0x900000 | P;
	img[10][0] = pg(11) | P;
	img[11][0] = pg(2) | P | 1 << 4;
	img[11][1] = 2;
}

static const struct pt_iommu_cand *io_find(const struct pt_iommu_roots *r, uint64_t addr)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->c[i].addr == addr)
			return &r->c[i];
	return NULL;
}

/*
 * The [iommu] section roots writes for a candidate: its comment reads the
 * register through the family's decoders (AMD-Vi §3.3.1 Size 8:0 is the
 * pages less one, 128 DTEs a page; VT-d §11.4.5 TTM 11:10).
 */
START_TEST(test_iommu_section_text)
{
	struct pt_iommu_cand c = {.type = "amd-vi", .space = "sysmem", .addr = 0x100000,
				  .reg = 0x100002};
	struct pt_buf b;

	pt_buf_init(&b);
	pt_roots_iommu_section(&c, &b);
	ck_assert_msg(strstr(b.data, "; Device Table Base Address: base 0x100000, Size 2 (3 pages:"
			     " DeviceIDs 0-0x17f)\n"), "%s", b.data);
	ck_assert_msg(strstr(b.data, "dev_table_base = 0x100002\n"), "%s", b.data);
	pt_buf_reset(&b);
	c = (struct pt_iommu_cand){.type = "intel-vtd", .space = "sysmem", .addr = 0x200000,
				   .reg = 0x200400};
	pt_roots_iommu_section(&c, &b);
	ck_assert_msg(strstr(b.data, "TTM 01 (scalable mode)\n"), "%s", b.data);
	pt_buf_reset(&b);
	c.reg = 0x200000;
	pt_roots_iommu_section(&c, &b);
	ck_assert_msg(strstr(b.data, "TTM 00 (legacy mode)\n"), "%s", b.data);
	pt_buf_free(&b);
}
END_TEST

START_TEST(test_iommu_vtd)
{
	struct pt_iommu_roots_opts o = {.type = "intel-vtd"};
	struct pt_iommu_roots r;
	const struct pt_iommu_cand *c;
	struct pt_buf b;
	char err[256], *dir;
	struct pt_capture *cap;

	build_vtd();
	cap = load_img(&dir, "[cpu a]\ncr3 = 0x10d000\n");   /* page 13: empty */
	ck_assert_int_eq(pt_roots_iommu_scan(cap, &o, &r, NULL, err, sizeof err), PT_OK);
	ck_assert_uint_eq(r.n, 2);
	c = &r.c[0];
	ck_assert_uint_eq(c->addr, pg(0));
	ck_assert_str_eq(c->mode, "legacy");
	ck_assert_uint_eq(c->reg, pg(0));
	ck_assert_uint_eq(c->devices, 2);
	ck_assert_uint_eq(c->good, 2);
	ck_assert_uint_eq(c->bad + c->uncaptured, 0);
	ck_assert_uint_eq(c->score, 100);
	ck_assert_uint_eq(c->tables, 3);
	ck_assert_uint_eq(c->leaves, 2);
	ck_assert_ptr_null(c->root_of);
	/* a bus pointing outside memory: found, scoring lower (2 good of 3) */
	c = &r.c[1];
	ck_assert_uint_eq(c->addr, pg(9));
	ck_assert_uint_eq(c->uncaptured, 1);
	ck_assert_uint_eq(c->score, 66);
	/* decoys: random words, a reserved bit, a pointer outside memory, a refused context entry */
	for (unsigned i = 1; i <= 11; i++)
		ck_assert_msg(i == 9 || !io_find(&r, pg(i)), "page %u suggested", i);
	pt_buf_init(&b);
	pt_roots_iommu_section(&r.c[0], &b);
	ck_assert_ptr_nonnull(strstr(b.data, "[iommu root-100000]\ntype = intel-vtd\n"));
	ck_assert_ptr_nonnull(strstr(b.data, "\nrtaddr = 0x100000\n"));
	ck_assert_ptr_nonnull(strstr(b.data, "\nspace = sysmem\noutput_space = sysmem\n"));
	pt_buf_free(&b);
	pt_roots_iommu_free(&r);
	/* min_score leaves the lower one out */
	o.min_score = 67;
	ck_assert_int_eq(pt_roots_iommu_scan(cap, &o, &r, NULL, err, sizeof err), PT_OK);
	ck_assert_uint_eq(r.n, 1);
	pt_roots_iommu_free(&r);
	o.type = "nope";
	ck_assert_int_eq(pt_roots_iommu_scan(cap, &o, &r, NULL, err, sizeof err), PT_E_NOTFOUND);
	ck_assert_ptr_nonnull(strstr(err, "unknown IOMMU type 'nope'"));
	o.type = "intel-vtd";
	o.space = "vram";
	ck_assert_int_eq(pt_roots_iommu_scan(cap, &o, &r, NULL, err, sizeof err), PT_E_NOTFOUND);
	pt_capture_free(cap);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

/*
 * AMD-Vi (AMD IOMMU spec §2.2.2 DTE: V 0, TV 1, 6:2 reserved, Mode 11:9,
 * root 51:12, IR 61, IW 62) at page 12: DTE 0 pass-through, DTE 1 with
 * reserved bit 2, DTE 2 Mode 3 with its root outside memory.  SMMUv3
 * (IHI 0070 §5.2 STE: V 0, Config 3:1) at page 14: STEs 0, 2, 3 bypass,
 * STE 1 abort with a stage-1 pointer.  Page 15: a bypass STE with RES0
 * bit 52.
 * The VT-d tables of build_vtd() and the random page are decoys for both.
 */
START_TEST(test_iommu_amdvi_smmu)
{
	struct pt_iommu_roots_opts o = {.type = "amd-vi"};
	struct pt_iommu_roots r;
	const struct pt_iommu_cand *c;
	char err[256], *dir;
	struct pt_capture *cap;

	build_vtd();
	img[12][0] = 3 | 3ull << 61;
	img[12][4] = 3 | 4ull << 9 | pg(2) | 1 << 2;
	img[12][8] = 3 | 3ull << 9 | 0x900000;
	img[14][0] = 1 | 4 << 1;
	img[14][8] = 1 | pg(2);
	img[14][16] = 1 | 4 << 1;
	img[14][24] = 1 | 4 << 1;
	img[15][0] = 1 | 4 << 1 | 1ull << 52;
	cap = load_img(&dir, "[cpu a]\ncr3 = 0x10d000\n");   /* page 13: empty */
	ck_assert_int_eq(pt_roots_iommu_scan(cap, &o, &r, NULL, err, sizeof err), PT_OK);
	ck_assert_uint_eq(r.n, 1);
	c = &r.c[0];
	ck_assert_uint_eq(c->addr, pg(12));
	ck_assert_uint_eq(c->reg, pg(12));   /* Size 0: one page */
	ck_assert_uint_eq(c->devices, 3);
	ck_assert_uint_eq(c->good, 1);
	ck_assert_uint_eq(c->bad, 1);
	ck_assert_uint_eq(c->uncaptured, 1);
	ck_assert_uint_eq(c->score, 16);     /* 1 of 3, halved: no page table confirms it */
	pt_roots_iommu_free(&r);
	o.type = "arm-smmuv3";
	ck_assert_int_eq(pt_roots_iommu_scan(cap, &o, &r, NULL, err, sizeof err), PT_OK);
	ck_assert_uint_eq(r.n, 1);
	c = &r.c[0];
	ck_assert_uint_eq(c->addr, pg(14));
	ck_assert_str_eq(c->mode, "linear");
	ck_assert_uint_eq(c->reg2, 2);       /* LOG2SIZE 2: StreamIDs 0 to 3 */
	ck_assert_uint_eq(c->good, 3);
	ck_assert_uint_eq(c->bad, 1);
	ck_assert_uint_eq(c->score, 37);     /* 3 of 4, halved: bypass only */
	pt_roots_iommu_free(&r);
	pt_capture_free(cap);
	tu_rmtree(dir);
	free(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("roots");
	TCase *t = tcase_create("score");

	tcase_add_test(t, test_score);
	suite_add_tcase(s, t);
	t = tcase_create("scan");
	tcase_add_test(t, test_scan_counts);
	tcase_add_test(t, test_scan_two_formats);
	tcase_add_test(t, test_scan_errors);
	tcase_add_test(t, test_scan_readctl_progress);
	suite_add_tcase(s, t);
	t = tcase_create("rule");
	tcase_add_test(t, test_rule_x86);
	suite_add_tcase(s, t);
	t = tcase_create("section");
	tcase_add_test(t, test_section);
	suite_add_tcase(s, t);
	t = tcase_create("iommu");
	tcase_add_test(t, test_iommu_vtd);
	tcase_add_test(t, test_iommu_section_text);
	tcase_add_test(t, test_iommu_amdvi_smmu);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
