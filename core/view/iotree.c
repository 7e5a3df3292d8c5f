/* SPDX-License-Identifier: MIT */
/*
 * iotree.c — an IOMMU's own tables in the tree (docs/design.md §2.7,
 * ptfs(1) "THE IOMMU TREE"): under /NAME/ for each [iommu NAME] section,
 * its root/context/PASID tables (Intel VT-d), device table (AMD-Vi) or
 * stream and CD tables (Arm SMMUv3), one directory per table and one file
 * per entry, decoded by core/formats/ioent.c:
 *
 *   VT-d      root/BUS/entry, root/BUS/context/DEVFN            (legacy)
 *             root/BUS/context/DEVFN/{entry,pasid/PASID}        (scalable)
 *   AMD-Vi    dte/DEVID
 *   SMMUv3    ste/SID/{entry,cd/SSID}                          (linear)
 *             l1/N/{entry,ste/SID/{entry,cd/SSID}}             (2-level)
 *
 * Names are decimal indices, the tree's rule for entries (pt_tree.h):
 * BUS, DEVFN (bus and devfn of the requester ID), DEVID, SID (the whole
 * StreamID, also below l1/N/), N, PASID, SSID.  As in a page table, a
 * directory lists its present entries (every captured one with
 * all_entries), and a name of an entry that is not present still resolves
 * when its table is captured; a table the IOMMU would not read (a pointer
 * to the root table, reserved bits set, a Span past SPLIT + 1) has no
 * directory, and its pointing entry's file says why in a `warning:` line.
 * Every listing steps over uncaptured and zero ranges with pt_mem_next()
 * and pt_mem_next_nonzero() and polls the caller's readctl, so a table
 * whose registers claim 2^32 entries is bounded by what is captured.  The
 * table layouts: iommu_walk.c (the walk that makes the device contexts)
 * and ioent.c cite the specifications.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_ioent.h"
#include "pt_mem.h"
#include "pt_num.h"
#include "pt_tree.h"
#include "tree_int.h"

#define MASK(hi, lo) ((~0ull >> (63 - (hi))) & ~((1ull << (lo)) - 1))
#define KEY_SUB (1ull << 57)

/* An entry of an IOMMU table: its type, where it is, its words. */
struct io_loc {
	enum pt_ioent_type t;
	uint64_t addr;
	uint64_t w[PT_IOENT_MAX_WORDS];
};

static const struct pt_iommu_info *io_of(const struct pt_tree *tree, const struct pt_tnode *n)
{
	return n->choice < tree->niommu ? &tree->io[n->choice] : NULL;
}

static void io_node(struct pt_tnode *out, unsigned type, unsigned iommu, unsigned kind, uint64_t a,
		    uint64_t c)
{
	memset(out, 0, sizeof *out);
	out->type = (enum pt_tnode_type)type;
	out->choice = iommu;
	out->va = pt_io_pack(kind, a, c);
}

static bool rd(const struct pt_tree *tree, const struct pt_iommu_info *io, enum pt_ioent_type t,
	       uint64_t addr, struct io_loc *l)
{
	uint8_t raw[8 * PT_IOENT_MAX_WORDS];
	unsigned words = pt_ioent_words(t);

	if (!pt_mem_read(pt_capture_mem(tree->cap), io->space, addr, raw, 8u * words))
		return false;
	memset(l->w, 0, sizeof l->w);
	for (unsigned i = 0; i < words; i++)
		l->w[i] = pt_le64_load(raw + 8 * i);
	l->t = t;
	l->addr = addr;
	return true;
}

/* ---- Intel VT-d ---------------------------------------------------------- */

static uint64_t vtd_root(const struct pt_iommu_info *io)
{
	return io->rtaddr & MASK(51, 12);
}

static bool vtd_sm(const struct pt_iommu_info *io)
{
	return ((io->rtaddr >> 10) & 3) == 1;
}

/* The root entry of BUS (TTM 10 and 11: no root table is read, VT-d spec §11.4.5). */
static bool vtd_rootent(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t bus,
			struct io_loc *l)
{
	if (bus > 255 || ((io->rtaddr >> 10) & 3) >= 2)
		return false;
	return rd(tree, io, vtd_sm(io) ? PT_IOENT_VTD_SMROOT : PT_IOENT_VTD_ROOT,
		  vtd_root(io) + 16 * bus, l);
}

/* Context table HALF (scalable: devfn 0-127, 128-255) of BUS; WHY: why it is not read. */
static bool vtd_ctab(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t bus,
		     unsigned half, uint64_t *ptr, const char **why)
{
	struct io_loc r;
	uint64_t e;

	*why = NULL;
	if (!vtd_rootent(tree, io, bus, &r) || (half && !vtd_sm(io)))
		return false;
	e = r.w[half];
	if (!(e & 1))
		return false;
	if (!vtd_sm(io) && (pt_ioent_reserved(r.t, r.w, 0) || pt_ioent_reserved(r.t, r.w, 1))) {
		*why = "reserved bits are set (VT-d spec §9.1): its context table is not read";
		return false;
	}
	*ptr = e & MASK(51, 12);
	if (*ptr == vtd_root(io)) {
		*why = "its context table is the root table: not read";
		return false;
	}
	return true;
}

/* The context entry of requester ID BDF. */
static bool vtd_ctxent(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t bdf,
		       struct io_loc *l)
{
	unsigned devfn = bdf & 255;
	const char *why;
	uint64_t ptr;

	if (bdf > 0xffff || !vtd_ctab(tree, io, bdf >> 8, vtd_sm(io) ? devfn >> 7 : 0, &ptr, &why))
		return false;
	if (vtd_sm(io))
		return rd(tree, io, PT_IOENT_VTD_SMCTX, ptr + 32 * (devfn & 127), l);
	return rd(tree, io, PT_IOENT_VTD_CTX, ptr + 16 * devfn, l);
}

/* The PASID directory of BDF (scalable mode, §9.4): where, and how many entries. */
static bool vtd_pdir(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t bdf,
		     uint64_t *dir, uint64_t *n, const char **why)
{
	struct io_loc c;

	*why = NULL;
	if (!vtd_sm(io) || !vtd_ctxent(tree, io, bdf, &c) || !(c.w[0] & 1))
		return false;
	*dir = c.w[0] & MASK(51, 12);
	*n = 1ull << (((c.w[0] >> 9) & 7) + 7);
	if (*dir == vtd_root(io)) {
		*why = "its PASID directory is the root table: not read";
		return false;
	}
	return true;
}

/* The PASID table entry of PASID of BDF: directory entry PASID 19:6, table entry 5:0 (§9.5, §9.6). */
static bool vtd_pasident(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t bdf,
			 uint64_t pasid, struct io_loc *l)
{
	uint64_t dir, n, tp;
	const char *why;
	struct io_loc d;

	if (!vtd_pdir(tree, io, bdf, &dir, &n, &why) || pasid >> 6 >= n ||
	    !rd(tree, io, PT_IOENT_VTD_PASIDDIR, dir + 8 * (pasid >> 6), &d) || !(d.w[0] & 1))
		return false;
	tp = d.w[0] & MASK(51, 12);
	if (tp == vtd_root(io))
		return false;
	return rd(tree, io, PT_IOENT_VTD_PASID, tp + 64 * (pasid & 63), l);
}

/* ---- AMD-Vi and SMMUv3 --------------------------------------------------- */

/* Device table entries: Size 8:0 is its 4 KiB pages - 1 (AMD IOMMU spec §3.3.1). */
static uint64_t amd_n(const struct pt_iommu_info *io)
{
	return ((io->dev_table_base & 0x1ff) + 1) * 128;
}

static bool amd_dte(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t devid,
		    struct io_loc *l)
{
	return devid < amd_n(io) &&
	       rd(tree, io, PT_IOENT_AMD_DTE, (io->dev_table_base & MASK(51, 12)) + 32 * devid, l);
}

/* STRTAB_BASE_CFG (IHI 0070 §6.3.24): LOG2SIZE 5:0 (names below 2^32), SPLIT 10:6, FMT 17:16. */
static unsigned smmu_log2(const struct pt_iommu_info *io)
{
	unsigned l = (unsigned)io->strtab_base_cfg & 63;

	return l > 32 ? 32 : l;
}

static unsigned smmu_split(const struct pt_iommu_info *io)
{
	return (unsigned)(io->strtab_base_cfg >> 6) & 31;
}

static bool smmu_two(const struct pt_iommu_info *io)
{
	return ((io->strtab_base_cfg >> 16) & 3) != 0;
}

static uint64_t smmu_base(const struct pt_iommu_info *io)
{
	return io->strtab_base & MASK(51, 6);
}

static uint64_t smmu_nl1(const struct pt_iommu_info *io)
{
	unsigned l = smmu_log2(io), s = smmu_split(io);

	return l > s ? 1ull << (l - s) : 1;
}

static bool smmu_l1(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t n,
		    struct io_loc *l)
{
	return smmu_two(io) && n < smmu_nl1(io) &&
	       rd(tree, io, PT_IOENT_SMMU_L1STD, smmu_base(io) + 8 * n, l);
}

/* L1STD N's level-2 table: Span 1..SPLIT + 1, no reserved bit (§5.1); WHY: why not. */
static bool smmu_l2(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t n,
		    uint64_t *l2, uint64_t *cnt, const char **why)
{
	struct io_loc l;
	unsigned span;

	*why = NULL;
	if (!smmu_l1(tree, io, n, &l) || !(span = (unsigned)(l.w[0] & 31)))
		return false;
	if (span > smmu_split(io) + 1 || pt_ioent_reserved(l.t, l.w, 0)) {
		*why = span > smmu_split(io) + 1 ? "Span is above SPLIT + 1 (IHI 0070 §5.1): its"
			" level-2 table is not read" : "reserved bits are set (IHI 0070 §5.1): its"
			" level-2 table is not read";
		return false;
	}
	*l2 = l.w[0] & MASK(51, 6);
	*cnt = 1ull << (span - 1);
	return true;
}

static bool smmu_ste(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t sid,
		     struct io_loc *l)
{
	uint64_t l2, cnt, j;
	const char *why;

	if (!smmu_two(io))
		return sid >> smmu_log2(io) == 0 &&
		       rd(tree, io, PT_IOENT_SMMU_STE, smmu_base(io) + 64 * sid, l);
	j = sid & ((1ull << smmu_split(io)) - 1);
	return sid >> smmu_log2(io) == 0 &&
	       smmu_l2(tree, io, sid >> smmu_split(io), &l2, &cnt, &why) && j < cnt &&
	       rd(tree, io, PT_IOENT_SMMU_STE, l2 + 64 * j, l);
}

/* The CD table of stream SID: a valid stage-1 STE (Config 101, §5.2); SSIDs below 2^20. */
static bool smmu_cdtab(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t sid,
		       struct io_loc *ste, uint64_t *n)
{
	unsigned max;

	if (!smmu_ste(tree, io, sid, ste) || !(ste->w[0] & 1) || ((ste->w[0] >> 1) & 7) != 5 ||
	    ((ste->w[0] >> 4) & 3) == 3)
		return false;
	max = (unsigned)(ste->w[0] >> 59);
	*n = 1ull << (max > PT_IO_C_BITS ? PT_IO_C_BITS : max);
	return true;
}

/* The CD of SSID: linear, or through an L1CD (V 0, L2Ptr 51:12; S1Fmt 01: 64, 10: 1024 CDs, §5.3). */
static bool smmu_cd(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t sid,
		    uint64_t ssid, struct io_loc *l)
{
	struct io_loc ste;
	uint64_t n, ptr, l1cd;
	unsigned fmt, split;
	uint8_t raw[8];

	if (!smmu_cdtab(tree, io, sid, &ste, &n) || ssid >= n)
		return false;
	ptr = ste.w[0] & MASK(51, 6);
	fmt = (unsigned)(ste.w[0] >> 4) & 3;
	if (fmt == 0)
		return rd(tree, io, PT_IOENT_SMMU_CD, ptr + 64 * ssid, l);
	split = fmt == 1 ? 6 : 10;
	if (!pt_mem_read(pt_capture_mem(tree->cap), io->space, ptr + 8 * (ssid >> split), raw, 8))
		return false;
	l1cd = pt_le64_load(raw);
	if (!(l1cd & 1))
		return false;
	return rd(tree, io, PT_IOENT_SMMU_CD,
		  (l1cd & MASK(51, 12)) + 64 * (ssid & ((1ull << split) - 1)), l);
}

/* ---- nodes ---------------------------------------------------------------- */

/* The entry file NODE shows. */
static bool io_entry(const struct pt_tree *tree, const struct pt_tnode *node, struct io_loc *l)
{
	const struct pt_iommu_info *io = io_of(tree, node);
	uint64_t a = pt_io_a(node), c = pt_io_c(node);

	if (!io || node->type != PT_TN_IOFILE)
		return false;
	switch (pt_io_kind_of(node)) {
	case PT_IO_VROOTENT:
		return io->kind == PT_IOMMU_KIND_VTD && vtd_rootent(tree, io, a, l);
	case PT_IO_VCTX:
		return io->kind == PT_IOMMU_KIND_VTD && !vtd_sm(io) && vtd_ctxent(tree, io, a, l);
	case PT_IO_VDEVENT:
		return io->kind == PT_IOMMU_KIND_VTD && vtd_sm(io) && vtd_ctxent(tree, io, a, l);
	case PT_IO_VPASID:
		return io->kind == PT_IOMMU_KIND_VTD && vtd_pasident(tree, io, a, c, l);
	case PT_IO_ADTE:
		return io->kind == PT_IOMMU_KIND_AMDVI && amd_dte(tree, io, a, l);
	case PT_IO_SL1ENT:
		return io->kind == PT_IOMMU_KIND_SMMUV3 && smmu_l1(tree, io, a, l);
	case PT_IO_SSTEENT:
		return io->kind == PT_IOMMU_KIND_SMMUV3 && smmu_ste(tree, io, a, l);
	case PT_IO_SCD:
		return io->kind == PT_IOMMU_KIND_SMMUV3 && smmu_cd(tree, io, a, c, l);
	default:
		return false;
	}
}

/* Whether directory NODE resolves. */
static bool io_dir(const struct pt_tree *tree, const struct pt_tnode *node)
{
	const struct pt_iommu_info *io = io_of(tree, node);
	uint64_t a = pt_io_a(node), x, y;
	struct io_loc l;
	const char *why;
	unsigned kind = pt_io_kind_of(node);

	if (!io || node->type != PT_TN_IODIR || pt_io_c(node))
		return false;
	switch (kind) {
	case PT_IO_TOP:
		return a == 0;
	case PT_IO_VROOT:
		return io->kind == PT_IOMMU_KIND_VTD && a == 0;
	case PT_IO_VBUS:
		return io->kind == PT_IOMMU_KIND_VTD && vtd_rootent(tree, io, a, &l);
	case PT_IO_VCTXDIR:
		return io->kind == PT_IOMMU_KIND_VTD && a <= 255 &&
		       (vtd_ctab(tree, io, a, 0, &x, &why) || vtd_ctab(tree, io, a, 1, &x, &why));
	case PT_IO_VDEV:
		return io->kind == PT_IOMMU_KIND_VTD && vtd_sm(io) && vtd_ctxent(tree, io, a, &l);
	case PT_IO_VPASIDDIR:
		return io->kind == PT_IOMMU_KIND_VTD && vtd_pdir(tree, io, a, &x, &y, &why);
	case PT_IO_ADTEDIR:
		return io->kind == PT_IOMMU_KIND_AMDVI && a == 0;
	case PT_IO_SL1DIR:
		return io->kind == PT_IOMMU_KIND_SMMUV3 && smmu_two(io) && a == 0;
	case PT_IO_SL1:
		return io->kind == PT_IOMMU_KIND_SMMUV3 && smmu_l1(tree, io, a, &l);
	case PT_IO_SSTEDIR:
		if (io->kind != PT_IOMMU_KIND_SMMUV3)
			return false;
		return smmu_two(io) ? smmu_l2(tree, io, a, &x, &y, &why) : a == 0;
	case PT_IO_SSTE:
		return io->kind == PT_IOMMU_KIND_SMMUV3 && smmu_ste(tree, io, a, &l);
	case PT_IO_SCDDIR:
		return io->kind == PT_IOMMU_KIND_SMMUV3 && smmu_cdtab(tree, io, a, &l, &x);
	default:
		return false;
	}
}

/* The one table directory below NAME/ (root/, dte/, ste/ or l1/). */
static unsigned top_child(const struct pt_iommu_info *io, const char **name)
{
	if (io->kind == PT_IOMMU_KIND_VTD) {
		*name = "root";
		return PT_IO_VROOT;
	}
	if (io->kind == PT_IOMMU_KIND_AMDVI) {
		*name = "dte";
		return PT_IO_ADTEDIR;
	}
	*name = smmu_two(io) ? "l1" : "ste";
	return smmu_two(io) ? PT_IO_SL1DIR : PT_IO_SSTEDIR;
}

/*
 * The fixed children of directory DIR (at most 2: an `entry` file and the
 * table it points at); their number.
 */
static unsigned fixed_children(const struct pt_tree *tree, const struct pt_tnode *dir,
			       const char *names[2], struct pt_tnode kids[2])
{
	const struct pt_iommu_info *io = io_of(tree, dir);
	uint64_t a = pt_io_a(dir), x, y;
	unsigned k = 0, i = dir->choice;
	struct io_loc l;
	const char *why;

	switch (pt_io_kind_of(dir)) {
	case PT_IO_TOP:
		io_node(&kids[k], PT_TN_IODIR, i, top_child(io, &names[k]), 0, 0);
		return 1;
	case PT_IO_VBUS:
		names[k] = "entry";
		io_node(&kids[k++], PT_TN_IOFILE, i, PT_IO_VROOTENT, a, 0);
		if (vtd_ctab(tree, io, a, 0, &x, &why) || vtd_ctab(tree, io, a, 1, &x, &why)) {
			names[k] = "context";
			io_node(&kids[k++], PT_TN_IODIR, i, PT_IO_VCTXDIR, a, 0);
		}
		return k;
	case PT_IO_VDEV:
		names[k] = "entry";
		io_node(&kids[k++], PT_TN_IOFILE, i, PT_IO_VDEVENT, a, 0);
		if (vtd_pdir(tree, io, a, &x, &y, &why)) {
			names[k] = "pasid";
			io_node(&kids[k++], PT_TN_IODIR, i, PT_IO_VPASIDDIR, a, 0);
		}
		return k;
	case PT_IO_SL1:
		names[k] = "entry";
		io_node(&kids[k++], PT_TN_IOFILE, i, PT_IO_SL1ENT, a, 0);
		if (smmu_l2(tree, io, a, &x, &y, &why)) {
			names[k] = "ste";
			io_node(&kids[k++], PT_TN_IODIR, i, PT_IO_SSTEDIR, a, 0);
		}
		return k;
	case PT_IO_SSTE:
		names[k] = "entry";
		io_node(&kids[k++], PT_TN_IOFILE, i, PT_IO_SSTEENT, a, 0);
		if (smmu_cdtab(tree, io, a, &l, &x)) {
			names[k] = "cd";
			io_node(&kids[k++], PT_TN_IODIR, i, PT_IO_SCDDIR, a, 0);
		}
		return k;
	default:
		return 0;
	}
}

/* The indexed child I of DIR (an entry of its table), whether it resolves; no listing test. */
static bool indexed_child(const struct pt_tree *tree, const struct pt_tnode *dir, uint64_t i,
			  struct pt_tnode *child, struct io_loc *l)
{
	const struct pt_iommu_info *io = io_of(tree, dir);
	uint64_t a = pt_io_a(dir);
	unsigned n = dir->choice;

	switch (pt_io_kind_of(dir)) {
	case PT_IO_VROOT:
		io_node(child, PT_TN_IODIR, n, PT_IO_VBUS, i, 0);
		return vtd_rootent(tree, io, i, l);
	case PT_IO_VCTXDIR:
		if (i > 255)
			return false;
		io_node(child, vtd_sm(io) ? PT_TN_IODIR : PT_TN_IOFILE, n,
			vtd_sm(io) ? PT_IO_VDEV : PT_IO_VCTX, a << 8 | i, 0);
		return vtd_ctxent(tree, io, a << 8 | i, l);
	case PT_IO_VPASIDDIR:
		if (i >> PT_IO_C_BITS)
			return false;
		io_node(child, PT_TN_IOFILE, n, PT_IO_VPASID, a, i);
		return vtd_pasident(tree, io, a, i, l);
	case PT_IO_ADTEDIR:
		io_node(child, PT_TN_IOFILE, n, PT_IO_ADTE, i, 0);
		return amd_dte(tree, io, i, l);
	case PT_IO_SL1DIR:
		io_node(child, PT_TN_IODIR, n, PT_IO_SL1, i, 0);
		return smmu_l1(tree, io, i, l);
	case PT_IO_SSTEDIR:
		if (smmu_two(io) && i >> smmu_split(io) != a)
			return false;
		io_node(child, PT_TN_IODIR, n, PT_IO_SSTE, i, 0);
		return smmu_ste(tree, io, i, l);
	case PT_IO_SCDDIR:
		if (i >> PT_IO_C_BITS)
			return false;
		io_node(child, PT_TN_IOFILE, n, PT_IO_SCD, a, i);
		return smmu_cd(tree, io, a, i, l);
	default:
		return false;
	}
}

/* Where the entries of DIR's table are, when they are one array (to step over holes). */
struct io_range {
	uint64_t lo, hi;            /* the indices */
	uint64_t base, i0;          /* flat: entry I at base + es * (I - i0) */
	unsigned es;                /* 0: not one array */
	uint64_t block;             /* not flat: an unreadable index skips its block (2^k, 0: 1) */
};

static bool index_range(const struct pt_tree *tree, const struct pt_tnode *dir, struct io_range *r)
{
	const struct pt_iommu_info *io = io_of(tree, dir);
	uint64_t a = pt_io_a(dir), x, n;
	const char *why;
	struct io_loc l;

	memset(r, 0, sizeof *r);
	if (!io_dir(tree, dir))
		return false;
	switch (pt_io_kind_of(dir)) {
	case PT_IO_VROOT:
		*r = (struct io_range){0, 256, vtd_root(io), 0, 16, 0};
		return true;
	case PT_IO_VCTXDIR:
		*r = (struct io_range){0, 256, 0, 0, 0, 0};
		if (!vtd_sm(io) && vtd_ctab(tree, io, a, 0, &x, &why)) {
			r->base = x;
			r->es = 16;
		}
		return true;
	case PT_IO_VPASIDDIR:
		vtd_pdir(tree, io, a, &x, &n, &why);
		*r = (struct io_range){0, n * 64, 0, 0, 0, 64};
		return true;
	case PT_IO_ADTEDIR:
		*r = (struct io_range){0, amd_n(io), io->dev_table_base & MASK(51, 12), 0, 32, 0};
		return true;
	case PT_IO_SL1DIR:
		*r = (struct io_range){0, smmu_nl1(io), smmu_base(io), 0, 8, 0};
		return true;
	case PT_IO_SSTEDIR:
		if (!smmu_two(io)) {
			*r = (struct io_range){0, 1ull << smmu_log2(io), smmu_base(io), 0, 64, 0};
			return true;
		}
		smmu_l2(tree, io, a, &x, &n, &why);
		*r = (struct io_range){a << smmu_split(io), (a << smmu_split(io)) + n, x,
				       a << smmu_split(io), 64, 0};
		return true;
	case PT_IO_SCDDIR:
		smmu_cdtab(tree, io, a, &l, &n);
		x = (l.w[0] >> 4) & 3;
		*r = (struct io_range){0, n, l.w[0] & MASK(51, 6), 0, x ? 0 : 64, 0};
		r->block = x == 1 ? 64 : x == 2 ? 1024 : 0;
		return true;
	default:
		return false;
	}
}

/* The index after I to try in R, stepping over uncaptured, zero or absent blocks. */
static uint64_t skip(const struct pt_tree *tree, const struct pt_iommu_info *io,
		     const struct io_range *r, uint64_t i, bool ok, const struct io_loc *l)
{
	const struct pt_mem *mem = pt_capture_mem(tree->cap);
	uint64_t next = i + 1, addr, nx = 0;
	bool zero = true;

	if (!r->es)
		return !ok && r->block ? (i | (r->block - 1)) + 1 : next;
	addr = r->base + r->es * (i - r->i0);
	for (unsigned k = 0; ok && k < r->es / 8; k++)
		zero = zero && !l->w[k];
	if (!ok) {
		if (!pt_mem_next(mem, io->space, addr, &nx))
			return r->hi;
	} else if (zero && !tree->all_entries) {
		if (!pt_mem_next_nonzero(mem, io->space, addr + r->es, &nx))
			return r->hi;
	}
	if (nx > addr && (nx - addr) / r->es > 1) {
		uint64_t j = i + (nx - addr) / r->es;

		if (j > next)
			next = j < r->hi ? j : r->hi;
	}
	return next;
}

static void index_name(char *name, size_t len, uint64_t i)
{
	snprintf(name, len, "%" PRIu64, i);
}

/* ---- the tree API's IOMMU cases ------------------------------------------ */

bool pt_iotree_root(const struct pt_tree *tree, const char *name, struct pt_tnode *child)
{
	for (size_t i = 0; i < tree->niommu; i++)
		if (strcmp(tree->io[i].name, name) == 0) {
			io_node(child, PT_TN_IODIR, (unsigned)i, PT_IO_TOP, 0, 0);
			return true;
		}
	return false;
}

pt_err pt_iotree_lookup(const struct pt_tree *tree, const struct pt_tnode *parent,
			const char *name, struct pt_tnode *child)
{
	const char *names[2];
	struct pt_tnode kids[2];
	struct io_range r;
	struct io_loc l;
	uint64_t i;
	unsigned n;

	if (!io_dir(tree, parent))
		return PT_E_NOTFOUND;
	n = fixed_children(tree, parent, names, kids);
	for (unsigned k = 0; k < n; k++)
		if (strcmp(names[k], name) == 0) {
			*child = kids[k];
			return PT_OK;
		}
	if (n || !index_range(tree, parent, &r) || !pt_num_parse(name, PT_NUM_DEC, &i) ||
	    i < r.lo || i >= r.hi || !indexed_child(tree, parent, i, child, &l))
		return PT_E_NOTFOUND;
	return PT_OK;
}

pt_err pt_iotree_list(const struct pt_tree *tree, const struct pt_tnode *dir, uint64_t cookie,
		      pt_tree_list_fn fn, void *ud, struct pt_readctl *rc)
{
	const char *names[2];
	struct pt_tnode kids[2], child;
	struct io_range r;
	struct io_loc l;
	char name[32];
	unsigned n;

	if (!io_dir(tree, dir))
		return PT_E_NOTFOUND;
	n = fixed_children(tree, dir, names, kids);
	for (unsigned k = 0; k < n; k++)
		if (k + COOKIE_BASE > cookie && !fn(ud, names[k], &kids[k], k + COOKIE_BASE))
			return PT_OK;
	if (n || !index_range(tree, dir, &r))
		return PT_OK;
	/* entry I has cookie I + COOKIE_BASE (I below 2^32 + 2^20): resumed right after it */
	for (uint64_t i = cookie >= COOKIE_BASE && cookie - COOKIE_BASE + 1 > r.lo ?
			  cookie - COOKIE_BASE + 1 : r.lo; i < r.hi;) {
		bool ok;

		if (pt_readctl_poll(rc))
			return PT_OK;
		ok = indexed_child(tree, dir, i, &child, &l);
		if (ok && (tree->all_entries || pt_ioent_present(l.t, l.w))) {
			index_name(name, sizeof name, i);
			if (!fn(ud, name, &child, i + COOKIE_BASE))
				return PT_OK;
			i++;
			continue;
		}
		i = skip(tree, io_of(tree, dir), &r, i, ok, &l);
	}
	return PT_OK;
}

pt_err pt_iotree_parent(const struct pt_tree *tree, const struct pt_tnode *node,
			struct pt_tnode *parent)
{
	const struct pt_iommu_info *io = io_of(tree, node);
	uint64_t a = pt_io_a(node);
	unsigned i = node->choice, up;

	if (!io)
		return PT_E_NOTFOUND;
	switch (pt_io_kind_of(node)) {
	case PT_IO_TOP:
		pt_tree_root(parent);
		return PT_OK;
	case PT_IO_VROOT:
	case PT_IO_ADTEDIR:
	case PT_IO_SL1DIR:
		io_node(parent, PT_TN_IODIR, i, PT_IO_TOP, 0, 0);
		return PT_OK;
	case PT_IO_SSTEDIR:
		if (smmu_two(io))
			io_node(parent, PT_TN_IODIR, i, PT_IO_SL1, a, 0);
		else
			io_node(parent, PT_TN_IODIR, i, PT_IO_TOP, 0, 0);
		return PT_OK;
	case PT_IO_VCTX:
	case PT_IO_VDEV:
		io_node(parent, PT_TN_IODIR, i, PT_IO_VCTXDIR, a >> 8, 0);
		return PT_OK;
	case PT_IO_SSTE:
		io_node(parent, PT_TN_IODIR, i, PT_IO_SSTEDIR, smmu_two(io) ? a >> smmu_split(io) : 0, 0);
		return PT_OK;
	case PT_IO_VBUS: up = PT_IO_VROOT; a = 0; break;
	case PT_IO_VROOTENT: case PT_IO_VCTXDIR: up = PT_IO_VBUS; break;
	case PT_IO_VDEVENT: case PT_IO_VPASIDDIR: up = PT_IO_VDEV; break;
	case PT_IO_VPASID: up = PT_IO_VPASIDDIR; break;
	case PT_IO_ADTE: up = PT_IO_ADTEDIR; a = 0; break;
	case PT_IO_SL1: up = PT_IO_SL1DIR; a = 0; break;
	case PT_IO_SL1ENT: up = PT_IO_SL1; break;
	case PT_IO_SSTEENT: case PT_IO_SCDDIR: up = PT_IO_SSTE; break;
	case PT_IO_SCD: up = PT_IO_SCDDIR; break;
	default:
		return PT_E_NOTFOUND;
	}
	io_node(parent, PT_TN_IODIR, i, up, a, 0);
	return PT_OK;
}

pt_err pt_iotree_nlink(const struct pt_tree *tree, const struct pt_tnode *node, uint64_t *nlink)
{
	const char *names[2];
	struct pt_tnode kids[2];
	unsigned n, kind = pt_io_kind_of(node);

	*nlink = 1;
	if (node->type == PT_TN_IOFILE)
		return PT_OK;
	if (!io_dir(tree, node))
		return PT_E_NOTFOUND;
	n = fixed_children(tree, node, names, kids);
	if (n) {
		*nlink = 2;
		for (unsigned k = 0; k < n; k++)
			*nlink += kids[k].type == PT_TN_IODIR;
		return PT_OK;
	}
	/* a table of entry directories: "unknown" (1), as a big page table's; of files: 2 */
	if (kind == PT_IO_VROOT || kind == PT_IO_SL1DIR || kind == PT_IO_SSTEDIR ||
	    (kind == PT_IO_VCTXDIR && vtd_sm(io_of(tree, node))))
		return PT_OK;
	*nlink = 2;
	return PT_OK;
}

/* ---- device contexts and the entry files ---------------------------------- */

static uint64_t io_key(size_t iommu, bool sub, uint64_t c, uint64_t a)
{
	return (uint64_t)iommu << 58 | (sub ? KEY_SUB : 0) | (c & 0xfffff) << 32 | (a & 0xffffffffu);
}

static int cmp_key(const void *x, const void *y)
{
	const struct pt_iokey *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->ctx->index < b->ctx->index ? -1 : a->ctx->index > b->ctx->index;
}

static const struct pt_context *key_find(const struct pt_tree *tree, uint64_t key)
{
	size_t lo = 0, hi = tree->niokeys;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tree->iokeys[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < tree->niokeys && tree->iokeys[lo].key == key ? tree->iokeys[lo].ctx : NULL;
}

pt_err pt_iotree_init(struct pt_tree *tree)
{
	size_t n = pt_capture_iommu_count(tree->cap), nc = pt_capture_context_count(tree->cap);

	if (!n)
		return PT_OK;
	tree->io = calloc(n, sizeof *tree->io);
	tree->iokeys = calloc(nc ? nc : 1, sizeof *tree->iokeys);
	if (!tree->io || !tree->iokeys)
		return PT_E_NOMEM;
	for (size_t i = 0; i < n; i++)
		pt_capture_iommu(tree->cap, i, &tree->io[i]);
	tree->niommu = n;
	for (size_t c = 0; c < nc; c++) {
		const struct pt_context *ctx = pt_capture_context(tree->cap, c);
		const struct pt_ctx_iommu *o = ctx->iommu;

		for (size_t i = 0; o && i < n; i++) {
			if (strcmp(tree->io[i].name, o->iommu) != 0)
				continue;
			tree->iokeys[tree->niokeys].ctx = ctx;
			tree->iokeys[tree->niokeys++].key =
				io_key(i, o->has_pasid || o->has_ssid, o->has_pasid ? o->pasid : o->ssid,
				       o->has_sid ? o->sid : o->bdf);
			break;
		}
	}
	qsort(tree->iokeys, tree->niokeys, sizeof *tree->iokeys, cmp_key);
	return PT_OK;
}

void pt_iotree_free(struct pt_tree *tree)
{
	free(tree->io);
	free(tree->iokeys);
}

/* The device context entry L of NODE made, and whether the entry is one that makes one. */
static bool entry_context(const struct pt_tree *tree, const struct pt_tnode *node,
			  const struct io_loc *l, const struct pt_context **ctx)
{
	size_t i = node->choice;
	uint64_t a = pt_io_a(node), c = pt_io_c(node);

	*ctx = NULL;
	switch (pt_io_kind_of(node)) {
	case PT_IO_VCTX:
	case PT_IO_ADTE:
		*ctx = key_find(tree, io_key(i, false, 0, a));
		return true;
	case PT_IO_VDEVENT:
		/* requests without a PASID use the RID_PASID entry (VT-d spec §9.4) */
		*ctx = key_find(tree, io_key(i, true, l->w[1] & 0xfffff, a));
		return true;
	case PT_IO_VPASID:
	case PT_IO_SCD:
		*ctx = key_find(tree, io_key(i, true, c, a));
		return true;
	case PT_IO_SSTEENT:
		*ctx = key_find(tree, io_key(i, false, 0, a));
		if (!*ctx)   /* S1DSS 10: its CD 0 is the stream's own context (iommu_walk.c) */
			*ctx = key_find(tree, io_key(i, true, 0, a));
		return true;
	default:
		return false;
	}
}

/* Why the table entry L of NODE points at is not shown, or NULL. */
static const char *entry_warning(const struct pt_tree *tree, const struct pt_tnode *node,
				 const struct io_loc *l)
{
	const struct pt_iommu_info *io = io_of(tree, node);
	uint64_t a = pt_io_a(node), x, y;
	const char *why = NULL;

	switch (pt_io_kind_of(node)) {
	case PT_IO_VROOTENT:
		if (!vtd_ctab(tree, io, a, 0, &x, &why) && !why)
			vtd_ctab(tree, io, a, 1, &x, &why);
		return why;
	case PT_IO_VDEVENT:
		vtd_pdir(tree, io, a, &x, &y, &why);
		return why;
	case PT_IO_SL1ENT:
		smmu_l2(tree, io, a, &x, &y, &why);
		return why;
	case PT_IO_SSTEENT:
		if ((l->w[0] & 1) && ((l->w[0] >> 1) & 7) == 5 && (l->w[0] >> 59) > PT_IO_C_BITS)
			return "S1CDMax is above 20: cd/ shows SubstreamIDs below 2^20";
		if ((l->w[0] & 1) && ((l->w[0] >> 1) & 7) == 5 && ((l->w[0] >> 4) & 3) == 3)
			return "S1Fmt 11 is reserved (IHI 0070 §5.2): its CD table is not read";
		return NULL;
	default:
		return NULL;
	}
}

pt_err pt_iotree_render(const struct pt_tree *tree, const struct pt_tnode *node, struct pt_buf *b)
{
	const struct pt_iommu_info *io = io_of(tree, node);
	const struct pt_context *ctx;
	const char *why;
	struct io_loc l;

	if (!io_entry(tree, node, &l))
		return PT_E_NOTFOUND;
	pt_buf_printf(b, "iommu: %s\naddress: %s 0x%" PRIx64 "\n", io->name,
		      pt_capture_space_name(tree->cap, io->space), l.addr);
	pt_ioent_render(b, l.t, l.w);
	why = pt_ioent_present(l.t, l.w) ? entry_warning(tree, node, &l) : NULL;
	if (why)
		pt_buf_printf(b, "warning: %s\n", why);
	if (entry_context(tree, node, &l, &ctx)) {
		if (ctx)
			pt_buf_printf(b, "context: %s\n", ctx->name);
		else if (pt_ioent_present(l.t, l.w))
			pt_buf_puts(b, "context: none (the load's warnings say why)\n");
		else
			pt_buf_puts(b, "context: none (not present)\n");
	}
	return b->oom ? PT_E_NOMEM : PT_OK;
}

size_t pt_tree_iommu_count(const struct pt_tree *tree)
{
	return tree->niommu;
}

void pt_tree_io_bits(const struct pt_tree *tree, size_t i, unsigned *abits, unsigned *cbits)
{
	const struct pt_iommu_info *io = &tree->io[i];

	switch (io->kind) {
	case PT_IOMMU_KIND_VTD:
		*abits = 16;
		*cbits = vtd_sm(io) ? PT_IO_C_BITS : 0;
		return;
	case PT_IOMMU_KIND_AMDVI:
		*abits = 16;
		*cbits = 0;
		return;
	default:
		*abits = smmu_log2(io);
		*cbits = PT_IO_C_BITS;
		return;
	}
}
