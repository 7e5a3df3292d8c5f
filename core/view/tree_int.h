/* SPDX-License-Identifier: MIT */
/*
 * tree_int.h — what the tree and its subtrees share (core/view only):
 * tree.c dispatches each call of pt_tree.h to the subtree (a provider,
 * struct pt_tprov below) that owns the node's type, and answers the root
 * by asking every provider; the providers are the contexts (tree_ctx.c,
 * tree_list.c), their aliases, `entries` (entries.c), `vs/`, `capture`
 * and `tasks` (tree_files.c), `pa/` (tree_pa.c) and the IOMMU trees
 * (iotree_prov.c over iotree.c).  The struct is private to them; everyone
 * else sees the opaque struct pt_tree of pt_tree.h.
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
	/* the contexts shown: the capture's at creation, more once the front end says (atomic; pt_tree_nctx()) */
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

/* How many of the capture's contexts the tree shows (a live guest's grow: pt_tree_show_contexts()). */
static inline size_t pt_tree_nctx(const struct pt_tree *tree)
{
	return __atomic_load_n(&tree->nctx, __ATOMIC_ACQUIRE);
}

/* A fixed list in progress: child k has cookie k + COOKIE_BASE. */
struct pt_tfixed {
	pt_tree_list_fn fn;
	void *ud;
	uint64_t cookie;
	uint64_t k;
	bool stopped;
};
/* Offers one child of a fixed list; false once the callback stopped. */
bool pt_tree_fixed_add(struct pt_tfixed *l, const char *name, const struct pt_tnode *child);

#define PT_TBIT(t) (UINT64_C(1) << (t))

/*
 * A subtree of the tree (HACKING.md, "Adding a subtree"): the node types
 * it owns and what the tree asks of them.  A NULL op gives pt_tree.h's
 * answer for a node that has none (lookup, list, render, readlink:
 * PT_E_USAGE; parent: PT_E_NOTFOUND; nlink: 1).  At the root, tree.c
 * looks a name up in the providers with root_fixed (fixed words: `capture`,
 * `pa`, `tasks`) first, then in the others, each in the order of the table
 * in tree.c, and lists them in that order.
 */
struct pt_tprov {
	const char *name;
	uint64_t types;         /* PT_TBIT() of each node type it owns */
	uint64_t dirs, links;   /* which of them are directories, links (the rest: files) */
	bool per_context;       /* its nodes are a context's (pt_tree_context()) */
	bool root_fixed;        /* its root names are fixed words, looked up before contexts' */
	pt_err (*init)(struct pt_tree *tree);
	void (*free)(struct pt_tree *tree);
	/* its child NAME of the root */
	bool (*root_lookup)(const struct pt_tree *tree, const char *name, struct pt_tnode *child);
	/* its children of the root; false when the listing stopped */
	bool (*root_list)(const struct pt_tree *tree, struct pt_tfixed *l);
	/* how many directories it adds to the root (st_nlink) */
	uint64_t (*root_dirs)(const struct pt_tree *tree);
	/* pt_tree_render_scans() */
	bool (*scans)(const struct pt_tnode *node);
	pt_err (*lookup)(const struct pt_tree *tree, const struct pt_tnode *parent, const char *name,
			 struct pt_tnode *child);
	pt_err (*list)(const struct pt_tree *tree, const struct pt_tnode *dir, uint64_t cookie,
		       pt_tree_list_fn fn, void *ud, struct pt_readctl *rc);
	pt_err (*parent)(const struct pt_tree *tree, const struct pt_tnode *node, struct pt_tnode *parent);
	pt_err (*nlink)(const struct pt_tree *tree, const struct pt_tnode *node, uint64_t *nlink,
			struct pt_readctl *rc);
	pt_err (*render)(const struct pt_tree *tree, const struct pt_tnode *node, struct pt_buf *b,
			 struct pt_readctl *rc);
	pt_err (*readlink)(const struct pt_tree *tree, const struct pt_tnode *node, char *buf, size_t len);
	/* inode numbers of a subtree that numbers its own nodes (pt_tree_ino_pack(), pt_tree.h) */
	pt_err (*ino_pack)(const struct pt_tree *tree, const struct pt_tnode *node, unsigned room,
			   uint64_t *bits);
	pt_err (*ino_unpack)(const struct pt_tree *tree, uint64_t bits, unsigned room,
			     struct pt_tnode *node);
	pt_err (*ino_check)(struct pt_tree *tree, unsigned room, size_t nctx, char *why, size_t whylen,
			    char *warn, size_t warnlen);
};

extern const struct pt_tprov pt_tprov_capture, pt_tprov_contexts, pt_tprov_iommu, pt_tprov_alias,
	pt_tprov_pa, pt_tprov_tasks, pt_tprov_pci, pt_tprov_entries, pt_tprov_vs;

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
/*
 * The widths of IOMMU I's node numbers: A below 2^*ABITS, C below 2^*CBITS
 * (iotree_prov.c packs them; 0 bits: always 0).
 */
void pt_tree_io_bits(const struct pt_tree *tree, size_t i, unsigned *abits, unsigned *cbits);
/*
 * Leaves IOMMU I's directory out of the root (I below 64): its nodes cannot
 * be numbered (iotree_prov.c, an SMMUv3 of 2^32 StreamIDs); the IOMMU's
 * device contexts stay.
 */
void pt_tree_iommu_hide(struct pt_tree *tree, size_t i);

/* A per-context node of type TYPE in context C. */
void pt_tree_ctx_node(const struct pt_tree *tree, unsigned c, enum pt_tnode_type type,
		      struct pt_tnode *out);
/* Whether TABLEDIR N may show a table of LEVEL (tree.c). */
bool pt_tree_table_level_ok(const struct pt_tnode *n, int level);
/* The listings of the contexts' subtree (tree_list.c). */
pt_err pt_tree_ctx_list(const struct pt_tree *tree, const struct pt_tnode *dir, uint64_t cookie,
			pt_tree_list_fn fn, void *ud, struct pt_readctl *rc);
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
/* Whether a node of KIND (enum pt_io_kind) may be below IO's NAME/ (its IOMMU's, or any's). */
bool pt_iotab_kind_ok(const struct pt_iommu_info *io, unsigned kind);
/* IO's one table directory below NAME/ (root/, dte/, ste/ or l1/): its kind, *NAME. */
unsigned pt_iotab_top(const struct pt_iommu_info *io, const char **name);
/* Device context O's entry: its translation, and domain, ASID or VMID (*KEY NULL: none). */
void pt_iotab_dev_entry(const struct pt_tree *tree, const struct pt_iommu_info *io,
			const struct pt_ctx_iommu *o, const char **translation, const char **key,
			uint64_t *domain);
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
