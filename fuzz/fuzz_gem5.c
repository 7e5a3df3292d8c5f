/*
 * fuzz_gem5 — libFuzzer target for the gem5 m5.cpt parser
 * (core/pt_src_gem5.h).
 *
 * The input is the text of an m5.cpt.  The recognisers run on it, then
 * pt_gem5_parse with the first device and with the fixture's device name,
 * and once more with the same text as its config.ini (one input reaches
 * both the m5.cpt and the config.ini paths; seed: m5.cpt + config.ini).
 *
 * Invariants checked (abort -> libFuzzer reports a crash):
 *  - an error message starts "fz.cpt:LINE: " with a line within the text and
 *    holds no control character; a failed parse returns no checkpoint;
 *  - store file names are plain names (no '/', not "." or ".."), host
 *    stores are numbered 0..n-1 in order, at most two of them (the only
 *    layout with a convention), store1 at 4 GiB (by convention);
 *  - the shifted registers convert back into their field widths.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_src_gem5.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_err(const char *err, size_t size)
{
	unsigned line = 0;

	if (strncmp(err, "fz.cpt:", 7) || sscanf(err + 7, "%u:", &line) != 1 || line == 0 || line > size + 1)
		abort();
	for (const char *p = err; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			abort();
}

static void check_file(const char *f)
{
	if (!f || !*f || strchr(f, '/') || !strcmp(f, ".") || !strcmp(f, ".."))
		abort();
}

static void check_cpt(const struct pt_gem5_cpt *c)
{
	if (!c->device)
		abort();
	for (unsigned r = PT_G5_FB_BASE; r < PT_G5_REG__COUNT; r++)
		if (c->reg[r].has && c->reg[r].raw >> (r >= PT_G5_SYS_LOW ? 30 : 24))
			abort();
	if (c->has_vram)
		check_file(c->vram.file);
	if (c->sys_by_convention && c->nsys > 2)
		abort();
	for (size_t i = 0; i < c->nsys; i++) {
		check_file(c->sys[i].file);
		if (c->sys[i].store_id != i)
			abort();
		if (c->sys_by_convention && c->sys[i].base != (i ? 4ull << 30 : 0))
			abort();
		if (!c->sys_by_convention && i && c->sys[i].base < c->sys[i - 1].base + c->sys[i - 1].size)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const devs[] = { NULL, "system.pc.south_bridge.gpu" };

	if (size > (1u << 20))
		return 0;
	(void)pt_gem5_detect_text((const char *)data, size);
	for (size_t d = 0; d < 3; d++) {
		struct pt_gem5_cpt *c = NULL;
		char err[512] = "";
		pt_err rc = pt_gem5_parse((const char *)data, size, "fz.cpt", devs[d & 1], d == 2 ? (const char *)data : NULL,
					  d == 2 ? size : 0, &c, err, sizeof err);

		if (rc != PT_OK) {
			if (c)
				abort();
			if (strncmp(err, "config.ini:", 11))
				check_err(err, size);
			continue;
		}
		check_cpt(c);
		pt_gem5_free(c);
	}
	{
		/* the member-list recogniser on the lines of the input */
		char *text = malloc(size + 1), *save = NULL;
		const char *names[64];
		size_t n = 0;

		if (!text)
			return 0;
		memcpy(text, data, size);
		text[size] = 0;
		for (char *l = strtok_r(text, "\n", &save); l && n < 64; l = strtok_r(NULL, "\n", &save))
			names[n++] = l;
		(void)pt_gem5_detect_members(names, n);
		free(text);
	}
	return 0;
}
