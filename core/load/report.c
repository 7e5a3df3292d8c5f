/* SPDX-License-Identifier: MIT */
/*
 * report.c — what a load reports: its one error and its warnings, each
 * made safe for a terminal, held in the capture (pt_capture_error(),
 * pt_capture_warning()).  The load layer's files report here, to a file
 * that calls none of them back, rather than into capture.c (issue #41
 * item 3: the load as a one-way chain).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_int.h"

/*
 * Copies S to OUT (LEN bytes) so that it is safe on a terminal: control
 * characters (C0, DEL, C1) and bytes that are not UTF-8 become \xNN.
 * Member names come from the archive and may hold anything.
 */
static void sanitise(char *out, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), o = 0;

	for (size_t i = 0; i < n && o + 1 < len;) {
		size_t l = pt_utf8_len(p + i, n - i);
		bool c1 = l == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0;

		if (l == 0 || c1 || p[i] < 0x20 || p[i] == 0x7f) {
			size_t k = l ? l : 1;

			for (size_t j = 0; j < k && o + 5 < len; j++)
				o += (size_t)snprintf(out + o, len - o, "\\x%02x", p[i + j]);
			if (o + 5 >= len)
				break;
			i += k;
			continue;
		}
		if (o + l >= len)
			break;
		memcpy(out + o, p + i, l);
		o += l;
		i += l;
	}
	out[o] = 0;
}

void pt_capture_vset_error(struct pt_capture *cap, const char *fmt, va_list ap)
{
	char raw[sizeof cap->err];

	vsnprintf(raw, sizeof raw, fmt, ap);
	sanitise(cap->err, sizeof cap->err, raw);
}

void pt_capture_set_error(struct pt_capture *cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pt_capture_vset_error(cap, fmt, ap);
	va_end(ap);
}

void pt_capture_vwarn(struct pt_capture *cap, const char *fmt, va_list ap)
{
	char *raw, *s;
	size_t len;

	if (cap->nwarn >= MAX_WARNINGS) {
		cap->nwarn_dropped++;
		return;
	}
	if (vasprintf(&raw, fmt, ap) < 0)
		return;
	len = strlen(raw) * 4 + 1;
	s = malloc(len);
	if (s)
		sanitise(s, len, raw);
	free(raw);
	if (!s)
		return;
	if (!pt_vec_reserve(&cap->warn, &cap->warncap, cap->nwarn + 1, sizeof *cap->warn)) {
		free(s);
		return;
	}
	cap->warn[cap->nwarn++] = s;
}

void pt_capture_warn(struct pt_capture *cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pt_capture_vwarn(cap, fmt, ap);
	va_end(ap);
}

const char *pt_capture_error(const struct pt_capture *cap)
{
	return cap ? cap->err : "";
}

void pt_text_escape(char *out, size_t len, const char *s)
{
	if (!out || !len)
		return;
	sanitise(out, len, s ? s : "");
}

size_t pt_capture_warning_count(const struct pt_capture *cap)
{
	return cap ? cap->nwarn : 0;
}

const char *pt_capture_warning(const struct pt_capture *cap, size_t i)
{
	return cap && i < cap->nwarn ? cap->warn[i] : NULL;
}
