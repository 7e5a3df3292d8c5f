/* SPDX-License-Identifier: MIT */
/*
 * ino.c — the inode scheme of the mount.
 *
 * Inode numbers are computed, not allocated: a capture never changes, so a
 * node's number is a pure function of where it is in the tree.  The same
 * capture therefore always mounts with the same numbers (find, diff -r and
 * tar see stable st_ino), no table of inodes is kept, and FORGET needs no
 * bookkeeping.  Every operation re-resolves its node from the number with
 * pt_node_resolve() / pt_walk_va().
 *
 * Every number is 64 bits (fuse_ino_t): the context in the top C bits,
 * then a prefix code that gives each node type the payload it needs.
 * C = bits_for(nctx + 1), 1 to 20, is fixed by the capture's number of
 * contexts at load, so a capture always mounts with the same numbers.
 *
 *   bits 63..64-C   context + 1 (C bits; 0: no context, all ones: an IOMMU
 *                   tree, see below)
 *   bits 63-C..0    prefix code, read from bit 63-C down, with V = min(52, 62-C)
 *                   (52 up to 1022 contexts, C <= 10) and P = V - 3:
 *     1 + (63-C) bits       WALKFILE   the byte VA
 *     0...0 (bits 62-C..V+1 zero), then from bit V down:
 *     1 + V bits            VALINK     VA >> 12: the page's 4 KiB page number
 *     01 + kind(2) + P      path node  kind 0 TABLEDIR, 1 ENTRYDIR, 2 ENTRYFILE;
 *                                      the path in the low P bits (49 up to C = 10)
 *     00 + zeros + type(4)  fixed node CTXDIR INFO MAPS VADIR WALKDIR ENTRIES
 *                                      (enum pt_tnode_type in bits 3..0), map.svg 6, vs/ 7,
 *                                      a device context's alias symlink 10
 *     00 + zeros + other(20) + 8      vs/OTHER: the other context's index
 *     00 + zeros + slot(20) + 9       a walk/ file past the walk bits: its slot
 *
 *  context field all ones (never a context's: nctx + 1 < 2^C): a node of
 *  a subtree that numbers its own nodes (an [iommu] section's tree) in the
 *  64 - C bits below, through pt_tree_ino_pack() (core/view/iotree_prov.c
 *  says how); pt_tree_ino_check() leaves out of the mount (with a warning)
 *  what does not fit.
 *
 *  context 0 (no context): ino 1 = the root (FUSE_ROOT_ID), ino 2 = `capture`,
 *  ino 3 = pa/, ino 16 + S = pa/SPACE/ (space id S < 16), and
 *     1 + space(4) + (59-C) bits   PAFILE   pa/SPACE/ADDR, the byte address
 *  so pa/ names addresses below 2^(59-C): 2^57 with up to 2 contexts, 2^49
 *  at 1022, 2^39 at 1,048,574; a wider name is ENOENT, never another byte's file.
 *  0 is never a node: it is the "negative entry" of a lookup reply.
 *
 *  Why these widths: the context field + a 64-bit byte VA cannot share 64
 *  bits, so each type gets what it names.  va/ names pages (any VA inside
 *  a page resolves to the page's link, whose payload is its first VA): a
 *  page is 4 KiB aligned, so its page number, 52 bits, covers every VA of
 *  up to 64 bits (VER3 57-bit, x86-64 57-bit canonical, anything wider).
 *  walk/ names bytes (the trace ends in the byte's PA) and gets every bit
 *  the context leaves: VAs below 2^(63-C), so with up to 62 contexts
 *  (C <= 6) every 57-bit VA (VER3), with 1022 (C = 10) those below 2^53;
 *  a canonical format's VA is zigzag-coded first (walk_code()), so the
 *  same limit holds for its magnitude (x86-64 LA57: every canonical VA
 *  with C <= 6); a walk/ name past the limit takes a slot held from its
 *  LOOKUP to its FORGET (wslot.c): fixed code 9 with the slot number above
 *  it, the slot remembering the VA; so every 64-bit VA has a walk/ file.
 *  A path (TABLEDIR: the pointer entry + which target, root: empty path;
 *  ENTRYDIR, ENTRYFILE: the entry) gets 49 bits, enough for a 6-level VER3
 *  path (3 + 1+9+9+9+8+1+9 = 49).
 *
 *  Past 1022 contexts (C > 10, up to 1,048,574: a capture of one IOMMU
 *  with 65,536 devices) the walk bit comes down to bit 63-C and VALINK,
 *  the path bit and the path payload come down with it (V = 62-C, P =
 *  59-C): at C = 17, va/ names pages below 2^57 and paths take 42 bits
 *  (a 4-level x86-64 or VT-d path 39); at C = 20, 2^54 and 39 bits.  A
 *  capture whose context needs more path bits than C leaves is refused by
 *  ptfs_ino_check() with one line naming the context; walk/ names past the
 *  limit take a slot as before.  Up to 1022 contexts every number is
 *  what it always was.
 *
 *  A path is packed from bit 0 up, driven by the format's level table:
 *    3 bits      n, the number of steps (0..PT_MAX_DEPTH)
 *    per step k  [1 choice bit if k > 0 and the previous level has two
 *                 children (a dual PDE0: 0 big, 1 small)]
 *                [idx_bits(level) bits: the entry index]
 *    TABLEDIR    [1 choice bit if n > 0 and the last level has two children]
 *  where idx_bits is the level's `bits`, or for a flat root (bits 0, the
 *  amd-gart `pte` level) the bits of root_entries - 1.  VER2 needs at most
 *  3 + 2+9+9+8+1+9 = 41 bits; a GART of 2^36 entries 39.  ptfs_ino_setup()
 *  proves at load time that every path of a context fits in 49 bits and
 *  that the context index fits (at most 1,048,574 contexts; ptfs_ino_check()
 *  then fits the paths to C); otherwise the capture is refused with
 *  E_UNSUPPORTED before anything is mounted.
 *
 *  Decoding re-encodes and compares, so each node has exactly one number and
 *  a forged number with stray bits is ENOENT.
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>

#include "ptfs.h"

#define VALINK_POS 52                      /* prefix 0..01, up to 1022 contexts */
#define PAYLOAD_BITS 49                    /* a path, up to 1022 contexts */
#define PAGE_SHIFT 12
#define MAX_CTX 1048574u   /* context + 1 in at most 20 bits */
#define N_BITS 3
#define PA_SPACE_BITS 4                    /* pa/SPACE: space ids below 16 (VER2/VER3 have 10) */
#define INO_PADIR 3
#define INO_PASPACE 16                     /* + the space id */
/* the fixed nodes' inode codes are their enum values: pinned, numbers are stable */
_Static_assert(PT_TN_CTXDIR == 1 && PT_TN_INFO == 2 && PT_TN_MAPS == 3 && PT_TN_VADIR == 4 &&
	       PT_TN_WALKDIR == 5 && PT_TN_ENTRIES == 12, "inode codes of the fixed nodes");
/*
 * map.svg came later: its enum value does not fit the 4-bit code, so it
 * takes code 6, which no fixed node uses (6..8 are path nodes, whose numbers
 * carry PATH_BIT instead).
 */
#define INO_CODE_SVG 6u
_Static_assert(PT_TN_TABLEDIR == INO_CODE_SVG, "code 6 is a path node's type, never a fixed code");
/*
 * vs/ and vs/OTHER likewise take codes 7 and 8 (path node types too); a
 * vs/OTHER file carries the other context's index above its code (bits
 * 4..23: below 1,048,574 contexts, under the path bit at any C), in the
 * fixed nodes' zero bits.
 */
#define INO_CODE_VSDIR 7u
#define INO_CODE_VSFILE 8u
#define VS_OTHER_SHIFT 4
/* A walk/ file whose VA takes a slot (wslot.c): code 9, a free code too. */
#define INO_CODE_WSLOT 9u
/* A device context's alias symlink (dmar0.0000:00:03.0): code 10, WALKFILE's value, never a fixed code. */
#define INO_CODE_ALIAS 10u
_Static_assert(PT_TN_WALKFILE == INO_CODE_ALIAS, "code 10 is a walk/ file's type, never a fixed code");
#define WSLOT_SHIFT 4
_Static_assert(PTFS_WSLOT_MAX <= (1u << 20), "a slot number fits bits 4..23");
_Static_assert(PT_TN_ENTRYDIR == INO_CODE_VSDIR && PT_TN_ENTRYFILE == INO_CODE_VSFILE,
	       "codes 7 and 8 are path node types, never fixed codes");

static unsigned bits_for(uint64_t v)
{
	/* a count, not a loop: every inode number asks (ctx_bits) */
	return v ? 64u - (unsigned)__builtin_clzll(v) : 0;
}

/* C, the width of the context field: fixed by the number of contexts. */
static unsigned ctx_bits(const struct ptfs *fs)
{
	return bits_for((uint64_t)fs->nctx + 1);
}

uint64_t ptfs_walk_limit(const struct ptfs *fs)
{
	return UINT64_C(1) << (63 - ctx_bits(fs));
}

uint64_t ptfs_pa_limit(const struct ptfs *fs)
{
	return UINT64_C(1) << (63 - ctx_bits(fs) - PA_SPACE_BITS);
}

/* The VALINK prefix bit: bit 52 up to 1022 contexts, then just below the walk bit. */
static unsigned valink_pos(const struct ptfs *fs)
{
	unsigned below = 62 - ctx_bits(fs);

	return below < VALINK_POS ? below : VALINK_POS;
}

/* A path's payload bits (49 up to 1022 contexts); the path bit and its 2 kind bits above. */
static unsigned payload_bits(const struct ptfs *fs)
{
	return valink_pos(fs) - 3;
}

static bool two_children(const struct pt_level *l)
{
	return l->child[1] >= 0;
}

/* Largest number of path bits any path starting at LEVEL can take (depth bounded). */
static unsigned path_bits(const struct ptfs_ctx *pc, const struct pt_level *levels,
			  int level, unsigned depth, bool *bad)
{
	const struct pt_level *l;
	unsigned own, best = 0;

	if (level < 0 || (unsigned)level >= pc->nlevels || depth >= PT_MAX_DEPTH) {
		if (level >= 0 && (unsigned)level >= pc->nlevels)
			*bad = true;
		return 0;
	}
	l = &levels[level];
	own = pc->idx_bits[level] + (two_children(l) ? 1 : 0);
	for (unsigned c = 0; c < 2; c++) {
		if (l->child[c] >= 0) {
			unsigned b = path_bits(pc, levels, l->child[c], depth + 1, bad);

			if (b > best)
				best = b;
		}
	}
	return own + best;
}

pt_err ptfs_ino_setup(struct ptfs_ctx *pc, const struct pt_context *ctx, unsigned index,
		      char *why, size_t whylen)
{
	const struct pt_format *fmt = ctx->fmt;
	const struct pt_level *levels = fmt->levels;
	bool bad = false;
	unsigned total;

	pc->ctx = ctx;
	pc->nlevels = pt_format_nlevels(fmt);
	if (index > MAX_CTX - 1) {
		/* the section of the first context past the limit names where to cut */
		snprintf(why, whylen, "capture.ini:%u: more than %u contexts (the inode scheme "
			 "numbers at most %u)", ctx->ini_line, MAX_CTX, MAX_CTX);
		return PT_E_UNSUPPORTED;
	}
	if (fmt->va_bits > 64 || fmt->va_bits == 0) {
		snprintf(why, whylen, "context %s: %u-bit VAs do not fit the inode scheme",
			 ctx->name, fmt->va_bits);
		return PT_E_UNSUPPORTED;
	}
	if (pc->nlevels == 0 || pc->nlevels > PT_MAX_LEVELS) {
		snprintf(why, whylen, "context %s: format %s has %u levels", ctx->name,
			 fmt->name, pc->nlevels);
		return PT_E_UNSUPPORTED;
	}
	for (unsigned l = 0; l < pc->nlevels; l++) {
		unsigned b = levels[l].bits;

		if (l == 0) {
			unsigned rb = ctx->root_entries ? bits_for(ctx->root_entries - 1) : 0;

			if (rb > b)
				b = rb;
		} else if (b == 0) {
			snprintf(why, whylen, "context %s: level %s has no index width",
				 ctx->name, levels[l].name);
			return PT_E_UNSUPPORTED;
		}
		if (b > PAYLOAD_BITS) {
			snprintf(why, whylen, "context %s: level %s needs %u index bits",
				 ctx->name, levels[l].name, b);
			return PT_E_UNSUPPORTED;
		}
		pc->idx_bits[l] = (uint8_t)b;
	}
	total = N_BITS + path_bits(pc, levels, 0, 0, &bad);
	if (fmt->skips_levels) {
		/* one skip bit, and a skipping path's row mask (see pack_path) */
		unsigned all = 0, least = PAYLOAD_BITS;

		for (unsigned l = 0; l < pc->nlevels; l++) {
			all += pc->idx_bits[l];
			if (l > 0 && pc->idx_bits[l] < least)
				least = pc->idx_bits[l];
			bad = bad || two_children(&levels[l]);
		}
		total += 1;
		if (pc->nlevels > 2 && N_BITS + 1 + (pc->nlevels - 1) + all - least > total)
			total = N_BITS + 1 + (pc->nlevels - 1) + all - least;
	}
	if (bad || total > PAYLOAD_BITS) {
		snprintf(why, whylen, "context %s: tree paths need %u inode bits (at most %u)",
			 ctx->name, total, PAYLOAD_BITS);
		return PT_E_UNSUPPORTED;
	}
	pc->path_bits = total;
	return PT_OK;
}

/* The contexts whose slot is set up (a live guest's grow at a refresh). */
static size_t ready(const struct ptfs *fs)
{
	return __atomic_load_n(&fs->nready, __ATOMIC_ACQUIRE);
}

void ptfs_ino_grow(struct ptfs *fs)
{
	size_t r = ready(fs), have = pt_capture_context_count(fs->cap);
	char why[256];

	/* in order: a context whose paths do not fit (never an x86-64 process's) and those after it stay unshown */
	while (r < have && r < fs->nctx &&
	       ptfs_ino_setup(&fs->ctx[r], pt_capture_context(fs->cap, r), (unsigned)r, why, sizeof why) == PT_OK &&
	       fs->ctx[r].path_bits <= payload_bits(fs))
		r++;
	__atomic_store_n(&fs->nready, r, __ATOMIC_RELEASE);
	pt_tree_show_contexts(fs->tree, r);
}

pt_err ptfs_ino_check(const struct ptfs *fs, char *why, size_t whylen, char *warn,
		      size_t warnlen)
{
	if (warnlen)
		warn[0] = 0;
	for (size_t i = 0; i < fs->nctx; i++)
		if (fs->ctx[i].path_bits > payload_bits(fs)) {
			snprintf(why, whylen, "capture.ini:%u: context %s: tree paths need %u inode bits;"
				 " %zu contexts leave %u", fs->ctx[i].ctx->ini_line, fs->ctx[i].ctx->name,
				 fs->ctx[i].path_bits, fs->nctx, payload_bits(fs));
			return PT_E_UNSUPPORTED;
		}
	/* the subtrees that number their own nodes get the bits below the context field */
	return pt_tree_ino_check(fs->tree, 64 - ctx_bits(fs), fs->nctx, why, whylen, warn, warnlen);
}

/* A node of a subtree that numbers its own: context field all ones (never a context's). */
static fuse_ino_t own_encode(const struct ptfs *fs, const struct pt_tnode *id, pt_err *err)
{
	unsigned shift = 64 - ctx_bits(fs);
	uint64_t rest;

	*err = pt_tree_ino_pack(fs->tree, id, shift, &rest);
	return *err == PT_OK ? ((UINT64_C(1) << (64 - shift)) - 1) << shift | rest : 0;
}

/* Appends V in NBITS bits at *POS of *ACC. */
static void put_bits(uint64_t *acc, unsigned *pos, uint64_t v, unsigned nbits)
{
	if (nbits == 0)
		return;
	*acc |= (v & ((nbits >= 64) ? ~UINT64_C(0) : ((UINT64_C(1) << nbits) - 1))) << *pos;
	*pos += nbits;
}

static uint64_t get_bits(uint64_t acc, unsigned *pos, unsigned nbits)
{
	uint64_t v;

	if (nbits == 0)
		return 0;
	v = (acc >> *pos) & ((UINT64_C(1) << nbits) - 1);
	*pos += nbits;
	return v;
}

/* Which child of PARENT is level CHILD (0 or 1); -1 if none. */
static int choice_of(const struct pt_level *parent, int child)
{
	if (parent->child[0] == child)
		return 0;
	if (parent->child[1] == child)
		return 1;
	return -1;
}

/*
 * A format whose pointers may skip levels (pt_format.skips_levels, rows
 * with one child each): after n, one bit, 0 for a path through
 * consecutive rows (0, 1, ..., n-1), else 1 and a mask of the rows 1 ..
 * nlevels-1 the path visits.
 */
static void put_skips(const struct ptfs_ctx *pc, const struct pt_node *node, uint64_t *acc,
		      unsigned *pos)
{
	uint64_t mask = 0;
	bool skip = false;

	for (unsigned k = 1; k < node->n; k++) {
		skip = skip || node->s[k].level != node->s[k - 1].level + 1;
		if (node->s[k].level > 0 && (unsigned)node->s[k].level < pc->nlevels)
			mask |= UINT64_C(1) << (node->s[k].level - 1);
	}
	put_bits(acc, pos, skip, 1);
	if (skip)
		put_bits(acc, pos, mask, pc->nlevels - 1);
}

/* The rows of an N-step path of a skipping format into LV; false when the bits name none. */
static bool get_skips(const struct ptfs_ctx *pc, uint64_t acc, unsigned *pos, unsigned n,
		      int8_t *lv)
{
	uint64_t mask;
	unsigned k = 1;

	lv[0] = 0;
	if (!get_bits(acc, pos, 1)) {
		for (k = 1; k < n; k++)
			lv[k] = (int8_t)k;
		return n <= pc->nlevels;
	}
	mask = get_bits(acc, pos, pc->nlevels - 1);
	for (unsigned r = 1; r < pc->nlevels; r++)
		if (mask & UINT64_C(1) << (r - 1)) {
			if (k >= n)
				return false;
			lv[k++] = (int8_t)r;
		}
	return k == n;
}

/* Packs a path; UINT64_MAX when the path is not one the level table allows. */
static uint64_t pack_path(const struct ptfs_ctx *pc, const struct pt_node *node,
			  bool table, unsigned choice)
{
	const struct pt_level *levels = pc->ctx->fmt->levels;
	uint64_t acc = 0;
	unsigned pos = 0;

	if (node->n > PT_MAX_DEPTH)
		return UINT64_MAX;
	put_bits(&acc, &pos, node->n, N_BITS);
	if (pc->ctx->fmt->skips_levels && node->n > 0)
		put_skips(pc, node, &acc, &pos);
	for (unsigned k = 0; k < node->n; k++) {
		int lv = node->s[k].level;

		if (k == 0) {
			if (lv != 0)
				return UINT64_MAX;
		} else if (pc->ctx->fmt->skips_levels) {
			/* single-child rows, strictly down (the row mask above says which) */
			if (lv <= node->s[k - 1].level)
				return UINT64_MAX;
		} else {
			const struct pt_level *prev = &levels[node->s[k - 1].level];
			int c = choice_of(prev, lv);

			if (c < 0)
				return UINT64_MAX;
			if (two_children(prev))
				put_bits(&acc, &pos, (unsigned)c, 1);
		}
		if (lv < 0 || (unsigned)lv >= pc->nlevels ||
		    node->s[k].index >> pc->idx_bits[lv] != 0)
			return UINT64_MAX;
		put_bits(&acc, &pos, node->s[k].index, pc->idx_bits[lv]);
	}
	if (table && node->n > 0) {
		const struct pt_level *last = &levels[node->s[node->n - 1].level];

		if (choice > 1 || last->child[choice] < 0)
			return UINT64_MAX;
		if (two_children(last))
			put_bits(&acc, &pos, choice, 1);
	}
	if (pos > PAYLOAD_BITS)
		return UINT64_MAX;
	return acc;
}

/* Unpacks a path; false when the bits do not describe one. */
static bool unpack_path(const struct ptfs_ctx *pc, uint64_t acc, bool table,
			struct pt_node *node, unsigned *choice)
{
	const struct pt_level *levels = pc->ctx->fmt->levels;
	unsigned pos = 0;
	int8_t rows[PT_MAX_DEPTH];
	bool skips = pc->ctx->fmt->skips_levels;

	node->ctx = pc->ctx;
	node->n = (unsigned)get_bits(acc, &pos, N_BITS);
	if (node->n > PT_MAX_DEPTH)
		return false;
	if (skips && node->n > 0 && !get_skips(pc, acc, &pos, node->n, rows))
		return false;
	for (unsigned k = 0; k < node->n; k++) {
		int lv = 0;

		if (skips) {
			lv = rows[k];
		} else if (k > 0) {
			const struct pt_level *prev = &levels[node->s[k - 1].level];
			unsigned c = two_children(prev) ? (unsigned)get_bits(acc, &pos, 1) : 0;

			lv = prev->child[c];
			if (lv < 0 || (unsigned)lv >= pc->nlevels)
				return false;
		}
		if (pos + pc->idx_bits[lv] > PAYLOAD_BITS)
			return false;
		node->s[k].level = (int8_t)lv;
		node->s[k].index = get_bits(acc, &pos, pc->idx_bits[lv]);
	}
	*choice = 0;
	if (table && node->n > 0) {
		const struct pt_level *last = &levels[node->s[node->n - 1].level];

		if (two_children(last))
			*choice = (unsigned)get_bits(acc, &pos, 1);
		if (last->child[*choice] < 0)
			return false;
	}
	return pos <= PAYLOAD_BITS;
}

/*
 * A walk/ name's payload.  A canonical format's VAs use all 64 bits (the
 * high half from 0xffff800000000000), so they are zigzag-coded, the sign
 * bit moved to bit 0: -1 -> 1, 0 -> 0, 1 -> 2, a bijection of 64-bit
 * values that keeps every canonical VA (and those a little outside) below
 * 2^va_bits; the others, as the VA itself.
 */
static uint64_t walk_code(const struct ptfs_ctx *pc, uint64_t va)
{
	if (!pc->ctx->fmt->va_canonical)
		return va;
	return va << 1 ^ (uint64_t)((int64_t)va >> 63);
}

static uint64_t walk_uncode(const struct ptfs_ctx *pc, uint64_t code)
{
	if (!pc->ctx->fmt->va_canonical)
		return code;
	return code >> 1 ^ (0 - (code & 1));
}

/* Per-context nodes with no payload: their type is their code. */
static bool fixed_type(enum pt_tnode_type t)
{
	return t == PT_TN_CTXDIR || t == PT_TN_INFO || t == PT_TN_MAPS || t == PT_TN_VADIR ||
	       t == PT_TN_WALKDIR || t == PT_TN_ENTRIES || t == PT_TN_SVG || t == PT_TN_VSDIR ||
	       t == PT_TN_CTXALIAS;
}

static uint64_t fixed_code(enum pt_tnode_type t)
{
	return t == PT_TN_SVG ? INO_CODE_SVG : t == PT_TN_VSDIR ? INO_CODE_VSDIR :
	       t == PT_TN_CTXALIAS ? INO_CODE_ALIAS : (uint64_t)t;
}

static enum pt_tnode_type fixed_of_code(uint64_t code)
{
	if (code == INO_CODE_SVG)
		return PT_TN_SVG;
	if (code == INO_CODE_VSDIR)
		return PT_TN_VSDIR;
	if (code == INO_CODE_ALIAS)
		return PT_TN_CTXALIAS;
	if (code == PT_TN_TABLEDIR || code > PT_TN_ENTRIES)
		return PT_TN_ROOT;   /* not a fixed code: fixed_type() says no */
	return (enum pt_tnode_type)code;
}

fuse_ino_t ptfs_ino_encode(const struct ptfs *fs, const struct pt_tnode *id)
{
	unsigned shift = 64 - ctx_bits(fs);
	uint64_t walk_bit = UINT64_C(1) << (shift - 1);
	const struct ptfs_ctx *pc;
	fuse_ino_t ino;
	uint64_t rest;
	pt_err err;

	if (id->type == PT_TN_ROOT)
		return PTFS_INO_ROOT;
	if (id->type == PT_TN_CAPTURE)
		return PTFS_INO_CAPTURE;
	if (id->type == PT_TN_TASKS)
		return PTFS_INO_TASKS;
	if (id->type == PT_TN_PCI)
		return PTFS_INO_PCI;
	if (id->type == PT_TN_PADIR)
		return INO_PADIR;
	ino = own_encode(fs, id, &err);
	if (err != PT_E_USAGE)
		return ino;
	if (id->type == PT_TN_PASPACE || id->type == PT_TN_PAFILE) {
		if (id->choice >> PA_SPACE_BITS != 0)
			return 0;
		if (id->type == PT_TN_PASPACE)
			return INO_PASPACE + id->choice;
		if (id->va >= ptfs_pa_limit(fs))
			return 0;
		return walk_bit | (uint64_t)id->choice << (shift - 1 - PA_SPACE_BITS) | id->va;
	}
	if (id->ctx >= ready(fs))
		return 0;
	pc = &fs->ctx[id->ctx];
	switch (id->type) {
	case PT_TN_WALKFILE:
		if (walk_code(pc, id->va) < walk_bit)
			rest = walk_bit | walk_code(pc, id->va);
		else if (id->choice)   /* its slot + 1 (wslot.c) */
			rest = (uint64_t)(id->choice - 1) << WSLOT_SHIFT | INO_CODE_WSLOT;
		else
			return 0;
		break;
	case PT_TN_VALINK:
		/* only a page's first VA names it: one number per link */
		if (!pt_va_in_space(pc->ctx->fmt, id->va) ||
		    (id->va & ((UINT64_C(1) << PAGE_SHIFT) - 1)) != 0 ||
		    id->va >> PAGE_SHIFT >> valink_pos(fs) != 0)
			return 0;
		rest = UINT64_C(1) << valink_pos(fs) | id->va >> PAGE_SHIFT;
		break;
	case PT_TN_TABLEDIR:
	case PT_TN_ENTRYDIR:
	case PT_TN_ENTRYFILE: {
		uint64_t path;

		if (id->type != PT_TN_TABLEDIR && id->node.n == 0)
			return 0;
		path = pack_path(pc, &id->node, id->type == PT_TN_TABLEDIR, id->choice);
		if (path == UINT64_MAX)
			return 0;
		if (path >> payload_bits(fs) != 0)
			return 0;
		rest = UINT64_C(1) << (valink_pos(fs) - 1) |
		       (uint64_t)(id->type - PT_TN_TABLEDIR) << payload_bits(fs) | path;
		break;
	}
	case PT_TN_VSFILE:
		if (id->choice >= ready(fs) || id->choice == id->ctx)
			return 0;
		rest = (uint64_t)id->choice << VS_OTHER_SHIFT | INO_CODE_VSFILE;
		break;
	default:
		if (!fixed_type(id->type))
			return 0;
		rest = fixed_code(id->type);
		break;
	}
	return ((uint64_t)(id->ctx + 1) << shift) | rest;
}

int ptfs_ino_decode(const struct ptfs *fs, fuse_ino_t ino, struct pt_tnode *id)
{
	unsigned shift = 64 - ctx_bits(fs);
	uint64_t walk_bit = UINT64_C(1) << (shift - 1);
	uint64_t cfield = ino >> shift;
	uint64_t rest = ino & ((UINT64_C(1) << shift) - 1);
	const struct ptfs_ctx *pc;

	memset(id, 0, sizeof(*id));
	if (cfield == (UINT64_C(1) << (64 - shift)) - 1 && cfield > fs->nctx)
		return pt_tree_ino_unpack(fs->tree, rest, shift, id) == PT_OK ? 0 : ENOENT;
	if (cfield == 0) {
		if (ino == PTFS_INO_ROOT)
			id->type = PT_TN_ROOT;
		else if (ino == PTFS_INO_CAPTURE)
			id->type = PT_TN_CAPTURE;
		else if (ino == PTFS_INO_TASKS)
			id->type = PT_TN_TASKS;
		else if (ino == PTFS_INO_PCI)
			id->type = PT_TN_PCI;
		else if (ino == INO_PADIR)
			id->type = PT_TN_PADIR;
		else if (ino >= INO_PASPACE && ino < INO_PASPACE + (1u << PA_SPACE_BITS)) {
			id->type = PT_TN_PASPACE;
			id->choice = (unsigned)(ino - INO_PASPACE);
		} else if (ino & walk_bit) {
			id->type = PT_TN_PAFILE;
			id->choice = (unsigned)((ino >> (shift - 1 - PA_SPACE_BITS)) &
						((1u << PA_SPACE_BITS) - 1));
			id->va = ino & (ptfs_pa_limit(fs) - 1);
		} else
			return ENOENT;
		/* one number per node (the space id is checked by the lookup that made it) */
		return ptfs_ino_encode(fs, id) == ino ? 0 : ENOENT;
	}
	if (cfield - 1 >= ready(fs))
		return ENOENT;
	id->ctx = (unsigned)(cfield - 1);
	pc = &fs->ctx[id->ctx];
	/* stray bits between the walk bit and the other prefixes fail the re-encode below */
	if (rest & walk_bit) {
		id->type = PT_TN_WALKFILE;
		id->va = walk_uncode(pc, rest & (walk_bit - 1));
	} else if (rest >> valink_pos(fs) & 1) {
		id->type = PT_TN_VALINK;
		id->va = (rest & ((UINT64_C(1) << valink_pos(fs)) - 1)) << PAGE_SHIFT;
	} else if (rest >> (valink_pos(fs) - 1) & 1) {
		unsigned kind = (unsigned)((rest >> payload_bits(fs)) & 3);

		if (kind > PT_TN_ENTRYFILE - PT_TN_TABLEDIR)
			return ENOENT;
		id->type = (enum pt_tnode_type)(PT_TN_TABLEDIR + kind);
		if (!unpack_path(pc, rest & ((UINT64_C(1) << payload_bits(fs)) - 1),
				 id->type == PT_TN_TABLEDIR,
				 &id->node, &id->choice))
			return ENOENT;
	} else if ((rest & 0xf) == INO_CODE_WSLOT) {
		unsigned ctx;
		uint64_t slot = rest >> WSLOT_SHIFT;

		if (!fs->wslots || slot >= PTFS_WSLOT_MAX ||
		    !ptfs_wslot_get(fs->wslots, (uint32_t)slot, &ctx, &id->va) || ctx != id->ctx)
			return ENOENT;
		id->type = PT_TN_WALKFILE;
		id->choice = (unsigned)slot + 1;
	} else if ((rest & 0xf) == INO_CODE_VSFILE) {
		id->type = PT_TN_VSFILE;
		id->choice = (unsigned)(rest >> VS_OTHER_SHIFT);   /* a wider index fails the re-encode */
	} else {
		/* stray bits above the type fail the re-encode below */
		id->type = fixed_of_code(rest & 0xf);
		if (!fixed_type(id->type))
			return ENOENT;
	}
	id->node.ctx = pc->ctx;
	/* one number per node: reject anything that does not re-encode to itself */
	if (ptfs_ino_encode(fs, id) != ino)
		return ENOENT;
	return 0;
}

bool ptfs_ino_wslot(const struct ptfs *fs, fuse_ino_t ino, uint32_t *slot)
{
	unsigned shift = 64 - ctx_bits(fs);
	uint64_t rest = ino & ((UINT64_C(1) << shift) - 1);

	if (ino >> shift == 0 || (rest & (UINT64_C(1) << (shift - 1))) != 0 ||
	    (rest & 0xf) != INO_CODE_WSLOT || rest >> WSLOT_SHIFT >= PTFS_WSLOT_MAX)
		return false;
	*slot = (uint32_t)(rest >> WSLOT_SHIFT);
	return true;
}
