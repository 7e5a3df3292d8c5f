/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "pt_error.h"

/* Indexed by pt_err; keep in the enum's order (a test checks every code). */
static const struct {
	const char *name;
	const char *text;
} errs[PT_E__COUNT] = {
	[PT_OK] = {"OK", "success"},
	[PT_E_USAGE] = {"E_USAGE", "bad usage"},
	[PT_E_NOMEM] = {"E_NOMEM", "out of memory"},
	[PT_E_IO] = {"E_IO", "input/output error"},
	[PT_E_ARCHIVE] = {"E_ARCHIVE", "unreadable archive"},
	[PT_E_CAPTURE] = {"E_CAPTURE", "unusable capture"},
	[PT_E_SYNTAX] = {"E_SYNTAX", "syntax error"},
	[PT_E_VALUE] = {"E_VALUE", "bad value"},
	[PT_E_UNSUPPORTED] = {"E_UNSUPPORTED", "unsupported"},
	[PT_E_TRUNCATED] = {"E_TRUNCATED", "truncated data"},
	[PT_E_NOTFOUND] = {"E_NOTFOUND", "not found"},
};

const char *pt_strerror(pt_err err)
{
	if ((unsigned)err >= PT_E__COUNT)
		return "unknown error";
	return errs[err].text;
}

const char *pt_errname(pt_err err)
{
	if ((unsigned)err >= PT_E__COUNT)
		return "E_UNKNOWN";
	return errs[err].name;
}

void pt_error_vat(char *err, size_t len, const char *file, unsigned line, const char *fmt,
		  va_list ap)
{
	int n;

	if (!err || !len)
		return;
	n = snprintf(err, len, "%s:%u: ", file, line);
	if (n < 0 || (size_t)n >= len)
		return;
	vsnprintf(err + n, len - (size_t)n, fmt, ap);
	for (char *c = err; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
}

void pt_error_at(char *err, size_t len, const char *file, unsigned line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pt_error_vat(err, len, file, line, fmt, ap);
	va_end(ap);
}

void pt_error_esc_vat(char *err, size_t errlen, const char *file, unsigned line, const char *fmt,
		      va_list ap)
{
	char raw[1024];
	const unsigned char *p = (const unsigned char *)raw;
	size_t o;
	int n;

	if (!err || !errlen)
		return;
	n = snprintf(err, errlen, "%s:%u: ", file, line);
	if (n < 0 || (size_t)n >= errlen)
		return;
	vsnprintf(raw, sizeof raw, fmt, ap);
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

pt_err pt_err_fmt(char *err, size_t errlen, pt_err rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc;
}
