/* SPDX-License-Identifier: MIT */
/*
 * ptfs.h — the FUSE front end: shared state of the mount, the inode scheme
 * and the operation table.  Everything under fs/ only translates inodes and
 * names into core calls and core results into FUSE replies (DESIGN §6).
 */
#ifndef PTFS_H
#define PTFS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <fuse_lowlevel.h>

#include "pt_capture.h"
#include "pt_entries.h"
#include "pt_render.h"
#include "pt_tree.h"
#include "pt_walk.h"

/* Options, filled by fuse_opt_parse() through the table in main.c. */
struct ptfs_opts {
	char *capture;       /* first non-option: the capture path ("source" in fstab) */
	char *mountpoint;    /* second non-option */
	int all_entries;     /* -o all_entries: list zero entries too */
	int extra_nonopt;    /* non-options after the mountpoint (a usage error) */
	unsigned max_read;   /* -o max_read=N (0: not given), repeated to libfuse at INIT */
	unsigned gfx;        /* -o gfx=N: GFX generation of a umr log (0: not given) */
};

/* Longest name statfs reports and lookup accepts. */
#define PTFS_NAME_MAX 255

/*
 * A file rendered once and kept for the life of the mount (`capture`, and
 * `info` / `maps` of each context, which need a scan of the whole context).
 * LOCK guards DONE, ERR and BUF until DONE is set; afterwards BUF is
 * immutable and read without the lock by open/read.
 */
struct ptfs_cache {
	pthread_mutex_t lock;
	bool done;
	int err;              /* errno of the render, 0 on success */
	struct pt_buf buf;
};

/*
 * CTX/entries: too big to keep (~200 bytes per entry), so only its size and
 * checkpoints are (core/entries.c), built by the first LOOKUP or read under
 * LOCK, this file's own; reads render forward from a checkpoint without it.
 */
struct ptfs_entries {
	pthread_mutex_t lock;
	bool done;
	int err;
	struct pt_entries_file file;
};

/* Per-context data fixed at load time (inode packing) plus its caches. */
struct ptfs_ctx {
	const struct pt_context *ctx;
	unsigned nlevels;
	/* index bits a step of each level takes in an inode (level table driven) */
	uint8_t idx_bits[PT_MAX_LEVELS];
	struct ptfs_cache info, maps;
	struct ptfs_entries entries;
};

struct ptfs_open;

/* The mount.  Immutable after main() set it up, except the caches and OPENS. */
struct ptfs {
	struct pt_capture *cap;
	struct pt_tree *tree;  /* names, listings, contents and links (core/tree.c) */
	struct ptfs_opts opts;
	size_t nctx;
	struct ptfs_ctx *ctx;
	struct ptfs_cache capfile;
	/*
	 * Per-open renders not yet released (ops.c).  The kernel may never
	 * send RELEASE for a file closed just before the unmount, so what is
	 * left here when the session has ended is freed by ptfs_opens_free().
	 */
	pthread_mutex_t open_lock;
	struct ptfs_open *opens;
	uid_t uid;
	gid_t gid;
	struct timespec time;  /* st_[amc]tim of every node: the capture's mtime */
	bool no_open;          /* the kernel skips OPEN/RELEASE of files (set in init) */
	bool no_opendir;       /* the kernel skips OPENDIR/RELEASEDIR (set in init) */
	struct fuse_session *se;  /* long renders end when it has exited (SIGTERM) */
};

#define PTFS_INO_ROOT    1   /* FUSE_ROOT_ID */
#define PTFS_INO_CAPTURE 2

/* ino.c */
pt_err ptfs_ino_setup(struct ptfs_ctx *pc, const struct pt_context *ctx, unsigned index,
		      char *why, size_t whylen);
fuse_ino_t ptfs_ino_encode(const struct ptfs *fs, const struct pt_tnode *id);
int ptfs_ino_decode(const struct ptfs *fs, fuse_ino_t ino, struct pt_tnode *id);
/* walk/ names: the VAs below this (fs/ino.c); any other walk/ name is ENOENT. */
uint64_t ptfs_walk_limit(const struct ptfs *fs);
/* pa/SPACE/ names addresses below this (fs/ino.c) */
uint64_t ptfs_pa_limit(const struct ptfs *fs);

/* ops.c */
extern const struct fuse_lowlevel_ops ptfs_ops;

/* state.c */
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
	 * that usually follows its LOOKUP on the same thread (ptfs_render_memo()). */
	struct pt_buf memo;
	fuse_ino_t memo_ino;
};

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

/* The one pt_err -> errno mapping of the front end. */
int ptfs_errno(pt_err err);
/* The calling thread's scratch (NULL: out of memory); its buf is reset. */
struct ptfs_tls *ptfs_tls_get(void);
/* Grows the scratch reply buffer (shared by readdir and read, which never nest) to SIZE. */
char *ptfs_tls_scratch(struct ptfs_tls *t, size_t size);
/* Frees the calling thread's scratch (the main thread, after a -s loop). */
void ptfs_thread_cleanup(void);
void ptfs_cache_init(struct ptfs_cache *c);
void ptfs_cache_destroy(struct ptfs_cache *c);
/* The cache kept for file ID (capture, info, maps), or NULL. */
struct ptfs_cache *ptfs_cache_of(struct ptfs *fs, const struct pt_tnode *id);
/* Renders cache C of ID once, whatever the number of threads; the errno of that render. */
int ptfs_cache_fill(struct ptfs *fs, const struct pt_tnode *id, struct ptfs_cache *c);
/* Whether C is rendered already (its size is known for free). */
bool ptfs_cache_ready(struct ptfs_cache *c);
void ptfs_entries_init(struct ptfs_entries *e);
void ptfs_entries_destroy(struct ptfs_entries *e);
/* Builds CTX/entries' size and checkpoints once; its errno.  *OUT: the built file. */
int ptfs_entries_fill(struct ptfs *fs, unsigned ctx, const struct pt_entries_file **out);
/* Whether CTX/entries is built already (its size is known for free). */
bool ptfs_entries_ready(struct ptfs *fs, unsigned ctx);
/* The bytes of entry or walk file ID (inode INO), memoised per thread for the READ after a LOOKUP. */
int ptfs_render_memo(struct ptfs *fs, const struct pt_tnode *id, fuse_ino_t ino,
		     const struct pt_buf **out);
void ptfs_opens_init(struct ptfs *fs);
struct ptfs_open *ptfs_open_new(struct ptfs *fs);
void ptfs_open_free(struct ptfs *fs, struct ptfs_open *o);
/* Frees the renders of files never released; only once no request is served any more. */
void ptfs_opens_free(struct ptfs *fs);

#endif
