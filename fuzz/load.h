/*
 * load.h — the capture loader as the fuzz targets that feed it whole files
 * call it (fuzz_capture, fuzz_elf, fuzz_armctx): the bytes go to one memfd
 * per process (/proc/self/fd/N: no file in TMPDIR), pt_capture_load() opens
 * it, and the result is checked (abort() on a broken invariant):
 *  - warnings and a failed load's message hold no control character
 *    (member names and headers are hostile);
 *  - a failed load has a message and holds no contexts and no memory.
 *
 * A kdump file (PT_KDUMP_RAW, "KDUMP   " or "DISKDUMP" at 0) is not loaded:
 * src_kdump.c never frees a libkdumpfile context (kdump_free() of 0.5.1
 * is unsafe: check_tests/lsan.supp), and each context holds ~8.5 MB (two
 * 4 MiB file-cache blocks, libkdumpfile's open.c FCACHE_ORDER), so in a
 * fuzzing process every such input grew the heap by 8.5 MB (the RSS limit
 * of 2048 MB within minutes) and made libFuzzer re-run it and scan the
 * whole heap for leaks (mallocs > frees): half of fuzz_elf's time
 * (fuzz/README.md).  The kdump source stays tested by test_hostile_dump and
 * the qemu suite; a flattened kdump file (refused before libkdumpfile) is
 * still loaded.
 */
#ifndef FUZZ_LOAD_H
#define FUZZ_LOAD_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pt_capture.h"
#include "pt_src_kdump.h"

static void fz_no_ctl(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			abort();
}

/* DATA loaded as a capture file: the capture (the caller frees it), or NULL when it did not load. */
static struct pt_capture *fz_load_checked(const void *data, size_t size)
{
	static int memfd = -1;
	static char path[64];
	struct pt_capture *cap;
	pt_err rc;

	if (pt_kdump_detect(data, size) == PT_KDUMP_RAW)
		return NULL;
	if (memfd < 0) {
		memfd = memfd_create("ptfs-fuzz", MFD_CLOEXEC);
		if (memfd < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);
	}
	if (ftruncate(memfd, 0) || pwrite(memfd, data, size, 0) != (ssize_t)size)
		abort();
	cap = pt_capture_new();
	if (!cap)
		return NULL;
	rc = pt_capture_load(cap, path);
	for (size_t i = 0; i < pt_capture_warning_count(cap); i++)
		fz_no_ctl(pt_capture_warning(cap, i));
	if (rc == PT_OK)
		return cap;
	if (!pt_capture_error(cap)[0] || pt_capture_context_count(cap) || pt_capture_mem(cap))
		abort();
	fz_no_ctl(pt_capture_error(cap));
	pt_capture_free(cap);
	return NULL;
}

#endif
