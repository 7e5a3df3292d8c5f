/* SPDX-License-Identifier: MIT */
/*
 * decode_oneline.c — `ptfs-tool decode --oneline` (ptfs-tool(1)): one line
 * per blob entry, or one JSON object per line, for millions of entries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "decode.h"

/* ---- --oneline ----------------------------------------------------------- */

/*
 * --oneline is the bulk form (ptfs-tool(1)): millions of entries a second,
 * so numbers are formatted by hand and lines gather in one large buffer
 * written out whole; nothing here calls printf per entry.
 */
#define OL_CAP (1u << 20)

struct ol {
	char *buf;
	size_t len;
	bool err;
};

static void ol_flush(struct ol *w)
{
	struct pt_buf b = {.data = w->buf, .len = w->len};

	if (w->len && !w->err && !cli_write_buf(&b))
		w->err = true;
	w->len = 0;
}

static inline void ol_put(struct ol *w, const char *s, size_t n)
{
	if (__builtin_expect(w->len + n > OL_CAP, 0)) {
		ol_flush(w);
		if (n > OL_CAP)
			return;   /* no piece is this long: static names and numbers */
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

static void ol_puts(struct ol *w, const char *s)
{
	ol_put(w, s, strlen(s));
}

static void ol_dec(struct ol *w, uint64_t v)
{
	char num[24], *end = num + sizeof num, *p = pt_dec_before(end, v);

	ol_put(w, p, (size_t)(end - p));
}

/* "0x" and HI:LO in hex, LO DIGITS wide or, under a non-zero HI, 16 (a 128-bit number). */
static void ol_hex128(struct ol *w, uint64_t hi, uint64_t lo, unsigned digits)
{
	char num[40], *end = num + sizeof num, *p;

	p = pt_hex_before(end, lo, hi ? 16 : digits);
	if (hi)
		p = pt_hex_before(p, hi, 0);
	*--p = 'x';
	*--p = '0';
	ol_put(w, p, (size_t)(end - p));
}

static void ol_hex(struct ol *w, uint64_t v, unsigned digits)
{
	ol_hex128(w, 0, v, digits);
}

/* The raw entry as the full decode's `raw:` (16 or 32 hex digits). */
static void ol_raw(struct ol *w, const struct pt_entry *e)
{
	char num[40], *end = num + sizeof num, *p;

	p = pt_hex_before(end, e->raw[0], 16);
	if (e->size > 8)
		p = pt_hex_before(p, e->raw[1], 16);
	*--p = 'x';
	*--p = '0';
	ol_put(w, p, (size_t)(end - p));
}

/* A JSON string (pt_json_escape's rules), NULL as null. */
static void ol_jstr(struct ol *w, const char *s)
{
	struct pt_buf b;

	if (!s) {
		ol_put(w, "null", 4);
		return;
	}
	const char *p = s;

	for (; *p; p++)
		if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20 || *p == 0x7f)
			goto escape;
	ol_put(w, "\"", 1);
	ol_put(w, s, (size_t)(p - s));
	ol_put(w, "\"", 1);
	return;
escape:
	pt_buf_init(&b);
	pt_json_escape(&b, s);
	if (b.oom)
		w->err = true;
	ol_put(w, b.data ? b.data : "", b.len);
	pt_buf_free(&b);
}

/*
 * The flags and kind columns of the last leaf, by its perm and kind: the
 * hooks' snprintf was a third of a line's cost.  Only where the summary
 * has a kind (>= 0): there the hooks read perm and kind alone (pt_format.h);
 * a format without one (its hooks read raw bits or fields) is asked every time.
 */
struct ol_memo {
	bool valid;
	uint32_t perm;
	int kind;
	char flags[PT_FLAGS_LEN], kind_name[64];
};

/*
 * One text line: INDEX RAW STATE ADDRESS PAGE_SIZE FLAGS KIND, "-" for a
 * column the entry has not.  A mapped leaf: SPACE:0xPA, its page size,
 * the maps flag words and kind.  A pointer: SPACE:0xADDR of each table it
 * points at (a dual entry: big,small with "-" for an absent half).  E may
 * be a summary-only decode: FULL decodes it again with its fields where
 * the hooks need them.
 */
static void ol_text(struct ol *w, const struct decode_opts *o, const struct pick *pk, size_t i,
		    struct pt_entry *e, struct ol_memo *memo)
{
	const struct pt_format *fmt = o->fmt;

	ol_dec(w, i);
	ol_put(w, " ", 1);
	ol_raw(w, e);
	ol_put(w, " ", 1);
	ol_puts(w, pt_state_name(e->state));
	if (e->state == PT_ST_MAPPED && e->leaf) {
		ol_put(w, " ", 1);
		ol_puts(w, fmt->spaces[e->space]);
		ol_put(w, ":", 1);
		ol_hex(w, e->pa, 0);
		ol_put(w, " ", 1);
		ol_hex(w, e->page_size, 0);
		if (!memo->valid || e->kind < 0 || memo->perm != e->perm || memo->kind != e->kind) {
			if (e->kind < 0 && !e->nfields) {
				/* the same bits decoded before: cannot fail now */
				(void)decode_at(o, pk, e->raw[0], e->raw[1], 0, e);
			}
			fmt->flags(e, memo->flags, sizeof memo->flags);
			fmt->kind_name(e, memo->kind_name, sizeof memo->kind_name);
			memo->valid = e->kind >= 0;
			memo->perm = e->perm;
			memo->kind = e->kind;
		}
		ol_put(w, " ", 1);
		ol_puts(w, memo->flags);
		ol_put(w, " ", 1);
		ol_puts(w, memo->kind_name);
		ol_put(w, "\n", 1);
		return;
	}
	if (e->state == PT_ST_POINTER) {
		ol_put(w, " ", 1);
		for (unsigned t = 0; t < (e->size > 8 ? 2u : 1u); t++) {
			if (t)
				ol_put(w, ",", 1);
			if (!e->target[t].present) {
				ol_put(w, "-", 1);
				continue;
			}
			ol_puts(w, fmt->spaces[e->target[t].space]);
			ol_put(w, ":", 1);
			ol_hex(w, e->target[t].addr, 0);
		}
		ol_put(w, " - - -\n", 7);
		return;
	}
	ol_put(w, " - - - -\n", 9);
}

/* A member of a JSON line: its key and how its value prints. */
enum jt { J_STR, J_RAW, J_U, J_HEX, J_HEX128, J_BOOL, J_ENTRYRAW };
struct jm {
	const char *key;
	uint8_t t;
	uint64_t v, v2;
	const char *s;
};
#define JM_MAX (PT_MAX_FIELDS + 8)

/*
 * The sorted order of the last key list: an entry of the same layout has
 * the same keys (static strings), so the sort runs once per layout, not
 * per entry.
 */
struct jorder {
	unsigned n;
	const char *keys[JM_MAX];
	unsigned order[JM_MAX];
	bool dup;
	struct pt_buf pre;        /* per sorted member: "{" or ", ", the escaped key, ": " */
	size_t pre_off[JM_MAX + 1];
};

static void jorder_update(struct jorder *c, const struct jm *m, unsigned n)
{
	bool same = c->n == n;

	for (unsigned k = 0; same && k < n; k++)
		same = c->keys[k] == m[k].key;
	if (same)
		return;
	c->n = n;
	c->dup = false;
	for (unsigned k = 0; k < n; k++) {
		unsigned j = k;

		c->keys[k] = m[k].key;
		/* insertion sort, strcmp order as pt_jobj_finish */
		while (j > 0 && strcmp(m[c->order[j - 1]].key, m[k].key) > 0) {
			c->order[j] = c->order[j - 1];
			j--;
		}
		c->order[j] = k;
	}
	for (unsigned k = 1; k < n; k++)
		if (strcmp(m[c->order[k - 1]].key, m[c->order[k]].key) == 0)
			c->dup = true;
	pt_buf_reset(&c->pre);
	for (unsigned k = 0; k < n; k++) {
		c->pre_off[k] = c->pre.len;
		pt_buf_puts(&c->pre, k ? ", " : "{");
		pt_json_escape(&c->pre, m[c->order[k]].key);
		pt_buf_puts(&c->pre, ": ");
	}
	c->pre_off[n] = c->pre.len;
	if (c->pre.oom)
		c->dup = true;   /* the slow path says out of memory */
}

/* The members of entry I as pt_render_decoded() and put_json_indexed() give them. */
static unsigned jm_fill(struct jm *m, const struct pt_format *fmt, const struct pick *pk,
			const char *cands_json, uint64_t pa, size_t i, const struct pt_entry *e)
{
	unsigned n = 0;

	m[n++] = (struct jm){"format", J_STR, 0, 0, fmt->name};
	if (pk->level >= 0)
		m[n++] = (struct jm){"level", J_STR, 0, 0, fmt->levels[pk->level].name};
	else
		m[n++] = (struct jm){"level", J_RAW, 0, 0, "null"};
	if (pk->level < 0)
		m[n++] = (struct jm){"level_candidates", J_RAW, 0, 0, cands_json};
	m[n++] = (struct jm){"entry_address", J_HEX, pa, 0, NULL};
	m[n++] = (struct jm){"raw", J_ENTRYRAW, 0, 0, NULL};
	for (unsigned k = 0; k < e->nfields && n < JM_MAX - 2; k++) {
		const struct pt_field *f = &e->fields[k];
		uint8_t t = f->kind == PT_FK_HEX ? J_HEX : f->kind == PT_FK_HEX128 ? J_HEX128 :
			    f->kind == PT_FK_BOOL || f->kind == PT_FK_BIT ? J_BOOL :
			    f->kind == PT_FK_STR ? J_STR : J_U;   /* a bit is a JSON boolean */

		m[n++] = (struct jm){f->key, t, f->v, f->v2, f->s};
	}
	m[n++] = (struct jm){"state", J_STR, 0, 0, pt_state_name(e->state)};
	m[n++] = (struct jm){"index", J_U, i, 0, NULL};
	return n;
}

/* One JSON line; false: keys repeat (the caller renders it the slow way). */
static bool ol_json(struct ol *w, struct jorder *c, const struct jm *m, unsigned n,
		    const struct pt_entry *e)
{
	jorder_update(c, m, n);
	if (c->dup)
		return false;
	for (unsigned k = 0; k < n; k++) {
		const struct jm *x = &m[c->order[k]];

		ol_put(w, c->pre.data + c->pre_off[k], c->pre_off[k + 1] - c->pre_off[k]);
		switch (x->t) {
		case J_STR:
			ol_jstr(w, x->s);
			break;
		case J_RAW:
			ol_puts(w, x->s);
			break;
		case J_U:
			ol_dec(w, x->v);
			break;
		case J_HEX:
			ol_put(w, "\"", 1);
			ol_hex(w, x->v, 0);
			ol_put(w, "\"", 1);
			break;
		case J_HEX128:
			ol_put(w, "\"", 1);
			ol_hex128(w, x->v2, x->v, 0);
			ol_put(w, "\"", 1);
			break;
		case J_BOOL:
			ol_puts(w, x->v ? "true" : "false");
			break;
		case J_ENTRYRAW:
			ol_put(w, "\"", 1);
			ol_raw(w, e);
			ol_put(w, "\"", 1);
			break;
		}
	}
	ol_put(w, "}\n", 2);
	return true;
}

/* --oneline: the COUNT entries of DATA, one line each, straight to stdout. */
int decode_oneline(const struct decode_opts *o, uint32_t rows, const uint8_t *data,
			  size_t count, uint64_t base)
{
	struct ol w = {malloc(OL_CAP), 0, false};
	struct pick pk[2];
	struct pt_buf cj[2], one;
	static struct jorder order;   /* static: 5 KiB of offsets off the stack */
	struct ol_memo memo = {0};
	struct jm m[JM_MAX];
	struct pt_entry e;
	int st = CLI_EXIT_OK;

	if (!w.buf)
		return cli_fail(PT_E_NOMEM, "out of memory");
	pt_buf_init(&one);
	pt_buf_init(&order.pre);
	order.n = 0;
	/* The level depends on bit 0 only (auto_rows): both picks, once. */
	for (unsigned b = 0; b < 2; b++) {
		pick_level(o, rows, b, &pk[b]);
		pt_buf_init(&cj[b]);
		pt_buf_put(&cj[b], "[", 1);
		for (unsigned k = 0; pk[b].cands[k]; k++) {
			if (k)
				pt_buf_put(&cj[b], ", ", 2);
			pt_json_escape(&cj[b], pk[b].cands[k]);
		}
		pt_buf_put(&cj[b], "]", 1);
	}
	for (size_t i = 0; i < count && st == CLI_EXIT_OK && !w.err; i++) {
		const uint8_t *p = data + i * o->esize;
		uint64_t lo = pt_le64_load(p), hi = o->esize == 16 ? pt_le64_load(p + 8) : 0;
		const struct pick *k = &pk[lo & 1];
		uint64_t pa = base + (uint64_t)i * o->esize;

		if (o->skip_zero && is_zero(p, o->esize))
			continue;
		if (!o->json) {
			/* The text line needs the summary only: no named fields. */
			st = decode_at(o, k, lo, hi, PT_DECODE_SUMMARY, &e);
			if (st == CLI_EXIT_OK)
				ol_text(&w, o, k, i, &e, &memo);
			continue;
		}
		if ((st = decode_at(o, k, lo, hi, 0, &e)) != CLI_EXIT_OK)
			break;
		if (ol_json(&w, &order, m, jm_fill(m, o->fmt, k, cj[lo & 1].data, pa, i, &e), &e))
			continue;
		/* Repeated keys: the renderer's object, whatever it makes of them. */
		pt_buf_reset(&one);
		st = decode_one(o, rows, lo, hi, pa, &one);
		if (st != CLI_EXIT_OK)
			break;
		cli_buf_chomp(&one);
		{
			struct pt_buf line;

			pt_buf_init(&line);
			put_json_indexed(&line, one.data ? one.data : "{}", one.data ? one.len : 2, i);
			pt_buf_put(&line, "\n", 1);
			w.err |= line.oom;
			ol_put(&w, line.data, line.len);
			pt_buf_free(&line);
		}
	}
	ol_flush(&w);
	if (w.err && st == CLI_EXIT_OK)
		st = CLI_EXIT_ERROR;
	for (unsigned b = 0; b < 2; b++)
		pt_buf_free(&cj[b]);
	pt_buf_free(&one);
	pt_buf_free(&order.pre);
	free(w.buf);
	return st;
}

