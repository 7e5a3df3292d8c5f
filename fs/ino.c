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
 *   63            54 53    50 49                                     0
 *  +----------------+--------+----------------------------------------+
 *  | context + 1    |  type  |                payload                 |
 *  |   (10 bits)    | 4 bits |                50 bits                 |
 *  +----------------+--------+----------------------------------------+
 *
 *  context 0 (no context): ino 1 = the root (FUSE_ROOT_ID), ino 2 = `capture`.
 *  0 is never a node: it is the "negative entry" of a lookup reply.
 *
 *  type (enum ptfs_type)   payload
 *  CTXDIR INFO MAPS        0
 *  VADIR WALKDIR           0
 *  VALINK                  first VA of the page (va/ names any VA inside it)
 *  WALKFILE                the VA itself
 *  TABLEDIR                path of the pointer entry + which target (root: empty path)
 *  ENTRYDIR ENTRYFILE      path of the entry
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
 *  proves at load time that every path of a context fits in 50 bits, that
 *  a VA fits (va_bits <= 50) and that the context index fits; otherwise the
 *  capture is refused with E_UNSUPPORTED before anything is mounted.
 *
 *  Decoding re-encodes and compares, so each node has exactly one number and
 *  a forged number with stray bits is ENOENT.
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>

#include "ptfs.h"

#define CTX_SHIFT 54
#define TYPE_SHIFT 50
#define PAYLOAD_BITS 50
#define PAYLOAD_MASK ((UINT64_C(1) << PAYLOAD_BITS) - 1)
_Static_assert(PTFS_WALK_LIMIT == (UINT64_C(1) << PAYLOAD_BITS), "a walk/ VA is a whole payload");
#define MAX_CTX 1022u   /* context + 1 must fit 10 bits */
#define N_BITS 3

static unsigned bits_for(uint64_t v)
{
	unsigned b = 0;

	while (b < 64 && (v >> b) != 0)
		b++;
	return b;
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
		snprintf(why, whylen, "more than %u contexts", MAX_CTX);
		return PT_E_UNSUPPORTED;
	}
	if (fmt->va_bits > PAYLOAD_BITS || fmt->va_bits == 0) {
		snprintf(why, whylen, "context %s: %u-bit VAs do not fit the inode scheme",
			 ctx->name, fmt->va_bits);
		return PT_E_UNSUPPORTED;
	}
	pc->va_limit = UINT64_C(1) << fmt->va_bits;
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
	if (bad || total > PAYLOAD_BITS) {
		snprintf(why, whylen, "context %s: tree paths need %u inode bits (at most %u)",
			 ctx->name, total, PAYLOAD_BITS);
		return PT_E_UNSUPPORTED;
	}
	return PT_OK;
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
	for (unsigned k = 0; k < node->n; k++) {
		int lv = node->s[k].level;

		if (k == 0) {
			if (lv != 0)
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

	node->ctx = pc->ctx;
	node->n = (unsigned)get_bits(acc, &pos, N_BITS);
	if (node->n > PT_MAX_DEPTH)
		return false;
	for (unsigned k = 0; k < node->n; k++) {
		int lv = 0;

		if (k > 0) {
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

fuse_ino_t ptfs_ino_encode(const struct ptfs *fs, const struct ptfs_id *id)
{
	const struct ptfs_ctx *pc;
	uint64_t payload = 0;

	if (id->type == PTFS_T_GLOBAL)
		return id->global;
	if (id->ctx >= fs->nctx)
		return 0;
	pc = &fs->ctx[id->ctx];
	switch (id->type) {
	case PTFS_T_VALINK:
	case PTFS_T_WALKFILE:
		if (id->va >= (id->type == PTFS_T_WALKFILE ? PTFS_WALK_LIMIT : pc->va_limit))
			return 0;
		payload = id->va;
		break;
	case PTFS_T_TABLEDIR:
	case PTFS_T_ENTRYDIR:
	case PTFS_T_ENTRYFILE:
		if (id->type != PTFS_T_TABLEDIR && id->node.n == 0)
			return 0;
		payload = pack_path(pc, &id->node, id->type == PTFS_T_TABLEDIR, id->choice);
		if (payload == UINT64_MAX)
			return 0;
		break;
	default:
		break;
	}
	return ((uint64_t)(id->ctx + 1) << CTX_SHIFT) | ((uint64_t)id->type << TYPE_SHIFT) |
	       (payload & PAYLOAD_MASK);
}

int ptfs_ino_decode(const struct ptfs *fs, fuse_ino_t ino, struct ptfs_id *id)
{
	uint64_t cfield = ino >> CTX_SHIFT;
	uint64_t payload = ino & PAYLOAD_MASK;
	const struct ptfs_ctx *pc;

	memset(id, 0, sizeof(*id));
	if (cfield == 0) {
		if (ino != PTFS_INO_ROOT && ino != PTFS_INO_CAPTURE)
			return ENOENT;
		id->type = PTFS_T_GLOBAL;
		id->global = ino;
		return 0;
	}
	if (cfield - 1 >= fs->nctx)
		return ENOENT;
	id->ctx = (unsigned)(cfield - 1);
	id->type = (enum ptfs_type)((ino >> TYPE_SHIFT) & 0xf);
	if (id->type == PTFS_T_GLOBAL || id->type >= PTFS_T__COUNT)
		return ENOENT;
	pc = &fs->ctx[id->ctx];
	switch (id->type) {
	case PTFS_T_VALINK:
	case PTFS_T_WALKFILE:
		id->va = payload;
		break;
	case PTFS_T_TABLEDIR:
	case PTFS_T_ENTRYDIR:
	case PTFS_T_ENTRYFILE:
		if (!unpack_path(pc, payload, id->type == PTFS_T_TABLEDIR, &id->node, &id->choice))
			return ENOENT;
		break;
	default:
		break;
	}
	id->node.ctx = pc->ctx;
	/* one number per node: reject anything that does not re-encode to itself */
	if (ptfs_ino_encode(fs, id) != ino)
		return ENOENT;
	return 0;
}

int ptfs_table_level_of(const struct ptfs *fs, const struct ptfs_id *id)
{
	const struct pt_level *levels = fs->ctx[id->ctx].ctx->fmt->levels;

	if (id->node.n == 0)
		return 0;
	return levels[id->node.s[id->node.n - 1].level].child[id->choice];
}
