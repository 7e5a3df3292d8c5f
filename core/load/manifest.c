/* SPDX-License-Identifier: MIT */
/*
 * manifest.c — the capture.ini version 1 schema (ini.h): the sections
 * checked in order, the [capture] section, the [space] sections and the
 * generic part of a context section (names, duplicates, x- keys); its
 * other keys are the format's (pt_format.ctx_key).  The [memory] sections
 * are manifest_memory.c's.
 *
 * The grammar and every message are documented in man/ptfs-capture.5; keep
 * the two in step.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_int.h"
#include "ini.h"
#include "manifest_int.h"
#include "pt_vec.h"

/* ---- the schema ---- */

void pt_manifest_free(struct pt_manifest *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nmem; i++)
		free(m->mem[i].path);
	for (size_t i = 0; i < m->nctx; i++) {
		free(m->ctx[i].ann);
		free(m->ctx[i].owned_name);
		free(m->ctx[i].origin);
		if (m->ctx[i].fmt->ctx_free)
			m->ctx[i].fmt->ctx_free(m->ctx[i].priv);
		free(m->ctx[i].priv);
	}
	free(m->mem);
	free(m->dump_path);
	free(m->system_map_path);
	free(m->ctx);
	free(m->iommu);
	free(m->ann);
	pt_ini_free(m->ini);
	free(m);
}

struct sname {
	const char *name;
	unsigned line;
	size_t sec;
};

static int cmp_sname(const void *a, const void *b)
{
	const struct sname *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

struct skey {
	const char *key;
	unsigned line;
};

static int cmp_skey(const void *a, const void *b)
{
	const struct skey *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

/*
 * For each key line of S that repeats an earlier key, the line of the first
 * one, in FIRST[k] (0 when the key is not a repeat).
 */
static pt_err find_dup_keys(const struct pt_ini_section *s, unsigned *first)
{
	struct skey *k = malloc((s->nkv ? s->nkv : 1) * sizeof *k);

	if (!k)
		return PT_E_NOMEM;
	for (size_t i = 0; i < s->nkv; i++) {
		k[i].key = s->kv[i].key;
		k[i].line = (unsigned)i;    /* kv index, ordered like lines */
		first[i] = 0;
	}
	qsort(k, s->nkv, sizeof *k, cmp_skey);
	for (size_t i = 1; i < s->nkv; i++) {
		size_t j = i;

		while (j > 0 && !strcmp(k[j - 1].key, k[i].key))
			j--;
		if (j != i)
			first[k[i].line] = s->kv[k[j].line].line;
	}
	free(k);
	return PT_OK;
}

/* Adds space NAME to M unless it is there; false when the capture has too many. */
static bool space_add(struct pt_manifest *m, const char *name)
{
	if (pt_manifest_space_find(m, name) >= 0)
		return true;
	if (m->nspaces == PT_CAPTURE_SPACES)
		return false;
	m->spaces[m->nspaces].name = name;
	m->spaces[m->nspaces].line = 0;
	m->spaces[m->nspaces].translate = NULL;
	m->nspaces++;
	return true;
}

/* The format of context section S: the capture's own first ([pdb] is VER2's and VER3's). */
static const struct pt_format *section_format(const struct pt_ini_section *s, const struct pt_format *fmt)
{
	return fmt && fmt->ctx_section && !strcmp(fmt->ctx_section, s->type)
		? fmt : pt_format_by_section(s->type);
}

/*
 * The capture's space namespace (ini.h), before any section is checked: a
 * [memory] section may come before the context whose format names its
 * space.  The [capture] format's spaces come first, so that a capture of
 * one format keeps its format's ids.
 */
static pt_err collect_spaces(struct pt_manifest *m, const struct pt_ini *ini,
			     const struct pt_format *fmt, char *err, size_t errlen)
{
	char label[PT_INI_MAX_LINE + 8];

	m->one_format = true;
	for (unsigned i = 0; fmt && fmt->spaces[i]; i++)
		if (!space_add(m, fmt->spaces[i]))
			goto many;
	for (size_t i = 0; i < ini->nsec; i++) {
		const struct pt_ini_section *s = &ini->sec[i];
		const struct pt_format *cf = section_format(s, fmt);
		bool iommu = !strcmp(s->type, "iommu");

		if (!strcmp(s->type, "space") && s->name && pt_ini_name_ok(s->name)) {
			if (!space_add(m, s->name))
				goto many;
			continue;
		}
		if (!cf && !iommu)
			continue;
		m->one_format &= cf == fmt;
		/* an [iommu] section's device contexts are of these formats (iommu.c) */
		for (unsigned f = 0; iommu && pt_iommu_device_formats[f]; f++)
			for (unsigned k = 0; pt_format_find(pt_iommu_device_formats[f])->spaces[k]; k++)
				if (!space_add(m, pt_format_find(pt_iommu_device_formats[f])->spaces[k]))
					goto many;
		for (unsigned k = 0; cf && cf->spaces[k]; k++)
			if (!space_add(m, cf->spaces[k]))
				goto many;
		for (size_t k = 0; k < s->nkv; k++) {
			const struct pt_ini_kv *kv = &s->kv[k];

			if (strcmp(kv->key, "space") && strcmp(kv->key, "output_space"))
				continue;
			if (!pt_ini_name_ok(kv->value)) {
				pt_ini_set_error(err, errlen, kv->line,
				       "bad space name '%s' for '%s' in %s: names are 1 to %u of"
				       " A-Z a-z 0-9 _ . -", kv->value, kv->key,
				       sec_label(s, label, sizeof label), PT_INI_MAX_NAME);
				return PT_E_VALUE;
			}
			if (!space_add(m, kv->value))
				goto many;
		}
	}
	return PT_OK;
many:
	pt_ini_set_error(err, errlen, 1, "more than %u spaces in the capture", PT_CAPTURE_SPACES);
	return PT_E_VALUE;
}

/* The type of the section that starts at LINE (a message's word). */
static const char *section_type_at(const struct build *b, unsigned line)
{
	for (size_t i = 0; i < b->m->ini->nsec; i++)
		if (b->m->ini->sec[i].line == line)
			return b->m->ini->sec[i].type;
	return "?";
}

/* Whether section type TYPE belongs to more than one format ([pdb]: it takes the [capture] format). */
static bool section_shared(const char *type)
{
	const struct pt_format *f;
	unsigned n = 0;

	for (unsigned i = 0; (f = pt_format_at(i)); i++)
		n += f->ctx_section && !strcmp(f->ctx_section, type);
	return n > 1;
}

static pt_err add_ann(struct pt_kv **arr, size_t *n, size_t *cap, const struct pt_ini_kv *kv)
{
	if (!pt_vec_reserve(arr, cap, *n + 1, sizeof **arr))
		return PT_E_NOMEM;
	(*arr)[*n].key = kv->key;
	(*arr)[*n].value = kv->value;
	(*n)++;
	return PT_OK;
}

static pt_err check_capture(struct build *b, const struct pt_ini_section *s, const unsigned *dup)
{
	struct pt_manifest *m = b->m;
	const struct pt_ini_kv *version = NULL, *format = NULL;
	size_t anncap = 0;
	pt_err rc;

	for (size_t i = 0; i < s->nkv; i++) {
		const struct pt_ini_kv *kv = &s->kv[i];

		if (dup[i]) {
			pt_ini_set_error(b->err, b->errlen, kv->line,
			       "duplicate key '%s' in [capture] (first at line %u)", kv->key, dup[i]);
			return PT_E_VALUE;
		}
		if (!strcmp(kv->key, "version")) {
			uint64_t v;

			if ((rc = get_uint(b, kv, "[capture]", &v)))
				return rc;
			if (v != 1) {
				pt_ini_set_error(b->err, b->errlen, kv->line,
				       "capture version %s is not supported (this ptfs reads version 1)",
				       kv->value);
				return PT_E_UNSUPPORTED;
			}
			m->version = 1;
			version = kv;
		} else if (!strcmp(kv->key, "format")) {
			if (kv->value[0] == 0) {
				pt_ini_set_error(b->err, b->errlen, kv->line, "empty value for 'format' in [capture]");
				return PT_E_VALUE;
			}
			m->fmt = pt_format_find(kv->value);
			if (!m->fmt) {
				char list[256];

				pt_format_list(list, sizeof list, ", ", ", ");
				pt_ini_set_error(b->err, b->errlen, kv->line,
				       "unknown format '%s' (supported: %s)", kv->value, list);
				return PT_E_UNSUPPORTED;
			}
			format = kv;
		} else if (!strcmp(kv->key, "gpu")) {
			m->gpu = kv->value;
		} else if (!strcmp(kv->key, "description")) {
			m->description = kv->value;
		} else if (is_x_key(kv->key)) {
			if ((rc = add_ann(&m->ann, &m->nann, &anncap, kv)))
				return rc;
		} else {
			pt_ini_set_error(b->err, b->errlen, kv->line, "unknown key '%s' in [capture]", kv->key);
			return PT_E_VALUE;
		}
	}
	if (!version)
		return missing(b, s, "version");
	/* docs/design.md §3: the key is required only where a [pdb] section needs it */
	if (!format && b->shared_line) {
		pt_ini_set_error(b->err, b->errlen, b->shared_line,
		       "[%s] takes its format from [capture]: add 'format = nv-gmmu-ver2' or "
		       "'format = nv-gmmu-ver3' there", section_type_at(b, b->shared_line));
		return PT_E_VALUE;
	}
	if (!format && !b->implied && !b->has_dump)
		return missing(b, s, "format");
	if (!format)
		m->fmt = b->implied;
	return PT_OK;
}

/*
 * A context section of format CF: the keys before its first duplicate (x-
 * keys: annotations) through the factory's first phase (ctxmake.c), so
 * that the first bad key, a duplicate or not, is the one reported.
 */
static pt_err check_context(struct build *b, const struct pt_ini_section *s, const unsigned *dup,
			    const struct pt_format *cf)
{
	char label[PT_INI_MAX_LINE + 8];
	struct pt_manifest_ctx c = {0};
	struct pt_ctx_key *k = calloc(s->nkv ? s->nkv : 1, sizeof *k);
	size_t anncap = 0, first_dup = s->nkv;
	unsigned n = 0, failed = 0;
	const char *miss;
	pt_err rc = k ? PT_OK : PT_E_NOMEM;

	sec_label(s, label, sizeof label);
	for (size_t i = 0; i < s->nkv && !rc && first_dup == s->nkv; i++) {
		const struct pt_ini_kv *kv = &s->kv[i];

		if (dup[i])
			first_dup = i;
		else if (is_x_key(kv->key))
			rc = add_ann(&c.ann, &c.nann, &anncap, kv);
		else
			k[n++] = (struct pt_ctx_key){kv->key, kv->value, kv->line, label, b->err,
						     b->errlen};
	}
	if (!rc && (rc = pt_context_keys(cf, &c.priv, k, n, &failed)) == PT_E_NOTFOUND) {
		pt_ini_set_error(b->err, b->errlen, k[failed].line, "unknown key '%s' in %s",
				 k[failed].key, label);
		rc = PT_E_VALUE;
	}
	if (!rc && first_dup < s->nkv) {
		pt_ini_set_error(b->err, b->errlen, s->kv[first_dup].line, "duplicate key '%s' in %s"
				 " (first at line %u)", s->kv[first_dup].key, label, dup[first_dup]);
		rc = PT_E_VALUE;
	}
	free(k);
	if (!rc && (miss = cf->ctx_missing(c.priv)))
		rc = missing(b, s, miss);
	if (!rc && !pt_vec_reserve(&b->m->ctx, &b->ctxcap, b->m->nctx + 1, sizeof *b->m->ctx))
		rc = PT_E_NOMEM;
	if (rc) {
		free(c.ann);
		if (c.priv && cf->ctx_free)
			cf->ctx_free(c.priv);
		free(c.priv);
		return rc;
	}
	c.name = s->name;
	c.line = s->line;
	c.fmt = cf;
	b->m->ctx[b->m->nctx++] = c;
	return PT_OK;
}

/* [space NAME]: translate = CTX (checked against the contexts after set-up) and x- keys. */
static pt_err check_space(struct build *b, const struct pt_ini_section *s, const unsigned *dup)
{
	char label[PT_INI_MAX_LINE + 8];
	struct pt_manifest_space *sp = &b->m->spaces[pt_manifest_space_find(b->m, s->name)];

	sec_label(s, label, sizeof label);
	sp->line = s->line;
	for (size_t i = 0; i < s->nkv; i++) {
		const struct pt_ini_kv *kv = &s->kv[i];

		if (dup[i]) {
			pt_ini_set_error(b->err, b->errlen, kv->line,
			       "duplicate key '%s' in %s (first at line %u)", kv->key, label, dup[i]);
			return PT_E_VALUE;
		}
		if (!strcmp(kv->key, "translate")) {
			if (!pt_ini_name_ok(kv->value)) {
				pt_ini_set_error(b->err, b->errlen, kv->line,
				       "bad context name '%s' for 'translate' in %s", kv->value, label);
				return PT_E_VALUE;
			}
			sp->translate = kv->value;
			sp->translate_line = kv->line;
		} else if (!is_x_key(kv->key)) {
			pt_ini_set_error(b->err, b->errlen, kv->line, "unknown key '%s' in %s", kv->key, label);
			return PT_E_VALUE;
		}
	}
	return PT_OK;
}

/* "capture, memory, space, A or B" with every format's context section, for messages. */
static void section_list(char *buf, size_t len)
{
	const struct pt_format *f;
	size_t n = (size_t)snprintf(buf, len, "capture, memory, space, iommu");
	unsigned count = 0;

	/* Each section type once (formats may share one): the first format that has it. */
	for (unsigned i = 0; (f = pt_format_at(i)); i++)
		count += pt_format_by_section(f->ctx_section) == f;
	for (unsigned i = 0, j = 0; (f = pt_format_at(i)) && n < len; i++)
		if (pt_format_by_section(f->ctx_section) == f)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", ++j == count ? " or " : ", ",
					      f->ctx_section);
}

static pt_err check_section(struct build *b, const struct pt_ini_section *s,
			    unsigned dup_name_of, unsigned first_capture,
			    const struct pt_format *fmt)
{
	char label[PT_INI_MAX_LINE + 8];
	bool is_capture = !strcmp(s->type, "capture");
	bool is_memory = !strcmp(s->type, "memory");
	bool is_space = !strcmp(s->type, "space");
	bool is_iommu = !strcmp(s->type, "iommu");
	const struct pt_format *cf = section_format(s, fmt);
	unsigned *dup;
	pt_err rc;

	sec_label(s, label, sizeof label);
	if (!is_capture && !is_memory && !is_space && !is_iommu && !cf) {
		char list[256];

		section_list(list, sizeof list);
		pt_ini_set_error(b->err, b->errlen, s->line, "unknown section %s (%s)", label, list);
		return PT_E_VALUE;
	}
	if (is_capture && s->name) {
		pt_ini_set_error(b->err, b->errlen, s->line, "section [capture] takes no name");
		return PT_E_VALUE;
	}
	if (is_capture && first_capture != s->line) {
		pt_ini_set_error(b->err, b->errlen, s->line,
		       "duplicate section [capture] (first at line %u)", first_capture);
		return PT_E_VALUE;
	}
	if (!is_capture && !s->name) {
		pt_ini_set_error(b->err, b->errlen, s->line, "section [%s] needs a name: [%s NAME]",
		       s->type, s->type);
		return PT_E_VALUE;
	}
	if (s->name && !pt_ini_name_ok(s->name)) {
		pt_ini_set_error(b->err, b->errlen, s->line,
		       "bad name '%s' in %s: names are 1 to %u of A-Z a-z 0-9 _ . - and not '.' or '..'",
		       s->name, label, PT_INI_MAX_NAME);
		return PT_E_VALUE;
	}
	/* `capture` is the summary file at the top of the mounted tree. */
	if ((cf || is_iommu) && !strcmp(s->name, "capture")) {
		pt_ini_set_error(b->err, b->errlen, s->line,
		       "context name 'capture' in %s is reserved (the mounted tree's summary file)",
		       label);
		return PT_E_VALUE;
	}
	/* `pa` is the reverse-lookup directory at the top of the mounted tree. */
	if ((cf || is_iommu) && !strcmp(s->name, "pa")) {
		pt_ini_set_error(b->err, b->errlen, s->line,
		       "context name 'pa' in %s is reserved (the mounted tree's pa/ directory)", label);
		return PT_E_VALUE;
	}
	if (dup_name_of) {
		pt_ini_set_error(b->err, b->errlen, s->line,
		       "duplicate section name '%s' in %s (first at line %u)", s->name, label, dup_name_of);
		return PT_E_VALUE;
	}
	/* Formats mix freely (their spaces meet by name, ini.h); a shared type takes the capture's. */
	if (cf && fmt && cf != fmt && section_shared(s->type)) {
		pt_ini_set_error(b->err, b->errlen, s->line, "%s is not valid in an %s capture (use [%s NAME])",
		       label, fmt->name, fmt->ctx_section);
		return PT_E_VALUE;
	}
	dup = malloc((s->nkv ? s->nkv : 1) * sizeof *dup);
	if (!dup)
		return PT_E_NOMEM;
	rc = find_dup_keys(s, dup);
	if (rc == PT_OK) {
		if (is_capture)
			rc = check_capture(b, s, dup);
		else if (is_memory)
			rc = pt_manifest_check_memory(b, s, dup, fmt);
		else if (is_space)
			rc = check_space(b, s, dup);
		else if (is_iommu)
			rc = pt_iommu_section(b->m, s, dup, b->err, b->errlen);
		else
			rc = check_context(b, s, dup, cf);
	}
	free(dup);
	return rc;
}

static pt_err build_manifest(struct pt_ini *ini, bool mixed, bool ctx_optional, struct pt_manifest **out,
			     char *err, size_t errlen)
{
	struct build b = {.err = err, .errlen = errlen, .mixed = mixed};
	struct pt_manifest *m;
	const struct pt_format *fmt = NULL;
	unsigned first_capture = 0, *dup_name_of = NULL;
	bool has_format = false;
	struct sname *names = NULL;
	size_t nnames = 0;
	pt_err rc = PT_OK;

	*out = NULL;
	m = calloc(1, sizeof *m);
	if (!m) {
		pt_ini_free(ini);
		return PT_E_NOMEM;
	}
	m->ini = ini;
	b.m = m;
	/*
	 * Sections are checked in file order, but the format (needed to check a
	 * space) may be declared after them: look it up first.
	 */
	for (size_t i = 0; i < ini->nsec && !first_capture; i++) {
		const struct pt_ini_section *s = &ini->sec[i];

		if (strcmp(s->type, "capture"))
			continue;
		first_capture = s->line;
		for (size_t k = 0; k < s->nkv; k++)
			if (!strcmp(s->kv[k].key, "format")) {
				fmt = pt_format_find(s->kv[k].value);
				has_format = true;
				break;
			}
	}
	/*
	 * No format key: every context section names its own ([cpu], [vtd],
	 * [gart]...), and the capture's format (its `capture` summary, its
	 * spaces first) is the first one's; a [pdb] needs the key.
	 */
	for (size_t i = 0; i < ini->nsec && !has_format && !b.shared_line; i++) {
		const struct pt_format *cf = pt_format_by_section(ini->sec[i].type);

		if (cf && section_shared(ini->sec[i].type))
			b.shared_line = ini->sec[i].line;
		else if (cf && !b.implied)
			b.implied = cf;
	}
	if (!has_format && !b.shared_line)
		fmt = b.implied;
	for (size_t i = 0; i < ini->nsec; i++)
		for (size_t k = 0; k < ini->sec[i].nkv && !strcmp(ini->sec[i].type, "memory"); k++)
			b.has_dump |= !strcmp(ini->sec[i].kv[k].key, "dump");
	if ((rc = collect_spaces(m, ini, fmt, err, errlen)))
		goto out;
	/* Duplicate names, found by sorting: the later section is at fault. */
	names = malloc((ini->nsec ? ini->nsec : 1) * sizeof *names);
	dup_name_of = calloc(ini->nsec ? ini->nsec : 1, sizeof *dup_name_of);
	if (!names || !dup_name_of) {
		rc = PT_E_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < ini->nsec; i++)
		if (ini->sec[i].name) {
			names[nnames].name = ini->sec[i].name;
			names[nnames].line = ini->sec[i].line;
			names[nnames].sec = i;
			nnames++;
		}
	qsort(names, nnames, sizeof *names, cmp_sname);
	for (size_t i = 1; i < nnames; i++) {
		size_t j = i;

		while (j > 0 && !strcmp(names[j - 1].name, names[i].name))
			j--;
		if (j != i)
			dup_name_of[names[i].sec] = names[j].line;
	}
	for (size_t i = 0; i < ini->nsec && !rc; i++)
		rc = check_section(&b, &ini->sec[i], dup_name_of[i], first_capture, fmt);
	if (rc)
		goto out;
	if (!first_capture) {
		pt_ini_set_error(err, errlen, 1, "no [capture] section");
		rc = PT_E_CAPTURE;
		goto out;
	}
	m->capture_line = first_capture;
	if (m->nctx == 0 && m->niommu == 0 && !m->dump && !ctx_optional) {
		pt_ini_set_error(err, errlen, first_capture,
		       "no context: an %s capture needs at least one [%s NAME] section",
		       m->fmt->name, m->fmt->ctx_section);
		rc = PT_E_CAPTURE;
	}
out:
	if (rc == PT_E_NOMEM)
		pt_ini_set_error(err, errlen, 1, "out of memory");
	free(names);
	free(dup_name_of);
	if (rc) {
		pt_manifest_free(m);
		return rc;
	}
	*out = m;
	return PT_OK;
}

pt_err pt_manifest_build(struct pt_ini *ini, struct pt_manifest **out,
			 char *err, size_t errlen)
{
	return build_manifest(ini, false, false, out, err, errlen);
}

/* Parses TEXT as capture.ini, then builds its manifest (MIXED: formats may differ per context). */
static pt_err parse_manifest(const char *text, size_t len, bool mixed, bool ctx_optional,
			     struct pt_manifest **out, char *err, size_t errlen)
{
	struct pt_ini *ini;
	pt_err rc;

	*out = NULL;
	rc = pt_ini_parse(text, len, &ini, err, errlen);
	if (rc)
		return rc;
	return build_manifest(ini, mixed, ctx_optional, out, err, errlen);
}

pt_err pt_manifest_parse(const char *text, size_t len, struct pt_manifest **out,
			 char *err, size_t errlen)
{
	return parse_manifest(text, len, false, false, out, err, errlen);
}

pt_err pt_manifest_parse_opts(const char *text, size_t len, bool mixed, bool ctx_optional,
			      struct pt_manifest **out, char *err, size_t errlen)
{
	return parse_manifest(text, len, mixed, ctx_optional, out, err, errlen);
}

pt_err pt_manifest_parse_mixed(const char *text, size_t len, struct pt_manifest **out,
			       char *err, size_t errlen)
{
	return parse_manifest(text, len, true, false, out, err, errlen);
}
