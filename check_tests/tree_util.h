/*
 * tree_util.h — what the parts of test_tree.c share: its includes, helpers
 * and fixtures, one copy per part (static: each part uses some of them,
 * hence the unused warnings are off here).  The parts are one Check binary;
 * each adds its TCases (tree_add_*()).
 */
#ifndef TREE_UTIL_H
#define TREE_UTIL_H

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-variable"
#endif
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_capture.h"
#include "pt_entries.h"
#include "pt_pa.h"
#include "pt_tree.h"
#include "testutil.h"

static struct pt_capture *cap;
static struct pt_tree *tree;

static struct pt_capture *load(const char *name)
{
	struct pt_capture *c = pt_capture_new();

	ck_assert_ptr_nonnull(c);
	ck_assert_msg(pt_capture_load(c, tu_fixture(name)) == PT_OK, "%s: %s", name,
		      pt_capture_error(c));
	return c;
}

static void setup(void)
{
	cap = load("turing-mixed.tar.gz");
	ck_assert_int_eq(pt_tree_new(cap, false, &tree), PT_OK);
}

static void teardown(void)
{
	pt_tree_free(tree);
	pt_capture_free(cap);
}

/* Looks up the slash-separated PATH from the root of T; the result of the last step. */
static pt_err path_in(const struct pt_tree *t, const char *path, struct pt_tnode *out)
{
	char buf[512], *save = NULL;
	struct pt_tnode cur;
	pt_err err = PT_OK;

	snprintf(buf, sizeof buf, "%s", path);
	pt_tree_root(&cur);
	for (char *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		struct pt_tnode next;

		err = pt_tree_lookup(t, &cur, c, &next);
		if (err != PT_OK)
			return err;
		cur = next;
	}
	*out = cur;
	return err;
}

static struct pt_tnode at(const char *path)
{
	struct pt_tnode n;
	pt_err err = path_in(tree, path, &n);

	ck_assert_msg(err == PT_OK, "%s: %s", path, pt_strerror(err));
	return n;
}

static bool same(const struct pt_tnode *a, const struct pt_tnode *b)
{
	if (a->type != b->type || a->ctx != b->ctx || a->choice != b->choice || a->va != b->va ||
	    a->node.n != b->node.n)
		return false;
	for (unsigned k = 0; k < a->node.n; k++)
		if (a->node.s[k].level != b->node.s[k].level ||
		    a->node.s[k].index != b->node.s[k].index)
			return false;
	return true;
}

/* A listing collected: names joined by spaces, the children, their cookies. */
#define MAXL 256
struct listing {
	char names[8192];
	struct pt_tnode child[MAXL];
	uint64_t next[MAXL];
	size_t n;
	size_t stop_after;   /* 0: never stop */
};

static bool collect(void *ud, const char *name, const struct pt_tnode *child, uint64_t next)
{
	struct listing *l = ud;

	if (l->stop_after && l->n == l->stop_after)
		return false;
	ck_assert_uint_lt(l->n, MAXL);
	if (l->n)
		strcat(l->names, " ");
	strcat(l->names, name);
	l->child[l->n] = *child;
	l->next[l->n] = next;
	l->n++;
	return true;
}

static void list_from(const struct pt_tree *t, const struct pt_tnode *dir, uint64_t cookie,
		      struct listing *l)
{
	memset(l, 0, sizeof(*l));
	ck_assert_int_eq(pt_tree_list(t, dir, cookie, collect, l, NULL), PT_OK);
}

static const char *names_of(const char *path)
{
	static struct listing l;
	struct pt_tnode d = at(path);

	list_from(tree, &d, 0, &l);
	return l.names;
}


void tree_add_entries(Suite *s);

#endif
