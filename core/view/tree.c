/* SPDX-License-Identifier: MIT */
/*
 * tree.c — the names, parents, sizes, contents and links of the tree
 * (pt_tree.h); the listings are tree_list.c's.
 *
 * Both front ends go through here, so the mount and `ptfs-tool export` show
 * the same tree by construction.  Every node is re-resolved from its path
 * on every call (pt_node_resolve(), pt_walk_va()); nothing is cached here:
 * caching is a front end's business (fs/ keeps the renders of capture,
 * info and maps for the life of the mount).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_num.h"
#include "pt_entries.h"
#include "pt_linux.h"
#include "pt_pa.h"
#include "pt_svg.h"
#include "pt_xcheck.h"
#include "pt_tree.h"
#include "tree_int.h"

/* A table with more entries than this reports st_nlink 1 ("unknown", as btrfs
 * does) instead of decoding every entry to count its subdirectories. */
#define NLINK_SCAN_MAX 4096

pt_err pt_tree_new(const struct pt_capture *cap, bool all_entries, struct pt_tree **out)
{
	struct pt_tree *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t)
		return PT_E_NOMEM;
	t->cap = cap;
	t->all_entries = all_entries;
	t->nctx = pt_capture_context_count(cap);
	t->pa = pt_pa_index_new(cap);
	if (!t->pa) {
		free(t);
		return PT_E_NOMEM;
	}
	t->nspaces = pt_capture_space_count(cap);
	if (pt_iotree_init(t) != PT_OK) {
		pt_tree_free(t);
		return PT_E_NOMEM;
	}
	*out = t;
	return PT_OK;
}

void pt_tree_free(struct pt_tree *tree)
{
	if (!tree)
		return;
	pt_pa_index_free(tree->pa);
	pt_iotree_free(tree);
	free(tree);
}

void pt_tree_root(struct pt_tnode *out)
{
	memset(out, 0, sizeof(*out));
	out->type = PT_TN_ROOT;
}

enum pt_tkind pt_tree_kind(const struct pt_tnode *node)
{
	switch (node->type) {
	case PT_TN_ROOT:
	case PT_TN_CTXDIR:
	case PT_TN_VADIR:
	case PT_TN_WALKDIR:
	case PT_TN_TABLEDIR:
	case PT_TN_ENTRYDIR:
	case PT_TN_PADIR:
	case PT_TN_PASPACE:
	case PT_TN_VSDIR:
	case PT_TN_IODIR:
		return PT_TK_DIR;
	case PT_TN_VALINK:
	case PT_TN_CTXALIAS:
		return PT_TK_LINK;
	default:
		return PT_TK_FILE;
	}
}

bool pt_tree_render_scans(const struct pt_tnode *node)
{
	return node->type == PT_TN_CAPTURE || node->type == PT_TN_INFO || node->type == PT_TN_TASKS ||
	       node->type == PT_TN_MAPS || node->type == PT_TN_ENTRIES || node->type == PT_TN_SVG ||
	       node->type == PT_TN_VSFILE ||
	       (node->type == PT_TN_IOFILE && pt_io_kind_of(node) == PT_IO_DEVICES);
}

const struct pt_context *pt_tree_context(const struct pt_tree *tree, const struct pt_tnode *node)
{
	if (node->type == PT_TN_ROOT || node->type == PT_TN_CAPTURE || node->type == PT_TN_PADIR ||
	    node->type == PT_TN_TASKS || node->type == PT_TN_PCI || node->type == PT_TN_PASPACE || node->type == PT_TN_PAFILE || node->type == PT_TN_IODIR ||
	    node->type == PT_TN_IOFILE || node->ctx >= tree->nctx)
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
static bool table_level_ok(const struct pt_tnode *n, int level)
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
	    t->cover == PT_COVER_NONE || !table_level_ok(n, t->level))
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

/* ---- lookup ------------------------------------------------------------- */

/* A decimal entry index as listed: digits only, no sign, no leading zero. */
static bool parse_index(const char *s, uint64_t *out)
{
	return pt_num_parse(s, PT_NUM_DEC, out);
}

static pt_err lookup_root(const struct pt_tree *tree, const char *name, struct pt_tnode *child)
{
	const struct pt_context *ctx;

	if (strcmp(name, "capture") == 0) {
		memset(child, 0, sizeof(*child));
		child->type = PT_TN_CAPTURE;
		return PT_OK;
	}
	if (strcmp(name, "pa") == 0) {
		memset(child, 0, sizeof(*child));
		child->type = PT_TN_PADIR;
		return PT_OK;
	}
	if (strcmp(name, "tasks") == 0 && pt_linux_has_tasks(tree->cap)) {
		memset(child, 0, sizeof(*child));
		child->type = PT_TN_TASKS;
		return PT_OK;
	}
	if (strcmp(name, "pci") == 0 && pt_linux_has_pci(tree->cap)) {
		memset(child, 0, sizeof(*child));
		child->type = PT_TN_PCI;
		return PT_OK;
	}
	ctx = pt_capture_context_find(tree->cap, name);
	if (!ctx && !pt_iotree_root(tree, name, child) &&
	    (ctx = pt_capture_context_alias(tree->cap, name)) && ctx->index < tree->nctx &&
	    pt_capture_context(tree->cap, ctx->index) == ctx) {
		/*
		 * Another spelling of a device context (dmar0.0000:00:03.0): a
		 * symlink to the canonical directory, never listed, so that a
		 * directory keeps one name and `ls -l` shows which (ptfs(1)).
		 */
		pt_tree_ctx_node(tree, ctx->index, PT_TN_CTXALIAS, child);
		return PT_OK;
	}
	for (size_t i = 0; ctx && i < tree->nctx; i++) {
		if (pt_capture_context(tree->cap, i) == ctx) {
			pt_tree_ctx_node(tree, (unsigned)i, PT_TN_CTXDIR, child);
			return PT_OK;
		}
	}
	return pt_iotree_root(tree, name, child) ? PT_OK : PT_E_NOTFOUND;
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
			if (!table_level_ok(child, t.level))
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

/* pa/SPACE/ADDR: found when the file says something (a mapping, or that the index is incomplete). */
static pt_err lookup_pa(const struct pt_tree *tree, const struct pt_tnode *parent,
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

/* vs/OTHER: any other context by name; the context itself is no comparison (ENOENT). */
static pt_err lookup_vs(const struct pt_tree *tree, const struct pt_tnode *parent,
			const char *name, struct pt_tnode *child)
{
	const struct pt_context *other = pt_capture_context_find(tree->cap, name);

	if (!pt_tree_context(tree, parent) || !other || other->index == parent->ctx ||
	    pt_capture_context(tree->cap, other->index) != other)
		return PT_E_NOTFOUND;
	pt_tree_ctx_node(tree, parent->ctx, PT_TN_VSFILE, child);
	child->choice = other->index;
	return PT_OK;
}

pt_err pt_tree_lookup(const struct pt_tree *tree, const struct pt_tnode *parent,
		      const char *name, struct pt_tnode *child)
{
	int space;

	uint64_t va;

	switch (parent->type) {
	case PT_TN_ROOT:
		return lookup_root(tree, name, child);
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
	case PT_TN_PADIR:
		space = pt_capture_space_find(tree->cap, name);
		if (space < 0 || (unsigned)space >= tree->nspaces)
			return PT_E_NOTFOUND;
		memset(child, 0, sizeof(*child));
		child->type = PT_TN_PASPACE;
		child->choice = (unsigned)space;
		return PT_OK;
	case PT_TN_PASPACE:
		return lookup_pa(tree, parent, name, child);
	case PT_TN_VSDIR:
		return lookup_vs(tree, parent, name, child);
	case PT_TN_IODIR:
		return pt_iotree_lookup(tree, parent, name, child);
	default:
		return PT_E_USAGE;
	}
}

/* ---- parents, links, sizes, contents ------------------------------------ */

pt_err pt_tree_parent(const struct pt_tree *tree, const struct pt_tnode *node,
		      struct pt_tnode *parent)
{
	const struct pt_level *levels;
	struct pt_loc loc;
	unsigned n;
	pt_err err;

	switch (node->type) {
	case PT_TN_ROOT:
	case PT_TN_CAPTURE:
	case PT_TN_CTXDIR:
	case PT_TN_CTXALIAS:
	case PT_TN_PADIR:
	case PT_TN_TASKS:
	case PT_TN_PCI:
		pt_tree_root(parent);
		return PT_OK;
	case PT_TN_IODIR:
	case PT_TN_IOFILE:
		return pt_iotree_parent(tree, node, parent);
	case PT_TN_PASPACE:
	case PT_TN_PAFILE: {
		/* NODE may be PARENT: read it before clearing */
		bool file = node->type == PT_TN_PAFILE;
		unsigned space = node->choice;

		memset(parent, 0, sizeof(*parent));
		parent->type = file ? PT_TN_PASPACE : PT_TN_PADIR;
		parent->choice = file ? space : 0;
		return PT_OK;
	}
	case PT_TN_INFO:
	case PT_TN_MAPS:
	case PT_TN_ENTRIES:
	case PT_TN_SVG:
	case PT_TN_VADIR:
	case PT_TN_WALKDIR:
	case PT_TN_VALINK:
	case PT_TN_WALKFILE:
	case PT_TN_VSDIR:
	case PT_TN_VSFILE:
		if (!pt_tree_context(tree, node))
			return PT_E_NOTFOUND;
		pt_tree_ctx_node(tree, node->ctx,
			 node->type == PT_TN_VALINK ? PT_TN_VADIR :
			 node->type == PT_TN_WALKFILE ? PT_TN_WALKDIR :
			 node->type == PT_TN_VSFILE ? PT_TN_VSDIR : PT_TN_CTXDIR, parent);
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

pt_err pt_tree_nlink(const struct pt_tree *tree, const struct pt_tnode *node, uint64_t *nlink,
		     struct pt_readctl *rc)
{
	struct pt_table t;
	struct pt_loc loc;
	pt_err err;

	*nlink = 1;
	switch (node->type) {
	case PT_TN_ROOT:
		*nlink = 2 + tree->nctx + 1 + tree->niommu -
			 (size_t)__builtin_popcountll(tree->io_hidden);   /* the contexts, pa/, the IOMMUs */
		return PT_OK;
	case PT_TN_IODIR:
	case PT_TN_IOFILE:
		return pt_iotree_nlink(tree, node, nlink);
	case PT_TN_PADIR:
		*nlink = 2 + tree->nspaces;
		return PT_OK;
	case PT_TN_PASPACE:
		if (node->choice >= tree->nspaces)
			return PT_E_NOTFOUND;
		*nlink = 2;
		return PT_OK;
	case PT_TN_CTXDIR:
		*nlink = 2 + 4;   /* root table, va/, walk/, vs/ */
		return PT_OK;
	case PT_TN_VADIR:
	case PT_TN_WALKDIR:
	case PT_TN_VSDIR:
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

pt_err pt_tree_render(const struct pt_tree *tree, const struct pt_tnode *node, struct pt_buf *b,
		      struct pt_readctl *rc)
{
	const struct pt_context *ctx = pt_tree_context(tree, node);
	struct pt_loc loc;
	struct pt_walk w;
	pt_err err;

	switch (node->type) {
	case PT_TN_CAPTURE:
		err = pt_render_capture(b, tree->cap, PT_OUT_TEXT);
		break;
	case PT_TN_TASKS:
		err = pt_linux_tasks(tree->cap, false, b, rc) ? PT_OK : PT_E_NOTFOUND;
		break;
	case PT_TN_PCI:
		err = pt_linux_pci(tree->cap, false, b) ? PT_OK : PT_E_NOTFOUND;
		break;
	case PT_TN_INFO:
	case PT_TN_MAPS:
		if (!ctx)
			return PT_E_NOTFOUND;
		err = node->type == PT_TN_INFO ? pt_render_info(b, ctx, PT_OUT_TEXT, rc)
					       : pt_render_maps(b, ctx, PT_OUT_TEXT, rc);
		break;
	case PT_TN_SVG:
		if (!ctx)
			return PT_E_NOTFOUND;
		err = pt_render_svg(b, ctx, rc);
		break;
	case PT_TN_VSFILE:
		if (!ctx || node->choice >= tree->nctx || node->choice == node->ctx)
			return PT_E_NOTFOUND;
		err = pt_render_xcheck(b, ctx, pt_capture_context(tree->cap, node->choice), PT_OUT_TEXT, rc);
		break;
	case PT_TN_ENTRIES:
		/* the whole text at once (export); the mount reads it by checkpoints */
		if (!ctx)
			return PT_E_NOTFOUND;
		err = pt_entries_render(tree, node->ctx, PT_ENTRIES_LINES_MAX, b, rc);
		break;
	case PT_TN_ENTRYFILE:
		err = pt_tree_get_entry(node, &loc);
		if (err == PT_OK)
			err = pt_render_entry(b, &loc.table, loc.index, &loc.entry, PT_OUT_TEXT);
		break;
	case PT_TN_WALKFILE:
		if (!ctx)
			return PT_E_NOTFOUND;
		pt_walk_va(ctx, node->va, &w);
		err = pt_render_walk(b, ctx, &w, PT_OUT_TEXT);
		break;
	case PT_TN_PAFILE:
		if (node->choice >= tree->nspaces)
			return PT_E_NOTFOUND;
		err = pt_render_pa(b, tree->pa, node->choice, node->va, PT_OUT_TEXT, NULL);
		break;
	case PT_TN_IOFILE:
		err = pt_iotree_render(tree, node, b, rc);
		break;
	default:
		return PT_E_USAGE;
	}
	if (err != PT_OK)
		return err;
	return b->oom ? PT_E_NOMEM : PT_OK;
}

pt_err pt_tree_readlink(const struct pt_tree *tree, const struct pt_tnode *node,
			char *buf, size_t len)
{
	const struct pt_context *ctx = pt_tree_context(tree, node);
	const struct pt_node *leaf = &node->node;
	struct pt_walk w;
	int n;

	if (node->type == PT_TN_CTXALIAS) {
		if (!ctx)
			return PT_E_NOTFOUND;
		n = snprintf(buf, len, "%s", ctx->name);
		return n < 0 || (size_t)n >= len ? PT_E_TRUNCATED : PT_OK;
	}
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
