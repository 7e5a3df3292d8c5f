/* SPDX-License-Identifier: MIT */
/*
 * extend.c — what the layers above the load give a loaded capture
 * (pt_extend.h): the kernel facts a dump source noted, kept with the
 * capture, and contexts added once the load is done (docs/design.md §6:
 * "then tasks").  The contexts are set up by their formats' hooks exactly
 * as capture.ini sections are; their manifest entries own what they hold.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture_int.h"
#include "pt_extend.h"

static void facts_free(void *ud)
{
	struct pt_kernel_facts *f = ud;

	free(f->vmcoreinfo);
	free(f->cpu);
	free(f->system_map);
	if (f->system_map_fd >= 0)
		close(f->system_map_fd);
	free(f->system_map_key);
	free(f);
}

pt_err pt_loader_kernel_facts(struct pt_loader *ld, const char *vi, size_t vilen,
			      const struct pt_kernel_cpu *cpu, size_t ncpu)
{
	struct pt_capture *cap = ld->cap;
	struct pt_kernel_facts *f = calloc(1, sizeof *f);

	if (!f || !pt_vec_reserve(&cap->owned, &cap->ownedcap, cap->nowned + 1, sizeof *cap->owned)) {
		free(f);
		return PT_E_NOMEM;
	}
	if (vi && vilen) {
		f->vmcoreinfo = malloc(vilen + 1);
		if (f->vmcoreinfo) {
			memcpy(f->vmcoreinfo, vi, vilen);
			f->vmcoreinfo[vilen] = 0;
			f->vmcoreinfo_len = strlen(f->vmcoreinfo);
		}
	}
	if (ncpu && (f->cpu = malloc(ncpu * sizeof *cpu)))
		memcpy(f->cpu, cpu, ncpu * sizeof *cpu);
	f->ncpu = f->cpu ? ncpu : 0;
	f->where = ld->src ? ld->src->kind : "dump";
	f->system_map_fd = -1;
	if (ld->opts->system_map)
		f->system_map = strdup(ld->opts->system_map);
	if ((vi && vilen && !f->vmcoreinfo) || (ncpu && !f->cpu) || (ld->opts->system_map && !f->system_map)) {
		facts_free(f);
		return PT_E_NOMEM;
	}
	/* freed with the capture's memory (unload) */
	cap->owned[cap->nowned].ud = f;
	cap->owned[cap->nowned++].free_fn = facts_free;
	cap->kfacts = f;
	return PT_OK;
}

pt_err pt_loader_kernel_map(struct pt_loader *ld, int fd, const char *name)
{
	struct pt_kernel_facts *f;
	char *copy = strdup(name);

	/* a dump whose source noted nothing still has a kernel the map names */
	if (!copy || (!ld->cap->kfacts && pt_loader_kernel_facts(ld, NULL, 0, NULL, 0))) {
		free(copy);
		close(fd);
		return PT_E_NOMEM;
	}
	f = ld->cap->kfacts;
	if (f->system_map_fd >= 0)
		close(f->system_map_fd);
	free(f->system_map_key);
	f->system_map_fd = fd;
	f->system_map_key = copy;
	return PT_OK;
}

const struct pt_kernel_facts *pt_capture_kernel_facts(const struct pt_capture *cap)
{
	return cap ? cap->kfacts : NULL;
}

/* The guest's PCI functions: one allocation, the list after the header. */
struct pt_pci_store {
	struct pt_pci_list list;
	struct pt_pci_dev dev[];
};

static int cmp_pci(const void *x, const void *y)
{
	const struct pt_pci_dev *a = x, *b = y;
	uint32_t ka = (uint32_t)a->segment << 16 | (uint32_t)a->bus << 8 | a->devfn;
	uint32_t kb = (uint32_t)b->segment << 16 | (uint32_t)b->bus << 8 | b->devfn;

	if (ka != kb)
		return ka < kb ? -1 : 1;
	return memcmp(a, b, sizeof *a);   /* the same order whatever qsort does with equals */
}

pt_err pt_capture_set_pci(struct pt_capture *cap, const struct pt_pci_dev *d, size_t n, const char *where,
			  bool drivers_known)
{
	struct pt_pci_store *p;

	if (n > SIZE_MAX / sizeof *d - 1 ||
	    !pt_vec_reserve(&cap->owned, &cap->ownedcap, cap->nowned + 1, sizeof *cap->owned))
		return PT_E_NOMEM;
	p = malloc(sizeof *p + n * sizeof *d);
	if (!p)
		return PT_E_NOMEM;
	if (n)
		memcpy(p->dev, d, n * sizeof *d);
	/* a stable order whatever the walk's (deterministic listings); one function per BDF (a list read twice) */
	qsort(p->dev, n, sizeof *d, cmp_pci);
	if (n > 1) {
		size_t w = 1;

		for (size_t i = 1; i < n; i++)
			if (p->dev[i].segment != p->dev[w - 1].segment || p->dev[i].bus != p->dev[w - 1].bus ||
			    p->dev[i].devfn != p->dev[w - 1].devfn)
				p->dev[w++] = p->dev[i];
		n = w;
	}
	p->list.dev = p->dev;
	p->list.n = n;
	p->list.where = where;
	p->list.drivers_known = drivers_known;
	/* an earlier list stays owned (freed at unload) but is no longer the one read */
	cap->owned[cap->nowned].ud = p;
	cap->owned[cap->nowned++].free_fn = free;
	cap->pci = p;
	return PT_OK;
}

pt_err pt_loader_pci(struct pt_loader *ld, const struct pt_pci_dev *d, size_t n, const char *where,
		     bool drivers_known)
{
	return pt_capture_set_pci(ld->cap, d, n, where, drivers_known);
}

void pt_capture_pci(const struct pt_capture *cap, struct pt_pci_list *out)
{
	if (cap && cap->pci)
		*out = cap->pci->list;
	else
		*out = (struct pt_pci_list){0};
}

void pt_capture_add_warning(struct pt_capture *cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pt_capture_vwarn(cap, fmt, ap);
	va_end(ap);
}

/* The x- keys of D in one allocation: the array, then its strings (the manifest frees it with free()). */
static struct pt_kv *ann_copy(const struct pt_ctx_def *d)
{
	size_t bytes = d->nann * sizeof(struct pt_kv);
	struct pt_kv *a;
	char *s;

	for (size_t i = 0; i < d->nann; i++)
		bytes += strlen(d->ann[i].key) + strlen(d->ann[i].value) + 2;
	a = malloc(bytes ? bytes : 1);
	if (!a)
		return NULL;
	s = (char *)(a + d->nann);
	for (size_t i = 0; i < d->nann; i++) {
		size_t k = strlen(d->ann[i].key) + 1, v = strlen(d->ann[i].value) + 1;

		a[i].key = memcpy(s, d->ann[i].key, k);
		a[i].value = memcpy(s + k, d->ann[i].value, v);
		s += k + v;
	}
	return a;
}

pt_err pt_capture_annotate(struct pt_capture *cap, const char *name, const char *key, const char *value)
{
	const struct pt_context *c = pt_capture_context_find(cap, name);
	struct pt_manifest_ctx *mc;
	struct pt_ctx_def d = {0};
	struct pt_kv *kv, *a;

	/* the manifest's contexts and the capture's share their order (contexts.c, iommu.c, above) */
	if (!c || !cap->man || c->index >= cap->man->nctx || strcmp(cap->man->ctx[c->index].name, name))
		return PT_E_NOTFOUND;
	mc = &cap->man->ctx[c->index];
	kv = malloc((mc->nann + 1) * sizeof *kv);
	if (!kv)
		return PT_E_NOMEM;
	if (mc->nann)
		memcpy(kv, mc->ann, mc->nann * sizeof *kv);
	d.ann = kv;
	d.nann = mc->nann;
	/* a key it has already takes the new value in its place (the step run again) */
	while (d.nann > 0 && strcmp(kv[d.nann - 1].key, key))
		d.nann--;
	if (d.nann) {
		kv[d.nann - 1].value = value;
		d.nann = mc->nann;
	} else {
		kv[mc->nann].key = key;
		kv[mc->nann].value = value;
		d.nann = mc->nann + 1;
	}
	/* one allocation again, the old strings copied before the old array goes */
	a = ann_copy(&d);
	free(kv);
	if (!a)
		return PT_E_NOMEM;
	free(mc->ann);
	mc->ann = a;
	mc->nann = d.nann;
	cap->ctx[c->index].annotations = a;
	cap->ctx[c->index].nannotations = d.nann;
	return PT_OK;
}

/* Sets up D into MC and C: PT_E_NOMEM, another error with MSG (no context), or PT_OK. */
static pt_err setup(struct pt_capture *cap, size_t before, const struct pt_ctx_def *d,
		    struct pt_manifest_ctx *mc, struct pt_context *c, char *msg, size_t mlen)
{
	const struct pt_format *f = pt_format_find(d->format);
	struct pt_context_spec spec = {.fmt = f, .key = d->key, .val = d->val, .nkeys = d->nkeys,
				       .label = d->name};
	pt_err rc;

	if (!f)
		return snprintf(msg, mlen, "no format %s in this build", d->format), PT_E_UNSUPPORTED;
	/* ctx_sorted holds the BEFORE contexts the load made, sorted by name */
	if (pt_ctx_sorted_find(cap->ctx_sorted, before, d->name))
		return snprintf(msg, mlen, "the capture has a context %s already", d->name), PT_E_VALUE;
	mc->fmt = f;
	mc->owned_name = strdup(d->name);
	mc->ann = ann_copy(d);
	if (!mc->owned_name || !mc->ann)
		return PT_E_NOMEM;
	mc->name = mc->owned_name;
	mc->nann = d->nann;
	c->name = mc->owned_name;
	c->mem = cap->mem;
	c->xlate = cap->xlate;
	c->annotations = mc->ann;
	c->nannotations = mc->nann;
	rc = pt_context_make(cap, &spec, c, msg, mlen);
	mc->priv = c->priv;
	return rc;
}

static void mc_free(struct pt_manifest_ctx *mc)
{
	if (mc->fmt && mc->fmt->ctx_free && mc->priv)
		mc->fmt->ctx_free(mc->priv);
	free(mc->priv);
	free(mc->owned_name);
	free(mc->ann);
	memset(mc, 0, sizeof *mc);
}

static int cmp_ctx(const void *a, const void *b)
{
	return strcmp((*(const struct pt_context *const *)a)->name,
		      (*(const struct pt_context *const *)b)->name);
}

/* CAP's contexts (and the manifest's) moved into arrays of TOTAL slots; the pointers into them follow. */
static pt_err grow(struct pt_capture *cap, size_t total)
{
	struct pt_manifest *man = cap->man;
	struct pt_context *ctx = NULL, *old = cap->ctx;
	const struct pt_context **sorted;

	if (!pt_vec_resize(&man->ctx, total, sizeof *man->ctx) ||
	    !pt_vec_resize(&cap->ctx_sorted, total, sizeof *cap->ctx_sorted) ||
	    !pt_vec_resize(&ctx, total, sizeof *ctx))
		return PT_E_NOMEM;
	sorted = cap->ctx_sorted;
	/* cap->ctx moves: the translated spaces' pointers into it follow (iommu.c's commit does so too) */
	memcpy(ctx, old, cap->nctx * sizeof *ctx);
	for (unsigned id = 0; cap->xlate && id < (cap->xsname ? PT_CAPTURE_SPACES : man->nspaces); id++)
		if (cap->xlate[id] >= old && cap->xlate[id] < old + cap->nctx)
			cap->xlate[id] = ctx + (cap->xlate[id] - old);
	for (size_t i = 0; i < cap->nctx; i++)
		sorted[i] = ctx + (sorted[i] - old);
	cap->ctx = ctx;
	cap->ctx_room = total;
	free(old);
	return PT_OK;
}

pt_err pt_capture_reserve_contexts(struct pt_capture *cap, size_t extra)
{
	if (!cap->man || extra > SIZE_MAX / sizeof *cap->ctx - cap->nctx)
		return PT_E_NOMEM;
	return cap->ctx_room >= cap->nctx + extra ? PT_OK : grow(cap, cap->nctx + extra);
}

/* D set up into the next free slot of CAP (not yet counted); false: left out, MSG says why. */
static pt_err add_one(struct pt_capture *cap, size_t before, const struct pt_ctx_def *d, char *msg, size_t mlen)
{
	struct pt_manifest *man = cap->man;
	struct pt_manifest_ctx *m = &man->ctx[man->nctx];
	struct pt_context *c = &cap->ctx[man->nctx];
	pt_err rc;

	memset(m, 0, sizeof *m);
	memset(c, 0, sizeof *c);
	rc = setup(cap, before, d, m, c, msg, mlen);
	if (rc) {
		mc_free(m);
		return rc;
	}
	c->index = (unsigned)man->nctx;
	c->serial = pt_capture_serial_next();
	man->nctx++;
	return PT_OK;
}

pt_err pt_capture_add_contexts(struct pt_capture *cap, const struct pt_ctx_def *d, size_t n)
{
	size_t before = cap->nctx;
	pt_err rc;

	if (!n || !cap->man)
		return PT_OK;
	if (cap->ctx_room < before + n && (rc = grow(cap, before + n)))
		return rc;
	for (size_t i = 0; i < n; i++) {
		char msg[512] = "";

		rc = add_one(cap, before, &d[i], msg, sizeof msg);
		if (rc == PT_E_NOMEM)
			return rc;
		if (rc)
			pt_capture_warn(cap, "%s: %s: no context", d[i].name, msg[0] ? msg : pt_strerror(rc));
		else
			cap->nctx++;
	}
	for (size_t i = 0; i < cap->nctx; i++)
		cap->ctx_sorted[i] = &cap->ctx[i];
	qsort(cap->ctx_sorted, cap->nctx, sizeof *cap->ctx_sorted, cmp_ctx);
	return PT_OK;
}

pt_err pt_capture_live_add_contexts(struct pt_capture *cap, const struct pt_ctx_def *d, size_t n, size_t *added)
{
	size_t before = cap->nctx, k = 0;
	const struct pt_context **sorted, **old = cap->ctx_sorted;

	*added = 0;
	if (!cap->man || cap->man->nctx != before || before >= cap->ctx_room)
		return PT_OK;
	if (n > cap->ctx_room - before)
		n = cap->ctx_room - before;   /* the rest stay rows of tasks without a directory */
	if (!n)
		return PT_OK;
	sorted = malloc((before + n) * sizeof *sorted);
	if (!sorted || !pt_vec_reserve(&cap->owned, &cap->ownedcap, cap->nowned + 1, sizeof *cap->owned)) {
		free(sorted);
		return PT_E_NOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		char msg[512];
		pt_err rc = add_one(cap, before, &d[i], msg, sizeof msg);

		/* no warning: the load's are said; one left out stays a row of tasks */
		if (rc == PT_E_NOMEM) {
			free(sorted);
			return rc;
		}
		k += rc == PT_OK;
	}
	for (size_t i = 0; i < before + k; i++)
		sorted[i] = &cap->ctx[i];
	qsort(sorted, before + k, sizeof *sorted, cmp_ctx);
	/* readers may hold the old array: it stays until the capture goes */
	cap->owned[cap->nowned].ud = old;
	cap->owned[cap->nowned++].free_fn = free;
	__atomic_store_n(&cap->ctx_sorted, sorted, __ATOMIC_RELEASE);
	__atomic_store_n(&cap->nctx, before + k, __ATOMIC_RELEASE);
	*added = k;
	return PT_OK;
}
