/* SPDX-License-Identifier: MIT */
/*
 * tree.c — the tree of pt_tree.h, dispatched: each node's type belongs to
 * one subtree (a provider, struct pt_tprov of tree_int.h), and each call
 * goes to the provider of its node; the root asks every provider.  Here
 * too: the helpers the providers share (a context's nodes, its tables and
 * entries, a fixed listing).  No kind of node is known here but the root.
 *
 * Both front ends go through here, so the mount and `ptfs-tool export` show
 * the same tree by construction.  Every node is re-resolved from its path
 * on every call (pt_node_resolve(), pt_walk_va()); nothing is cached here:
 * caching is a front end's business (fs/ keeps the renders of capture,
 * info and maps for the life of the mount).
 */
#include <stdlib.h>
#include <string.h>

#include "pt_tree.h"
#include "tree_int.h"

/*
 * The subtrees, one line each, in the order the root lists them (a
 * provider with root_fixed names is looked up first: tree_int.h).
 */
static const struct pt_tprov *const providers[] = {
	&pt_tprov_capture,    /* capture (tree_files.c) */
	&pt_tprov_contexts,   /* CTX/ and everything below it but entries and vs/ (tree_ctx.c) */
	&pt_tprov_iommu,      /* an [iommu NAME]'s tables under NAME/ (iotree_prov.c) */
	&pt_tprov_alias,      /* another spelling of a device context: a link (tree_ctx.c) */
	&pt_tprov_pa,         /* pa/SPACE/ADDR (tree_pa.c) */
	&pt_tprov_tasks,      /* tasks: a Linux dump's processes (tree_files.c) */
	&pt_tprov_pci,        /* pci: the guest's PCI functions (tree_files.c) */
	&pt_tprov_entries,    /* CTX/entries (entries.c) */
	&pt_tprov_vs,         /* CTX/vs/OTHER (tree_files.c) */
};
#define NPROV (sizeof providers / sizeof providers[0])

/* The provider of a node of type T, or NULL (the root, or a forged type). */
static const struct pt_tprov *provider_of(enum pt_tnode_type t)
{
	if ((unsigned)t >= 64)
		return NULL;
	for (size_t i = 0; i < NPROV; i++)
		if (providers[i]->types & PT_TBIT(t))
			return providers[i];
	return NULL;
}

pt_err pt_tree_new(const struct pt_capture *cap, bool all_entries, struct pt_tree **out)
{
	struct pt_tree *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t)
		return PT_E_NOMEM;
	t->cap = cap;
	t->all_entries = all_entries;
	t->nctx = pt_capture_context_count(cap);
	t->nspaces = pt_capture_space_count(cap);
	for (size_t i = 0; i < NPROV; i++)
		if (providers[i]->init && providers[i]->init(t) != PT_OK) {
			pt_tree_free(t);
			return PT_E_NOMEM;
		}
	*out = t;
	return PT_OK;
}

void pt_tree_show_contexts(struct pt_tree *tree, size_t n)
{
	size_t have = pt_capture_context_count(tree->cap);

	/* never fewer (a node named stays valid), never past the capture's */
	if (n > have)
		n = have;
	if (n > pt_tree_nctx(tree))
		__atomic_store_n(&tree->nctx, n, __ATOMIC_RELEASE);
}

void pt_tree_free(struct pt_tree *tree)
{
	if (!tree)
		return;
	for (size_t i = 0; i < NPROV; i++)
		if (providers[i]->free)
			providers[i]->free(tree);
	free(tree);
}

void pt_tree_root(struct pt_tnode *out)
{
	memset(out, 0, sizeof(*out));
	out->type = PT_TN_ROOT;
}

enum pt_tkind pt_tree_kind(const struct pt_tnode *node)
{
	const struct pt_tprov *p = provider_of(node->type);

	if (node->type == PT_TN_ROOT || (p && (p->dirs & PT_TBIT(node->type))))
		return PT_TK_DIR;
	if (p && (p->links & PT_TBIT(node->type)))
		return PT_TK_LINK;
	return PT_TK_FILE;
}

bool pt_tree_render_scans(const struct pt_tnode *node)
{
	const struct pt_tprov *p = provider_of(node->type);

	return p && p->scans && p->scans(node);
}

const struct pt_context *pt_tree_context(const struct pt_tree *tree, const struct pt_tnode *node)
{
	const struct pt_tprov *p = provider_of(node->type);

	if (node->type == PT_TN_ROOT || (p && !p->per_context) || node->ctx >= pt_tree_nctx(tree))
		return NULL;
	return pt_capture_context(tree->cap, node->ctx);
}

/* A per-context node of type TYPE in context C. */
void pt_tree_ctx_node(const struct pt_tree *tree, unsigned c, enum pt_tnode_type type,
		      struct pt_tnode *out)
{
	memset(out, 0, sizeof(*out));
	out->type = type;
	out->ctx = c;
	out->node.ctx = pt_capture_context(tree->cap, c);
}

bool pt_tree_fixed_add(struct pt_tfixed *l, const char *name, const struct pt_tnode *child)
{
	uint64_t next = l->k + COOKIE_BASE;

	l->k++;
	if (l->stopped || next <= l->cookie)
		return !l->stopped;
	if (!l->fn(l->ud, name, child, next))
		l->stopped = true;
	return !l->stopped;
}

/* ---- resolving ---------------------------------------------------------- */

/* The level of the table a TABLEDIR shows, from its path alone. */
static int table_level_of(const struct pt_tnode *n)
{
	const struct pt_level *levels = n->node.ctx->fmt->levels;

	if (n->node.n == 0)
		return 0;
	return levels[n->node.s[n->node.n - 1].level].child[n->choice];
}

/*
 * Whether a TABLEDIR N may show a table of LEVEL: the level its path
 * implies, or, where a pointer may skip levels (pt_format.skips_levels),
 * any row below the pointer's (the entry, read anyway, says which).
 */
bool pt_tree_table_level_ok(const struct pt_tnode *n, int level)
{
	if (n->node.ctx->fmt->skips_levels && n->node.n > 0 && n->choice == 0)
		return level > n->node.s[n->node.n - 1].level;
	return level == table_level_of(n);
}

/* The table a TABLEDIR shows. */
pt_err pt_tree_get_table(const struct pt_tnode *n, struct pt_table *t)
{
	struct pt_loc loc;
	pt_err err;

	if (!n->node.ctx)
		return PT_E_NOTFOUND;
	if (n->node.n == 0) {
		pt_table_root(n->node.ctx, t);
		return PT_OK;
	}
	err = pt_node_resolve(&n->node, &loc);
	if (err != PT_OK)
		return err;
	if (n->choice > 1 || !pt_entry_is_dir(&loc.entry) ||
	    !pt_table_child(&loc.table, loc.index, &loc.entry, n->choice, t) ||
	    t->cover == PT_COVER_NONE || !pt_tree_table_level_ok(n, t->level))
		return PT_E_NOTFOUND;
	return PT_OK;
}

/* The entry of an ENTRYDIR (which must be a pointer) or ENTRYFILE. */
pt_err pt_tree_get_entry(const struct pt_tnode *n, struct pt_loc *loc)
{
	pt_err err;

	if (!n->node.ctx || n->node.n == 0)
		return PT_E_NOTFOUND;
	err = pt_node_resolve(&n->node, loc);
	if (err == PT_OK && n->type == PT_TN_ENTRYDIR && !pt_entry_is_dir(&loc->entry))
		return PT_E_NOTFOUND;
	return err;
}

/* Target WHICH of pointer LOC as a listed table (cover not NONE). */
bool pt_tree_child_table(const struct pt_loc *loc, unsigned which, struct pt_table *t)
{
	return pt_table_child(&loc->table, loc->index, &loc->entry, which, t) &&
	       t->cover != PT_COVER_NONE;
}

/* Entry INDEX (decoded as E) of table T below TABLEDIR DIR. */
void pt_tree_entry_node(const struct pt_tnode *dir, const struct pt_table *t, uint64_t index,
			const struct pt_entry *e, struct pt_tnode *out)
{
	*out = *dir;
	out->choice = 0;
	out->node.s[out->node.n].level = t->level;
	out->node.s[out->node.n].index = index;
	out->node.n++;
	out->type = pt_entry_is_dir(e) ? PT_TN_ENTRYDIR : PT_TN_ENTRYFILE;
}

/*
 * The next listed entry of T, decoded summary-only: a listing needs only
 * "captured, non-zero, directory or file" (the state), not the named
 * fields.
 */
bool pt_tree_next_summary(const struct pt_table *t, uint64_t *i, bool all_entries,
			  struct pt_entry *e, struct pt_readctl *rc)
{
	return pt_table_next(t, i, all_entries, PT_DECODE_SUMMARY, e, rc);
}

/* ---- the root, and the dispatch ------------------------------------------ */

static pt_err lookup_root(const struct pt_tree *tree, const char *name, struct pt_tnode *child)
{
	for (int fixed = 1; fixed >= 0; fixed--)
		for (size_t i = 0; i < NPROV; i++)
			if (providers[i]->root_fixed == fixed && providers[i]->root_lookup &&
			    providers[i]->root_lookup(tree, name, child))
				return PT_OK;
	return PT_E_NOTFOUND;
}

pt_err pt_tree_lookup(const struct pt_tree *tree, const struct pt_tnode *parent,
		      const char *name, struct pt_tnode *child)
{
	const struct pt_tprov *p;

	if (parent->type == PT_TN_ROOT)
		return lookup_root(tree, name, child);
	p = provider_of(parent->type);
	return p && p->lookup ? p->lookup(tree, parent, name, child) : PT_E_USAGE;
}

pt_err pt_tree_list(const struct pt_tree *tree, const struct pt_tnode *dir, uint64_t cookie,
		    pt_tree_list_fn fn, void *ud, struct pt_readctl *rc)
{
	struct pt_tfixed l = {fn, ud, cookie, 0, false};
	const struct pt_tprov *p;

	if (dir->type == PT_TN_ROOT) {
		for (size_t i = 0; i < NPROV; i++)
			if (providers[i]->root_list && !providers[i]->root_list(tree, &l))
				break;
		return PT_OK;
	}
	p = provider_of(dir->type);
	return p && p->list ? p->list(tree, dir, cookie, fn, ud, rc) : PT_E_USAGE;
}

pt_err pt_tree_parent(const struct pt_tree *tree, const struct pt_tnode *node,
		      struct pt_tnode *parent)
{
	const struct pt_tprov *p;

	if (node->type == PT_TN_ROOT) {
		pt_tree_root(parent);
		return PT_OK;
	}
	p = provider_of(node->type);
	return p && p->parent ? p->parent(tree, node, parent) : PT_E_NOTFOUND;
}

pt_err pt_tree_nlink(const struct pt_tree *tree, const struct pt_tnode *node, uint64_t *nlink,
		     struct pt_readctl *rc)
{
	const struct pt_tprov *p;

	*nlink = 1;
	if (node->type == PT_TN_ROOT) {
		*nlink = 2;
		for (size_t i = 0; i < NPROV; i++)
			if (providers[i]->root_dirs)
				*nlink += providers[i]->root_dirs(tree);
		return PT_OK;
	}
	p = provider_of(node->type);
	return p && p->nlink ? p->nlink(tree, node, nlink, rc) : PT_OK;
}

pt_err pt_tree_render(const struct pt_tree *tree, const struct pt_tnode *node, struct pt_buf *b,
		      struct pt_readctl *rc)
{
	const struct pt_tprov *p = provider_of(node->type);
	pt_err err;

	if (!p || !p->render)
		return PT_E_USAGE;
	err = p->render(tree, node, b, rc);
	if (err != PT_OK)
		return err;
	return b->oom ? PT_E_NOMEM : PT_OK;
}

pt_err pt_tree_readlink(const struct pt_tree *tree, const struct pt_tnode *node,
			char *buf, size_t len)
{
	const struct pt_tprov *p = provider_of(node->type);

	return p && p->readlink ? p->readlink(tree, node, buf, len) : PT_E_USAGE;
}

/* ---- inode numbers of the subtrees that number their own nodes ------------ */

pt_err pt_tree_ino_pack(const struct pt_tree *tree, const struct pt_tnode *node, unsigned room,
			uint64_t *bits)
{
	const struct pt_tprov *p = provider_of(node->type);

	if (!p || !p->ino_pack)
		return PT_E_USAGE;
	return tree ? p->ino_pack(tree, node, room, bits) : PT_E_NOTFOUND;
}

pt_err pt_tree_ino_unpack(const struct pt_tree *tree, uint64_t bits, unsigned room,
			  struct pt_tnode *node)
{
	for (size_t i = 0; tree && i < NPROV; i++)
		if (providers[i]->ino_unpack && providers[i]->ino_unpack(tree, bits, room, node) == PT_OK)
			return PT_OK;
	return PT_E_NOTFOUND;
}

pt_err pt_tree_ino_check(struct pt_tree *tree, unsigned room, size_t nctx, char *why, size_t whylen,
			 char *warn, size_t warnlen)
{
	if (warnlen)
		warn[0] = 0;
	for (size_t i = 0; tree && i < NPROV; i++) {
		pt_err err = providers[i]->ino_check ?
			     providers[i]->ino_check(tree, room, nctx, why, whylen, warn, warnlen) : PT_OK;

		if (err != PT_OK)
			return err;
	}
	return PT_OK;
}
