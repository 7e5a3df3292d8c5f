/* SPDX-License-Identifier: MIT */
/*
 * ctxmake.c — the one context factory (pt_capture.h pt_context_make(),
 * issue #41): a format's context from key = value pairs, through its own
 * hooks in their order — ctx_key for each key, ctx_missing, ctx_setup,
 * the spaces bound, ctx_memory — as a capture.ini section is set up
 * (docs/design.md §2.4).  The IOMMU's device contexts (iommu.c), the
 * contexts a step after the load adds (extend.c) and the candidates of
 * `ptfs-tool roots --iommu` (walk/roots_iotab.c) are made here, so that a
 * device walks exactly as its per-device section does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_int.h"

pt_err pt_context_make(const struct pt_capture *cap, const struct pt_context_spec *s,
		       struct pt_context *c, char *msg, size_t mlen)
{
	const struct pt_format *f = s->fmt;
	const char *miss;
	pt_err rc = PT_OK;

	c->cap = cap;
	c->fmt = f;
	if (!(c->priv = calloc(1, f->ctx_size ? f->ctx_size : 1)))
		return PT_E_NOMEM;
	for (unsigned i = 0; i < s->nkeys && !rc; i++) {
		struct pt_ctx_key k = {s->key[i], s->val[i], s->line, s->label, msg, mlen};

		rc = f->ctx_key(c->priv, &k);
	}
	if (!rc && (miss = f->ctx_missing(c->priv))) {
		snprintf(msg, mlen, "missing %s", miss);
		rc = PT_E_VALUE;
	}
	if (!rc)
		rc = f->ctx_setup(c, msg, mlen);
	for (unsigned i = 0; !rc && i < PT_CONTEXT_SPACES && f->spaces[i]; i++) {
		const char *n = c->space_names[i] ? c->space_names[i] : f->spaces[i];
		int id = pt_capture_space_find(cap, n);

		/* a space the capture does not have (hpa in a dump of sysmem) holds nothing it reads */
		c->space_id[i] = id < 0 ? UINT32_MAX : (unsigned)id;
		/* else every name was collected from capture.ini before the sections were checked */
		if (id < 0 && !s->any_space) {
			snprintf(msg, mlen, "space '%s' is not a space of the capture", n);
			rc = PT_E_VALUE;
		}
	}
	c->space_mapped = !rc;
	if (!rc && f->ctx_memory) {
		struct pt_ctx_reader rd = pt_context_reader(c);

		/* what ctx_setup said is dropped: ctx_memory says what the device's memory holds */
		msg[0] = 0;
		rc = f->ctx_memory(c, &rd, msg, mlen);
	}
	return rc;
}

void pt_context_unmake(struct pt_context *c)
{
	if (c->priv && c->fmt && c->fmt->ctx_free)
		c->fmt->ctx_free(c->priv);
	free(c->priv);
	c->priv = NULL;
}
