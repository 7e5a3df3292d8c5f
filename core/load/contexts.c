/* SPDX-License-Identifier: MIT */
/*
 * contexts.c — the step of the load that makes the manifest's contexts
 * (docs/design.md §3): each set up from its section before the memory is
 * bound (its checks need only capture.ini), its memory hooks run once the
 * memory is sealed, then the [iommu] sections' device contexts.  Called
 * by loader_bind.c, it calls only the steps below it (ctxmake.c, the
 * IOMMU's iommu.c) and the leaves (lookup.c, report.c).
 */
#include <stdlib.h>
#include <string.h>

#include "capture_int.h"

static int cmp_ctx(const void *a, const void *b)
{
	return strcmp((*(const struct pt_context *const *)a)->name,
		      (*(const struct pt_context *const *)b)->name);
}

/*
 * The outcome of a format's set-up hook (ctx_setup, ctx_memory) for
 * context C with its message MSG: an error fails the load; a hook that
 * succeeds may leave a warning (a register masked to its field).
 */
static pt_err ctx_hook_report(struct pt_capture *cap, const struct pt_context *c, pt_err rc,
			      const char *msg)
{
	if (rc) {
		pt_capture_set_error(cap, "capture.ini:%u: [%s %s]: %s", c->ini_line,
				     c->fmt->ctx_section, c->name, msg[0] ? msg : pt_strerror(rc));
		return rc;
	}
	if (msg[0]) {
		if (cap->source_kind)
			pt_capture_warn(cap, "%s: %s", c->name, msg);
		else
			pt_capture_warn(cap, "capture.ini:%u: [%s %s]: %s", c->ini_line,
					c->fmt->ctx_section, c->name, msg);
	}
	return PT_OK;
}

pt_err pt_capture_fill_contexts(struct pt_capture *cap)
{
	const struct pt_manifest *man = cap->man;
	char buf[512];
	pt_err rc;

	cap->ctx = calloc(man->nctx ? man->nctx : 1, sizeof *cap->ctx);
	cap->ctx_sorted = calloc(man->nctx ? man->nctx : 1, sizeof *cap->ctx_sorted);
	if (!cap->ctx || !cap->ctx_sorted) {
		pt_capture_set_error(cap, "%s: out of memory", cap->source);
		return PT_E_NOMEM;
	}
	for (size_t i = 0; i < man->nctx; i++) {
		const struct pt_manifest_ctx *mc = &man->ctx[i];
		struct pt_context *c = &cap->ctx[i];

		buf[0] = 0;
		c->name = mc->name;
		c->index = (unsigned)i;
		c->cap = cap;
		/* A source's contexts may be of several formats (a GART and GPUVM VMIDs). */
		c->fmt = mc->fmt ? mc->fmt : man->fmt;
		c->nannotations = mc->nann;
		c->annotations = mc->ann;
		c->ini_line = mc->line;
		/* The format's data from capture.ini: owned by the manifest, filled in by the set-up. */
		c->priv = mc->priv;
		c->serial = pt_capture_serial_next();
		rc = ctx_hook_report(cap, c, pt_context_setup(c, buf, sizeof buf), buf);
		if (rc)
			return rc;
		cap->ctx_sorted[i] = c;
	}
	cap->nctx = man->nctx;
	return PT_OK;
}

/*
 * Once the memory is sealed: the contexts sorted by name and given the
 * memory, the set-up steps that read it (ctx_memory) in capture.ini
 * order, then the [iommu] sections' device contexts (iommu.c).
 */
pt_err pt_capture_memory_contexts(struct pt_capture *cap, const struct pt_load_opts *opts)
{
	char buf[512];

	if (cap->nctx)
		qsort(cap->ctx_sorted, cap->nctx, sizeof *cap->ctx_sorted, cmp_ctx);
	for (size_t i = 0; i < cap->nctx; i++)
		cap->ctx[i].mem = cap->mem;
	for (size_t i = 0; i < cap->nctx; i++) {
		struct pt_context *c = &cap->ctx[i];
		pt_err rc;

		if (!c->fmt->ctx_memory)
			continue;
		buf[0] = 0;
		rc = ctx_hook_report(cap, c, pt_context_memory(c, buf, sizeof buf), buf);
		if (rc)
			return rc;
	}
	return pt_iommu_expand(cap, opts);
}
