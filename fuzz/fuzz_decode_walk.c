/*
 * fuzz_decode_walk — libFuzzer target for the entry decoders and the walker.
 *
 * Input layout (little-endian; shorter inputs are zero-padded):
 *   0      u8   bit 0: format (0 nv-gmmu-ver2, 1 amd-gart); bit 1: image in space 1
 *   1      u8   bit 0: every render of this input as JSON (1) or as text (0)
 *   8      u64  base of the memory image (physical address)
 *   16     u64  ver2: root table address (4 KiB aligned by us, like capture.ini)
 *               gart: VM_CONTEXT0_PAGE_TABLE_BASE_ADDR
 *   24     u64  gart: PAGE_TABLE_START_ADDR
 *   32     u64  gart: PAGE_TABLE_END_ADDR
 *   40     u64  gart: MC_VM_FB_OFFSET (given when non-zero)
 *   48..79 u64  four VAs to walk
 *   80..   the memory image (at most 1 MiB), captured at `base`
 *
 * First every level of the chosen format decodes the first 16 bytes of the
 * image at five page shifts and renders two of the decodes in the chosen
 * form (pt_format.decode, pt_render_decoded); then the image becomes
 * a one-region pt_mem, a context is built through the format's own hooks
 * (ctx_key with the header's values, ctx_missing, ctx_setup) as
 * load/contexts.c builds one, and exercise.h walks, streams pages, scans
 * and renders it in the chosen form.  One format and one form per input (until 2026-12-02:
 * both formats' decoders and both forms every time) halves the work an
 * input costs; the fuzzer flips the two bits like any other.
 * fuzz_ctx.c does the same for every format with fuzzer-chosen keys.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "exercise.h"
#include "fmt_gart.h"
#include "fmt_ver2.h"
#include "pt_capture.h"
#include "pt_format.h"
#include "pt_mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HDR 80

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void decode_all(const struct pt_format *fmt, const uint8_t raw[16], int out)
{
	struct pt_buf b;
	unsigned n = pt_format_nlevels(fmt);

	pt_buf_init(&b);
	for (unsigned l = 0; l <= n; l++) {    /* one past the end: must fail, not crash */
		bool rendered = false;

		for (unsigned shift = 12; shift <= 44; shift += 8) {
			struct pt_entry e;

			if (fmt->decode(l, shift, raw, 0, &e) != PT_OK)
				continue;
			if (l == n)
				abort();
			if (e.nfields > PT_MAX_FIELDS)
				abort();
			/* every shift decodes; the first and the last that decode are rendered */
			if (!rendered || shift + 8 > 44) {
				pt_buf_reset(&b);
				if (out == PT_OUT_TEXT)
					(void)pt_render_decoded(&b, fmt, (int)l, NULL, 0x1000, &e, PT_OUT_TEXT);
				else
					(void)pt_render_decoded(&b, fmt, (int)l, NULL, UINT64_MAX, &e, PT_OUT_JSON);
				rendered = true;
			}
			if (e.state == PT_ST_MAPPED) {
				char buf[64];

				fmt->flags(&e, buf, sizeof buf);
				fmt->kind_name(&e, buf, sizeof buf);
			}
		}
	}
	{
		static const char *const cand[] = {"pde3", "pde2", NULL};
		struct pt_entry e;

		if (out == PT_OUT_JSON && fmt->decode(0, 12, raw, 0, &e) == PT_OK) {
			pt_buf_reset(&b);
			(void)pt_render_decoded(&b, fmt, -1, cand, UINT64_MAX, &e, PT_OUT_JSON);
		}
	}
	pt_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t hdr[HDR] = {0}, raw[16] = {0};
	const uint8_t *img = data + (size > HDR ? HDR : size);
	size_t len = size > HDR ? size - HDR : 0;
	const struct pt_format *fmt;
	struct pt_mem *mem;
	struct pt_context ctx;
	uint64_t base, vas[4];
	unsigned id, space, nkv;
	int out;
	char kv[4][2][64], err[512];
	void *priv;

	if (len > (1u << 20))
		return 0;
	memcpy(hdr, data, size < HDR ? size : HDR);
	memcpy(raw, img, len < 16 ? len : 16);
	fmt = hdr[0] & 1 ? &pt_format_gart : &pt_format_ver2;
	out = hdr[1] & 1 ? PT_OUT_JSON : PT_OUT_TEXT;
	decode_all(fmt, raw, out);

	space = hdr[0] >> 1 & 1;
	base = le64(hdr + 8);
	for (int i = 0; i < 4; i++)
		vas[i] = le64(hdr + 48 + 8 * i);

	memset(&ctx, 0, sizeof ctx);
	ctx.name = "fuzz";
	ctx.fmt = fmt;
	ctx.priv = priv = calloc(1, fmt->ctx_size ? fmt->ctx_size : 1);
	if (!priv)
		abort();
	if (fmt == &pt_format_gart) {
		snprintf(kv[0][0], sizeof kv[0][0], "VM_CONTEXT0_PAGE_TABLE_BASE_ADDR");
		snprintf(kv[1][0], sizeof kv[1][0], "VM_CONTEXT0_PAGE_TABLE_START_ADDR");
		snprintf(kv[2][0], sizeof kv[2][0], "VM_CONTEXT0_PAGE_TABLE_END_ADDR");
		snprintf(kv[3][0], sizeof kv[3][0], "MC_VM_FB_OFFSET");
		for (int i = 0; i < 4; i++)
			snprintf(kv[i][1], sizeof kv[i][1], "0x%llx", (unsigned long long)le64(hdr + 16 + 8 * i));
		nkv = le64(hdr + 40) ? 4 : 3;    /* FB_OFFSET given when non-zero */
	} else {
		snprintf(kv[0][0], sizeof kv[0][0], "space");
		snprintf(kv[0][1], sizeof kv[0][1], "%s", space ? "sysmem" : "vidmem");
		snprintf(kv[1][0], sizeof kv[1][0], "address");
		snprintf(kv[1][1], sizeof kv[1][1], "0x%llx", (unsigned long long)(le64(hdr + 16) & ~0xfffull));
		snprintf(kv[2][0], sizeof kv[2][0], "big_page_size");
		snprintf(kv[2][1], sizeof kv[2][1], "64K");
		nkv = 3;
	}
	for (unsigned i = 0; i < nkv; i++) {
		struct pt_ctx_key k = {kv[i][0], kv[i][1], i + 1, "[fuzz]", err, sizeof err};

		if (fmt->ctx_key(priv, &k) != PT_OK)
			goto out;
	}
	if (fmt->ctx_missing(priv) || fmt->ctx_setup(&ctx, err, sizeof err) != PT_OK)
		goto out;

	mem = pt_mem_new(fmt == &pt_format_gart ? 2 : 10);
	if (!mem)
		abort();
	if (len && len - 1 <= UINT64_MAX - base) {
		if (pt_mem_add_built(mem, space, base, len, &id) != PT_OK ||
		    pt_mem_region_write(mem, id, 0, img, len) != PT_OK)
			abort();
	}
	if (pt_mem_seal(mem, NULL, NULL) != PT_OK)
		abort();
	ctx.mem = mem;
	fz_context_out(&ctx, vas, 4, &FZ_BOUNDS, out);
	pt_mem_free(mem);
out:
	if (fmt->ctx_free)
		fmt->ctx_free(priv);
	free(priv);
	return 0;
}
