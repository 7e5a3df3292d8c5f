/* SPDX-License-Identifier: MIT */
/*
 * outfile.h — the one way ptfs-tool writes what a user names as OUT
 * (build, snapshot, export; issue #39 item 3).
 *
 * Everything is written under a temporary name in OUT's own directory
 * (".NAME.XXXXXX") and renamed to OUT only when complete, so OUT is either
 * what it was or the whole new output, never a half-written one.  A
 * symbolic link at OUT is refused, never followed.  An existing file OUT is
 * refused unless FORCE, and then replaced by the rename (its old bytes are
 * never opened).  A directory OUT must not exist or be empty (an empty one
 * is replaced, it holds nothing); a non-empty one is refused even with
 * FORCE: ptfs-tool deletes no tree it did not write.  On failure, and on
 * SIGINT, SIGTERM or SIGHUP while the output is written, the temporary is
 * removed; nothing the command did not create is ever removed.
 */
#ifndef PT_CLI_OUTFILE_H
#define PT_CLI_OUTFILE_H

#include <stdbool.h>

struct outfile {
	const char *what;   /* the command, for messages ("build") */
	const char *out;    /* the path the user named */
	bool dir;           /* OUT is a directory (else a file) */
	bool force;         /* an existing file OUT is replaced */
	char tmp[4096];     /* the temporary being written, "" when none */
};

void outfile_init(struct outfile *o, const char *what, const char *out, bool dir, bool force);
/*
 * Whether OUT may be written (before long work, and again at open): a CLI
 * exit status, after one line when not.
 */
int outfile_check(const struct outfile *o);
/*
 * Makes the temporary (O->tmp): a file, open for writing on *FD; or a
 * directory (*FD is -1), writable, to be filled.  A CLI exit status.
 */
int outfile_open(struct outfile *o, int *fd);
/* Renames the complete temporary to OUT (FD closed by the caller). A CLI exit status; fails as _abort. */
int outfile_commit(struct outfile *o);
/* Removes the temporary and all it holds (never OUT); dies of a signal that came meanwhile. */
void outfile_abort(struct outfile *o);
/* A signal came while the temporary is written: stop writing, outfile_abort(). */
bool outfile_interrupted(void);

#endif
