/* SPDX-License-Identifier: MIT */
/*
 * ptfs.h — the FUSE front end: shared state of the mount, the inode scheme
 * and the operation table.  Everything under fs/ only translates inodes and
 * names into core calls and core results into FUSE replies (docs/design.md §6).
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
	char *asic;          /* -o asic=NAME: a umr ASIC name, its generation (NULL: not given) */
	char *tbi;           /* -o tbi=0|1: TBI1 of an arm64 dump's kernel context (NULL: unknown) */
	char *cache_max;     /* -o cache_max=SIZE: the budget of cached renders (NULL: default) */
	char *max_contexts;  /* -o max_contexts=N: the [iommu] sections' device contexts (NULL: default) */
	int strict;          /* -o strict: a context whose root is not captured is refused, not warned about */
	int notasks;         /* -o notasks: no pidN contexts from a Linux dump's task list */
	char *system_map;    /* -o system_map=FILE: route (c) to that task list (NULL: none) */
	char *task;          /* -o task=PID: the context of that process alone (NULL: every process) */
	char *refresh;       /* -o refresh=SECONDS: how long a live mount's renders hold (NULL: 1) */
	int pause;           /* -o pause: a live guest is stopped while a whole-context file renders */
};

/* Longest name statfs reports and lookup accepts. */
#define PTFS_NAME_MAX 255

/*
 * One cached render held in memory: the bytes of `capture`, `info` or
 * `maps`, or CTX/entries' checkpoints (and its text when small).  Shared by
 * its cache and the requests using it, counted by REFS; the daemon-wide
 * LRU (struct ptfs_lru) may drop the cache's reference at any time, and the
 * last reference frees it.  Everything but the bytes is guarded by the LRU
 * lock; the bytes are immutable once held.
 */
struct ptfs_held {
	unsigned refs;
	uint64_t cost;                   /* bytes charged to the budget */
	struct ptfs_held *prev, *next;   /* the LRU list, most recently used first */
	struct ptfs_held **slot;         /* its cache's pointer to it; NULL once dropped */
	struct pt_buf buf;               /* capture, info, maps */
	struct pt_entries_file ef;       /* entries */
};

/*
 * A file whose render needs a scan of the whole context or capture: the
 * first access renders it and the LRU keeps it while the budget allows;
 * once dropped, the next access renders it again (the capture never
 * changes, so the bytes are the same).  LOCK serialises renders only.
 * DONE: rendered once, so SIZE and ERR are known (read without the lock).
 * A render cut by a cancel leaves nothing: no DONE, no size, no bytes.
 */
struct ptfs_cache {
	pthread_mutex_t lock;
	bool done;
	int err;              /* errno of the render, 0 on success */
	uint64_t size;        /* the file's size (once DONE without ERR) */
	struct timespec at;   /* when the held render was made (a live mount's renders expire: live.c) */
	struct ptfs_held *held;   /* guarded by the LRU lock; NULL: not in memory */
};

/*
 * The budget of every cached render of the daemon (-o cache_max=SIZE):
 * least recently used first out.  A render larger than the budget is still
 * used by the request that made it, and kept alone.
 */
struct ptfs_lru {
	pthread_mutex_t lock;
	struct ptfs_held *head, *tail;
	uint64_t bytes, max;
};

/* The cache of one CTX/vs/OTHER file, made when first asked for (state.c). */
struct ptfs_vs {
	unsigned other;
	struct ptfs_cache cache;
	struct ptfs_vs *next;
};

/* Per-context data fixed at load time (inode packing) plus its caches. */
struct ptfs_ctx {
	const struct pt_context *ctx;
	unsigned nlevels;
	/* index bits a step of each level takes in an inode (level table driven) */
	uint8_t idx_bits[PT_MAX_LEVELS];
	unsigned path_bits;   /* the widest path of the context (ptfs_ino_check() fits it) */
	struct ptfs_cache info, maps, entries, svg;
	struct ptfs_vs *vs;   /* vs/OTHER files asked for, under ptfs.vs_lock */
};

struct ptfs_open;
struct ptfs_wslots;
struct ptfs;

/*
 * What the front end does that depends on whether the capture may change,
 * picked once at mount (live.c ptfs_policy_pick()) and read by every
 * request: a capture of a file never changes, so the kernel keeps names,
 * attributes, misses, pages and listings for ever (squashfuse does the
 * same); a live guest's replies hold for -o refresh only.
 */
struct ptfs_policy {
	double timeout;         /* entry, attribute and negative-entry timeout, in seconds */
	bool kernel_keeps;      /* keep_cache, cache_readdir, no OPEN/OPENDIR, cached symlinks */
	bool direct_io;         /* reads go to the end of the bytes, never to a size the kernel kept */
	bool copy_per_open;     /* a kept render is copied at open: every read of one open sees one render */
	uint64_t expiry_ns;     /* a kept render holds so long (UINT64_MAX: for ever) */
	/* 0, or the errno every request that reads the capture fails with (a live guest gone: EIO) */
	int (*gate)(struct ptfs *fs);
};

/* The mount.  Immutable after main() set it up, except the caches and OPENS. */
struct ptfs {
	struct pt_capture *cap;
	struct pt_tree *tree;  /* names, listings, contents and links (core/view/tree.c) */
	struct ptfs_policy pol;   /* fixed or live: picked once at mount (live.c) */
	struct ptfs_opts opts;
	/*
	 * Slots of ctx: the capture's contexts, or for a live guest the room
	 * for processes started later (pt_capture_context_room(); the inode's
	 * context field is as wide); NREADY of them set up (atomic: ptfs_ino_grow()).
	 */
	size_t nctx;
	size_t nready;
	struct ptfs_ctx *ctx;
	struct ptfs_cache capfile;
	struct ptfs_cache tasksfile;   /* `tasks` (a Linux dump's processes) */
	struct ptfs_lru lru;
	pthread_mutex_t vs_lock;   /* the ptfs_ctx.vs lists */
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
	struct ptfs_wslots *wslots;  /* walk/ names past the inode bits (wslot.c); NULL: none given */
	/* A live source (a running guest, live.c): renders hold REFRESH_NS, then are made again. */
	bool live;
	uint64_t refresh_ns;
	bool gone_said;        /* the guest's exit was logged (once) */
	/* the registers read again (live.c ptfs_live_regs): when last, by one thread at a time */
	pthread_mutex_t regs_lock;
	struct timespec regs_at;
	bool regs_said;        /* a failure to read them again was logged (once) */
};

#define PTFS_INO_ROOT    1   /* FUSE_ROOT_ID */
#define PTFS_INO_CAPTURE 2
#define PTFS_INO_TASKS   4   /* a Linux dump's `tasks` file */
#define PTFS_INO_PCI     5   /* the guest's `pci` file */

/* mountpoint.c */
/* S escaped as the core shows untrusted names (pt_text_escape); free() it (NULL: out of memory). */
char *ptfs_escaped(const char *s);
/*
 * Says what is wrong with mount point MNT in one `ptfs: E_USAGE:` line
 * before libfuse does (CAPTURE: the other argument, for the swapped
 * arguments' line); true when MNT may be mounted on.
 */
bool ptfs_mountpoint_ok(const char *mnt, const char *capture);

/* live.c: a live source's mount (-o refresh, -o pause) */
/* Before the load: -o refresh=SECONDS read (one line and false when it is no such time). */
bool ptfs_live_opts(struct ptfs *fs);
/* After the load: FS->pol picked, and the live options refused for a capture of a file (one line). */
bool ptfs_live_setup(struct ptfs *fs);
/* Whether a render made at AT no longer holds (never for a capture of a file). */
bool ptfs_live_expired(const struct ptfs *fs, const struct timespec *at);
/* The time now (CLOCK_MONOTONIC). */
void ptfs_live_now(struct timespec *at);
/* Stops a live guest for a whole-context render under -o pause (*STOPPED for ptfs_live_resume). */
void ptfs_live_pause(struct ptfs *fs, bool *stopped);
void ptfs_live_resume(struct ptfs *fs, bool stopped);
/*
 * A live mount's render of ID not under -o pause (STOPPED false): the sum
 * of the tables it reads before it into *SUM, and true; false when ID is
 * not watched (a capture of a file, a stopped guest, not info, maps,
 * map.svg or a vs/ file).
 */
bool ptfs_live_watch(struct ptfs *fs, const struct pt_tnode *id, bool stopped, uint64_t *sum,
		     struct pt_readctl *rc);
/*
 * Before a whole-context render of a live mount, or a name or listing at
 * its top: the registers that choose the contexts' roots, and a Linux
 * guest's task list, read again once per refresh time
 * (pt_capture_live_refresh(): x86 CR3, processes gone).
 */
void ptfs_live_regs(struct ptfs *fs);
/*
 * After a live mount's render of info or maps into B: a `# root ...` line
 * when the context's root no longer holds a page table (the process that
 * ran on the vCPU exited and its page was reused).
 */
void ptfs_live_root_note(struct ptfs *fs, const struct pt_tnode *id, struct pt_buf *b);
/* After the render into B: its last line `# changed while read` when the tables' sum is not SUM. */
void ptfs_live_told(struct ptfs *fs, const struct pt_tnode *id, uint64_t sum, struct pt_buf *b,
		    struct pt_readctl *rc);

/* ino.c */
pt_err ptfs_ino_setup(struct ptfs_ctx *pc, const struct pt_context *ctx, unsigned index,
		      char *why, size_t whylen);
/*
 * After every context's setup and the tree: whether the numbers fit the
 * capture's context count (paths, the IOMMU trees); one line in WHY if not.
 * An IOMMU whose tree cannot be numbered is left out of the mount
 * (pt_tree_ino_check()), said in one line in WARN ("" when none).
 */
pt_err ptfs_ino_check(const struct ptfs *fs, char *why, size_t whylen, char *warn,
		      size_t warnlen);
/*
 * A live guest's contexts added by a refresh: set up for inodes, then
 * shown by the tree (pt_tree_show_contexts()).  The refresh's thread only.
 */
void ptfs_ino_grow(struct ptfs *fs);
fuse_ino_t ptfs_ino_encode(const struct ptfs *fs, const struct pt_tnode *id);
int ptfs_ino_decode(const struct ptfs *fs, fuse_ino_t ino, struct pt_tnode *id);
/* walk/ names: the VAs below this (fs/ino.c) are in their inode; any other takes a slot (wslot.c). */
uint64_t ptfs_walk_limit(const struct ptfs *fs);
/* The slot a walk/ inode past the limit holds; false for any other inode. */
bool ptfs_ino_wslot(const struct ptfs *fs, fuse_ino_t ino, uint32_t *slot);

/* wslot.c: walk/ names whose VA does not fit its inode, held from LOOKUP to FORGET */
#define PTFS_WSLOT_MAX (1u << 20)
struct ptfs_wslots *ptfs_wslots_new(void);
void ptfs_wslots_free(struct ptfs_wslots *t);
/* Holds (one more lookup of) CTX's walk/VA: its slot in *SLOT; ENOSPC when full. */
int ptfs_wslot_hold(struct ptfs_wslots *t, unsigned ctx, uint64_t va, uint32_t *slot);
/* The context and VA of a held slot; false when SLOT is not held. */
bool ptfs_wslot_get(struct ptfs_wslots *t, uint32_t slot, unsigned *ctx, uint64_t *va);
/* The kernel forgot NLOOKUP lookups of SLOT's inode; at zero the slot is free again. */
void ptfs_wslot_forget(struct ptfs_wslots *t, uint32_t slot, uint64_t nlookup);
/* How many slots are held (the tests' view). */
unsigned ptfs_wslot_held(struct ptfs_wslots *t);
/* The longest hash chain, and in *BUCKETS (may be NULL) how many chains (the tests' view). */
unsigned ptfs_wslot_chain_max(struct ptfs_wslots *t, unsigned *buckets);
/* pa/SPACE/ names addresses below this (fs/ino.c) */
uint64_t ptfs_pa_limit(const struct ptfs *fs);

/* ops.c: names, attributes, listings and the operation table; ops_file.c: open, read, release */
extern const struct fuse_lowlevel_ops ptfs_ops;
struct ptfs *ptfs_of(fuse_req_t req);
/*
 * The start of every request: its cancel check armed in RC, and for one
 * that reads the capture (GATED) the policy's gate asked: 0 or its errno.
 */
int ptfs_req_begin(fuse_req_t req, struct pt_readctl *rc, bool gated);
/* The node of inode INO into *ID: 0, or its errno (ENOENT: a live process gone since a refresh). */
int ptfs_node(struct ptfs *fs, fuse_ino_t ino, struct pt_tnode *id);
/* Before the reply: whether the request was cut (its reply is then EINTR). */
bool ptfs_req_done(const struct pt_readctl *rc);
void ptfs_op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void ptfs_op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi);
void ptfs_op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);

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
	/* A walk/ file past the inode's bits is numbered by a slot that names
	 * another VA once the kernel has forgotten it (wslot.c): the memo is
	 * that inode's only while it still names this VA. */
	uint64_t memo_va;
	struct timespec memo_at;   /* when it was rendered (a live mount's expire) */
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
/* Drops what C holds (at unmount, once no request is served). */
void ptfs_cache_destroy(struct ptfs *fs, struct ptfs_cache *c);
void ptfs_lru_init(struct ptfs_lru *l, uint64_t max);
void ptfs_lru_destroy(struct ptfs_lru *l);
/* The cache kept for file ID (capture, info, maps, entries), or NULL. */
struct ptfs_cache *ptfs_cache_of(struct ptfs *fs, const struct pt_tnode *id);
/*
 * The render of cached file ID, held: rendered now unless the LRU still
 * has it; *OUT is a reference the caller gives back with ptfs_held_put().
 * The errno of the render (EINTR: cut by RC's cancel, nothing kept); RC is
 * the request's (pt_walk.h).
 */
int ptfs_cache_get(struct ptfs *fs, const struct pt_tnode *id, struct ptfs_cache *c,
		   struct ptfs_held **out, struct pt_readctl *rc);
void ptfs_held_put(struct ptfs *fs, struct ptfs_held *h);
/* The size of cached file ID: known once rendered, else rendered now; its errno. */
int ptfs_cache_size(struct ptfs *fs, const struct pt_tnode *id, struct ptfs_cache *c,
		    uint64_t *size, struct pt_readctl *rc);
/* The cache of CTX/vs/OTHER (made on first use; NULL: out of memory). */
struct ptfs_cache *ptfs_vs_cache(struct ptfs *fs, unsigned ctx, unsigned other);
/* Drops PC's vs/ caches (at unmount, once no request is served). */
void ptfs_vs_destroy(struct ptfs *fs, struct ptfs_ctx *pc);
/* Whether C was rendered once already (its size is known for free). */
bool ptfs_cache_ready(struct ptfs_cache *c);
/* The bytes of entry or walk file ID (inode INO), memoised per thread for the READ after a LOOKUP. */
int ptfs_render_memo(struct ptfs *fs, const struct pt_tnode *id, fuse_ino_t ino,
		     const struct pt_buf **out, struct pt_readctl *rc);
void ptfs_opens_init(struct ptfs *fs);
struct ptfs_open *ptfs_open_new(struct ptfs *fs);
void ptfs_open_free(struct ptfs *fs, struct ptfs_open *o);
/* Frees the renders of files never released; only once no request is served any more. */
void ptfs_opens_free(struct ptfs *fs);

#endif
