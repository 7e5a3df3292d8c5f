/* SPDX-License-Identifier: MIT */
/*
 * test_build_fmt: the encoders of the formats whose context chooses the
 * geometry (amd-gpuvm, x86-64, intel-vtd, intel-ept, amd-vi, arm64; issue
 * #25 item 4; arm-smmuv3, issue #23 item 6), as properties:
 *
 * - tables: encode(decode(x)) == x for every entry of every table of the
 *   committed fixtures of those formats, decoded where the walker reads it
 *   (its context's descriptor, its table's page shift);
 * - variants: the same over random words (a fixed seed) for every
 *   context variant a capture can choose (gfx 9-12 x depth 0-3, NXE x
 *   MAXPHYADDR, 3/4/5 levels, Mode 1-6, every pair of spaces, arm64's
 *   granules x DS x output sizes and stage 2 with and without XNX), so that
 *   each per-context encoder is the inverse of its own decoder;
 * - build then walk: random mapping lists (fixed seeds) built into tables
 *   with core/walk/build.c and walked back with pt_walk_va() (every 4 KiB of
 *   each map's ends, one per 2 MiB between): each page at its PA, in its
 *   space, with its rights, and the VA just past each mapping unmapped.
 *
 * test_build_cli.py does the last through `ptfs-tool build` and `maps`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_buf.h"
#include "pt_build.h"
#include "pt_capture.h"
#include "pt_mem.h"
#include "pt_walk.h"
#include "testutil.h"
#include "walk_int.h"

static uint64_t rng;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic, so a failure names a reproducible value */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

/* Decodes RAW at LEVEL with SHIFT, encodes it back; false where skipped (unsupported). */
static bool roundtrip(const struct pt_format *fmt, unsigned level, unsigned shift, const uint8_t *raw,
		      const char *where)
{
	struct pt_entry e;
	uint8_t out[16] = { 0 };
	char err[256] = "";
	uint64_t a = 0, b = 0;

	if (fmt->decode(level, shift, raw, 0, &e) != PT_OK || e.state == PT_ST_UNSUPPORTED)
		return false;
	ck_assert_msg(fmt->encode(level, &e, out, err, sizeof err) == PT_OK, "%s %s %s: encode failed: %s",
		      where, fmt->name, fmt->levels[level].name, err);
	memcpy(&a, raw, 8);
	memcpy(&b, out, 8);
	ck_assert_msg(a == b, "%s %s %s (shift %u): 0x%016llx encodes back as 0x%016llx (state %s)", where,
		      fmt->name, fmt->levels[level].name, shift, (unsigned long long)a,
		      (unsigned long long)b, pt_state_name(e.state));
	return true;
}

/*
 * pt_wk_next_nonzero() from every index I of T is the first entry after I
 * that is not zero (or not readable), or, past a 1 KiB read of zeros, a
 * zero entry before it (its bound per call, so that the caller's count of
 * entries read still bounds a scan of mapped zeros): it once stopped at the next entry of
 * any memory that was data rather than a hole (a mapped ELF dump's zero
 * table entries were then read one at a time; bench/tasks).
 */
static void next_nonzero_exact(const struct pt_table *t, const char *fixture)
{
	uint64_t next = t->entries;

	if (pt_wk_translated(t) || t->entries > 4096)
		return;
	for (uint64_t i = t->entries; i-- > 0;) {
		uint8_t raw[16];

		uint64_t got = pt_wk_next_nonzero(t, i), sz = t->ctx->fmt->levels[t->level].entry_size;

		/* NEXT, or a zero entry at least one 1 KiB read past I (the bound per call, walk.c WK_ZERO_SCAN) */
		ck_assert_msg(got == next || (got < next && got >= i + 1 + 1024 / sz),
			      "%s: level %d table 0x%llx: from %llu: %llu, want %llu", fixture, t->level,
			      (unsigned long long)t->addr, (unsigned long long)i, (unsigned long long)got,
			      (unsigned long long)next);
		if (!pt_wk_raw(t, i, raw) || !pt_wk_raw_zero(raw))
			next = i;
	}
}

/* Every entry of table T and of every table below it; counts the valid ones (mapped or pointer). */
static unsigned walk_tables(const struct pt_table *t, const char *fixture, unsigned depth)
{
	unsigned valid = 0;

	ck_assert_uint_lt(depth, PT_MAX_DEPTH);
	next_nonzero_exact(t, fixture);
	for (uint64_t i = 0; i < t->entries; i++) {
		uint8_t raw[16];
		struct pt_entry e;
		struct pt_table child;

		if (!pt_wk_raw(t, i, raw)) {
			i = pt_wk_next_captured(t, i) - 1;
			continue;
		}
		if (pt_wk_raw_zero(raw))
			continue;
		roundtrip(t->ctx->fmt, (unsigned)t->level, t->page_shift, raw, fixture);
		if (!pt_wk_decode(t, raw, 0, &e))
			continue;
		valid += e.state == PT_ST_MAPPED || e.state == PT_ST_POINTER;
		for (unsigned w = 0; e.state == PT_ST_POINTER && w < 2; w++)
			if (pt_table_child(t, i, &e, w, &child) && child.cover != PT_COVER_NONE)
				valid += walk_tables(&child, fixture, depth + 1);
	}
	return valid;
}

START_TEST(test_fixture_tables)
{
	static const struct {
		const char *fixture, *format;
		unsigned min;    /* valid entries at least: the fixture's tables were read */
	} fx[] = {
		{"amd-gfx9-vm.tar.gz", "amd-gpuvm", 8}, {"amd-gfx12-vm.tar.gz", "amd-gpuvm", 8},
		{"x86-64-4level.tar.gz", "x86-64", 8}, {"x86-64-5level.tar.gz", "x86-64", 8},
		{"qemu-x86.elf", "x86-64", 16}, {"vtd-sl.tar.gz", "intel-vtd", 8},
		{"ept-guest.tar.gz", "intel-ept", 8}, {"amdvi-v1.tar.gz", "amd-vi", 8},
		{"arm64-4k.tar.gz", "arm64", 8}, {"arm64-s2.tar.gz", "arm64", 4},
		{"smmu-v3.tar.gz", "arm-smmuv3", 8},
	};

	for (size_t f = 0; f < sizeof fx / sizeof fx[0]; f++) {
		struct pt_capture *cap = pt_capture_new();
		unsigned valid = 0, ctxs = 0;

		ck_assert_msg(pt_capture_load(cap, tu_fixture(fx[f].fixture)) == PT_OK, "%s: %s",
			      fx[f].fixture, pt_capture_error(cap));
		for (size_t c = 0; c < pt_capture_context_count(cap); c++) {
			const struct pt_context *ctx = pt_capture_context(cap, c);
			struct pt_table root;

			if (strcmp(ctx->fmt->name, fx[f].format) != 0)
				continue;
			ck_assert_ptr_nonnull(ctx->fmt->encode);
			pt_table_root(ctx, &root);
			valid += walk_tables(&root, fx[f].fixture, 0);
			ctxs++;
		}
		ck_assert_msg(ctxs > 0 && valid >= fx[f].min, "%s: %u contexts, %u valid entries",
			      fx[f].fixture, ctxs, valid);
		pt_capture_free(cap);
	}
}
END_TEST

/* A capture of INI's contexts (no memory: geometry only). */
static struct pt_capture *geometry(const char *ini, char **dir)
{
	struct pt_capture *cap = pt_capture_new();

	*dir = tu_mkdtemp();
	tu_write(*dir, "capture.ini", ini, strlen(ini));
	ck_assert_msg(pt_capture_load(cap, *dir) == PT_OK, "%s: %s", ini, pt_capture_error(cap));
	return cap;
}

static void drop(struct pt_capture *cap, char *dir)
{
	pt_capture_free(cap);
	tu_rmtree(dir);
	free(dir);
}

/* Random words at every level of the one context of INI; returns how many round-tripped. */
static unsigned variant(const char *ini, unsigned n)
{
	char *dir;
	struct pt_capture *cap = geometry(ini, &dir);
	const struct pt_context *ctx = pt_capture_context(cap, 0);
	const struct pt_format *fmt = ctx->fmt;
	unsigned checked = 0;

	rng = 0x9e3779b97f4a7c15ull;
	for (unsigned level = 0; fmt->levels[level].name; level++) {
		const struct pt_level *l = &fmt->levels[level];
		unsigned shift = l->bits ? l->va_shift : ctx->root_page_shift;

		for (unsigned i = 0; i < n; i++) {
			uint64_t v[2] = { rnd(), 0 };

			/* sparse values too, and present ones: most entries have few bits set */
			if (i & 1)
				v[0] &= rnd() & rnd();
			if (i & 2)
				v[0] |= 1;
			if (i & 4)
				v[0] |= 3;
			checked += roundtrip(fmt, level, shift, (const uint8_t *)v, ini);
		}
	}
	drop(cap, dir);
	return checked;
}

/* arm64: each granule x DS x output size at stage 1, and stage 2 (4K, concatenated, XNX 0/1). */
static void arm64_variants(char *ini, size_t len, unsigned *checked)
{
	static const unsigned gran[] = { 4096, 16384, 65536 }, pa[] = { 40, 48, 52 };

	for (unsigned g = 0; g < 3; g++)
		for (unsigned ds = 0; ds <= 1; ds++)
			for (unsigned p = 0; p < 3; p++) {
				snprintf(ini, len, "[capture]\nversion = 1\nformat = arm64\n[arm64 v]\n"
					 "ttbr = 0x100000\nhalf = %s\ngranule = %u\nva_bits = %u\n"
					 "pa_bits = %u\nds = %u\n", p & 1 ? "upper" : "lower", gran[g],
					 ds || g == 2 ? 52 : 48, pa[p], ds);
				*checked += variant(ini, 1000);
			}
	for (unsigned xnx = 0; xnx <= 1; xnx++) {
		snprintf(ini, len, "[capture]\nversion = 1\nformat = arm64\n[arm64 v]\nstage = 2\n"
			 "vttbr = 0x200000\nvtcr = 0x80023558\nxnx = %u\n", xnx);
		*checked += variant(ini, 4000);
	}
}

/*
 * arm-smmuv3: a stage-1 CD of each granule (TG0 0 4K, 2 16K, 1 64K) x IPS
 * 2/5/6 (40, 48, 52 bits) with the pages in each space, and a stage-2 STE
 * (Arm IHI 0070 §5.4 CD, §5.2 STE; field positions in fmt_smmuv3.c).
 */
static void smmuv3_variants(char *ini, size_t len, unsigned *checked)
{
	static const unsigned tg0[] = { 0, 2, 1 }, ips[] = { 2, 5, 6 };
	static const char *const sp[] = { "sysmem", "hpa", "gpa" };

	for (unsigned g = 0; g < 3; g++)
		for (unsigned p = 0; p < 3; p++) {
			unsigned long long cd0 = 16ull | (unsigned long long)tg0[g] << 6 | 1ull << 30 |
						 1ull << 31 | (unsigned long long)ips[p] << 32 | 1ull << 41;

			snprintf(ini, len, "[capture]\nversion = 1\nformat = arm-smmuv3\n[smmu v]\n"
				 "ste0 = 0xb\ncd0 = 0x%llx\ncd1 = 0x100000\noutput_space = %s\n", cd0,
				 sp[(g + p) % 3]);
			*checked += variant(ini, 1000);
		}
	snprintf(ini, len, "[capture]\nversion = 1\nformat = arm-smmuv3\n[smmu v]\nste0 = 0xd\n"
		 "ste2 = 0x%llx\nste3 = 0x200000\n", 16ull << 32 | 2ull << 38 | 5ull << 48 | 1ull << 51);
	*checked += variant(ini, 4000);
}

START_TEST(test_variants)
{
	static const char *const sp[] = { "sysmem", "hpa", "gpa" };
	char ini[512];
	unsigned checked = 0;

	for (unsigned gfx = 9; gfx <= 12; gfx++)
		for (unsigned depth = 0; depth <= 3; depth++) {
			snprintf(ini, sizeof ini, "[capture]\nversion = 1\nformat = amd-gpuvm\n[vm v]\n"
				 "gfx = %u\npage_table_base_addr = 0x1001\npage_table_end_addr = 0xfffff\n"
				 "page_table_depth = %u\npage_table_block_size = %u\n", gfx, depth, depth ? 0 : 0);
			checked += variant(ini, 4000);
		}
	for (unsigned m = 32; m <= 52; m += 4)
		for (unsigned nxe = 0; nxe <= 1; nxe++)
			for (unsigned la57 = 0; la57 <= 1; la57++) {
				snprintf(ini, sizeof ini, "[capture]\nversion = 1\nformat = x86-64\n[cpu v]\n"
					 "cr3 = 0x1000\nmaxphyaddr = %u\nefer = 0x%x\nla57 = %u\n", m,
					 nxe ? 0x800 : 0, la57);
				checked += variant(ini, 2000);
			}
	for (unsigned aw = 39; aw <= 57; aw += 9)
		for (unsigned t = 0; t < 3; t++)
			for (unsigned o = 0; o < 3; o++) {
				snprintf(ini, sizeof ini, "[capture]\nversion = 1\nformat = intel-vtd\n[vtd v]\n"
					 "slptptr = 0x1000\naw = %u\nspace = %s\noutput_space = %s\n", aw, sp[t], sp[o]);
				checked += variant(ini, 1000);
				snprintf(ini, sizeof ini, "[capture]\nversion = 1\nformat = intel-ept\n[ept v]\n"
					 "eptp = 0x%x\nspace = %s\noutput_space = %s\n", aw == 57 ? 0x1026 : 0x101e,
					 sp[t], sp[o]);
				checked += variant(ini, 1000);
			}
	for (unsigned mode = 1; mode <= 6; mode++)
		for (unsigned t = 0; t < 3; t++) {
			snprintf(ini, sizeof ini, "[capture]\nversion = 1\nformat = amd-vi\n[amdvi v]\n"
				 "root = 0x1000\nmode = %u\nspace = %s\noutput_space = %s\n", mode, sp[t], sp[2 - t]);
			checked += variant(ini, 2000);
		}
	arm64_variants(ini, sizeof ini, &checked);
	smmuv3_variants(ini, sizeof ini, &checked);
	ck_assert_uint_gt(checked, 250000);
}
END_TEST

/* ---- build then walk ------------------------------------------------------ */

struct fmt_case {
	const char *head;           /* [capture] and the context's section header */
	const char *keys;           /* the section's keys, "k = v\n" each */
	const char *space;          /* the pages' space */
	const char *flags[4];       /* one-bit leaf fields a map may set */
	uint32_t perm_of[4];        /* the PT_PERM_* bits each flag flips */
	uint32_t perm_base;         /* the rights of a page with no flag */
	unsigned force;             /* flags every map sets */
	uint64_t va_base;
};

/* The rights a page built with the flags of MASK has, as the walker reports them. */
static uint32_t want_perm(const struct fmt_case *fc, unsigned mask)
{
	uint32_t p = fc->perm_base;

	for (unsigned i = 0; i < 4 && fc->flags[i]; i++)
		if (mask & 1u << i)
			p ^= fc->perm_of[i];
	return p;
}

/* build_keys' view of the case's section: KEY's value, or NULL. */
static const char *case_get(void *ud, const char *key)
{
	static char val[128];
	const char *s = ud;
	size_t kl = strlen(key);

	for (const char *l = s; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, kl) && !strncmp(l + kl, " = ", 3)) {
			size_t n = strcspn(l + kl + 3, "\n");

			snprintf(val, sizeof val, "%.*s", (int)n, l + kl + 3);
			return val;
		}
	return NULL;
}

/* HEAD, KEYS and the format's root keys for ROOT in SPACE into BUF. */
static size_t case_ini(const struct fmt_case *fc, const struct pt_format *fmt, unsigned space,
		       uint64_t root, uint64_t lo, uint64_t hi, char *buf, size_t len)
{
	struct pt_build_keys k = { .space = space, .root = root, .va_lo = lo, .va_hi = hi,
				   .get = case_get, .ud = (void *)fc->keys };
	struct pt_buf keys;
	size_t off;

	pt_buf_init(&keys);
	fmt->build_keys(&k, &keys);
	off = (size_t)snprintf(buf, len, "%s%s%.*s\n", fc->head, fc->keys, (int)keys.len,
			       keys.len ? keys.data : "");
	pt_buf_free(&keys);
	return off;
}

/*
 * One random spec of case FC (SEED): non-overlapping maps of 4 KiB, 2 MiB
 * and 1 GiB multiples, built, its tables written as the capture's memory,
 * and every 4 KiB of every map walked back.
 */
static void build_walk(const struct fmt_case *fc, const struct pt_format *fmt, unsigned seed)
{
	struct { uint64_t va, size, pa; unsigned mask; const char *fl[4]; } maps[8];
	static const uint64_t sizes[] = { 1u << 12, 1u << 21, 1u << 30 };
	unsigned n = 2 + seed % 6, id;
	char *dir, ini[4096], err[256] = "";
	struct pt_capture *cap;
	const struct pt_context *ctx;
	struct pt_build *b;
	uint64_t root, va;
	size_t off;

	rng = 0x2545f4914f6cdd1dull * (seed + 1);
	va = fc->va_base + ((rnd() % 64) << 21);
	for (unsigned i = 0; i < n; i++) {
		uint64_t page = sizes[rnd() % (i % 4 == 3 ? 3 : 2)];

		maps[i].size = page * (1 + rnd() % 3) + (rnd() % 2 ? (rnd() % 4) << 12 : 0);
		va = (va + (rnd() % 2) * (1u << 21) + page - 1) / page * page;
		maps[i].va = va;
		maps[i].pa = (256 + rnd() % 4096) * page;
		maps[i].mask = (unsigned)(rnd() & 15) | fc->force;
		va += maps[i].size;
	}
	/* The geometry (root 0), then the tables. */
	case_ini(fc, fmt, 0, 0, maps[0].va, va - 1, ini, sizeof ini);
	cap = geometry(ini, &dir);
	ctx = pt_capture_context(cap, 0);
	b = pt_build_new();
	ck_assert_int_eq(pt_build_context(b, ctx, &root, &id, err, sizeof err), PT_OK);
	for (unsigned i = 0; i < n; i++) {
		const char **fl = maps[i].fl;   /* the builder keeps the pointer until finish */
		size_t nfl = 0;

		for (unsigned f = 0; f < 4 && fc->flags[f]; f++)
			if (maps[i].mask & 1u << f)
				fl[nfl++] = fc->flags[f];
		ck_assert_msg(pt_build_map(b, id, maps[i].va, maps[i].size, fc->space, maps[i].pa, fl,
					   nfl, err, sizeof err) == PT_OK, "%s seed %u map %u: %s",
			      fmt->name, seed, i, err);
	}
	ck_assert_msg(pt_build_finish(b, err, sizeof err) == PT_OK, "%s: %s", fmt->name, err);
	off = case_ini(fc, fmt, ctx->root_space, root, maps[0].va, va - 1, ini, sizeof ini);
	pt_capture_free(cap);
	for (size_t i = 0; i < pt_build_blob_count(b); i++) {
		const struct pt_build_blob *bl = pt_build_blob(b, i);
		char name[64];

		snprintf(name, sizeof name, "t%zu.bin", i);
		tu_write(dir, name, bl->data, (size_t)bl->size);
		off += (size_t)snprintf(ini + off, sizeof ini - off, "[memory m%zu]\nspace = %s\n"
					"base = 0x%llx\nfile = %s\n", i, bl->space,
					(unsigned long long)bl->base, name);
	}
	tu_write(dir, "capture.ini", ini, strlen(ini));
	cap = pt_capture_new();
	ck_assert_msg(pt_capture_load(cap, dir) == PT_OK, "%s", pt_capture_error(cap));
	ctx = pt_capture_context(cap, 0);
	ck_assert_uint_eq(ctx->root_addr, root);
	for (unsigned i = 0; i < n; i++) {
		struct pt_walk w;
		uint32_t want = want_perm(fc, maps[i].mask) & ~(uint32_t)PT_PERM_SNOOPED;

		for (uint64_t o = 0; o < maps[i].size; o += 4096) {
			/* every 4 KiB of the first and last 64 KiB, and one per 2 MiB between */
			if (o >= 1u << 16 && maps[i].size - o > 1u << 16 && o % (1u << 21))
				continue;
			ck_assert_int_eq(pt_walk_va(ctx, maps[i].va + o, &w), PT_OK);
			ck_assert_msg(w.fault == PT_FAULT_NONE, "%s seed %u: VA 0x%llx faults %s",
				      fmt->name, seed, (unsigned long long)(maps[i].va + o),
				      pt_fault_name(w.fault));
			ck_assert_uint_eq(w.pa, maps[i].pa + o);
			ck_assert_str_eq(ctx->fmt->spaces[w.space], fc->space);
			ck_assert_msg((w.perm & ~(uint32_t)PT_PERM_SNOOPED) == want,
				      "%s seed %u: VA 0x%llx rights 0x%x, want 0x%x", fmt->name, seed,
				      (unsigned long long)(maps[i].va + o), w.perm, want);
		}
		/* just past the mapping nothing is mapped, unless the next map starts there */
		if (i + 1 == n || maps[i + 1].va != maps[i].va + maps[i].size) {
			ck_assert_int_eq(pt_walk_va(ctx, maps[i].va + maps[i].size, &w), PT_OK);
			ck_assert_int_ne(w.fault, PT_FAULT_NONE);
		}
	}
	pt_capture_free(cap);
	pt_build_free(b);
	tu_rmtree(dir);
	free(dir);
}

START_TEST(test_build_walk)
{
	const uint32_t NR = PT_PERM_NO_READ, NW = PT_PERM_NO_WRITE, X = PT_PERM_EXEC,
		       PR = PT_PERM_PRIVILEGE, SN = PT_PERM_SNOOPED;
	static const char *const head[] = {
		"[capture]\nversion = 1\nformat = x86-64\n[cpu c]\n",
		"[capture]\nversion = 1\nformat = intel-vtd\n[vtd c]\n",
		"[capture]\nversion = 1\nformat = intel-ept\n[ept c]\n",
		"[capture]\nversion = 1\nformat = amd-vi\n[amdvi c]\n",
		"[capture]\nversion = 1\nformat = amd-gpuvm\n[vm c]\n",
		"[capture]\nversion = 1\nformat = arm64\n[arm64 c]\n",
		"[capture]\nversion = 1\nformat = arm-smmuv3\n[smmu c]\n",
	};
	const uint32_t PX = PT_PERM_PXN, UX = PT_PERM_UXN, NS = PT_PERM_NS;
	const struct fmt_case cases[] = {
		{head[0], "", "sysmem", {"writable", "user", "xd", "global"}, {NW, PR, X, 0}, NW | PR | X, 0, 0},
		{head[0], "", "sysmem", {"writable", "user", "xd", "global"}, {NW, PR, X, 0}, NW | PR | X, 0,
		 0xffff800000000000ull},
		{head[0], "la57 = 1\nefer = 0\n", "sysmem", {"writable", "user", NULL}, {NW, PR}, NW | PR | X, 0,
		 0xff00000000000000ull},
		{head[1], "", "sysmem", {"r", "w", "x", "snp"}, {0, NW, X, SN}, NW, 1, 0},
		{head[1], "aw = 57\nspace = gpa\noutput_space = hpa\n", "hpa", {"r", "w", "x", "tm"},
		 {0, NW, X, 0}, NW, 1, 1ull << 50},
		{head[2], "output_space = hpa\n", "hpa", {"read", "write", "execute", "user_execute"},
		 {0, NW, X, 0}, NW, 1, 0},
		{head[3], "", "sysmem", {"ir", "iw", "fc", "u"}, {NR, NW, SN, 0}, NR | NW, 0, 0},
		{head[3], "mode = 6\nspace = hpa\noutput_space = gpa\n", "gpa", {"ir", "iw", "fc", "u"},
		 {NR, NW, SN, 0}, NR | NW, 0, 1ull << 60},
		{head[4], "gfx = 9\nfb_offset = 0x20\n", "vram", {"readable", "writeable", "executable",
		 "snooped"}, {NR, NW, X, SN}, NR | NW, 0, 0},
		{head[4], "gfx = 10\n", "sysmem", {"readable", "writeable", "executable", "snooped"},
		 {NR, NW, X, SN}, NR | NW, 0, 0},
		{head[4], "gfx = 11\npage_table_block_size = 2\n", "vram", {"readable", "writeable",
		 "executable", "snooped"}, {NR, NW, X, SN}, NR | NW, 0, 0},
		{head[4], "gfx = 12\n", "sysmem", {"readable", "writeable", "executable", "snooped"},
		 {NR, NW, X, SN}, NR | NW, 0, 0},
		/* an EL0-writable page is PXN too (fmt_arm64.c s1_perm): ap_user alone only with ap_rdonly */
		{head[5], "", "sysmem", {"ap_rdonly", "pxn", "uxn", "ns"}, {NW, PX, UX, NS}, PR, 0, 0},
		{head[5], "", "sysmem", {"ap_rdonly", "ap_user", "uxn", "ns"}, {NW, PR, UX, NS}, PR, 1,
		 0xffff000000000000ull},
		{head[5], "stage = 2\n", "sysmem", {"s2ap_read", "s2ap_write", "xn", "fnxs"},
		 {NR, NW, PX | UX, 0}, NR | NW, 0, 0},
		/* arm-smmuv3: the STE and CD words build_keys writes, the arm64 descriptors */
		{head[6], "", "sysmem", {"ap_rdonly", "pxn", "uxn", "ns"}, {NW, PX, UX, NS}, PR, 0, 0},
		{head[6], "space = hpa\noutput_space = gpa\n", "gpa", {"ap_rdonly", "ap_user", "uxn", "ns"},
		 {NW, PR, UX, NS}, PR, 1, 0xffff000000000000ull},
		{head[6], "stage = 2\n", "sysmem", {"s2ap_read", "s2ap_write", "xn", "fnxs"},
		 {NR, NW, PX | UX, 0}, NR | NW, 0, 0},
	};
	static const char *const names[] = {
		"x86-64", "x86-64", "x86-64", "intel-vtd", "intel-vtd", "intel-ept", "amd-vi", "amd-vi",
		"amd-gpuvm", "amd-gpuvm", "amd-gpuvm", "amd-gpuvm", "arm64", "arm64", "arm64",
		"arm-smmuv3", "arm-smmuv3", "arm-smmuv3",
	};

	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
		for (unsigned seed = 0; seed < 6; seed++)
			build_walk(&cases[c], pt_format_find(names[c]), seed);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("build_fmt");
	TCase *tc = tcase_create("roundtrip");

	tcase_add_test(tc, test_fixture_tables);
	tcase_add_test(tc, test_variants);
	suite_add_tcase(s, tc);
	tc = tcase_create("build_walk");
	tcase_add_test(tc, test_build_walk);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
