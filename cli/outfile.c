/* SPDX-License-Identifier: MIT */
/*
 * outfile.c — OUT written under a temporary name and renamed into place
 * (outfile.h).  rename(2) replaces its target atomically, never follows a
 * symbolic link at it, replaces an empty directory and refuses a non-empty
 * one (ENOTEMPTY); renameat2(2)'s RENAME_NOREPLACE refuses any existing
 * target, which makes "refuse an existing OUT" hold even against a file
 * made after the check.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "outfile.h"

/* The temporary being written, for the signal handler; one at a time. */
static struct outfile *volatile current;
static volatile sig_atomic_t caught;
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction saved[3];
static bool installed[3];

void outfile_init(struct outfile *o, const char *what, const char *out, bool dir, bool force)
{
	memset(o, 0, sizeof *o);
	o->what = what;
	o->out = out;
	o->dir = dir;
	o->force = force;
}

/* OUT without trailing slashes into PATH, its directory into DIR, its last name into BASE. */
static bool split(const struct outfile *o, char *path, char *dir, char *base, size_t len)
{
	size_t n = strlen(o->out);
	const char *s;

	while (n > 1 && o->out[n - 1] == '/')
		n--;
	if (n == 0 || n >= len)
		return false;
	memcpy(path, o->out, n);
	path[n] = '\0';
	s = strrchr(path, '/');
	if (!s) {
		snprintf(dir, len, ".");
		snprintf(base, len, "%s", path);
	} else {
		snprintf(dir, len, "%.*s", s == path ? 1 : (int)(s - path), path);
		snprintf(base, len, "%s", s + 1);
	}
	return base[0] && strcmp(base, ".") && strcmp(base, "..");
}

static bool dir_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	bool empty = true;

	if (!d)
		return false;
	while (empty && (de = readdir(d)))
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	closedir(d);
	return empty;
}

int outfile_check(const struct outfile *o)
{
	char path[4096], dir[4096], base[4096];
	struct stat sb;

	if (!split(o, path, dir, base, sizeof path))
		return cli_fail(PT_E_USAGE, "%s: '%s' names no file or directory to write in its parent (it "
				"is replaced whole: name it from outside, e.g. ../NAME)", o->what, o->out);
	if (lstat(path, &sb) != 0) {
		if (errno != ENOENT)
			return cli_fail(PT_E_IO, "%s: %s: %s", o->what, o->out, strerror(errno));
		if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
			return cli_fail(PT_E_IO, "%s: %s: its directory %s %s", o->what, o->out, dir,
					errno == ENOENT ? "does not exist" : "is not a directory");
		return CLI_EXIT_OK;
	}
	if (S_ISLNK(sb.st_mode))
		return cli_fail(PT_E_USAGE, "%s: %s is a symbolic link: not followed, not replaced (name the "
				"file itself, or remove the link)", o->what, o->out);
	if (o->dir) {
		if (!S_ISDIR(sb.st_mode))
			return cli_fail(PT_E_USAGE, "%s: %s exists and is not a directory", o->what, o->out);
		if (!dir_empty(path))
			return cli_fail(PT_E_USAGE, "%s: %s is not empty (a directory OUT must not exist or be "
					"empty, --force or not: nothing in it is deleted)", o->what, o->out);
		return CLI_EXIT_OK;
	}
	if (S_ISDIR(sb.st_mode))
		return cli_fail(PT_E_USAGE, "%s: %s is a directory, not an archive", o->what, o->out);
	if (!S_ISREG(sb.st_mode))
		return cli_fail(PT_E_USAGE, "%s: %s is not a regular file: not replaced", o->what, o->out);
	if (!o->force)
		return cli_fail(PT_E_USAGE, "%s: %s exists (--force replaces it)", o->what, o->out);
	return CLI_EXIT_OK;
}

/*
 * A file's temporary is unlinked at once (unlink(2) is async-signal-safe)
 * and the signal, its handler reset, kills the process when the handler
 * returns; a directory's tree is removed by outfile_abort(), which the
 * writer reaches as soon as it sees outfile_interrupted().
 */
static void on_signal(int sig)
{
	struct outfile *o = current;

	caught = sig;
	if (o && !o->dir && o->tmp[0]) {
		unlink(o->tmp);
		raise(sig);
	}
}

static void handlers_set(struct outfile *o)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESETHAND;   /* a second ^C kills at once */
	sigemptyset(&sa.sa_mask);
	current = o;
	for (size_t i = 0; i < 3; i++) {
		installed[i] = sigaction(stop_signals[i], NULL, &saved[i]) == 0 &&
			       saved[i].sa_handler != SIG_IGN &&   /* nohup's SIGHUP stays ignored */
			       sigaction(stop_signals[i], &sa, NULL) == 0;
	}
}

static void handlers_reset(void)
{
	for (size_t i = 0; i < 3; i++)
		if (installed[i])
			sigaction(stop_signals[i], &saved[i], NULL);
	memset(installed, 0, sizeof installed);
	current = NULL;
}

bool outfile_interrupted(void)
{
	return caught != 0;
}

int outfile_open(struct outfile *o, int *fd)
{
	char path[4096], dir[4096], base[4096];
	mode_t mask = umask(0);
	int st, n;

	umask(mask);
	*fd = -1;
	if ((st = outfile_check(o)) != CLI_EXIT_OK)
		return st;
	split(o, path, dir, base, sizeof path);
	/* the name stays under NAME_MAX whatever OUT's length */
	n = snprintf(o->tmp, sizeof o->tmp, "%s/.%.200s.XXXXXX", dir, base);
	if (n < 0 || (size_t)n >= sizeof o->tmp) {
		o->tmp[0] = '\0';
		return cli_fail(PT_E_IO, "%s: %s: path too long", o->what, o->out);
	}
	if (o->dir ? !mkdtemp(o->tmp) : (*fd = mkostemp(o->tmp, O_CLOEXEC)) < 0) {
		int e = errno;

		o->tmp[0] = '\0';
		return cli_fail(PT_E_IO, "%s: %s: cannot write in %s: %s", o->what, o->out, dir, strerror(e));
	}
	/* the modes a plain mkdir or creat would give (mkdtemp and mkstemp make them private) */
	if (o->dir ? chmod(o->tmp, 0777 & ~mask) : fchmod(*fd, 0666 & ~mask)) {
		int e = errno;

		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		outfile_abort(o);
		return cli_fail(PT_E_IO, "%s: %s: %s", o->what, o->out, strerror(e));
	}
	handlers_set(o);
	return CLI_EXIT_OK;
}

/* Removes NAME under DFD, a directory with all it holds (made writable first), never following a link. */
static void rm_tree(int dfd, const char *name, unsigned depth)
{
	struct stat sb;
	struct dirent *de;
	DIR *d;
	int fd;

	if (fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
		return;
	if (!S_ISDIR(sb.st_mode) || depth > 256) {
		unlinkat(dfd, name, 0);
		return;
	}
	fchmodat(dfd, name, 0700, 0);
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d && fd >= 0)
		close(fd);
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			rm_tree(dirfd(d), de->d_name, depth + 1);
	if (d)
		closedir(d);
	unlinkat(dfd, name, AT_REMOVEDIR);
}

void outfile_abort(struct outfile *o)
{
	if (o->tmp[0]) {
		if (o->dir)
			rm_tree(AT_FDCWD, o->tmp, 0);
		else
			unlink(o->tmp);
		o->tmp[0] = '\0';
	}
	handlers_reset();
	if (caught)
		raise(caught);   /* its own default action now: the process ends as the signal says */
}

/* RENAME_NOREPLACE where the filesystem has it; else link(2), which refuses an existing name too. */
static int rename_noreplace(const char *from, const char *to)
{
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
		return -1;
	if (link(from, to) != 0)
		return -1;
	unlink(from);
	return 0;
}

int outfile_commit(struct outfile *o)
{
	char path[4096], dir[4096], base[4096];
	int r, e;

	if (caught) {
		outfile_abort(o);
		return CLI_EXIT_ERROR;
	}
	split(o, path, dir, base, sizeof path);
	/* a directory: rename(2) replaces only an empty one, never a file */
	r = o->dir || o->force ? rename(o->tmp, path) : rename_noreplace(o->tmp, path);
	e = errno;
	if (r == 0) {
		o->tmp[0] = '\0';
		handlers_reset();
		return CLI_EXIT_OK;
	}
	outfile_abort(o);
	if (e == ENOTEMPTY || (o->dir && e == EEXIST))
		return cli_fail(PT_E_USAGE, "%s: %s is not empty (it was filled meanwhile): nothing written",
				o->what, o->out);
	if (e == EEXIST)
		return cli_fail(PT_E_USAGE, "%s: %s exists (it was made meanwhile; --force replaces it)",
				o->what, o->out);
	if (e == ENOTDIR || e == EISDIR)
		return cli_fail(PT_E_USAGE, "%s: %s was made meanwhile as a %s: nothing written", o->what,
				o->out, e == EISDIR ? "directory" : "file");
	return cli_fail(PT_E_IO, "%s: %s: %s", o->what, o->out, strerror(e));
}
