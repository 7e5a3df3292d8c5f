/*
 * fuzz_elf — libFuzzer target for the memory-dump sources
 * (core/sources/pt_src_dump.h, pt_src_kdump.h).
 *
 * The input is a whole file.  The ELF parser runs on its bytes in memory;
 * then the same bytes go through pt_capture_load() from a memfd (the ELF
 * and kdump sources bid on it; a kdump file is not loaded: load.h), and a
 * loaded capture's first four contexts are walked and listed (exercise.h),
 * every render in one form, text for an input of even length, JSON for odd
 * (until 2026-12-02: every context, both forms).
 *
 * Invariants checked (abort -> libFuzzer reports a crash):
 *  - a parse error is one line starting "fz.core: " with no control
 *    character; a successful parse has every segment inside the input,
 *    sorted by address, with no two overlapping where one covers the other;
 *  - every QEMU note and the VMCOREINFO text lie inside the input;
 *  - pt_dump_ini's text parses as a capture.ini when it succeeds (schema
 *    errors in the generated text would be ptfs's bug, not the input's);
 *  - the loader's (fz_load_checked(), load.h): a failed load holds no
 *    contexts and no memory, its error and every warning are printable.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ini.h"
#include "pt_capture.h"
#include "pt_src_dump.h"
#include "pt_walk.h"

#include "exercise.h"
#include "load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_line(const char *s, const char *prefix)
{
	if (strncmp(s, prefix, strlen(prefix)))
		abort();
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			abort();
}

static bool inside(const uint8_t *data, size_t size, const void *p, uint64_t len)
{
	const uint8_t *b = p;

	return b >= data && b <= data + size && len <= (uint64_t)(data + size - b);
}

static void parse(const uint8_t *data, size_t size)
{
	struct pt_elf_core c;
	char err[1024];
	struct pt_buf text, warn;
	struct pt_dump_region *r;

	if (pt_elf_parse(data, size, "fz.core", &c, err, sizeof err)) {
		check_line(err, "fz.core: ");
		pt_elf_core_free(&c);
		return;
	}
	for (size_t i = 0; i < c.nseg; i++) {
		const struct pt_elf_seg *s = &c.seg[i];

		if (!s->filesz || s->offset > size || s->filesz > size - s->offset)
			abort();
		if (i && s->paddr < c.seg[i - 1].paddr)
			abort();
	}
	if (c.facts.vmcoreinfo && !inside(data, size, c.facts.vmcoreinfo, c.facts.vmcoreinfo_len))
		abort();
	for (size_t i = 0; i < c.facts.ncpu; i++)
		if (c.facts.cpu[i].note_off >= size)
			abort();
	r = calloc(c.nseg ? c.nseg : 1, sizeof *r);
	for (size_t i = 0; r && i < c.nseg; i++) {
		snprintf(r[i].name, sizeof r[i].name, "load%u", (unsigned)c.seg[i].phdr);
		r[i].base = c.seg[i].paddr;
		r[i].offset = c.seg[i].offset;
		r[i].length = c.seg[i].filesz;
	}
	pt_buf_init(&text);
	pt_buf_init(&warn);
	if (r && pt_dump_ini(&c.facts, "ELF core", "fz.core", "fz.core", r, c.nseg, &text, &warn,
			     err, sizeof err) == PT_OK) {
		struct pt_manifest *m = NULL;

		if (pt_manifest_parse(text.data, text.len, &m, err, sizeof err) != PT_OK)
			abort();
		pt_manifest_free(m);
	}
	pt_buf_free(&text);
	pt_buf_free(&warn);
	free(r);
	pt_elf_core_free(&c);
}

static void load(const uint8_t *data, size_t size)
{
	struct pt_capture *cap = fz_load_checked(data, size);

	if (cap) {
		static const uint64_t vas[] = {0x0, 0x200000, 0x201000, 0x400000, 0x100000000ull,
			0x00007ffffffff000ull, 0x0000800000000000ull, 0xffff888000000000ull,
			0xffffffff80000000ull, 0xfffffffffffff000ull};

		/* one form per input, by its length's parity (fuzz_capture.c says why) */
		int out = size & 1 ? PT_OUT_JSON : PT_OUT_TEXT;

		for (size_t i = 0; i < pt_capture_context_count(cap) && i < 4; i++)
			fz_context_out(pt_capture_context(cap, i), vas, sizeof vas / sizeof *vas, &FZ_BOUNDS, out);
		pt_capture_free(cap);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	parse(data, size);
	load(data, size);
	return 0;
}
