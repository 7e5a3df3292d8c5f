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
 * table layouts: the IOMMU family (core/formats/iommu_*.c, through
 * iotab.c) and ioent.c cite the specifications.
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

#define KEY_SUB (1ull << 57)

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

/* ---- nodes ---------------------------------------------------------------- */

/* The entry file NODE shows. */
static bool io_entry(const struct pt_tree *tree, const struct pt_tnode *node, struct pt_ioloc *l)
{
	const struct pt_iommu_info *io = io_of(tree, node);
	uint64_t a = pt_io_a(node), c = pt_io_c(node);

	if (!io || node->type != PT_TN_IOFILE || !pt_iotab_kind_ok(io, pt_io_kind_of(node)))
		return false;
	switch (pt_io_kind_of(node)) {
	case PT_IO_VROOTENT:
		return pt_iotab_vtd_rootent(tree, io, a, l);
	case PT_IO_VCTX:
		return !pt_iotab_vtd_sm(io) && pt_iotab_vtd_ctxent(tree, io, a, l);
	case PT_IO_VDEVENT:
		return pt_iotab_vtd_sm(io) && pt_iotab_vtd_ctxent(tree, io, a, l);
	case PT_IO_VPASID:
		return pt_iotab_vtd_pasident(tree, io, a, c, l);
	case PT_IO_ADTE:
		return pt_iotab_amd_dte(tree, io, a, l);
	case PT_IO_SL1ENT:
		return pt_iotab_smmu_l1(tree, io, a, l);
	case PT_IO_SSTEENT:
		return pt_iotab_smmu_ste(tree, io, a, l);
	case PT_IO_SCD:
		return pt_iotab_smmu_cd(tree, io, a, c, l);
	default:
		return false;
	}
}

/* NAME/devices, NAME/info: files of the IOMMU, not of one entry. */
static bool io_own_file(const struct pt_tnode *node)
{
	unsigned k = pt_io_kind_of(node);

	return node->type == PT_TN_IOFILE && (k == PT_IO_DEVICES || k == PT_IO_INFO) &&
	       !pt_io_a(node) && !pt_io_c(node);
}

/* Whether directory NODE resolves. */
static bool io_dir(const struct pt_tree *tree, const struct pt_tnode *node)
{
	const struct pt_iommu_info *io = io_of(tree, node);
	uint64_t a = pt_io_a(node), x, y;
	struct pt_ioloc l;
	const char *why;
	unsigned kind = pt_io_kind_of(node);

	if (!io || node->type != PT_TN_IODIR || pt_io_c(node) || !pt_iotab_kind_ok(io, kind))
		return false;
	switch (kind) {
	case PT_IO_TOP:
		return a == 0;
	case PT_IO_VROOT:
		return a == 0;
	case PT_IO_VBUS:
		return pt_iotab_vtd_rootent(tree, io, a, &l);
	case PT_IO_VCTXDIR:
		return a <= 255 &&
		       (pt_iotab_vtd_ctab(tree, io, a, 0, &x, &why) || pt_iotab_vtd_ctab(tree, io, a, 1, &x, &why));
	case PT_IO_VDEV:
		return pt_iotab_vtd_sm(io) && pt_iotab_vtd_ctxent(tree, io, a, &l);
	case PT_IO_VPASIDDIR:
		return pt_iotab_vtd_pdir(tree, io, a, &x, &y, &why);
	case PT_IO_ADTEDIR:
		return a == 0;
	case PT_IO_SL1DIR:
		return pt_iotab_smmu_two(io) && a == 0;
	case PT_IO_SL1:
		return pt_iotab_smmu_l1(tree, io, a, &l);
	case PT_IO_SSTEDIR:
		return pt_iotab_smmu_two(io) ? pt_iotab_smmu_l2(tree, io, a, &x, &y, &why) : a == 0;
	case PT_IO_SSTE:
		return pt_iotab_smmu_ste(tree, io, a, &l);
	case PT_IO_SCDDIR:
		return pt_iotab_smmu_cdtab(tree, io, a, &l, &x);
	default:
		return false;
	}
}

/*
 * The fixed children of directory DIR (at most 3: an `entry` file and the
 * table it points at; NAME/'s table, `devices` and `info`); their number.
 */
static unsigned fixed_children(const struct pt_tree *tree, const struct pt_tnode *dir,
			       const char *names[3], struct pt_tnode kids[3])
{
	const struct pt_iommu_info *io = io_of(tree, dir);
	uint64_t a = pt_io_a(dir), x, y;
	unsigned k = 0, i = dir->choice;
	struct pt_ioloc l;
	const char *why;

	switch (pt_io_kind_of(dir)) {
	case PT_IO_TOP:
		io_node(&kids[k], PT_TN_IODIR, i, pt_iotab_top(io, &names[k]), 0, 0);
		names[1] = "devices";
		io_node(&kids[1], PT_TN_IOFILE, i, PT_IO_DEVICES, 0, 0);
		names[2] = "info";
		io_node(&kids[2], PT_TN_IOFILE, i, PT_IO_INFO, 0, 0);
		return 3;
	case PT_IO_VBUS:
		names[k] = "entry";
		io_node(&kids[k++], PT_TN_IOFILE, i, PT_IO_VROOTENT, a, 0);
		if (pt_iotab_vtd_ctab(tree, io, a, 0, &x, &why) || pt_iotab_vtd_ctab(tree, io, a, 1, &x, &why)) {
			names[k] = "context";
			io_node(&kids[k++], PT_TN_IODIR, i, PT_IO_VCTXDIR, a, 0);
		}
		return k;
	case PT_IO_VDEV:
		names[k] = "entry";
		io_node(&kids[k++], PT_TN_IOFILE, i, PT_IO_VDEVENT, a, 0);
		if (pt_iotab_vtd_pdir(tree, io, a, &x, &y, &why)) {
			names[k] = "pasid";
			io_node(&kids[k++], PT_TN_IODIR, i, PT_IO_VPASIDDIR, a, 0);
		}
		return k;
	case PT_IO_SL1:
		names[k] = "entry";
		io_node(&kids[k++], PT_TN_IOFILE, i, PT_IO_SL1ENT, a, 0);
		if (pt_iotab_smmu_l2(tree, io, a, &x, &y, &why)) {
			names[k] = "ste";
			io_node(&kids[k++], PT_TN_IODIR, i, PT_IO_SSTEDIR, a, 0);
		}
		return k;
	case PT_IO_SSTE:
		names[k] = "entry";
		io_node(&kids[k++], PT_TN_IOFILE, i, PT_IO_SSTEENT, a, 0);
		if (pt_iotab_smmu_cdtab(tree, io, a, &l, &x)) {
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
			  struct pt_tnode *child, struct pt_ioloc *l)
{
	const struct pt_iommu_info *io = io_of(tree, dir);
	uint64_t a = pt_io_a(dir);
	unsigned n = dir->choice;

	switch (pt_io_kind_of(dir)) {
	case PT_IO_VROOT:
		io_node(child, PT_TN_IODIR, n, PT_IO_VBUS, i, 0);
		return pt_iotab_vtd_rootent(tree, io, i, l);
	case PT_IO_VCTXDIR:
		if (i > 255)
			return false;
		io_node(child, pt_iotab_vtd_sm(io) ? PT_TN_IODIR : PT_TN_IOFILE, n,
			pt_iotab_vtd_sm(io) ? PT_IO_VDEV : PT_IO_VCTX, a << 8 | i, 0);
		return pt_iotab_vtd_ctxent(tree, io, a << 8 | i, l);
	case PT_IO_VPASIDDIR:
		if (i >> PT_IO_C_BITS)
			return false;
		io_node(child, PT_TN_IOFILE, n, PT_IO_VPASID, a, i);
		return pt_iotab_vtd_pasident(tree, io, a, i, l);
	case PT_IO_ADTEDIR:
		io_node(child, PT_TN_IOFILE, n, PT_IO_ADTE, i, 0);
		return pt_iotab_amd_dte(tree, io, i, l);
	case PT_IO_SL1DIR:
		io_node(child, PT_TN_IODIR, n, PT_IO_SL1, i, 0);
		return pt_iotab_smmu_l1(tree, io, i, l);
	case PT_IO_SSTEDIR:
		if (pt_iotab_smmu_two(io) && pt_smmu_l1_index(io->strtab_base_cfg, i) != a)
			return false;
		io_node(child, PT_TN_IODIR, n, PT_IO_SSTE, i, 0);
		return pt_iotab_smmu_ste(tree, io, i, l);
	case PT_IO_SCDDIR:
		if (i >> PT_IO_C_BITS)
			return false;
		io_node(child, PT_TN_IOFILE, n, PT_IO_SCD, a, i);
		return pt_iotab_smmu_cd(tree, io, a, i, l);
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
	uint64_t a = pt_io_a(dir), x, x0, n;
	const char *why;
	struct pt_ioloc l;
	struct pt_smmu_ste ste;

	memset(r, 0, sizeof *r);
	if (!io_dir(tree, dir))
		return false;
	switch (pt_io_kind_of(dir)) {
	case PT_IO_VROOT:
		*r = (struct io_range){0, PT_VTD_BUSES, pt_iotab_vtd_root(io), 0, 8 * PT_VTD_ROOT_WORDS, 0};
		return true;
	case PT_IO_VCTXDIR:
		*r = (struct io_range){0, pt_vtd_ctx_count(false), 0, 0, 0, 0};
		if (!pt_iotab_vtd_sm(io) && pt_iotab_vtd_ctab(tree, io, a, 0, &x, &why)) {
			r->base = x;
			r->es = 8 * pt_vtd_ctx_words(false);
		}
		return true;
	case PT_IO_VPASIDDIR:
		pt_iotab_vtd_pdir(tree, io, a, &x, &n, &why);
		*r = (struct io_range){0, n * PT_VTD_PASID_ENTRIES, 0, 0, 0, PT_VTD_PASID_ENTRIES};
		return true;
	case PT_IO_ADTEDIR:
		*r = (struct io_range){0, pt_iotab_amd_n(io), pt_amd_dte_addr(io->dev_table_base, 0), 0,
				       8 * PT_AMD_DTE_WORDS, 0};
		return true;
	case PT_IO_SL1DIR:
		*r = (struct io_range){0, pt_iotab_smmu_nl1(io), pt_iotab_smmu_base(io), 0, 8, 0};
		return true;
	case PT_IO_SSTEDIR:
		if (!pt_iotab_smmu_two(io)) {
			*r = (struct io_range){0, pt_smmu_linear_count(io->strtab_base_cfg),
					       pt_iotab_smmu_base(io), 0, (unsigned)pt_smmu_entry64(0, 1), 0};
			return true;
		}
		pt_iotab_smmu_l2(tree, io, a, &x, &n, &why);
		x0 = pt_smmu_l1_first_sid(io->strtab_base_cfg, a);
		*r = (struct io_range){x0, x0 + n, x, x0, (unsigned)pt_smmu_entry64(0, 1), 0};
		return true;
	case PT_IO_SCDDIR:
		pt_iotab_smmu_cdtab(tree, io, a, &l, &n);
		pt_smmu_ste(l.w, &ste);
		/* linear: one array of CDs; two-level: an L1CD's leaf of CDs skipped whole */
		*r = (struct io_range){0, n, ste.s1ctx, 0, 0, 0};
		if (pt_smmu_cd_two_level(ste.s1fmt))
			r->block = 1ull << pt_smmu_cd_split(ste.s1fmt);
		else
			r->es = (unsigned)pt_smmu_entry64(0, 1);
		return true;
	default:
		return false;
	}
}

/* The index after I to try in R, stepping over uncaptured, zero or absent blocks. */
static uint64_t skip(const struct pt_tree *tree, const struct pt_iommu_info *io,
		     const struct io_range *r, uint64_t i, bool ok, const struct pt_ioloc *l)
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
		if (!(i < 64 && (tree->io_hidden >> i & 1)) && strcmp(tree->io[i].name, name) == 0) {
			io_node(child, PT_TN_IODIR, (unsigned)i, PT_IO_TOP, 0, 0);
			return true;
		}
	return false;
}

pt_err pt_iotree_lookup(const struct pt_tree *tree, const struct pt_tnode *parent,
			const char *name, struct pt_tnode *child)
{
	const char *names[3];
	struct pt_tnode kids[3];
	struct io_range r;
	struct pt_ioloc l;
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
	const char *names[3];
	struct pt_tnode kids[3], child;
	struct io_range r;
	struct pt_ioloc l;
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
	case PT_IO_DEVICES:
	case PT_IO_INFO:
		io_node(parent, PT_TN_IODIR, i, PT_IO_TOP, 0, 0);
		return PT_OK;
	case PT_IO_SSTEDIR:
		if (pt_iotab_smmu_two(io))
			io_node(parent, PT_TN_IODIR, i, PT_IO_SL1, a, 0);
		else
			io_node(parent, PT_TN_IODIR, i, PT_IO_TOP, 0, 0);
		return PT_OK;
	case PT_IO_VCTX:
	case PT_IO_VDEV:
		io_node(parent, PT_TN_IODIR, i, PT_IO_VCTXDIR, a >> 8, 0);
		return PT_OK;
	case PT_IO_SSTE:
		io_node(parent, PT_TN_IODIR, i, PT_IO_SSTEDIR,
			pt_iotab_smmu_two(io) ? pt_smmu_l1_index(io->strtab_base_cfg, a) : 0, 0);
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
	const char *names[3];
	struct pt_tnode kids[3];
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
	    (kind == PT_IO_VCTXDIR && pt_iotab_vtd_sm(io_of(tree, node))))
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
			  const struct pt_ioloc *l, const struct pt_context **ctx)
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
				 const struct pt_ioloc *l)
{
	const struct pt_iommu_info *io = io_of(tree, node);
	uint64_t a = pt_io_a(node), x, y;
	const char *why = NULL;
	struct pt_smmu_ste ste;

	switch (pt_io_kind_of(node)) {
	case PT_IO_VROOTENT:
		if (!pt_iotab_vtd_ctab(tree, io, a, 0, &x, &why) && !why)
			pt_iotab_vtd_ctab(tree, io, a, 1, &x, &why);
		return why;
	case PT_IO_VDEVENT:
		pt_iotab_vtd_pdir(tree, io, a, &x, &y, &why);
		return why;
	case PT_IO_SL1ENT:
		pt_iotab_smmu_l2(tree, io, a, &x, &y, &why);
		return why;
	case PT_IO_SSTEENT:
		pt_smmu_ste(l->w, &ste);
		if (ste.v && ste.config == PT_SMMU_CFG_S1 && ste.s1cdmax > PT_IO_C_BITS)
			return "S1CDMax is above 20: cd/ shows SubstreamIDs below 2^20";
		if (ste.v && ste.config == PT_SMMU_CFG_S1 && ste.s1fmt == 3)
			return "S1Fmt 11 is reserved (IHI 0070 §5.2): its CD table is not read";
		return NULL;
	default:
		return NULL;
	}
}

pt_err pt_iotree_render(const struct pt_tree *tree, const struct pt_tnode *node, struct pt_buf *b,
			struct pt_readctl *rc)
{
	const struct pt_iommu_info *io = io_of(tree, node);
	const struct pt_context *ctx;
	const char *why;
	struct pt_ioloc l;

	if (io && io_own_file(node))
		return pt_io_kind_of(node) == PT_IO_INFO ? pt_tree_iommu_info(tree, node->choice, PT_OUT_TEXT, b) :
		       pt_tree_iommu_devices(tree, node->choice, PT_OUT_TEXT, b, rc);
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
		else if (pt_ioent_present(l.t, l.w) && (why = pt_ioent_translation(l.t, l.w)) &&
			 (!strcmp(why, "blocked") || !strcmp(why, "abort")))
			pt_buf_puts(b, "context: none (every request is refused: a context with"
				    " all_entries)\n");
		else if (pt_ioent_present(l.t, l.w))
			pt_buf_puts(b, "context: none (the load's warnings say why)\n");
		else
			pt_buf_puts(b, "context: none (not present)\n");
	}
	return b->oom ? PT_E_NOMEM : PT_OK;
}

void pt_tree_iommu_hide(struct pt_tree *tree, size_t i)
{
	if (i < 64)
		tree->io_hidden |= UINT64_C(1) << i;
}

size_t pt_tree_iommu_count(const struct pt_tree *tree)
{
	return tree->niommu;
}

void pt_tree_io_bits(const struct pt_tree *tree, size_t i, unsigned *abits, unsigned *cbits)
{
	const struct pt_iommu_info *io = &tree->io[i];

	io->fam->id_bits(io->reg, abits, cbits);
	if (*cbits > PT_IO_C_BITS)
		*cbits = PT_IO_C_BITS;
}
