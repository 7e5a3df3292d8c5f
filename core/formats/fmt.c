/* SPDX-License-Identifier: MIT */
/*
 * fmt.c — the table of formats and the helpers every decoder shares:
 * state names and the ordered field list of a decoded entry.
 */
#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "pt_format.h"
#include "pt_num.h"

/*
 * Every format the core knows, the default first: one line per format,
 * its descriptor in core/fmt_NAME.c.  Nothing else lists them.
 */
extern const struct pt_format pt_format_ver2, pt_format_gart, pt_format_ver3, pt_format_gpuvm,
	pt_format_x86_64;
extern const struct pt_format pt_format_vtd, pt_format_ept, pt_format_amdvi, pt_format_arm64,
	pt_format_smmuv3;
static const struct pt_format *const formats[] = {
	&pt_format_ver2,
	&pt_format_gart,
	&pt_format_ver3,
	&pt_format_gpuvm,
	&pt_format_x86_64,
	&pt_format_vtd,
	&pt_format_ept,
	&pt_format_amdvi,
	&pt_format_arm64,
	&pt_format_smmuv3,
};
#define NFORMATS (sizeof formats / sizeof formats[0])

const struct pt_format *pt_format_at(unsigned i)
{
	return i < NFORMATS ? formats[i] : NULL;
}

const struct pt_format *pt_format_by_section(const char *section)
{
	for (size_t i = 0; section && i < NFORMATS; i++)
		if (formats[i]->ctx_section && strcmp(formats[i]->ctx_section, section) == 0)
			return formats[i];
	return NULL;
}

void pt_format_list(char *buf, size_t len, const char *sep, const char *last)
{
	size_t n = 0;

	if (len)
		buf[0] = 0;
	for (size_t i = 0; i < NFORMATS && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s",
				      i == 0 ? "" : i + 1 == NFORMATS ? last : sep, formats[i]->name);
}

const struct pt_format *pt_format_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < NFORMATS; i++)
		if (strcmp(formats[i]->name, name) == 0)
			return formats[i];
	return NULL;
}

unsigned pt_format_nlevels(const struct pt_format *fmt)
{
	unsigned n = 0;

	while (fmt->levels[n].name)
		n++;
	return n;
}

int pt_format_space(const struct pt_format *fmt, const char *name)
{
	if (!name)
		return -1;
	for (int i = 0; fmt->spaces[i]; i++)
		if (strcmp(fmt->spaces[i], name) == 0)
			return i;
	return -1;
}

/* Indexed by enum pt_state; these strings are the `state:` values of docs/design.md §4. */
static const char *const state_names[] = {
	[PT_ST_UNMAPPED] = "unmapped",
	[PT_ST_INVALID] = "invalid",
	[PT_ST_SPARSE] = "sparse",
	[PT_ST_NO_VALID_4K] = "no_valid_4k",
	[PT_ST_POINTER] = "pointer",
	[PT_ST_MAPPED] = "mapped",
	[PT_ST_UNSUPPORTED] = "unsupported",
	[PT_ST_SHADOWED] = "shadowed",
	[PT_ST_RESERVED_BITS] = "reserved_bits",
	[PT_ST_REPLICA] = "replica",
};

const char *pt_state_name(enum pt_state st)
{
	if ((unsigned)st >= sizeof state_names / sizeof state_names[0] || !state_names[st])
		return "unknown";
	return state_names[st];
}

void pt_entry_add_reserved(struct pt_entry *e, uint64_t lo, uint64_t hi, bool wide)
{
	e->reserved_mask[0] = lo;
	e->reserved_mask[1] = hi;
	pt_entry_add(e, "reserved_bits", PT_FK_BOOL, (lo | hi) != 0);
	if (!wide) {
		pt_entry_add(e, "reserved_mask", PT_FK_HEX, lo);
		return;
	}
	pt_entry_add(e, "reserved_mask", PT_FK_HEX128, lo);
	if (e->nfields)   /* none in summary-only mode */
		e->fields[e->nfields - 1].v2 = hi;
}

void pt_entry_reset(struct pt_entry *e, unsigned size, const uint8_t *raw, unsigned flags)
{
	/*
	 * The field array is 2 KiB and nothing reads past nfields: clearing
	 * it for every decoded entry was the largest cost of a table listing
	 * (bench/README.md).
	 */
	memset(e, 0, offsetof(struct pt_entry, fields));
	e->summary = (flags & PT_DECODE_SUMMARY) != 0;
	e->state = PT_ST_UNMAPPED;
	e->size = (uint8_t)size;
	e->kind = -1;
	if (raw && size >= 8)
		e->raw[0] = pt_le64_load(raw);
	if (raw && size >= 16)
		e->raw[1] = pt_le64_load(raw + 8);
}

void pt_entry_push(struct pt_entry *e, const char *key, enum pt_fkind kind, uint64_t v,
		   unsigned flags, const char *s)
{
	struct pt_field *f;

	/* A decoder that overflows the list is a bug; release builds drop the field. */
	assert(e->summary || e->nfields < PT_MAX_FIELDS);
	if (e->summary || e->nfields >= PT_MAX_FIELDS)
		return;
	f = &e->fields[e->nfields++];
	f->key = key;
	f->kind = (uint8_t)kind;
	f->flags = (uint8_t)flags;
	f->v = v;
	f->v2 = 0;
	f->s = s;
}

void pt_entry_copy(struct pt_entry *dst, const struct pt_entry *src)
{
	unsigned n = src->nfields <= PT_MAX_FIELDS ? src->nfields : PT_MAX_FIELDS;

	memcpy(dst, src, offsetof(struct pt_entry, fields) + n * sizeof(src->fields[0]));
}

const struct pt_field *pt_entry_field(const struct pt_entry *e, const char *key)
{
	for (unsigned i = 0; i < e->nfields; i++)
		if (strcmp(e->fields[i].key, key) == 0)
			return &e->fields[i];
	return NULL;
}

uint64_t pt_entry_get(const struct pt_entry *e, const char *key, uint64_t dflt)
{
	const struct pt_field *f = pt_entry_field(e, key);

	return f ? f->v : dflt;
}

void pt_format_flags(const struct pt_format *fmt, const struct pt_entry *e, char *buf, size_t len)
{
	buf[0] = 0;
	if (fmt->flags)
		fmt->flags(e, buf, len);
}

/* S at *OFF of BUF, cut to fit with its NUL; *OFF moves by all of S (as snprintf counts). */
static void put_cut(char *buf, size_t len, size_t *off, const char *s)
{
	size_t n = strlen(s);

	if (*off < len) {
		size_t room = len - *off - 1, k = n < room ? n : room;

		memcpy(buf + *off, s, k);
		buf[*off + k] = 0;
	}
	*off += n;
}

/*
 * Without printf: a walk or maps line asks for the flags of every leaf
 * (bench/README.md, memory dumps: 11% of a kdump walk was this snprintf).
 */
void pt_format_flag_words(char *buf, size_t len, const bool *set, const char *const *names,
			  size_t n)
{
	size_t off = 0, dash = 0;

	if (len == 0)
		return;
	put_cut(buf, len, &dash, "-");
	for (size_t i = 0; i < n; i++) {
		if (!set[i] || off >= len)
			continue;
		if (off)
			put_cut(buf, len, &off, ",");
		put_cut(buf, len, &off, names[i]);
	}
}

bool pt_format_perm_field(const struct pt_format *fmt, uint32_t perm, const char *generic,
			  char *buf, size_t len, bool *inverted)
{
	const char *name = fmt->perm_names ? NULL : generic, *eq;
	size_t n;

	for (const struct pt_perm_name *p = fmt->perm_names; p && p->perm; p++)
		if (p->perm == perm)
			name = p->name;
	if (!name || len == 0)
		return false;
	eq = strchr(name, '=');
	n = eq ? (size_t)(eq - name) : strlen(name);
	if (n >= len)
		n = len - 1;
	memcpy(buf, name, n);
	buf[n] = '\0';
	*inverted = eq && eq[1] == '0';
	return true;
}

void pt_format_kind_key(const struct pt_format *fmt, char *buf, size_t len)
{
	/* the decoder's name field of the KIND column: kind_name, mtype_name, emt_name... */
	snprintf(buf, len, "%s_name", fmt->kind_field ? fmt->kind_field : "kind");
}

void pt_format_kind(const struct pt_format *fmt, const struct pt_entry *e, char *buf, size_t len)
{
	snprintf(buf, len, "-");
	if (fmt->kind_name)
		fmt->kind_name(e, buf, len);
}
