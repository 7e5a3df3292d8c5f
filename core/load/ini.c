/* SPDX-License-Identifier: MIT */
/*
 * ini.c — capture.ini: the lexical layer and value rules (ini.h); the
 * version 1 schema is manifest.c.
 *
 * The grammar and every message are documented in man/ptfs-capture.5; keep
 * the two in step.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ini.h"
#include "pt_num.h"
#include "pt_vec.h"

void pt_ini_set_error(char *err, size_t errlen, unsigned line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pt_error_esc_vat(err, errlen, "capture.ini", line, fmt, ap);
	va_end(ap);
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

/* Parses the section header in [P, E) (P at '['). */
static pt_err parse_header(struct pt_ini *ini, size_t *seccap, const char *p, const char *e,
			   unsigned line, char *err, size_t errlen)
{
	const char *close = memchr(p, ']', (size_t)(e - p));
	const char *w[3], *we[3];
	unsigned nw = 0;
	struct pt_ini_section *s;

	if (!close) {
		pt_ini_set_error(err, errlen, line, "section header without ']'");
		return PT_E_SYNTAX;
	}
	for (const char *q = close + 1; q < e; q++) {
		if (*q == '#' || *q == ';')
			break;
		if (!is_ws(*q)) {
			pt_ini_set_error(err, errlen, line, "unexpected text after the section header");
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
				pt_ini_set_error(err, errlen, line, "bad character in the section header");
				return PT_E_SYNTAX;
			}
			q++;
		}
		we[nw++] = q;
	}
	if (nw == 0) {
		pt_ini_set_error(err, errlen, line, "empty section header");
		return PT_E_SYNTAX;
	}
	if (nw == 3) {
		pt_ini_set_error(err, errlen, line, "a section header is [type] or [type name]");
		return PT_E_SYNTAX;
	}
	if (!pt_vec_reserve(&ini->sec, seccap, ini->nsec + 1, sizeof *ini->sec))
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
		pt_ini_set_error(err, errlen, line, "expected '[section]', 'key = value' or a comment");
		return PT_E_SYNTAX;
	}
	ke = eq;
	while (ke > p && is_ws(ke[-1]))
		ke--;
	if (ke == p) {
		pt_ini_set_error(err, errlen, line, "missing key before '='");
		return PT_E_SYNTAX;
	}
	for (const char *q = p; q < ke; q++)
		if (!is_name_char(*q)) {
			pt_ini_set_error(err, errlen, line, "bad key '%.*s': keys use A-Z a-z 0-9 _ . -",
			       (int)(ke - p), p);
			return PT_E_SYNTAX;
		}
	if (ini->nsec == 0) {
		pt_ini_set_error(err, errlen, line, "key '%.*s' outside any section", (int)(ke - p), p);
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
			pt_ini_set_error(err, errlen, line, "control character in the value of '%.*s'",
			       (int)(ke - p), p);
			return PT_E_VALUE;
		}
	s = &ini->sec[ini->nsec - 1];
	if (!pt_vec_reserve(&s->kv, kvcap, s->nkv + 1, sizeof *s->kv))
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
			pt_ini_set_error(err, errlen, line, "line longer than %u bytes", PT_INI_MAX_LINE);
			rc = PT_E_SYNTAX;
			break;
		}
		for (size_t i = 0; i < n;) {
			size_t l;

			if (p[i] == 0) {
				pt_ini_set_error(err, errlen, line, "NUL byte");
				rc = PT_E_SYNTAX;
				goto out;
			}
			l = pt_utf8_len((const unsigned char *)p + i, n - i);
			if (!l) {
				pt_ini_set_error(err, errlen, line, "invalid UTF-8");
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
		pt_ini_set_error(err, errlen, line, "out of memory");
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
	return pt_num_parse(s, PT_NUM_INI, out) ? PT_OK : PT_E_VALUE;
}

const char *pt_ini_uint_why(const char *s, char *buf, size_t len)
{
	return pt_num_ini_why(s, buf, len);
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
