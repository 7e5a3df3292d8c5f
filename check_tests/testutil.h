/* Shared helpers for the Check suites. */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <check.h>
#include <stdint.h>

#include "pt_error.h"

struct pt_capture;
struct pt_entry;

/* Path of a committed fixture: $PTFS_FIXTURES/NAME (static buffer per call site is not reentrant: copy it). */
const char *tu_fixture(const char *name);
/* A fresh empty temporary directory (removed by tu_rmtree). */
char *tu_mkdtemp(void);
/* rm -rf PATH. */
void tu_rmtree(const char *path);
/* Writes LEN bytes to DIR/NAME, creating parent directories. */
void tu_write(const char *dir, const char *name, const void *data, size_t len);
/*
 * A one-format directory capture, as the format suites build them:
 * [capture] of FORMAT, one sysmem [memory] at BASE holding LEN bytes of
 * MEM, then SECTIONS.  RC is pt_capture_load's answer; C is kept either way
 * so that its error line can be checked.
 */
struct tu_cap {
	char *dir;
	struct pt_capture *c;
	pt_err rc;
};
struct tu_cap tu_cap_load(const char *format, uint64_t base, const void *mem, size_t len,
			  const char *sections);
void tu_cap_free(struct tu_cap *k);
/* K (from tu_cap_load of SECTIONS) failed with WANT and MSG in its error line; frees K. */
void tu_cap_refused(struct tu_cap *k, const char *sections, pt_err want, const char *msg);
/* The value of E's field KEY, which must exist. */
uint64_t tu_field(const struct pt_entry *e, const char *key);
/* V little-endian at MEM[OFF], which must lie within LEN bytes. */
void tu_put64(uint8_t *mem, size_t len, uint64_t off, uint64_t v);
/* Runs the suite, returns the process exit status from the failure count. */
int tu_run(Suite *s);

#endif
