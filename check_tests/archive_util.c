/* archive_util: captures written at test time (see archive_util.h). */
#include "archive_util.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt_capture.h"
#include "testutil.h"

const char *const au_filter_ext[] = {"tar", "tar.gz", "tar.xz", "tar.zst"};

static void add_filter(struct archive *a, enum au_filter f)
{
	switch (f) {
	case AU_NONE:
		break;
	case AU_GZ:
		ck_assert_int_eq(archive_write_add_filter_gzip(a), ARCHIVE_OK);
		/* Level 1: the 4 GiB zero members must not spend a minute compressing. */
		archive_write_set_filter_option(a, "gzip", "compression-level", "1");
		break;
	case AU_XZ:
		ck_assert_int_eq(archive_write_add_filter_xz(a), ARCHIVE_OK);
		archive_write_set_filter_option(a, "xz", "compression-level", "1");
		break;
	case AU_ZST:
		ck_assert_int_eq(archive_write_add_filter_zstd(a), ARCHIVE_OK);
		break;
	}
}

static void write_zeros(struct archive *a, uint64_t n)
{
	static const uint8_t z[1 << 20];

	while (n) {
		size_t k = n < sizeof z ? (size_t)n : sizeof z;

		ck_assert_int_eq(archive_write_data(a, z, k), (la_ssize_t)k);
		n -= k;
	}
}

static void add_member(struct archive *a, const struct mspec *m)
{
	struct archive_entry *e = archive_entry_new();

	archive_entry_set_pathname(e, m->name);
	archive_entry_set_mtime(e, 1700000000, 0);
	archive_entry_set_perm(e, 0644);
	switch (m->type) {
	case 'f':
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_size(e, m->data ? (la_int64_t)m->len : (la_int64_t)m->zeros);
		break;
	case 'd':
		archive_entry_set_filetype(e, AE_IFDIR);
		archive_entry_set_perm(e, 0755);
		break;
	case 'l':
		archive_entry_set_filetype(e, AE_IFLNK);
		archive_entry_set_perm(e, 0777);
		archive_entry_set_symlink(e, m->target);
		break;
	case 'h':
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_hardlink(e, m->target);
		archive_entry_set_size(e, 0);
		break;
	case 'c':
	case 'b':
		archive_entry_set_filetype(e, m->type == 'c' ? AE_IFCHR : AE_IFBLK);
		archive_entry_set_rdevmajor(e, 1);
		archive_entry_set_rdevminor(e, 3);
		break;
	case 'p':
		archive_entry_set_filetype(e, AE_IFIFO);
		break;
	}
	/* WARN: a name that is not UTF-8 is stored as it is. */
	ck_assert_int_ge(archive_write_header(a, e), ARCHIVE_WARN);
	if (m->type == 'f') {
		if (m->data && m->len)
			ck_assert_int_eq(archive_write_data(a, m->data, m->len), (la_ssize_t)m->len);
		else if (!m->data)
			write_zeros(a, m->zeros);
	}
	archive_entry_free(e);
}

void au_write(const char *path, enum au_format fmt, enum au_filter f, const struct mspec *m, size_t n)
{
	struct archive *a = archive_write_new();

	switch (fmt) {
	case AU_PAX:
		ck_assert_int_eq(archive_write_set_format_pax_restricted(a), ARCHIVE_OK);
		break;
	case AU_USTAR:
		ck_assert_int_eq(archive_write_set_format_ustar(a), ARCHIVE_OK);
		break;
	case AU_ZIP:
		ck_assert_int_eq(archive_write_set_format_zip(a), ARCHIVE_OK);
		ck_assert_int_eq(f, AU_NONE);
		break;
	}
	add_filter(a, f);
	ck_assert_int_eq(archive_write_open_filename(a, path), ARCHIVE_OK);
	for (size_t i = 0; i < n; i++)
		add_member(a, &m[i]);
	ck_assert_int_eq(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
}

void au_write_dir(const char *dir, const struct mspec *m, size_t n)
{
	char path[4096];

	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, m[i].name);
		switch (m[i].type) {
		case 'f':
			if (m[i].data) {
				tu_write(dir, m[i].name, m[i].data, m[i].len);
			} else {
				tu_write(dir, m[i].name, "", 0);
				ck_assert_int_eq(truncate(path, (off_t)m[i].zeros), 0);
			}
			break;
		case 'd':
			ck_assert(mkdir(path, 0755) == 0 || errno == EEXIST);
			break;
		case 'l':
			ck_assert_int_eq(symlink(m[i].target, path), 0);
			break;
		case 'h': {
			char t[4096];

			snprintf(t, sizeof t, "%s/%s", dir, m[i].target);
			ck_assert_int_eq(link(t, path), 0);
			break;
		}
		default:
			ck_abort_msg("member type '%c' in a directory capture", m[i].type);
		}
	}
}

void au_compress_raw(const char *path, enum au_filter f, const void *data, size_t len)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();

	ck_assert_int_eq(archive_write_set_format_raw(a), ARCHIVE_OK);
	add_filter(a, f);
	ck_assert_int_eq(archive_write_open_filename(a, path), ARCHIVE_OK);
	archive_entry_set_pathname(e, "raw");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_size(e, (la_int64_t)len);
	ck_assert_int_eq(archive_write_header(a, e), ARCHIVE_OK);
	ck_assert_int_eq(archive_write_data(a, data, len), (la_ssize_t)len);
	archive_entry_free(e);
	ck_assert_int_eq(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
}

void *au_slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	struct stat st;
	void *p;

	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fstat(fileno(fp), &st), 0);
	p = malloc((size_t)st.st_size + 1);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(fread(p, 1, (size_t)st.st_size, fp), (size_t)st.st_size);
	fclose(fp);
	*len = (size_t)st.st_size;
	return p;
}

void au_spit(const char *path, const void *data, size_t len)
{
	FILE *fp = fopen(path, "wb");

	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(data, 1, len, fp), len);
	ck_assert_int_eq(fclose(fp), 0);
}

long au_maxrss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

bool au_warned(const struct pt_capture *cap, const char *needle)
{
	for (size_t i = 0; i < pt_capture_warning_count(cap); i++)
		if (strstr(pt_capture_warning(cap, i), needle))
			return true;
	return false;
}
