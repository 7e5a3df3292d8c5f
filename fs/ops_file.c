/* SPDX-License-Identifier: MIT */
/*
 * ops_file.c — the FUSE operations on files: OPEN, READ and RELEASE (ops.c
 * has the rest and the table).  What a file's bytes are, and whether the
 * kernel may keep them, is the mount's policy (struct ptfs_policy): a
 * capture of a file reads a kept render by inode, a live guest's open
 * copies the render that holds then, so every read of one open sees one
 * render while the cache moves on (live.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ptfs.h"

/*
 * A live mount's cached file (capture, info, maps, map.svg, vs/): the
 * render that holds now, copied for this open, so that every read of one
 * open sees one render while the cache moves on (live.c).
 */
static int open_copy(struct ptfs *fs, const struct pt_tnode *id, struct ptfs_cache *c,
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
	fi->keep_cache = fs->pol.kernel_keeps;
	fi->direct_io = fs->pol.direct_io;
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
	int err = ptfs_node(fs, ino, &id);

	if (err)
		return err;
	if (pt_tree_kind(&id) == PT_TK_DIR)
		return EISDIR;
	if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC))
		return EROFS;
	if (fs->no_open)
		return ENOSYS;
	c = ptfs_cache_of(fs, &id);
	/* a live mount's (the policy's): one render copied per open; entries is rendered per open */
	if (c && fs->pol.copy_per_open && id.type != PT_TN_ENTRIES)
		return open_copy(fs, &id, c, fi, rc);
	if (c && !fs->pol.copy_per_open) {
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
	fi->keep_cache = fs->pol.kernel_keeps;
	fi->direct_io = fs->pol.direct_io;   /* a live file's size changes: read to its end, not a kept size */
	return 0;
}

void ptfs_op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct pt_readctl rc;
	int err = ptfs_req_begin(req, &rc, true);

	if (!err)
		err = do_open(ptfs_of(req), ino, fi, &rc);   /* do_open reports a cut render itself */
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
	if (!b) {
		/* No per-open bytes (NO_OPEN_SUPPORT, or a cached file): find them by inode. */
		err = ptfs_node(fs, ino, &id);
		if (err)
			return err;
		c = ptfs_cache_of(fs, &id);
		if (c)
			return read_cached(fs, &id, c, size, off, data, rc);
		if (pt_tree_kind(&id) != PT_TK_FILE)
			return pt_tree_kind(&id) == PT_TK_DIR ? EISDIR : EINVAL;
		err = ptfs_render_memo(fs, &id, ino, &b, rc);
		if (err)
			return err;
		slice(b, off, size, data);
		return 0;
	}
	/* an open file of a live process gone since (its pid reused, its tables another's): stale */
	if (!ptfs_ino_decode(fs, ino, &id) && pt_context_gone(pt_tree_context(fs->tree, &id)))
		return ESTALE;
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

void ptfs_op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
	const char *data = NULL;
	struct pt_readctl rc;
	int err = ptfs_req_begin(req, &rc, true);

	if (!err)
		err = do_read(ptfs_of(req), ino, &size, off, fi, &data, &rc);
	if (ptfs_req_done(&rc))
		err = EINTR;

	if (err)
		return (void)fuse_reply_err(req, err);
	fuse_reply_buf(req, data, size);
}

void ptfs_op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct pt_buf *b = (struct pt_buf *)(uintptr_t)fi->fh;
	struct ptfs *fs = ptfs_of(req);

	/* only per-open renders have an fh: cached files are read by inode */
	if (b)
		ptfs_open_free(fs, (struct ptfs_open *)((char *)b - offsetof(struct ptfs_open, buf)));
	fuse_reply_err(req, 0);
}

