/* SPDX-License-Identifier: MIT */
/*
 * section.c — a context's capture.ini section given back as text
 * (pt_context_section(), pt_capture.h): what ptfs-tool snapshot writes into
 * the capture it makes of a live guest, so that the copy's context is set
 * up by the same keys as the one it was copied from.
 */
#include <string.h>

#include "capture_int.h"
#include "pt_buf.h"

bool pt_context_section(const struct pt_context *ctx, struct pt_buf *out)
{
	const struct pt_ini *ini;

	/* a device context an [iommu] section found has no section of its own */
	if (!ctx || !ctx->cap || !ctx->cap->man || ctx->iommu)
		return false;
	ini = ctx->cap->man->ini;
	for (size_t i = 0; ini && i < ini->nsec; i++) {
		const struct pt_ini_section *s = &ini->sec[i];

		if (s->line != ctx->ini_line || !s->name || strcmp(s->name, ctx->name))
			continue;
		pt_buf_printf(out, "[%s %s]\n", s->type, s->name);
		for (size_t k = 0; k < s->nkv; k++)
			pt_buf_printf(out, "%s = %s\n", s->kv[k].key, s->kv[k].value);
		return !out->oom;
	}
	return false;
}
