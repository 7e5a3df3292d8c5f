/* SPDX-License-Identifier: MIT */
/*
 * ini.c — capture.ini: the lexical layer and the version 1 schema (ini.h).
 *
 * The grammar and every message are documented in man/ptfs-capture.5; keep
 * the two in step.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ini.h"

#define PFX "capture.ini:%u: "

static void seterr(char *err, size_t errlen, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void seterr(char *err, size_t errlen, unsigned line, const char *fmt, ...)
{
	char raw[1024];
	const unsigned char *p = (const unsigned char *)raw;
	va_list ap;
	size_t o;
	int n;

	if (!err || !errlen)
		return;
	n = snprintf(err, errlen, PFX, line);
	if (n < 0 || (size_t)n >= errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	/*
	 * Messages quote the offending text (a bad key, a section name) and go
	 * to terminals: control characters (C0, DEL, C1) become \xNN, so a
	 * capture.ini cannot move the cursor or fake a line.
	 */
	o = (size_t)n;
	for (size_t i = 0; p[i] && o + 1 < errlen; i++) {
		bool c1 = p[i] == 0xc2 && p[i + 1] >= 0x80 && p[i + 1] < 0xa0;

		if (p[i] < 0x20 || p[i] == 0x7f || c1) {
			if (o + 5 >= errlen)
				break;
			o += (size_t)snprintf(err + o, errlen - o, "\\x%02x", p[i]);
			if (c1) {
				i++;
				if (o + 5 >= errlen)
					break;
				o += (size_t)snprintf(err + o, errlen - o, "\\x%02x", p[i]);
			}
			continue;
		}
		err[o++] = (char)p[i];
	}
	err[o] = 0;
}

/* ---- the lexical layer ---- */

static bool is_ws(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_name_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

/*
 * A C1 control (U+0080-U+009F: UTF-8 C2 80-C2 9F) at Q, before E.  Refused
 * like C0: a value is echoed by `capture`, `info` and ptfs-tool, and U+009B
 * (CSI) or U+009D (OSC) drive terminals as ESC [ and ESC ] do.
 */
static bool is_c1(const char *q, const char *e)
{
	return e - q >= 2 && (unsigned char)q[0] == 0xc2 && (unsigned char)q[1] >= 0x80 &&
	       (unsigned char)q[1] < 0xa0;
}

bool pt_ini_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > PT_INI_MAX_NAME || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_name_char(name[i]))
			return false;
	return true;
}

size_t pt_utf8_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t len;
	unsigned min, cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, min = 0x80, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, min = 0x800, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, min = 0x10000, cp = c & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* No overlong forms, no UTF-16 surrogates, nothing past U+10FFFF. */
	if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

static char *dup_range(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

void pt_ini_free(struct pt_ini *ini)
{
	if (!ini)
		return;
	for (size_t i = 0; i < ini->nsec; i++) {
		struct pt_ini_section *s = &ini->sec[i];

		for (size_t k = 0; k < s->nkv; k++) {
			free(s->kv[k].key);
			free(s->kv[k].value);
		}
		free(s->kv);
		free(s->type);
		free(s->name);
	}
	free(ini->sec);
	free(ini);
}

/* Grows *ARR (of *CAP elements of SIZE bytes) so that one more fits after N. */
static bool grow(void *arr, size_t *cap, size_t n, size_t size)
{
	void **p = arr;
	size_t ncap;
	void *q;

	if (n < *cap)
		return true;
	ncap = *cap ? *cap * 2 : 8;
	q = realloc(*p, ncap * size);
	if (!q)
		return false;
	*p = q;
	*cap = ncap;
	return true;
}

/* Parses the section header in [P, E) (P at '['). */
static pt_err parse_header(struct pt_ini *ini, size_t *seccap, const char *p, const char *e,
			   unsigned line, char *err, size_t errlen)
{
	const char *close = memchr(p, ']', (size_t)(e - p));
	const char *w[3], *we[3];
	unsigned nw = 0;
	struct pt_ini_section *s;

	if (!close) {
		seterr(err, errlen, line, "section header without ']'");
		return PT_E_SYNTAX;
	}
	for (const char *q = close + 1; q < e; q++) {
		if (*q == '#' || *q == ';')
			break;
		if (!is_ws(*q)) {
			seterr(err, errlen, line, "unexpected text after the section header");
			return PT_E_SYNTAX;
		}
	}
	for (const char *q = p + 1; q < close;) {
		if (is_ws(*q)) {
			q++;
			continue;
		}
		if (nw == 3)
			break;
		w[nw] = q;
		while (q < close && !is_ws(*q)) {
			if ((unsigned char)*q < 0x20 || *q == 0x7f || *q == '[' || is_c1(q, close)) {
				seterr(err, errlen, line, "bad character in the section header");
				return PT_E_SYNTAX;
			}
			q++;
		}
		we[nw++] = q;
	}
	if (nw == 0) {
		seterr(err, errlen, line, "empty section header");
		return PT_E_SYNTAX;
	}
	if (nw == 3) {
		seterr(err, errlen, line, "a section header is [type] or [type name]");
		return PT_E_SYNTAX;
	}
	if (!grow(&ini->sec, seccap, ini->nsec, sizeof *ini->sec))
		return PT_E_NOMEM;
	s = &ini->sec[ini->nsec];
	memset(s, 0, sizeof *s);
	s->line = line;
	s->type = dup_range(w[0], (size_t)(we[0] - w[0]));
	if (nw == 2)
		s->name = dup_range(w[1], (size_t)(we[1] - w[1]));
	ini->nsec++;
	if (!s->type || (nw == 2 && !s->name))
		return PT_E_NOMEM;
	return PT_OK;
}

/* Parses `key = value` in [P, E). */
static pt_err parse_kv(struct pt_ini *ini, size_t *kvcap, const char *p, const char *e,
		       unsigned line, char *err, size_t errlen)
{
	const char *eq = memchr(p, '=', (size_t)(e - p));
	const char *ke, *v, *ve;
	struct pt_ini_section *s;
	struct pt_ini_kv *kv;

	if (!eq) {
		seterr(err, errlen, line, "expected '[section]', 'key = value' or a comment");
		return PT_E_SYNTAX;
	}
	ke = eq;
	while (ke > p && is_ws(ke[-1]))
		ke--;
	if (ke == p) {
		seterr(err, errlen, line, "missing key before '='");
		return PT_E_SYNTAX;
	}
	for (const char *q = p; q < ke; q++)
		if (!is_name_char(*q)) {
			seterr(err, errlen, line, "bad key '%.*s': keys use A-Z a-z 0-9 _ . -",
			       (int)(ke - p), p);
			return PT_E_SYNTAX;
		}
	if (ini->nsec == 0) {
		seterr(err, errlen, line, "key '%.*s' outside any section", (int)(ke - p), p);
		return PT_E_SYNTAX;
	}
	/* A comment starts at ';' or '#' preceded by whitespace. */
	ve = e;
	for (const char *q = eq + 1; q < e; q++)
		if ((*q == ';' || *q == '#') && is_ws(q[-1])) {
			ve = q;
			break;
		}
	v = eq + 1;
	while (v < ve && is_ws(*v))
		v++;
	while (ve > v && is_ws(ve[-1]))
		ve--;
	for (const char *q = v; q < ve; q++)
		if (((unsigned char)*q < 0x20 && *q != '\t') || *q == 0x7f || is_c1(q, ve)) {
			seterr(err, errlen, line, "control character in the value of '%.*s'",
			       (int)(ke - p), p);
			return PT_E_VALUE;
		}
	s = &ini->sec[ini->nsec - 1];
	if (!grow(&s->kv, kvcap, s->nkv, sizeof *s->kv))
		return PT_E_NOMEM;
	kv = &s->kv[s->nkv];
	kv->line = line;
	kv->key = dup_range(p, (size_t)(ke - p));
	kv->value = dup_range(v, (size_t)(ve - v));
	s->nkv++;
	if (!kv->key || !kv->value)
		return PT_E_NOMEM;
	return PT_OK;
}

pt_err pt_ini_parse(const char *text, size_t len, struct pt_ini **out,
		    char *err, size_t errlen)
{
	struct pt_ini *ini = calloc(1, sizeof *ini);
	size_t seccap = 0, kvcap = 0, pos = 0;
	unsigned line = 0;
	pt_err rc = PT_OK;

	*out = NULL;
	if (!ini)
		return PT_E_NOMEM;
	/* A UTF-8 byte order mark, as some editors write, is not content. */
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		pos = 3;
	while (pos < len) {
		const char *p = text + pos, *e;
		const char *nl = memchr(p, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - p) : len - pos;

		line++;
		pos += n + (nl ? 1 : 0);
		/* a CR before the LF is the line end, not text: LF and CRLF files share the limit */
		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (n > PT_INI_MAX_LINE) {
			seterr(err, errlen, line, "line longer than %u bytes", PT_INI_MAX_LINE);
			rc = PT_E_SYNTAX;
			break;
		}
		for (size_t i = 0; i < n;) {
			size_t l;

			if (p[i] == 0) {
				seterr(err, errlen, line, "NUL byte");
				rc = PT_E_SYNTAX;
				goto out;
			}
			l = pt_utf8_len((const unsigned char *)p + i, n - i);
			if (!l) {
				seterr(err, errlen, line, "invalid UTF-8");
				rc = PT_E_SYNTAX;
				goto out;
			}
			i += l;
		}
		e = p + n;
		while (p < e && is_ws(*p))
			p++;
		while (e > p && is_ws(e[-1]))
			e--;
		if (p == e || *p == '#' || *p == ';')
			continue;
		if (*p == '[') {
			rc = parse_header(ini, &seccap, p, e, line, err, errlen);
			kvcap = 0;
		} else {
			rc = parse_kv(ini, &kvcap, p, e, line, err, errlen);
		}
		if (rc)
			break;
	}
out:
	if (rc == PT_E_NOMEM)
		seterr(err, errlen, line, "out of memory");
	if (rc) {
		pt_ini_free(ini);
		return rc;
	}
	ini->nlines = line;
	*out = ini;
	return PT_OK;
}

/* ---- values ---- */

pt_err pt_ini_uint(const char *s, uint64_t *out)
{
	uint64_t v = 0, mul = 1;
	size_t n = strlen(s);
	const char *p = s;

	if (n == 0)
		return PT_E_VALUE;
	switch (s[n - 1]) {
	case 'K': case 'k': mul = 1ull << 10; n--; break;
	case 'M': case 'm': mul = 1ull << 20; n--; break;
	case 'G': case 'g': mul = 1ull << 30; n--; break;
	}
	if (n == 0)
		return PT_E_VALUE;
	if (n > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		for (size_t i = 2; i < n; i++) {
			unsigned d;

			if (p[i] >= '0' && p[i] <= '9')
				d = (unsigned)(p[i] - '0');
			else if (p[i] >= 'a' && p[i] <= 'f')
				d = (unsigned)(p[i] - 'a' + 10);
			else if (p[i] >= 'A' && p[i] <= 'F')
				d = (unsigned)(p[i] - 'A' + 10);
			else
				return PT_E_VALUE;
			if (v >> 60)
				return PT_E_VALUE;
			v = v << 4 | d;
		}
	} else {
		/* A leading zero could mean octal to some readers: refuse to guess. */
		if (n > 1 && p[0] == '0')
			return PT_E_VALUE;
		for (size_t i = 0; i < n; i++) {
			if (p[i] < '0' || p[i] > '9')
				return PT_E_VALUE;
			if (v > (UINT64_MAX - (unsigned)(p[i] - '0')) / 10)
				return PT_E_VALUE;
			v = v * 10 + (unsigned)(p[i] - '0');
		}
	}
	if (v > UINT64_MAX / mul)
		return PT_E_VALUE;
	*out = v * mul;
	return PT_OK;
}

bool pt_path_normalise(char *path)
{
	char *w = path;
	const char *r = path;

	if (path[0] == '/')
		return false;
	while (*r) {
		const char *c = r;
		size_t n;

		while (*r && *r != '/')
			r++;
		n = (size_t)(r - c);
		while (*r == '/')
			r++;
		if (n == 0 || (n == 1 && c[0] == '.'))
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.')
			return false;
		if (w != path)
			*w++ = '/';
		memmove(w, c, n);
		w += n;
	}
	*w = 0;
	return w != path;
}

/* ---- the schema ---- */

/* The section as written, for messages: "[pdb pdb0]". */
static const char *sec_label(const struct pt_ini_section *s, char *buf, size_t len)
{
	if (s->name)
		snprintf(buf, len, "[%s %s]", s->type, s->name);
	else
		snprintf(buf, len, "[%s]", s->type);
	return buf;
}

void pt_manifest_free(struct pt_manifest *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nmem; i++)
		free(m->mem[i].path);
	for (size_t i = 0; i < m->nctx; i++)
		free(m->ctx[i].ann);
	free(m->mem);
	free(m->ctx);
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

static int space_ok(const struct pt_format *fmt, const char *name)
{
	return fmt ? pt_format_space(fmt, name) : 0;
}

/* "vidmem, sysmem, peer0, ..." for messages. */
static void space_list(const struct pt_format *fmt, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (unsigned i = 0; fmt->spaces[i] && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", fmt->spaces[i]);
}

struct build {
	struct pt_manifest *m;
	char *err;
	size_t errlen;
	size_t memcap, ctxcap;
};

/* Reads integer key KV into *OUT; a bad value is E_VALUE naming the key. */
static pt_err get_uint(struct build *b, const struct pt_ini_kv *kv, const char *label,
		       uint64_t *out)
{
	if (kv->value[0] == 0) {
		seterr(b->err, b->errlen, kv->line, "empty value for '%s' in %s", kv->key, label);
		return PT_E_VALUE;
	}
	if (pt_ini_uint(kv->value, out) == PT_OK)
		return PT_OK;
	seterr(b->err, b->errlen, kv->line,
	       "bad integer '%s' for '%s' in %s (decimal or 0x hex, optional K/M/G, at most 64 bits)",
	       kv->value, kv->key, label);
	return PT_E_VALUE;
}

static pt_err add_ann(struct pt_kv **arr, size_t *n, size_t *cap, const struct pt_ini_kv *kv)
{
	if (!grow(arr, cap, *n, sizeof **arr))
		return PT_E_NOMEM;
	(*arr)[*n].key = kv->key;
	(*arr)[*n].value = kv->value;
	(*n)++;
	return PT_OK;
}

static bool is_x_key(const char *k)
{
	return k[0] == 'x' && k[1] == '-' && k[2];
}

/* A required key missing from section S: reported at its header line. */
static pt_err missing(struct build *b, const struct pt_ini_section *s, const char *key)
{
	char label[PT_INI_MAX_LINE + 8];

	seterr(b->err, b->errlen, s->line, "missing key '%s' in %s", key,
	       sec_label(s, label, sizeof label));
	return PT_E_VALUE;
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
			seterr(b->err, b->errlen, kv->line,
			       "duplicate key '%s' in [capture] (first at line %u)", kv->key, dup[i]);
			return PT_E_VALUE;
		}
		if (!strcmp(kv->key, "version")) {
			uint64_t v;

			if ((rc = get_uint(b, kv, "[capture]", &v)))
				return rc;
			if (v != 1) {
				seterr(b->err, b->errlen, kv->line,
				       "capture version %s is not supported (this ptfs reads version 1)",
				       kv->value);
				return PT_E_UNSUPPORTED;
			}
			m->version = 1;
			version = kv;
		} else if (!strcmp(kv->key, "format")) {
			if (kv->value[0] == 0) {
				seterr(b->err, b->errlen, kv->line, "empty value for 'format' in [capture]");
				return PT_E_VALUE;
			}
			m->fmt = pt_format_find(kv->value);
			if (!m->fmt) {
				seterr(b->err, b->errlen, kv->line,
				       "unknown format '%s' (supported: nv-gmmu-ver2, amd-gart)", kv->value);
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
			seterr(b->err, b->errlen, kv->line, "unknown key '%s' in [capture]", kv->key);
			return PT_E_VALUE;
		}
	}
	if (!version)
		return missing(b, s, "version");
	if (!format)
		return missing(b, s, "format");
	return PT_OK;
}

static pt_err check_memory(struct build *b, const struct pt_ini_section *s, const unsigned *dup,
			   const struct pt_format *fmt)
{
	char label[PT_INI_MAX_LINE + 8], list[256];
	const struct pt_ini_kv *space = NULL, *base = NULL, *file = NULL;
	struct pt_manifest_mem mm = {0};
	pt_err rc = PT_OK;

	sec_label(s, label, sizeof label);
	for (size_t i = 0; i < s->nkv && !rc; i++) {
		const struct pt_ini_kv *kv = &s->kv[i];

		if (dup[i]) {
			seterr(b->err, b->errlen, kv->line,
			       "duplicate key '%s' in %s (first at line %u)", kv->key, label, dup[i]);
			rc = PT_E_VALUE;
		} else if (!strcmp(kv->key, "space")) {
			int sp = space_ok(fmt, kv->value);

			if (sp < 0) {
				space_list(fmt, list, sizeof list);
				seterr(b->err, b->errlen, kv->line,
				       "space '%s' in %s is not a space of %s (%s)",
				       kv->value, label, fmt->name, list);
				rc = PT_E_VALUE;
			}
			mm.space = (unsigned)sp;
			space = kv;
		} else if (!strcmp(kv->key, "base")) {
			rc = get_uint(b, kv, label, &mm.base);
			base = kv;
		} else if (!strcmp(kv->key, "file")) {
			if (kv->value[0] == 0) {
				seterr(b->err, b->errlen, kv->line, "empty value for 'file' in %s", label);
				rc = PT_E_VALUE;
			} else if (kv->value[0] == '/') {
				seterr(b->err, b->errlen, kv->line,
				       "file '%s' in %s is absolute: members are named from the capture root",
				       kv->value, label);
				rc = PT_E_CAPTURE;
			} else if (!(mm.path = strdup(kv->value))) {
				rc = PT_E_NOMEM;
			} else if (!pt_path_normalise(mm.path)) {
				seterr(b->err, b->errlen, kv->line,
				       strstr(kv->value, "..")
				       ? "file '%s' in %s contains '..': such a member is never used"
				       : "file '%s' in %s names no member",
				       kv->value, label);
				rc = PT_E_CAPTURE;
			}
			file = kv;
		} else if (!is_x_key(kv->key)) {
			seterr(b->err, b->errlen, kv->line, "unknown key '%s' in %s", kv->key, label);
			rc = PT_E_VALUE;
		}
		/* x- keys of a [memory] section are accepted and not kept. */
	}
	if (!rc && (!space || !base || !file))
		rc = missing(b, s, !space ? "space" : !base ? "base" : "file");
	if (!rc && !grow(&b->m->mem, &b->memcap, b->m->nmem, sizeof *b->m->mem))
		rc = PT_E_NOMEM;
	if (rc) {
		free(mm.path);
		return rc;
	}
	mm.name = s->name;
	mm.line = s->line;
	mm.file = file->value;
	mm.file_line = file->line;
	b->m->mem[b->m->nmem++] = mm;
	return PT_OK;
}

static pt_err check_context(struct build *b, const struct pt_ini_section *s, const unsigned *dup,
			    const struct pt_format *fmt, bool gart)
{
	char label[PT_INI_MAX_LINE + 8];
	struct pt_manifest_ctx c = {0};
	bool have_space = false, have_addr = false;
	size_t anncap = 0;
	pt_err rc = PT_OK;

	sec_label(s, label, sizeof label);
	c.big_page_size = 65536;
	for (size_t i = 0; i < s->nkv && !rc; i++) {
		const struct pt_ini_kv *kv = &s->kv[i];
		int reg = -1;

		if (dup[i]) {
			seterr(b->err, b->errlen, kv->line,
			       "duplicate key '%s' in %s (first at line %u)", kv->key, label, dup[i]);
			rc = PT_E_VALUE;
			break;
		}
		if (is_x_key(kv->key)) {
			rc = add_ann(&c.ann, &c.nann, &anncap, kv);
			continue;
		}
		if (gart)
			for (int r = 0; r < PT_GR__COUNT; r++)
				if (!strcmp(kv->key, pt_gart_reg_name((enum pt_gart_reg)r)))
					reg = r;
		if (reg >= 0) {
			rc = get_uint(b, kv, label, &c.raw[reg]);
			c.has[reg] = true;
			c.reg_line[reg] = kv->line;
		} else if (!gart && !strcmp(kv->key, "space")) {
			/* A page directory lives in video or system memory, never behind a peer. */
			if (strcmp(kv->value, "vidmem") && strcmp(kv->value, "sysmem")) {
				seterr(b->err, b->errlen, kv->line,
				       "space '%s' in %s is not valid for a page directory base (vidmem, sysmem)",
				       kv->value, label);
				rc = PT_E_VALUE;
				break;
			}
			c.space = (unsigned)(fmt ? pt_format_space(fmt, kv->value) : 0);
			have_space = true;
		} else if (!gart && !strcmp(kv->key, "address")) {
			if ((rc = get_uint(b, kv, label, &c.address)))
				break;
			if (c.address & 0xfff) {
				seterr(b->err, b->errlen, kv->line,
				       "address 0x%llx in %s is not 4 KiB aligned",
				       (unsigned long long)c.address, label);
				rc = PT_E_VALUE;
			}
			have_addr = true;
		} else if (!gart && !strcmp(kv->key, "big_page_size")) {
			uint64_t v;

			if ((rc = get_uint(b, kv, label, &v)))
				break;
			if (v == 131072) {
				seterr(b->err, b->errlen, kv->line,
				       "big_page_size 128K in %s is not supported (only 64K)", label);
				rc = PT_E_UNSUPPORTED;
			} else if (v != 65536) {
				seterr(b->err, b->errlen, kv->line,
				       "big_page_size '%s' in %s is not a VER2 big page size (64K)",
				       kv->value, label);
				rc = PT_E_VALUE;
			}
			c.big_page_size = v;
		} else {
			seterr(b->err, b->errlen, kv->line, "unknown key '%s' in %s", kv->key, label);
			rc = PT_E_VALUE;
		}
	}
	if (!rc && gart) {
		static const enum pt_gart_reg req[] = {PT_GR_PT_BASE, PT_GR_PT_START, PT_GR_PT_END};

		for (size_t i = 0; i < sizeof req / sizeof req[0] && !rc; i++)
			if (!c.has[req[i]])
				rc = missing(b, s, pt_gart_reg_name(req[i]));
	} else if (!rc) {
		if (!have_space)
			rc = missing(b, s, "space");
		else if (!have_addr)
			rc = missing(b, s, "address");
	}
	if (!rc && !grow(&b->m->ctx, &b->ctxcap, b->m->nctx, sizeof *b->m->ctx))
		rc = PT_E_NOMEM;
	if (rc) {
		free(c.ann);
		return rc;
	}
	c.name = s->name;
	c.line = s->line;
	c.gart = gart;
	b->m->ctx[b->m->nctx++] = c;
	return PT_OK;
}

/* The section type each format's contexts use. */
static const char *ctx_type(const struct pt_format *fmt)
{
	return fmt == &pt_format_gart ? "gart" : "pdb";
}

static pt_err check_section(struct build *b, const struct pt_ini_section *s,
			    unsigned dup_name_of, unsigned first_capture,
			    const struct pt_format *fmt)
{
	char label[PT_INI_MAX_LINE + 8];
	bool is_capture = !strcmp(s->type, "capture");
	bool is_memory = !strcmp(s->type, "memory");
	bool is_pdb = !strcmp(s->type, "pdb");
	bool is_gart = !strcmp(s->type, "gart");
	unsigned *dup;
	pt_err rc;

	sec_label(s, label, sizeof label);
	if (!is_capture && !is_memory && !is_pdb && !is_gart) {
		seterr(b->err, b->errlen, s->line,
		       "unknown section %s (capture, memory, pdb or gart)", label);
		return PT_E_VALUE;
	}
	if (is_capture && s->name) {
		seterr(b->err, b->errlen, s->line, "section [capture] takes no name");
		return PT_E_VALUE;
	}
	if (is_capture && first_capture != s->line) {
		seterr(b->err, b->errlen, s->line,
		       "duplicate section [capture] (first at line %u)", first_capture);
		return PT_E_VALUE;
	}
	if (!is_capture && !s->name) {
		seterr(b->err, b->errlen, s->line, "section [%s] needs a name: [%s NAME]",
		       s->type, s->type);
		return PT_E_VALUE;
	}
	if (s->name && !pt_ini_name_ok(s->name)) {
		seterr(b->err, b->errlen, s->line,
		       "bad name '%s' in %s: names are 1 to %u of A-Z a-z 0-9 _ . - and not '.' or '..'",
		       s->name, label, PT_INI_MAX_NAME);
		return PT_E_VALUE;
	}
	/* `capture` is the summary file at the top of the mounted tree. */
	if ((is_pdb || is_gart) && !strcmp(s->name, "capture")) {
		seterr(b->err, b->errlen, s->line,
		       "context name 'capture' in %s is reserved (the mounted tree's summary file)",
		       label);
		return PT_E_VALUE;
	}
	if (dup_name_of) {
		seterr(b->err, b->errlen, s->line,
		       "duplicate section name '%s' in %s (first at line %u)", s->name, label, dup_name_of);
		return PT_E_VALUE;
	}
	if ((is_pdb || is_gart) && fmt && strcmp(s->type, ctx_type(fmt))) {
		seterr(b->err, b->errlen, s->line, "%s is not valid in an %s capture (use [%s NAME])",
		       label, fmt->name, ctx_type(fmt));
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
			rc = check_memory(b, s, dup, fmt);
		else
			rc = check_context(b, s, dup, fmt, is_gart);
	}
	free(dup);
	return rc;
}

pt_err pt_manifest_build(struct pt_ini *ini, struct pt_manifest **out,
			 char *err, size_t errlen)
{
	struct build b = {.err = err, .errlen = errlen};
	struct pt_manifest *m;
	const struct pt_format *fmt = NULL;
	unsigned first_capture = 0, *dup_name_of = NULL;
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
				break;
			}
	}
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
		seterr(err, errlen, 1, "no [capture] section");
		rc = PT_E_CAPTURE;
		goto out;
	}
	m->capture_line = first_capture;
	if (m->nctx == 0) {
		seterr(err, errlen, first_capture,
		       "no context: an %s capture needs at least one [%s NAME] section",
		       m->fmt->name, ctx_type(m->fmt));
		rc = PT_E_CAPTURE;
	}
out:
	if (rc == PT_E_NOMEM)
		seterr(err, errlen, 1, "out of memory");
	free(names);
	free(dup_name_of);
	if (rc) {
		pt_manifest_free(m);
		return rc;
	}
	*out = m;
	return PT_OK;
}

pt_err pt_manifest_parse(const char *text, size_t len, struct pt_manifest **out,
			 char *err, size_t errlen)
{
	struct pt_ini *ini;
	pt_err rc;

	*out = NULL;
	rc = pt_ini_parse(text, len, &ini, err, errlen);
	if (rc)
		return rc;
	return pt_manifest_build(ini, out, err, errlen);
}
