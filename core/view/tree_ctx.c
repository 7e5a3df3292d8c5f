/* SPDX-License-Identifier: MIT */
/*
 * tree_ctx.c — the contexts' subtree (struct pt_tprov, tree_int.h): CTX/
 * with its info, maps, map.svg, va/ and walk/, the root table and below it
 * one directory per table and per pointer entry, one file per entry; and
 * the links another spelling of a device context's name is (the alias
 * provider).  Names, parents, sizes, contents and links are here; the
 * listings are tree_list.c's; CTX/entries and CTX/vs/ are subtrees of their
 * own (entries.c, tree_files.c).
 */
#include <stdio.h>
#include <string.h>

#include "pt_num.h"
#include "pt_svg.h"
#include "pt_tree.h"
#include "tree_int.h"

/* A table with more entries than this reports st_nlink 1 ("unknown", as btrfs
 * does) instead of decoding every entry to count its subdirectories. */
#define NLINK_SCAN_MAX 4096

/* ---- the root's contexts ------------------------------------------------ */

static bool root_lookup(const struct pt_tree *tree, const char *name, struct pt_tnode *child)
{
	const struct pt_context *ctx = pt_capture_context_find(tree->cap, name);

	for (size_t i = 0; ctx && i < pt_tree_nctx(tree); i++) {
		if (pt_capture_context(tree->cap, i) == ctx) {
			pt_tree_ctx_node(tree, (unsigned)i, PT_TN_CTXDIR, child);
			return true;
		}
	}
	return false;
}

static bool root_list(const struct pt_tree *tree, struct pt_tfixed *l)
{
	struct pt_tnode n;

	for (size_t i = 0; i < pt_tree_nctx(tree); i++) {
		/* a live process gone since a refresh is no longer listed (pt_context_gone()) */
		if (pt_context_gone(pt_capture_context(tree->cap, i)))
			continue;
		pt_tree_ctx_node(tree, (unsigned)i, PT_TN_CTXDIR, &n);
		if (!pt_tree_fixed_add(l, pt_capture_context(tree->cap, i)->name, &n))
			return false;
	}
	return true;
}

static uint64_t root_dirs(const struct pt_tree *tree)
{
	uint64_t n = 0;

	for (size_t i = 0; i < pt_tree_nctx(tree); i++)
		n += !pt_context_gone(pt_capture_context(tree->cap, i));
	return n;
}

/* ---- lookup ------------------------------------------------------------- */

/* A decimal entry index as listed: digits only, no sign, no leading zero. */
static bool parse_index(const char *s, uint64_t *out)
{
	return pt_num_parse(s, PT_NUM_DEC, out);
}

static pt_err lookup_ctxdir(const struct pt_tree *tree, const struct pt_tnode *parent,
			    const char *name, struct pt_tnode *child)
{
	static const struct {
		const char *name;
		enum pt_tnode_type type;
	} fixed[] = {
		{"info", PT_TN_INFO}, {"maps", PT_TN_MAPS}, {"entries", PT_TN_ENTRIES},
		{"map.svg", PT_TN_SVG},
		{"va", PT_TN_VADIR}, {"walk", PT_TN_WALKDIR}, {"vs", PT_TN_VSDIR},
	};
	const struct pt_context *ctx = pt_tree_context(tree, parent);

	if (!ctx)
		return PT_E_NOTFOUND;
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		if (strcmp(name, fixed[i].name) == 0) {
			pt_tree_ctx_node(tree, parent->ctx, fixed[i].type, child);
			return PT_OK;
		}
	}
	if (strcmp(name, ctx->fmt->levels[0].name) == 0) {
		pt_tree_ctx_node(tree, parent->ctx, PT_TN_TABLEDIR, child);   /* the root table: empty path */
		return PT_OK;
	}
	return PT_E_NOTFOUND;
}

static pt_err lookup_table(const struct pt_tnode *parent, const char *name, struct pt_tnode *child)
{
	struct pt_table t;
	struct pt_entry e;
	uint64_t index;
	pt_err err;

	if (!parse_index(name, &index) || parent->node.n >= PT_MAX_DEPTH)
		return PT_E_NOTFOUND;
	err = pt_tree_get_table(parent, &t);
	if (err != PT_OK)
		return err;
	if (index >= t.entries || !pt_table_read(&t, index, &e))
		return PT_E_NOTFOUND;   /* past the table, or not captured */
	pt_tree_entry_node(parent, &t, index, &e, child);
	return PT_OK;
}

static pt_err lookup_entrydir(const struct pt_tnode *parent, const char *name,
			      struct pt_tnode *child)
{
	const struct pt_level *levels;
	struct pt_loc loc;
	struct pt_table t;
	pt_err err = pt_tree_get_entry(parent, &loc);

	if (err != PT_OK)
		return err;
	levels = parent->node.ctx->fmt->levels;
	*child = *parent;
	if (strcmp(name, "entry") == 0) {
		child->type = PT_TN_ENTRYFILE;
		return PT_OK;
	}
	for (unsigned which = 0; which < 2; which++) {
		if (pt_tree_child_table(&loc, which, &t) && strcmp(levels[t.level].name, name) == 0) {
			child->type = PT_TN_TABLEDIR;
			child->choice = which;
			/* a path names target WHICH as child level WHICH: a format must agree */
			if (!pt_tree_table_level_ok(child, t.level))
				return PT_E_CAPTURE;
			return PT_OK;
		}
	}
	return PT_E_NOTFOUND;
}

static pt_err lookup_va(const struct pt_tree *tree, const struct pt_tnode *parent,
			const char *name, struct pt_tnode *child)
{
	const struct pt_context *ctx = pt_tree_context(tree, parent);
	struct pt_walk w;
	uint64_t va;

	if (!ctx || !pt_va_parse(name, &va) || !pt_va_in_space(ctx->fmt, va))
		return PT_E_NOTFOUND;
	pt_walk_va(ctx, va, &w);
	if (!pt_walk_has_leaf(&w))
		return PT_E_NOTFOUND;   /* not mapped (the walk/ file says why) */
	pt_tree_ctx_node(tree, parent->ctx, PT_TN_VALINK, child);
	child->va = w.page_va;   /* any VA in the page names the page's link */
	child->node = w.node;
	return PT_OK;
}

static pt_err ctx_lookup(const struct pt_tree *tree, const struct pt_tnode *parent,
			 const char *name, struct pt_tnode *child)
{
	uint64_t va;

	switch (parent->type) {
	case PT_TN_CTXDIR:
		return lookup_ctxdir(tree, parent, name, child);
	case PT_TN_TABLEDIR:
		return lookup_table(parent, name, child);
	case PT_TN_ENTRYDIR:
		return lookup_entrydir(parent, name, child);
	case PT_TN_VADIR:
		return lookup_va(tree, parent, name, child);
	case PT_TN_WALKDIR:
		if (!pt_tree_context(tree, parent) || !pt_va_parse(name, &va))
			return PT_E_NOTFOUND;
		pt_tree_ctx_node(tree, parent->ctx, PT_TN_WALKFILE, child);
		child->va = va;
		return PT_OK;
	default:
		return PT_E_USAGE;
	}
}

/* ---- parents, sizes, contents, links ------------------------------------ */

static pt_err ctx_parent(const struct pt_tree *tree, const struct pt_tnode *node,
			 struct pt_tnode *parent)
{
	const struct pt_level *levels;
	struct pt_loc loc;
	unsigned n;
	pt_err err;

	switch (node->type) {
	case PT_TN_CTXDIR:
		pt_tree_root(parent);
		return PT_OK;
	case PT_TN_INFO:
	case PT_TN_MAPS:
	case PT_TN_SVG:
	case PT_TN_VADIR:
	case PT_TN_WALKDIR:
	case PT_TN_VALINK:
	case PT_TN_WALKFILE:
		if (!pt_tree_context(tree, node))
			return PT_E_NOTFOUND;
		pt_tree_ctx_node(tree, node->ctx,
			 node->type == PT_TN_VALINK ? PT_TN_VADIR :
			 node->type == PT_TN_WALKFILE ? PT_TN_WALKDIR : PT_TN_CTXDIR, parent);
		return PT_OK;
	case PT_TN_TABLEDIR:
		if (node->node.n == 0) {
			if (!pt_tree_context(tree, node))
				return PT_E_NOTFOUND;
			pt_tree_ctx_node(tree, node->ctx, PT_TN_CTXDIR, parent);
			return PT_OK;
		}
		*parent = *node;
		parent->type = PT_TN_ENTRYDIR;
		parent->choice = 0;
		return PT_OK;
	case PT_TN_ENTRYFILE:
		/* a pointer's `entry` sits in its directory, a leaf in its table */
		err = pt_tree_get_entry(node, &loc);
		if (err != PT_OK)
			return err;
		if (pt_entry_is_dir(&loc.entry)) {
			*parent = *node;
			parent->type = PT_TN_ENTRYDIR;
			return PT_OK;
		}
		__attribute__((fallthrough));   /* a leaf: its parent is its table, as below */
	case PT_TN_ENTRYDIR:
		if (!node->node.ctx || node->node.n == 0)
			return PT_E_NOTFOUND;
		levels = node->node.ctx->fmt->levels;
		n = node->node.n;
		*parent = *node;
		parent->type = PT_TN_TABLEDIR;
		parent->node.n = n - 1;
		parent->choice = 0;
		if (n >= 2 && levels[node->node.s[n - 2].level].child[1] == node->node.s[n - 1].level)
			parent->choice = 1;
		return PT_OK;
	default:
		return PT_E_NOTFOUND;
	}
}

/* st_nlink of a table directory: 2 + its pointer entries (or 1 when too big to count). */
static uint64_t table_nlink(const struct pt_table *t, struct pt_readctl *rc)
{
	const struct pt_level *l = &t->ctx->fmt->levels[t->level];
	struct pt_entry e;
	uint64_t i = 0, n = 2;

	if (l->role == PT_ROLE_LEAF)
		return 2;   /* leaves only: no subdirectories */
	if (t->entries > NLINK_SCAN_MAX)
		return 1;
	while (i < t->entries && pt_tree_next_summary(t, &i, false, &e, rc)) {
		if (pt_entry_is_dir(&e))
			n++;
		i++;
	}
	return n;
}

static pt_err ctx_nlink(const struct pt_tree *tree, const struct pt_tnode *node, uint64_t *nlink,
			struct pt_readctl *rc)
{
	struct pt_table t;
	struct pt_loc loc;
	pt_err err;

	(void)tree;
	switch (node->type) {
	case PT_TN_CTXDIR:
		*nlink = 2 + 4;   /* root table, va/, walk/, vs/ */
		return PT_OK;
	case PT_TN_VADIR:
	case PT_TN_WALKDIR:
		*nlink = 2;
		return PT_OK;
	case PT_TN_TABLEDIR:
		err = pt_tree_get_table(node, &t);
		if (err == PT_OK) {
			pt_table_direct(&t);
			*nlink = table_nlink(&t, rc);
		}
		return err;
	case PT_TN_ENTRYDIR:
		err = pt_tree_get_entry(node, &loc);
		if (err != PT_OK)
			return err;
		*nlink = 2;
		for (unsigned which = 0; which < 2; which++)
			if (pt_tree_child_table(&loc, which, &t))
				(*nlink)++;
		return PT_OK;
	default:
		return PT_OK;
	}
}

static pt_err ctx_render(const struct pt_tree *tree, const struct pt_tnode *node, struct pt_buf *b,
			 struct pt_readctl *rc)
{
	const struct pt_context *ctx = pt_tree_context(tree, node);
	struct pt_loc loc;
	struct pt_walk w;
	pt_err err;

	switch (node->type) {
	case PT_TN_INFO:
	case PT_TN_MAPS:
		if (!ctx)
			return PT_E_NOTFOUND;
		return node->type == PT_TN_INFO ? pt_render_info(b, ctx, PT_OUT_TEXT, rc)
						: pt_render_maps(b, ctx, PT_OUT_TEXT, rc);
	case PT_TN_SVG:
		if (!ctx)
			return PT_E_NOTFOUND;
		return pt_render_svg(b, ctx, rc);
	case PT_TN_ENTRYFILE:
		err = pt_tree_get_entry(node, &loc);
		if (err == PT_OK)
			err = pt_render_entry(b, &loc.table, loc.index, &loc.entry, PT_OUT_TEXT);
		return err;
	case PT_TN_WALKFILE:
		if (!ctx)
			return PT_E_NOTFOUND;
		pt_walk_va(ctx, node->va, &w);
		return pt_render_walk(b, ctx, &w, PT_OUT_TEXT);
	default:
		return PT_E_USAGE;
	}
}

static pt_err ctx_readlink(const struct pt_tree *tree, const struct pt_tnode *node,
			   char *buf, size_t len)
{
	const struct pt_context *ctx = pt_tree_context(tree, node);
	const struct pt_node *leaf = &node->node;
	struct pt_walk w;
	int n;

	if (node->type != PT_TN_VALINK)
		return PT_E_USAGE;
	if (!ctx)
		return PT_E_NOTFOUND;
	if (leaf->n == 0) {
		pt_walk_va(ctx, node->va, &w);
		if (!pt_walk_has_leaf(&w) || w.page_va != node->va)
			return PT_E_NOTFOUND;
		leaf = &w.node;
	}
	if (len < 4)
		return PT_E_TRUNCATED;
	memcpy(buf, "../", 3);
	n = pt_node_path(leaf, buf + 3, len - 3);
	if (n < 0 || (size_t)n >= len - 3)
		return PT_E_TRUNCATED;
	return PT_OK;
}

static bool ctx_scans(const struct pt_tnode *node)
{
	return node->type == PT_TN_INFO || node->type == PT_TN_MAPS || node->type == PT_TN_SVG;
}

const struct pt_tprov pt_tprov_contexts = {
	.name = "contexts",
	.types = PT_TBIT(PT_TN_CTXDIR) | PT_TBIT(PT_TN_INFO) | PT_TBIT(PT_TN_MAPS) |
		 PT_TBIT(PT_TN_VADIR) | PT_TBIT(PT_TN_WALKDIR) | PT_TBIT(PT_TN_TABLEDIR) |
		 PT_TBIT(PT_TN_ENTRYDIR) | PT_TBIT(PT_TN_ENTRYFILE) | PT_TBIT(PT_TN_VALINK) |
		 PT_TBIT(PT_TN_WALKFILE) | PT_TBIT(PT_TN_SVG),
	.dirs = PT_TBIT(PT_TN_CTXDIR) | PT_TBIT(PT_TN_VADIR) | PT_TBIT(PT_TN_WALKDIR) |
		PT_TBIT(PT_TN_TABLEDIR) | PT_TBIT(PT_TN_ENTRYDIR),
	.links = PT_TBIT(PT_TN_VALINK),
	.per_context = true,
	.root_lookup = root_lookup,
	.root_list = root_list,
	.root_dirs = root_dirs,
	.scans = ctx_scans,
	.lookup = ctx_lookup,
	.list = pt_tree_ctx_list,
	.parent = ctx_parent,
	.nlink = ctx_nlink,
	.render = ctx_render,
	.readlink = ctx_readlink,
};

/* ---- another spelling of a device context --------------------------------- */

/*
 * dmar0.0000:00:03.0 for dmar0.00:03.0: a symlink to the canonical
 * directory, never listed, so that a directory keeps one name and `ls -l`
 * shows which (ptfs(1)); looked up after the contexts and the IOMMUs.
 */
static bool alias_lookup(const struct pt_tree *tree, const char *name, struct pt_tnode *child)
{
	const struct pt_context *ctx;

	if (pt_capture_context_find(tree->cap, name))
		return false;
	ctx = pt_capture_context_alias(tree->cap, name);
	if (!ctx || ctx->index >= pt_tree_nctx(tree) || pt_capture_context(tree->cap, ctx->index) != ctx)
		return false;
	pt_tree_ctx_node(tree, ctx->index, PT_TN_CTXALIAS, child);
	return true;
}

static pt_err alias_parent(const struct pt_tree *tree, const struct pt_tnode *node,
			   struct pt_tnode *parent)
{
	(void)tree;
	(void)node;
	pt_tree_root(parent);
	return PT_OK;
}

static pt_err alias_readlink(const struct pt_tree *tree, const struct pt_tnode *node,
			     char *buf, size_t len)
{
	const struct pt_context *ctx = pt_tree_context(tree, node);
	int n;

	if (!ctx)
		return PT_E_NOTFOUND;
	n = snprintf(buf, len, "%s", ctx->name);
	return n < 0 || (size_t)n >= len ? PT_E_TRUNCATED : PT_OK;
}

const struct pt_tprov pt_tprov_alias = {
	.name = "alias",
	.types = PT_TBIT(PT_TN_CTXALIAS),
	.links = PT_TBIT(PT_TN_CTXALIAS),
	.per_context = true,
	.root_lookup = alias_lookup,
	.parent = alias_parent,
	.readlink = alias_readlink,
};
