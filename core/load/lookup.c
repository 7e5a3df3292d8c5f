/* SPDX-License-Identifier: MIT */
/*
 * lookup.c — the loaded capture's contexts and spaces found by index or
 * name, and the contexts' serials: a leaf of the load chain (it calls no
 * other file of core/load/ but live.c's pt_context_gone()), so that every
 * step of the load (the manifest, the spaces, the contexts, the IOMMU
 * devices, the step after the load) may look a name up without calling
 * back into the file that drives it (HACKING.md, "The layers and the load
 * chain": issue #41 item 3).
 */
#include <stdatomic.h>
#include <string.h>

#include "capture_int.h"

/* Serials of loaded contexts (struct pt_context): from 1, shared by all threads. */
static _Atomic uint64_t context_serials;

uint64_t pt_capture_serial_next(void)
{
	return atomic_fetch_add(&context_serials, 1) + 1;
}

int pt_manifest_space_find(const struct pt_manifest *m, const char *name)
{
	for (unsigned i = 0; i < m->nspaces; i++)
		if (!strcmp(m->spaces[i].name, name))
			return (int)i;
	return -1;
}

unsigned pt_capture_space_count(const struct pt_capture *cap)
{
	return cap && cap->man ? cap->man->nspaces : 0;
}

const char *pt_capture_space_name(const struct pt_capture *cap, unsigned id)
{
	return cap && cap->man && id < cap->man->nspaces ? cap->man->spaces[id].name : NULL;
}

int pt_capture_space_find(const struct pt_capture *cap, const char *name)
{
	return cap && cap->man ? pt_manifest_space_find(cap->man, name) : -1;
}

const struct pt_context *pt_capture_space_translate(const struct pt_capture *cap, unsigned id)
{
	return cap && cap->xlate && id < cap->man->nspaces ? cap->xlate[id] : NULL;
}

const char *pt_context_space_name(const struct pt_context *ctx, unsigned i)
{
	if (ctx->space_mapped && ctx->cap)
		return pt_capture_space_name(ctx->cap, pt_context_space(ctx, i));
	return ctx->fmt->spaces[i];
}

size_t pt_capture_context_count(const struct pt_capture *cap)
{
	/* a live capture's grows (extend.c pt_capture_live_add_contexts) */
	return cap ? __atomic_load_n(&cap->nctx, __ATOMIC_ACQUIRE) : 0;
}

size_t pt_capture_context_room(const struct pt_capture *cap)
{
	size_t n = pt_capture_context_count(cap);

	return cap && cap->live && cap->ctx_room > n ? cap->ctx_room : n;
}

const struct pt_context *pt_capture_context(const struct pt_capture *cap, size_t i)
{
	return cap && i < pt_capture_context_count(cap) ? &cap->ctx[i] : NULL;
}

const struct pt_context *pt_capture_context_find(const struct pt_capture *cap, const char *name)
{
	/* the count first: the sorted array stored before it holds at least that many */
	size_t n = pt_capture_context_count(cap);
	const struct pt_context *const *sorted = cap ? __atomic_load_n(&cap->ctx_sorted, __ATOMIC_ACQUIRE) : NULL;
	const struct pt_context *c = cap && name ? pt_ctx_sorted_find(sorted, n, name) : NULL;

	/* a live process's context gone: its name is no longer its (a new process may take it) */
	return c && pt_context_gone(c) ? NULL : c;
}
