/* SPDX-License-Identifier: MIT */
/*
 * archive_int.h — what the archive source's two files share: the state of
 * one archive load (archive.c's passes) and the reading of one member
 * (archive_member.c).
 */
#ifndef PT_ARCHIVE_INT_H
#define PT_ARCHIVE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "pt_source.h"

struct archive;
struct archive_entry;

#define CHUNK_SHIFT 12
#define CHUNK_SIZE ((uint64_t)1 << CHUNK_SHIFT)
#define MAX_MEMBER_NAME 4096    /* longer member names are ignored */

/*
 * Members before capture.ini cannot be told apart (named or not), so they
 * are kept; but only up to PRE_INI_BUDGET bytes of non-zero data in all, so
 * that a large member nobody names costs nothing (issue 16 item 4).  A
 * member cut by the budget is absent; the second pass reads the ones
 * capture.ini names again.  Only when the file cannot be read again (it
 * does not seek back) does a section naming one fail with "put capture.ini
 * first".
 */
#define PRE_INI_MIB 64
#define PRE_INI_BUDGET ((uint64_t)PRE_INI_MIB << 20)
/* A member over that budget when the file cannot be read again: the what of its absent member. */
extern const char pt_arch_deferred_what[];

/*
 * The state of one archive load.  A capture.ini candidate is a member
 * called capture.ini at the root or one directory down: which one counts
 * is known at the end (the only top-level directory).
 */
struct ini_seen {
	char *name;
	unsigned count;
	const char *what;      /* not a regular file: "symbolic link", ... */
};

struct pt_arch {
	struct pt_loader *ld;
	const char *path;
	int fd;
	uint64_t total;        /* bytes of the file (progress, the mapping) */
	bool inplace_ok;       /* an uncompressed tar: members read in place */
	/* the archive's top level: the first directory name and whether there are more */
	char *topdir;
	bool many_topdirs;
	/* early filter: capture.ini at the root came first; only these names are kept */
	bool filter;
	char **needed;
	size_t nneeded, neededcap;
	struct ini_seen *ini;
	size_t nini, inicap;
	/* members dropped over the budget of data before capture.ini (deferred_what) */
	char **deferred;
	size_t ndeferred, deferredcap;
	/* a second pass is reading: member names were warned about in the first */
	bool again;
};

/* libarchive's error on A, as the load's failure (E_ARCHIVE). */
pt_err pt_arch_fail(struct pt_arch *ar, struct archive *a);
/*
 * The current entry E, NAME: served in place (an uncompressed tar whose
 * bytes are libarchive's) or its non-zero chunks copied, at most BUDGET
 * of them before capture.ini; *KEPT: the chunks copied.
 */
pt_err pt_arch_read_regular(struct pt_arch *ar, struct archive *a, struct archive_entry *e,
			    const char *name, uint64_t budget, uint64_t *kept);
/* After the first header: whether members can be read in place (an uncompressed tar). */
bool pt_arch_can_inplace(const struct pt_arch *ar, struct archive *a);
/* The normalised name of entry E in *NAME (malloc'd), or NULL when it is never used. */
pt_err pt_arch_entry_name(struct pt_arch *ar, struct archive_entry *e, char **name);

#endif
