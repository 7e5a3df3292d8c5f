/* SPDX-License-Identifier: MIT */
/*
 * render.c — the one renderer: entry files, walk traces, maps, info and the
 * capture summary, as `key: value` text or JSON.
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

#include "pt_render.h"

/* ---- buffer ------------------------------------------------------------- */

void pt_buf_init(struct pt_buf *b)
{
	b->data = NULL;
	b->len = b->cap = 0;
	b->oom = false;
}

void pt_buf_free(struct pt_buf *b)
{
	free(b->data);
	pt_buf_init(b);
}

void pt_buf_reset(struct pt_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = 0;
}

static bool buf_reserve(struct pt_buf *b, size_t n)
{
	size_t want;
	char *p;

	if (b->oom)
		return false;
	if (b->len + n + 1 <= b->cap)
		return true;
	want = b->cap ? b->cap : 256;
	while (want < b->len + n + 1)
		want *= 2;
	p = realloc(b->data, want);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->data = p;
	b->cap = want;
	return true;
}

void pt_buf_put(struct pt_buf *b, const char *s, size_t n)
{
	if (!buf_reserve(b, n))
		return;
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = 0;
}

void pt_buf_puts(struct pt_buf *b, const char *s)
{
	pt_buf_put(b, s, strlen(s));
}

void pt_buf_printf(struct pt_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	/*
	 * Format straight into the spare room; only a line that does not fit
	 * is formatted twice.  Measuring every line first (vsnprintf(NULL, 0))
	 * doubled the cost of every render (bench/run: decode, grep -r).
	 */
	if (!buf_reserve(b, 128))
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= b->cap - b->len) {
		if (!buf_reserve(b, (size_t)n))
			return;
		va_start(ap, fmt);
		vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

static pt_err buf_status(const struct pt_buf *b)
{
	return b->oom ? PT_E_NOMEM : PT_OK;
}

void pt_size_str(uint64_t size, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	int u = -1;

	while (size && u < 5 && (size & 1023) == 0) {
		size >>= 10;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%" PRIu64, size);
	else
		snprintf(buf, len, "%" PRIu64 "%c", size, units[u]);
}

/*
 * A total as people write it: "2.7G", "640K", "2M", "512" — in the largest
 * unit it reaches, with one decimal when that unit does not divide it
 * (info's mapped_bytes; page sizes stay exact with pt_size_str()).
 */
static void size_human(uint64_t size, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	uint64_t whole, rem, tenths;
	unsigned sh;
	int u = 0;

	if (size < 1024) {
		snprintf(buf, len, "%" PRIu64, size);
		return;
	}
	while (u < 5 && size >> (10 * (u + 1)) >= 1024)
		u++;
	sh = 10 * (unsigned)(u + 1);
	whole = size >> sh;
	rem = size & ((UINT64_C(1) << sh) - 1);
	if (rem == 0) {
		snprintf(buf, len, "%" PRIu64 "%c", whole, units[u]);
		return;
	}
	/* rem < 2^60, so rem * 10 fits in 64 bits */
	tenths = (rem * 10 + (UINT64_C(1) << (sh - 1))) >> sh;
	if (tenths == 10) {
		whole++;
		tenths = 0;
	}
	if (whole == 1024 && u < 5) {
		whole = 1;
		u++;
	}
	snprintf(buf, len, "%" PRIu64 ".%" PRIu64 "%c", whole, tenths, units[u]);
}

/* ---- JSON object with sorted keys ---------------------------------------- */

struct jmem {
	char *key;
	char *val;
};

struct jobj {
	struct jmem *m;
	size_t n, cap;
	bool oom;
};

static void json_escape(struct pt_buf *b, const char *s)
{
	pt_buf_put(b, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			char e[2] = {'\\', (char)c};
			pt_buf_put(b, e, 2);
		} else if (c < 0x20 || c == 0x7f) {
			pt_buf_printf(b, "\\u%04x", c);
		} else {
			pt_buf_put(b, (const char *)&c, 1);
		}
	}
	pt_buf_put(b, "\"", 1);
}

static void jobj_add_raw(struct jobj *o, const char *key, const char *val)
{
	if (o->oom)
		return;
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 16;
		struct jmem *m = realloc(o->m, cap * sizeof *m);

		if (!m) {
			o->oom = true;
			return;
		}
		o->m = m;
		o->cap = cap;
	}
	o->m[o->n].key = strdup(key);
	o->m[o->n].val = strdup(val);
	if (!o->m[o->n].key || !o->m[o->n].val) {
		free(o->m[o->n].key);
		free(o->m[o->n].val);
		o->oom = true;
		return;
	}
	o->n++;
}

static void jobj_add_buf(struct jobj *o, const char *key, struct pt_buf *v)
{
	if (v->oom)
		o->oom = true;
	else
		jobj_add_raw(o, key, v->data ? v->data : "");
}

static void jobj_add_str(struct jobj *o, const char *key, const char *s)
{
	struct pt_buf v;

	if (!s) {
		jobj_add_raw(o, key, "null");
		return;
	}
	pt_buf_init(&v);
	json_escape(&v, s);
	jobj_add_buf(o, key, &v);
	pt_buf_free(&v);
}

static void jobj_add_hex(struct jobj *o, const char *key, uint64_t v)
{
	char s[32];

	snprintf(s, sizeof s, "\"0x%" PRIx64 "\"", v);
	jobj_add_raw(o, key, s);
}

static void jobj_add_u(struct jobj *o, const char *key, uint64_t v)
{
	char s[32];

	snprintf(s, sizeof s, "%" PRIu64, v);
	jobj_add_raw(o, key, s);
}

static void jobj_add_bool(struct jobj *o, const char *key, bool v)
{
	jobj_add_raw(o, key, v ? "true" : "false");
}

static int jmem_cmp(const void *a, const void *b)
{
	return strcmp(((const struct jmem *)a)->key, ((const struct jmem *)b)->key);
}

/* Emits O with sorted keys into B and frees it.  Duplicate keys keep the first. */
static void jobj_finish(struct jobj *o, struct pt_buf *b)
{
	if (o->oom)
		b->oom = true;
	if (o->n > 1)
		qsort(o->m, o->n, sizeof *o->m, jmem_cmp);
	pt_buf_put(b, "{", 1);
	for (size_t i = 0, k = 0; i < o->n; i++) {
		if (i && strcmp(o->m[i].key, o->m[i - 1].key) == 0)
			continue;
		if (k++)
			pt_buf_put(b, ", ", 2);
		json_escape(b, o->m[i].key);
		pt_buf_put(b, ": ", 2);
		pt_buf_puts(b, o->m[i].val);
	}
	pt_buf_put(b, "}", 1);
	for (size_t i = 0; i < o->n; i++) {
		free(o->m[i].key);
		free(o->m[i].val);
	}
	free(o->m);
	o->m = NULL;
	o->n = o->cap = 0;
}

/* Finishes CHILD into a string and adds it to O under KEY. */
static void jobj_add_obj(struct jobj *o, const char *key, struct jobj *child)
{
	struct pt_buf v;

	pt_buf_init(&v);
	jobj_finish(child, &v);
	jobj_add_buf(o, key, &v);
	pt_buf_free(&v);
}

/* ---- fields -------------------------------------------------------------- */

/* Hex digits of V (lowercase, no leading zeros; "0" for 0) into the END of BUF; returns the start. */
static char *hex_digits(uint64_t v, char *end)
{
	static const char digits[] = "0123456789abcdef";

	do {
		*--end = digits[v & 15];
		v >>= 4;
	} while (v);
	return end;
}

static char *dec_digits(uint64_t v, char *end)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

/*
 * One `key: value` line.  Entry files are rendered for every lookup and
 * read of the mount and every entry of `decode --blob`, so the common kinds
 * are formatted by hand rather than through printf (bench/README.md).
 */
static void field_text(struct pt_buf *b, const struct pt_field *f)
{
	char num[48], *end = num + sizeof num, *p;

	pt_buf_puts(b, f->key);
	pt_buf_put(b, ": ", 2);
	switch (f->kind) {
	case PT_FK_BIT:
	case PT_FK_UINT:
		p = dec_digits(f->v, end);
		pt_buf_put(b, p, (size_t)(end - p));
		break;
	case PT_FK_HEX:
		p = hex_digits(f->v, end);
		*--p = 'x';
		*--p = '0';
		pt_buf_put(b, p, (size_t)(end - p));
		break;
	case PT_FK_HEX128:
		if (f->v2)
			pt_buf_printf(b, "0x%" PRIx64 "%016" PRIx64, f->v2, f->v);
		else
			pt_buf_printf(b, "0x%" PRIx64, f->v);
		break;
	case PT_FK_BOOL:
		pt_buf_puts(b, f->v ? "true" : "false");
		break;
	case PT_FK_STR:
		/* A name the format does not have (an unknown kind): never an empty value. */
		pt_buf_puts(b, f->s ? f->s : "unknown");
		break;
	}
	pt_buf_put(b, "\n", 1);
}

static void field_json(struct jobj *o, const struct pt_field *f)
{
	char s[48];

	switch (f->kind) {
	case PT_FK_BIT:
	case PT_FK_UINT:
		jobj_add_u(o, f->key, f->v);
		break;
	case PT_FK_HEX:
		jobj_add_hex(o, f->key, f->v);
		break;
	case PT_FK_HEX128:
		if (f->v2)
			snprintf(s, sizeof s, "\"0x%" PRIx64 "%016" PRIx64 "\"", f->v2, f->v);
		else
			snprintf(s, sizeof s, "\"0x%" PRIx64 "\"", f->v);
		jobj_add_raw(o, f->key, s);
		break;
	case PT_FK_BOOL:
		jobj_add_bool(o, f->key, f->v != 0);
		break;
	case PT_FK_STR:
		jobj_add_str(o, f->key, f->s);
		break;
	}
}

static void raw_str(const struct pt_entry *e, char *s, size_t len)
{
	if (e->size > 8)
		snprintf(s, len, "0x%016" PRIx64 "%016" PRIx64, e->raw[1], e->raw[0]);
	else
		snprintf(s, len, "0x%016" PRIx64, e->raw[0]);
}

/* The names of target_captured keys for target W of a level's entries. */
static const char *target_key(const struct pt_entry *e, unsigned w)
{
	if (e->size > 8)
		return w == 0 ? "target_captured_big" : "target_captured_small";
	return "target_captured";
}

/* The same for target_space: one vocabulary with maps and walk (DESIGN §4). */
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

	raw_str(e, raw, sizeof raw);
	pt_va_name(fmt, pt_table_entry_va(t, index), va, sizeof va);
	if (out == PT_OUT_JSON) {
		struct jobj o = {0};

		jobj_add_str(&o, "level", l->name);
		jobj_add_u(&o, "depth", l->depth);
		jobj_add_u(&o, "index", index);
		jobj_add_str(&o, "entry_space", fmt->spaces[t->space]);
		jobj_add_hex(&o, "entry_address", pt_table_entry_pa(t, index));
		jobj_add_hex(&o, "va", pt_table_entry_va(t, index));
		jobj_add_hex(&o, "span", span);
		jobj_add_str(&o, "raw", raw);
		for (unsigned i = 0; i < e->nfields; i++)
			field_json(&o, &e->fields[i]);
		jobj_add_str(&o, "state", pt_state_name(e->state));
		if (e->leaf) {
			jobj_add_str(&o, "target_space", fmt->spaces[e->space]);
			jobj_add_hex(&o, "target_address", e->pa);
		}
		for (unsigned w = 0; w < 2; w++) {
			struct pt_table c;

			if (pt_table_child(t, index, e, w, &c)) {
				jobj_add_str(&o, target_space_key(e, w), fmt->spaces[c.space]);
				jobj_add_str(&o, target_key(e, w), pt_cover_name(c.cover));
			}
		}
		jobj_finish(&o, b);
		pt_buf_put(b, "\n", 1);
		return buf_status(b);
	}
	pt_buf_printf(b, "level: %s\ndepth: %u\nindex: %" PRIu64 "\n", l->name, l->depth, index);
	pt_buf_printf(b, "entry_space: %s\nentry_address: 0x%" PRIx64 "\n",
		      fmt->spaces[t->space], pt_table_entry_pa(t, index));
	pt_buf_printf(b, "va: %s\nspan: 0x%" PRIx64 "\nraw: %s\n", va, span, raw);
	for (unsigned i = 0; i < e->nfields; i++)
		if (!(e->fields[i].flags & PT_FF_JSON_ONLY))
			field_text(b, &e->fields[i]);
	pt_buf_printf(b, "state: %s\n", pt_state_name(e->state));
	/*
	 * Where the page is, in the capture's space names (the aperture fields
	 * above are the hardware's).  e->pa, not a field: it is the address in
	 * the capture's space (a GART VRAM page less FB_OFFSET).
	 */
	if (e->leaf)
		pt_buf_printf(b, "target_space: %s\ntarget_address: 0x%" PRIx64 "\n",
			      fmt->spaces[e->space], e->pa);
	for (unsigned w = 0; w < 2; w++) {
		struct pt_table c;

		if (pt_table_child(t, index, e, w, &c))
			pt_buf_printf(b, "%s: %s\n%s: %s\n", target_space_key(e, w),
				      fmt->spaces[c.space], target_key(e, w), pt_cover_name(c.cover));
	}
	return buf_status(b);
}

pt_err pt_render_decoded(struct pt_buf *b, const struct pt_format *fmt, int level,
			 const char *const *candidates, uint64_t pa,
			 const struct pt_entry *e, enum pt_out out)
{
	char raw[48];

	raw_str(e, raw, sizeof raw);
	if (out == PT_OUT_JSON) {
		struct jobj o = {0};

		jobj_add_str(&o, "format", fmt->name);
		if (level >= 0)
			jobj_add_str(&o, "level", fmt->levels[level].name);
		else
			jobj_add_raw(&o, "level", "null");
		if (candidates) {
			struct pt_buf v;

			pt_buf_init(&v);
			pt_buf_put(&v, "[", 1);
			for (unsigned i = 0; candidates[i]; i++) {
				if (i)
					pt_buf_put(&v, ", ", 2);
				json_escape(&v, candidates[i]);
			}
			pt_buf_put(&v, "]", 1);
			jobj_add_buf(&o, "level_candidates", &v);
			pt_buf_free(&v);
		}
		if (pa != UINT64_MAX)
			jobj_add_hex(&o, "entry_address", pa);
		jobj_add_str(&o, "raw", raw);
		for (unsigned i = 0; i < e->nfields; i++)
			field_json(&o, &e->fields[i]);
		jobj_add_str(&o, "state", pt_state_name(e->state));
		jobj_finish(&o, b);
		return buf_status(b);
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
	return buf_status(b);
}

/* ---- walk ---------------------------------------------------------------- */

static void flags_of(const struct pt_format *fmt, const struct pt_entry *e, char *s, size_t len)
{
	s[0] = 0;
	if (fmt->flags)
		fmt->flags(e, s, len);
}

static void kind_of(const struct pt_format *fmt, const struct pt_entry *e, char *s, size_t len)
{
	snprintf(s, len, "-");
	if (fmt->kind_name)
		fmt->kind_name(e, s, len);
}

pt_err pt_render_walk(struct pt_buf *b, const struct pt_context *ctx,
		      const struct pt_walk *w, enum pt_out out)
{
	const struct pt_format *fmt = ctx->fmt;
	char va[32], raw[48], flags[64], kind[64], size[24], path[256];
	const struct pt_walk_step *leaf = w->leaf_step >= 0 ? &w->steps[w->leaf_step] : NULL;

	pt_va_name(fmt, w->va, va, sizeof va);
	path[0] = 0;
	if (leaf)
		pt_node_path(&w->node, path, sizeof path);

	if (out == PT_OUT_JSON) {
		struct jobj o = {0}, r = {0};
		struct pt_buf steps;

		pt_buf_init(&steps);
		pt_buf_put(&steps, "[", 1);
		for (unsigned i = 0; i < w->nsteps; i++) {
			const struct pt_walk_step *s = &w->steps[i];
			struct jobj so = {0};

			if (i)
				pt_buf_put(&steps, ", ", 2);
			jobj_add_str(&so, "level", fmt->levels[s->table.level].name);
			jobj_add_u(&so, "index", s->index);
			jobj_add_str(&so, "space", fmt->spaces[s->table.space]);
			jobj_add_hex(&so, "entry_address", s->entry_pa);
			jobj_add_bool(&so, "captured", s->captured);
			if (s->captured) {
				raw_str(&s->entry, raw, sizeof raw);
				jobj_add_str(&so, "raw", raw);
				jobj_add_str(&so, "state", pt_state_name(s->entry.state));
			} else {
				jobj_add_raw(&so, "raw", "null");
			}
			jobj_add_str(&so, "verdict", s->verdict);
			jobj_finish(&so, &steps);
		}
		pt_buf_put(&steps, "]", 1);

		jobj_add_str(&o, "context", ctx->name);
		jobj_add_hex(&o, "va", w->va);
		jobj_add_buf(&o, "steps", &steps);
		pt_buf_free(&steps);
		if (w->fault == PT_FAULT_NONE && leaf) {
			flags_of(fmt, &leaf->entry, flags, sizeof flags);
			kind_of(fmt, &leaf->entry, kind, sizeof kind);
			jobj_add_str(&r, "status", "mapped");
			jobj_add_hex(&r, "pa", w->pa);
			jobj_add_str(&r, "space", fmt->spaces[w->space]);
			jobj_add_hex(&r, "page_va", w->page_va);
			jobj_add_hex(&r, "page_size", w->page_size);
			jobj_add_bool(&r, "address_complete", leaf->entry.address_complete);
			jobj_add_str(&r, "flags", flags);
			jobj_add_str(&r, "kind", kind);
			jobj_add_str(&r, "path", path);
		} else {
			jobj_add_str(&r, "status", "fault");
			jobj_add_str(&r, "fault", pt_fault_name(w->fault));
			if (w->fault_step >= 0) {
				const struct pt_walk_step *s = &w->steps[w->fault_step];

				jobj_add_str(&r, "level", fmt->levels[s->table.level].name);
				jobj_add_u(&r, "index", s->index);
			}
			if (w->fault == PT_FAULT_OUT_OF_RANGE && ctx->gart.page_size) {
				jobj_add_str(&r, "aperture", w->aperture.name);
				if (w->aperture.hit) {
					jobj_add_str(&r, "space", fmt->spaces[w->aperture.space]);
					jobj_add_hex(&r, "pa", w->aperture.pa);
				}
			}
		}
		jobj_add_obj(&o, "result", &r);
		jobj_finish(&o, b);
		pt_buf_put(b, "\n", 1);
		return buf_status(b);
	}

	pt_buf_printf(b, "context: %s\nva: %s\n", ctx->name, va);
	for (unsigned i = 0; i < w->nsteps; i++) {
		const struct pt_walk_step *s = &w->steps[i];

		pt_buf_printf(b, "%s[%" PRIu64 "] %s:0x%" PRIx64 " ",
			      fmt->levels[s->table.level].name, s->index,
			      fmt->spaces[s->table.space], s->entry_pa);
		if (s->captured) {
			raw_str(&s->entry, raw, sizeof raw);
			pt_buf_printf(b, "raw=%s %s\n", raw, s->verdict);
		} else {
			pt_buf_printf(b, "%s\n", s->verdict);
		}
	}
	if (w->fault == PT_FAULT_NONE && leaf) {
		flags_of(fmt, &leaf->entry, flags, sizeof flags);
		kind_of(fmt, &leaf->entry, kind, sizeof kind);
		pt_size_str(w->page_size, size, sizeof size);
		pt_buf_printf(b, "result: mapped pa=%s:0x%" PRIx64 " page=%s flags=%s kind=%s%s leaf=%s\n",
			      fmt->spaces[w->space], w->pa, size, flags, kind,
			      leaf->entry.address_complete ? "" : " address_complete=false", path);
	} else {
		pt_buf_printf(b, "result: fault=%s", pt_fault_name(w->fault));
		if (w->fault_step >= 0) {
			const struct pt_walk_step *s = &w->steps[w->fault_step];

			pt_buf_printf(b, " level=%s index=%" PRIu64,
				      fmt->levels[s->table.level].name, s->index);
		}
		if (w->fault == PT_FAULT_OUT_OF_RANGE && ctx->gart.page_size) {
			pt_buf_printf(b, " aperture=%s", w->aperture.name);
			if (w->aperture.hit)
				pt_buf_printf(b, " pa=%s:0x%" PRIx64,
					      fmt->spaces[w->aperture.space], w->aperture.pa);
		}
		pt_buf_puts(b, "\n");
	}
	return buf_status(b);
}

/* ---- maps ---------------------------------------------------------------- */

struct run {
	bool open;
	uint64_t va, end, pa, page;
	unsigned space;
	char flags[64], kind[64];
};

static void run_emit(struct pt_buf *b, const struct pt_context *ctx, const struct run *r,
		     enum pt_out out)
{
	const struct pt_format *fmt = ctx->fmt;
	char size[24], page[24];

	pt_size_str(r->end - r->va, size, sizeof size);
	pt_size_str(r->page, page, sizeof page);
	if (out == PT_OUT_JSON) {
		struct jobj o = {0};

		jobj_add_hex(&o, "va_start", r->va);
		jobj_add_hex(&o, "va_end", r->end);
		jobj_add_hex(&o, "size", r->end - r->va);
		jobj_add_hex(&o, "page_size", r->page);
		jobj_add_str(&o, "space", fmt->spaces[r->space]);
		jobj_add_hex(&o, "pa_start", r->pa);
		jobj_add_str(&o, "flags", r->flags);
		jobj_add_str(&o, "kind", r->kind);
		jobj_finish(&o, b);
		pt_buf_put(b, "\n", 1);
		return;
	}
	pt_buf_printf(b, "0x%0*" PRIx64 "-0x%0*" PRIx64 " %6s %4s %-7s 0x%016" PRIx64 " %s %s\n",
		      (int)fmt->va_digits, r->va, (int)fmt->va_digits, r->end, size, page,
		      fmt->spaces[r->space], r->pa, r->flags, r->kind);
}

pt_err pt_render_maps(struct pt_buf *b, const struct pt_context *ctx, enum pt_out out)
{
	const struct pt_format *fmt = ctx->fmt;
	struct pt_page_iter it;
	struct pt_page pg;
	struct run r = {0};
	uint64_t runs = 0;

	pt_pages_init(&it, ctx, 0);
	while (pt_pages_next(&it, &pg)) {
		char flags[64], kind[64];

		flags_of(fmt, &pg.leaf, flags, sizeof flags);
		kind_of(fmt, &pg.leaf, kind, sizeof kind);
		if (r.open && pg.va == r.end && pg.space == r.space && pg.size == r.page &&
		    pg.pa == r.pa + (r.end - r.va) && !strcmp(flags, r.flags) &&
		    !strcmp(kind, r.kind)) {
			r.end += pg.size;
			continue;
		}
		if (r.open)
			run_emit(b, ctx, &r, out);
		if (++runs > PT_MAPS_RUNS_MAX) {
			r.open = false;
			if (out == PT_OUT_JSON)
				pt_buf_printf(b, "{\"truncated_after_runs\": %" PRIu64 "}\n", PT_MAPS_RUNS_MAX);
			else
				pt_buf_printf(b, "# truncated after %" PRIu64 " runs\n", PT_MAPS_RUNS_MAX);
			break;
		}
		r.open = true;
		r.va = pg.va;
		r.end = pg.va + pg.size;
		r.pa = pg.pa;
		r.page = pg.size;
		r.space = pg.space;
		snprintf(r.flags, sizeof r.flags, "%s", flags);
		snprintf(r.kind, sizeof r.kind, "%s", kind);
	}
	if (r.open)
		run_emit(b, ctx, &r, out);
	return buf_status(b);
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
		struct jobj o = {0};

		jobj_add_str(&o, "context", ctx->name);
		jobj_add_str(&o, "path", path);
		jobj_add_str(&o, "anomaly", pt_anomaly_name(a->kind));
		jobj_add_str(&o, "detail", a->detail);
		jobj_finish(&o, b);
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

static void gart_text(struct pt_buf *b, const struct pt_context *ctx)
{
	const struct pt_gart_layout *l = &ctx->gart;
	const struct pt_format *fmt = ctx->fmt;

	for (int r = 0; r < PT_GR__COUNT; r++)
		if (l->has[r])
			pt_buf_printf(b, "%s: 0x%" PRIx64 "\n", pt_gart_reg_name(r), l->raw[r]);
	pt_buf_printf(b, "table: %s:0x%" PRIx64 "\n", fmt->spaces[l->table_space], l->table_addr);
	pt_buf_printf(b, "block_fragment_size: %u\npage_size: 0x%" PRIx64 "\n", l->bfs, l->page_size);
	pt_buf_printf(b, "va_start: 0x%" PRIx64 "\nva_end: 0x%" PRIx64 "\nentries: %" PRIu64 "\n",
		      l->va_start, l->va_end, l->entries);
	if (l->has[PT_GR_FB_BASE] && l->has[PT_GR_FB_TOP])
		pt_buf_printf(b, "fb: 0x%" PRIx64 "-0x%" PRIx64 "\n", l->fb_base, l->fb_top);
	if (l->has[PT_GR_FB_OFFSET])
		pt_buf_printf(b, "fb_offset: 0x%" PRIx64 "\n", l->fb_offset);
	if (l->has[PT_GR_AGP_BOT] && l->has[PT_GR_AGP_TOP])
		pt_buf_printf(b, "agp: 0x%" PRIx64 "-0x%" PRIx64 " base 0x%" PRIx64 "\n",
			      l->agp_bot, l->agp_top, l->agp_base);
	if (l->has[PT_GR_SYS_LOW] && l->has[PT_GR_SYS_HIGH])
		pt_buf_printf(b, "system_aperture: 0x%" PRIx64 "-0x%" PRIx64 "\n", l->sys_low, l->sys_high);
}

static void gart_json(struct jobj *o, const struct pt_context *ctx)
{
	const struct pt_gart_layout *l = &ctx->gart;
	struct jobj regs = {0};

	for (int r = 0; r < PT_GR__COUNT; r++)
		if (l->has[r])
			jobj_add_hex(&regs, pt_gart_reg_name(r), l->raw[r]);
	jobj_add_obj(o, "registers", &regs);
	jobj_add_u(o, "block_fragment_size", l->bfs);
	jobj_add_hex(o, "page_size", l->page_size);
	jobj_add_hex(o, "va_start", l->va_start);
	jobj_add_hex(o, "va_end", l->va_end);
	jobj_add_hex(o, "entries", l->entries);
	if (l->has[PT_GR_FB_BASE] && l->has[PT_GR_FB_TOP]) {
		jobj_add_hex(o, "fb_base", l->fb_base);
		jobj_add_hex(o, "fb_top", l->fb_top);
	}
	if (l->has[PT_GR_FB_OFFSET])
		jobj_add_hex(o, "fb_offset", l->fb_offset);
	if (l->has[PT_GR_AGP_BOT] && l->has[PT_GR_AGP_TOP]) {
		jobj_add_hex(o, "agp_bot", l->agp_bot);
		jobj_add_hex(o, "agp_top", l->agp_top);
		jobj_add_hex(o, "agp_base", l->agp_base);
	}
	if (l->has[PT_GR_SYS_LOW] && l->has[PT_GR_SYS_HIGH]) {
		jobj_add_hex(o, "system_aperture_low", l->sys_low);
		jobj_add_hex(o, "system_aperture_high", l->sys_high);
	}
}

pt_err pt_render_info(struct pt_buf *b, const struct pt_context *ctx, enum pt_out out)
{
	const struct pt_format *fmt = ctx->fmt;
	unsigned nl = pt_format_nlevels(fmt);
	struct an_ctx ac = {.b = b, .ctx = ctx, .out = out};
	struct pt_stats st;
	struct pt_table root;
	char size[24];
	pt_err err;

	pt_buf_init(&ac.list);
	err = pt_context_scan(ctx, &st, info_anomaly, &ac);
	if (err != PT_OK) {
		pt_buf_free(&ac.list);
		return err;
	}
	pt_table_root(ctx, &root);

	if (out == PT_OUT_JSON) {
		struct jobj o = {0}, lv = {0}, mb = {0}, ann = {0};

		jobj_add_str(&o, "context", ctx->name);
		jobj_add_str(&o, "format", fmt->name);
		jobj_add_str(&o, "root_space", fmt->spaces[ctx->root_space]);
		jobj_add_hex(&o, "root_address", ctx->root_addr);
		jobj_add_hex(&o, "root_entries", ctx->root_entries);
		jobj_add_str(&o, "root_captured", pt_cover_name(root.cover));
		if (ctx->big_page_size)
			jobj_add_hex(&o, "big_page_size", ctx->big_page_size);
		if (ctx->gart.page_size)
			gart_json(&o, ctx);
		for (size_t i = 0; i < ctx->nannotations; i++)
			jobj_add_str(&ann, ctx->annotations[i].key, ctx->annotations[i].value);
		jobj_add_obj(&o, "annotations", &ann);
		for (unsigned i = 0; i < nl; i++) {
			struct jobj one = {0};

			jobj_add_u(&one, "tables", st.tables[i]);
			jobj_add_u(&one, "entries", st.entries[i]);
			jobj_add_u(&one, "mapped", st.mapped[i]);
			jobj_add_obj(&lv, fmt->levels[i].name, &one);
		}
		jobj_add_obj(&o, "levels", &lv);
		jobj_add_u(&o, "pages", st.pages);
		jobj_add_bool(&o, "pages_truncated", st.pages_truncated);
		for (unsigned s = 0; s < 64; s++)
			if (st.bytes_by_shift[s]) {
				pt_size_str((uint64_t)1 << s, size, sizeof size);
				jobj_add_hex(&mb, size, st.bytes_by_shift[s]);
			}
		jobj_add_obj(&o, "mapped_bytes", &mb);
		jobj_add_u(&o, "anomaly_count", st.anomalies);
		{
			struct pt_buf v;

			pt_buf_init(&v);
			pt_buf_put(&v, "[", 1);
			if (ac.list.len)
				pt_buf_put(&v, ac.list.data, ac.list.len);
			pt_buf_put(&v, "]", 1);
			jobj_add_buf(&o, "anomalies", &v);
			pt_buf_free(&v);
		}
		jobj_finish(&o, b);
		pt_buf_put(b, "\n", 1);
	} else {
		pt_buf_printf(b, "context: %s\nformat: %s\n", ctx->name, fmt->name);
		pt_buf_printf(b, "root: %s:0x%" PRIx64 "\nroot_entries: %" PRIu64 "\nroot_captured: %s\n",
			      fmt->spaces[ctx->root_space], ctx->root_addr, ctx->root_entries,
			      pt_cover_name(root.cover));
		if (ctx->big_page_size) {
			pt_size_str(ctx->big_page_size, size, sizeof size);
			pt_buf_printf(b, "big_page_size: %s\n", size);
		}
		if (ctx->gart.page_size)
			gart_text(b, ctx);
		for (size_t i = 0; i < ctx->nannotations; i++)
			pt_buf_printf(b, "%s: %s\n", ctx->annotations[i].key, ctx->annotations[i].value);
		for (unsigned i = 0; i < nl; i++)
			pt_buf_printf(b, "level.%s: tables %" PRIu64 " entries %" PRIu64
				      " mapped %" PRIu64 "\n", fmt->levels[i].name, st.tables[i],
				      st.entries[i], st.mapped[i]);
		pt_buf_printf(b, "pages: %" PRIu64 "\n", st.pages);
		if (st.pages_truncated)
			pt_buf_puts(b, "pages_truncated: true\n");
		for (unsigned s = 0; s < 64; s++)
			if (st.bytes_by_shift[s]) {
				char total[48];

				pt_size_str((uint64_t)1 << s, size, sizeof size);
				size_human(st.bytes_by_shift[s], total, sizeof total);
				pt_buf_printf(b, "mapped_bytes.%s: %s\n", size, total);
			}
		pt_buf_printf(b, "anomalies: %" PRIu64 "\n", st.anomalies);
		if (ac.list.len)
			pt_buf_put(b, ac.list.data, ac.list.len);
	}
	if (ac.list.oom)
		b->oom = true;
	pt_buf_free(&ac.list);
	return buf_status(b);
}

/* ---- capture ------------------------------------------------------------- */

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	/* "dir/" names its directory: strip one trailing slash's worth. */
	if (s && s[1] == 0) {
		while (s > p && s[-1] != '/')
			s--;
		return s;
	}
	return s ? s + 1 : p;
}

pt_err pt_render_capture(struct pt_buf *b, const struct pt_capture *cap, enum pt_out out)
{
	const struct pt_format *fmt = pt_capture_format(cap);
	size_t nr = pt_capture_region_count(cap), nc = pt_capture_context_count(cap);
	size_t na = pt_capture_annotation_count(cap);
	char size[24];

	if (out == PT_OUT_JSON) {
		struct jobj o = {0}, ann = {0};
		struct pt_buf regs, ctxs;

		jobj_add_str(&o, "format", fmt->name);
		jobj_add_u(&o, "version", pt_capture_version(cap));
		jobj_add_str(&o, "source", base_name(pt_capture_source(cap)));
		jobj_add_str(&o, "gpu", pt_capture_gpu(cap));
		jobj_add_str(&o, "description", pt_capture_description(cap));
		for (size_t i = 0; i < na; i++)
			jobj_add_str(&ann, pt_capture_annotation(cap, i)->key,
				     pt_capture_annotation(cap, i)->value);
		jobj_add_obj(&o, "annotations", &ann);
		pt_buf_init(&regs);
		pt_buf_put(&regs, "[", 1);
		for (size_t i = 0; i < nr; i++) {
			const struct pt_region_info *r = pt_capture_region(cap, i);
			struct jobj ro = {0};

			if (i)
				pt_buf_put(&regs, ", ", 2);
			jobj_add_str(&ro, "name", r->name);
			jobj_add_str(&ro, "space", fmt->spaces[r->space]);
			jobj_add_hex(&ro, "base", r->base);
			jobj_add_hex(&ro, "size", r->size);
			jobj_add_str(&ro, "file", r->file);
			jobj_finish(&ro, &regs);
		}
		pt_buf_put(&regs, "]", 1);
		jobj_add_buf(&o, "regions", &regs);
		pt_buf_free(&regs);
		pt_buf_init(&ctxs);
		pt_buf_put(&ctxs, "[", 1);
		for (size_t i = 0; i < nc; i++) {
			const struct pt_context *c = pt_capture_context(cap, i);
			struct jobj co = {0};

			if (i)
				pt_buf_put(&ctxs, ", ", 2);
			jobj_add_str(&co, "name", c->name);
			jobj_add_str(&co, "root_space", fmt->spaces[c->root_space]);
			jobj_add_hex(&co, "root_address", c->root_addr);
			jobj_finish(&co, &ctxs);
		}
		pt_buf_put(&ctxs, "]", 1);
		jobj_add_buf(&o, "contexts", &ctxs);
		pt_buf_free(&ctxs);
		jobj_finish(&o, b);
		pt_buf_put(b, "\n", 1);
		return buf_status(b);
	}
	pt_buf_printf(b, "format: %s\nversion: %u\nsource: %s\n", fmt->name,
		      pt_capture_version(cap), base_name(pt_capture_source(cap)));
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
			      fmt->spaces[r->space], r->base, size, r->file);
	}
	for (size_t i = 0; i < nc; i++) {
		const struct pt_context *c = pt_capture_context(cap, i);

		pt_buf_printf(b, "context: %s %s:0x%" PRIx64 "\n", c->name,
			      fmt->spaces[c->root_space], c->root_addr);
	}
	return buf_status(b);
}
