/* SPDX-License-Identifier: MIT */
/*
 * tree_files.c — four small subtrees (struct pt_tprov, tree_int.h): the
 * root's `capture` file, its `tasks` and `pci` files (a Linux dump's
 * processes and PCI functions, pt_linux.h; docs/design.md §3.3) and a
 * context's vs/ (CTX against another context, as ptfs-tool crosscheck:
 * pt_xcheck.h).
 */
#include <string.h>

#include "pt_linux.h"
#include "pt_tree.h"
#include "pt_xcheck.h"
#include "tree_int.h"

static pt_err up_to_root(const struct pt_tree *tree, const struct pt_tnode *node,
			 struct pt_tnode *parent)
{
	(void)tree;
	(void)node;
	pt_tree_root(parent);
	return PT_OK;
}

static bool always_scans(const struct pt_tnode *node)
{
	(void)node;
	return true;
}

/* ---- capture ---------------------------------------------------------------- */

static bool capture_lookup(const struct pt_tree *tree, const char *name, struct pt_tnode *child)
{
	(void)tree;
	if (strcmp(name, "capture") != 0)
		return false;
	memset(child, 0, sizeof(*child));
	child->type = PT_TN_CAPTURE;
	return true;
}

static bool capture_list(const struct pt_tree *tree, struct pt_tfixed *l)
{
	struct pt_tnode n;

	(void)tree;
	memset(&n, 0, sizeof(n));
	n.type = PT_TN_CAPTURE;
	return pt_tree_fixed_add(l, "capture", &n);
}

static pt_err capture_render(const struct pt_tree *tree, const struct pt_tnode *node,
			     struct pt_buf *b, struct pt_readctl *rc)
{
	(void)node;
	(void)rc;
	return pt_render_capture(b, tree->cap, PT_OUT_TEXT);
}

const struct pt_tprov pt_tprov_capture = {
	.name = "capture",
	.types = PT_TBIT(PT_TN_CAPTURE),
	.root_fixed = true,
	.root_lookup = capture_lookup,
	.root_list = capture_list,
	.scans = always_scans,
	.parent = up_to_root,
	.render = capture_render,
};

/* ---- tasks ------------------------------------------------------------------ */

static bool tasks_lookup(const struct pt_tree *tree, const char *name, struct pt_tnode *child)
{
	if (strcmp(name, "tasks") != 0 || !pt_linux_has_tasks(tree->cap))
		return false;
	memset(child, 0, sizeof(*child));
	child->type = PT_TN_TASKS;
	return true;
}

/* a Linux dump's processes, ps-like (docs/design.md §3.3) */
static bool tasks_list(const struct pt_tree *tree, struct pt_tfixed *l)
{
	struct pt_tnode n;

	memset(&n, 0, sizeof(n));
	n.type = PT_TN_TASKS;
	return !pt_linux_has_tasks(tree->cap) || pt_tree_fixed_add(l, "tasks", &n);
}

static pt_err tasks_render(const struct pt_tree *tree, const struct pt_tnode *node,
			   struct pt_buf *b, struct pt_readctl *rc)
{
	(void)node;
	return pt_linux_tasks(tree->cap, false, b, rc) ? PT_OK : PT_E_NOTFOUND;
}

const struct pt_tprov pt_tprov_tasks = {
	.name = "tasks",
	.types = PT_TBIT(PT_TN_TASKS),
	.root_fixed = true,
	.root_lookup = tasks_lookup,
	.root_list = tasks_list,
	.scans = always_scans,
	.parent = up_to_root,
	.render = tasks_render,
};

/* ---- pci -------------------------------------------------------------------- */

static bool pci_lookup(const struct pt_tree *tree, const char *name, struct pt_tnode *child)
{
	if (strcmp(name, "pci") != 0 || !pt_linux_has_pci(tree->cap))
		return false;
	memset(child, 0, sizeof(*child));
	child->type = PT_TN_PCI;
	return true;
}

/* the guest's PCI functions by name (docs/design.md §3.3) */
static bool pci_list(const struct pt_tree *tree, struct pt_tfixed *l)
{
	struct pt_tnode n;

	memset(&n, 0, sizeof(n));
	n.type = PT_TN_PCI;
	return !pt_linux_has_pci(tree->cap) || pt_tree_fixed_add(l, "pci", &n);
}

static pt_err pci_render(const struct pt_tree *tree, const struct pt_tnode *node,
			 struct pt_buf *b, struct pt_readctl *rc)
{
	(void)node;
	(void)rc;
	return pt_linux_pci(tree->cap, false, b) ? PT_OK : PT_E_NOTFOUND;
}

const struct pt_tprov pt_tprov_pci = {
	.name = "pci",
	.types = PT_TBIT(PT_TN_PCI),
	.root_fixed = true,
	.root_lookup = pci_lookup,
	.root_list = pci_list,
	.scans = always_scans,
	.parent = up_to_root,
	.render = pci_render,
};

/* ---- CTX/vs/ ---------------------------------------------------------------- */

/* vs/OTHER: any other context by name; the context itself is no comparison (ENOENT). */
static pt_err vs_lookup(const struct pt_tree *tree, const struct pt_tnode *parent,
			const char *name, struct pt_tnode *child)
{
	const struct pt_context *other;

	if (parent->type != PT_TN_VSDIR)
		return PT_E_USAGE;
	other = pt_capture_context_find(tree->cap, name);
	if (!pt_tree_context(tree, parent) || !other || other->index == parent->ctx ||
	    pt_capture_context(tree->cap, other->index) != other)
		return PT_E_NOTFOUND;
	pt_tree_ctx_node(tree, parent->ctx, PT_TN_VSFILE, child);
	child->choice = other->index;
	return PT_OK;
}

static pt_err vs_list(const struct pt_tree *tree, const struct pt_tnode *dir, uint64_t cookie,
		      pt_tree_list_fn fn, void *ud, struct pt_readctl *rc)
{
	(void)cookie;
	(void)fn;
	(void)ud;
	(void)rc;
	if (dir->type != PT_TN_VSDIR)
		return PT_E_USAGE;
	return pt_tree_context(tree, dir) ? PT_OK : PT_E_NOTFOUND;   /* lists nothing */
}

static pt_err vs_parent(const struct pt_tree *tree, const struct pt_tnode *node,
			struct pt_tnode *parent)
{
	if (!pt_tree_context(tree, node))
		return PT_E_NOTFOUND;
	pt_tree_ctx_node(tree, node->ctx, node->type == PT_TN_VSFILE ? PT_TN_VSDIR : PT_TN_CTXDIR,
			 parent);
	return PT_OK;
}

static pt_err vs_nlink(const struct pt_tree *tree, const struct pt_tnode *node, uint64_t *nlink,
		       struct pt_readctl *rc)
{
	(void)tree;
	(void)rc;
	if (node->type == PT_TN_VSDIR)
		*nlink = 2;
	return PT_OK;
}

static pt_err vs_render(const struct pt_tree *tree, const struct pt_tnode *node, struct pt_buf *b,
			struct pt_readctl *rc)
{
	const struct pt_context *ctx = pt_tree_context(tree, node);

	if (node->type != PT_TN_VSFILE)
		return PT_E_USAGE;
	if (!ctx || node->choice >= pt_tree_nctx(tree) || node->choice == node->ctx)
		return PT_E_NOTFOUND;
	return pt_render_xcheck(b, ctx, pt_capture_context(tree->cap, node->choice), PT_OUT_TEXT, rc);
}

static bool vs_scans(const struct pt_tnode *node)
{
	return node->type == PT_TN_VSFILE;
}

const struct pt_tprov pt_tprov_vs = {
	.name = "vs",
	.types = PT_TBIT(PT_TN_VSDIR) | PT_TBIT(PT_TN_VSFILE),
	.dirs = PT_TBIT(PT_TN_VSDIR),
	.per_context = true,
	.scans = vs_scans,
	.lookup = vs_lookup,
	.list = vs_list,
	.parent = vs_parent,
	.nlink = vs_nlink,
	.render = vs_render,
};
