/* SPDX-License-Identifier: MIT */
/*
 * ops.c — the FUSE low-level operations of ptfs.
 *
 * Each operation is a do_X() that returns 0 or an errno and an op_X() that
 * replies exactly once.  Nodes are decoded from their computed inode
 * numbers (ino.c) and re-resolved on every call by the core tree
 * (core/tree.c: names, listings, contents, links); the capture is
 * immutable, so no lock is needed except around the kept renders of
 * `capture`, `info`, `maps` and `entries` (state.c: one daemon-wide budget).
 *
 * Because nothing ever changes, every reply carries a huge timeout (also
 * negative lookups: ino 0 + timeout), open sets keep_cache and opendir
 * cache_readdir, so the kernel asks once per name, attribute and page.
 * Where the kernel allows it, OPEN and OPENDIR are answered ENOSYS once and
 * never sent again (nor RELEASE/RELEASEDIR): see do_open() and do_opendir().
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

static struct ptfs *fs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/* Whether ID is a directory (by type; opendir and do_stat prove it resolves). */
/*
 * The cancel check of a request (its struct pt_readctl): the kernel sent an
 * INTERRUPT for it (the reader got a signal), or the session has ended
 * (SIGTERM, SIGINT): a long listing or render then stops, so that no
 * request keeps a thread busy past its reader or the daemon past its end.
 */
static bool req_cancelled(void *ud)
{
	fuse_req_t req = ud;

	return fuse_req_interrupted(req) || fuse_session_exited(fs_of(req)->se);
}

/* The read control of REQ: its cancel check, no work bound (the core's own bounds apply). */
static void req_arm(fuse_req_t req, struct pt_readctl *rc)
{
	pt_readctl_init(rc, req_cancelled, req, 0);
}

/*
 * Ends the request's cancel check before its reply: whether it was cut.  RC
 * lives on the handler's stack, so nothing keeps REQ (which the reply
 * frees) once the handler returns.
 */
static bool req_done(const struct pt_readctl *rc)
{
	return pt_readctl_cancelled(rc);
}

static bool is_dir(const struct pt_tnode *id)
{
	return pt_tree_kind(id) == PT_TK_DIR;
}

/* ---- attributes --------------------------------------------------------- */

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

static mode_t mode_of(const struct pt_tnode *id)
{
	switch (pt_tree_kind(id)) {
	case PT_TK_DIR:
		return MODE_DIR;
	case PT_TK_LINK:
		return MODE_LINK;
	default:
		return MODE_FILE;
	}
}

/* A link's target into BUF; ENAMETOOLONG when it does not fit. */
static int link_target(struct ptfs *fs, const struct pt_tnode *id, char *buf, size_t len)
{
	pt_err err = pt_tree_readlink(fs->tree, id, buf, len);

	return err == PT_E_TRUNCATED ? ENAMETOOLONG : ptfs_errno(err);
}

/* st_size of file ID: from the cache, or rendered (memo) for an entry or walk file. */
static int file_size(struct ptfs *fs, const struct pt_tnode *id, fuse_ino_t ino, bool lazy,
		     size_t *size, struct pt_readctl *rc)
{
	struct ptfs_cache *c = ptfs_cache_of(fs, id);
	const struct pt_buf *b;
	uint64_t sz;
	int err;

	/*
	 * st_size needs a full render (entries: a whole pass over the
	 * context).  A listing (LAZY) leaves it to the LOOKUP that a stat or
	 * open sends: `find`, `ls -R` and `ls va/` never do.  Rendering every
	 * listed entry made first listings ~1.5x slower (and slower than
	 * archivemount) for ~1.4x faster first reads (bench/README.md);
	 * listings win.  A cached file rendered once costs nothing, even
	 * after the budget dropped its bytes: its size is kept.
	 */
	if (lazy && !(c && ptfs_cache_ready(c)))
		return -1;
	if (c) {
		err = ptfs_cache_size(fs, id, c, &sz, rc);
		if (!err)
			*size = (size_t)sz;
		return err;
	}
	err = ptfs_render_memo(fs, id, ino, &b, rc);
	if (err)
		return err;
	*size = b->len;
	return 0;
}

/*
 * Attributes of ID (inode INO).  LAZY: for a file whose size needs a render
 * (an entry or walk file, a cached file not rendered yet), fill only ino and
 * mode and return -1, so that readdirplus does not render a whole table, or
 * a whole context's maps, just to list a directory.
 */
static int do_stat(struct ptfs *fs, const struct pt_tnode *id, fuse_ino_t ino,
		   struct stat *st, bool lazy, struct pt_readctl *rc)
{
	char target[PATH_MAX];
	uint64_t nlink;
	size_t size;
	int err;

	switch (pt_tree_kind(id)) {
	case PT_TK_DIR:
		err = ptfs_errno(pt_tree_nlink(fs->tree, id, &nlink, rc));
		if (err)
			return err;
		stat_base(fs, ino, MODE_DIR, st);
		st->st_nlink = (nlink_t)nlink;
		return 0;
	case PT_TK_LINK:
		err = link_target(fs, id, target, sizeof(target));
		if (err)
			return err;
		stat_base(fs, ino, MODE_LINK, st);
		st->st_size = (off_t)strlen(target);
		return 0;
	default:
		stat_base(fs, ino, MODE_FILE, st);
		err = file_size(fs, id, ino, lazy, &size, rc);
		if (err)
			return err;
		stat_file(st, size);
		return 0;
	}
}

static int do_getattr(struct ptfs *fs, fuse_ino_t ino, struct stat *st, struct pt_readctl *rc)
{
	struct pt_tnode id;
	int err = ptfs_ino_decode(fs, ino, &id);

	if (err)
		return err;
	return do_stat(fs, &id, ino, st, false, rc);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct pt_readctl rc;
	struct stat st;
	int err;

	req_arm(req, &rc);
	err = do_getattr(fs_of(req), ino, &st, &rc);
	if (req_done(&rc))
		err = EINTR;
	if (err)
		return (void)fuse_reply_err(req, err);
	fuse_reply_attr(req, &st, ptfs_timeout(fs_of(req)));
}

/* ---- lookup ------------------------------------------------------------- */

/*
 * *HELD: the walk/ slot this lookup holds (wslot.c), UINT32_MAX for none;
 * op_lookup gives it back unless the reply that counts it is sent.
 */
static int do_lookup(struct ptfs *fs, fuse_ino_t parent, const char *name,
		     struct fuse_entry_param *e, struct pt_readctl *rc, uint32_t *held)
{
	struct pt_tnode pid, id;
	int err = ptfs_ino_decode(fs, parent, &pid);

	if (!err)
		err = ptfs_live_gate(fs);
	if (err)
		return err;
	if (!is_dir(&pid))
		return ENOTDIR;
	err = ptfs_errno(pt_tree_lookup(fs->tree, &pid, name, &id));
	if (err)
		return err;
	e->ino = ptfs_ino_encode(fs, &id);
	if (e->ino == 0 && id.type == PT_TN_WALKFILE && fs->wslots) {
		/* a walk/ VA past the inode's bits: a slot numbers it */
		err = ptfs_wslot_hold(fs->wslots, id.ctx, id.va, held);
		if (err)
			return err;
		id.choice = *held + 1;
		e->ino = ptfs_ino_encode(fs, &id);
	}
	/* 0: a node the inode scheme cannot number */
	if (e->ino == 0)
		return ENOENT;
	err = do_stat(fs, &id, e->ino, &e->attr, false, rc);
	if (err)
		return err;
	e->attr_timeout = ptfs_timeout(fs);
	e->entry_timeout = ptfs_timeout(fs);
	return 0;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;
	struct pt_readctl rc;
	uint32_t held = UINT32_MAX;
	int err;

	/* statfs promises PTFS_NAME_MAX; the kernel passes FUSE names up to 1024 bytes */
	if (strlen(name) > PTFS_NAME_MAX)
		return (void)fuse_reply_err(req, ENAMETOOLONG);
	memset(&e, 0, sizeof(e));
	req_arm(req, &rc);
	err = do_lookup(fs_of(req), parent, name, &e, &rc, &held);
	if (req_done(&rc))
		err = EINTR;   /* never a negative entry from a cut lookup */
	if (held != UINT32_MAX && (err || fuse_reply_entry(req, &e) != 0))
		ptfs_wslot_forget(fs_of(req)->wslots, held, 1);   /* no reply counted it */
	if (held != UINT32_MAX && !err)
		return;
	if (err == ENOENT) {
		/* a negative entry the kernel may cache: a file capture never changes, a live one for -o refresh */
		memset(&e, 0, sizeof(e));
		e.ino = 0;
		e.entry_timeout = ptfs_timeout(fs_of(req));
		return (void)fuse_reply_entry(req, &e);
	}
	if (err)
		return (void)fuse_reply_err(req, err);
	fuse_reply_entry(req, &e);
}

/*
 * FORGET: only a walk/ slot's lookups are counted (every other inode is
 * computed from where its node is, and needs no bookkeeping).
 */
static void forget_one(struct ptfs *fs, fuse_ino_t ino, uint64_t nlookup)
{
	uint32_t slot;

	if (fs->wslots && ptfs_ino_wslot(fs, ino, &slot))
		ptfs_wslot_forget(fs->wslots, slot, nlookup);
}

static void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	forget_one(fs_of(req), ino, nlookup);
	fuse_reply_none(req);
}

static void op_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
	for (size_t i = 0; i < count; i++)
		forget_one(fs_of(req), forgets[i].ino, forgets[i].nlookup);
	fuse_reply_none(req);
}

/* ---- readlink ----------------------------------------------------------- */

static int do_readlink(struct ptfs *fs, fuse_ino_t ino, char *buf, size_t len)
{
	struct pt_tnode id;
	int err = ptfs_ino_decode(fs, ino, &id);

	if (err)
		return err;
	if (pt_tree_kind(&id) != PT_TK_LINK)
		return EINVAL;
	return link_target(fs, &id, buf, len);
}

static void op_readlink(fuse_req_t req, fuse_ino_t ino)
{
	char target[PATH_MAX];
	struct pt_readctl rc;
	int err;

	req_arm(req, &rc);
	err = do_readlink(fs_of(req), ino, target, sizeof(target));
	if (req_done(&rc))
		err = EINTR;
	if (err)
		return (void)fuse_reply_err(req, err);
	fuse_reply_readlink(req, target);
}

/* ---- directories -------------------------------------------------------- */

struct dirfill {
	fuse_req_t req;
	struct ptfs *fs;
	bool plus;
	char *buf;
	size_t size, len;
	struct pt_readctl *rc;   /* the request's */
};

/*
 * Adds one entry with cookie NEXT (the offset the next readdir resumes at).
 * False when the reply buffer is full (the entry is not added).
 */
static bool dir_add(struct dirfill *d, const char *name, const struct pt_tnode *id,
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
		/*
		 * "." and "..", and entries whose attributes would cost a
		 * render, go without attributes (ino 0): the kernel then
		 * neither counts a lookup nor caches them, and asks later.
		 */
		if (id && do_stat(d->fs, id, ino, &e.attr, true, d->rc) == 0) {
			e.ino = ino;
			e.attr_timeout = ptfs_timeout(d->fs);
			e.entry_timeout = ptfs_timeout(d->fs);
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

/* pt_tree_list() callback: one child into the reply; false when it is full. */
static bool dir_add_child(void *ud, const char *name, const struct pt_tnode *child,
			  uint64_t next)
{
	struct dirfill *d = ud;
	fuse_ino_t ino = ptfs_ino_encode(d->fs, child);

	if (ino == 0)
		return true;   /* cannot happen for a listed node; skip rather than lie */
	return dir_add(d, name, child, ino, mode_of(child), (off_t)next);
}

/* "." and ".." at offsets 0 and 1 (cookies 1 and 2). False when full. */
static bool dir_dots(struct dirfill *d, const struct pt_tnode *self, fuse_ino_t ino, off_t off)
{
	struct pt_tnode parent;
	fuse_ino_t pino = PTFS_INO_ROOT;

	if (off < 1 && !dir_add(d, ".", NULL, ino, MODE_DIR, 1))
		return false;
	if (off < 2) {
		if (pt_tree_parent(d->fs->tree, self, &parent) == PT_OK)
			pino = ptfs_ino_encode(d->fs, &parent);
		if (!dir_add(d, "..", NULL, pino, MODE_DIR, 2))
			return false;
	}
	return true;
}

static int do_readdir(struct ptfs *fs, fuse_req_t req, fuse_ino_t ino, size_t size,
		      off_t off, bool plus, struct dirfill *d, struct pt_readctl *rc)
{
	struct ptfs_tls *t = ptfs_tls_get();
	struct pt_tnode id;
	int err = ptfs_ino_decode(fs, ino, &id);

	if (!err)
		err = ptfs_live_gate(fs);
	if (err)
		return err;
	if (!is_dir(&id))
		return ENOTDIR;
	if (!t || !ptfs_tls_scratch(t, size))
		return ENOMEM;
	d->req = req;
	d->fs = fs;
	d->plus = plus;
	d->buf = t->dir;
	d->size = size;
	d->len = 0;
	d->rc = rc;
	if (!dir_dots(d, &id, ino, off))
		return 0;
	return ptfs_errno(pt_tree_list(fs->tree, &id, off > 0 ? (uint64_t)off : 0,
				       dir_add_child, d, rc));
}

static void readdir_common(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, bool plus)
{
	struct pt_readctl rc;
	struct dirfill d;
	int err;

	req_arm(req, &rc);
	err = do_readdir(fs_of(req), req, ino, size, off, plus, &d, &rc);
	if (req_done(&rc))
		err = EINTR;   /* a cut listing would end the directory early */
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

static int do_opendir(struct ptfs *fs, fuse_ino_t ino, struct fuse_file_info *fi,
		      struct pt_readctl *rc)
{
	struct pt_tnode id;
	struct stat st;
	int err = ptfs_ino_decode(fs, ino, &id);

	if (err)
		return err;
	if (!is_dir(&id))
		return ENOTDIR;
	err = do_stat(fs, &id, ino, &st, false, rc);   /* the node still resolves */
	if (err)
		return err;
	/*
	 * FUSE_CAP_NO_OPENDIR_SUPPORT: ENOSYS tells the kernel to open every
	 * directory by itself from now on, with keep_cache and cache_readdir
	 * (its default for that case, fs/fuse/file.c fuse_do_open), and never
	 * to send OPENDIR or RELEASEDIR again: listings resume by cookie and
	 * need no per-open state, and a first `find` sent one OPENDIR and one
	 * RELEASEDIR per directory, 47% of its requests (bench/README.md).
	 * The first directory opened is still checked above.
	 */
	if (fs->no_opendir)
		return ENOSYS;
	/* a live mount's listings change: the kernel keeps none (live.c) */
	fi->cache_readdir = !fs->live;
	fi->keep_cache = !fs->live;
	return 0;
}

static void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct pt_readctl rc;
	int err;

	req_arm(req, &rc);
	err = do_opendir(fs_of(req), ino, fi, &rc);
	if (req_done(&rc))
		err = EINTR;
	if (err)
		return (void)fuse_reply_err(req, err);
	fuse_reply_open(req, fi);
}

/* ---- files -------------------------------------------------------------- */

/*
 * A live mount's cached file (capture, info, maps, map.svg, vs/): the
 * render that holds now, copied for this open, so that every read of one
 * open sees one render while the cache moves on (live.c).
 */
static int open_live_cached(struct ptfs *fs, const struct pt_tnode *id, struct ptfs_cache *c,
			    struct fuse_file_info *fi, struct pt_readctl *rc)
{
	struct ptfs_held *h;
	struct ptfs_open *o;
	int err = ptfs_cache_get(fs, id, c, &h, rc);

	if (err)
		return err;
	o = ptfs_open_new(fs);
	if (o)
		pt_buf_put(&o->buf, h->buf.data ? h->buf.data : "", h->buf.len);
	ptfs_held_put(fs, h);
	if (!o || o->buf.oom) {
		if (o)
			ptfs_open_free(fs, o);
		return ENOMEM;
	}
	fi->fh = (uint64_t)(uintptr_t)&o->buf;
	fi->keep_cache = 0;
	fi->direct_io = 1;
	return 0;
}

/*
 * Where the kernel offers it (FUSE_CAP_NO_OPEN_SUPPORT), OPEN is answered
 * ENOSYS once and never sent again, nor RELEASE: the kernel then keeps the
 * page cache across opens by itself, and a read finds its bytes by inode
 * (do_read with fh 0) — two fewer round trips per file for grep -r and
 * diff -r.  Otherwise a kept file (`capture`, `info`, `maps`, `entries`)
 * is still read by inode (fh 0: the budget may drop and re-render it
 * between reads, the same bytes), and any other file's fi->fh points at a
 * buffer rendered at open and freed in release (struct ptfs_open), so every
 * read of one open file sees the same bytes.
 */
static int do_open(struct ptfs *fs, fuse_ino_t ino, struct fuse_file_info *fi,
		   struct pt_readctl *rc)
{
	struct ptfs_cache *c;
	struct pt_tnode id;
	struct ptfs_open *o;
	int err = ptfs_ino_decode(fs, ino, &id);

	if (!err)
		err = ptfs_live_gate(fs);
	if (err)
		return err;
	if (is_dir(&id))
		return EISDIR;
	if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC))
		return EROFS;
	if (fs->no_open)
		return ENOSYS;
	c = ptfs_cache_of(fs, &id);
	if (c && fs->live && id.type != PT_TN_ENTRIES)
		return open_live_cached(fs, &id, c, fi, rc);
	if (c && !(fs->live && id.type == PT_TN_ENTRIES)) {
		struct ptfs_held *h;

		/*
		 * Read by inode (do_read), no per-open bytes: fh 0.  The budget
		 * may drop the render between reads; the next read renders the
		 * same bytes again.
		 */
		err = ptfs_cache_get(fs, &id, c, &h, rc);
		if (err)
			return err;
		ptfs_held_put(fs, h);
		fi->fh = 0;
	} else {
		if (pt_tree_kind(&id) != PT_TK_FILE)
			return EINVAL;
		o = ptfs_open_new(fs);
		if (!o)
			return ENOMEM;
		err = ptfs_errno(pt_tree_render(fs->tree, &id, &o->buf, rc));
		if (!err && pt_readctl_cancelled(rc))
			err = EINTR;   /* a cut render is not the file */
		if (err) {
			ptfs_open_free(fs, o);
			return err;
		}
		fi->fh = (uint64_t)(uintptr_t)&o->buf;
	}
	fi->keep_cache = !fs->live;
	fi->direct_io = fs->live;   /* a live file's size changes: read to its end, not to a kept size */
	return 0;
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct pt_readctl rc;
	int err;

	req_arm(req, &rc);
	err = do_open(fs_of(req), ino, fi, &rc);   /* do_open reports a cut render itself */
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

/*
 * A read of cached file ID, copied into thread scratch under a reference,
 * so that the budget may drop the render as soon as the copy is made.
 * CTX/entries: from its kept text, or rendered forward from the nearest
 * checkpoint.
 */
static int read_cached(struct ptfs *fs, const struct pt_tnode *id, struct ptfs_cache *c,
		       size_t *size, off_t off, const char **data, struct pt_readctl *rc)
{
	struct ptfs_held *h;
	struct ptfs_tls *t;
	int err = ptfs_cache_get(fs, id, c, &h, rc);

	if (err)
		return err;
	t = ptfs_tls_get();
	if (!t) {
		err = ENOMEM;
	} else if (id->type == PT_TN_ENTRIES) {
		err = ptfs_errno(pt_entries_file_read(fs->tree, &h->ef, (uint64_t)off, *size,
						      &t->buf, rc));
	} else if ((uint64_t)off < h->buf.len) {
		size_t n = h->buf.len - (size_t)off;

		pt_buf_put(&t->buf, h->buf.data + off, n < *size ? n : *size);
		err = t->buf.oom ? ENOMEM : 0;
	}
	ptfs_held_put(fs, h);
	if (err)
		return err;
	*size = t->buf.len;
	*data = t->buf.data;
	return 0;
}

static int do_read(struct ptfs *fs, fuse_ino_t ino, size_t *size, off_t off,
		   struct fuse_file_info *fi, const char **data, struct pt_readctl *rc)
{
	const struct pt_buf *b = (const struct pt_buf *)(uintptr_t)fi->fh;
	struct ptfs_cache *c;
	struct pt_tnode id;
	struct ptfs_tls *t;
	char *copy;
	int err;

	if (off < 0)
		return EINVAL;
	err = ptfs_live_gate(fs);
	if (err)
		return err;
	if (!b) {
		/* No per-open bytes (NO_OPEN_SUPPORT, or a cached file): find them by inode. */
		err = ptfs_ino_decode(fs, ino, &id);
		if (err)
			return err;
		c = ptfs_cache_of(fs, &id);
		if (c)
			return read_cached(fs, &id, c, size, off, data, rc);
		if (pt_tree_kind(&id) != PT_TK_FILE)
			return is_dir(&id) ? EISDIR : EINVAL;
		err = ptfs_render_memo(fs, &id, ino, &b, rc);
		if (err)
			return err;
		slice(b, off, size, data);
		return 0;
	}
	slice(b, off, size, data);
	if (*size == 0)
		return 0;
	/*
	 * A per-open buffer is freed by RELEASE, which the kernel may send (and
	 * another thread serve) as soon as it has consumed this reply, while
	 * writev() is still returning here.  That is safe, but sanitizers check
	 * the iovec after the call; replying from per-thread scratch keeps
	 * ASan quiet at the cost of copying one small rendered file.
	 */
	t = ptfs_tls_get();
	copy = t ? ptfs_tls_scratch(t, *size) : NULL;
	if (!copy)
		return ENOMEM;
	memcpy(copy, *data, *size);
	*data = copy;
	return 0;
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	const char *data = NULL;
	struct pt_readctl rc;
	int err;

	req_arm(req, &rc);
	err = do_read(fs_of(req), ino, &size, off, fi, &data, &rc);
	if (req_done(&rc))
		err = EINTR;

	if (err)
		return (void)fuse_reply_err(req, err);
	fuse_reply_buf(req, data, size);
}

static void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct pt_buf *b = (struct pt_buf *)(uintptr_t)fi->fh;
	struct ptfs *fs = fs_of(req);

	/* only per-open renders have an fh: cached files are read by inode */
	if (b)
		ptfs_open_free(fs, (struct ptfs_open *)((char *)b - offsetof(struct ptfs_open, buf)));
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

	/* files need no OPEN/RELEASE round trips: see do_open(); a live mount's do (live.c) */
	if ((conn->capable & FUSE_CAP_NO_OPEN_SUPPORT) && !fs->live) {
		conn->want |= FUSE_CAP_NO_OPEN_SUPPORT;
		fs->no_open = true;
	}
	/* directories need no OPENDIR/RELEASEDIR round trips: see do_opendir() */
	if ((conn->capable & FUSE_CAP_NO_OPENDIR_SUPPORT) && !fs->live) {
		conn->want |= FUSE_CAP_NO_OPENDIR_SUPPORT;
		fs->no_opendir = true;
	}
	/* symlink targets never change: let the page cache keep them */
	if ((conn->capable & FUSE_CAP_CACHE_SYMLINKS) && !fs->live)
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
	.forget = op_forget,
	.forget_multi = op_forget_multi,
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
