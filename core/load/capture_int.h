/* SPDX-License-Identifier: MIT */
/*
 * capture_int.h — what the capture loader's files share (internal to core/):
 * the capture object, the state of one load, archive members, and the
 * functions one file of the loader calls in another.
 *
 *   capture.c          the object, errors and warnings, binding capture.ini
 *                      to members (regions, contexts), the public getters
 *   capture_archive.c  the one streaming pass over an archive: members
 *   capture_dir.c      a directory capture: capture.ini and its files, mapped
 *   capture_guard.c    leases on the files served in place
 */
#ifndef PT_CAPTURE_INT_H
#define PT_CAPTURE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "ini.h"
#include "pt_capture.h"
#include "pt_vec.h"

/*
 * Members are kept in 4 KiB chunks, the unit of core/mem.c too: a table
 * page alone in a large, mostly zero dump costs 4 KiB, not a 64 KiB chunk
 * (16x its bytes; bench/README.md "Scale").
 */
#define CHUNK_SHIFT 12
#define CHUNK_SIZE ((uint64_t)1 << CHUNK_SHIFT)
#define MAX_MEMBER_NAME 4096    /* longer member names are ignored */
#define MAX_WARNINGS 100        /* kept; the rest are counted in one last warning */
#define PROGRESS_NS 250000000L  /* at most four progress calls a second */

/* The non-zero chunks of a copied member, sorted by index. */
struct schunk {
	uint64_t idx;
	uint8_t *data;
	uint32_t len;       /* bytes allocated */
	bool lent;          /* DATA now belongs to the capture's memory (shared by its sections) */
};

enum mkind {
	MK_DATA,            /* regular, data in chunks */
	MK_INPLACE,         /* regular, data at ptr (mmap of the archive) */
	MK_DROPPED,         /* regular, data skipped: no section can name it */
	MK_IGNORED,         /* not a regular file: never used */
};

struct member {
	char *name;         /* normalised */
	enum mkind kind;
	const char *what;   /* MK_IGNORED: "symbolic link", ... */
	uint64_t size;
	const uint8_t *ptr; /* MK_INPLACE */
	struct schunk *c;
	size_t nc, cap;
	unsigned count;     /* occurrences of the name in the archive (after merge) */
	unsigned users;     /* [memory] sections still to bind it */
};

/*
 * An mmap of a file read in place (an uncompressed archive, a directory
 * capture's blob), with a read-only descriptor of the file kept open for
 * pt_capture_guard()'s lease.  `fd` is -1 once the mapping is private.
 */
struct mapping {
	void *p;
	size_t len;
	int fd;
	/*
	 * Page-aligned byte ranges of the mapping that regions serve, sorted
	 * and merged by pt_capture_guard(): only these are copied when the
	 * lease breaks (the rest of a large archive is never read again).
	 */
	struct pt_span { size_t off, len; } *used;
	size_t nused, usedcap;
};

struct pt_capture {
	char err[1024];
	char **warn;
	size_t nwarn;
	size_t nwarn_dropped;
	pt_progress_fn progress;
	void *progress_ud;
	bool load_called;

	/* valid after a successful load */
	char *source;
	struct pt_manifest *man;
	struct pt_mem *mem;
	struct pt_region_info *regions;
	size_t nregions;
	struct pt_context *ctx;
	size_t nctx;
	const struct pt_context **ctx_sorted;
	struct mapping *maps;
	size_t nmaps, mapcap;
	bool guarded;           /* pt_capture_guard() was called */
	const char *source_kind;/* static: "umr log", "gem5 checkpoint"; NULL: a capture archive */
};

/*
 * Notes that region ID serves the LEN bytes at P (inside one of CAP's
 * mappings, or none): the pages to keep when the lease breaks, and the
 * file's holes there (pt_mem_region_hole()).
 */
pt_err pt_capture_map_use(struct pt_capture *cap, unsigned id, const void *p, uint64_t len);

/* State of one load. */
struct loader {
	struct pt_capture *cap;
	const char *path;
	struct member *m;
	size_t nm, mcap;
	/* the archive's top level: the first directory name and whether there are more */
	char *topdir;
	bool many_topdirs;
	/* uncompressed tar: the file mapped in place */
	const uint8_t *map;
	uint64_t map_len;
	/* early filter: capture.ini at the root came first; only these names are kept */
	bool filter;
	char **needed;
	size_t nneeded;
	/* directory capture: the capture root */
	int rootfd;
	/* the caller's options (never NULL during a load) */
	const struct pt_load_opts *opts;
	/* progress */
	uint64_t total;
	struct timespec last;
};

/* Looks up the member a [memory] section names, relative to ROOT ("" or "dir/"). */
typedef pt_err (*resolve_fn)(struct loader *ld, const struct pt_manifest_mem *mm,
			     const char *root, struct member **out);


/* The error of the load: one line, sanitised for a terminal. */
void pt_capture_set_error(struct pt_capture *cap, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* One more warning (at most MAX_WARNINGS kept). */
void pt_capture_warn(struct pt_capture *cap, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Records mapping P of LEN bytes of the file open as FD (FD is duplicated, not taken). */
pt_err pt_capture_add_mapping(struct pt_capture *cap, void *p, size_t len, int fd);
/* Parses capture.ini (LEN bytes of TEXT) into cap->man. */
pt_err pt_capture_parse_manifest(struct pt_capture *cap, const char *text, size_t len);
/* Reports DONE bytes of the source consumed (rate-limited unless FORCE). */
void pt_loader_progress(struct loader *ld, uint64_t done, bool force);
/*
 * The shared end of a load: the manifest is in cap->man; bind its [memory]
 * sections through RESOLVE, seal the memory, fill the contexts.
 */
pt_err pt_loader_bind(struct loader *ld, resolve_fn resolve, const char *root);
/* Loads the archive open as FD (capture_archive.c). */
pt_err pt_loader_load_archive(struct loader *ld, int fd);
/* Loads the directory open as DFD (capture_dir.c). */
pt_err pt_loader_load_dir(struct loader *ld, int dfd);
/*
 * Stores LEN bytes at OFF of member M (offsets increasing); all-zero chunks
 * are never allocated.  SIZE_KNOWN: M->size is final.
 */
pt_err pt_member_write(struct member *m, bool size_known, uint64_t off,
		       const uint8_t *data, size_t len);
/* True if the regular file open as FD is a umr log (capture_src.c). */
bool pt_loader_is_umr(int fd);
/* Loads the umr log open as FD (capture_src.c). */
pt_err pt_loader_load_umr(struct loader *ld, int fd);
/* True if the directory open as DFD is a gem5 checkpoint: m5.cpt and no capture.ini. */
bool pt_loader_is_gem5_dir(int dfd);
/* Loads the gem5 checkpoint directory open as DFD (capture_src.c). */
pt_err pt_loader_load_gem5_dir(struct loader *ld, int dfd);
/* True if the archive's members (LD) are a gem5 checkpoint: m5.cpt at the root or in the only directory. */
bool pt_loader_is_gem5_members(struct loader *ld);
/* Loads the gem5 checkpoint held in the archive's members (capture_src.c). */
pt_err pt_loader_load_gem5_members(struct loader *ld);
/* A new member called NAME in LD (NULL when out of memory). */
struct member *pt_member_new(struct loader *ld, const char *name);
/* Frees M's copied data. */
void pt_member_free_data(struct member *m);

#endif
