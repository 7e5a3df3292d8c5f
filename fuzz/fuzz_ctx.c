/*
 * fuzz_ctx — libFuzzer target for every format's context hooks, decoders
 * and walks, the newer formats (nv-gmmu-ver3: GH100 and GB100;
 * amd-gpuvm: gfx 9-12, depths 0-3, block sizes, fragment sizes,
 * translate_further) above all, since only they choose their geometry
 * from capture.ini keys.
 *
 * Input layout (little-endian; shorter inputs are zero-padded):
 *   0      u8   format: pt_format_at(byte % number of formats)
 *   1      u8   bit 0: every render of this input as JSON (1) or as text (0)
 *   8..39  u64  four VAs to walk
 *   40     u16  L: length of the key text
 *   48..   L bytes of "key = value" lines: the context section's keys,
 *          handed to the format's own ctx_key hook, then ctx_missing and
 *          ctx_setup, exactly as load/contexts.c builds a context
 *   then   up to FZ_NREG memory regions, each: u8 space, u64 base,
 *          u32 length, the bytes (all regions together at most 1 MiB)
 *
 * Every level of the context's own descriptor (the one ctx_setup chose)
 * decodes the first 16 bytes of the first FZ_DECODE_REGIONS regions (one
 * since 2026-12-02, two before: a third of an input's CPU for no coverage,
 * fuzz/README.md) at several page shifts, and renders two of them; then exercise.h walks,
 * streams pages, scans and renders the context within FZ_BOUNDS.  Every
 * render is in the form byte 1 chooses (until 2026-12-02 both forms, every
 * input: twice the work for no code the fuzzer cannot reach by that bit).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exercise.h"
#include "pt_capture.h"
#include "pt_format.h"
#include "pt_mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HDR 48
#define FZ_NREG 16
#define FZ_MAX_IMAGE (1u << 20)
/* regions whose first bytes are decoded at every level (the walks read them all anyway) */
#define FZ_DECODE_REGIONS 1

static uint64_t le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (int i = (int)n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* An error message must be one printable line starting "capture.ini:". */
static void check_msg(const char *m)
{
	if (m[0] && strncmp(m, "capture.ini:", 12) != 0)
		abort();
	for (const unsigned char *p = (const unsigned char *)m; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			abort();
}

static void decode_levels(const struct pt_format *fmt, const uint8_t raw[16], int out)
{
	static const unsigned shifts[] = {12, 13, 16, 21, 24, 29, 30, 38, 39, 47};
	unsigned n = pt_format_nlevels(fmt);
	struct pt_buf b;

	pt_buf_init(&b);
	for (unsigned l = 0; l <= n; l++) {    /* one past the end: must fail, not crash */
		bool rendered = false;

		for (unsigned s = 0; s < sizeof shifts / sizeof shifts[0] + 1; s++) {
			unsigned shift = s < sizeof shifts / sizeof shifts[0] ? shifts[s] :
					 l < n && fmt->levels[l].leaf_shift ? fmt->levels[l].leaf_shift : 12;
			struct pt_entry e;

			if (fmt->decode(l, shift, raw, 0, &e) != PT_OK)
				continue;
			if (l == n || e.nfields > PT_MAX_FIELDS)
				abort();
			/*
			 * Every shift decodes; the renderers (most of an input's
			 * time) see the first decode and the leaf shift's: the
			 * fields they format are the same at every shift.
			 */
			if (!rendered || s == sizeof shifts / sizeof shifts[0]) {
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
	pt_buf_free(&b);
}

/* Hands each "key = value" line of TEXT to the format's ctx_key hook. */
static pt_err apply_keys(const struct pt_format *fmt, void *priv, char *text)
{
	char err[512];
	unsigned line = 0;

	for (char *s = text, *nl; s && *s; s = nl) {
		char *eq, *k, *v, *end;
		pt_err rc;

		nl = strchr(s, '\n');
		if (nl)
			*nl++ = 0;
		line++;
		eq = strchr(s, '=');
		if (!eq)
			continue;
		*eq = 0;
		k = s;
		v = eq + 1;
		while (*k == ' ')
			k++;
		for (end = eq; end > k && end[-1] == ' '; end--)
			end[-1] = 0;
		while (*v == ' ')
			v++;
		for (end = v + strlen(v); end > v && (end[-1] == ' ' || end[-1] == '\r'); end--)
			end[-1] = 0;
		if (!*k)
			continue;
		err[0] = 0;
		{
			struct pt_ctx_key key = {k, v, line, "[fz fz]", err, sizeof err};

			rc = fmt->ctx_key(priv, &key);
		}
		if (rc == PT_E_NOTFOUND)
			continue;
		if (rc) {
			check_msg(err);
			return rc;
		}
	}
	return PT_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t hdr[HDR] = {0};
	const struct pt_format *fmt;
	unsigned nfmt = 0;
	struct pt_context ctx;
	struct pt_mem *mem = NULL;
	uint64_t vas[4], total = 0;
	size_t L, pos;
	char *text;
	void *priv;
	char err[512];
	unsigned nspaces = 0;
	int out;

	while (pt_format_at(nfmt))
		nfmt++;
	memcpy(hdr, data, size < HDR ? size : HDR);
	fmt = pt_format_at(hdr[0] % nfmt);
	out = hdr[1] & 1 ? PT_OUT_JSON : PT_OUT_TEXT;
	for (int i = 0; i < 4; i++)
		vas[i] = le(hdr + 8 + 8 * i, 8);
	L = le(hdr + 40, 2);
	pos = HDR;
	if (pos > size || L > size - pos)
		return 0;
	text = malloc(L + 1);
	priv = calloc(1, fmt->ctx_size ? fmt->ctx_size : 1);
	if (!text || !priv)
		abort();
	memcpy(text, data + pos, L);
	text[L] = 0;
	pos += L;

	memset(&ctx, 0, sizeof ctx);
	ctx.name = "fz";
	ctx.fmt = fmt;
	ctx.priv = priv;
	if (apply_keys(fmt, priv, text) != PT_OK || fmt->ctx_missing(priv))
		goto out;
	err[0] = 0;
	if (fmt->ctx_setup(&ctx, err, sizeof err) != PT_OK) {
		for (const unsigned char *p = (const unsigned char *)err; *p; p++)
			if (*p < 0x20 || *p == 0x7f)
				abort();
		goto out;
	}
	/* ctx_setup may have chosen a descriptor of the context's own */
	while (ctx.fmt->spaces[nspaces])
		nspaces++;
	mem = pt_mem_new(nspaces);
	if (!mem)
		abort();
	for (unsigned r = 0; r < FZ_NREG && size - pos >= 13; r++) {
		unsigned space = data[pos] % nspaces, id;
		uint64_t base = le(data + pos + 1, 8), len = le(data + pos + 9, 4);
		uint8_t raw[16] = {0};

		pos += 13;
		if (len > size - pos)
			len = size - pos;
		if (len > FZ_MAX_IMAGE - total)
			break;
		total += len;
		memcpy(raw, data + pos, len < 16 ? len : 16);
		if (r < FZ_DECODE_REGIONS)
			decode_levels(ctx.fmt, raw, out);
		/* overlapping or wrapping regions are refused, as at load: skip them */
		if (len && len - 1 <= UINT64_MAX - base &&
		    pt_mem_add_built(mem, space, base, len, &id) == PT_OK &&
		    pt_mem_region_write(mem, id, 0, data + pos, len) != PT_OK)
			abort();
		pos += len;
	}
	if (pt_mem_seal(mem, NULL, NULL) != PT_OK)
		goto out;    /* overlapping regions: the loader refuses these too */
	ctx.mem = mem;
	fz_context_out(&ctx, vas, 4, &FZ_BOUNDS, out);
out:
	pt_mem_free(mem);
	if (fmt->ctx_free)
		fmt->ctx_free(priv);
	free(priv);
	free(text);
	return 0;
}
