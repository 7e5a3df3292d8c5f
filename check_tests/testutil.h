/* Shared helpers for the Check suites. */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <check.h>
#include <stdint.h>

/* Path of a committed fixture: $PTFS_FIXTURES/NAME (static buffer per call site is not reentrant: copy it). */
const char *tu_fixture(const char *name);
/* A fresh empty temporary directory (removed by tu_rmtree). */
char *tu_mkdtemp(void);
/* rm -rf PATH. */
void tu_rmtree(const char *path);
/* Writes LEN bytes to DIR/NAME, creating parent directories. */
void tu_write(const char *dir, const char *name, const void *data, size_t len);
/* Runs the suite, returns the process exit status from the failure count. */
int tu_run(Suite *s);

#endif
