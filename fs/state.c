/* SPDX-License-Identifier: MIT */
/*
 * state.c — what the FUSE front end keeps between requests: the one
 * pt_err -> errno mapping, per-thread scratch buffers (the readdir reply,
 * the memo of the last rendered entry or walk file), the renders of
 * `capture`, `info`, `maps` and `entries` kept under one daemon-wide
 * budget (least recently used out first), and the per-open renders not yet
 * released.  The tree itself is core's
 * (core/view/tree.c); ops.c and ops_file.c turn requests into tree calls
 * and replies.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pt_vec.h"
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
	return pt_vec_reserve(&t->dir, &t->dircap, size, 1) ? t->dir : NULL;
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

/* ---- cached renders: one daemon-wide budget ----------------------------- */

void ptfs_lru_init(struct ptfs_lru *l, uint64_t max)
{
	pthread_mutex_init(&l->lock, NULL);
	l->head = l->tail = NULL;
	l->bytes = 0;
	l->max = max;
}

void ptfs_lru_destroy(struct ptfs_lru *l)
{
	pthread_mutex_destroy(&l->lock);
}

void ptfs_cache_init(struct ptfs_cache *c)
{
	pthread_mutex_init(&c->lock, NULL);
	c->done = false;
	c->err = 0;
	c->size = 0;
	c->held = NULL;
}

static void held_free(struct ptfs_held *h)
{
	pt_buf_free(&h->buf);
	pt_entries_file_free(&h->ef);
	free(h);
}

static void lru_unlink(struct ptfs_lru *l, struct ptfs_held *h)
{
	if (h->prev)
		h->prev->next = h->next;
	else
		l->head = h->next;
	if (h->next)
		h->next->prev = h->prev;
	else
		l->tail = h->prev;
	h->prev = h->next = NULL;
}

static void lru_push(struct ptfs_lru *l, struct ptfs_held *h)
{
	h->prev = NULL;
	h->next = l->head;
	if (l->head)
		l->head->prev = h;
	else
		l->tail = h;
	l->head = h;
}

/* The cache lets go of H (under the LRU lock): out of the list, freed once unused. */
static void lru_drop(struct ptfs_lru *l, struct ptfs_held *h)
{
	lru_unlink(l, h);
	l->bytes -= h->cost;
	*h->slot = NULL;
	h->slot = NULL;
	if (--h->refs == 0)
		held_free(h);
}

/* Least recently used out until the budget holds, sparing KEEP (under the LRU lock). */
static void lru_trim(struct ptfs_lru *l, const struct ptfs_held *keep)
{
	/* KEEP is the head: everything else goes first */
	while (l->bytes > l->max && l->tail && l->tail != keep)
		lru_drop(l, l->tail);
}

void ptfs_cache_destroy(struct ptfs *fs, struct ptfs_cache *c)
{
	pthread_mutex_lock(&fs->lru.lock);
	if (c->held)
		lru_drop(&fs->lru, c->held);
	pthread_mutex_unlock(&fs->lru.lock);
	pthread_mutex_destroy(&c->lock);
}

void ptfs_held_put(struct ptfs *fs, struct ptfs_held *h)
{
	pthread_mutex_lock(&fs->lru.lock);
	if (--h->refs == 0)
		held_free(h);
	pthread_mutex_unlock(&fs->lru.lock);
}

/*
 * C's render if the LRU still has it: a reference, and it becomes the most
 * recent.  A live mount's render older than its refresh time is let go
 * here (live.c), and the caller renders again.
 */
static struct ptfs_held *cache_take(struct ptfs *fs, struct ptfs_cache *c)
{
	struct ptfs_held *h;

	pthread_mutex_lock(&fs->lru.lock);
	h = c->held;
	if (h && ptfs_live_expired(fs, &c->at)) {
		lru_drop(&fs->lru, h);
		h = NULL;
	}
	if (h) {
		h->refs++;
		lru_unlink(&fs->lru, h);
		lru_push(&fs->lru, h);
	}
	pthread_mutex_unlock(&fs->lru.lock);
	return h;
}

/*
 * The cached file for ID: a file whose render scans a context or the
 * capture (pt_tree_render_scans()); NULL for every other node.
 */
struct ptfs_cache *ptfs_cache_of(struct ptfs *fs, const struct pt_tnode *id)
{
	switch (id->type) {
	case PT_TN_CAPTURE:
		return &fs->capfile;
	case PT_TN_TASKS:
		return &fs->tasksfile;
	case PT_TN_INFO:
		return &fs->ctx[id->ctx].info;
	case PT_TN_MAPS:
		return &fs->ctx[id->ctx].maps;
	case PT_TN_ENTRIES:
		return &fs->ctx[id->ctx].entries;
	case PT_TN_SVG:
		return &fs->ctx[id->ctx].svg;
	case PT_TN_VSFILE:
		return ptfs_vs_cache(fs, id->ctx, id->choice);
	default:
		return NULL;
	}
}

/*
 * Renders ID into H; its errno.  Entries: the first pass (size and
 * checkpoints, the text when at most an eighth of the budget); the rest:
 * the bytes, trimmed to their length (the budget counts what is held).
 */
static int cache_render_one(struct ptfs *fs, const struct pt_tnode *id, struct ptfs_held *h,
			    uint64_t *size, struct pt_readctl *rc);

/* The entries text of one context is kept up to 1/ENTRIES_KEEP_SHARE of the budget. */
#define ENTRIES_KEEP_SHARE 8

static int cache_render(struct ptfs *fs, const struct pt_tnode *id, struct ptfs_held *h,
			uint64_t *size, struct pt_readctl *rc)
{
	bool stopped, watched;
	uint64_t sum = 0;
	int ret;

	/* -o pause: a live guest holds still for the whole file (live.c) */
	ptfs_live_pause(fs, &stopped);
	/* a vCPU's CR3 read again once per refresh time: its context follows the task it runs (live.c) */
	ptfs_live_regs(fs);
	/* without it, a file whose tables changed while it rendered says so (live.c) */
	watched = ptfs_live_watch(fs, id, stopped, &sum, rc);
	ret = cache_render_one(fs, id, h, size, rc);
	if (fs->live && ret == 0 && (id->type == PT_TN_INFO || id->type == PT_TN_MAPS)) {
		/* a root whose page was freed and reused says so, not 512 anomalies alone (live.c) */
		ptfs_live_root_note(fs, id, &h->buf);
		*size = h->buf.len;
		h->cost = sizeof(*h) + h->buf.cap;
	}
	if (watched && ret == 0) {
		ptfs_live_told(fs, id, sum, &h->buf, rc);
		*size = h->buf.len;
		h->cost = sizeof(*h) + h->buf.cap;
	}
	ptfs_live_resume(fs, stopped);
	return ret;
}

static int cache_render_one(struct ptfs *fs, const struct pt_tnode *id, struct ptfs_held *h,
			    uint64_t *size, struct pt_readctl *rc)
{
	pt_err err;

	if (id->type == PT_TN_ENTRIES) {
		/*
		 * The first pass renders every byte anyway; a text not kept is
		 * rendered again by every READ from the checkpoint before it
		 * (1.4 passes more for a first `grep -r`: 30% of its daemon
		 * instructions at 32768 leaves, bench/README.md, issue #35).
		 * A fixed 8 MiB kept 10^4 entries and not 1.6x10^4; a share
		 * of the budget keeps what the user let the daemon hold, and
		 * the text is charged to that budget like any render.
		 */
		err = pt_entries_file_build(fs->tree, id->ctx, PT_ENTRIES_LINES_MAX,
					    fs->lru.max / ENTRIES_KEEP_SHARE, &h->ef, rc);
		*size = h->ef.size;
		h->cost = sizeof(*h) + h->ef.cpcap * sizeof(*h->ef.cp) + h->ef.text.cap;
		return ptfs_errno(err);
	}
	err = pt_tree_render(fs->tree, id, &h->buf, rc);
	if (err == PT_OK)
		pt_buf_fit(&h->buf);   /* the budget counts what is held */
	*size = h->buf.len;
	h->cost = sizeof(*h) + h->buf.cap;
	return ptfs_errno(err);
}

/*
 * Renders cached file ID unless the LRU has it (never twice at once: C's
 * lock), then holds it under the budget.  A render cut by a cancel (the
 * reader's signal, the end of the session) is not the file: nothing of it
 * is kept, not even its size, and the next access renders again.
 */
int ptfs_cache_get(struct ptfs *fs, const struct pt_tnode *id, struct ptfs_cache *c,
		   struct ptfs_held **out, struct pt_readctl *rc)
{
	struct ptfs_held *h;
	uint64_t size;
	int err;

	*out = cache_take(fs, c);
	if (*out)
		return 0;
	pthread_mutex_lock(&c->lock);
	*out = cache_take(fs, c);   /* rendered meanwhile by the holder of the lock */
	if (*out || (c->done && c->err && !ptfs_live_expired(fs, &c->at))) {
		pthread_mutex_unlock(&c->lock);
		return *out ? 0 : c->err;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		pthread_mutex_unlock(&c->lock);
		return ENOMEM;
	}
	pt_buf_init(&h->buf);
	pt_buf_init(&h->ef.text);
	err = cache_render(fs, id, h, &size, rc);
	if (pt_readctl_cancelled(rc)) {
		held_free(h);
		pthread_mutex_unlock(&c->lock);
		return EINTR;
	}
	if (err) {
		held_free(h);
		if (err != ENOMEM) {
			/* the capture never changes: the same error every time (a live one's: until refresh) */
			ptfs_live_now(&c->at);
			c->err = err;
			__atomic_store_n(&c->done, true, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&c->lock);
		return err;
	}
	if (!c->done || fs->live)
		c->size = size;   /* once: readers take it without the lock; a re-render gives the same */
	c->err = 0;
	ptfs_live_now(&c->at);
	pthread_mutex_lock(&fs->lru.lock);
	h->refs = 2;   /* the cache's and the caller's */
	h->slot = &c->held;
	c->held = h;
	lru_push(&fs->lru, h);
	fs->lru.bytes += h->cost;
	lru_trim(&fs->lru, h);
	pthread_mutex_unlock(&fs->lru.lock);
	/* release: ptfs_cache_ready() and ptfs_cache_size() read DONE and SIZE without the lock */
	__atomic_store_n(&c->done, true, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&c->lock);
	*out = h;
	return 0;
}

int ptfs_cache_size(struct ptfs *fs, const struct pt_tnode *id, struct ptfs_cache *c,
		    uint64_t *size, struct pt_readctl *rc)
{
	struct ptfs_held *h;
	int err;

	if (__atomic_load_n(&c->done, __ATOMIC_ACQUIRE) && !c->err && !fs->live) {
		*size = c->size;
		return 0;
	}
	err = ptfs_cache_get(fs, id, c, &h, rc);
	if (err)
		return err;
	*size = c->size;
	ptfs_held_put(fs, h);
	return 0;
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
		       const struct pt_buf **out, struct pt_readctl *rc)
{
	struct ptfs_tls *t = ptfs_tls_get();
	uint64_t va = id->type == PT_TN_WALKFILE ? id->va : 0;   /* an entry's inode is its whole name */
	int err;

	if (!t)
		return ENOMEM;
	/*
	 * Keyed by the inode and the VA: a walk slot's inode number is handed
	 * to another VA after its FORGET (wslot.c), and a memo keyed by the
	 * number alone gave the new VA the old one's trace (seen under ASan,
	 * whose timing put the LOOKUP of the new VA on the thread that had
	 * rendered the old one; check_tests/test_mount_agree.sh).
	 */
	if (t->memo_ino != ino || t->memo_va != va || ptfs_live_expired(fs, &t->memo_at)) {
		t->memo_ino = 0;
		pt_buf_reset(&t->memo);
		t->memo.oom = false;
		err = ptfs_errno(pt_tree_render(fs->tree, id, &t->memo, rc));
		if (pt_readctl_cancelled(rc))
			err = EINTR;   /* a cut render is not the file */
		if (err)
			return err;
		t->memo_ino = ino;
		t->memo_va = va;
		ptfs_live_now(&t->memo_at);
	}
	*out = &t->memo;
	return 0;
}

/*
 * The cache of CTX/vs/OTHER, made on first use: a mount of N contexts has
 * N * (N - 1) such files, so only those asked for get one (a few dozen
 * bytes each until rendered; the bytes are under the budget like any
 * render).  NULL when out of memory: the file is then rendered per open.
 */
struct ptfs_cache *ptfs_vs_cache(struct ptfs *fs, unsigned ctx, unsigned other)
{
	struct ptfs_vs *v;

	pthread_mutex_lock(&fs->vs_lock);
	for (v = fs->ctx[ctx].vs; v && v->other != other; v = v->next)
		;
	if (!v) {
		v = malloc(sizeof(*v));
		if (v) {
			v->other = other;
			ptfs_cache_init(&v->cache);
			v->next = fs->ctx[ctx].vs;
			fs->ctx[ctx].vs = v;
		}
	}
	pthread_mutex_unlock(&fs->vs_lock);
	return v ? &v->cache : NULL;
}

void ptfs_vs_destroy(struct ptfs *fs, struct ptfs_ctx *pc)
{
	while (pc->vs) {
		struct ptfs_vs *v = pc->vs;

		pc->vs = v->next;
		ptfs_cache_destroy(fs, &v->cache);
		free(v);
	}
}
