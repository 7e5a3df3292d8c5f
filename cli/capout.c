/* SPDX-License-Identifier: MIT */
/*
 * capout.c — a capture written out (capout.h): capture.ini and members,
 * to a deterministic .tar.gz or a fresh directory, through a temporary
 * renamed into place (outfile.c).  ptfs-tool build writes
 * the tables it encoded, ptfs-tool snapshot the table pages it copied.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capout.h"
#include "cli.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

void capout_init(struct capout *o, const char *what, const char *out, bool force)
{
	memset(o, 0, sizeof *o);
	o->tgz = ends_with(out, ".tar.gz") || ends_with(out, ".tgz");
	outfile_init(&o->f, what, out, !o->tgz, force);
}

/* One member of a deterministic tar.gz: mtime 0, root-owned, 0644. */
static bool tar_member(struct archive *a, const char *name, const void *data, size_t size)
{
	struct archive_entry *e = archive_entry_new();
	bool ok;

	if (!e)
		return false;
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, (la_int64_t)size);
	archive_entry_set_mtime(e, 0, 0);
	ok = archive_write_header(a, e) == ARCHIVE_OK &&
	     (size == 0 || archive_write_data(a, data, size) == (la_ssize_t)size);
	archive_entry_free(e);
	return ok;
}

/* The archive to FD (the temporary), synced: what is renamed to OUT is on disk. */
static int write_tgz(const struct capout *o, int fd, const char *ini, size_t inilen,
		     const struct capout_member *m, size_t n)
{
	struct archive *a = archive_write_new();
	bool ok = a && archive_write_set_format_pax_restricted(a) == ARCHIVE_OK &&
		  archive_write_add_filter_gzip(a) == ARCHIVE_OK &&
		  archive_write_set_filter_option(a, "gzip", "timestamp", NULL) == ARCHIVE_OK &&
		  archive_write_open_fd(a, fd) == ARCHIVE_OK &&
		  tar_member(a, "capture.ini", ini, inilen);

	for (size_t i = 0; ok && i < n && !outfile_interrupted(); i++)
		ok = tar_member(a, m[i].name, m[i].data, m[i].size);
	if (!ok) {
		int st = cli_fail(PT_E_IO, "%s: %s: %s", o->f.what, o->f.out,
				  a ? archive_error_string(a) : "out of memory");

		archive_write_free(a);
		return st;
	}
	if (archive_write_close(a) != ARCHIVE_OK) {
		const char *why = archive_error_string(a);
		int st = cli_fail(PT_E_IO, "%s: %s: %s", o->f.what, o->f.out, why ? why : "write error");

		archive_write_free(a);
		return st;
	}
	archive_write_free(a);
	return fsync(fd) == 0 ? CLI_EXIT_OK : cli_fail(PT_E_IO, "%s: %s: %s", o->f.what, o->f.out, strerror(errno));
}

static bool write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wx");
	bool ok;

	if (!f)
		return false;
	ok = size == 0 || fwrite(data, 1, size, f) == size;
	return fclose(f) == 0 && ok;   /* closed whether or not the write failed */
}

/* The directory part of member NAME into DIR ("" when none). */
static void member_dir(const char *name, char *dir, size_t len)
{
	const char *s = strrchr(name, '/');
	size_t n = s ? (size_t)(s - name) : 0;

	snprintf(dir, len, "%.*s", (int)(n < len ? n : len - 1), name);
}

bool capout_check(const struct capout *o)
{
	return outfile_check(&o->f) == CLI_EXIT_OK;
}

static int write_dir(struct capout *o, const char *ini, size_t inilen, const struct capout_member *m, size_t n)
{
	char path[4400], sub[256];
	const char *top = o->f.tmp;

	snprintf(path, sizeof path, "%s/capture.ini", top);
	if (!write_file(path, ini, inilen))
		return cli_fail(PT_E_IO, "%s: %s/capture.ini: %s", o->f.what, o->f.out, strerror(errno));
	for (size_t i = 0; i < n && !outfile_interrupted(); i++) {
		member_dir(m[i].name, sub, sizeof sub);
		snprintf(path, sizeof path, "%s/%s", top, sub);
		if (sub[0] && mkdir(path, 0777) != 0 && errno != EEXIST)
			return cli_fail(PT_E_IO, "%s: %s/%s: %s", o->f.what, o->f.out, sub, strerror(errno));
		snprintf(path, sizeof path, "%s/%s", top, m[i].name);
		if (!write_file(path, m[i].data, m[i].size))
			return cli_fail(PT_E_IO, "%s: %s/%s: %s", o->f.what, o->f.out, m[i].name, strerror(errno));
	}
	return CLI_EXIT_OK;
}

int capout_write(struct capout *o, const char *ini, size_t inilen, const struct capout_member *m, size_t n)
{
	int fd, st = outfile_open(&o->f, &fd);

	if (st != CLI_EXIT_OK)
		return st;
	if (o->tgz) {
		st = write_tgz(o, fd, ini, inilen, m, n);
		if (close(fd) != 0 && st == CLI_EXIT_OK)
			st = cli_fail(PT_E_IO, "%s: %s: %s", o->f.what, o->f.out, strerror(errno));
	} else {
		st = write_dir(o, ini, inilen, m, n);
	}
	if (st != CLI_EXIT_OK)
		outfile_abort(&o->f);
	return st;
}

const char *capout_path(const struct capout *o)
{
	return o->f.tmp;
}

int capout_commit(struct capout *o)
{
	return outfile_commit(&o->f);
}

void capout_remove(struct capout *o)
{
	outfile_abort(&o->f);
}
