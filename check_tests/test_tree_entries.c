/*
 * test_tree_entries.c — CTX/entries: one line per entry file of the tree,
 * streamed, sought by checkpoint, sliced as the mount reads it, cut at its
 * bound.  Part of test_tree.c (shared: tree_util.h).
 */
#include "tree_util.h"

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
		ck_assert_int_eq(pt_tree_render(x->t, child, &f, NULL), PT_OK);
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

	ck_assert_int_eq(pt_tree_list(t, dir, 0, expect_child, &x, NULL), PT_OK);
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
				ck_assert_int_eq(pt_tree_render(t, &en, &got, NULL), PT_OK);
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
	ck_assert_int_eq(pt_entries_render(tree, 0, PT_ENTRIES_LINES_MAX, &text, NULL), PT_OK);
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
		ck_assert_int_eq(pt_tree_render(tree, &e, &one, NULL), PT_OK);
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
	ck_assert_int_eq(pt_entries_render(t, 0, PT_ENTRIES_LINES_MAX, &full, NULL), PT_OK);
	ck_assert_int_eq(pt_entries_file_build(t, 0, PT_ENTRIES_LINES_MAX, 0, &f, NULL), PT_OK);
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
		ck_assert_int_eq(pt_entries_file_read(t, &f, off, (size_t)size, &part, NULL), PT_OK);
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
		ck_assert_int_eq(pt_entries_file_read(t, &f, off, 4097, &part, NULL), PT_OK);
	ck_assert(part.len == full.len && memcmp(part.data, full.data, full.len) == 0);
	ck_assert_uint_eq(f.text.len, 0);   /* keep_max 0: nothing kept, every read rendered */
	pt_entries_file_free(&f);
	/* a budget one byte short keeps nothing; the exact size keeps the text, and reads copy it */
	ck_assert_int_eq(pt_entries_file_build(t, 0, PT_ENTRIES_LINES_MAX, full.len - 1, &f, NULL), PT_OK);
	ck_assert_uint_eq(f.text.len, 0);
	pt_entries_file_free(&f);
	ck_assert_int_eq(pt_entries_file_build(t, 0, PT_ENTRIES_LINES_MAX, full.len, &f, NULL), PT_OK);
	ck_assert_uint_eq(f.size, full.len);
	ck_assert(f.text.len == full.len && memcmp(f.text.data, full.data, full.len) == 0);
	for (int i = 0; i < 100; i++) {
		uint64_t off, size;

		seed = seed * 6364136223846793005u + 1442695040888963407u;
		off = (seed >> 20) % (full.len + 100);
		size = (seed >> 44) % 140000 + 1;
		pt_buf_reset(&part);
		ck_assert_int_eq(pt_entries_file_read(t, &f, off, (size_t)size, &part, NULL), PT_OK);
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
	ck_assert_int_eq(pt_entries_render(t, 0, PT_ENTRIES_LINES_MAX, &full, NULL), PT_OK);
	ck_assert_int_eq(pt_entries_render(t, 0, 1000, &cut, NULL), PT_OK);
	p = full.data;
	for (int i = 0; i < 1000; i++)
		p = strchr(p, '\n') + 1;
	head = (size_t)(p - full.data);
	ck_assert_uint_eq(cut.len, head + strlen("# truncated\n"));
	ck_assert(memcmp(cut.data, full.data, head) == 0);
	ck_assert_str_eq(cut.data + head, "# truncated\n");
	ck_assert_int_eq(pt_entries_file_build(t, 0, 1000, 0, &f, NULL), PT_OK);
	ck_assert_uint_eq(f.size, cut.len);
	ck_assert_uint_gt(f.ncp, 2);
	for (uint64_t off = 0; off < f.size + 10; off += 3001) {
		pt_buf_reset(&part);
		ck_assert_int_eq(pt_entries_file_read(t, &f, off, 70001, &part, NULL), PT_OK);
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

	ck_assert_int_eq(pt_entries_begin(&it, tree, 1, NULL), PT_OK);
	while (pt_entries_next(&it, &e) == PT_OK) {
		ck_assert_uint_lt(n, 256);
		all[n++] = e;
	}
	ck_assert_int_eq(pt_entries_next(&it, &e), PT_E_NOTFOUND);
	ck_assert_uint_gt(n, 10);
	for (size_t k = 0; k < n; k++) {
		size_t j = k;

		ck_assert_int_eq(pt_entries_seek(&it2, tree, &all[k], NULL), PT_OK);
		while (pt_entries_next(&it2, &e) == PT_OK) {
			ck_assert_uint_lt(j, n);
			ck_assert_msg(same(&e, &all[j]), "seek %zu: entry %zu differs", k, j);
			j++;
		}
		ck_assert_uint_eq(j, n);
	}
	e = at("pdb0/info");
	ck_assert_int_eq(pt_entries_seek(&it2, tree, &e, NULL), PT_E_USAGE);
}
END_TEST

void tree_add_entries(Suite *s)
{
	struct {
		const char *name;
		const TTest *tests[4];
	} areas[] = {
		{"entries", {entries_node, entries_equal_tree, entries_grep_read_only, entries_file_slices}},
		{"entries_seek", {entries_seek, entries_truncated}},
	};

	for (size_t i = 0; i < sizeof areas / sizeof areas[0]; i++) {
		TCase *tc = tcase_create(areas[i].name);

		tcase_add_checked_fixture(tc, setup, teardown);
		for (size_t k = 0; k < 4 && areas[i].tests[k]; k++)
			tcase_add_test(tc, areas[i].tests[k]);
		suite_add_tcase(s, tc);
	}
}
