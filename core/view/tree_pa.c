/* SPDX-License-Identifier: MIT */
/*
 * tree_pa.c — the pa/ subtree (struct pt_tprov, tree_int.h): pa/ lists one
 * directory per space of the capture's format, pa/SPACE/ lists nothing and
 * finds any address something maps (the reverse index of pa.c, pt_pa.h,
 * built on the first such lookup); pa/SPACE/ADDR says who maps that byte.
 */
#include <string.h>

#include "pt_pa.h"
#include "pt_tree.h"
#include "tree_int.h"

static pt_err pa_init(struct pt_tree *tree)
{
	tree->pa = pt_pa_index_new(tree->cap);
	return tree->pa ? PT_OK : PT_E_NOMEM;
}

static void pa_free(struct pt_tree *tree)
{
	pt_pa_index_free(tree->pa);
}

static bool pa_root_lookup(const struct pt_tree *tree, const char *name, struct pt_tnode *child)
{
	(void)tree;
	if (strcmp(name, "pa") != 0)
		return false;
	memset(child, 0, sizeof(*child));
	child->type = PT_TN_PADIR;
	return true;
}

static bool pa_root_list(const struct pt_tree *tree, struct pt_tfixed *l)
{
	struct pt_tnode n;

	(void)tree;
	memset(&n, 0, sizeof(n));
	n.type = PT_TN_PADIR;
	return pt_tree_fixed_add(l, "pa", &n);
}

static uint64_t pa_root_dirs(const struct pt_tree *tree)
{
	(void)tree;
	return 1;
}

/* pa/SPACE/ADDR: found when the file says something (a mapping, or that the index is incomplete). */
static pt_err lookup_addr(const struct pt_tree *tree, const struct pt_tnode *parent,
			  const char *name, struct pt_tnode *child)
{
	struct pt_buf b;
	uint64_t addr;
	pt_err err;
	bool empty;

	if (parent->choice >= tree->nspaces || !pt_va_parse(name, &addr))
		return PT_E_NOTFOUND;
	pt_buf_init(&b);
	err = pt_render_pa(&b, tree->pa, parent->choice, addr, PT_OUT_TEXT, NULL);
	empty = b.len == 0;
	if (err == PT_OK && b.oom)
		err = PT_E_NOMEM;
	pt_buf_free(&b);
	if (err != PT_OK)
		return err;
	if (empty)
		return PT_E_NOTFOUND;   /* nothing maps it: as `ptfs-tool pa` exits 1 */
	*child = *parent;
	child->type = PT_TN_PAFILE;
	child->va = addr;
	return PT_OK;
}

static pt_err pa_lookup(const struct pt_tree *tree, const struct pt_tnode *parent,
			const char *name, struct pt_tnode *child)
{
	int space;

	switch (parent->type) {
	case PT_TN_PADIR:
		space = pt_capture_space_find(tree->cap, name);
		if (space < 0 || (unsigned)space >= tree->nspaces)
			return PT_E_NOTFOUND;
		memset(child, 0, sizeof(*child));
		child->type = PT_TN_PASPACE;
		child->choice = (unsigned)space;
		return PT_OK;
	case PT_TN_PASPACE:
		return lookup_addr(tree, parent, name, child);
	default:
		return PT_E_USAGE;
	}
}

/* pa/: one directory per space of the capture, in the capture's order (its format's first). */
static pt_err pa_list(const struct pt_tree *tree, const struct pt_tnode *dir, uint64_t cookie,
		      pt_tree_list_fn fn, void *ud, struct pt_readctl *rc)
{
	struct pt_tfixed l = {fn, ud, cookie, 0, false};
	struct pt_tnode n;

	(void)rc;
	if (dir->type == PT_TN_PASPACE)
		return dir->choice < tree->nspaces ? PT_OK : PT_E_NOTFOUND;   /* lists nothing */
	if (dir->type != PT_TN_PADIR)
		return PT_E_USAGE;
	memset(&n, 0, sizeof(n));
	n.type = PT_TN_PASPACE;
	for (unsigned s = 0; s < tree->nspaces; s++) {
		n.choice = s;
		if (!pt_tree_fixed_add(&l, pt_capture_space_name(tree->cap, s), &n))
			break;
	}
	return PT_OK;
}

static pt_err pa_parent(const struct pt_tree *tree, const struct pt_tnode *node,
			struct pt_tnode *parent)
{
	/* NODE may be PARENT: read it before clearing */
	bool file = node->type == PT_TN_PAFILE;
	unsigned space = node->choice;

	if (node->type == PT_TN_PADIR) {
		pt_tree_root(parent);
		return PT_OK;
	}
	(void)tree;
	memset(parent, 0, sizeof(*parent));
	parent->type = file ? PT_TN_PASPACE : PT_TN_PADIR;
	parent->choice = file ? space : 0;
	return PT_OK;
}

static pt_err pa_nlink(const struct pt_tree *tree, const struct pt_tnode *node, uint64_t *nlink,
		       struct pt_readctl *rc)
{
	(void)rc;
	if (node->type == PT_TN_PADIR) {
		*nlink = 2 + tree->nspaces;
	} else if (node->type == PT_TN_PASPACE) {
		if (node->choice >= tree->nspaces)
			return PT_E_NOTFOUND;
		*nlink = 2;
	}
	return PT_OK;
}

static pt_err pa_render(const struct pt_tree *tree, const struct pt_tnode *node, struct pt_buf *b,
			struct pt_readctl *rc)
{
	(void)rc;
	if (node->type != PT_TN_PAFILE)
		return PT_E_USAGE;
	if (node->choice >= tree->nspaces)
		return PT_E_NOTFOUND;
	return pt_render_pa(b, tree->pa, node->choice, node->va, PT_OUT_TEXT, NULL);
}

const struct pt_tprov pt_tprov_pa = {
	.name = "pa",
	.types = PT_TBIT(PT_TN_PADIR) | PT_TBIT(PT_TN_PASPACE) | PT_TBIT(PT_TN_PAFILE),
	.dirs = PT_TBIT(PT_TN_PADIR) | PT_TBIT(PT_TN_PASPACE),
	.root_fixed = true,
	.init = pa_init,
	.free = pa_free,
	.root_lookup = pa_root_lookup,
	.root_list = pa_root_list,
	.root_dirs = pa_root_dirs,
	.lookup = pa_lookup,
	.list = pa_list,
	.parent = pa_parent,
	.nlink = pa_nlink,
	.render = pa_render,
};
