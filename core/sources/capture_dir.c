/* SPDX-License-Identifier: MIT */
/*
 * capture_dir.c — a directory capture: not walked; capture.ini and the
 * files it names are opened without following symbolic links and mapped.
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

#include "capture_int.h"

/* ---- directories ---- */

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

/* A member of a directory capture: mapped in place, one member per [memory] section. */
static pt_err resolve_dir(struct loader *ld, const struct pt_manifest_mem *mm,
			  const char *root, struct member **out)
{
	struct stat st;
	struct member *m;
	int fd = open_nofollow(ld->rootfd, mm->path, &st);

	(void)root;
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR)) {
		pt_capture_set_error(ld->cap,
			"capture.ini:%u: file '%s' of [memory %s] is a symbolic link or under one (only regular files are read)",
			mm->file_line, mm->file, mm->name);
		pt_capture_warn(ld->cap, "file '%s' is a symbolic link: ignored", mm->path);
		return PT_E_CAPTURE;
	}
	if (fd < 0 && errno == ENOENT) {
		pt_capture_set_error(ld->cap, "capture.ini:%u: file '%s' of [memory %s] is not in the capture",
			mm->file_line, mm->file, mm->name);
		return PT_E_CAPTURE;
	}
	if (fd < 0) {
		pt_capture_set_error(ld->cap, "capture.ini:%u: file '%s' of [memory %s]: %s",
			mm->file_line, mm->file, mm->name, strerror(errno));
		return PT_E_IO;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		pt_capture_set_error(ld->cap,
			"capture.ini:%u: file '%s' of [memory %s] is not a regular file (only regular files are read)",
			mm->file_line, mm->file, mm->name);
		return PT_E_CAPTURE;
	}
	m = pt_member_new(ld, mm->path);
	if (!m) {
		close(fd);
		pt_capture_set_error(ld->cap, "%s: out of memory", ld->path);
		return PT_E_NOMEM;
	}
	m->kind = MK_INPLACE;
	m->size = (uint64_t)st.st_size;
	m->ptr = (const uint8_t *)"";
	if (st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (p == MAP_FAILED) {
			int e = errno;

			close(fd);
			pt_capture_set_error(ld->cap, "capture.ini:%u: file '%s' of [memory %s]: mmap: %s",
				mm->file_line, mm->file, mm->name, strerror(e));
			return PT_E_IO;
		}
		if (pt_capture_add_mapping(ld->cap, p, (size_t)st.st_size, fd)) {
			munmap(p, (size_t)st.st_size);
			close(fd);
			pt_capture_set_error(ld->cap, "%s: out of memory", ld->path);
			return PT_E_NOMEM;
		}
		m->ptr = p;
	}
	close(fd);
	*out = m;
	return PT_OK;
}

/* Reads the regular file NAME under DIRFD (at most PT_INI_MAX_SIZE bytes). */
static pt_err read_small(struct loader *ld, int dirfd, const char *name, char **text, size_t *len)
{
	struct stat st;
	int fd = open_nofollow(dirfd, name, &st);
	size_t got = 0;

	if (fd < 0) {
		pt_capture_set_error(ld->cap, "%s/%s: %s", ld->path, name, strerror(errno));
		return PT_E_IO;
	}
	if (st.st_size > PT_INI_MAX_SIZE) {
		close(fd);
		pt_capture_set_error(ld->cap, "%s: '%s' is larger than %u MiB", ld->path, name, PT_INI_MAX_SIZE >> 20);
		return PT_E_CAPTURE;
	}
	*text = malloc((size_t)st.st_size + 1);
	if (!*text) {
		close(fd);
		pt_capture_set_error(ld->cap, "%s: out of memory", ld->path);
		return PT_E_NOMEM;
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

/* What kind of thing NAME under DIRFD is, without following links: 'f', 'd', 'l', other or 0. */
static char entry_kind(int dirfd, const char *name)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return 0;
	if (S_ISREG(st.st_mode))
		return 'f';
	if (S_ISDIR(st.st_mode))
		return 'd';
	if (S_ISLNK(st.st_mode))
		return 'l';
	return '?';
}

pt_err pt_loader_load_dir(struct loader *ld, int dfd)
{
	char *topdir = NULL, *dirini = NULL, *text = NULL;
	int ndirs = 0, dupfd;
	bool at_root, in_dir = false;
	DIR *d;
	struct dirent *de;
	char k;
	size_t len = 0;
	pt_err rc;

	k = entry_kind(dfd, "capture.ini");
	at_root = k == 'f';
	if (k && k != 'f')
		pt_capture_warn(ld->cap, "capture.ini is not a regular file: ignored");
	/* The only top-level directory (stop counting at two). */
	dupfd = dup(dfd);
	d = dupfd >= 0 ? fdopendir(dupfd) : NULL;
	if (!d) {
		if (dupfd >= 0)
			close(dupfd);
		pt_capture_set_error(ld->cap, "%s: %s", ld->path, strerror(errno));
		return PT_E_IO;
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
			pt_capture_set_error(ld->cap, "%s: out of memory", ld->path);
			return PT_E_NOMEM;
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
		pt_capture_set_error(ld->cap, "%s: two capture.ini: 'capture.ini' and '%s'", ld->path, dirini);
		rc = PT_E_CAPTURE;
		goto out;
	}
	if (!at_root && !in_dir && k == 'l') {
		pt_capture_set_error(ld->cap, "%s: capture.ini is a symbolic link; ptfs reads only regular files",
			ld->path);
		rc = PT_E_CAPTURE;
		goto out;
	}
	if (!at_root && !in_dir) {
		pt_capture_set_error(ld->cap, "%s: no capture.ini at the directory root or in its only subdirectory",
			ld->path);
		rc = PT_E_CAPTURE;
		goto out;
	}
	ld->rootfd = in_dir ? openat(dfd, topdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			   : dup(dfd);
	if (ld->rootfd < 0) {
		pt_capture_set_error(ld->cap, "%s: %s", ld->path, strerror(errno));
		rc = PT_E_IO;
		goto out;
	}
	rc = read_small(ld, ld->rootfd, "capture.ini", &text, &len);
	if (rc)
		goto out;
	rc = pt_capture_parse_manifest(ld->cap, text, len);
	if (rc)
		goto out;
	/* resolve_dir adds one member per section: never let the array move under pt_loader_bind(). */
	ld->mcap = ld->cap->man->nmem ? ld->cap->man->nmem : 1;
	ld->m = calloc(ld->mcap, sizeof *ld->m);
	if (!ld->m) {
		pt_capture_set_error(ld->cap, "%s: out of memory", ld->path);
		rc = PT_E_NOMEM;
		goto out;
	}
	rc = pt_loader_bind(ld, resolve_dir, "");
out:
	if (ld->rootfd >= 0)
		close(ld->rootfd);
	free(text);
	free(topdir);
	free(dirini);
	return rc;
}

