/* SPDX-License-Identifier: MIT */
/*
 * state.c — what the FUSE front end keeps between requests: the one
 * pt_err -> errno mapping, per-thread scratch buffers (the readdir reply,
 * the memo of the last rendered entry or walk file), the renders of
 * `capture`, `info` and `maps` kept for the life of the mount, and the
 * per-open renders not yet released.  The tree itself is core's
 * (core/tree.c); ops.c turns requests into tree calls and replies.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ptfs.h"

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

struct ptfs_tls *ptfs_tls_get(void)
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
char *ptfs_tls_scratch(struct ptfs_tls *t, size_t size)
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

void ptfs_opens_init(struct ptfs *fs)
{
	pthread_mutex_init(&fs->open_lock, NULL);
	fs->opens = NULL;
}

struct ptfs_open *ptfs_open_new(struct ptfs *fs)
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

void ptfs_open_free(struct ptfs *fs, struct ptfs_open *o)
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
		ptfs_open_free(fs, fs->opens);
	pthread_mutex_destroy(&fs->open_lock);
}

/* ---- rendering ---------------------------------------------------------- */

/*
 * The cached file for ID: a file whose render scans a context or the
 * capture (pt_tree_render_scans()) is rendered once and kept for the life
 * of the mount; NULL for every other node.
 */
struct ptfs_cache *ptfs_cache_of(struct ptfs *fs, const struct pt_tnode *id)
{
	switch (id->type) {
	case PT_TN_CAPTURE:
		return &fs->capfile;
	case PT_TN_INFO:
		return &fs->ctx[id->ctx].info;
	case PT_TN_MAPS:
		return &fs->ctx[id->ctx].maps;
	default:
		return NULL;
	}
}

/* Renders a cached file once (never twice, whatever the number of threads). */
int ptfs_cache_fill(struct ptfs *fs, const struct pt_tnode *id, struct ptfs_cache *c)
{
	int err;

	pthread_mutex_lock(&c->lock);
	if (!c->done) {
		err = ptfs_errno(pt_tree_render(fs->tree, id, &c->buf));
		if (pt_cancelled()) {
			/* cut short by an interrupt or the end of the session: not the file */
			pt_buf_reset(&c->buf);
			c->buf.oom = false;
			pthread_mutex_unlock(&c->lock);
			return EINTR;
		}
		c->err = err;
		/* release: ptfs_cache_ready() reads DONE without the lock */
		__atomic_store_n(&c->done, true, __ATOMIC_RELEASE);
	}
	err = c->err;
	pthread_mutex_unlock(&c->lock);
	return err;
}

/* Whether a cached file has been rendered already (so its size is known for free). */
bool ptfs_cache_ready(struct ptfs_cache *c)
{
	/*
	 * Without the lock: a render in progress holds it for up to the render
	 * bound, and a listing that only asks whether the size is known must
	 * not wait for it (issue 16 item 1).
	 */
	return __atomic_load_n(&c->done, __ATOMIC_ACQUIRE);
}

/*
 * The bytes of entry or walk file ID (inode INO), rendered at most once in a
 * row per thread: a LOOKUP needs them for st_size and the READ that follows
 * usually lands on the same thread.  The capture never changes, so the
 * bytes are the same whenever they are rendered.
 */
int ptfs_render_memo(struct ptfs *fs, const struct pt_tnode *id, fuse_ino_t ino,
		       const struct pt_buf **out)
{
	struct ptfs_tls *t = ptfs_tls_get();
	int err;

	if (!t)
		return ENOMEM;
	if (t->memo_ino != ino) {
		t->memo_ino = 0;
		pt_buf_reset(&t->memo);
		t->memo.oom = false;
		err = ptfs_errno(pt_tree_render(fs->tree, id, &t->memo));
		if (pt_cancelled())
			err = EINTR;   /* a cut render is not the file */
		if (err)
			return err;
		t->memo_ino = ino;
	}
	*out = &t->memo;
	return 0;
}


/* ---- CTX/entries -------------------------------------------------------- */

void ptfs_entries_init(struct ptfs_entries *e)
{
	pthread_mutex_init(&e->lock, NULL);
	e->done = false;
	e->err = 0;
	memset(&e->file, 0, sizeof(e->file));
}

void ptfs_entries_destroy(struct ptfs_entries *e)
{
	pthread_mutex_destroy(&e->lock);
	pt_entries_file_free(&e->file);
}

/*
 * The first pass over a context runs under this file's own lock only, so
 * a long pass (10^7 entries) holds up nothing but readers of this file.
 */
int ptfs_entries_fill(struct ptfs *fs, unsigned ctx, const struct pt_entries_file **out)
{
	struct ptfs_entries *e = &fs->ctx[ctx].entries;
	int err;

	pthread_mutex_lock(&e->lock);
	if (!e->done) {
		e->err = ptfs_errno(pt_entries_file_build(fs->tree, ctx, PT_ENTRIES_LINES_MAX,
							    PT_ENTRIES_KEEP_MAX, &e->file));
		e->done = true;
	}
	err = e->err;
	pthread_mutex_unlock(&e->lock);
	*out = &e->file;
	return err;
}

bool ptfs_entries_ready(struct ptfs *fs, unsigned ctx)
{
	struct ptfs_entries *e = &fs->ctx[ctx].entries;
	bool done;

	pthread_mutex_lock(&e->lock);
	done = e->done;
	pthread_mutex_unlock(&e->lock);
	return done;
}
