/*
 * fields_util.h — the field-by-field vector helpers the NVIDIA suites share
 * (ver2_util.h, ver3_util.h): an entry decoded from its two raw words, the
 * expected field list, and the check that the decoder produced exactly it
 * (same keys, order, kinds, values and flags).  Static, one copy per part,
 * as the headers that include it (their unused warnings are off).
 */
#ifndef FIELDS_UTIL_H
#define FIELDS_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "pt_format.h"
#include "testutil.h"

static void put_le(uint8_t *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static struct pt_entry decode_with(const struct pt_format *fmt, unsigned level, unsigned shift,
				   uint64_t lo, uint64_t hi)
{
	uint8_t raw[16];
	struct pt_entry e;
	pt_err err;

	put_le(raw, lo);
	put_le(raw + 8, hi);
	memset(&e, 0xa5, sizeof e);   /* the decoder must set everything */
	err = fmt->decode(level, shift, raw, 0, &e);
	ck_assert_msg(err == PT_OK, "%s", pt_strerror(err));
	return e;
}

/* ---- expected field lists ---------------------------------------------- */
struct xf {
	const char *key;
	enum pt_fkind kind;
	uint64_t v, v2;
	const char *s;
	unsigned flags;
};

struct xlist {
	unsigned n;
	struct xf f[PT_MAX_FIELDS];
};

static void x(struct xlist *l, const char *key, enum pt_fkind kind, uint64_t v)
{
	ck_assert_uint_lt(l->n, PT_MAX_FIELDS);
	l->f[l->n++] = (struct xf){key, kind, v, 0, NULL, 0};
}

static void xs(struct xlist *l, const char *key, const char *s)
{
	x(l, key, PT_FK_STR, 0);
	l->f[l->n - 1].s = s;
}

/* The entry's fields equal L exactly: same keys, order, kinds, values, flags. */
static void check_fields(const char *name, const struct pt_entry *e, const struct xlist *l)
{
	ck_assert_msg(e->nfields == l->n, "%s: %u fields, expected %u", name, e->nfields, l->n);
	for (unsigned i = 0; i < l->n; i++) {
		const struct pt_field *f = &e->fields[i];
		const struct xf *w = &l->f[i];

		ck_assert_msg(strcmp(f->key, w->key) == 0, "%s: field %u is %s, expected %s",
			      name, i, f->key, w->key);
		ck_assert_msg(f->kind == w->kind, "%s: %s kind %d, expected %d",
			      name, w->key, f->kind, w->kind);
		ck_assert_msg(f->flags == w->flags, "%s: %s flags %u", name, w->key, f->flags);
		if (w->kind == PT_FK_STR) {
			if (!w->s)
				ck_assert_msg(f->s == NULL, "%s: %s = '%s', expected NULL",
					      name, w->key, f->s);
			else
				ck_assert_msg(f->s && strcmp(f->s, w->s) == 0,
					      "%s: %s = '%s', expected '%s'", name, w->key,
					      f->s ? f->s : "(null)", w->s);
		} else {
			ck_assert_msg(f->v == w->v, "%s: %s = 0x%llx, expected 0x%llx", name,
				      w->key, (unsigned long long)f->v, (unsigned long long)w->v);
		}
		if (w->kind == PT_FK_HEX128)
			ck_assert_msg(f->v2 == w->v2, "%s: %s high = 0x%llx, expected 0x%llx",
				      name, w->key, (unsigned long long)f->v2,
				      (unsigned long long)w->v2);
		/* pt_entry_field finds the first field of that name. */
		ck_assert_ptr_eq(pt_entry_field(e, w->key), f);
	}
}

static void x_reserved(struct xlist *l, uint64_t lo, uint64_t hi, bool wide)
{
	x(l, "reserved_bits", PT_FK_BOOL, (lo | hi) != 0);
	x(l, "reserved_mask", wide ? PT_FK_HEX128 : PT_FK_HEX, lo);
	l->f[l->n - 1].v2 = hi;
}

#endif
