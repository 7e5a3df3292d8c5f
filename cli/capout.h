/* SPDX-License-Identifier: MIT */
/*
 * capout.h — writing a capture: capture.ini and its members, to a
 * deterministic .tar.gz or to a directory that is empty or does not exist
 * (ptfs-tool build and snapshot share it), never in place (outfile.h).
 */
#ifndef PT_CLI_CAPOUT_H
#define PT_CLI_CAPOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "outfile.h"

/* One member besides capture.ini: NAME is "FILE" or "DIR/FILE" (one directory level). */
struct capout_member {
	const char *name;
	const void *data;
	size_t size;
};

/* Where a capture is written: OUT, through a temporary renamed into place (outfile.h). */
struct capout {
	bool tgz;           /* OUT ends in .tar.gz or .tgz */
	struct outfile f;
};

/* FORCE (--force): an existing archive OUT is replaced. */
void capout_init(struct capout *o, const char *what, const char *out, bool force);
/* Whether O's OUT may be written (outfile_check()); false after one line. */
bool capout_check(const struct capout *o);
/*
 * Writes INI (capture.ini) and the N members M to a temporary beside OUT:
 * an archive whose members have mtime 0, owner root and mode 0644 and a
 * gzip header without a time, so the same input gives the same bytes; or
 * the files of a directory.  A CLI exit status; on failure nothing is left.
 * Then capout_path() names it for a check, and capout_commit() renames it
 * to OUT or capout_remove() removes it.
 */
int capout_write(struct capout *o, const char *ini, size_t inilen, const struct capout_member *m, size_t n);
/* The temporary capout_write() wrote (to load it back before it becomes OUT). */
const char *capout_path(const struct capout *o);
/* The temporary becomes OUT (outfile_commit()).  A CLI exit status. */
int capout_commit(struct capout *o);
/* Removes the temporary, never OUT (nothing when none was written). */
void capout_remove(struct capout *o);

#endif
