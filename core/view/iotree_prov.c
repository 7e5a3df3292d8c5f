/* SPDX-License-Identifier: MIT */
/*
 * iotree_prov.c — the IOMMU trees as a subtree of the tree (struct
 * pt_tprov, tree_int.h): one directory NAME/ at the root per [iommu NAME]
 * section, whose names, listings and files are iotree.c's; and the inode
 * numbers of its nodes (pt_tree_ino_pack(), pt_tree.h), which a front end
 * gives ROOM bits (fs/ino.c: those below its context field, set all ones
 * there).  A node is packed from bit 0 up:
 *
 *     c (cbits) | a (abits) | kind (5, enum pt_io_kind) | iommu (bits_for(niommu - 1))
 *
 * where pt_tree_io_bits() gives the IOMMU's widths: VT-d a 16 (requester
 * ID, or bus), c 20 in scalable mode (PASID) else 0; AMD-Vi a 16
 * (DeviceID); SMMUv3 a LOG2SIZE (StreamID, or L1 index), c 20 (SSID).  At
 * most 64 [iommu] sections; pt_tree_ino_check() leaves out of the root
 * (with a warning) the tree of an IOMMU whose fields do not fit ROOM (a
 * VT-d scalable-mode IOMMU needs 41 + index bits: 65,536 device contexts
 * leave 47; an SMMUv3 of 2^32 StreamIDs 57).  Unpacking re-packs and
 * compares, so each node has exactly one number.
 */
#include <stdio.h>
#include <string.h>

#include "pt_tree.h"
#include "tree_int.h"

#define MAX_IOMMU 64u      /* [iommu] sections: their index in at most 6 bits */
#define IO_KIND_BITS 5
_Static_assert(PT_IO__COUNT <= (1u << IO_KIND_BITS), "an IOMMU node's kind fits its code");

static bool root_list(const struct pt_tree *tree, struct pt_tfixed *l)
{
	struct pt_tnode n;

	for (size_t i = 0; i < tree->niommu; i++) {
		if (!pt_iotree_root(tree, tree->io[i].name, &n))
			continue;   /* left out (pt_tree_iommu_hide()) */
		if (!pt_tree_fixed_add(l, tree->io[i].name, &n))
			return false;
	}
	return true;
}

static uint64_t root_dirs(const struct pt_tree *tree)
{
	return tree->niommu - (size_t)__builtin_popcountll(tree->io_hidden);
}

static bool io_scans(const struct pt_tnode *node)
{
	return node->type == PT_TN_IOFILE && pt_io_kind_of(node) == PT_IO_DEVICES;
}

static pt_err io_lookup(const struct pt_tree *tree, const struct pt_tnode *parent,
			const char *name, struct pt_tnode *child)
{
	return parent->type == PT_TN_IODIR ? pt_iotree_lookup(tree, parent, name, child) : PT_E_USAGE;
}

static pt_err io_list(const struct pt_tree *tree, const struct pt_tnode *dir, uint64_t cookie,
		      pt_tree_list_fn fn, void *ud, struct pt_readctl *rc)
{
	return dir->type == PT_TN_IODIR ? pt_iotree_list(tree, dir, cookie, fn, ud, rc) : PT_E_USAGE;
}

static pt_err io_nlink(const struct pt_tree *tree, const struct pt_tnode *node, uint64_t *nlink,
		       struct pt_readctl *rc)
{
	(void)rc;
	return pt_iotree_nlink(tree, node, nlink);
}

static pt_err io_render(const struct pt_tree *tree, const struct pt_tnode *node, struct pt_buf *b,
			struct pt_readctl *rc)
{
	return node->type == PT_TN_IOFILE ? pt_iotree_render(tree, node, b, rc) : PT_E_USAGE;
}

/* ---- inode numbers ---------------------------------------------------------- */

static unsigned bits_for(uint64_t v)
{
	return v ? 64u - (unsigned)__builtin_clzll(v) : 0;
}

/* The width of IOMMU I's node number: its index, kind, A and C (see the header). */
static unsigned io_bits(const struct pt_tree *tree, size_t i, unsigned *abits, unsigned *cbits)
{
	pt_tree_io_bits(tree, i, abits, cbits);
	return bits_for(tree->niommu - 1) + IO_KIND_BITS + *abits + *cbits;
}

/* Whether an IOMMU node of KIND is a file (the rest are directories). */
static bool io_file_kind(unsigned kind)
{
	return kind == PT_IO_VROOTENT || kind == PT_IO_VCTX || kind == PT_IO_VDEVENT ||
	       kind == PT_IO_VPASID || kind == PT_IO_ADTE || kind == PT_IO_SL1ENT ||
	       kind == PT_IO_SSTEENT || kind == PT_IO_SCD || kind == PT_IO_DEVICES || kind == PT_IO_INFO;
}

static pt_err io_pack(const struct pt_tree *tree, const struct pt_tnode *id, unsigned room,
		      uint64_t *bits)
{
	unsigned a, c, kind = pt_io_kind_of(id);
	uint64_t rest;

	if (id->choice >= tree->niommu || kind >= PT_IO__COUNT ||
	    (id->type == PT_TN_IODIR) == io_file_kind(kind) ||
	    io_bits(tree, id->choice, &a, &c) > room || id->va >> PT_IO_KIND_SHIFT != kind ||
	    (id->va >> PT_IO_C_SHIFT & ((UINT64_C(1) << (PT_IO_KIND_SHIFT - PT_IO_C_SHIFT)) - 1)) >> c ||
	    (id->va & 0xffffffffu) >> a)
		return PT_E_NOTFOUND;
	rest = (uint64_t)id->choice;
	rest = rest << IO_KIND_BITS | kind;
	rest = rest << a | pt_io_a(id);
	rest = rest << c | pt_io_c(id);
	*bits = rest;
	return PT_OK;
}

static pt_err io_unpack(const struct pt_tree *tree, uint64_t rest, unsigned room,
			struct pt_tnode *id)
{
	size_t n = tree->niommu;
	unsigned a, c, ibits;
	uint64_t av, cv, kind, again;

	if (!n)
		return PT_E_NOTFOUND;
	ibits = bits_for(n - 1);
	/* the widths depend on the IOMMU: try each index the top bits can name (at most 64) */
	for (size_t i = 0; i < n; i++) {
		unsigned total = io_bits(tree, i, &a, &c);

		if (total > room || rest >> (total - ibits) >> ibits != 0 ||
		    rest >> (total - ibits) != i)
			continue;
		cv = rest & ((UINT64_C(1) << c) - 1);
		av = (rest >> c) & ((UINT64_C(1) << a) - 1);
		kind = (rest >> (c + a)) & ((1u << IO_KIND_BITS) - 1);
		if (kind >= PT_IO__COUNT)
			return PT_E_NOTFOUND;
		memset(id, 0, sizeof *id);
		id->choice = (unsigned)i;
		id->va = pt_io_pack((unsigned)kind, av, cv);
		id->type = PT_TN_IODIR;
		if (io_pack(tree, id, room, &again) != PT_OK || again != rest)
			id->type = PT_TN_IOFILE;
		return io_pack(tree, id, room, &again) == PT_OK && again == rest ? PT_OK : PT_E_NOTFOUND;
	}
	return PT_E_NOTFOUND;
}

static pt_err io_check(struct pt_tree *tree, unsigned room, size_t nctx, char *why, size_t whylen,
		       char *warn, size_t warnlen)
{
	size_t n = tree->niommu;
	unsigned a, c;

	if (n > MAX_IOMMU) {
		snprintf(why, whylen, "more than %u [iommu] sections (%zu): the inode scheme numbers the"
			 " trees of at most %u", MAX_IOMMU, n, MAX_IOMMU);
		return PT_E_UNSUPPORTED;
	}
	for (size_t i = 0; i < n; i++)
		if (io_bits(tree, i, &a, &c) > room) {
			const struct pt_iommu_info *io = &tree->io[i];

			snprintf(warn, warnlen, "capture.ini:%u: [iommu %s]: its tree needs %u inode bits"
				 " and %zu contexts leave %u: %s/ is left out of the mount (its device"
				 " contexts are there; ptfs-tool export shows the tree)", io->line, io->name,
				 io_bits(tree, i, &a, &c), nctx, room, io->name);
			pt_tree_iommu_hide(tree, i);
		}
	return PT_OK;
}

const struct pt_tprov pt_tprov_iommu = {
	.name = "iommu",
	.types = PT_TBIT(PT_TN_IODIR) | PT_TBIT(PT_TN_IOFILE),
	.dirs = PT_TBIT(PT_TN_IODIR),
	.init = pt_iotree_init,
	.free = pt_iotree_free,
	.root_lookup = pt_iotree_root,
	.root_list = root_list,
	.root_dirs = root_dirs,
	.scans = io_scans,
	.lookup = io_lookup,
	.list = io_list,
	.parent = pt_iotree_parent,
	.nlink = io_nlink,
	.render = io_render,
	.ino_pack = io_pack,
	.ino_unpack = io_unpack,
	.ino_check = io_check,
};
