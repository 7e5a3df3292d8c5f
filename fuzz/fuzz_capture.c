/*
 * fuzz_capture — libFuzzer target for the archive loader.
 *
 * The input is a whole capture file (tar, tar.gz, zip, ... anything
 * libarchive reads).  capture.c has no in-memory API, so the bytes go to a
 * memfd and pt_capture_load() opens it as /proc/self/fd/N (fz_load_checked(),
 * load.h: no file in TMPDIR, and the uncompressed-tar mmap path is exercised
 * too; a kdump file is not loaded, load.h says why).  A capture that loads
 * is summarised and each of its contexts walked (exercise.h), every render
 * in one form, text for an input of even length, JSON for odd (until
 * 2026-12-02: both, every input).
 *
 * Invariants: a failed load has a message and holds no contexts; messages
 * and warnings carry no control characters (member names are hostile).
 */
#include <stdint.h>
#include <stdlib.h>

#include "exercise.h"
#include "load.h"
#include "pt_capture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pt_capture *cap = fz_load_checked(data, size);

	if (cap) {
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
		pt_capture_free(cap);
	}
	return 0;
}
