/* SPDX-License-Identifier: MIT */
/*
 * tree_int.h — what the two halves of the tree share (core/view only):
 * tree.c resolves names, parents, sizes and contents; tree_list.c lists
 * directories.  The struct is private to them; everyone else sees the
 * opaque struct pt_tree of pt_tree.h.
 */
#ifndef PT_TREE_INT_H
#define PT_TREE_INT_H

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
};

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

#endif
