/* SPDX-License-Identifier: MIT */
/*
 * fmt_ctx.c — helpers of the formats whose context chooses their geometry
 * (fmt_ctx.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fmt_ctx.h"

pt_err pt_fmt_space_key(const struct pt_ctx_key *k, const char *format, const char *const *spaces,
			unsigned *out)
{
	char list[128];
	size_t off = 0;

	for (unsigned i = 0; spaces[i]; i++)
		if (strcmp(k->value, spaces[i]) == 0) {
			*out = i;
			return PT_OK;
		}
	list[0] = 0;
	for (unsigned i = 0; spaces[i] && off < sizeof list; i++)
		off += (size_t)snprintf(list + off, sizeof list - off, "%s%s", i ? ", " : "", spaces[i]);
	return pt_ctx_key_fail(k, PT_E_VALUE, "%s '%s' in %s is not a space of %s (%s)", k->key,
			       k->value, k->label, format, list);
}

pt_err pt_fmt_setup_fail(char *err, size_t errlen, pt_err rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

void pt_fmt_ctx_root(struct pt_context *ctx, unsigned space, uint64_t addr, uint64_t entries)
{
	ctx->root_space = space;
	ctx->root_addr = addr;
	ctx->root_entries = entries;
	ctx->root_page_shift = 0;
	ctx->va_base = 0;
	ctx->va_last = 0;
	ctx->perm_set = 0;
	for (unsigned i = 0; i < PT_CONTEXT_SPACES; i++)
		ctx->space_bias[i] = 0;
}

void pt_fmt_levels_tail(struct pt_level *lv, const struct pt_level *all, unsigned ntotal,
			unsigned n)
{
	unsigned first = ntotal - n;

	for (unsigned i = 0; i < n; i++) {
		lv[i] = all[first + i];
		lv[i].depth = (uint8_t)i;
		lv[i].child[0] = (int8_t)(i + 1 < n ? (int)i + 1 : -1);
	}
	lv[n] = (struct pt_level){0};
}
