/*
 * test_tree: the tree both front ends show (core/tree.c), on the committed
 * fixtures, without FUSE: names and lookups, listings and their cookies
 * (resumed mid-table and mid-va/), kinds and link counts, file contents,
 * link targets, parents, and the errors of nodes that do not resolve.
 */
#include "pt_xcheck.h"
#include "tree_util.h"
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
	ck_assert_uint_eq(at("pdb0/va/0X400ABC").va, 0x400000);
	/* decimal names are decimal: 4195004 is 0x4002bc (issue #25 item 1) */
	ck_assert_uint_eq(at("pdb0/va/4195004").va, 0x400000);
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
		/* vs/: another context only, not the context itself, nor the root's file */
		"pdb0/vs/pdb0", "pdb0/vs/capture", "pdb0/vs/pa", "pdb0/vs/nope",
		/* a hex number without its 0x: not a name (issue #25 item 1) */
		"pdb0/va/400ABC", "pdb0/walk/4198a00", "pa/vidmem/1000abc",
	};
	struct pt_tnode n;

	for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++)
		ck_assert_msg(path_in(tree, missing[i], &n) == PT_E_NOTFOUND, "%s found", missing[i]);
	/* files and links have no children */
	ck_assert_int_eq(path_in(tree, "capture/x", &n), PT_E_USAGE);
	ck_assert_int_eq(path_in(tree, "pdb0/info/x", &n), PT_E_USAGE);
	ck_assert_int_eq(path_in(tree, "pdb0/va/0x400000/x", &n), PT_E_USAGE);
	ck_assert_int_eq(path_in(tree, "pdb0/walk/0x0/x", &n), PT_E_USAGE);
	ck_assert_int_eq(path_in(tree, "pdb0/vs/pdb1/x", &n), PT_E_USAGE);
}
END_TEST

/* ---- listings and cookies ------------------------------------------------ */

START_TEST(list_fixed)
{
	ck_assert_str_eq(names_of(""), "capture pdb0 pdb1 pa");
	ck_assert_str_eq(names_of("pdb0"), "info maps entries map.svg pde3 va walk vs");
	ck_assert_str_eq(names_of("pdb0/pde3/0"), "entry pde2");
	ck_assert_str_eq(names_of("pdb0/pde3/0/pde2/0/pde1/0/pde0/3"), "entry pte_big pte_small");
	ck_assert_str_eq(names_of("pdb0/walk"), "");
	ck_assert_str_eq(names_of("pdb0/vs"), "");   /* lookup-only */
	ck_assert_str_eq(names_of("pdb0/pde3/0/pde2/0/pde1/0/pde0/3/pte_big"), "0 1 3 4");
}
END_TEST

/* Fixed lists: child k has cookie k + 3; resuming at a cookie gives the rest. */
START_TEST(list_fixed_cookies)
{
	struct pt_tnode d = at("pdb0");
	struct listing l;

	list_from(tree, &d, 0, &l);
	ck_assert_uint_eq(l.n, 8);
	for (size_t k = 0; k < l.n; k++)
		ck_assert_uint_eq(l.next[k], k + 3);
	list_from(tree, &d, 1, &l);
	ck_assert_str_eq(l.names, "info maps entries map.svg pde3 va walk vs");   /* 1, 2: the caller's dots */
	list_from(tree, &d, 2, &l);
	ck_assert_str_eq(l.names, "info maps entries map.svg pde3 va walk vs");
	list_from(tree, &d, 4, &l);
	ck_assert_str_eq(l.names, "entries map.svg pde3 va walk vs");
	list_from(tree, &d, 8, &l);
	ck_assert_str_eq(l.names, "walk vs");
	list_from(tree, &d, 9, &l);
	ck_assert_str_eq(l.names, "vs");
	list_from(tree, &d, 10, &l);
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
		ck_assert_int_eq(pt_tree_list(t, &d, cookie, collect, &part, NULL), PT_OK);
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
		{"pdb0", PT_TK_DIR, 6},          /* root table, va/, walk/, vs/ */
		{"pdb0/vs", PT_TK_DIR, 2},
		{"pdb0/vs/pdb1", PT_TK_FILE, 1},
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
		ck_assert_int_eq(pt_tree_nlink(tree, &n, &nlink, NULL), PT_OK);
		ck_assert_msg(nlink == cases[i].nlink, "%s: nlink %llu", cases[i].path,
			      (unsigned long long)nlink);
	}
	/* what is worth caching: the renders that scan */
	ck_assert(pt_tree_render_scans(&(struct pt_tnode){.type = PT_TN_CAPTURE}));
	ck_assert(pt_tree_render_scans(&(struct pt_tnode){.type = PT_TN_INFO}));
	ck_assert(pt_tree_render_scans(&(struct pt_tnode){.type = PT_TN_MAPS}));
	ck_assert(pt_tree_render_scans(&(struct pt_tnode){.type = PT_TN_VSFILE}));
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
	ck_assert_int_eq(pt_tree_render(tree, node, &b, NULL), PT_OK);
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
	pt_render_info(&want, ctx, PT_OUT_TEXT, NULL);
	n = at("pdb0/info");
	render_is(&n, &want);
	pt_buf_reset(&want);
	pt_render_maps(&want, ctx, PT_OUT_TEXT, NULL);
	n = at("pdb0/maps");
	render_is(&n, &want);
	pt_buf_reset(&want);
	pt_walk_va(ctx, 0x401234, &w);
	pt_render_walk(&want, ctx, &w, PT_OUT_TEXT);
	n = at("pdb0/walk/0x401234");
	render_is(&n, &want);
	/* vs/OTHER: the whole comparison, as crosscheck renders it */
	pt_buf_reset(&want);
	ck_assert_int_eq(pt_render_xcheck(&want, ctx, pt_capture_context(cap, 1), PT_OUT_TEXT, NULL),
			 PT_OK);
	n = at("pdb0/vs/pdb1");
	ck_assert_int_eq(n.type, PT_TN_VSFILE);
	ck_assert_uint_eq(n.choice, 1);
	render_is(&n, &want);
	ck_assert_ptr_nonnull(strstr(want.data, "\n# summary: "));
	/* an entry file: the pointer's `entry` and the leaf file are rendered entries */
	pt_buf_reset(&want);
	n = at("pdb0/pde3/0/entry");
	ck_assert_int_eq(pt_tree_render(tree, &n, &want, NULL), PT_OK);
	ck_assert_ptr_nonnull(strstr(want.data, "state: pointer\n"));
	pt_buf_reset(&want);
	n = at("pdb0/pde3/0/pde2/0/pde1/0/pde0/1");
	ck_assert_int_eq(pt_tree_render(tree, &n, &want, NULL), PT_OK);
	ck_assert_ptr_nonnull(strstr(want.data, "state: mapped\n"));
	/* directories and links have no contents */
	pt_buf_reset(&want);
	n = at("pdb0/pde3");
	ck_assert_int_eq(pt_tree_render(tree, &n, &want, NULL), PT_E_USAGE);
	n = at("pdb0/va/0x400000");
	ck_assert_int_eq(pt_tree_render(tree, &n, &want, NULL), PT_E_USAGE);
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

	ck_assert_int_eq(pt_tree_list(t, dir, 0, visit, &w, NULL), PT_OK);
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
	ck_assert_int_eq(pt_tree_nlink(w->t, child, &nlink, NULL), PT_OK);
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
	ck_assert_int_eq(pt_tree_nlink(tree, &n, &nlink, NULL), PT_E_NOTFOUND);
	ck_assert_int_eq(pt_tree_list(tree, &n, 0, collect, &l, NULL), PT_E_NOTFOUND);
	ck_assert_int_eq(pt_tree_lookup(tree, &n, "entry", &c), PT_E_NOTFOUND);
	/* past the table */
	n.node.s[0].index = 4;
	n.type = PT_TN_ENTRYFILE;
	ck_assert_int_eq(pt_tree_render(tree, &n, &b, NULL), PT_E_NOTFOUND);
	ck_assert_int_eq(pt_tree_parent(tree, &n, &c), PT_E_NOTFOUND);
	/* a table behind a target the entry does not have */
	n = at("pdb0/pde3/0/pde2");
	n.choice = 1;
	ck_assert_int_eq(pt_tree_nlink(tree, &n, &nlink, NULL), PT_E_NOTFOUND);
	ck_assert_int_eq(pt_tree_lookup(tree, &n, "0", &c), PT_E_NOTFOUND);
	/* a context that does not exist */
	n = at("pdb0/info");
	n.ctx = 7;
	ck_assert_int_eq(pt_tree_render(tree, &n, &b, NULL), PT_E_NOTFOUND);
	n = at("pdb0/va");
	n.ctx = 7;
	ck_assert_int_eq(pt_tree_list(tree, &n, 0, collect, &l, NULL), PT_E_NOTFOUND);
	/* not a directory */
	n = at("capture");
	ck_assert_int_eq(pt_tree_list(tree, &n, 0, collect, &l, NULL), PT_E_USAGE);
	pt_buf_free(&b);
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
	ck_assert_int_eq(pt_tree_nlink(tree, &n, &nlink, NULL), PT_OK);
	ck_assert_uint_eq(nlink, 2);
	n = at("pa");
	ck_assert_int_eq(pt_tree_nlink(tree, &n, &nlink, NULL), PT_OK);
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
	pt_pages_init(&it, c0, 0, NULL);
	while (nn + 2 < sizeof nodes / sizeof nodes[0] && pt_pages_next(&it, &pg)) {
		nodes[nn++] = pg.node;
		nodes[nn] = pg.node;   /* and the pointer above it */
		nodes[nn++].n--;
	}
	ck_assert_uint_gt(nn, 20);
	pt_pages_init(&it, c1, 0, NULL);
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
	tree_add_entries(s);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
