/* SPDX-License-Identifier: MIT */
/*
 * ops.c — the FUSE low-level operations of ptfs: names, attributes,
 * links, listings, INIT and the operation table (ops_file.c: open, read,
 * release).
 *
 * Each operation is a do_X() that returns 0 or an errno and an op_X() that
 * replies exactly once; every op_X() starts with ptfs_req_begin(), the one
 * place the mount's policy gate is asked (a live guest gone: EIO).  Nodes
 * are decoded from their computed inode numbers (ino.c) and resolved again
 * on every call by the core tree (core/view/tree.c: names, listings,
 * contents, links).  Requests run on many threads: the capture's contexts
 * and tables are read without a lock (a live capture's roots move by
 * atomic stores, core/load/live.c); the kept renders of `capture`, `info`,
 * `maps`, `entries`, map.svg and vs/ files are under their locks and one
 * daemon-wide budget (state.c).
 *
 * What the kernel may keep is the policy's (struct ptfs_policy, picked
 * once at mount by live.c): a capture of a file never changes, so replies
 * carry a huge timeout (negative lookups too: ino 0 + timeout), files
 * keep_cache and directories cache_readdir, and where the kernel allows it
 * OPEN and OPENDIR are answered ENOSYS once and never sent again (nor
 * RELEASE/RELEASEDIR): see do_opendir() and ops_file.c.  A live guest's
 * replies hold for -o refresh only, and the kernel keeps no page.
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

struct ptfs *ptfs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/*
 * The cancel check of a request (its struct pt_readctl): the kernel sent an
 * INTERRUPT for it (the reader got a signal), or the session has ended
 * (SIGTERM, SIGINT): a long listing or render then stops, so that no
 * request keeps a thread busy past its reader or the daemon past its end.
 */
static bool req_cancelled(void *ud)
{
	fuse_req_t req = ud;

	return fuse_req_interrupted(req) || fuse_session_exited(ptfs_of(req)->se);
}

/* The read control of REQ (its cancel check, no work bound: the core's own bounds apply), then the gate. */
int ptfs_req_begin(fuse_req_t req, struct pt_readctl *rc, bool gated)
{
	struct ptfs *fs = ptfs_of(req);

	pt_readctl_init(rc, req_cancelled, req, 0);
	return gated ? fs->pol.gate(fs) : 0;
}

/*
 * Ends the request's cancel check before its reply: whether it was cut.  RC
 * lives on the handler's stack, so nothing keeps REQ (which the reply
 * frees) once the handler returns.
 */
int ptfs_node(struct ptfs *fs, fuse_ino_t ino, struct pt_tnode *id)
{
	int err = ptfs_ino_decode(fs, ino, id);

	/* a live process gone since a refresh: its inodes name nothing now, never another's tables */
	if (!err && pt_context_gone(pt_tree_context(fs->tree, id)))
		return ENOENT;
	return err;
}

bool ptfs_req_done(const struct pt_readctl *rc)
{
	return pt_readctl_cancelled(rc);
}

/* Whether ID is a directory (by type; opendir and do_stat prove it resolves). */
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
	int err = ptfs_node(fs, ino, &id);

	if (err)
		return err;
	return do_stat(fs, &id, ino, st, false, rc);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct pt_readctl rc;
	struct stat st;
	int err;

	err = ptfs_req_begin(req, &rc, false);
	if (!err)
		err = do_getattr(ptfs_of(req), ino, &st, &rc);
	if (ptfs_req_done(&rc))
		err = EINTR;
	if (err)
		return (void)fuse_reply_err(req, err);
	fuse_reply_attr(req, &st, ptfs_of(req)->pol.timeout);
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
	int err = ptfs_node(fs, parent, &pid);

	if (err)
		return err;
	if (!is_dir(&pid))
		return ENOTDIR;
	/* a name at the top (pidN): a live guest's processes read again once per refresh time (live.c) */
	if (pid.type == PT_TN_ROOT)
		ptfs_live_regs(fs);
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
	e->attr_timeout = fs->pol.timeout;
	e->entry_timeout = fs->pol.timeout;
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
	err = ptfs_req_begin(req, &rc, true);
	if (!err)
		err = do_lookup(ptfs_of(req), parent, name, &e, &rc, &held);
	if (ptfs_req_done(&rc))
		err = EINTR;   /* never a negative entry from a cut lookup */
	if (held != UINT32_MAX && (err || fuse_reply_entry(req, &e) != 0))
		ptfs_wslot_forget(ptfs_of(req)->wslots, held, 1);   /* no reply counted it */
	if (held != UINT32_MAX && !err)
		return;
	if (err == ENOENT) {
		/* a negative entry the kernel may cache: a file capture never changes, a live one for -o refresh */
		memset(&e, 0, sizeof(e));
		e.ino = 0;
		e.entry_timeout = ptfs_of(req)->pol.timeout;
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
	forget_one(ptfs_of(req), ino, nlookup);
	fuse_reply_none(req);
}

static void op_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
	for (size_t i = 0; i < count; i++)
		forget_one(ptfs_of(req), forgets[i].ino, forgets[i].nlookup);
	fuse_reply_none(req);
}

/* ---- readlink ----------------------------------------------------------- */

static int do_readlink(struct ptfs *fs, fuse_ino_t ino, char *buf, size_t len)
{
	struct pt_tnode id;
	int err = ptfs_node(fs, ino, &id);

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

	err = ptfs_req_begin(req, &rc, false);
	if (!err)
		err = do_readlink(ptfs_of(req), ino, target, sizeof(target));
	if (ptfs_req_done(&rc))
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
			e.attr_timeout = d->fs->pol.timeout;
			e.entry_timeout = d->fs->pol.timeout;
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
	int err = ptfs_node(fs, ino, &id);

	if (err)
		return err;
	if (!is_dir(&id))
		return ENOTDIR;
	if (id.type == PT_TN_ROOT)
		ptfs_live_regs(fs);   /* the top listing names a live guest's processes as the last refresh found them */
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

	err = ptfs_req_begin(req, &rc, true);
	if (!err)
		err = do_readdir(ptfs_of(req), req, ino, size, off, plus, &d, &rc);
	if (ptfs_req_done(&rc))
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
	int err = ptfs_node(fs, ino, &id);

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
	/* a live mount's listings change: the kernel keeps none (the policy, live.c) */
	fi->cache_readdir = fs->pol.kernel_keeps;
	fi->keep_cache = fs->pol.kernel_keeps;
	return 0;
}

static void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct pt_readctl rc;
	int err;

	err = ptfs_req_begin(req, &rc, false);
	if (!err)
		err = do_opendir(ptfs_of(req), ino, fi, &rc);
	if (ptfs_req_done(&rc))
		err = EINTR;
	if (err)
		return (void)fuse_reply_err(req, err);
	fuse_reply_open(req, fi);
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

	/* files need no OPEN/RELEASE round trips (ops_file.c); a live mount's do: each open is one render */
	if ((conn->capable & FUSE_CAP_NO_OPEN_SUPPORT) && fs->pol.kernel_keeps) {
		conn->want |= FUSE_CAP_NO_OPEN_SUPPORT;
		fs->no_open = true;
	}
	/* directories need no OPENDIR/RELEASEDIR round trips: see do_opendir() */
	if ((conn->capable & FUSE_CAP_NO_OPENDIR_SUPPORT) && fs->pol.kernel_keeps) {
		conn->want |= FUSE_CAP_NO_OPENDIR_SUPPORT;
		fs->no_opendir = true;
	}
	/* symlink targets of a capture of a file never change: let the page cache keep them */
	if ((conn->capable & FUSE_CAP_CACHE_SYMLINKS) && fs->pol.kernel_keeps)
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
	.open = ptfs_op_open,
	.read = ptfs_op_read,
	.release = ptfs_op_release,
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
