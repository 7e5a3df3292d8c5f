/*
 * test_hostile: hostile input, end to end.  Every capture is built at test
 * time in a fresh temporary directory (archives with libarchive's write
 * API), loaded with pt_capture_load(), and must either load correctly or
 * fail with its expected pt_err and a message that names capture.ini:LINE
 * or the member at fault — never crash, leak (CI runs this under ASan) or
 * run unbounded.  The walker half feeds self-referencing, mutually
 * referencing and all-ones tables to the walker, the page iterator,
 * pt_context_scan() and every renderer.
 *
 * Crashes found by the fuzz targets (fuzz/) become regression tests in the
 * "regressions" TCase at the end.
 */
#include "hostile_util.h"
/* ==== the walker on hostile tables (synth.c's vidmem 0x100000..0x10ffff) ==== */

/*
 * Exercises everything that reads a context: walks of VAS, the page
 * iterator (at most MAXPAGES pages; returns the count), scan, and every
 * renderer over the root table and the pages found.  Must finish.
 */
static uint64_t exercise(const struct pt_context *c, const uint64_t *vas, size_t nvas,
			 uint64_t maxpages, bool full)
{
	struct pt_buf b;
	struct pt_walk w;
	struct pt_page_iter it;
	struct pt_page pg;
	struct pt_stats st;
	struct pt_table root;
	struct pt_entry e;
	uint64_t n = 0;

	pt_buf_init(&b);
	for (size_t i = 0; i < nvas; i++) {
		ck_assert_int_eq(pt_walk_va(c, vas[i], &w), PT_OK);
		ck_assert_uint_le(w.nsteps, PT_MAX_DEPTH + 1);
		ck_assert_int_eq(pt_render_walk(&b, c, &w, PT_OUT_TEXT), PT_OK);
		ck_assert_int_eq(pt_render_walk(&b, c, &w, PT_OUT_JSON), PT_OK);
		pt_buf_reset(&b);
	}
	pt_pages_init(&it, c, 0, NULL);
	while (n < maxpages && pt_pages_next(&it, &pg)) {
		struct pt_loc loc;
		uint64_t prev = pg.va;

		ck_assert_uint_gt(pg.size, 0);
		if (n < 64) {
			ck_assert_int_eq(pt_node_resolve(&pg.node, &loc), PT_OK);
			ck_assert_int_eq(pt_render_entry(&b, &loc.table, loc.index, &loc.entry, PT_OUT_TEXT), PT_OK);
			pt_buf_reset(&b);
			ck_assert_int_eq(pt_walk_va(c, pg.va, &w), PT_OK);
			ck_assert_int_eq(w.fault, PT_FAULT_NONE);
			ck_assert_uint_eq(w.page_va, pg.va);
		}
		n++;
		(void)prev;
	}
	pt_table_root(c, &root);
	for (uint64_t i = 0; pt_table_next(&root, &i, true, 0, &e, NULL) && i < 64; i++) {
		ck_assert_int_eq(pt_render_entry(&b, &root, i, &e, PT_OUT_JSON), PT_OK);
		pt_buf_reset(&b);
	}
	if (full) {
		ck_assert_int_eq(pt_context_scan(c, &st, NULL, NULL, NULL), PT_OK);
		ck_assert_uint_eq(st.pages, n);
		ck_assert_int_eq(pt_render_maps(&b, c, PT_OUT_TEXT, NULL), PT_OK);
		pt_buf_reset(&b);
		ck_assert_int_eq(pt_render_maps(&b, c, PT_OUT_JSON, NULL), PT_OK);
		pt_buf_reset(&b);
		ck_assert_int_eq(pt_render_info(&b, c, PT_OUT_TEXT, NULL), PT_OK);
		pt_buf_reset(&b);
		ck_assert_int_eq(pt_render_info(&b, c, PT_OUT_JSON, NULL), PT_OK);
		ck_assert(!b.oom);
	}
	pt_buf_free(&b);
	return n;
}

static const uint64_t probe_vas[] = {
	0, 0x1000, 0x10000, 0x200000, 0x40000000, 0x8000000000ull, 0x1000000000000ull - 1,
	0x1ffffffffffffull, 0x2000000000000ull, UINT64_MAX,
};
#define NPROBES (sizeof probe_vas / sizeof *probe_vas)

START_TEST(self_reference)
{
	/* Every level points back at the root table: terminates at PT_MAX_DEPTH. */
	double t0 = now_s();
	struct pt_walk w;

	build_ver2();
	synth_clear();
	put64(PD3, pde_vid(PD3));
	put64(PD3 + 8, pde_vid(PD3) | 1ull << 32);   /* and one that only looks close */
	synth_reload();
	ck_assert_int_eq(pt_walk_va(&ctx, 0, &w), PT_OK);
	ck_assert_uint_le(w.nsteps, PT_MAX_DEPTH);
	ck_assert_int_ne(w.fault, PT_FAULT_NONE);
	exercise(&ctx, probe_vas, NPROBES, 1u << 20, true);
	ck_assert_msg(now_s() - t0 < 10, "took %.1f s", now_s() - t0);
	teardown();
}
END_TEST

START_TEST(dual_self_reference)
{
	/* A dual PDE0 whose big and small halves point at its own table. */
	double t0 = now_s();

	build_ver2();
	synth_clear();
	chain_to_pd0();
	put64(PD0, dual_big_vid(PD0));
	put64(PD0 + 8, dual_small_vid(PD0));
	synth_reload();
	exercise(&ctx, probe_vas, NPROBES, 1u << 20, true);
	ck_assert_msg(now_s() - t0 < 10, "took %.1f s", now_s() - t0);
	teardown();
}
END_TEST

START_TEST(mutual_reference)
{
	/* Two tables pointing at each other at every level; pages found are walkable. */
	double t0 = now_s();
	uint64_t n;

	build_ver2();
	synth_clear();
	for (int i = 0; i < 4; i++)
		put64(PD3 + 8 * i, pde_vid(PD2));
	for (int i = 0; i < 2; i++) {
		put64(PD2 + 8 * i, pde_vid(PD3));       /* PD2 -> PD3 (read as pde1) */
		put64(PD3 + 0x800 + 8 * i, pde_vid(PD2));
	}
	/* PD2 read as pde0 (16-byte entries): entry 0 = {pde(PD3), pde(PD3)}: dual pointers */
	put64(PD2 + 0x100, pte(2, 0x5000000, 0));       /* a 2 MiB PTE where read as pde0 */
	synth_reload();
	n = exercise(&ctx, probe_vas, NPROBES, 1u << 22, true);
	ck_assert_uint_lt(n, 1u << 22);
	ck_assert_msg(now_s() - t0 < 20, "took %.1f s", now_s() - t0);
	teardown();
}
END_TEST

START_TEST(aliasing_fanout)
{
	/*
	 * 256 PDE0 entries all pointing at one small table of 512 pages: the
	 * tree shows 131072 pages; the scan counts the shared table once.
	 */
	double t0 = now_s();
	struct pt_stats st;
	uint64_t n;

	build_ver2();
	synth_clear();
	chain_to_pd0();
	for (int i = 0; i < 256; i++)
		put64(PD0 + 16 * i + 8, dual_small_vid(PTS));
	for (int i = 0; i < 512; i++)
		put64(PTS + 8 * i, pte(2, 0x10000000ull + 0x1000ull * i, 0));
	synth_reload();
	n = exercise(&ctx, probe_vas, NPROBES, 1u << 20, true);
	ck_assert_uint_eq(n, 256 * 512);
	ck_assert_int_eq(pt_context_scan(&ctx, &st, NULL, NULL, NULL), PT_OK);
	ck_assert_uint_eq(st.tables[5], 1);     /* pte_small counted once */
	ck_assert_uint_eq(st.pages, 256 * 512);
	ck_assert_msg(now_s() - t0 < 30, "took %.1f s", now_s() - t0);
	teardown();
}
END_TEST

static unsigned anomalies;

static void count_anomaly(void *ud, const struct pt_anomaly *a)
{
	struct pt_buf *b = ud;

	anomalies++;
	pt_buf_reset(b);
	pt_render_anomaly(b, &ctx, a, PT_OUT_TEXT);
	pt_render_anomaly(b, &ctx, a, PT_OUT_JSON);
}

START_TEST(reserved_everywhere)
{
	/*
	 * Every byte 0xff: every entry has every bit set.  The walk faults
	 * (reserved bits or unsupported) at the root; nothing is listed as a
	 * page; the scan reports the anomalies.
	 */
	struct pt_walk w;
	struct pt_stats st;
	struct pt_buf b;

	build_ver2();
	for (uint64_t pa = 0x100000; pa < 0x110000; pa += 8)
		put64(pa, UINT64_MAX);
	synth_reload();
	for (size_t i = 0; i < NPROBES; i++) {
		ck_assert_int_eq(pt_walk_va(&ctx, probe_vas[i], &w), PT_OK);
		ck_assert_int_ne(w.fault, PT_FAULT_NONE);
	}
	exercise(&ctx, probe_vas, NPROBES, 1u << 20, true);
	pt_buf_init(&b);
	anomalies = 0;
	ck_assert_int_eq(pt_context_scan(&ctx, &st, count_anomaly, &b, NULL), PT_OK);
	ck_assert_uint_gt(anomalies, 0);
	ck_assert_uint_eq(st.anomalies, anomalies);
	pt_buf_free(&b);
	/* Every pattern of one set bit in a root entry and in a pde0/pte entry decodes and renders. */
	for (int bit = 0; bit < 64; bit++) {
		synth_clear();
		chain_to_pd0();
		put64(PD0, dual_big_vid(PTB) | 1ull << bit);
		put64(PD0 + 8, dual_small_vid(PTS) | 1ull << bit);
		put64(PTS, pte(2, 0x1000000, 0) | 1ull << bit);
		put64(PTB, pte(0, 0x40000000, 0) | 1ull << bit);
		put64(PD3 + 8, 1ull << bit);
		synth_reload();
		exercise(&ctx, probe_vas, NPROBES, 1u << 16, true);
	}
	teardown();
}
END_TEST

START_TEST(gart_hostile)
{
	/* A flat GART over all-0xff memory, all-zero memory, and pointing at itself. */
	uint64_t raw[PT_GR__COUNT] = {0};
	bool has[PT_GR__COUNT] = {false};
	char err[256];
	struct pt_context g;
	static const uint64_t vas[] = {0, 0x1000, 0x1fff000, 0x2000000, 0x7fff00000000ull, UINT64_MAX};

	build_ver2();
	raw[PT_GR_PT_BASE] = 0x100000 | 1;
	raw[PT_GR_PT_START] = 0;
	raw[PT_GR_PT_END] = 0x1fff;    /* 8192 entries = the whole 64 KiB */
	has[PT_GR_PT_BASE] = has[PT_GR_PT_START] = has[PT_GR_PT_END] = true;
	memset(&g, 0, sizeof g);
	memset(&gl, 0, sizeof gl);
	g.priv = &gl;
	g.name = "gart0";
	g.fmt = &pt_format_gart;
	ck_assert_int_eq(pt_gart_layout_decode(raw, has, &gl, err, sizeof err), PT_OK);
	g.root_space = gl.table_space;
	g.root_addr = gl.table_addr;
	g.root_entries = gl.entries;
	g.root_page_shift = 12 + gl.bfs;
	g.va_base = gl.va_start;
	for (int pass = 0; pass < 3; pass++) {
		synth_clear();
		for (uint64_t pa = 0x100000; pa < 0x110000; pa += 8)
			put64(pa, pass == 0 ? UINT64_MAX
				  : pass == 1 ? 0
				  : (0x100000 + pa) | 0x77);    /* maps the table's own memory */
		synth_reload();
		g.mem = mem;
		ck_assert_uint_le(exercise(&g, vas, 6, 1u << 20, true), 8192);
	}
	/* Hostile register values: decode or fail, never crash. */
	for (int i = 0; i < 64; i++) {
		uint64_t r[PT_GR__COUNT];
		bool h[PT_GR__COUNT];
		struct pt_gart_layout l;

		for (int k = 0; k < PT_GR__COUNT; k++) {
			r[k] = (uint64_t)-1 >> (i % 64) ^ ((uint64_t)k << (i % 61));
			h[k] = (i + k) % 3 != 0;
		}
		(void)pt_gart_layout_decode(r, h, &l, err, sizeof err);
	}
	teardown();
}
END_TEST

START_TEST(self_reference_loaded)
{
	/* The same through a real archive: a self-referencing root in a loaded capture. */
	static const char ini[] =
		CAPH "[memory m]\nspace = vidmem\nbase = 0x200000\nfile = a.bin\n"
		"[pdb p]\nspace = vidmem\naddress = 0x200000\n"
		"[pdb q]\nspace = vidmem\naddress = 0x201000\n";
	static uint8_t blob[0x2000];
	struct mspec m[] = {INI(ini), BLOB("a.bin", blob)};
	uint64_t to0 = ((0x200000ull >> 12) << 8) | 2, to1 = ((0x201000ull >> 12) << 8) | 2;
	struct pt_capture *c;
	char *p;

	for (int i = 0; i < 4; i++)
		for (int b = 0; b < 8; b++) {
			blob[8 * i + b] = (uint8_t)(to0 >> (8 * b));             /* p: all to itself */
			blob[0x1000 + 8 * i + b] = (uint8_t)(to0 >> (8 * b));    /* q: to p */
		}
	for (int b = 0; b < 8; b++)
		blob[0x20 + b] = (uint8_t)(to1 >> (8 * b));                       /* p[4] (pde2 view) -> q */
	p = make_tar(AU_NONE, m, 2);
	c = load(p, PT_OK, NULL);
	for (size_t i = 0; i < pt_capture_context_count(c); i++)
		exercise(pt_capture_context(c, i), probe_vas, NPROBES, 1u << 20, true);
	pt_capture_free(c);
	free(p);
}
END_TEST

/* ==== regressions from fuzzing (fuzz/) ==== */

START_TEST(ini_uint_edges)
{
	static const char *const bad[] = {"", "0x", "x1", "0x-1", "-0", "+1", "1K2", "0xG", "1KK",
					  "18446744073709551616", "0x10000000000000000",
					  "16777216T", "0x1000000000000000K", "18014398509481984K",
					  "17592186044416M", "17179869184G", " 1", "1 ", "00", "01"};
	static const struct {
		const char *s;
		uint64_t v;
	} good[] = {{"0", 0}, {"0x0", 0}, {"18446744073709551615", UINT64_MAX},
		    {"0xffffffffffffffff", UINT64_MAX}, {"64K", 65536}, {"64k", 65536},
		    {"17179869183G", 17179869183ull << 30}, {"0X10", 16}};
	uint64_t v;

	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		ck_assert_msg(pt_ini_uint(bad[i], &v) != PT_OK, "'%s' accepted as %" PRIu64, bad[i], v);
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		ck_assert_msg(pt_ini_uint(good[i].s, &v) == PT_OK, "'%s' rejected", good[i].s);
		ck_assert_uint_eq(v, good[i].v);
	}
}
END_TEST

START_TEST(path_normalise_edges)
{
	static const char *const never[] = {"", "/", "/a", "..", "../a", "a/..", "a/../b", ".", "./",
					    "./.", "//", "a/./../b"};
	static const struct {
		const char *in, *out;
	} ok[] = {{"./a", "a"}, {"a//b", "a/b"}, {"a/./b/", "a/b"}, {"././a", "a"}, {"...", "..."},
		  {"a..b", "a..b"}, {"..a", "..a"}};
	char buf[64];

	for (size_t i = 0; i < sizeof never / sizeof *never; i++) {
		snprintf(buf, sizeof buf, "%s", never[i]);
		ck_assert_msg(!pt_path_normalise(buf), "'%s' accepted as '%s'", never[i], buf);
	}
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
		snprintf(buf, sizeof buf, "%s", ok[i].in);
		ck_assert_msg(pt_path_normalise(buf), "'%s' refused", ok[i].in);
		ck_assert_str_eq(buf, ok[i].out);
	}
}
END_TEST

START_TEST(ini_error_printable)
{
	/* fuzz_ini: a CR or ESC in a key position was echoed raw into the message. */
	static const char *const texts[] = {
		"[capture]\nversion = 1\n\rofrmat = amd-gart\n",
		"[capture]\nversion = 1\n\x1b[31mfoo = 1\n",
		"[capture]\nversion = 1\nformat = nv-gmmu-ver2\n[pdb \x1b]\n",
		"[capture]\n\x7fkey = 1\n",
		"[capture]\nversion = 1\n\xc2\x9bkey = 1\n",
		"\x01",
	};

	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		struct pt_manifest *m = NULL;
		char err[512] = "";

		ck_assert_int_ne(pt_manifest_parse(texts[i], strlen(texts[i]), &m, err, sizeof err), PT_OK);
		ck_assert_ptr_null(m);
		ck_assert_msg(!strncmp(err, "capture.ini:", 12), "'%s'", err);
		ck_assert_msg(printable(err), "text %zu: control character in the message", i);
	}
}
END_TEST

START_TEST(render_empty_json)
{
	/*
	 * fuzz_capture / fuzz_decode_walk: a JSON object with no members made
	 * jobj_finish() call qsort(NULL, 0, ...) — undefined behaviour that
	 * UBSan (the CI ASan job) reports.  A capture without x- keys, the
	 * info of an empty context and a walk that faults before any read.
	 */
	char *p = with_ini(GOOD_INI);
	struct pt_capture *c = load(p, PT_OK, NULL);
	const struct pt_context *x = pt_capture_context(c, 0);
	struct pt_buf b;
	struct pt_walk w;

	pt_buf_init(&b);
	ck_assert_int_eq(pt_render_capture(&b, c, PT_OUT_JSON), PT_OK);
	pt_buf_reset(&b);
	ck_assert_int_eq(pt_render_info(&b, x, PT_OUT_JSON, NULL), PT_OK);
	pt_buf_reset(&b);
	ck_assert_int_eq(pt_walk_va(x, UINT64_MAX, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_OUT_OF_RANGE);
	ck_assert_int_eq(pt_render_walk(&b, x, &w, PT_OUT_JSON), PT_OK);
	ck_assert(b.len > 0 && !b.oom);
	pt_buf_free(&b);
	pt_capture_free(c);
	free(p);
}
END_TEST

/* ==== issue 16.7 ==== */

/*
 * A capture.ini that is a link is not read (only regular files are), and
 * the error says what it found instead of "no capture.ini".
 */
START_TEST(capture_ini_link_named)
{
	struct mspec sym[] = {{"capture.ini", 'l', NULL, 0, 0, "real.ini"}, INI(GOOD_INI),
			      BLOB("a.bin", good_blob)};
	struct mspec hard[] = {INI(GOOD_INI), {"top/capture.ini", 'h', NULL, 0, 0, "real.ini"},
			       BLOB("top/a.bin", good_blob)};
	struct mspec dirsym[] = {{"top/capture.ini", 'l', NULL, 0, 0, "../x.ini"},
				 BLOB("top/a.bin", good_blob)};
	char *p, *d, *ini;

	good_fill();
	sym[1].name = "real.ini";
	p = make_tar(AU_NONE, sym, 3);
	load_free(p, PT_E_CAPTURE,
		  "capture.ini is a symbolic link; ptfs reads only regular files");
	free(p);
	hard[0].name = "real.ini";
	p = make_tar(AU_GZ, hard, 3);
	load_free(p, PT_E_CAPTURE,
		  "top/capture.ini is a hard link; ptfs reads only regular files");
	free(p);
	p = make_tar(AU_GZ, dirsym, 2);
	load_free(p, PT_E_CAPTURE,
		  "top/capture.ini is a symbolic link; ptfs reads only regular files");
	free(p);
	/* a regular one in the only top-level directory still wins over a root link */
	sym[1].name = "top/capture.ini";
	sym[2].name = "top/a.bin";
	p = make_tar(AU_NONE, sym, 3);
	load_free(p, PT_OK, NULL);
	free(p);
	/* a directory capture */
	d = tpath("dirlink");
	ck_assert_int_eq(mkdir(d, 0755), 0);
	ck_assert_int_ge(asprintf(&ini, "%s/capture.ini", d), 0);
	ck_assert_int_eq(symlink("/etc/passwd", ini), 0);
	load_free(d, PT_E_CAPTURE,
		  "capture.ini is a symbolic link; ptfs reads only regular files");
	free(ini);
	free(d);
}
END_TEST

/* ---- sources read natively (issue #13): hostile umr logs, a huge zero gem5 image ---- */

/* umr registers of a VMID0 GART at vram 0x900000 (umr's direct_vm_test0), then RECORDS. */
#define UMR_REGS \
	"MMIO@0xA42C={0x0} ; mmVM_CONTEXT0_PAGE_TABLE_START_ADDR_LO32\n" \
	"MMIO@0xA430={0x0} ; mmVM_CONTEXT0_PAGE_TABLE_START_ADDR_HI32\n" \
	"MMIO@0xA5AC={0x40} ; mmMC_VM_FB_OFFSET\n" \
	"MMIO@0xA3AC={0x40900001} ; mmVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32\n" \
	"MMIO@0xA3B0={0x0} ; mmVM_CONTEXT0_PAGE_TABLE_BASE_ADDR_HI32\n"

static const char *const umr_bad[] = {
	UMR_REGS "VRAM@0x902220={77608823020000",               /* truncated hex, no closing brace */
	UMR_REGS "VRAM@0x902220={776088230200000}\n",           /* odd number of hex digits */
	UMR_REGS "VRAM@0x902220={7760882302000006}\n"
		 "VRAM@0x902220={7760882302000007}\n",          /* a re-read that disagrees */
	UMR_REGS "VRAM@0xfffffffffffffffc={7760882302000006}\n",/* past 2^64 */
	UMR_REGS "VRAM@0x1fffffffffffffffff={00}\n",            /* more than 64 bits of address */
	UMR_REGS "SYSRAM@0x902220={zz}\n",                      /* not hex */
};

START_TEST(umr_hostile)
{
	char *path = tpath("run.envdef");
	struct pt_capture *cap = pt_capture_new();
	FILE *f = fopen(path, "w");
	pt_err rc;

	ck_assert_ptr_nonnull(f);
	fputs(umr_bad[_i], f);
	ck_assert_int_eq(fclose(f), 0);
	rc = pt_capture_load(cap, path);
	ck_assert_msg(rc != PT_OK, "case %d loaded", _i);
	/* One line naming the file and its line; never half loaded. */
	ck_assert_msg(strncmp(pt_capture_error(cap), "run.envdef:", 11) == 0, "case %d: %s", _i,
		      pt_capture_error(cap));
	ck_assert_uint_eq(pt_capture_context_count(cap), 0);
	ck_assert_ptr_null(pt_capture_mem(cap));
	pt_capture_free(cap);
	free(path);
}
END_TEST

/* The agreeing re-read loads: the same bytes merge (docs/design.md §3.1). */
START_TEST(umr_agreeing_reread)
{
	char *path = tpath("run.envdef");
	struct pt_capture *cap = pt_capture_new();
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(UMR_REGS "MMIO@0xA434={0x7ff} ; mmVM_CONTEXT0_PAGE_TABLE_END_ADDR_LO32\n"
	      "MMIO@0xA438={0x0} ; mmVM_CONTEXT0_PAGE_TABLE_END_ADDR_HI32\n"
	      "VRAM@0x902220={7760882302000006}\nVRAM@0x902224={02000006}\n", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_msg(pt_capture_load(cap, path) == PT_OK, "%s", pt_capture_error(cap));
	ck_assert_uint_eq(pt_capture_context_count(cap), 1);
	ck_assert_str_eq(pt_capture_source_kind(cap), "umr log");
	pt_capture_free(cap);
	free(path);
}
END_TEST

/*
 * A gem5 checkpoint whose device store is GIB GiB of zeros, gzip'd: it must
 * load in one streaming pass with no RAM for the zero pages.  4 GiB, not
 * the 16 GiB of a real MI300 image, to keep CI time small: the cost per
 * byte is the same (one inflate, one zero test per 4 KiB chunk).
 */
#define HUGE_GIB 16u
START_TEST(gem5_huge_zero_image)
{
	static uint8_t zero[1 << 20];
	char *dir = tpath("cpt.1"), *cpt, *img;
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	struct pt_capture *cap = pt_capture_new();
	struct rusage ru;
	uint64_t size = (uint64_t)HUGE_GIB << 30;
	FILE *f;

	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_ge(asprintf(&cpt, "%s/m5.cpt", dir), 0);
	ck_assert_int_ge(asprintf(&img, "%s/gpu.deviceMem.store0.pmem", dir), 0);
	f = fopen(cpt, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "[gpu.deviceMem]\nnbr_of_stores=1\n\n[gpu.deviceMem.store0]\nstore_id=0\n"
		"filename=gpu.deviceMem.store0.pmem\nrange_size=%" PRIu64 "\n\n[gpu.GPUVM]\n"
		"vm0PTBase=1048576\nvm0PTStart=0\nvm0PTEnd=511\n"
		"ptBase=0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", size);
	ck_assert_int_eq(fclose(f), 0);
	/* gzip -1 of the zeros, streamed: the test never holds the image either. */
	ck_assert_int_eq(archive_write_set_format_raw(a), ARCHIVE_OK);
	ck_assert_int_eq(archive_write_add_filter_gzip(a), ARCHIVE_OK);
	ck_assert_int_eq(archive_write_set_filter_option(a, "gzip", "compression-level", "1"), ARCHIVE_OK);
	ck_assert_int_eq(archive_write_open_filename(a, img), ARCHIVE_OK);
	archive_entry_set_pathname(e, "data");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_size(e, (la_int64_t)size);
	ck_assert_int_eq(archive_write_header(a, e), ARCHIVE_OK);
	for (uint64_t off = 0; off < size; off += sizeof zero)
		ck_assert_int_eq(archive_write_data(a, zero, sizeof zero), (la_ssize_t)sizeof zero);
	ck_assert_int_eq(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	archive_entry_free(e);

	ck_assert_msg(pt_capture_load(cap, dir) == PT_OK, "%s", pt_capture_error(cap));
	ck_assert_str_eq(pt_capture_source_kind(cap), "gem5 checkpoint");
	ck_assert_uint_eq(pt_capture_region(cap, 0)->size, size);
	ck_assert_uint_eq(pt_mem_resident(pt_capture_mem(cap)), 0);
	ck_assert_int_eq(getrusage(RUSAGE_SELF, &ru), 0);
	ck_assert_msg(ru.ru_maxrss < 256 * 1024, "max RSS %ld KiB for a %u GiB zero image", ru.ru_maxrss, HUGE_GIB);
	pt_capture_free(cap);
	free(cpt);
	free(img);
	free(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("hostile");
	TCase *tc;

	hostile_add_load(s);

	tc = tcase_create("tables");
	tcase_add_checked_fixture(tc, setup, cleanup);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, self_reference);
	tcase_add_test(tc, dual_self_reference);
	tcase_add_test(tc, mutual_reference);
	tcase_add_test(tc, aliasing_fanout);
	tcase_add_test(tc, reserved_everywhere);
	tcase_add_test(tc, gart_hostile);
	tcase_add_test(tc, self_reference_loaded);
	suite_add_tcase(s, tc);

	tc = tcase_create("regressions");
	tcase_add_checked_fixture(tc, setup, cleanup);
	tcase_add_test(tc, ini_uint_edges);
	tcase_add_test(tc, path_normalise_edges);
	tcase_add_test(tc, ini_error_printable);
	tcase_add_test(tc, render_empty_json);
	suite_add_tcase(s, tc);

	tc = tcase_create("sources");
	tcase_add_checked_fixture(tc, setup, cleanup);
	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, umr_hostile, 0, (int)(sizeof umr_bad / sizeof *umr_bad));
	tcase_add_test(tc, umr_agreeing_reread);
	tcase_add_test(tc, gem5_huge_zero_image);
	suite_add_tcase(s, tc);

	tc = tcase_create("issue16");
	tcase_add_checked_fixture(tc, setup, cleanup);
	tcase_add_test(tc, capture_ini_link_named);
	suite_add_tcase(s, tc);

	hostile_add_bounded(s);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
