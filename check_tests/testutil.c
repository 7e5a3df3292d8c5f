#include "testutil.h"

#include <errno.h>
#include <inttypes.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt_capture.h"
#include "pt_format.h"

const char *tu_fixture(const char *name)
{
	static _Thread_local char buf[PATH_MAX];
	const char *dir = getenv("PTFS_FIXTURES");

	snprintf(buf, sizeof buf, "%s/%s", dir ? dir : "fixtures", name);
	return buf;
}

char *tu_mkdtemp(void)
{
	const char *t = getenv("TMPDIR");
	char *p;

	if (asprintf(&p, "%s/ptfs-test-XXXXXX", t ? t : "/tmp") < 0)
		abort();
	if (!mkdtemp(p))
		abort();
	return p;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb; (void)flag; (void)f;
	return remove(p);
}

void tu_rmtree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void tu_write(const char *dir, const char *name, const void *data, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	for (char *s = path + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		if (mkdir(path, 0755) && errno != EEXIST)
			abort();
		*s = '/';
	}
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		abort();
}

int tu_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

struct tu_cap tu_cap_load(const char *format, uint64_t base, const void *mem, size_t len,
			  const char *sections)
{
	struct tu_cap k = {0};
	char ini[8192];
	int n;

	k.dir = tu_mkdtemp();
	n = snprintf(ini, sizeof ini,
		     "[capture]\nversion = 1\nformat = %s\n"
		     "[memory m]\nspace = sysmem\nbase = 0x%" PRIx64 "\nfile = mem/sys.bin\n%s",
		     format, base, sections);
	ck_assert_msg(n > 0 && (size_t)n < sizeof ini, "capture.ini of %d bytes", n);
	tu_write(k.dir, "capture.ini", ini, strlen(ini));
	tu_write(k.dir, "mem/sys.bin", mem, len);
	k.c = pt_capture_new();
	ck_assert_ptr_nonnull(k.c);
	k.rc = pt_capture_load(k.c, k.dir);
	return k;
}

void tu_cap_free(struct tu_cap *k)
{
	pt_capture_free(k->c);
	tu_rmtree(k->dir);
	free(k->dir);
	k->c = NULL;
	k->dir = NULL;
}

void tu_cap_refused(struct tu_cap *k, const char *sections, pt_err want, const char *msg)
{
	const char *got = pt_capture_error(k->c);

	ck_assert_msg(k->rc == want, "%s: rc %d, want %d (%s)", sections, k->rc, want, got);
	ck_assert_msg(got && strstr(got, msg) != NULL, "%s: '%s' lacks '%s'", sections,
		      got ? got : "(none)", msg);
	tu_cap_free(k);
}

uint64_t tu_field(const struct pt_entry *e, const char *key)
{
	const struct pt_field *f = pt_entry_field(e, key);

	ck_assert_msg(f != NULL, "no field %s", key);
	return f->v;
}

void tu_put64(uint8_t *mem, size_t len, uint64_t off, uint64_t v)
{
	ck_assert_msg(off <= len && len - off >= 8, "8 bytes at 0x%" PRIx64 " outside %zu", off, len);
	for (int i = 0; i < 8; i++)
		mem[off + (uint64_t)i] = (uint8_t)(v >> (8 * i));
}
