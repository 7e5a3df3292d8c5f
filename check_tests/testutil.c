#include "testutil.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
