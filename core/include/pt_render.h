/* SPDX-License-Identifier: MIT */
/*
 * pt_render.h — the one renderer of ptfs: entry files, walk traces, maps,
 * info and capture summaries, as `key: value` text or as JSON.
 *
 * The filesystem and ptfs-tool both call these, so a file in the mount and
 * the CLI's output are the same bytes.  Output depends only on the capture:
 * no times, pointers or load order.  JSON objects have sorted keys and
 * 64-bit values as "0x..." strings.
 */
#ifndef PT_RENDER_H
#define PT_RENDER_H

/* The include rule (HACKING.md, "Layers"): the view layer's, never included below it. */
#if defined(PT_LAYER_UTIL) || defined(PT_LAYER_FORMATS) || defined(PT_LAYER_LOAD) || defined(PT_LAYER_SOURCES) || defined(PT_LAYER_WALK) || defined(PT_LAYER_LINUX)
#error "pt_render.h belongs to core/view: a lower layer must not include it (HACKING.md, Layers)"
#endif

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_buf.h"
#include "pt_capture.h"
#include "pt_walk.h"

/* An entry file: location header, every field, state. */
pt_err pt_render_entry(struct pt_buf *b, const struct pt_table *t, uint64_t index,
		       const struct pt_entry *e, enum pt_out out);
/*
 * An entry decoded without a table (ptfs-tool decode).  LEVEL: index into
 * FMT's levels, or -1 for "unknown" (--role auto: JSON level null plus
 * CANDIDATES, a NULL-terminated list of level names).  PA: the entry's
 * address for --blob, or UINT64_MAX when unknown.
 */
pt_err pt_render_decoded(struct pt_buf *b, const struct pt_format *fmt, int level,
			 const char *const *candidates, uint64_t pa,
			 const struct pt_entry *e, enum pt_out out);
/* A walk trace (walk/VA, ptfs-tool walk). */
pt_err pt_render_walk(struct pt_buf *b, const struct pt_context *ctx,
		      const struct pt_walk *w, enum pt_out out);
/*
 * The context's maps file: one line per maximal run, the pt_runs stream with
 * no filter (core/runs.c), bounded also by PT_MAPS_BYTES_MAX bytes.  RC
 * (may be NULL, pt_walk.h): the caller's cancel and bound.
 */
pt_err pt_render_maps(struct pt_buf *b, const struct pt_context *ctx, enum pt_out out,
		      struct pt_readctl *rc);
/* The context's info file (scans the context with RC, pt_context_scan()). */
pt_err pt_render_info(struct pt_buf *b, const struct pt_context *ctx, enum pt_out out,
		      struct pt_readctl *rc);
/* The root capture file. */
pt_err pt_render_capture(struct pt_buf *b, const struct pt_capture *cap, enum pt_out out);
/* One anomaly line: "CONTEXT PATH KIND DETAIL", e.g. "c0 l1/0/l0/1 reserved_bits reserved_mask: 0x10". */
void pt_render_anomaly(struct pt_buf *b, const struct pt_context *ctx,
		       const struct pt_anomaly *a, enum pt_out out);

#endif
