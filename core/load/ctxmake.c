/* SPDX-License-Identifier: MIT */
/*
 * ctxmake.c — the one context factory (pt_capture.h pt_context_make(),
 * issue #41): a format's context from key = value pairs, through its own
 * hooks in their order — ctx_key for each key, ctx_missing, ctx_setup,
 * the spaces bound, ctx_memory — as a capture.ini section is set up
 * (docs/design.md §2.4).  A capture.ini section goes through the same
 * steps one phase at a time, as the load reaches them (capture_int.h):
 * its keys when the manifest is checked (manifest.c), ctx_setup when the
 * contexts are filled (contexts.c), its spaces once they are known
 * (spaces.c), ctx_memory once memory is sealed (contexts.c).  The IOMMU's
 * device contexts (iommu.c), the contexts a step after the load adds
 * (extend.c) and the candidates of `ptfs-tool roots --iommu`
 * (walk/roots_iotab.c) are made here, so that a device walks exactly as
 * its per-device section does.  An IOMMU's device comes as its decoded
 * entry (pt_context_spec.entry, the format's ctx_entry hook) in place of
 * the keys: nothing printed to be parsed again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_int.h"

pt_err pt_context_keys(const struct pt_format *f, void **priv, const struct pt_ctx_key *k,
			unsigned n, unsigned *failed)
{
	pt_err rc = PT_OK;

	if (!*priv && !(*priv = calloc(1, f->ctx_size ? f->ctx_size : 1)))
		return PT_E_NOMEM;
	for (unsigned i = 0; i < n && !rc; i++)
		if ((rc = f->ctx_key(*priv, &k[i])) && failed)
			*failed = i;
	return rc;
}

pt_err pt_context_setup(struct pt_context *c, char *msg, size_t mlen)
{
	return c->fmt->ctx_setup(c, msg, mlen);
}

pt_err pt_context_bind(const struct pt_capture *cap, struct pt_context *c, bool any_space,
		       const char **missing)
{
	const struct pt_format *f = c->fmt;

	*missing = NULL;
	for (unsigned i = 0; i < PT_CONTEXT_SPACES && f->spaces[i]; i++) {
		const char *n = c->space_names[i] ? c->space_names[i] : f->spaces[i];
		int id = pt_capture_space_find(cap, n);

		/* a space the capture does not have (hpa in a dump of sysmem) holds nothing it reads */
		c->space_id[i] = id < 0 ? UINT32_MAX : (unsigned)id;
		/* else every name was collected from capture.ini before the sections were checked */
		if (id < 0 && !any_space) {
			*missing = n;
			return PT_E_VALUE;
		}
	}
	c->space_mapped = true;
	return PT_OK;
}

pt_err pt_context_memory(struct pt_context *c, char *msg, size_t mlen)
{
	struct pt_ctx_reader rd;

	if (!c->fmt->ctx_memory)
		return PT_OK;
	rd = pt_context_reader(c);   /* captured memory comes down through the hook (the format calls nothing above it) */
	return c->fmt->ctx_memory(c, &rd, msg, mlen);
}

/*
 * C's data from S: an IOMMU device's decoded entry (ctx_entry), or the
 * keys (ctx_key each, then ctx_missing), as a section's.
 */
static pt_err make_data(const struct pt_context_spec *s, struct pt_context *c, char *msg,
			size_t mlen)
{
	const struct pt_format *f = s->fmt;
	struct pt_ctx_key k[16];
	const char *miss;
	pt_err rc = PT_OK;

	if (s->entry) {
		/* no key text: the entry as the walk decoded it (pt_iommu_format.h struct pt_ctx_entry) */
		if (!f->ctx_entry)
			return PT_E_UNSUPPORTED;
		if (!(c->priv = calloc(1, f->ctx_size ? f->ctx_size : 1)))
			return PT_E_NOMEM;
		return f->ctx_entry(c->priv, s->entry, msg, mlen);
	}
	for (unsigned i = 0; i < s->nkeys && !rc; i += 16) {
		unsigned n = s->nkeys - i < 16 ? s->nkeys - i : 16;

		for (unsigned j = 0; j < n; j++)
			k[j] = (struct pt_ctx_key){s->key[i + j], s->val[i + j], s->line, s->label, msg,
						   mlen};
		rc = pt_context_keys(f, &c->priv, k, n, NULL);
	}
	if (!s->nkeys && !(c->priv = calloc(1, f->ctx_size ? f->ctx_size : 1)))
		return PT_E_NOMEM;
	if (!rc && (miss = f->ctx_missing(c->priv))) {
		snprintf(msg, mlen, "missing %s", miss);
		rc = PT_E_VALUE;
	}
	return rc;
}

pt_err pt_context_make(const struct pt_capture *cap, const struct pt_context_spec *s,
		       struct pt_context *c, char *msg, size_t mlen)
{
	const struct pt_format *f = s->fmt;
	const char *miss;
	pt_err rc;

	c->cap = cap;
	c->fmt = f;
	c->priv = NULL;
	rc = make_data(s, c, msg, mlen);
	if (rc == PT_E_NOMEM && !c->priv)
		return rc;
	if (!rc)
		rc = pt_context_setup(c, msg, mlen);
	if (!rc && (rc = pt_context_bind(cap, c, s->any_space, &miss)))
		snprintf(msg, mlen, "space '%s' is not a space of the capture", miss);
	c->space_mapped = !rc;
	if (!rc && f->ctx_memory) {
		/* what ctx_setup said is dropped: ctx_memory says what the device's memory holds */
		msg[0] = 0;
		rc = pt_context_memory(c, msg, mlen);
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
