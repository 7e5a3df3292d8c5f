/* SPDX-License-Identifier: MIT */
/*
 * iommu_dev.c — what the IOMMU traversal's loader visitors (iommu_walk.c,
 * iommu_seen.c) call below them: a table read from the capture (bounded,
 * its pages kept for pt_capture_iommu_pages()), a warning naming the
 * [iommu] section, one device made a context (pt_context_make() from the
 * walk's decoded entry: pt_format.h struct pt_ctx_entry), and the capture
 * space a nested device's first stage is read in.  It calls none of
 * iommu.c, iommu_walk.c and iommu_seen.c: the IOMMU's load is the chain
 * iommu.c -> iommu_walk.c -> iommu_seen.c -> iommu_dev.c.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_int.h"
#include "iommu_int.h"

void pt_iommu_warn(struct pt_iommu_walk *w, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	pt_capture_warn(w->cap, "capture.ini:%u: [iommu %s]: %s", w->io->line, w->io->name, msg);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void pt_iommu_pages_compact(struct pt_iommu_pages *p)
{
	size_t k = 0;

	if (!p->n)
		return;
	qsort(p->pg, p->n, sizeof *p->pg, u64_cmp);
	for (size_t i = 0; i < p->n; i++)
		if (!k || p->pg[k - 1] != p->pg[i])
			p->pg[k++] = p->pg[i];
	p->n = k;
}

/*
 * Page PA read: kept for pt_capture_iommu_pages().  Entries are read in
 * table order, so the same page comes many times in a row; a full array
 * is compacted before it grows, which bounds it by the pages captured.
 */
static void page_add(struct pt_iommu_walk *w, uint64_t pa)
{
	struct pt_iommu_pages *p = w->pages;

	if (p->n && p->pg[p->n - 1] == pa)
		return;
	if (p->n == p->cap && p->n >= 4096) {
		pt_iommu_pages_compact(p);
		if (p->n < p->cap / 2)
			goto add;
	}
	if (!pt_vec_reserve(&p->pg, &p->cap, p->n + 1, sizeof *p->pg)) {
		w->pages_oom = true;
		return;
	}
add:
	p->pg[p->n++] = pa;
}

bool pt_iommu_read(struct pt_iommu_walk *w, uint64_t addr, void *buf, size_t len)
{
	if (w->reads >= PT_IOMMU_MAX_READS) {
		if (!w->stopped)
			pt_iommu_warn(w, "more than %u table entries read: the rest of the tables is not"
				      " read (a loop or a table past any real IOMMU's size)",
				      PT_IOMMU_MAX_READS);
		w->stopped = true;
		return false;
	}
	w->reads++;
	if (!pt_mem_read(w->cap->mem, w->space_id, addr, buf, len))
		return false;
	if (w->pages && len)
		for (uint64_t pg = addr >> 12; pg <= (addr + len - 1) >> 12 && !w->pages_oom; pg++)
			page_add(w, pg << 12);
	return true;
}

/* The set-up of one device context D: a pt_context in W's list, or a warning and none. */
pt_err pt_iommu_device(struct pt_iommu_walk *w, const struct pt_iommu_dev *d)
{
	struct pt_capture *cap = w->cap;
	const struct pt_format *f = pt_format_find(d->format);
	struct pt_manifest_ctx mc = {0};
	struct pt_context c = {0};
	char label[PT_INI_MAX_NAME + 64], msg[1024];
	struct pt_ctx_entry e = d->e;
	struct pt_context_spec spec = {.fmt = f, .line = w->io->line, .label = label, .entry = &e};
	pt_err rc = PT_OK;

	if (w->stopped)
		return PT_OK;
	/*
	 * A device the IOMMU blocks (docs/design.md §2.7): counted, in the
	 * IOMMU's tree, and a context only when asked (all_entries), or
	 * Linux's AMD-Vi table (every DTE valid, translation blocked) makes
	 * 252 contexts for 6 devices on QEMU's q35.
	 */
	if (d->blocked && (w->blocked++, !cap->all_entries))
		return PT_OK;
	/* the nested stages 2 made so far: w->ctx may have moved since */
	for (unsigned k = 0; k < w->nxs; k++)
		cap->xlate[w->xs_id[k]] = &w->ctx[w->xs_k[k]];
	msg[0] = 0;
	snprintf(label, sizeof label, "[iommu %s] %s", w->io->name, d->name);
	mc.owned_name = strdup(d->name);
	mc.origin = malloc(sizeof *mc.origin);
	if (!mc.owned_name || !mc.origin) {
		rc = PT_E_NOMEM;
		goto fail;
	}
	*mc.origin = d->origin;
	e.line = w->io->line;
	e.label = label;
	c.name = mc.owned_name;
	c.ini_line = w->io->line;
	c.iommu = mc.origin;
	c.mem = cap->mem;
	c.xlate = cap->xlate;
	rc = pt_context_make(cap, &spec, &c, msg, sizeof msg);
	mc.priv = c.priv;
	if (rc == PT_E_NOMEM)
		goto fail;
	if (rc) {
		/* one line: the format's message, "capture.ini:LINE: " dropped where it has one */
		const char *m = strncmp(msg, "capture.ini:", 12) ? NULL : strchr(msg + 12, ' ');

		m = m ? m + 1 : msg;

		pt_iommu_warn(w, "%s %s at %s 0x%" PRIx64 ": %s: no context", d->name, d->origin.entry,
			      w->space_name, d->origin.entry_addr, m[0] ? m : pt_strerror(rc));
		rc = PT_OK;
		goto fail;
	}
	if (msg[0])
		pt_iommu_warn(w, "%s: %s", d->name, msg);
	c.annotations = NULL;
	if (!pt_vec_reserve(&w->mc, &w->mccap, w->nmc + 1, sizeof *w->mc) ||
	    !pt_vec_reserve(&w->ctx, &w->ctxcap, w->nmc + 1, sizeof *w->ctx)) {
		rc = PT_E_NOMEM;
		goto fail;
	}
	mc.name = mc.owned_name;
	mc.line = w->io->line;
	mc.fmt = f;
	w->mc[w->nmc] = mc;
	w->ctx[w->nmc++] = c;
	w->made++;
	return PT_OK;
fail:
	pt_context_unmake(&c);
	free(mc.owned_name);
	free(mc.origin);
	return rc;
}

/* Whether CTX reads its format space I (spaces.c's rule). */
static bool used(const struct pt_context *ctx, unsigned i)
{
	return !ctx->space_used || (ctx->space_used >> i & 1);
}

/* The translations an address of capture space ID goes through (at most 3: spaces.c checked). */
static unsigned space_stages(const struct pt_capture *cap, unsigned id, unsigned depth)
{
	const struct pt_context *t = cap->xlate ? cap->xlate[id] : NULL;
	unsigned most = 0;

	if (!t || depth > 3)
		return 0;
	for (unsigned i = 0; i < PT_CONTEXT_SPACES && t->fmt->spaces[i]; i++) {
		unsigned n = used(t, i) ? space_stages(cap, pt_context_space(t, i), depth + 1) : 0;

		most = n > most ? n : most;
	}
	return most + 1;
}

pt_err pt_iommu_xspace(struct pt_iommu_walk *w, const char **name)
{
	struct pt_capture *cap = w->cap;
	struct pt_manifest *man = cap->man;
	struct pt_manifest_space *sp;
	const char *s2 = w->mc[w->nmc - 1].owned_name;
	unsigned id = man->nspaces;
	char *n;

	*name = NULL;
	for (unsigned i = 0; i < PT_CONTEXT_SPACES && w->ctx[w->nmc - 1].fmt->spaces[i]; i++)
		if (used(&w->ctx[w->nmc - 1], i) &&
		    space_stages(cap, pt_context_space(&w->ctx[w->nmc - 1], i), 0) > 1) {
			pt_iommu_warn(w, "%s: its space %s is translated twice already: a first stage"
				      " through it would be a fourth (at most three): only its second"
				      " stage is a context", s2,
				      pt_context_space_name(&w->ctx[w->nmc - 1], i));
			return PT_OK;
		}
	if (id == PT_CAPTURE_SPACES) {
		pt_iommu_warn(w, "%s: the capture has %u spaces, none left for the space its first"
			      " stage is read in: only its second stage is a context", s2,
			      PT_CAPTURE_SPACES);
		return PT_OK;
	}
	if (!cap->xsname) {
		/* xlate once for every space the capture may have: its pointer no longer moves */
		const struct pt_context **x = calloc(PT_CAPTURE_SPACES, sizeof *x);

		cap->xsname = calloc(PT_CAPTURE_SPACES, sizeof *cap->xsname);
		if (!x || !cap->xsname) {
			free(x);
			return PT_E_NOMEM;
		}
		for (unsigned i = 0; cap->xlate && i < man->nspaces; i++)
			x[i] = cap->xlate[i];
		free(cap->xlate);
		cap->xlate = x;
	}
	n = cap->xsname[id];
	snprintf(n, sizeof cap->xsname[id], "%s", s2);
	for (char *p = n; *p; p++)
		if (*p == ':')
			*p = '-';
	if (pt_manifest_space_find(man, n) >= 0) {
		pt_iommu_warn(w, "%s: space '%s', where its first stage would be read, is a space of"
			      " the capture already: only its second stage is a context", s2, n);
		return PT_OK;
	}
	sp = &man->spaces[id];
	sp->name = n;
	sp->line = 0;
	sp->translate = s2;
	sp->translate_line = w->io->line;
	man->nspaces++;
	w->xs_id[w->nxs] = id;
	w->xs_k[w->nxs++] = w->nmc - 1;
	cap->xlate[id] = &w->ctx[w->nmc - 1];
	*name = n;
	return PT_OK;
}

void pt_iommu_xspace_drop(struct pt_iommu_walk *w)
{
	struct pt_manifest *man = w->cap->man;

	man->nspaces--;
	w->cap->xlate[man->nspaces] = NULL;
	w->nxs--;
}
