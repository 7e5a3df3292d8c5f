/* SPDX-License-Identifier: MIT */
/*
 * tree_int.h — what the two halves of the tree share (core/view only):
 * tree.c resolves names, parents, sizes and contents; tree_list.c lists
 * directories.  The struct is private to them; everyone else sees the
 * opaque struct pt_tree of pt_tree.h.
 */
#ifndef PT_TREE_INT_H
#define PT_TREE_INT_H

#include "pt_ioent.h"
#include "pt_tree.h"

/* The first cookie of a child: 1 and 2 are the caller's "." and "..". */
#define COOKIE_BASE 3

struct pt_tree {
	const struct pt_capture *cap;
	bool all_entries;
	size_t nctx;
	/* pa/: the reverse index, empty until the first pa/ lookup builds it */
	struct pt_pa_index *pa;
	/* the capture format's spaces (pa/ lists them); 0 without a format */
	unsigned nspaces;
	/* the [iommu] sections (iotree.c), and their device contexts sorted by origin */
	size_t niommu;
	struct pt_iommu_info *io;
	uint64_t io_hidden;   /* bit I: IOMMU I is left out of the root (pt_tree_iommu_hide()) */
	struct pt_iokey *iokeys;
	size_t niokeys;
};

/* A device context by where it came from (iotree.c). */
struct pt_iokey {
	uint64_t key;
	const struct pt_context *ctx;
};

/* iotree.c: the IOMMU tree (PT_TN_IODIR, PT_TN_IOFILE). */
pt_err pt_iotree_init(struct pt_tree *tree);
void pt_iotree_free(struct pt_tree *tree);
/* The root's child NAME when it is an [iommu] section's. */
bool pt_iotree_root(const struct pt_tree *tree, const char *name, struct pt_tnode *child);
pt_err pt_iotree_lookup(const struct pt_tree *tree, const struct pt_tnode *parent,
			const char *name, struct pt_tnode *child);
pt_err pt_iotree_list(const struct pt_tree *tree, const struct pt_tnode *dir, uint64_t cookie,
		      pt_tree_list_fn fn, void *ud, struct pt_readctl *rc);
pt_err pt_iotree_parent(const struct pt_tree *tree, const struct pt_tnode *node,
			struct pt_tnode *parent);
pt_err pt_iotree_nlink(const struct pt_tree *tree, const struct pt_tnode *node, uint64_t *nlink);
pt_err pt_iotree_render(const struct pt_tree *tree, const struct pt_tnode *node, struct pt_buf *b,
			struct pt_readctl *rc);

/* A per-context node of type TYPE in context C. */
void pt_tree_ctx_node(const struct pt_tree *tree, unsigned c, enum pt_tnode_type type,
		      struct pt_tnode *out);
/* The table a TABLEDIR shows (PT_E_NOTFOUND when its path no longer leads to one). */
pt_err pt_tree_get_table(const struct pt_tnode *n, struct pt_table *t);
/* The entry of an ENTRYDIR (which must be a pointer) or ENTRYFILE. */
pt_err pt_tree_get_entry(const struct pt_tnode *n, struct pt_loc *loc);
/* Target WHICH of pointer LOC as a listed table (cover not NONE). */
bool pt_tree_child_table(const struct pt_loc *loc, unsigned which, struct pt_table *t);
/* Entry INDEX (decoded as E) of table T below TABLEDIR DIR. */
void pt_tree_entry_node(const struct pt_tnode *dir, const struct pt_table *t, uint64_t index,
			const struct pt_entry *e, struct pt_tnode *out);
/* The next listed entry of T, decoded summary-only (the state is all a listing needs). */
bool pt_tree_next_summary(const struct pt_table *t, uint64_t *i, bool all_entries,
			  struct pt_entry *e, struct pt_readctl *rc);

/* An entry of an IOMMU table: its type, where it is, its words (iotab.c). */
struct pt_ioloc {
	enum pt_ioent_type t;
	uint64_t addr;
	uint64_t w[PT_IOENT_MAX_WORDS];
};
bool pt_iotab_rd(const struct pt_tree *tree, const struct pt_iommu_info *io,
		enum pt_ioent_type t, uint64_t addr, struct pt_ioloc *l);
uint64_t pt_iotab_vtd_root(const struct pt_iommu_info *io);
bool pt_iotab_vtd_sm(const struct pt_iommu_info *io);
bool pt_iotab_vtd_rootent(const struct pt_tree *tree, const struct pt_iommu_info *io,
		uint64_t bus, struct pt_ioloc *l);
bool pt_iotab_vtd_ctab(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t bus,
		unsigned half, uint64_t *ptr, const char **why);
bool pt_iotab_vtd_ctxent(const struct pt_tree *tree, const struct pt_iommu_info *io,
		uint64_t bdf, struct pt_ioloc *l);
bool pt_iotab_vtd_pdir(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t bdf,
		uint64_t *dir, uint64_t *n, const char **why);
bool pt_iotab_vtd_pasident(const struct pt_tree *tree, const struct pt_iommu_info *io,
		uint64_t bdf, uint64_t pasid, struct pt_ioloc *l);
uint64_t pt_iotab_amd_n(const struct pt_iommu_info *io);
bool pt_iotab_amd_dte(const struct pt_tree *tree, const struct pt_iommu_info *io,
		uint64_t devid, struct pt_ioloc *l);
unsigned pt_iotab_smmu_log2(const struct pt_iommu_info *io);
unsigned pt_iotab_smmu_split(const struct pt_iommu_info *io);
bool pt_iotab_smmu_two(const struct pt_iommu_info *io);
uint64_t pt_iotab_smmu_base(const struct pt_iommu_info *io);
uint64_t pt_iotab_smmu_nl1(const struct pt_iommu_info *io);
bool pt_iotab_smmu_l1(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t n,
		struct pt_ioloc *l);
bool pt_iotab_smmu_l2(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t n,
		uint64_t *l2, uint64_t *cnt, const char **why);
bool pt_iotab_smmu_ste(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t sid,
		struct pt_ioloc *l);
bool pt_iotab_smmu_cdtab(const struct pt_tree *tree, const struct pt_iommu_info *io,
		uint64_t sid, struct pt_ioloc *ste, uint64_t *n);
bool pt_iotab_smmu_cd(const struct pt_tree *tree, const struct pt_iommu_info *io, uint64_t sid,
		uint64_t ssid, struct pt_ioloc *l);

#endif
