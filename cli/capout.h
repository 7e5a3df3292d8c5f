/* SPDX-License-Identifier: MIT */
/*
 * capout.h — writing a capture: capture.ini and its members, to a
 * deterministic .tar.gz or to a directory that is empty or does not exist
 * (ptfs-tool build and snapshot share it).
 */
#ifndef PT_CLI_CAPOUT_H
#define PT_CLI_CAPOUT_H

#include <stdbool.h>
#include <stddef.h>

/* One member besides capture.ini: NAME is "FILE" or "DIR/FILE" (one directory level). */
struct capout_member {
	const char *name;
	const void *data;
	size_t size;
};

/* Where a capture is written and what was made there, for capout_remove(). */
struct capout {
	const char *what;   /* the command, for messages ("build") */
	const char *out;
	bool tgz;           /* OUT ends in .tar.gz or .tgz */
	bool touched;       /* something may have been written */
	bool made;          /* OUT is a directory the write created */
};

void capout_init(struct capout *o, const char *what, const char *out);
/* Whether O->out may be written (a directory: absent or empty); false after one line (E_USAGE). */
bool capout_check(const struct capout *o);
/*
 * Writes INI (capture.ini) and the N members M to O->out: an archive whose
 * members have mtime 0, owner root and mode 0644 and a gzip header without
 * a time, so the same input gives the same bytes; or the files in a
 * directory (refused, E_USAGE, when it exists and is not empty).  A CLI
 * exit status.
 */
int capout_write(struct capout *o, const char *ini, size_t inilen, const struct capout_member *m, size_t n);
/* Removes what capout_write() wrote (nothing unless it touched O->out). */
void capout_remove(const struct capout *o, const struct capout_member *m, size_t n);

#endif
