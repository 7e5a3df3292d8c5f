/*
 * fuzz_umr — libFuzzer target for the umr test-log/envdef parser
 * (core/pt_src_umr.h).
 *
 * The input is the text of a log.  pt_umr_detect runs on it, then
 * pt_umr_parse with each generation the caller may give (none, 9, 10).
 *
 * Invariants checked (abort -> libFuzzer reports a crash):
 *  - an error message starts "fz.log:LINE: " with a line within the text and
 *    holds no control character; a failed parse returns no log;
 *  - merged memory regions are sorted, apart (not even adjacent) within a
 *    space, non-empty, below 2^48;
 *  - contexts are in hub/VMID order, each with a register; a 64-bit value
 *    is present only when both halves are;
 *  - the parse is deterministic: a second run gives the same regions.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_src_umr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_err(const char *err, size_t size)
{
	unsigned line = 0;

	if (strncmp(err, "fz.log:", 7) || sscanf(err + 7, "%u:", &line) != 1 || line == 0 || line > size + 1)
		abort();
	for (const char *p = err; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			abort();
}

static void check_log(const struct pt_umr_log *log)
{
	for (size_t i = 0; i < log->nmem; i++) {
		const struct pt_umr_mem *m = &log->mem[i];

		if (!m->len || !m->data || m->addr >= (1ull << 48) || m->len > (1ull << 48) - m->addr)
			abort();
		if (i && m->space == m[-1].space && m->addr <= m[-1].addr + m[-1].len)
			abort();
		if (i && m->space < m[-1].space)
			abort();
	}
	for (size_t i = 0; i < log->nctx; i++) {
		const struct pt_umr_ctx *c = &log->ctx[i];
		bool any = false;

		for (unsigned r = 0; r < PT_UMR_CREG__COUNT; r++)
			any |= c->reg[r].has;
		if (!any || c->vmid > PT_UMR_MAX_VMID || c->hub >= PT_UMR_HUB__COUNT)
			abort();
		if (i && (c->hub < c[-1].hub || (c->hub == c[-1].hub && c->vmid <= c[-1].vmid)))
			abort();
		if (c->base.has != (c->reg[PT_UMR_BASE_LO].has && c->reg[PT_UMR_BASE_HI].has))
			abort();
		if (pt_umr_ctx_find(log, c->hub, c->vmid) != c)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned gens[] = { 0, 9, 10 };

	if (size > (1u << 20))
		return 0;
	(void)pt_umr_detect((const char *)data, size);
	for (size_t g = 0; g < sizeof gens / sizeof gens[0]; g++) {
		struct pt_umr_log *log = NULL, *again = NULL;
		char err[512] = "", err2[512] = "";
		pt_err rc = pt_umr_parse((const char *)data, size, "fz.log", gens[g], &log, err, sizeof err);

		if (rc != PT_OK) {
			if (log)
				abort();
			check_err(err, size);
			if (pt_umr_parse((const char *)data, size, "fz.log", gens[g], &again, err2, sizeof err2) != rc ||
			    strcmp(err, err2))
				abort();
			continue;
		}
		check_log(log);
		if (pt_umr_parse((const char *)data, size, "fz.log", gens[g], &again, err2, sizeof err2) != PT_OK ||
		    again->nmem != log->nmem || again->nctx != log->nctx)
			abort();
		for (size_t i = 0; i < log->nmem; i++)
			if (again->mem[i].len != log->mem[i].len ||
			    memcmp(again->mem[i].data, log->mem[i].data, log->mem[i].len))
				abort();
		pt_umr_free(again);
		pt_umr_free(log);
	}
	return 0;
}
