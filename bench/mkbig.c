/* SPDX-License-Identifier: MIT */
/*
 * mkbig — writes a large, regular nv-gmmu-ver2 capture archive for the
 * benchmarks (bench/run).
 *
 *   mkbig [options] OUT
 *
 * Every context gets its own tables: one PDE3, one PDE2, as many PDE1/PDE0
 * tables as the VA range needs, and one leaf level per 2 MiB PDE0 slot — a
 * 4 KiB page table (512 PTEs), a 64 KiB page table (32 PTEs) or the slot
 * itself as a 2 MiB PTE.  The slots of the three kinds are interleaved
 * evenly (error diffusion) so every part of the VA range has the requested
 * page-size mix.  Leaf tables are filled completely except the last of each
 * kind, so the leaf entry count is exact.
 *
 * Like fixtures/mkfixtures, this program encodes from the bit layouts of
 * docs/design.md §2.1 and never links the ptfs core: a benchmark input must not be
 * produced by the code it measures.
 *
 * Determinism: all choices come from splitmix64 of (--seed, position);
 * archive members have fixed order, mtime/uid/gid 0, a gzip header without a
 * timestamp and no padding of the last block.  The same options give the
 * same bytes.
 *
 * --spread N places the 4 KiB pages of table memory N pages apart, zeros
 * between: a memory member of N times the tables' size, mostly zero, as a
 * dump of a large vidmem whose allocator scattered the tables.  The member is
 * written page by page from the dense tables (a few hundred MiB at 10^7
 * entries), never built at its full size.
 *
 * --change PERMILLE writes the "after" capture for the diff benchmark: the
 * same tables at the same addresses, with about PERMILLE/1000 of the leaf
 * entries changed (read-only toggled, remapped to another PA, or unmapped).
 *
 * Standard output gets key=value lines (leaf_entries, nonzero_bytes, ...)
 * that bench/run reads.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mkbig.h"


void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("mkbig: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p)
		die("out of memory");
	return p;
}

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* ------------------------------------------------------------------ */
/* Table memory: one growing region per space, bump allocated.          */

enum { SP_VID = 0, SP_SYS = 1, SP__N };

static const char *const space_name[SP__N] = { "vidmem", "sysmem" };
/*
 * Table memory lives low; mapped pages live above it.  vidmem addresses are
 * 25-bit page numbers (< 128 GiB); sysmem addresses stay below 2^40 so the
 * address field never reaches comptagline (docs/design.md §2.1).
 */
static const uint64_t table_base[SP__N] = { 0x100000000ull, 0x800000000ull };
static const uint64_t table_limit[SP__N] = { 0x300000000ull, 0x2000000000ull };
static const uint64_t page_base[SP__N] = { 0x400000000ull, 0x4000000000ull };
static const uint64_t page_range[SP__N] = { 64 * GiB, 256 * GiB };

struct space {
	uint8_t *buf;
	uint64_t used;       /* bytes allocated from table_base */
	uint64_t cap;
};

static struct space spaces[SP__N];

/* --spread: table page I of a space sits at page I * spread of its member. */
static uint64_t spread = 1;

/* The physical address of byte OFF of SP's dense table memory. */
static uint64_t tbl_pa(unsigned sp, uint64_t off)
{
	return table_base[sp] + (off >> 12) * 4096 * spread + (off & 4095);
}

/* Allocates SIZE bytes aligned to ALIGN in SP; returns the physical address. */
static uint64_t tbl_alloc(unsigned sp, uint64_t size, uint64_t align, bool avoid_bit9)
{
	struct space *s = &spaces[sp];
	uint64_t off = (s->used + align - 1) & ~(align - 1);

	/*
	 * A big page table is addressed by address>>8 in bits 32:4 / 53:4 of the
	 * dual PDE, and bit 5 (address bit 9) is also no_ats: a table there
	 * cannot be told apart, so such addresses are skipped.
	 */
	if (avoid_bit9 && ((table_base[sp] + off) & 0x200))
		off = (off | 0x3ff) + 1;
	/* Tables never cross a 4 KiB page (4 KiB or 256 bytes, aligned): --spread keeps them whole. */
	if ((off & 4095) + size > 4096)
		die("internal: table crosses a page");
	if (tbl_pa(sp, off + size - 1) >= table_limit[sp])
		die("%s table memory full (%" PRIu64 " bytes%s)", space_name[sp], off,
		    spread > 1 ? "; use a smaller --spread" : "");
	if (off + size > s->cap) {
		uint64_t ncap = s->cap ? s->cap : MiB;

		while (ncap < off + size)
			ncap *= 2;
		s->buf = xrealloc(s->buf, ncap);
		memset(s->buf + s->cap, 0, ncap - s->cap);
		s->cap = ncap;
	}
	s->used = off + size;
	return tbl_pa(sp, off);
}

static void put64(unsigned sp, uint64_t pa, uint64_t v)
{
	uint64_t rel = pa - table_base[sp], page = rel / (4096 * spread);
	uint64_t in = rel % (4096 * spread), off = page * 4096 + in;

	if (pa < table_base[sp] || in + 8 > 4096 || off + 8 > spaces[sp].used)
		die("write to %s 0x%" PRIx64 " outside the tables", space_name[sp], pa);
	for (unsigned b = 0; b < 8; b++)
		spaces[sp].buf[off + b] = (uint8_t)(v >> (8 * b));
}

/* ------------------------------------------------------------------ */
/* VER2 encoders (docs/design.md §2.1).                                         */

enum { PDE_AP_VID = 1, PDE_AP_SYS_COH = 2 };
enum { PTE_AP_VID = 0, PTE_AP_SYS_COH = 2 };

#define PTE_VALID (1ull << 0)
#define PTE_RO    (1ull << 6)

/*
 * --format ver3: NVIDIA GMMU VER3 (Hopper) instead, from the NV_MMU_VER3_*
 * field positions of gh100 dev_mmu.h: PTE VALID 0, APERTURE 2:1, PCF 7:3
 * (bit 2 of PCF = read-only), KIND 11:8, ADDRESS 51:12; PDE APERTURE 2:1,
 * ADDRESS 51:12; dual PDE ADDRESS_BIG 51:8 = address >> 8.  One more level
 * (PD4, 2 entries) above the same PD3..PT shape.
 */
static bool v3;
#define V3_PCF_RO (4ull << 3)

static uint64_t addr_field(unsigned sp, uint64_t pa)
{
	if (v3) {
		if (pa & 0xfff || pa >> 52)
			die("address 0x%" PRIx64 " does not fit the VER3 address field", pa);
		return pa;
	}
	uint64_t pfn = pa >> 12;

	if (pa & 0xfff || pfn >> (sp == SP_SYS ? 28 : 25))
		die("address 0x%" PRIx64 " does not fit a %s address field", pa, space_name[sp]);
	return pfn << 8;
}

static uint64_t pte(unsigned sp, uint64_t pa, unsigned kind, bool ro)
{
	if (v3)
		return PTE_VALID | (uint64_t)(sp == SP_SYS ? PTE_AP_SYS_COH : PTE_AP_VID) << 1 |
		       (ro ? V3_PCF_RO : 0) | (uint64_t)(kind & 0xf) << 8 | addr_field(sp, pa);
	return PTE_VALID | (uint64_t)(sp == SP_SYS ? PTE_AP_SYS_COH : PTE_AP_VID) << 1 |
	       (ro ? PTE_RO : 0) | addr_field(sp, pa) | (uint64_t)kind << 56;
}

static unsigned pde_ap(unsigned sp)
{
	return sp == SP_SYS ? PDE_AP_SYS_COH : PDE_AP_VID;
}

static uint64_t pde(unsigned sp, uint64_t addr)
{
	return (uint64_t)pde_ap(sp) << 1 | addr_field(sp, addr);
}

/* Big half of a dual PDE: address>>8 at bit 4. */
static uint64_t dual_big(unsigned sp, uint64_t addr)
{
	if (addr & 0x2ff)
		die("big table 0x%" PRIx64 " misaligned", addr);
	if (v3)
		return (uint64_t)pde_ap(sp) << 1 | (addr >> 8) << 8;
	return (uint64_t)pde_ap(sp) << 1 | (addr >> 8) << 4;
}

/* ------------------------------------------------------------------ */
/* Building the tables.                                                 */

/* Lowest PDE0 slot used: VA 512 MiB (PDE1 index 1), so VA 0 stays unmapped. */
#define FIRST_SLOT 256u

struct ctx {
	char name[16];
	unsigned root_sp, pd3_sp, pd2_sp;
	uint64_t root, pd3, pd2;   /* root: PD3, or with --format ver3 the PD4 above it */
	uint64_t pd1[512];     /* by PDE2 index; 0 = none yet */
	unsigned pd1_sp[512];
	uint64_t pd0;          /* current PDE0 table */
	unsigned pd0_sp;
	uint64_t pd0_g;        /* slot/256 it was made for, +1 (0 = none) */
};

struct gen {
	const struct opts *o;
	uint64_t ntables;        /* for alternating table spaces */
	uint64_t nleaf_tables;   /* for alternating page spaces */
	uint64_t leaf_no;        /* leaf entries written so far, all contexts */
	uint64_t count[PS__N];
	uint64_t changed;
	uint64_t tables_of[PS__N + 1];  /* leaf tables per kind ([PS_2M] stays 0); [PS__N]: directories */
	/* sample pages: sorted leaf numbers, with the position to print them at */
	uint64_t *vas_want;
	unsigned *vas_pos;
	unsigned nvas, vas_next;
	char **vas_line;
};

static unsigned next_table_space(struct gen *g)
{
	int t = g->o->tables;

	g->ntables++;
	if (t == SPACES_BOTH)
		return (unsigned)(g->ntables & 1);
	return t == SPACES_SYS ? SP_SYS : SP_VID;
}

static uint64_t new_table(struct gen *g, unsigned *sp, uint64_t size, uint64_t align,
			  bool big)
{
	*sp = next_table_space(g);
	return tbl_alloc(*sp, size, align, big);
}

/* The PDE0 table holding slot G of context C, made (and linked) on first use. */
static uint64_t pd0_for(struct gen *g, struct ctx *c, uint64_t slot, unsigned *sp)
{
	uint64_t pd1_idx = (slot / 256) % 512, pd2_idx = slot / (256 * 512);

	if (pd2_idx >= 512)
		die("VA range past one PDE3 entry");
	if (c->pd0_g != slot / 256 + 1) {
		if (!c->pd1[pd2_idx]) {
			c->pd1[pd2_idx] = new_table(g, &c->pd1_sp[pd2_idx], 4096, 4096, false);
			g->tables_of[PS__N]++;
			put64(c->pd2_sp, c->pd2 + 8 * pd2_idx,
			      pde(c->pd1_sp[pd2_idx], c->pd1[pd2_idx]));
		}
		c->pd0 = new_table(g, &c->pd0_sp, 4096, 4096, false);
		g->tables_of[PS__N]++;
		put64(c->pd1_sp[pd2_idx], c->pd1[pd2_idx] + 8 * pd1_idx, pde(c->pd0_sp, c->pd0));
		c->pd0_g = slot / 256 + 1;
	}
	*sp = c->pd0_sp;
	return c->pd0;
}

static unsigned next_page_space(struct gen *g)
{
	int p = g->o->pages;

	if (p == SPACES_BOTH)
		return (unsigned)(g->nleaf_tables & 1);
	return p == SPACES_SYS ? SP_SYS : SP_VID;
}

/*
 * The PA of entry I of leaf table number T (size PS): the pages of one table
 * are contiguous (one `maps` run each) and the runs are scattered over the
 * page range by an odd multiplier, which is a permutation modulo a power of two.
 */
static uint64_t leaf_pa(unsigned sp, unsigned ps, uint64_t t, unsigned i)
{
	uint64_t run = ps_bytes[ps] * ps_per_slot[ps];   /* 2 MiB for every kind */
	uint64_t nruns = page_range[sp] / run;

	return page_base[sp] + ((t * 0x9e3779b1ull) & (nruns - 1)) * run + i * ps_bytes[ps];
}

static void vas_note(struct gen *g, const struct ctx *c, uint64_t va, const char *path)
{
	while (g->vas_next < g->nvas && g->vas_want[g->vas_next] == g->leaf_no) {
		char line[256];

		snprintf(line, sizeof(line), "%s 0x%0*" PRIx64 " %s\n", c->name, v3 ? 15 : 13, va,
			 path);
		g->vas_line[g->vas_pos[g->vas_next]] = strdup(line);
		if (!g->vas_line[g->vas_pos[g->vas_next]])
			die("out of memory");
		g->vas_next++;
	}
}

/*
 * The value of a leaf entry.  With --change some come out different:
 * read-only toggled, moved to another PA, or unmapped (zero).
 */
static uint64_t leaf_value(struct gen *g, unsigned sp, uint64_t pa, unsigned kind, bool ro,
			   bool *unmapped)
{
	*unmapped = false;
	if (g->o->change) {
		uint64_t h = splitmix64(g->o->seed * 0x100000001b3ull ^ g->leaf_no);

		if (h % 1000 < g->o->change) {
			g->changed++;
			switch ((h >> 32) % 3) {
			case 0: ro = !ro; break;
			case 1: pa ^= 0x200000000ull; break;    /* 8 GiB away, same space */
			default: *unmapped = true; return 0;
			}
		}
	}
	return pte(sp, pa, kind, ro);
}

/* Fills slot SLOT of context C with N leaf entries of page size PS. */
static void fill_slot(struct gen *g, struct ctx *c, uint64_t slot, unsigned ps, unsigned n)
{
	unsigned pd0_sp, leaf_sp, page_sp = next_page_space(g);
	uint64_t pd0 = pd0_for(g, c, slot, &pd0_sp);
	uint64_t slot_idx = slot % 256, va = slot << 21;
	uint64_t t = g->nleaf_tables++;
	/* A few kinds, one per table; every 61st page read-only. */
	static const unsigned kinds[] = { 0x06, 0x00, 0x08, 0x06 };
	unsigned kind = kinds[t % 4];
	char path[160];
	int plen;
	bool unmapped;

	plen = snprintf(path, sizeof(path), "%spde3/0/pde2/%" PRIu64 "/pde1/%" PRIu64 "/pde0/%" PRIu64,
			v3 ? "pde4/0/" : "", slot / (256 * 512), (slot / 256) % 512, slot_idx);
	if (ps == PS_2M) {
		uint64_t pa = leaf_pa(page_sp, ps, t, 0);
		uint64_t v = leaf_value(g, page_sp, pa, kind, t % 61 == 7, &unmapped);

		put64(pd0_sp, pd0 + 16 * slot_idx, v);
		if (!unmapped)
			vas_note(g, c, va, path);
		g->leaf_no++;
		g->count[ps]++;
		return;
	}
	g->tables_of[ps]++;
	uint64_t leaf = ps == PS_4K ? new_table(g, &leaf_sp, 4096, 4096, false)
				    : new_table(g, &leaf_sp, 256, 256, true);
	if (ps == PS_4K)
		put64(pd0_sp, pd0 + 16 * slot_idx + 8, pde(leaf_sp, leaf));
	else
		put64(pd0_sp, pd0 + 16 * slot_idx, dual_big(leaf_sp, leaf));
	for (unsigned i = 0; i < n; i++) {
		uint64_t pa = leaf_pa(page_sp, ps, t, i);
		uint64_t v = leaf_value(g, page_sp, pa, kind, (g->leaf_no % 61) == 7, &unmapped);

		put64(leaf_sp, leaf + 8 * i, v);
		if (!unmapped) {
			snprintf(path + plen, sizeof(path) - (size_t)plen, "/%s/%u",
				 ps == PS_4K ? "pte_small" : "pte_big", i);
			vas_note(g, c, va + i * ps_bytes[ps], path);
		}
		g->leaf_no++;
		g->count[ps]++;
	}
	path[plen] = 0;
}

static void build_context(struct gen *g, struct ctx *c, uint64_t entries)
{
	const unsigned *mix = g->o->mix;
	unsigned total = mix[PS_4K] + mix[PS_64K] + mix[PS_2M];
	uint64_t want[PS__N], slots[PS__N], nslots = 0, done[PS__N] = { 0 };
	uint64_t left = entries;

	/* Entries per size: the percentages, the rounding remainder to the first size used. */
	for (unsigned i = 0; i < PS__N; i++) {
		want[i] = entries * mix[i] / total;
		left -= want[i];
	}
	for (unsigned i = 0; i < PS__N; i++)
		if (mix[i]) {
			want[i] += left;
			break;
		}
	for (unsigned i = 0; i < PS__N; i++) {
		slots[i] = (want[i] + ps_per_slot[i] - 1) / ps_per_slot[i];
		nslots += slots[i];
	}

	if (v3) {
		c->root = new_table(g, &c->root_sp, 4096, 4096, false);
		g->tables_of[PS__N]++;
	}
	c->pd3 = new_table(g, &c->pd3_sp, 4096, 4096, false);
	c->pd2 = new_table(g, &c->pd2_sp, 4096, 4096, false);
	g->tables_of[PS__N] += 2;
	if (v3)
		put64(c->root_sp, c->root, pde(c->pd3_sp, c->pd3));
	else {
		c->root = c->pd3;
		c->root_sp = c->pd3_sp;
	}
	put64(c->pd3_sp, c->pd3, pde(c->pd2_sp, c->pd2));
	c->pd0_g = 0;

	for (uint64_t j = 0; j < nslots; j++) {
		/* Error diffusion: the kind furthest behind its share gets the slot. */
		unsigned best = PS__N;
		double best_lag = -1e300;

		for (unsigned i = 0; i < PS__N; i++) {
			double lag;

			if (done[i] == slots[i])
				continue;
			lag = (double)(j + 1) * (double)slots[i] / (double)nslots - (double)done[i];
			if (lag > best_lag) {
				best_lag = lag;
				best = i;
			}
		}
		uint64_t n = want[best] - done[best] * ps_per_slot[best];

		if (n > ps_per_slot[best])
			n = ps_per_slot[best];
		fill_slot(g, c, FIRST_SLOT + j, best, (unsigned)n);
		done[best]++;
	}
}

/* ------------------------------------------------------------------ */
/* Output.                                                              */

struct member {
	char path[96];
	const void *data;
	uint64_t size;       /* of DATA */
	uint64_t spread;     /* DATA's 4 KiB pages this many pages apart (1: as is) */
	uint64_t pad;        /* zero bytes after DATA */
};

/* Bytes of member M in the archive: its spread-out data, then the padding. */
static uint64_t member_bytes(const struct member *m)
{
	return m->size * m->spread + m->pad;
}

static void write_zeros(struct archive *a, const char *path, uint64_t left)
{
	static const uint8_t zeros[1024 * 1024];

	while (left) {
		size_t len = left > sizeof(zeros) ? sizeof(zeros) : (size_t)left;
		la_ssize_t w = archive_write_data(a, zeros, len);

		if (w <= 0)
			die("%s: %s", path, archive_error_string(a));
		left -= (uint64_t)w;
	}
}

static void write_bytes(struct archive *a, const char *path, const uint8_t *p, uint64_t left)
{
	while (left) {
		size_t len = left > 16 * MiB ? 16 * MiB : (size_t)left;
		la_ssize_t w = archive_write_data(a, p, len);

		if (w <= 0)
			die("%s: %s", path, archive_error_string(a));
		p += w;
		left -= (uint64_t)w;
	}
}

static void aw_check(struct archive *a, int r, const char *what)
{
	if (r != ARCHIVE_OK)
		die("%s: %s", what, archive_error_string(a));
}

static void write_archive(const struct opts *o, const struct member *m, unsigned n)
{
	struct archive *a = archive_write_new();

	if (!a)
		die("archive_write_new");
	/* ustar: no pax records with times or ids. */
	aw_check(a, archive_write_set_format_ustar(a), "ustar");
	if (o->compress == CT_GZ) {
		aw_check(a, archive_write_add_filter_gzip(a), "gzip");
		aw_check(a, archive_write_set_filter_option(a, "gzip", "timestamp", NULL),
			 "gzip !timestamp");
	} else if (o->compress == CT_ZST) {
		aw_check(a, archive_write_add_filter_zstd(a), "zstd");
	}
	aw_check(a, archive_write_set_bytes_in_last_block(a, 1), "bytes_in_last_block");
	aw_check(a, archive_write_open_filename(a, o->out), o->out);
	for (unsigned i = 0; i < n; i++) {
		struct archive_entry *e = archive_entry_new();
		const uint8_t *p = m[i].data;

		archive_entry_set_pathname(e, m[i].path);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_size(e, (la_int64_t)member_bytes(&m[i]));
		archive_entry_set_mtime(e, 0, 0);
		archive_entry_set_uid(e, 0);
		archive_entry_set_gid(e, 0);
		aw_check(a, archive_write_header(a, e), m[i].path);
		if (m[i].spread == 1)
			write_bytes(a, m[i].path, p, m[i].size);
		else
			/* Streamed page by page: the spread member is never in memory. */
			for (uint64_t off = 0; off < m[i].size; off += 4096) {
				write_bytes(a, m[i].path, p + off, 4096);
				write_zeros(a, m[i].path, (m[i].spread - 1) * 4096);
			}
		write_zeros(a, m[i].path, m[i].pad);
		archive_entry_free(e);
	}
	aw_check(a, archive_write_close(a), o->out);
	archive_write_free(a);
}

static void mkdir_or_exists(const char *path)
{
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		die("mkdir %s: %s", path, strerror(errno));
}

static void write_dir(const struct opts *o, const struct member *m, unsigned n)
{
	char path[4096];

	mkdir_or_exists(o->out);
	snprintf(path, sizeof(path), "%s/mem", o->out);
	mkdir_or_exists(path);
	for (unsigned i = 0; i < n; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", o->out, m[i].path);
		f = fopen(path, "wb");
		if (!f)
			die("%s: %s", path, strerror(errno));
		for (uint64_t off = 0; off < m[i].size; off += m[i].spread == 1 ? m[i].size : 4096) {
			uint64_t len = m[i].spread == 1 ? m[i].size : 4096;

			if (fseeko(f, (off_t)(off * m[i].spread), SEEK_SET) != 0 ||
			    fwrite((const uint8_t *)m[i].data + off, 1, len, f) != len)
				die("%s: %s", path, strerror(errno));
		}
		/* Spread gaps and zero padding as holes: a sparse file reads as zeros. */
		if (member_bytes(&m[i]) > m[i].size &&
		    (fseeko(f, (off_t)(member_bytes(&m[i]) - 1), SEEK_SET) != 0 || fputc(0, f) == EOF))
			die("%s: %s", path, strerror(errno));
		if (fclose(f) != 0)
			die("%s: %s", path, strerror(errno));
	}
}

static uint64_t nonzero_pages(const uint8_t *p, uint64_t len)
{
	uint64_t n = 0;

	for (uint64_t off = 0; off < len; off += 4096) {
		uint64_t end = off + 4096 < len ? off + 4096 : len;

		for (uint64_t i = off; i < end; i++)
			if (p[i]) {
				n++;
				break;
			}
	}
	return n;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A raw leaf table dump: ENTRIES valid 4 KiB PTEs, the kinds and pages of fill_slot(). */
static int write_blob(const struct opts *o)
{
	static const unsigned kinds[] = { 0x06, 0x00, 0x08, 0x06 };
	FILE *f = fopen(o->out, "wb");

	if (!f)
		die("%s: %s", o->out, strerror(errno));
	for (uint64_t i = 0; i < o->entries; i++) {
		unsigned sp = (i / 512) & 1;
		uint64_t v = pte(sp, leaf_pa(sp, PS_4K, i / 512, (unsigned)(i % 512)),
				 kinds[(i / 512) % 4], i % 61 == 7);
		uint8_t b[8];

		for (unsigned k = 0; k < 8; k++)
			b[k] = (uint8_t)(v >> (8 * k));
		if (fwrite(b, 1, 8, f) != 8)
			die("%s: %s", o->out, strerror(errno));
	}
	if (fclose(f) != 0)
		die("%s: %s", o->out, strerror(errno));
	printf("blob_entries=%" PRIu64 "\nblob_bytes=%" PRIu64 "\n", o->entries, o->entries * 8);
	return 0;
}

/* Sample pages: O->nvas leaf numbers drawn from the seed, visited in leaf order. */
static void vas_sample(struct gen *g, const struct opts *o)
{
	struct { uint64_t leaf; unsigned pos; } *s = calloc(o->nvas, sizeof(*s));

	g->nvas = o->nvas;
	g->vas_want = calloc(o->nvas, sizeof(uint64_t));
	g->vas_pos = calloc(o->nvas, sizeof(unsigned));
	g->vas_line = calloc(o->nvas, sizeof(char *));
	if (!s || !g->vas_want || !g->vas_pos || !g->vas_line)
		die("out of memory");
	for (unsigned i = 0; i < o->nvas; i++)
		g->vas_want[i] = (splitmix64(o->seed ^ (0xabcdull << 40) ^ i) % o->entries) << 20 | i;
	/* Sort by leaf number; the low 20 bits carry the output position. */
	if (o->nvas > (1u << 20))
		die("--nvas too large");
	qsort(g->vas_want, o->nvas, sizeof(uint64_t), u64_cmp);
	for (unsigned i = 0; i < o->nvas; i++) {
		g->vas_pos[i] = (unsigned)(g->vas_want[i] & 0xfffff);
		g->vas_want[i] >>= 20;
	}
	free(s);
}

/* The sample lines into PATH, in the order they were drawn. */
static void vas_write(const struct gen *g, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		die("%s: %s", path, strerror(errno));
	for (unsigned i = 0; i < g->nvas; i++)
		if (g->vas_line[i])   /* an unmapped (changed) sample has no line */
			fputs(g->vas_line[i], f);
	if (fclose(f) != 0)
		die("%s: %s", path, strerror(errno));
}

int main(int argc, char **argv)
{
	struct opts o;
	struct gen g;
	struct ctx *ctxs;
	char *ini = NULL;
	size_t inilen = 0;
	FILE *fi;
	struct member m[1 + SP__N];
	unsigned nm = 0;
	uint64_t nonzero = 0, mem_bytes = 0;

	parse_opts(argc, argv, &o);
	v3 = o.ver3;
	spread = o.spread;
	memset(&g, 0, sizeof(g));
	g.o = &o;
	if (o.blob)
		return write_blob(&o);
	if (o.format)
		return mkbig_write_spec(&o);

	if (o.vas_file && o.nvas)
		vas_sample(&g, &o);

	ctxs = calloc(o.contexts, sizeof(*ctxs));
	if (!ctxs)
		die("out of memory");
	for (unsigned i = 0; i < o.contexts; i++) {
		uint64_t n = o.entries / o.contexts + (i < o.entries % o.contexts);

		snprintf(ctxs[i].name, sizeof(ctxs[i].name), "pdb%u", i);
		build_context(&g, &ctxs[i], n);
	}

	/* capture.ini (--spread named only when used: older captures keep their bytes) */
	char spread_opt[32] = "";
	if (o.spread > 1)
		snprintf(spread_opt, sizeof(spread_opt), " --spread %" PRIu64, o.spread);
	fi = open_memstream(&ini, &inilen);
	if (!fi)
		die("open_memstream: %s", strerror(errno));
	fprintf(fi, "# generated by bench/mkbig; do not edit\n"
		"[capture]\nversion = 1\nformat = %s\ngpu = %s\n"
		"description = mkbig: %" PRIu64 " leaf entries (4K %" PRIu64 ", 64K %" PRIu64
		", 2M %" PRIu64 "), %u contexts%s\n"
		"x-mkbig = --entries %" PRIu64 " --contexts %u --mix 4k:%u,64k:%u,2m:%u"
		" --tables %s --pages %s --change %u --seed %" PRIu64 " --zero-pad %" PRIu64 "%s%s\n",
		v3 ? "nv-gmmu-ver3" : "nv-gmmu-ver2", v3 ? "GH100" : "TU104",
		o.entries, g.count[PS_4K], g.count[PS_64K], g.count[PS_2M], o.contexts,
		o.change ? ", changed" : "", o.entries, o.contexts, o.mix[PS_4K], o.mix[PS_64K],
		o.mix[PS_2M], spaces_name[o.tables], spaces_name[o.pages], o.change, o.seed,
		o.zero_pad, v3 ? " --format ver3" : "", spread_opt);
	for (unsigned sp = 0; sp < SP__N; sp++) {
		if (!spaces[sp].used)
			continue;
		/* Whole 4 KiB pages: the last table is followed by zeros, as a dump would be. */
		spaces[sp].used = (spaces[sp].used + 4095) & ~(uint64_t)4095;
		if (spaces[sp].used > spaces[sp].cap)
			die("internal: region past its buffer");
		fprintf(fi, "\n[memory %s0]\nspace = %s\nbase = 0x%" PRIx64
			"\nfile = mem/%s-%" PRIx64 ".bin\n", sp == SP_VID ? "vram" : "sys",
			space_name[sp], table_base[sp], space_name[sp], table_base[sp]);
	}
	for (unsigned i = 0; i < o.contexts; i++)
		fprintf(fi, "\n[pdb %s]\nspace = %s\naddress = 0x%" PRIx64 "\nbig_page_size = 64K\n%s",
			ctxs[i].name, space_name[ctxs[i].root_sp], ctxs[i].root,
			v3 ? "chip = gh100\n" : "");
	if (fclose(fi) != 0)
		die("capture.ini: %s", strerror(errno));

	snprintf(m[nm].path, sizeof(m[nm].path), "capture.ini");
	m[nm].data = ini;
	m[nm].size = inilen;
	m[nm].spread = 1;
	m[nm].pad = 0;
	nm++;
	for (unsigned sp = 0; sp < SP__N; sp++) {
		if (!spaces[sp].used)
			continue;
		snprintf(m[nm].path, sizeof(m[nm].path), "mem/%s-%" PRIx64 ".bin", space_name[sp],
			 table_base[sp]);
		m[nm].data = spaces[sp].buf;
		m[nm].size = spaces[sp].used;
		m[nm].spread = o.spread;
		m[nm].pad = o.zero_pad;
		nonzero += nonzero_pages(spaces[sp].buf, spaces[sp].used) * 4096;
		mem_bytes += member_bytes(&m[nm]);
		nm++;
	}
	if (o.compress == CT_DIR)
		write_dir(&o, m, nm);
	else
		write_archive(&o, m, nm);

	if (o.vas_file)
		vas_write(&g, o.vas_file);

	struct stat st;
	uint64_t out_bytes = 0;
	if (o.compress != CT_DIR && stat(o.out, &st) == 0)
		out_bytes = (uint64_t)st.st_size;
	printf("leaf_entries=%" PRIu64 "\nentries_4k=%" PRIu64 "\nentries_64k=%" PRIu64
	       "\nentries_2m=%" PRIu64 "\nchanged=%" PRIu64 "\ncontexts=%u\n"
	       "leaf_tables=%" PRIu64 "\ndir_tables=%" PRIu64 "\nmem_bytes=%" PRIu64
	       "\nnonzero_bytes=%" PRIu64 "\narchive_bytes=%" PRIu64 "\n",
	       g.leaf_no, g.count[PS_4K], g.count[PS_64K], g.count[PS_2M], g.changed, o.contexts,
	       g.tables_of[PS_4K] + g.tables_of[PS_64K] + g.tables_of[PS_2M],
	       g.tables_of[PS__N], mem_bytes, nonzero, out_bytes);

	for (unsigned i = 0; i < g.nvas; i++)
		free(g.vas_line[i]);
	free(g.vas_line);
	free(g.vas_want);
	free(g.vas_pos);
	free(ctxs);
	free(ini);
	for (unsigned sp = 0; sp < SP__N; sp++)
		free(spaces[sp].buf);
	return 0;
}
