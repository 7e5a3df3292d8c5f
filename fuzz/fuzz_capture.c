/*
 * fuzz_capture — libFuzzer target for the archive loader.
 *
 * The input is a whole capture file (tar, tar.gz, zip, ... anything
 * libarchive reads).  capture.c has no in-memory API, so the bytes go to a
 * memfd and pt_capture_load() opens it as /proc/self/fd/N: no file in TMPDIR,
 * and the uncompressed-tar mmap path is exercised too.  A capture that loads
 * is summarised and each of its contexts walked (exercise.h), every render
 * in one form, text for an input of even length, JSON for odd (until
 * 2026-12-02: both, every input).
 *
 * Invariants: a failed load has a message and holds no contexts; messages
 * and warnings carry no control characters (member names are hostile).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "exercise.h"
#include "pt_capture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd = -1;
static char path[64];

static void no_ctl(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pt_capture *cap;
	pt_err rc;

	if (memfd < 0) {
		memfd = memfd_create("ptfs-fuzz-capture", MFD_CLOEXEC);
		if (memfd < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);
	}
	if (ftruncate(memfd, 0) || pwrite(memfd, data, size, 0) != (ssize_t)size)
		abort();
	cap = pt_capture_new();
	if (!cap)
		return 0;
	rc = pt_capture_load(cap, path);
	for (size_t i = 0; i < pt_capture_warning_count(cap); i++)
		no_ctl(pt_capture_warning(cap, i));
	if (rc != PT_OK) {
		if (!pt_capture_error(cap)[0] || pt_capture_context_count(cap) || pt_capture_mem(cap))
			abort();
		no_ctl(pt_capture_error(cap));
	} else {
		/*
		 * One form per input, chosen by the input's length (the only bit
		 * of an archive a mutation can flip without breaking it): every
		 * insert or erase of one byte flips it.
		 */
		enum pt_out out = size & 1 ? PT_OUT_JSON : PT_OUT_TEXT;
		struct pt_buf b;

		pt_buf_init(&b);
		(void)pt_render_capture(&b, cap, out);
		pt_buf_free(&b);
		for (size_t i = 0; i < pt_capture_context_count(cap) && i < 4; i++) {
			const struct pt_context *c = pt_capture_context(cap, i);
			uint64_t vas[] = {c->va_base, c->va_base + 0x201000, c->root_addr, 0x200000, 0x400000};

			if (pt_capture_context_find(cap, c->name) != c)
				abort();
			fz_context_out(c, vas, sizeof vas / sizeof *vas, &FZ_BOUNDS, out);
		}
	}
	pt_capture_free(cap);
	return 0;
}
