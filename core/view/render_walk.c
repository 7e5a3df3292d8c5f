/* SPDX-License-Identifier: MIT */
/*
 * render_walk.c — walk traces as text or JSON (walk/, ptfs-tool walk),
 * with the nested trace of every read in a translated space indented under
 * the step it serves (docs/design.md §2.8).  Rules as render.c's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_render.h"
#include "pt_num.h"
#include "render_int.h"

/* ---- walk ---------------------------------------------------------------- */

/* A FLAGS column: every word set (VER3's five PCF words are 64 characters + NUL) and room. */
#define FLAGS_LEN PT_FLAGS_LEN

static void walk_json(struct pt_buf *b, const struct pt_context *ctx, const struct pt_walk *w);
static void walk_text(struct pt_buf *b, const struct pt_context *ctx, const struct pt_walk *w,
		      unsigned depth);

/*
 * The context that translates ADDR's space (a format space index of CTX),
 * and its walk of ADDR into *OUT (allocated: a walk is large); NULL when the
 * space is not translated or there is no memory.
 */
static const struct pt_context *nested(const struct pt_context *ctx, unsigned space, uint64_t addr,
				       struct pt_walk **out)
{
	const struct pt_context *t = pt_context_xlate(ctx, pt_context_space(ctx, space));

	*out = NULL;
	if (!t || !(*out = malloc(sizeof **out)))
		return NULL;
	pt_walk_va(t, addr, *out);
	return t;
}

/* KEY: the nested walk of ADDR in SPACE of CTX, as a JSON object, where the space is translated. */
static void nested_json(struct pt_jobj *o, const char *key, const struct pt_context *ctx,
			unsigned space, uint64_t addr)
{
	struct pt_walk *iw;
	struct pt_buf nb;

	if (!nested(ctx, space, addr, &iw))
		return;
	pt_buf_init(&nb);
	walk_json(&nb, iw->node.ctx, iw);
	pt_jobj_buf(o, key, &nb);
	pt_buf_free(&nb);
	free(iw);
}

/* The nested trace of ADDR in SPACE of CTX, indented DEPTH + 1, where the space is translated. */
static void nested_text(struct pt_buf *b, const struct pt_context *ctx, unsigned space,
			uint64_t addr, unsigned depth)
{
	struct pt_walk *iw;

	if (!nested(ctx, space, addr, &iw))
		return;
	walk_text(b, iw->node.ctx, iw, depth + 1);
	free(iw);
}

/* The JSON array of W's steps into STEPS (initialised here). */
static void walk_steps_json(const struct pt_context *ctx, const struct pt_walk *w,
			    struct pt_buf *steps)
{
	const struct pt_format *fmt = ctx->fmt;
	char raw[48];

	pt_buf_init(steps);
	pt_buf_put(steps, "[", 1);
	for (unsigned i = 0; i < w->nsteps; i++) {
		const struct pt_walk_step *s = &w->steps[i];
		struct pt_jobj so = {0};

		if (i)
			pt_buf_put(steps, ", ", 2);
		pt_jobj_str(&so, "level", fmt->levels[s->table.level].name);
		pt_jobj_u(&so, "index", s->index);
		pt_jobj_str(&so, "space", pt_context_space_name(s->table.ctx, s->table.space));
		pt_jobj_hex(&so, "entry_address", s->entry_pa);
		pt_jobj_bool(&so, "captured", s->captured);
		if (s->captured) {
			pt_rd_raw_str(&s->entry, raw, sizeof raw);
			pt_jobj_str(&so, "raw", raw);
			pt_jobj_str(&so, "state", pt_state_name(s->entry.state));
		} else {
			pt_jobj_raw(&so, "raw", "null");
		}
		pt_jobj_str(&so, "verdict", s->verdict);
		if (ctx->xlate)
			nested_json(&so, "nested", ctx, s->table.space, s->entry_pa);
		pt_jobj_finish(&so, steps);
	}
	pt_buf_put(steps, "]", 1);
}

/* The stage-2 fault of W (fault == PT_FAULT_STAGE2) into R. */
static void stage2_json(struct pt_jobj *r, const struct pt_walk *w)
{
	struct pt_jobj s2 = {0};

	pt_jobj_str(&s2, "fault", pt_fault_name(w->s2.fault));
	pt_jobj_str(&s2, "context", w->s2.ctx->name);
	pt_jobj_str(&s2, "space", pt_capture_space_name(w->s2.ctx->cap, w->s2.space));
	pt_jobj_hex(&s2, "va", w->s2.addr);
	pt_jobj_obj(r, "stage2", &s2);
}

/* The result object of a walk that faulted (not an aperture hit). */
static void fault_json(struct pt_jobj *r, const struct pt_context *ctx, const struct pt_walk *w,
		       const char *path)
{
	pt_jobj_str(r, "status", "fault");
	pt_jobj_str(r, "fault", pt_fault_name(w->fault));
	if (w->fault == PT_FAULT_STAGE2)
		stage2_json(r, w);
	if (w->fault_step >= 0) {
		const struct pt_walk_step *s = &w->steps[w->fault_step];

		pt_jobj_str(r, "level", ctx->fmt->levels[s->table.level].name);
		pt_jobj_u(r, "index", s->index);
		pt_jobj_str(r, "path", path);
	}
	if (w->fault == PT_FAULT_UNREADABLE) {
		char why[160];
		uint64_t bad;

		if (pt_walk_unreadable(w, &bad, why, sizeof why))
			pt_jobj_str(r, "reason", why);
	}
	if (w->fault == PT_FAULT_NONCANONICAL) {
		uint64_t as;

		/* the answer depends on a TBI no register gave (an arm64 dump): say so */
		if (pt_va_tbi_depends(ctx->fmt, w->va, &as)) {
			pt_jobj_str(r, "tbi", "unknown");
			pt_jobj_hex(r, "va_with_tbi", as);
		}
	}
	if (w->fault == PT_FAULT_OUT_OF_RANGE && w->aperture.name) {
		pt_jobj_str(r, "aperture_name", w->aperture.name);   /* "aperture" is a field number */
		if (w->aperture.hit) {
			pt_jobj_str(r, "space", pt_context_space_name(ctx, w->aperture.space));
			pt_jobj_hex(r, "pa", w->aperture.pa);
		}
	}
}

static void walk_json(struct pt_buf *b, const struct pt_context *ctx, const struct pt_walk *w)
{
	const struct pt_format *fmt = ctx->fmt;
	char flags[FLAGS_LEN], kind[64], path[256], key[PT_KIND_KEY_LEN];
	const struct pt_walk_step *leaf = w->leaf_step >= 0 ? &w->steps[w->leaf_step] : NULL;
	struct pt_jobj o = {0}, r = {0};
	struct pt_buf steps;

	path[0] = 0;
	/* the leaf's path, or the faulting entry's (the walker's node follows its steps) */
	if (leaf || w->fault_step >= 0)
		pt_node_path(&w->node, path, sizeof path);
	walk_steps_json(ctx, w, &steps);
	pt_jobj_str(&o, "context", ctx->name);
	pt_jobj_hex(&o, "va", w->va);
	pt_jobj_buf(&o, "steps", &steps);
	pt_buf_free(&steps);
	if (w->fault == PT_FAULT_NONE && leaf) {
		pt_format_flags(fmt, &leaf->entry, flags, sizeof flags);
		pt_format_kind(fmt, &leaf->entry, kind, sizeof kind);
		pt_jobj_str(&r, "status", "mapped");
		pt_jobj_hex(&r, "pa", w->pa);
		pt_jobj_str(&r, "space", pt_context_space_name(ctx, w->space));
		if (w->translated) {
			pt_jobj_hex(&r, "final_pa", w->final_pa);
			pt_jobj_str(&r, "final_space", pt_capture_space_name(ctx->cap, w->final_space));
		}
		pt_jobj_hex(&r, "page_va", w->page_va);
		pt_jobj_hex(&r, "page_size", w->page_size);
		pt_jobj_bool(&r, "address_complete", leaf->entry.address_complete);
		pt_jobj_flags(&r, "flags", flags);
		pt_format_kind_key(fmt, key, sizeof key);
		pt_jobj_str(&r, key, kind);
		pt_jobj_str(&r, "path", path);
	} else if (pt_walk_aperture_hit(w)) {
		/* The memory controller translates it without the table (docs/design.md §2.2): a result. */
		pt_jobj_str(&r, "status", "aperture");
		pt_jobj_str(&r, "aperture_name", w->aperture.name);   /* "aperture" is a field number */
		pt_jobj_str(&r, "space", pt_context_space_name(ctx, w->aperture.space));
		pt_jobj_hex(&r, "pa", w->aperture.pa);
	} else {
		fault_json(&r, ctx, w, path);
	}
	/* the final page's own walk through the translation of its space */
	if (w->translated)
		nested_json(&r, "nested", ctx, w->space, w->pa);
	pt_jobj_obj(&o, "result", &r);
	pt_jobj_finish(&o, b);
}

/* Number and indent writers for the text trace (no printf on the per-step path). */
static void put_dec(struct pt_buf *b, uint64_t v)
{
	char num[24], *end = num + sizeof num, *p = pt_dec_before(end, v);

	pt_buf_put(b, p, (size_t)(end - p));
}

static void put_hex(struct pt_buf *b, uint64_t v)
{
	char num[24], *end = num + sizeof num, *p = pt_hex_before(end, v, 0);

	pt_buf_put(b, p, (size_t)(end - p));
}

static void put_indent(struct pt_buf *b, unsigned n)
{
	static const char sp[] = "                                ";

	for (; n > sizeof sp - 1; n -= sizeof sp - 1)
		pt_buf_put(b, sp, sizeof sp - 1);
	pt_buf_put(b, sp, n);
}

/* The result line of a walk that faulted (not an aperture hit). */
static void fault_text(struct pt_buf *b, const struct pt_context *ctx, const struct pt_walk *w,
		       const char *path)
{
	pt_buf_printf(b, "result: fault=%s", pt_fault_name(w->fault));
	if (w->fault == PT_FAULT_STAGE2)
		pt_buf_printf(b, ":%s at=%s:0x%" PRIx64 " stage=%s", pt_fault_name(w->s2.fault),
			      pt_capture_space_name(w->s2.ctx->cap, w->s2.space), w->s2.addr,
			      w->s2.ctx->name);
	if (w->fault_step >= 0) {
		const struct pt_walk_step *s = &w->steps[w->fault_step];

		pt_buf_printf(b, " level=%s index=%" PRIu64 " entry=%s",
			      ctx->fmt->levels[s->table.level].name, s->index, path);
	}
	if (w->fault == PT_FAULT_UNREADABLE) {
		char why[160];
		uint64_t bad;

		/* the source's reason last: it is free text */
		if (pt_walk_unreadable(w, &bad, why, sizeof why))
			pt_buf_printf(b, " reason: %s", why);
	}
	if (w->fault == PT_FAULT_NONCANONICAL) {
		uint64_t as;
		char v[32];

		/* the answer depends on a TBI no register gave (an arm64 dump): say so */
		if (pt_va_tbi_depends(ctx->fmt, w->va, &as)) {
			pt_va_name(ctx->fmt, as, v, sizeof v);
			pt_buf_printf(b, " tbi=unknown: with TBI set the top byte is a tag and this VA walks "
				      "as %s (tbi = 1, -o tbi=1 or --tbi 1 says so)", v);
		}
	}
	if (w->fault == PT_FAULT_OUT_OF_RANGE && w->aperture.name) {
		pt_buf_printf(b, " aperture=%s", w->aperture.name);
		if (w->aperture.hit)
			pt_buf_printf(b, " pa=%s:0x%" PRIx64,
				      pt_context_space_name(ctx, w->aperture.space), w->aperture.pa);
	}
	pt_buf_puts(b, "\n");
}

/* DEPTH 0: the walk; DEPTH > 0: a nested walk, its lines indented two spaces a stage. */
static void walk_text(struct pt_buf *b, const struct pt_context *ctx, const struct pt_walk *w,
		      unsigned depth)
{
	const struct pt_format *fmt = ctx->fmt;
	char va[32], raw[48], flags[FLAGS_LEN], kind[64], size[24], path[256];
	const struct pt_walk_step *leaf = w->leaf_step >= 0 ? &w->steps[w->leaf_step] : NULL;
	unsigned ind = 2 * depth;

	pt_va_name(fmt, w->va, va, sizeof va);
	path[0] = 0;
	if (leaf || w->fault_step >= 0)
		pt_node_path(&w->node, path, sizeof path);
	if (depth)
		pt_buf_printf(b, "%*scontext: %s va: %s\n", ind, "", ctx->name, va);
	else
		pt_buf_printf(b, "context: %s\nva: %s\n", ctx->name, va);
	for (unsigned i = 0; i < w->nsteps; i++) {
		const struct pt_walk_step *s = &w->steps[i];

		/* by hand, not printf: a walk of 10^4 VAs spent 70% of its time in vsnprintf (bench/README.md) */
		put_indent(b, ind);
		pt_buf_puts(b, fmt->levels[s->table.level].name);
		pt_buf_put(b, "[", 1);
		put_dec(b, s->index);
		pt_buf_put(b, "] ", 2);
		pt_buf_puts(b, pt_context_space_name(ctx, s->table.space));
		pt_buf_put(b, ":0x", 3);
		put_hex(b, s->entry_pa);
		pt_buf_put(b, " ", 1);
		if (s->captured) {
			pt_rd_raw_str(&s->entry, raw, sizeof raw);
			pt_buf_put(b, "raw=", 4);
			pt_buf_puts(b, raw);
			pt_buf_put(b, " ", 1);
		}
		pt_buf_puts(b, s->verdict);
		pt_buf_put(b, "\n", 1);
		if (ctx->xlate)
			nested_text(b, ctx, s->table.space, s->entry_pa, depth);
	}
	if (w->translated)
		nested_text(b, ctx, w->space, w->pa, depth);
	put_indent(b, ind);
	if (w->fault == PT_FAULT_NONE && leaf) {
		char final[64] = "";

		pt_format_flags(fmt, &leaf->entry, flags, sizeof flags);
		pt_format_kind(fmt, &leaf->entry, kind, sizeof kind);
		pt_size_str(w->page_size, size, sizeof size);
		if (w->translated)
			snprintf(final, sizeof final, " final=%s:0x%" PRIx64,
				 pt_capture_space_name(ctx->cap, w->final_space), w->final_pa);
		pt_buf_puts(b, "result: mapped pa=");
		pt_buf_puts(b, pt_context_space_name(ctx, w->space));
		pt_buf_put(b, ":0x", 3);
		put_hex(b, w->pa);
		pt_buf_puts(b, final);
		pt_buf_puts(b, " page=");
		pt_buf_puts(b, size);
		pt_buf_puts(b, " flags=");
		pt_buf_puts(b, flags);
		pt_buf_put(b, " ", 1);
		pt_buf_puts(b, fmt->kind_field ? fmt->kind_field : "kind");
		pt_buf_put(b, "=", 1);
		pt_buf_puts(b, kind);
		if (!leaf->entry.address_complete)
			pt_buf_puts(b, " address_complete=false");
		pt_buf_puts(b, " leaf=");
		pt_buf_puts(b, path);
		pt_buf_put(b, "\n", 1);
	} else if (pt_walk_aperture_hit(w)) {
		pt_buf_printf(b, "result: aperture=%s pa=%s:0x%" PRIx64 "\n", w->aperture.name,
			      pt_context_space_name(ctx, w->aperture.space), w->aperture.pa);
	} else {
		fault_text(b, ctx, w, path);
	}
}

pt_err pt_render_walk(struct pt_buf *b, const struct pt_context *ctx,
		      const struct pt_walk *w, enum pt_out out)
{
	if (out == PT_OUT_JSON) {
		walk_json(b, ctx, w);
		pt_buf_put(b, "\n", 1);
	} else {
		walk_text(b, ctx, w, 0);
	}
	return pt_buf_status(b);
}
