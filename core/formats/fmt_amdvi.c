/* SPDX-License-Identifier: MIT */
/*
 * fmt_amdvi.c — AMD-Vi (AMD IOMMU) v1 host page tables, `amd-vi`,
 * [amdvi NAME] (docs/design.md §2.7).
 *
 * Sources (restated, no code copied): Linux drivers/iommu/amd/io_pgtable.c
 * and amd_iommu_types.h (PM_LEVEL_SHIFT = 12 + 9·x, IOMMU_PTE_PR/U/FC/IR/IW,
 * PM_LEVEL_PDE, PAGE_SIZE_PTE / PTE_PAGE_SIZE for Next Level 7,
 * fetch_pte), drivers/iommu/generic_pt/fmt/amdv1.h (citing the AMD I/O
 * Virtualization Technology (IOMMU) Specification 48882 §2.2.3 and Tables
 * 14/15: the top level holds no translation entries), Xen
 * xen/drivers/passthrough/amd/iommu-defs.h (struct amd_iommu_dte, struct
 * amd_iommu_pte: the ignored and reserved bits) and QEMU hw/i386/amd_iommu.c
 * (fetch_pte: DTE Mode 1..6, 7 reserved).
 *
 * Levels are the spec's, 1-based: l6 (7 index bits) .. l1, entries of 8
 * bytes; DTE.Mode is the number of levels and names the root.  The decoder
 * reads the hardware level off the table's page shift (12 + 9·(L−1)), so
 * one decoder serves every root; its row in a context's table is LEVEL.
 *
 * Entry (PDE and PTE share it, amd_iommu_pte): PR 0, ignored 4:1, A 5,
 * D 6, ignored 8:7, Next Level 11:9, address 51:12, reserved 58:52, U 59,
 * FC 60, IR 61, IW 62, ignored 63.  Next Level:
 *  - 0: a leaf of the level's own size (4K, 2M, 1G, 512G, 256T); not at
 *    l6 ("the top most level cannot have translation entries");
 *  - L−1: a pointer to the next table (PM_LEVEL_PDE);
 *  - 1..L−2: a pointer that skips levels (spec §2.2.3): it points at a
 *    level-NL table, which covers only the part of the entry's span whose
 *    IOVA bits of the skipped levels are zero (the table is indexed by
 *    NL's own bits); a VA in the rest faults (the walker: a table that
 *    does not reach the VA).  The zero rule is the reading the AMD spec is
 *    cited for; Linux never writes a skip (alloc_pte, fetch_pte: "No
 *    level skipping support yet") and QEMU walks one level at a time.  The
 *    entry shows `skipped_levels`; in the tree the table is named by its
 *    own level (l4/N/l2/...), the skipped levels have no directory;
 *  - 7: a leaf of a non-default size, encoded in the address (§2.2.3,
 *    Table 14; PAGE_SIZE_PTE): for a page of 2^k bytes address bits
 *    12..k−2 are 1 and bit k−1 is 0; the base is the field with bits
 *    k−1..12 cleared.  It sits at the level whose own size is just below
 *    2^k and is replicated in every slot of its page (PAGE_SIZE_PTE_COUNT):
 *    the decoder gives the whole page (page_size 2^k), the walker lists it
 *    once, at its first slot, and reads the others as `replica`;
 *  - NL ≥ L otherwise: `unsupported`.
 * Reserved bits 58:52 set fault the walk (`reserved_bits`; the spec's
 * IO_PAGE_FAULT has a reserved-bit flag: fail closed).  A leaf's rights
 * are the AND of IR and IW along the path, the DTE's included (spec
 * §2.2.3 as Linux generic_pt/fmt/amdv1.h cites it: "IR/IW are ANDed over
 * the PDEs"; QEMU amd_iommu.c: "ANDed at every level, including the
 * DTE"), through perm_or_down and the context's perm_set; the entry files
 * show each entry's own bits.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fmt_ctx.h"
#include "pt_buf.h"
#include "pt_iommu_format.h"
#include "pt_num.h"

#define BIT(n) (1ull << (n))
#define MASK(hi, lo) ((~0ull >> (63 - (hi))) & ~((1ull << (lo)) - 1))
#define ADDR_MASK MASK(51, 12)
#define RSV_MASK MASK(58, 52)
#define IGN_MASK (MASK(4, 1) | MASK(8, 7) | BIT(63))

static inline uint64_t bits(uint64_t v, unsigned hi, unsigned lo)
{
	return (v >> lo) & (~0ull >> (63 - (hi - lo)));
}

/* As intel-vtd: the machine's memory, or host-/guest-physical (docs/design.md §2.7, §2.8). */
enum { SP_SYSMEM, SP_HPA, SP_GPA, SP__COUNT };
static const char *const vi_spaces[] = {"sysmem", "hpa", "gpa", NULL};

enum { L_6, L_5, L_4, L_3, L_2, L_1, L__COUNT };
/* Mode 6; a context of Mode M uses the last M rows (pt_fmt_levels_tail()). */
static const struct pt_level vi_levels[] = {
	/* name depth va_shift bits size role          leaf_shift child */
	{"l6",  0,    57,      7,   8,   PT_ROLE_DIR,  0,  {L_5, -1}},
	{"l5",  1,    48,      9,   8,   PT_ROLE_DIR,  48, {L_4, -1}},
	{"l4",  2,    39,      9,   8,   PT_ROLE_DIR,  39, {L_3, -1}},
	{"l3",  3,    30,      9,   8,   PT_ROLE_DIR,  30, {L_2, -1}},
	{"l2",  4,    21,      9,   8,   PT_ROLE_DIR,  21, {L_1, -1}},
	{"l1",  5,    12,      9,   8,   PT_ROLE_DIR,  12, {-1, -1}},
	{NULL,  0,    0,       0,   0,   0,            0,  {-1, -1}},
};

/* Hardware level 1..6 of a table whose entries span 2^PAGE_SHIFT; 0: none. */
static unsigned hw_level(unsigned page_shift)
{
	if (page_shift < 12 || page_shift > 57 || (page_shift - 12) % 9)
		return 0;
	return (page_shift - 12) / 9 + 1;
}

/*
 * Next Level 7: log2 of the page size the address field encodes (1 + the
 * lowest zero bit of raw | 0xfff; PTE_PAGE_SIZE), or 0 when no zero bit
 * is left in 51:12.
 */
static unsigned nl7_shift(uint64_t r)
{
	uint64_t v = (r & ADDR_MASK) | 0xfff;

	for (unsigned b = 12; b <= 51; b++)
		if (!(v & BIT(b)))
			return b + 1;
	return 0;
}

static pt_err vi_decode_sp(unsigned ts, unsigned os, unsigned level, unsigned page_shift,
			   const uint8_t *raw, unsigned flags, struct pt_entry *out)
{
	unsigned hl = hw_level(page_shift), nl, shift = 0;
	uint64_t r, addr;
	bool pr;

	if (!raw || !hl || level >= L__COUNT) {
		pt_entry_reset(out, 0, NULL, flags);
		out->state = PT_ST_UNSUPPORTED;
		return PT_E_UNSUPPORTED;
	}
	pt_entry_reset(out, 8, raw, flags);
	r = out->raw[0];
	pr = r & 1;
	nl = (unsigned)bits(r, 11, 9);
	addr = r & ADDR_MASK;
	if (nl == 0)
		shift = page_shift;
	else if (nl == 7 && (shift = nl7_shift(r)) != 0)
		addr &= ~((1ull << shift) - 1);
	pt_entry_add(out, "pr", PT_FK_BIT, pr);
	pt_entry_add(out, "a", PT_FK_BIT, bits(r, 5, 5));
	pt_entry_add(out, "d", PT_FK_BIT, bits(r, 6, 6));
	pt_entry_add(out, "next_level", PT_FK_UINT, nl);
	pt_entry_add(out, "address", PT_FK_HEX, addr);
	pt_entry_add(out, "u", PT_FK_BIT, bits(r, 59, 59));
	pt_entry_add(out, "fc", PT_FK_BIT, bits(r, 60, 60));
	pt_entry_add(out, "ir", PT_FK_BIT, bits(r, 61, 61));
	pt_entry_add(out, "iw", PT_FK_BIT, bits(r, 62, 62));
	pt_entry_add(out, "ignored", PT_FK_HEX, r & IGN_MASK);
	if (nl == 0 || nl == 7)
		pt_entry_add(out, "page_size", PT_FK_HEX, shift ? 1ull << shift : 0);
	/* PR = 0: the IOMMU reads nothing else of it. */
	pt_entry_add_reserved(out, pr ? r & RSV_MASK : 0, 0, false);

	if (r == 0) {
		out->state = PT_ST_UNMAPPED;
	} else if (!pr) {
		out->state = PT_ST_INVALID;
	} else if (nl == 0 || nl == 7) {
		/*
		 * No leaf at l6; a Next Level 7 page lies strictly between this
		 * level's size and the next one's.
		 */
		if (hl == 6 || (nl == 7 && (shift <= page_shift || shift >= page_shift + 9))) {
			out->state = PT_ST_UNSUPPORTED;
			return PT_OK;
		}
		out->state = PT_ST_MAPPED;
		out->leaf = true;
		out->space = os;
		out->pa = addr;
		out->page_size = 1ull << shift;
		out->address_complete = true;
		out->perm = (bits(r, 61, 61) ? 0 : PT_PERM_NO_READ) |
			    (bits(r, 62, 62) ? 0 : PT_PERM_NO_WRITE) |
			    (bits(r, 60, 60) ? PT_PERM_SNOOPED : 0);
	} else if (nl >= 1 && nl < hl) {
		if (nl < hl - 1)
			pt_entry_add(out, "skipped_levels", PT_FK_UINT, hl - 1 - nl);
		out->state = PT_ST_POINTER;
		/* the rights it passes down (ANDed along the path: perm_or_down) */
		out->perm = (bits(r, 61, 61) ? 0 : PT_PERM_NO_READ) |
			    (bits(r, 62, 62) ? 0 : PT_PERM_NO_WRITE);
		out->target[0].present = true;
		/* rows are consecutive levels, root first: level NL is HL - NL rows down */
		out->target[0].level = (int8_t)(level + hl - nl);
		out->target[0].space = ts;
		out->target[0].addr = addr;
	} else {
		/* nl >= hl points up or sideways */
		out->state = PT_ST_UNSUPPORTED;
	}
	return PT_OK;
}

/* One decoder per (table space, page space): the hook has no context (fmt_ctx.h). */
PT_FMT_A3(PT_FMT_B3, PT_FMT_DECODER, vi_decode_sp)
static const pt_fmt_decode_fn vi_decoders[SP__COUNT][SP__COUNT] =
	{PT_FMT_ROWS3(PT_FMT_B3, vi_decode_sp)};

static void vi_flags(const struct pt_entry *e, char *buf, size_t len)
{
	static const char *const names[] = {"ir", "iw", "fc", "u"};
	const bool set[] = {
		!(e->perm & PT_PERM_NO_READ), !(e->perm & PT_PERM_NO_WRITE),
		(e->perm & PT_PERM_SNOOPED) != 0, (e->raw[0] & BIT(59)) != 0,
	};
	size_t off = 0;

	snprintf(buf, len, "-");
	for (size_t i = 0; i < 4; i++) {
		if (!set[i] || off >= len)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "," : "", names[i]);
	}
}

/*
 * The inverse of vi_decode_sp (ptfs-tool build).  Next Level is the
 * entry's field, else 0 for a leaf and, for a pointer, the level of the
 * table it points at, which its target's entry span says (12 + 9·(L−1)).
 * A Next Level 7 page gets its size code back in the address (bits
 * 12..k−2 set for a page of 2^k bytes).  Built pointers are IR|IW (Linux
 * sets both in every PDE: the rights are ANDed down the path); a not-present
 * entry is written back raw.
 */
static pt_err vi_encode(unsigned level, const struct pt_entry *e, uint8_t *raw, char *err,
			size_t errlen)
{
	bool leaf = e->state == PT_ST_MAPPED, ptr = e->state == PT_ST_POINTER;
	unsigned ts = e->target[0].shift;
	uint64_t nl, a, size = leaf ? pt_entry_get(e, "page_size", e->page_size) : 0, r;

	(void)level;
	if (!leaf && !ptr) {
		pt_le64_store(raw, e->state == PT_ST_INVALID ? e->raw[0] : 0);
		return PT_OK;
	}
	nl = pt_entry_get(e, "next_level", leaf ? 0 : hw_level(ts));
	if (ptr && (nl == 0 || nl == 7)) {
		snprintf(err, errlen, "amd-vi: a pointer to a table of entries of 2^%u bytes has no"
			 " Next Level", ts);
		return PT_E_VALUE;
	}
	a = pt_entry_get(e, "address", leaf ? e->pa : e->target[0].addr);
	/* a decoded Next Level 0 leaf keeps the address bits its span covers: only a request is checked */
	if ((a & ~ADDR_MASK) || (leaf && size && !pt_entry_field(e, "address") && (a & (size - 1)))) {
		snprintf(err, errlen, "amd-vi: address 0x%" PRIx64 " is not a%s 4 KiB aligned address"
			 " below 2^52", a, leaf ? " page-aligned," : "");
		return PT_E_VALUE;
	}
	if (leaf && nl == 7 && size >= 1ull << 13)
		a |= ((size >> 1) - 1) & ADDR_MASK;
	r = pt_entry_get(e, "pr", 1) | pt_entry_get(e, "a", 0) << 5 | pt_entry_get(e, "d", 0) << 6 |
	    (nl & 7) << 9 | a | pt_entry_get(e, "u", 0) << 59 | pt_entry_get(e, "fc", 0) << 60 |
	    pt_entry_get(e, "ir", ptr) << 61 | pt_entry_get(e, "iw", ptr) << 62 |
	    (pt_entry_get(e, "ignored", 0) & IGN_MASK) | e->reserved_mask[0];
	pt_le64_store(raw, r);
	return PT_OK;
}

/*
 * ptfs-tool build: the root is the builder's, Mode the fewest levels whose
 * IOVA range holds every mapping, at least 3 (Linux starts a v1 domain at
 * PAGE_MODE_3_LEVEL and grows it), unless the spec says.
 */
static void vi_build_keys(const struct pt_build_keys *k, struct pt_buf *ini)
{
	unsigned mode = 3;

	if (k->get(k->ud, "dte"))
		return;
	while (mode < 6 && k->va_hi >> (12 + 9 * mode))
		mode++;
	if (!k->get(k->ud, "root"))
		pt_buf_printf(ini, "root = 0x%" PRIx64 "\n", k->root);
	if (!k->get(k->ud, "mode"))
		pt_buf_printf(ini, "mode = %u\n", mode);
}

/* ---- the [amdvi NAME] context --------------------------------------------- */

struct vi_ctx {
	uint64_t dte, mode, root;
	bool has_dte, has_mode, has_root;
	bool walked;            /* the DTE of an [iommu] walk: V and TV checked there */
	bool pass;              /* DTE Mode 0: no translation */
	unsigned space, output_space;
	unsigned levels_n;
	struct pt_format fmt;
	struct pt_level levels[L__COUNT + 1];
};

static pt_err vi_ctx_key(void *priv, const struct pt_ctx_key *k)
{
	struct vi_ctx *c = priv;
	pt_err rc;

	if (!strcmp(k->key, "space"))
		return pt_fmt_space_key(k, "amd-vi", vi_spaces, &c->space);
	if (!strcmp(k->key, "output_space"))
		return pt_fmt_space_key(k, "amd-vi", vi_spaces, &c->output_space);
	if (!strcmp(k->key, "dte")) {
		c->has_dte = true;
		return pt_ctx_key_uint(k, &c->dte);
	}
	if (!strcmp(k->key, "root")) {
		c->has_root = true;
		return pt_ctx_key_uint(k, &c->root);
	}
	if (!strcmp(k->key, "mode")) {
		if ((rc = pt_ctx_key_uint(k, &c->mode)))
			return rc;
		if (c->mode < 1 || c->mode > 6)
			return pt_ctx_key_fail(k, PT_E_VALUE, "mode %" PRIu64 " in %s: the number"
					       " of levels is 1 to 6", c->mode, k->label);
		c->has_mode = true;
		return PT_OK;
	}
	return PT_E_NOTFOUND;
}

/* An [iommu] device's DTE (pt_format.h struct pt_ctx_entry): as `dte` with its spaces. */
static pt_err vi_ctx_entry(void *priv, const struct pt_ctx_entry *e, char *err, size_t errlen)
{
	struct vi_ctx *c = priv;

	if (e->kind != PT_CE_AMD_DTE)
		return pt_fmt_setup_fail(err, errlen, PT_E_UNSUPPORTED, "amd-vi: not a DTE");
	c->dte = e->w[0];
	c->has_dte = c->walked = true;
	return pt_fmt_entry_spaces(e, "amd-vi", vi_spaces, &c->space, &c->output_space, err, errlen);
}

static const char *vi_ctx_missing(const void *priv)
{
	const struct vi_ctx *c = priv;

	if (c->has_dte)
		return NULL;
	if (!c->has_mode)
		return "dte (or mode and root)";
	if (!c->has_root)
		return "root";
	return NULL;
}

/*
 * DTE qword 0 (struct amd_iommu_dte): V 0, TV 1, Mode 11:9, root 51:12, IR
 * 61, IW 62.  V and TV are checked here for a `dte` key; a walked DTE was
 * checked by the walk, which makes a device of no other (iommu_walk.c,
 * pt_amd_dte_device()).  Mode is checked here for both: the walk does not
 * read it.
 */
static pt_err vi_dte(struct vi_ctx *c, char *err, size_t errlen)
{
	uint64_t d = c->dte, mode = bits(d, 11, 9);

	if (c->has_mode || c->has_root)
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "dte and mode/root both given: the DTE"
				  " holds Mode and the root pointer");
	if (!c->walked && !(d & 1))
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "dte 0x%016" PRIx64 " is not valid (V=0):"
				  " no translation information", d);
	if (!c->walked && !(d & 2))
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "dte 0x%016" PRIx64 " has TV=0: no page"
				  " table", d);
	c->pass = mode == 0;
	if (mode == 7)
		return pt_fmt_setup_fail(err, errlen, PT_E_UNSUPPORTED, "dte 0x%016" PRIx64 " has Mode 7,"
				  " which is reserved", d);
	c->mode = mode;
	c->root = d & ADDR_MASK;
	return PT_OK;
}

extern const struct pt_format pt_format_amdvi;

/*
 * DTE Mode 0: translation disabled, an IOVA is its own address (QEMU
 * amd_iommu.c: "no translation" with the DTE's IR/IW as the rights; Linux
 * writes Mode 0 for an identity domain): a `pass-through` aperture of the
 * whole 64-bit range in output_space, or, with IR = IW = 0, `blocked`
 * (no access is allowed: Linux's DTE of a device without a domain).
 */
static void vi_pass_range(const struct pt_context *ctx, uint64_t va, struct pt_aperture *out)
{
	const struct vi_ctx *c = ctx->priv;

	out->hit = (c->dte >> 61) & 3;
	out->name = out->hit ? "pass-through" : "blocked";
	if (out->hit) {
		out->space = c->output_space;
		out->pa = va;
		out->last = UINT64_MAX;
	}
}

/* ptfs-tool roots: CTX's DTE (its IR/IW) with the root at ROOT, or root and mode; its spaces. */
static void vi_geom_keys(const struct pt_context *ctx, unsigned space, uint64_t root,
			  struct pt_buf *ini)
{
	const struct vi_ctx *c = ctx->priv;

	if (c->has_dte)
		pt_buf_printf(ini, "dte = 0x%" PRIx64 "\n", (uint64_t)((c->dte & ~ADDR_MASK) | (root & ADDR_MASK)));
	else
		pt_buf_printf(ini, "root = 0x%" PRIx64 "\nmode = %u\n", root, c->levels_n);
	pt_buf_printf(ini, "space = %s\noutput_space = %s\n", vi_spaces[space], vi_spaces[c->output_space]);
}

static pt_err vi_ctx_setup(struct pt_context *ctx, char *err, size_t errlen)
{
	struct vi_ctx *c = ctx->priv;
	pt_err rc;

	if (c->has_dte) {
		if ((rc = vi_dte(c, err, errlen)))
			return rc;
	} else if ((c->root & 0xfff) || (c->root & ~ADDR_MASK)) {
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "root 0x%" PRIx64 " is not a 4 KiB aligned"
				  " address of at most 52 bits", c->root);
	}
	if (c->pass) {
		/* one (empty) level: no table, and tree paths as short as a 1-level context's */
		pt_fmt_levels_tail(c->levels, vi_levels, L__COUNT, 1);
		c->fmt = pt_format_amdvi;
		c->fmt.levels = c->levels;
		c->fmt.out_of_range = vi_pass_range;
		ctx->fmt = &c->fmt;
		pt_fmt_ctx_root(ctx, c->space, 0, 0);
		ctx->space_used = 1u << c->space | 1u << c->output_space;
		return PT_OK;
	}
	c->levels_n = (unsigned)c->mode;
	pt_fmt_levels_tail(c->levels, vi_levels, L__COUNT, c->levels_n);
	c->fmt = pt_format_amdvi;
	c->fmt.levels = c->levels;
	/* Mode → IOVA bits (PM_LEVEL_SIZE): 21, 30, 39, 48, 57, 64. */
	c->fmt.va_bits = c->mode == 6 ? 64 : 12 + 9 * c->levels_n;
	c->fmt.va_digits = (c->fmt.va_bits + 3) / 4;
	c->fmt.decode = vi_decoders[c->space][c->output_space];
	ctx->fmt = &c->fmt;
	pt_fmt_ctx_root(ctx, c->space, c->root, (uint64_t)1 << c->levels[0].bits);
	ctx->space_used = 1u << c->space | 1u << c->output_space;
	/* the DTE's IR 61 / IW 62 restrict every page of the device */
	if (c->has_dte)
		ctx->perm_set = (bits(c->dte, 61, 61) ? 0 : PT_PERM_NO_READ) |
				(bits(c->dte, 62, 62) ? 0 : PT_PERM_NO_WRITE);
	return PT_OK;
}

static void vi_info_text(const struct pt_context *ctx, struct pt_buf *b)
{
	const struct vi_ctx *c = ctx->priv;

	if (!c || (!c->levels_n && !c->pass))
		return;
	if (c->has_dte)
		pt_buf_printf(b, "dte: 0x%016" PRIx64 "\ndte_ir: %u\ndte_iw: %u\n", c->dte,
			      (unsigned)bits(c->dte, 61, 61), (unsigned)bits(c->dte, 62, 62));
	if (c->pass)
		pt_buf_printf(b, "translation: %s\n", (c->dte >> 61) & 3 ? "pass-through (Mode 0:"
			      " every address is its own output; no table)" : "blocked (Mode 0 with"
			      " IR = IW = 0: every request is refused)");
	/* the root's address is the generic root: line */
	pt_buf_printf(b, "mode: %u\nspace: %s\noutput_space: %s\n", c->levels_n,
		      vi_spaces[c->space], vi_spaces[c->output_space]);
}

static void vi_info_json(const struct pt_context *ctx, struct pt_jobj *o)
{
	const struct vi_ctx *c = ctx->priv;

	if (!c || (!c->levels_n && !c->pass))
		return;
	if (c->pass)
		pt_jobj_str(o, "translation", (c->dte >> 61) & 3 ? "pass-through" : "blocked");
	if (c->has_dte) {
		pt_jobj_hex(o, "dte", c->dte);
		pt_jobj_u(o, "dte_ir", bits(c->dte, 61, 61));
		pt_jobj_u(o, "dte_iw", bits(c->dte, 62, 62));
	}
	pt_jobj_u(o, "mode", c->levels_n);
	pt_jobj_str(o, "space", vi_spaces[c->space]);
	pt_jobj_str(o, "output_space", vi_spaces[c->output_space]);
}

static const struct pt_blob_kind vi_blob_kinds[] = {{"amdvi", 8}, {NULL, 0}};
static const struct pt_perm_name vi_perm_names[] = {
	{PT_PERM_NO_READ, "ir=0"}, {PT_PERM_NO_WRITE, "iw=0"}, {PT_PERM_SNOOPED, "fc=1"}, {0, NULL},
};

/* Without a context (ptfs-tool decode): Mode 6, tables and pages in sysmem. */
const struct pt_format pt_format_amdvi = {
	.name = "amd-vi",
	.levels = vi_levels,
	.va_bits = 64,
	.va_digits = 16,
	.perm_or_down = PT_PERM_NO_READ | PT_PERM_NO_WRITE,
	.skips_levels = true,
	.spaces = vi_spaces,
	.decode = vi_decode_sp_0_0,
	.flags = vi_flags,
	.blob_kinds = vi_blob_kinds,
	.ctx_section = "amdvi",
	.ctx_size = sizeof(struct vi_ctx),
	.ctx_key = vi_ctx_key,
	.ctx_entry = vi_ctx_entry,
	.ctx_missing = vi_ctx_missing,
	.ctx_setup = vi_ctx_setup,
	.info_text = vi_info_text,
	.info_json = vi_info_json,
	.perm_names = vi_perm_names,
	.encode = vi_encode,
	.build_keys = vi_build_keys,
	.geom_keys = vi_geom_keys,
};
