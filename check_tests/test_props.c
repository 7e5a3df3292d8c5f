/*
 * test_props: agreement between the views of one context (issue #16.5), as
 * properties checked on random captures of every format.
 *
 * va/ lists what the page iterator yields, walk/ is pt_walk_va, maps is
 * pt_render_maps and info's page count is pt_context_scan.  On every
 * capture built here:
 *   - every iterator page walks to the same PA, space, page size, page VA
 *     and leaf path at its first and last byte, and its va/ name parses
 *     back to it;
 *   - pages come in VA order and never overlap;
 *   - the runs of maps cover exactly the iterator's pages;
 *   - the scan counts as many pages as the iterator yields;
 *   - a random VA that walks to a page lies in an iterator page with the
 *     same PA, and one that does not walk lies in none.
 *
 * Captures are built in memory (pt_mem built regions, the context filled
 * in as capture.c does) from a fixed seed, so a failure names its case and
 * reproduces.  Entries are built from the bit positions of
 * docs/design.md §2.1 and its sources (§7) (synth.c's helpers) and docs/design.md §2.2 and its sources (§7)
 * §2, never through the decoders.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt_gart.h"
#include "fmt_ver2.h"
#include "pt_capture.h"
#include "pt_mem.h"
#include "pt_render.h"
#include "pt_walk.h"
#include "synth.h"
#include "testutil.h"

/* ---- deterministic randomness ------------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd64(void)
{
	/* xorshift64*: small, fast and the same on every platform. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static uint64_t rnd(uint64_t n)
{
	return n ? rnd64() % n : 0;
}

/* ---- the checks ----------------------------------------------------------- */

/*
 * Check records every passing ck_assert* (a write to its result file), which
 * costs more than the property itself here: the hot checks only call into
 * Check when they fail.
 */
#define PROP(cond, ...) do { if (!(cond)) ck_abort_msg(__VA_ARGS__); } while (0)

#define PAGES_MAX 200000

struct pagelist {
	struct pt_page *p;
	size_t n, cap;
};

static void node_eq(const struct pt_node *a, const struct pt_node *b, const char *what)
{
	char pa[256], pb[256];

	pt_node_path(a, pa, sizeof pa);
	pt_node_path(b, pb, sizeof pb);
	PROP(!strcmp(pa, pb), "%s: leaf path %s, iterator %s", what, pa, pb);
}

/* The walk of VA must land in page PG, at PG's PA plus the offset. */
static void walk_in_page(const struct pt_context *c, uint64_t va, const struct pt_page *pg,
			 const char *what)
{
	struct pt_walk w;

	pt_walk_va(c, va, &w);
	PROP(w.fault == PT_FAULT_NONE, "%s: va 0x%" PRIx64 " listed, walk faults %s",
		      what, va, pt_fault_name(w.fault));
	PROP(w.page_va == pg->va && w.page_size == pg->size,
		      "%s: va 0x%" PRIx64 ": walk page 0x%" PRIx64 "+0x%" PRIx64
		      ", iterator 0x%" PRIx64 "+0x%" PRIx64,
		      what, va, w.page_va, w.page_size, pg->va, pg->size);
	PROP(w.space == pg->space && w.pa == pg->pa + (va - pg->va),
		      "%s: va 0x%" PRIx64 ": walk pa %u:0x%" PRIx64 ", iterator %u:0x%" PRIx64,
		      what, va, w.space, w.pa, pg->space, pg->pa + (va - pg->va));
	node_eq(&w.node, &pg->node, what);
}

/* The iterator page holding VA, or NULL. */
static const struct pt_page *page_of(const struct pagelist *l, uint64_t va)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->p[mid].va + (l->p[mid].size - 1) < va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->n && l->p[lo].va <= va ? &l->p[lo] : NULL;
}

static void collect(const struct pt_context *c, struct pagelist *l, const char *what)
{
	struct pt_page_iter it;
	struct pt_page pg;

	l->n = 0;
	pt_pages_init(&it, c, 0, NULL);
	while (pt_pages_next(&it, &pg)) {
		char name[40];
		uint64_t back;

		PROP(l->n < PAGES_MAX, "%s: too many pages for a property case", what);
		PROP(pg.size > 0 && pg.va + (pg.size - 1) >= pg.va, "%s: page size", what);
		if (l->n) {
			const struct pt_page *prev = &l->p[l->n - 1];

			PROP(pg.va >= prev->va + prev->size,
				      "%s: page 0x%" PRIx64 " overlaps or precedes 0x%" PRIx64 "+0x%" PRIx64,
				      what, pg.va, prev->va, prev->size);
		}
		walk_in_page(c, pg.va, &pg, what);
		walk_in_page(c, pg.va + (pg.size - 1), &pg, what);
		/* The va/ name resolves back to this page (fs lookup parses it and walks). */
		pt_va_name(c->fmt, pg.va, name, sizeof name);
		PROP(pt_va_parse(name, &back) && back == pg.va, "%s: va/ name %s", what, name);
		if (l->n == l->cap) {
			l->cap = l->cap ? l->cap * 2 : 256;
			l->p = realloc(l->p, l->cap * sizeof *l->p);
			PROP(l->p != NULL, "out of memory");
		}
		l->p[l->n++] = pg;
	}
}

/* Every run of maps is a sequence of iterator pages, and every page is in a run. */
static void check_maps(const struct pt_context *c, const struct pagelist *l, const char *what)
{
	struct pt_buf b;
	size_t k = 0;
	char *line, *save = NULL;

	pt_buf_init(&b);
	ck_assert_int_eq(pt_render_maps(&b, c, PT_OUT_TEXT, NULL), PT_OK);
	for (line = b.len ? strtok_r(b.data, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		uint64_t va, end, pa;
		char size[32], page[32], space[32], want[32];

		PROP(sscanf(line, "0x%" SCNx64 "-0x%" SCNx64 " %31s %31s %31s 0x%" SCNx64,
				     &va, &end, size, page, space, &pa) == 6,
			      "%s: maps line '%s'", what, line);
		PROP(end > va, "%s: empty run '%s'", what, line);
		for (uint64_t cur = va; cur < end; k++) {
			const struct pt_page *pg;

			PROP(k < l->n, "%s: maps run '%s' past the last page", what, line);
			pg = &l->p[k];
			PROP(pg->va == cur, "%s: run '%s' at 0x%" PRIx64 ", page 0x%" PRIx64,
				      what, line, cur, pg->va);
			PROP(pg->pa == pa + (cur - va), "%s: run '%s' pa, page pa 0x%" PRIx64,
				      what, line, pg->pa);
			pt_size_str(pg->size, want, sizeof want);
			PROP(!strcmp(c->fmt->spaces[pg->space], space) && !strcmp(want, page),
			     "%s: run '%s', page %s %s", what, line, c->fmt->spaces[pg->space], want);
			cur += pg->size;
			PROP(cur <= end, "%s: page 0x%" PRIx64 " crosses run end", what, pg->va);
		}
	}
	PROP(k == l->n, "%s: maps covers %zu of %zu pages", what, k, l->n);
	pt_buf_free(&b);
}

static void check_va(const struct pt_context *c, const struct pagelist *l, uint64_t va,
		     const char *what)
{
	const struct pt_page *pg = page_of(l, va);
	struct pt_walk w;

	pt_walk_va(c, va, &w);
	if (w.fault == PT_FAULT_NONE) {
		PROP(pg != NULL, "%s: va 0x%" PRIx64 " walks to a page va/ does not list",
			      what, va);
		walk_in_page(c, va, pg, what);
	} else {
		PROP(pg == NULL, "%s: va 0x%" PRIx64 " faults %s but page 0x%" PRIx64
			      " is listed", what, va, pt_fault_name(w.fault), pg ? pg->va : 0);
	}
}

/* Every property on C; VA_LO..VA_HI bounds the random VAs probed. */
static void check_context(const struct pt_context *c, uint64_t va_lo, uint64_t va_hi,
			  const char *what)
{
	static struct pagelist l;
	struct pt_stats st;

	collect(c, &l, what);
	check_maps(c, &l, what);
	ck_assert_int_eq(pt_context_scan(c, &st, NULL, NULL, NULL), PT_OK);
	ck_assert(!st.pages_truncated);
	PROP(st.pages == l.n, "%s: info pages %" PRIu64 ", va/ %zu", what, st.pages, l.n);

	for (unsigned i = 0; i < 200; i++) {
		uint64_t va;

		if (l.n && i % 2 == 0) {
			/* Around a listed page: inside, and one byte either side. */
			const struct pt_page *pg = &l.p[rnd(l.n)];

			switch (rnd(3)) {
			case 0:
				va = pg->va + rnd(pg->size);
				break;
			case 1:
				va = pg->va - 1;
				break;
			default:
				va = pg->va + pg->size;
				break;
			}
		} else {
			va = va_lo + rnd(va_hi - va_lo + 1);
		}
		check_va(c, &l, va, what);
	}
}

/* ---- VER2 ----------------------------------------------------------------- */

/*
 * vidmem 0x100000..0x13ffff holds the tables (synth.h's encodings); the
 * capture keeps a random prefix and suffix of it, so tables past the cut
 * are partly or not captured.
 */
#define VB 0x100000ull
#define VSZ 0x40000ull
static uint8_t vbuf[VSZ];
static uint64_t vnext;

static void vput(uint64_t pa, uint64_t v)
{
	if (pa < VB || pa + 8 > VB + VSZ)
		return;
	for (int i = 0; i < 8; i++)
		vbuf[pa - VB + i] = (uint8_t)(v >> (8 * i));
}

/* A fresh 4 KiB table, or 0 when the buffer is full. */
static uint64_t valloc4k(void)
{
	if (vnext + 0x1000 > VSZ)
		return 0;
	vnext += 0x1000;
	return VB + vnext - 0x1000;
}

static uint64_t some_table(void)
{
	/* An existing table (aliasing), or an address nobody captured. */
	if (vnext && rnd(2))
		return VB + rnd(vnext / 0x1000) * 0x1000;
	return 0x40000000ull + rnd(64) * 0x1000;
}

static uint64_t rand_pte(bool big)
{
	uint64_t pa = rnd(1ull << 24) << (big ? 16 : 12);
	uint64_t flags = (rnd(2) ? PTE_VOL : 0) | (rnd(2) ? PTE_PRIV : 0) | (rnd(2) ? PTE_RO : 0);
	unsigned r = (unsigned)rnd(100);

	if (r < 55)
		return pte((unsigned)rnd(4), pa, flags);
	if (r < 65)
		return PTE_VOL;                          /* sparse */
	if (r < 72)
		return PTE_PRIV;                         /* big: no_valid_4k */
	if (r < 80)
		return pte((unsigned)rnd(4), pa, flags) | (1ull << 4);   /* encrypted */
	if (r < 88)
		return (pte((unsigned)rnd(4), pa, flags) & ~(0xffull << 56)) | (rnd(256) << 56);
	return rnd64();
}

static void gen_ver2(int level, uint64_t t, unsigned depth);

static void gen_pde(int level, uint64_t slot, unsigned depth)
{
	unsigned r = (unsigned)rnd(100);
	uint64_t child;

	if (r < 72 && (child = valloc4k())) {
		vput(slot, pde_vid(child));
		gen_ver2(level + 1, child, depth + 1);
	} else if (r < 78) {
		vput(slot, pde_vid(some_table()));
	} else if (r < 82) {
		vput(slot, rnd64());
	} else if (r < 87) {
		vput(slot, pde_vid(some_table()) | (1ull << (54 + rnd(10))));   /* reserved 63:54 */
	} else if (r < 93) {
		vput(slot, pte((unsigned)rnd(4), rnd(1ull << 20) << 12, 0));   /* IS_PTE above pde0 */
	} else {
		vput(slot, (2ull << 1) | (rnd(1ull << 20) << 8));   /* sys_coherent: not captured */
	}
}

static void gen_pde0(uint64_t slot, unsigned depth)
{
	unsigned r = (unsigned)rnd(100);
	uint64_t big = 0, small = 0;

	if (r < 60) {
		/* Dual, big only or small only; big tables sit in 0x100 slots of a page. */
		if (r < 45 && (big = valloc4k()))
			big += rnd(16) * 0x100;
		if ((r < 30 || r >= 45) && rnd(8))
			small = valloc4k();
		if (!big && !small)
			return;
		if (big) {
			vput(slot, dual_big_vid(big));
			gen_ver2(4, big, depth + 1);
		}
		if (small) {
			vput(slot + 8, dual_small_vid(small));
			gen_ver2(5, small, depth + 1);
		}
	} else if (r < 75) {
		/* A 2 MiB PTE in the low half. */
		vput(slot, pte((unsigned)rnd(4), rnd(1ull << 16) << 21,
			       rnd(2) ? PTE_RO : 0));
		if (rnd(4) == 0)
			vput(slot + 8, rnd64());
	} else if (r < 85) {
		vput(slot, rnd64());
		vput(slot + 8, rnd64());
	} else {
		vput(slot, dual_big_vid(some_table()));
		vput(slot + 8, dual_small_vid(some_table()));
	}
}

/* Fills table T of LEVEL with a few random entries. */
static void gen_ver2(int level, uint64_t t, unsigned depth)
{
	static const unsigned nentries[] = {4, 512, 512, 256, 32, 512};
	unsigned n = level == 4 ? 1 + (unsigned)rnd(6) : level == 5 ? (unsigned)rnd(14)
		   : 1 + (unsigned)rnd(4);

	for (unsigned k = 0; k < n; k++) {
		uint64_t idx;

		/* Cluster small entries under the first big entries, where the dual rule bites. */
		if (level == 5)
			idx = rnd(4) * 16 + rnd(16);
		else if (level == 4)
			idx = rnd(5);
		else
			idx = rnd(4) ? rnd(4) : rnd(nentries[level]);
		if (level <= 2)
			gen_pde(level, t + idx * 8, depth);
		else if (level == 3)
			gen_pde0(t + idx * 16, depth);
		else
			vput(t + idx * 8, rand_pte(level == 4));
	}
}

static struct pt_mem *mem_built(unsigned nspaces, unsigned space, uint64_t base,
				const uint8_t *buf, uint64_t size, uint64_t cut1, uint64_t cut2)
{
	struct pt_mem *m = pt_mem_new(nspaces);
	unsigned id;

	ck_assert_ptr_nonnull(m);
	if (cut1) {
		ck_assert_int_eq(pt_mem_add_built(m, space, base, cut1, &id), PT_OK);
		ck_assert_int_eq(pt_mem_region_write(m, id, 0, buf, cut1), PT_OK);
	}
	if (cut2 < size) {
		ck_assert_int_eq(pt_mem_add_built(m, space, base + cut2, size - cut2, &id), PT_OK);
		ck_assert_int_eq(pt_mem_region_write(m, id, 0, buf + cut2, size - cut2), PT_OK);
	}
	ck_assert_int_eq(pt_mem_seal(m, NULL, NULL), PT_OK);
	return m;
}

START_TEST(props_ver2)
{
	rng_state = 0x5eed0000ull + 1;
	for (unsigned cs = 0; cs < 400; cs++) {
		struct pt_context c;
		struct pt_ver2_ctx v2;
		struct pt_mem *m;
		uint64_t root, cut1 = VSZ, cut2 = VSZ;
		char what[64];

		memset(vbuf, 0, sizeof vbuf);
		vnext = 0;
		root = valloc4k();
		gen_ver2(0, root, 0);
		if (rnd(3) == 0) {
			/* Keep a prefix and a suffix: the tables in between are not captured. */
			cut1 = rnd(vnext / 0x100 + 1) * 0x100;
			cut2 = cut1 + rnd((VSZ - cut1) / 0x100 + 1) * 0x100;
		}
		m = mem_built(10, VID, VB, vbuf, VSZ, cut1, cut2);
		memset(&c, 0, sizeof c);
		memset(&v2, 0, sizeof v2);
		v2.space = VID;
		v2.address = root;
		v2.big_page_size = 65536;
		c.name = "pdb0";
		c.fmt = &pt_format_ver2;
		c.mem = m;
		c.root_space = VID;
		c.root_addr = root;
		c.root_entries = 4;
		c.priv = &v2;
		snprintf(what, sizeof what, "ver2 case %u", cs);
		/* Random VAs mostly in the low 2 GiB the generator favours, some anywhere. */
		check_context(&c, 0, cs % 4 ? (1ull << 31) : (1ull << 49) - 1, what);
		pt_mem_free(m);
	}
}
END_TEST

/* ---- amd-gart ------------------------------------------------------------- */

#define G_V (1ull << 0)
#define G_S (1ull << 1)
#define G_FLAGS(r) ((r) & 0x7cull)            /* snooped tmz x r w: 6:2 */
#define G_ADDR(a) ((a) & 0x0000fffffffff000ull)
#define G_BFS(b) ((uint64_t)(b) << 59)

struct gart_case {
	uint64_t raw[PT_GR__COUNT];
	bool has[PT_GR__COUNT];
};

/*
 * Fills C from the registers the way the format's set-up does (its layout
 * lives in L, the context's private data); false when the layout is refused.
 */
static bool gart_context(struct pt_context *c, const struct gart_case *g, struct pt_mem *m,
			 struct pt_gart_layout *l)
{
	memset(c, 0, sizeof *c);
	memset(l, 0, sizeof *l);
	c->name = "gart0";
	c->fmt = &pt_format_gart;
	c->mem = m;
	c->priv = l;
	if (pt_gart_layout_decode(g->raw, g->has, l, NULL, 0) != PT_OK)
		return false;
	c->root_space = l->table_space;
	c->root_addr = l->table_addr;
	c->root_entries = l->entries;
	c->root_page_shift = 12 + l->bfs;
	c->va_base = l->va_start;
	c->va_last = l->va_end;
	pt_gart_space_bias(l, c->space_bias);
	return true;
}

static uint8_t gbuf[8 * 4096];

START_TEST(props_gart)
{
	static const unsigned bfs_pick[] = {0, 0, 1, 2, 4, 4, 9};
	unsigned done = 0;

	rng_state = 0x5eed0000ull + 2;
	for (unsigned cs = 0; cs < 300; cs++) {
		struct gart_case g;
		struct pt_context c;
		struct pt_gart_layout gl;
		struct pt_mem *m;
		unsigned bfs = rnd(4) ? bfs_pick[rnd(7)] : (unsigned)rnd(10);
		uint64_t fb_off = rnd(3) ? rnd(4) << 24 : 0, table = 0x200000 + rnd(16) * 0x1000;
		uint64_t start, pages, entries, cut1, cut2, ps;
		bool system = rnd(4) == 0;
		char what[64];

		memset(&g, 0, sizeof g);
		/* START aligned to the page or not; low in the VA or at the top (MI300X style). */
		start = (rnd(2) ? 0x7fff00000ull : rnd(1ull << 20) << 4) + rnd(3) * (1ull << bfs);
		if (rnd(3))
			start += rnd(1ull << bfs);
		entries = 1 + rnd(sizeof gbuf / 8);
		pages = (entries << bfs) - rnd(1ull << bfs);      /* END may end inside a page */
		g.raw[PT_GR_PT_START] = start;
		g.raw[PT_GR_PT_END] = start + pages - 1;
		g.raw[PT_GR_PT_BASE] = (system ? table | G_S : table + fb_off) | (rnd(8) ? G_V : 0) |
				       G_BFS(bfs);
		g.raw[PT_GR_FB_OFFSET] = fb_off >> 24;
		g.has[PT_GR_PT_START] = g.has[PT_GR_PT_END] = g.has[PT_GR_PT_BASE] = true;
		g.has[PT_GR_FB_OFFSET] = fb_off != 0 || rnd(2);

		memset(gbuf, 0, sizeof gbuf);
		for (uint64_t i = 0; i < entries; i++) {
			unsigned r = (unsigned)rnd(100);
			uint64_t flags = G_FLAGS(rnd64()), pa = rnd(1ull << 24) << 12, v;

			if (r < 25)
				v = 0;
			else if (r < 35)
				v = G_ADDR(pa);                           /* invalid: dummy page, flags 0 */
			else if (r < 70)
				v = G_V | flags | G_ADDR(fb_off + pa);    /* vram, as an MC address */
			else if (r < 75)
				v = G_V | flags | G_ADDR(pa & 0xffffff);  /* vram below FB_OFFSET: unsupported */
			else if (r < 95)
				v = G_V | G_S | flags | G_ADDR(pa);       /* sysmem */
			else
				v = G_V | flags | G_ADDR(pa) | (1ull << (48 + rnd(3)));   /* reserved */
			for (int b = 0; b < 8; b++)
				gbuf[i * 8 + b] = (uint8_t)(v >> (8 * b));
		}
		/* Mostly whole; sometimes a prefix and a suffix of the table are captured. */
		cut1 = cut2 = entries * 8;
		if (rnd(3) == 0) {
			cut1 = rnd(entries + 1) * 8;
			cut2 = cut1 + rnd(entries - cut1 / 8 + 1) * 8;
		}
		m = mem_built(2, system ? 1 : 0, table, gbuf, entries * 8, cut1, cut2);
		if (!gart_context(&c, &g, m, &gl)) {
			pt_mem_free(m);
			continue;
		}
		ck_assert_uint_eq(c.root_entries, entries);
		ps = 4096ull << bfs;
		snprintf(what, sizeof what, "gart case %u (bfs %u, START 0x%" PRIx64 ")", cs, bfs, start);
		check_context(&c, c.va_base > ps ? c.va_base - ps : 0,
			      c.va_base + entries * ps + ps, what);
		pt_mem_free(m);
		done++;
	}
	ck_assert_uint_ge(done, 250);
}
END_TEST

/*
 * The reproducer: 64 KiB pages (BFS 4) and START 0x7fff00001, one
 * 4 KiB page past a 64 KiB boundary.  Entry 0 maps VA 0x7fff00001000 (START
 * << 12, umr subtracts START before indexing) to its PTE's page: walk/ must
 * say PA 0x40000000 there and 0x4000ffff at the page's last byte, and the
 * va/ name is the page the walk names.  END 0x7fff00018 ends half-way into
 * entry 1's page: umr's range check (addr <= END << 12 | 0xfff) comes
 * before the table, so only 32 KiB of that page are mapped.
 */
START_TEST(gart_unaligned_start)
{
	struct gart_case g;
	struct pt_context c;
	struct pt_gart_layout gl;
	struct pt_mem *m;
	struct pt_walk w;
	struct pt_page_iter it;
	struct pt_page pg;

	memset(&g, 0, sizeof g);
	g.raw[PT_GR_PT_BASE] = 0x200000 | G_V | G_BFS(4);
	g.raw[PT_GR_PT_START] = 0x7fff00001ull;
	g.raw[PT_GR_PT_END] = 0x7fff00018ull;   /* half-way into entry 1's page */
	g.has[PT_GR_PT_BASE] = g.has[PT_GR_PT_START] = g.has[PT_GR_PT_END] = true;
	memset(gbuf, 0, sizeof gbuf);
	for (int b = 0; b < 8; b++) {
		gbuf[b] = (uint8_t)((G_V | 0x60 | 0x40000000ull) >> (8 * b));
		gbuf[8 + b] = (uint8_t)((G_V | 0x60 | 0x50000000ull) >> (8 * b));
	}
	m = mem_built(2, 0, 0x200000, gbuf, 16, 16, 16);
	ck_assert(gart_context(&c, &g, m, &gl));

	pt_pages_init(&it, &c, 0, NULL);
	ck_assert(pt_pages_next(&it, &pg));
	ck_assert_uint_eq(pg.va, 0x7fff00001000ull);
	ck_assert_uint_eq(pg.pa, 0x40000000ull);

	ck_assert_int_eq(pt_walk_va(&c, 0x7fff00001000ull, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_NONE);
	ck_assert_uint_eq(w.page_va, 0x7fff00001000ull);
	ck_assert_uint_eq(w.pa, 0x40000000ull);
	ck_assert_int_eq(pt_walk_va(&c, 0x7fff00010fffull, &w), PT_OK);
	ck_assert_uint_eq(w.page_va, 0x7fff00001000ull);
	ck_assert_uint_eq(w.pa, 0x4000ffffull);
	ck_assert_int_eq(pt_walk_va(&c, 0x7fff00011000ull, &w), PT_OK);
	ck_assert_uint_eq(w.page_va, 0x7fff00011000ull);
	ck_assert_uint_eq(w.pa, 0x50000000ull);
	ck_assert_uint_eq(w.page_size, 0x8000);
	/* Below START is outside the GART even inside the first 64 KiB unit. */
	ck_assert_int_eq(pt_walk_va(&c, 0x7fff00000fffull, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_OUT_OF_RANGE);
	/* So is a VA past END inside the last entry's page: the range check comes first. */
	ck_assert_int_eq(pt_walk_va(&c, 0x7fff00018fffull, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_NONE);
	ck_assert_uint_eq(w.pa, 0x50007fffull);
	ck_assert_int_eq(pt_walk_va(&c, 0x7fff00019000ull, &w), PT_OK);
	ck_assert_int_eq(w.fault, PT_FAULT_OUT_OF_RANGE);
	ck_assert(pt_pages_next(&it, &pg));
	ck_assert_uint_eq(pg.va, 0x7fff00011000ull);
	ck_assert_uint_eq(pg.size, 0x8000);
	ck_assert(!pt_pages_next(&it, &pg));
	pt_mem_free(m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("props");
	TCase *tc;

	tc = tcase_create("gart_start");
	tcase_add_test(tc, gart_unaligned_start);
	suite_add_tcase(s, tc);
	tc = tcase_create("ver2");
	tcase_add_test(tc, props_ver2);
	suite_add_tcase(s, tc);
	tc = tcase_create("gart");
	tcase_add_test(tc, props_gart);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
