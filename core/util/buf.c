/* SPDX-License-Identifier: MIT */
/*
 * buf.c — the byte buffer and the sorted-key JSON object every renderer
 * writes through (pt_render.h), and the size strings.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_buf.h"
#include "pt_num.h"
#include "pt_vec.h"

/* ---- growable array ----------------------------------------------------- */

bool pt_vec_reserve(void *pp, size_t *cap, size_t n, size_t elem)
{
	void **p = pp;
	size_t ncap = *cap ? *cap : 8;
	void *q;

	if (n <= *cap)
		return true;
	while (ncap < n) {
		if (ncap > SIZE_MAX / 2)
			return false;
		ncap *= 2;
	}
	if (elem && ncap > SIZE_MAX / elem)
		return false;
	q = realloc(*p, ncap * elem);
	if (!q)
		return false;
	*p = q;
	*cap = ncap;
	return true;
}

bool pt_vec_resize(void *pp, size_t n, size_t elem)
{
	void **p = pp;
	size_t len;
	void *q;

	if (elem && n > SIZE_MAX / elem)
		return false;
	len = n * elem;
	q = realloc(*p, len ? len : 1);
	if (!q)
		return false;
	*p = q;
	return true;
}

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

void pt_buf_fit(struct pt_buf *b)
{
	char *nb;

	if (!b->data || b->cap <= b->len + 1)
		return;
	nb = realloc(b->data, b->len + 1);
	if (nb) {
		b->data = nb;
		b->cap = b->len + 1;
	}
}

void pt_buf_reset(struct pt_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = 0;
}

static bool buf_reserve(struct pt_buf *b, size_t n)
{
	if (b->oom)
		return false;
	if (b->len + n + 1 <= b->cap)
		return true;
	/*
	 * len + n + 1 cannot wrap: len < cap and n is an object's size.  At
	 * least 256 bytes: a rendered line or JSON value then costs one
	 * allocation, not six doublings from 8.
	 */
	if (n >= SIZE_MAX - b->len ||
	    !pt_vec_reserve(&b->data, &b->cap, b->len + n + 1 > 256 ? b->len + n + 1 : 256, 1)) {
		b->oom = true;
		return false;
	}
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

pt_err pt_buf_status(const struct pt_buf *b)
{
	return b->oom ? PT_E_NOMEM : PT_OK;
}

void pt_size_str(uint64_t size, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	/* by hand, not snprintf: every walk and maps line names its page size */
	char num[24], *stop = num + sizeof num, *end = stop, *p;
	size_t n;
	int u = -1;

	while (size && u < 5 && (size & 1023) == 0) {
		size >>= 10;
		u++;
	}
	if (len == 0)
		return;
	if (u >= 0)
		*--end = units[u];
	p = pt_dec_before(end, size);
	n = (size_t)(stop - p) < len ? (size_t)(stop - p) : len - 1;
	memcpy(buf, p, n);
	buf[n] = 0;
}

/*
 * A total as people write it: "2.7G", "640K", "2M", "512" — in the largest
 * unit it reaches, with one decimal when that unit does not divide it
 * (info's mapped_bytes; page sizes stay exact with pt_size_str()).
 */
void pt_size_human(uint64_t size, char *buf, size_t len)
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

struct pt_jmem {
	char *key;
	char *val;
	size_t ord;   /* insertion order: of a repeated key the first added is kept */
};

void pt_json_escape(struct pt_buf *b, const char *s)
{
	pt_buf_put(b, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		size_t n = 0;

		/* a run of characters that need no escape goes in at once, not one call per byte */
		while (s[n] && s[n] != '"' && s[n] != '\\' && (unsigned char)s[n] >= 0x20 && s[n] != 0x7f)
			n++;
		if (n) {
			pt_buf_put(b, s, n);
			s += n - 1;
			continue;
		}
		if (c == '"' || c == '\\') {
			char e[2] = {'\\', (char)c};
			pt_buf_put(b, e, 2);
		} else {
			pt_buf_printf(b, "\\u%04x", c);   /* a control character */
		}
	}
	pt_buf_put(b, "\"", 1);
}

void pt_jobj_raw(struct pt_jobj *o, const char *key, const char *val)
{
	if (o->oom)
		return;
	if (!pt_vec_reserve(&o->m, &o->cap, o->n + 1, sizeof *o->m)) {
		o->oom = true;
		return;
	}
	o->m[o->n].ord = o->n;
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

void pt_jobj_buf(struct pt_jobj *o, const char *key, struct pt_buf *v)
{
	if (v->oom)
		o->oom = true;
	else
		pt_jobj_raw(o, key, v->data ? v->data : "");
}

void pt_jobj_str(struct pt_jobj *o, const char *key, const char *s)
{
	struct pt_buf v;

	if (!s) {
		pt_jobj_raw(o, key, "null");
		return;
	}
	pt_buf_init(&v);
	pt_json_escape(&v, s);
	pt_jobj_buf(o, key, &v);
	pt_buf_free(&v);
}

void pt_jobj_hex(struct pt_jobj *o, const char *key, uint64_t v)
{
	char s[32];

	snprintf(s, sizeof s, "\"0x%" PRIx64 "\"", v);
	pt_jobj_raw(o, key, s);
}

void pt_jobj_u(struct pt_jobj *o, const char *key, uint64_t v)
{
	char s[32];

	snprintf(s, sizeof s, "%" PRIu64, v);
	pt_jobj_raw(o, key, s);
}

/*
 * A flag-word list as maps prints it ("read_only,volatile", or "-" for none)
 * as a JSON array of the words (docs/design.md §5: a jq user asks
 * `.flags | index("read_only")`, never splits a string).
 */
void pt_json_flags(struct pt_buf *b, const char *flags)
{
	const char *p = flags;
	bool first = true;

	pt_buf_puts(b, "[");
	while (p && *p && strcmp(p, "-") != 0) {
		size_t n = strcspn(p, ",");
		char word[PT_JSON_WORD];

		if (n >= sizeof word)
			n = sizeof word - 1;
		memcpy(word, p, n);
		word[n] = '\0';
		if (n) {
			pt_buf_puts(b, first ? "" : ", ");
			pt_json_escape(b, word);
			first = false;
		}
		p += strcspn(p, ",");
		if (*p == ',')
			p++;
	}
	pt_buf_puts(b, "]");
}

void pt_jobj_flags(struct pt_jobj *o, const char *key, const char *flags)
{
	struct pt_buf v;

	pt_buf_init(&v);
	pt_json_flags(&v, flags);
	pt_jobj_buf(o, key, &v);
	pt_buf_free(&v);
}

void pt_jobj_bool(struct pt_jobj *o, const char *key, bool v)
{
	pt_jobj_raw(o, key, v ? "true" : "false");
}

static int jmem_cmp(const void *a, const void *b)
{
	const struct pt_jmem *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	/* qsort is not stable: the order breaks ties, so "the first" is well defined */
	return c ? c : x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* Emits O with sorted keys into B and frees it.  Duplicate keys keep the first. */
void pt_jobj_finish(struct pt_jobj *o, struct pt_buf *b)
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
		pt_json_escape(b, o->m[i].key);
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
void pt_jobj_obj(struct pt_jobj *o, const char *key, struct pt_jobj *child)
{
	struct pt_buf v;

	pt_buf_init(&v);
	pt_jobj_finish(child, &v);
	pt_jobj_buf(o, key, &v);
	pt_buf_free(&v);
}

/* ---- JSON array ---------------------------------------------------------- */

/* The separator before the next item (none before the first). */
static void jarr_next(struct pt_jarr *a)
{
	if (a->n++)
		pt_buf_puts(&a->b, a->sep ? a->sep : ", ");
}

void pt_jarr_raw(struct pt_jarr *a, const char *val)
{
	jarr_next(a);
	pt_buf_puts(&a->b, val);
}

void pt_jarr_str(struct pt_jarr *a, const char *s)
{
	jarr_next(a);
	if (s)
		pt_json_escape(&a->b, s);
	else
		pt_buf_puts(&a->b, "null");
}

void pt_jarr_obj(struct pt_jarr *a, struct pt_jobj *o)
{
	jarr_next(a);
	pt_jobj_finish(o, &a->b);
}

void pt_jobj_arr(struct pt_jobj *o, const char *key, struct pt_jarr *a)
{
	struct pt_buf v;

	pt_buf_init(&v);
	pt_buf_put(&v, "[", 1);
	pt_buf_put(&v, a->b.data ? a->b.data : "", a->b.len);
	pt_buf_put(&v, "]", 1);
	v.oom |= a->b.oom;
	pt_jobj_buf(o, key, &v);
	pt_buf_free(&v);
	pt_buf_free(&a->b);
	a->n = 0;
}

void pt_progress_str(const char *path, uint64_t done, uint64_t total, char *buf, size_t len)
{
	if (total)
		snprintf(buf, len, "loading %s: %3u%%", path,
			 (unsigned)(done >= total ? 100 : done * 100 / total));
	else
		snprintf(buf, len, "loading %s: %" PRIu64 " MiB", path, done >> 20);
}
