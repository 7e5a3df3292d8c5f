/* SPDX-License-Identifier: MIT */
/*
 * section.c — a context's or an [iommu]'s capture.ini section given back
 * as text (pt_context_section(), pt_capture_iommu_section(), pt_capture.h):
 * what ptfs-tool snapshot writes into
 * the capture it makes of a live guest, so that the copy's context is set
 * up by the same keys as the one it was copied from.
 */
#include <string.h>

#include "capture_int.h"
#include "pt_buf.h"

/* The section NAME (of TYPE; NULL: any) whose header is at LINE, as text. */
static bool section_at(const struct pt_ini *ini, const char *type, unsigned line, const char *name,
		       struct pt_buf *out)
{
	for (size_t i = 0; ini && i < ini->nsec; i++) {
		const struct pt_ini_section *s = &ini->sec[i];

		if (s->line != line || !s->name || strcmp(s->name, name) || (type && strcmp(s->type, type)))
			continue;
		pt_buf_printf(out, "[%s %s]\n", s->type, s->name);
		for (size_t k = 0; k < s->nkv; k++)
			pt_buf_printf(out, "%s = %s\n", s->kv[k].key, s->kv[k].value);
		return !out->oom;
	}
	return false;
}

bool pt_capture_iommu_section(const struct pt_capture *cap, size_t i, struct pt_buf *out)
{
	if (!cap->man || i >= cap->man->niommu)
		return false;
	return section_at(cap->man->ini, "iommu", cap->man->iommu[i].line, cap->man->iommu[i].name, out);
}

bool pt_context_section(const struct pt_context *ctx, struct pt_buf *out)
{
	/* a device context an [iommu] section found has no section of its own */
	if (!ctx || !ctx->cap || !ctx->cap->man || ctx->iommu)
		return false;
	return section_at(ctx->cap->man->ini, NULL, ctx->ini_line, ctx->name, out);
}
