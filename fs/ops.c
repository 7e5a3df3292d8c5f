/* SPDX-License-Identifier: MIT */
/*
 * ops.c — the FUSE low-level operations of ptfs.
 *
 * Each operation is a do_X() that returns 0 or an errno and an op_X() that
 * replies exactly once.  Nodes are re-resolved from their computed inode
 * numbers (ino.c) on every call; the capture is immutable, so no lock is
 * needed except around the one-time renders of `capture`, `info` and `maps`.
 *
 * Because nothing ever changes, every reply carries a huge timeout (also
 * negative lookups: ino 0 + timeout), open sets keep_cache and opendir
 * cache_readdir, so the kernel asks once per name, attribute and page.
 */
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "ptfs.h"

/*
 * The capture never changes while mounted, so the kernel may keep names,
 * attributes and misses for as long as it likes (squashfuse does the same).
 */
#define PTFS_TIMEOUT DBL_MAX

/* A table with more entries than this reports st_nlink 1 ("unknown", as btrfs
 * does) instead of decoding every entry to count its subdirectories. */
#define NLINK_SCAN_MAX 4096

static struct ptfs *fs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/* The one pt_err -> errno mapping of the front end. */
int ptfs_errno(pt_err err)
{
	switch (err) {
	case PT_OK:
		return 0;
	case PT_E_NOTFOUND:
		return ENOENT;
	case PT_E_NOMEM:
		return ENOMEM;
	case PT_E_USAGE:
		return EINVAL;
	case PT_E_UNSUPPORTED:
		return EOPNOTSUPP;
	case PT_E_IO:
	case PT_E_ARCHIVE:
	case PT_E_CAPTURE:
	case PT_E_SYNTAX:
	case PT_E_VALUE:
	case PT_E_TRUNCATED:
	default:
		return EIO;
	}
}

static int render_errno(pt_err err, const struct pt_buf *b)
{
	if (err != PT_OK)
		return ptfs_errno(err);
	return b->oom ? ENOMEM : 0;
}

/*
 * Per-thread scratch: a render buffer used to learn a file's exact size in
 * lookup/getattr/readdirplus, and the readdir reply buffer.  Both keep their
 * capacity, so steady-state operations allocate nothing.
 */
struct ptfs_tls {
	struct pt_buf buf;
	char *dir;
	size_t dircap;
	/* The last entry or walk file this thread rendered, kept for the READ
	 * that usually follows its LOOKUP on the same thread (render_memo()). */
	struct pt_buf memo;
	fuse_ino_t memo_ino;
};

static pthread_key_t tls_key;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;

static void tls_free(void *p)
{
	struct ptfs_tls *t = p;

	pt_buf_free(&t->buf);
	pt_buf_free(&t->memo);
	free(t->dir);
	free(t);
}

static void tls_init(void)
{
	if (pthread_key_create(&tls_key, tls_free) != 0)
		abort();
}

static struct ptfs_tls *tls_get(void)
{
	struct ptfs_tls *t;

	pthread_once(&tls_once, tls_init);
	t = pthread_getspecific(tls_key);
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return NULL;
		pt_buf_init(&t->buf);
		pt_buf_init(&t->memo);
		if (pthread_setspecific(tls_key, t) != 0) {
			free(t);
			return NULL;
		}
	}
	pt_buf_reset(&t->buf);
	t->buf.oom = false;   /* a past allocation failure must not poison later renders */
	return t;
}

/* Frees the calling thread's scratch (the main thread, after a -s loop: key
 * destructors run only for threads that exit). */
void ptfs_thread_cleanup(void)
{
	struct ptfs_tls *t;

	pthread_once(&tls_once, tls_init);
	t = pthread_getspecific(tls_key);
	if (t) {
		pthread_setspecific(tls_key, NULL);
		tls_free(t);
	}
}

/* Grows the per-thread scratch (shared with readdir, which never nests with read). */
static char *tls_scratch(struct ptfs_tls *t, size_t size)
{
	if (t->dircap < size) {
		char *nb = realloc(t->dir, size);

		if (!nb)
			return NULL;
		t->dir = nb;
		t->dircap = size;
	}
	return t->dir;
}

void ptfs_cache_init(struct ptfs_cache *c)
{
	pthread_mutex_init(&c->lock, NULL);
	c->done = false;
	c->err = 0;
	pt_buf_init(&c->buf);
}

void ptfs_cache_destroy(struct ptfs_cache *c)
{
	pthread_mutex_destroy(&c->lock);
	pt_buf_free(&c->buf);
}

/*
 * The render of one open entry or walk file.  fi->fh points at BUF (the
 * first member, so read() sees a struct pt_buf as for a cache), and the
 * render is also linked into fs->opens: RELEASE unlinks and frees it, and
 * when the session ends before the kernel sent RELEASE (an unmount right
 * after close()), ptfs_opens_free() frees what is left.
 */
struct ptfs_open {
	struct pt_buf buf;
	struct ptfs_open *prev, *next;
};

void ptfs_opens_init(struct ptfs *fs)
{
	pthread_mutex_init(&fs->open_lock, NULL);
	fs->opens = NULL;
}

static struct ptfs_open *open_new(struct ptfs *fs)
{
	struct ptfs_open *o = malloc(sizeof(*o));

	if (!o)
		return NULL;
	pt_buf_init(&o->buf);
	o->prev = NULL;
	pthread_mutex_lock(&fs->open_lock);
	o->next = fs->opens;
	if (o->next)
		o->next->prev = o;
	fs->opens = o;
	pthread_mutex_unlock(&fs->open_lock);
	return o;
}

static void open_free(struct ptfs *fs, struct ptfs_open *o)
{
	pthread_mutex_lock(&fs->open_lock);
	if (o->prev)
		o->prev->next = o->next;
	else
		fs->opens = o->next;
	if (o->next)
		o->next->prev = o->prev;
	pthread_mutex_unlock(&fs->open_lock);
	pt_buf_free(&o->buf);
	free(o);
}

void ptfs_opens_free(struct ptfs *fs)
{
	while (fs->opens)
		open_free(fs, fs->opens);
	pthread_mutex_destroy(&fs->open_lock);
}

/* ---- resolving nodes ---------------------------------------------------- */

static const struct pt_context *ctx_of(const struct ptfs *fs, const struct ptfs_id *id)
{
	return fs->ctx[id->ctx].ctx;
}

/* The table a TABLEDIR shows. */
static int get_table(const struct ptfs *fs, const struct ptfs_id *id, struct pt_table *t)
{
	struct pt_loc loc;
	pt_err err;

	if (id->node.n == 0) {
		pt_table_root(ctx_of(fs, id), t);
		return 0;
	}
	err = pt_node_resolve(&id->node, &loc);
	if (err != PT_OK)
		return ptfs_errno(err);
	if (!pt_entry_is_dir(&loc.entry) ||
	    !pt_table_child(&loc.table, loc.index, &loc.entry, id->choice, t) ||
	    t->cover == PT_COVER_NONE || t->level != ptfs_table_level_of(fs, id))
		return ENOENT;
	return 0;
}

static int get_entry(const struct ptfs_id *id, struct pt_loc *loc)
{
	pt_err err = pt_node_resolve(&id->node, loc);

	return err == PT_OK ? 0 : ptfs_errno(err);
}

/* Number of tables a pointer entry shows as subdirectories. */
static unsigned child_tables(const struct pt_loc *loc)
{
	unsigned n = 0;
	struct pt_table t;

	for (unsigned which = 0; which < 2; which++)
		if (pt_table_child(&loc->table, loc->index, &loc->entry, which, &t) &&
		    t.cover != PT_COVER_NONE)
			n++;
	return n;
}

/* st_nlink of a table directory: 2 + its pointer entries (or 1 when too big to count). */
static nlink_t table_nlink(const struct pt_table *t)
{
	const struct pt_level *l = &t->ctx->fmt->levels[t->level];
	struct pt_entry e;
	uint64_t i = 0;
	nlink_t n = 2;

	if (l->role == PT_ROLE_PTE)
		return 2;   /* leaves only: no subdirectories */
	if (t->entries > NLINK_SCAN_MAX)
		return 1;
	while (i < t->entries && pt_table_next(t, &i, false, &e)) {
		if (pt_entry_is_dir(&e))
			n++;
		i++;
	}
	return n;
}

/* The symlink target of a va/ link: "../" + the leaf's tree path. */
static int va_target(const struct pt_node *node, char *buf, size_t len)
{
	int n;

	if (len < 4)
		return ENAMETOOLONG;
	memcpy(buf, "../", 3);
	n = pt_node_path(node, buf + 3, len - 3);
	if (n < 0 || (size_t)n >= len - 3)
		return ENAMETOOLONG;
	return 0;
}

/* ---- rendering ---------------------------------------------------------- */

enum cache_kind { CK_CAPTURE, CK_INFO, CK_MAPS };

/* The cached file for a GLOBAL capture / INFO / MAPS id, or NULL. */
static struct ptfs_cache *cache_of(struct ptfs *fs, const struct ptfs_id *id, enum cache_kind *kind)
{
	switch (id->type) {
	case PTFS_T_GLOBAL:
		if (id->global != PTFS_INO_CAPTURE)
			return NULL;
		*kind = CK_CAPTURE;
		return &fs->capfile;
	case PTFS_T_INFO:
		*kind = CK_INFO;
		return &fs->ctx[id->ctx].info;
	case PTFS_T_MAPS:
		*kind = CK_MAPS;
		return &fs->ctx[id->ctx].maps;
	default:
		return NULL;
	}
}

/* Renders a cached file once (never twice, whatever the number of threads). */
static int cache_fill(struct ptfs *fs, const struct ptfs_id *id, struct ptfs_cache *c,
		      enum cache_kind kind)
{
	int err;

	pthread_mutex_lock(&c->lock);
	if (!c->done) {
		pt_err perr;

		switch (kind) {
		case CK_CAPTURE:
			perr = pt_render_capture(&c->buf, fs->cap, PT_OUT_TEXT);
			break;
		case CK_INFO:
			perr = pt_render_info(&c->buf, ctx_of(fs, id), PT_OUT_TEXT);
			break;
		case CK_MAPS:
		default:
			perr = pt_render_maps(&c->buf, ctx_of(fs, id), PT_OUT_TEXT);
			break;
		}
		c->err = render_errno(perr, &c->buf);
		c->done = true;
	}
	err = c->err;
	pthread_mutex_unlock(&c->lock);
	return err;
}

/* Whether a cached file has been rendered already (so its size is known for free). */
static bool cache_ready(struct ptfs_cache *c)
{
	bool done;

	pthread_mutex_lock(&c->lock);
	done = c->done;
	pthread_mutex_unlock(&c->lock);
	return done;
}

/* Renders an ENTRYFILE or WALKFILE into B. */
static int render_node(struct ptfs *fs, const struct ptfs_id *id, struct pt_buf *b)
{
	if (id->type == PTFS_T_ENTRYFILE) {
		struct pt_loc loc;
		int err = get_entry(id, &loc);

		if (err)
			return err;
		return render_errno(pt_render_entry(b, &loc.table, loc.index, &loc.entry,
						    PT_OUT_TEXT), b);
	}
	if (id->type == PTFS_T_WALKFILE) {
		const struct ptfs_ctx *pc = &fs->ctx[id->ctx];
		struct pt_walk w;

		if (id->va >= PTFS_WALK_LIMIT)
			return ENOENT;
		pt_walk_va(pc->ctx, id->va, &w);
		return render_errno(pt_render_walk(b, pc->ctx, &w, PT_OUT_TEXT), b);
	}
	return EINVAL;
}

/* ---- attributes --------------------------------------------------------- */

/*
 * The bytes of entry or walk file ID (inode INO), rendered at most once in a
 * row per thread: a LOOKUP needs them for st_size and the READ that follows
 * usually lands on the same thread.  The capture never changes, so the
 * bytes are the same whenever they are rendered.
 */
static int render_memo(struct ptfs *fs, const struct ptfs_id *id, fuse_ino_t ino,
		       const struct pt_buf **out)
{
	struct ptfs_tls *t = tls_get();
	int err;

	if (!t)
		return ENOMEM;
	if (t->memo_ino != ino) {
		t->memo_ino = 0;
		pt_buf_reset(&t->memo);
		t->memo.oom = false;
		err = render_node(fs, id, &t->memo);
		if (err)
			return err;
		t->memo_ino = ino;
	}
	*out = &t->memo;
	return 0;
}

static void stat_base(const struct ptfs *fs, fuse_ino_t ino, mode_t mode, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_mode = mode;
	st->st_nlink = 1;
	st->st_uid = fs->uid;
	st->st_gid = fs->gid;
	st->st_blksize = 4096;
	st->st_atim = fs->time;
	st->st_mtim = fs->time;
	st->st_ctim = fs->time;
}

static void stat_file(struct stat *st, size_t size)
{
	st->st_size = (off_t)size;
	st->st_blocks = (blkcnt_t)((size + 511) / 512);
}

#define MODE_DIR (S_IFDIR | 0555)
#define MODE_FILE (S_IFREG | 0444)
#define MODE_LINK (S_IFLNK | 0777)

/*
 * Attributes of ID (inode INO).  LAZY: for a file whose size needs a render
 * (an entry or walk file, a cached file not rendered yet), fill only ino and
 * mode and return -1, so that readdirplus does not render a whole table, or
 * a whole context's maps, just to list a directory.
 */
static int do_stat(struct ptfs *fs, const struct ptfs_id *id, fuse_ino_t ino,
		   struct stat *st, bool lazy)
{
	struct ptfs_cache *c;
	enum cache_kind kind;
	int err;

	c = cache_of(fs, id, &kind);
	if (c) {
		stat_base(fs, ino, MODE_FILE, st);
		if (lazy && !cache_ready(c))
			return -1;
		err = cache_fill(fs, id, c, kind);
		if (err)
			return err;
		stat_file(st, c->buf.len);
		return 0;
	}
	switch (id->type) {
	case PTFS_T_GLOBAL:   /* the root */
		stat_base(fs, ino, MODE_DIR, st);
		st->st_nlink = 2 + fs->nctx;
		return 0;
	case PTFS_T_CTXDIR:
		stat_base(fs, ino, MODE_DIR, st);
		st->st_nlink = 2 + 3;   /* root table, va/, walk/ */
		return 0;
	case PTFS_T_VADIR:
	case PTFS_T_WALKDIR:
		stat_base(fs, ino, MODE_DIR, st);
		st->st_nlink = 2;
		return 0;
	case PTFS_T_TABLEDIR: {
		struct pt_table t;

		err = get_table(fs, id, &t);
		if (err)
			return err;
		stat_base(fs, ino, MODE_DIR, st);
		st->st_nlink = table_nlink(&t);
		return 0;
	}
	case PTFS_T_ENTRYDIR: {
		struct pt_loc loc;

		err = get_entry(id, &loc);
		if (err)
			return err;
		if (!pt_entry_is_dir(&loc.entry))
			return ENOENT;
		stat_base(fs, ino, MODE_DIR, st);
		st->st_nlink = 2 + child_tables(&loc);
		return 0;
	}
	case PTFS_T_ENTRYFILE:
	case PTFS_T_WALKFILE: {
		const struct pt_buf *b;

		/*
		 * st_size needs a full render.  A listing (LAZY) leaves it to
		 * the LOOKUP that a stat or open sends: `find`, `ls -R` and
		 * `ls va/` never do.  Rendering every listed entry made first
		 * listings ~1.5x slower (and slower than archivemount) for ~1.4x
		 * faster first reads (bench/README.md); listings win.
		 */
		if (lazy) {
			stat_base(fs, ino, MODE_FILE, st);
			return -1;
		}
		err = render_memo(fs, id, ino, &b);
		if (err)
			return err;
		stat_base(fs, ino, MODE_FILE, st);
		stat_file(st, b->len);
		return 0;
	}
	case PTFS_T_VALINK: {
		const struct ptfs_ctx *pc = &fs->ctx[id->ctx];
		char target[PATH_MAX];
		struct pt_walk w;

		pt_walk_va(pc->ctx, id->va, &w);
		if (w.fault != PT_FAULT_NONE || w.page_va != id->va)
			return ENOENT;
		err = va_target(&w.node, target, sizeof(target));
		if (err)
			return err;
		stat_base(fs, ino, MODE_LINK, st);
		st->st_size = (off_t)strlen(target);
		return 0;
	}
	default:
		return ENOENT;
	}
}

static int do_getattr(struct ptfs *fs, fuse_ino_t ino, struct stat *st)
{
	struct ptfs_id id;
	int err = ptfs_ino_decode(fs, ino, &id);

	if (err)
		return err;
	return do_stat(fs, &id, ino, st, false);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;
	int err = do_getattr(fs_of(req), ino, &st);

	if (err)
		return (void)fuse_reply_err(req, err);
	fuse_reply_attr(req, &st, PTFS_TIMEOUT);
}

/* ---- lookup ------------------------------------------------------------- */

/* A decimal entry index as listed: digits only, no sign, no leading zero. */
static bool parse_index(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s || (s[0] == '0' && s[1]))
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return true;
}

/* The child CHILD of table directory PARENT named NAME. */
static int lookup_table(struct ptfs *fs, const struct ptfs_id *parent, const char *name,
			struct ptfs_id *child)
{
	struct pt_table t;
	struct pt_entry e;
	uint64_t index;
	int err;

	if (!parse_index(name, &index) || parent->node.n >= PT_MAX_DEPTH)
		return ENOENT;
	err = get_table(fs, parent, &t);
	if (err)
		return err;
	if (index >= t.entries || !pt_table_read(&t, index, &e))
		return ENOENT;   /* past the table, or not captured */
	*child = *parent;
	child->choice = 0;
	child->node.s[child->node.n].level = t.level;
	child->node.s[child->node.n].index = index;
	child->node.n++;
	child->type = pt_entry_is_dir(&e) ? PTFS_T_ENTRYDIR : PTFS_T_ENTRYFILE;
	return 0;
}

/* The child of pointer entry directory PARENT named NAME. */
static int lookup_entrydir(struct ptfs *fs, const struct ptfs_id *parent, const char *name,
			   struct ptfs_id *child)
{
	const struct pt_level *levels = ctx_of(fs, parent)->fmt->levels;
	struct pt_loc loc;
	struct pt_table t;
	int err = get_entry(parent, &loc);

	if (err)
		return err;
	if (!pt_entry_is_dir(&loc.entry))
		return ENOTDIR;
	*child = *parent;
	if (strcmp(name, "entry") == 0) {
		child->type = PTFS_T_ENTRYFILE;
		return 0;
	}
	for (unsigned which = 0; which < 2; which++) {
		if (pt_table_child(&loc.table, loc.index, &loc.entry, which, &t) &&
		    t.cover != PT_COVER_NONE && strcmp(levels[t.level].name, name) == 0) {
			child->type = PTFS_T_TABLEDIR;
			child->choice = which;
			/* the packing assumes target WHICH is child level WHICH */
			if (ptfs_table_level_of(fs, child) != t.level)
				return EIO;
			return 0;
		}
	}
	return ENOENT;
}

static int do_lookup(struct ptfs *fs, fuse_ino_t parent, const char *name,
		     struct fuse_entry_param *e)
{
	struct ptfs_id pid, id;
	int err = ptfs_ino_decode(fs, parent, &pid);

	if (err)
		return err;
	memset(&id, 0, sizeof(id));
	id.ctx = pid.ctx;
	id.node.ctx = pid.node.ctx;
	switch (pid.type) {
	case PTFS_T_GLOBAL: {
		const struct pt_context *ctx;

		if (pid.global != PTFS_INO_ROOT)
			return ENOTDIR;
		if (strcmp(name, "capture") == 0) {
			id.type = PTFS_T_GLOBAL;
			id.global = PTFS_INO_CAPTURE;
			break;
		}
		ctx = pt_capture_context_find(fs->cap, name);
		if (!ctx)
			return ENOENT;
		for (id.ctx = 0; id.ctx < fs->nctx && fs->ctx[id.ctx].ctx != ctx; id.ctx++)
			;
		if (id.ctx >= fs->nctx)
			return ENOENT;
		id.type = PTFS_T_CTXDIR;
		break;
	}
	case PTFS_T_CTXDIR:
		id.node.ctx = ctx_of(fs, &pid);
		if (strcmp(name, "info") == 0)
			id.type = PTFS_T_INFO;
		else if (strcmp(name, "maps") == 0)
			id.type = PTFS_T_MAPS;
		else if (strcmp(name, "va") == 0)
			id.type = PTFS_T_VADIR;
		else if (strcmp(name, "walk") == 0)
			id.type = PTFS_T_WALKDIR;
		else if (strcmp(name, ctx_of(fs, &pid)->fmt->levels[0].name) == 0)
			id.type = PTFS_T_TABLEDIR;   /* the root table: empty path */
		else
			return ENOENT;
		break;
	case PTFS_T_TABLEDIR:
		err = lookup_table(fs, &pid, name, &id);
		if (err)
			return err;
		break;
	case PTFS_T_ENTRYDIR:
		err = lookup_entrydir(fs, &pid, name, &id);
		if (err)
			return err;
		break;
	case PTFS_T_VADIR: {
		const struct ptfs_ctx *pc = &fs->ctx[pid.ctx];
		struct pt_walk w;
		uint64_t va;

		if (!pt_va_parse(name, &va) || va > pc->va_last)
			return ENOENT;
		pt_walk_va(pc->ctx, va, &w);
		if (w.fault != PT_FAULT_NONE)
			return ENOENT;   /* not mapped (the walk/ file says why) */
		id.type = PTFS_T_VALINK;
		id.va = w.page_va;   /* any VA in the page names the page's link */
		break;
	}
	case PTFS_T_WALKDIR: {
		uint64_t va;

		if (!pt_va_parse(name, &va) || va >= PTFS_WALK_LIMIT)
			return ENOENT;
		id.type = PTFS_T_WALKFILE;
		id.va = va;
		break;
	}
	default:
		return ENOTDIR;
	}
	e->ino = ptfs_ino_encode(fs, &id);
	if (e->ino == 0)
		return ENOENT;
	err = do_stat(fs, &id, e->ino, &e->attr, false);
	if (err)
		return err;
	e->attr_timeout = PTFS_TIMEOUT;
	e->entry_timeout = PTFS_TIMEOUT;
	return 0;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;
	int err;

	/* statfs promises PTFS_NAME_MAX; the kernel passes FUSE names up to 1024 bytes */
	if (strlen(name) > PTFS_NAME_MAX)
		return (void)fuse_reply_err(req, ENAMETOOLONG);
	memset(&e, 0, sizeof(e));
	err = do_lookup(fs_of(req), parent, name, &e);
	if (err == ENOENT) {
		/* a negative entry the kernel may cache: the capture never changes */
		memset(&e, 0, sizeof(e));
		e.ino = 0;
		e.entry_timeout = PTFS_TIMEOUT;
		return (void)fuse_reply_entry(req, &e);
	}
	if (err)
		return (void)fuse_reply_err(req, err);
	fuse_reply_entry(req, &e);
}

/* ---- readlink ----------------------------------------------------------- */

static int do_readlink(struct ptfs *fs, fuse_ino_t ino, char *buf, size_t len)
{
	struct ptfs_id id;
	struct pt_walk w;
	int err = ptfs_ino_decode(fs, ino, &id);

	if (err)
		return err;
	if (id.type != PTFS_T_VALINK)
		return EINVAL;
	pt_walk_va(ctx_of(fs, &id), id.va, &w);
	if (w.fault != PT_FAULT_NONE || w.page_va != id.va)
		return ENOENT;
	return va_target(&w.node, buf, len);
}

static void op_readlink(fuse_req_t req, fuse_ino_t ino)
{
	char target[PATH_MAX];
	int err = do_readlink(fs_of(req), ino, target, sizeof(target));

	if (err)
		return (void)fuse_reply_err(req, err);
	fuse_reply_readlink(req, target);
}

/* ---- directories -------------------------------------------------------- */

static bool is_dir_type(const struct ptfs_id *id)
{
	switch (id->type) {
	case PTFS_T_GLOBAL:
		return id->global == PTFS_INO_ROOT;
	case PTFS_T_CTXDIR:
	case PTFS_T_VADIR:
	case PTFS_T_WALKDIR:
	case PTFS_T_TABLEDIR:
	case PTFS_T_ENTRYDIR:
		return true;
	default:
		return false;
	}
}

/* The parent directory of directory ID (for ".."). */
static fuse_ino_t parent_ino(const struct ptfs *fs, const struct ptfs_id *id)
{
	struct ptfs_id p = *id;

	switch (id->type) {
	case PTFS_T_GLOBAL:
	case PTFS_T_CTXDIR:
		return PTFS_INO_ROOT;
	case PTFS_T_VADIR:
	case PTFS_T_WALKDIR:
		p.type = PTFS_T_CTXDIR;
		break;
	case PTFS_T_TABLEDIR:
		p.type = id->node.n == 0 ? PTFS_T_CTXDIR : PTFS_T_ENTRYDIR;
		p.choice = 0;
		break;
	case PTFS_T_ENTRYDIR: {
		const struct pt_level *levels = ctx_of(fs, id)->fmt->levels;
		unsigned n = id->node.n;

		p.type = PTFS_T_TABLEDIR;
		p.node.n = n - 1;
		p.choice = 0;
		if (n >= 2 && levels[id->node.s[n - 2].level].child[1] == id->node.s[n - 1].level)
			p.choice = 1;
		break;
	}
	default:
		return PTFS_INO_ROOT;
	}
	if (p.type == PTFS_T_CTXDIR)
		memset(&p.node, 0, sizeof(p.node));
	return ptfs_ino_encode(fs, &p);
}

struct dirfill {
	fuse_req_t req;
	struct ptfs *fs;
	bool plus;
	char *buf;
	size_t size, len;
};

/*
 * Adds one entry with cookie NEXT (the offset the next readdir resumes at).
 * False when the reply buffer is full (the entry is not added).
 */
static bool dir_add(struct dirfill *d, const char *name, const struct ptfs_id *id,
		    fuse_ino_t ino, mode_t mode, off_t next)
{
	size_t ent, room = d->size - d->len;

	if (!d->plus) {
		struct stat st;

		memset(&st, 0, sizeof(st));
		st.st_ino = ino;
		st.st_mode = mode;
		ent = fuse_add_direntry(d->req, d->buf + d->len, room, name, &st, next);
	} else {
		struct fuse_entry_param e;

		/* size the entry first: no attributes are computed for an entry that does not fit */
		ent = fuse_add_direntry_plus(d->req, NULL, 0, name, NULL, 0);
		if (ent > room)
			return false;
		memset(&e, 0, sizeof(e));
		e.attr.st_ino = ino;
		e.attr.st_mode = mode;
		/*
		 * "." and "..", and entries whose attributes would cost a
		 * render, go without attributes (ino 0): the kernel then
		 * neither counts a lookup nor caches them, and asks later.
		 */
		if (id && do_stat(d->fs, id, ino, &e.attr, true) == 0) {
			e.ino = ino;
			e.attr_timeout = PTFS_TIMEOUT;
			e.entry_timeout = PTFS_TIMEOUT;
		} else {
			memset(&e.attr, 0, sizeof(e.attr));
			e.attr.st_ino = ino;
			e.attr.st_mode = mode;
		}
		ent = fuse_add_direntry_plus(d->req, d->buf + d->len, room, name, &e, next);
	}
	if (ent > room)
		return false;
	d->len += ent;
	return true;
}

static mode_t mode_of(const struct ptfs_id *id)
{
	switch (id->type) {
	case PTFS_T_VALINK:
		return MODE_LINK;
	case PTFS_T_INFO:
	case PTFS_T_MAPS:
	case PTFS_T_ENTRYFILE:
	case PTFS_T_WALKFILE:
		return MODE_FILE;
	case PTFS_T_GLOBAL:
		return id->global == PTFS_INO_ROOT ? MODE_DIR : MODE_FILE;
	default:
		return MODE_DIR;
	}
}

static bool dir_add_id(struct dirfill *d, const char *name, const struct ptfs_id *id, off_t next)
{
	fuse_ino_t ino = ptfs_ino_encode(d->fs, id);

	if (ino == 0)
		return true;   /* cannot happen for a listed node; skip rather than lie */
	return dir_add(d, name, id, ino, mode_of(id), next);
}

/* "." and ".." at offsets 0 and 1 (cookies 1 and 2). False when full. */
static bool dir_dots(struct dirfill *d, const struct ptfs_id *self, fuse_ino_t ino, off_t off)
{
	if (off < 1 && !dir_add(d, ".", NULL, ino, MODE_DIR, 1))
		return false;
	if (off < 2 && !dir_add(d, "..", NULL, parent_ino(d->fs, self), MODE_DIR, 2))
		return false;
	return true;
}

/* Directories with a short fixed list: child k has cookie k + 3. */
static void readdir_fixed(struct dirfill *d, const struct ptfs_id *self, off_t off)
{
	struct ptfs *fs = d->fs;
	struct ptfs_id id;
	off_t k = 0;

	memset(&id, 0, sizeof(id));
#define ADD(name_) do { \
		if (k + 2 >= off && !dir_add_id(d, (name_), &id, k + 3)) \
			return; \
		k++; \
	} while (0)

	switch (self->type) {
	case PTFS_T_GLOBAL:
		id.type = PTFS_T_GLOBAL;
		id.global = PTFS_INO_CAPTURE;
		ADD("capture");
		for (size_t i = 0; i < fs->nctx; i++) {
			memset(&id, 0, sizeof(id));
			id.type = PTFS_T_CTXDIR;
			id.ctx = (unsigned)i;
			ADD(fs->ctx[i].ctx->name);
		}
		break;
	case PTFS_T_CTXDIR: {
		const struct pt_context *ctx = ctx_of(fs, self);

		id.ctx = self->ctx;
		id.node.ctx = ctx;
		id.type = PTFS_T_INFO;
		ADD("info");
		id.type = PTFS_T_MAPS;
		ADD("maps");
		id.type = PTFS_T_TABLEDIR;
		ADD(ctx->fmt->levels[0].name);
		id.type = PTFS_T_VADIR;
		ADD("va");
		id.type = PTFS_T_WALKDIR;
		ADD("walk");
		break;
	}
	case PTFS_T_ENTRYDIR: {
		const struct pt_level *levels = ctx_of(fs, self)->fmt->levels;
		struct pt_loc loc;
		struct pt_table t;

		if (get_entry(self, &loc) != 0)
			return;
		id = *self;
		id.type = PTFS_T_ENTRYFILE;
		ADD("entry");
		for (unsigned which = 0; which < 2; which++) {
			if (!pt_table_child(&loc.table, loc.index, &loc.entry, which, &t) ||
			    t.cover == PT_COVER_NONE)
				continue;
			id = *self;
			id.type = PTFS_T_TABLEDIR;
			id.choice = which;
			ADD(levels[t.level].name);
		}
		break;
	}
	default:
		break;   /* walk/ lists nothing */
	}
#undef ADD
}

/* A table: entry I has cookie I + 3, so a resumed readdir starts at OFF - 2. */
static void readdir_table(struct dirfill *d, const struct ptfs_id *self, off_t off)
{
	struct pt_table t;
	struct pt_entry e;
	struct ptfs_id id;
	uint64_t i = off > 2 ? (uint64_t)off - 2 : 0;
	char name[24];

	if (self->node.n >= PT_MAX_DEPTH || get_table(d->fs, self, &t) != 0)
		return;
	while (i < t.entries && pt_table_next(&t, &i, d->fs->opts.all_entries, &e)) {
		id = *self;
		id.choice = 0;
		id.node.s[id.node.n].level = t.level;
		id.node.s[id.node.n].index = i;
		id.node.n++;
		id.type = pt_entry_is_dir(&e) ? PTFS_T_ENTRYDIR : PTFS_T_ENTRYFILE;
		snprintf(name, sizeof(name), "%llu", (unsigned long long)i);
		if (!dir_add_id(d, name, &id, (off_t)(i + 3)))
			return;
		i++;
	}
}

/*
 * va/: streamed from the page iterator; the cookie of a page is the VA just
 * past it (+ 2, to stay clear of the cookies of "." and ".."), so a huge va/
 * never holds a list of names and a resumed readdir starts where it stopped.
 */
static void readdir_va(struct dirfill *d, const struct ptfs_id *self, off_t off)
{
	const struct ptfs_ctx *pc = &d->fs->ctx[self->ctx];
	struct pt_page_iter it;
	struct pt_page page;
	struct ptfs_id id;
	char name[32];

	pt_pages_init(&it, pc->ctx, off > 2 ? (uint64_t)off - 2 : 0);
	while (pt_pages_next(&it, &page)) {
		if (page.va > pc->va_last)
			break;
		memset(&id, 0, sizeof(id));
		id.type = PTFS_T_VALINK;
		id.ctx = self->ctx;
		id.node.ctx = pc->ctx;
		id.va = page.va;
		pt_va_name(pc->ctx->fmt, page.va, name, sizeof(name));
		if (d->plus) {
			/* the iterator already knows the leaf: no walk per link */
			struct fuse_entry_param e;
			char target[PATH_MAX];
			size_t ent, room = d->size - d->len;
			fuse_ino_t ino = ptfs_ino_encode(d->fs, &id);

			if (ino == 0 || va_target(&page.node, target, sizeof(target)) != 0)
				continue;
			memset(&e, 0, sizeof(e));
			stat_base(d->fs, ino, MODE_LINK, &e.attr);
			e.attr.st_size = (off_t)strlen(target);
			e.ino = ino;
			e.attr_timeout = PTFS_TIMEOUT;
			e.entry_timeout = PTFS_TIMEOUT;
			ent = fuse_add_direntry_plus(d->req, d->buf + d->len, room, name, &e,
						     (off_t)(page.va + page.size + 2));
			if (ent > room)
				return;
			d->len += ent;
		} else if (!dir_add(d, name, NULL, ptfs_ino_encode(d->fs, &id), MODE_LINK,
				    (off_t)(page.va + page.size + 2))) {
			return;
		}
	}
}

static int do_readdir(struct ptfs *fs, fuse_req_t req, fuse_ino_t ino, size_t size,
		      off_t off, bool plus, struct dirfill *d)
{
	struct ptfs_tls *t = tls_get();
	struct ptfs_id id;
	int err = ptfs_ino_decode(fs, ino, &id);

	if (err)
		return err;
	if (!is_dir_type(&id))
		return ENOTDIR;
	if (!t || !tls_scratch(t, size))
		return ENOMEM;
	d->req = req;
	d->fs = fs;
	d->plus = plus;
	d->buf = t->dir;
	d->size = size;
	d->len = 0;
	if (!dir_dots(d, &id, ino, off))
		return 0;
	switch (id.type) {
	case PTFS_T_TABLEDIR:
		readdir_table(d, &id, off);
		break;
	case PTFS_T_VADIR:
		readdir_va(d, &id, off);
		break;
	default:
		readdir_fixed(d, &id, off);
		break;
	}
	return 0;
}

static void readdir_common(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, bool plus)
{
	struct dirfill d;
	int err = do_readdir(fs_of(req), req, ino, size, off, plus, &d);

	if (err)
		return (void)fuse_reply_err(req, err);
	fuse_reply_buf(req, d.buf, d.len);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	readdir_common(req, ino, size, off, false);
}

static void op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			   struct fuse_file_info *fi)
{
	readdir_common(req, ino, size, off, true);
}

static int do_opendir(struct ptfs *fs, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ptfs_id id;
	struct stat st;
	int err = ptfs_ino_decode(fs, ino, &id);

	if (err)
		return err;
	if (!is_dir_type(&id))
		return ENOTDIR;
	err = do_stat(fs, &id, ino, &st, false);   /* the node still resolves */
	if (err)
		return err;
	fi->cache_readdir = 1;
	fi->keep_cache = 1;
	return 0;
}

static void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	int err = do_opendir(fs_of(req), ino, fi);

	if (err)
		return (void)fuse_reply_err(req, err);
	fuse_reply_open(req, fi);
}

/* ---- files -------------------------------------------------------------- */

/*
 * Where the kernel offers it (FUSE_CAP_NO_OPEN_SUPPORT), OPEN is answered
 * ENOSYS once and never sent again, nor RELEASE: the kernel then keeps the
 * page cache across opens by itself, and a read finds its bytes by inode
 * (do_read with fh 0) — two fewer round trips per file for grep -r and
 * diff -r.  Otherwise fi->fh points at the file's bytes: the shared cache
 * for `capture`, `info` and `maps`, or a buffer rendered at open and freed
 * in release (struct ptfs_open), so every read of one open file sees the
 * same bytes.
 */
static int do_open(struct ptfs *fs, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ptfs_cache *c;
	enum cache_kind kind;
	struct ptfs_id id;
	struct ptfs_open *o;
	int err = ptfs_ino_decode(fs, ino, &id);

	if (err)
		return err;
	if (is_dir_type(&id))
		return EISDIR;
	if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC))
		return EROFS;
	if (fs->no_open)
		return ENOSYS;
	c = cache_of(fs, &id, &kind);
	if (c) {
		err = cache_fill(fs, &id, c, kind);
		if (err)
			return err;
		fi->fh = (uint64_t)(uintptr_t)&c->buf;
	} else {
		if (id.type != PTFS_T_ENTRYFILE && id.type != PTFS_T_WALKFILE)
			return EINVAL;
		o = open_new(fs);
		if (!o)
			return ENOMEM;
		err = render_node(fs, &id, &o->buf);
		if (err) {
			open_free(fs, o);
			return err;
		}
		fi->fh = (uint64_t)(uintptr_t)&o->buf;
	}
	fi->keep_cache = 1;
	return 0;
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	int err = do_open(fs_of(req), ino, fi);

	if (err)
		return (void)fuse_reply_err(req, err);
	fuse_reply_open(req, fi);
}

/* The part of B a read of *SIZE bytes at OFF (>= 0) gets: *DATA, and *SIZE cut to fit. */
static void slice(const struct pt_buf *b, off_t off, size_t *size, const char **data)
{
	if ((uint64_t)off >= b->len) {
		*size = 0;
		*data = NULL;
		return;
	}
	if (*size > b->len - (size_t)off)
		*size = b->len - (size_t)off;
	*data = b->data + off;
}

static int do_read(struct ptfs *fs, fuse_ino_t ino, size_t *size, off_t off,
		   struct fuse_file_info *fi, const char **data)
{
	const struct pt_buf *b = (const struct pt_buf *)(uintptr_t)fi->fh;
	enum cache_kind kind;
	struct ptfs_cache *c;
	struct ptfs_id id;
	struct ptfs_tls *t;
	char *copy;
	int err;

	if (off < 0)
		return EINVAL;
	if (!b) {
		/* No OPEN was sent (NO_OPEN_SUPPORT): find the bytes by inode. */
		err = ptfs_ino_decode(fs, ino, &id);
		if (err)
			return err;
		c = cache_of(fs, &id, &kind);
		if (c) {
			err = cache_fill(fs, &id, c, kind);
			b = &c->buf;
		} else if (id.type == PTFS_T_ENTRYFILE || id.type == PTFS_T_WALKFILE) {
			err = render_memo(fs, &id, ino, &b);
		} else {
			err = is_dir_type(&id) ? EISDIR : EINVAL;
		}
		if (err)
			return err;
		slice(b, off, size, data);
		return 0;
	}
	slice(b, off, size, data);
	if (*size == 0)
		return 0;
	if (ptfs_ino_decode(fs, ino, &id) == 0 && cache_of(fs, &id, &kind))
		return 0;   /* the caches live as long as the mount */
	/*
	 * A per-open buffer is freed by RELEASE, which the kernel may send (and
	 * another thread serve) as soon as it has consumed this reply, while
	 * writev() is still returning here.  That is safe, but sanitizers check
	 * the iovec after the call; replying from per-thread scratch keeps
	 * ASan quiet at the cost of copying one small rendered file.
	 */
	t = tls_get();
	copy = t ? tls_scratch(t, *size) : NULL;
	if (!copy)
		return ENOMEM;
	memcpy(copy, *data, *size);
	*data = copy;
	return 0;
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	const char *data;
	int err = do_read(fs_of(req), ino, &size, off, fi, &data);

	if (err)
		return (void)fuse_reply_err(req, err);
	fuse_reply_buf(req, data, size);
}

static void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct pt_buf *b = (struct pt_buf *)(uintptr_t)fi->fh;
	struct ptfs *fs = fs_of(req);
	enum cache_kind kind;
	struct ptfs_id id;

	/* the caches live as long as the mount; only per-open renders are freed */
	if (b && !(ptfs_ino_decode(fs, ino, &id) == 0 && cache_of(fs, &id, &kind)))
		open_free(fs, (struct ptfs_open *)((char *)b - offsetof(struct ptfs_open, buf)));
	fuse_reply_err(req, 0);
}

static void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct statvfs st;

	memset(&st, 0, sizeof(st));
	st.f_bsize = 4096;
	st.f_frsize = 4096;
	st.f_namemax = PTFS_NAME_MAX;
	st.f_flag = ST_RDONLY;
	fuse_reply_statfs(req, &st);
}

/* ---- read-only: every write operation is EROFS -------------------------- */

static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		       struct fuse_file_info *fi)
{
	fuse_reply_err(req, EROFS);
}

static void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev)
{
	fuse_reply_err(req, EROFS);
}

static void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	fuse_reply_err(req, EROFS);
}

static void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	fuse_reply_err(req, EROFS);
}

static void op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
	fuse_reply_err(req, EROFS);
}

static void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		      fuse_ino_t newparent, const char *newname, unsigned int flags)
{
	fuse_reply_err(req, EROFS);
}

static void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
	fuse_reply_err(req, EROFS);
}

static void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	fuse_reply_err(req, EROFS);
}

static void op_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
		      struct fuse_file_info *fi)
{
	fuse_reply_err(req, EROFS);
}

static void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value,
			size_t size, int flags)
{
	fuse_reply_err(req, EROFS);
}

static void op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	fuse_reply_err(req, EROFS);
}

static void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
			 struct fuse_file_info *fi)
{
	fuse_reply_err(req, EROFS);
}

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
	struct ptfs *fs = userdata;

	/* files need no OPEN/RELEASE round trips: see do_open() */
	if (conn->capable & FUSE_CAP_NO_OPEN_SUPPORT) {
		conn->want |= FUSE_CAP_NO_OPEN_SUPPORT;
		fs->no_open = true;
	}
	/* symlink targets never change: let the page cache keep them */
	if (conn->capable & FUSE_CAP_CACHE_SYMLINKS)
		conn->want |= FUSE_CAP_CACHE_SYMLINKS;
	/* lookups and readdirs of one directory need no serialising */
	if (conn->capable & FUSE_CAP_PARALLEL_DIROPS)
		conn->want |= FUSE_CAP_PARALLEL_DIROPS;
	/* libfuse refuses INIT unless init() repeats the -o max_read=N it was given */
	if (fs->opts.max_read)
		conn->max_read = fs->opts.max_read;
}

const struct fuse_lowlevel_ops ptfs_ops = {
	.init = op_init,
	.lookup = op_lookup,
	.getattr = op_getattr,
	.readlink = op_readlink,
	.opendir = op_opendir,
	.readdir = op_readdir,
	.readdirplus = op_readdirplus,
	.open = op_open,
	.read = op_read,
	.release = op_release,
	.statfs = op_statfs,
	.setattr = op_setattr,
	.mknod = op_mknod,
	.mkdir = op_mkdir,
	.unlink = op_unlink,
	.rmdir = op_unlink,
	.symlink = op_symlink,
	.rename = op_rename,
	.link = op_link,
	.write = op_write,
	.create = op_create,
	.setxattr = op_setxattr,
	.removexattr = op_removexattr,
	.fallocate = op_fallocate,
};
