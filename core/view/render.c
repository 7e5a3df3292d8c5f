/* SPDX-License-Identifier: MIT */
/*
 * render.c — the one renderer: entry files, info and the capture
 * summary (walk traces: render_walk.c), as `key: value` text or JSON (maps: runs.c).
 *
 * Text: one `key: value` per line in the decoder's fixed field order, hex
 * lowercase with 0x, bits as 0/1, derived flags as true/false.
 * JSON: one object per line, keys sorted (memcmp order), 64-bit values as
 * "0x..." strings, bits and small counts as numbers.  Nothing here depends
 * on time, pointers or load order, so identical captures render to
 * identical bytes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_linux.h"
#include "pt_num.h"
#include "pt_render.h"
#include "render_int.h"

/* ---- fields -------------------------------------------------------------- */

/*
 * One `key: value` line.  Entry files are rendered for every lookup and
 * read of the mount and every entry of `decode --blob`, so the common kinds
 * are formatted by hand rather than through printf (bench/README.md).
 */
/*
 * "KEY: VALUE\n" into B with one append: a line built in place costs one
 * capacity check and one copy instead of four (an entry file is ~25 such
 * lines; the first `grep -r` renders every entry twice: its file and its
 * line in CTX/entries, bench/README.md, issue #35).  A key too long for the
 * stack line goes in pieces.
 */
static void line_put(struct pt_buf *b, const char *key, const char *v, size_t vlen)
{
	char line[128];
	size_t kl = strlen(key);

	if (kl + vlen + 3 > sizeof line) {
		pt_buf_put(b, key, kl);
		pt_buf_put(b, ": ", 2);
		pt_buf_put(b, v, vlen);
		pt_buf_put(b, "\n", 1);
		return;
	}
	memcpy(line, key, kl);
	line[kl] = ':';
	line[kl + 1] = ' ';
	memcpy(line + kl + 2, v, vlen);
	line[kl + 2 + vlen] = '\n';
	pt_buf_put(b, line, kl + vlen + 3);
}

static void line_str(struct pt_buf *b, const char *key, const char *v)
{
	line_put(b, key, v, strlen(v));
}

static void line_num(struct pt_buf *b, const char *key, uint64_t v, bool hex)
{
	char num[24], *end = num + sizeof num, *p;

	if (hex) {
		p = pt_hex_before(end, v, 0);
		*--p = 'x';
		*--p = '0';
	} else {
		p = pt_dec_before(end, v);
	}
	line_put(b, key, p, (size_t)(end - p));
}

/* A field's line: the entry file's kinds, in the formats above. */
static void field_text(struct pt_buf *b, const struct pt_field *f)
{
	switch (f->kind) {
	case PT_FK_BIT:
	case PT_FK_UINT:
		line_num(b, f->key, f->v, false);
		break;
	case PT_FK_HEX:
		line_num(b, f->key, f->v, true);
		break;
	case PT_FK_HEX128:
		pt_buf_puts(b, f->key);
		if (f->v2)
			pt_buf_printf(b, ": 0x%" PRIx64 "%016" PRIx64 "\n", f->v2, f->v);
		else
			pt_buf_printf(b, ": 0x%" PRIx64 "\n", f->v);
		break;
	case PT_FK_BOOL:
		line_str(b, f->key, f->v ? "true" : "false");
		break;
	case PT_FK_STR:
		/* A name the format does not have (an unknown kind): never an empty value. */
		line_str(b, f->key, f->s ? f->s : "unknown");
		break;
	}
}

static void field_json(struct pt_jobj *o, const struct pt_field *f)
{
	char s[48];

	/* a one-bit field is a JSON boolean, a count a number (ptfs-tool(1) JSON) */
	switch (f->kind) {
	case PT_FK_BIT:
		pt_jobj_bool(o, f->key, f->v != 0);
		break;
	case PT_FK_UINT:
		pt_jobj_u(o, f->key, f->v);
		break;
	case PT_FK_HEX:
		pt_jobj_hex(o, f->key, f->v);
		break;
	case PT_FK_HEX128:
		if (f->v2)
			snprintf(s, sizeof s, "\"0x%" PRIx64 "%016" PRIx64 "\"", f->v2, f->v);
		else
			snprintf(s, sizeof s, "\"0x%" PRIx64 "\"", f->v);
		pt_jobj_raw(o, f->key, s);
		break;
	case PT_FK_BOOL:
		pt_jobj_bool(o, f->key, f->v != 0);
		break;
	case PT_FK_STR:
		pt_jobj_str(o, f->key, f->s);
		break;
	}
}

void pt_rd_raw_str(const struct pt_entry *e, char *s, size_t len)
{
	char num[40], *end = num + sizeof num, *p = pt_hex_before(end, e->raw[0], 16);

	if (e->size > 8)
		p = pt_hex_before(p, e->raw[1], 16);
	*--p = 'x';
	*--p = '0';
	size_t n = (size_t)(end - p) < len ? (size_t)(end - p) : len - 1;

	memcpy(s, p, n);
	s[n] = 0;
}

/* The names of target_captured keys for target W of a level's entries. */
/*
 * "Is it captured" in JSON: KEY a boolean (true only when every byte is),
 * and KEY_partial: true beside a false when some bytes are (the text's
 * "partial"); ptfs-tool(1) JSON.
 */
static void jobj_cover(struct pt_jobj *o, const char *key, enum pt_cover c)
{
	char k[64];

	pt_jobj_bool(o, key, c == PT_COVER_FULL);
	if (c == PT_COVER_PARTIAL) {
		snprintf(k, sizeof k, "%s_partial", key);
		pt_jobj_bool(o, k, true);
	}
}

static const char *target_key(const struct pt_entry *e, unsigned w)
{
	if (e->size > 8)
		return w == 0 ? "target_captured_big" : "target_captured_small";
	return "target_captured";
}

/* The same for target_space: one vocabulary with maps and walk (docs/design.md §4). */
static const char *target_space_key(const struct pt_entry *e, unsigned w)
{
	if (e->size > 8)
		return w == 0 ? "target_space_big" : "target_space_small";
	return "target_space";
}

pt_err pt_render_entry(struct pt_buf *b, const struct pt_table *t, uint64_t index,
		       const struct pt_entry *e, enum pt_out out)
{
	const struct pt_format *fmt = t->ctx->fmt;
	const struct pt_level *l = &fmt->levels[t->level];
	char raw[48], va[32];
	uint64_t span = (uint64_t)1 << t->page_shift;

	pt_rd_raw_str(e, raw, sizeof raw);
	pt_va_name(fmt, pt_table_entry_va(t, index), va, sizeof va);
	if (out == PT_OUT_JSON) {
		struct pt_jobj o = {0};

		pt_jobj_str(&o, "level", l->name);
		pt_jobj_u(&o, "depth", l->depth);
		pt_jobj_u(&o, "index", index);
		pt_jobj_str(&o, "entry_space", pt_context_space_name(t->ctx, t->space));
		pt_jobj_hex(&o, "entry_address", pt_table_entry_pa(t, index));
		pt_jobj_hex(&o, "va", pt_table_entry_va(t, index));
		pt_jobj_hex(&o, "span", span);
		pt_jobj_str(&o, "raw", raw);
		for (unsigned i = 0; i < e->nfields; i++)
			field_json(&o, &e->fields[i]);
		pt_jobj_str(&o, "state", pt_state_name(e->state));
		if (e->leaf) {
			pt_jobj_str(&o, "target_space", pt_context_space_name(t->ctx, e->space));
			pt_jobj_hex(&o, "target_address", e->pa);
		}
		for (unsigned w = 0; w < 2; w++) {
			struct pt_table c;

			if (pt_table_child(t, index, e, w, &c)) {
				pt_jobj_str(&o, target_space_key(e, w), pt_context_space_name(t->ctx, c.space));
				jobj_cover(&o, target_key(e, w), c.cover);
			}
		}
		pt_jobj_finish(&o, b);
		pt_buf_put(b, "\n", 1);
		return pt_buf_status(b);
	}
	line_str(b, "level", l->name);
	line_num(b, "depth", l->depth, false);
	line_num(b, "index", index, false);
	line_str(b, "entry_space", pt_context_space_name(t->ctx, t->space));
	line_num(b, "entry_address", pt_table_entry_pa(t, index), true);
	line_str(b, "va", va);
	line_num(b, "span", span, true);
	line_str(b, "raw", raw);
	for (unsigned i = 0; i < e->nfields; i++)
		if (!(e->fields[i].flags & PT_FF_JSON_ONLY))
			field_text(b, &e->fields[i]);
	line_str(b, "state", pt_state_name(e->state));
	/*
	 * Where the page is, in the capture's space names (the aperture fields
	 * above are the hardware's).  e->pa, not a field: it is the address in
	 * the capture's space (less the context's space_bias).
	 */
	if (e->leaf) {
		line_str(b, "target_space", pt_context_space_name(t->ctx, e->space));
		line_num(b, "target_address", e->pa, true);
	}
	for (unsigned w = 0; w < 2; w++) {
		struct pt_table c;

		if (pt_table_child(t, index, e, w, &c)) {
			line_str(b, target_space_key(e, w), pt_context_space_name(t->ctx, c.space));
			line_str(b, target_key(e, w), pt_cover_name(c.cover));
		}
	}
	return pt_buf_status(b);
}

pt_err pt_render_decoded(struct pt_buf *b, const struct pt_format *fmt, int level,
			 const char *const *candidates, uint64_t pa,
			 const struct pt_entry *e, enum pt_out out)
{
	char raw[48];

	pt_rd_raw_str(e, raw, sizeof raw);
	if (out == PT_OUT_JSON) {
		struct pt_jobj o = {0};

		pt_jobj_str(&o, "format", fmt->name);
		if (level >= 0)
			pt_jobj_str(&o, "level", fmt->levels[level].name);
		else
			pt_jobj_raw(&o, "level", "null");
		if (candidates) {
			struct pt_buf v;

			pt_buf_init(&v);
			pt_buf_put(&v, "[", 1);
			for (unsigned i = 0; candidates[i]; i++) {
				if (i)
					pt_buf_put(&v, ", ", 2);
				pt_json_escape(&v, candidates[i]);
			}
			pt_buf_put(&v, "]", 1);
			pt_jobj_buf(&o, "level_candidates", &v);
			pt_buf_free(&v);
		}
		if (pa != UINT64_MAX)
			pt_jobj_hex(&o, "entry_address", pa);
		pt_jobj_str(&o, "raw", raw);
		for (unsigned i = 0; i < e->nfields; i++)
			field_json(&o, &e->fields[i]);
		pt_jobj_str(&o, "state", pt_state_name(e->state));
		pt_jobj_finish(&o, b);
		return pt_buf_status(b);
	}
	pt_buf_printf(b, "format: %s\n", fmt->name);
	if (level >= 0) {
		pt_buf_printf(b, "level: %s\n", fmt->levels[level].name);
	} else {
		pt_buf_puts(b, "level: unknown\n");
		if (candidates) {
			pt_buf_puts(b, "level_candidates:");
			for (unsigned i = 0; candidates[i]; i++)
				pt_buf_printf(b, " %s", candidates[i]);
			pt_buf_puts(b, "\n");
		}
	}
	if (pa != UINT64_MAX)
		pt_buf_printf(b, "entry_address: 0x%" PRIx64 "\n", pa);
	pt_buf_printf(b, "raw: %s\n", raw);
	for (unsigned i = 0; i < e->nfields; i++)
		if (!(e->fields[i].flags & PT_FF_JSON_ONLY))
			field_text(b, &e->fields[i]);
	pt_buf_printf(b, "state: %s\n", pt_state_name(e->state));
	return pt_buf_status(b);
}

/* ---- info ---------------------------------------------------------------- */

struct an_ctx {
	struct pt_buf *b;
	const struct pt_context *ctx;
	enum pt_out out;
	struct pt_buf list;   /* JSON: the array body */
	unsigned n;
};

void pt_render_anomaly(struct pt_buf *b, const struct pt_context *ctx,
		       const struct pt_anomaly *a, enum pt_out out)
{
	char path[256];

	pt_node_path(&a->node, path, sizeof path);
	if (out == PT_OUT_JSON) {
		struct pt_jobj o = {0};

		pt_jobj_str(&o, "context", ctx->name);
		pt_jobj_str(&o, "path", path);
		pt_jobj_str(&o, "anomaly", pt_anomaly_name(a->kind));
		pt_jobj_str(&o, "detail", a->detail);
		pt_jobj_finish(&o, b);
		return;
	}
	pt_buf_printf(b, "%s %s %s %s", ctx->name, path[0] ? path : "-",
		      pt_anomaly_name(a->kind), a->detail);
}

static void info_anomaly(void *ud, const struct pt_anomaly *a)
{
	struct an_ctx *ac = ud;

	if (ac->out == PT_OUT_JSON) {
		if (ac->n)
			pt_buf_put(&ac->list, ", ", 2);
		pt_render_anomaly(&ac->list, ac->ctx, a, PT_OUT_JSON);
	} else {
		pt_buf_puts(&ac->list, "anomaly: ");
		pt_render_anomaly(&ac->list, ac->ctx, a, PT_OUT_TEXT);
		pt_buf_puts(&ac->list, "\n");
	}
	ac->n++;
}

/*
 * Where a context an [iommu] section found comes from (docs/design.md
 * §2.7): the IOMMU, the device, its PASID; an SMMUv3 context's SubstreamID
 * is its format's own `ssid` line.
 */
static void info_iommu(struct pt_buf *b, struct pt_jobj *o, const struct pt_context *ctx)
{
	const struct pt_ctx_iommu *io = ctx->iommu;
	const struct pt_pci_dev *pci = pt_linux_pci_of(ctx->cap, io);
	char bdf[24];

	if (io->segment)
		snprintf(bdf, sizeof bdf, "%04x:%02x:%02x.%x", io->segment, io->bdf >> 8,
			 (io->bdf >> 3) & 31, io->bdf & 7);
	else
		snprintf(bdf, sizeof bdf, "%02x:%02x.%x", io->bdf >> 8, (io->bdf >> 3) & 31, io->bdf & 7);
	if (o) {
		pt_jobj_str(o, "iommu", io->iommu);
		pt_jobj_str(o, "iommu_type", io->type);
		if (io->has_bdf)
			pt_jobj_str(o, "bdf", bdf);
		if (io->has_sid)
			pt_jobj_u(o, "sid", io->sid);
		if (io->has_pasid)
			pt_jobj_u(o, "pasid", io->pasid);
		pt_jobj_str(o, "iommu_entry", io->entry);
		pt_jobj_hex(o, "iommu_entry_address", io->entry_addr);
		if (pci)
			pt_linux_pci_fields(ctx->cap, pci, PT_LINUX_PCI_INFO, NULL, o);
		return;
	}
	pt_buf_printf(b, "iommu: %s\niommu_type: %s\n", io->iommu, io->type);
	if (io->has_bdf)
		pt_buf_printf(b, "bdf: %s\n", bdf);
	if (io->has_sid)
		pt_buf_printf(b, "sid: %" PRIu64 "\n", io->sid);
	if (io->has_pasid)
		pt_buf_printf(b, "pasid: %" PRIu64 "\n", io->pasid);
	pt_buf_printf(b, "iommu_entry: %s\niommu_entry_address: 0x%" PRIx64 "\n", io->entry,
		      io->entry_addr);
	/* the guest's name for the function, when its kernel or QEMU gave one (docs/design.md §3.3) */
	if (pci)
		pt_linux_pci_fields(ctx->cap, pci, PT_LINUX_PCI_INFO, b, NULL);
}

pt_err pt_render_info(struct pt_buf *b, const struct pt_context *ctx, enum pt_out out,
		      struct pt_readctl *rc)
{
	const struct pt_format *fmt = ctx->fmt;
	unsigned nl = pt_format_nlevels(fmt);
	struct an_ctx ac = {.b = b, .ctx = ctx, .out = out};
	struct pt_stats st;
	struct pt_table root;
	char size[24];
	pt_err err;

	pt_buf_init(&ac.list);
	err = pt_context_scan(ctx, &st, info_anomaly, &ac, rc);
	if (err != PT_OK) {
		pt_buf_free(&ac.list);
		return err;
	}
	pt_table_root(ctx, &root);

	if (out == PT_OUT_JSON) {
		struct pt_jobj o = {0}, lv = {0}, mb = {0}, ann = {0}, pbs = {0};

		pt_jobj_str(&o, "context", ctx->name);
		pt_jobj_str(&o, "format", fmt->name);
		pt_jobj_str(&o, "root_space", pt_context_space_name(ctx, ctx->root_space));
		pt_jobj_hex(&o, "root_address", ctx->root_addr);
		pt_jobj_u(&o, "root_entries", ctx->root_entries);
		jobj_cover(&o, "root_captured", root.cover);
		if (fmt->info_json)
			fmt->info_json(ctx, &o);
		if (ctx->iommu)
			info_iommu(b, &o, ctx);
		for (size_t i = 0; i < ctx->nannotations; i++)
			pt_jobj_str(&ann, ctx->annotations[i].key, ctx->annotations[i].value);
		pt_jobj_obj(&o, "annotations", &ann);
		for (unsigned i = 0; i < nl; i++) {
			struct pt_jobj one = {0};

			pt_jobj_u(&one, "tables", st.tables[i]);
			pt_jobj_u(&one, "entry_count", st.entries[i]);   /* "entries" is decode's list */
			pt_jobj_u(&one, "mapped", st.mapped[i]);
			pt_jobj_obj(&lv, fmt->levels[i].name, &one);
		}
		pt_jobj_obj(&o, "levels", &lv);
		pt_jobj_u(&o, "pages", st.pages);
		pt_jobj_bool(&o, "pages_truncated", st.pages_truncated);
		if (st.tables_truncated)
			pt_jobj_bool(&o, "tables_truncated", true);
		for (unsigned s = 0; s < 64; s++)
			if (st.bytes_by_shift[s]) {
				pt_size_str((uint64_t)1 << s, size, sizeof size);
				pt_jobj_hex(&mb, size, st.bytes_by_shift[s]);
				pt_jobj_u(&pbs, size, st.bytes_by_shift[s] >> s);
			}
		pt_jobj_obj(&o, "mapped_bytes", &mb);
		pt_jobj_obj(&o, "pages_by_size", &pbs);
		pt_jobj_u(&o, "anomaly_count", st.anomalies);
		{
			struct pt_buf v;

			pt_buf_init(&v);
			pt_buf_put(&v, "[", 1);
			if (ac.list.len)
				pt_buf_put(&v, ac.list.data, ac.list.len);
			pt_buf_put(&v, "]", 1);
			pt_jobj_buf(&o, "anomalies", &v);
			pt_buf_free(&v);
		}
		pt_jobj_finish(&o, b);
		pt_buf_put(b, "\n", 1);
	} else {
		pt_buf_printf(b, "context: %s\nformat: %s\n", ctx->name, fmt->name);
		pt_buf_printf(b, "root: %s:0x%" PRIx64 "\nroot_entries: %" PRIu64 "\nroot_captured: %s\n",
			      pt_context_space_name(ctx, ctx->root_space), ctx->root_addr, ctx->root_entries,
			      pt_cover_name(root.cover));
		if (fmt->info_text)
			fmt->info_text(ctx, b);
		if (ctx->iommu)
			info_iommu(b, NULL, ctx);
		for (size_t i = 0; i < ctx->nannotations; i++)
			pt_buf_printf(b, "%s: %s\n", ctx->annotations[i].key, ctx->annotations[i].value);
		for (unsigned i = 0; i < nl; i++)
			pt_buf_printf(b, "level.%s: tables %" PRIu64 " entries %" PRIu64
				      " mapped %" PRIu64 "\n", fmt->levels[i].name, st.tables[i],
				      st.entries[i], st.mapped[i]);
		if (st.tables_truncated)
			pt_buf_printf(b, "tables_truncated: true (more than %" PRIu64 " entries read)\n",
				      PT_SCAN_ENTRIES_MAX);
		pt_buf_printf(b, "pages: %" PRIu64 "\n", st.pages);
		if (st.pages_truncated)
			pt_buf_printf(b, "pages_truncated: true\npages_truncated_at_va: 0x%0*" PRIx64 "\n",
				      (int)fmt->va_digits, st.truncated_va);
		/* the page count of each size beside its bytes (whole pages: bytes / size) */
		for (unsigned s = 0; s < 64; s++)
			if (st.bytes_by_shift[s]) {
				pt_size_str((uint64_t)1 << s, size, sizeof size);
				pt_buf_printf(b, "pages.%s: %" PRIu64 "\n", size, st.bytes_by_shift[s] >> s);
			}
		for (unsigned s = 0; s < 64; s++)
			if (st.bytes_by_shift[s]) {
				char total[48];

				pt_size_str((uint64_t)1 << s, size, sizeof size);
				pt_size_human(st.bytes_by_shift[s], total, sizeof total);
				pt_buf_printf(b, "mapped_bytes.%s: %s\n", size, total);
			}
		pt_buf_printf(b, "anomalies: %" PRIu64 "\n", st.anomalies);
		if (ac.list.len)
			pt_buf_put(b, ac.list.data, ac.list.len);
	}
	if (ac.list.oom)
		b->oom = true;
	pt_buf_free(&ac.list);
	return pt_buf_status(b);
}

/* ---- capture ------------------------------------------------------------- */

pt_err pt_render_capture(struct pt_buf *b, const struct pt_capture *cap, enum pt_out out)
{
	const struct pt_format *fmt = pt_capture_format(cap);
	size_t nr = pt_capture_region_count(cap), nc = pt_capture_context_count(cap);
	size_t na = pt_capture_annotation_count(cap);
	char size[24];

	if (out == PT_OUT_JSON) {
		struct pt_jobj o = {0}, ann = {0};
		struct pt_buf regs, ctxs;

		pt_jobj_str(&o, "format", fmt->name);
		pt_jobj_u(&o, "version", pt_capture_version(cap));
		pt_jobj_str(&o, "source", pt_path_base(pt_capture_source(cap)));
		if (pt_capture_source_kind(cap)[0] != 'c')   /* not "capture archive": a source read natively */
			pt_jobj_str(&o, "source_kind", pt_capture_source_kind(cap));
		pt_jobj_str(&o, "gpu", pt_capture_gpu(cap));
		pt_jobj_str(&o, "description", pt_capture_description(cap));
		for (size_t i = 0; i < na; i++)
			pt_jobj_str(&ann, pt_capture_annotation(cap, i)->key,
				     pt_capture_annotation(cap, i)->value);
		pt_jobj_obj(&o, "annotations", &ann);
		pt_buf_init(&regs);
		pt_buf_put(&regs, "[", 1);
		for (size_t i = 0; i < nr; i++) {
			const struct pt_region_info *r = pt_capture_region(cap, i);
			struct pt_jobj ro = {0};

			if (i)
				pt_buf_put(&regs, ", ", 2);
			pt_jobj_str(&ro, "name", r->name);
			pt_jobj_str(&ro, "space", pt_capture_space_name(cap, r->space));
			pt_jobj_hex(&ro, "base", r->base);
			pt_jobj_hex(&ro, "size", r->size);
			pt_jobj_str(&ro, "file", r->file);
			pt_jobj_finish(&ro, &regs);
		}
		pt_buf_put(&regs, "]", 1);
		pt_jobj_buf(&o, "regions", &regs);
		pt_buf_free(&regs);
		pt_buf_init(&ctxs);
		pt_buf_put(&ctxs, "[", 1);
		for (size_t i = 0; i < nc; i++) {
			const struct pt_context *c = pt_capture_context(cap, i);
			struct pt_jobj co = {0};

			if (i)
				pt_buf_put(&ctxs, ", ", 2);
			pt_jobj_str(&co, "name", c->name);
			if (strcmp(c->fmt->name, fmt->name))   /* a mixed capture: this context's format */
				pt_jobj_str(&co, "format", c->fmt->name);
			pt_jobj_str(&co, "root_space", pt_context_space_name(c, c->root_space));
			pt_jobj_hex(&co, "root_address", c->root_addr);
			pt_jobj_finish(&co, &ctxs);
		}
		pt_buf_put(&ctxs, "]", 1);
		pt_jobj_buf(&o, "contexts", &ctxs);
		pt_buf_free(&ctxs);
		pt_jobj_finish(&o, b);
		pt_buf_put(b, "\n", 1);
		return pt_buf_status(b);
	}
	pt_buf_printf(b, "format: %s\nversion: %u\nsource: %s\n", fmt->name,
		      pt_capture_version(cap), pt_path_base(pt_capture_source(cap)));
	if (pt_capture_source_kind(cap)[0] != 'c')   /* not "capture archive": a source read natively */
		pt_buf_printf(b, "source_kind: %s\n", pt_capture_source_kind(cap));
	if (pt_capture_gpu(cap))
		pt_buf_printf(b, "gpu: %s\n", pt_capture_gpu(cap));
	if (pt_capture_description(cap))
		pt_buf_printf(b, "description: %s\n", pt_capture_description(cap));
	for (size_t i = 0; i < na; i++)
		pt_buf_printf(b, "%s: %s\n", pt_capture_annotation(cap, i)->key,
			      pt_capture_annotation(cap, i)->value);
	for (size_t i = 0; i < nr; i++) {
		const struct pt_region_info *r = pt_capture_region(cap, i);

		pt_size_str(r->size, size, sizeof size);
		pt_buf_printf(b, "region: %s %s 0x%" PRIx64 " %s %s\n", r->name,
			      pt_capture_space_name(cap, r->space), r->base, size, r->file);
	}
	for (size_t i = 0; i < nc; i++) {
		const struct pt_context *c = pt_capture_context(cap, i);

		pt_buf_printf(b, "context: %s %s:0x%" PRIx64 "%s%s\n", c->name,
			      pt_context_space_name(c, c->root_space), c->root_addr,
			      /* a source's capture may mix formats: name the others */
			      strcmp(c->fmt->name, fmt->name) ? " " : "",
			      strcmp(c->fmt->name, fmt->name) ? c->fmt->name : "");
	}
	return pt_buf_status(b);
}
