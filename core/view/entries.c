/* SPDX-License-Identifier: MIT */
/*
 * entries.c — CTX/entries (pt_entries.h): the line of one entry, the walk
 * over a context's entry files in tree order, and the checkpointed file
 * that is read at any offset without ever holding its text.
 *
 * The walk goes through pt_tree_list() and each line through
 * pt_tree_render() of the entry file, so the flat view can never disagree
 * with the tree: same entries, same fields, same order, same values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_vec.h"
#include "pt_entries.h"
#include "tree_int.h"

/* ---- the walk ----------------------------------------------------------- */

/* pt_tree_list() callback: takes the first child only. */
struct first_child {
	bool got;
	struct pt_tnode node;
	uint64_t next;
};

static bool take_first(void *ud, const char *name, const struct pt_tnode *child, uint64_t next)
{
	struct first_child *fc = ud;

	(void)name;
	fc->got = true;
	fc->node = *child;
	fc->next = next;
	return false;
}

/* pt_tree_list() callback: queues children into a frame until it is full. */
struct batch {
	struct pt_tnode *q;
	unsigned n;
	uint64_t next;
};

static bool take_batch(void *ud, const char *name, const struct pt_tnode *child, uint64_t next)
{
	struct batch *bt = ud;

	(void)name;
	if (bt->n == PT_ENTRIES_BATCH)
		return false;   /* not taken: the next listing starts with it */
	bt->q[bt->n++] = *child;
	bt->next = next;
	return true;
}

pt_err pt_entries_begin(struct pt_entries_iter *it, const struct pt_tree *tree, unsigned ctx,
			struct pt_readctl *rc)
{
	struct pt_tnode root, cdir;
	struct first_child fc = {0};
	const char *name;
	pt_err err;

	it->tree = tree;
	it->rc = rc;
	it->depth = 0;
	/* the context directory, then its root table by name (the tree decides both) */
	pt_tree_root(&root);
	err = PT_E_NOTFOUND;
	for (uint64_t cookie = 0;; cookie = fc.next) {
		fc.got = false;
		err = pt_tree_list(tree, &root, cookie, take_first, &fc, rc);
		if (err != PT_OK)
			return err;
		if (!fc.got)
			return PT_E_NOTFOUND;
		if (fc.node.type == PT_TN_CTXDIR && fc.node.ctx == ctx)
			break;
	}
	cdir = fc.node;
	name = pt_tree_context(tree, &cdir)->fmt->levels[0].name;
	err = pt_tree_lookup(tree, &cdir, name, &it->f[0].dir);
	if (err != PT_OK)
		return err;
	it->f[0].cookie = 0;
	it->f[0].qn = it->f[0].qi = 0;
	it->depth = 1;
	return PT_OK;
}

pt_err pt_entries_next(struct pt_entries_iter *it, struct pt_tnode *out)
{
	pt_err err;

	while (it->depth > 0) {
		unsigned d = it->depth - 1;
		const struct pt_tnode *c;

		if (it->f[d].qi == it->f[d].qn) {
			struct batch bt = {it->f[d].q, 0, 0};

			err = pt_tree_list(it->tree, &it->f[d].dir, it->f[d].cookie, take_batch, &bt,
					   it->rc);
			if (err != PT_OK)
				return err;
			it->f[d].qi = 0;
			it->f[d].qn = bt.n;
			if (bt.n == 0) {
				it->depth--;
				continue;
			}
			it->f[d].cookie = bt.next;
		}
		c = &it->f[d].q[it->f[d].qi++];
		if (c->type == PT_TN_ENTRYFILE) {
			/* a pointer's entry file sits in its entry directory, a leaf in its table */
			it->pointer = it->f[d].dir.type == PT_TN_ENTRYDIR;
			*out = *c;
			return PT_OK;
		}
		if (pt_tree_kind(c) != PT_TK_DIR)
			continue;
		/* a path has at most PT_MAX_DEPTH tables, each with its entry directory */
		if (it->depth >= sizeof(it->f) / sizeof(it->f[0]))
			return PT_E_CAPTURE;
		it->f[it->depth].dir = *c;
		it->f[it->depth].cookie = 0;
		it->f[it->depth].qn = it->f[it->depth].qi = 0;
		it->depth++;
	}
	return PT_E_NOTFOUND;
}

/* The cookie after CHILD in the listing of DIR (CHILD a directory listed in it). */
static pt_err cookie_after(const struct pt_tree *tree, const struct pt_tnode *dir,
			   const struct pt_tnode *child, uint64_t *cookie, struct pt_readctl *rc)
{
	struct first_child fc;
	uint64_t c = 0;
	pt_err err;

	for (;;) {
		fc.got = false;
		err = pt_tree_list(tree, dir, c, take_first, &fc, rc);
		if (err != PT_OK)
			return err;
		if (!fc.got)
			return PT_E_NOTFOUND;
		c = fc.next;
		if (fc.node.type == child->type && fc.node.choice == child->choice &&
		    fc.node.node.n == child->node.n &&
		    (child->node.n == 0 ||
		     fc.node.node.s[child->node.n - 1].index == child->node.s[child->node.n - 1].index)) {
			*cookie = c;
			return PT_OK;
		}
	}
}

pt_err pt_entries_seek(struct pt_entries_iter *it, const struct pt_tree *tree,
		       const struct pt_tnode *at, struct pt_readctl *rc)
{
	struct pt_tnode chain[2 * PT_MAX_DEPTH + 3];
	unsigned n = 0;
	pt_err err;

	if (at->type != PT_TN_ENTRYFILE)
		return PT_E_USAGE;
	it->tree = tree;
	it->rc = rc;
	it->depth = 0;
	/* AT and its directories up to the root table, deepest first */
	chain[n++] = *at;
	for (;;) {
		const struct pt_tnode *c = &chain[n - 1];

		if (c->type == PT_TN_TABLEDIR && c->node.n == 0)
			break;
		if (n >= sizeof(chain) / sizeof(chain[0]))
			return PT_E_CAPTURE;
		err = pt_tree_parent(tree, c, &chain[n]);
		if (err != PT_OK)
			return err;
		n++;
	}
	/* outermost first: each directory resumes after the child the path goes into */
	for (unsigned k = n - 1; k >= 1; k--) {
		struct pt_tnode *dir = &chain[k], *child = &chain[k - 1];
		uint64_t cookie;

		it->f[it->depth].dir = *dir;
		if (k == 1) {
			/* the innermost resumes just before AT: AT comes next */
			if (dir->type == PT_TN_TABLEDIR)
				cookie = child->node.s[child->node.n - 1].index + 2;
			else
				cookie = 0;   /* an entry directory lists its `entry` first */
		} else if (dir->type == PT_TN_TABLEDIR) {
			cookie = child->node.s[child->node.n - 1].index + 3;
		} else {
			err = cookie_after(tree, dir, child, &cookie, rc);
			if (err != PT_OK)
				return err;
		}
		it->f[it->depth].cookie = cookie;
		it->f[it->depth].qn = it->f[it->depth].qi = 0;
		it->depth++;
	}
	return PT_OK;
}

/* ---- one line ----------------------------------------------------------- */

/* A value byte written as \xNN: see pt_entries.h. */
static bool needs_escape(unsigned char c)
{
	return c <= 0x20 || c == 0x7f || c == '\\' || c >= 0x80;
}

/*
 * The fields of TEXT (an entry file, LEN bytes of `key: value\n` lines)
 * appended to B as ` key=value`, escaping value bytes: the general path,
 * for when some value needs an escape.
 */
static pt_err fields_escaped(const char *text, size_t len, struct pt_buf *b)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *colon = memchr(p, ':', (size_t)(le - p));

		if (!colon || colon + 1 >= le || colon[1] != ' ')
			return PT_E_VALUE;   /* not `key: value`: the entry file format changed */
		pt_buf_put(b, " ", 1);
		pt_buf_put(b, p, (size_t)(colon - p));
		pt_buf_put(b, "=", 1);
		for (const char *v = colon + 2; v < le; v++) {
			char esc[5];

			if (!needs_escape((unsigned char)*v)) {
				pt_buf_put(b, v, 1);
				continue;
			}
			snprintf(esc, sizeof esc, "\\x%02x", (unsigned char)*v);
			pt_buf_put(b, esc, 4);
		}
		p = le + 1;
	}
	pt_buf_put(b, "\n", 1);
	return b->oom ? PT_E_NOMEM : PT_OK;
}

/*
 * The usual path: the entry file is rendered straight after "PATH " in B
 * and rewritten in place ("key: value\n" -> "key=value " is one byte
 * shorter, so the write position never passes the read position).  False
 * when a value needs an escape (B is then left for fields_escaped()).
 */
static bool fields_in_place(struct pt_buf *b, size_t from)
{
	char *d = b->data;
	size_t r = from, w = from, end = b->len;

	while (r < end) {
		/* the key, up to ": " */
		while (r < end && d[r] != ':' && d[r] != '\n')
			d[w++] = d[r++];
		if (r + 1 >= end || d[r] != ':' || d[r + 1] != ' ')
			return false;
		d[w++] = '=';
		r += 2;
		/* the value, up to the newline */
		while (r < end && d[r] != '\n') {
			if (needs_escape((unsigned char)d[r]))
				return false;
			d[w++] = d[r++];
		}
		if (r >= end)
			return false;
		r++;
		d[w++] = r < end ? ' ' : '\n';
	}
	b->len = w;
	d[w] = 0;
	return true;
}

pt_err pt_entries_line(const struct pt_tree *tree, const struct pt_tnode *node, bool pointer,
		       struct pt_buf *b)
{
	size_t start = b->len, from;
	char path[512];
	char *copy;
	int n;
	pt_err err;

	if (node->type != PT_TN_ENTRYFILE)
		return PT_E_USAGE;
	n = pt_node_path(&node->node, path, sizeof path);
	if (n < 0 || (size_t)n >= sizeof path)
		return PT_E_TRUNCATED;
	pt_buf_put(b, path, (size_t)n);
	pt_buf_puts(b, pointer ? "/entry " : " ");
	from = b->len;
	/* an entry file is one entry: no loop to bound or cancel (NULL) */
	err = b->oom ? PT_E_NOMEM : pt_tree_render(tree, node, b, NULL);
	if (err == PT_OK && b->len > from && fields_in_place(b, from))
		return PT_OK;
	if (err == PT_OK) {
		/* some value needs an escape: redo the fields from a copy of the file */
		copy = malloc(b->len - from + 1);
		if (!copy) {
			err = PT_E_NOMEM;
		} else {
			memcpy(copy, b->data + from, b->len - from);
			n = (int)(b->len - from);
			b->len = from - 1;   /* drop the space after PATH: each field brings its own */
			err = fields_escaped(copy, (size_t)n, b);
			free(copy);
		}
	}
	if (err != PT_OK) {
		b->len = start;
		if (b->data)
			b->data[start] = 0;
	}
	return err;
}

/*
 * The text in order: the walk, and how many entry lines are behind it.
 * After LINES_MAX entry lines comes one `# truncated` line and the end, as
 * in maps: tables that alias each other describe ~10^13 entries in a few
 * KiB, and the file must end in bounded time on any capture.
 */
struct text_pos {
	struct pt_entries_iter it;
	uint64_t lines, max;
	bool done;
};

static const char truncated_line[] = "# truncated\n";

/* The next line into LINE (reset first); *IS_ENTRY: it is entry *E's.  PT_E_NOTFOUND at the end. */
static pt_err text_next(struct text_pos *p, struct pt_tnode *e, bool *is_entry,
			struct pt_buf *line)
{
	pt_err err;

	pt_buf_reset(line);
	*is_entry = false;
	if (p->done)
		return PT_E_NOTFOUND;
	if (p->lines >= p->max) {
		p->done = true;
		pt_buf_puts(line, truncated_line);
		return line->oom ? PT_E_NOMEM : PT_OK;
	}
	err = pt_entries_next(&p->it, e);
	if (err != PT_OK) {
		p->done = err == PT_E_NOTFOUND;
		return err;
	}
	p->lines++;
	*is_entry = true;
	return pt_entries_line(p->it.tree, e, p->it.pointer, line);
}

pt_err pt_entries_write(const struct pt_tree *tree, unsigned ctx, uint64_t lines_max,
			pt_entries_sink sink, void *ud, struct pt_readctl *rc)
{
	struct text_pos *p = malloc(sizeof(*p));
	struct pt_buf line, chunk;
	struct pt_tnode e;
	bool is_entry;
	pt_err err;

	if (!p)
		return PT_E_NOMEM;
	p->lines = 0;
	p->max = lines_max;
	p->done = false;
	pt_buf_init(&line);
	pt_buf_init(&chunk);
	err = pt_entries_begin(&p->it, tree, ctx, rc);
	while (err == PT_OK && (err = text_next(p, &e, &is_entry, &line)) == PT_OK) {
		pt_buf_put(&chunk, line.data, line.len);
		if (chunk.oom)
			err = PT_E_NOMEM;
		else if (chunk.len >= PT_ENTRIES_WRITE_CHUNK && !sink(ud, chunk.data, chunk.len))
			err = PT_E_IO;
		else if (chunk.len >= PT_ENTRIES_WRITE_CHUNK)
			pt_buf_reset(&chunk);
	}
	if (err == PT_E_NOTFOUND)
		err = chunk.len && !sink(ud, chunk.data, chunk.len) ? PT_E_IO : PT_OK;
	pt_buf_free(&chunk);
	pt_buf_free(&line);
	free(p);
	return err;
}

/* pt_entries_write() sink of pt_entries_render(): the text appended to a buffer. */
static bool sink_buf(void *ud, const char *data, size_t len)
{
	struct pt_buf *b = ud;

	pt_buf_put(b, data, len);
	return !b->oom;
}

pt_err pt_entries_render(const struct pt_tree *tree, unsigned ctx, uint64_t lines_max,
			 struct pt_buf *b, struct pt_readctl *rc)
{
	pt_err err = pt_entries_write(tree, ctx, lines_max, sink_buf, b, rc);

	return err == PT_E_IO || (err == PT_OK && b->oom) ? PT_E_NOMEM : err;
}

/* ---- CTX/entries in the tree (struct pt_tprov, tree_int.h) --------------- */

static pt_err prov_parent(const struct pt_tree *tree, const struct pt_tnode *node,
			  struct pt_tnode *parent)
{
	if (!pt_tree_context(tree, node))
		return PT_E_NOTFOUND;
	pt_tree_ctx_node(tree, node->ctx, PT_TN_CTXDIR, parent);
	return PT_OK;
}

/* the whole text at once (export); the mount reads it by checkpoints (pt_entries_file_read()) */
static pt_err prov_render(const struct pt_tree *tree, const struct pt_tnode *node, struct pt_buf *b,
			  struct pt_readctl *rc)
{
	if (!pt_tree_context(tree, node))
		return PT_E_NOTFOUND;
	return pt_entries_render(tree, node->ctx, PT_ENTRIES_LINES_MAX, b, rc);
}

static bool prov_scans(const struct pt_tnode *node)
{
	(void)node;
	return true;
}

const struct pt_tprov pt_tprov_entries = {
	.name = "entries",
	.types = PT_TBIT(PT_TN_ENTRIES),
	.per_context = true,
	.scans = prov_scans,
	.parent = prov_parent,
	.render = prov_render,
};

/* ---- the checkpointed file ---------------------------------------------- */

static pt_err cp_add(struct pt_entries_file *f, uint64_t off, uint64_t lines,
		     const struct pt_tnode *next)
{
	if (!pt_vec_reserve(&f->cp, &f->cpcap, f->ncp + 1, sizeof *f->cp))
		return PT_E_NOMEM;
	f->cp[f->ncp].off = off;
	f->cp[f->ncp].lines = lines;
	f->cp[f->ncp].next = *next;
	f->ncp++;
	return PT_OK;
}

pt_err pt_entries_file_build(const struct pt_tree *tree, unsigned ctx, uint64_t lines_max,
			     uint64_t keep_max, struct pt_entries_file *f, struct pt_readctl *rc)
{
	bool keep = keep_max > 0;
	/* the walk is ~40 KiB: off the stack of a FUSE worker */
	struct text_pos *p = malloc(sizeof(*p));
	struct pt_tnode e;
	struct pt_buf line;
	uint64_t last = 0;
	bool is_entry;
	pt_err err;

	memset(f, 0, sizeof(*f));
	pt_buf_init(&f->text);
	if (!p)
		return PT_E_NOMEM;
	f->ctx = ctx;
	f->lines_max = lines_max;
	p->lines = 0;
	p->max = lines_max;
	p->done = false;
	err = pt_entries_begin(&p->it, tree, ctx, rc);
	pt_buf_init(&line);
	while (err == PT_OK && (err = text_next(p, &e, &is_entry, &line)) == PT_OK) {
		/* a checkpoint at the first entry line PT_ENTRIES_CHECKPOINT past the last one */
		if (is_entry && (f->ncp == 0 || f->size - last >= PT_ENTRIES_CHECKPOINT)) {
			err = cp_add(f, f->size, p->lines - 1, &e);
			last = f->size;
			if (err != PT_OK)
				break;
		}
		f->size += line.len;
		if (keep && f->size > keep_max) {
			keep = false;   /* too big to keep: reads render from the checkpoints */
			pt_buf_free(&f->text);
		} else if (keep) {
			pt_buf_put(&f->text, line.data, line.len);
			if (f->text.oom) {
				keep = false;
				pt_buf_free(&f->text);
			}
		}
	}
	pt_buf_free(&line);
	free(p);
	if (err == PT_E_NOTFOUND)
		return PT_OK;
	pt_entries_file_free(f);
	return err;
}

pt_err pt_entries_file_read(const struct pt_tree *tree, const struct pt_entries_file *f,
			    uint64_t off, size_t size, struct pt_buf *out, struct pt_readctl *rc)
{
	struct text_pos *p;
	struct pt_tnode e;
	struct pt_buf line;
	uint64_t pos, want;
	size_t lo = 0, hi = f->ncp;
	bool is_entry;
	pt_err err;

	if (off >= f->size || size == 0 || f->ncp == 0)
		return PT_OK;
	want = f->size - off < size ? f->size - off : size;
	if (f->text.len == f->size) {
		pt_buf_put(out, f->text.data + off, (size_t)want);
		return out->oom ? PT_E_NOMEM : PT_OK;
	}
	/* the last checkpoint at or before OFF (the first is at 0) */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->cp[mid].off <= off)
			lo = mid;
		else
			hi = mid;
	}
	p = malloc(sizeof(*p));
	if (!p)
		return PT_E_NOMEM;
	pos = f->cp[lo].off;
	p->lines = f->cp[lo].lines;
	p->max = f->lines_max;
	p->done = false;
	err = pt_entries_seek(&p->it, tree, &f->cp[lo].next, rc);
	pt_buf_init(&line);
	while (err == PT_OK && want > 0 && (err = text_next(p, &e, &is_entry, &line)) == PT_OK) {
		if (pos + line.len > off) {
			uint64_t from = off > pos ? off - pos : 0;
			uint64_t n = line.len - from < want ? line.len - from : want;

			pt_buf_put(out, line.data + from, (size_t)n);
			off += n;
			want -= n;
		}
		pos += line.len;
	}
	pt_buf_free(&line);
	free(p);
	if (err == PT_E_NOTFOUND)
		err = want > 0 ? PT_E_CAPTURE : PT_OK;   /* shorter than its first pass said */
	if (err == PT_OK && out->oom)
		err = PT_E_NOMEM;
	return err;
}

void pt_entries_file_free(struct pt_entries_file *f)
{
	free(f->cp);
	pt_buf_free(&f->text);
	memset(f, 0, sizeof(*f));
}
