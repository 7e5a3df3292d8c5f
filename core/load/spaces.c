/* SPDX-License-Identifier: MIT */
/*
 * spaces.c — the capture's space namespace and its translated spaces
 * (docs/design.md §2.8, §3): every context's format spaces are given
 * capture-wide ids by name, so that contexts of any formats share one
 * memory; a `[space NAME] translate = CTX` section makes NAME's addresses
 * input addresses of CTX, checked here for a known context, no captured
 * memory in it, no cycle and at most three stages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_int.h"

/* Whether CTX's tables or pages may be in capture space ID. */
static bool ctx_uses(const struct pt_context *ctx, unsigned id)
{
	for (unsigned i = 0; i < PT_CONTEXT_SPACES && ctx->fmt->spaces[i]; i++)
		if (ctx->space_id[i] == id && (!ctx->space_used || (ctx->space_used >> i & 1)))
			return true;
	return false;
}

/*
 * "[space a] -> [vtd dmar0] -> [space b] -> ...": the chain CHAIN[0..N), each
 * space with its context but the last when CYCLE (it is the first again).
 */
static void chain_text(const struct pt_capture *cap, const unsigned *chain, unsigned n, bool cycle,
		       char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (unsigned k = 0; k < n && off < len; k++) {
		const struct pt_context *t = cap->xlate[chain[k]];

		off += (size_t)snprintf(buf + off, len - off, "%s[space %s]", k ? " -> " : "",
					cap->man->spaces[chain[k]].name);
		if (off < len && !(cycle && k == n - 1))
			off += (size_t)snprintf(buf + off, len - off, " -> [%s %s]", t->fmt->ctx_section,
						t->name);
	}
}

/*
 * Follows the translations from space CHAIN[N-1]: a context reading it is
 * one stage more; false (the error set) on a cycle or a fourth stage.
 */
static bool check_chain(struct pt_capture *cap, unsigned *chain, unsigned n)
{
	const struct pt_manifest *man = cap->man;
	const struct pt_context *t = cap->xlate[chain[n - 1]];
	const struct pt_manifest_space *first = &man->spaces[chain[0]];
	char text[512];

	for (unsigned id = 0; id < man->nspaces; id++) {
		if (!cap->xlate[id] || !ctx_uses(t, id))
			continue;
		for (unsigned k = 0; k < n; k++)
			if (chain[k] == id) {
				chain[n] = id;
				chain_text(cap, chain, n + 1, true, text, sizeof text);
				pt_capture_set_error(cap, "capture.ini:%u: [space %s] translate = %s: a cycle"
						     " of translated spaces (%s)", first->translate_line,
						     first->name, first->translate, text);
				return false;
			}
		/* N translations already: a context reading space ID would be stage N + 2 */
		if (n == 2) {
			chain[n] = id;
			chain_text(cap, chain, n + 1, false, text, sizeof text);
			pt_capture_set_error(cap, "capture.ini:%u: [space %s] translate = %s: more than"
					     " three stages (%s)", first->translate_line, first->name,
					     first->translate, text);
			return false;
		}
		chain[n] = id;
		if (!check_chain(cap, chain, n + 1))
			return false;
	}
	return true;
}

/* The translate = CTX of every [space] section: a known context, no memory in the space. */
static pt_err bind_translations(struct pt_capture *cap)
{
	const struct pt_manifest *man = cap->man;
	bool any = false;

	for (unsigned id = 0; id < man->nspaces; id++) {
		const struct pt_manifest_space *sp = &man->spaces[id];

		if (!sp->translate)
			continue;
		/* the contexts are not sorted by name yet (pt_loader_bind()) */
		for (size_t c = 0; c < cap->nctx && !cap->xlate[id]; c++)
			if (!strcmp(cap->ctx[c].name, sp->translate))
				cap->xlate[id] = &cap->ctx[c];
		if (!cap->xlate[id]) {
			pt_capture_set_error(cap, "capture.ini:%u: [space %s] translate = %s: no context"
					     " section is named '%s'", sp->translate_line, sp->name,
					     sp->translate, sp->translate);
			return PT_E_VALUE;
		}
		any = true;
	}
	for (size_t i = 0; any && i < man->nmem; i++)
		if (cap->xlate[man->mem[i].space]) {
			const struct pt_manifest_space *sp = &man->spaces[man->mem[i].space];

			pt_capture_set_error(cap, "capture.ini:%u: [memory %s] is in space %s, which"
					     " [space %s] (line %u) translates through %s: a translated"
					     " space holds no captured memory", man->mem[i].line,
					     man->mem[i].name, sp->name, sp->name, sp->line, sp->translate);
			return PT_E_VALUE;
		}
	return any ? PT_OK : PT_E_NOTFOUND;
}

pt_err pt_capture_bind_ctx_spaces(struct pt_capture *cap, struct pt_context *ctx)
{
	const char *name;

	/* the factory's phase (ctxmake.c): every name was collected from capture.ini before */
	if (pt_context_bind(cap, ctx, false, &name)) {
		pt_capture_set_error(cap, "capture.ini:%u: [%s %s]: space '%s' is not a space"
				     " of the capture", ctx->ini_line, ctx->fmt->ctx_section,
				     ctx->name, name);
		return PT_E_VALUE;
	}
	return PT_OK;
}

pt_err pt_capture_bind_spaces(struct pt_capture *cap)
{
	const struct pt_manifest *man = cap->man;
	unsigned chain[4];
	pt_err rc;

	for (size_t c = 0; c < cap->nctx; c++)
		if ((rc = pt_capture_bind_ctx_spaces(cap, &cap->ctx[c])))
			return rc;
	cap->xlate = calloc(man->nspaces ? man->nspaces : 1, sizeof *cap->xlate);
	if (!cap->xlate) {
		pt_capture_set_error(cap, "%s: out of memory", cap->source);
		return PT_E_NOMEM;
	}
	rc = bind_translations(cap);
	if (rc == PT_E_NOTFOUND) {
		/* no translated space: the walker's fast path */
		free(cap->xlate);
		cap->xlate = NULL;
		return PT_OK;
	}
	if (rc)
		return rc;
	for (unsigned id = 0; id < man->nspaces; id++) {
		if (!cap->xlate[id])
			continue;
		chain[0] = id;
		if (!check_chain(cap, chain, 1))
			return PT_E_VALUE;
	}
	for (size_t c = 0; c < cap->nctx; c++)
		cap->ctx[c].xlate = cap->xlate;
	return PT_OK;
}
