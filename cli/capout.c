/* SPDX-License-Identifier: MIT */
/*
 * capout.c — a capture written out (capout.h): capture.ini and members,
 * to a deterministic .tar.gz or a fresh directory.  ptfs-tool build writes
 * the tables it encoded, ptfs-tool snapshot the table pages it copied.
 */
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
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

void capout_init(struct capout *o, const char *what, const char *out)
{
	memset(o, 0, sizeof *o);
	o->what = what;
	o->out = out;
	o->tgz = ends_with(out, ".tar.gz") || ends_with(out, ".tgz");
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

static int write_tgz(const struct capout *o, const char *ini, size_t inilen, const struct capout_member *m,
		     size_t n)
{
	struct archive *a = archive_write_new();
	bool ok = a && archive_write_set_format_pax_restricted(a) == ARCHIVE_OK &&
		  archive_write_add_filter_gzip(a) == ARCHIVE_OK &&
		  archive_write_set_filter_option(a, "gzip", "timestamp", NULL) == ARCHIVE_OK &&
		  archive_write_open_filename(a, o->out) == ARCHIVE_OK &&
		  tar_member(a, "capture.ini", ini, inilen);

	for (size_t i = 0; ok && i < n; i++)
		ok = tar_member(a, m[i].name, m[i].data, m[i].size);
	if (!ok) {
		int st = cli_fail(PT_E_IO, "%s: %s: %s", o->what, o->out,
				  a ? archive_error_string(a) : "out of memory");

		archive_write_free(a);
		return st;
	}
	ok = archive_write_close(a) == ARCHIVE_OK;
	archive_write_free(a);
	return ok ? CLI_EXIT_OK : cli_fail(PT_E_IO, "%s: %s: write error", o->what, o->out);
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
	DIR *d = o->tgz ? NULL : opendir(o->out);
	struct dirent *de;
	int k = 0;

	if (!d)
		return true;
	while ((de = readdir(d)))
		k += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	if (k)
		cli_fail(PT_E_USAGE, "%s: %s is not empty", o->what, o->out);
	return k == 0;
}

static int write_dir(struct capout *o, const char *ini, size_t inilen, const struct capout_member *m, size_t n)
{
	char path[4400], sub[256];
	DIR *d = opendir(o->out);

	if (d) {
		closedir(d);
		if (!capout_check(o))
			return CLI_EXIT_ERROR;
	} else if (mkdir(o->out, 0755) != 0) {
		return cli_fail(PT_E_IO, "%s: %s: %s", o->what, o->out, strerror(errno));
	} else {
		o->made = true;
	}
	o->touched = true;
	snprintf(path, sizeof path, "%s/capture.ini", o->out);
	if (!write_file(path, ini, inilen))
		return cli_fail(PT_E_IO, "%s: %s: %s", o->what, path, strerror(errno));
	for (size_t i = 0; i < n; i++) {
		member_dir(m[i].name, sub, sizeof sub);
		snprintf(path, sizeof path, "%s/%s", o->out, sub);
		if (sub[0] && mkdir(path, 0755) != 0 && errno != EEXIST)
			return cli_fail(PT_E_IO, "%s: %s: %s", o->what, path, strerror(errno));
		snprintf(path, sizeof path, "%s/%s", o->out, m[i].name);
		if (!write_file(path, m[i].data, m[i].size))
			return cli_fail(PT_E_IO, "%s: %s: %s", o->what, path, strerror(errno));
	}
	return CLI_EXIT_OK;
}

int capout_write(struct capout *o, const char *ini, size_t inilen, const struct capout_member *m, size_t n)
{
	if (o->tgz) {
		o->touched = true;
		return write_tgz(o, ini, inilen, m, n);
	}
	return write_dir(o, ini, inilen, m, n);
}

void capout_remove(const struct capout *o, const struct capout_member *m, size_t n)
{
	char path[4400], sub[256];

	if (!o->touched)
		return;
	if (o->tgz) {
		unlink(o->out);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/%s", o->out, m[i].name);
		unlink(path);
	}
	snprintf(path, sizeof path, "%s/capture.ini", o->out);
	unlink(path);
	for (size_t i = 0; i < n; i++) {
		member_dir(m[i].name, sub, sizeof sub);
		snprintf(path, sizeof path, "%s/%s", o->out, sub);
		if (sub[0])
			rmdir(path);   /* fails harmlessly once removed, or while not empty */
	}
	if (o->made)
		rmdir(o->out);
}
