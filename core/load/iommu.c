/* SPDX-License-Identifier: MIT */
/*
 * iommu.c — an IOMMU from its registers, [iommu NAME] (docs/design.md §2.7
 * "IOMMUs from the top"): the section's keys, and, once memory is loaded,
 * its root/context, device or stream tables read from the capture, every
 * present device made a context.  Each device context is what the section
 * the user would have written for it by hand says — [vtd] context = …,
 * [vtd] or [cpu] pasid_entry = …, [amdvi] dte = …, [smmu] ste0..3 (+ ssid)
 * — as the walk decoded it (pt_format.h struct pt_ctx_entry, no text),
 * given to that format's own ctx_entry, ctx_setup and ctx_memory hooks
 * (pt_context_make()), so that a device walks exactly as its per-device
 * section does.  Messages name the [iommu] section's line and the device;
 * a bad device entry is one warning and no context, never a failed load
 * (the rest of the IOMMU stays usable).
 *
 * The table layouts (restated, no code copied) are the IOMMU family's,
 * core/formats/iommu_*.c; the loader's visitor of their walk is
 * iommu_walk.c.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_int.h"
#include "iommu_int.h"

/* Device context names add up to 29 bytes (".ssss:bb:dd.f.pasid1048575.s2"). */
#define NAME_MAX_IOMMU 220

static pt_err sec_fail(char *err, size_t errlen, unsigned line, pt_err rc, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static pt_err sec_fail(char *err, size_t errlen, unsigned line, pt_err rc, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	pt_ini_set_error(err, errlen, line, "%s", msg);
	return rc;
}

/*
 * The registers' own checks, at the key's line: the IOMMU's (its format,
 * pt_iommu_format.h), then those of any IOMMU.
 */
static pt_err check_regs(const struct pt_manifest_iommu *io, const char *label, char *err,
			 size_t errlen)
{
	const uint64_t *v = io->v;
	const unsigned *l = io->vline;
	char msg[768];
	unsigned line = io->fam->check(v, l, label, msg, sizeof msg);

	if (line)
		return sec_fail(err, errlen, line, PT_E_VALUE, "%s", msg);
	if (l[PT_IK_MAXCTX] && (!v[PT_IK_MAXCTX] || v[PT_IK_MAXCTX] > PT_MAX_CONTEXTS_LIMIT))
		return sec_fail(err, errlen, l[PT_IK_MAXCTX], PT_E_VALUE, "max_contexts %" PRIu64 " in %s"
				" is not 1 to %u (the device contexts it may make)", v[PT_IK_MAXCTX],
				label, PT_MAX_CONTEXTS_LIMIT);
	if (l[PT_IK_SEGMENT] && v[PT_IK_SEGMENT] > 0xffff)
		return sec_fail(err, errlen, l[PT_IK_SEGMENT], PT_E_VALUE, "segment %" PRIu64 " in %s is"
				" not a PCI segment (0 to 0xffff)", v[PT_IK_SEGMENT], label);
	return PT_OK;
}

/* "intel-vtd, amd-vi or arm-smmuv3": the family's names. */
static void type_list(char *out, size_t len)
{
	size_t o = 0;

	out[0] = 0;
	for (unsigned i = 0; pt_iommu_format_list[i] && o < len; i++)
		o += (size_t)snprintf(out + o, len - o, "%s%s", !i ? "" : pt_iommu_format_list[i + 1] ?
				      ", " : " or ", pt_iommu_format_list[i]->name);
}

static pt_err space_value(const struct pt_ini_kv *kv, const char *label, char *err, size_t errlen)
{
	static const char *const ok[] = {"sysmem", "hpa", "gpa"};

	for (unsigned i = 0; i < 3; i++)
		if (!strcmp(kv->value, ok[i]))
			return PT_OK;
	return sec_fail(err, errlen, kv->line, PT_E_VALUE, "%s '%s' in %s is not a space of an IOMMU"
			" (sysmem, hpa, gpa)", kv->key, kv->value, label);
}

pt_err pt_iommu_section(struct pt_manifest *m, const struct pt_ini_section *s, const unsigned *dup,
			char *err, size_t errlen)
{
	struct pt_manifest_iommu io = {.name = s->name, .line = s->line};
	char label[PT_INI_MAX_NAME + 16], why[96], types[96];
	const struct pt_ini_kv *type = NULL;
	pt_err rc;

	snprintf(label, sizeof label, "[iommu %s]", s->name);
	type_list(types, sizeof types);
	if (strlen(s->name) > NAME_MAX_IOMMU)
		return sec_fail(err, errlen, s->line, PT_E_VALUE, "%s: the name is longer than %u bytes"
				" (its device contexts add their BDF and PASID to it)", label,
				NAME_MAX_IOMMU);
	for (size_t i = 0; i < s->nkv; i++) {
		const struct pt_ini_kv *kv = &s->kv[i];
		unsigned k;

		if (dup[i])
			return sec_fail(err, errlen, kv->line, PT_E_VALUE, "duplicate key '%s' in %s (first"
					" at line %u)", kv->key, label, dup[i]);
		if (kv->key[0] == 'x' && kv->key[1] == '-' && kv->key[2])
			continue;
		if (!strcmp(kv->key, "type")) {
			if (!(io.fam = pt_iommu_format_find(kv->value)))
				return sec_fail(err, errlen, kv->line, PT_E_VALUE, "type '%s' in %s is not"
						" %s", kv->value, label, types);
			type = kv;
			continue;
		}
		if (!strcmp(kv->key, "space") || !strcmp(kv->key, "output_space")) {
			if ((rc = space_value(kv, label, err, errlen)))
				return rc;
			*(kv->key[0] == 's' ? &io.space : &io.output_space) = kv->value;
			continue;
		}
		for (k = 0; k < PT_IK__COUNT && strcmp(kv->key, pt_iommu_key_names[k]); k++)
			;
		if (k == PT_IK__COUNT)
			return sec_fail(err, errlen, kv->line, PT_E_VALUE, "unknown key '%s' in %s",
					kv->key, label);
		if (pt_ini_uint(kv->value, &io.v[k]))
			return sec_fail(err, errlen, kv->line, PT_E_VALUE, "bad integer '%s' for '%s' in"
					" %s%s", kv->value, kv->key, label,
					pt_ini_uint_why(kv->value, why, sizeof why));
		io.vline[k] = kv->line;
	}
	if (!type)
		return sec_fail(err, errlen, s->line, PT_E_VALUE, "missing key 'type' in %s (%s)", label,
				types);
	for (unsigned k = 0; k < PT_IK__COUNT; k++)
		if (io.vline[k] && !(io.fam->keys >> k & 1))
			return sec_fail(err, errlen, io.vline[k], PT_E_VALUE, "'%s' in %s is not a"
					" register of an %s IOMMU", pt_iommu_key_names[k], label,
					io.fam->name);
	for (unsigned k = 0; k < PT_IK__COUNT; k++)
		if ((io.fam->required >> k & 1) && !io.vline[k])
			return sec_fail(err, errlen, s->line, PT_E_VALUE, "missing key '%s' in %s",
					pt_iommu_key_names[k], label);
	if ((rc = check_regs(&io, label, err, errlen)))
		return rc;
	if (!pt_vec_reserve(&m->iommu, &m->iommucap, m->niommu + 1, sizeof *m->iommu))
		return PT_E_NOMEM;
	m->iommu[m->niommu++] = io;
	return PT_OK;
}

/* ---- expansion: device contexts ------------------------------------------- */

/* W's contexts appended to CAP's (cap->ctx moves: the translated spaces' pointers follow it). */
static pt_err commit(struct pt_capture *cap, struct pt_iommu_walk *w)
{
	struct pt_manifest *man = cap->man;
	size_t n = cap->nctx + w->nmc, *xi = NULL;

	if (!w->nmc)
		return PT_OK;
	/* W's own stages 2 are not in cap->ctx yet: set after the move */
	for (unsigned k = 0; k < w->nxs; k++)
		cap->xlate[w->xs_id[k]] = NULL;
	if (cap->xlate) {
		xi = calloc(man->nspaces, sizeof *xi);
		if (!xi)
			return PT_E_NOMEM;
		for (unsigned id = 0; id < man->nspaces; id++)
			xi[id] = cap->xlate[id] ? (size_t)(cap->xlate[id] - cap->ctx) + 1 : 0;
	}
	if (!pt_vec_resize(&man->ctx, man->nctx + w->nmc, sizeof *man->ctx) ||
	    !pt_vec_resize(&cap->ctx, n, sizeof *cap->ctx) ||
	    !pt_vec_resize(&cap->ctx_sorted, n, sizeof *cap->ctx_sorted)) {
		free(xi);
		return PT_E_NOMEM;
	}
	for (unsigned id = 0; xi && id < man->nspaces; id++)
		cap->xlate[id] = xi[id] ? &cap->ctx[xi[id] - 1] : NULL;
	free(xi);
	for (size_t i = 0; i < w->nmc; i++) {
		man->ctx[man->nctx + i] = w->mc[i];
		cap->ctx[cap->nctx + i] = w->ctx[i];
		cap->ctx[cap->nctx + i].index = (unsigned)(cap->nctx + i);
		cap->ctx[cap->nctx + i].serial = pt_capture_serial_next();
	}
	for (unsigned k = 0; k < w->nxs; k++)
		cap->xlate[w->xs_id[k]] = &cap->ctx[cap->nctx + w->xs_k[k]];
	w->nxs = 0;
	man->nctx += w->nmc;
	cap->nctx = n;
	w->nmc = 0;
	return PT_OK;
}

static int cmp_ctx(const void *a, const void *b)
{
	return strcmp((*(const struct pt_context *const *)a)->name,
		      (*(const struct pt_context *const *)b)->name);
}

pt_err pt_iommu_expand(struct pt_capture *cap, const struct pt_load_opts *opts)
{
	const struct pt_manifest *man = cap->man;
	size_t before = cap->nctx, bound = opts && opts->max_contexts ? (size_t)opts->max_contexts :
					   PT_LOAD_MAX_CONTEXTS;
	pt_err rc = PT_OK;

	if (man->niommu && !(cap->iopages = calloc(man->niommu, sizeof *cap->iopages)))
		rc = PT_E_NOMEM;
	for (size_t i = 0; i < man->niommu && !rc; i++) {
		const struct pt_manifest_iommu *io = &man->iommu[i];
		struct pt_iommu_walk w = {.cap = cap, .io = io, .pages = &cap->iopages[i]};

		w.space_name = io->space ? io->space : "sysmem";
		w.output_name = io->output_space ? io->output_space : "sysmem";
		w.space_id = (unsigned)pt_manifest_space_find(man, w.space_name);
		rc = pt_iommu_walk_start(&w, bound - (cap->nctx - before));
		if (!rc)
			rc = pt_iommu_walk_tables(&w);
		if (pt_iommu_walk_end(&w, i) && !rc)
			rc = PT_E_NOMEM;
		if (!rc)
			rc = commit(cap, &w);
		if (w.pages_oom)
			rc = PT_E_NOMEM;
		pt_iommu_pages_compact(w.pages);
		w.pages->contexts = w.made;
		w.pages->blocked = w.blocked;
		for (size_t k = 0; k < w.nmc; k++) {
			if (w.mc[k].fmt->ctx_free)
				w.mc[k].fmt->ctx_free(w.mc[k].priv);
			free(w.mc[k].priv);
			free(w.mc[k].owned_name);
			free(w.mc[k].origin);
		}
		free(w.mc);
		free(w.ctx);
	}
	if (rc == PT_E_NOMEM)
		pt_capture_set_error(cap, "%s: out of memory", cap->source);
	/* nested entries made translated spaces: every context reads through them (spaces.c) */
	for (size_t i = 0; !rc && cap->xsname && i < cap->nctx; i++)
		cap->ctx[i].xlate = cap->xlate;
	if (rc || cap->nctx == before)
		return rc;
	for (size_t i = 0; i < cap->nctx; i++)
		cap->ctx_sorted[i] = &cap->ctx[i];
	qsort(cap->ctx_sorted, cap->nctx, sizeof *cap->ctx_sorted, cmp_ctx);
	for (size_t i = 1; i < cap->nctx; i++)
		if (!strcmp(cap->ctx_sorted[i - 1]->name, cap->ctx_sorted[i]->name)) {
			const struct pt_context *a = cap->ctx_sorted[i - 1], *b = cap->ctx_sorted[i];

			if (a->index > b->index) {
				const struct pt_context *t = a;

				a = b;
				b = t;
			}
			pt_capture_set_error(cap, "capture.ini:%u: [iommu %s]: its device context '%s'"
					     " has the name of [%s %s] (line %u)", b->ini_line,
					     b->iommu ? b->iommu->iommu : "?", b->name,
					     a->fmt->ctx_section, a->name, a->ini_line);
			return PT_E_VALUE;
		}
	return PT_OK;
}

size_t pt_capture_iommu_count(const struct pt_capture *cap)
{
	return cap && cap->man ? cap->man->niommu : 0;
}

size_t pt_capture_iommu_pages(const struct pt_capture *cap, size_t i, const uint64_t **pages)
{
	*pages = cap->iopages && cap->man && i < cap->man->niommu ? cap->iopages[i].pg : NULL;
	return *pages ? cap->iopages[i].n : 0;
}

void pt_capture_iommu(const struct pt_capture *cap, size_t i, struct pt_iommu_info *out)
{
	const struct pt_manifest_iommu *io = &cap->man->iommu[i];
	int space = pt_manifest_space_find(cap->man, io->space ? io->space : "sysmem");

	memset(out, 0, sizeof *out);
	out->name = io->name;
	out->kind = io->fam->kind;
	out->fam = io->fam;
	out->reg = io->v;
	out->type = io->fam->name;
	out->line = io->line;
	out->space = space < 0 ? 0 : (unsigned)space;
	out->rtaddr = io->v[PT_IK_RTADDR];
	out->dev_table_base = io->v[PT_IK_DTB];
	out->strtab_base = io->v[PT_IK_STRTAB];
	out->strtab_base_cfg = io->v[PT_IK_STRCFG];
	out->contexts = cap->iopages ? cap->iopages[i].contexts : 0;
	out->blocked = cap->iopages ? cap->iopages[i].blocked : 0;
	out->all_entries = cap->all_entries;
}
