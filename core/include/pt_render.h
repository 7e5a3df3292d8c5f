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

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_capture.h"
#include "pt_walk.h"

/* A growable byte buffer.  On allocation failure `oom` is set and appends stop. */
struct pt_buf {
	char *data;       /* NUL-terminated when len > 0 */
	size_t len, cap;
	bool oom;
};
void pt_buf_init(struct pt_buf *b);
void pt_buf_free(struct pt_buf *b);
void pt_buf_reset(struct pt_buf *b);
void pt_buf_put(struct pt_buf *b, const char *s, size_t n);
void pt_buf_puts(struct pt_buf *b, const char *s);
void pt_buf_printf(struct pt_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

enum pt_out {
	PT_OUT_TEXT = 0,
	PT_OUT_JSON,
};

/*
 * A JSON object being built (the info hooks of a format add members):
 * start from {0}, members in any order, written with sorted keys.
 */
struct pt_jmem;
struct pt_jobj {
	struct pt_jmem *m;
	size_t n, cap;
	bool oom;
};
void pt_jobj_hex(struct pt_jobj *o, const char *key, uint64_t v);   /* "0x..." */
void pt_jobj_u(struct pt_jobj *o, const char *key, uint64_t v);     /* a number */
void pt_jobj_str(struct pt_jobj *o, const char *key, const char *s); /* NULL: null */
void pt_jobj_bool(struct pt_jobj *o, const char *key, bool v);
/* VAL as it is (already JSON); the buffer's text, for a nested value. */
void pt_jobj_raw(struct pt_jobj *o, const char *key, const char *val);
void pt_jobj_buf(struct pt_jobj *o, const char *key, struct pt_buf *v);
/* Adds CHILD as the object member KEY and empties CHILD. */
void pt_jobj_obj(struct pt_jobj *o, const char *key, struct pt_jobj *child);
/* Writes O to B ("{...}", keys sorted, a repeated key once) and empties O. */
void pt_jobj_finish(struct pt_jobj *o, struct pt_buf *b);
/*
 * A JSON array being built: start from {0}, items in order, joined by SEP
 * (NULL: ", ").  Items are JSON already (pt_jarr_raw) or made here.
 */
struct pt_jarr {
	struct pt_buf b;
	size_t n;
	const char *sep;
};
void pt_jarr_raw(struct pt_jarr *a, const char *val);
void pt_jarr_str(struct pt_jarr *a, const char *s);   /* NULL: null */
/* Adds O (written as pt_jobj_finish does) and empties O. */
void pt_jarr_obj(struct pt_jarr *a, struct pt_jobj *o);
/* Adds A ("[...]") as the member KEY of O and empties A. */
void pt_jobj_arr(struct pt_jobj *o, const char *key, struct pt_jarr *a);
/*
 * S as a JSON string, quotes included: the one escaper of every program.
 * '"' and '\' backslashed, control bytes and DEL as \u00XX (lower-case
 * hex), other bytes (UTF-8) as they are.
 */
void pt_json_escape(struct pt_buf *b, const char *s);
/* PT_E_NOMEM if B ran out of memory, else PT_OK. */
pt_err pt_buf_status(const struct pt_buf *b);

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
 * no filter (core/runs.c), bounded also by PT_MAPS_BYTES_MAX bytes.
 */
pt_err pt_render_maps(struct pt_buf *b, const struct pt_context *ctx, enum pt_out out);
/* The context's info file (scans the context). */
pt_err pt_render_info(struct pt_buf *b, const struct pt_context *ctx, enum pt_out out);
/* The root capture file. */
pt_err pt_render_capture(struct pt_buf *b, const struct pt_capture *cap, enum pt_out out);
/* One anomaly line: "CONTEXT PATH KIND DETAIL", e.g. "c0 l1/0/l0/1 reserved_bits reserved_mask: 0x10". */
void pt_render_anomaly(struct pt_buf *b, const struct pt_context *ctx,
		       const struct pt_anomaly *a, enum pt_out out);

/* Size with the largest exact binary unit: 4096 -> "4K", 2097152 -> "2M", 4097 -> "4097". */
void pt_size_str(uint64_t size, char *buf, size_t len);
/* A total in its largest unit with one decimal where needed: "2.7G", "640K", "512". */
void pt_size_human(uint64_t size, char *buf, size_t len);

#endif
