/* SPDX-License-Identifier: MIT */
/*
 * manifest_int.h — what manifest.c (the schema's driver, [capture] and the
 * context sections) and manifest_memory.c (the [memory] sections) share:
 * the state of one build and its small message helpers, inline so that
 * neither file calls the other back (HACKING.md, the load chain).
 */
#ifndef PT_MANIFEST_INT_H
#define PT_MANIFEST_INT_H

/* The include rule (HACKING.md, "Layers"): internal to core/load. */
#if !defined(PT_LAYER_LOAD) && !defined(PT_TESTING)
#error "manifest_int.h is internal to core/load (HACKING.md, Layers)"
#endif

#include <stdio.h>
#include <string.h>

#include "ini.h"

struct build {
	struct pt_manifest *m;
	char *err;
	size_t errlen;
	size_t memcap, ctxcap;
	bool mixed;             /* contexts may be of other formats with the same spaces */
	/*
	 * Without [capture] format: the first context section's format
	 * (IMPLIED), or the line of the first section whose type several
	 * formats share ([pdb]: nv-gmmu-ver2 and -ver3), which needs it (SHARED_LINE).
	 */
	const struct pt_format *implied;
	unsigned shared_line;
	/* a [memory] section names a dump: the format and the contexts may be the dump's (dumpmem.c) */
	bool has_dump;
};

/* The section as written, for messages: "[memory m0]". */
static inline const char *sec_label(const struct pt_ini_section *s, char *buf, size_t len)
{
	if (s->name)
		snprintf(buf, len, "[%s %s]", s->type, s->name);
	else
		snprintf(buf, len, "[%s]", s->type);
	return buf;
}

/* "NAME, NAME, ..." of the capture's spaces for messages. */
static inline void space_list(const struct pt_manifest *m, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < m->nspaces && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", m->spaces[i].name);
}

/* Reads integer key KV into *OUT; a bad value is E_VALUE naming the key. */
static inline pt_err get_uint(struct build *b, const struct pt_ini_kv *kv, const char *label,
			      uint64_t *out)
{
	char why[96];

	if (kv->value[0] == 0) {
		pt_ini_set_error(b->err, b->errlen, kv->line, "empty value for '%s' in %s", kv->key, label);
		return PT_E_VALUE;
	}
	if (pt_ini_uint(kv->value, out) == PT_OK)
		return PT_OK;
	pt_ini_set_error(b->err, b->errlen, kv->line, "bad integer '%s' for '%s' in %s%s",
			 kv->value, kv->key, label, pt_ini_uint_why(kv->value, why, sizeof why));
	return PT_E_VALUE;
}

static inline bool is_x_key(const char *k)
{
	return k[0] == 'x' && k[1] == '-' && k[2];
}

/* A required key missing from section S: reported at its header line. */
static inline pt_err missing(struct build *b, const struct pt_ini_section *s, const char *key)
{
	char label[PT_INI_MAX_LINE + 8];

	pt_ini_set_error(b->err, b->errlen, s->line, "missing key '%s' in %s", key,
	       sec_label(s, label, sizeof label));
	return PT_E_VALUE;
}

/*
 * A [memory NAME] section (S, its keys' duplicates DUP, the capture's
 * format FMT or NULL) checked and appended to b->m->mem, or the one it
 * names a dump of noted (manifest_memory.c).
 */
pt_err pt_manifest_check_memory(struct build *b, const struct pt_ini_section *s, const unsigned *dup,
				const struct pt_format *fmt);

#endif
