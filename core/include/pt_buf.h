/* SPDX-License-Identifier: MIT */
/*
 * pt_buf.h — byte buffers, sorted-key JSON objects and arrays, the one
 * JSON escaper, size strings (core/util/buf.c).  The bottom of the
 * renderer, apart from it so that a format's info hooks need only this:
 * a format never includes the renderer, the walker or the tree.
 */
#ifndef PT_BUF_H
#define PT_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_error.h"

/* A growable byte buffer.  On allocation failure `oom` is set and appends stop. */
struct pt_buf {
	char *data;       /* NUL-terminated when len > 0 */
	size_t len, cap;
	bool oom;
};
void pt_buf_init(struct pt_buf *b);
void pt_buf_free(struct pt_buf *b);
void pt_buf_reset(struct pt_buf *b);
/* Gives back what B holds past its bytes and their NUL (a render kept for long); B as it was when that fails. */
void pt_buf_fit(struct pt_buf *b);
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
/*
 * FLAGS, maps' comma-separated flag words ("-": none), as a JSON array of
 * strings ("[]" for none): the one shape of `flags` in every JSON output.
 */
#define PT_JSON_WORD 64
void pt_json_flags(struct pt_buf *b, const char *flags);
void pt_jobj_flags(struct pt_jobj *o, const char *key, const char *flags);
/* PT_E_NOMEM if B ran out of memory, else PT_OK. */
pt_err pt_buf_status(const struct pt_buf *b);

/* Size with the largest exact binary unit: 4096 -> "4K", 2097152 -> "2M", 4097 -> "4097". */
void pt_size_str(uint64_t size, char *buf, size_t len);
/* A total in its largest unit with one decimal where needed: "2.7G", "640K", "512". */
void pt_size_human(uint64_t size, char *buf, size_t len);
/*
 * A load's progress as both front ends show it on a terminal: "loading
 * PATH: 42%" when TOTAL is known, else "loading PATH: 17 MiB" (DONE bytes).
 * One wording for ptfs and ptfs-tool; the caller adds its name and the \r.
 */
void pt_progress_str(const char *path, uint64_t done, uint64_t total, char *buf, size_t len);

#endif
