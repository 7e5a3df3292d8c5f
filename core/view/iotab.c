/* SPDX-License-Identifier: MIT */
/*
 * iotab.c — reading an IOMMU's own tables for the IOMMU tree (iotree.c):
 * each function finds one entry (or table) from the [iommu] section's
 * registers, reading every table on the way, and says false when the way
 * is not there (not present, not captured, or a table the IOMMU would not
 * read: WHY says which).  Every layout fact (where an entry is, its size,
 * what a register or field says) is the format's (pt_iommu_format.h,
 * core/formats/iommu_*.c: VT-d spec §9.1-9.6 and §11.4.5, AMD IOMMU spec
 * 48882 §2.2.2 and §3.3.1, IHI 0070 §5.1-5.4 and §6.3.24); this file only
 * chains them down from the registers to the one entry asked for.
 *
 * Why not a visitor of the format's walk (pt_iommu_format.walk), as the
 * loader and `roots --iommu` are: the walk goes through every entry of a
 * table in order, reading each table whole, while a lookup of the tree
 * wants one entry by its ids and reads only the entries on its way.  An
 * SMMUv3 linear stream table holds up to 2^32 STEs and an AMD-Vi device
 * table 65536 DTEs: a visitor stopping at the wanted one would still be
 * handed every entry before it, on every lookup and getattr of a FUSE
 * path.  And the tree shows what the walk keeps to itself: the context
 * table, PASID directory and level-2 table pointers and sizes (a
 * directory's listing) and why a table is not read (reserved bits, Span
 * above SPLIT + 1, a pointer back at the root table).
 */
#include <string.h>

#include "pt_ioent.h"
#include "pt_mem.h"
#include "pt_num.h"
#include "pt_tree.h"
#include "tree_int.h"

bool pt_iotab_rd(const struct pt_tree *tree, const struct pt_iommu_info *io, enum pt_ioent_type t,
	       uint64_t addr, struct pt_ioloc *l)
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

/* ---- the tree's nodes, by IOMMU ------------------------------------------ */

/* The IOMMU each node kind below NAME/ belongs to (0: every IOMMU's: NAME/, devices, info). */
static const unsigned char node_family[PT_IO__COUNT] = {
	[PT_IO_VROOT] = PT_IOMMU_KIND_VTD, [PT_IO_VBUS] = PT_IOMMU_KIND_VTD,
	[PT_IO_VROOTENT] = PT_IOMMU_KIND_VTD, [PT_IO_VCTXDIR] = PT_IOMMU_KIND_VTD,
	[PT_IO_VCTX] = PT_IOMMU_KIND_VTD, [PT_IO_VDEV] = PT_IOMMU_KIND_VTD,
	[PT_IO_VDEVENT] = PT_IOMMU_KIND_VTD, [PT_IO_VPASIDDIR] = PT_IOMMU_KIND_VTD,
	[PT_IO_VPASID] = PT_IOMMU_KIND_VTD,
	[PT_IO_ADTEDIR] = PT_IOMMU_KIND_AMDVI, [PT_IO_ADTE] = PT_IOMMU_KIND_AMDVI,
	[PT_IO_SL1DIR] = PT_IOMMU_KIND_SMMUV3, [PT_IO_SL1] = PT_IOMMU_KIND_SMMUV3,
	[PT_IO_SL1ENT] = PT_IOMMU_KIND_SMMUV3, [PT_IO_SSTEDIR] = PT_IOMMU_KIND_SMMUV3,
	[PT_IO_SSTE] = PT_IOMMU_KIND_SMMUV3, [PT_IO_SSTEENT] = PT_IOMMU_KIND_SMMUV3,
	[PT_IO_SCDDIR] = PT_IOMMU_KIND_SMMUV3, [PT_IO_SCD] = PT_IOMMU_KIND_SMMUV3,
};

bool pt_iotab_kind_ok(const struct pt_iommu_info *io, unsigned kind)
{
	return kind < PT_IO__COUNT && (!node_family[kind] || node_family[kind] == io->kind);
}

unsigned pt_iotab_top(const struct pt_iommu_info *io, const char **name)
{
	if (io->kind == PT_IOMMU_KIND_VTD) {
		*name = "root";
		return PT_IO_VROOT;
	}
	if (io->kind == PT_IOMMU_KIND_AMDVI) {
		*name = "dte";
		return PT_IO_ADTEDIR;
	}
	*name = pt_iotab_smmu_two(io) ? "l1" : "ste";
	return pt_iotab_smmu_two(io) ? PT_IO_SL1DIR : PT_IO_SSTEDIR;
}

/*
 * The entry that set up device context O (VT-d context or PASID entry,
 * AMD-Vi DTE, SMMUv3 STE or CD): its translation (ioent.c's word), and its
 * domain, ASID or VMID (*KEY NULL: none read).
 */
void pt_iotab_dev_entry(const struct pt_tree *tree, const struct pt_iommu_info *io,
			const struct pt_ctx_iommu *o, const char **translation, const char **key,
			uint64_t *domain)
{
	struct pt_ioloc l;

	*translation = NULL;
	*key = NULL;
	switch (io->kind) {
	case PT_IOMMU_KIND_VTD:
		if (!(o->has_pasid ? pt_iotab_vtd_pasident(tree, io, o->bdf, o->pasid, &l) :
		      pt_iotab_vtd_ctxent(tree, io, o->bdf, &l)))
			return;
		*key = "domain";
		*domain = pt_ioent_field(l.t, l.w, "did");
		break;
	case PT_IOMMU_KIND_AMDVI:
		if (!pt_iotab_amd_dte(tree, io, o->bdf, &l))
			return;
		*key = "domain";
		*domain = pt_ioent_field(l.t, l.w, "domain_id");
		if (o->has_pasid) {
			/* a GCR3 entry's guest: x86-64 first-level tables (amd_dte(), iommu_walk.c) */
			*translation = "guest";
			return;
		}
		break;
	default: {
		struct pt_smmu_ste e;

		if (!pt_iotab_smmu_ste(tree, io, o->sid, &l))
			return;
		pt_smmu_ste(l.w, &e);
		if (e.config == PT_SMMU_CFG_S2 || e.config == PT_SMMU_CFG_NESTED) {
			*key = "vmid";
			*domain = pt_ioent_field(l.t, l.w, "s2vmid");
		}
		if (e.config == PT_SMMU_CFG_S1 &&
		    pt_iotab_smmu_cd(tree, io, o->sid, o->has_ssid ? o->ssid : 0, &l)) {
			*key = "asid";
			*domain = pt_ioent_field(l.t, l.w, "asid");
		}
		if (e.config == PT_SMMU_CFG_NESTED)
			*translation = "stage2";   /* a nested STE's context is its stage 2 (iommu_walk.c) */
		break;
	}
	}
	if (!*translation)
		*translation = pt_ioent_present(l.t, l.w) ? pt_ioent_translation(l.t, l.w) : NULL;
}

/* ---- Intel VT-d ---------------------------------------------------------- */

uint64_t pt_iotab_vtd_root(const struct pt_iommu_info *io)
{
	return pt_vtd_root_table(io->rtaddr);
}

bool pt_iotab_vtd_sm(const struct pt_iommu_info *io)
{
	return pt_vtd_ttm(io->rtaddr) == PT_VTD_TTM_SCALABLE;
}

/* The root entry of BUS (TTM 10 and 11: no root table is read, VT-d spec §11.4.5). */
bool pt_iotab_vtd_rootent(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t bus,
			struct pt_ioloc *l)
{
	if (bus > 255 || !pt_vtd_reads_root(io->rtaddr))
		return false;
	return pt_iotab_rd(tree, io, pt_iotab_vtd_sm(io) ? PT_IOENT_VTD_SMROOT : PT_IOENT_VTD_ROOT,
		  pt_vtd_root_entry(io->rtaddr, (unsigned)bus), l);
}

/* Context table HALF (scalable: devfn 0-127, 128-255) of BUS; WHY: why it is not read. */
bool pt_iotab_vtd_ctab(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t bus,
		     unsigned half, uint64_t *ptr, const char **why)
{
	struct pt_ioloc r;
	uint64_t e;

	*why = NULL;
	if (!pt_iotab_vtd_rootent(tree, io, bus, &r) || (half && !pt_iotab_vtd_sm(io)))
		return false;
	e = r.w[half];
	if (!pt_vtd_present(e))
		return false;
	if (!pt_iotab_vtd_sm(io) && pt_vtd_root_reserved(r.w[0], r.w[1])) {
		*why = "reserved bits are set (VT-d spec §9.1): its context table is not read";
		return false;
	}
	*ptr = pt_vtd_ptr(e);
	if (*ptr == pt_iotab_vtd_root(io)) {
		*why = "its context table is the root table: not read";
		return false;
	}
	return true;
}

/* The context entry of requester ID BDF. */
bool pt_iotab_vtd_ctxent(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t bdf,
		       struct pt_ioloc *l)
{
	unsigned devfn = bdf & 255;
	const char *why;
	uint64_t ptr;

	bool sm = pt_iotab_vtd_sm(io);

	if (bdf > 0xffff || !pt_iotab_vtd_ctab(tree, io, bdf >> 8, pt_vtd_ctx_half(devfn, sm), &ptr, &why))
		return false;
	return pt_iotab_rd(tree, io, sm ? PT_IOENT_VTD_SMCTX : PT_IOENT_VTD_CTX,
			  pt_vtd_ctx_entry(ptr, devfn, sm), l);
}

/* The PASID directory of BDF (scalable mode, §9.4): where, and how many entries. */
bool pt_iotab_vtd_pdir(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t bdf,
		     uint64_t *dir, uint64_t *n, const char **why)
{
	struct pt_ioloc c;
	struct pt_vtd_smctx sc;

	*why = NULL;
	if (!pt_iotab_vtd_sm(io) || !pt_iotab_vtd_ctxent(tree, io, bdf, &c) || !pt_vtd_present(c.w[0]))
		return false;
	pt_vtd_smctx(c.w[0], c.w[1], &sc);
	*dir = sc.dir;
	*n = sc.ndir;
	if (*dir == pt_iotab_vtd_root(io)) {
		*why = "its PASID directory is the root table: not read";
		return false;
	}
	return true;
}

/* The PASID table entry of PASID of BDF: directory entry PASID 19:6, table entry 5:0 (§9.5, §9.6). */
bool pt_iotab_vtd_pasident(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t bdf,
			 uint64_t pasid, struct pt_ioloc *l)
{
	uint64_t dir, n, tp;
	const char *why;
	struct pt_ioloc d;

	if (!pt_iotab_vtd_pdir(tree, io, bdf, &dir, &n, &why) || pt_vtd_pasiddir_index(pasid) >= n ||
	    !pt_iotab_rd(tree, io, PT_IOENT_VTD_PASIDDIR, pt_vtd_pasiddir_entry(dir, pasid), &d) ||
	    !pt_vtd_present(d.w[0]))
		return false;
	tp = pt_vtd_ptr(d.w[0]);
	if (tp == pt_iotab_vtd_root(io))
		return false;
	return pt_iotab_rd(tree, io, PT_IOENT_VTD_PASID, pt_vtd_pasid_entry(tp, pasid), l);
}

/* ---- AMD-Vi and SMMUv3 --------------------------------------------------- */

/* Device table entries: Size 8:0 is its 4 KiB pages - 1 (AMD IOMMU spec §3.3.1). */
uint64_t pt_iotab_amd_n(const struct pt_iommu_info *io)
{
	return pt_amd_dte_count(io->dev_table_base);
}

bool pt_iotab_amd_dte(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t devid,
		    struct pt_ioloc *l)
{
	return devid < pt_iotab_amd_n(io) &&
	       pt_iotab_rd(tree, io, PT_IOENT_AMD_DTE, pt_amd_dte_addr(io->dev_table_base, devid), l);
}

/* STRTAB_BASE_CFG (IHI 0070 §6.3.24): LOG2SIZE 5:0 (names below 2^32), SPLIT 10:6, FMT 17:16. */
unsigned pt_iotab_smmu_log2(const struct pt_iommu_info *io)
{
	return pt_smmu_sid_bits(io->strtab_base_cfg);
}

unsigned pt_iotab_smmu_split(const struct pt_iommu_info *io)
{
	return pt_smmu_split(io->strtab_base_cfg);
}

bool pt_iotab_smmu_two(const struct pt_iommu_info *io)
{
	return pt_smmu_two_level(io->strtab_base_cfg);
}

uint64_t pt_iotab_smmu_base(const struct pt_iommu_info *io)
{
	return pt_smmu_strtab_base(io->strtab_base);
}

uint64_t pt_iotab_smmu_nl1(const struct pt_iommu_info *io)
{
	return pt_smmu_l1_count(io->strtab_base_cfg);
}

bool pt_iotab_smmu_l1(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t n,
		    struct pt_ioloc *l)
{
	return pt_iotab_smmu_two(io) && n < pt_iotab_smmu_nl1(io) &&
	       pt_iotab_rd(tree, io, PT_IOENT_SMMU_L1STD, pt_smmu_l1_addr(io->strtab_base, n), l);
}

/* L1STD N's level-2 table: Span 1..SPLIT + 1, no reserved bit (§5.1); WHY: why not. */
bool pt_iotab_smmu_l2(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t n,
		    uint64_t *l2, uint64_t *cnt, const char **why)
{
	struct pt_ioloc l;
	unsigned span;

	*why = NULL;
	if (!pt_iotab_smmu_l1(tree, io, n, &l) || !(span = pt_smmu_l1_span(l.w[0])))
		return false;
	if (span > pt_iotab_smmu_split(io) + 1 || pt_ioent_reserved(l.t, l.w, 0)) {
		*why = span > pt_iotab_smmu_split(io) + 1 ? "Span is above SPLIT + 1 (IHI 0070 §5.1): its"
			" level-2 table is not read" : "reserved bits are set (IHI 0070 §5.1): its"
			" level-2 table is not read";
		return false;
	}
	*l2 = pt_smmu_l1_ptr(l.w[0]);
	*cnt = pt_smmu_l2_count(span);
	return true;
}

bool pt_iotab_smmu_ste(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t sid,
		     struct pt_ioloc *l)
{
	uint64_t l2, cnt, j;
	const char *why;

	if (!pt_iotab_smmu_two(io))
		return sid >> pt_iotab_smmu_log2(io) == 0 &&
		       pt_iotab_rd(tree, io, PT_IOENT_SMMU_STE, pt_smmu_entry64(pt_iotab_smmu_base(io), sid), l);
	j = pt_smmu_l2_index(io->strtab_base_cfg, sid);
	return sid >> pt_iotab_smmu_log2(io) == 0 &&
	       pt_iotab_smmu_l2(tree, io, pt_smmu_l1_index(io->strtab_base_cfg, sid), &l2, &cnt, &why) &&
	       j < cnt &&
	       pt_iotab_rd(tree, io, PT_IOENT_SMMU_STE, pt_smmu_entry64(l2, j), l);
}

/* The CD table of stream SID: a valid stage-1 STE (Config 101, §5.2); SSIDs below 2^20. */
bool pt_iotab_smmu_cdtab(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t sid,
		       struct pt_ioloc *ste, uint64_t *n)
{
	struct pt_smmu_ste e;

	if (!pt_iotab_smmu_ste(tree, io, sid, ste))
		return false;
	pt_smmu_ste(ste->w, &e);
	if (!pt_smmu_ste_cdtab(&e))
		return false;
	*n = pt_smmu_cd_count(&e, PT_IO_C_BITS);
	return true;
}

/* The CD of SSID: linear, or through an L1CD (V 0, L2Ptr 51:12; S1Fmt 01: 64, 10: 1024 CDs, §5.3). */
bool pt_iotab_smmu_cd(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t sid,
		    uint64_t ssid, struct pt_ioloc *l)
{
	struct pt_ioloc ste;
	struct pt_smmu_ste e;
	uint64_t n, ptr, l1cd;
	uint8_t raw[8];

	if (!pt_iotab_smmu_cdtab(tree, io, sid, &ste, &n) || ssid >= n)
		return false;
	pt_smmu_ste(ste.w, &e);
	ptr = e.s1ctx;
	if (!pt_smmu_cd_two_level(e.s1fmt))
		return pt_iotab_rd(tree, io, PT_IOENT_SMMU_CD, pt_smmu_cd_addr(ptr, ssid, e.s1fmt), l);
	if (!pt_mem_read(pt_capture_mem(tree->cap), io->space, pt_smmu_l1cd_addr(ptr, ssid, e.s1fmt),
			 raw, 8))
		return false;
	l1cd = pt_le64_load(raw);
	if (!pt_smmu_l1cd_valid(l1cd))
		return false;
	return pt_iotab_rd(tree, io, PT_IOENT_SMMU_CD,
			   pt_smmu_cd_addr(pt_smmu_l1cd_ptr(l1cd), ssid, e.s1fmt), l);
}
