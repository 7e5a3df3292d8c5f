/* SPDX-License-Identifier: MIT */
/*
 * tree_list.c — directory listings of the tree (pt_tree_list(), pt_tree.h):
 * the fixed directories (the root, a context, an entry, pa/), a table's
 * entries and va/'s links, each resumable from the cookie of the last
 * child returned.  Names and contents are tree.c's.
 */
#include <string.h>

#include "pt_linux.h"
#include "pt_num.h"
#include "pt_tree.h"
#include "tree_int.h"

/* A fixed list in progress: child k has cookie k + COOKIE_BASE. */
struct fixed_list {
	pt_tree_list_fn fn;
	void *ud;
	uint64_t cookie;
	uint64_t k;
	bool stopped;
};

/* Offers one child of a fixed list; false once the callback stopped. */
static bool fixed_add(struct fixed_list *l, const char *name, const struct pt_tnode *child)
{
	uint64_t next = l->k + COOKIE_BASE;

	l->k++;
	if (l->stopped || next <= l->cookie)
		return !l->stopped;
	if (!l->fn(l->ud, name, child, next))
		l->stopped = true;
	return !l->stopped;
}

static pt_err list_root(const struct pt_tree *tree, struct fixed_list *l)
{
	struct pt_tnode n;

	memset(&n, 0, sizeof(n));
	n.type = PT_TN_CAPTURE;
	if (!fixed_add(l, "capture", &n))
		return PT_OK;
	for (size_t i = 0; i < tree->nctx; i++) {
		/* a live process gone since a refresh is no longer listed (pt_context_gone()) */
		if (pt_context_gone(pt_capture_context(tree->cap, i)))
			continue;
		pt_tree_ctx_node(tree, (unsigned)i, PT_TN_CTXDIR, &n);
		if (!fixed_add(l, pt_capture_context(tree->cap, i)->name, &n))
			return PT_OK;
	}
	for (size_t i = 0; i < tree->niommu; i++) {
		if (!pt_iotree_root(tree, tree->io[i].name, &n))
			continue;   /* left out (pt_tree_iommu_hide()) */
		if (!fixed_add(l, tree->io[i].name, &n))
			return PT_OK;
	}
	memset(&n, 0, sizeof(n));
	n.type = PT_TN_PADIR;
	if (!fixed_add(l, "pa", &n))
		return PT_OK;
	/* a Linux dump's processes, ps-like (docs/design.md §3.3) */
	n.type = PT_TN_TASKS;
	if (pt_linux_has_tasks(tree->cap))
		fixed_add(l, "tasks", &n);
	return PT_OK;
}

/* pa/: one directory per space of the capture, in the capture's order (its format's first). */
static pt_err list_padir(const struct pt_tree *tree, struct fixed_list *l)
{
	struct pt_tnode n;

	memset(&n, 0, sizeof(n));
	n.type = PT_TN_PASPACE;
	for (unsigned s = 0; s < tree->nspaces; s++) {
		n.choice = s;
		if (!fixed_add(l, pt_capture_space_name(tree->cap, s), &n))
			break;
	}
	return PT_OK;
}

static pt_err list_ctxdir(const struct pt_tree *tree, const struct pt_tnode *dir,
			  struct fixed_list *l)
{
	const struct pt_context *ctx = pt_tree_context(tree, dir);
	struct pt_tnode n;

	if (!ctx)
		return PT_E_NOTFOUND;
	pt_tree_ctx_node(tree, dir->ctx, PT_TN_INFO, &n);
	if (!fixed_add(l, "info", &n))
		return PT_OK;
	n.type = PT_TN_MAPS;
	if (!fixed_add(l, "maps", &n))
		return PT_OK;
	n.type = PT_TN_ENTRIES;
	if (!fixed_add(l, "entries", &n))
		return PT_OK;
	n.type = PT_TN_SVG;
	if (!fixed_add(l, "map.svg", &n))
		return PT_OK;
	n.type = PT_TN_TABLEDIR;
	if (!fixed_add(l, ctx->fmt->levels[0].name, &n))
		return PT_OK;
	n.type = PT_TN_VADIR;
	if (!fixed_add(l, "va", &n))
		return PT_OK;
	n.type = PT_TN_WALKDIR;
	if (!fixed_add(l, "walk", &n))
		return PT_OK;
	n.type = PT_TN_VSDIR;
	fixed_add(l, "vs", &n);
	return PT_OK;
}

static pt_err list_entrydir(const struct pt_tnode *dir, struct fixed_list *l)
{
	struct pt_loc loc;
	struct pt_table t;
	struct pt_tnode n;
	pt_err err = pt_tree_get_entry(dir, &loc);

	if (err != PT_OK)
		return err;
	n = *dir;
	n.type = PT_TN_ENTRYFILE;
	if (!fixed_add(l, "entry", &n))
		return PT_OK;
	for (unsigned which = 0; which < 2; which++) {
		if (!pt_tree_child_table(&loc, which, &t))
			continue;
		n = *dir;
		n.type = PT_TN_TABLEDIR;
		n.choice = which;
		if (!fixed_add(l, dir->node.ctx->fmt->levels[t.level].name, &n))
			break;
	}
	return PT_OK;
}

/*
 * Decimal I ending just before END (NUL-terminated there), by hand: the
 * snprintf of every listed index cost ~5% of a first `find` (bench/README.md).
 */
static const char *index_name(uint64_t i, char *end)
{
	end[-1] = 0;
	return pt_dec_before(end - 1, i);
}

/* A table: entry I has cookie I + 3, so a resumed listing starts at COOKIE - 2. */
static pt_err list_table(const struct pt_tree *tree, const struct pt_tnode *dir, uint64_t cookie,
			 pt_tree_list_fn fn, void *ud, struct pt_readctl *rc)
{
	uint64_t i = cookie >= COOKIE_BASE ? cookie - (COOKIE_BASE - 1) : 0;
	struct pt_table t;
	struct pt_entry e;
	struct pt_tnode n;
	char name[24];
	pt_err err;

	if (dir->node.n >= PT_MAX_DEPTH)
		return PT_OK;   /* no entry could be named below it */
	err = pt_tree_get_table(dir, &t);
	if (err != PT_OK)
		return err;
	pt_table_direct(&t);
	while (i < t.entries && pt_tree_next_summary(&t, &i, tree->all_entries, &e, rc)) {
		pt_tree_entry_node(dir, &t, i, &e, &n);
		if (!fn(ud, index_name(i, name + sizeof(name)), &n, i + COOKIE_BASE))
			break;
		i++;
	}
	return PT_OK;
}

/*
 * va/: streamed from the page iterator; the cookie of a page is the slot
 * (pt_va_slot(): the VA itself unless the format is canonical, where the
 * high half's VAs would wrap) just past it (+ 2, to stay clear of the
 * cookies of "." and ".."), so a huge va/
 * never holds a list of names and a resumed listing starts where it stopped.
 * The iterator knows each leaf, so the links need no walk for their targets.
 *
 * One call reads at most VA_LIST_BUDGET entries once it has listed a link
 * (tables of invalid but non-zero entries list nothing for minutes): the
 * caller resumes from the last cookie.  A call that has listed nothing
 * must not end early, since an empty reply ends the directory and a cookie
 * can only come with a link: it goes on from where the budget ran out with
 * twice the budget, until a link or the end (or a cancel).
 */
#define VA_LIST_BUDGET ((uint64_t)1 << 16)

/* The next page, its leaf decoded summary-only: a link needs no field (as pt_tree_next_summary). */
static bool pages_next_summary(struct pt_page_iter *it, struct pt_page *page)
{
	it->flags = PT_DECODE_SUMMARY;
	return pt_pages_next(it, page);
}

static pt_err list_va(const struct pt_tree *tree, const struct pt_tnode *dir, uint64_t cookie,
		      pt_tree_list_fn fn, void *ud, struct pt_readctl *rc)
{
	const struct pt_context *ctx = pt_tree_context(tree, dir);
	struct pt_page_iter it;
	struct pt_page page;
	struct pt_tnode n;
	char name[32];
	uint64_t from = cookie > 2 ? cookie - 2 : 0, budget = VA_LIST_BUDGET;
	bool any = false;

	if (!ctx)
		return PT_E_NOTFOUND;
	if (from > pt_va_slot_last(ctx->fmt))
		return PT_OK;   /* past the last page */
	from = pt_va_at(ctx->fmt, from);
	/* one link node, its page filled in per page (a cleared node per page was 3% of a listing) */
	pt_tree_ctx_node(tree, dir->ctx, PT_TN_VALINK, &n);
	for (;;) {
		pt_pages_init(&it, ctx, from, rc);
		it.budget = budget;
		while (pages_next_summary(&it, &page)) {
			if (!pt_va_in_space(ctx->fmt, page.va))
				return PT_OK;
			n.va = page.va;
			n.node = page.node;
			pt_va_name(ctx->fmt, page.va, name, sizeof(name));
			if (!fn(ud, name, &n, pt_va_slot(ctx->fmt, page.va) + page.size + 2))
				return PT_OK;
			any = true;
		}
		if (!it.cut || any || pt_readctl_cancelled(rc) || !pt_va_in_space(ctx->fmt, it.cut_va))
			return PT_OK;
		from = it.cut_va;
		budget = budget > UINT64_MAX / 2 ? budget : budget * 2;
	}
}

pt_err pt_tree_list(const struct pt_tree *tree, const struct pt_tnode *dir, uint64_t cookie,
		    pt_tree_list_fn fn, void *ud, struct pt_readctl *rc)
{
	struct fixed_list l = {fn, ud, cookie, 0, false};

	switch (dir->type) {
	case PT_TN_ROOT:
		return list_root(tree, &l);
	case PT_TN_CTXDIR:
		return list_ctxdir(tree, dir, &l);
	case PT_TN_ENTRYDIR:
		return list_entrydir(dir, &l);
	case PT_TN_TABLEDIR:
		return list_table(tree, dir, cookie, fn, ud, rc);
	case PT_TN_VADIR:
		return list_va(tree, dir, cookie, fn, ud, rc);
	case PT_TN_WALKDIR:
	case PT_TN_VSDIR:
		return pt_tree_context(tree, dir) ? PT_OK : PT_E_NOTFOUND;   /* lists nothing */
	case PT_TN_PADIR:
		return list_padir(tree, &l);
	case PT_TN_PASPACE:
		return dir->choice < tree->nspaces ? PT_OK : PT_E_NOTFOUND;   /* lists nothing */
	case PT_TN_IODIR:
		return pt_iotree_list(tree, dir, cookie, fn, ud, rc);
	default:
		return PT_E_USAGE;
	}
}
