/* SPDX-License-Identifier: MIT */
/*
 * fmt_gpuvm.c — AMD multi-level GPUVM, gfx9 → gfx12, any hub+VMID
 * (docs/design.md §2.4; facts: docs/design.md §2.4 and its sources (§7)).
 *
 * One context is one VM_CONTEXTn of one hub.  Its registers choose the
 * geometry (§B.2): PAGE_TABLE_DEPTH directory levels above a PTB, each PTB
 * covering 2^BLOCK_SIZE × 2 MiB, the root covering what START..END needs.
 * ctx_setup therefore builds a per-context copy of the descriptor with its
 * own level table and the decoder of its generation (§B.3 moves bits).
 *
 * The walk is umr's (umr_access_vram_ai, §B.5), expressed in the generic
 * walker:
 *  - the index of every level is (VA - START<<12) >> shift, masked by the
 *    table size (the root unmasked, its size from START..END);
 *  - a PDE with P set is a leaf of the level's span; the page's PA is the
 *    entry's address plus the offset in the span (walk.c adds);
 *  - PDE0's block fragment size sizes the PTB below it (entries
 *    2^(9+BS-BFS), each 2^(12+BFS) bytes): the entry sets its target's
 *    geometry (pt_target.shift/bits);
 *  - a valid PTB entry with translate_further (gfx9-11), or with bit 63
 *    clear (gfx12, umr) points at one more table of 2^(BFS0-BFS) entries of
 *    2^(12+BFS) bytes, read with the PDE layout (address 47:6);
 *  - every address with system=0 is an MC address: FB_OFFSET<<24 is
 *    subtracted (space_bias) for pages and tables alike.
 *
 * Where umr walks a case no driver writes, ptfs walks it the same way and
 * flags the entry `unusual` (info, check): P on a depth-3 root (a 512 GiB
 * leaf; amdgpu_vm_ptes_update would write one for a huge enough
 * mapping), translate_further under a PDE0 with BFS 0 (a one-entry table;
 * umr read_vram.c indexes it with 0 bits).  A gfx11+ PDE0 with A
 * (tfs_addr) makes the further tables' addresses relative to the PTB (umr
 * read_vram.c adds PDE0's PBA to the PTE-as-PDE's).  A valid leaf with PRT
 * set (Linux's no-retry fault encoding) stays `unsupported`.
 *
 * One source per generation for the bits the kernel and umr disagree on:
 * gfx9, gfx10 and gfx12 follow the kernel's gmc_v9_0.c / gmc_v10_0.c /
 * gmc_v12_0.c comments and amdgpu_vm.h; gfx11 PDEs follow umr's
 * decode_pde_entry (src/lib/read_vram.c case 11: mtype 50:48, tfs_addr 57,
 * llc_noalloc 58), the only source that defines bit 57, which its own test
 * 17 uses; gmc_v11_0.c says "reserved" for all three.
 *
 * The encoders (ptfs-tool build) are fmt_gpuvm_enc.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fmt_ctx.h"
#include "fmt_gart.h"
#include "fmt_gpuvm.h"
#include "pt_buf.h"
#include "pt_num.h"

static const char *const gpuvm_spaces[] = {"vram", "sysmem", NULL};

static const char *const lk_names[LK__COUNT] = {"pdb2", "pdb1", "pdb0", "ptb", "ptb_further"};

/*
 * A further table has BFS0 - BFS index bits; Linux only writes BFS 9, and
 * more than 9 would not fit the mount's inode paths: wider is unsupported.
 */
#define FURTHER_BITS_MAX 9

static inline uint64_t bits(uint64_t v, unsigned hi, unsigned lo)
{
	return (v >> lo) & ((1ull << (hi - lo + 1)) - 1);
}

#define BIT(n)           (1ull << (n))

/*
 * MTYPE names.  gfx9: vega10_enum.h / umr NC RW CC UC.  gfx10-12: the
 * TCC_MTYPE values Linux writes (NC WC CC, MTYPE_UC 3); the other 3-bit
 * values of gfx10/11 have no name Linux writes (§B.7.2): unknown.
 */
static const char *mtype_name(unsigned gfx, uint64_t m)
{
	static const char *const g9[4] = {"NC", "RW", "CC", "UC"};
	static const char *const g10[4] = {"NC", "WC", "CC", "UC"};

	if (m > 3)
		return NULL;
	return gfx == 9 ? g9[m] : g10[m];
}

static uint64_t pte_named(const struct gen_bits *g)
{
	uint64_t m = 0x7full | 0xf80ull | ADDR_PTE | (3ull << 52) | BIT(g->p) | BIT(g->prt) |
		     (((1ull << g->mtype_w) - 1) << g->mtype_lo);

	if (g->log >= 0)
		m |= BIT(g->log);
	if (g->tf >= 0)
		m |= BIT(g->tf);
	if (g->noalloc >= 0)
		m |= BIT(g->noalloc);
	if (g->dcc >= 0)
		m |= BIT(g->dcc);
	if (g->bus_atomics >= 0)
		m |= BIT(g->bus_atomics);
	if (g->gcr >= 0)
		m |= BIT(g->gcr);
	return m;
}

static uint64_t pde_named(const struct gen_bits *g, bool at_ptb)
{
	uint64_t m = 0x7ull | ADDR_PDE | BIT(g->p) | (0x1full << g->bfs_lo);

	if (at_ptb && g->tf >= 0)
		m |= BIT(g->tf);
	if (g->tfs_addr >= 0)
		m |= BIT(g->tfs_addr);
	if (g->pde_mtype_lo >= 0)
		m |= ((1ull << g->pde_mtype_w) - 1) << g->pde_mtype_lo;
	if (g->pde_noalloc >= 0)
		m |= BIT(g->pde_noalloc);
	return m;
}

static void add_pte_fields(struct pt_entry *e, unsigned gfx, const struct gen_bits *g,
			   uint64_t r, uint64_t page_size)
{
	uint64_t mt = bits(r, (unsigned)(g->mtype_lo + g->mtype_w - 1), (unsigned)g->mtype_lo);

	e->reserved_mask[0] = r & ~pte_named(g);
	pt_entry_add(e, "valid", PT_FK_BIT, bits(r, 0, 0));
	pt_entry_add(e, "system", PT_FK_BIT, bits(r, 1, 1));
	pt_entry_add(e, "snooped", PT_FK_BIT, bits(r, 2, 2));
	pt_entry_add(e, "tmz", PT_FK_BIT, bits(r, 3, 3));
	pt_entry_add(e, "executable", PT_FK_BIT, bits(r, 4, 4));
	pt_entry_add(e, "readable", PT_FK_BIT, bits(r, 5, 5));
	pt_entry_add(e, "writeable", PT_FK_BIT, bits(r, 6, 6));
	pt_entry_add(e, "fragment", PT_FK_UINT, bits(r, 11, 7));
	pt_entry_add(e, "address", PT_FK_HEX, r & ADDR_PTE);
	pt_entry_add(e, "prt", PT_FK_BIT, bits(r, (unsigned)g->prt, (unsigned)g->prt));
	pt_entry_add(e, "sw", PT_FK_UINT, bits(r, 53, 52));
	pt_entry_add(e, "pte", PT_FK_BIT, bits(r, (unsigned)g->p, (unsigned)g->p));
	if (g->log >= 0)
		pt_entry_add(e, "log", PT_FK_BIT, bits(r, (unsigned)g->log, (unsigned)g->log));
	if (g->tf >= 0)
		pt_entry_add(e, "translate_further", PT_FK_BIT,
			     bits(r, (unsigned)g->tf, (unsigned)g->tf));
	pt_entry_add(e, "mtype", PT_FK_UINT, mt);
	pt_entry_add_str(e, "mtype_name", mtype_name(gfx, mt));
	if (g->noalloc >= 0)
		pt_entry_add(e, "noalloc", PT_FK_BIT, bits(r, (unsigned)g->noalloc, (unsigned)g->noalloc));
	if (g->dcc >= 0)
		pt_entry_add(e, "dcc", PT_FK_BIT, bits(r, (unsigned)g->dcc, (unsigned)g->dcc));
	if (g->bus_atomics >= 0)
		pt_entry_add(e, "bus_atomics", PT_FK_BIT,
			     bits(r, (unsigned)g->bus_atomics, (unsigned)g->bus_atomics));
	if (g->gcr >= 0)
		pt_entry_add(e, "gcr", PT_FK_BIT, bits(r, (unsigned)g->gcr, (unsigned)g->gcr));
	pt_entry_add(e, "page_size", PT_FK_HEX, page_size);
	pt_entry_add_reserved(e, e->reserved_mask[0], 0, false);
}

static void add_pde_fields(struct pt_entry *e, const struct gen_bits *g, uint64_t r, bool at_ptb)
{
	e->reserved_mask[0] = r & ~pde_named(g, at_ptb);
	pt_entry_add(e, "valid", PT_FK_BIT, bits(r, 0, 0));
	pt_entry_add(e, "system", PT_FK_BIT, bits(r, 1, 1));
	pt_entry_add(e, "snooped", PT_FK_BIT, bits(r, 2, 2));
	pt_entry_add(e, "address", PT_FK_HEX, r & ADDR_PDE);
	pt_entry_add(e, "pte", PT_FK_BIT, bits(r, (unsigned)g->p, (unsigned)g->p));
	if (at_ptb && g->tf >= 0)
		pt_entry_add(e, "translate_further", PT_FK_BIT,
			     bits(r, (unsigned)g->tf, (unsigned)g->tf));
	if (g->tfs_addr >= 0)
		pt_entry_add(e, "tfs_addr", PT_FK_BIT,
			     bits(r, (unsigned)g->tfs_addr, (unsigned)g->tfs_addr));
	if (g->pde_mtype_lo >= 0)
		pt_entry_add(e, "mtype", PT_FK_UINT,
			     bits(r, (unsigned)(g->pde_mtype_lo + g->pde_mtype_w - 1),
				  (unsigned)g->pde_mtype_lo));
	if (g->pde_noalloc >= 0)
		pt_entry_add(e, "noalloc", PT_FK_BIT,
			     bits(r, (unsigned)g->pde_noalloc, (unsigned)g->pde_noalloc));
	pt_entry_add(e, "block_fragment_size", PT_FK_UINT,
		     bits(r, (unsigned)g->bfs_lo + 4, (unsigned)g->bfs_lo));
	pt_entry_add_reserved(e, e->reserved_mask[0], 0, false);
}

static void set_leaf(struct pt_entry *e, uint64_t r, uint64_t page_size)
{
	e->page_size = page_size;
	e->address_complete = true;
	e->perm = (bits(r, 5, 5) ? 0 : PT_PERM_NO_READ) | (bits(r, 6, 6) ? 0 : PT_PERM_NO_WRITE) |
		  (bits(r, 4, 4) ? PT_PERM_EXEC : 0) | (bits(r, 2, 2) ? PT_PERM_SNOOPED : 0) |
		  (bits(r, 3, 3) ? PT_PERM_TMZ : 0);
	e->state = PT_ST_MAPPED;
	e->leaf = true;
	e->space = bits(r, 1, 1) ? SP_SYSMEM : SP_VRAM;
	e->pa = r & ADDR_PTE;
}

static void set_pointer(struct pt_entry *e, uint64_t r, unsigned level, unsigned shift,
			unsigned nbits)
{
	e->state = PT_ST_POINTER;
	e->target[0].present = true;
	e->target[0].level = (int8_t)(level + 1);
	e->target[0].space = bits(r, 1, 1) ? SP_SYSMEM : SP_VRAM;
	e->target[0].addr = r & ADDR_PDE;
	e->target[0].shift = (uint8_t)shift;
	e->target[0].bits = (uint8_t)nbits;
}

/*
 * Entry at LEVEL (row of a depth-DEPTH table) of a gfx(9 + GI) VM.  PAGE_SHIFT
 * is the table's: a PDB's span, a PTB's 12 + BFS0.
 */
static pt_err gpuvm_decode_gen(unsigned gi, unsigned depth, unsigned level, unsigned page_shift,
			       const uint8_t *raw, unsigned flags, struct pt_entry *out)
{
	unsigned gfx = 9 + gi;
	const struct gen_bits *g = pt_gpuvm_gen(gfx);
	unsigned lk = level + 3 - depth;
	uint64_t r, page_size;
	bool valid, p;

	/*
	 * Page shift 0: an entry decoded alone (ptfs-tool decode with the level
	 * open), whose table size nobody knows: read as BFS0 0, page size 0.
	 */
	bool alone = page_shift == 0;

	if (alone)
		page_shift = 12;
	if (!g || !raw || depth > 3 || lk >= LK__COUNT || (depth == 0 && level != 0) ||
	    page_shift < 12 || page_shift >= 64) {
		pt_entry_reset(out, 0, NULL, flags);
		out->state = PT_ST_UNSUPPORTED;
		return PT_E_UNSUPPORTED;
	}
	pt_entry_reset(out, 8, raw, flags);
	r = out->raw[0];
	valid = r & 1;
	p = bits(r, (unsigned)g->p, (unsigned)g->p);
	page_size = alone ? 0 : 1ull << page_shift;

	if (lk <= LK_PDB0) {
		/* A directory entry: PDE layout unless P makes it a huge-page PTE (§B.5 step 5). */
		if (valid && p) {
			add_pte_fields(out, gfx, g, r, page_size);
			if (bits(r, (unsigned)g->prt, (unsigned)g->prt)) {
				out->state = PT_ST_UNSUPPORTED;
			} else {
				set_leaf(out, r, page_size);
				/*
				 * P on a depth-3 root: umr reads it as a leaf of the
				 * root's span (read_vram.c pde_is_pte), so does ptfs;
				 * no driver writes one: unusual.
				 */
				if (lk == LK_PDB2)
					out->anomalies |= PT_EA_UNUSUAL_LEAF;
			}
			return PT_OK;
		}
		add_pde_fields(out, g, r, false);
		if (r == 0)
			out->state = PT_ST_UNMAPPED;
		else if (!valid)
			out->state = PT_ST_INVALID;
		else if (lk < LK_PDB0)
			set_pointer(out, r, level, 0, 0);
		else {
			/* PDE0: its BFS sizes the PTB: 2^(9+BS-BFS) entries of 2^(12+BFS) bytes (§B.2). */
			unsigned bfs = (unsigned)bits(r, (unsigned)g->bfs_lo + 4, (unsigned)g->bfs_lo);
			bool rel = g->tfs_addr >= 0 && bits(r, (unsigned)g->tfs_addr, (unsigned)g->tfs_addr);

			if (bfs > page_shift - 12) {
				out->state = PT_ST_UNSUPPORTED;
			} else {
				set_pointer(out, r, level, 12 + bfs, page_shift - 12 - bfs);
				/* A: the PTB's further pointers are relative to it (umr read_vram.c). */
				out->target[0].rel_children = rel;
			}
		}
		return PT_OK;
	}

	/* A PTB (or further) entry. */
	if (valid) {
		bool further;
		unsigned bfs0 = page_shift - 12;

		if (g->tf >= 0)
			further = bits(r, (unsigned)g->tf, (unsigned)g->tf);
		else
			/* gfx12: umr reads a valid entry with bit 63 clear as a pointer; only where one can exist (§B.7.4). */
			further = !p && lk == LK_PTB && depth > 0 && bfs0 > 0;
		if (further) {
			unsigned f1 = (unsigned)bits(r, (unsigned)g->bfs_lo + 4, (unsigned)g->bfs_lo);

			add_pde_fields(out, g, r, true);
			/*
			 * One further step only.  Its table has 2^(BFS0 - BFS) entries
			 * (umr read_vram.c num_entry_bits); under a PDE0 with BFS 0 that
			 * is one entry of 4 KiB: umr walks it, so does ptfs, unusual.
			 */
			if (lk != LK_PTB || depth == 0 || f1 > bfs0 || bfs0 - f1 > FURTHER_BITS_MAX) {
				out->state = PT_ST_UNSUPPORTED;
			} else {
				set_pointer(out, r, level, 12 + f1, bfs0 - f1);
				if (bfs0 == f1)
					out->anomalies |= PT_EA_UNUSUAL_POINTER;
			}
			return PT_OK;
		}
	}
	add_pte_fields(out, gfx, g, r, page_size);
	if (r == 0)
		out->state = PT_ST_UNMAPPED;
	else if (!valid)
		/* V=0 faults (§B.5 step 8); PRT's result is not in any source: not `sparse`. */
		out->state = PT_ST_INVALID;
	else if (bits(r, (unsigned)g->prt, (unsigned)g->prt))
		/* V=1 with PRT is Linux's no-retry fault encoding (B.4), never a page. */
		out->state = PT_ST_UNSUPPORTED;
	else
		set_leaf(out, r, page_size);
	return PT_OK;
}

/* One decoder per (generation gfx9 + GI, depth): the descriptor's decode has no context (fmt_ctx.h). */
PT_FMT_A4(PT_FMT_B4, PT_FMT_DECODER, gpuvm_decode_gen)
static const pt_fmt_decode_fn decoders[4][4] = {PT_FMT_ROWS4(PT_FMT_B4, gpuvm_decode_gen)};

/* ---- the [vm NAME] context ---------------------------------------------- */

enum {
	K_GFX, K_BASE, K_START, K_END, K_CNTL, K_DEPTH, K_BS, K_FBO, K__COUNT
};
static const char *const key_names[K__COUNT] = {
	[K_GFX] = "gfx",
	[K_BASE] = "page_table_base_addr",
	[K_START] = "page_table_start_addr",
	[K_END] = "page_table_end_addr",
	[K_CNTL] = "cntl",
	[K_DEPTH] = "page_table_depth",
	[K_BS] = "page_table_block_size",
	[K_FBO] = "fb_offset",
};
/* Largest value of each key: register field widths (§B.1). */
static const uint64_t key_max[K__COUNT] = {
	[K_GFX] = 12,
	[K_BASE] = UINT64_MAX,
	[K_START] = 0xfffffffffull,   /* 36-bit page numbers */
	[K_END] = 0xfffffffffull,
	[K_CNTL] = 0xffffffffull,
	[K_DEPTH] = 3,                /* CNTL[2:1] */
	[K_BS] = 15,                  /* CNTL[6:3] */
	[K_FBO] = 0xffffffull,        /* FB_OFFSET[23:0] */
};

/* Keys that are registers: a wider value is masked to the field (docs/design.md §2.2), not refused. */
static bool key_is_register(int k)
{
	return k == K_BASE || k == K_START || k == K_END || k == K_CNTL || k == K_FBO;
}

struct gpuvm_ctx {
	uint64_t v[K__COUNT];        /* registers: masked to their fields */
	uint64_t written[K__COUNT];  /* as written */
	unsigned masked;             /* bit k: written[k] had bits outside the field */
	bool has[K__COUNT];
	/* set-up results */
	unsigned gfx, depth, bs;
	uint64_t fbo, table, entries;
	unsigned table_space;
	struct pt_format fmt;
	struct pt_level levels[LK__COUNT + 1];
};

static pt_err gpuvm_ctx_key(void *priv, const struct pt_ctx_key *k)
{
	struct gpuvm_ctx *c = priv;
	pt_err rc;

	for (int i = 0; i < K__COUNT; i++) {
		if (strcmp(k->key, key_names[i]))
			continue;
		rc = pt_ctx_key_uint(k, &c->v[i]);
		if (rc)
			return rc;
		c->written[i] = c->v[i];
		if (key_is_register(i) && c->v[i] > key_max[i]) {
			/* umr's envdefs write END_ADDR_HI32 = 0xFFFFFFFF: the register keeps bits 3:0. */
			c->v[i] &= key_max[i];
			c->masked |= 1u << i;
		}
		if (c->v[i] > key_max[i])
			return pt_ctx_key_fail(k, PT_E_VALUE, "%s 0x%" PRIx64 " in %s is wider than"
					       " its register field (max 0x%" PRIx64 ")",
					       k->key, c->v[i], k->label, key_max[i]);
		if (i == K_GFX && c->v[i] < 9)
			return pt_ctx_key_fail(k, PT_E_UNSUPPORTED, "gfx %" PRIu64 " in %s is not"
					       " supported (9, 10, 11 or 12)", c->v[i], k->label);
		c->has[i] = true;
		return PT_OK;
	}
	return PT_E_NOTFOUND;
}

static const char *gpuvm_ctx_missing(const void *priv)
{
	const struct gpuvm_ctx *c = priv;

	if (!c->has[K_GFX])
		return key_names[K_GFX];
	if (!c->has[K_BASE])
		return key_names[K_BASE];
	if (!c->has[K_END])
		return key_names[K_END];
	if (!c->has[K_CNTL]) {
		if (!c->has[K_DEPTH])
			return "cntl (or page_table_depth)";
		if (!c->has[K_BS])
			return "cntl (or page_table_block_size)";
	}
	return NULL;
}

/* Set-up failures of this format are all PT_E_VALUE. */
#define setup_fail(err, errlen, ...) pt_fmt_setup_fail(err, errlen, PT_E_VALUE, __VA_ARGS__)

extern const struct pt_format pt_format_gpuvm;

/* The level table of a depth-DEPTH, block-size-BS VM whose root has ROOT_BITS index bits. */
static void build_levels(struct pt_level *lv, unsigned depth, unsigned bs, unsigned root_bits)
{
	unsigned n = 0;

	for (unsigned lk = 3 - depth; lk < LK__COUNT; lk++, n++) {
		struct pt_level *l = &lv[n];

		*l = (struct pt_level){.name = lk_names[lk], .depth = (uint8_t)n, .entry_size = 8,
				       .child = {-1, -1}};
		if (lk <= LK_PDB0) {
			l->va_shift = (uint8_t)(21 + bs + 9 * (LK_PDB0 - lk));
			l->bits = (uint8_t)(n == 0 ? root_bits : 9);
			l->role = PT_ROLE_DIR;
			/* A P entry is a leaf of the level's span, at a depth-3 root too (umr). */
			l->leaf_shift = l->va_shift;
			l->child[0] = (int8_t)(n + 1);
		} else if (lk == LK_PTB && depth > 0) {
			/* 2^(9+BS-BFS0) entries of 2^(12+BFS0): the widest is BFS0 = 0. */
			l->va_shift = 12;
			l->bits = (uint8_t)(9 + bs);
			l->role = PT_ROLE_DIR;
			l->leaf_shift = 12;
			l->child[0] = (int8_t)(n + 1);
		} else if (lk == LK_PTB) {
			/* Depth 0: BASE points at a flat PTB (the context gives entries and page). */
			l->va_shift = 12;
			l->role = PT_ROLE_LEAF;
			lv[n + 1] = (struct pt_level){0};
			return;
		} else {
			l->va_shift = 12;
			l->bits = FURTHER_BITS_MAX;
			l->role = PT_ROLE_LEAF;
		}
	}
	lv[n] = (struct pt_level){0};
}

static pt_err gpuvm_ctx_setup(struct pt_context *ctx, char *err, size_t errlen)
{
	struct gpuvm_ctx *c = ctx->priv;
	const struct gen_bits *g;
	uint64_t base, start, end, shift, span;
	unsigned root_bits = 0;

	if (err && errlen) {
		size_t off = 0;

		err[0] = 0;
		for (int i = 0; i < K__COUNT && off < errlen; i++)
			if (c->masked & 1u << i)
				off += (size_t)snprintf(err + off, errlen - off, "%s%s 0x%" PRIx64 " is wider"
							" than its register field: the register holds 0x%" PRIx64,
							off ? "; " : "", key_names[i], c->written[i], c->v[i]);
	}
	c->gfx = (unsigned)c->v[K_GFX];
	g = pt_gpuvm_gen(c->gfx);
	if (!g)
		return setup_fail(err, errlen, "gfx %u is not supported (9, 10, 11 or 12)", c->gfx);
	/* CNTL: PAGE_TABLE_DEPTH [2:1], PAGE_TABLE_BLOCK_SIZE [6:3] (gc_9_0_sh_mask.h). */
	if (c->has[K_CNTL]) {
		unsigned d = (unsigned)bits(c->v[K_CNTL], 2, 1), b = (unsigned)bits(c->v[K_CNTL], 6, 3);

		if (c->has[K_DEPTH] && c->v[K_DEPTH] != d)
			return setup_fail(err, errlen, "page_table_depth %" PRIu64 " disagrees with"
					  " cntl 0x%" PRIx64 " (PAGE_TABLE_DEPTH %u)",
					  c->v[K_DEPTH], c->v[K_CNTL], d);
		if (c->has[K_BS] && c->v[K_BS] != b)
			return setup_fail(err, errlen, "page_table_block_size %" PRIu64 " disagrees"
					  " with cntl 0x%" PRIx64 " (PAGE_TABLE_BLOCK_SIZE %u)",
					  c->v[K_BS], c->v[K_CNTL], b);
		c->depth = d;
		c->bs = b;
	} else {
		c->depth = (unsigned)c->v[K_DEPTH];
		c->bs = (unsigned)c->v[K_BS];
	}
	base = c->v[K_BASE];
	start = c->has[K_START] ? c->v[K_START] : 0;
	end = c->v[K_END];
	if (start > end)
		return setup_fail(err, errlen, "page_table_start_addr 0x%" PRIx64 " is after"
				  " page_table_end_addr 0x%" PRIx64, start, end);
	if (!(base & 1) && (base & ADDR_PDE) == 0)
		return setup_fail(err, errlen, "page_table_base_addr 0x%" PRIx64 " is not valid"
				  " (bit 0 clear, no address)", base);
	c->fbo = (c->v[K_FBO] & 0xffffff) << 24;
	/* BASE is a PDE: PBA 47:6, minus FB_OFFSET<<24 in VRAM (§B.5 step 3). */
	c->table = base & ADDR_PDE;
	c->table_space = bits(base, 1, 1) ? SP_SYSMEM : SP_VRAM;
	if (c->table_space == SP_VRAM) {
		if (c->table < c->fbo)
			return setup_fail(err, errlen, "page_table_base_addr address 0x%" PRIx64
					  " is below fb_offset<<24 0x%" PRIx64, c->table, c->fbo);
		c->table -= c->fbo;
	}
	/* The root covers what START..END needs, its index unmasked (§B.5 step 5, §B.7.5). */
	if (c->depth == 0)
		shift = 12 + bits(base, (unsigned)g->bfs_lo + 4, (unsigned)g->bfs_lo);
	else
		shift = 21 + c->bs + 9 * (c->depth - 1);
	span = (end << 12 | 0xfff) - (start << 12);
	c->entries = (span >> shift) + 1;
	while (root_bits < 63 && (1ull << root_bits) < c->entries)
		root_bits++;
	if (root_bits == 0)
		root_bits = 1;
	if (c->depth > 0 && root_bits > 27)
		return setup_fail(err, errlen, "a root of 0x%" PRIx64 " entries (depth %u, block"
				  " size %u) is more than 2^27", c->entries, c->depth, c->bs);

	c->fmt = pt_format_gpuvm;
	build_levels(c->levels, c->depth, c->bs, c->depth ? root_bits : 0);
	c->fmt.levels = c->levels;
	c->fmt.decode = decoders[c->gfx - 9][c->depth];
	c->fmt.encode = pt_gpuvm_encoders[c->gfx - 9][c->depth];
	ctx->fmt = &c->fmt;
	ctx->root_space = c->table_space;
	ctx->root_addr = c->table;
	ctx->root_entries = c->entries;
	ctx->root_page_shift = (unsigned)shift;
	ctx->va_base = start << 12;
	ctx->va_last = end << 12 | 0xfff;
	for (unsigned i = 0; i < PT_CONTEXT_SPACES; i++)
		ctx->space_bias[i] = 0;
	/* amdgpu writes VRAM addresses as vram_base_offset + offset; umr subtracts it. */
	ctx->space_bias[SP_VRAM] = c->fbo;
	return PT_OK;
}

static void gpuvm_info_text(const struct pt_context *ctx, struct pt_buf *b)
{
	const struct gpuvm_ctx *c = ctx->priv;

	if (!c || !c->gfx)
		return;
	pt_buf_printf(b, "gfx: %u\npage_table_depth: %u\npage_table_block_size: %u\n",
		      c->gfx, c->depth, c->bs);
	for (int i = K_BASE; i < K__COUNT; i++) {
		if (!c->has[i] || i == K_DEPTH || i == K_BS)
			continue;
		pt_buf_printf(b, "%s: 0x%" PRIx64, key_names[i], c->v[i]);
		if (c->masked & 1u << i)
			pt_buf_printf(b, " (written 0x%" PRIx64 ")", c->written[i]);
		pt_buf_puts(b, "\n");
	}
	pt_buf_printf(b, "table: %s:0x%" PRIx64 "\n", gpuvm_spaces[c->table_space], c->table);
	pt_buf_printf(b, "vram_base_offset: 0x%" PRIx64 "\n", c->fbo);   /* FB_OFFSET << 24 */
	pt_buf_printf(b, "va_start: 0x%" PRIx64 "\nva_end: 0x%" PRIx64 "\n", ctx->va_base, ctx->va_last);
}

static void gpuvm_info_json(const struct pt_context *ctx, struct pt_jobj *o)
{
	const struct gpuvm_ctx *c = ctx->priv;

	if (!c || !c->gfx)
		return;
	pt_jobj_u(o, "gfx", c->gfx);
	pt_jobj_u(o, "page_table_depth", c->depth);
	pt_jobj_u(o, "page_table_block_size", c->bs);
	pt_jobj_hex(o, "page_table_base_addr", c->v[K_BASE]);
	pt_jobj_hex(o, "fb_offset", c->fbo);
	if (c->masked) {
		struct pt_jobj w = {0};

		for (int i = 0; i < K__COUNT; i++)
			if (c->masked & 1u << i)
				pt_jobj_hex(&w, key_names[i], c->written[i]);
		pt_jobj_obj(o, "registers_written", &w);
	}
	pt_jobj_hex(o, "va_start", ctx->va_base);
	pt_jobj_hex(o, "va_end", ctx->va_last);
}

/*
 * ptfs-tool build: BASE is a valid PDE of the builder's root (in vram its
 * offset plus FB_OFFSET<<24, as amdgpu_gmc_pd_addr() writes it), END the
 * last mapped page, depth 3 and block size 0 (Linux's default 48-bit VM),
 * unless the spec says; START stays 0, so that every table's entries are
 * aligned to their span.  The generation (gfx) is the spec's.
 */
static void gpuvm_build_keys(const struct pt_build_keys *k, struct pt_buf *ini)
{
	const char *fbo = k->get(k->ud, key_names[K_FBO]);
	uint64_t off = 0;
	bool cntl = k->get(k->ud, key_names[K_CNTL]) != NULL;

	if (fbo && pt_num_parse(fbo, PT_NUM_INI, &off))
		off = (off & 0xffffff) << 24;
	if (!k->get(k->ud, key_names[K_BASE]))
		pt_buf_printf(ini, "%s = 0x%" PRIx64 "\n", key_names[K_BASE],
			      (k->space == SP_SYSMEM ? k->root | 2 : k->root + off) | 1);
	if (!k->get(k->ud, key_names[K_END]))
		pt_buf_printf(ini, "%s = 0x%" PRIx64 "\n", key_names[K_END], k->va_hi >> 12);
	if (!cntl && !k->get(k->ud, key_names[K_DEPTH]))
		pt_buf_printf(ini, "%s = 3\n", key_names[K_DEPTH]);
	if (!cntl && !k->get(k->ud, key_names[K_BS]))
		pt_buf_printf(ini, "%s = 0\n", key_names[K_BS]);
}

/*
 * ptfs-tool roots: CTX's keys as written, BASE the PDE of the table at
 * ROOT (its other bits kept; in vram plus fb_offset<<24, §B.5 step 3).
 */
static void gpuvm_geom_keys(const struct pt_context *ctx, unsigned space, uint64_t root,
			  struct pt_buf *ini)
{
	const struct gpuvm_ctx *c = ctx->priv;
	uint64_t at = space == SP_SYSMEM ? root | 2 : root + c->fbo;

	for (int i = 0; i < K__COUNT; i++) {
		if (!c->has[i])
			continue;
		if (i == K_BASE)
			pt_buf_printf(ini, "%s = 0x%" PRIx64 "\n", key_names[i],
				      (uint64_t)((c->written[i] & ~(ADDR_PDE | 2)) | (at & (ADDR_PDE | 2))));
		else if (key_is_register(i))
			pt_buf_printf(ini, "%s = 0x%" PRIx64 "\n", key_names[i], c->written[i]);
		else
			pt_buf_printf(ini, "%s = %" PRIu64 "\n", key_names[i], c->written[i]);
	}
}

static const struct pt_blob_kind gpuvm_blob_kinds[] = {
	{"gpuvm", 8},
	{NULL, 0},
};

/*
 * Without a context (ptfs-tool decode): gfx9, depth 3, block size 0, the
 * Linux default for a 256 TiB VM with translate_further off (§B.2).
 */
static const struct pt_level gpuvm_levels[] = {
	/* name          depth va_shift bits size role         leaf_shift child */
	{"pdb2",         0,    39,      9,   8,   PT_ROLE_DIR,  39, {1, -1}},
	{"pdb1",         1,    30,      9,   8,   PT_ROLE_DIR,  30, {2, -1}},
	{"pdb0",         2,    21,      9,   8,   PT_ROLE_DIR,  21, {3, -1}},
	{"ptb",          3,    12,      9,   8,   PT_ROLE_DIR,  12, {4, -1}},
	{"ptb_further",  4,    12,      9,   8,   PT_ROLE_LEAF, 0,  {-1, -1}},
	{NULL,           0,    0,       0,   0,   0,            0,  {-1, -1}},
};

const struct pt_format pt_format_gpuvm = {
	.name = "amd-gpuvm",
	.levels = gpuvm_levels,
	.va_bits = 48,
	.va_digits = 12,
	.spaces = gpuvm_spaces,
	.decode = gpuvm_decode_gen_0_3,
	.flags = pt_gart_flags,      /* the same bits as amd-gart */
	.kind_name = pt_gart_kind_name,
	.kind_field = "mtype",   /* the KIND column is the memory type */
	.blob_kinds = gpuvm_blob_kinds,
	.ctx_section = "vm",
	.ctx_size = sizeof(struct gpuvm_ctx),
	.ctx_key = gpuvm_ctx_key,
	.ctx_missing = gpuvm_ctx_missing,
	.ctx_setup = gpuvm_ctx_setup,
	.info_text = gpuvm_info_text,
	.info_json = gpuvm_info_json,
	.encode = pt_gpuvm_encode_gfx9,
	.build_keys = gpuvm_build_keys,
	.geom_keys = gpuvm_geom_keys,
};
