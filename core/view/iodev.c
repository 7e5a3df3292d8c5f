/* SPDX-License-Identifier: MIT */
/*
 * iodev.c — what an IOMMU has set up, in two files beside its tables
 * (docs/design.md §2.7, ptfs(1) "THE IOMMU TREE", issue #39 item 5):
 *
 *   NAME/devices   one lspci-like line per device context the IOMMU made
 *                  (a BDF or StreamID, its PASID or SubstreamID, the
 *                  context, the translation its entry asks for, the
 *                  domain, ASID or VMID, the levels walked, the pages
 *                  mapped, the root), ordered by BDF or StreamID, then
 *                  PASID or SubstreamID, then name;
 *   NAME/info      the IOMMU: its registers, the contexts it made, and the
 *                  present entries that block or abort every request
 *                  (contexts only with all_entries: Linux's AMD-Vi driver
 *                  marks every DTE valid, translation blocked, and its
 *                  SMMUv3 driver writes an abort STE for every unused
 *                  StreamID — drivers/iommu/amd/init.c,
 *                  drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.c).
 *
 * The entry fields come from core/formats/ioent.c (the one decoder of
 * IOMMU table entries), read through iotab.c as the tree's entry files are.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_ioent.h"
#include "pt_linux.h"
#include "pt_tree.h"
#include "tree_int.h"

struct iodev {
	const struct pt_context *ctx;
	uint64_t dev, sub;   /* BDF (segment above) or StreamID; PASID or SSID */
	bool has_sub;
};

static int cmp_dev(const void *x, const void *y)
{
	const struct iodev *a = x, *b = y;

	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->has_sub != b->has_sub)
		return a->has_sub ? 1 : -1;
	if (a->sub != b->sub)
		return a->sub < b->sub ? -1 : 1;
	return strcmp(a->ctx->name, b->ctx->name);
}

/* What a device line says besides its names. */
struct iodev_line {
	const char *translation;  /* ioent.c's word for the entry ("second-level", "blocked") */
	const char *domain_key;   /* "domain", "asid", "vmid"; NULL: none read */
	uint64_t domain;
	bool tables;              /* the context walks tables (not pass-through, blocked, ...) */
	unsigned levels;
	uint64_t pages;
	bool pages_cut;           /* the count stopped at the caller's bound */
};

static bool tableless(const char *t)
{
	return t && (!strcmp(t, "pass-through") || !strcmp(t, "blocked") || !strcmp(t, "abort") ||
		     !strcmp(t, "bypass"));
}

/* D's line: the entry's fields, and the context's levels and pages (bounded by RC). */
static void dev_line(const struct pt_tree *tree, const struct pt_iommu_info *io,
		     const struct iodev *d, struct iodev_line *ln, struct pt_readctl *rc)
{
	struct pt_page_iter it;
	struct pt_page pg;
	struct pt_table root;

	memset(ln, 0, sizeof *ln);
	pt_iotab_dev_entry(tree, io, d->ctx->iommu, &ln->translation, &ln->domain_key, &ln->domain);
	ln->tables = !tableless(ln->translation);
	if (!ln->tables)
		return;
	pt_table_root(d->ctx, &root);
	ln->levels = pt_format_nlevels(d->ctx->fmt) - (unsigned)(root.level > 0 ? root.level : 0);
	pt_pages_init(&it, d->ctx, 0, rc);
	it.flags = PT_DECODE_SUMMARY;
	while (pt_pages_next(&it, &pg))
		ln->pages++;
	ln->pages_cut = it.cut || pt_readctl_cancelled(rc);
}

/*
 * What the load read from the IOMMU's tables (pt_capture_iommu_counts(),
 * load/iommu_seen.c): the counts, whether a bound stopped it, and the
 * anomaly ptfs-tool check reports when its tables yield no device or
 * mostly malformed entries (registers that point at the wrong page).
 */
static void counts_text(struct pt_buf *b, const char *name, const struct pt_iommu_counts *n)
{
	pt_buf_printf(b, "entries: %" PRIu64 "\nentries_present: %" PRIu64 "\nentries_malformed: %"
		      PRIu64 "\ntables_not_captured: %" PRIu64 "\ntables_read_again: %" PRIu64
		      "\ndevices: %" PRIu64 "\n", n->entries, n->present, n->malformed, n->uncaptured,
		      n->repeats, n->devices);
	if (n->bounded)
		pt_buf_puts(b, "bounded: its walk stopped at its bound on device contexts\n");
	if (n->anomaly)
		pt_buf_printf(b, "anomaly: %s - %s %s\n", name, n->anomaly, n->detail);
}

static void counts_json(struct pt_jobj *j, const struct pt_iommu_counts *n)
{
	pt_jobj_u(j, "entries", n->entries);
	pt_jobj_u(j, "entries_present", n->present);
	pt_jobj_u(j, "entries_malformed", n->malformed);
	pt_jobj_u(j, "tables_not_captured", n->uncaptured);
	pt_jobj_u(j, "tables_read_again", n->repeats);
	pt_jobj_u(j, "devices", n->devices);
	pt_jobj_bool(j, "bounded", n->bounded);
	if (n->anomaly) {
		pt_jobj_str(j, "anomaly", n->anomaly);
		pt_jobj_str(j, "anomaly_detail", n->detail);
	}
}

/* "00:03.0" (VT-d, AMD-Vi: lspci's form, "SSSS:" off segment 0) or "sid=N". */
static void dev_id(const struct pt_ctx_iommu *o, char *s, size_t n)
{
	if (o->has_sid)
		snprintf(s, n, "sid=%" PRIu64, o->sid);
	else if (o->segment)
		snprintf(s, n, "%04x:%02x:%02x.%x", o->segment, o->bdf >> 8, (o->bdf >> 3) & 31,
			 o->bdf & 7);
	else
		snprintf(s, n, "%02x:%02x.%x", o->bdf >> 8, (o->bdf >> 3) & 31, o->bdf & 7);
}

static void line_text(struct pt_buf *b, const struct iodev *d, const struct iodev_line *ln)
{
	const struct pt_ctx_iommu *o = d->ctx->iommu;
	const struct pt_pci_dev *pci;
	char id[32];

	dev_id(o, id, sizeof id);
	pt_buf_puts(b, id);
	if (d->has_sub)
		pt_buf_printf(b, " %s=%" PRIu64, o->has_pasid ? "pasid" : "ssid", d->sub);
	pt_buf_printf(b, " context=%s translation=%s", d->ctx->name,
		      ln->translation ? ln->translation : "?");
	if (ln->domain_key)
		pt_buf_printf(b, " %s=%" PRIu64, ln->domain_key, ln->domain);
	if (ln->tables)
		pt_buf_printf(b, " levels=%u pages=%" PRIu64 "%s root=%s:0x%" PRIx64, ln->levels,
			      ln->pages, ln->pages_cut ? "+" : "",
			      pt_context_space_name(d->ctx, d->ctx->root_space), d->ctx->root_addr);
	/* the guest's name for the function, when its kernel or QEMU gave one (docs/design.md §3.3) */
	if ((pci = pt_linux_pci_of(d->ctx->cap, o)))
		pt_linux_pci_fields(d->ctx->cap, pci, PT_LINUX_PCI_LINE, b, NULL);
	pt_buf_puts(b, "\n");
}

static void line_json(struct pt_buf *b, const struct pt_iommu_info *io, const struct iodev *d,
		      const struct iodev_line *ln)
{
	const struct pt_ctx_iommu *o = d->ctx->iommu;
	const struct pt_pci_dev *pci;
	struct pt_jobj j = {0};
	char id[32];

	pt_jobj_str(&j, "iommu", io->name);
	pt_jobj_str(&j, "context", d->ctx->name);
	if (o->has_sid) {
		pt_jobj_u(&j, "sid", o->sid);
	} else {
		dev_id(o, id, sizeof id);
		pt_jobj_str(&j, "bdf", id);
		pt_jobj_u(&j, "segment", o->segment);
	}
	if (d->has_sub)
		pt_jobj_u(&j, o->has_pasid ? "pasid" : "ssid", d->sub);
	pt_jobj_str(&j, "translation", ln->translation);
	if (ln->domain_key)
		pt_jobj_u(&j, ln->domain_key, ln->domain);
	if (ln->tables) {
		pt_jobj_u(&j, "levels", ln->levels);
		pt_jobj_u(&j, "pages", ln->pages);
		pt_jobj_bool(&j, "pages_cut", ln->pages_cut);
		pt_jobj_str(&j, "root_space", pt_context_space_name(d->ctx, d->ctx->root_space));
		pt_jobj_hex(&j, "root_address", d->ctx->root_addr);
	}
	if ((pci = pt_linux_pci_of(d->ctx->cap, o)))
		pt_linux_pci_fields(d->ctx->cap, pci, PT_LINUX_PCI_LINE, NULL, &j);
	pt_jobj_finish(&j, b);
	pt_buf_puts(b, "\n");
}

pt_err pt_tree_iommu_devices(const struct pt_tree *tree, size_t i, enum pt_out out,
			     struct pt_buf *b, struct pt_readctl *rc)
{
	const struct pt_iommu_info *io;
	struct iodev *v;
	size_t n = 0, nc = pt_capture_context_count(tree->cap);

	if (i >= tree->niommu)
		return PT_E_NOTFOUND;
	io = &tree->io[i];
	v = calloc(nc ? nc : 1, sizeof *v);
	if (!v)
		return PT_E_NOMEM;
	for (size_t c = 0; c < nc; c++) {
		const struct pt_context *ctx = pt_capture_context(tree->cap, c);
		const struct pt_ctx_iommu *o = ctx->iommu;

		if (!o || strcmp(o->iommu, io->name))
			continue;
		v[n].ctx = ctx;
		v[n].dev = o->has_sid ? o->sid : (uint64_t)o->segment << 16 | o->bdf;
		v[n].has_sub = o->has_pasid || o->has_ssid;
		v[n++].sub = o->has_pasid ? o->pasid : o->ssid;
	}
	qsort(v, n, sizeof *v, cmp_dev);
	for (size_t k = 0; k < n && !pt_readctl_cancelled(rc); k++) {
		struct iodev_line ln;

		dev_line(tree, io, &v[k], &ln, rc);
		if (out == PT_OUT_JSON)
			line_json(b, io, &v[k], &ln);
		else
			line_text(b, &v[k], &ln);
	}
	free(v);
	return b->oom ? PT_E_NOMEM : PT_OK;
}

pt_err pt_tree_iommu_info(const struct pt_tree *tree, size_t i, enum pt_out out, struct pt_buf *b)
{
	const struct pt_iommu_info *io;
	const uint64_t *pages;
	size_t npages;
	struct pt_iommu_counts n;
	struct pt_jobj j = {0};

	if (i >= tree->niommu)
		return PT_E_NOTFOUND;
	io = &tree->io[i];
	npages = pt_capture_iommu_pages(tree->cap, i, &pages);
	pt_capture_iommu_counts(tree->cap, i, &n);
	if (out == PT_OUT_JSON) {
		pt_jobj_str(&j, "iommu", io->name);
		pt_jobj_str(&j, "type", io->type);
		pt_jobj_str(&j, "space", pt_capture_space_name(tree->cap, io->space));
		for (unsigned k = 0; k < PT_IK__COUNT; k++)
			if ((io->fam->keys & PT_IK_TABLE_REGS) >> k & 1)
				pt_jobj_hex(&j, pt_iommu_key_names[k], io->reg[k]);
		pt_jobj_u(&j, "contexts", io->contexts);
		pt_jobj_u(&j, "blocked", io->blocked);
		pt_jobj_bool(&j, "all_entries", io->all_entries);
		pt_jobj_u(&j, "table_pages", npages);
		counts_json(&j, &n);
		pt_jobj_finish(&j, b);
		pt_buf_puts(b, "\n");
		return b->oom ? PT_E_NOMEM : PT_OK;
	}
	pt_buf_printf(b, "iommu: %s\ntype: %s\nspace: %s\n", io->name, io->type,
		      pt_capture_space_name(tree->cap, io->space));
	/* the registers that name its tables (the family's keys) */
	for (unsigned k = 0; k < PT_IK__COUNT; k++)
		if ((io->fam->keys & PT_IK_TABLE_REGS) >> k & 1)
			pt_buf_printf(b, "%s: 0x%" PRIx64 "\n", pt_iommu_key_names[k], io->reg[k]);
	pt_buf_printf(b, "contexts: %zu\nblocked: %zu (%s)\ntable_pages: %zu\n", io->contexts,
		      io->blocked, io->all_entries ? "contexts too: all_entries" :
		      "in the tables, not contexts: all_entries makes them contexts", npages);
	counts_text(b, io->name, &n);
	return b->oom ? PT_E_NOMEM : PT_OK;
}

int pt_tree_iommu_find(const struct pt_tree *tree, const char *name)
{
	for (size_t i = 0; i < tree->niommu; i++)
		if (!strcmp(tree->io[i].name, name))
			return (int)i;
	return -1;
}
