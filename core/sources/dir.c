/* SPDX-License-Identifier: MIT */
/*
 * dir.c — the directory source: a directory holding capture.ini, at its
 * root or in its only subdirectory (docs/design.md §3).  It is not walked:
 * capture.ini and the files it names are opened without following
 * symbolic links (and without blocking on a FIFO) and mapped
 * (pt_loader_add_mapped()), each only once capture.ini names it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pt_source.h"

/* The state of one directory load. */
struct dirload {
	const char *path;
	int rootfd;            /* the capture root: the directory or its only subdirectory */
};

/* Opens PATH under DIRFD without following a symbolic link anywhere on the way. */
static int open_nofollow(int dirfd, const char *path, struct stat *st)
{
	char *copy = strdup(path), *p, *slash;
	int fd = dup(dirfd);

	if (!copy || fd < 0) {
		free(copy);
		if (fd >= 0)
			close(fd);
		errno = ENOMEM;
		return -1;
	}
	for (p = copy; (slash = strchr(p, '/')); p = slash + 1) {
		int nfd;

		*slash = 0;
		nfd = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (nfd < 0) {
			free(copy);
			return -1;
		}
		fd = nfd;
	}
	{
		int nfd = openat(fd, p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		int e = errno;

		close(fd);
		free(copy);
		errno = e;
		if (nfd < 0)
			return -1;
		if (fstat(nfd, st)) {
			e = errno;
			close(nfd);
			errno = e;
			return -1;
		}
		return nfd;
	}
}

/* A member of a directory capture: mapped in place, once a [memory] section names it. */
static pt_err resolve_dir(struct pt_loader *ld, void *ud, const struct pt_manifest_mem *mm)
{
	struct dirload *dl = ud;
	struct stat st;
	int fd = open_nofollow(dl->rootfd, mm->path, &st);
	pt_err rc;

	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR)) {
		pt_loader_warn(ld, "file '%s' is a symbolic link: ignored", mm->path);
		return pt_loader_fail(ld, PT_E_CAPTURE,
			"capture.ini:%u: file '%s' of [memory %s] is a symbolic link or under one (only regular files are read)",
			mm->file_line, mm->file, mm->name);
	}
	if (fd < 0 && errno == ENOENT)
		return pt_loader_fail(ld, PT_E_CAPTURE, "capture.ini:%u: file '%s' of [memory %s] is not in the capture",
			mm->file_line, mm->file, mm->name);
	if (fd < 0)
		return pt_loader_fail(ld, PT_E_IO, "capture.ini:%u: file '%s' of [memory %s]: %s",
			mm->file_line, mm->file, mm->name, strerror(errno));
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return pt_loader_fail(ld, PT_E_CAPTURE,
			"capture.ini:%u: file '%s' of [memory %s] is not a regular file (only regular files are read)",
			mm->file_line, mm->file, mm->name);
	}
	rc = pt_loader_add_mapped(ld, mm->path, fd, 0, (uint64_t)st.st_size);
	close(fd);
	if (rc == PT_E_IO)
		return pt_loader_fail(ld, PT_E_IO, "capture.ini:%u: file '%s' of [memory %s]: mmap: %s",
			mm->file_line, mm->file, mm->name, strerror(errno));
	if (rc)
		return pt_loader_fail(ld, rc, "%s: out of memory", dl->path);
	return PT_OK;
}

/* A file of the directory by path (a dump capture.ini names, load/dumpmem.c): opened as a member is. */
static int open_dir_file(void *ud, const char *name, struct stat *st)
{
	return open_nofollow(((struct dirload *)ud)->rootfd, name, st);
}

/* Reads the regular file NAME under DIRFD (at most PT_INI_MAX_SIZE bytes). */
static pt_err read_small(struct pt_loader *ld, const char *path, int dirfd, const char *name,
			 char **text, size_t *len)
{
	struct stat st;
	int fd = open_nofollow(dirfd, name, &st);
	size_t got = 0;

	if (fd < 0)
		return pt_loader_fail(ld, PT_E_IO, "%s/%s: %s", path, name, strerror(errno));
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return pt_loader_fail(ld, PT_E_CAPTURE, "%s/%s: is a %s; ptfs reads only regular files", path,
				      name, pt_file_type_name(st.st_mode));
	}
	if (st.st_size > PT_INI_MAX_SIZE) {
		close(fd);
		return pt_loader_fail(ld, PT_E_CAPTURE, "%s: '%s' is larger than %u MiB", path, name,
				      PT_INI_MAX_SIZE >> 20);
	}
	*text = malloc((size_t)st.st_size + 1);
	if (!*text) {
		close(fd);
		return pt_loader_fail(ld, PT_E_NOMEM, "%s: out of memory", path);
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, *text + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	*len = got;
	return PT_OK;
}

/*
 * What kind of thing NAME under DIRFD is, without following links: 'f',
 * 'd', 'l', other or 0; its mode in *MODE if not NULL.
 */
static char entry_kind_mode(int dirfd, const char *name, mode_t *mode)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return 0;
	if (mode)
		*mode = st.st_mode;
	if (S_ISREG(st.st_mode))
		return 'f';
	if (S_ISDIR(st.st_mode))
		return 'd';
	if (S_ISLNK(st.st_mode))
		return 'l';
	return '?';
}

static char entry_kind(int dirfd, const char *name)
{
	return entry_kind_mode(dirfd, name, NULL);
}

static void dir_done(void *ud)
{
	struct dirload *dl = ud;

	if (dl->rootfd >= 0)
		close(dl->rootfd);
	free(dl);
}

static int dir_bid(const struct pt_probe *p)
{
	return p->fd >= 0 && S_ISDIR(p->st->st_mode) ? 10 : 0;
}

static pt_err dir_load(struct pt_loader *ld, const struct pt_probe *p)
{
	struct dirload *dl = malloc(sizeof *dl);
	int dfd = p->fd;
	mode_t mode = 0;

	if (!dl)
		return pt_loader_fail(ld, PT_E_NOMEM, "%s: out of memory", p->path);
	dl->path = p->path;
	dl->rootfd = -1;
	/* The loader binds after this returns: it closes the root then. */
	pt_loader_set_resolve(ld, resolve_dir, dl, dir_done);
	pt_loader_set_open(ld, open_dir_file);
	char *topdir = NULL, *dirini = NULL, *text = NULL;
	int ndirs = 0, dupfd;
	bool at_root, in_dir = false;
	DIR *d;
	struct dirent *de;
	char k;
	size_t len = 0;
	pt_err rc;

	k = entry_kind_mode(dfd, "capture.ini", &mode);
	at_root = k == 'f';
	if (k && k != 'f')
		pt_loader_warn(ld, "capture.ini is not a regular file: ignored");
	/* The only top-level directory (stop counting at two). */
	dupfd = dup(dfd);
	d = dupfd >= 0 ? fdopendir(dupfd) : NULL;
	if (!d) {
		if (dupfd >= 0)
			close(dupfd);
		return pt_loader_fail(ld, PT_E_IO, "%s: %s", p->path, strerror(errno));
	}
	while (ndirs < 2 && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (de->d_type == DT_DIR || (de->d_type == DT_UNKNOWN && entry_kind(dfd, de->d_name) == 'd')) {
			if (ndirs++ == 0)
				topdir = strdup(de->d_name);
		}
	}
	closedir(d);
	if (ndirs == 1 && topdir) {
		if (asprintf(&dirini, "%s/capture.ini", topdir) < 0) {
			free(topdir);
			return pt_loader_fail(ld, PT_E_NOMEM, "%s: out of memory", p->path);
		}
		{
			int tfd = openat(dfd, topdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (tfd >= 0) {
				in_dir = entry_kind(tfd, "capture.ini") == 'f';
				close(tfd);
			}
		}
	}
	if (at_root && in_dir) {
		rc = pt_loader_fail(ld, PT_E_CAPTURE, "%s: two capture.ini: 'capture.ini' and '%s'", p->path,
				    dirini);
		goto out;
	}
	if (!at_root && !in_dir && k) {
		rc = pt_loader_fail(ld, PT_E_CAPTURE, "%s: capture.ini is a %s; ptfs reads only regular files",
				    p->path, pt_file_type_name(mode));
		goto out;
	}
	if (!at_root && !in_dir) {
		rc = pt_loader_fail(ld, PT_E_CAPTURE,
				    "%s: no capture.ini at the directory root or in its only subdirectory", p->path);
		goto out;
	}
	dl->rootfd = in_dir ? openat(dfd, topdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			   : dup(dfd);
	if (dl->rootfd < 0) {
		rc = pt_loader_fail(ld, PT_E_IO, "%s: %s", p->path, strerror(errno));
		goto out;
	}
	rc = read_small(ld, p->path, dl->rootfd, "capture.ini", &text, &len);
	if (!rc)
		rc = pt_loader_emit_ini(ld, text, len, NULL);
	if (rc)
		goto out;
out:
	free(text);
	free(topdir);
	free(dirini);
	return rc;
}

const struct pt_source pt_source_dir = {
	.name = "directory",
	.kind = NULL,
	.bid = dir_bid,
	.load = dir_load,
};

