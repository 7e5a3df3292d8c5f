/* SPDX-License-Identifier: MIT */
/*
 * decode_entry.c — one entry of `ptfs-tool decode`: the level it is
 * decoded at (the format's level rows narrowed by the options, then bit 0),
 * the decode and its rendering.  decode.c (--value, --blob) and
 * decode_oneline.c (--oneline) both call it; it calls neither.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "decode.h"

static bool can_leaf(const struct pt_level *l)
{
	return l->role == PT_ROLE_LEAF || l->leaf_shift != 0;
}

static bool can_dir(const struct pt_level *l)
{
	return l->role == PT_ROLE_DIR || l->role == PT_ROLE_DUAL;
}

/*
 * Whether row L may hold an entry of ESIZE bytes in role R.  A 16-byte row
 * takes an 8-byte --value (high half 0) only as a leaf (a big leaf lives in
 * the low half of a dual slot) unless the level was named explicitly
 * (PINNED); a blob's stride must always be the row's.
 */
static bool row_fits(const struct pt_level *l, enum role r, unsigned esize, bool pinned,
		     bool value)
{
	if (l->entry_size != esize) {
		if (!(value && esize == 8 && l->entry_size == 16))
			return false;
		if (!pinned && !can_leaf(l))
			return false;
	}
	switch (r) {
	case ROLE_LEAF:
		return can_leaf(l);
	case ROLE_DIR:
		return can_dir(l);
	case ROLE_DUAL:
		return l->role == PT_ROLE_DUAL;
	case ROLE_AUTO:
		break;
	}
	return true;
}

/* The rows that may hold the entry before bit 0 is looked at. */
uint32_t decode_base_rows(const struct decode_opts *o)
{
	unsigned n = pt_format_nlevels(o->fmt);
	uint32_t m = 0;

	for (unsigned i = 0; i < n; i++) {
		if (o->level_mask && !(o->level_mask & (1u << i)))
			continue;
		if (row_fits(&o->fmt->levels[i], o->role, o->esize, o->level_mask != 0, o->value))
			m |= 1u << i;
	}
	return m;
}

/* --role auto: bit 0 picks the leaf rows or the directory rows, where both remain. */
static uint32_t auto_rows(const struct decode_opts *o, uint32_t rows, uint64_t lo)
{
	unsigned n = pt_format_nlevels(o->fmt);
	uint32_t m = 0;

	for (unsigned i = 0; i < n; i++) {
		const struct pt_level *l = &o->fmt->levels[i];

		if (!(rows & (1u << i)))
			continue;
		/* An 8-byte value in a 16-byte row is only ever its 2 MiB leaf half. */
		if ((lo & 1) ? can_leaf(l) : (can_dir(l) && (l->entry_size == o->esize ||
							     o->level_mask)))
			m |= 1u << i;
	}
	return m ? m : rows;
}

/* The level for an entry whose low 64 bits are LO (only bit 0 matters: auto_rows). */
void pick_level(const struct decode_opts *o, uint32_t rows, uint64_t lo, struct pick *pk)
{
	const struct pt_format *fmt = o->fmt;
	unsigned n = pt_format_nlevels(fmt), nc = 0;

	pk->pick = pk->level = -1;
	pk->page_shift = 0;
	if (o->role == ROLE_AUTO)
		rows = auto_rows(o, rows, lo);
	for (unsigned i = 0; i < n; i++) {
		if (!(rows & (1u << i)))
			continue;
		pk->cands[nc++] = fmt->levels[i].name;
		/* Among several, a pure leaf row: decoded with page size unknown. */
		if (pk->pick < 0 || fmt->levels[i].role == PT_ROLE_LEAF)
			pk->pick = (int)i;
	}
	pk->cands[nc] = NULL;
	/*
	 * An explicit --role auto never claims a level: it only knows leaf vs
	 * directory.  Otherwise one candidate is the level (e.g. a flat format's only one).
	 */
	if (nc == 1 && (o->role != ROLE_AUTO || o->level_mask || !o->role_given)) {
		const struct pt_level *l = &fmt->levels[pk->pick];

		pk->level = pk->pick;
		/* A flat level takes its page size from the context, which we do not have. */
		pk->page_shift = l->bits ? l->va_shift : 0;
	}
}

/* Decodes LO/HI as PK says into E, with decode FLAGS (PT_DECODE_*). */
int decode_at(const struct decode_opts *o, const struct pick *pk, uint64_t lo, uint64_t hi,
		     unsigned flags, struct pt_entry *e)
{
	const struct pt_format *fmt = o->fmt;
	uint8_t raw[16];
	pt_err err;

	pt_le64_store(raw, lo);
	pt_le64_store(raw + 8, hi);
	if (hi && fmt->levels[pk->pick].entry_size < 16)
		return cli_fail(PT_E_VALUE, "value 0x%016llx%016llx is wider than the %u-byte %s entry",
				(unsigned long long)hi, (unsigned long long)lo,
				fmt->levels[pk->pick].entry_size, fmt->levels[pk->pick].name);
	err = fmt->decode((unsigned)pk->pick, pk->page_shift, raw, flags, e);
	if (err != PT_OK)
		return cli_fail(err, "cannot decode at level %s", fmt->levels[pk->pick].name);
	return CLI_EXIT_OK;
}

/* Decodes one entry (LO/HI) at address PA and renders it into B. */
int decode_one(const struct decode_opts *o, uint32_t rows, uint64_t lo, uint64_t hi,
	       uint64_t pa, struct pt_buf *b)
{
	struct pick pk;
	struct pt_entry e;
	pt_err err;
	int st;

	pick_level(o, rows, lo, &pk);
	if ((st = decode_at(o, &pk, lo, hi, 0, &e)) != CLI_EXIT_OK)
		return st;
	err = pt_render_decoded(b, o->fmt, pk.level, pk.level < 0 ? pk.cands : NULL, pa, &e,
				o->json ? PT_OUT_JSON : PT_OUT_TEXT);
	if (err != PT_OK)
		return cli_fail(err, "cannot render the entry");
	return CLI_EXIT_OK;
}

/*
 * Appends the rendered JSON object OBJ (LEN bytes) to OUT with `"index": I`
 * added where it sorts among the top-level keys (docs/design.md §5: sorted keys).
 */
void put_json_indexed(struct pt_buf *out, const char *obj, size_t len, size_t i)
{
	char field[48];
	int depth = 0;
	bool in_str = false, inserted = false, expect_key = false;

	snprintf(field, sizeof field, "\"index\": %zu", i);
	for (size_t k = 0; k < len; k++) {
		char c = obj[k];

		if (in_str) {
			if (c == '\\')
				k++;
			else if (c == '"')
				in_str = false;
			continue;
		}
		if (c == '"' && depth == 1 && expect_key && !inserted &&
		    strncmp(obj + k + 1, "index\"", 6) > 0) {
			pt_buf_put(out, obj, k);
			pt_buf_printf(out, "%s, ", field);
			obj += k;
			len -= k;
			k = 0;
			inserted = true;
		}
		if (c == '"')
			in_str = true;
		else if (c == '{' || c == '[')
			depth++;
		else if (c == '}' || c == ']')
			depth--;
		if (depth == 0 && c == '}' && !inserted) {
			pt_buf_put(out, obj, k);
			pt_buf_printf(out, "%s%s", k > 1 ? ", " : "", field);
			obj += k;
			len -= k;
			k = 0;
			inserted = true;
		}
		expect_key = depth == 1 && (c == '{' || c == ',' || (expect_key && c == ' '));
	}
	pt_buf_put(out, obj, len);
}

/* Whether the N bytes at P are all zero. */
bool is_zero(const uint8_t *p, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}
