/*
 * fuzz_armctx — libFuzzer target for the [arm64] and [smmu] context keys
 * through the whole capture loader: the archive source, the capture.ini
 * schema, each format's ctx_key / ctx_missing / ctx_setup (the TCR, VTCR,
 * STE and CD checks, the start levels, concatenated roots, masked bases,
 * bypass and abort streams), then every context walked and listed.
 *
 * Input layout:
 *   the section text (one or more "[arm64 NAME]" / "[smmu NAME]" sections
 *   and their "key = value" lines), up to the first NUL byte (or the end);
 *   then, optional: u64 little-endian BASE and records of 10 bytes, u16
 *   INDEX and u64 VALUE: the sysmem image at BASE has VALUE at byte
 *   8 * INDEX and zeros elsewhere (up to 512 KiB: the last record's page).
 *   Sparse, so that an input is the few descriptors a walk reads and the
 *   fuzzer's own cost per input stays small.
 * The capture is an uncompressed tar loaded by fz_load_checked() (load.h)
 * holding capture.ini — [capture] with `format = arm-smmuv3` when the
 * text's first section is an [smmu] one, else arm64, a [memory] section
 * for the image — and the image.  The invariants are fuzz_capture's: a
 * failed load names its line and holds no context, messages are printable.
 * Every render is in one form, text for a section text of even length, JSON
 * for odd (until 2026-12-02: both).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exercise.h"
#include "load.h"
#include "pt_capture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_TEXT 8192
#define MAX_IMAGE (8u << 16)

static uint8_t img[MAX_IMAGE];
static size_t img_len;
static uint8_t tarbuf[2 * 512 + MAX_TEXT + 1024 + MAX_IMAGE + 2 * 512 + 1024];

/* One ustar member NAME of N bytes at P; returns the bytes written (header, data, padding). */
static size_t tar_member(uint8_t *p, const char *name, const void *data, size_t n)
{
	unsigned sum = 0;

	memset(p, 0, 512);
	snprintf((char *)p, 100, "%s", name);
	snprintf((char *)p + 100, 8, "%07o", 0644);
	snprintf((char *)p + 108, 8, "%07o", 0);
	snprintf((char *)p + 116, 8, "%07o", 0);
	snprintf((char *)p + 124, 12, "%011lo", (unsigned long)n);
	snprintf((char *)p + 136, 12, "%011o", 0);
	p[156] = '0';
	memcpy(p + 257, "ustar", 6);
	memcpy(p + 263, "00", 2);
	memset(p + 148, ' ', 8);
	for (unsigned i = 0; i < 512; i++)
		sum += p[i];
	snprintf((char *)p + 148, 8, "%06o", sum);
	memcpy(p + 512, data, n);
	memset(p + 512 + n, 0, (512 - n % 512) % 512);
	return 512 + (n + 511) / 512 * 512;
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char ini[MAX_TEXT + 512];
	const uint8_t *nul = memchr(data, 0, size);
	size_t tlen = nul ? (size_t)(nul - data) : size, ilen = 0, n, off = 0;
	const uint8_t *image = NULL;
	uint64_t base = 0;
	const char *first;
	struct pt_capture *cap;

	if (tlen > MAX_TEXT)
		return 0;
	if (nul && size - tlen - 1 >= 8) {
		const uint8_t *r = nul + 9, *end = data + size;

		base = le64(nul + 1) & ~0xfffull;
		memset(img, 0, img_len);
		for (; end - r >= 10; r += 10) {
			size_t at = 8u * (size_t)(r[0] | r[1] << 8);

			memcpy(img + at, r + 2, 8);
			if (at + 8 > ilen)
				ilen = (at + 8 + 0xfff) & ~(size_t)0xfff;
		}
		img_len = ilen;
		image = ilen ? img : NULL;
	}
	first = memchr(data, '[', tlen);
	n = (size_t)snprintf(ini, sizeof ini, "[capture]\nversion = 1\nformat = %s\n",
			     first && (size_t)((const uint8_t *)first - data) + 5 <= tlen &&
			     !memcmp(first, "[smmu", 5) ? "arm-smmuv3" : "arm64");
	if (ilen)
		n += (size_t)snprintf(ini + n, sizeof ini - n, "[memory m]\nspace = sysmem\nbase = 0x%llx\n"
				      "file = mem/m.bin\n", (unsigned long long)base);
	memcpy(ini + n, data, tlen);
	n += tlen;
	off += tar_member(tarbuf + off, "capture.ini", ini, n);
	if (ilen)
		off += tar_member(tarbuf + off, "mem/m.bin", image, ilen);
	memset(tarbuf + off, 0, 1024);
	off += 1024;
	cap = fz_load_checked(tarbuf, off);
	if (cap) {
		/* one form per input: text for a section text of even length, JSON for odd */
		int out = tlen & 1 ? PT_OUT_JSON : PT_OUT_TEXT;

		for (size_t i = 0; i < pt_capture_context_count(cap) && i < 4; i++) {
			const struct pt_context *c = pt_capture_context(cap, i);
			/* the fixtures' VAs: the arm64-4k kernel, arm64-s2 and smmu-v3 streams */
			uint64_t vas[] = {c->va_base, c->va_base + 0x201000, 0xffff800012345678ull,
					  0x8040201000ull, 0x0000008080604678ull, 0x123456789ull};

			fz_context_out(c, vas, sizeof vas / sizeof *vas, &FZ_BOUNDS, out);
		}
		pt_capture_free(cap);
	}
	return 0;
}
