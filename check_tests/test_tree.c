/*
 * test_tree: the tree both front ends show (core/tree.c), on the committed
 * fixtures, without FUSE: names and lookups, listings and their cookies
 * (resumed mid-table and mid-va/), kinds and link counts, file contents,
 * link targets, parents, and the errors of nodes that do not resolve.
 */
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
	ck_assert_int_eq(pt_tree_list(t, dir, cookie, collect, l), PT_OK);
}

static const char *names_of(const char *path)
{
	static struct listing l;
	struct pt_tnode d = at(path);

	list_from(tree, &d, 0, &l);
	return l.names;
}

/* ---- names and lookup ---------------------------------------------------- */

START_TEST(lookup_names)
{
	struct pt_tnode n;

	ck_assert_int_eq(at("capture").type, PT_TN_CAPTURE);
	ck_assert_int_eq(at("pdb0").type, PT_TN_CTXDIR);
	ck_assert_uint_eq(at("pdb1").ctx, 1);
	ck_assert_int_eq(at("pdb0/info").type, PT_TN_INFO);
	ck_assert_int_eq(at("pdb0/maps").type, PT_TN_MAPS);
	ck_assert_int_eq(at("pdb0/va").type, PT_TN_VADIR);
	ck_assert_int_eq(at("pdb0/walk").type, PT_TN_WALKDIR);
	n = at("pdb0/pde3");
	ck_assert_int_eq(n.type, PT_TN_TABLEDIR);
	ck_assert_uint_eq(n.node.n, 0);
	ck_assert_int_eq(at("pdb0/pde3/0").type, PT_TN_ENTRYDIR);
	ck_assert_int_eq(at("pdb0/pde3/0/entry").type, PT_TN_ENTRYFILE);
	ck_assert_int_eq(at("pdb0/pde3/0/pde2").type, PT_TN_TABLEDIR);
	ck_assert_int_eq(at("pdb0/pde3/0/pde2/0/pde1/0/pde0/1").type, PT_TN_ENTRYFILE);
	n = at("pdb0/pde3/0/pde2/0/pde1/0/pde0/3/pte_small");
	ck_assert_int_eq(n.type, PT_TN_TABLEDIR);
	ck_assert_uint_eq(n.choice, 1);
	ck_assert_uint_eq(at("pdb0/pde3/0/pde2/0/pde1/0/pde0/3/pte_big").choice, 0);
	/* a captured zero entry is found though it is not listed */
	ck_assert_int_eq(at("pdb0/pde3/1").type, PT_TN_ENTRYFILE);
	/* va/: any VA inside a page names the page's link, in any spelling */
	n = at("pdb0/va/0x400234");
	ck_assert_int_eq(n.type, PT_TN_VALINK);
	ck_assert_uint_eq(n.va, 0x400000);
	ck_assert_uint_eq(at("pdb0/va/400ABC").va, 0x400000);
	/* walk/: any VA at all, also past the VA space */
	n = at("pdb0/walk/0x2000000000000");
	ck_assert_int_eq(n.type, PT_TN_WALKFILE);
	ck_assert_uint_eq(n.va, UINT64_C(0x2000000000000));
}
END_TEST

START_TEST(lookup_misses)
{
	static const char *const missing[] = {
		"nope", "pdb9", "pdb0/pde2", "pdb0/entry", "pdb0/pde3/00", "pdb0/pde3/+0",
		"pdb0/pde3/4", "pdb0/pde3/-1", "pdb0/pde3/0/pde1", "pdb0/pde3/0/1",
		"pdb0/pde3/99999999999999999999", "pdb0/va/0x40b000", "pdb0/va/0x2000000000000",
		"pdb0/va/0xzz", "pdb0/walk/zz",
	};
	struct pt_tnode n;

	for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++)
		ck_assert_msg(path_in(tree, missing[i], &n) == PT_E_NOTFOUND, "%s found", missing[i]);
	/* files and links have no children */
	ck_assert_int_eq(path_in(tree, "capture/x", &n), PT_E_USAGE);
	ck_assert_int_eq(path_in(tree, "pdb0/info/x", &n), PT_E_USAGE);
	ck_assert_int_eq(path_in(tree, "pdb0/va/0x400000/x", &n), PT_E_USAGE);
	ck_assert_int_eq(path_in(tree, "pdb0/walk/0x0/x", &n), PT_E_USAGE);
}
END_TEST

/* ---- listings and cookies ------------------------------------------------ */

START_TEST(list_fixed)
{
	ck_assert_str_eq(names_of(""), "capture pdb0 pdb1 pa");
	ck_assert_str_eq(names_of("pdb0"), "info maps entries map.svg pde3 va walk");
	ck_assert_str_eq(names_of("pdb0/pde3/0"), "entry pde2");
	ck_assert_str_eq(names_of("pdb0/pde3/0/pde2/0/pde1/0/pde0/3"), "entry pte_big pte_small");
	ck_assert_str_eq(names_of("pdb0/walk"), "");
	ck_assert_str_eq(names_of("pdb0/pde3/0/pde2/0/pde1/0/pde0/3/pte_big"), "0 1 3 4");
}
END_TEST

/* Fixed lists: child k has cookie k + 3; resuming at a cookie gives the rest. */
START_TEST(list_fixed_cookies)
{
	struct pt_tnode d = at("pdb0");
	struct listing l;

	list_from(tree, &d, 0, &l);
	ck_assert_uint_eq(l.n, 7);
	for (size_t k = 0; k < l.n; k++)
		ck_assert_uint_eq(l.next[k], k + 3);
	list_from(tree, &d, 1, &l);
	ck_assert_str_eq(l.names, "info maps entries map.svg pde3 va walk");   /* 1, 2: the caller's dots */
	list_from(tree, &d, 2, &l);
	ck_assert_str_eq(l.names, "info maps entries map.svg pde3 va walk");
	list_from(tree, &d, 4, &l);
	ck_assert_str_eq(l.names, "entries map.svg pde3 va walk");
	list_from(tree, &d, 8, &l);
	ck_assert_str_eq(l.names, "walk");
	list_from(tree, &d, 9, &l);
	ck_assert_str_eq(l.names, "");
}
END_TEST

/*
 * Every listing resumed after each of its children gives exactly the rest,
 * and a listing stopped after every child (a full reply buffer) and resumed
 * at the last cookie given rebuilds the whole listing.
 */
static void check_resumption(const struct pt_tree *t, const char *path)
{
	static struct listing all, part;
	static char rebuilt[8192];
	struct pt_tnode d;
	uint64_t cookie = 0;

	ck_assert_int_eq(path_in(t, path, &d), PT_OK);
	list_from(t, &d, 0, &all);
	ck_assert_uint_gt(all.n, 2);
	for (size_t i = 0; i < all.n; i++) {
		list_from(t, &d, all.next[i], &part);
		ck_assert_uint_eq(part.n, all.n - i - 1);
		for (size_t j = 0; j < part.n; j++) {
			ck_assert(same(&part.child[j], &all.child[i + 1 + j]));
			ck_assert_uint_eq(part.next[j], all.next[i + 1 + j]);
		}
		if (i > 0)
			ck_assert_uint_gt(all.next[i], all.next[i - 1]);   /* telldir order */
	}
	rebuilt[0] = 0;
	for (;;) {
		memset(&part, 0, sizeof part);
		part.stop_after = 1;
		ck_assert_int_eq(pt_tree_list(t, &d, cookie, collect, &part), PT_OK);
		if (part.n == 0)
			break;
		if (rebuilt[0])
			strcat(rebuilt, " ");
		strcat(rebuilt, part.names);
		cookie = part.next[0];
	}
	ck_assert_str_eq(rebuilt, all.names);
}

START_TEST(list_table_cookies)
{
	const char *p = "pdb0/pde3/0/pde2/0/pde1/0/pde0/2/pte_small";
	struct pt_tnode d = at(p);
	struct listing l;

	list_from(tree, &d, 0, &l);
	/* entry I has cookie I + 3 */
	for (size_t k = 0; k < l.n; k++) {
		char want[24];

		ck_assert_uint_eq(l.next[k], l.child[k].node.s[l.child[k].node.n - 1].index + 3);
		snprintf(want, sizeof want, "%llu",
			 (unsigned long long)l.child[k].node.s[l.child[k].node.n - 1].index);
		ck_assert_ptr_nonnull(strstr(l.names, want));
	}
	check_resumption(tree, p);
	check_resumption(tree, "pdb0/pde3/0/pde2/0/pde1/0/pde0");
}
END_TEST

START_TEST(list_va_cookies)
{
	struct pt_tnode d = at("pdb0/va");
	struct listing l;

	list_from(tree, &d, 0, &l);
	ck_assert_uint_gt(l.n, 10);
	ck_assert_msg(strncmp(l.names, "0x0000000200000 0x0000000400000 ", 32) == 0, "%.40s", l.names);
	/* a link's cookie: the VA just past its page, + 2 */
	for (size_t k = 0; k < l.n; k++) {
		ck_assert_int_eq(l.child[k].type, PT_TN_VALINK);
		ck_assert_uint_gt(l.next[k], l.child[k].va + 2);
	}
	check_resumption(tree, "pdb0/va");
	check_resumption(tree, "pdb1/va");
}
END_TEST

START_TEST(list_all_entries)
{
	struct pt_tree *all;
	struct pt_tnode d;
	struct listing l;

	ck_assert_int_eq(pt_tree_new(cap, true, &all), PT_OK);
	ck_assert_int_eq(path_in(all, "pdb0/pde3", &d), PT_OK);
	list_from(all, &d, 0, &l);
	ck_assert_str_eq(l.names, "0 1 2 3");
	ck_assert_str_eq(names_of("pdb0/pde3"), "0 2");
	pt_tree_free(all);
}
END_TEST

/* ---- kinds, link counts -------------------------------------------------- */

START_TEST(kinds_nlink)
{
	static const struct {
		const char *path;
		enum pt_tkind kind;
		uint64_t nlink;
	} cases[] = {
		{"", PT_TK_DIR, 2 + 2 + 1},      /* 2 contexts and pa/ */
		{"capture", PT_TK_FILE, 1},
		{"pdb0", PT_TK_DIR, 5},          /* root table, va/, walk/ */
		{"pdb0/info", PT_TK_FILE, 1},
		{"pdb0/maps", PT_TK_FILE, 1},
		{"pdb0/va", PT_TK_DIR, 2},
		{"pdb0/walk", PT_TK_DIR, 2},
		{"pdb0/pde3", PT_TK_DIR, 3},     /* one pointer entry */
		{"pdb0/pde3/0", PT_TK_DIR, 3},   /* one target table */
		{"pdb0/pde3/0/pde2/0/pde1/0/pde0/3", PT_TK_DIR, 4},   /* big and small */
		{"pdb0/pde3/0/pde2/0/pde1/0/pde0/3/pte_small", PT_TK_DIR, 2},
		{"pdb0/pde3/0/entry", PT_TK_FILE, 1},
		{"pdb0/pde3/0/pde2/0/pde1/0/pde0/1", PT_TK_FILE, 1},
		{"pdb0/va/0x400000", PT_TK_LINK, 1},
		{"pdb0/walk/0x400000", PT_TK_FILE, 1},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct pt_tnode n = at(cases[i].path);
		uint64_t nlink = 0;

		ck_assert_msg(pt_tree_kind(&n) == cases[i].kind, "%s: kind", cases[i].path);
		ck_assert_int_eq(pt_tree_nlink(tree, &n, &nlink), PT_OK);
		ck_assert_msg(nlink == cases[i].nlink, "%s: nlink %llu", cases[i].path,
			      (unsigned long long)nlink);
	}
	/* what is worth caching: the renders that scan */
	ck_assert(pt_tree_render_scans(&(struct pt_tnode){.type = PT_TN_CAPTURE}));
	ck_assert(pt_tree_render_scans(&(struct pt_tnode){.type = PT_TN_INFO}));
	ck_assert(pt_tree_render_scans(&(struct pt_tnode){.type = PT_TN_MAPS}));
	ck_assert(!pt_tree_render_scans(&(struct pt_tnode){.type = PT_TN_ENTRYFILE}));
	ck_assert(!pt_tree_render_scans(&(struct pt_tnode){.type = PT_TN_WALKFILE}));
}
END_TEST

/* ---- contents ------------------------------------------------------------ */

/* Renders NODE and compares with what the renderer gives directly in WANT. */
static void render_is(const struct pt_tnode *node, const struct pt_buf *want)
{
	struct pt_buf b;

	pt_buf_init(&b);
	ck_assert_int_eq(pt_tree_render(tree, node, &b), PT_OK);
	ck_assert_uint_gt(b.len, 0);
	ck_assert_uint_eq(b.len, want->len);
	ck_assert_int_eq(memcmp(b.data, want->data, b.len), 0);
	pt_buf_free(&b);
}

START_TEST(contents)
{
	const struct pt_context *ctx = pt_capture_context(cap, 0);
	struct pt_tnode n;
	struct pt_buf want;
	struct pt_walk w;

	pt_buf_init(&want);
	pt_render_capture(&want, cap, PT_OUT_TEXT);
	render_is(&(struct pt_tnode){.type = PT_TN_CAPTURE}, &want);
	pt_buf_reset(&want);
	pt_render_info(&want, ctx, PT_OUT_TEXT);
	n = at("pdb0/info");
	render_is(&n, &want);
	pt_buf_reset(&want);
	pt_render_maps(&want, ctx, PT_OUT_TEXT);
	n = at("pdb0/maps");
	render_is(&n, &want);
	pt_buf_reset(&want);
	pt_walk_va(ctx, 0x401234, &w);
	pt_render_walk(&want, ctx, &w, PT_OUT_TEXT);
	n = at("pdb0/walk/0x401234");
	render_is(&n, &want);
	/* an entry file: the pointer's `entry` and the leaf file are rendered entries */
	pt_buf_reset(&want);
	n = at("pdb0/pde3/0/entry");
	ck_assert_int_eq(pt_tree_render(tree, &n, &want), PT_OK);
	ck_assert_ptr_nonnull(strstr(want.data, "state: pointer\n"));
	pt_buf_reset(&want);
	n = at("pdb0/pde3/0/pde2/0/pde1/0/pde0/1");
	ck_assert_int_eq(pt_tree_render(tree, &n, &want), PT_OK);
	ck_assert_ptr_nonnull(strstr(want.data, "state: mapped\n"));
	/* directories and links have no contents */
	pt_buf_reset(&want);
	n = at("pdb0/pde3");
	ck_assert_int_eq(pt_tree_render(tree, &n, &want), PT_E_USAGE);
	n = at("pdb0/va/0x400000");
	ck_assert_int_eq(pt_tree_render(tree, &n, &want), PT_E_USAGE);
	pt_buf_free(&want);
}
END_TEST

/* ---- links --------------------------------------------------------------- */

START_TEST(links)
{
	struct pt_tnode n = at("pdb0/va/0x401000"), bare;
	char t[256], t2[256];

	ck_assert_int_eq(pt_tree_readlink(tree, &n, t, sizeof t), PT_OK);
	ck_assert_str_eq(t, "../pde3/0/pde2/0/pde1/0/pde0/2/pte_small/1");
	/* without the leaf (a node decoded from an inode) the target comes from a walk */
	bare = n;
	memset(&bare.node, 0, sizeof bare.node);
	ck_assert_int_eq(pt_tree_readlink(tree, &bare, t2, sizeof t2), PT_OK);
	ck_assert_str_eq(t2, t);
	bare.va = 0x401234;   /* not a page's first VA: no such link */
	ck_assert_int_eq(pt_tree_readlink(tree, &bare, t2, sizeof t2), PT_E_NOTFOUND);
	bare.va = 0x40b000;   /* unmapped */
	ck_assert_int_eq(pt_tree_readlink(tree, &bare, t2, sizeof t2), PT_E_NOTFOUND);
	ck_assert_int_eq(pt_tree_readlink(tree, &n, t2, 10), PT_E_TRUNCATED);
	ck_assert_int_eq(pt_tree_readlink(tree, &n, t2, 3), PT_E_TRUNCATED);
	/* every listed link equals the link a lookup of its name gives */
	{
		static struct listing l;
		struct pt_tnode d = at("pdb0/va");
		char *save = NULL, *name;
		size_t k = 0;

		list_from(tree, &d, 0, &l);
		for (name = strtok_r(l.names, " ", &save); name; name = strtok_r(NULL, " ", &save), k++) {
			struct pt_tnode byname;

			ck_assert_int_eq(pt_tree_lookup(tree, &d, name, &byname), PT_OK);
			ck_assert(same(&byname, &l.child[k]));
			ck_assert_int_eq(pt_tree_readlink(tree, &l.child[k], t, sizeof t), PT_OK);
			ck_assert_int_eq(pt_tree_readlink(tree, &byname, t2, sizeof t2), PT_OK);
			ck_assert_str_eq(t, t2);
		}
	}
	n = at("pdb0/info");
	ck_assert_int_eq(pt_tree_readlink(tree, &n, t, sizeof t), PT_E_USAGE);
}
END_TEST

/* ---- parents and consistency over whole trees ---------------------------- */

struct walker {
	const struct pt_tree *t;
	const struct pt_tnode *dir;
	size_t nodes;
};

static bool visit(void *ud, const char *name, const struct pt_tnode *child, uint64_t next);

static void visit_dir(const struct pt_tree *t, const struct pt_tnode *dir, size_t *nodes)
{
	struct walker w = {t, dir, 0};

	ck_assert_int_eq(pt_tree_list(t, dir, 0, visit, &w), PT_OK);
	*nodes += w.nodes;
}

/* Every listed child: found by its name, its parent is the directory listing it. */
static bool visit(void *ud, const char *name, const struct pt_tnode *child, uint64_t next)
{
	struct walker *w = ud;
	struct pt_tnode byname, parent;
	uint64_t nlink;

	(void)next;
	w->nodes++;
	ck_assert_int_eq(pt_tree_lookup(w->t, w->dir, name, &byname), PT_OK);
	ck_assert_msg(same(&byname, child), "%s: lookup differs from the listing", name);
	ck_assert_int_eq(pt_tree_parent(w->t, child, &parent), PT_OK);
	ck_assert_msg(same(&parent, w->dir), "%s: parent is not the directory listing it", name);
	ck_assert_int_eq(pt_tree_nlink(w->t, child, &nlink), PT_OK);
	if (pt_tree_kind(child) == PT_TK_DIR)
		visit_dir(w->t, child, &w->nodes);
	return true;
}

START_TEST(parents_every_fixture)
{
	static const char *const fixtures[] = {
		"turing-mixed.tar.gz", "turing-mixed-after.tar.gz", "gart-cosim.tar.gz",
		"gart-umr-kat.tar.gz",
	};
	struct pt_tnode root, p;

	pt_tree_root(&root);
	ck_assert_int_eq(pt_tree_parent(tree, &root, &p), PT_OK);
	ck_assert(same(&p, &root));
	for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
		struct pt_capture *c = load(fixtures[i]);
		struct pt_tree *t;
		size_t nodes = 0;

		ck_assert_int_eq(pt_tree_new(c, i % 2 == 0, &t), PT_OK);
		visit_dir(t, &root, &nodes);
		ck_assert_msg(nodes > 10, "%s: %zu nodes", fixtures[i], nodes);
		pt_tree_free(t);
		pt_capture_free(c);
	}
	/* files: a leaf's parent is its table, a pointer's `entry` its directory */
	p = at("pdb0/pde3/0/pde2/0/pde1/0/pde0/1");
	ck_assert_int_eq(pt_tree_parent(tree, &p, &p), PT_OK);
	{
		struct pt_tnode want = at("pdb0/pde3/0/pde2/0/pde1/0/pde0");

		ck_assert(same(&p, &want));
	}
}
END_TEST

/* ---- errors -------------------------------------------------------------- */

START_TEST(errors)
{
	struct pt_tnode n, c;
	struct listing l;
	struct pt_buf b;
	uint64_t nlink;

	pt_buf_init(&b);
	/* an entry directory whose entry is not a pointer (pde3/1 is zero) */
	n = at("pdb0/pde3/0");
	n.node.s[0].index = 1;
	ck_assert_int_eq(pt_tree_nlink(tree, &n, &nlink), PT_E_NOTFOUND);
	ck_assert_int_eq(pt_tree_list(tree, &n, 0, collect, &l), PT_E_NOTFOUND);
	ck_assert_int_eq(pt_tree_lookup(tree, &n, "entry", &c), PT_E_NOTFOUND);
	/* past the table */
	n.node.s[0].index = 4;
	n.type = PT_TN_ENTRYFILE;
	ck_assert_int_eq(pt_tree_render(tree, &n, &b), PT_E_NOTFOUND);
	ck_assert_int_eq(pt_tree_parent(tree, &n, &c), PT_E_NOTFOUND);
	/* a table behind a target the entry does not have */
	n = at("pdb0/pde3/0/pde2");
	n.choice = 1;
	ck_assert_int_eq(pt_tree_nlink(tree, &n, &nlink), PT_E_NOTFOUND);
	ck_assert_int_eq(pt_tree_lookup(tree, &n, "0", &c), PT_E_NOTFOUND);
	/* a context that does not exist */
	n = at("pdb0/info");
	n.ctx = 7;
	ck_assert_int_eq(pt_tree_render(tree, &n, &b), PT_E_NOTFOUND);
	n = at("pdb0/va");
	n.ctx = 7;
	ck_assert_int_eq(pt_tree_list(tree, &n, 0, collect, &l), PT_E_NOTFOUND);
	/* not a directory */
	n = at("capture");
	ck_assert_int_eq(pt_tree_list(tree, &n, 0, collect, &l), PT_E_USAGE);
	pt_buf_free(&b);
}
END_TEST


/* ---- CTX/entries --------------------------------------------------------- */

static const char *const fixtures[] = {
	"turing-mixed.tar.gz", "turing-mixed-after.tar.gz", "gart-cosim.tar.gz",
	"gart-umr-kat.tar.gz",
};

/*
 * The lines CTX/entries must hold, built from the tree as a user sees it: a
 * depth-first recursion over the listings, one line per entry file, its
 * path, then each `key: value` of the file as ` key=value`.
 */
struct expect {
	const struct pt_tree *t;
	const char *path;
	struct pt_buf *out;
};

static void expect_lines(const struct pt_tree *t, const struct pt_tnode *dir, const char *path,
			 struct pt_buf *out);

/* pt_tree_list() callback of expect_lines(): recurses as export does. */
static bool expect_child(void *ud, const char *name, const struct pt_tnode *child, uint64_t next)
{
	struct expect *x = ud;
	char sub[600];

	(void)next;
	snprintf(sub, sizeof sub, "%s/%s", x->path, name);
	if (child->type == PT_TN_ENTRYFILE) {
		struct pt_buf f;

		pt_buf_init(&f);
		ck_assert_int_eq(pt_tree_render(x->t, child, &f), PT_OK);
		pt_buf_puts(x->out, sub);
		for (char *line = f.data, *nl; line && *line; line = nl + 1) {
			char *colon = strstr(line, ": ");

			nl = strchr(line, '\n');
			ck_assert_ptr_nonnull(nl);
			ck_assert_ptr_nonnull(colon);
			pt_buf_printf(x->out, " %.*s=%.*s", (int)(colon - line), line,
				      (int)(nl - colon - 2), colon + 2);
		}
		pt_buf_puts(x->out, "\n");
		pt_buf_free(&f);
	} else if (pt_tree_kind(child) == PT_TK_DIR) {
		expect_lines(x->t, child, sub, x->out);
	}
	return true;
}

static void expect_lines(const struct pt_tree *t, const struct pt_tnode *dir, const char *path,
			 struct pt_buf *out)
{
	struct expect x = {t, path, out};

	ck_assert_int_eq(pt_tree_list(t, dir, 0, expect_child, &x), PT_OK);
}

/* The entries node: listed after maps, a file, its parent the context. */
START_TEST(entries_node)
{
	struct pt_tnode n = at("pdb1/entries"), p, cd = at("pdb1");

	ck_assert_int_eq(n.type, PT_TN_ENTRIES);
	ck_assert_uint_eq(n.ctx, 1);
	ck_assert_int_eq(pt_tree_kind(&n), PT_TK_FILE);
	ck_assert(pt_tree_render_scans(&n));
	ck_assert_int_eq(pt_tree_parent(tree, &n, &p), PT_OK);
	ck_assert(same(&p, &cd));
	ck_assert_int_eq(path_in(tree, "pdb0/entries/x", &p), PT_E_USAGE);
}
END_TEST

/* Every fixture, with and without all_entries: the text is exactly the entry files in tree order. */
START_TEST(entries_equal_tree)
{
	for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
		for (int all = 0; all < 2; all++) {
			struct pt_capture *c = load(fixtures[i]);
			struct pt_tree *t;

			ck_assert_int_eq(pt_tree_new(c, all, &t), PT_OK);
			for (unsigned k = 0; k < pt_capture_context_count(c); k++) {
				struct pt_tnode root, cd, rt, en;
				struct pt_buf want, got;
				const char *name = pt_capture_context(c, k)->name;

				pt_buf_init(&want);
				pt_buf_init(&got);
				pt_tree_root(&root);
				ck_assert_int_eq(pt_tree_lookup(t, &root, name, &cd), PT_OK);
				ck_assert_int_eq(pt_tree_lookup(t, &cd, pt_capture_context(c, k)->fmt->levels[0].name, &rt), PT_OK);
				expect_lines(t, &rt, pt_capture_context(c, k)->fmt->levels[0].name, &want);
				ck_assert_int_eq(pt_tree_lookup(t, &cd, "entries", &en), PT_OK);
				ck_assert_int_eq(pt_tree_render(t, &en, &got), PT_OK);
				ck_assert_msg(want.len > 0, "%s %s: no entries", fixtures[i], name);
				ck_assert_msg(got.len == want.len && memcmp(got.data, want.data, got.len) == 0,
					      "%s %s all=%d: entries differ from the tree", fixtures[i], name, all);
				pt_buf_free(&want);
				pt_buf_free(&got);
			}
			pt_tree_free(t);
			pt_capture_free(c);
		}
	}
}
END_TEST

/* `grep read_only=1 entries` finds exactly the entry files holding `read_only: 1`. */
START_TEST(entries_grep_read_only)
{
	struct pt_buf text, files;
	struct pt_tnode cd;
	size_t nro = 0, nfiles = 0;

	pt_buf_init(&text);
	pt_buf_init(&files);
	cd = at("pdb0/pde3");
	expect_lines(tree, &cd, "pde3", &files);   /* built from the entry files */
	ck_assert_int_eq(pt_entries_render(tree, 0, PT_ENTRIES_LINES_MAX, &text), PT_OK);
	for (char *l = text.data, *nl; l && *l; l = nl + 1) {
		char file[512];
		struct pt_buf one;
		struct pt_tnode e;

		nl = strchr(l, '\n');
		*nl = 0;
		if (!strstr(l, " read_only=1 ")) {
			*nl = '\n';
			continue;
		}
		nro++;
		/* the file the line names says read_only: 1 */
		snprintf(file, sizeof file, "pdb0/%.*s", (int)strcspn(l, " "), l);
		e = at(file);
		pt_buf_init(&one);
		ck_assert_int_eq(pt_tree_render(tree, &e, &one), PT_OK);
		ck_assert_msg(strstr(one.data, "\nread_only: 1\n"), "%s", file);
		pt_buf_free(&one);
		*nl = '\n';
	}
	/* and every entry file that says so has its line */
	for (char *l = files.data; l && *l; l = strchr(l, '\n') + 1) {
		char *nl = strchr(l, '\n');

		*nl = 0;
		if (strstr(l, " read_only=1 "))
			nfiles++;
		*nl = '\n';
	}
	ck_assert_uint_gt(nro, 0);
	ck_assert_uint_eq(nro, nfiles);
	pt_buf_free(&text);
	pt_buf_free(&files);
}
END_TEST

/* The checkpointed file: exact size, any slice equals the full render's, resumption. */
START_TEST(entries_file_slices)
{
	struct pt_capture *c = load("turing-mixed.tar.gz");
	struct pt_tree *t;
	struct pt_entries_file f;
	struct pt_buf full, part;
	uint64_t seed = 12345;

	ck_assert_int_eq(pt_tree_new(c, true, &t), PT_OK);   /* all_entries: ~1.5 MB */
	pt_buf_init(&full);
	pt_buf_init(&part);
	ck_assert_int_eq(pt_entries_render(t, 0, PT_ENTRIES_LINES_MAX, &full), PT_OK);
	ck_assert_int_eq(pt_entries_file_build(t, 0, PT_ENTRIES_LINES_MAX, 0, &f), PT_OK);
	ck_assert_uint_eq(f.size, full.len);
	ck_assert_uint_gt(f.ncp, 10);
	ck_assert_uint_le(f.ncp, full.len / PT_ENTRIES_CHECKPOINT + 1);
	for (size_t k = 0; k < f.ncp; k++) {
		ck_assert(k == 0 || f.cp[k].off >= f.cp[k - 1].off + PT_ENTRIES_CHECKPOINT);
		ck_assert(f.cp[k].off == 0 || full.data[f.cp[k].off - 1] == '\n');
	}
	for (int i = 0; i < 300; i++) {
		uint64_t off, size;

		seed = seed * 6364136223846793005u + 1442695040888963407u;
		off = (seed >> 20) % (full.len + 100);
		size = i < 10 ? (uint64_t)1 << (i + 8) : (seed >> 44) % 140000;
		if (i % 50 == 0)
			off = f.cp[(size_t)(seed >> 33) % f.ncp].off;   /* exactly at a checkpoint */
		pt_buf_reset(&part);
		ck_assert_int_eq(pt_entries_file_read(t, &f, off, (size_t)size, &part), PT_OK);
		if (off >= full.len) {
			ck_assert_uint_eq(part.len, 0);
			continue;
		}
		ck_assert_uint_eq(part.len, off + size > full.len ? full.len - off : size);
		ck_assert(part.len == 0 || memcmp(part.data, full.data + off, part.len) == 0);
	}
	/* sequential reads in odd blocks rebuild the whole text */
	pt_buf_reset(&part);
	for (uint64_t off = 0; off < f.size; off += 4097)
		ck_assert_int_eq(pt_entries_file_read(t, &f, off, 4097, &part), PT_OK);
	ck_assert(part.len == full.len && memcmp(part.data, full.data, full.len) == 0);
	ck_assert_uint_eq(f.text.len, 0);   /* keep_max 0: nothing kept, every read rendered */
	pt_entries_file_free(&f);
	/* a budget one byte short keeps nothing; the exact size keeps the text, and reads copy it */
	ck_assert_int_eq(pt_entries_file_build(t, 0, PT_ENTRIES_LINES_MAX, full.len - 1, &f), PT_OK);
	ck_assert_uint_eq(f.text.len, 0);
	pt_entries_file_free(&f);
	ck_assert_int_eq(pt_entries_file_build(t, 0, PT_ENTRIES_LINES_MAX, full.len, &f), PT_OK);
	ck_assert_uint_eq(f.size, full.len);
	ck_assert(f.text.len == full.len && memcmp(f.text.data, full.data, full.len) == 0);
	for (int i = 0; i < 100; i++) {
		uint64_t off, size;

		seed = seed * 6364136223846793005u + 1442695040888963407u;
		off = (seed >> 20) % (full.len + 100);
		size = (seed >> 44) % 140000 + 1;
		pt_buf_reset(&part);
		ck_assert_int_eq(pt_entries_file_read(t, &f, off, (size_t)size, &part), PT_OK);
		ck_assert_uint_eq(part.len, off >= full.len ? 0 : off + size > full.len ? full.len - off : size);
		ck_assert(part.len == 0 || memcmp(part.data, full.data + off, part.len) == 0);
	}
	pt_entries_file_free(&f);
	pt_buf_free(&full);
	pt_buf_free(&part);
	pt_tree_free(t);
	pt_capture_free(c);
}
END_TEST

/* Past lines_max entry lines: one `# truncated` line, the same in the render, the size and every slice. */
START_TEST(entries_truncated)
{
	struct pt_capture *c = load("turing-mixed.tar.gz");
	struct pt_tree *t;
	struct pt_entries_file f;
	struct pt_buf full, cut, part;
	const char *p;
	size_t head;

	ck_assert_int_eq(pt_tree_new(c, true, &t), PT_OK);
	pt_buf_init(&full);
	pt_buf_init(&cut);
	pt_buf_init(&part);
	ck_assert_int_eq(pt_entries_render(t, 0, PT_ENTRIES_LINES_MAX, &full), PT_OK);
	ck_assert_int_eq(pt_entries_render(t, 0, 1000, &cut), PT_OK);
	p = full.data;
	for (int i = 0; i < 1000; i++)
		p = strchr(p, '\n') + 1;
	head = (size_t)(p - full.data);
	ck_assert_uint_eq(cut.len, head + strlen("# truncated\n"));
	ck_assert(memcmp(cut.data, full.data, head) == 0);
	ck_assert_str_eq(cut.data + head, "# truncated\n");
	ck_assert_int_eq(pt_entries_file_build(t, 0, 1000, 0, &f), PT_OK);
	ck_assert_uint_eq(f.size, cut.len);
	ck_assert_uint_gt(f.ncp, 2);
	for (uint64_t off = 0; off < f.size + 10; off += 3001) {
		pt_buf_reset(&part);
		ck_assert_int_eq(pt_entries_file_read(t, &f, off, 70001, &part), PT_OK);
		ck_assert_uint_eq(part.len, off >= cut.len ? 0 : cut.len - off < 70001 ? cut.len - off : 70001);
		ck_assert(part.len == 0 || memcmp(part.data, cut.data + off, part.len) == 0);
	}
	pt_entries_file_free(&f);
	pt_buf_free(&full);
	pt_buf_free(&cut);
	pt_buf_free(&part);
	pt_tree_free(t);
	pt_capture_free(c);
}
END_TEST

/* The iterator resumes at any entry it gave: the rest equals the rest of a full walk. */
START_TEST(entries_seek)
{
	struct pt_entries_iter it, it2;
	struct pt_tnode all[256], e;
	size_t n = 0;

	ck_assert_int_eq(pt_entries_begin(&it, tree, 1), PT_OK);
	while (pt_entries_next(&it, &e) == PT_OK) {
		ck_assert_uint_lt(n, 256);
		all[n++] = e;
	}
	ck_assert_int_eq(pt_entries_next(&it, &e), PT_E_NOTFOUND);
	ck_assert_uint_gt(n, 10);
	for (size_t k = 0; k < n; k++) {
		size_t j = k;

		ck_assert_int_eq(pt_entries_seek(&it2, tree, &all[k]), PT_OK);
		while (pt_entries_next(&it2, &e) == PT_OK) {
			ck_assert_uint_lt(j, n);
			ck_assert_msg(same(&e, &all[j]), "seek %zu: entry %zu differs", k, j);
			j++;
		}
		ck_assert_uint_eq(j, n);
	}
	e = at("pdb0/info");
	ck_assert_int_eq(pt_entries_seek(&it2, tree, &e), PT_E_USAGE);
}
END_TEST

/* ---- pa/ ----------------------------------------------------------------- */

START_TEST(pa_lookup)
{
	struct pt_pa_index *ix = pt_pa_index_new(cap);
	struct pt_tnode n;
	struct pt_buf want;
	uint64_t nlink;

	ck_assert_ptr_nonnull(ix);
	/* one directory per space of the format, listing nothing */
	ck_assert_str_eq(names_of("pa"),
			 "vidmem sysmem peer0 peer1 peer2 peer3 peer4 peer5 peer6 peer7");
	ck_assert_str_eq(names_of("pa/vidmem"), "");
	n = at("pa/vidmem");
	ck_assert(pt_tree_kind(&n) == PT_TK_DIR);
	ck_assert_int_eq(pt_tree_nlink(tree, &n, &nlink), PT_OK);
	ck_assert_uint_eq(nlink, 2);
	n = at("pa");
	ck_assert_int_eq(pt_tree_nlink(tree, &n, &nlink), PT_OK);
	ck_assert_uint_eq(nlink, 2 + 10);
	/* a byte of SPT1 page 0, shared by pdb0 and pdb1 (twice): the file is pt_render_pa's */
	pt_buf_init(&want);
	ck_assert_int_eq(pt_render_pa(&want, ix, 0, 0x10000234, PT_OUT_TEXT, NULL), PT_OK);
	n = at("pa/vidmem/0x10000234");
	ck_assert(pt_tree_kind(&n) == PT_TK_FILE);
	render_is(&n, &want);
	ck_assert_ptr_nonnull(strstr(want.data, "pdb0 0x0000000400234 "));
	ck_assert_ptr_nonnull(strstr(want.data, "pdb1 0x0000000200234 "));
	ck_assert_ptr_nonnull(strstr(want.data, "pdb1 0x0000020400234 "));
	/* the same byte by another spelling of its address */
	n = at("pa/vidmem/0x0000010000234");
	render_is(&n, &want);
	/* nothing maps it, a bad space, a bad name: not found */
	ck_assert_int_eq(path_in(tree, "pa/vidmem/0x7777000", &n), PT_E_NOTFOUND);
	ck_assert_int_eq(path_in(tree, "pa/bogus", &n), PT_E_NOTFOUND);
	ck_assert_int_eq(path_in(tree, "pa/vidmem/zz", &n), PT_E_NOTFOUND);
	ck_assert_int_eq(path_in(tree, "pa/vidmem/0x10000234/x", &n), PT_E_USAGE);
	/* parents */
	n = at("pa/vidmem/0x10000234");
	ck_assert_int_eq(pt_tree_parent(tree, &n, &n), PT_OK);
	ck_assert(n.type == PT_TN_PASPACE && n.choice == 0);
	ck_assert_int_eq(pt_tree_parent(tree, &n, &n), PT_OK);
	ck_assert(n.type == PT_TN_PADIR);
	ck_assert_int_eq(pt_tree_parent(tree, &n, &n), PT_OK);
	ck_assert(n.type == PT_TN_ROOT);
	pt_buf_free(&want);
	pt_pa_index_free(ix);
}
END_TEST

/*
 * pt_node_resolve() keeps the tables of the last path per thread: in any
 * order, a resolve gives what a walk from the root gives.  A node of the
 * other context (another serial) clears that cache first.
 */
START_TEST(resolve_any_order)
{
	const struct pt_context *c0 = pt_capture_context(cap, 0), *c1 = pt_capture_context(cap, 1);
	static struct pt_node nodes[600];
	struct pt_page_iter it;
	struct pt_page pg;
	struct pt_node other, bad;
	struct pt_loc loc;
	size_t nn = 0;
	uint64_t seed = 4242;

	ck_assert_ptr_nonnull(c1);
	ck_assert(c0->serial != 0 && c1->serial != 0 && c0->serial != c1->serial);
	pt_pages_init(&it, c0, 0);
	while (nn + 2 < sizeof nodes / sizeof nodes[0] && pt_pages_next(&it, &pg)) {
		nodes[nn++] = pg.node;
		nodes[nn] = pg.node;   /* and the pointer above it */
		nodes[nn++].n--;
	}
	ck_assert_uint_gt(nn, 20);
	pt_pages_init(&it, c1, 0);
	ck_assert(pt_pages_next(&it, &pg));
	other = pg.node;
	for (size_t i = 0; i < nn; i++) {
		struct pt_loc fresh, cached;

		if (nodes[i].n == 0)
			continue;
		ck_assert_int_eq(pt_node_resolve(&other, &loc), PT_OK);
		ck_assert_int_eq(pt_node_resolve(&nodes[i], &fresh), PT_OK);
		for (int k = 0; k < 3; k++) {
			seed = seed * 6364136223846793005u + 1442695040888963407u;
			size_t j = (seed >> 33) % nn;
			char pth[256];

			pt_node_path(&nodes[j], pth, sizeof pth);
			/* e.g. pde0/3/pte_big/0 right after pde0/3/pte_small/N: one entry, two tables */
			ck_assert_msg(pt_node_resolve(&nodes[j], &loc) == PT_OK, "%s after %s", pth,
				      i ? "a cousin" : "the first");
		}
		ck_assert_int_eq(pt_node_resolve(&nodes[i], &cached), PT_OK);
		ck_assert(fresh.table.addr == cached.table.addr && fresh.table.level == cached.table.level &&
			  fresh.table.space == cached.table.space &&
			  fresh.table.entries == cached.table.entries &&
			  fresh.table.va_base == cached.table.va_base &&
			  fresh.table.page_shift == cached.table.page_shift);
		ck_assert(fresh.index == cached.index && fresh.entry.state == cached.entry.state &&
			  fresh.entry.raw[0] == cached.entry.raw[0] &&
			  fresh.entry.raw[1] == cached.entry.raw[1] && fresh.entry.pa == cached.entry.pa);
		/* past the end of the same table: not found, even with its path cached */
		bad = nodes[i];
		bad.s[bad.n - 1].index = cached.table.entries;
		ck_assert_int_eq(pt_node_resolve(&bad, &loc), PT_E_NOTFOUND);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tree");
	struct {
		const char *name;
		const TTest *tests[4];
	} areas[] = {
		{"names", {lookup_names, lookup_misses}},
		{"listings", {list_fixed, list_fixed_cookies, list_table_cookies, list_va_cookies}},
		{"all_entries", {list_all_entries}},
		{"kinds", {kinds_nlink}},
		{"contents", {contents}},
		{"links", {links}},
		{"parents", {parents_every_fixture}},
		{"errors", {errors}},
		{"entries", {entries_node, entries_equal_tree, entries_grep_read_only, entries_file_slices}},
		{"entries_seek", {entries_seek, entries_truncated}},
		{"pa", {pa_lookup}},
		{"resolve", {resolve_any_order}},
	};

	for (size_t i = 0; i < sizeof areas / sizeof areas[0]; i++) {
		TCase *tc = tcase_create(areas[i].name);

		tcase_add_checked_fixture(tc, setup, teardown);
		for (size_t k = 0; k < 4 && areas[i].tests[k]; k++)
			tcase_add_test(tc, areas[i].tests[k]);
		suite_add_tcase(s, tc);
	}
	return s;
}

int main(void)
{
	return tu_run(suite());
}
