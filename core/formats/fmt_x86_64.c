/* SPDX-License-Identifier: MIT */
/*
 * fmt_x86_64.c — x86-64 CPU paging, 4-level and 5-level (docs/design.md
 * §2.5).  Facts: Intel SDM vol. 3A §4.5, tables 4-13 (PML4E; PML5E has
 * the same layout), 4-14/4-15 (PDPTE), 4-17/4-18 (PDE), 4-19 (PTE); Linux
 * arch/x86/include/asm/pgtable_types.h (_PAGE_BIT_* 0-12, 59-63),
 * pgtable_64_types.h (PGDIR_SHIFT 39 / 48 with LA57, P4D 39, PUD 30,
 * PMD 21, PTRS_PER_* 512), processor-flags.h (CR3, CR4 bits).
 *
 * A context is one CR3 (a `[cpu NAME]` section): its registers choose the
 * depth (CR4.LA57), whether bit 63 is XD or reserved (EFER.NXE) and which
 * address bits are reserved (MAXPHYADDR).  The decoder has no context, so
 * there is one decoder per (NXE, MAXPHYADDR); the level is told by its
 * page shift (48 PML5, 39 PML4, 30 PDPT, 21 PD, 12 PT), the same in the
 * 4-level and 5-level tables.
 *
 * VAs are canonical (va_canonical: 48 or 57 bits sign-extended).  Rights
 * are those of the path: writable and user ANDed, xd ORed (SDM §4.6: every
 * paging-structure entry on the way restricts the region it controls),
 * through perm_or_down / perm_and_down.  P = 0 is not present: every other
 * bit is the software's (Linux's PROT_NONE sets bit 8 there), so such an
 * entry is `invalid` with its raw value and no decoded guess.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fmt_ctx.h"
#include "pt_buf.h"
#include "pt_iommu_format.h"
#include "pt_num.h"

static const char *const x86_spaces[] = {"sysmem", NULL};

/* Level kinds by page shift. */
enum { LK_PT = 12, LK_PD = 21, LK_PDPT = 30, LK_PML4 = 39, LK_PML5 = 48 };

#define BIT(n) (1ull << (n))
#define M_MIN 32u
#define M_MAX 52u

static inline uint64_t bits(uint64_t v, unsigned hi, unsigned lo)
{
	return (v >> lo) & ((1ull << (hi - lo + 1)) - 1);
}

/* Bits (M-1):LO: an address field whose low bit is LO. */
static inline uint64_t addr_mask(unsigned m, unsigned lo)
{
	return ((1ull << m) - 1) & ~((1ull << lo) - 1);
}

/* Rights of one entry in PT_PERM_* words: writable=0, user=0 (supervisor only), executable. */
static uint32_t entry_perm(uint64_t r, bool nxe)
{
	return (r & BIT(1) ? 0 : PT_PERM_NO_WRITE) | (r & BIT(2) ? 0 : PT_PERM_PRIVILEGE) |
	       (nxe && (r & BIT(63)) ? 0 : PT_PERM_EXEC);
}

/* The low flags every present entry has (SDM tables 4-13..4-19, bits 0-5). */
static void add_low(struct pt_entry *e, uint64_t r)
{
	pt_entry_add(e, "present", PT_FK_BIT, bits(r, 0, 0));
	pt_entry_add(e, "writable", PT_FK_BIT, bits(r, 1, 1));
	pt_entry_add(e, "user", PT_FK_BIT, bits(r, 2, 2));
	pt_entry_add(e, "pwt", PT_FK_BIT, bits(r, 3, 3));
	pt_entry_add(e, "pcd", PT_FK_BIT, bits(r, 4, 4));
	pt_entry_add(e, "accessed", PT_FK_BIT, bits(r, 5, 5));
}

static void add_tail(struct pt_entry *e, uint64_t r, bool nxe, uint64_t named)
{
	if (nxe)
		pt_entry_add(e, "xd", PT_FK_BIT, bits(r, 63, 63));
	pt_entry_add_reserved(e, r & ~named, 0, false);
}

/*
 * A leaf of SHIFT (12, 21, 30): dirty, global, the PAT bit (7 in a PTE,
 * 12 in a large leaf), sw, the address, sw_high 58:52, protection_key
 * 62:59 (SDM table 4-19: meaningful with CR4.PKE/PKS; named either way).
 */
static void decode_leaf(struct pt_entry *e, uint64_t r, unsigned shift, bool nxe, unsigned m)
{
	uint64_t named = 0x1ffull | (0x7ull << 9) | addr_mask(m, shift) | (0x7full << 52) |
			 (0xfull << 59) | (nxe ? BIT(63) : 0);

	add_low(e, r);
	pt_entry_add(e, "dirty", PT_FK_BIT, bits(r, 6, 6));
	if (shift == 12) {
		pt_entry_add(e, "pat", PT_FK_BIT, bits(r, 7, 7));
	} else {
		pt_entry_add(e, "ps", PT_FK_BIT, bits(r, 7, 7));
		named |= BIT(12);
	}
	pt_entry_add(e, "global", PT_FK_BIT, bits(r, 8, 8));
	pt_entry_add(e, "sw", PT_FK_UINT, bits(r, 11, 9));
	if (shift != 12)
		pt_entry_add(e, "pat_large", PT_FK_BIT, bits(r, 12, 12));
	pt_entry_add(e, "address", PT_FK_HEX, r & addr_mask(m, shift));
	pt_entry_add(e, "sw_high", PT_FK_UINT, bits(r, 58, 52));
	pt_entry_add(e, "protection_key", PT_FK_UINT, bits(r, 62, 59));
	add_tail(e, r, nxe, named);
	e->state = PT_ST_MAPPED;
	e->leaf = true;
	e->space = 0;
	e->pa = r & addr_mask(m, shift);
	e->address_complete = true;
	e->page_size = 1ull << shift;
	e->perm = entry_perm(r, nxe);
}

/*
 * A pointer at level SHIFT: bits 6 and 8 are ignored (Linux's _PAGE_TABLE
 * sets 6), 62:52 ignored; bit 7 is PS in a PDPTE/PDE (0 here) and reserved
 * in a PML4E/PML5E (SDM table 4-13: no 512 GiB pages).
 */
static void decode_pointer(struct pt_entry *e, uint64_t r, unsigned shift, bool nxe, unsigned m)
{
	uint64_t named = 0x3full | BIT(6) | BIT(8) | (0x7ull << 9) | addr_mask(m, 12) |
			 (0x7ffull << 52) | (nxe ? BIT(63) : 0);

	add_low(e, r);
	pt_entry_add(e, "ignored", PT_FK_HEX, r & (BIT(6) | BIT(8)));
	if (shift == LK_PDPT || shift == LK_PD) {
		pt_entry_add(e, "ps", PT_FK_BIT, bits(r, 7, 7));
		named |= BIT(7);
	}
	pt_entry_add(e, "sw", PT_FK_UINT, bits(r, 11, 9));
	pt_entry_add(e, "address", PT_FK_HEX, r & addr_mask(m, 12));
	pt_entry_add(e, "sw_high", PT_FK_UINT, bits(r, 62, 52));
	add_tail(e, r, nxe, named);
	e->state = PT_ST_POINTER;
	e->perm = entry_perm(r, nxe);
	e->target[0].present = true;
	e->target[0].space = 0;
	e->target[0].addr = r & addr_mask(m, 12);
	/* the child level: the next row of whichever table this is (5- or 4-level) */
	e->target[0].level = -1;
}

/* Page shift of each row of the 5-level table (the descriptor without a context). */
static const uint8_t shift5[] = {LK_PML5, LK_PML4, LK_PDPT, LK_PD, LK_PT};

static pt_err x86_decode_with(bool nxe, unsigned m, unsigned level, unsigned page_shift,
			      const uint8_t *raw, unsigned flags, struct pt_entry *e)
{
	unsigned shift = page_shift;
	uint64_t r;

	/* Page shift 0: decoded alone (ptfs-tool decode, level open): the row says. */
	if (shift == 0 && level < sizeof shift5)
		shift = shift5[level];
	if (!raw || (shift != LK_PT && shift != LK_PD && shift != LK_PDPT && shift != LK_PML4 &&
		     shift != LK_PML5)) {
		pt_entry_reset(e, 0, NULL, flags);
		e->state = PT_ST_UNSUPPORTED;
		return PT_E_UNSUPPORTED;
	}
	pt_entry_reset(e, 8, raw, flags);
	r = e->raw[0];
	if (!(r & 1)) {
		/* not present: the rest is the software's (SDM 4.5.4), reported raw */
		pt_entry_add(e, "present", PT_FK_BIT, 0);
		pt_entry_add_reserved(e, 0, 0, false);
		e->state = r ? PT_ST_INVALID : PT_ST_UNMAPPED;
		return PT_OK;
	}
	if (shift == LK_PT || ((shift == LK_PD || shift == LK_PDPT) && (r & BIT(7))))
		decode_leaf(e, r, shift, nxe, m);
	else
		decode_pointer(e, r, shift, nxe, m);
	if (e->state == PT_ST_POINTER) {
		/* rows go 5-level pml5..pt or 4-level pml4..pt: the next row down */
		e->target[0].level = (int8_t)(level + 1);
	}
	return PT_OK;
}

/* One decoder per (NXE, MAXPHYADDR): the descriptor's decode has no context (fmt_ctx.h). */
#define M_LIST(X) X(32) X(33) X(34) X(35) X(36) X(37) X(38) X(39) X(40) X(41) X(42) X(43) \
	X(44) X(45) X(46) X(47) X(48) X(49) X(50) X(51) X(52)
#define DEC2(M) PT_FMT_DECODER(x86_decode_with, 0, M) PT_FMT_DECODER(x86_decode_with, 1, M)
M_LIST(DEC2)
#define ROW(M) {PT_FMT_REF(x86_decode_with, 0, M) PT_FMT_REF(x86_decode_with, 1, M)},
static const pt_fmt_decode_fn decoders[M_MAX - M_MIN + 1][2] = {M_LIST(ROW)};

/*
 * maps/walk FLAGS: the effective rights (writable, user, xd: the path's)
 * and the leaf's caching and global bits, by their entry-field names
 * (Linux ptdump shows the same: RW USR PWT PCD PAT GLB NX).  From perm
 * and raw only: a summary decode has no fields.
 */
static void x86_flags(const struct pt_entry *e, char *buf, size_t len)
{
	uint64_t r = e->raw[0];
	bool large = e->page_size > 4096;
	const bool set[] = {
		!(e->perm & PT_PERM_NO_WRITE), !(e->perm & PT_PERM_PRIVILEGE), r & BIT(3), r & BIT(4),
		!large && (r & BIT(7)), large && (r & BIT(12)), r & BIT(8), !(e->perm & PT_PERM_EXEC),
	};
	static const char *const names[] = {
		"writable", "user", "pwt", "pcd", "pat", "pat_large", "global", "xd",
	};

	pt_format_flag_words(buf, len, set, names, sizeof names / sizeof names[0]);
}

/* ---- the [cpu NAME] context ---------------------------------------------- */

enum { K_CR3, K_CR4, K_LA57, K_EFER, K_MAXPHY, K__COUNT };
static const char *const key_names[K__COUNT] = {"cr3", "cr4", "la57", "efer", "maxphyaddr"};

/* CR4 bits (processor-flags.h X86_CR4_*), EFER.NXE (msr-index.h _EFER_NX 11). */
#define CR4_LA57 BIT(12)
#define CR4_PCIDE BIT(17)
#define CR4_PKE BIT(22)
#define CR4_PKS BIT(24)
#define EFER_NXE BIT(11)

struct x86_ctx {
	uint64_t v[K__COUNT];
	bool has[K__COUNT];
	bool has_space, has_pasid;
	bool walked;             /* a PASID entry of an [iommu] walk: its P checked there */
	const char *space_name;  /* `space = NAME` (capture.ini's string), NULL: sysmem */
	struct pt_pasid pasid;   /* a VT-d PASID entry whose first-level table this is */
	/* set-up results */
	bool la57, pcide, nxe;
	unsigned m;
	uint64_t root, pcid, cr3_ignored;
	struct pt_format fmt;
};

static pt_err x86_ctx_key(void *priv, const struct pt_ctx_key *k)
{
	struct x86_ctx *c = priv;
	pt_err rc;

	if (!strcmp(k->key, "space")) {
		/*
		 * The capture's name of the one space of the format: a guest's
		 * tables and pages are in its guest-physical space (`gpa`, which
		 * a [space gpa] section may translate through EPT).  The loader
		 * checked the name.
		 */
		c->has_space = true;
		c->space_name = k->value;
		return PT_OK;
	}
	if (!strcmp(k->key, "pasid_entry")) {
		c->has_pasid = true;
		return pt_fmt_pasid_key(k, &c->pasid);
	}
	for (int i = 0; i < K__COUNT; i++) {
		if (strcmp(k->key, key_names[i]))
			continue;
		rc = pt_ctx_key_uint(k, &c->v[i]);
		if (rc)
			return rc;
		if (i == K_LA57 && c->v[i] > 1)
			return pt_ctx_key_fail(k, PT_E_VALUE, "la57 %" PRIu64 " in %s is not 0 or 1",
					       c->v[i], k->label);
		if (i == K_MAXPHY && (c->v[i] < M_MIN || c->v[i] > M_MAX))
			return pt_ctx_key_fail(k, PT_E_VALUE, "maxphyaddr %" PRIu64 " in %s is outside"
					       " %u..%u", c->v[i], k->label, M_MIN, M_MAX);
		c->has[i] = true;
		return PT_OK;
	}
	return PT_E_NOTFOUND;
}

/*
 * An [iommu] device's first-level table (pt_format.h struct pt_ctx_entry):
 * a VT-d PASID entry, or the guest CR3 and paging level of an AMD-Vi GCR3
 * entry (the walk refused a reserved level), in the space the entry names.
 */
static pt_err x86_ctx_entry(void *priv, const struct pt_ctx_entry *e, char *err, size_t errlen)
{
	struct x86_ctx *c = priv;

	if (e->kind == PT_CE_VTD_PASID) {
		pt_fmt_pasid_words(e->w, 3, &c->pasid);
		c->has_pasid = c->walked = true;
	} else if (e->kind == PT_CE_GCR3) {
		c->v[K_CR3] = e->cr3;
		c->v[K_LA57] = e->la57;
		c->has[K_CR3] = c->has[K_LA57] = true;
	} else {
		return pt_fmt_setup_fail(err, errlen, PT_E_UNSUPPORTED, "x86-64: not a PASID or GCR3"
					 " entry");
	}
	c->has_space = e->space != NULL;
	c->space_name = e->space;
	return PT_OK;
}

static const char *x86_ctx_missing(const void *priv)
{
	const struct x86_ctx *c = priv;

	return c->has[K_CR3] || c->has_pasid ? NULL : "cr3 (or pasid_entry)";
}

/* Set-up failures of this format are all PT_E_VALUE. */
#define setup_fail(err, errlen, ...) pt_fmt_setup_fail(err, errlen, PT_E_VALUE, __VA_ARGS__)

extern const struct pt_format pt_format_x86_64;

static const struct pt_level levels5[] = {
	/* name   depth va_shift bits size role         leaf_shift child */
	{"pml5",  0,    48,      9,   8,   PT_ROLE_DIR,  0,  {1, -1}},
	{"pml4",  1,    39,      9,   8,   PT_ROLE_DIR,  0,  {2, -1}},
	{"pdpt",  2,    30,      9,   8,   PT_ROLE_DIR,  30, {3, -1}},
	{"pd",    3,    21,      9,   8,   PT_ROLE_DIR,  21, {4, -1}},
	{"pt",    4,    12,      9,   8,   PT_ROLE_LEAF, 0,  {-1, -1}},
	{NULL,    0,    0,       0,   0,   0,            0,  {-1, -1}},
};
static const struct pt_level levels4[] = {
	{"pml4",  0,    39,      9,   8,   PT_ROLE_DIR,  0,  {1, -1}},
	{"pdpt",  1,    30,      9,   8,   PT_ROLE_DIR,  30, {2, -1}},
	{"pd",    2,    21,      9,   8,   PT_ROLE_DIR,  21, {3, -1}},
	{"pt",    3,    12,      9,   8,   PT_ROLE_LEAF, 0,  {-1, -1}},
	{NULL,    0,    0,       0,   0,   0,            0,  {-1, -1}},
};

/*
 * A VT-d scalable-mode PASID entry's first-level table (VT-d spec §9.6,
 * Linux drivers/iommu/intel/pasid.h): PGTT 1 (first-level) or 3 (nested: this
 * is the first stage), FLPTR its root, FLPM 0 4-level and 1 5-level; the
 * entries are IA-32e paging entries with XD (Linux DMA_FL_PTE_XD 63), so
 * NXE is 1.  It stands for CR3, CR4.LA57 and EFER.
 */
static pt_err x86_pasid(struct x86_ctx *c, char *err, size_t errlen)
{
	const struct pt_pasid *pe = &c->pasid;

	if (c->has[K_CR3] || c->has[K_CR4] || c->has[K_EFER])
		return setup_fail(err, errlen, "pasid_entry and cr3/cr4/efer both given: the PASID"
				  " entry holds the first-level pointer and paging mode");
	/* P: a walked entry's was checked by the walk */
	if (!c->walked && !pe->p)
		return setup_fail(err, errlen, "pasid_entry QW0 0x%016" PRIx64 " is not present"
				  " (P=0): no table to walk", pe->qw[0]);
	if (pe->pgtt != PT_PGTT_FIRST && pe->pgtt != PT_PGTT_NESTED)
		return setup_fail(err, errlen, "pasid_entry PGTT %u (%s) has no first-level table",
				  pe->pgtt, pt_fmt_pgtt_name(pe->pgtt));
	if (pe->flpm > 1)
		return setup_fail(err, errlen, "pasid_entry FLPM %u is reserved (0: 4-level,"
				  " 1: 5-level)", pe->flpm);
	if (c->has[K_LA57] && c->v[K_LA57] != pe->flpm)
		return setup_fail(err, errlen, "la57 %" PRIu64 " disagrees with pasid_entry FLPM %u",
				  c->v[K_LA57], pe->flpm);
	c->v[K_CR3] = pe->flptr & addr_mask(c->m, 12);
	if (pe->flptr & ~addr_mask(c->m, 12))
		return setup_fail(err, errlen, "pasid_entry FLPTR 0x%" PRIx64 " sets bits above"
				  " MAXPHYADDR %u", pe->flptr, c->m);
	c->v[K_LA57] = pe->flpm;
	c->has[K_LA57] = true;
	return PT_OK;
}

static pt_err x86_ctx_setup(struct pt_context *ctx, char *err, size_t errlen)
{
	struct x86_ctx *c = ctx->priv;
	uint64_t cr3, cr4 = c->v[K_CR4];
	pt_err rc;

	c->m = c->has[K_MAXPHY] ? (unsigned)c->v[K_MAXPHY] : 52;
	if (c->has_pasid && (rc = x86_pasid(c, err, errlen)))
		return rc;
	cr3 = c->v[K_CR3];

	c->la57 = c->has[K_CR4] ? (cr4 & CR4_LA57) != 0 : c->v[K_LA57] != 0;
	if (c->has[K_CR4] && c->has[K_LA57] && c->la57 != (c->v[K_LA57] != 0))
		return setup_fail(err, errlen, "la57 %" PRIu64 " disagrees with cr4 0x%" PRIx64
				  " (LA57, bit 12, is %d)", c->v[K_LA57], cr4, c->la57);
	c->pcide = (cr4 & CR4_PCIDE) != 0;
	/* EFER absent: NXE taken as 1 (every 64-bit Linux sets it), which info says. */
	c->nxe = c->has[K_EFER] ? (c->v[K_EFER] & EFER_NXE) != 0 : true;
	/* CR3: the root is M-1:12; bits 51:M are reserved (MOV to CR3 faults): refused. */
	if (cr3 & addr_mask(52, c->m))
		return setup_fail(err, errlen, "cr3 0x%" PRIx64 " sets bits 51:%u, above"
				  " MAXPHYADDR %u", cr3, c->m, c->m);
	c->root = cr3 & addr_mask(c->m, 12);
	/* PCID (11:0) with CR4.PCIDE; 63:52 (NOFLUSH, LAM) are not the root: masked, shown */
	c->pcid = c->pcide ? cr3 & 0xfff : 0;
	c->cr3_ignored = cr3 & 0xfff0000000000000ull;
	c->fmt = pt_format_x86_64;
	c->fmt.levels = c->la57 ? levels5 : levels4;
	c->fmt.va_bits = c->la57 ? 57 : 48;
	c->fmt.decode = decoders[c->m - M_MIN][c->nxe];
	ctx->fmt = &c->fmt;
	pt_fmt_ctx_root(ctx, 0, c->root, 512);
	ctx->space_names[0] = c->space_name;
	return PT_OK;
}

static void x86_info_text(const struct pt_context *ctx, struct pt_buf *b)
{
	const struct x86_ctx *c = ctx->priv;

	if (!c || (!c->has[K_CR3] && !c->has_pasid))
		return;
	pt_buf_printf(b, "paging: %s\n", c->la57 ? "5-level" : "4-level");
	if (c->has_pasid)
		pt_buf_printf(b, "pasid_entry: 0x%016" PRIx64 " 0x%016" PRIx64 " 0x%016" PRIx64
			      "\npgtt: %u (%s)\nflpm: %u\nsre: %u\nwpe: %u\neafe: %u\ndid: %u\n",
			      c->pasid.qw[0], c->pasid.qw[1], c->pasid.qw[2], c->pasid.pgtt,
			      pt_fmt_pgtt_name(c->pasid.pgtt), c->pasid.flpm, c->pasid.sre,
			      c->pasid.wpe, c->pasid.eafe, c->pasid.did);
	pt_buf_printf(b, "cr3: 0x%" PRIx64 "\n", c->v[K_CR3]);
	if (c->pcide)
		pt_buf_printf(b, "pcid: 0x%" PRIx64 "\n", c->pcid);
	if (c->cr3_ignored)
		pt_buf_printf(b, "cr3_ignored: 0x%" PRIx64 "\n", c->cr3_ignored);
	if (c->has[K_CR4])
		pt_buf_printf(b, "cr4: 0x%" PRIx64 " (la57 %d pcide %d pke %d pks %d)\n",
			      c->v[K_CR4], c->la57, c->pcide, (c->v[K_CR4] & CR4_PKE) != 0,
			      (c->v[K_CR4] & CR4_PKS) != 0);
	if (c->has[K_EFER])
		pt_buf_printf(b, "efer: 0x%" PRIx64 " (nxe %d)\n", c->v[K_EFER], c->nxe);
	else
		pt_buf_puts(b, "efer: not given (nxe taken as 1)\n");
	pt_buf_printf(b, "maxphyaddr: %u\n", c->m);
}

static void x86_info_json(const struct pt_context *ctx, struct pt_jobj *o)
{
	const struct x86_ctx *c = ctx->priv;

	if (!c || (!c->has[K_CR3] && !c->has_pasid))
		return;
	pt_jobj_str(o, "paging", c->la57 ? "5-level" : "4-level");
	if (c->has_pasid) {
		pt_jobj_hex(o, "pasid_qw0", c->pasid.qw[0]);
		pt_jobj_hex(o, "pasid_qw1", c->pasid.qw[1]);
		pt_jobj_hex(o, "pasid_qw2", c->pasid.qw[2]);
		pt_jobj_str(o, "pgtt", pt_fmt_pgtt_name(c->pasid.pgtt));
		pt_jobj_u(o, "flpm", c->pasid.flpm);
		pt_jobj_u(o, "sre", c->pasid.sre);
		pt_jobj_u(o, "wpe", c->pasid.wpe);
		pt_jobj_u(o, "eafe", c->pasid.eafe);
		pt_jobj_u(o, "did", c->pasid.did);
	}
	pt_jobj_hex(o, "cr3", c->v[K_CR3]);
	if (c->pcide)
		pt_jobj_hex(o, "pcid", c->pcid);
	else
		pt_jobj_raw(o, "pcid", "null");
	pt_jobj_hex(o, "cr3_ignored", c->cr3_ignored);
	if (c->has[K_CR4])
		pt_jobj_hex(o, "cr4", c->v[K_CR4]);
	else
		pt_jobj_raw(o, "cr4", "null");
	if (c->has[K_EFER])
		pt_jobj_hex(o, "efer", c->v[K_EFER]);
	else
		pt_jobj_raw(o, "efer", "null");
	pt_jobj_bool(o, "la57", c->la57);
	pt_jobj_bool(o, "pcide", c->pcide);
	pt_jobj_bool(o, "nxe", c->nxe);
	pt_jobj_bool(o, "nxe_assumed", !c->has[K_EFER]);
	pt_jobj_u(o, "maxphyaddr", c->m);
}

/* ---- the encoder (ptfs-tool build) ---------------------------------------- */

static pt_err enc_fail(char *err, size_t errlen, const char *what, uint64_t v, uint64_t align)
{
	snprintf(err, errlen, "x86-64: %s 0x%" PRIx64 " is not a 0x%" PRIx64 "-aligned address"
		 " below 2^52", what, v, align);
	return PT_E_VALUE;
}

/*
 * The inverse of x86_decode_with, for any MAXPHYADDR and NXE: address bits
 * above MAXPHYADDR, and bit 63 without NXE, are reserved bits there, which
 * come back through reserved_mask.  A leaf's level is its page size (bit 7
 * is PAT in a PTE, PS in a larger leaf); a pointer's bits mean the same at
 * every level.  A not-present entry is the software's (SDM §4.5.4): its
 * raw word.  Built pointers are present, writable and user (Linux's
 * _PAGE_TABLE), so that a leaf's own bits are its rights.
 */
static pt_err x86_encode(unsigned level, const struct pt_entry *e, uint8_t *raw, char *err,
			 size_t errlen)
{
	bool leaf = e->state == PT_ST_MAPPED, ptr = e->state == PT_ST_POINTER;
	uint64_t r, a;

	(void)level;
	if (!leaf && !ptr) {
		pt_le64_store(raw, e->state == PT_ST_INVALID ? e->raw[0] : 0);
		return PT_OK;
	}
	r = pt_entry_get(e, "present", 1) | pt_entry_get(e, "writable", ptr) << 1 |
	    pt_entry_get(e, "user", ptr) << 2 | pt_entry_get(e, "pwt", 0) << 3 |
	    pt_entry_get(e, "pcd", 0) << 4 | pt_entry_get(e, "accessed", 0) << 5 |
	    (pt_entry_get(e, "sw", 0) & 7) << 9 | pt_entry_get(e, "xd", 0) << 63;
	if (leaf) {
		bool large = e->page_size > 4096;

		if (e->page_size != 1ull << LK_PT && e->page_size != 1ull << LK_PD &&
		    e->page_size != 1ull << LK_PDPT) {
			snprintf(err, errlen, "x86-64: no page of 0x%" PRIx64 " bytes (4K, 2M, 1G)",
				 e->page_size);
			return PT_E_VALUE;
		}
		a = pt_entry_get(e, "address", e->pa);
		if (a & ~addr_mask(M_MAX, large ? (e->page_size == 1ull << LK_PD ? LK_PD : LK_PDPT) : 12))
			return enc_fail(err, errlen, "page address", a, e->page_size);
		r |= pt_entry_get(e, "dirty", 0) << 6 | pt_entry_get(e, "global", 0) << 8 | a |
		     (pt_entry_get(e, "sw_high", 0) & 0x7f) << 52 |
		     (pt_entry_get(e, "protection_key", 0) & 0xf) << 59;
		if (large)
			r |= pt_entry_get(e, "page_size", 1) << 7 | pt_entry_get(e, "pat_large", 0) << 12;
		else
			r |= pt_entry_get(e, "pat", 0) << 7;
	} else {
		a = pt_entry_get(e, "address", e->target[0].addr);
		if (a & ~addr_mask(M_MAX, 12))
			return enc_fail(err, errlen, "table address", a, 4096);
		r |= (pt_entry_get(e, "ignored", 0) & (BIT(6) | BIT(8))) |
		     pt_entry_get(e, "page_size", 0) << 7 | a |
		     (pt_entry_get(e, "sw_high", 0) & 0x7ff) << 52;
	}
	pt_le64_store(raw, r | e->reserved_mask[0]);
	return PT_OK;
}

/*
 * ptfs-tool build: CR3 is the root the builder allocated, and a 5-level
 * table (la57 = 1) when a mapping's VA is not a 48-bit canonical one,
 * unless the spec says (cr3, cr4 or la57).
 */
static void x86_build_keys(const struct pt_build_keys *k, struct pt_buf *ini)
{
	const uint64_t half = 1ull << 47;
	bool c48 = (k->va_lo < half || k->va_lo >= 0 - half) && (k->va_hi < half || k->va_hi >= 0 - half);

	if (!k->get(k->ud, "cr3"))
		pt_buf_printf(ini, "cr3 = 0x%" PRIx64 "\n", k->root);
	if (!c48 && !k->get(k->ud, "cr4") && !k->get(k->ud, "la57"))
		pt_buf_puts(ini, "la57 = 1\n");
}

/*
 * ptfs-tool roots: CTX's keys as given (cr4, la57, efer, maxphyaddr,
 * space) with CR3 at ROOT; a PASID entry's first-level paging mode is
 * said as la57 (its FLPM: VT-d spec 9.6).
 */
static void x86_geom_keys(const struct pt_context *ctx, unsigned space, uint64_t root,
			  struct pt_buf *ini)
{
	const struct x86_ctx *c = ctx->priv;

	pt_buf_printf(ini, "cr3 = 0x%" PRIx64 "\n", root);
	for (int i = K_CR4; i < K__COUNT; i++)
		if (c->has[i])
			pt_buf_printf(ini, "%s = 0x%" PRIx64 "\n", key_names[i], c->v[i]);
	if (!c->has[K_CR4] && !c->has[K_LA57])
		pt_buf_printf(ini, "la57 = %d\n", c->la57);
	if (c->space_name)
		pt_buf_printf(ini, "space = %s\n", c->space_name);
}

/*
 * ptfs-tool roots, the Linux rule: every process's top-level table gets
 * the kernel half of the kernel's (arch/x86/mm/pgtable.c pgd_ctor():
 * clone_pgd_range() of entries KERNEL_PGD_BOUNDARY..PTRS_PER_PGD-1, 256-511
 * of 512, in the 4- and the 5-level layout alike), so a table whose upper
 * half equals a context root's (one with a present entry there) is a
 * process's.  With PTI (arch/x86/mm/pti.c) a process has a pair of
 * 4 KiB tables 8 KiB aligned: the kernel copy, then the user copy
 * (kernel_to_user_pgdp() sets bit 12).  __pti_set_user_pgtbl() writes each
 * user entry to both, setting NX in the kernel copy, and clone_pgd_range()
 * gives the user copy its own kernel half (the entry trampoline only): the
 * pair's lower halves agree but for bit 63, their upper halves differ.
 * A table of the family with no present entry in its lower half maps the
 * kernel only: init_mm's (which maps no user address), or a process's
 * before its first user mapping or after its last.
 */
static uint64_t qword(const uint8_t *p, unsigned i)
{
	uint64_t v;

	memcpy(&v, p + 8 * i, 8);
	return v;
}

static bool x86_pti_pair(const uint8_t *a, const uint8_t *b)
{
	bool present = false;

	for (unsigned i = 0; i < 256; i++) {
		uint64_t x = qword(a, i), y = qword(b, i);

		if ((x ^ y) & ~BIT(63))
			return false;
		present |= (x & 1) != 0;
	}
	return present && memcmp(a + 2048, b + 2048, 2048) != 0;
}

static void x86_root_rule(const uint8_t *ref, uint64_t ref_addr, const uint8_t *cand,
			  uint64_t cand_addr, const uint8_t *other, struct pt_root_rel *out)
{
	bool kernel = false;

	(void)ref_addr;
	out->kind = out->twin_kind = NULL;
	for (unsigned i = 256; i < 512 && !kernel; i++)
		kernel = (qword(ref, i) & 1) != 0;
	if (!kernel || memcmp(ref + 2048, cand + 2048, 2048))
		return;
	if (other && x86_pti_pair(cand, other)) {
		bool user = (cand_addr & 0x1000) != 0;

		out->kind = user ? "process_user" : "process";
		out->twin_kind = user ? "process" : "process_user";
		return;
	}
	/* no user mapping: init_mm's table (init_top_pgt), or a process's without any */
	for (unsigned i = 0; i < 256; i++)
		if (qword(cand, i) & 1) {
			out->kind = "process";
			return;
		}
	out->kind = "kernel_only";
}

/*
 * A Linux process's context (pt_format.user_keys): CR3 = its PGD with
 * CTX's paging mode (one tree holds both halves), or with PTI the user
 * copy 4 KiB above (arch/x86/include/asm/pgtable.h kernel_to_user_pgdp():
 * PTI_PGTABLE_SWITCH_BIT is PAGE_SHIFT), the one the CPU walks in user
 * mode.  That page is the user copy when every present entry of its user
 * half (0..255) has the kernel copy's frame, one at least
 * (__pti_set_user_pgtbl() writes both; without PTI that page is anything).
 */
static bool x86_pti_user_copy(const struct pt_ctx_reader *rd, uint64_t pgd)
{
	uint64_t kc[256], uc[256];
	unsigned same = 0;

	if (pgd & 0x1fff || !rd->read(rd->opaque, 0, pgd, kc, sizeof kc) ||
	    !rd->read(rd->opaque, 0, pgd + 0x1000, uc, sizeof uc))
		return false;
	for (unsigned i = 0; i < 256; i++) {
		const uint64_t fr = 0x000ffffffffff000ull;

		if (!(uc[i] & 1))
			continue;
		if (!(kc[i] & 1) || (kc[i] & fr) != (uc[i] & fr))
			return false;
		same++;
	}
	return same > 0;
}

static bool x86_user_keys(const struct pt_context *ctx, uint64_t pgd, const struct pt_ctx_reader *rd,
			  uint64_t *root, struct pt_buf *ini)
{
	if (pgd & 0xfff)
		return false;
	*root = pgd + (rd && x86_pti_user_copy(rd, pgd) ? 0x1000 : 0);
	if (ini)
		x86_geom_keys(ctx, 0, *root, ini);
	return true;
}

static const struct pt_blob_kind x86_blob_kinds[] = {
	{"x86", 8},
	{NULL, 0},
};

/* The entry fields behind the rights: writable and user deny at 0 (audit reasons); xd. */
static const struct pt_perm_name x86_perm_names[] = {
	{PT_PERM_NO_WRITE, "writable=0"},
	{PT_PERM_PRIVILEGE, "user=0"},
	{PT_PERM_EXEC, "xd=0"},
	{0, NULL},
};

/*
 * Without a context (ptfs-tool decode): the 5-level table, so every level
 * can be named; MAXPHYADDR 52 and NXE 1, Linux's defaults.
 */
const struct pt_format pt_format_x86_64 = {
	.name = "x86-64",
	.levels = levels5,
	.va_bits = 57,
	.va_digits = 16,
	.va_canonical = true,
	.perm_or_down = PT_PERM_NO_WRITE | PT_PERM_PRIVILEGE,
	.perm_and_down = PT_PERM_EXEC,
	.spaces = x86_spaces,
	.decode = x86_decode_with_1_52,
	.flags = x86_flags,
	.blob_kinds = x86_blob_kinds,
	.ctx_section = "cpu",
	.ctx_size = sizeof(struct x86_ctx),
	.ctx_key = x86_ctx_key,
	.ctx_entry = x86_ctx_entry,
	.ctx_missing = x86_ctx_missing,
	.ctx_setup = x86_ctx_setup,
	.info_text = x86_info_text,
	.info_json = x86_info_json,
	.perm_names = x86_perm_names,
	.encode = x86_encode,
	.build_keys = x86_build_keys,
	.geom_keys = x86_geom_keys,
	.root_rule = x86_root_rule,
	.user_keys = x86_user_keys,
};
