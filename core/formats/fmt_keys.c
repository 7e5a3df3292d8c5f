/* SPDX-License-Identifier: MIT */
/*
 * fmt_keys.c — the key object of the formats' ctx_key hook (pt_format.h
 * struct pt_ctx_key): the message a format sets for a bad key and the
 * capture.ini number rule it parses a value with.  They are the formats'
 * own contract, here in the formats layer, so that a format calls nothing
 * above it (HACKING.md, "Layers"; issue #41 item 3): the message is
 * formatted by util's pt_error_esc_vat() and the number by pt_num.h, the
 * same two the manifest uses for its own keys.
 */
#include <stdarg.h>

#include "pt_error.h"
#include "pt_format.h"
#include "pt_num.h"

pt_err pt_ctx_key_fail(const struct pt_ctx_key *k, pt_err rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pt_error_esc_vat(k->err, k->errlen, "capture.ini", k->line, fmt, ap);
	va_end(ap);
	return rc;
}

pt_err pt_ctx_key_uint(const struct pt_ctx_key *k, uint64_t *out)
{
	char why[96];

	if (k->value[0] == 0)
		return pt_ctx_key_fail(k, PT_E_VALUE, "empty value for '%s' in %s", k->key, k->label);
	if (pt_num_parse(k->value, PT_NUM_INI, out))
		return PT_OK;
	return pt_ctx_key_fail(k, PT_E_VALUE, "bad integer '%s' for '%s' in %s%s",
			       k->value, k->key, k->label, pt_num_ini_why(k->value, why, sizeof why));
}
