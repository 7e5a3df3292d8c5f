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
#include "pt_render.h"
#include "pt_walk.h"

/* Options, filled by fuse_opt_parse() through the table in main.c. */
struct ptfs_opts {
	char *capture;       /* first non-option: the capture path ("source" in fstab) */
	char *mountpoint;    /* second non-option */
	int all_entries;     /* -o all_entries: list zero entries too */
	int extra_nonopt;    /* non-options after the mountpoint (a usage error) */
	unsigned max_read;   /* -o max_read=N (0: not given), repeated to libfuse at INIT */
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

/* Per-context data fixed at load time (inode packing) plus its caches. */
/*
 * walk/ names: any VA below 2^53, the inode payload (fs/ino.c).  VAs past
 * the format's own VA space still get their trace, which ends in
 * out_of_range (DESIGN §4); 2^53 and above are ENOENT.
 */
#define PTFS_WALK_LIMIT (UINT64_C(1) << 53)

struct ptfs_ctx {
	const struct pt_context *ctx;
	unsigned nlevels;
	/* index bits a step of each level takes in an inode (level table driven) */
	uint8_t idx_bits[PT_MAX_LEVELS];
	uint64_t va_last;     /* (1 << fmt->va_bits) - 1: va/ names above it are ENOENT */
	struct ptfs_cache info, maps;
};

struct ptfs_open;

/* The mount.  Immutable after main() set it up, except the caches and OPENS. */
struct ptfs {
	struct pt_capture *cap;
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
};

/* Node types (4 bits of the inode). */
enum ptfs_type {
	PTFS_T_GLOBAL = 0,   /* context field 0: the root (ino 1) and `capture` (ino 2) */
	PTFS_T_CTXDIR,       /* mnt/pdb0/ */
	PTFS_T_INFO,         /* mnt/pdb0/info */
	PTFS_T_MAPS,         /* mnt/pdb0/maps */
	PTFS_T_VADIR,        /* mnt/pdb0/va/ */
	PTFS_T_WALKDIR,      /* mnt/pdb0/walk/ */
	PTFS_T_TABLEDIR,     /* a table: mnt/pdb0/pde3/, .../1/pde2/ */
	PTFS_T_ENTRYDIR,     /* a pointer entry: .../pde3/1/ */
	PTFS_T_ENTRYFILE,    /* a leaf entry .../pte_small/5, or a pointer's .../1/entry */
	PTFS_T_VALINK,       /* mnt/pdb0/va/0x... (payload: first VA of the page) */
	PTFS_T_WALKFILE,     /* mnt/pdb0/walk/0x... (payload: the VA) */
	PTFS_T__COUNT
};

#define PTFS_INO_ROOT    1   /* FUSE_ROOT_ID */
#define PTFS_INO_CAPTURE 2

/* A decoded inode. */
struct ptfs_id {
	enum ptfs_type type;
	unsigned ctx;            /* context index (types other than GLOBAL) */
	fuse_ino_t global;       /* GLOBAL: PTFS_INO_ROOT or PTFS_INO_CAPTURE */
	struct pt_node node;     /* TABLEDIR: the entry that points at it (n == 0: root table);
	                          * ENTRYDIR/ENTRYFILE: the entry */
	unsigned choice;         /* TABLEDIR with node.n > 0: which target of the entry */
	uint64_t va;             /* VALINK, WALKFILE */
};

/* ino.c */
pt_err ptfs_ino_setup(struct ptfs_ctx *pc, const struct pt_context *ctx, unsigned index,
		      char *why, size_t whylen);
fuse_ino_t ptfs_ino_encode(const struct ptfs *fs, const struct ptfs_id *id);
int ptfs_ino_decode(const struct ptfs *fs, fuse_ino_t ino, struct ptfs_id *id);
int ptfs_table_level_of(const struct ptfs *fs, const struct ptfs_id *id);

/* ops.c */
extern const struct fuse_lowlevel_ops ptfs_ops;
void ptfs_cache_init(struct ptfs_cache *c);
void ptfs_cache_destroy(struct ptfs_cache *c);
void ptfs_opens_init(struct ptfs *fs);
/* Frees the renders of files never released; only once no request is served any more. */
void ptfs_opens_free(struct ptfs *fs);
int ptfs_errno(pt_err err);
void ptfs_thread_cleanup(void);

#endif
